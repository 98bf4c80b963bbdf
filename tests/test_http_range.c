/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: unit tests of the http service's parser
 * additions (issue 26): POST fields, encoded slashes, base64, ranges and
 * the buffer room a 206 needs.
 */
#include "http_harness.h"

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
	uint64_t n206 = stat_of("http_206"), n416 = stat_of("http_416");
	uint64_t nign = stat_of("http_range_ignored");
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
	CHECK_EQ(stat_of("http_206"), n206 + 5);
	/* unsatisfiable: 416 with the length, the connection kept */
	CHECK_EQ(ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=6-\r\n\r\n",
		     &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 416);
	hdr("Content-Range", v, sizeof(v));
	CHECK_MSG(strcmp(v, "bytes */6") == 0, "%s", out);
	CHECK(!r.close);
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=-0\r\n\r\n", &r);
	CHECK_EQ(code(), 416);
	CHECK_EQ(stat_of("http_416"), n416 + 2);
	/* several ranges, bad syntax, another unit, last < first: 200 in full */
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1,3-4\r\n\r\n", &r);
	CHECK(code() == 200 && has("\r\n\r\nhello\n"));
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=x-1\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: items=0-1\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	ask(www, "GET /hello.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=3-1\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	CHECK_EQ(stat_of("http_range_ignored"), nign + 4);
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
	uint64_t nign = stat_of("http_range_ignored");

	memset(&r, 0, sizeof(r));
	r.buf = small;
	r.buf_cap = sizeof(small);
	CHECK_EQ(svc->handle(www, &tcp_ctx, (const uint8_t *)req, (uint32_t)strlen(req),
			     &r), TFO_SVC_RESPOND);
	/* no room for the 206's head in a minimal buffer: the 200 */
	CHECK_EQ(r.status, 200);
	CHECK_EQ(stat_of("http_range_ignored"), nign + 1);
}
