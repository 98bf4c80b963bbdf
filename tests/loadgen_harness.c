/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: tfo-loadgen tests' harness (loadgen_harness.h).
 */
#include "loadgen_harness.h"

struct rte_mempool *pool;
struct rte_mbuf *cap[NCAP];
unsigned int ncap;
struct lg_shared sh;
struct lg_opts opts;
struct lg_lcore lcore;
struct tfo_port_info srv_port;	/* the fake server's view */
const struct rte_ether_addr lg_mac = { .addr_bytes = { 2, 0, 0, 0, 0, 1 } };
const struct rte_ether_addr srv_mac = { .addr_bytes = { 2, 0, 0, 0, 0, 2 } };
uint64_t hz;

void
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

void
cap_clear(void)
{
	for (unsigned int i = 0; i < ncap; i++)
		rte_pktmbuf_free(cap[i]);
	ncap = 0;
}

/* A fresh generator (one lcore, one port) with the options in @p argv. */
int
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

int
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

int
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

/* Feed one frame and collect what the generator sends in answer. */
void
feed(struct rte_mbuf *m, uint64_t now)
{
	cap_clear();
	lg_rx_frame(&lcore, m, 0, now);
	lg_output_pending(&lcore, now);
	lg_tx_flush_all(&lcore);
}
