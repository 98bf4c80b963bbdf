/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench engine: TSC cycles per complete TFO transaction through the TCP
 * engine alone, with 1k, 64k and 1M other connections live in the table.
 *
 *   tfo-bench engine [--reps R] [--trans N] [--live N[,N...]] [--no-offload]
 *                    [--time-wait MS]
 *
 * One transaction, as a Linux TFO client makes it (IPv4, timestamps, WS):
 *   SYN + cookie + "GET /\n"   -> lookup (miss) + tfo_engine_open: conn,
 *                                 service call (128 bytes static),
 *                                 SYN-ACK + response + FIN
 *   ACK of all that            -> lookup + input (FIN_WAIT_2)
 *   FIN                        -> lookup + input: ACK out, entry freed
 *                                 (TIME-WAIT 0 unless --time-wait)
 * in bursts of 32 (one lookup_bulk per burst, as the worker does), plus
 * tfo_engine_timers() once per burst. Timed: the engine calls and the TX
 * flush that frees the frames (as a PMD's TX completion would); not timed:
 * building and parsing the client's frames (the worker parses anyway).
 * The live connections sit in FIN_WAIT_2 (idle timer armed, no buffers).
 * Figures: median over R runs of N transactions, TSC cycles.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "net/tcpopt.h"
#include "net/tx.h"
#include "tcp/conn.h"
#include "tcp/engine.h"

#include "bench.h"

#define BE_BURST 32
#define BE_RESP_LEN 128

static const uint8_t be_srv_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t be_cli_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t be_cookie[TFO_COOKIE_LEN] = "8bytes!";
static uint8_t be_resp[BE_RESP_LEN];

/* The service: a small static response, then close. */
static enum tfo_svc_status
be_handle(const void *state, const struct tfo_svc_ctx *ctx __rte_unused,
	    const uint8_t *req, uint32_t len,
	  struct tfo_svc_resp *r)
{
	RTE_SET_USED(state);
	RTE_SET_USED(req);
	memcpy(r->buf, be_resp, BE_RESP_LEN);
	r->buf_len = BE_RESP_LEN;
	r->consumed = len;
	r->close = true;
	return TFO_SVC_RESPOND;
}

static const struct tfo_service be_service = {
	.name = "bench",
	.handle = be_handle,
};

/* What the engine sent to one client in the last flush. */
struct be_out {
	uint32_t seq;
	uint32_t end;	/* seq + SYN + data + FIN */
	uint8_t flags;
};

struct be {
	struct rte_mempool *pool;
	struct tfo_port_info srv, cli;
	struct tfo_stats stats;
	struct tfo_tx tx;
	struct tfo_service_inst svc;
	struct tfo_engine *e;
	uint64_t now;
	uint32_t next_id;
	/* the burst */
	uint32_t id[BE_BURST];
	struct rte_mbuf *m[BE_BURST];
	struct tfo_pkt pk[BE_BURST];
	const struct tfo_pkt *pp[BE_BURST];
	struct tfo_tcpopts o[BE_BURST];
	struct tfo_conn *c[BE_BURST];
	struct be_out out[BE_BURST];
	unsigned int nout;
	unsigned int errors;
};

static void
be_flush(struct tfo_tx *tx, uint8_t port_idx)
{
	struct be *b = tx->arg;
	struct tfo_tx_q *q = &tx->q[port_idx];

	for (uint16_t i = 0; i < q->n; i++) {
		const struct rte_mbuf *m = q->pkts[i];
		const struct rte_ipv4_hdr *ih =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, 14);
		const struct rte_tcp_hdr *th =
			rte_pktmbuf_mtod_offset(m, const struct rte_tcp_hdr *, 34);
		uint32_t dlen = rte_be_to_cpu_16(ih->total_length) - 20u -
				(uint32_t)(th->data_off >> 4) * 4;

		if (b->nout < BE_BURST) {
			struct be_out *o = &b->out[b->nout++];

			o->seq = rte_be_to_cpu_32(th->sent_seq);
			o->flags = th->tcp_flags;
			o->end = o->seq + dlen + !!(o->flags & TFO_TCP_SYN) +
				 !!(o->flags & TFO_TCP_FIN);
		}
	}
	rte_pktmbuf_free_bulk(q->pkts, q->n);
	q->n = 0;
}

static void
be_flush_all(struct be *b)
{
	if (b->tx.q[0].n > 0)
		be_flush(&b->tx, 0);
}

static void
be_addr(struct tfo_addr *a, uint32_t host_order)
{
	memset(a, 0, sizeof(*a));
	a->b[0] = (uint8_t)(host_order >> 24);
	a->b[1] = (uint8_t)(host_order >> 16);
	a->b[2] = (uint8_t)(host_order >> 8);
	a->b[3] = (uint8_t)host_order;
}

static uint32_t
be_client_ip(uint32_t id)
{
	return (10u << 24) | (id >> 10);
}

static uint16_t
be_client_port(uint32_t id)
{
	return (uint16_t)(20000 + (id & 1023));
}

static uint32_t
be_iss(uint32_t id)
{
	return id * 2654435761u;
}

/* A client frame: SYN with cookie and request, or ACK / FIN+ACK. */
static struct rte_mbuf *
be_frame(struct be *b, uint32_t id, uint8_t flags, uint32_t seq, uint32_t ack,
	 uint32_t tsecr)
{
	static const char req[] = "GET /\n";
	uint8_t opts[40];
	struct tfo_tcp_out t;
	struct tfo_route r;
	struct rte_mbuf *m = rte_pktmbuf_alloc(b->pool);
	unsigned int n = 0;

	if (m == NULL)
		return NULL;
	memset(&t, 0, sizeof(t));
	if (flags & TFO_TCP_SYN) {
		/* Linux: MSS, SACK-permitted, TS, NOP, WS, TFO cookie */
		const uint8_t syn_opts[] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10,
					     0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7,
					     34, 10 };

		memcpy(opts, syn_opts, sizeof(syn_opts));
		n = sizeof(syn_opts);
		memcpy(opts + n, be_cookie, TFO_COOKIE_LEN);
		n += TFO_COOKIE_LEN;
		opts[n++] = 1;
		opts[n++] = 1;
		memcpy(rte_pktmbuf_append(m, sizeof(req) - 1), req, sizeof(req) - 1);
		t.window = 64240;
	} else {
		n = tfo_tcpopt_write_ts(opts, 2, tsecr);
		t.window = 502;
	}
	t.sport = be_client_port(id);
	t.dport = 80;
	t.seq = seq;
	t.ack = ack;
	t.flags = flags;
	t.opt_len = (uint8_t)n;
	t.opts = opts;
	memset(&r, 0, sizeof(r));
	memcpy(r.peer_mac.addr_bytes, be_srv_mac, 6);
	r.family = AF_INET;
	be_addr(&r.local, be_client_ip(id));
	r.peer = b->srv.addrs[0].addr;
	if (tfo_pkt_prepend_tcp(m, &b->cli, &r, &t) != 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

/* Build and parse a burst of @p n frames of one kind (not timed). */
static int
be_build(struct be *b, unsigned int n, int step, const uint32_t *srv_isn)
{
	for (unsigned int i = 0; i < n; i++) {
		uint32_t id = b->id[i], iss = be_iss(id);

		if (step == 0)
			b->m[i] = be_frame(b, id, TFO_TCP_SYN, iss, 0, 0);
		else
			b->m[i] = be_frame(b, id, TFO_TCP_ACK |
					   (step == 2 ? TFO_TCP_FIN : 0),
					   iss + 1 + 6, srv_isn[i] + 1 + BE_RESP_LEN + 1, 1);
		if (b->m[i] == NULL)
			return -ENOMEM;
		if (tfo_pkt_classify(b->m[i], &b->srv, &b->pk[i]) != TFO_PKT_TCP)
			return -EINVAL;
		b->pp[i] = &b->pk[i];
		if (step == 0)
			tfo_tcpopt_parse(tfo_pkt_tcp_hdr(b->m[i], &b->pk[i]) + 20,
					 b->pk[i].l4_len - 20u, &b->o[i]);
	}
	return 0;
}

/*
 * One burst of @p n transactions with fresh ids; @p with_fin: the client
 * closes (else the connection stays in FIN_WAIT_2). Adds TSC cycles per
 * phase to @p cyc (open, ack, fin, timers).
 */
static int
be_burst(struct be *b, unsigned int n, bool with_fin, uint64_t cyc[4])
{
	uint32_t srv_isn[BE_BURST];
	struct tfo_open_params op;
	uint64_t t0, t1;

	for (unsigned int i = 0; i < n; i++)
		b->id[i] = b->next_id++;
	if (be_build(b, n, 0, NULL) != 0)
		return -ENOMEM;
	b->nout = 0;
	t0 = rte_rdtsc();
	/* the worker looks every TCP segment of a burst up, SYNs too */
	tfo_engine_lookup_bulk(b->e, b->pp, n, b->c);
	for (unsigned int i = 0; i < n; i++) {
		memset(&op, 0, sizeof(op));
		op.opts = &b->o[i];
		op.accept_data = true;
		if (tfo_engine_open(b->e, b->m[i], &b->pk[i], 0, &op, b->now) != 0) {
			rte_pktmbuf_free(b->m[i]);
			b->errors++;
		}
	}
	be_flush_all(b);
	t1 = rte_rdtsc();
	cyc[0] += t1 - t0;
	if (b->nout != n) {
		b->errors++;
		return -EIO;
	}
	for (unsigned int i = 0; i < n; i++) {
		srv_isn[i] = b->out[i].seq;
		if (b->out[i].end != srv_isn[i] + 1 + BE_RESP_LEN + 1)
			b->errors++;
	}

	for (int step = 1; step <= (with_fin ? 2 : 1); step++) {
		if (be_build(b, n, step, srv_isn) != 0)
			return -ENOMEM;
		b->nout = 0;
		t0 = rte_rdtsc();
		tfo_engine_lookup_bulk(b->e, b->pp, n, b->c);
		for (unsigned int i = 0; i < n; i++) {
			if (b->c[i] == NULL ||
			    tfo_engine_input(b->e, b->c[i], b->m[i], &b->pk[i],
					     b->now) != TFO_INPUT_DONE) {
				rte_pktmbuf_free(b->m[i]);
				b->errors++;
			}
		}
		be_flush_all(b);
		t1 = rte_rdtsc();
		cyc[step] += t1 - t0;
		if (b->nout != (step == 2 ? n : 0))
			b->errors++;
	}
	b->now += 50;
	t0 = rte_rdtsc();
	tfo_engine_timers(b->e, b->now);
	be_flush_all(b);
	cyc[3] += rte_rdtsc() - t0;
	return 0;
}

static int
be_setup(struct be *b, uint32_t live, bool offload, uint32_t time_wait_ms)
{
	struct tfo_engine_params p;
	char name[32];

	memset(b, 0, sizeof(*b));
	snprintf(name, sizeof(name), "be_pool");
	b->pool = rte_mempool_lookup(name);
	if (b->pool == NULL)
		b->pool = rte_pktmbuf_pool_create(name, 8191, 256, 0,
						  RTE_MBUF_DEFAULT_BUF_SIZE,
						  (int)rte_socket_id());
	if (b->pool == NULL)
		return -ENOMEM;
	b->srv.mtu = 1500;
	memcpy(b->srv.mac.addr_bytes, be_srv_mac, 6);
	b->srv.nb_addrs = 1;
	b->srv.addrs[0].family = AF_INET;
	be_addr(&b->srv.addrs[0].addr, (198u << 24) | (18u << 16) | 1);
	b->srv.tx_ip_cksum_offload = offload;
	b->srv.tx_tcp_cksum_offload = offload;
	b->srv.tx_multiseg = true;
	b->srv.rx_cksum_offload = false;
	b->cli = b->srv;
	memcpy(b->cli.mac.addr_bytes, be_cli_mac, 6);
	b->cli.tx_ip_cksum_offload = false;
	b->cli.tx_tcp_cksum_offload = false;
	b->cli.nb_addrs = 0;
	b->tx.flush = be_flush;
	b->tx.arg = b;
	b->svc.svc = &be_service;
	b->svc.port = 80;
	b->now = 1000000;

	memset(&p, 0, sizeof(p));
	p.name = "bench_engine";
	p.socket_id = (int)rte_socket_id();
	p.max_conns = live + 4096;
	p.max_request = 4096;
	p.mss = 1460;
	p.wscale = 7;
	p.rcv_wnd = 65535;
	p.rto_init_ms = 1000;
	p.rto_min_ms = 200;
	p.rto_max_ms = 60000;
	p.max_retries = 8;
	p.synack_retries = 5;
	p.idle_timeout_ms = 3600 * 1000;
	p.time_wait_ms = time_wait_ms;
	p.tfo_pending_limit = live + 4096;
	p.tfo_pending_hold_ms = 60000;
	p.pool = b->pool;
	p.ports = &b->srv;
	p.nb_ports = 1;
	p.services = &b->svc;
	p.nb_services = 1;
	p.stats = &b->stats;
	p.tx = &b->tx;
	b->e = tfo_engine_create(&p);
	return b->e == NULL ? -ENOMEM : 0;
}

static int
bench_engine(int argc, char **argv)
{
	uint32_t lives[8] = { 1000, 65536, 1000000 }, nlives = 3;
	unsigned int reps = 7, trans = 32768;
	uint32_t time_wait_ms = 0;
	bool no_offload = false, offload;
	const struct tfo_bench_opt opts[] = {
		{ "reps", TFO_BENCH_OPT_U32, &reps, NULL, 0, 0 },
		{ "trans", TFO_BENCH_OPT_U32, &trans, NULL, 0, 0 },
		{ "live", TFO_BENCH_OPT_LIST, lives, &nlives, RTE_DIM(lives), 0 },
		{ "no-offload", TFO_BENCH_OPT_FLAG, &no_offload, NULL, 0, 0 },
		{ "time-wait", TFO_BENCH_OPT_U32, &time_wait_ms, NULL, 0, 0 },
	};

	if (tfo_bench_getopt(argc, argv, opts, RTE_DIM(opts), NULL) < 0)
		return -EINVAL;
	offload = !no_offload;
	if (reps == 0 || reps > 99 || trans < BE_BURST)
		return -EINVAL;
	for (unsigned int i = 0; i < BE_RESP_LEN; i++)
		be_resp[i] = (uint8_t)('a' + i % 26);

	printf("# TFO transaction (SYN+data -> SYN-ACK+%u B+FIN; ACK; FIN -> ACK), "
	       "bursts of %u, checksums %s, TIME-WAIT %u ms; median of %u x %u\n",
	       BE_RESP_LEN, BE_BURST, offload ? "offloaded" : "in software",
	       time_wait_ms, reps, trans);
	printf("# TSC cycles per transaction: open = SYN in, SYN-ACK with response out;"
	       " ack = handshake ACK in; fin = FIN in, ACK out, entry freed\n");
	printf("%10s %8s %8s %8s %8s %9s %9s %11s %7s %9s %9s\n", "live", "open", "ack",
	       "fin", "timers", "total", "Mtrans/s", "B/conn", "B/TW", "bufs MiB",
	       "all MiB");

	for (unsigned int li = 0; li < nlives; li++) {
		double med[5], *v[5];
		struct be *b = rte_zmalloc("bench_engine", sizeof(*b), 64);
		uint64_t cyc[4];
		size_t mt, mb, mo;
		uint32_t ntw;
		double idx;
		char twb[16];

		if (b == NULL || be_setup(b, lives[li], offload, time_wait_ms) != 0) {
			fprintf(stderr, "engine: setup failed for %u live connections\n",
				lives[li]);
			rte_free(b);
			return -ENOMEM;
		}
		/* the live population: TFO opens left in FIN_WAIT_2 */
		for (uint32_t k = 0; k < lives[li]; k += BE_BURST) {
			uint64_t dummy[4] = { 0 };

			if (be_burst(b, RTE_MIN(lives[li] - k, (uint32_t)BE_BURST),
				     false, dummy) != 0)
				break;
		}
		for (unsigned int s = 0; s < 5; s++)
			v[s] = calloc(reps, sizeof(double));
		for (unsigned int r = 0; r < reps; r++) {
			memset(cyc, 0, sizeof(cyc));
			for (unsigned int k = 0; k < trans; k += BE_BURST)
				be_burst(b, BE_BURST, true, cyc);
			for (unsigned int s = 0; s < 4; s++)
				v[s][r] = (double)cyc[s] / trans;
			v[4][r] = (double)(cyc[0] + cyc[1] + cyc[2] + cyc[3]) / trans;
		}
		for (unsigned int s = 0; s < 5; s++)
			med[s] = tfo_bench_median(v[s], reps);
		tfo_engine_memory_detail(b->e, &mt, &mb, &mo);
		/* the index is shared by entries and records: its share per
		 * slot goes to each */
		ntw = tfo_engine_time_wait_max(b->e);
		idx = (double)(mt - (size_t)(lives[li] + 4096) *
			       (sizeof(struct tfo_conn) + sizeof(uint32_t)) -
			       (size_t)ntw * sizeof(struct tfo_tw)) /
		      (lives[li] + 4096 + ntw);
		snprintf(twb, sizeof(twb), ntw ? "%.1f" : "-",
			 sizeof(struct tfo_tw) + idx);
		printf("%10u %8.0f %8.0f %8.0f %8.0f %9.0f %9.2f %11.1f %7s %9.1f %9.1f%s\n",
		       lives[li], med[0], med[1], med[2], med[3], med[4],
		       (double)tfo_bench_tsc_hz() / med[4] / 1e6,
		       sizeof(struct tfo_conn) + sizeof(uint32_t) + idx, twb,
		       (double)mb / (1 << 20), (double)(mt + mb + mo) / (1 << 20),
		       b->errors ? "  (ERRORS)" : "");
		if (b->errors)
			fprintf(stderr, "engine: %u transactions went wrong\n", b->errors);
		fflush(stdout);
		for (unsigned int s = 0; s < 5; s++)
			free(v[s]);
		tfo_engine_free(b->e);
		rte_free(b);
	}
	printf("# B/conn: memory per live connection (128 B entry, free list, "
	       "its share of the index); B/TW: per TIME-WAIT record (64 B record, "
	       "its share of the index); bufs: the request/response buffer pool (fixed, "
	       "derived from max_conns, used only while a request or response is "
	       "pending); all: everything the engine allocated\n");
	return 0;
}

TFO_BENCH(bench_engine_reg, "engine",
	  "cycles per TFO transaction through the TCP engine, 1k/64k/1M live conns",
	  bench_engine);
