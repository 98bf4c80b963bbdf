/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the worker poll loop (fast path).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>

#include "lcore/exception.h"
#include "lcore/qs.h"
#include "lcore/worker.h"
#include "net/neigh.h"
#include "tfo/log.h"

int tfo_ctrl_reason_offset = -1;

int
tfo_ctrl_reason_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "tfo_ctrl_reason",
		.size = sizeof(uint8_t),
		.align = __alignof__(uint8_t),
	};
	int off = rte_mbuf_dynfield_register(&desc);

	if (off < 0) {
		TFO_LOG(ERR, "cannot register the mbuf field for control reasons: %s",
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	tfo_ctrl_reason_offset = off;
	return tfo_syn_summary_register();
}

static void
tfo_worker_tx_flush(struct tfo_tx *tx, uint8_t port_idx)
{
	struct tfo_worker *w = tx->arg;

	tfo_tx_q_send(&tx->q[port_idx], w->ports[port_idx].port_id, w->queue,
		      &w->stats);
}

/* The relay's way out on a device (tfo_worker.relay_send). */
static uint16_t
tfo_worker_relay_tx_burst(struct tfo_worker *w, uint8_t pi, struct rte_mbuf **pkts,
			  uint16_t n)
{
	return tfo_tx_burst(w->ports[pi].port_id, w->queue, pkts, n, &w->stats);
}

int
tfo_worker_init(struct tfo_worker *w, const struct tfo_worker_params *p)
{
	if (p->burst == 0 || p->burst > TFO_RX_BURST_MAX || p->nb_ports > TFO_MAX_PORTS ||
	    p->nb_controls > TFO_MAX_CONTROLS)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->queue = p->queue;
	w->lcore_id = p->lcore_id;
	w->ports = p->ports;
	w->nb_ports = p->nb_ports;
	w->nb_controls = RTE_MAX(p->nb_controls, 1u);
	memcpy(w->to_ctl, p->to_controls, sizeof(w->to_ctl[0]) * w->nb_controls);
	w->from_ctl = p->from_ctl;
	w->to_neigh = p->to_neigh;
	w->burst = p->burst;
	w->quit = p->quit;
	w->drain = p->drain;
	w->cookies = p->cookies;
	w->cookie_not_required = p->cookie_not_required;
	tfo_syn_defence_init(&w->syn_def, p->syncookies, w->to_ctl[0]);
	w->tsc_per_us = RTE_MAX(rte_get_tsc_hz() / 1000000, (uint64_t)1);
	tfo_lat_init(&w->lat, rte_get_tsc_hz());
	w->tx.flush = tfo_worker_tx_flush;
	w->tx.arg = w;
	w->tx.stats = &w->stats;
	w->relay_send = tfo_worker_relay_tx_burst;
	return tfo_idle_init(&w->idle, &p->idle);
}

int
tfo_worker_idle_watch(struct tfo_worker *w)
{
	int rc = tfo_idle_watch_ring(&w->idle, w->from_ctl);

	for (uint16_t pi = 0; pi < w->nb_ports && rc == 0; pi++)
		for (unsigned int j = 0; j < w->nb_relays && rc == 0; j++)
			rc = tfo_idle_watch_ring(&w->idle, w->relay[pi][j]);
	for (uint16_t pi = 0; pi < w->nb_ports && rc >= 0; pi++)
		rc = tfo_idle_watch_rxq(&w->idle, w->ports[pi].port_id, w->queue);
	return rc < 0 ? rc : 0;
}

void
tfo_worker_close(struct tfo_worker *w)
{
	tfo_idle_close(&w->idle);
}

void
tfo_worker_drain_begin(struct tfo_worker *w, uint64_t now_us)
{
	w->draining = true;
	if (w->engine != NULL)
		tfo_engine_drain(w->engine, now_us);	/* its FINs: at this poll's flush */
}

/* Hand @n frames to control lcore @ci by ring @r; a full ring is a
 * counted drop. */
static unsigned int
tfo_worker_ring_put_r(struct tfo_worker *w, struct rte_ring *r, unsigned int ci,
		      struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int done;

	if (n == 0)
		return 0;
	done = rte_ring_sp_enqueue_burst(r, (void **)pkts, n, NULL);
	w->stats.c[TFO_STAT_to_control] += done;
	if (done != 0)
		tfo_doorbell_ring(w->ctl_bell[ci], &w->stats);
	if (unlikely(done < n)) {
		w->stats.c[TFO_STAT_ring_drop_full] += n - done;
		rte_pktmbuf_free_bulk(&pkts[done], n - done);
	}
	return done;
}

static void
tfo_worker_ring_put(struct tfo_worker *w, unsigned int ci, struct rte_mbuf **pkts,
		    unsigned int n)
{
	tfo_worker_ring_put_r(w, w->to_ctl[ci], ci, pkts, n);
}

/*
 * The burst's frames for the control lcores: with one, a single enqueue;
 * with several, grouped by control lcore (@ctl[i]: that of @pkts[i]),
 * one enqueue per control lcore that has frames.
 */
static void
tfo_worker_to_control(struct tfo_worker *w, struct rte_mbuf **pkts, const uint8_t *ctl,
		      unsigned int n)
{
	struct rte_mbuf *grp[TFO_RX_BURST_MAX];
	uint16_t cnt[TFO_MAX_CONTROLS + 1] = { 0 };

	if (w->nb_controls <= 1 || n == 0) {
		tfo_worker_ring_put(w, 0, pkts, n);
		return;
	}
	for (unsigned int i = 0; i < n; i++)
		cnt[ctl[i] + 1]++;
	for (unsigned int ci = 1; ci <= w->nb_controls; ci++)
		cnt[ci] = (uint16_t)(cnt[ci] + cnt[ci - 1]);
	/* cnt[ci]: where control ci's group starts; advanced while filling */
	for (unsigned int i = 0; i < n; i++)
		grp[cnt[ctl[i]]++] = pkts[i];
	for (unsigned int ci = 0, start = 0; ci < w->nb_controls; ci++) {
		tfo_worker_ring_put(w, ci, &grp[start], cnt[ci] - start);
		start = cnt[ci];
	}
}

/*
 * A SYN on its way through the verdicts (tcp/syn_admit.h): the facts
 * learnt so far, and what its open needs.
 */
struct tfo_syn_job {
	struct tfo_syn_facts f;
	uint8_t ci;		/* its control lcore once looked up; else UINT8_MAX */
	bool valid_opens;	/* its CHECK_COOKIE verdict's */
	uint16_t opens;		/* the burst's TFO opens when pend was read */
	const uint8_t *fresh;	/* a backup-key hit's fresh primary cookie */
	const uint64_t *hash;	/* its ISN/TSval hash (tfo_engine_conn_hash_burst) */
};

/* Per-burst scratch of the TCP fast path. */
struct tfo_burst {
	unsigned int n;			/* TCP segments */
	unsigned int nc;		/* frames for the control lcores */
	unsigned int nn;		/* ARP and ND for control 0's neighbour ring */
	struct rte_mbuf *neigh[TFO_RX_BURST_MAX];
	unsigned int ncook;		/* SYNs whose cookie is checked */
	unsigned int nb_controls;	/* the worker's */
	uint16_t opens;			/* TFO opens so far (pending TFO added) */
	struct tfo_syn_facts syn0;	/* the worker's facts, every SYN's start */
	/* the engine when the port has an exception path: TCP for a port no
	 * service listens on goes to control 0, which alone feeds the kernel */
	const struct tfo_engine *exc_engine;
	struct rte_mbuf *ctrl[TFO_RX_BURST_MAX];
	uint8_t ctl[TFO_RX_BURST_MAX];	/* the control lcore of each ctrl[] */
	struct rte_mbuf *m[TFO_RX_BURST_MAX];
	const struct tfo_pkt *p[TFO_RX_BURST_MAX];
	struct tfo_conn *conn[TFO_RX_BURST_MAX];
	struct tfo_tcpopts opts[TFO_RX_BURST_MAX];
	uint8_t cook_idx[TFO_RX_BURST_MAX];	/* TCP index of each cookie SYN */
	struct tfo_cookie_req req[TFO_RX_BURST_MAX];
	uint8_t verdict[TFO_RX_BURST_MAX];
	struct tfo_syn_job job[TFO_RX_BURST_MAX];	/* of each cookie SYN */
};

/* @p p: the TCP segment's parse, @p ci its control lcore (tfo_ctrl_pick;
 * UINT8_MAX: not looked up yet); NULL for ARP, ICMP and ICMPv6, which
 * control 0 handles. */
static inline void
tfo_to_ctrl_ci(struct tfo_burst *b, struct rte_mbuf *m, const struct tfo_pkt *p,
	       enum tfo_ctrl_reason r, unsigned int ci)
{
	tfo_ctrl_reason_set(m, r);
	b->ctl[b->nc] = (uint8_t)(p == NULL ? 0 : ci != UINT8_MAX ? ci :
				  tfo_ctrl_pick(p, b->nb_controls));
	if (unlikely(b->exc_engine != NULL) && p != NULL &&
	    !tfo_engine_serves(b->exc_engine, p->dport))
		b->ctl[b->nc] = 0;
	b->ctrl[b->nc++] = m;
}

static inline void
tfo_to_ctrl(struct tfo_burst *b, struct rte_mbuf *m, const struct tfo_pkt *p,
	    enum tfo_ctrl_reason r)
{
	tfo_to_ctrl_ci(b, m, p, r, UINT8_MAX);
}

/* A TFO open (verdict ACCEPT) of SYN @p j. @return tfo_engine_open's. */
static __rte_always_inline int
tfo_worker_tfo_open(struct tfo_worker *w, struct tfo_burst *b, unsigned int j,
		    const struct tfo_syn_job *s, uint8_t port_idx, uint64_t now_us)
{
	const struct tfo_tcpopts *o = &b->opts[j];
	/* The verdict admitted it on the state it read; the burst's TFO opens
	 * since then added at most one each, to the lcore and (at worst) to
	 * this source: when that bound is still admitted, so is the SYN, and
	 * the engine need not check again. Else it checks, as it always did. */
	struct tfo_syn_pending bound = s->f.pend;
	uint32_t since = (uint16_t)(b->opens - s->opens);
	struct tfo_open_params op = {
		.opts = o,
		.accept_data = true,
		.cookie_form = s->fresh != NULL ? o->form : TFO_FORM_NONE,
		.cookie_len = s->fresh != NULL ? TFO_COOKIE_LEN : 0,
		.cookie = s->fresh,
		.has_conn_hash = s->hash != NULL,
		.conn_hash = s->hash != NULL ? *s->hash : 0,
	};

	bound.pending += since;
	if (bound.src_cap != UINT32_MAX)
		bound.src_pending += since;
	op.admitted = tfo_syn_pending_admit(&bound) == 0;
	return tfo_engine_open(w->engine, b->m[j], b->p[j], port_idx, &op, now_us);
}

/* Verdict ACCEPT: SYN @p j's TFO open. @return true when it opened; else
 * the engine's refusal is in s->f.open (counted by the engine), for the
 * next verdict. */
static __rte_always_inline bool
tfo_worker_accept(struct tfo_worker *w, struct tfo_burst *b, unsigned int j,
		  struct tfo_syn_job *s, uint8_t port_idx, uint64_t now_us)
{
	int rc = tfo_worker_tfo_open(w, b, j, s, port_idx, now_us);

	if (rc == 0) {
		b->opens++;
		w->stats.c[TFO_STAT_rx_delivered]++;
		return true;
	}
	s->f.open = tfo_syn_open_of(rc);
	return false;
}

/*
 * Act on SYN @p j's verdicts (tcp/syn_admit.h) until one is final: the
 * facts a verdict asks for are looked up here, then it is opened, answered
 * with a SYN cookie or a RST, or handed to its control lcore with the
 * reason. @return false if it waits for the burst's cookie check.
 */
static __rte_always_inline bool
tfo_worker_syn_step(struct tfo_worker *w, struct tfo_burst *b, unsigned int j,
		    struct tfo_syn_job *s, uint8_t port_idx, uint64_t now_us)
{
	struct rte_mbuf *m = b->m[j];
	const struct tfo_pkt *p = b->p[j];

	for (;;) {
		struct tfo_syn_verdict v = tfo_syn_verdict(&s->f);

		if (v.stat != TFO_SYN_NO_STAT)
			w->stats.c[v.stat]++;
		switch (v.act) {
		case TFO_SYN_NEED_LISTENER:
			s->ci = (uint8_t)tfo_ctrl_pick(p, w->nb_controls);
			s->f.listener_known = true;
			s->f.served = tfo_engine_serves(w->engine, p->dport);
			s->f.syncookie_due = tfo_syn_defence_due(&w->syn_def, s->ci,
								 w->to_ctl[s->ci]);
			continue;
		case TFO_SYN_NEED_PENDING:
			tfo_engine_tfo_pending_get(w->engine, p, now_us, &s->f.pend);
			s->f.pending_known = true;
			s->opens = b->opens;
			continue;
		case TFO_SYN_CHECK_COOKIE:
			s->valid_opens = v.valid_opens;
			return false;
		case TFO_SYN_ACCEPT:
			if (tfo_worker_accept(w, b, j, s, port_idx, now_us))
				return true;
			continue;
		case TFO_SYN_SYNCOOKIE:
			tfo_syn_defence_reply(w, m, p, port_idx, &b->opts[j], v.offer_cookie,
					      now_us);
			return true;
		case TFO_SYN_REFUSE:
			w->stats.c[TFO_STAT_rx_delivered]++;
			tfo_engine_input_nomatch(w->engine, m, p, port_idx, now_us);
			return true;
		default:	/* TO_CONTROL: the slow path, what was parsed with it */
			if (v.path != TFO_SYN_PATH_NO_SERVICE)
				tfo_syn_summary_set_syn(m, p, &b->opts[j]);
			tfo_to_ctrl_ci(b, m, p, tfo_ctrl_reason_of_path(v.path), s->ci);
			return true;
		}
	}
}

/* A SYN that opens nothing yet: its options parsed, then its verdicts; a
 * TFO candidate waits for the burst's batched cookie check. */
static void
tfo_worker_syn(struct tfo_worker *w, struct tfo_burst *b, unsigned int j,
	       uint8_t port_idx, uint64_t now_us)
{
	const struct tfo_pkt *p = b->p[j];
	struct tfo_tcpopts *o = &b->opts[j];
	const uint8_t *th = tfo_pkt_tcp_hdr(b->m[j], p);
	struct tfo_syn_job *s = &b->job[b->ncook];
	/* malformed: a plain SYN, with what parsed */
	bool opts_ok = tfo_tcpopt_parse(th + TFO_TCP_HDR_LEN, p->l4_len - TFO_TCP_HDR_LEN,
					o) >= 0;

	s->f = b->syn0;
	s->f.opts_ok = opts_ok;
	s->f.tfo_opt = o->cookie_state;
	s->f.tfo_form = o->form != TFO_FORM_NONE;
	s->f.has_data = p->payload_len > 0;
	s->ci = UINT8_MAX;
	s->fresh = NULL;
	s->hash = NULL;
	/* with TFO on, read at once what a TFO SYN's verdict asks first: one
	 * question less on the fast path (callgrind) */
	if (s->f.tfo_on && s->f.opts_ok) {
		tfo_engine_tfo_pending_get(w->engine, p, now_us, &s->f.pend);
		s->f.pending_known = true;
		s->opens = b->opens;
	}
	if (tfo_worker_syn_step(w, b, j, s, port_idx, now_us))
		return;
	b->req[b->ncook] = (struct tfo_cookie_req){
		.family = p->family,
		.cookie_len = o->cookie_len,
		.client = &p->src,
		.server = &p->dst,
		.cookie = o->cookie,
	};
	b->cook_idx[b->ncook++] = (uint8_t)j;
}

/*
 * The cookies of the burst's TFO SYNs in one batched check; after a
 * backup-key hit the SYN-ACK carries a fresh primary cookie (as Linux), and
 * those are generated in one batch too. Then each SYN's verdict again
 * (tfo_syn_verdict_checked: a valid cookie is not asked about twice).
 */
static void
tfo_worker_cookie_batch(struct tfo_worker *w, struct tfo_burst *b,
			uint8_t port_idx, uint64_t now_us)
{
	struct tfo_cookie_req fresh_req[TFO_RX_BURST_MAX];
	uint8_t fresh[TFO_RX_BURST_MAX][TFO_COOKIE_LEN];
	uint8_t fresh_of[TFO_RX_BURST_MAX];
	unsigned int nfresh = 0;
	const struct tfo_pkt *open_p[TFO_RX_BURST_MAX];
	uint64_t hash[TFO_TX_BUF];	/* tfo_engine_conn_hash_burst's room */
	uint8_t hash_of[TFO_RX_BURST_MAX];
	unsigned int nopen = 0;

	/* a burst's opens in one hash burst */
	RTE_BUILD_BUG_ON(TFO_RX_BURST_MAX > TFO_TX_BUF);
	if (tfo_cookie_check_burst(w->cookies, b->req, b->ncook, b->verdict) < 0)
		memset(b->verdict, TFO_COOKIE_BAD, b->ncook);	/* fail closed */
	/* in one pass: the backup-key hits' fresh cookies, the opens' tuples */
	for (unsigned int k = 0; k < b->ncook; k++) {
		if (b->verdict[k] == TFO_COOKIE_OK_BACKUP) {
			fresh_req[nfresh] = b->req[k];
			fresh_of[k] = (uint8_t)nfresh++;
		} else if (b->verdict[k] != TFO_COOKIE_OK_PRIMARY) {
			continue;
		}
		open_p[nopen] = b->p[b->cook_idx[k]];
		hash_of[k] = (uint8_t)nopen++;
	}
	if (nfresh > 0 &&
	    tfo_cookie_gen_burst(w->cookies, fresh_req, nfresh, fresh) < 0) {
		/* cannot offer a fresh cookie: the old one still works */
		nfresh = 0;
		for (unsigned int k = 0; k < b->ncook; k++)
			if (b->verdict[k] == TFO_COOKIE_OK_BACKUP)
				fresh_of[k] = UINT8_MAX;
	}
	/* the opens' ISN and TSval offset hashes in SIMD lanes at once */
	if (nopen > 0)
		tfo_engine_conn_hash_burst(w->engine, open_p, nopen, hash);

	for (unsigned int k = 0; k < b->ncook; k++) {
		struct tfo_syn_job *s = &b->job[k];
		struct tfo_syn_verdict v;

		s->f.cookie = tfo_syn_cookie_of(b->verdict[k]);
		if (s->f.cookie != TFO_SYN_COOKIE_BAD)
			s->hash = &hash[hash_of[k]];
		if (s->f.cookie == TFO_SYN_COOKIE_BACKUP && fresh_of[k] != UINT8_MAX)
			s->fresh = fresh[fresh_of[k]];
		/* a valid cookie: the ACCEPT its CHECK_COOKIE verdict
		 * foretold, not asked again */
		if (tfo_syn_verdict_checked(&s->f, s->valid_opens, &v)) {
			if (v.stat != TFO_SYN_NO_STAT)
				w->stats.c[v.stat]++;
			if (tfo_worker_accept(w, b, b->cook_idx[k], s, port_idx, now_us))
				continue;
		}
		tfo_worker_syn_step(w, b, b->cook_idx[k], s, port_idx, now_us);
	}
}

/* The TCP segments of one burst from port @port_idx. */
static void
tfo_worker_tcp(struct tfo_worker *w, struct tfo_burst *b, uint8_t port_idx,
	       uint64_t now_us)
{
	b->ncook = 0;
	b->opens = 0;
	/* what every SYN's facts start from, once a burst (the drain begins
	 * between polls) */
	b->syn0 = (struct tfo_syn_facts){
		.tfo_on = w->cookies != NULL,
		.no_cookie = w->cookie_not_required,
		.draining = w->draining,
	};
	tfo_engine_lookup_bulk(w->engine, b->p, b->n, b->conn);
	for (unsigned int j = 0; j < b->n; j++) {
		struct rte_mbuf *m = b->m[j];
		const struct tfo_pkt *p = b->p[j];

		if (b->conn[j] != NULL &&
		    tfo_engine_input(w->engine, b->conn[j], m, p,
				     now_us) == TFO_INPUT_DONE) {
			w->stats.c[TFO_STAT_rx_delivered]++;
			continue;
		}
		/* a miss, a TIME-WAIT entry a new SYN replaced, or a stale entry */
		if ((p->tcp_flags & (TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_RST)) == TFO_TCP_SYN) {
			tfo_worker_syn(w, b, j, port_idx, now_us);
		} else if (tfo_syn_defence_armed(&w->syn_def, now_us) &&
			   tfo_syn_defence_ack(w, m, p, now_us)) {
			tfo_to_ctrl(b, m, p, TFO_CTRL_TCP_SYNCOOKIE_ACK);
		} else {
			tfo_to_ctrl(b, m, p, TFO_CTRL_TCP_MISS);
		}
	}
	if (b->ncook > 0)
		tfo_worker_cookie_batch(w, b, port_idx, now_us);
}

void
tfo_worker_burst(struct tfo_worker *w, uint8_t port_idx, struct rte_mbuf **pkts,
		 unsigned int n, uint64_t now_us)
{
	const struct tfo_port_info *port = &w->ports[port_idx];
	struct rte_mbuf *drop[TFO_RX_BURST_MAX];
	struct tfo_pkt pk[TFO_RX_BURST_MAX];
	struct tfo_burst b;
	/* in locals, not in w and b, which the loop's stores may alias for
	 * the compiler: the TCP count, the bytes, the engine */
	struct tfo_engine *const engine = w->engine;
	unsigned int nd = 0, nt = 0;
	uint64_t bytes = 0;

	RTE_ASSERT(n <= TFO_RX_BURST_MAX);
	w->stats.c[TFO_STAT_rx_pkts] += n;
	for (unsigned int i = 0; i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));

	b.nc = 0;
	b.nn = 0;
	b.nb_controls = w->nb_controls;
	b.exc_engine = port->exception && w->nb_controls > 1 ? w->engine : NULL;
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct tfo_pkt *p = &pk[i];

		bytes += m->pkt_len;
		switch (tfo_pkt_classify(m, port, p)) {
		case TFO_PKT_TCP:
			if (engine == NULL) {
				w->stats.c[TFO_STAT_drop_tcp_nohandler]++;
				drop[nd++] = m;
				break;
			}
			b.m[nt] = m;
			b.p[nt++] = p;
			break;
		case TFO_PKT_ARP:
		case TFO_PKT_ICMP6:
			if (w->to_neigh != NULL && tfo_neigh_is_nd(m, p)) {
				tfo_ctrl_reason_set(m, p->cls == TFO_PKT_ARP ? TFO_CTRL_ARP :
						    TFO_CTRL_ICMP6);
				b.neigh[b.nn++] = m;
				break;
			}
			tfo_to_ctrl(&b, m, NULL, p->cls == TFO_PKT_ARP ? TFO_CTRL_ARP :
				    TFO_CTRL_ICMP6);
			break;
		case TFO_PKT_ICMP:
			tfo_to_ctrl(&b, m, NULL, TFO_CTRL_ICMP);
			break;
		case TFO_PKT_MLD:
			/* listeners' chatter on the link: seen, not a drop
			 * that a drop alert should see */
			w->stats.c[TFO_STAT_rx_mld_ignored]++;
			w->stats.c[TFO_STAT_rx_delivered]++;
			drop[nd++] = m;
			break;
		case TFO_PKT_DROP:
		default:
			/* UDP is a drop to the parser: a served port's
			 * datagram is answered here (udp = on) */
			if (unlikely(p->drop == TFO_PKT_DROP_l4_proto) &&
			    p->l4proto == IPPROTO_UDP && engine != NULL) {
				int rc = tfo_engine_udp_input(engine, m, p, port_idx);

				if (rc >= 0) {
					w->stats.c[TFO_STAT_rx_delivered] += (uint64_t)rc;
					drop[nd++] = m;
					break;
				}
			}
			if (unlikely(tfo_exc_wants_drop(port, p))) {
				tfo_to_ctrl(&b, m, NULL, TFO_CTRL_EXCEPTION);
				break;
			}
			tfo_stats_drop(&w->stats, (enum tfo_pkt_drop)p->drop);
			drop[nd++] = m;
			break;
		}
	}
	w->stats.c[TFO_STAT_rx_bytes] += bytes;
	b.n = nt;
	if (b.n > 0)
		tfo_worker_tcp(w, &b, port_idx, now_us);
	if (b.nn != 0)
		w->stats.c[TFO_STAT_to_control_neigh] +=
			tfo_worker_ring_put_r(w, w->to_neigh, 0, b.neigh, b.nn);
	tfo_worker_to_control(w, b.ctrl, b.ctl, b.nc);
	if (nd)
		rte_pktmbuf_free_bulk(drop, nd);
}

/*
 * Send what control lcores left in relay ring @p r from our TX queue on
 * port @p pi, after our own frames. What the queue refuses stays in the
 * ring (peeked, only the sent ones taken): back-pressure up to the control
 * lcore, whose enqueue fails once the ring is full (relay_drop_full),
 * instead of frames dropped here after they crossed.
 */
static void
tfo_worker_relay(struct tfo_worker *w, uint8_t pi, struct rte_ring *r)
{
	struct rte_mbuf *pkts[TFO_TX_BUF];
	unsigned int n = rte_ring_dequeue_burst_start(r, (void **)pkts, TFO_TX_BUF, NULL);
	uint16_t sent;

	if (n == 0)
		return;
	sent = w->relay_send(w, pi, pkts, (uint16_t)n);
	rte_ring_dequeue_finish(r, sent);
	w->stats.c[TFO_STAT_tx_relay_in] += sent;
	if (sent < n)
		w->stats.c[TFO_STAT_relay_tx_busy]++;
}

void
tfo_worker_housekeeping(struct tfo_worker *w, uint64_t now_us)
{
	if (w->engine != NULL)
		tfo_engine_timers(w->engine, now_us);
	for (uint8_t pi = 0; pi < w->nb_ports; pi++) {
		w->tx.flush(&w->tx, pi);
		for (unsigned int j = 0; j < w->nb_relays; j++)
			if (w->relay[pi][j] != NULL)
				tfo_worker_relay(w, pi, w->relay[pi][j]);
	}
}

static inline bool
tfo_worker_is_ptb(const struct rte_mbuf *m)
{
	enum tfo_ctrl_reason r = tfo_ctrl_reason_get(m);

	return r == TFO_CTRL_PTB || r == TFO_CTRL_PTB_ANY;
}

/* The index in w->ports of the port a hand-over @p m came in on;
 * w->nb_ports when it is not one of ours. */
static inline uint16_t
tfo_worker_port_of(const struct tfo_worker *w, const struct rte_mbuf *m)
{
	uint16_t pi = 0;

	while (pi < w->nb_ports && w->ports[pi].port_id != m->port)
		pi++;
	return pi;
}

void
tfo_worker_ptb(struct tfo_worker *w, struct rte_mbuf *m, uint64_t now_us)
{
	uint16_t pi = tfo_worker_port_of(w, m);
	struct tfo_ptb ptb;
	struct tfo_pkt p;

	/* the control core parsed it already: a failure here is a frame it
	 * should not have sent, counted as a missed flow */
	if (pi == w->nb_ports || w->engine == NULL ||
	    (tfo_pkt_classify(m, &w->ports[pi], &p) != TFO_PKT_ICMP && p.cls != TFO_PKT_ICMP6) ||
	    tfo_pkt_icmp_ptb(m, &w->ports[pi], &p, &ptb) != 1 ||
	    tfo_engine_ptb(w->engine, &ptb, now_us) == -ENOENT) {
		if (tfo_ctrl_reason_get(m) == TFO_CTRL_PTB)
			w->stats.c[TFO_STAT_pmtu_no_conn]++;
	}
	rte_pktmbuf_free(m);
}

/* The control core's hand-overs: path-MTU errors one by one, steered SYNs
 * run by run of one port (tfo_worker_burst takes one port's frames). */
unsigned int
tfo_worker_inbox(struct tfo_worker *w, uint64_t now_us)
{
	struct rte_mbuf *pkts[TFO_RX_BURST_MAX];
	unsigned int n, start = 0;

	n = rte_ring_sc_dequeue_burst(w->from_ctl, (void **)pkts, w->burst, NULL);
	while (start < n) {
		unsigned int end = start + 1;
		uint16_t pi;

		if (tfo_worker_is_ptb(pkts[start])) {
			tfo_worker_ptb(w, pkts[start++], now_us);
			continue;
		}
		while (end < n && pkts[end]->port == pkts[start]->port &&
		       !tfo_worker_is_ptb(pkts[end]))
			end++;
		pi = tfo_worker_port_of(w, pkts[start]);
		if (pi == w->nb_ports) {	/* not from a port of ours: counted drop */
			w->stats.c[TFO_STAT_rx_pkts] += end - start;
			w->stats.c[TFO_STAT_drop_ctrl_no_port] += end - start;
			rte_pktmbuf_free_bulk(&pkts[start], end - start);
		} else {
			tfo_worker_burst(w, (uint8_t)pi, &pkts[start], end - start, now_us);
		}
		start = end;
	}
	return n;
}

unsigned int
tfo_worker_poll(struct tfo_worker *w, uint64_t now_us)
{
	struct rte_mbuf *pkts[TFO_RX_BURST_MAX];
	unsigned int total = 0;

	for (uint16_t pi = 0; pi < w->nb_ports; pi++) {
		uint16_t n = rte_eth_rx_burst(w->ports[pi].port_id, w->queue, pkts,
					      (uint16_t)w->burst);

		if (n == 0)
			continue;
		total += n;
		tfo_worker_burst(w, (uint8_t)pi, pkts, n, now_us);
	}
	if (w->from_ctl != NULL)
		total += tfo_worker_inbox(w, now_us);
	tfo_worker_housekeeping(w, now_us);
	return total;
}

/* How long an idle worker may sleep: a timer tick while its engine has
 * timers; with none, until a frame or a doorbell comes. */
static uint32_t
tfo_worker_wait_max(const struct tfo_worker *w)
{
	return w->engine == NULL || tfo_engine_quiet(w->engine) ? TFO_IDLE_QUIET_US :
	       TFO_IDLE_WAIT_MAX_US;
}

int
tfo_worker_main(void *arg)
{
	struct tfo_worker *w = arg;
	char what[32];

	w->lcore_id = rte_lcore_id();
	TFO_LOG(INFO, "worker on lcore %u: queue %u on %u port(s)", w->lcore_id,
		w->queue, w->nb_ports);
	snprintf(what, sizeof(what), "worker %u", w->queue);
	tfo_idle_enter(&w->idle, what);
	if (tfo_qs_reader_enter() < 0)
		return -EINVAL;
	w->polling = true;
	while (!*w->quit) {
		uint64_t t0 = rte_rdtsc();

		/* between bursts: a device's memory may be unmapped (qs.h) */
		tfo_qs_report();

		w->lat.t_rx = t0;	/* what this poll receives arrived now */
		/* the drain flag shares the quit flag's cache line */
		if (unlikely(w->drain != NULL && *w->drain) && !w->draining)
			tfo_worker_drain_begin(w, t0 / w->tsc_per_us);

		/* busy time, as testpmd's --record-core-cycles: what a core
		 * can do is what it did over the share it was busy */
		if (tfo_worker_poll(w, t0 / w->tsc_per_us) != 0) {
			uint64_t t1 = rte_rdtsc();

			w->stats.c[TFO_STAT_busy_tsc] += t1 - t0;
			/* after the TX flush: the responses left at t1 */
			if (w->lat.npend != 0)
				tfo_lat_flush(&w->lat, t1);
			tfo_idle_work(&w->idle, t0);
		} else {
			if (unlikely(w->lat.npend != 0))
				tfo_lat_flush(&w->lat, rte_rdtsc());
			tfo_idle_wait(&w->idle, t0, tfo_worker_wait_max(w), &w->stats);
		}
	}
	tfo_qs_reader_leave();
	return 0;
}
