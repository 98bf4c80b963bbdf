/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: tfo-loadgen's client state machine, in
 * memory: a fake server parses what the generator sends and answers with
 * hand-built segments (both shapes: response inside the SYN-ACK, and
 * Linux's bare SYN-ACK then data); DNS queries; the errors it counts. The
 * "loadgen" program is this file, test_loadgen_args.c and
 * test_loadgen_rss.c (tests/meson.build) on loadgen_harness.c.
 */
#include "loadgen_harness.h"

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

TFO_TEST_MAIN()
