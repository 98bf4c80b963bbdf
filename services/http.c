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
 * Keys of [service http] and the loading: http_load.c.
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
 *  - Date: each lcore keeps its own IMF-fixdate string, rebuilt when its
 *    TSC passes the next second boundary (wall clock at create() + TSC):
 *    no shared writes, no locks, no system calls. It drifts with the TSC
 *    (ppm) until the next start. `date = no` drops the header (RFC 9110
 *    6.6.1 allows it without a clock; it makes responses byte-exact).
 *  - If-None-Match uses weak comparison (RFC 9110 13.1.2); If-Modified-Since
 *    is honoured only without If-None-Match and only on an exact match of
 *    Last-Modified (as nginx's default): a later date gets a 200.
 */
#include <stdbool.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "tfo/service.h"
#include "tfo/stats.h"

#include "http.h"
#include "http_impl.h"

const struct http_status_line http_status_line[S_MAX] = {
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
	resp->status = http_status_line[s].code;
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

static enum tfo_svc_status
http_respond(const struct http_state *st, const struct tfo_http_req *r,
	     struct tfo_svc_resp *resp)
{
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

enum tfo_svc_status
tfo_http_respond(const void *state, const struct tfo_http_req *r,
		 struct tfo_svc_resp *resp)
{
	return http_respond(http_cur(state), r, resp);
}

static enum tfo_svc_status
http_handle(const void *state, const struct tfo_svc_ctx *ctx __rte_unused,
	    const uint8_t *req, uint32_t len,
	    struct tfo_svc_resp *resp)
{
	/* one root for the whole request, even if a reload publishes another */
	const struct http_state *st = http_cur(state);
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
	return http_respond(st, &r, resp);
}

static const char *const http_keys[] = {
	"root", "index", "max_file_size", "max_total_size", "max_files",
	"cache_control", "server_header", "date", "max_header", "max_uri",
	"reload_drain", NULL
};

static struct tfo_service http_service = {
	.name = "http",
	.help = "static files from memory: GET/HEAD, 304, keep-alive (root = DIR)",
	.keys = http_keys,
	.create = tfo_http_create,
	.destroy = tfo_http_destroy,
	.handle = http_handle,
	.check_key = tfo_http_check_key,
	.check = tfo_http_check,
	.reload = tfo_http_reload,
	.reclaim = tfo_http_reclaim,
};

TFO_SERVICE_REGISTER(http_service);
