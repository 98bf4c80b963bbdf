/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-loadgen's client state machine, in memory: a fake server parses what
 * the generator sends and answers with hand-built segments (both shapes:
 * response inside the SYN-ACK, and Linux's bare SYN-ACK then data); no
 * device, a fake clock. Also the histogram, the argument checks and ARP.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "net/pkt.h"
#include "net/port.h"
#include "net/tcpopt.h"
#include "net/tx.h"

#include "lg.h"
#include "test.h"

#define NCAP 64

static struct rte_mempool *pool;
static struct rte_mbuf *cap[NCAP];
static unsigned int ncap;
static struct lg_shared sh;
static struct lg_opts opts;
static struct lg_lcore lcore;
static struct tfo_port_info srv_port;	/* the fake server's view */
static const struct rte_ether_addr lg_mac = { .addr_bytes = { 2, 0, 0, 0, 0, 1 } };
static const struct rte_ether_addr srv_mac = { .addr_bytes = { 2, 0, 0, 0, 0, 2 } };
static uint64_t hz;

static void
capture(struct tfo_tx *tx, uint8_t port_idx)
{
	struct tfo_tx_q *q = &tx->q[port_idx];

	lcore.stats.c[LG_STAT_tx_pkts] += q->n;	/* as the port would */
	for (uint16_t i = 0; i < q->n; i++) {
		if (ncap < NCAP)
			cap[ncap++] = q->pkts[i];
		else
			rte_pktmbuf_free(q->pkts[i]);
	}
	q->n = 0;
}

static void
cap_clear(void)
{
	for (unsigned int i = 0; i < ncap; i++)
		rte_pktmbuf_free(cap[i]);
	ncap = 0;
}

/* A fresh generator (one lcore, one port) with the options in @p argv. */
static int
fixture(int argc, char **argv)
{
	char err[256];
	int rc;

	if (pool == NULL) {
		tfo_test_eal_init("test_loadgen", 128, NULL);
		pool = rte_pktmbuf_pool_create("lgtest", 1024, 0, 0,
					       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
		hz = rte_get_tsc_hz();
	}
	cap_clear();
	if (lcore.conns != NULL)
		lg_lcore_free(&lcore);
	lg_opts_free(&opts);
	rc = lg_parse_args(&opts, argc, argv, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "  args: %s\n", err);
		return rc;
	}
	memset(&sh, 0, sizeof(sh));
	sh.nb_lcores = 1;
	sh.nb_ports = 1;
	sh.ports[0].info.mac = lg_mac;
	sh.ports[0].info.mtu = 1500;
	sh.ports[0].server_mac = srv_mac;
	sh.ports[0].resolved = 1;
	sh.phase = LG_PHASE_RUN;
	rc = lg_lcore_init(&lcore, 0, &opts, &sh, pool, SOCKET_ID_ANY, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "  init: %s\n", err);
		return rc;
	}
	lcore.tx.flush = capture;

	memset(&srv_port, 0, sizeof(srv_port));
	srv_port.mac = srv_mac;
	srv_port.mtu = 1500;
	srv_port.nb_addrs = 1;
	srv_port.addrs[0].family = AF_INET;
	srv_port.addrs[0].prefix_len = 24;
	srv_port.addrs[0].addr = opts.server;
	return 0;
}

static int
fixture_echo(void)
{
	char *argv[] = { (char *)(uintptr_t)"lg", (char *)(uintptr_t)"--server",
		(char *)(uintptr_t)"198.18.0.1", (char *)(uintptr_t)"--client",
		(char *)(uintptr_t)"198.18.0.100", (char *)(uintptr_t)"--clients",
		(char *)(uintptr_t)"4", (char *)(uintptr_t)"--client-ports",
		(char *)(uintptr_t)"1000-1015", (char *)(uintptr_t)"--concurrency",
		(char *)(uintptr_t)"4", (char *)(uintptr_t)"--request-size",
		(char *)(uintptr_t)"100", (char *)(uintptr_t)"--expect-echo",
		(char *)(uintptr_t)"--retries", (char *)(uintptr_t)"2" };

	return fixture((int)RTE_DIM(argv), argv);
}

/* What the server sees of a captured frame. */
struct seen {
	struct tfo_pkt p;
	struct tfo_tcpopts o;
	uint8_t data[2048];
};

static int
server_parse(struct rte_mbuf *m, struct seen *s)
{
	if (tfo_pkt_classify(m, &srv_port, &s->p) != TFO_PKT_TCP)
		return -1;
	memset(&s->o, 0, sizeof(s->o));
	tfo_tcpopt_parse(tfo_pkt_tcp_hdr(m, &s->p) + 20, s->p.l4_len - 20u, &s->o);
	if (s->p.payload_len > 0) {
		const void *d = rte_pktmbuf_read(m, s->p.payload_off, s->p.payload_len,
						 s->data);

		if (d != s->data)
			memcpy(s->data, d, s->p.payload_len);
	}
	return 0;
}

/* A segment from the server to the client of @p c (the SYN it answers). */
static struct rte_mbuf *
server_seg(const struct seen *c, uint8_t flags, uint32_t seq, uint32_t ack,
	   const uint8_t *opt, unsigned int opt_len, const void *data, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct tfo_route r;
	struct tfo_tcp_out t;

	if (len > 0)
		memcpy(rte_pktmbuf_append(m, (uint16_t)len), data, len);
	memset(&r, 0, sizeof(r));
	r.peer_mac = lg_mac;
	r.family = AF_INET;
	r.local = opts.server;
	r.peer = c->p.src;
	memset(&t, 0, sizeof(t));
	t.sport = c->p.dport;
	t.dport = c->p.sport;
	t.seq = seq;
	t.ack = ack;
	t.window = 65535;
	t.flags = flags;
	t.opts = opt;
	t.opt_len = (uint8_t)opt_len;
	tfo_pkt_prepend_tcp(m, &srv_port, &r, &t);
	return m;
}

static unsigned int
synack_opts(uint8_t *out, const struct seen *syn, const uint8_t *cookie,
	    unsigned int cookie_len, uint32_t tsecr)
{
	struct tfo_synack_opts s = {
		.mss = 1460, .wscale = 7, .peer_wscale = true, .sack_ok = true,
		.ts = true, .tsval = 5000, .tsecr = tsecr,
		.form = cookie_len ? TFO_FORM_RFC : TFO_FORM_NONE,
		.cookie_len = (uint8_t)cookie_len, .cookie = cookie,
	};

	RTE_SET_USED(syn);
	return tfo_tcpopt_write_synack(out, &s);
}

/* Feed one frame and collect what the generator sends in answer. */
static void
feed(struct rte_mbuf *m, uint64_t now)
{
	cap_clear();
	lg_rx_frame(&lcore, m, 0, now);
	lg_output_pending(&lcore, now);
	lg_tx_flush_all(&lcore);
}

static int
take_syn(struct seen *syn)
{
	lg_tx_flush_all(&lcore);
	if (ncap != 1)
		return -1;
	return server_parse(cap[0], syn);
}

static const uint8_t cookie_a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
static const uint8_t cookie_b[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };

/* Warm-up of local address 0: learn cookie_a. */
static void
warm_up(uint64_t now)
{
	struct seen syn, s;
	uint8_t o[40];
	uint32_t irs = 777000;

	CHECK_EQ(lg_start(&lcore, LG_KIND_COOKIE_REQ, 0, true, now), 0);
	REQUIRE(take_syn(&syn) == 0);
	CHECK_EQ(syn.p.tcp_flags, TFO_TCP_SYN);
	CHECK_EQ(syn.p.payload_len, 0);
	CHECK_EQ(syn.o.cookie_state, TFO_COOKIE_REQUEST);
	CHECK_EQ(syn.o.form, TFO_FORM_RFC);
	CHECK(syn.o.has_ts && syn.o.sack_ok && syn.o.has_wscale);
	CHECK_EQ(syn.o.mss, 1460);

	feed(server_seg(&syn, TFO_TCP_SYN | TFO_TCP_ACK, irs, syn.p.seq + 1, o,
			synack_opts(o, &syn, cookie_a, 8, syn.o.tsval), NULL, 0), now);
	/* the ACK carries the whole request (it fits one segment) */
	REQUIRE(ncap == 1);
	REQUIRE(server_parse(cap[0], &s) == 0);
	CHECK_EQ(s.p.tcp_flags & (TFO_TCP_ACK | TFO_TCP_SYN), TFO_TCP_ACK);
	CHECK_EQ(s.p.seq, syn.p.seq + 1);
	CHECK_EQ(s.p.ack, irs + 1);
	CHECK_EQ(s.o.tsecr, 5000);
	REQUIRE(s.p.payload_len == 100);
	CHECK_EQ(s.data[99], '\n');

	/* Linux's shape: the echo with FIN after the handshake */
	{
		struct seen req = s;

		feed(server_seg(&syn, TFO_TCP_ACK | TFO_TCP_PSH | TFO_TCP_FIN, irs + 1,
				req.p.seq + 100, NULL, 0, req.data, 100), now);
	}
	REQUIRE(ncap == 1);
	REQUIRE(server_parse(cap[0], &s) == 0);
	CHECK_EQ(s.p.tcp_flags, TFO_TCP_ACK | TFO_TCP_FIN);
	CHECK_EQ(s.p.ack, irs + 1 + 100 + 1);
	feed(server_seg(&syn, TFO_TCP_ACK, irs + 102, s.p.seq + 1, NULL, 0, NULL, 0), now);
	CHECK_EQ(ncap, 0);
	CHECK_EQ(lcore.stats.c[LG_STAT_warmup_completed], 1);
	CHECK_EQ(lcore.stats.c[LG_STAT_cookies_learned], 1);
	CHECK_EQ(lcore.addrs[0].cookie_len, 8);
	CHECK_MEM(lcore.addrs[0].cookie, cookie_a, 8);
	CHECK_EQ(lcore.nb_free, lcore.nb_conns);
}

TFO_TEST(warmup_learns_cookie_linux_shape)
{
	REQUIRE(fixture_echo() == 0);
	warm_up(1000 * hz);
	CHECK_EQ(lg_stats_errors(&lcore.stats), 0);
	CHECK_EQ(lcore.stats.c[LG_STAT_responses_validated], 1);
	CHECK_EQ(lcore.hist.count, 0);	/* warm-up is not measured */
}

TFO_TEST(tfo_response_in_synack)
{
	uint64_t now = 1000 * hz;
	struct seen syn, s;
	uint8_t o[40];
	uint32_t irs = 4242;

	REQUIRE(fixture_echo() == 0);
	warm_up(now);
	/* only local address 0 has a cookie: start from it */
	lcore.tuple_cursor = 0;
	REQUIRE(lg_start(&lcore, LG_KIND_TFO, UINT32_MAX, false, now) == 0);
	REQUIRE(take_syn(&syn) == 0);
	CHECK_EQ(syn.o.cookie_state, TFO_COOKIE_PRESENT);
	CHECK_MEM(syn.o.cookie, cookie_a, 8);
	REQUIRE(syn.p.payload_len == 100);

	/* tfo-server's shape: SYN-ACK acks the data and carries response + FIN */
	feed(server_seg(&syn, TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_PSH | TFO_TCP_FIN, irs,
			syn.p.seq + 101, o, synack_opts(o, &syn, cookie_a, 8, syn.o.tsval),
			syn.data, 100), now + hz / 10000);
	REQUIRE(ncap == 1);
	REQUIRE(server_parse(cap[0], &s) == 0);
	CHECK_EQ(s.p.tcp_flags, TFO_TCP_ACK | TFO_TCP_FIN);
	CHECK_EQ(s.p.seq, syn.p.seq + 101);
	CHECK_EQ(s.p.ack, irs + 1 + 100 + 1);
	CHECK_EQ(s.p.payload_len, 0);
	feed(server_seg(&syn, TFO_TCP_ACK, irs + 102, syn.p.seq + 102, NULL, 0, NULL, 0),
	     now + hz / 5000);
	CHECK_EQ(lcore.stats.c[LG_STAT_txn_completed], 1);
	CHECK_EQ(lcore.stats.c[LG_STAT_txn_tfo], 1);
	CHECK_EQ(lcore.stats.c[LG_STAT_synack_data], 1);
	CHECK_EQ(lcore.stats.c[LG_STAT_synack_fin], 1);
	CHECK_EQ(lcore.stats.c[LG_STAT_fallbacks], 0);
	CHECK_EQ(lcore.hist.count, 1);
	/* 100 us between the SYN and the SYN-ACK */
	CHECK(lcore.hist.max >= hz / 10000 && lcore.hist.max <= hz / 10000 + 1);
	CHECK_EQ(lg_stats_errors(&lcore.stats), 0);
}

TFO_TEST(fallback_resends_request_and_new_cookie_replaces)
{
	uint64_t now = 1000 * hz;
	struct seen syn, s;
	uint8_t o[40];

	REQUIRE(fixture_echo() == 0);
	warm_up(now);
	lcore.tuple_cursor = 0;
	REQUIRE(lg_start(&lcore, LG_KIND_TFO, UINT32_MAX, false, now) == 0);
	REQUIRE(take_syn(&syn) == 0);
	/* SYN-ACK acks only the SYN, offers cookie_b */
	feed(server_seg(&syn, TFO_TCP_SYN | TFO_TCP_ACK, 1, syn.p.seq + 1, o,
			synack_opts(o, &syn, cookie_b, 8, syn.o.tsval), NULL, 0), now);
	CHECK_EQ(lcore.stats.c[LG_STAT_fallbacks], 1);
	CHECK_EQ(lcore.stats.c[LG_STAT_cookies_replaced], 1);
	CHECK_MEM(lcore.addrs[0].cookie, cookie_b, 8);
	REQUIRE(ncap == 1);
	REQUIRE(server_parse(cap[0], &s) == 0);
	CHECK_EQ(s.p.seq, syn.p.seq + 1);
	CHECK_EQ(s.p.payload_len, 100);
	CHECK_MEM(s.data, syn.data, 100);
	CHECK_EQ(lg_stats_errors(&lcore.stats), 0);
}

/*
 * --dns-query: one plain transaction answered by a fake server with
 * @p mutate applied to a right answer (0: none). @return the answer's
 * fate: 1 validated, 0 failed (the lcore's counters say why).
 */
enum dns_mutation { DNS_RIGHT, DNS_WRONG_ID, DNS_WRONG_CASE, DNS_NO_ANSWER, DNS_TC };

static int
dns_txn(enum dns_mutation mutate)
{
	char *argv[] = { (char *)(uintptr_t)"lg", (char *)(uintptr_t)"--server",
		(char *)(uintptr_t)"198.18.0.1", (char *)(uintptr_t)"--client",
		(char *)(uintptr_t)"198.18.0.100", (char *)(uintptr_t)"--clients",
		(char *)(uintptr_t)"4", (char *)(uintptr_t)"--client-ports",
		(char *)(uintptr_t)"1000-1015", (char *)(uintptr_t)"--concurrency",
		(char *)(uintptr_t)"4", (char *)(uintptr_t)"--server-port",
		(char *)(uintptr_t)"53", (char *)(uintptr_t)"--dns-query",
		(char *)(uintptr_t)"www.Example.org/AAAA" };
	/* the answer record: a pointer to the question's name, AAAA IN, TTL,
	 * 16 bytes of address */
	static const uint8_t rr[] = { 0xc0, 12, 0, 28, 0, 1, 0, 0, 0x0e, 0x10, 0, 16,
		0xfd, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	uint64_t now = rte_get_tsc_cycles();
	struct seen syn, req;
	uint8_t ans[256];
	uint32_t irs = 424242, alen;

	if (!(fixture((int)RTE_DIM(argv), argv) == 0)) {
		CHECK(fixture((int)RTE_DIM(argv), argv) == 0);
		return -1;
	}
	if (!(lg_start(&lcore, LG_KIND_PLAIN, UINT32_MAX, false, now) == 0)) {
		CHECK(lg_start(&lcore, LG_KIND_PLAIN, UINT32_MAX, false, now) == 0);
		return -1;
	}
	if (!(take_syn(&syn) == 0)) {
		CHECK(take_syn(&syn) == 0);
		return -1;
	}
	feed(server_seg(&syn, TFO_TCP_SYN | TFO_TCP_ACK, irs, syn.p.seq + 1, NULL, 0, NULL, 0),
	     now);
	if (!(ncap == 1)) {
		CHECK(ncap == 1);
		return -1;
	}
	if (!(server_parse(cap[0], &req) == 0)) {
		CHECK(server_parse(cap[0], &req) == 0);
		return -1;
	}
	/* the framed query: 2-byte length, ID, flags 0, QDCOUNT 1, the name
	 * as given, AAAA IN */
	if (!(req.p.payload_len == 2 + 12 + 17 + 4)) {
		CHECK(req.p.payload_len == 2 + 12 + 17 + 4);
		return -1;
	}
	CHECK_EQ(req.data[0] << 8 | req.data[1], 12 + 17 + 4);
	CHECK_EQ(req.data[2] << 8 | req.data[3], lg_dns_id(lcore.conns[0].txn_id));
	CHECK_EQ(req.data[4] | req.data[5], 0);
	CHECK_EQ(req.data[7], 1);
	CHECK_MEM(req.data + 14, "\x03www\x07" "Example\x03org\x00\x00\x1c\x00\x01", 21);

	alen = req.p.payload_len + (uint32_t)sizeof(rr);
	memcpy(ans, req.data, req.p.payload_len);
	memcpy(ans + req.p.payload_len, rr, sizeof(rr));
	ans[0] = (uint8_t)((alen - 2) >> 8);
	ans[1] = (uint8_t)(alen - 2);
	ans[4] = 0x84;		/* QR, AA */
	ans[9] = 1;		/* ANCOUNT */
	if (mutate == DNS_WRONG_ID)
		ans[3] ^= 1;
	else if (mutate == DNS_WRONG_CASE)
		ans[19] = 'e';	/* "Example" lower-cased: not the question echoed */
	else if (mutate == DNS_NO_ANSWER)
		ans[9] = 0;
	else if (mutate == DNS_TC)
		ans[4] |= 0x02;
	/* in two segments: the header split after 5 bytes */
	feed(server_seg(&syn, TFO_TCP_ACK, irs + 1, req.p.seq + req.p.payload_len, NULL, 0,
			ans, 5), now);
	feed(server_seg(&syn, TFO_TCP_ACK | TFO_TCP_PSH, irs + 6,
			req.p.seq + req.p.payload_len, NULL, 0, ans + 5, alen - 5), now);
	return lcore.stats.c[LG_STAT_responses_validated] == 1;
}

TFO_TEST(dns_query_framed_and_answers_checked)
{
	struct seen s;

	CHECK_EQ(dns_txn(DNS_RIGHT), 1);
	/* validated: our FIN goes out */
	REQUIRE(ncap == 1);
	REQUIRE(server_parse(cap[0], &s) == 0);
	CHECK(s.p.tcp_flags & TFO_TCP_FIN);
	CHECK_EQ(lg_stats_errors(&lcore.stats), 0);

	CHECK_EQ(dns_txn(DNS_WRONG_ID), 0);
	CHECK_EQ(lcore.stats.c[LG_STAT_err_dns_id], 1);
	CHECK_EQ(dns_txn(DNS_WRONG_CASE), 0);
	CHECK_EQ(lcore.stats.c[LG_STAT_err_dns_question], 1);
	CHECK_EQ(dns_txn(DNS_NO_ANSWER), 0);
	CHECK_EQ(lcore.stats.c[LG_STAT_err_dns_no_answer], 1);
	CHECK_EQ(dns_txn(DNS_TC), 0);
	CHECK_EQ(lcore.stats.c[LG_STAT_err_dns_header], 1);
	CHECK_EQ(lcore.nb_free, lcore.nb_conns);	/* every failure freed its slot */
}

TFO_TEST(dns_query_arguments)
{
	char err[256], *argv[8];
	static const char *const bad[][8] = {
		{ "lg", "--server", "198.18.0.1", "--client", "198.18.0.100", "--dns-query",
		  "www.example.org", NULL },
		{ "lg", "--server", "198.18.0.1", "--client", "198.18.0.100", "--dns-query",
		  "www..org/A", NULL },
		{ "lg", "--server", "198.18.0.1", "--client", "198.18.0.100", "--dns-query",
		  "www.example.org/NOPE", NULL },
		{ "lg", "--server", "198.18.0.1", "--client", "198.18.0.100", "--dns-rcode",
		  "NXDOMAIN", NULL },
	};

	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		for (unsigned int j = 0; j < 8; j++)
			argv[j] = (char *)(uintptr_t)bad[i][j];
		lg_opts_free(&opts);
		CHECK_EQ(lg_parse_args(&opts, 7, argv, err, sizeof(err)), -EINVAL);
	}
	CHECK_EQ(lg_dns_rcode("nxdomain"), 3);
	CHECK_EQ(lg_dns_rcode("5"), 5);
	CHECK_EQ(lg_dns_rcode("16"), -1);
}

TFO_TEST(synack_wrong_tsecr_is_an_error)
{
	uint64_t now = 1000 * hz;
	struct seen syn, s;
	uint8_t o[40];

	REQUIRE(fixture_echo() == 0);
	REQUIRE(lg_start(&lcore, LG_KIND_PLAIN, UINT32_MAX, false, now) == 0);
	REQUIRE(take_syn(&syn) == 0);
	CHECK_EQ(syn.o.cookie_state, TFO_COOKIE_ABSENT);
	feed(server_seg(&syn, TFO_TCP_SYN | TFO_TCP_ACK, 1, syn.p.seq + 1, o,
			synack_opts(o, &syn, NULL, 0, syn.o.tsval + 1000), NULL, 0), now);
	CHECK_EQ(lcore.stats.c[LG_STAT_err_synack_tsecr], 1);
	REQUIRE(ncap == 1);
	REQUIRE(server_parse(cap[0], &s) == 0);
	CHECK(s.p.tcp_flags & TFO_TCP_RST);
	CHECK_EQ(lcore.nb_free, lcore.nb_conns);
}

TFO_TEST(synack_data_to_plain_syn_is_an_error)
{
	uint64_t now = 1000 * hz;
	struct seen syn;
	uint8_t o[40];

	REQUIRE(fixture_echo() == 0);
	REQUIRE(lg_start(&lcore, LG_KIND_PLAIN, UINT32_MAX, false, now) == 0);
	REQUIRE(take_syn(&syn) == 0);
	feed(server_seg(&syn, TFO_TCP_SYN | TFO_TCP_ACK, 1, syn.p.seq + 1, o,
			synack_opts(o, &syn, NULL, 0, syn.o.tsval), "x\n", 2), now);
	CHECK_EQ(lcore.stats.c[LG_STAT_err_synack_data_plain], 1);
	CHECK_EQ(lcore.nb_free, lcore.nb_conns);
}

TFO_TEST(response_mismatch_is_an_error)
{
	uint64_t now = 1000 * hz;
	struct seen syn, s;
	uint8_t o[40], bad[100];

	REQUIRE(fixture_echo() == 0);
	REQUIRE(lg_start(&lcore, LG_KIND_PLAIN, UINT32_MAX, false, now) == 0);
	REQUIRE(take_syn(&syn) == 0);
	feed(server_seg(&syn, TFO_TCP_SYN | TFO_TCP_ACK, 1, syn.p.seq + 1, o,
			synack_opts(o, &syn, NULL, 0, syn.o.tsval), NULL, 0), now);
	REQUIRE(ncap == 1);
	REQUIRE(server_parse(cap[0], &s) == 0);
	/* the tag: the first 16 bytes name the transaction in hex */
	for (unsigned int i = 0; i < LG_TAG_LEN; i++)
		if (!isxdigit(s.data[i])) {
			CHECK(isxdigit(s.data[i]));
			break;
		}
	CHECK_EQ(s.data[LG_TAG_LEN], opts.request[LG_TAG_LEN]);
	memcpy(bad, s.data, 100);
	bad[50] ^= 1;
	feed(server_seg(&syn, TFO_TCP_ACK, 2, s.p.seq + 100, NULL, 0, bad, 100), now);
	CHECK_EQ(lcore.stats.c[LG_STAT_err_response_mismatch], 1);
	CHECK_EQ(lcore.stats.c[LG_STAT_responses_validated], 0);
	CHECK_EQ(lcore.nb_free, lcore.nb_conns);
}

TFO_TEST(short_response_then_fin_is_an_error)
{
	uint64_t now = 1000 * hz;
	struct seen syn, s;
	uint8_t o[40];

	REQUIRE(fixture_echo() == 0);
	REQUIRE(lg_start(&lcore, LG_KIND_PLAIN, UINT32_MAX, false, now) == 0);
	REQUIRE(take_syn(&syn) == 0);
	feed(server_seg(&syn, TFO_TCP_SYN | TFO_TCP_ACK, 1, syn.p.seq + 1, o,
			synack_opts(o, &syn, NULL, 0, syn.o.tsval), NULL, 0), now);
	REQUIRE(server_parse(cap[0], &s) == 0);
	feed(server_seg(&syn, TFO_TCP_ACK | TFO_TCP_FIN, 2, s.p.seq + 100, NULL, 0,
			s.data, 60), now);
	CHECK_EQ(lcore.stats.c[LG_STAT_err_response_short], 1);
}

TFO_TEST(syn_retransmitted_without_data_then_gives_up)
{
	uint64_t now = 1000 * hz, rto = hz;	/* --rto-ms 1000 */
	struct seen syn, re;

	REQUIRE(fixture_echo() == 0);
	warm_up(now);
	lcore.tuple_cursor = 0;
	REQUIRE(lg_start(&lcore, LG_KIND_TFO, UINT32_MAX, false, now) == 0);
	REQUIRE(take_syn(&syn) == 0);
	CHECK_EQ(syn.p.payload_len, 100);
	cap_clear();
	lg_timers(&lcore, now + rto / 2, 64);
	lg_tx_flush_all(&lcore);
	CHECK_EQ(ncap, 0);
	lg_timers(&lcore, now + rto + 1, 64);
	REQUIRE(take_syn(&re) == 0);
	CHECK_EQ(re.p.seq, syn.p.seq);
	CHECK_EQ(re.p.payload_len, 0);
	CHECK_EQ(re.o.cookie_state, TFO_COOKIE_PRESENT);
	CHECK_EQ(lcore.stats.c[LG_STAT_syn_retransmits], 1);
	/* backoff: next at +2 s, then +4 s; --retries 2 */
	cap_clear();
	lg_timers(&lcore, now + 3 * rto + 2, 64);
	CHECK_EQ(lcore.stats.c[LG_STAT_syn_retransmits], 2);
	lg_timers(&lcore, now + 7 * rto + 3, 64);
	CHECK_EQ(lcore.stats.c[LG_STAT_err_timeout_syn], 1);
	CHECK_EQ(lcore.nb_free, lcore.nb_conns);
}

TFO_TEST(ack_to_our_syn_from_time_wait_gets_rst)
{
	uint64_t now = 1000 * hz;
	struct seen syn, s;

	REQUIRE(fixture_echo() == 0);
	REQUIRE(lg_start(&lcore, LG_KIND_PLAIN, UINT32_MAX, false, now) == 0);
	REQUIRE(take_syn(&syn) == 0);
	/* a server's TIME-WAIT entry refusing the SYN answers with its ACK */
	feed(server_seg(&syn, TFO_TCP_ACK, 555, 123456, NULL, 0, NULL, 0), now);
	CHECK_EQ(lcore.stats.c[LG_STAT_rst_tx_synsent], 1);
	REQUIRE(ncap == 1);
	REQUIRE(server_parse(cap[0], &s) == 0);
	CHECK_EQ(s.p.tcp_flags, TFO_TCP_RST);
	CHECK_EQ(s.p.seq, 123456);
	/* still waiting for a SYN-ACK: not an error */
	CHECK_EQ(lcore.nb_free, lcore.nb_conns - 1);
	CHECK_EQ(lg_stats_errors(&lcore.stats), 0);
}

TFO_TEST(arp_for_a_client_is_answered)
{
	struct rte_mbuf *m;
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *ah;
	uint8_t client[4] = { 198, 18, 0, 102 }, server[4] = { 198, 18, 0, 1 };

	REQUIRE(fixture_echo() == 0);
	sh.ports[0].resolved = 0;
	m = rte_pktmbuf_alloc(pool);
	eh = (struct rte_ether_hdr *)(void *)rte_pktmbuf_append(m, sizeof(*eh) + sizeof(*ah));
	memset(&eh->dst_addr, 0xff, 6);
	eh->src_addr = srv_mac;
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	ah = (struct rte_arp_hdr *)(eh + 1);
	ah->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	ah->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ah->arp_hlen = 6;
	ah->arp_plen = 4;
	ah->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
	ah->arp_data.arp_sha = srv_mac;
	memcpy(&ah->arp_data.arp_sip, server, 4);
	memset(&ah->arp_data.arp_tha, 0, 6);
	memcpy(&ah->arp_data.arp_tip, client, 4);
	feed(m, hz);
	CHECK_EQ(lcore.stats.c[LG_STAT_arp_reply_tx], 1);
	CHECK_EQ(sh.ports[0].resolved, 1);
	CHECK(rte_is_same_ether_addr(&sh.ports[0].server_mac, &srv_mac));
	REQUIRE(ncap == 1);
	eh = rte_pktmbuf_mtod(cap[0], struct rte_ether_hdr *);
	ah = (struct rte_arp_hdr *)(eh + 1);
	CHECK(rte_is_same_ether_addr(&eh->dst_addr, &srv_mac));
	CHECK(rte_is_same_ether_addr(&ah->arp_data.arp_sha, &lg_mac));
	CHECK_EQ(rte_be_to_cpu_16(ah->arp_opcode), RTE_ARP_OP_REPLY);
	CHECK_MEM(&ah->arp_data.arp_sip, client, 4);
	CHECK_MEM(&ah->arp_data.arp_tip, server, 4);
}

TFO_TEST(histogram_quantiles_within_bucket_width)
{
	static struct lg_hist h;

	memset(&h, 0, sizeof(h));
	CHECK_EQ(lg_hist_quantile(&h, 0.5), 0);
	for (uint64_t v = 1; v <= 100000; v++)
		lg_hist_add(&h, v);
	CHECK_EQ(h.count, 100000);
	CHECK_EQ(h.min, 1);
	CHECK_EQ(h.max, 100000);
	/* one bucket is at most 1/32 of its values wide */
	CHECK(lg_hist_quantile(&h, 0.5) > 50000 * 31 / 32 &&
	      lg_hist_quantile(&h, 0.5) < 50000 * 33 / 32);
	CHECK(lg_hist_quantile(&h, 0.99) > 99000 * 31 / 32 &&
	      lg_hist_quantile(&h, 0.99) < 99000 * 33 / 32);
	CHECK_EQ(lg_hist_quantile(&h, 1.0), 100000);
	for (unsigned int i = 0; i + 1 < LG_HIST_BUCKETS; i++)
		if (lg_hist_bucket(lg_hist_bucket_low(i)) != i) {
			CHECK_EQ(lg_hist_bucket(lg_hist_bucket_low(i)), i);
			break;
		}
	CHECK_EQ(lg_hist_bucket(UINT64_MAX), LG_HIST_BUCKETS - 1);
}

static int
parse(const char *line, char *err, size_t errlen)
{
	char buf[512], *argv[32];
	int argc = 0;
	struct lg_opts o;
	int rc;

	snprintf(buf, sizeof(buf), "lg %s", line);
	for (char *t = strtok(buf, " "); t != NULL && argc < 31; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	rc = lg_parse_args(&o, argc, argv, err, errlen);
	lg_opts_free(&o);
	return rc;
}

/*
 * --syn-flood bounds the flood's share of all starts, also when the real
 * starts cannot be made (every slot busy with an unanswered SYN): the old
 * draw per attempt let the flood take the whole --rate then.
 */
TFO_TEST(syn_flood_share_bounded_with_rate)
{
	char *argv[] = { (char *)(uintptr_t)"lg", (char *)(uintptr_t)"--server",
		(char *)(uintptr_t)"198.18.0.1", (char *)(uintptr_t)"--client",
		(char *)(uintptr_t)"198.18.0.100", (char *)(uintptr_t)"--concurrency",
		(char *)(uintptr_t)"40", (char *)(uintptr_t)"--rate",
		(char *)(uintptr_t)"100000", (char *)(uintptr_t)"--syn-flood",
		(char *)(uintptr_t)"5" };
	uint64_t now = 1000 * hz, flood, real;

	REQUIRE(fixture((int)RTE_DIM(argv), argv) == 0);
	REQUIRE(lcore.rate_interval != 0);
	/* 1 s at 100 k/s; nobody answers, so 40 slots fill at once */
	for (int i = 0; i < 10000; i++) {
		now += hz / 10000;
		lg_starts(&lcore, LG_PHASE_RUN, now);
		cap_clear();
	}
	flood = lcore.stats.c[LG_STAT_flood_syn_tx];
	real = lcore.stats.c[LG_STAT_txn_started];
	CHECK_EQ(real, 40);
	CHECK_EQ(lcore.flood_started, flood);
	/* 5 % of the starts: 2 of 42 (and not 100 k) */
	CHECK(flood * 100 <= 5 * (flood + real));
	CHECK(flood >= 1);
	CHECK(lcore.stats.c[LG_STAT_start_no_slot] > 0);

	/* without a shortage the share is exact */
	CHECK(lg_flood_due(0, 19, 500));
	CHECK(!lg_flood_due(0, 18, 500));
	CHECK(!lg_flood_due(1, 20, 500));
	CHECK(lg_flood_due(1, 39, 500));
	CHECK(!lg_flood_due(0, 1000000, 0));
	CHECK(lg_flood_due(5, 5, 10000));
}

TFO_TEST(arguments_are_checked)
{
	char err[256];

	CHECK_EQ(parse("--server 10.0.0.1 --client 10.0.1.1", err, sizeof(err)), 0);
	CHECK(parse("--client 10.0.1.1", err, sizeof(err)) < 0 && strstr(err, "--server"));
	CHECK(parse("--server 10.0.0.1 --client fd00::1", err, sizeof(err)) < 0);
	CHECK(parse("--server 10.0.0.5 --client 10.0.0.1 --clients 16", err, sizeof(err)) < 0 &&
	      strstr(err, "inside"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --syn-flood 5 --flood-ports 10100-10200",
		    err, sizeof(err)) < 0 && strstr(err, "overlap"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --bad-cookie 60 --no-tfo 50",
		    err, sizeof(err)) < 0 && strstr(err, "100%"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --no-tfo x", err, sizeof(err)) < 0);
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --rss-peer 0", err, sizeof(err)) < 0 &&
	      strstr(err, "control lcores"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --clients 65537", err, sizeof(err)) < 0);
	CHECK(parse("--server 10.0.0.1 --client 255.255.255.250 --clients 16", err,
		    sizeof(err)) < 0 && strstr(err, "wraps"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --request-size 10 --expect-echo "
		    "--expect-len 11", err, sizeof(err)) < 0 && strstr(err, "contradicts"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --request a\\q", err, sizeof(err)) < 0);
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --mss 1461", err, sizeof(err)) < 0);
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --bogus", err, sizeof(err)) < 0 &&
	      strstr(err, "--bogus"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 extra", err, sizeof(err)) < 0 &&
	      strstr(err, "extra"));
	/* cookie requests are one more share of the same 100 % */
	CHECK_EQ(parse("--server 10.0.0.1 --client 10.0.1.1 --cookie-req 20 --no-tfo 70",
		       err, sizeof(err)), 0);
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --cookie-req 40 --no-tfo 70",
		    err, sizeof(err)) < 0 && strstr(err, "100%"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --cookie-req 101", err, sizeof(err)) < 0);
	/* the spoofed range: a prefix apart from the clients and the server */
	CHECK_EQ(parse("--server 10.0.0.1 --client 10.0.1.1 --spoof-flood max "
		       "--spoof-src 10.9.0.0/16", err, sizeof(err)), 0);
	CHECK_EQ(parse("--server 10.0.0.1 --client 10.0.1.1 --spoof-flood 1000 "
		       "--spoof-src 10.9.1.2/24 --spoof-ports 2000-3000", err, sizeof(err)), 0);
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --spoof-flood max", err,
		    sizeof(err)) < 0 && strstr(err, "--spoof-src"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --spoof-src 10.9.0.0/16", err,
		    sizeof(err)) < 0 && strstr(err, "without"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --spoof-flood 0 --spoof-src 10.9.0.0/16",
		    err, sizeof(err)) < 0);
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --spoof-flood max --spoof-src 10.9.0.0",
		    err, sizeof(err)) < 0 && strstr(err, "ADDR/LEN"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --spoof-flood max --spoof-src 10.0.0.0/8",
		    err, sizeof(err)) < 0 && strstr(err, "--server"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --spoof-flood max --spoof-src 10.0.1.8/29",
		    err, sizeof(err)) < 0 && strstr(err, "overlaps"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.0.250 --clients 16 --spoof-flood max "
		    "--spoof-src 10.0.1.0/24", err, sizeof(err)) < 0 && strstr(err, "overlaps"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --spoof-flood max --spoof-src fd00::/64",
		    err, sizeof(err)) < 0 && strstr(err, "family"));
	CHECK(parse("--server 10.0.0.1 --client 10.0.1.1 --spoof-flood max --spoof-src 10.9.0.0/4",
		    err, sizeof(err)) < 0 && strstr(err, "prefix"));
}

/* A mix of 10 % TFO, 20 % cookie requests, 70 % plain is one command; no
 * warm-up when nobody needs a cookie. */
TFO_TEST(cookie_req_share_and_no_warmup)
{
	char *argv[] = { (char *)(uintptr_t)"lg", (char *)(uintptr_t)"--server",
		(char *)(uintptr_t)"198.18.0.1", (char *)(uintptr_t)"--client",
		(char *)(uintptr_t)"198.18.0.100", (char *)(uintptr_t)"--concurrency",
		(char *)(uintptr_t)"1000", (char *)(uintptr_t)"--clients",
		(char *)(uintptr_t)"64", (char *)(uintptr_t)"--cookie-req",
		(char *)(uintptr_t)"30", (char *)(uintptr_t)"--no-tfo",
		(char *)(uintptr_t)"70" };
	uint64_t now = 1000 * hz, cr, plain;

	REQUIRE(fixture((int)RTE_DIM(argv), argv) == 0);
	CHECK(opts.warmup_timeout_s == 0);
	for (int i = 0; i < 40 && lcore.nb_free > 0; i++) {
		lg_starts(&lcore, LG_PHASE_RUN, now);
		cap_clear();
	}
	cr = lcore.stats.c[LG_STAT_txn_cookie_req];
	plain = lcore.stats.c[LG_STAT_txn_plain];
	CHECK_EQ(cr + plain, lcore.stats.c[LG_STAT_txn_started]);
	CHECK(cr > 200 && cr < 400);
	CHECK(plain > 600 && plain < 800);
}

/* Spoofed SYNs: plain, from the prefix and the port range, at the rate. */
TFO_TEST(spoof_flood_syns_in_range)
{
	char *argv[] = { (char *)(uintptr_t)"lg", (char *)(uintptr_t)"--server",
		(char *)(uintptr_t)"198.18.0.1", (char *)(uintptr_t)"--client",
		(char *)(uintptr_t)"198.18.0.100", (char *)(uintptr_t)"--spoof-flood",
		(char *)(uintptr_t)"1000", (char *)(uintptr_t)"--spoof-src",
		(char *)(uintptr_t)"198.19.0.0/16", (char *)(uintptr_t)"--spoof-ports",
		(char *)(uintptr_t)"2000-2099" };
	uint64_t now = 1000 * hz;
	unsigned int n = 0;

	REQUIRE(fixture((int)RTE_DIM(argv), argv) == 0);
	REQUIRE(lcore.spoof_interval != 0);
	/* 0.1 s at 1000/s: 100 (+1 at the start) */
	for (int i = 0; i < 1000; i++) {
		now += hz / 10000;
		n += lg_spoof_syns(&lcore, now);
		for (unsigned int k = 0; k < ncap; k++) {
			struct seen s;

			REQUIRE(server_parse(cap[k], &s) == 0);
			CHECK_EQ(s.p.tcp_flags, TFO_TCP_SYN);
			CHECK_EQ(s.p.payload_len, 0);
			CHECK(s.o.cookie_state == TFO_COOKIE_ABSENT);
			CHECK(s.p.src.b[0] == 198 && s.p.src.b[1] == 19);
			CHECK(s.p.sport >= 2000 && s.p.sport <= 2099);
		}
		cap_clear();
	}
	CHECK(n >= 100 && n <= 101);
	CHECK_EQ(lcore.stats.c[LG_STAT_spoof_syn_tx], n);
}

TFO_TEST(request_escapes_and_pattern)
{
	char *argv[] = { (char *)(uintptr_t)"lg", (char *)(uintptr_t)"--server",
		(char *)(uintptr_t)"10.0.0.1", (char *)(uintptr_t)"--client",
		(char *)(uintptr_t)"10.0.1.1", (char *)(uintptr_t)"--request",
		(char *)(uintptr_t)"GET /\\r\\n\\x41\\\\" };
	char err[256];
	struct lg_opts o;

	REQUIRE(lg_parse_args(&o, (int)RTE_DIM(argv), argv, err, sizeof(err)) == 0);
	CHECK_EQ(o.request_len, 9);
	CHECK_MEM(o.request, "GET /\r\nA\\", 9);
	CHECK(!o.tag);
	CHECK_EQ(o.expect_len, -1);
	lg_opts_free(&o);
}

/*
 * rss = peer: the hash is Toeplitz under the key of Microsoft's RSS
 * specification, on the flow as the server sees it (src = the client),
 * so a NIC with that key agrees. The specification's own vectors.
 */
TFO_TEST(rss_peer_hash_is_the_standard_toeplitz)
{
	struct tfo_port_info info;
	struct tfo_pkt p;

	memset(&info, 0, sizeof(info));
	tfo_port_rss_peer(&info, 16);
	memset(&p, 0, sizeof(p));
	p.family = AF_INET;
	inet_pton(AF_INET, "66.9.149.187", p.src.b);
	inet_pton(AF_INET, "161.142.100.80", p.dst.b);
	p.sport = 2794;
	p.dport = 1766;
	/* hash 0x51ccc178: table entry 0x78 = 120, worker 120 % 16 */
	CHECK_EQ(tfo_port_flow_worker(&info, 16, &p), 120u % 16);
	tfo_port_rss_peer(&info, 7);
	CHECK_EQ(tfo_port_flow_worker(&info, 7, &p), 120u % 7);
	/* the server's table is for its own worker count only */
	CHECK_EQ(tfo_port_flow_worker(&info, 6, &p), TFO_PORT_WORKER_UNKNOWN);

	memset(&p, 0, sizeof(p));
	p.family = AF_INET6;
	inet_pton(AF_INET6, "3ffe:2501:200:1fff::7", p.src.b);
	inet_pton(AF_INET6, "3ffe:2501:200:3::1", p.dst.b);
	p.sport = 2794;
	p.dport = 1766;
	/* hash 0x40207d3d: entry 0x3d = 61 */
	CHECK_EQ(tfo_port_flow_worker(&info, 7, &p), 61u % 7);
}

#define RSS_LCORES 4

static struct tfo_tx_q rss_seen[RSS_LCORES];

static void
rss_capture(struct tfo_tx *tx, uint8_t port_idx)
{
	struct lg_lcore *lc = tx->arg;
	struct tfo_tx_q *q = &tx->q[port_idx];
	struct tfo_tx_q *s = &rss_seen[lc->idx];

	for (uint16_t i = 0; i < q->n; i++) {
		if (s->n < TFO_TX_BUF)
			s->pkts[s->n++] = q->pkts[i];
		else
			rte_pktmbuf_free(q->pkts[i]);
	}
	q->n = 0;
}

/*
 * --rss-peer: every generator lcore starts only flows that the server's
 * worker choice (tfo_port_flow_worker on the frame it parses) gives to
 * that lcore's queue pair, IPv4 and IPv6, over many tuples.
 */
static void
rss_peer_queue_is_server_worker(const char *server, const char *client)
{
	static struct lg_lcore lcs[RSS_LCORES];
	char *argv[] = { (char *)(uintptr_t)"lg", (char *)(uintptr_t)"--server",
		(char *)(uintptr_t)server, (char *)(uintptr_t)"--client",
		(char *)(uintptr_t)client, (char *)(uintptr_t)"--clients",
		(char *)(uintptr_t)"16", (char *)(uintptr_t)"--client-ports",
		(char *)(uintptr_t)"1000-1255", (char *)(uintptr_t)"--concurrency",
		(char *)(uintptr_t)"32", (char *)(uintptr_t)"--rss-peer",
		(char *)(uintptr_t)"2", (char *)(uintptr_t)"--server-port",
		(char *)(uintptr_t)"7" };
	struct tfo_port_info srv;
	unsigned int checked = 0, wrong = 0;
	char err[256];

	REQUIRE(fixture((int)RTE_DIM(argv), argv) == 0);
	sh.nb_lcores = RSS_LCORES;
	sh.ports[0].peer = sh.ports[0].info;
	tfo_port_rss_peer(&sh.ports[0].peer, RSS_LCORES);
	srv = srv_port;
	srv.addrs[0].family = (uint8_t)opts.family;
	srv.addrs[0].prefix_len = opts.family == AF_INET ? 24 : 64;
	tfo_port_rss_peer(&srv, RSS_LCORES);
	for (unsigned int l = 0; l < RSS_LCORES; l++) {
		struct lg_lcore *lc = &lcs[l];

		REQUIRE(lg_lcore_init(lc, l, &opts, &sh, pool, SOCKET_ID_ANY, err,
				      sizeof(err)) == 0);
		/* its own queue, and control lcore c's (queue 4 + c) if c % 4 == l */
		CHECK_EQ(lc->nb_rx_queues, l < 2 ? 2 : 1);
		if (l < 2)
			CHECK_EQ(lc->rx_queues[1], RSS_LCORES + l);
		CHECK(lc->nb_own > lc->nb_tuples / 8 && lc->nb_own < lc->nb_tuples / 2);
		lc->tx.flush = rss_capture;
		lc->tx.arg = lc;
		for (unsigned int r = 0; r < 3; r++) {
			uint64_t now = rte_get_tsc_cycles();

			rss_seen[l].n = 0;
			for (unsigned int i = 0; i < 32; i++)
				CHECK(lg_start(lc, LG_KIND_PLAIN, UINT32_MAX, false, now) == 0);
			lg_output_pending(lc, now);
			lg_tx_flush_all(lc);
			CHECK_EQ(rss_seen[l].n, 32);
			for (uint16_t i = 0; i < rss_seen[l].n; i++) {
				struct rte_mbuf *m = rss_seen[l].pkts[i];
				struct tfo_pkt p;

				if (tfo_pkt_classify(m, &srv, &p) != TFO_PKT_TCP)
					wrong++;
				else if (tfo_port_flow_worker(&srv, RSS_LCORES, &p) != l)
					wrong++;
				checked++;
				rte_pktmbuf_free(m);
			}
			/* free the slots for the next round */
			lg_lcore_free(lc);
			REQUIRE(lg_lcore_init(lc, l, &opts, &sh, pool, SOCKET_ID_ANY, err,
					      sizeof(err)) == 0);
			lc->tx.flush = rss_capture;
			lc->tx.arg = lc;
			lc->tuple_cursor = r * 97 + 1;
		}
		lg_lcore_free(lc);
	}
	CHECK_EQ(checked, RSS_LCORES * 3 * 32);
	CHECK_EQ(wrong, 0);
}

TFO_TEST(rss_peer_queue_is_server_worker_ipv4)
{
	rss_peer_queue_is_server_worker("198.18.0.1", "198.18.1.1");
}

TFO_TEST(rss_peer_queue_is_server_worker_ipv6)
{
	rss_peer_queue_is_server_worker("fd00::1", "fd00::1:0");
}

TFO_TEST_MAIN()
