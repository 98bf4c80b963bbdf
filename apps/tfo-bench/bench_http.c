/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench http: cycles to parse one HTTP request and choose its response,
 * our parser against Debian's libhttp-parser 2.9 (when it was found at
 * build time), on a curl request and on a browser revalidation with many
 * fields (a 304).
 *
 *   tfo-bench http [--iters N] [--reps R] [--root DIR] [--trans N]
 *                  [--no-txn]
 *
 * Variants, per request:
 *   parse        tfo_http_parse() alone
 *   hp parse     http_parser_execute() with callbacks that keep what the
 *                responder needs (target, Host, If-None-Match, ...)
 *   hp bare      http_parser_execute() without callbacks (its floor)
 *   handle       the service's handle(): parse + path + lookup + response
 *   hp+respond   http_parser as above, then the same responder
 *
 * Then whole HTTP transactions through a worker in memory (bench_txn.h:
 * parse, cookie check, engine, service, segments built, TX free; then the
 * client's ACK and FIN), for a 100-byte and a 10 KiB object, with the body
 * copied into the segments (a device without multi-segment TX) and sent
 * zero-copy (external buffers chained behind the headers). TSC ticks per
 * transaction, median of R runs of N transactions, 1000 live connections,
 * checksums offloaded.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <rte_cycles.h>

#include "tfo/service.h"

#include "../../services/http.h"
#include "ops/paths.h"
#include "bench.h"
#include "bench_txn.h"

#ifdef TFO_HAVE_HTTP_PARSER
#include <http_parser.h>
#endif

static const char curl_req[] =
	"GET /index.html HTTP/1.1\r\n"
	"Host: 198.18.0.2\r\n"
	"User-Agent: curl/7.88.1\r\n"
	"Accept: */*\r\n"
	"\r\n";

/* Chrome 120 reloading a page it has cached; %s is the ETag. */
static const char browser_fmt[] =
	"GET / HTTP/1.1\r\n"
	"Host: 198.18.0.2\r\n"
	"Connection: keep-alive\r\n"
	"Cache-Control: max-age=0\r\n"
	"sec-ch-ua: \"Not_A Brand\";v=\"8\", \"Chromium\";v=\"120\", "
	"\"Google Chrome\";v=\"120\"\r\n"
	"sec-ch-ua-mobile: ?0\r\n"
	"sec-ch-ua-platform: \"Linux\"\r\n"
	"Upgrade-Insecure-Requests: 1\r\n"
	"User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 "
	"(KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36\r\n"
	"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,"
	"image/avif,image/webp,image/apng,*/*;q=0.8,"
	"application/signed-exchange;v=b3;q=0.7\r\n"
	"Sec-Fetch-Site: none\r\n"
	"Sec-Fetch-Mode: navigate\r\n"
	"Sec-Fetch-User: ?1\r\n"
	"Sec-Fetch-Dest: document\r\n"
	"Accept-Encoding: gzip, deflate, br\r\n"
	"Accept-Language: en-US,en;q=0.9,de;q=0.8\r\n"
	"If-None-Match: %s\r\n"
	"If-Modified-Since: Thu, 01 Jan 2015 00:00:00 GMT\r\n"
	"\r\n";

struct bench_ctx {
	const struct tfo_service *svc;
	struct tfo_svc_ctx ctx;	/* a plain TCP request */
	const void *state;
	struct tfo_http_limits lim;
	const uint8_t *req;
	uint32_t len;
	struct tfo_svc_resp resp;
	uint8_t buf[256];
	uint64_t sink;
};

typedef void (*bench_fn)(struct bench_ctx *c);

static void
run_parse(struct bench_ctx *c)
{
	struct tfo_http_req r;

	c->sink += tfo_http_parse(c->req, c->len, &c->lim, &r) + r.head_len;
}

static void
run_handle(struct bench_ctx *c)
{
	c->resp.buf = c->buf;
	c->resp.buf_cap = sizeof(c->buf);
	c->sink += c->svc->handle(c->state, &c->ctx, c->req, c->len, &c->resp) +
		   c->resp.body_len;
}

#ifdef TFO_HAVE_HTTP_PARSER
struct hp_req {
	struct tfo_http_req r;
	const char *field;
	size_t flen;
};

static int
hp_on_url(http_parser *p, const char *at, size_t len)
{
	struct hp_req *h = p->data;

	h->r.target.p = (const uint8_t *)at;
	h->r.target.len = (uint32_t)len;
	return 0;
}

static int
hp_on_field(http_parser *p, const char *at, size_t len)
{
	struct hp_req *h = p->data;

	h->field = at;
	h->flen = len;
	return 0;
}

/* the same fields as tfo_http_parse() acts on (Connection: the parser) */
static int
hp_on_value(http_parser *p, const char *at, size_t len)
{
	struct hp_req *h = p->data;
	struct tfo_http_slice v = { (const uint8_t *)at, (uint32_t)len };

	switch (h->flen) {
	case 4:
		if (strncasecmp(h->field, "host", 4) == 0)
			h->r.nb_host++;
		break;
	case 13:
		if (strncasecmp(h->field, "if-none-match", 13) == 0 &&
		    h->r.nb_inm < TFO_HTTP_MAX_INM)
			h->r.inm[h->r.nb_inm++] = v;
		break;
	case 17:
		if (strncasecmp(h->field, "if-modified-since", 17) == 0)
			h->r.ims = v;
		else if (strncasecmp(h->field, "transfer-encoding", 17) == 0)
			h->r.body = TFO_HTTP_BODY_SOME;
		break;
	default:
		break;
	}
	return 0;
}

static int
hp_on_headers(http_parser *p)
{
	struct hp_req *h = p->data;

	h->r.method = p->method == HTTP_GET ? TFO_HTTP_GET :
		      p->method == HTTP_HEAD ? TFO_HTTP_HEAD : TFO_HTTP_OTHER;
	h->r.minor = p->http_minor == 0 ? 0 : 1;
	h->r.close = !http_should_keep_alive(p);
	h->r.keep_alive = p->http_minor == 0 && !h->r.close;
	if (p->content_length != 0 && p->content_length != ULLONG_MAX)
		h->r.body = TFO_HTTP_BODY_SOME;
	return 0;
}

static int
hp_on_complete(http_parser *p)
{
	http_parser_pause(p, 1);	/* one request at a time (pipelining) */
	return 0;
}

static const http_parser_settings hp_settings = {
	.on_url = hp_on_url,
	.on_header_field = hp_on_field,
	.on_header_value = hp_on_value,
	.on_headers_complete = hp_on_headers,
	.on_message_complete = hp_on_complete,
};

static const http_parser_settings hp_bare_settings = {
	.on_message_complete = hp_on_complete,
};

/* @return 1 with h->r filled for a complete request, else 0 */
static int
hp_parse(struct bench_ctx *c, struct hp_req *h)
{
	http_parser p;
	size_t n;

	memset(&h->r, 0, sizeof(h->r));
	http_parser_init(&p, HTTP_REQUEST);
	p.data = h;
	n = http_parser_execute(&p, &hp_settings, (const char *)c->req, c->len);
	if (HTTP_PARSER_ERRNO(&p) != HPE_PAUSED)
		return 0;
	h->r.head_len = (uint32_t)n;
	return 1;
}

static void
run_hp_parse(struct bench_ctx *c)
{
	struct hp_req h;

	c->sink += hp_parse(c, &h) + h.r.head_len;
}

static void
run_hp_bare(struct bench_ctx *c)
{
	http_parser p;

	http_parser_init(&p, HTTP_REQUEST);
	c->sink += http_parser_execute(&p, &hp_bare_settings,
				       (const char *)c->req, c->len);
}

static void
run_hp_respond(struct bench_ctx *c)
{
	struct hp_req h;

	c->resp.buf = c->buf;
	c->resp.buf_cap = sizeof(c->buf);
	if (hp_parse(c, &h))
		c->sink += tfo_http_respond(c->state, &h.r, &c->resp) +
			   c->resp.body_len;
}
#endif /* TFO_HAVE_HTTP_PARSER */

/* Median over @p reps of TSC ticks per call of @p fn. */
static double
measure(bench_fn fn, struct bench_ctx *c, unsigned int iters,
	unsigned int reps)
{
	double v[101];
	uint64_t t0;

	if (reps > RTE_DIM(v))
		reps = RTE_DIM(v);
	for (unsigned int i = 0; i < iters / 10; i++)	/* warm up */
		fn(c);
	for (unsigned int r = 0; r < reps; r++) {
		t0 = rte_rdtsc_precise();
		for (unsigned int i = 0; i < iters; i++)
			fn(c);
		v[r] = (double)(rte_rdtsc_precise() - t0) / iters;
	}
	return tfo_bench_median(v, reps);
}

/* What the response of the service is, as "status +bytes" for a check. */
static void
describe(struct bench_ctx *c, char *out, size_t cap)
{
	snprintf(out, cap, "%.12s +%u body bytes%s", (const char *)c->buf,
		 c->resp.body_len, c->resp.close ? ", close" : "");
}

/* One HTTP transaction through the worker: the table of cycles. */
static int
http_txn_table(unsigned int reps, unsigned int trans)
{
	static const uint32_t sizes[] = { 100, 10240 };
	char root[64], req[2][160];
	double hz = (double)tfo_bench_tsc_hz();
	int rc = 0;

	if (bt_make_docroot(root, sizes, RTE_DIM(sizes)) != 0) {
		fprintf(stderr, "tfo-bench http: cannot write a document root in /tmp\n");
		return -EIO;
	}
	printf("# HTTP transactions through a worker in memory (SYN+cookie+GET -> "
	       "SYN-ACK+response+FIN; ACK; FIN -> ACK), 1000 live connections, "
	       "checksums offloaded; median of %u x %u transactions\n", reps, trans);
	printf("| object | body | response | segments | syn | ack | fin | total | "
	       "spread | ticks/KiB | Mtrans/s/core | zero-copy segs/trans |\n");
	printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (unsigned int o = 0; o < RTE_DIM(sizes) && rc == 0; o++) {
		snprintf(req[o], sizeof(req[o]), "GET /o%u HTTP/1.1\r\nHost: 198.18.0.2\r\n"
			 "User-Agent: curl/7.88.1\r\nAccept: */*\r\n"
			 "Connection: close\r\n\r\n", sizes[o]);
		for (int zc = 0; zc <= 1 && rc == 0; zc++) {
			struct bt_params p = {
				.service = "http",
				.http_root = root,
				.req = (const uint8_t *)req[o],
				.req_len = (uint32_t)strlen(req[o]),
				.live = 1000,
				.burst = 32,
				.offload = true,
				.tx_multiseg = zc == 1,
			};
			struct bt_result res;

			rc = bt_measure(&p, reps, trans, &res);
			if (rc == 0)
				printf("| %u B | %s | %u B | %u | %.0f | %.0f | %.0f | %.0f | "
				       "%.1f%% | %.0f | %.2f | %.2f |\n", sizes[o],
				       zc ? "zero-copy" : "copied", res.resp, res.segs,
				       res.syn, res.ack, res.fin, res.total,
				       100.0 * (res.hi - res.lo) / res.total,
				       res.total * 1024.0 / res.resp, hz / res.total / 1e6,
				       res.zero_copy);
			fflush(stdout);
		}
	}
	bt_remove_docroot(root, sizes, RTE_DIM(sizes));
	return rc;
}

/* The http service on @p root, its state in @p c and @p state. @return 0,
 * or -ENOENT (why on stderr). */
static int
http_open(struct bench_ctx *c, const char *root, void **state)
{
	struct tfo_service_kv kv[1] = { { .key = "root", .value = root } };
	struct tfo_service_args a = { .port = 80, .nb_kv = 1, .kv = kv,
				      .socket_id = SOCKET_ID_ANY };

	c->svc = tfo_service_find("http");
	if (c->svc == NULL || c->svc->create(&a, state) != 0) {
		fprintf(stderr, "tfo-bench http: cannot create the http service "
			"on %s\n", root);
		return -ENOENT;
	}
	c->state = *state;
	c->lim.max_header = 8192;
	c->lim.max_uri = 4096;
	return 0;
}

/* The browser's request into @p req: it revalidates with the real ETag of /. */
static void
http_browser_req(struct bench_ctx *c, char *req, size_t cap)
{
	char etag[64] = "\"x\"";
	const char *p, *e;

	c->req = (const uint8_t *)"GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	c->len = (uint32_t)strlen((const char *)c->req);
	run_handle(c);
	if (c->resp.body != NULL) {
		p = memmem(c->resp.body->data, c->resp.body->len, "ETag: ", 6);
		if (p != NULL && (e = strstr(p, "\r\n")) != NULL &&
		    e - p - 6 < (long)sizeof(etag))
			snprintf(etag, sizeof(etag), "%.*s", (int)(e - p - 6),
				 p + 6);
	}
	snprintf(req, cap, browser_fmt, etag);
}

static int
bench_http(int argc, char **argv)
{
	unsigned int iters = 20000, reps = 11, trans = 16384;
	bool no_txn = false, txn;
	char *root_s = NULL;
	char www[PATH_MAX];
	const char *root;
	const struct tfo_bench_opt opts[] = {
		{ "iters", TFO_BENCH_OPT_U32, &iters, NULL, 0, 0 },
		{ "reps", TFO_BENCH_OPT_U32, &reps, NULL, 0, 0 },
		{ "root", TFO_BENCH_OPT_STR, &root_s, NULL, 0, 0 },
		{ "trans", TFO_BENCH_OPT_U32, &trans, NULL, 0, 0 },
		{ "no-txn", TFO_BENCH_OPT_FLAG, &no_txn, NULL, 0, 0 },
	};
	static struct bench_ctx c = {
		.ctx = { .family = AF_INET, .transport = TFO_SVC_TCP, .dst_port = 80 },
	};
	char browser_req[2048], what[96];
	double hz = (double)tfo_bench_tsc_hz();
	void *state = NULL;
	struct {
		const char *name;
		const char *req;
	} reqs[2];
	struct {
		const char *name;
		bench_fn fn;
	} variants[] = {
		{ "parse", run_parse },
#ifdef TFO_HAVE_HTTP_PARSER
		{ "hp parse", run_hp_parse },
		{ "hp bare", run_hp_bare },
#endif
		{ "handle", run_handle },
#ifdef TFO_HAVE_HTTP_PARSER
		{ "hp+respond", run_hp_respond },
#endif
	};

	if (tfo_bench_getopt(argc, argv, opts, RTE_DIM(opts),
			     "usage: tfo-bench http [--iters N] [--reps R] [--root DIR] "
			     "[--trans N] [--no-txn]") < 0)
		return -EINVAL;
	txn = !no_txn;
	if (root_s == NULL) {
		/* the default page: the source tree's or the installed one */
		tfo_paths_base_dir(NULL, www, sizeof(www) - 4);
		strcat(www, "/www");
	}
	root = root_s != NULL ? root_s : www;
	if (iters == 0 || reps == 0 || trans == 0)
		return -EINVAL;
	if (http_open(&c, root, &state) != 0)
		return -ENOENT;
	http_browser_req(&c, browser_req, sizeof(browser_req));
	reqs[0].name = "curl";
	reqs[0].req = curl_req;
	reqs[1].name = "browser";
	reqs[1].req = browser_req;

#ifndef TFO_HAVE_HTTP_PARSER
	printf("# libhttp-parser not found at build time: ours only\n");
#endif
	printf("# %u calls x %u repetitions, median; TSC ticks (= core cycles "
	       "at the nominal clock)\n", iters, reps);
	printf("%-8s %5s  %-11s %9s %8s  %s\n", "request", "bytes", "variant",
	       "ticks/req", "ns/req", "response");
	for (unsigned int q = 0; q < RTE_DIM(reqs); q++) {
		c.req = (const uint8_t *)reqs[q].req;
		c.len = (uint32_t)strlen(reqs[q].req);
		for (unsigned int v = 0; v < RTE_DIM(variants); v++) {
			double t;

			memset(&c.resp, 0, sizeof(c.resp));
			memset(c.buf, 0, sizeof(c.buf));
			t = measure(variants[v].fn, &c, iters, reps);
			if (c.resp.buf_len != 0)
				describe(&c, what, sizeof(what));
			else
				snprintf(what, sizeof(what), "-");
			printf("%-8s %5u  %-11s %9.1f %8.1f  %s\n",
			       reqs[q].name, c.len, variants[v].name, t,
			       t * 1e9 / hz, what);
		}
	}
	printf("# sink %" PRIu64 "\n", c.sink);
	c.svc->destroy(state);
	return txn ? http_txn_table(reps, trans) : 0;
}

TFO_BENCH(bench_http_reg, "http",
	  "HTTP parse + response: ours vs libhttp-parser; whole transactions, copied vs zero-copy",
	  bench_http)
