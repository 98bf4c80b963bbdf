/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: unit tests of the http service's responder:
 * setup, the date format, GET and HEAD, zero-copy files, conditional
 * requests (304). The "http" program is this file and the other
 * test_http_*.c (tests/meson.build) on http_harness.c; their cases run in
 * that order, from setup to teardown.
 */
#include "http_harness.h"

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
	uint64_t n200 = stat_of("http_200");

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
	CHECK_EQ(stat_of("http_200"), n200 + 1);
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
	uint64_t n304 = stat_of("http_304");

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
	CHECK_EQ(stat_of("http_304"), n304 + 1);

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

TFO_TEST_MAIN()
