/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench slowsyn: the cost of a SYN that takes the slow path, per SYN,
 * on the worker (tfo_worker_burst: parse, options, the hand-off or a SYN
 * cookie answered there) and on the control core (tfo_control_burst of
 * what the ring brought: the handshake it answers), no device.
 *
 *   tfo-bench slowsyn [--reps R] [--syns N] [--kind plain|bad-cookie|cookie-req|all]
 *                     [--syncookies no|always|both]
 *
 * Linux's SYN options (MSS, SACK-permitted, timestamps, window scale), plus
 * a TFO option: an empty one (cookie request) or an 8-byte cookie that is
 * not ours with 100 bytes of data (bad cookie). Checksums verified in
 * software (net_tap, net_memif). syncookies = no: every SYN crosses the ring
 * and opens a half-open entry on the control core; always: the worker
 * answers it with a SYN cookie (the figure of a spoofed flood). Figures:
 * TSC ticks per SYN, the median of R runs of N SYNs (after one warm-up run).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_tcp.h>

#include "lcore/control.h"
#include "lcore/worker.h"
#include "server/server.h"

#include "bench.h"

#define SS_BURST 32
#define SS_MAX_RUNS 32

enum ss_kind { SS_PLAIN, SS_BAD_COOKIE, SS_COOKIE_REQ, SS_NB_KINDS };
static const char *const ss_kind_name[] = { "plain", "bad-cookie", "cookie-req" };

static const struct tfo_key ss_key = { .b = { 0x73, 0x6c, 0x6f, 0x77, 0x73, 0x79, 0x6e } };

struct ss {
	struct tfo_server *srv;
	struct tfo_worker *w;
	struct tfo_control *c;
	struct rte_mempool *pool;
	struct tfo_port_info port;
	uint64_t sent;
};

/* The device: frames sent are freed (as on TX completion). */
static void
ss_flush(struct tfo_tx *tx, uint8_t port_idx)
{
	struct tfo_tx_q *q = &tx->q[port_idx];
	struct ss *s = tx->arg;

	s->sent += q->n;
	rte_pktmbuf_free_bulk(q->pkts, q->n);
	q->n = 0;
}

static void
ss_tune(struct tfo_engine_params *ep, bool control, void *arg)
{
	(void)arg;
	ep->max_conns = control ? 65536 : 1024;
}

static int
ss_server(struct ss *s, uint8_t mode, unsigned int id)
{
	static struct tfo_config cfg;
	char name[16], err[TFO_CFG_ERR];
	struct tfo_server_params sp = {
		.name = name,
		.ports = &s->port,
		.nb_ports = 1,
		.nb_workers = 1,
		.nb_mbufs = 16383,
		.key = &ss_key,
		.engine_tune = ss_tune,
	};

	tfo_config_defaults(&cfg);
	cfg.burst = SS_BURST;
	cfg.idle_sleep_us = 0;
	cfg.ring_size = 8192;
	cfg.max_conns = 65536;
	cfg.max_conns_per_source = 0;
	cfg.syncookies = mode;
	if (tfo_config_set(&cfg, "service echo", "port", "7", err, sizeof(err)) < 0)
		return -EINVAL;
	memset(&s->port, 0, sizeof(s->port));
	s->port.mtu = 1500;
	s->port.mac.addr_bytes[0] = 0x02;
	s->port.mac.addr_bytes[5] = 0x01;
	s->port.nb_addrs = 1;
	s->port.addrs[0].family = AF_INET;
	s->port.addrs[0].prefix_len = 24;
	memcpy(s->port.addrs[0].addr.b, (const uint8_t[]){ 198, 18, 0, 2 }, 4);
	snprintf(name, sizeof(name), "ss%u", id);
	s->srv = tfo_server_create(&cfg, &sp, err, sizeof(err));
	if (s->srv == NULL) {
		fprintf(stderr, "slowsyn: %s\n", err);
		return -ENOMEM;
	}
	s->pool = tfo_server_pool(s->srv);
	s->w = tfo_server_worker(s->srv, 0);
	s->c = tfo_server_control(s->srv);
	s->w->tx.flush = ss_flush;
	s->w->tx.arg = s;
	s->c->tx.flush = ss_flush;
	s->c->tx.arg = s;
	return 0;
}

/* SYN @p i of run @p run, from its own address and port. */
static struct rte_mbuf *
ss_syn(struct ss *s, enum ss_kind kind, unsigned int run, unsigned int i)
{
	static const uint8_t linux_opts[20] = {
		2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0x10, 0, 0, 0, 0, 0, 1, 3, 3, 7,
	};
	struct rte_mbuf *m = rte_pktmbuf_alloc(s->pool);
	uint32_t olen = 20, dlen = 0, src = (198u << 24) | (19u << 16) | ((run * 4096 + i) & 0xffff);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ih;
	struct rte_tcp_hdr *th;
	uint8_t *o;

	if (m == NULL)
		return NULL;
	if (kind == SS_COOKIE_REQ)
		olen = 24;
	else if (kind == SS_BAD_COOKIE) {
		olen = 32;
		dlen = 100;
	}
	if (rte_pktmbuf_append(m, (uint16_t)(14 + 20 + 20 + olen + dlen)) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	memset(eh, 0, 14 + 20 + 20 + olen + dlen);
	eh->dst_addr = s->port.mac;
	eh->src_addr.addr_bytes[0] = 0x02;
	eh->src_addr.addr_bytes[5] = 0x02;
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ih = (struct rte_ipv4_hdr *)(eh + 1);
	ih->version_ihl = 0x45;
	ih->total_length = rte_cpu_to_be_16((uint16_t)(20 + 20 + olen + dlen));
	ih->time_to_live = 64;
	ih->next_proto_id = IPPROTO_TCP;
	ih->src_addr = rte_cpu_to_be_32(src);
	ih->dst_addr = rte_cpu_to_be_32((198u << 24) | (18u << 16) | 2);
	ih->hdr_checksum = rte_ipv4_cksum(ih);
	th = (struct rte_tcp_hdr *)(ih + 1);
	th->src_port = rte_cpu_to_be_16((uint16_t)(10000 + run));
	th->dst_port = rte_cpu_to_be_16(7);
	th->sent_seq = rte_cpu_to_be_32(0x1000 * i + run);
	th->data_off = (uint8_t)(((20 + olen) / 4) << 4);
	th->tcp_flags = TFO_TCP_SYN;
	th->rx_win = rte_cpu_to_be_16(65535);
	o = (uint8_t *)(th + 1);
	memcpy(o, linux_opts, sizeof(linux_opts));
	o[6] = 8;	/* timestamps: TSval 1 */
	o[9] = 1;
	if (kind == SS_COOKIE_REQ)
		memcpy(o + 20, (const uint8_t[]){ 34, 2, 1, 1 }, 4);
	else if (kind == SS_BAD_COOKIE)
		memcpy(o + 20, (const uint8_t[]){ 34, 10, 0xba, 0xd0, 0xc0, 0x0c, 0x1e, 1, 2, 3, 1, 1 }, 12);
	th->cksum = rte_ipv4_udptcp_cksum(ih, th);
	m->port = s->port.port_id;
	return m;
}

/* One kind under one mode: worker and control TSC per SYN, medians. */
static int
ss_measure(enum ss_kind kind, uint8_t mode, unsigned int reps, unsigned int n,
	   unsigned int id)
{
	static struct rte_mbuf *pkts[16384];
	double wt[SS_MAX_RUNS], ct[SS_MAX_RUNS];
	struct ss s;
	uint64_t now;
	int rc;

	memset(&s, 0, sizeof(s));
	rc = ss_server(&s, mode, id);
	if (rc < 0)
		return rc;
	now = rte_rdtsc() / (rte_get_tsc_hz() / 1000000);
	for (unsigned int r = 0; r <= reps; r++) {
		uint64_t t0, t1, t2;
		unsigned int got;

		for (unsigned int i = 0; i < n; i++) {
			pkts[i] = ss_syn(&s, kind, r, i);
			if (pkts[i] == NULL) {
				fprintf(stderr, "slowsyn: mbuf pool empty\n");
				rte_pktmbuf_free_bulk(pkts, i);
				tfo_server_free(s.srv);
				return -ENOMEM;
			}
		}
		t0 = rte_rdtsc();
		for (unsigned int i = 0; i < n; i += SS_BURST)
			tfo_worker_burst(s.w, 0, &pkts[i], RTE_MIN(n - i, (unsigned int)SS_BURST), now);
		s.w->tx.flush(&s.w->tx, 0);
		t1 = rte_rdtsc();
		got = 0;
		for (;;) {
			unsigned int k = rte_ring_sc_dequeue_burst(s.w->to_ctl[0],
								   (void **)pkts, SS_BURST, NULL);

			if (k == 0)
				break;
			got += k;
			tfo_control_burst(s.c, pkts, k, now);
		}
		s.c->tx.flush(&s.c->tx, 0);
		t2 = rte_rdtsc();
		if (r > 0) {
			wt[r - 1] = (double)(t1 - t0) / n;
			ct[r - 1] = got ? (double)(t2 - t1) / got : 0;
		}
	}
	printf("%-11s syncookies=%-6s worker %7.1f TSC/SYN   control %7.1f TSC/SYN   "
	       "(worker syncookies_sent %" PRIu64 ", control conns_opened_plain %" PRIu64 ")\n",
	       ss_kind_name[kind], mode == TFO_SYNCOOKIES_ALWAYS ? "always" : "no",
	       tfo_bench_median(wt, reps), tfo_bench_median(ct, reps),
	       s.w->stats.c[tfo_stats_lookup("syncookies_sent")],
	       s.c->stats.c[tfo_stats_lookup("conns_opened_plain")]);
	tfo_server_free(s.srv);
	return 0;
}

static int
bench_slowsyn(int argc, char **argv)
{
	unsigned int reps = 7, n = 2048, id = 0;
	char *kind_s = NULL, *mode_s = NULL;
	int kind = -1, mode = -1, rc = 0;
	const struct tfo_bench_opt opts[] = {
		{ "reps", TFO_BENCH_OPT_U32, &reps, NULL, 0, 0 },
		{ "syns", TFO_BENCH_OPT_U32, &n, NULL, 0, 0 },
		{ "kind", TFO_BENCH_OPT_STR, &kind_s, NULL, 0, 0 },
		{ "syncookies", TFO_BENCH_OPT_STR, &mode_s, NULL, 0, 0 },
	};

	if (tfo_bench_getopt(argc, argv, opts, RTE_DIM(opts), NULL) < 0)
		return -EINVAL;
	if (kind_s != NULL) {
		for (kind = SS_NB_KINDS - 1; kind >= 0; kind--)
			if (strcmp(kind_s, ss_kind_name[kind]) == 0)
				break;
		if (kind < 0 && strcmp(kind_s, "all") != 0)
			return -EINVAL;
	}
	if (mode_s != NULL)
		mode = strcmp(mode_s, "no") == 0 ? TFO_SYNCOOKIES_NO :
		       strcmp(mode_s, "always") == 0 ? TFO_SYNCOOKIES_ALWAYS : -1;
	if (reps == 0 || reps > SS_MAX_RUNS || n == 0 || n > 4096 || (reps + 1) * n > 65536 / 2) {
		fprintf(stderr, "slowsyn: 1..%u reps, 1..4096 SYNs, (reps + 1) x SYNs <= 32768\n",
			SS_MAX_RUNS);
		return -EINVAL;
	}
	printf("slowsyn: %u runs of %u SYNs (median), software checksums, TSC %.3f GHz\n",
	       reps, n, (double)rte_get_tsc_hz() / 1e9);
	for (int k = 0; k < SS_NB_KINDS && rc == 0; k++) {
		if (kind >= 0 && k != kind)
			continue;
		for (int md = TFO_SYNCOOKIES_NO; md <= TFO_SYNCOOKIES_ALWAYS && rc == 0; md++) {
			if (md == TFO_SYNCOOKIES_AUTO || (mode >= 0 && md != mode))
				continue;
			rc = ss_measure((enum ss_kind)k, (uint8_t)md, reps, n, ++id);
		}
	}
	return rc;
}

TFO_BENCH(bench_slowsyn_b, "slowsyn",
	  "TSC per slow-path SYN (plain, bad cookie, cookie request) on worker and control; "
	  "worker SYN cookies", bench_slowsyn)
