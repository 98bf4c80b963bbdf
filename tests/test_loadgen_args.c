/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: tfo-loadgen's ARP answers, its histogram, the
 * SYN flood and spoofed SYNs, cookie requests, request escapes, and the
 * argument checks.
 */
#include "loadgen_harness.h"

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
