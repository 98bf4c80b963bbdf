/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: service "http", loading: create() reads the configuration,
 * walks the document root and builds every response blob (the layout and
 * the rules are in http.c's header); destroy() frees them.
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
 *   max_header = 8K         request head, request line included (400); 80..64K
 *   max_uri = 4K            request-target (414); 16..8K, max_uri + 64 <= max_header
 *   reload_drain = 10       grace time: seconds a root replaced by a reload is
 *                           kept at least (then until no connection sends
 *                           from it: tfo_http_reclaim); 1..86400
 * tfo_http_check_key() checks each value as the configuration is read,
 * tfo_http_check() the whole section (and the root) before the EAL starts.
 * Going over a limit at load fails create() with the file and the limit
 * named. Keep [tcp] max_request >= max_header so that the 400 is sent
 * before the engine resets the connection.
 *
 * Reload (SIGHUP, /tfo/reload; tfo_service.reload): the same loading into
 * a new table on the reload's own thread, published with one pointer store
 * (http_impl.h, struct http_svc); a refusal leaves the old one serving.
 *
 * Loading choices:
 *  - Symlinks are followed when they resolve inside the root; a symlink
 *    that leaves the root, dangles, or a special file (FIFO, socket,
 *    device) fails create() with the file named. Dot files are served:
 *    everything under the root is public.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

#include "tfo/log.h"
#include "tfo/service.h"

#include "http_impl.h"

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
	char *why;		/* the last error, for a reload's answer */
	size_t whylen;
};

/* Log one loading error and keep it for the caller (reload answers with it). */
static void __attribute__((format(printf, 2, 3)))
http_load_err(const struct http_conf *cf, const char *fmt, ...)
{
	char line[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	TFO_LOG(ERR, "http: %s", line);
	if (cf->why != NULL)
		snprintf(cf->why, cf->whylen, "%s", line);
}

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
		http_load_err(cf, "%s: %s: more than max_files %" PRIu64
			" files", cf->root, key, cf->max_files);
		return -EFBIG;
	}
	if ((uint64_t)sb->st_size > cf->max_file) {
		http_load_err(cf, "%s: %s is %" PRIu64
			" bytes, over max_file_size %" PRIu64, cf->root, key,
			(uint64_t)sb->st_size, cf->max_file);
		return -EFBIG;
	}
	if (L->total + (uint64_t)sb->st_size > cf->max_total) {
		http_load_err(cf, "%s: %s (%" PRIu64 " bytes) would bring the "
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
		http_load_err(cf, "%s: %s: directories nested deeper than %d "
			"(a symlink loop?)", cf->root, dkey, HTTP_MAX_DEPTH);
		return -ELOOP;
	}
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		rc = -errno;
		http_load_err(cf, "%s: cannot read directory %s: %s", cf->root,
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
			http_load_err(cf, "%s: path too long: %s/%s", cf->root,
				dir, name);
			rc = -ENAMETOOLONG;
			continue;
		}
		if (lstat(fs, &sb) < 0) {
			rc = -errno;
			http_load_err(cf, "%s: %s: %s", cf->root, fs,
				strerror(errno));
			continue;
		}
		if (S_ISLNK(sb.st_mode)) {
			if (realpath(fs, real) == NULL || stat(real, &sb) < 0) {
				rc = -errno;
				http_load_err(cf, "%s: symlink %s: %s",
					cf->root, key, strerror(errno));
				continue;
			}
			if (strncmp(real, cf->root, rootlen) != 0 ||
			    (real[rootlen] != '/' && real[rootlen] != '\0')) {
				http_load_err(cf, "%s: symlink %s points "
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
			http_load_err(cf, "%s: %s is not a regular file or a "
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
		http_load_err(cf, "%s: cannot open %s: %s", cf->root, f->fs,
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
		http_load_err(cf, "%s: %s changed size while loading (or read "
			"error)", cf->root, f->fs);
		rc = -EIO;
	}
	close(fd);
	return rc;
}

static int
http_parse_size(const char *v, uint64_t *out, char *why, size_t whylen)
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
	return tfo_errmsg(why, whylen, "expected a size (bytes, or with K, M, G)");
}

static int
http_parse_bool(const char *v, bool *out, char *why, size_t whylen)
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
	return tfo_errmsg(why, whylen, "expected yes or no");
}

/* A header field value we emit verbatim: printable ASCII, bounded. */
static int
http_check_value(const char *v, char *why, size_t whylen)
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
	return tfo_errmsg(why, whylen, "expected at most %d printable ASCII characters "
			  "without leading or trailing spaces", HTTP_VALUE_MAX);
}

/* A size key within [lo, hi]. */
static int
http_parse_range(const char *v, uint64_t lo, uint64_t hi, uint64_t *out,
		 char *why, size_t whylen)
{
	if (http_parse_size(v, out, why, whylen) < 0 || *out < lo || *out > hi)
		return tfo_errmsg(why, whylen, "expected a size in %" PRIu64 "..%" PRIu64
				  " (bytes, or with K, M, G)", lo, hi);
	return 0;
}

/* Seconds, 1..86400 (0 would free a table a request may be reading). */
static int
http_parse_seconds(const char *v, uint64_t *out, char *why, size_t whylen)
{
	char *end;

	errno = 0;
	*out = strtoull(v, &end, 10);
	if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 || *out < 1 ||
	    *out > 86400)
		return tfo_errmsg(why, whylen, "expected seconds in 1..86400");
	return 0;
}

/* One key's value on its own: syntax and range (the configuration parser
 * calls it as it reads the key; http_conf_read for every key). */
int
tfo_http_check_key(const char *key, const char *v, char *why, size_t whylen)
{
	uint64_t x;
	bool b;

	if (strcmp(key, "root") == 0)
		return v[0] == '\0' ? tfo_errmsg(why, whylen, "expected a directory") : 0;
	if (strcmp(key, "index") == 0)
		return v[0] == '\0' || strchr(v, '/') != NULL ?
		       tfo_errmsg(why, whylen, "expected a file name (no '/')") : 0;
	if (strcmp(key, "max_file_size") == 0 || strcmp(key, "max_total_size") == 0 ||
	    strcmp(key, "max_files") == 0)
		return http_parse_size(v, &x, why, whylen);
	if (strcmp(key, "max_uri") == 0)
		return http_parse_range(v, 16, TFO_HTTP_MAX_URI_LIMIT, &x, why, whylen);
	if (strcmp(key, "max_header") == 0)
		return http_parse_range(v, 16 + 64, TFO_HTTP_MAX_HEADER_LIMIT, &x, why,
					whylen);
	if (strcmp(key, "date") == 0)
		return http_parse_bool(v, &b, why, whylen);
	if (strcmp(key, "cache_control") == 0 || strcmp(key, "server_header") == 0)
		return http_check_value(v, why, whylen);
	if (strcmp(key, "reload_drain") == 0)
		return http_parse_seconds(v, &x, why, whylen);
	return 0;
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

/* The section's keys into @p cf, @p lim and @p date, checked; the root
 * must be a readable directory. No DPDK: the configuration check calls it
 * (tfo_http_check) before the EAL starts. */
static int
http_conf_read(const struct tfo_service_args *a, struct http_conf *cf,
	       struct tfo_http_limits *lim, bool *date, char *why, size_t whylen)
{
	static const struct { const char *key, *def; } keys[] = {
		{ "root", "www" }, { "index", "index.html" },
		{ "cache_control", "no-cache" }, { "server_header", "tfo-fastpath" },
		{ "max_file_size", "16M" }, { "max_total_size", "128M" },
		{ "max_files", "100000" }, { "max_header", "8K" }, { "max_uri", "4K" },
		{ "date", "yes" }, { "reload_drain", HTTP_GRACE_DEFAULT },
	};
	const char *root = tfo_service_arg(a, "root", "www");
	uint64_t mh, mu;
	char path[PATH_MAX], r[160];
	struct stat sb;
	int rc;

	for (unsigned int i = 0; i < RTE_DIM(keys); i++) {
		const char *v = tfo_service_arg(a, keys[i].key, keys[i].def);

		if (tfo_http_check_key(keys[i].key, v, r, sizeof(r)) < 0)
			return tfo_errmsg(why, whylen, "%s = %s: %s", keys[i].key, v, r);
	}
	cf->index = tfo_service_arg(a, "index", "index.html");
	cf->cache_control = tfo_service_arg(a, "cache_control", "no-cache");
	cf->server = tfo_service_arg(a, "server_header", "tfo-fastpath");
	/* checked above: these parse */
	http_parse_size(tfo_service_arg(a, "max_file_size", "16M"), &cf->max_file, r,
			sizeof(r));
	http_parse_size(tfo_service_arg(a, "max_total_size", "128M"), &cf->max_total, r,
			sizeof(r));
	http_parse_size(tfo_service_arg(a, "max_files", "100000"), &cf->max_files, r,
			sizeof(r));
	http_parse_size(tfo_service_arg(a, "max_header", "8K"), &mh, r, sizeof(r));
	http_parse_size(tfo_service_arg(a, "max_uri", "4K"), &mu, r, sizeof(r));
	http_parse_bool(tfo_service_arg(a, "date", "yes"), date, r, sizeof(r));
	if (mh < mu + 64)
		return tfo_errmsg(why, whylen, "max_uri = %" PRIu64 ", max_header = %" PRIu64
				  ": need max_uri + 64 <= max_header", mu, mh);
	lim->max_header = (uint32_t)mh;
	lim->max_uri = (uint32_t)mu;
	cf->max_key = (uint32_t)mu;
	if (root[0] == '/' || a->base_dir == NULL || a->base_dir[0] == '\0')
		rc = snprintf(path, sizeof(path), "%s", root);
	else
		rc = snprintf(path, sizeof(path), "%s/%s", a->base_dir, root);
	if ((size_t)rc >= sizeof(path))
		return tfo_errmsg(why, whylen, "root = %s: path too long", root);
	/* a relative root is named with the directory it was resolved from */
	if (strcmp(path, root) == 0)
		path[0] = '\0';
	if (realpath(path[0] ? path : root, cf->root) == NULL || stat(cf->root, &sb) < 0)
		goto no_root;
	if (!S_ISDIR(sb.st_mode))
		errno = ENOTDIR;
	else if (access(cf->root, R_OK | X_OK) == 0)
		return 0;
no_root:
	tfo_errmsg(why, whylen, "root = %s%s%s: %s", root, path[0] ? " = " : "", path,
		   strerror(errno));
	return -ENOENT;	/* create()'s contract for an unusable root */
}

int
tfo_http_check(const struct tfo_service_args *a, char *why, size_t whylen)
{
	struct tfo_http_limits lim;
	struct http_conf cf;
	bool date;

	if (http_conf_read(a, &cf, &lim, &date, why, whylen) < 0)
		return -EINVAL;
	/* a head the engine resets before it is whole never gets its 400 */
	if (a->max_request != 0 && a->max_request < lim.max_header)
		return tfo_errmsg(why, whylen, "max_header = %u above [tcp] max_request = %u: "
				  "a request head that long is reset, never answered 400; "
				  "lower max_header (and max_uri, max_header - 64 at most) "
				  "or raise max_request", lim.max_header, a->max_request);
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
			http_load_err(cf, "%s: %s: two files for one path",
				cf->root, f->key);
	}
	for (int s = S400; s < S_MAX && rc == 0; s++)
		http_blob_small(st, &st->errors[s], &off, hdr, cf, s, NULL);
	return rc;
}

/* What the blobs and tables of a document root take. */
struct http_sizes {
	uint64_t arena;		/* blob bytes, each blob aligned */
	uint64_t keys_len;	/* the paths, NUL-terminated */
	uint32_t nb_dirs;	/* directories with an index file */
	uint32_t nb_redirects;	/* "/dir" -> "/dir/" (all but the root) */
};

/* Sizes: files, then one redirect per directory with an index, then the errors. */
static void
http_measure(struct http_load *L, const struct http_conf *cf, char *hdr, char *loc,
	     struct http_sizes *sz)
{
	size_t ilen = strlen(cf->index);

	memset(sz, 0, sizeof(*sz));
	for (uint32_t i = 0; i < L->nb_files; i++) {
		struct http_file *f = &L->files[i];
		size_t kl = strlen(f->key);
		struct http_obj tmp;

		f->hdr_len = http_file_hdr(hdr, cf, f, 0, &tmp);
		sz->arena += RTE_ALIGN_CEIL(f->hdr_len + f->size, HTTP_BLOB_ALIGN);
		sz->keys_len += kl + 1;
		if (kl > ilen && strcmp(f->key + kl - ilen, cf->index) == 0 &&
		    f->key[kl - ilen - 1] == '/') {
			f->dir_len = (uint32_t)(kl - ilen);
			sz->nb_dirs++;
			if (f->dir_len > 1) {
				http_uri_encode(loc, HTTP_HDR_MAX, f->key,
						f->dir_len);
				sz->arena += RTE_ALIGN_CEIL(http_small_obj(hdr, cf,
						S301, loc, &tmp), HTTP_BLOB_ALIGN);
				sz->nb_redirects++;
			}
		}
	}
	for (int s = S400; s < S_MAX; s++) {
		struct http_obj tmp;

		sz->arena += RTE_ALIGN_CEIL(http_small_obj(hdr, cf, s, NULL, &tmp),
					    HTTP_BLOB_ALIGN);
	}
}

/* The blob memzone, objects, hash slots, paths and per-lcore dates. */
static int
http_setup_memory(struct http_state *st, const struct tfo_service_args *a,
	   const struct http_conf *cf, const struct http_load *L,
	   const struct http_sizes *sz)
{
	static unsigned int instance;
	char mzname[RTE_MEMZONE_NAMESIZE];
	uint64_t nslots;

	/* the blobs: one IOVA-contiguous zone, so blob.iova + off is valid */
	snprintf(mzname, sizeof(mzname), "tfo_http_%u",
		 __atomic_fetch_add(&instance, 1, __ATOMIC_RELAXED));
	st->mz = rte_memzone_reserve_aligned(mzname, sz->arena, a->socket_id,
					     RTE_MEMZONE_IOVA_CONTIG,
					     RTE_CACHE_LINE_SIZE);
	st->nb_objs = L->nb_files + sz->nb_redirects;
	st->nb_files = L->nb_files;
	nslots = rte_align64pow2(2 * (uint64_t)(L->nb_files + sz->nb_dirs +
						 sz->nb_redirects) + 16);
	st->objs = rte_zmalloc_socket("tfo_http_objs",
				      (st->nb_objs + 1) * sizeof(*st->objs),
				      RTE_CACHE_LINE_SIZE, a->socket_id);
	st->slots = rte_zmalloc_socket("tfo_http_slots",
				       nslots * sizeof(*st->slots),
				       RTE_CACHE_LINE_SIZE, a->socket_id);
	st->keys = rte_malloc_socket("tfo_http_keys", sz->keys_len + 1, 0,
				     a->socket_id);
	st->dates = rte_zmalloc_socket("tfo_http_dates",
				       RTE_MAX_LCORE * sizeof(*st->dates),
				       RTE_CACHE_LINE_SIZE, a->socket_id);
	if (st->mz == NULL || st->objs == NULL || st->slots == NULL ||
	    st->keys == NULL || st->dates == NULL) {
		http_load_err(cf, "%s: cannot allocate %" PRIu64 " bytes of "
			"IOVA-contiguous memory for %u files (%" PRIu64
			" bytes of content) on socket %d: give EAL more memory "
			"(-m) or lower max_total_size", cf->root, sz->arena,
			L->nb_files, L->total, a->socket_id);
		return -ENOMEM;
	}
	st->mask = (uint32_t)nslots - 1;
	return 0;
}

/* A table and its memory (NULL: nothing). */
static void
http_table_free(struct http_state *st)
{
	if (st == NULL)
		return;
	rte_memzone_free(st->mz);
	rte_free(st->objs);
	rte_free(st->slots);
	rte_free(st->keys);
	rte_free(st->dates);
	rte_free(st);
}

/* The clock for Date: wall clock now, then the TSC (see http.c). */
static void
http_clock_init(struct http_state *st)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	st->tsc0 = rte_rdtsc();
	st->hz = rte_get_tsc_hz();
	st->sec0 = ts.tv_sec;
	st->frac0 = (uint64_t)ts.tv_nsec * st->hz / 1000000000ULL;
}

/*
 * Load the document root of section @p a into a new table: on create(),
 * and on a reload's own thread (no lcore: only DPDK memory calls that any
 * thread may make). @p why: the reason it failed (also logged).
 */
static int
http_table_load(const struct tfo_service_args *a, struct http_state **out,
		 char *why, size_t whylen)
{
	char hdr[HTTP_HDR_MAX], loc[HTTP_HDR_MAX];
	struct http_load L = { 0 };
	struct http_sizes sz;
	struct http_conf cf;
	struct http_state *st;
	int rc;

	snprintf(why, whylen, "out of memory");
	st = rte_zmalloc_socket("tfo_http", sizeof(*st), RTE_CACHE_LINE_SIZE,
				a->socket_id);
	if (st == NULL)
		return -ENOMEM;
	rc = http_conf_read(a, &cf, &st->lim, &st->date, why, whylen);
	if (rc != 0) {
		TFO_LOG(ERR, "http: %s", why);
		goto fail;
	}
	cf.why = why;
	cf.whylen = whylen;
	L.cf = &cf;
	rc = http_walk(&L, cf.root, "/", 0);
	if (rc != 0)
		goto fail;
	http_measure(&L, &cf, hdr, loc, &sz);
	rc = http_setup_memory(st, a, &cf, &L, &sz);
	if (rc != 0)
		goto fail;
	rc = http_fill(st, &cf, &L, hdr, loc);
	if (rc != 0)
		goto fail;
	http_clock_init(st);

	snprintf(why, whylen, "%u files, %" PRIu64 " bytes from %s "
		 "(%" PRIu64 " KiB with headers, %u directory indexes)",
		 L.nb_files, L.total, cf.root, sz.arena >> 10, sz.nb_dirs);
	*out = st;
	st = NULL;
fail:
	for (uint32_t i = 0; i < L.nb_files; i++) {
		free(L.files[i].key);
		free(L.files[i].fs);
	}
	free(L.files);
	if (st != NULL)
		http_table_free(st);
	return rc;
}

/* A copy of @p str in rte_malloc memory, as the rest of the service's
 * state: what only DPDK memory points to is not a leak to LeakSanitizer,
 * which does not scan that memory. */
static char *
http_strdup(const char *str, int socket)
{
	size_t n = strlen(str) + 1;
	char *d = rte_malloc_socket("tfo_http_arg", n, 0, socket);

	if (d != NULL)
		memcpy(d, str, n);
	return d;
}

/* Keep create()'s arguments for reload(): the configuration they point
 * into belongs to the caller. */
static int
http_args_copy(struct http_svc *sv, const struct tfo_service_args *a)
{
	sv->args = *a;
	sv->kv = rte_zmalloc_socket("tfo_http_kv", (a->nb_kv + 1) * sizeof(*sv->kv), 0,
				    a->socket_id);
	sv->base_dir = a->base_dir != NULL ? http_strdup(a->base_dir, a->socket_id) : NULL;
	if (sv->kv == NULL || (a->base_dir != NULL && sv->base_dir == NULL))
		return -ENOMEM;
	for (unsigned int i = 0; i < a->nb_kv; i++) {
		sv->kv[i].key = http_strdup(a->kv[i].key, a->socket_id);
		sv->kv[i].value = http_strdup(a->kv[i].value, a->socket_id);
		if (sv->kv[i].key == NULL || sv->kv[i].value == NULL)
			return -ENOMEM;
	}
	sv->args.kv = sv->kv;
	sv->args.base_dir = sv->base_dir;
	return 0;
}

int
tfo_http_create(const struct tfo_service_args *a, void **state)
{
	char why[PATH_MAX + 256];
	struct http_svc *sv;
	struct http_state *st;
	uint64_t drain;
	int rc;

	sv = rte_zmalloc_socket("tfo_http_svc", sizeof(*sv), RTE_CACHE_LINE_SIZE,
				a->socket_id);
	if (sv == NULL)
		return -ENOMEM;
	rc = http_args_copy(sv, a);
	if (rc == 0)
		rc = http_table_load(&sv->args, &st, why, sizeof(why));
	if (rc != 0) {
		tfo_http_destroy(sv);
		return rc;
	}
	/* checked by http_conf_read */
	http_parse_seconds(tfo_service_arg(a, "reload_drain", HTTP_GRACE_DEFAULT), &drain, why,
			   sizeof(why));
	sv->drain_s = (uint32_t)drain;
	st->gen = 1;
	sv->cur = st;
	TFO_LOG(INFO, "http: port %u: %s", a->port, why);
	*state = sv;
	return 0;
}

int
tfo_http_reload(void *state, char *msg, size_t msglen)
{
	struct http_svc *sv = state;
	struct http_state *old = sv->cur, *st;
	char why[PATH_MAX + 256];
	unsigned int slot;
	int rc;

	for (slot = 0; slot < HTTP_RETIRED; slot++)
		if (__atomic_load_n(&sv->retired[slot].st, __ATOMIC_ACQUIRE) == NULL)
			break;
	if (slot == HTTP_RETIRED) {
		snprintf(msg, msglen, "http: new root refused, the old one serves: "
			 "%u earlier roots are still draining "
			 "(reload_drain = %u s, then until no connection sends "
			 "from them): retry later", HTTP_RETIRED, sv->drain_s);
		return -EBUSY;
	}
	rc = http_table_load(&sv->args, &st, why, sizeof(why));
	if (rc != 0) {
		snprintf(msg, msglen, "http: new root refused, the old one serves: %s",
			 why);
		return rc;
	}
	st->gen = old->gen + 1;
	sv->retired[slot].grace_tsc = rte_get_tsc_cycles() +
				      (uint64_t)sv->drain_s * rte_get_tsc_hz();
	sv->retired[slot].check_tsc = 0;
	sv->retired[slot].held = false;
	__atomic_store_n(&sv->retired[slot].st, old, __ATOMIC_RELEASE);
	/* from here on every new request is answered from st */
	__atomic_store_n(&sv->cur, st, __ATOMIC_RELEASE);
	snprintf(msg, msglen, "http: port %u: root generation %" PRIu64 " serves: %s; "
		 "generation %" PRIu64 " is freed in %u s or once no connection "
		 "sends from it", sv->args.port, st->gen, why,
		 old->gen, sv->drain_s);
	return 1;
}

/* Retired table @p i: its grace time is over and nothing sends from it. */
static void
http_retired_free(struct http_svc *sv, unsigned int i)
{
	struct http_state *st = sv->retired[i].st;

	TFO_LOG(INFO, "http: port %u: root generation %" PRIu64 " freed",
		sv->args.port, st->gen);
	http_table_free(st);
	__atomic_store_n(&sv->retired[i].st, NULL, __ATOMIC_RELEASE);
}

/* Whether an engine still sends a body of @p st: every blob handle()
 * hands out is an objs[] or an errors[] entry's. */
static bool
http_table_sent(const struct http_state *st, tfo_svc_sends_from_fn sends_from,
		void *arg)
{
	if (sends_from == NULL)
		return false;
	return sends_from(arg, st->objs, st->objs + st->nb_objs) ||
	       sends_from(arg, st->errors, st->errors + RTE_DIM(st->errors));
}

/*
 * A retired table is freed when its grace time is over and no engine
 * sends from it. After the swap (reload) no handle() returns its blobs
 * and after the grace time none that loaded it before the swap is still
 * on its way to a send queue: its references can only go away, so an
 * answer "not referenced" stays true. The check walks every connection:
 * at most once a second per table.
 */
unsigned int
tfo_http_reclaim(void *state, tfo_svc_sends_from_fn sends_from, void *arg)
{
	struct http_svc *sv = state;
	uint64_t now = rte_get_tsc_cycles();
	unsigned int held = 0;

	for (unsigned int i = 0; i < HTTP_RETIRED; i++) {
		struct http_state *st = __atomic_load_n(&sv->retired[i].st,
							__ATOMIC_ACQUIRE);

		if (st == NULL || now < sv->retired[i].grace_tsc ||
		    now < sv->retired[i].check_tsc)
			continue;
		if (!http_table_sent(st, sends_from, arg)) {
			http_retired_free(sv, i);
			continue;
		}
		sv->retired[i].check_tsc = now + rte_get_tsc_hz();
		if (!sv->retired[i].held) {
			sv->retired[i].held = true;
			held++;
			/* once per table; rate-limited too, as every log line on
			 * the control lcore's loop (tests/log_audit.py) */
			TFO_LOG_RATELIMIT(WARNING, "http: port %u: root generation %" PRIu64
				" kept past reload_drain (%u s): connections still "
				"send from it (slow readers); freed once they are "
				"acknowledged or closed", sv->args.port, st->gen,
				sv->drain_s);
		}
	}
	return held;
}

void
tfo_http_destroy(void *state)
{
	struct http_svc *sv = state;

	if (sv == NULL)
		return;
	http_table_free(sv->cur);
	for (unsigned int i = 0; i < HTTP_RETIRED; i++)
		http_table_free(sv->retired[i].st);
	if (sv->kv != NULL)
		for (unsigned int i = 0; i < sv->args.nb_kv; i++) {
			rte_free((void *)(uintptr_t)sv->kv[i].key);
			rte_free((void *)(uintptr_t)sv->kv[i].value);
		}
	rte_free(sv->kv);
	rte_free(sv->base_dir);
	rte_free(sv);
}
