/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: tfo-loadgen's --rss-peer: the standard
 * Toeplitz hash, and the queue (the server's worker) it picks for IPv4 and
 * IPv6.
 */
#include "loadgen_harness.h"

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
