/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness 2: the HTTP request parser and the http service (its
 * responder), and the echo service.
 *
 * Input: a limits byte, then request bytes. Limits: max_header 64 << (b & 7)
 * (64..8192), max_uri 16 << ((b >> 3) & 7) (16..2048); bit 6: the request
 * came as TFO SYN data (tfo_svc_ctx.in_syn); bit 7: the http service with
 * tests/http_rules/rules.ini (fixed answers, POST, OCSP, a virtual host,
 * encoded_slash = decode) instead of the plain one.
 *
 * Invariants: tfo_http_parse() reads only [b, b+len) (exact-size buffers);
 * a complete head lies inside the input, within the limits, with every
 * slice inside it; every shorter prefix of a valid head is INCOMPLETE, and
 * the head alone parses to the same head; an error seen in a prefix stays
 * the same error with more bytes; tfo_http_path() gives a normalized path
 * ("/..."; no "//", "/./", "/../", '%') in every encoded_slash mode; base64
 * decoding stays in its buffer; the services keep their contract
 * (consumed within the request, output within the buffer, body slice
 * within the blob) and are idempotent (the same request, the same bytes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_common.h>

#include "tfo/service.h"

#include "../../services/http_parse.h"
#include "fuzz_common.h"

#define RESP_CAP 2048

static const struct tfo_service *http_svc, *echo_svc;
/* the service's counters, as an engine gives them (either service's) */
static uint64_t ctrs[TFO_SVC_MAX_COUNTERS];
static const struct tfo_svc_ctx fuzz_ctx = {
	.family = AF_INET, .transport = TFO_SVC_TCP, .dst_port = 80,
	.counters = ctrs,
};
static const struct tfo_svc_ctx fuzz_syn_ctx = {
	.family = AF_INET, .transport = TFO_SVC_TCP, .dst_port = 80, .in_syn = 1,
	.counters = ctrs,
};
static const struct tfo_svc_ctx *cur_ctx = &fuzz_ctx;
static void *http_state, *http_rules_state, *echo_state;

/* create() with @p nb key, value pairs */
static void *
svc_create(const struct tfo_service *svc, unsigned int nb,
	   const struct tfo_service_kv *kv)
{
	struct tfo_service_args a = { .port = 80, .nb_kv = nb, .kv = kv,
				      .socket_id = SOCKET_ID_ANY };
	void *st = NULL;

	if (svc == NULL || svc->create(&a, &st) != 0) {
		fprintf(stderr, "fuzz_http: cannot create a service\n");
		abort();
	}
	return st;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* date = no: the same request, the same bytes (idempotence check) */
	static const struct tfo_service_kv plain[] = {
		{ "root", TFO_CONFIG_DIR "/../tests/www" }, { "date", "no" },
	}, rules[] = {
		{ "root", TFO_CONFIG_DIR "/../tests/www" }, { "date", "no" },
		{ "rules", TFO_CONFIG_DIR "/../tests/http_rules/rules.ini" },
		{ "encoded_slash", "decode" },
	}, echo[] = { { "max_line", "512" } };

	fz_eal_init((*argv)[0], 128);
	http_svc = tfo_service_find("http");
	echo_svc = tfo_service_find("echo");
	http_state = svc_create(http_svc, RTE_DIM(plain), plain);
	http_rules_state = svc_create(http_svc, RTE_DIM(rules), rules);
	echo_state = svc_create(echo_svc, RTE_DIM(echo), echo);
	return 0;
}

static bool
in_input(const uint8_t *b, uint32_t len, const struct tfo_http_slice *s)
{
	return s->len == 0 || (s->p >= b && s->p + s->len <= b + len);
}

static enum tfo_http_perr
parse_copy(const uint8_t *b, uint32_t len, const struct tfo_http_limits *lim,
	   struct tfo_http_req *r)
{
	uint8_t *copy = fz_dup(b, len);
	enum tfo_http_perr e = tfo_http_parse(copy, len, lim, r);

	free(copy);	/* r's slices are not used after this */
	return e;
}

static void
check_path(const struct tfo_http_slice *t)
{
	uint8_t *tcopy = fz_dup(t->p, t->len);
	struct tfo_http_slice tc = { tcopy, t->len };
	char *out = malloc(t->len + 1u);
	uint32_t olen = UINT32_MAX;

	if (out == NULL)
		abort();
	for (int mode = TFO_HTTP_SLASH_404; mode <= TFO_HTTP_SLASH_KEEP; mode++) {
	if (tfo_http_path_mode(&tc, out, t->len + 1u, &olen,
			       (enum tfo_http_slash)mode) == TFO_HTTP_PATH_OK) {
		FZ_ASSERT(olen >= 1 && olen <= t->len + 1u && out[0] == '/',
			  "path length %u of %u", olen, t->len);
		for (uint32_t i = 0; i + 1 < olen; i++)
			FZ_ASSERT(!(out[i] == '/' && out[i + 1] == '/'), "'//' in the path");
		for (uint32_t i = 0; i + 2 < olen; i++)
			FZ_ASSERT(!(out[i] == '/' && out[i + 1] == '.' &&
				    (out[i + 2] == '/' ||
				     (out[i + 2] == '.' && (i + 3 == olen || out[i + 3] == '/')))),
				  "dot segment left in %.*s", (int)olen, out);
		FZ_ASSERT(!(olen >= 2 && out[olen - 1] == '.' && out[olen - 2] == '/'),
			  "trailing /. left");
	}
	}
	free(out);
	free(tcopy);
}

/* base64 of a target stays in its buffer and decodes to 3/4 of it at most */
static void
check_b64(const struct tfo_http_slice *t)
{
	uint32_t cap = t->len / 2 + 1;
	uint8_t *out = malloc(cap);
	int n;

	if (out == NULL)
		abort();
	n = tfo_http_b64_decode(t->p, t->len, t->len & 1, out, cap);
	FZ_ASSERT(n == -1 || (n >= 0 && n <= (int)cap &&
				(uint64_t)n * 4 <= (uint64_t)t->len * 3 + 3),
		  "base64 of %u bytes: %d", t->len, n);
	free(out);
}

static void
check_parser(const uint8_t *b, uint32_t len, const struct tfo_http_limits *lim)
{
	struct tfo_http_req r, r2;
	enum tfo_http_perr e, e2;

	e = tfo_http_parse(b, len, lim, &r);
	FZ_ASSERT(e <= TFO_HTTP_E_VERSION, "result %d", e);
	if (e == TFO_HTTP_OK) {
		FZ_ASSERT(r.head_len >= 4 && r.head_len <= len && r.head_len <= lim->max_header,
			  "head_len %u of %u (max %u)", r.head_len, len, lim->max_header);
		FZ_ASSERT(r.method <= TFO_HTTP_OTHER && r.minor <= 1 && r.nb_inm <= TFO_HTTP_MAX_INM,
			  "method %u minor %u inm %u", r.method, r.minor, r.nb_inm);
		FZ_ASSERT(r.target.len >= 1 && r.target.len <= lim->max_uri &&
			  in_input(b, r.head_len, &r.target), "target slice");
		FZ_ASSERT(in_input(b, r.head_len, &r.ims), "If-Modified-Since slice");
		FZ_ASSERT(in_input(b, r.head_len, &r.host) && in_input(b, r.head_len, &r.range) &&
			  in_input(b, r.head_len, &r.if_range), "Host, Range, If-Range slices");
		FZ_ASSERT((r.content_length == TFO_HTTP_NO_LENGTH ||
			   r.content_length <= (UINT64_MAX >> 1)) &&
			  (r.body == TFO_HTTP_BODY_NONE) ==
			  (!r.chunked && (r.content_length == 0 ||
					  r.content_length == TFO_HTTP_NO_LENGTH)),
			  "Content-Length %lu, body %u", (unsigned long)r.content_length, r.body);
		check_b64(&r.target);
		for (unsigned int i = 0; i < r.nb_inm; i++) {
			FZ_ASSERT(in_input(b, r.head_len, &r.inm[i]), "If-None-Match slice");
			(void)tfo_http_inm_match(&r.inm[i], "\"abc\"", 5);
		}
		FZ_ASSERT(memcmp(b + r.head_len - 4, "\r\n\r\n", 4) == 0 ||
			  memcmp(b + r.head_len - 2, "\r\n", 2) == 0, "head does not end in CRLF");
		check_path(&r.target);
		/* the head alone: the same head */
		e2 = parse_copy(b, r.head_len, lim, &r2);
		FZ_ASSERT(e2 == TFO_HTTP_OK && r2.head_len == r.head_len &&
			  r2.method == r.method && r2.target.len == r.target.len,
			  "head alone: %d", e2);
		/* a valid head is incomplete, not wrong, before its end */
		e2 = parse_copy(b, r.head_len - 1, lim, &r2);
		FZ_ASSERT(e2 == TFO_HTTP_INCOMPLETE, "head minus 1 byte: %d", e2);
		e2 = parse_copy(b, r.head_len / 2, lim, &r2);
		FZ_ASSERT(e2 == TFO_HTTP_INCOMPLETE, "half the head: %d", e2);
	} else if (len > 1) {
		/* an error in a prefix is the same error with every byte after */
		e2 = parse_copy(b, len / 2, lim, &r2);
		if (e2 != TFO_HTTP_INCOMPLETE)
			FZ_ASSERT(e2 == e, "prefix %u: %d, whole %u: %d", len / 2, e2, len, e);
	}
}

static uint32_t
svc_call(const struct tfo_service *svc, const void *state, const uint8_t *b,
	 uint32_t len, struct tfo_svc_resp *resp, uint8_t *buf,
	 enum tfo_svc_status *st)
{
	memset(resp, 0, sizeof(*resp));
	resp->buf = buf;
	resp->buf_cap = RESP_CAP;
	*st = svc->handle(state, cur_ctx, b, len, resp);
	FZ_ASSERT(*st <= TFO_SVC_REJECT, "status %d", *st);
	if (*st != TFO_SVC_RESPOND)
		return 0;
	FZ_ASSERT(resp->consumed >= 1 && resp->consumed <= len, "consumed %u of %u",
		  resp->consumed, len);
	FZ_ASSERT(resp->buf_len <= RESP_CAP, "buf_len %u", resp->buf_len);
	if (resp->body != NULL)
		FZ_ASSERT(resp->body_off <= resp->body->len &&
			  resp->body_len <= resp->body->len - resp->body_off,
			  "body %u+%u of %u", resp->body_off, resp->body_len, resp->body->len);
	return resp->buf_len;
}

/* A service twice on the same request: the same answer (idempotent). */
static void
check_service(const struct tfo_service *svc, const void *state, const uint8_t *b,
	      uint32_t len)
{
	uint8_t *req = fz_dup(b, len);
	uint8_t *buf1 = malloc(RESP_CAP), *buf2 = malloc(RESP_CAP);
	struct tfo_svc_resp r1, r2;
	enum tfo_svc_status s1, s2;
	uint32_t n1, n2;

	if (buf1 == NULL || buf2 == NULL)
		abort();
	n1 = svc_call(svc, state, req, len, &r1, buf1, &s1);
	n2 = svc_call(svc, state, req, len, &r2, buf2, &s2);
	FZ_ASSERT(s1 == s2 && n1 == n2 && memcmp(buf1, buf2, n1) == 0 &&
		  r1.consumed == r2.consumed && r1.close == r2.close &&
		  r1.body == r2.body && r1.body_off == r2.body_off &&
		  r1.body_len == r2.body_len, "%s: not idempotent", svc->name);
	/* the pipelined rest, once */
	if (s1 == TFO_SVC_RESPOND && !r1.close && r1.consumed < len)
		(void)svc_call(svc, state, req + r1.consumed, len - r1.consumed, &r2, buf2, &s2);
	free(buf1);
	free(buf2);
	free(req);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	uint8_t lb = fz_u8(&in);
	struct tfo_http_limits lim = {
		.max_header = 64u << (lb & 7),
		.max_uri = 16u << ((lb >> 3) & 7),
	};
	uint32_t len = (uint32_t)RTE_MIN(in.n, (size_t)16384);
	uint8_t *b = fz_dup(in.p, len);

	cur_ctx = lb & 0x40 ? &fuzz_syn_ctx : &fuzz_ctx;
	check_parser(b, len, &lim);
	check_service(http_svc, lb & 0x80 ? http_rules_state : http_state, b, len);
	check_service(echo_svc, echo_state, b, len);
	free(b);
	return 0;
}
