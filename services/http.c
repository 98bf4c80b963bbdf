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
 * blob[nm_off, hdr_len), all without copying; a 206 copies the header
 * section into the buffer with its Content-Length replaced and sends the
 * range of the body from the blob. handle() writes only the
 * status line, Date and Connection into the engine's buffer (at most
 * HTTP_MIN_BUF bytes). Error and redirect responses are blobs built the
 * same way.
 *
 * Keys of [service http] and the loading: http_load.c.
 *
 * Choices (the issue left them open):
 *  - A GET/HEAD with a body (Content-Length > 0, any Transfer-Encoding) is
 *    a 400 and the connection closes: a GET body has no meaning, and not
 *    reading it keeps the service free of body framing (no smuggling).
 *    Content-Length: 0 is accepted (some clients send it). POST, where a
 *    path rule allows it, is framed by Content-Length only (411 without,
 *    or with Transfer-Encoding; 413 over max_body) and answered once the
 *    whole body is here; as TFO SYN data it is a 425 unless the rule says
 *    post_in_syn (RFC 7413 6.3.1); elsewhere it is a 405.
 *  - Every 400, 405, 414 and 505 closes the connection (the rest of the
 *    bytes cannot be trusted to start a request); 404 and 301 keep it.
 *  - %2F in the path is a 404 (no file name contains a slash) unless
 *    encoded_slash says decode or keep; %00 a 400, %2e counts as a dot;
 *    ".." above the root is a 400. An OCSP path's base64 is decoded on
 *    its own (a %2F there is part of it).
 *  - Range: one range of a file (206, 416 past the end); several ranges
 *    are answered 200 in full (no multipart/byteranges). There is no file
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

#include "http.h"
#include "http_impl.h"

const struct http_status_line http_status_line[S_MAX] = {
#define HTTP_SL(s, c, r) [s] = { "HTTP/1.1 " #c " " r "\r\n", \
	sizeof("HTTP/1.1 " #c " " r "\r\n") - 1, c, r }
	HTTP_SL(S200, 200, "OK"),
	HTTP_SL(S204, 204, "No Content"),
	HTTP_SL(S206, 206, "Partial Content"),
	HTTP_SL(S301, 301, "Moved Permanently"),
	HTTP_SL(S304, 304, "Not Modified"),
	HTTP_SL(S400, 400, "Bad Request"),
	HTTP_SL(S404, 404, "Not Found"),
	HTTP_SL(S405, 405, "Method Not Allowed"),
	HTTP_SL(S411, 411, "Length Required"),
	HTTP_SL(S413, 413, "Content Too Large"),
	HTTP_SL(S414, 414, "URI Too Long"),
	HTTP_SL(S416, 416, "Range Not Satisfiable"),
	HTTP_SL(S425, 425, "Too Early"),
	HTTP_SL(S505, 505, "HTTP Version Not Supported"),
#undef HTTP_SL
};

/*
 * The counters http declares (tfo_service.counters): responses by status,
 * a 400 by reason. The names are the ones the stats line, tfo-prom and the
 * runbook have always used; "<service>_<NNN>[_<reason>]" makes each a
 * status counter (tfo/service.h).
 */
enum http_ctr {
	HC_200, HC_204, HC_206, HC_301, HC_304, HC_404, HC_405, HC_411,
	HC_413, HC_414, HC_416, HC_425, HC_505, HC_400_SYNTAX, HC_400_TOO_BIG,
	HC_400_HOST, HC_400_BODY, HC_400_PATH, HC_REJECT_SMALL_BUF,
	HC_RANGE_IGNORED, HC_OCSP_HIT, HC_OCSP_MISS, HC_MAX
};

static const struct tfo_svc_counter http_counters[HC_MAX + 1] = {
	[HC_200] = { "http_200",
		"HTTP 200 (GET and HEAD of a file; a path's fixed answer; POST where allowed)" },
	[HC_204] = { "http_204",
		"HTTP 204: a path configured with status = 204 (connectivity checks)" },
	[HC_206] = { "http_206",
		"HTTP 206: a single byte range of a file (Range)" },
	[HC_301] = { "http_301",
		"HTTP 301: a directory asked for without its trailing slash" },
	[HC_304] = { "http_304",
		"HTTP 304: If-None-Match (or exact If-Modified-Since) matched" },
	[HC_404] = { "http_404",
		"HTTP 404: no such file (or an encoded slash in the path)" },
	[HC_405] = { "http_405",
		"HTTP 405: method other than GET and HEAD (POST where no path rule allows it)" },
	[HC_411] = { "http_411",
		"HTTP 411: POST without Content-Length (or with Transfer-Encoding)" },
	[HC_413] = { "http_413",
		"HTTP 413: POST body longer than max_body (or than [tcp] max_request leaves)" },
	[HC_414] = { "http_414",
		"HTTP 414: request-target longer than max_uri" },
	[HC_416] = { "http_416",
		"HTTP 416: a byte range that starts past the end of the file" },
	[HC_425] = { "http_425",
		"HTTP 425: POST that arrived as TFO SYN data on a path without post_in_syn (RFC 7413 6.3.1: it may be a replay)" },
	[HC_505] = { "http_505",
		"HTTP 505: HTTP major version other than 1" },
	[HC_400_SYNTAX] = { "http_400_syntax",
		"HTTP 400: malformed request line or field line" },
	[HC_400_TOO_BIG] = { "http_400_too_big",
		"HTTP 400: request head longer than max_header" },
	[HC_400_HOST] = { "http_400_host",
		"HTTP 400: HTTP/1.1 without Host, or several Host fields" },
	[HC_400_BODY] = { "http_400_body",
		"HTTP 400: GET/HEAD with a body (Content-Length > 0, Transfer-Encoding)" },
	[HC_400_PATH] = { "http_400_path",
		"HTTP 400: bad path: form, %-encoding, %00, '..' above the root" },
	[HC_REJECT_SMALL_BUF] = { "http_reject_small_buf",
		"HTTP requests reset: the engine's response buffer was too small" },
	[HC_RANGE_IGNORED] = { "http_range_ignored",
		"HTTP Range fields ignored: several ranges, bad syntax, If-Range not matching, or no room for the 206 head (answered 200 in full)" },
	[HC_OCSP_HIT] = { "http_ocsp_hit",
		"OCSP requests (GET or POST) answered from a prepared response (also in http_200)" },
	[HC_OCSP_MISS] = { "http_ocsp_miss",
		"OCSP requests with no prepared response, or whose base64 does not decode (also in http_404)" },
};

/* ------------------------------------------------------------------ */
/* hot path                                                            */

/* Count @p c on the calling lcore (ctx NULL: tfo_http_respond). */
static inline void
http_count(const struct tfo_svc_ctx *ctx, enum http_ctr c)
{
	if (ctx != NULL && ctx->counters != NULL)
		ctx->counters[c]++;
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
http_error(const struct http_state *st, const struct tfo_svc_ctx *ctx,
	   struct tfo_svc_resp *resp, enum http_status s, enum http_ctr c,
	   uint32_t consumed, bool close, bool keep_alive_hdr, bool head)
{
	const struct http_obj *o = &st->errors[s];

	http_count(ctx, c);
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

/* Decimal @p x at @p b; its length. */
static uint32_t
http_put_u64(uint8_t *b, uint64_t x)
{
	char t[20];
	uint32_t n = 0, i;

	do {
		t[n++] = (char)('0' + x % 10);
		x /= 10;
	} while (x != 0);
	for (i = 0; i < n; i++)
		b[i] = (uint8_t)t[n - 1 - i];
	return n;
}

/* A decimal number at v[*i..n) (at most 18 digits); -1 if none. */
static int
http_range_num(const uint8_t *v, uint32_t n, uint32_t *i, uint64_t *x)
{
	uint32_t s = *i;

	*x = 0;
	while (*i < n && v[*i] >= '0' && v[*i] <= '9' && *i - s < 18)
		*x = *x * 10 + (uint64_t)(v[(*i)++] - '0');
	return *i == s || (*i < n && v[*i] >= '0' && v[*i] <= '9') ? -1 : 0;
}

/*
 * Range (RFC 9110 14.1.2) of a body of @p size bytes: one range only.
 * 1: [*first, *last] is what to send; 0: unsatisfiable (416); -1: ignore
 * the field (several ranges, bad syntax, another unit): 200 in full.
 */
static int
http_range(const struct tfo_http_slice *f, uint64_t size, uint64_t *first,
	   uint64_t *last)
{
	const uint8_t *v = f->p;
	uint32_t n = f->len, i = 6;
	uint64_t a, b;

	if (n < 7 || ((v[0] | 0x20) != 'b' || (v[1] | 0x20) != 'y' ||
		      (v[2] | 0x20) != 't' || (v[3] | 0x20) != 'e' ||
		      (v[4] | 0x20) != 's' || v[5] != '='))
		return -1;
	if (v[i] == '-') {		/* suffix: the last b bytes */
		i++;
		if (http_range_num(v, n, &i, &b) < 0 || i != n)
			return -1;
		if (b == 0 || size == 0)
			return 0;
		*first = b >= size ? 0 : size - b;
		*last = size - 1;
		return 1;
	}
	if (http_range_num(v, n, &i, &a) < 0 || i == n || v[i++] != '-')
		return -1;
	if (i == n) {
		b = UINT64_MAX;
	} else if (http_range_num(v, n, &i, &b) < 0 || i != n || b < a) {
		return -1;	/* a list (','), or last < first: invalid */
	}
	if (a >= size)
		return 0;
	*first = a;
	*last = b >= size ? size - 1 : b;
	return 1;
}

/* If-Range (RFC 9110 13.1.5): the strong ETag or the exact Last-Modified. */
static bool
http_if_range_ok(const struct http_obj *o, const struct tfo_http_slice *v)
{
	if (v->len == 0)
		return true;
	if (v->p[0] == '"')
		return v->len == o->etag_len && o->etag_off != 0 &&
		       memcmp(v->p, o->blob.data + o->etag_off, v->len) == 0;
	return v->len == TFO_HTTP_DATE_LEN && o->lm_off != 0 &&
	       memcmp(v->p, o->blob.data + o->lm_off, TFO_HTTP_DATE_LEN) == 0;
}

/*
 * 206 of the file @p o: the head is copied into the engine's buffer with
 * its Content-Length replaced (Content-Length and Content-Range), the body
 * is blob[hdr_len + first, hdr_len + last] without copying. false: no room
 * in the buffer (the caller sends the 200).
 */
static bool
http_send_range(const struct http_state *st, struct tfo_svc_resp *resp,
		const struct http_obj *o, uint64_t first, uint64_t last,
		uint32_t consumed, bool close, bool ka)
{
	uint8_t *b;
	uint32_t n;

	if (resp->buf_cap < HTTP_MIN_BUF + o->hdr_len + 96)
		return false;
	http_send(st, resp, S206, o, o->hdr_len + (uint32_t)first,
		  (uint32_t)(last - first + 1), consumed, close, ka);
	b = resp->buf;
	n = resp->buf_len;
	memcpy(b + n, o->blob.data, o->cl_off);
	n += o->cl_off;
	HTTP_PUT("Content-Length: ");
	n += http_put_u64(b + n, last - first + 1);
	HTTP_PUT("\r\nContent-Range: bytes ");
	n += http_put_u64(b + n, first);
	b[n++] = '-';
	n += http_put_u64(b + n, last);
	b[n++] = '/';
	n += http_put_u64(b + n, o->size);
	HTTP_PUT("\r\n");
	memcpy(b + n, o->blob.data + o->cl_end, o->hdr_len - o->cl_end);
	n += o->hdr_len - o->cl_end;
	resp->buf_len = n;
	return true;
}

/* A GET with Range of the file @p o: 206, 416, or -1: the 200 it would get. */
static int
http_ranged(const struct http_state *st, const struct tfo_svc_ctx *ctx,
	    const struct tfo_http_req *r, const struct http_obj *o,
	    uint32_t consumed, bool ka, struct tfo_svc_resp *resp,
	    enum tfo_svc_status *ret)
{
	uint64_t first, last;
	uint8_t *b;
	uint32_t n;
	int rc;

	rc = http_if_range_ok(o, &r->if_range) ?
	     http_range(&r->range, o->size, &first, &last) : -1;
	if (rc > 0 && http_send_range(st, resp, o, first, last, consumed,
				      r->close, ka)) {
		http_count(ctx, HC_206);
		*ret = TFO_SVC_RESPOND;
		return 0;
	}
	/* the 416's Content-Range goes into the buffer too */
	if (rc != 0 || resp->buf_cap < HTTP_MIN_BUF + 48) {
		http_count(ctx, HC_RANGE_IGNORED);
		return -1;
	}
	*ret = http_error(st, ctx, resp, S416, HC_416, consumed, r->close,
			  ka, false);
	b = resp->buf;
	n = resp->buf_len;
	HTTP_PUT("Content-Range: bytes */");
	n += http_put_u64(b + n, o->size);
	HTTP_PUT("\r\n");
	resp->buf_len = n;
	return 0;
}

/*
 * The key tag of the request's virtual host: its Host field (any case, a
 * port and a trailing dot ignored) among the [host] names, else the
 * default host's. 0 (the root's files) without virtual hosts.
 */
static uint8_t
http_host_tag(const struct http_state *st, const struct tfo_http_req *r)
{
	const uint8_t *p = r->host.p;
	uint32_t n = r->host.len, i;
	char h[256];

	if (st->nb_names == 0)
		return 0;
	if (n > 0 && p[0] == '[') {	/* IP-literal: up to the ']' */
		for (i = 1; i < n && p[i] != ']'; i++)
			;
		n = i < n ? i + 1 : n;
	} else {
		for (i = 0; i < n && p[i] != ':'; i++)
			;
		n = i;
	}
	if (n > 0 && p[n - 1] == '.')
		n--;
	if (n == 0 || n >= sizeof(h))
		return st->default_host;
	for (i = 0; i < n; i++)
		h[i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] | 0x20 : p[i]);
	for (i = 0; i < st->nb_names; i++)
		if (st->names[i].len == n && memcmp(st->names[i].name, h, n) == 0)
			return st->names[i].host;
	return st->default_host;
}

/* The OCSP responder whose path @p r's target is under: POST to prefix or
 * prefix/, GET prefix/BASE64 (origin-form only); NULL if none. */
static const struct http_ocsp *
http_ocsp_match(const struct http_state *st, const struct tfo_http_req *r,
		struct tfo_http_slice *b64)
{
	const uint8_t *t = r->target.p;
	uint32_t n = r->target.len, e;

	for (e = 0; e < n && t[e] != '?'; e++)
		;
	for (unsigned int i = 0; i < st->nb_ocsp; i++) {
		const struct http_ocsp *oc = &st->ocsp[i];

		if (e < oc->len || memcmp(t, oc->prefix, oc->len) != 0)
			continue;
		if (r->method == TFO_HTTP_POST &&
		    (e == oc->len || (e == oc->len + 1U && t[oc->len] == '/')))
			return oc;
		if (r->method != TFO_HTTP_POST && e > oc->len + 1U &&
		    t[oc->len] == '/') {
			b64->p = t + oc->len + 1;
			b64->len = e - oc->len - 1;
			return oc;
		}
	}
	return NULL;
}

/*
 * The body of a POST: 411 without Content-Length (or chunked), 413 over
 * the limit, NEED_MORE until it is all here. -1: complete, *consumed is
 * the head and the body.
 */
static int
http_post_body(const struct http_state *st, const struct tfo_svc_ctx *ctx,
	       const struct tfo_http_req *r, uint32_t avail,
	       struct tfo_svc_resp *resp, uint32_t *consumed,
	       enum tfo_svc_status *ret)
{
	uint64_t lim = st->max_body;

	if (r->chunked || r->content_length == TFO_HTTP_NO_LENGTH) {
		*ret = http_error(st, ctx, resp, S411, HC_411, r->head_len,
				  true, false, false);
		return 0;
	}
	if (st->max_request != 0)
		lim = RTE_MIN(lim, (uint64_t)(st->max_request > r->head_len ?
					       st->max_request - r->head_len : 0));
	if (r->content_length > lim) {
		*ret = http_error(st, ctx, resp, S413, HC_413, r->head_len,
				  true, false, false);
		return 0;
	}
	if ((uint64_t)r->head_len + r->content_length > avail) {
		*ret = TFO_SVC_NEED_MORE;
		return 0;
	}
	*consumed = r->head_len + (uint32_t)r->content_length;
	return -1;
}

/* A POST that came as SYN data where it may not: 425 (RFC 8470's status
 * for early data: the client may send it again, not in a SYN). */
static bool
http_too_early(const struct tfo_svc_ctx *ctx, const struct tfo_http_req *r,
	       bool syn_ok)
{
	return r->method == TFO_HTTP_POST && ctx != NULL && ctx->in_syn && !syn_ok;
}

/* OCSP (RFC 6960 appendix A): the DER request is the key of a prepared
 * response, from a POST's body or a GET path's base64. */
static enum tfo_svc_status
http_ocsp(const struct http_state *st, const struct tfo_svc_ctx *ctx,
	  const struct http_ocsp *oc, const struct tfo_http_req *r,
	  const struct tfo_http_slice *b64, const uint8_t *req, uint32_t consumed,
	  bool ka, struct tfo_svc_resp *resp)
{
	uint8_t key[1 + HTTP_OCSP_MAX_REQ];
	const struct http_obj *o = NULL;
	bool head = r->method == TFO_HTTP_HEAD;
	int n;

	if (http_too_early(ctx, r, oc->post_in_syn))
		return http_error(st, ctx, resp, S425, HC_425, consumed,
				  r->close, ka, false);
	key[0] = oc->tag;
	if (r->method == TFO_HTTP_POST) {
		n = consumed - r->head_len <= HTTP_OCSP_MAX_REQ ?
		    (int)(consumed - r->head_len) : -1;
		if (n > 0)
			memcpy(key + 1, req + r->head_len, (size_t)n);
	} else {
		n = tfo_http_b64_decode(b64->p, b64->len, true, key + 1,
					HTTP_OCSP_MAX_REQ);
	}
	if (n > 0)
		o = http_lookup(st, (const char *)key, (uint32_t)n + 1);
	if (o == NULL) {
		http_count(ctx, HC_OCSP_MISS);
		return http_error(st, ctx, resp, S404, HC_404, consumed,
				  r->close, ka, head);
	}
	http_count(ctx, HC_OCSP_HIT);
	http_count(ctx, HC_200);
	return http_send(st, resp, S200, o, 0, head ? o->hdr_len : o->blob.len,
			 consumed, r->close, ka);
}

/*
 * Answer @p r; @p req and @p avail: the bytes received (a POST's body
 * follows the head); @p ctx NULL (tfo_http_respond): a request that did not
 * come as SYN data, and nothing counted.
 */
static enum tfo_svc_status
http_respond(const struct http_state *st, const struct tfo_svc_ctx *ctx,
	     const struct tfo_http_req *r, const uint8_t *req, uint32_t avail,
	     struct tfo_svc_resp *resp)
{
	char key[1 + TFO_HTTP_MAX_URI_LIMIT + 1];
	const struct http_ocsp *oc = NULL;
	struct tfo_http_slice b64 = { NULL, 0 };
	enum tfo_svc_status ret;
	uint32_t plen, consumed = r->head_len;
	const struct http_obj *o;
	uint8_t tag;
	bool head, ka, post;

	head = r->method == TFO_HTTP_HEAD;
	post = r->method == TFO_HTTP_POST;
	/* RFC 9112 3.2: exactly one Host in 1.1, at most one in 1.0 */
	if (r->nb_host > 1 || (r->minor == 1 && r->nb_host == 0))
		return http_error(st, ctx, resp, S400, HC_400_HOST,
				  r->head_len, true, false, head);
	if (r->method == TFO_HTTP_OTHER)
		return http_error(st, ctx, resp, S405, HC_405,
				  r->head_len, true, false, false);
	if (!post && r->body != TFO_HTTP_BODY_NONE)
		return http_error(st, ctx, resp, S400, HC_400_BODY,
				  r->head_len, true, false, head);

	/* a 1.0 client that asked for keep-alive is told it got it */
	ka = r->minor == 0 && !r->close;
	if (st->nb_ocsp != 0)
		oc = http_ocsp_match(st, r, &b64);
	if (oc != NULL) {
		if (post && http_post_body(st, ctx, r, avail, resp, &consumed,
					   &ret) == 0)
			return ret;
		return http_ocsp(st, ctx, oc, r, &b64, req, consumed, ka, resp);
	}
	tag = http_host_tag(st, r);
	switch (tfo_http_path_mode(&r->target, key + 1, sizeof(key) - 1, &plen,
				   (enum tfo_http_slash)st->slash)) {
	case TFO_HTTP_PATH_OK:
		break;
	case TFO_HTTP_PATH_NOFILE:
		if (post)
			return http_error(st, ctx, resp, S405, HC_405,
					  r->head_len, true, false, false);
		return http_error(st, ctx, resp, S404, HC_404,
				  r->head_len, r->close, ka, head);
	case TFO_HTTP_PATH_BAD:
	default:
		return http_error(st, ctx, resp, S400, HC_400_PATH,
				  r->head_len, true, false, head);
	}
	key[0] = (char)tag;
	o = tag == 0 ? http_lookup(st, key + 1, plen) :
		       http_lookup(st, key, plen + 1);
	if (post) {
		if (o == NULL || !(o->flags & HTTP_OBJ_POST))
			return http_error(st, ctx, resp, S405, HC_405,
					  r->head_len, true, false, false);
		if (http_post_body(st, ctx, r, avail, resp, &consumed,
				   &ret) == 0)
			return ret;
		if (http_too_early(ctx, r, o->flags & HTTP_OBJ_POST_SYN))
			return http_error(st, ctx, resp, S425, HC_425,
					  consumed, r->close, ka, false);
	}
	if (o == NULL)
		return http_error(st, ctx, resp, S404, HC_404,
				  r->head_len, r->close, ka, head);
	if (o->status == S301) {
		http_count(ctx, HC_301);
		return http_send(st, resp, S301, o, 0,
				 head ? o->hdr_len : o->blob.len, consumed,
				 r->close, ka);
	}
	if (!post && http_not_modified(o, r)) {
		http_count(ctx, HC_304);
		return http_send(st, resp, S304, o, o->nm_off,
				 o->hdr_len - o->nm_off, consumed, r->close,
				 ka);
	}
	if (r->method == TFO_HTTP_GET && r->range.len != 0 && o->cl_end != 0 &&
	    http_ranged(st, ctx, r, o, consumed, ka, resp, &ret) == 0)
		return ret;
	http_count(ctx, o->status == S204 ? HC_204 : HC_200);
	return http_send(st, resp, (enum http_status)o->status, o, 0,
			 head ? o->hdr_len : o->blob.len, consumed, r->close, ka);
}

enum tfo_svc_status
tfo_http_respond(const void *state, const struct tfo_http_req *r,
		 struct tfo_svc_resp *resp)
{
	return http_respond(http_cur(state), NULL, r, NULL, r->head_len, resp);
}

static enum tfo_svc_status
http_handle(const void *state, const struct tfo_svc_ctx *ctx,
	    const uint8_t *req, uint32_t len,
	    struct tfo_svc_resp *resp)
{
	/* one root for the whole request, even if a reload publishes another */
	const struct http_state *st = http_cur(state);
	struct tfo_http_req r;

	if (len == 0)
		return TFO_SVC_NEED_MORE;
	if (unlikely(resp->buf_cap < HTTP_MIN_BUF)) {
		http_count(ctx, HC_REJECT_SMALL_BUF);
		return TFO_SVC_REJECT;
	}
	switch (tfo_http_parse(req, len, &st->lim, &r)) {
	case TFO_HTTP_OK:
		break;
	case TFO_HTTP_INCOMPLETE:
		return TFO_SVC_NEED_MORE;
	case TFO_HTTP_E_TOO_BIG:
		return http_error(st, ctx, resp, S400, HC_400_TOO_BIG,
				  len, true, false, false);
	case TFO_HTTP_E_URI_LONG:
		return http_error(st, ctx, resp, S414, HC_414, len, true,
				  false, false);
	case TFO_HTTP_E_VERSION:
		return http_error(st, ctx, resp, S505, HC_505, len, true,
				  false, false);
	case TFO_HTTP_E_SYNTAX:
	default:
		return http_error(st, ctx, resp, S400, HC_400_SYNTAX,
				  len, true, false, false);
	}
	return http_respond(st, ctx, &r, req, len, resp);
}

static const char *const http_keys[] = {
	"root", "index", "max_file_size", "max_total_size", "max_files",
	"cache_control", "server_header", "date", "max_header", "max_uri",
	"reload_drain", "rules", "encoded_slash", "mime_types", "max_body", NULL
};

static struct tfo_service http_service = {
	.name = "http",
	.help = "static files from memory: GET/HEAD, 304, ranges, keep-alive; per-path "
		"answers, POST, OCSP and virtual hosts (rules = FILE) (root = DIR)",
	.keys = http_keys,
	.counters = http_counters,
	.create = tfo_http_create,
	.destroy = tfo_http_destroy,
	.handle = http_handle,
	.check_key = tfo_http_check_key,
	.check = tfo_http_check,
	.reload = tfo_http_reload,
	.reclaim = tfo_http_reclaim,
};

TFO_SERVICE_REGISTER(http_service);
