/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: strict, bounded HTTP/1.x request-head parser (see
 * http_parse.h for the grammar accepted).
 */
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "http_parse.h"

/* Byte classes. */
#define C_TCHAR 1	/* token character (RFC 9110 5.6.2) */
#define C_VCHAR 2	/* %x21-7E: request-target */
#define C_FIELD 4	/* field-value: VCHAR, obs-text, SP, HTAB */
#define C_HOST 8	/* uri-host [":" port], reg-name or IP-literal */

static const uint8_t http_cls[256] = {
	/* 0x00 */  0,  0,  0,  0,  0,  0,  0,  0,  0,  4,  0,  0,  0,  0,  0,  0,
	/* 0x10 */  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
	/* 0x20 */  4, 15,  6,  7, 15, 15, 15, 15, 14, 14, 15, 15, 14, 15, 15,  6,
	/* 0x30 */ 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 14, 14,  6, 14,  6,  6,
	/* 0x40 */  6, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
	/* 0x50 */ 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 14,  6, 14,  7, 15,
	/* 0x60 */  7, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
	/* 0x70 */ 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,  6,  7,  6, 15,  0,
	/* 0x80 */  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
	/* 0x90 */  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
	/* 0xa0 */  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
	/* 0xb0 */  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
	/* 0xc0 */  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
	/* 0xd0 */  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
	/* 0xe0 */  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
	/* 0xf0 */  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,
};

/*
 * Case-insensitive compare with a lowercase literal of letters, digits and
 * '-'. (c | 0x20) maps only 'A'-'Z' onto 'a'-'z', and CR (the only byte
 * that would map onto '-') never reaches here.
 */
static inline int
lc_eq(const uint8_t *p, const char *lit, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if ((p[i] | 0x20) != (uint8_t)lit[i])
			return 0;
	return 1;
}

static inline uint32_t
skip_cls(const uint8_t *b, uint32_t len, uint32_t i, uint8_t cls)
{
	while (i < len && (http_cls[b[i]] & cls))
		i++;
	return i;
}

/*
 * Skip field-value bytes (VCHAR, obs-text, SP, HTAB): stop at the first
 * other byte (CR, normally) or at len. Most of a request's bytes are field
 * values, so 16 at a time where SSE2 is there; never loads past b[len - 1].
 */
static inline uint32_t
skip_field(const uint8_t *b, uint32_t len, uint32_t i)
{
#ifdef __SSE2__
	const __m128i sp = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);

	while (i + 16 <= len) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
		/* unsigned v < 0x20 (CTLs, HTAB too), or v == DEL */
		__m128i ctl = _mm_cmpeq_epi8(_mm_max_epu8(v, sp), sp);
		__m128i bad = _mm_or_si128(_mm_andnot_si128(_mm_cmpeq_epi8(v, sp),
							    ctl),
					   _mm_cmpeq_epi8(v, del));
		unsigned int m = (unsigned int)_mm_movemask_epi8(bad);

		if (m != 0) {
			i += (uint32_t)__builtin_ctz(m);
			if (b[i] != '\t')
				return i;
			i++;	/* HTAB is allowed: go on */
			continue;
		}
		i += 16;
	}
#endif
	return skip_cls(b, len, i, C_FIELD);
}

static inline int
is_ows(uint8_t c)
{
	return c == ' ' || c == '\t';
}

/* Connection: 1#token; only "close" and "keep-alive" mean something here. */
static void
field_connection(const uint8_t *v, uint32_t n, bool *close_tok,
		 struct tfo_http_req *r)
{
	uint32_t i = 0, s;

	while (i < n) {
		while (i < n && (is_ows(v[i]) || v[i] == ','))
			i++;
		s = i;
		while (i < n && !is_ows(v[i]) && v[i] != ',')
			i++;
		if (i - s == 5 && lc_eq(v + s, "close", 5))
			*close_tok = true;
		else if (i - s == 10 && lc_eq(v + s, "keep-alive", 10))
			r->keep_alive = true;
	}
}

/* Content-Length: 1*DIGIT. A repeated one must say the same (RFC 9112
 * 6.3); a value too large for 63 bits saturates (and is too large). */
static enum tfo_http_perr
field_content_length(const uint8_t *v, uint32_t n, struct tfo_http_req *r)
{
	uint64_t x = 0;

	if (n == 0)
		return TFO_HTTP_E_SYNTAX;
	for (uint32_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return TFO_HTTP_E_SYNTAX;
		if (x > (UINT64_MAX >> 1) / 10)
			x = UINT64_MAX >> 1;
		else
			x = x * 10 + (uint64_t)(v[i] - '0');
	}
	if (x > (UINT64_MAX >> 1))
		x = UINT64_MAX >> 1;
	if (r->content_length != TFO_HTTP_NO_LENGTH && r->content_length != x)
		return TFO_HTTP_E_SYNTAX;
	r->content_length = x;
	if (x != 0)
		r->body = TFO_HTTP_BODY_SOME;
	return TFO_HTTP_OK;
}

static enum tfo_http_perr
field_host(const uint8_t *v, uint32_t n, struct tfo_http_req *r)
{
	if (r->nb_host == 0) {
		r->host.p = v;
		r->host.len = n;
	}
	if (r->nb_host < UINT8_MAX)
		r->nb_host++;
	for (uint32_t i = 0; i < n; i++)
		if (!(http_cls[v[i]] & C_HOST))
			return TFO_HTTP_E_SYNTAX;
	return TFO_HTTP_OK;
}

/* The fields a static server acts on; the others are skipped. */
static enum tfo_http_perr
field_line(struct tfo_http_req *r, const uint8_t *name, uint32_t nlen,
	   const uint8_t *v, uint32_t vlen, bool *close_tok)
{
	switch (nlen) {
	case 5:
		if (lc_eq(name, "range", 5)) {
			r->range.p = v;
			r->range.len = vlen;
		}
		break;
	case 8:
		if (lc_eq(name, "if-range", 8)) {
			r->if_range.p = v;
			r->if_range.len = vlen;
		}
		break;
	case 4:
		if (lc_eq(name, "host", 4))
			return field_host(v, vlen, r);
		break;
	case 10:
		if (lc_eq(name, "connection", 10))
			field_connection(v, vlen, close_tok, r);
		break;
	case 13:
		if (lc_eq(name, "if-none-match", 13) &&
		    r->nb_inm < TFO_HTTP_MAX_INM) {
			r->inm[r->nb_inm].p = v;
			r->inm[r->nb_inm].len = vlen;
			r->nb_inm++;
		}
		break;
	case 14:
		if (lc_eq(name, "content-length", 14))
			return field_content_length(v, vlen, r);
		break;
	case 17:
		if (lc_eq(name, "transfer-encoding", 17)) {
			r->body = TFO_HTTP_BODY_SOME;
			r->chunked = true;
		} else if (lc_eq(name, "if-modified-since", 17)) {
			r->ims.p = v;
			r->ims.len = vlen;
		}
		break;
	default:
		break;
	}
	return TFO_HTTP_OK;
}

static uint8_t
method_of(const uint8_t *m, uint32_t n)
{
	if (n == 3 && memcmp(m, "GET", 3) == 0)
		return TFO_HTTP_GET;
	if (n == 4 && memcmp(m, "HEAD", 4) == 0)
		return TFO_HTTP_HEAD;
	if (n == 4 && memcmp(m, "POST", 4) == 0)
		return TFO_HTTP_POST;
	return TFO_HTTP_OTHER;
}

/* Expect the literal @p lit at b[*i]: -1 bad byte, 0 ran out, 1 matched. */
static inline int
expect(const uint8_t *b, uint32_t len, uint32_t *i, const char *lit,
       uint32_t n)
{
	for (uint32_t k = 0; k < n; k++, (*i)++) {
		if (*i == len)
			return 0;
		if (b[*i] != (uint8_t)lit[k])
			return -1;
	}
	return 1;
}

static inline int
expect_digit(const uint8_t *b, uint32_t len, uint32_t *i, uint8_t *d)
{
	if (*i == len)
		return 0;
	if (b[*i] < '0' || b[*i] > '9')
		return -1;
	*d = b[(*i)++];
	return 1;
}

/* expect()'s "ran out" (0) or "bad byte" (-1) as the parser's answer. */
static inline enum tfo_http_perr
more_or_bad(int e)
{
	return e < 0 ? TFO_HTTP_E_SYNTAX : TFO_HTTP_INCOMPLETE;
}

/* Every field of @p r a head may leave unset: absent. */
static inline void
parse_reset(struct tfo_http_req *r)
{
	r->head_len = 0;
	r->nb_host = 0;
	r->body = TFO_HTTP_BODY_NONE;
	r->close = false;
	r->keep_alive = false;
	r->nb_inm = 0;
	r->ims.p = NULL;
	r->ims.len = 0;
	r->chunked = false;
	r->content_length = TFO_HTTP_NO_LENGTH;
	r->host.p = NULL;
	r->host.len = 0;
	r->range.p = NULL;
	r->range.len = 0;
	r->if_range.p = NULL;
	r->if_range.len = 0;
}

/*
 * The empty lines a client may send first (RFC 9112 2.2), then
 * "method SP request-target SP HTTP-version CRLF" from b[*ip]; *ip moves
 * past it on TFO_HTTP_OK.
 */
static inline enum tfo_http_perr
parse_request_line(const uint8_t *b, uint32_t len,
		   const struct tfo_http_limits *lim, struct tfo_http_req *r,
		   uint32_t *ip)
{
	uint32_t i = *ip, s;
	uint8_t major, minor;
	int e;

	while (i < len && b[i] == '\r') {
		e = expect(b, len, &i, "\r\n", 2);
		if (e <= 0)
			return more_or_bad(e);
		if (i > lim->max_header)
			return TFO_HTTP_E_TOO_BIG;
	}
	/* method SP */
	s = i;
	i = skip_cls(b, len, i, C_TCHAR);
	if (i == len)
		return TFO_HTTP_INCOMPLETE;
	if (i == s || b[i] != ' ')
		return TFO_HTTP_E_SYNTAX;
	r->method = method_of(b + s, i - s);
	i++;
	/* request-target SP */
	s = i;
	i = skip_cls(b, len, i, C_VCHAR);
	if (i - s > lim->max_uri)
		return TFO_HTTP_E_URI_LONG;
	if (i == len)
		return TFO_HTTP_INCOMPLETE;
	if (i == s || b[i] != ' ')
		return TFO_HTTP_E_SYNTAX;
	r->target.p = b + s;
	r->target.len = i - s;
	i++;
	/* HTTP-version CRLF */
	e = expect(b, len, &i, "HTTP/", 5);
	if (e > 0)
		e = expect_digit(b, len, &i, &major);
	if (e > 0)
		e = expect(b, len, &i, ".", 1);
	if (e > 0)
		e = expect_digit(b, len, &i, &minor);
	if (e > 0)
		e = expect(b, len, &i, "\r\n", 2);
	if (e <= 0)
		return more_or_bad(e);
	if (major != '1')
		return TFO_HTTP_E_VERSION;
	r->minor = minor == '0' ? 0 : 1;
	*ip = i;
	return TFO_HTTP_OK;
}

/*
 * "field-name: OWS field-value OWS CRLF" from b[*ip] into @p r, or the
 * empty line that ends the head (*end set); *ip moves past it on
 * TFO_HTTP_OK.
 */
static inline enum tfo_http_perr
parse_field(const uint8_t *b, uint32_t len, struct tfo_http_req *r,
	    uint32_t *ip, bool *close_tok, bool *end)
{
	uint32_t i = *ip, s, vs, ve, nlen;
	enum tfo_http_perr rc;
	int e;

	if (i == len)
		return TFO_HTTP_INCOMPLETE;
	if (b[i] == '\r') {
		e = expect(b, len, &i, "\r\n", 2);
		if (e <= 0)
			return more_or_bad(e);
		*ip = i;
		*end = true;
		return TFO_HTTP_OK;
	}
	/* a leading SP/HTAB (obs-fold) fails here: empty name */
	s = i;
	i = skip_cls(b, len, i, C_TCHAR);
	if (i == len)
		return TFO_HTTP_INCOMPLETE;
	if (i == s || b[i] != ':')
		return TFO_HTTP_E_SYNTAX;
	nlen = i - s;
	i++;
	while (i < len && is_ows(b[i]))
		i++;
	vs = i;
	i = skip_field(b, len, i);
	ve = i;
	while (ve > vs && is_ows(b[ve - 1]))
		ve--;
	e = expect(b, len, &i, "\r\n", 2);
	if (e <= 0)
		return more_or_bad(e);
	rc = field_line(r, b + s, nlen, b + vs, ve - vs, close_tok);
	*ip = i;
	return rc;
}

/* RFC 9112's request head in one forward pass: the request line, then
 * field lines up to the empty one (the hot path of the http service). */
enum tfo_http_perr
tfo_http_parse(const uint8_t *b, uint32_t all,
	       const struct tfo_http_limits *lim, struct tfo_http_req *r)
{
	/* A head fits in max_header bytes: look at no byte past them, so that
	 * a long head is TOO_BIG whatever follows (and is not scanned). */
	uint32_t len = all > lim->max_header ? lim->max_header : all;
	bool close_tok = false, end = false;
	enum tfo_http_perr rc;
	uint32_t i = 0;

	parse_reset(r);
	rc = parse_request_line(b, len, lim, r, &i);
	/* *( field-line CRLF ) CRLF */
	while (rc == TFO_HTTP_OK && !end) {
		if (i > lim->max_header)
			return TFO_HTTP_E_TOO_BIG;
		rc = parse_field(b, len, r, &i, &close_tok, &end);
	}
	/* incomplete: the head will be at least len + 1 bytes long */
	if (rc == TFO_HTTP_INCOMPLETE && all >= lim->max_header)
		return TFO_HTTP_E_TOO_BIG;
	if (rc != TFO_HTTP_OK)
		return rc;
	if (i > lim->max_header)
		return TFO_HTTP_E_TOO_BIG;
	r->head_len = i;
	/* RFC 9112 9.3: 1.1 persists unless "close"; 1.0 only on keep-alive */
	r->close = close_tok || (r->minor == 0 && !r->keep_alive);
	return TFO_HTTP_OK;
}

static inline int
hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

enum tfo_http_path_res
tfo_http_path(const struct tfo_http_slice *t, char *out, uint32_t cap,
	      uint32_t *out_len)
{
	return tfo_http_path_mode(t, out, cap, out_len, TFO_HTTP_SLASH_404);
}

enum tfo_http_path_res
tfo_http_path_mode(const struct tfo_http_slice *t, char *out, uint32_t cap,
		   uint32_t *out_len, enum tfo_http_slash slash)
{
	const uint8_t *p = t->p, *end = t->p + t->len;
	bool enc_slash = false, more;
	uint32_t o = 0, s;
	int hi, lo;

	if (t->len == 0 || cap < t->len + 1)
		return TFO_HTTP_PATH_BAD;
	/* a fragment is never part of a request-target */
	if (memchr(p, '#', t->len) != NULL)
		return TFO_HTTP_PATH_BAD;
	if (*p != '/') {
		/* absolute-form (RFC 9112 3.2.2): the authority is ignored */
		if (t->len >= 7 && lc_eq(p, "http://", 7))
			p += 7;
		else if (t->len >= 8 && lc_eq(p, "https://", 8))
			p += 8;
		else
			return TFO_HTTP_PATH_BAD;	/* "*", authority-form */
		while (p < end && *p != '/' && *p != '?')
			p++;
		if (p == end || *p == '?') {
			out[0] = '/';
			*out_len = 1;
			return TFO_HTTP_PATH_OK;
		}
	}
	out[o++] = '/';
	p++;
	while (p < end && *p != '?') {
		s = o;
		while (p < end && *p != '/' && *p != '?') {
			const uint8_t *at = p;
			uint8_t c = *p++;

			if (c == '%') {
				if (end - p < 2)
					return TFO_HTTP_PATH_BAD;
				hi = hexval(p[0]);
				lo = hexval(p[1]);
				if (hi < 0 || lo < 0)
					return TFO_HTTP_PATH_BAD;
				c = (uint8_t)(hi << 4 | lo);
				p += 2;
				if (c == 0)
					return TFO_HTTP_PATH_BAD;
				if (c == '/' && slash == TFO_HTTP_SLASH_DECODE) {
					/* "a%2Fb" is "a/b": end the segment here,
					 * as the raw slash below does */
					p = at;
					break;
				}
				if (c == '/' && slash == TFO_HTTP_SLASH_KEEP) {
					memcpy(out + o, "%2F", 3);
					o += 3;
					continue;
				}
				if (c == '/')
					enc_slash = true;
			}
			out[o++] = (char)c;
		}
		more = p < end && (*p == '/' || (*p == '%' && slash == TFO_HTTP_SLASH_DECODE));
		if (more)
			p += *p == '/' ? 1 : 3;
		if (o == s)
			continue;	/* "//", or the trailing slash */
		if (o - s == 1 && out[s] == '.') {
			o = s;
			continue;
		}
		if (o - s == 2 && out[s] == '.' && out[s + 1] == '.') {
			if (s == 1)
				return TFO_HTTP_PATH_BAD;	/* above the root */
			/* out[s - 1] is the '/' after the previous segment */
			o = s - 1;
			while (out[o - 1] != '/')
				o--;
			continue;
		}
		if (more)
			out[o++] = '/';
	}
	if (enc_slash)
		return TFO_HTTP_PATH_NOFILE;
	*out_len = o;
	return TFO_HTTP_PATH_OK;
}

int
tfo_http_inm_match(const struct tfo_http_slice *v, const char *etag,
		   uint32_t etag_len)
{
	const uint8_t *p = v->p, *end = v->p + v->len, *s;

	for (;;) {
		while (p < end && (is_ows(*p) || *p == ','))
			p++;
		if (p == end)
			return 0;
		if (*p == '*')
			return 1;
		if (end - p >= 2 && p[0] == 'W' && p[1] == '/')
			p += 2;
		if (p == end || *p != '"')
			return 0;
		s = p++;
		while (p < end && *p != '"')
			p++;
		if (p == end)
			return 0;
		p++;
		if ((uint32_t)(p - s) == etag_len && memcmp(s, etag, etag_len) == 0)
			return 1;
	}
}

void
tfo_http_fmt_date(char out[TFO_HTTP_DATE_LEN], int64_t t)
{
	static const char wdays[] = "SunMonTueWedThuFriSat";
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int64_t days = t / 86400, secs = t % 86400;
	int64_t z, era, doe, yoe, doy, mp, y, d, m;
	unsigned int wd = (unsigned int)((days + 4) % 7);	/* 1970-01-01: Thu */

	/* days -> civil date (H. Hinnant's algorithm), proleptic Gregorian */
	z = days + 719468;
	era = z / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;

	memcpy(out, wdays + 3 * wd, 3);
	out[3] = ',';
	out[4] = ' ';
	out[5] = (char)('0' + d / 10);
	out[6] = (char)('0' + d % 10);
	out[7] = ' ';
	memcpy(out + 8, months + 3 * (m - 1), 3);
	out[11] = ' ';
	out[12] = (char)('0' + y / 1000 % 10);
	out[13] = (char)('0' + y / 100 % 10);
	out[14] = (char)('0' + y / 10 % 10);
	out[15] = (char)('0' + y % 10);
	out[16] = ' ';
	out[17] = (char)('0' + secs / 36000);
	out[18] = (char)('0' + secs / 3600 % 10);
	out[19] = ':';
	out[20] = (char)('0' + secs % 3600 / 600);
	out[21] = (char)('0' + secs % 600 / 60);
	out[22] = ':';
	out[23] = (char)('0' + secs % 60 / 10);
	out[24] = (char)('0' + secs % 10);
	memcpy(out + 25, " GMT", 4);
}

static int
b64val(uint8_t c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

int
tfo_http_b64_decode(const uint8_t *s, uint32_t n, bool pct, uint8_t *out,
		    uint32_t cap)
{
	uint32_t acc = 0, bits = 0, o = 0, pad = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		int v;

		if (pct && c == '%') {
			int hi, lo;

			if (n - i < 3)
				return -1;
			hi = hexval(s[i + 1]);
			lo = hexval(s[i + 2]);
			if (hi < 0 || lo < 0)
				return -1;
			c = (uint8_t)(hi << 4 | lo);
			i += 2;
		}
		if (c == '=') {
			pad++;
			continue;
		}
		v = b64val(c);
		if (v < 0 || pad != 0)
			return -1;
		acc = (acc << 6 | (uint32_t)v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o == cap)
				return -1;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	/* 6 bits left over: a length that no base64 has */
	if (pad > 2 || bits >= 6)
		return -1;
	return (int)o;
}
