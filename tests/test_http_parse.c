/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: unit tests of the http service's request
 * parser: errors that close, paths, keep-alive and close, pipelining, a
 * request split at every byte, long lines, field value bytes, small
 * buffers, the Date header, the configuration keys.
 */
#include "http_harness.h"

struct bad_case {
	const char *req;
	int code;
	const char *ctr;	/* the http counter it adds to */
};

static const struct bad_case bad_cases[] = {
	{ "GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400, "http_400_syntax" },
	{ "GET / HTTP/1.1\nHost: x\r\n\r\n", 400, "http_400_syntax" },
	{ "GET / HTTP/1.1\r\nHost: x\n\r\n", 400, "http_400_syntax" },
	{ "GET / HTTP/1.1\r\nHost: x\r\n\n", 400, "http_400_syntax" },
	{ "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400, "http_400_syntax" },
	{ "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400,
	  "http_400_syntax" },
	{ "GET / HTTP/1.1\r\n Host: x\r\n\r\n", 400, "http_400_syntax" },
	{ "GET / HTTP/1.1\r\nHost: x\r\nX: a\rb\r\n\r\n", 400,
	  "http_400_syntax" },
	{ "GET / HTTP/1.1\r\nHost: x\r\nX: \x01\r\n\r\n", 400,
	  "http_400_syntax" },
	{ "GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 400,
	  "http_400_syntax" },
	{ "GET / HTTP/1.1\r\nHost: x\r\n: empty-name\r\n\r\n", 400,
	  "http_400_syntax" },
	{ "GET / http/1.1\r\nHost: x\r\n\r\n", 400, "http_400_syntax" },
	{ "GET / HTTP/1.1 \r\nHost: x\r\n\r\n", 400, "http_400_syntax" },
	{ "GET / HTTP/1\r\nHost: x\r\n\r\n", 400, "http_400_syntax" },
	{ "GET / HTTP/1.10\r\nHost: x\r\n\r\n", 400, "http_400_syntax" },
	{ "GET / HTTP/x.1\r\nHost: x\r\n\r\n", 400, "http_400_syntax" },
	{ "GET /\r\n\r\n", 400, "http_400_syntax" },	/* HTTP/0.9 */
	{ " GET / HTTP/1.1\r\nHost: x\r\n\r\n", 400, "http_400_syntax" },
	{ "\r\r\n", 400, "http_400_syntax" },
	{ "GET /\x7f HTTP/1.1\r\nHost: x\r\n\r\n", 400, "http_400_syntax" },
	{ "GET /\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  "http_400_syntax" },
	{ "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400,
	  "http_400_syntax" },
	{ "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400, "http_400_syntax" },
	{ "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400,
	  "http_400_syntax" },
	{ "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400,
	  "http_400_syntax" },
	{ "GET / HTTP/1.1\r\n\r\n", 400, "http_400_host" },
	{ "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400,
	  "http_400_host" },
	{ "GET / HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n", 400,
	  "http_400_host" },
	{ "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", 400,
	  "http_400_body" },
	{ "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
	  "\r\n", 400, "http_400_body" },
	{ "GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400, "http_400_path" },
	{ "GET hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  "http_400_path" },
	{ "GET /../hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  "http_400_path" },
	{ "GET /docs/../../hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  "http_400_path" },
	{ "GET /%2e%2e/hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  "http_400_path" },
	{ "GET /docs/%2E%2e/.%2E/etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  "http_400_path" },
	{ "GET /%zzhello HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  "http_400_path" },
	{ "GET /hello.txt% HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  "http_400_path" },
	{ "GET /hello.txt%2 HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  "http_400_path" },
	{ "GET /hello%00.txt HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  "http_400_path" },
	{ "GET /hello.txt#frag HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  "http_400_path" },
	{ "GET ftp://x/hello.txt HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	  "http_400_path" },
	{ "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", 405,
	  "http_405" },
	{ "get / HTTP/1.1\r\nHost: x\r\n\r\n", 405, "http_405" },
	{ "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 405, "http_405" },
	{ "CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n", 405,
	  "http_405" },
	{ "DELETE /hello.txt HTTP/1.0\r\n\r\n", 405, "http_405" },
	{ "GET / HTTP/2.0\r\n", 505, "http_505" },
	{ "GET / HTTP/0.9\r\nHost: x\r\n\r\n", 505, "http_505" },
	{ "GET / HTTP/3.0\r\nHost: x\r\n\r\n", 505, "http_505" },
};

/* Every error: its status, its counter, "Connection: close", closed. */
TFO_TEST(errors_close)
{
	struct tfo_svc_resp r;

	for (unsigned int i = 0; i < RTE_DIM(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		uint64_t before = stat_of(c->ctr);

		CHECK_EQ(ask(www, c->req, &r), TFO_SVC_RESPOND);
		CHECK_MSG(code() == c->code, "case %u: %d, want %d", i, code(),
			  c->code);
		CHECK_MSG(stat_of(c->ctr) == before + 1, "case %u: counter %s",
			  i, c->ctr);
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
	CHECK_EQ(stat_of("http_414") >= 2, 1);
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
	uint64_t before = stat_of("http_reject_small_buf");
	struct tfo_svc_ctx bare = tcp_ctx;

	memset(&r, 0, sizeof(r));
	r.buf = scratch;
	r.buf_cap = 64;
	CHECK_EQ(svc->handle(www, &tcp_ctx, (const uint8_t *)req, (uint32_t)strlen(req),
			     &r), TFO_SVC_REJECT);
	CHECK_EQ(stat_of("http_reject_small_buf"), before + 1);
	/* no counters needed: ctx->counters may be NULL (an instance a test
	 * built by hand) */
	bare.counters = NULL;
	CHECK_EQ(svc->handle(www, &bare, (const uint8_t *)req, (uint32_t)strlen(req),
			     &r), TFO_SVC_REJECT);
	CHECK_EQ(stat_of("http_reject_small_buf"), before + 1);
	r.buf_cap = sizeof(scratch);
	CHECK_EQ(svc->handle(www, &bare, (const uint8_t *)req, (uint32_t)strlen(req),
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
