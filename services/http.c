/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: service "http", static files from memory.
 *
 * create() walks the document root and loads every file into one
 * IOVA-contiguous memzone, each as a blob that is exactly what follows the
 * status line of its 200 response:
 *
 *   Content-Type, Content-Length, Last-Modified  | Server, ETag,
 *   Cache-Control, CRLF                          | body
 *   ^0                                ^nm_off           ^hdr_len
 *
 * so a GET sends blob[0, len), a HEAD blob[0, hdr_len) and a 304
 * blob[nm_off, hdr_len), all without copying. handle() writes only the
 * status line, Date and Connection into the engine's buffer (at most
 * HTTP_MIN_BUF bytes). Error and redirect responses are blobs built the
 * same way.
 *
 * Keys of [service http], with their defaults:
 *   root = www              document root (relative: from the config dir)
 *   index = index.html      file that "/dir/" serves
 *   max_file_size = 16M     per file; K, M, G suffixes (powers of 1024)
 *   max_total_size = 128M   sum of the file sizes
 *   max_files = 100000
 *   cache_control = no-cache  Cache-Control value ("" = no header)
 *   server_header = tfo-fastpath  Server value ("" = no header)
 *   date = yes              send Date
 *   max_header = 8K         request head, request line included (400)
 *   max_uri = 4K            request-target (414); max_uri + 64 <= max_header
 * Going over a limit at load fails create() with the file and the limit
 * named. Keep [tcp] max_request >= max_header so that the 400 is sent
 * before the engine resets the connection.
 *
 * Choices (the issue left them open):
 *  - A request with a body (Content-Length > 0, any Transfer-Encoding) is
 *    a 400 and the connection closes: a GET body has no meaning, and not
 *    reading it keeps the service free of body framing (no smuggling).
 *    Content-Length: 0 is accepted (some clients send it).
 *  - Every 400, 405, 414 and 505 closes the connection (the rest of the
 *    bytes cannot be trusted to start a request); 404 and 301 keep it.
 *  - %2F in the path is a 404 (no file name contains a slash), %00 a 400,
 *    %2e counts as a dot; ".." above the root is a 400. There is no file
 *    system access after create(): a path can only name a loaded file.
 *  - "/dir" answers 301 to "/dir/" when dir has an index file; "/dir/"
 *    serves it; no directory listings.
 *  - Symlinks are followed when they resolve inside the root; a symlink
 *    that leaves the root, dangles, or a special file (FIFO, socket,
 *    device) fails create() with the file named. Dot files are served:
 *    everything under the root is public.
 *  - Date: each lcore keeps its own IMF-fixdate string, rebuilt when its
 *    TSC passes the next second boundary (wall clock at create() + TSC):
 *    no shared writes, no locks, no system calls. It drifts with the TSC
 *    (ppm) until the next start. `date = no` drops the header (RFC 9110
 *    6.6.1 allows it without a clock; it makes responses byte-exact).
 *  - If-None-Match uses weak comparison (RFC 9110 13.1.2); If-Modified-Since
 *    is honoured only without If-None-Match and only on an exact match of
 *    Last-Modified (as nginx's default): a later date gets a 200.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

#include "tfo/log.h"
#include "tfo/service.h"
#include "tfo/stats.h"

#include "http.h"

/* Status line + Date + "Connection: keep-alive" fit in this. */
#define HTTP_MIN_BUF 128
#define HTTP_MAX_DEPTH 32
/* a Location of a %-encoded path of max_uri bytes fits */
#define HTTP_HDR_MAX (3 * TFO_HTTP_MAX_URI_LIMIT + 1024)
#define HTTP_BLOB_ALIGN 64
#define HTTP_VALUE_MAX 200

enum http_status {
	S200, S301, S304, S400, S404, S405, S414, S505, S_MAX
};

static const struct {
	const char *line;
	uint8_t len;
	uint16_t code;
	const char *reason;
} http_status_line[S_MAX] = {
#define HTTP_SL(s, c, r) [s] = { "HTTP/1.1 " #c " " r "\r\n", \
	sizeof("HTTP/1.1 " #c " " r "\r\n") - 1, c, r }
	HTTP_SL(S200, 200, "OK"),
	HTTP_SL(S301, 301, "Moved Permanently"),
	HTTP_SL(S304, 304, "Not Modified"),
	HTTP_SL(S400, 400, "Bad Request"),
	HTTP_SL(S404, 404, "Not Found"),
	HTTP_SL(S405, 405, "Method Not Allowed"),
	HTTP_SL(S414, 414, "URI Too Long"),
	HTTP_SL(S505, 505, "HTTP Version Not Supported"),
#undef HTTP_SL
};

/** One response: what follows the status line, in the blob memzone. */
struct http_obj {
	struct tfo_blob blob;
	uint32_t hdr_len;	/* blob[0, hdr_len): header section (HEAD) */
	uint32_t nm_off;	/* blob[nm_off, hdr_len): the 304's fields */
	uint32_t etag_off;	/* quoted ETag in the blob, 0 if none */
	uint16_t etag_len;
	uint16_t lm_off;	/* Last-Modified value (29 bytes), 0 if none */
	uint8_t status;		/* S200 (file), S301 (redirect) or an error */
};

struct http_slot {
	uint32_t hash;
	uint32_t key_len;	/* 0: empty slot */
	const char *key;
	const struct http_obj *obj;
};

/* Written by one lcore only. */
struct http_date {
	uint64_t next_tsc;
	char str[TFO_HTTP_DATE_LEN];
} __rte_cache_aligned;

struct http_state {
	struct tfo_http_limits lim;
	bool date;
	uint32_t mask;			/* slots - 1 */
	struct http_slot *slots;
	struct http_obj *objs;
	uint32_t nb_objs;
	uint32_t nb_files;
	char *keys;
	struct http_obj errors[S_MAX];
	const struct rte_memzone *mz;
	/* wall clock: sec0 + (tsc - tsc0 + frac0) / hz */
	uint64_t hz;
	uint64_t tsc0;
	uint64_t frac0;
	int64_t sec0;
	struct http_date *dates;	/* [RTE_MAX_LCORE], per-lcore writes */
};

/* ------------------------------------------------------------------ */
/* hot path                                                            */

static inline void
http_count(struct tfo_svc_resp *resp, enum tfo_stat_id id)
{
	if (resp->stats != NULL)
		tfo_stats_inc(resp->stats, id);
}

static void
http_date_now(const struct http_state *st, char *out)
{
	uint64_t now = rte_rdtsc(), ticks;
	unsigned int lc = rte_lcore_id();
	struct http_date *d;
	int64_t sec;

	ticks = now - st->tsc0 + st->frac0;
	sec = st->sec0 + (int64_t)(ticks / st->hz);
	if (lc >= RTE_MAX_LCORE) {	/* not an EAL thread: no cache */
		tfo_http_fmt_date(out, sec);
		return;
	}
	d = &st->dates[lc];
	if (now >= d->next_tsc) {
		tfo_http_fmt_date(d->str, sec);
		d->next_tsc = now + (st->hz - ticks % st->hz);
	}
	memcpy(out, d->str, TFO_HTTP_DATE_LEN);
}

#define HTTP_PUT(lit) do { \
	memcpy(b + n, lit, sizeof(lit) - 1); \
	n += sizeof(lit) - 1; \
} while (0)

/*
 * Fill @p resp: status line, Date and Connection in the engine's buffer,
 * then blob[off, off + len) of @p o.
 */
static enum tfo_svc_status
http_send(const struct http_state *st, struct tfo_svc_resp *resp,
	  enum http_status s, const struct http_obj *o, uint32_t off,
	  uint32_t len, uint32_t consumed, bool close, bool keep_alive_hdr)
{
	uint8_t *b = resp->buf;
	uint32_t n = http_status_line[s].len;

	memcpy(b, http_status_line[s].line, n);
	if (st->date) {
		HTTP_PUT("Date: ");
		http_date_now(st, (char *)b + n);
		n += TFO_HTTP_DATE_LEN;
		HTTP_PUT("\r\n");
	}
	if (close)
		HTTP_PUT("Connection: close\r\n");
	else if (keep_alive_hdr)
		HTTP_PUT("Connection: keep-alive\r\n");
	resp->buf_len = n;
	resp->body = &o->blob;
	resp->body_off = off;
	resp->body_len = len;
	resp->consumed = consumed;
	resp->close = close;
	return TFO_SVC_RESPOND;
}

/* An error response; @p head: a HEAD request (headers only). */
static enum tfo_svc_status
http_error(const struct http_state *st, struct tfo_svc_resp *resp,
	   enum http_status s, enum tfo_stat_id id, uint32_t consumed,
	   bool close, bool keep_alive_hdr, bool head)
{
	const struct http_obj *o = &st->errors[s];

	http_count(resp, id);
	return http_send(st, resp, s, o, 0, head ? o->hdr_len : o->blob.len,
			 consumed, close, keep_alive_hdr);
}

/* rte_hash_crc() loads unaligned words (UB); paths start anywhere */
static inline uint32_t
http_key_hash(const char *k, uint32_t len)
{
	uint32_t h = 0;
	uint64_t w;

	for (; len >= 8; len -= 8, k += 8) {
		memcpy(&w, k, 8);
		h = rte_hash_crc_8byte(w, h);
	}
	for (; len > 0; len--, k++)
		h = rte_hash_crc_1byte((uint8_t)*k, h);
	return h;
}

static const struct http_obj *
http_lookup(const struct http_state *st, const char *key, uint32_t len)
{
	uint32_t h = http_key_hash(key, len), i = h & st->mask;
	const struct http_slot *sl;

	for (;;) {
		sl = &st->slots[i];
		if (sl->key_len == 0)
			return NULL;
		if (sl->hash == h && sl->key_len == len &&
		    memcmp(sl->key, key, len) == 0)
			return sl->obj;
		i = (i + 1) & st->mask;
	}
}

static bool
http_not_modified(const struct http_obj *o, const struct tfo_http_req *r)
{
	if (r->nb_inm > 0) {
		for (unsigned int i = 0; i < r->nb_inm; i++)
			if (tfo_http_inm_match(&r->inm[i],
					       (const char *)o->blob.data + o->etag_off,
					       o->etag_len))
				return true;
		return false;
	}
	return r->ims.len == TFO_HTTP_DATE_LEN && o->lm_off != 0 &&
	       memcmp(r->ims.p, o->blob.data + o->lm_off, TFO_HTTP_DATE_LEN) == 0;
}

enum tfo_svc_status
tfo_http_respond(const void *state, const struct tfo_http_req *r,
		 struct tfo_svc_resp *resp)
{
	const struct http_state *st = state;
	char path[TFO_HTTP_MAX_URI_LIMIT + 1];
	const struct http_obj *o;
	uint32_t plen;
	bool head, ka;

	head = r->method == TFO_HTTP_HEAD;
	/* RFC 9112 3.2: exactly one Host in 1.1, at most one in 1.0 */
	if (r->nb_host > 1 || (r->minor == 1 && r->nb_host == 0))
		return http_error(st, resp, S400, TFO_STAT_http_400_host,
				  r->head_len, true, false, head);
	if (r->method == TFO_HTTP_OTHER)
		return http_error(st, resp, S405, TFO_STAT_http_405,
				  r->head_len, true, false, false);
	if (r->body != TFO_HTTP_BODY_NONE)
		return http_error(st, resp, S400, TFO_STAT_http_400_body,
				  r->head_len, true, false, head);

	/* a 1.0 client that asked for keep-alive is told it got it */
	ka = r->minor == 0 && !r->close;
	switch (tfo_http_path(&r->target, path, sizeof(path), &plen)) {
	case TFO_HTTP_PATH_OK:
		break;
	case TFO_HTTP_PATH_NOFILE:
		return http_error(st, resp, S404, TFO_STAT_http_404,
				  r->head_len, r->close, ka, head);
	case TFO_HTTP_PATH_BAD:
	default:
		return http_error(st, resp, S400, TFO_STAT_http_400_path,
				  r->head_len, true, false, head);
	}
	o = http_lookup(st, path, plen);
	if (o == NULL)
		return http_error(st, resp, S404, TFO_STAT_http_404,
				  r->head_len, r->close, ka, head);
	if (o->status == S301) {
		http_count(resp, TFO_STAT_http_301);
		return http_send(st, resp, S301, o, 0,
				 head ? o->hdr_len : o->blob.len, r->head_len,
				 r->close, ka);
	}
	if (http_not_modified(o, r)) {
		http_count(resp, TFO_STAT_http_304);
		return http_send(st, resp, S304, o, o->nm_off,
				 o->hdr_len - o->nm_off, r->head_len, r->close,
				 ka);
	}
	http_count(resp, TFO_STAT_http_200);
	return http_send(st, resp, S200, o, 0, head ? o->hdr_len : o->blob.len,
			 r->head_len, r->close, ka);
}

static enum tfo_svc_status
http_handle(const void *state, const uint8_t *req, uint32_t len,
	    struct tfo_svc_resp *resp)
{
	const struct http_state *st = state;
	struct tfo_http_req r;

	if (len == 0)
		return TFO_SVC_NEED_MORE;
	if (unlikely(resp->buf_cap < HTTP_MIN_BUF)) {
		http_count(resp, TFO_STAT_http_reject_small_buf);
		return TFO_SVC_REJECT;
	}
	switch (tfo_http_parse(req, len, &st->lim, &r)) {
	case TFO_HTTP_OK:
		break;
	case TFO_HTTP_INCOMPLETE:
		return TFO_SVC_NEED_MORE;
	case TFO_HTTP_E_TOO_BIG:
		return http_error(st, resp, S400, TFO_STAT_http_400_too_big,
				  len, true, false, false);
	case TFO_HTTP_E_URI_LONG:
		return http_error(st, resp, S414, TFO_STAT_http_414, len, true,
				  false, false);
	case TFO_HTTP_E_VERSION:
		return http_error(st, resp, S505, TFO_STAT_http_505, len, true,
				  false, false);
	case TFO_HTTP_E_SYNTAX:
	default:
		return http_error(st, resp, S400, TFO_STAT_http_400_syntax,
				  len, true, false, false);
	}
	return tfo_http_respond(st, &r, resp);
}

/* ------------------------------------------------------------------ */
/* loading                                                             */

struct http_file {
	char *key;		/* "/dir/name", what a request path decodes to */
	char *fs;		/* path on disk */
	uint64_t size;
	int64_t mtime;
	const char *ctype;
	uint32_t hdr_len;
	uint32_t dir_len;	/* index files: key[0, dir_len) is "/dir/" */
};

struct http_conf {
	char root[PATH_MAX];	/* realpath of the document root */
	const char *index;
	const char *cache_control;
	const char *server;
	uint32_t max_key;	/* a longer path cannot be asked for */
	uint64_t max_file;
	uint64_t max_total;
	uint64_t max_files;
};

struct http_load {
	const struct http_conf *cf;
	struct http_file *files;
	uint32_t nb_files;
	uint32_t cap;
	uint64_t total;
};

static const struct {
	const char *ext;
	const char *type;
} http_mime[] = {
	{ "html", "text/html; charset=utf-8" },
	{ "htm", "text/html; charset=utf-8" },
	{ "css", "text/css; charset=utf-8" },
	{ "js", "text/javascript; charset=utf-8" },
	{ "mjs", "text/javascript; charset=utf-8" },
	{ "json", "application/json" },
	{ "map", "application/json" },
	{ "txt", "text/plain; charset=utf-8" },
	{ "md", "text/markdown; charset=utf-8" },
	{ "csv", "text/csv; charset=utf-8" },
	{ "xml", "application/xml" },
	{ "svg", "image/svg+xml" },
	{ "png", "image/png" },
	{ "jpg", "image/jpeg" },
	{ "jpeg", "image/jpeg" },
	{ "gif", "image/gif" },
	{ "webp", "image/webp" },
	{ "avif", "image/avif" },
	{ "ico", "image/vnd.microsoft.icon" },
	{ "woff", "font/woff" },
	{ "woff2", "font/woff2" },
	{ "ttf", "font/ttf" },
	{ "otf", "font/otf" },
	{ "pdf", "application/pdf" },
	{ "wasm", "application/wasm" },
	{ "zip", "application/zip" },
	{ "gz", "application/gzip" },
	{ "tar", "application/x-tar" },
	{ "mp4", "video/mp4" },
	{ "webm", "video/webm" },
	{ "mp3", "audio/mpeg" },
	{ "ogg", "audio/ogg" },
};

static const char *
http_content_type(const char *name)
{
	const char *dot = strrchr(name, '.');

	if (dot != NULL && dot != name)
		for (unsigned int i = 0; i < RTE_DIM(http_mime); i++)
			if (strcasecmp(dot + 1, http_mime[i].ext) == 0)
				return http_mime[i].type;
	return "application/octet-stream";
}

/* Not cryptographic: an ETag only has to change when the content does. */
static uint64_t
http_content_hash(const uint8_t *p, uint64_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	uint64_t h = 0xcbf29ce484222325ULL ^ (n * k), w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, p, n);
	h = (h ^ w) * k;
	/* murmur3 finalizer */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* Header section of a file's 200 (offsets into it through @p o). */
static uint32_t
http_file_hdr(char *out, const struct http_conf *cf, const struct http_file *f,
	      uint64_t hash, struct http_obj *o)
{
	char lm[TFO_HTTP_DATE_LEN + 1];
	int n, m;

	tfo_http_fmt_date(lm, f->mtime < 0 ? 0 : f->mtime);
	lm[TFO_HTTP_DATE_LEN] = '\0';
	n = snprintf(out, HTTP_HDR_MAX,
		     "Content-Type: %s\r\nContent-Length: %" PRIu64
		     "\r\nLast-Modified: ", f->ctype, f->size);
	o->lm_off = (uint16_t)n;
	n += snprintf(out + n, HTTP_HDR_MAX - n, "%s\r\n", lm);
	o->nm_off = (uint32_t)n;
	if (cf->server[0] != '\0')
		n += snprintf(out + n, HTTP_HDR_MAX - n, "Server: %s\r\n",
			      cf->server);
	m = snprintf(out + n, HTTP_HDR_MAX - n, "ETag: ");
	o->etag_off = (uint32_t)(n + m);
	o->etag_len = 18;
	n += m;
	n += snprintf(out + n, HTTP_HDR_MAX - n, "\"%016" PRIx64 "\"\r\n", hash);
	if (cf->cache_control[0] != '\0')
		n += snprintf(out + n, HTTP_HDR_MAX - n, "Cache-Control: %s\r\n",
			      cf->cache_control);
	n += snprintf(out + n, HTTP_HDR_MAX - n, "\r\n");
	o->hdr_len = (uint32_t)n;
	return (uint32_t)n;
}

/* Percent-encode what may not appear raw in a Location path. */
static size_t
http_uri_encode(char *out, size_t cap, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (n + 4 > cap)
			break;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~/!$&'()*+,;=:@", c)) {
			out[n++] = (char)c;
		} else {
			out[n++] = '%';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		}
	}
	out[n] = '\0';
	return n;
}

/*
 * Header section and body of an error (status @p s) or, with @p location,
 * a redirect there. @p out: HTTP_HDR_MAX bytes. @return the length.
 */
static uint32_t
http_small_obj(char *out, const struct http_conf *cf, enum http_status s,
	       const char *location, struct http_obj *o)
{
	char body[64];
	int n = 0, bl;

	bl = snprintf(body, sizeof(body), "%u %s\n", http_status_line[s].code,
		      http_status_line[s].reason);
	if (cf->server[0] != '\0')
		n += snprintf(out + n, HTTP_HDR_MAX - n, "Server: %s\r\n",
			      cf->server);
	if (s == S405)
		n += snprintf(out + n, HTTP_HDR_MAX - n, "Allow: GET, HEAD\r\n");
	if (location != NULL)
		n += snprintf(out + n, HTTP_HDR_MAX - n, "Location: %s\r\n",
			      location);
	n += snprintf(out + n, HTTP_HDR_MAX - n,
		      "Content-Type: text/plain; charset=utf-8\r\n"
		      "Content-Length: %d\r\n\r\n", bl);
	o->hdr_len = (uint32_t)n;
	o->nm_off = 0;
	o->etag_off = 0;
	o->etag_len = 0;
	o->lm_off = 0;
	o->status = (uint8_t)s;
	memcpy(out + n, body, (size_t)bl);
	return (uint32_t)(n + bl);
}

static int
http_add_file(struct http_load *L, const char *fs, const char *key,
	      const struct stat *sb)
{
	const struct http_conf *cf = L->cf;
	struct http_file *f;

	if (strlen(key) > cf->max_key) {
		TFO_LOG(WARNING, "http: %s: %s skipped: its path is longer than "
			"max_uri %u, no request can name it", cf->root, key,
			cf->max_key);
		return 0;
	}
	if (L->nb_files >= cf->max_files) {
		TFO_LOG(ERR, "http: %s: %s: more than max_files %" PRIu64
			" files", cf->root, key, cf->max_files);
		return -EFBIG;
	}
	if ((uint64_t)sb->st_size > cf->max_file) {
		TFO_LOG(ERR, "http: %s: %s is %" PRIu64
			" bytes, over max_file_size %" PRIu64, cf->root, key,
			(uint64_t)sb->st_size, cf->max_file);
		return -EFBIG;
	}
	if (L->total + (uint64_t)sb->st_size > cf->max_total) {
		TFO_LOG(ERR, "http: %s: %s (%" PRIu64 " bytes) would bring the "
			"total to %" PRIu64 " bytes, over max_total_size %"
			PRIu64 " (%u files loaded before it)", cf->root, key,
			(uint64_t)sb->st_size, L->total + (uint64_t)sb->st_size,
			cf->max_total, L->nb_files);
		return -EFBIG;
	}
	if (L->nb_files == L->cap) {
		uint32_t ncap = L->cap ? 2 * L->cap : 64;
		struct http_file *nf = realloc(L->files, ncap * sizeof(*nf));

		if (nf == NULL)
			return -ENOMEM;
		L->files = nf;
		L->cap = ncap;
	}
	f = &L->files[L->nb_files];
	memset(f, 0, sizeof(*f));
	f->key = strdup(key);
	f->fs = strdup(fs);
	if (f->key == NULL || f->fs == NULL) {
		free(f->key);
		free(f->fs);
		return -ENOMEM;
	}
	f->size = (uint64_t)sb->st_size;
	f->mtime = (int64_t)sb->st_mtime;
	f->ctype = http_content_type(strrchr(key, '/') + 1);
	L->nb_files++;
	L->total += f->size;
	return 0;
}

static int
http_walk(struct http_load *L, const char *dir, const char *dkey,
	  unsigned int depth)
{
	const struct http_conf *cf = L->cf;
	size_t rootlen = strlen(cf->root);
	char fs[PATH_MAX], key[PATH_MAX], real[PATH_MAX];
	struct dirent **ents = NULL;
	int n, rc = 0;
	struct stat sb;

	if (depth > HTTP_MAX_DEPTH) {
		TFO_LOG(ERR, "http: %s: %s: directories nested deeper than %d "
			"(a symlink loop?)", cf->root, dkey, HTTP_MAX_DEPTH);
		return -ELOOP;
	}
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		rc = -errno;
		TFO_LOG(ERR, "http: %s: cannot read directory %s: %s", cf->root,
			dir, strerror(errno));
		return rc;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (rc != 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		if ((size_t)snprintf(fs, sizeof(fs), "%s/%s", dir, name) >=
		    sizeof(fs) ||
		    (size_t)snprintf(key, sizeof(key), "%s%s", dkey, name) >=
		    sizeof(key)) {
			TFO_LOG(ERR, "http: %s: path too long: %s/%s", cf->root,
				dir, name);
			rc = -ENAMETOOLONG;
			continue;
		}
		if (lstat(fs, &sb) < 0) {
			rc = -errno;
			TFO_LOG(ERR, "http: %s: %s: %s", cf->root, fs,
				strerror(errno));
			continue;
		}
		if (S_ISLNK(sb.st_mode)) {
			if (realpath(fs, real) == NULL || stat(real, &sb) < 0) {
				rc = -errno;
				TFO_LOG(ERR, "http: %s: symlink %s: %s",
					cf->root, key, strerror(errno));
				continue;
			}
			if (strncmp(real, cf->root, rootlen) != 0 ||
			    (real[rootlen] != '/' && real[rootlen] != '\0')) {
				TFO_LOG(ERR, "http: %s: symlink %s points "
					"outside the root, to %s", cf->root,
					key, real);
				rc = -EPERM;
				continue;
			}
		}
		if (S_ISDIR(sb.st_mode)) {
			if (strlen(key) + 2 > sizeof(key)) {
				rc = -ENAMETOOLONG;
				continue;
			}
			strcat(key, "/");
			rc = http_walk(L, fs, key, depth + 1);
		} else if (S_ISREG(sb.st_mode)) {
			rc = http_add_file(L, fs, key, &sb);
		} else {
			TFO_LOG(ERR, "http: %s: %s is not a regular file or a "
				"directory", cf->root, key);
			rc = -EINVAL;
		}
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return rc;
}

/* Read @p f into @p dst (f->size bytes): the file must not have changed. */
static int
http_read_file(const struct http_conf *cf, const struct http_file *f,
	       uint8_t *dst)
{
	uint64_t got = 0;
	uint8_t extra;
	ssize_t r;
	int fd, rc = 0;

	fd = open(f->fs, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		rc = -errno;
		TFO_LOG(ERR, "http: %s: cannot open %s: %s", cf->root, f->fs,
			strerror(errno));
		return rc;
	}
	while (got < f->size) {
		r = read(fd, dst + got, f->size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (uint64_t)r;
	}
	if (got != f->size || read(fd, &extra, 1) != 0) {
		TFO_LOG(ERR, "http: %s: %s changed size while loading (or read "
			"error)", cf->root, f->fs);
		rc = -EIO;
	}
	close(fd);
	return rc;
}

static int
http_parse_size(const char *key, const char *v, uint64_t *out)
{
	char *end;
	unsigned long long x;
	unsigned int shift = 0;

	errno = 0;
	x = strtoull(v, &end, 10);
	if (end == v || v[0] == '-' || errno != 0)
		goto bad;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		end++;
		break;
	case 'm': case 'M':
		shift = 20;
		end++;
		break;
	case 'g': case 'G':
		shift = 30;
		end++;
		break;
	default:
		break;
	}
	if (shift != 0 && strcmp(end, "iB") == 0)
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end != '\0' || x > (UINT64_MAX >> shift))
		goto bad;
	*out = (uint64_t)x << shift;
	return 0;
bad:
	TFO_LOG(ERR, "http: %s = %s: expected a size (bytes, or with K, M, G)",
		key, v);
	return -EINVAL;
}

static int
http_parse_bool(const char *key, const char *v, bool *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
	    !strcasecmp(v, "on") || !strcmp(v, "1")) {
		*out = true;
		return 0;
	}
	if (!strcasecmp(v, "no") || !strcasecmp(v, "false") ||
	    !strcasecmp(v, "off") || !strcmp(v, "0")) {
		*out = false;
		return 0;
	}
	TFO_LOG(ERR, "http: %s = %s: expected yes or no", key, v);
	return -EINVAL;
}

/* A header field value we emit verbatim: printable ASCII, bounded. */
static int
http_check_value(const char *key, const char *v)
{
	size_t n = strlen(v);

	if (n > HTTP_VALUE_MAX)
		goto bad;
	for (size_t i = 0; i < n; i++)
		if (v[i] < 0x20 || v[i] > 0x7e)
			goto bad;
	if (n > 0 && (v[0] == ' ' || v[n - 1] == ' '))
		goto bad;
	return 0;
bad:
	TFO_LOG(ERR, "http: %s: expected at most %d printable ASCII characters "
		"without leading or trailing spaces", key, HTTP_VALUE_MAX);
	return -EINVAL;
}

static int
http_table_add(struct http_state *st, const char *key, uint32_t len,
	       const struct http_obj *o)
{
	uint32_t h = http_key_hash(key, len), i = h & st->mask;

	while (st->slots[i].key_len != 0) {
		if (st->slots[i].key_len == len &&
		    memcmp(st->slots[i].key, key, len) == 0)
			return -EEXIST;
		i = (i + 1) & st->mask;
	}
	st->slots[i].hash = h;
	st->slots[i].key_len = len;
	st->slots[i].key = key;
	st->slots[i].obj = o;
	return 0;
}

static void http_destroy(void *state);

static int
http_conf_read(const struct tfo_service_args *a, struct http_conf *cf,
	       struct tfo_http_limits *lim, bool *date)
{
	const char *root = tfo_service_arg(a, "root", "www");
	uint64_t mh, mu;
	char path[PATH_MAX];
	struct stat sb;
	int rc = 0;

	cf->index = tfo_service_arg(a, "index", "index.html");
	cf->cache_control = tfo_service_arg(a, "cache_control", "no-cache");
	cf->server = tfo_service_arg(a, "server_header", "tfo-fastpath");
	rc |= http_parse_size("max_file_size",
			      tfo_service_arg(a, "max_file_size", "16M"),
			      &cf->max_file);
	rc |= http_parse_size("max_total_size",
			      tfo_service_arg(a, "max_total_size", "128M"),
			      &cf->max_total);
	rc |= http_parse_size("max_files",
			      tfo_service_arg(a, "max_files", "100000"),
			      &cf->max_files);
	rc |= http_parse_size("max_header",
			      tfo_service_arg(a, "max_header", "8K"), &mh);
	rc |= http_parse_size("max_uri", tfo_service_arg(a, "max_uri", "4K"),
			      &mu);
	rc |= http_parse_bool("date", tfo_service_arg(a, "date", "yes"), date);
	rc |= http_check_value("cache_control", cf->cache_control);
	rc |= http_check_value("server_header", cf->server);
	if (rc != 0)
		return -EINVAL;
	if (cf->index[0] == '\0' || strchr(cf->index, '/') != NULL) {
		TFO_LOG(ERR, "http: index = %s: expected a file name",
			cf->index);
		return -EINVAL;
	}
	if (mu < 16 || mu > TFO_HTTP_MAX_URI_LIMIT || mh > TFO_HTTP_MAX_HEADER_LIMIT ||
	    mh < mu + 64) {
		TFO_LOG(ERR, "http: max_uri = %" PRIu64 ", max_header = %" PRIu64
			": need 16 <= max_uri <= %d and max_uri + 64 <= "
			"max_header <= %d", mu, mh, TFO_HTTP_MAX_URI_LIMIT,
			TFO_HTTP_MAX_HEADER_LIMIT);
		return -EINVAL;
	}
	lim->max_header = (uint32_t)mh;
	lim->max_uri = (uint32_t)mu;
	cf->max_key = (uint32_t)mu;
	if (root[0] == '/' || a->base_dir == NULL || a->base_dir[0] == '\0')
		rc = snprintf(path, sizeof(path), "%s", root);
	else
		rc = snprintf(path, sizeof(path), "%s/%s", a->base_dir, root);
	if ((size_t)rc >= sizeof(path) || realpath(path, cf->root) == NULL ||
	    stat(cf->root, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		TFO_LOG(ERR, "http: root = %s: %s is not a readable directory",
			root, path);
		return -ENOENT;
	}
	return 0;
}

/* Point @p o at the next @p len bytes of the blob zone, from *off on. */
static uint8_t *
http_blob_take(struct http_state *st, struct http_obj *o, uint64_t *off,
	       uint32_t len)
{
	uint8_t *base = (uint8_t *)st->mz->addr + *off;

	o->blob.data = base;
	o->blob.len = len;
	o->blob.iova = st->mz->iova == RTE_BAD_IOVA ? RTE_BAD_IOVA :
		       st->mz->iova + *off;
	*off += RTE_ALIGN_CEIL(len, HTTP_BLOB_ALIGN);
	return base;
}

/* A small object (error, redirect) built in @p hdr, copied to the zone. */
static void
http_blob_small(struct http_state *st, struct http_obj *o, uint64_t *off,
		char *hdr, const struct http_conf *cf, enum http_status s,
		const char *location)
{
	uint32_t n = http_small_obj(hdr, cf, s, location, o);

	memcpy(http_blob_take(st, o, off, n), hdr, n);
}

/*
 * Read the files into the blob zone behind their headers, and key them:
 * "/dir/name"; an index file also as "/dir/", plus "/dir" -> 301.
 */
static int
http_fill(struct http_state *st, const struct http_conf *cf,
	  const struct http_load *L, char *hdr, char *loc)
{
	uint64_t off = 0, keys_len = 0;
	uint32_t o_i = 0, kl;
	int rc = 0;

	for (uint32_t i = 0; i < L->nb_files && rc == 0; i++) {
		const struct http_file *f = &L->files[i];
		struct http_obj *o = &st->objs[o_i++];
		char *key = st->keys + keys_len;
		uint8_t *base = http_blob_take(st, o, &off,
					       (uint32_t)(f->hdr_len + f->size));

		rc = http_read_file(cf, f, base + f->hdr_len);
		if (rc != 0)
			return rc;
		if (http_file_hdr(hdr, cf, f, http_content_hash(base +
				  f->hdr_len, f->size), o) != f->hdr_len)
			return -EIO;
		memcpy(base, hdr, f->hdr_len);
		o->status = S200;
		kl = (uint32_t)strlen(f->key);
		memcpy(key, f->key, kl + 1);
		keys_len += kl + 1;
		rc = http_table_add(st, key, kl, o);
		if (rc == 0 && f->dir_len != 0)
			rc = http_table_add(st, key, f->dir_len, o);
		if (rc == 0 && f->dir_len > 1) {
			struct http_obj *r = &st->objs[o_i++];

			http_uri_encode(loc, HTTP_HDR_MAX, f->key, f->dir_len);
			http_blob_small(st, r, &off, hdr, cf, S301, loc);
			rc = http_table_add(st, key, f->dir_len - 1, r);
		}
		if (rc != 0)
			TFO_LOG(ERR, "http: %s: %s: two files for one path",
				cf->root, f->key);
	}
	for (int s = S400; s < S_MAX && rc == 0; s++)
		http_blob_small(st, &st->errors[s], &off, hdr, cf, s, NULL);
	return rc;
}

static int
http_create(const struct tfo_service_args *a, void **state)
{
	static unsigned int instance;
	char hdr[HTTP_HDR_MAX], loc[HTTP_HDR_MAX], mzname[RTE_MEMZONE_NAMESIZE];
	struct http_load L = { 0 };
	struct http_conf cf;
	struct http_state *st;
	uint64_t arena = 0, keys_len = 0, nslots;
	uint32_t nb_dirs = 0, nb_redirects = 0;
	size_t ilen;
	struct timespec ts;
	int rc;

	st = rte_zmalloc_socket("tfo_http", sizeof(*st), RTE_CACHE_LINE_SIZE,
				a->socket_id);
	if (st == NULL)
		return -ENOMEM;
	rc = http_conf_read(a, &cf, &st->lim, &st->date);
	if (rc != 0)
		goto fail;
	L.cf = &cf;
	rc = http_walk(&L, cf.root, "/", 0);
	if (rc != 0)
		goto fail;

	/* sizes: files, then one redirect per directory with an index */
	ilen = strlen(cf.index);
	for (uint32_t i = 0; i < L.nb_files; i++) {
		struct http_file *f = &L.files[i];
		size_t kl = strlen(f->key);
		struct http_obj tmp;

		f->hdr_len = http_file_hdr(hdr, &cf, f, 0, &tmp);
		arena += RTE_ALIGN_CEIL(f->hdr_len + f->size, HTTP_BLOB_ALIGN);
		keys_len += kl + 1;
		if (kl > ilen && strcmp(f->key + kl - ilen, cf.index) == 0 &&
		    f->key[kl - ilen - 1] == '/') {
			f->dir_len = (uint32_t)(kl - ilen);
			nb_dirs++;
			if (f->dir_len > 1) {
				http_uri_encode(loc, sizeof(loc), f->key,
						f->dir_len);
				arena += RTE_ALIGN_CEIL(http_small_obj(hdr, &cf,
						S301, loc, &tmp), HTTP_BLOB_ALIGN);
				nb_redirects++;
			}
		}
	}
	for (int s = S400; s < S_MAX; s++) {
		struct http_obj tmp;

		arena += RTE_ALIGN_CEIL(http_small_obj(hdr, &cf, s, NULL, &tmp),
					HTTP_BLOB_ALIGN);
	}

	/* the blobs: one IOVA-contiguous zone, so blob.iova + off is valid */
	snprintf(mzname, sizeof(mzname), "tfo_http_%u",
		 __atomic_fetch_add(&instance, 1, __ATOMIC_RELAXED));
	st->mz = rte_memzone_reserve_aligned(mzname, arena, a->socket_id,
					     RTE_MEMZONE_IOVA_CONTIG,
					     RTE_CACHE_LINE_SIZE);
	st->nb_objs = L.nb_files + nb_redirects;
	st->nb_files = L.nb_files;
	nslots = rte_align64pow2(2 * (uint64_t)(L.nb_files + nb_dirs +
						 nb_redirects) + 16);
	st->objs = rte_zmalloc_socket("tfo_http_objs",
				      (st->nb_objs + 1) * sizeof(*st->objs),
				      RTE_CACHE_LINE_SIZE, a->socket_id);
	st->slots = rte_zmalloc_socket("tfo_http_slots",
				       nslots * sizeof(*st->slots),
				       RTE_CACHE_LINE_SIZE, a->socket_id);
	st->keys = rte_malloc_socket("tfo_http_keys", keys_len + 1, 0,
				     a->socket_id);
	st->dates = rte_zmalloc_socket("tfo_http_dates",
				       RTE_MAX_LCORE * sizeof(*st->dates),
				       RTE_CACHE_LINE_SIZE, a->socket_id);
	if (st->mz == NULL || st->objs == NULL || st->slots == NULL ||
	    st->keys == NULL || st->dates == NULL) {
		TFO_LOG(ERR, "http: %s: cannot allocate %" PRIu64 " bytes of "
			"IOVA-contiguous memory for %u files (%" PRIu64
			" bytes of content) on socket %d: give EAL more memory "
			"(-m) or lower max_total_size", cf.root, arena,
			L.nb_files, L.total, a->socket_id);
		rc = -ENOMEM;
		goto fail;
	}
	st->mask = (uint32_t)nslots - 1;

	rc = http_fill(st, &cf, &L, hdr, loc);
	if (rc != 0)
		goto fail;

	/* the clock for Date */
	clock_gettime(CLOCK_REALTIME, &ts);
	st->tsc0 = rte_rdtsc();
	st->hz = rte_get_tsc_hz();
	st->sec0 = ts.tv_sec;
	st->frac0 = (uint64_t)ts.tv_nsec * st->hz / 1000000000ULL;

	TFO_LOG(INFO, "http: port %u: %u files, %" PRIu64 " bytes from %s "
		"(%" PRIu64 " KiB with headers, %u directory indexes)",
		a->port, L.nb_files, L.total, cf.root, arena >> 10, nb_dirs);
	rc = 0;
	*state = st;
	st = NULL;
fail:
	for (uint32_t i = 0; i < L.nb_files; i++) {
		free(L.files[i].key);
		free(L.files[i].fs);
	}
	free(L.files);
	if (st != NULL)
		http_destroy(st);
	return rc;
}

static void
http_destroy(void *state)
{
	struct http_state *st = state;

	if (st == NULL)
		return;
	rte_memzone_free(st->mz);
	rte_free(st->objs);
	rte_free(st->slots);
	rte_free(st->keys);
	rte_free(st->dates);
	rte_free(st);
}

static const char *const http_keys[] = {
	"root", "index", "max_file_size", "max_total_size", "max_files",
	"cache_control", "server_header", "date", "max_header", "max_uri",
	NULL
};

static struct tfo_service http_service = {
	.name = "http",
	.help = "static files from memory: GET/HEAD, 304, keep-alive (root = DIR)",
	.keys = http_keys,
	.create = http_create,
	.destroy = http_destroy,
	.handle = http_handle,
};

TFO_SERVICE_REGISTER(http_service);
