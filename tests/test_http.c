/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the http service: parser, responder, loading limits.
 * Every request is handed over in a buffer of exactly its length, so ASan
 * catches any read past it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_log.h>

#include "ops/stats.h"
#include "tfo/service.h"

#include "../services/http_parse.h"
#include "test.h"

/* a buffer the size of the service's minimum (http_impl.h) */
#define HTTP_MIN_BUF_TEST 128
#define WWW TFO_CONFIG_DIR "/../tests/www"

static const struct tfo_service *svc;
/* what the engine tells handle() of a plain TCP request */
static const struct tfo_svc_ctx tcp_ctx = {
	.family = AF_INET, .transport = TFO_SVC_TCP, .dst_port = 80,
};
/* what ask_n() tells handle(): tcp_ctx, or a test's */
static const struct tfo_svc_ctx *cur_ctx = &tcp_ctx;
static void *www;		/* tests/www, date = no */
static struct tfo_stats stats;
static uint8_t scratch[4096];
static uint8_t out[(1 << 20) + 8192];
static size_t out_len;

/* create() with key, value pairs (NULL-terminated); rc in *rc */
static void *
mk(int *rc, const char *root, ...)
{
	struct tfo_service_kv kv[16];
	struct tfo_service_args a = { .port = 80, .kv = kv, .socket_id = 0,
				      .base_dir = NULL };
	const char *k;
	void *st = NULL;
	va_list ap;

	kv[a.nb_kv].key = "root";
	kv[a.nb_kv++].value = root;
	va_start(ap, root);
	while ((k = va_arg(ap, const char *)) != NULL && a.nb_kv < 16) {
		kv[a.nb_kv].key = k;
		kv[a.nb_kv++].value = va_arg(ap, const char *);
	}
	va_end(ap);
	*rc = svc->create(&a, &st);
	return *rc == 0 ? st : NULL;
}

/* handle() on a private copy of exactly @p len bytes; flattens into out */
static enum tfo_svc_status
ask_n(const void *st, const void *req, size_t len, struct tfo_svc_resp *r)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum tfo_svc_status s;

	memcpy(copy, req, len);
	memset(r, 0, sizeof(*r));
	r->buf = scratch;
	r->buf_cap = sizeof(scratch);
	r->stats = &stats;
	s = svc->handle(st, cur_ctx, copy, (uint32_t)len, r);
	out_len = 0;
	if (s == TFO_SVC_RESPOND) {
		memcpy(out, r->buf, r->buf_len);
		out_len = r->buf_len;
		if (r->body != NULL) {
			memcpy(out + out_len, r->body->data + r->body_off,
			       r->body_len);
			out_len += r->body_len;
		}
	}
	out[out_len] = '\0';
	free(copy);
	return s;
}

static enum tfo_svc_status
ask(const void *st, const char *req, struct tfo_svc_resp *r)
{
	return ask_n(st, req, strlen(req), r);
}

/* Status code of the flattened response, or 0. */
static int
code(void)
{
	if (out_len < 12 || memcmp(out, "HTTP/1.1 ", 9) != 0)
		return 0;
	return atoi((const char *)out + 9);
}

static int
has(const char *s)
{
	return strstr((const char *)out, s) != NULL;
}

/* The response body: what follows the empty line. */
static const char *
body(size_t *len)
{
	const char *e = strstr((const char *)out, "\r\n\r\n");

	if (e == NULL) {
		*len = 0;
		return "";
	}
	*len = out_len - (size_t)(e + 4 - (const char *)out);
	return e + 4;
}

/* Value of header @p name into @p v (no CRLF), "" when absent. */
static void
hdr(const char *name, char *v, size_t cap)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof(pat), "\r\n%s: ", name);
	v[0] = '\0';
	p = strstr((const char *)out, pat);
	if (p == NULL)
		return;
	p += strlen(pat);
	e = strstr(p, "\r\n");
	if (e == NULL || (size_t)(e - p) >= cap)
		return;
	memcpy(v, p, (size_t)(e - p));
	v[e - p] = '\0';
}

static uint64_t
stat_of(enum tfo_stat_id id)
{
	return stats.c[id];
}

static char *
read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	*len = fread(b, 1, (size_t)n, f);
	fclose(f);
	return b;
}

TFO_TEST(setup)
{
	int rc;

	tfo_test_eal_init("test_http", 256, NULL);
	svc = tfo_service_find("http");
	REQUIRE(svc != NULL);
	www = mk(&rc, WWW, "date", "no", NULL);
	CHECK_EQ(rc, 0);
	REQUIRE(www != NULL);
}

TFO_TEST(fmt_date)
{
	char d[TFO_HTTP_DATE_LEN + 1] = { 0 };

	tfo_http_fmt_date(d, 0);
	CHECK(strcmp(d, "Thu, 01 Jan 1970 00:00:00 GMT") == 0);
	tfo_http_fmt_date(d, 784111777);	/* RFC 9110's example */
	CHECK(strcmp(d, "Sun, 06 Nov 1994 08:49:37 GMT") == 0);
	tfo_http_fmt_date(d, 951782400);
	CHECK(strcmp(d, "Tue, 29 Feb 2000 00:00:00 GMT") == 0);
	tfo_http_fmt_date(d, 4102444799LL);
	CHECK(strcmp(d, "Thu, 31 Dec 2099 23:59:59 GMT") == 0);
	tfo_http_fmt_date(d, 1709251199);
	CHECK(strcmp(d, "Thu, 29 Feb 2024 23:59:59 GMT") == 0);
}

TFO_TEST(get_200_exact)
{
	struct tfo_svc_resp r;
	const char *req = "GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n";
	char lm[TFO_HTTP_DATE_LEN + 1] = { 0 }, etag[64], want[512];
	struct stat sb;
	uint64_t n200 = stat_of(TFO_STAT_http_200);

	REQUIRE(stat(WWW "/hello.txt", &sb) == 0);
	tfo_http_fmt_date(lm, sb.st_mtime);
	CHECK_EQ(ask(www, req, &r), TFO_SVC_RESPOND);
	CHECK_EQ(r.consumed, strlen(req));
	CHECK(!r.close);
	REQUIRE(r.body != NULL);
	hdr("ETag", etag, sizeof(etag));
	CHECK_EQ(strlen(etag), 18);
	snprintf(want, sizeof(want),
		 "HTTP/1.1 200 OK\r\n"
		 "Content-Type: text/plain; charset=utf-8\r\n"
		 "Content-Length: 6\r\n"
		 "Last-Modified: %s\r\n"
		 "Server: tfo-fastpath\r\n"
		 "ETag: %s\r\n"
		 "Cache-Control: no-cache\r\n"
		 "\r\n"
		 "hello\n", lm, etag);
	CHECK_EQ(out_len, strlen(want));
	CHECK_MSG(strcmp((const char *)out, want) == 0, "got:\n%s", out);
	/* all but the status line is the zero-copy blob */
	CHECK_EQ(r.buf_len, strlen("HTTP/1.1 200 OK\r\n"));
	CHECK_EQ(r.body_off, 0);
	CHECK_EQ(r.body_len, r.body->len);
	CHECK_EQ(stat_of(TFO_STAT_http_200), n200 + 1);
}

TFO_TEST(head_is_get_without_body)
{
	struct tfo_svc_resp r;
	static char get[8192];
	size_t glen, blen;

	CHECK_EQ(ask(www, "GET /docs/style.css HTTP/1.1\r\nHost: x\r\n\r\n",
		     &r), TFO_SVC_RESPOND);
	memcpy(get, out, out_len);
	glen = out_len;
	body(&blen);
	CHECK_EQ(blen, 23);
	CHECK(has("Content-Type: text/css; charset=utf-8\r\n"));
	CHECK_EQ(ask(www, "HEAD /docs/style.css HTTP/1.1\r\nHost: x\r\n\r\n",
		     &r), TFO_SVC_RESPOND);
	CHECK_EQ(out_len, glen - blen);
	CHECK_MEM(out, get, out_len);
	CHECK(has("Content-Length: 23\r\n"));
	CHECK(!r.close);
	/* HEAD of a 404: headers only too */
	CHECK_EQ(ask(www, "HEAD /nope HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK_EQ(code(), 404);
	body(&blen);
	CHECK_EQ(blen, 0);
	CHECK(has("Content-Length: 14\r\n"));
}

TFO_TEST(binary_file_zero_copy)
{
	struct tfo_svc_resp r;
	size_t flen, blen;
	char *file = read_all(WWW "/img/pixel.png", &flen);
	const char *b;

	REQUIRE(file != NULL);
	CHECK_EQ(ask(www, "GET /img/pixel.png HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK_EQ(code(), 200);
	CHECK(has("Content-Type: image/png\r\n"));
	b = body(&blen);
	CHECK_EQ(blen, flen);
	CHECK_MEM(b, file, flen);
	/* the body is the blob's tail: the engine sends it without copying */
	REQUIRE(r.body != NULL);
	CHECK_MEM(r.body->data + r.body->len - flen, file, flen);
	CHECK(r.body->iova != 0);
	free(file);
}

/* The 304 for @p inm (If-None-Match value) or 200. */
static int
cond(const char *field, const char *value)
{
	struct tfo_svc_resp r;
	char req[512];

	snprintf(req, sizeof(req),
		 "GET /hello.txt HTTP/1.1\r\nHost: x\r\n%s: %s\r\n\r\n", field,
		 value);
	if (ask(www, req, &r) != TFO_SVC_RESPOND)
		return -1;
	return code();
}

TFO_TEST(not_modified)
{
	struct tfo_svc_resp r;
	char etag[64], lm[64], v[256], want[512];
	uint64_t n304 = stat_of(TFO_STAT_http_304);

	CHECK_EQ(ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	hdr("ETag", etag, sizeof(etag));
	hdr("Last-Modified", lm, sizeof(lm));
	REQUIRE(strlen(etag) == 18);

	/* exact 304: no body, no Content-Length, the validators */
	CHECK_EQ(cond("If-None-Match", etag), 304);
	snprintf(want, sizeof(want),
		 "HTTP/1.1 304 Not Modified\r\n"
		 "Server: tfo-fastpath\r\n"
		 "ETag: %s\r\n"
		 "Cache-Control: no-cache\r\n"
		 "\r\n", etag);
	CHECK_MSG(strcmp((const char *)out, want) == 0, "got:\n%s", out);
	CHECK_EQ(stat_of(TFO_STAT_http_304), n304 + 1);

	snprintf(v, sizeof(v), "\"aaaa\", W/%s , \"bbb\"", etag);
	CHECK_EQ(cond("If-None-Match", v), 304);	/* weak comparison */
	snprintf(v, sizeof(v), "\"aaaa\",%s", etag);
	CHECK_EQ(cond("If-None-Match", v), 304);
	CHECK_EQ(cond("if-none-match", "*"), 304);
	CHECK_EQ(cond("If-None-Match", "\"0000000000000000\""), 200);
	CHECK_EQ(cond("If-None-Match", "\"unterminated"), 200);
	snprintf(v, sizeof(v), "garbage, %s", etag);
	CHECK_EQ(cond("If-None-Match", v), 200);	/* malformed: no match */
	/* the opaque tag without quotes is not a match */
	snprintf(v, sizeof(v), "%.16s", etag + 1);
	CHECK_EQ(cond("If-None-Match", v), 200);

	/* If-Modified-Since: exact match only, and only without INM */
	CHECK_EQ(cond("If-Modified-Since", lm), 304);
	CHECK_EQ(cond("If-Modified-Since", "Thu, 01 Jan 1970 00:00:00 GMT"),
		 200);
	snprintf(v, sizeof(v),
		 "GET /hello.txt HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"zz\"\r\n"
		 "If-Modified-Since: %s\r\n\r\n", lm);
	CHECK_EQ(ask(www, v, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 200);
	/* a 304 for HEAD too, and for a 1.0 client */
	snprintf(v, sizeof(v), "HEAD /hello.txt HTTP/1.0\r\nIf-None-Match: %s"
		 "\r\n\r\n", etag);
	CHECK_EQ(ask(www, v, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 304);
	CHECK(r.close);
}

struct bad_case {
	const char *req;
	int code;
	enum tfo_stat_id id;
};

static const struct bad_case bad_cases[] = {
	{ "GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400, TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\nHost: x\r\n\r\n", 400, TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\r\nHost: x\n\r\n", 400, TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\r\nHost: x\r\n\n", 400, TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400, TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400,
	  TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\r\n Host: x\r\n\r\n", 400, TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\r\nHost: x\r\nX: a\rb\r\n\r\n", 400,
	  TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\r\nHost: x\r\nX: \x01\r\n\r\n", 400,
	  TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 400,
	  TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\r\nHost: x\r\n: empty-name\r\n\r\n", 400,
	  TFO_STAT_http_400_syntax },
	{ "GET / http/1.1\r\nHost: x\r\n\r\n", 400, TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1 \r\nHost: x\r\n\r\n", 400, TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1\r\nHost: x\r\n\r\n", 400, TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.10\r\nHost: x\r\n\r\n", 400, TFO_STAT_http_400_syntax },
	{ "GET / HTTP/x.1\r\nHost: x\r\n\r\n", 400, TFO_STAT_http_400_syntax },
	{ "GET /\r\n\r\n", 400, TFO_STAT_http_400_syntax },	/* HTTP/0.9 */
	{ " GET / HTTP/1.1\r\nHost: x\r\n\r\n", 400, TFO_STAT_http_400_syntax },
	{ "\r\r\n", 400, TFO_STAT_http_400_syntax },
	{ "GET /\x7f HTTP/1.1\r\nHost: x\r\n\r\n", 400, TFO_STAT_http_400_syntax },
	{ "GET /\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  TFO_STAT_http_400_syntax },
	{ "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400,
	  TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400, TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400,
	  TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400,
	  TFO_STAT_http_400_syntax },
	{ "GET / HTTP/1.1\r\n\r\n", 400, TFO_STAT_http_400_host },
	{ "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400,
	  TFO_STAT_http_400_host },
	{ "GET / HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n", 400,
	  TFO_STAT_http_400_host },
	{ "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", 400,
	  TFO_STAT_http_400_body },
	{ "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
	  "\r\n", 400, TFO_STAT_http_400_body },
	{ "GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400, TFO_STAT_http_400_path },
	{ "GET hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  TFO_STAT_http_400_path },
	{ "GET /../hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  TFO_STAT_http_400_path },
	{ "GET /docs/../../hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  TFO_STAT_http_400_path },
	{ "GET /%2e%2e/hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  TFO_STAT_http_400_path },
	{ "GET /docs/%2E%2e/.%2E/etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  TFO_STAT_http_400_path },
	{ "GET /%zzhello HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  TFO_STAT_http_400_path },
	{ "GET /hello.txt% HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  TFO_STAT_http_400_path },
	{ "GET /hello.txt%2 HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  TFO_STAT_http_400_path },
	{ "GET /hello%00.txt HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  TFO_STAT_http_400_path },
	{ "GET /hello.txt#frag HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  TFO_STAT_http_400_path },
	{ "GET ftp://x/hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  TFO_STAT_http_400_path },
	{ "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", 405,
	  TFO_STAT_http_405 },
	{ "get / HTTP/1.1\r\nHost: x\r\n\r\n", 405, TFO_STAT_http_405 },
	{ "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 405, TFO_STAT_http_405 },
	{ "CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n", 405,
	  TFO_STAT_http_405 },
	{ "DELETE /hello.txt HTTP/1.0\r\n\r\n", 405, TFO_STAT_http_405 },
	{ "GET / HTTP/2.0\r\n", 505, TFO_STAT_http_505 },
	{ "GET / HTTP/0.9\r\nHost: x\r\n\r\n", 505, TFO_STAT_http_505 },
	{ "GET / HTTP/3.0\r\nHost: x\r\n\r\n", 505, TFO_STAT_http_505 },
};

/* Every error: its status, its counter, "Connection: close", closed. */
TFO_TEST(errors_close)
{
	struct tfo_svc_resp r;

	for (unsigned int i = 0; i < RTE_DIM(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		uint64_t before = stat_of(c->id);

		CHECK_EQ(ask(www, c->req, &r), TFO_SVC_RESPOND);
		CHECK_MSG(code() == c->code, "case %u: %d, want %d", i, code(),
			  c->code);
		CHECK_MSG(stat_of(c->id) == before + 1, "case %u: counter %s",
			  i, tfo_stats_name(c->id));
		CHECK_MSG(r.close && has("\r\nConnection: close\r\n"),
			  "case %u: not closed", i);
		CHECK(r.consumed > 0 && r.consumed <= strlen(c->req));
	}
	CHECK_EQ(ask(www, "POST / HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK(has("\r\nAllow: GET, HEAD\r\n"));
	CHECK(has("\r\n\r\n405 Method Not Allowed\n"));
	CHECK_EQ(ask(www, "GET / HTTP/2.0\r\n", &r), TFO_SVC_RESPOND);
	CHECK(strncmp((const char *)out,
		      "HTTP/1.1 505 HTTP Version Not Supported\r\n", 41) == 0);
}

struct good_case {
	const char *req;
	int code;
	const char *body;	/* start of the body, or NULL */
};

static const struct good_case good_cases[] = {
	{ "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 200, "<!doctype html><title>test root" },
	{ "GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n", 200, "<!doctype html><title>test root" },
	{ "GET /docs/ HTTP/1.1\r\nHost: x\r\n\r\n", 200, "<!doctype html><title>docs" },
	{ "GET /docs HTTP/1.1\r\nHost: x\r\n\r\n", 301, "301 Moved Permanently\n" },
	{ "GET /docs?x=1 HTTP/1.1\r\nHost: x\r\n\r\n", 301, NULL },
	{ "GET /docs/.. HTTP/1.1\r\nHost: x\r\n\r\n", 200, "<!doctype html><title>test root" },
	{ "GET /docs/. HTTP/1.1\r\nHost: x\r\n\r\n", 200, "<!doctype html><title>docs" },
	{ "GET /docs/../hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", 200, "hello\n" },
	{ "GET /docs/./style.css HTTP/1.1\r\nHost: x\r\n\r\n", 200, "body {" },
	{ "GET //docs///style.css HTTP/1.1\r\nHost: x\r\n\r\n", 200, "body {" },
	{ "GET /img/../docs/%2e/./style.css HTTP/1.1\r\nHost: x\r\n\r\n", 200, "body {" },
	{ "GET /hello.txt?a=1&b=/../../x HTTP/1.1\r\nHost: x\r\n\r\n", 200, "hello\n" },
	{ "GET /with%20space.txt HTTP/1.1\r\nHost: x\r\n\r\n", 200, "a file with a space\n" },
	{ "GET /%68%65llo%2Etxt HTTP/1.1\r\nHost: x\r\n\r\n", 200, "hello\n" },
	{ "GET /%64ocs/%73tyle.css HTTP/1.1\r\nHost: x\r\n\r\n", 200, "body {" },
	{ "GET http://example.com/hello.txt HTTP/1.1\r\nHost: example.com\r\n\r\n", 200, "hello\n" },
	{ "GET HTTP://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n", 200, "<!doctype html><title>test root" },
	{ "GET https://example.com:8443?q HTTP/1.1\r\nHost: example.com\r\n\r\n", 200, "<!doctype html><title>test root" },
	{ "GET /hello.txt HTTP/1.2\r\nHost: x\r\n\r\n", 200, "hello\n" },
	{ "GET /hello.txt HTTP/1.0\r\n\r\n", 200, "hello\n" },
	{ "\r\n\r\nGET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", 200, "hello\n" },
	{ "GET /hello.txt HTTP/1.1\r\nHost: [::1]:80\r\nContent-Length: 0\r\n"
	  "X-Empty:\r\nX-Tabs:\t a \t\r\nX-Obs: \xe9t\xe9\r\n\r\n", 200, "hello\n" },
	{ "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", 404, "404 Not Found\n" },
	{ "GET /noindex/ HTTP/1.1\r\nHost: x\r\n\r\n", 404, NULL },
	{ "GET /noindex HTTP/1.1\r\nHost: x\r\n\r\n", 404, NULL },
	{ "GET /hello.txt/ HTTP/1.1\r\nHost: x\r\n\r\n", 404, NULL },
	{ "GET /docs%2Fstyle.css HTTP/1.1\r\nHost: x\r\n\r\n", 404, NULL },
	{ "GET /docs/..%2Fhello.txt HTTP/1.1\r\nHost: x\r\n\r\n", 404, NULL },
	{ "GET /HELLO.TXT HTTP/1.1\r\nHost: x\r\n\r\n", 404, NULL },
};

/* Valid requests: status, body, kept open, consumed exactly. */
TFO_TEST(paths)
{
	struct tfo_svc_resp r;
	size_t blen;

	for (unsigned int i = 0; i < RTE_DIM(good_cases); i++) {
		const struct good_case *c = &good_cases[i];
		const char *b;

		CHECK_EQ(ask(www, c->req, &r), TFO_SVC_RESPOND);
		CHECK_MSG(code() == c->code, "case %u (%s): %d, want %d", i,
			  c->req, code(), c->code);
		CHECK_EQ(r.consumed, strlen(c->req));
		/* 1.0 without keep-alive closes, 1.1 keeps */
		CHECK_EQ(r.close, strstr(c->req, "HTTP/1.0") != NULL);
		b = body(&blen);
		if (c->body != NULL)
			CHECK_MSG(strncmp(b, c->body, strlen(c->body)) == 0,
				  "case %u: body %s", i, b);
	}
	CHECK_EQ(ask(www, "GET /docs HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK(has("\r\nLocation: /docs/\r\n"));
}

TFO_TEST(keep_alive_and_close)
{
	struct tfo_svc_resp r;

	CHECK_EQ(ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK(!r.close && !has("Connection:"));
	CHECK_EQ(ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nConnection: "
		     "close\r\n\r\n", &r), TFO_SVC_RESPOND);
	CHECK(r.close && has("\r\nConnection: close\r\n"));
	CHECK_EQ(ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nConnection: "
		     "Upgrade, CLOSE\r\n\r\n", &r), TFO_SVC_RESPOND);
	CHECK(r.close);
	CHECK_EQ(ask(www, "GET /hello.txt HTTP/1.0\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK(r.close && has("\r\nConnection: close\r\n"));
	CHECK_EQ(ask(www, "GET /hello.txt HTTP/1.0\r\nConnection: Keep-Alive"
		     "\r\n\r\n", &r), TFO_SVC_RESPOND);
	CHECK(!r.close && has("\r\nConnection: keep-alive\r\n"));
	CHECK_EQ(ask(www, "GET /hello.txt HTTP/1.0\r\nConnection: keep-alive, "
		     "close\r\n\r\n", &r), TFO_SVC_RESPOND);
	CHECK(r.close);
	/* a 404 keeps the connection, with the 1.0 keep-alive echo */
	CHECK_EQ(ask(www, "GET /nope HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
		     &r), TFO_SVC_RESPOND);
	CHECK(code() == 404 && !r.close && has("Connection: keep-alive"));
	CHECK_EQ(ask(www, "GET /docs HTTP/1.1\r\nHost: x\r\nConnection: close"
		     "\r\n\r\n", &r), TFO_SVC_RESPOND);
	CHECK(code() == 301 && r.close);
}

TFO_TEST(pipelined)
{
	static const char *reqs[] = {
		"GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n",
		"HEAD /docs/style.css HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /docs HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /img/pixel.png HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n",
	};
	static const int codes[] = { 200, 200, 404, 301, 200 };
	char all[1024];
	struct tfo_svc_resp r;
	size_t len = 0, off = 0;
	unsigned int i;

	for (i = 0; i < RTE_DIM(reqs); i++) {
		memcpy(all + len, reqs[i], strlen(reqs[i]));
		len += strlen(reqs[i]);
	}
	/* answered in order; the "close" one ends the connection */
	for (i = 0; i < RTE_DIM(codes); i++) {
		REQUIRE(ask_n(www, all + off, len - off, &r) == TFO_SVC_RESPOND);
		CHECK_EQ(code(), codes[i]);
		CHECK_EQ(r.consumed, strlen(reqs[i]));
		CHECK_EQ(r.close, i == 4);
		off += r.consumed;
	}
	CHECK_EQ(off, len - strlen(reqs[5]));
	/* a partial second request after a complete one */
	CHECK_EQ(ask_n(www, all, strlen(reqs[0]) + 10, &r), TFO_SVC_RESPOND);
	CHECK_EQ(r.consumed, strlen(reqs[0]));
	CHECK_EQ(ask_n(www, all + strlen(reqs[0]), 10, &r), TFO_SVC_NEED_MORE);
}

/*
 * Split every request at every byte: each prefix is NEED_MORE until the
 * response appears, and then it is the response to the whole request.
 * Valid requests need every byte of their head.
 */
static void
split_check(const char *req, size_t len, bool valid)
{
	static uint8_t full[8192];
	struct tfo_svc_resp r, fr;
	size_t flen;
	int fcode;

	REQUIRE(ask_n(www, req, len, &fr) == TFO_SVC_RESPOND);
	flen = out_len;
	REQUIRE(flen < sizeof(full));
	memcpy(full, out, flen);
	fcode = code();
	for (size_t k = 0; k <= len; k++) {
		enum tfo_svc_status s = ask_n(www, req, k, &r);

		if (s == TFO_SVC_NEED_MORE) {
			CHECK_MSG(k < len, "NEED_MORE on the whole request %s",
				  req);
			continue;
		}
		CHECK_EQ(s, TFO_SVC_RESPOND);
		CHECK_MSG(!valid || k == len, "%s answered at %zu of %zu",
			  req, k, len);
		CHECK_MSG(code() == fcode && out_len == flen &&
			  memcmp(out, full, flen) == 0,
			  "%s split at %zu: another response", req, k);
		CHECK_EQ(r.close, fr.close);
		break;
	}
}

TFO_TEST(split_every_byte)
{
	static const char inm_close[] = "GET /hello.txt HTTP/1.1\r\nHost: x\r\n"
		"If-None-Match: \"x\", *\r\nConnection: close\r\n\r\n";
	unsigned int i;

	for (i = 0; i < RTE_DIM(good_cases); i++)
		split_check(good_cases[i].req, strlen(good_cases[i].req), true);
	for (i = 0; i < RTE_DIM(bad_cases); i++) {
		const char *q = bad_cases[i].req;
		const char *e = strstr(q, "\r\n\r\n");
		/* bodies are never waited for: split the head only */
		size_t len = e != NULL ? (size_t)(e + 4 - q) : strlen(q);

		split_check(q, len, false);
	}
	split_check(inm_close, strlen(inm_close), true);
}

/* "GET /aaa... HTTP/1.1" with a request-target of @p tlen bytes */
static int
long_target(char *req, size_t tlen)
{
	memcpy(req, "GET /", 5);
	memset(req + 5, 'a', tlen - 1);
	return (int)(4 + tlen) + sprintf(req + 4 + tlen,
					 " HTTP/1.1\r\nHost: x\r\n\r\n");
}

TFO_TEST(long_lines)
{
	static char req[20000];
	struct tfo_svc_resp r;
	int n;

	/* target of max_uri (4096) is fine, max_uri + 1 is a 414 */
	n = long_target(req, 4096);
	CHECK_EQ(ask_n(www, req, (size_t)n, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 404);
	n = long_target(req, 4097);
	CHECK_EQ(ask_n(www, req, (size_t)n, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 414);
	CHECK(r.close);
	/* 414 before the line is complete: no need to wait for the rest */
	CHECK_EQ(ask_n(www, req, 4 + 4097, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 414);
	CHECK_EQ(ask_n(www, req, 4 + 4096, &r), TFO_SVC_NEED_MORE);

	/* a long field line is a 400 (head over max_header = 8192) */
	n = snprintf(req, sizeof(req), "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: ");
	memset(req + n, 'p', 9000);
	n += 9000;
	n += snprintf(req + n, sizeof(req) - (size_t)n, "\r\n\r\n");
	CHECK_EQ(ask_n(www, req, (size_t)n, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 400);
	CHECK(r.close);
	/* ... detected as soon as max_header bytes are there */
	CHECK_EQ(ask_n(www, req, 8191, &r), TFO_SVC_NEED_MORE);
	CHECK_EQ(ask_n(www, req, 8192, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 400);
	/* a head of exactly max_header bytes is accepted */
	n = snprintf(req, sizeof(req), "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: ");
	memset(req + n, 'p', (size_t)(8192 - n - 4));
	memcpy(req + 8192 - 4, "\r\n\r\n", 4);
	CHECK_EQ(ask_n(www, req, 8192, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 200);
	CHECK_EQ(r.consumed, 8192);
	/* many small fields add up the same way */
	n = snprintf(req, sizeof(req), "GET / HTTP/1.1\r\nHost: x\r\n");
	while (n < 9000)
		n += snprintf(req + n, sizeof(req) - (size_t)n, "A: b\r\n");
	n += snprintf(req + n, sizeof(req) - (size_t)n, "\r\n");
	CHECK_EQ(ask_n(www, req, (size_t)n, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 400);
	CHECK_EQ(stat_of(TFO_STAT_http_414) >= 2, 1);
}

/* A byte at every position of a long value (the 16-byte scan's edges). */
TFO_TEST(field_value_bytes)
{
	static const struct {
		uint8_t c;
		int code;
	} bytes[] = {
		{ '\t', 200 }, { 0x80, 200 }, { 0xff, 200 }, { '~', 200 },
		{ 0x00, 400 }, { 0x01, 400 }, { '\n', 400 }, { 0x1f, 400 },
		{ 0x7f, 400 }, { '\r', 400 },
	};
	struct tfo_svc_resp r;
	char req[256];
	int n, v;

	for (unsigned int k = 0; k < RTE_DIM(bytes); k++) {
		for (unsigned int pos = 0; pos < 40; pos++) {
			n = snprintf(req, sizeof(req), "GET /hello.txt HTTP/1.1"
				     "\r\nHost: x\r\nUser-Agent: ");
			v = n;
			memset(req + n, 'u', 40);
			n += 40;
			n += snprintf(req + n, sizeof(req) - (size_t)n,
				      "\r\nAccept: */*\r\n\r\n");
			req[v + (int)pos] = (char)bytes[k].c;
			CHECK_EQ(ask_n(www, req, (size_t)n, &r), TFO_SVC_RESPOND);
			CHECK_MSG(code() == bytes[k].code,
				  "byte 0x%02x at %u: %d", bytes[k].c, pos, code());
		}
	}
}

TFO_TEST(small_buffer_rejects)
{
	struct tfo_svc_resp r;
	const char *req = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	uint64_t before = stat_of(TFO_STAT_http_reject_small_buf);

	memset(&r, 0, sizeof(r));
	r.buf = scratch;
	r.buf_cap = 64;
	r.stats = &stats;
	CHECK_EQ(svc->handle(www, &tcp_ctx, (const uint8_t *)req, (uint32_t)strlen(req),
			     &r), TFO_SVC_REJECT);
	CHECK_EQ(stat_of(TFO_STAT_http_reject_small_buf), before + 1);
	/* no counters needed: stats may be NULL */
	r.buf_cap = sizeof(scratch);
	r.stats = NULL;
	CHECK_EQ(svc->handle(www, &tcp_ctx, (const uint8_t *)req, (uint32_t)strlen(req),
			     &r), TFO_SVC_RESPOND);
	CHECK_EQ(svc->handle(www, &tcp_ctx, (const uint8_t *)req, 0, &r),
		 TFO_SVC_NEED_MORE);
}

TFO_TEST(date_header)
{
	struct tfo_svc_resp r;
	char d[64], d2[64];
	void *st;
	int rc;

	st = mk(&rc, WWW, NULL);
	REQUIRE(st != NULL);
	CHECK_EQ(ask(st, "GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	hdr("Date", d, sizeof(d));
	CHECK_EQ(strlen(d), TFO_HTTP_DATE_LEN);
	CHECK(strcmp(d + 25, " GMT") == 0 && d[3] == ',');
	CHECK(atoi(d + 12) >= 2024);
	/* the Date is in the buffer, right after the status line */
	CHECK(strncmp((const char *)out, "HTTP/1.1 200 OK\r\nDate: ", 23) == 0);
	CHECK(r.buf_len == 17 + 6 + TFO_HTTP_DATE_LEN + 2);
	/* and on an error */
	CHECK_EQ(ask(st, "BREW / HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	hdr("Date", d2, sizeof(d2));
	CHECK_EQ(strlen(d2), TFO_HTTP_DATE_LEN);
	svc->destroy(st);
}

TFO_TEST(config_keys)
{
	struct tfo_svc_resp r;
	char v[128];
	void *st;
	int rc;

	st = mk(&rc, WWW, "date", "off", "cache_control", "public, max-age=3600",
		"server_header", "", "index", "style.css", NULL);
	REQUIRE(st != NULL);
	CHECK_EQ(ask(st, "GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	hdr("Cache-Control", v, sizeof(v));
	CHECK(strcmp(v, "public, max-age=3600") == 0);
	CHECK(!has("Server:"));
	CHECK_EQ(ask(st, "GET /docs/ HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK(has("text/css"));
	CHECK_EQ(ask(st, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK_EQ(code(), 404);
	svc->destroy(st);

	st = mk(&rc, WWW, "cache_control", "", NULL);
	CHECK(st != NULL);
	if (st != NULL)
		svc->destroy(st);
	CHECK(mk(&rc, WWW, "max_file_size", "12Q", NULL) == NULL);
	CHECK_EQ(rc, -EINVAL);
	CHECK(mk(&rc, WWW, "max_total_size", "-1", NULL) == NULL);
	CHECK(mk(&rc, WWW, "date", "maybe", NULL) == NULL);
	CHECK(mk(&rc, WWW, "index", "a/b", NULL) == NULL);
	CHECK(mk(&rc, WWW, "cache_control", "a\r\nSet-Cookie: x", NULL) == NULL);
	CHECK(mk(&rc, WWW, "max_uri", "9000", NULL) == NULL);
	CHECK(mk(&rc, WWW, "max_uri", "4K", "max_header", "4K", NULL) == NULL);
	CHECK(mk(&rc, WWW "/nonexistent", NULL) == NULL);
	CHECK_EQ(rc, -ENOENT);
	CHECK(mk(&rc, WWW "/hello.txt", NULL) == NULL);
	/* a relative root resolves from base_dir */
	{
		struct tfo_service_kv kv[] = { { "root", "www" } };
		struct tfo_service_args a = { .port = 80, .nb_kv = 1, .kv = kv,
			.base_dir = TFO_CONFIG_DIR "/../tests",
			.socket_id = 0 };

		st = NULL;
		CHECK_EQ(svc->create(&a, &st), 0);
		if (st != NULL)
			svc->destroy(st);
	}
}

/* ---- loading: a scratch tree per case --------------------------------- */

static char tmp_root[256];

static void
tmp_make(void)
{
	snprintf(tmp_root, sizeof(tmp_root), "/tmp/tfo_http_test.XXXXXX");
	if (mkdtemp(tmp_root) == NULL)
		tmp_root[0] = '\0';
}

static void
tmp_file(const char *rel, size_t size, uint8_t fill)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmp_root, rel);
	f = fopen(p, "wb");
	if (f == NULL)
		return;
	for (size_t i = 0; i < size; i++)
		fputc(fill ? fill : (int)(i * 131 % 251), f);
	fclose(f);
}

static void
tmp_clean(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp_root);
}

/* create() with the log captured into @p log */
static void *
mk_logged(int *rc, char *log, size_t cap, ...)
{
	FILE *mem = fmemopen(log, cap, "w");
	FILE *old = rte_log_get_stream();
	const char *k[8] = { 0 }, *v[8] = { 0 };
	unsigned int n = 0;
	va_list ap;
	void *st;

	memset(log, 0, cap);
	va_start(ap, cap);
	while (n < 8 && (k[n] = va_arg(ap, const char *)) != NULL) {
		v[n] = va_arg(ap, const char *);
		n++;
	}
	va_end(ap);
	rte_openlog_stream(mem);
	st = mk(rc, tmp_root, k[0], v[0], k[1], v[1], k[2], v[2], NULL);
	fflush(mem);
	rte_openlog_stream(old);
	fclose(mem);
	return st;
}

TFO_TEST(load_1mib)
{
	struct tfo_svc_resp r;
	char path[512], log[2048];
	size_t flen, blen;
	char *file;
	const char *b;
	void *st;
	int rc;

	tmp_make();
	REQUIRE(tmp_root[0] != '\0');
	tmp_file("big.bin", 1 << 20, 0);
	snprintf(path, sizeof(path), "%s/big.bin", tmp_root);
	file = read_all(path, &flen);
	REQUIRE(file != NULL && flen == 1 << 20);
	st = mk_logged(&rc, log, sizeof(log), "date", "no", NULL);
	CHECK_EQ(rc, 0);
	if (st != NULL) {
		CHECK_EQ(ask(st, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n", &r),
			 TFO_SVC_RESPOND);
		CHECK(has("Content-Length: 1048576\r\n"));
		CHECK(has("Content-Type: application/octet-stream\r\n"));
		b = body(&blen);
		CHECK_EQ(blen, flen);
		CHECK_MEM(b, file, flen);
		svc->destroy(st);
	}
	/* per-file limit: create() fails, naming the file and the limit */
	st = mk_logged(&rc, log, sizeof(log), "max_file_size", "512K", NULL);
	CHECK(st == NULL);
	CHECK_EQ(rc, -EFBIG);
	CHECK_MSG(strstr(log, "/big.bin is 1048576 bytes, over max_file_size "
			 "524288") != NULL, "log: %s", log);
	/* exactly at the limit is fine */
	st = mk_logged(&rc, log, sizeof(log), "max_file_size", "1M",
		       "max_total_size", "1M", NULL);
	CHECK(st != NULL);
	if (st != NULL)
		svc->destroy(st);
	/* total limit */
	tmp_file("more.bin", 1000, 'x');
	st = mk_logged(&rc, log, sizeof(log), "max_total_size", "1M", NULL);
	CHECK(st == NULL);
	CHECK_EQ(rc, -EFBIG);
	CHECK_MSG(strstr(log, "over max_total_size 1048576") != NULL &&
		  strstr(log, "/more.bin") != NULL, "log: %s", log);
	/* count limit */
	st = mk_logged(&rc, log, sizeof(log), "max_files", "1", NULL);
	CHECK(st == NULL);
	CHECK_MSG(strstr(log, "max_files 1") != NULL, "log: %s", log);
	free(file);
	tmp_clean();
}

/* Stands for the engines in reclaim(): a send queue holds @p blob while
 * @p live; @p seen: which of blob, other lay in a range it was asked. */
struct fake_sndq {
	const struct tfo_blob *blob, *other;
	bool live;
	unsigned int asked, seen;
};

static bool
fake_sends_from(void *arg, const void *lo, const void *hi)
{
	struct fake_sndq *f = arg;
	const void *b = f->blob, *o = f->other;

	f->asked++;
	if (o >= lo && o < hi)
		f->seen |= 2;
	if (b < lo || b >= hi)
		return false;
	f->seen |= 1;
	return f->live;
}

/* reclaim() with the log captured into @p log */
static unsigned int
reclaim_logged(void *st, struct fake_sndq *f, char *log, size_t cap)
{
	FILE *mem = fmemopen(log, cap, "w");
	FILE *old = rte_log_get_stream();
	unsigned int held;

	memset(log, 0, cap);
	rte_openlog_stream(mem);
	held = svc->reclaim(st, fake_sends_from, f);
	fflush(mem);
	rte_openlog_stream(old);
	fclose(mem);
	return held;
}

/* reload(): a new root serves, a bad one is refused and the old one
 * serves, bodies already handed out stay readable until reclaim() frees
 * them: after the grace time (reload_drain) and once no send queue
 * references them, however long that takes. */
TFO_TEST(reload)
{
	struct tfo_svc_resp r;
	const struct tfo_blob *old, *old404;
	struct fake_sndq f = { 0 };
	char msg[512], want[32], log[1024];
	size_t blen;
	void *st;
	int rc;

	tmp_make();
	REQUIRE(tmp_root[0] != '\0');
	REQUIRE(svc->reload != NULL && svc->reclaim != NULL);
	tmp_file("a.txt", 10, 'a');
	st = mk(&rc, tmp_root, "date", "no", "max_file_size", "64",
		"reload_drain", "1", NULL);
	REQUIRE(st != NULL);
	CHECK_EQ(ask(st, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r), TFO_SVC_RESPOND);
	old = r.body;
	CHECK_MEM(body(&blen), "aaaaaaaaaa", 10);
	CHECK_EQ(ask(st, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 404);
	old404 = r.body;

	tmp_file("a.txt", 20, 'b');
	CHECK_EQ(svc->reload(st, msg, sizeof(msg)), 1);
	CHECK_MSG(strstr(msg, "generation 2 serves") != NULL, "%s", msg);
	CHECK_EQ(ask(st, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r), TFO_SVC_RESPOND);
	memset(want, 'b', 20);
	CHECK_MEM(body(&blen), want, 20);
	CHECK_EQ(blen, 20);
	/* a response queued before the reload still reads the old table */
	CHECK(old->data[old->len - 1] == 'a');

	tmp_file("big.bin", 100, 'x');
	rc = svc->reload(st, msg, sizeof(msg));
	CHECK_EQ(rc, -EFBIG);
	CHECK_MSG(strstr(msg, "the old one serves") != NULL &&
		  strstr(msg, "/big.bin is 100 bytes, over max_file_size 64") != NULL,
		  "%s", msg);
	CHECK_EQ(ask(st, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r), TFO_SVC_RESPOND);
	CHECK_MEM(body(&blen), want, 20);
	/* a slow reader: a send queue still holds the old 404 body */
	f.blob = old404;
	f.other = old;
	f.live = true;
	CHECK_EQ(svc->reclaim(st, fake_sends_from, &f), 0);
	CHECK_EQ(f.asked, 0);	/* too early: not even asked */
	CHECK(old->data[old->len - 1] == 'a');
	usleep(1100 * 1000);
	/* reload_drain = 1 s is over, but referenced: kept, logged, counted once */
	CHECK_EQ(reclaim_logged(st, &f, log, sizeof(log)), 1);
	CHECK_MSG(strstr(log, "root generation 1 kept past reload_drain") != NULL,
		  "log: %s", log);
	CHECK_EQ(f.seen, 3);	/* both objs[] and errors[] were asked about */
	CHECK(old->data[old->len - 1] == 'a' && old404->len > 0);
	f.asked = 0;
	CHECK_EQ(svc->reclaim(st, fake_sends_from, &f), 0);
	CHECK_EQ(f.asked, 0);	/* at most once a second */
	usleep(1100 * 1000);
	CHECK_EQ(reclaim_logged(st, &f, log, sizeof(log)), 0);	/* still held: */
	CHECK_MSG(strstr(log, "kept past") == NULL, "logged once: %s", log);
	CHECK(f.asked > 0);
	/* the client ACKed: freed at the next check */
	f.live = false;
	usleep(1100 * 1000);
	CHECK_EQ(reclaim_logged(st, &f, log, sizeof(log)), 0);
	CHECK_MSG(strstr(log, "root generation 1 freed") != NULL, "log: %s", log);
	svc->destroy(st);

	/* at most HTTP_RETIRED (4) roots drain at once */
	unlink(strcat(strcpy(msg, tmp_root), "/big.bin"));
	st = mk(&rc, tmp_root, "date", "no", NULL);
	REQUIRE(st != NULL);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(svc->reload(st, msg, sizeof(msg)), 1);
	CHECK_EQ(svc->reload(st, msg, sizeof(msg)), -EBUSY);
	CHECK_MSG(strstr(msg, "still draining") != NULL, "%s", msg);
	svc->reclaim(st, NULL, NULL);	/* reload_drain = 300: nothing freed yet */
	CHECK_EQ(ask(st, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 200);
	svc->destroy(st);	/* frees the current and the 4 retired */
	tmp_clean();
}

TFO_TEST(load_symlinks_and_etag)
{
	struct tfo_svc_resp r;
	char path[512], target[512], log[2048], e1[64], e2[64], e3[64], lm[64];
	struct timeval tv[2] = { { 784111777, 0 }, { 784111777, 0 } };
	void *st;
	int rc;

	tmp_make();
	REQUIRE(tmp_root[0] != '\0');
	snprintf(path, sizeof(path), "%s/sub", tmp_root);
	CHECK_EQ(mkdir(path, 0755), 0);
	tmp_file("a.txt", 100, 'a');
	tmp_file("b.txt", 100, 'a');	/* same content */
	tmp_file("c.txt", 100, 'c');
	tmp_file("sub/d.txt", 10, 'd');
	snprintf(path, sizeof(path), "%s/a.txt", tmp_root);
	CHECK_EQ(utimes(path, tv), 0);
	/* a symlink inside the root is served under its own name */
	snprintf(path, sizeof(path), "%s/link.txt", tmp_root);
	CHECK_EQ(symlink("sub/d.txt", path), 0);
	st = mk_logged(&rc, log, sizeof(log), "date", "no", NULL);
	CHECK_EQ(rc, 0);
	REQUIRE(st != NULL);
	CHECK_EQ(ask(st, "GET /link.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK(code() == 200 && has("\r\n\r\ndddddddddd"));
	CHECK_EQ(ask(st, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	hdr("ETag", e1, sizeof(e1));
	hdr("Last-Modified", lm, sizeof(lm));
	CHECK(strcmp(lm, "Sun, 06 Nov 1994 08:49:37 GMT") == 0);
	CHECK_EQ(ask(st, "GET /b.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	hdr("ETag", e2, sizeof(e2));
	CHECK_EQ(ask(st, "GET /c.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	hdr("ETag", e3, sizeof(e3));
	CHECK(strcmp(e1, e2) == 0);	/* from the content */
	CHECK(strcmp(e1, e3) != 0);
	/* no directory index: /sub/ is a 404, not a listing */
	CHECK_EQ(ask(st, "GET /sub/ HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK_EQ(code(), 404);
	svc->destroy(st);

	/* a symlink that leaves the root is refused, naming it */
	snprintf(path, sizeof(path), "%s/sub/escape", tmp_root);
	CHECK_EQ(symlink("/etc/hostname", path), 0);
	st = mk_logged(&rc, log, sizeof(log), NULL);
	CHECK(st == NULL);
	CHECK_EQ(rc, -EPERM);
	CHECK_MSG(strstr(log, "symlink /sub/escape points outside the root") !=
		  NULL, "log: %s", log);
	unlink(path);
	CHECK_EQ(symlink("../../", path), 0);
	st = mk_logged(&rc, log, sizeof(log), NULL);
	CHECK(st == NULL);
	CHECK(strstr(log, "outside the root") != NULL);
	unlink(path);
	/* dangling */
	CHECK_EQ(symlink("nowhere", path), 0);
	st = mk_logged(&rc, log, sizeof(log), NULL);
	CHECK(st == NULL);
	CHECK_MSG(strstr(log, "symlink /sub/escape") != NULL, "log: %s", log);
	unlink(path);
	/* a loop inside the root ends at the depth limit */
	snprintf(target, sizeof(target), "%s/sub", tmp_root);
	CHECK_EQ(symlink(target, path), 0);
	st = mk_logged(&rc, log, sizeof(log), NULL);
	CHECK(st == NULL);
	CHECK_EQ(rc, -ELOOP);
	unlink(path);
	/* a FIFO is not a file to serve */
	CHECK_EQ(mkfifo(path, 0644), 0);
	st = mk_logged(&rc, log, sizeof(log), NULL);
	CHECK(st == NULL);
	CHECK_MSG(strstr(log, "not a regular file") != NULL, "log: %s", log);
	unlink(path);
	/* and without them, it loads */
	st = mk_logged(&rc, log, sizeof(log), NULL);
	CHECK(st != NULL);
	if (st != NULL)
		svc->destroy(st);
	tmp_clean();
}


/* ---- issue 26: parser additions, ranges, rules, POST, OCSP, hosts ------ */

TFO_TEST(parse_post_fields)
{
	const struct tfo_http_limits lim = { 8192, 4096 };
	const char *q = "POST /x HTTP/1.1\r\nHost: A.b:80\r\nContent-Length: 5\r\n"
			"Range: bytes=1-2\r\nIf-Range: \"e\"\r\n\r\nhello";
	const char *two = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
			  "Content-Length: 6\r\n\r\n";
	const char *same = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
			   "Content-Length: 5\r\n\r\n";
	const char *huge = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: "
			   "99999999999999999999999\r\n\r\n";
	struct tfo_http_req r;

	CHECK_EQ(tfo_http_parse((const uint8_t *)q, (uint32_t)strlen(q), &lim, &r),
		 TFO_HTTP_OK);
	CHECK_EQ(r.method, TFO_HTTP_POST);
	CHECK_EQ(r.content_length, 5);
	CHECK_EQ(r.head_len, strlen(q) - 5);
	CHECK(r.host.len == 6 && memcmp(r.host.p, "A.b:80", 6) == 0);
	CHECK(r.range.len == 9 && memcmp(r.range.p, "bytes=1-2", 9) == 0);
	CHECK(r.if_range.len == 3);
	CHECK(!r.chunked);
	/* RFC 9112 6.3: two Content-Length values that differ */
	CHECK_EQ(tfo_http_parse((const uint8_t *)two, (uint32_t)strlen(two), &lim, &r),
		 TFO_HTTP_E_SYNTAX);
	CHECK_EQ(tfo_http_parse((const uint8_t *)same, (uint32_t)strlen(same), &lim, &r),
		 TFO_HTTP_OK);
	CHECK_EQ(tfo_http_parse((const uint8_t *)huge, (uint32_t)strlen(huge), &lim, &r),
		 TFO_HTTP_OK);
	CHECK(r.content_length > ((uint64_t)1 << 62) &&
	      r.content_length != TFO_HTTP_NO_LENGTH);
	q = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
	CHECK_EQ(tfo_http_parse((const uint8_t *)q, (uint32_t)strlen(q), &lim, &r),
		 TFO_HTTP_OK);
	CHECK_EQ(r.content_length, TFO_HTTP_NO_LENGTH);
	CHECK_EQ(r.range.len, 0);
}

TFO_TEST(path_encoded_slash_modes)
{
	struct tfo_http_slice t = { (const uint8_t *)"/a%2Fb/%2e%2F", 13 };
	char o[64];
	uint32_t n;

	CHECK_EQ(tfo_http_path_mode(&t, o, sizeof(o), &n, TFO_HTTP_SLASH_404),
		 TFO_HTTP_PATH_NOFILE);
	CHECK_EQ(tfo_http_path_mode(&t, o, sizeof(o), &n, TFO_HTTP_SLASH_DECODE),
		 TFO_HTTP_PATH_OK);
	CHECK(n == 5 && memcmp(o, "/a/b/", 5) == 0);
	CHECK_EQ(tfo_http_path_mode(&t, o, sizeof(o), &n, TFO_HTTP_SLASH_KEEP),
		 TFO_HTTP_PATH_OK);
	CHECK_MSG(n == 11 && memcmp(o, "/a%2Fb/.%2F", 11) == 0, "%.*s", (int)n, o);
	/* ".." made of a decoded slash still stops at the root */
	t.p = (const uint8_t *)"/%2F..%2F..";
	t.len = 11;
	CHECK_EQ(tfo_http_path_mode(&t, o, sizeof(o), &n, TFO_HTTP_SLASH_DECODE),
		 TFO_HTTP_PATH_BAD);
}

TFO_TEST(base64_decode)
{
	uint8_t o[16];

	CHECK_EQ(tfo_http_b64_decode((const uint8_t *)"+/8=", 4, false, o, 16), 2);
	CHECK(o[0] == 0xfb && o[1] == 0xff);
	CHECK_EQ(tfo_http_b64_decode((const uint8_t *)"-_8", 3, false, o, 16), 2);
	CHECK(o[0] == 0xfb && o[1] == 0xff);
	CHECK_EQ(tfo_http_b64_decode((const uint8_t *)"%2B%2F8%3D", 10, true, o, 16), 2);
	CHECK(o[0] == 0xfb && o[1] == 0xff);
	CHECK_EQ(tfo_http_b64_decode((const uint8_t *)"%2B", 3, false, o, 16), -1);
	CHECK_EQ(tfo_http_b64_decode((const uint8_t *)"A", 1, false, o, 16), -1);
	CHECK_EQ(tfo_http_b64_decode((const uint8_t *)"AA=A", 4, false, o, 16), -1);
	CHECK_EQ(tfo_http_b64_decode((const uint8_t *)"AAAAAAAA", 8, false, o, 5), -1);
	CHECK_EQ(tfo_http_b64_decode((const uint8_t *)"%2", 2, true, o, 16), -1);
}

TFO_TEST(ranges)
{
	struct tfo_svc_resp r;
	char v[128], etag[64], lm[64], q[512];
	size_t bl;
	uint64_t n206 = stat_of(TFO_STAT_http_206), n416 = stat_of(TFO_STAT_http_416);
	uint64_t nign = stat_of(TFO_STAT_http_range_ignored);
	const char *b;

	/* hello.txt is "hello\n" */
	CHECK_EQ(ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\n\r\n",
		     &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 206);
	hdr("Content-Range", v, sizeof(v));
	CHECK_MSG(strcmp(v, "bytes 0-1/6") == 0, "%s", v);
	hdr("Content-Length", v, sizeof(v));
	CHECK(strcmp(v, "2") == 0);
	CHECK(has("Content-Type: text/plain; charset=utf-8\r\n"));
	b = body(&bl);
	CHECK(bl == 2 && memcmp(b, "he", 2) == 0);
	CHECK(!has("Content-Length: 6"));
	/* the body is the file's blob, not a copy */
	CHECK(r.body != NULL && r.body_len == 2);
	hdr("ETag", etag, sizeof(etag));
	hdr("Last-Modified", lm, sizeof(lm));
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=-2\r\n\r\n", &r);
	b = body(&bl);
	CHECK(code() == 206 && bl == 2 && memcmp(b, "o\n", 2) == 0);
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=4-\r\n\r\n", &r);
	b = body(&bl);
	CHECK(code() == 206 && bl == 2 && memcmp(b, "o\n", 2) == 0);
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=2-100\r\n\r\n", &r);
	hdr("Content-Range", v, sizeof(v));
	CHECK(code() == 206 && strcmp(v, "bytes 2-5/6") == 0);
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=-100\r\n\r\n", &r);
	hdr("Content-Range", v, sizeof(v));
	CHECK(code() == 206 && strcmp(v, "bytes 0-5/6") == 0);
	CHECK_EQ(stat_of(TFO_STAT_http_206), n206 + 5);
	/* unsatisfiable: 416 with the length, the connection kept */
	CHECK_EQ(ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=6-\r\n\r\n",
		     &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 416);
	hdr("Content-Range", v, sizeof(v));
	CHECK_MSG(strcmp(v, "bytes */6") == 0, "%s", out);
	CHECK(!r.close);
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=-0\r\n\r\n", &r);
	CHECK_EQ(code(), 416);
	CHECK_EQ(stat_of(TFO_STAT_http_416), n416 + 2);
	/* several ranges, bad syntax, another unit, last < first: 200 in full */
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1,3-4\r\n\r\n", &r);
	CHECK(code() == 200 && has("\r\n\r\nhello\n"));
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=x-1\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: items=0-1\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=3-1\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	CHECK_EQ(stat_of(TFO_STAT_http_range_ignored), nign + 4);
	/* If-Range: the ETag or the date must match, else the whole file */
	snprintf(q, sizeof(q), "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=0-0\r\n"
		 "If-Range: %s\r\n\r\n", etag);
	ask(www, q, &r);
	CHECK_EQ(code(), 206);
	snprintf(q, sizeof(q), "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=0-0\r\n"
		 "If-Range: %s\r\n\r\n", lm);
	ask(www, q, &r);
	CHECK_EQ(code(), 206);
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=0-0\r\n"
	    "If-Range: \"other\"\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	/* HEAD ignores Range (RFC 9110 14.2: defined for GET only) */
	ask(www, "HEAD /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\n\r\n", &r);
	CHECK(code() == 200 && has("Content-Length: 6\r\n"));
	/* not a file (an error, a redirect): no range */
	ask(www, "GET /docs HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\n\r\n", &r);
	CHECK_EQ(code(), 301);
}

TFO_TEST(range_needs_buffer_room)
{
	const char *req = "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\n\r\n";
	struct tfo_svc_resp r;
	uint8_t small[HTTP_MIN_BUF_TEST];

	memset(&r, 0, sizeof(r));
	r.buf = small;
	r.buf_cap = sizeof(small);
	r.stats = &stats;
	CHECK_EQ(svc->handle(www, &tcp_ctx, (const uint8_t *)req, (uint32_t)strlen(req),
			     &r), TFO_SVC_RESPOND);
	/* no room for the 206's head in a minimal buffer: the 200 */
	CHECK_EQ(r.status, 200);
}

/* Write @p text to tmp_root/@p rel. */
static void
tmp_text(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmp_root, rel);
	f = fopen(p, "w");
	if (f == NULL)
		return;
	fputs(text, f);
	fclose(f);
}

static void
tmp_dir(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", tmp_root, rel);
	mkdir(p, 0755);
}

/* check() of root = tmp_root/www with rules = tmp_root/rules.ini: 0 or the
 * error, into @p why */
static int
check_rules(const char *rules, char *why, size_t cap)
{
	char root[512], file[512];
	struct tfo_service_kv kv[2];
	struct tfo_service_args a = { .port = 80, .kv = kv, .nb_kv = 2 };

	tmp_text("rules.ini", rules);
	snprintf(root, sizeof(root), "%s/www", tmp_root);
	snprintf(file, sizeof(file), "%s/rules.ini", tmp_root);
	kv[0].key = "root";
	kv[0].value = root;
	kv[1].key = "rules";
	kv[1].value = file;
	why[0] = '\0';
	return svc->check(&a, why, cap);
}

static const char http_rules_ok[] =
	"# connectivity check, a fixed body, PKI files, a beacon, OCSP\n"
	"[path /generate_204]   ; comments after white space\n"
	"status = 204\t# as in the configuration\n"
	"cache_control = no-store\n"
	"[path /hello]\n"
	"status = 200\n"
	"body = hi there\n"
	"content_type = text/plain\n"
	"header = X-Check: 1#not a comment\n"
	"[path *.crl]\n"
	"cache_control = max-age=3600\n"
	"header = X-A: a\n"
	"header = X-B: b\n"
	"[path /beacon]\n"
	"status = 204\n"
	"post = yes\n"
	"[path /idem]\n"
	"status = 204\n"
	"post = yes\n"
	"post_in_syn = yes\n"
	"[path /ocsp]\n"
	"ocsp = ocsp\n"
	"post_in_syn = yes\n"
	"[host a.example A2.Example.]\n"
	"root = www-a\n"
	"[host b.example]\n"
	"root = www-b\n";

/* A tree: www/ (root: ca.crl, page.txt), www-a/, www-b/, ocsp/ with one
 * response for the "request" bytes 30 03 02 01 07 (base64url MAMCAQc). */
static void *
rules_tree(int *rc)
{
	char root[512], file[512];

	tmp_make();
	if (tmp_root[0] == '\0')
		return NULL;
	tmp_dir("www");
	tmp_dir("www-a");
	tmp_dir("www-b");
	tmp_dir("ocsp");
	tmp_text("www/ca.crl", "CRL");
	tmp_text("www/page.txt", "root page");
	tmp_text("www-a/page.txt", "host a page");
	tmp_dir("www-a/sub");
	tmp_text("www-a/sub/index.html", "a index");
	tmp_text("www-b/page.txt", "host b page");
	tmp_text("ocsp/MAMCAQc", "RESPONSE");
	tmp_text("rules.ini", http_rules_ok);
	snprintf(root, sizeof(root), "%s/www", tmp_root);
	snprintf(file, sizeof(file), "%s/rules.ini", tmp_root);
	return mk(rc, root, "date", "no", "rules", file, "max_body", "64", NULL);
}

TFO_TEST(path_rules_fixed_answers)
{
	struct tfo_svc_resp r;
	uint64_t n204 = stat_of(TFO_STAT_http_204);
	char v[64];
	size_t bl;
	void *st;
	int rc;

	st = rules_tree(&rc);
	CHECK_EQ(rc, 0);
	REQUIRE(st != NULL);
	CHECK_EQ(ask(st, "GET /generate_204 HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK_EQ(code(), 204);
	CHECK_MSG(!has("Content-Length") && has("Cache-Control: no-store\r\n") &&
		  out_len > 4 && memcmp(out + out_len - 4, "\r\n\r\n", 4) == 0, "%s|%zu|%u",
		  out, out_len, r.body ? r.body->len : 0);
	CHECK_EQ(r.status, 204);
	CHECK_EQ(stat_of(TFO_STAT_http_204), n204 + 1);
	CHECK(!r.close);
	ask(st, "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	CHECK(has("Content-Type: text/plain\r\n") && has("X-Check: 1#not a comment\r\n") &&
	      has("Content-Length: 8\r\n"));
	CHECK(strcmp(body(&bl), "hi there") == 0);
	/* the default Cache-Control where no rule says */
	CHECK(has("Cache-Control: no-cache\r\n"));
	/* a pattern: headers and Cache-Control on a file; the PKIX type */
	ask(st, "GET /ca.crl HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	CHECK(has("Content-Type: application/pkix-crl\r\n"));
	CHECK(has("Cache-Control: max-age=3600\r\n") && has("X-A: a\r\nX-B: b\r\n"));
	hdr("Content-Length", v, sizeof(v));
	CHECK(strcmp(v, "3") == 0 && strcmp(body(&bl), "CRL") == 0);
	/* every host answers the fixed paths */
	ask(st, "GET /generate_204 HTTP/1.1\r\nHost: b.example\r\n\r\n", &r);
	CHECK_EQ(code(), 204);
	svc->destroy(st);
	tmp_clean();
}

TFO_TEST(post_rules_and_syn_data)
{
	struct tfo_svc_ctx syn = tcp_ctx;
	struct tfo_svc_resp r;
	uint64_t n425 = stat_of(TFO_STAT_http_425), n405 = stat_of(TFO_STAT_http_405);
	uint64_t n411 = stat_of(TFO_STAT_http_411), n413 = stat_of(TFO_STAT_http_413);
	const char *p3 = "POST /beacon HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
	char v[64];
	void *st;
	int rc;

	st = rules_tree(&rc);
	REQUIRE(st != NULL);
	/* allowed: answered as GET, the body consumed */
	CHECK_EQ(ask(st, p3, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 204);
	CHECK_EQ(r.consumed, strlen(p3));
	CHECK(!r.close);
	/* the body not all here yet */
	CHECK_EQ(ask_n(st, p3, strlen(p3) - 1, &r), TFO_SVC_NEED_MORE);
	/* POST as TFO SYN data: 425 unless post_in_syn */
	syn.in_syn = 1;
	cur_ctx = &syn;
	CHECK_EQ(ask(st, p3, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 425);
	CHECK_EQ(r.consumed, strlen(p3));
	CHECK(!r.close);
	CHECK_EQ(stat_of(TFO_STAT_http_425), n425 + 1);
	ask(st, "POST /idem HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", &r);
	CHECK_EQ(code(), 204);
	/* GET in the SYN is fine */
	ask(st, "GET /beacon HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 204);
	cur_ctx = &tcp_ctx;
	/* elsewhere: 405 with Allow, the connection closed */
	ask(st, "POST /page.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", &r);
	CHECK_EQ(code(), 405);
	hdr("Allow", v, sizeof(v));
	CHECK(strcmp(v, "GET, HEAD") == 0 && r.close);
	ask(st, "POST /nosuch HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", &r);
	CHECK_EQ(code(), 405);
	CHECK_EQ(stat_of(TFO_STAT_http_405), n405 + 2);
	/* framing: no length, chunked, too long (max_body = 64) */
	ask(st, "POST /beacon HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK(code() == 411 && r.close);
	ask(st, "POST /beacon HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", &r);
	CHECK(code() == 411 && r.close);
	CHECK_EQ(stat_of(TFO_STAT_http_411), n411 + 2);
	ask(st, "POST /beacon HTTP/1.1\r\nHost: x\r\nContent-Length: 65\r\n\r\n", &r);
	CHECK(code() == 413 && r.close);
	CHECK_EQ(stat_of(TFO_STAT_http_413), n413 + 1);
	/* a GET with a body is still a 400 */
	ask(st, "GET /beacon HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx", &r);
	CHECK_EQ(code(), 400);
	svc->destroy(st);
	tmp_clean();
}

TFO_TEST(ocsp_get_and_post)
{
	/* the DER "request" 30 03 02 01 07: base64 MAMCAQc= */
	static const char post[] = "POST /ocsp HTTP/1.1\r\nHost: x\r\n"
		"Content-Type: application/ocsp-request\r\nContent-Length: 5\r\n\r\n"
		"\x30\x03\x02\x01\x07";
	struct tfo_svc_ctx syn = tcp_ctx;
	struct tfo_svc_resp r;
	uint64_t hit = stat_of(TFO_STAT_http_ocsp_hit), miss = stat_of(TFO_STAT_http_ocsp_miss);
	size_t bl;
	void *st;
	int rc;

	st = rules_tree(&rc);
	REQUIRE(st != NULL);
	CHECK_EQ(ask_n(st, post, sizeof(post) - 1, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 200);
	CHECK(has("Content-Type: application/ocsp-response\r\n"));
	CHECK(strcmp(body(&bl), "RESPONSE") == 0);
	CHECK_EQ(r.consumed, sizeof(post) - 1);
	/* in the SYN too: post_in_syn = yes (OCSP is idempotent) */
	syn.in_syn = 1;
	cur_ctx = &syn;
	ask_n(st, post, sizeof(post) - 1, &r);
	CHECK_EQ(code(), 200);
	cur_ctx = &tcp_ctx;
	/* GET: base64 in the path, standard or url alphabet, %-encoded or not */
	ask(st, "GET /ocsp/MAMCAQc%3D HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "RESPONSE") == 0);
	ask(st, "GET /ocsp/MAMCAQc= HTTP/1.1\r\nHost: a.example\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	CHECK_EQ(stat_of(TFO_STAT_http_ocsp_hit), hit + 4);
	/* unknown request, not base64 */
	ask(st, "GET /ocsp/MAMCAQg HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 404);
	ask(st, "GET /ocsp/**** HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 404);
	CHECK_EQ(stat_of(TFO_STAT_http_ocsp_miss), miss + 2);
	svc->destroy(st);
	tmp_clean();
}

TFO_TEST(virtual_hosts)
{
	struct tfo_svc_resp r;
	size_t bl;
	void *st;
	int rc;

	/* any case, a port, a trailing dot, an alias; any other host (an
	 * address, IPv6 too, none in 1.0): the service's root */
	static const struct {
		const char *host, *want;
	} hosts[] = {
		{ "Host: a.example\r\n", "host a page" },
		{ "Host: A2.EXAMPLE.:8080\r\n", "host a page" },
		{ "Host: B.example\r\n", "host b page" },
		{ "Host: 198.18.0.1\r\n", "root page" },
		{ "Host: [fd00::1]:80\r\n", "root page" },
		{ NULL, "root page" },
	};
	char q[256];

	st = rules_tree(&rc);
	REQUIRE(st != NULL);
	for (unsigned int i = 0; i < RTE_DIM(hosts); i++) {
		snprintf(q, sizeof(q), "GET /page.txt HTTP/1.%c\r\n%s\r\n",
			 hosts[i].host ? '1' : '0', hosts[i].host ? hosts[i].host : "");
		ask(st, q, &r);
		CHECK_MSG(code() == 200 && strcmp(body(&bl), hosts[i].want) == 0,
			  "%s: %s", q, out);
	}
	/* a host's directory: the redirect names the path, not the host's tag */
	ask(st, "GET /sub HTTP/1.1\r\nHost: a.example\r\n\r\n", &r);
	CHECK_MSG(code() == 301 && has("Location: /sub/\r\n"), "%s", out);
	ask(st, "GET /sub/ HTTP/1.1\r\nHost: a.example\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "a index") == 0);
	ask(st, "GET /sub/ HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 404);
	/* a host's files only: the root's ca.crl is not a.example's */
	ask(st, "GET /ca.crl HTTP/1.1\r\nHost: a.example\r\n\r\n", &r);
	CHECK_EQ(code(), 404);
	svc->destroy(st);
	tmp_clean();
}

TFO_TEST(rules_default_host_and_errors)
{
	char why[1024], rules[2048];
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "[path /x]\nstatus = 302\n", "rules.ini:2: status = 302: expected 200 or 204" },
		{ "[path *.x]\nstatus = 204\n", "rules.ini:2: status: on an exact path only" },
		{ "status = 204\n", "rules.ini:1: status outside a [path] or [host]" },
		{ "[path x]\n", "rules.ini:1: [path x]: an exact path starts with '/'" },
		{ "[dir /x]\n", "rules.ini:1: unknown section [dir /x]" },
		{ "[path /x]\nheader = Content-Length: 5\n", "rules.ini:2: header = " },
		{ "[path /x]\nheader = no colon\n", "rules.ini:2: header = no colon" },
		{ "[path /x]\npost = maybe\n", "rules.ini:2: post = maybe: expected yes or no" },
		{ "[path /x]\nfoo = 1\n", "rules.ini:2: unknown key foo in [path]" },
		{ "[path /x]\nbody = hi\n", "rules.ini:1: [path /x]: body needs status = 200" },
		{ "[path /x]\npost_in_syn = yes\n", "rules.ini:1: [path /x]: post_in_syn = yes needs" },
		{ "[path /o]\nocsp = nosuchdir\n", "rules.ini:2: ocsp = nosuchdir: No such file" },
		{ "[path /o]\nocsp = ocsp\nstatus = 204\n", "rules.ini:1: [path /o]: ocsp answers" },
		{ "[path /x]\nstatus = 204\n[path /x]\nstatus = 200\n",
		  "rules.ini:3: [path /x]: a second answer for the path of line 1" },
		{ "[host a.example]\n", "rules.ini:1: [host]: no root = DIR" },
		{ "[host a.example:80]\nroot = www-a\n", "rules.ini:1: [host NAME...]: \"a.example:80\"" },
		{ "[host a.example]\nroot = www-a\n[host A.example]\nroot = www-b\n",
		  "rules.ini:3: host a.example named twice" },
		{ "[host a]\nroot = www-a\ndefault = yes\n[host b]\nroot = www-b\ndefault = yes\n",
		  "rules.ini:6: default = yes: host of line 1 is the default already" },
		{ "[path /x]\nstatus 204\n", "rules.ini:2: expected key = value" },
	};
	struct tfo_svc_resp r;
	size_t bl;
	void *st;
	int rc;

	st = rules_tree(&rc);
	REQUIRE(st != NULL);
	svc->destroy(st);
	CHECK_EQ(check_rules(http_rules_ok, why, sizeof(why)), 0);
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		CHECK_MSG(check_rules(bad[i].text, why, sizeof(why)) < 0 &&
			  strstr(why, bad[i].want) != NULL, "case %u: %s", i, why);
	}
	/* config/http-rules.ini, the example, is a good rules file */
	{
		struct tfo_service_kv kv[2] = {
			{ "root", WWW }, { "rules", TFO_CONFIG_DIR "/http-rules.ini" },
		};
		struct tfo_service_args a = { .port = 80, .kv = kv, .nb_kv = 2 };

		CHECK_MSG(svc->check(&a, why, sizeof(why)) == 0, "%s", why);
	}
	/* an empty rules file is fine, a missing one is named */
	CHECK_EQ(check_rules("", why, sizeof(why)), 0);
	{
		struct tfo_service_kv kv[2] = {
			{ "root", WWW }, { "rules", "/nonexistent/rules.ini" },
		};
		struct tfo_service_args a = { .port = 80, .kv = kv, .nb_kv = 2 };

		CHECK_MSG(svc->check(&a, why, sizeof(why)) < 0 &&
			  strstr(why, "rules = /nonexistent/rules.ini: No such file") != NULL,
			  "%s", why);
	}
	/* a fixed answer and a file for one path: the load says so */
	tmp_text("www/generate_204", "a file");
	tmp_text("rules.ini", http_rules_ok);
	{
		char log[2048], root[512], file[512];

		snprintf(root, sizeof(root), "%s/www", tmp_root);
		snprintf(file, sizeof(file), "%s/rules.ini", tmp_root);
		st = mk_logged(&rc, log, sizeof(log), "root", root, "rules", file, NULL);
		CHECK(st == NULL && rc == -EEXIST);
		CHECK_MSG(strstr(log, "/generate_204: two answers for one path") != NULL,
			  "log: %s", log);
	}
	/* default = yes: an unknown Host gets that host's files */
	snprintf(rules, sizeof(rules), "[host b.example]\nroot = www-b\ndefault = yes\n");
	tmp_text("rules.ini", rules);
	{
		char root[512], file[512];

		snprintf(root, sizeof(root), "%s/www", tmp_root);
		snprintf(file, sizeof(file), "%s/rules.ini", tmp_root);
		st = mk(&rc, root, "date", "no", "rules", file, NULL);
	}
	REQUIRE(st != NULL);
	ask(st, "GET /page.txt HTTP/1.1\r\nHost: unknown.example\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "host b page") == 0);
	svc->destroy(st);
	tmp_clean();
}

TFO_TEST(encoded_slash_and_mime_keys)
{
	struct tfo_svc_resp r;
	char why[512], mt[512];
	size_t bl;
	void *st;
	int rc;

	CHECK(svc->check_key("encoded_slash", "decode", why, sizeof(why)) == 0);
	CHECK(svc->check_key("encoded_slash", "keep", why, sizeof(why)) == 0);
	CHECK(svc->check_key("encoded_slash", "drop", why, sizeof(why)) < 0 &&
	      strstr(why, "expected 404, decode or keep") != NULL);
	CHECK(svc->check_key("max_body", "2M", why, sizeof(why)) < 0);
	CHECK(svc->check_key("max_body", "0", why, sizeof(why)) == 0);
	CHECK(svc->check_key("rules", "", why, sizeof(why)) < 0);
	tmp_make();
	REQUIRE(tmp_root[0] != '\0');
	tmp_dir("d");
	tmp_text("d/f.foo", "in d");
	tmp_text("a%2Fb", "named with %2F");
	tmp_text("types", "# comment\napplication/x-foo\tfoo fooo\n");
	snprintf(mt, sizeof(mt), "%s/types", tmp_root);
	st = mk(&rc, tmp_root, "date", "no", "encoded_slash", "decode", "mime_types", mt,
		NULL);
	REQUIRE(st != NULL);
	ask(st, "GET /d%2Ff.foo HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "in d") == 0);
	CHECK(has("Content-Type: application/x-foo\r\n"));
	svc->destroy(st);
	st = mk(&rc, tmp_root, "date", "no", "encoded_slash", "keep", NULL);
	REQUIRE(st != NULL);
	ask(st, "GET /a%2fb HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "named with %2F") == 0);
	ask(st, "GET /d%2Ff.foo HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 404);
	svc->destroy(st);
	/* a mime_types that cannot be read is refused, naming it */
	st = mk(&rc, tmp_root, "mime_types", "/nonexistent/mime.types", NULL);
	CHECK(st == NULL && rc < 0);
	tmp_clean();
}

TFO_TEST(reload_reads_the_rules_again)
{
	struct tfo_svc_resp r;
	char msg[512];
	size_t bl;
	void *st;
	int rc;

	st = rules_tree(&rc);
	REQUIRE(st != NULL && svc->reload != NULL);
	ask(st, "GET /generate_204 HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 204);
	/* the rules change: the next generation answers from them */
	tmp_text("rules.ini", "[path /generate_204]\nstatus = 200\nbody = now 200\n"
		 "[path /ocsp]\nocsp = ocsp\n");
	CHECK_EQ(svc->reload(st, msg, sizeof(msg)), 1);
	ask(st, "GET /generate_204 HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "now 200") == 0);
	/* the host is gone: its files with it */
	ask(st, "GET /page.txt HTTP/1.1\r\nHost: a.example\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "root page") == 0);
	/* a new OCSP response is served after a reload */
	tmp_text("ocsp/MAMCAQg", "SECOND");
	CHECK_EQ(svc->reload(st, msg, sizeof(msg)), 1);
	ask(st, "GET /ocsp/MAMCAQg HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "SECOND") == 0);
	/* a bad rules file is refused, FILE:LINE, the old generation serves */
	tmp_text("rules.ini", "[path /x]\nstatus = 500\n");
	CHECK(svc->reload(st, msg, sizeof(msg)) < 0);
	CHECK_MSG(strstr(msg, "the old one serves") != NULL &&
		  strstr(msg, "rules.ini:2: status = 500") != NULL, "%s", msg);
	ask(st, "GET /ocsp/MAMCAQg HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	/* a file in the OCSP directory that is not a request's base64 */
	tmp_text("rules.ini", "[path /ocsp]\nocsp = ocsp\n");
	tmp_text("ocsp/not*base64", "x");
	CHECK(svc->reload(st, msg, sizeof(msg)) < 0);
	CHECK_MSG(strstr(msg, "not*base64: a name must be the base64url") != NULL, "%s", msg);
	svc->destroy(st);
	tmp_clean();
}

TFO_TEST(counters)
{
	struct tfo_svc_resp r;
	uint64_t b404 = stat_of(TFO_STAT_http_404);
	uint64_t b301 = stat_of(TFO_STAT_http_301);

	ask(www, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	ask(www, "GET /docs HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(stat_of(TFO_STAT_http_404), b404 + 1);
	CHECK_EQ(stat_of(TFO_STAT_http_301), b301 + 1);
	CHECK(tfo_stats_lookup("http_400_too_big") >= 0);
}

TFO_TEST(teardown)
{
	svc->destroy(www);
	www = NULL;
	CHECK(www == NULL);
}

TFO_TEST_MAIN()
