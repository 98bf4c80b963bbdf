/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench: the TFO clients of a worker in memory and the timed runs (see
 * bench_txn.h); the device-free server they talk to is bench_txn_srv.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_tcp.h>
#ifdef RTE_ARCH_X86
#include <immintrin.h>
#endif

#include "cookie/cookie.h"
#include "lcore/worker.h"
#include "net/tcpopt.h"
#include "net/tx.h"

#include "bench.h"
#include "bench_txn.h"
#include "bench_txn_priv.h"

#define BT_PORT0 20000		/* client ports: BT_PORT0 + (id & 1023) */

static inline bool
bt_slow(const struct bt *b)
{
	return b->kind != BT_KIND_TFO;
}

static void
bt_fail(struct bt *b, const char *what)
{
	if (b->errors++ == 0)
		snprintf(b->why, sizeof(b->why), "%s", what);
}

/*
 * The device: take the frames as a TX queue would (counted in @p st the way
 * the lcore's own flush counts them) and keep them until the step is over.
 */
static void
bt_stash(struct bt *b, struct tfo_tx_q *q, struct tfo_stats *st)
{
	for (uint16_t i = 0; i < q->n; i++)
		st->c[TFO_STAT_tx_bytes] += q->pkts[i]->pkt_len;
	st->c[TFO_STAT_tx_pkts] += q->n;
	if (likely(b->nstash + q->n <= BT_STASH)) {
		memcpy(&b->stash[b->nstash], q->pkts, q->n * sizeof(q->pkts[0]));
		b->nstash += q->n;
	} else {
		bt_fail(b, "more segments in one step than the stash holds");
		rte_pktmbuf_free_bulk(q->pkts, q->n);
	}
	q->n = 0;
}

/* The worker's TX queue. */
void
bt_flush(struct tfo_tx *tx, uint8_t port_idx)
{
	struct bt *b = tx->arg;

	bt_stash(b, &tx->q[port_idx], &b->w->stats);
}

/* A control lcore's TX queue (its own, as on a device that has one). */
void
bt_ctrl_flush(struct tfo_tx *tx, uint8_t port_idx)
{
	struct bt *b = tx->arg;
	unsigned int i = 0;

	while (i + 1 < b->nc && &b->c[i]->tx != tx)
		i++;
	bt_stash(b, &tx->q[port_idx], &b->c[i]->stats);
}

/* A counter summed over the control lcores. */
static uint64_t
bt_ctl_sum(const struct bt *b, int id)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < b->nc; i++)
		v += b->c[i]->stats.c[id];
	return v;
}

void
bt_addr(struct tfo_addr *a, uint32_t host_order)
{
	rte_be32_t be = rte_cpu_to_be_32(host_order);

	memset(a, 0, sizeof(*a));
	memcpy(a->b, &be, sizeof(be));
}

/* 1024 ports per address: 10.0.0.0/8 holds 16M transactions. */
static uint32_t
bt_client_ip(uint32_t id)
{
	return (10u << 24) | ((id >> 10) & 0xffffff);
}

static uint16_t
bt_client_port(uint32_t id)
{
	return (uint16_t)(BT_PORT0 + (id & 1023));
}

/* What the clients learn from the segments of one step; then free them. */
uint64_t
bt_take_output(struct bt *b)
{
	uint64_t t0;

	for (unsigned int k = 0; k < b->nstash; k++) {
		const struct rte_mbuf *m = b->stash[k];
		const struct rte_ipv4_hdr *ih =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, 14);
		const struct rte_tcp_hdr *th =
			rte_pktmbuf_mtod_offset(m, const struct rte_tcp_hdr *, 34);
		uint32_t doff = (uint32_t)(th->data_off >> 4) * 4;
		uint32_t plen = rte_be_to_cpu_16(ih->total_length) - 20u - doff;
		uint32_t seq = rte_be_to_cpu_32(th->sent_seq), end;
		uint32_t i = (rte_be_to_cpu_16(th->dst_port) - BT_PORT0 - b->base) & 1023;
		struct bt_flow *f;

		if (m->pkt_len < 54 || i >= b->n ||
		    rte_be_to_cpu_32(ih->dst_addr) != bt_client_ip(b->base + i)) {
			bt_fail(b, "a segment for no client of the burst");
			continue;
		}
		f = &b->f[i];
		end = seq + plen + !!(th->tcp_flags & RTE_TCP_SYN_FLAG) +
		      !!(th->tcp_flags & RTE_TCP_FIN_FLAG);
		if (th->tcp_flags & RTE_TCP_SYN_FLAG) {
			struct tfo_tcpopts o;

			f->synack = true;
			f->srv_isn = seq;
			f->srv_end = end;
			f->synack_ack = rte_be_to_cpu_32(th->recv_ack);
			if (tfo_tcpopt_parse((const uint8_t *)(th + 1), doff - 20, &o) == 0) {
				if (o.has_ts)
					f->srv_tsval = o.tsval;
				f->cookie = o.cookie_state == TFO_COOKIE_PRESENT;
			}
		} else if ((int32_t)(end - f->srv_end) > 0) {
			f->srv_end = end;
		}
		f->resp_bytes += plen;
		f->segs++;
		f->flags |= th->tcp_flags;
	}
	/* a PMD frees what it sent on TX completion: timed */
	t0 = rte_rdtsc();
	rte_pktmbuf_free_bulk(b->stash, b->nstash);
	b->nstash = 0;
	return rte_rdtsc() - t0;
}

static const uint8_t *
bt_cookie(struct bt *b, uint32_t ip)
{
	struct tfo_addr c, s;

	if (ip != b->ck_ip) {
		bt_addr(&c, ip);
		bt_addr(&s, BT_SRV_IP);
		if (tfo_cookie_compute(TFO_COOKIE_ALGO_AES128, &bt_key, AF_INET, &c, &s,
				       b->ck) != 0)
			bt_fail(b, "tfo_cookie_compute failed");
		b->ck_ip = ip;
	}
	return b->ck;
}

/* TFO: SYN, ACK, FIN (or SYN, ACK+FIN); the slow path: SYN, DATA, ACKFIN. */
enum bt_step { BT_SYN, BT_ACK, BT_FIN, BT_DATA, BT_ACKFIN };

/* Linux's SYN options but the TFO one: MSS, SACK-permitted, TS, NOP, WS 7. */
static const uint8_t bt_syn_opts[] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0,
				       1, 3, 3, 7 };

/* The SYN's TFO option (and NOP padding) for the burst's kind at @p opts;
 * @return its length, with @p data set when the request rides in the SYN. */
static unsigned int
bt_syn_tfo(struct bt *b, uint32_t id, uint8_t *opts, bool *data)
{
	const uint8_t *ck;
	unsigned int n = 0;

	*data = false;
	switch (b->kind) {
	case BT_KIND_TFO:
	case BT_KIND_BAD_COOKIE:
		ck = bt_cookie(b, bt_client_ip(id));
		opts[n++] = TFO_OPT_FASTOPEN;
		opts[n++] = 2 + TFO_COOKIE_LEN;
		for (unsigned int k = 0; k < TFO_COOKIE_LEN; k++)
			opts[n++] = b->kind == BT_KIND_TFO ? ck[k] : (uint8_t)~ck[k];
		*data = true;
		break;
	case BT_KIND_COOKIE_REQ:
		opts[n++] = TFO_OPT_FASTOPEN;
		opts[n++] = 2;
		break;
	default:
		return 0;
	}
	opts[n++] = TFO_OPT_NOP;
	opts[n++] = TFO_OPT_NOP;
	return n;
}

/* A client segment of flow @p i for @p step, as Linux sends it. */
static struct rte_mbuf *
bt_frame(struct bt *b, unsigned int i, enum bt_step step)
{
	const struct bt_flow *f = &b->f[i];
	uint32_t id = b->base + i;
	uint8_t opts[40];
	struct tfo_tcp_out t;
	struct tfo_route r;
	struct rte_mbuf *m = rte_pktmbuf_alloc(b->pool);
	unsigned int n;

	if (m == NULL)
		return NULL;
	memset(&t, 0, sizeof(t));
	if (step == BT_SYN) {
		bool data;

		memcpy(opts, bt_syn_opts, sizeof(bt_syn_opts));
		n = sizeof(bt_syn_opts);
		n += bt_syn_tfo(b, id, opts + n, &data);
		if (data)
			memcpy(rte_pktmbuf_append(m, (uint16_t)b->p.req_len), b->p.req,
			       b->p.req_len);
		t.seq = f->iss;
		t.window = 64240;
		t.flags = TFO_TCP_SYN;
	} else if (step == BT_DATA) {
		/* the handshake's ACK with the request, as tfo-loadgen sends it */
		n = tfo_tcpopt_write_ts(opts, 2, f->srv_tsval);
		memcpy(rte_pktmbuf_append(m, (uint16_t)b->p.req_len), b->p.req,
		       b->p.req_len);
		t.seq = f->iss + 1;
		t.ack = f->srv_isn + 1;
		t.window = 502;
		t.flags = TFO_TCP_ACK | TFO_TCP_PSH;
	} else {
		n = tfo_tcpopt_write_ts(opts, step == BT_ACK ? 2 : 3, f->srv_tsval);
		t.seq = f->iss + 1 + b->p.req_len;
		t.ack = f->srv_end;
		t.window = 502;	/* x 128 */
		t.flags = TFO_TCP_ACK;
		if (step == BT_FIN || step == BT_ACKFIN || b->ackfin)
			t.flags |= TFO_TCP_FIN;
	}
	t.sport = bt_client_port(id);
	t.dport = b->svc_port;
	t.opt_len = (uint8_t)n;
	t.opts = opts;
	memset(&r, 0, sizeof(r));
	r.peer_mac = b->srv.mac;
	r.family = AF_INET;
	bt_addr(&r.local, bt_client_ip(id));
	r.peer = b->srv.addrs[0].addr;
	if (tfo_pkt_prepend_tcp(m, &b->cli, &r, &t) != 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	/* as a PMD hands it over: RX flags only */
	m->ol_flags = b->p.offload ?
		      RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD : 0;
	m->port = 0;
#ifdef RTE_ARCH_X86
	if (b->p.cold) {	/* as if DMA had just written it to memory */
		const char *d = rte_pktmbuf_mtod(m, const char *);

		for (uint32_t off = 0; off < m->data_len; off += RTE_CACHE_LINE_SIZE)
			_mm_clflush(d + off);
	}
#endif
	return m;
}

/* One step of the burst: build, then the timed poll; @return its ticks. */
static uint64_t
bt_step(struct bt *b, enum bt_step step)
{
	uint64_t t0, t, now;

	for (unsigned int i = 0; i < b->n; i++) {
		b->m[i] = bt_frame(b, i, step);
		if (b->m[i] == NULL) {
			bt_fail(b, "cannot build a client frame (mbufs)");
			for (unsigned int k = 0; k < i; k++)
				rte_pktmbuf_free(b->m[k]);
			return 0;
		}
	}
#ifdef RTE_ARCH_X86
	if (b->p.cold)
		_mm_mfence();
#endif
	t0 = rte_rdtsc();
	now = t0 / b->tsc_per_us;
	b->w->lat.t_rx = t0;	/* as tfo_worker_main: the latency samples */
	tfo_worker_burst(b->w, 0, b->m, b->n, now);
	tfo_worker_housekeeping(b->w, now);
	t = rte_rdtsc();
	if (b->w->lat.npend != 0)
		tfo_lat_flush(&b->w->lat, t);
	t = rte_rdtsc() - t0;
	b->last_wrk = t;
	b->last_ctl = 0;
	if (bt_slow(b)) {
		/* each control lcore's round: its ring, engine, replies; timed
		 * apart (on a server each runs on its own core at once) */
		for (unsigned int i = 0; i < b->nc; i++) {
			t0 = rte_rdtsc();
			b->c[i]->lat.t_rx = t0;
			tfo_control_poll(b->c[i], now);
			if (b->c[i]->lat.npend != 0)
				tfo_lat_flush(&b->c[i]->lat, rte_rdtsc());
			b->last_ctl_at[i] = rte_rdtsc() - t0;
			b->last_ctl += b->last_ctl_at[i];
		}
		t += b->last_ctl;
	}
	return t + bt_take_output(b);
}

/* The same for the slow path's steps. */
static void
bt_expect_slow(struct bt *b, enum bt_step step)
{
	for (unsigned int i = 0; i < b->n; i++) {
		struct bt_flow *f = &b->f[i];

		if (f->flags & TFO_TCP_RST) {
			bt_fail(b, "slow path: a client was reset");
		} else if (step == BT_SYN) {
			if (!f->synack || f->resp_bytes != 0 || f->segs != 1 ||
			    f->synack_ack != f->iss + 1)
				bt_fail(b, "slow path: SYN not answered by one SYN-ACK of the SYN");
			else if (b->kind == BT_KIND_COOKIE_REQ && !f->cookie)
				bt_fail(b, "cookie request: no cookie in the SYN-ACK");
		} else if (step == BT_DATA) {
			if (b->slow_bytes == 0) {
				b->slow_bytes = f->resp_bytes;
				b->slow_segs = f->segs;
			}
			if (f->resp_bytes == 0 || f->resp_bytes != b->slow_bytes ||
			    f->segs != b->slow_segs || !(f->flags & TFO_TCP_FIN))
				bt_fail(b, "slow path: the request not answered with the response "
					"and FIN");
		} else if (f->segs != b->slow_segs + 1) {
			bt_fail(b, "slow path: ACK+FIN not answered by one ACK");
		}
	}
}

/* What every client of the burst must have seen after @p step. */
static void
bt_expect(struct bt *b, enum bt_step step)
{
	if (bt_slow(b)) {
		bt_expect_slow(b, step);
		return;
	}
	for (unsigned int i = 0; i < b->n; i++) {
		struct bt_flow *f = &b->f[i];

		if (step == BT_SYN) {
			if (b->resp_bytes == 0) {
				b->resp_bytes = f->resp_bytes;
				b->resp_segs = f->segs;
			}
			if (!f->synack || f->resp_bytes != b->resp_bytes || f->resp_bytes == 0 ||
			    f->segs != b->resp_segs || !(f->flags & TFO_TCP_FIN) ||
			    (f->flags & TFO_TCP_RST))
				bt_fail(b, "SYN: no SYN-ACK with the whole response and FIN");
		} else if (step == BT_ACK && !b->ackfin) {
			if (f->segs != b->resp_segs)
				bt_fail(b, "ACK: the server answered an ACK of everything");
		} else if (f->segs != b->resp_segs + 1 || (f->flags & TFO_TCP_RST)) {
			bt_fail(b, "FIN: not answered by one ACK");
		}
	}
}


/* One timed step of the burst, its worker and control parts noted. */
static uint64_t
bt_step_expect(struct bt *b, enum bt_step step, struct bt_burst_cyc *c)
{
	uint64_t t = bt_step(b, step);

	c->wrk += b->last_wrk;
	c->ctl += b->last_ctl;
	if (b->last_ctl != 0)
		for (unsigned int i = 0; i < b->nc; i++)
			c->ctl_at[i] += b->last_ctl_at[i];
	bt_expect(b, step);
	return t;
}

/* A burst of @p n fresh transactions; without @p close the connections
 * stay open (FIN_WAIT_2). */
void
bt_burst(struct bt *b, unsigned int n, bool close, struct bt_burst_cyc *c)
{
	uint64_t out0 = b->w->stats.c[TFO_STAT_tx_pkts] + bt_ctl_sum(b, TFO_STAT_tx_pkts);
	uint64_t ctl0 = b->w->stats.c[b->id_to_control];
	uint64_t wsc0 = b->w->stats.c[b->id_syncookies];
	uint64_t sc0 = bt_ctl_sum(b, b->id_syncookies) + wsc0;

	b->kind = close ? b->p.kind : BT_KIND_TFO;	/* the live ones are TFO */
	b->base = b->next_id;
	b->next_id += n;
	b->n = n;
	b->ackfin = close && b->p.ackfin;	/* the live ones stay open */
	memset(b->f, 0, n * sizeof(b->f[0]));
	for (unsigned int i = 0; i < n; i++)
		b->f[i].iss = (b->base + i) * 2654435761u;

	memset(c, 0, sizeof(*c));
	c->syn = bt_step_expect(b, BT_SYN, c);
	c->pkts_in = n;
	if (b->kind == BT_KIND_FLOOD) {
		/* nothing follows a spoofed SYN */
	} else if (bt_slow(b)) {
		c->ack = bt_step_expect(b, BT_DATA, c);
		c->fin = bt_step_expect(b, BT_ACKFIN, c);
		c->pkts_in += 2 * n;
	} else {
		c->ack = bt_step_expect(b, BT_ACK, c);
		c->pkts_in += n;
		if (close && !b->p.ackfin) {
			c->fin = bt_step_expect(b, BT_FIN, c);
			c->pkts_in += n;
		}
		b->opened_tfo += n;
	}
	c->pkts_out = (uint32_t)(b->w->stats.c[TFO_STAT_tx_pkts] +
				 bt_ctl_sum(b, TFO_STAT_tx_pkts) - out0);
	c->to_ctl = (uint32_t)(b->w->stats.c[b->id_to_control] - ctl0);
	c->wrk_syncookies = (uint32_t)(b->w->stats.c[b->id_syncookies] - wsc0);
	c->syncookies = (uint32_t)(bt_ctl_sum(b, b->id_syncookies) +
				   b->w->stats.c[b->id_syncookies] - sc0);
	c->trans = n;
	b->opened += n;
}

static int
bt_cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, c = *(const uint64_t *)y;

	return (a > c) - (a < c);
}

int
bt_run(struct bt *b, unsigned int n, struct bt_cycles *cyc)
{
	unsigned int nb = (n + b->p.burst - 1) / b->p.burst, k = 0;
	struct bt_burst_cyc *c = calloc(nb, sizeof(*c));
	uint64_t *tot = calloc(nb, sizeof(*tot)), med;

	if (c == NULL || tot == NULL) {
		free(c);
		free(tot);
		return -ENOMEM;
	}
	for (unsigned int done = 0; done < n && b->errors == 0; done += b->p.burst, k++) {
		bt_burst(b, RTE_MIN(b->p.burst, n - done), true, &c[k]);
		tot[k] = c[k].syn + c[k].ack + c[k].fin;
	}
	nb = k;
	qsort(tot, nb, sizeof(*tot), bt_cmp_u64);
	med = nb > 0 ? tot[nb / 2] : 0;
	for (k = 0; k < nb; k++) {
		cyc->bursts++;
		if (c[k].syn + c[k].ack + c[k].fin > BT_INTERRUPTED * med) {
			cyc->bursts_left_out++;
			continue;
		}
		cyc->syn += c[k].syn;
		cyc->ack += c[k].ack;
		cyc->fin += c[k].fin;
		cyc->wrk += c[k].wrk;
		cyc->ctl += c[k].ctl;
		for (unsigned int i = 0; i < BT_MAX_CONTROLS; i++)
			cyc->ctl_at[i] += c[k].ctl_at[i];
		cyc->wrk_syncookies += c[k].wrk_syncookies;
		cyc->to_ctl += c[k].to_ctl;
		cyc->syncookies += c[k].syncookies;
		cyc->trans += c[k].trans;
		cyc->pkts_in += c[k].pkts_in;
		cyc->pkts_out += c[k].pkts_out;
	}
	free(c);
	free(tot);
	return b->errors ? -EIO : 0;
}

int
bt_measure(const struct bt_params *p, unsigned int reps, unsigned int trans,
	   struct bt_result *res)
{
	double v[7 + BT_MAX_CONTROLS][BT_MAX_REPS];
	struct bt_cycles c;
	struct bt *b;
	uint64_t zc0, ntrans = 0;
	int rc;

	if (reps == 0 || reps > BT_MAX_REPS || trans == 0)
		return -EINVAL;
	b = bt_create(p);
	if (b == NULL)
		return -ENOMEM;
	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	rc = bt_run(b, trans, &c);	/* warm-up */
	zc0 = bt_counter(b, "zero_copy_segs");
	for (unsigned int r = 0; r < reps && rc == 0; r++) {
		memset(&c, 0, sizeof(c));
		rc = bt_run(b, trans, &c);
		if (c.trans == 0)
			rc = -EIO;
		if (rc != 0)
			break;
		v[0][r] = (double)c.syn / c.trans;
		v[1][r] = (double)c.ack / c.trans;
		v[2][r] = (double)c.fin / c.trans;
		v[3][r] = (double)(c.syn + c.ack + c.fin) / c.trans;
		v[4][r] = (double)c.wrk / c.trans;
		v[5][r] = (double)c.ctl / c.trans;
		v[6][r] = 0;
		for (unsigned int i = 0; i < b->nc; i++) {
			v[7 + i][r] = (double)c.ctl_at[i] / c.trans;
			v[6][r] = RTE_MAX(v[6][r], v[7 + i][r]);
		}
		res->wrk_syncookies = (double)c.wrk_syncookies / c.trans;
		res->pkts = (double)(c.pkts_in + c.pkts_out) / c.trans;
		res->to_ctl = (double)c.to_ctl / c.trans;
		res->syncookies = (double)c.syncookies / c.trans;
		res->bursts += c.bursts;
		res->left_out += c.bursts_left_out;
		ntrans += trans;
	}
	if (rc == 0)
		rc = bt_check_final(b);
	if (rc == 0) {
		res->syn = tfo_bench_median(v[0], reps);
		res->ack = tfo_bench_median(v[1], reps);
		res->fin = tfo_bench_median(v[2], reps);
		res->total = tfo_bench_median(v[3], reps);
		res->wrk = tfo_bench_median(v[4], reps);
		res->ctl = tfo_bench_median(v[5], reps);
		res->ctl_max = tfo_bench_median(v[6], reps);
		res->nb_controls = b->nc;
		for (unsigned int i = 0; i < b->nc; i++)
			res->ctl_at[i] = tfo_bench_median(v[7 + i], reps);
		res->lo = v[3][0];
		res->hi = v[3][reps - 1];
		res->resp = b->resp_bytes;
		res->segs = b->resp_segs;
		res->zero_copy = (double)(bt_counter(b, "zero_copy_segs") - zc0) / (double)ntrans;
	}
	bt_free(b);
	return rc;
}
