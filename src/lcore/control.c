/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: a control lcore: its loop over the workers' rings, the
 * slow-path TCP, the SYN queue of hardware steering, the path-MTU inbox.
 * Frames that are not TCP go to neigh.c. What is server-wide runs on
 * control 0's lcore beside it, in supervisor.c.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "lcore/control.h"
#include "lcore/qs.h"
#include "net/neigh.h"
#include "net/port.h"
#include "tfo/log.h"

/* Control-core TX: software checksums everywhere (slow path), so frames
 * carry no offload request. */
static void
tfo_control_tx_flush(struct tfo_tx *tx, uint8_t port_idx)
{
	struct tfo_control *c = tx->arg;
	struct tfo_tx_q *q = &tx->q[port_idx];
	uint16_t sent, n = q->n;

	if (n == 0)
		return;
	if (c->relay[port_idx] == NULL) {
		tfo_tx_q_send(q, c->ports[port_idx].port_id, c->tx_queue, &c->stats);
		return;
	}
	/* A relay ring three quarters full (its worker's TX queue refusing
	 * for a while): the re-sent SYN-ACKs at the tail stay out, so that
	 * the room left is for fresh answers (SYN-ACKs of new clients, ARP,
	 * ND); they count as relay_drop_full and tx_drop_resend below. */
	if (q->nlow != 0 && q->nlow <= n &&
	    rte_ring_free_count(c->relay[port_idx]) < rte_ring_get_capacity(c->relay[port_idx]) / 4)
		n = (uint16_t)(n - q->nlow);
	/* the worker counts them as its tx_pkts when the port takes them */
	sent = (uint16_t)rte_ring_sp_enqueue_burst(c->relay[port_idx], (void **)q->pkts, n,
						   NULL);
	c->stats.c[TFO_STAT_ctrl_relayed] += sent;
	/* a relayed SYN-ACK must not wait for its worker's nap */
	if (sent != 0 && c->nb_workers != 0)
		tfo_doorbell_ring(&c->workers[c->relay_worker]->idle.bell, &c->stats);
	if (unlikely(sent < q->n)) {
		/* the worker leaves what its TX queue refuses in the ring */
		c->stats.c[TFO_STAT_relay_drop_full] += q->n - sent;
		c->stats.c[TFO_STAT_tx_drop_resend] +=
			tfo_tx_q_low_dropped(q, (uint16_t)(q->n - sent));
		rte_pktmbuf_free_bulk(&q->pkts[sent], q->n - sent);
	}
	q->n = 0;
	q->nlow = 0;
}

int
tfo_control_init(struct tfo_control *c, const struct tfo_control_params *p)
{
	const struct tfo_config *cfg = p->cfg;

	unsigned int nb_controls = RTE_MAX(p->nb_controls, 1u);

	if (p->nb_ports > TFO_MAX_PORTS || cfg->burst > TFO_TX_BUF ||
	    nb_controls > TFO_MAX_CONTROLS || p->idx >= nb_controls)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->idx = p->idx;
	c->nb_controls = nb_controls;
	c->peers = p->peers;
	c->inbox = p->inbox;
	c->lcore_id = rte_lcore_id();
	c->cfg = cfg;
	c->ports = p->ports;
	c->nb_ports = p->nb_ports;
	c->workers = p->workers;
	c->nb_workers = p->nb_workers;
	c->tx_queue = (uint16_t)(p->nb_workers + p->idx);
	c->burst = cfg->burst;
	/* full; its first refill is bounded by the cap whatever the clock */
	tfo_tbucket_init(&c->echo_tb, cfg->icmp_echo_per_s, TFO_ICMP_BURST, 0);
	c->quit = p->quit;
	c->drain = p->drain;
	c->tsc_per_us = RTE_MAX(rte_get_tsc_hz() / 1000000, (uint64_t)1);
	tfo_lat_init(&c->lat, rte_get_tsc_hz());
	c->tx.flush = tfo_control_tx_flush;
	c->tx.arg = c;
	c->tx.stats = &c->stats;
	c->syn_reserve = cfg->max_conns / 4;
	c->engine = p->engine;
	c->cookies = p->cookies;
	memcpy(c->relay, p->relay, sizeof(c->relay));
	c->relay_worker = p->nb_workers != 0 ? p->idx % p->nb_workers : 0;
	c->neigh = p->neigh;
	c->syn_queues = p->syn_queues;
	c->exc = p->exc;
	return tfo_idle_init(&c->idle, &p->idle);
}

int
tfo_control_idle_watch(struct tfo_control *c)
{
	int rc = tfo_idle_watch_ring(&c->idle, c->inbox);

	for (unsigned int wi = 0; wi < c->nb_workers && rc == 0; wi++) {
		rc = tfo_idle_watch_ring(&c->idle, c->workers[wi]->to_ctl[c->idx]);
		if (rc == 0 && c->neigh)
			rc = tfo_idle_watch_ring(&c->idle, c->workers[wi]->to_neigh);
	}
	for (uint16_t pi = 0; pi < c->nb_ports && rc >= 0; pi++) {
		if (c->syn_queues && c->ports[pi].syn_steering)
			rc = tfo_idle_watch_rxq(&c->idle, c->ports[pi].port_id,
						c->ports[pi].syn_queue);
		if (rc >= 0 && c->exc != NULL && c->exc[pi].on)
			rc = tfo_idle_watch_rxq(&c->idle, c->exc[pi].tap_id, 0);
	}
	return rc < 0 ? rc : 0;
}

void
tfo_control_close(struct tfo_control *c)
{
	tfo_idle_close(&c->idle);
}

void
tfo_control_drain_begin(struct tfo_control *c, uint64_t now_us)
{
	c->draining = true;
	if (c->engine != NULL)
		tfo_engine_drain(c->engine, now_us);	/* its FINs: at this poll's flush */
}

static int
tfo_control_port_idx(const struct tfo_control *c, uint16_t port_id)
{
	for (uint16_t i = 0; i < c->nb_ports; i++)
		if (c->ports[i].port_id == port_id)
			return i;
	return -1;
}

/* ---- slow-path TCP ----------------------------------------------------- */

/*
 * A SYN the fast path did not take, by its verdict (tcp/syn_admit.h) from
 * the worker's reason: refused while draining; a SYN cookie while the
 * table is down to its reserve (RFC 4987 section 3.6); else a handshake in
 * this engine, acking only the SYN (its data is not delivered: the client
 * re-sends it), with a fresh cookie for a cookie request or a failed
 * cookie; a full table or a source at its cap then gets a SYN cookie or
 * silence; a closed port a RST.
 * @return true if @m was consumed (false: a counted drop, caller frees).
 */
static bool
tfo_control_syn(struct tfo_control *c, struct rte_mbuf *m, const struct tfo_pkt *p,
		uint8_t port_idx, enum tfo_ctrl_reason reason, uint64_t now_us)
{
	const uint8_t *th = tfo_pkt_tcp_hdr(m, p);
	uint8_t cookie[TFO_COOKIE_LEN];
	struct tfo_tcpopts o;
	struct tfo_open_params op = { .opts = &o };
	struct tfo_syn_facts f = {
		.at_control = true,
		.path = tfo_syn_path_of_reason(reason),
		.tfo_on = c->cookies != NULL,
		.draining = c->draining,
		.syncookies = c->cfg->syncookies != 0,
		.listener_known = true,
		.served = tfo_engine_serves(c->engine, p->dport),
		.syncookie_due = tfo_engine_free_conns(c->engine) <= c->syn_reserve,
	};

	/* the worker's parse (syn_defence.h); else malformed: keep what parsed */
	if (!tfo_syn_summary_opts(m, reason, &o))
		tfo_tcpopt_parse(th + TFO_TCP_HDR_LEN, p->l4_len - TFO_TCP_HDR_LEN, &o);
	f.tfo_form = o.form != TFO_FORM_NONE;
	for (;;) {
		struct tfo_syn_verdict v = tfo_syn_verdict(&f);
		struct tfo_cookie_req r = {
			.family = p->family, .client = &p->src, .server = &p->dst,
		};
		int rc;

		if (v.stat != TFO_SYN_NO_STAT)
			c->stats.c[v.stat]++;
		switch (v.act) {
		case TFO_SYN_REFUSE:	/* draining: as a closed listener (drain.h) */
		case TFO_SYN_RST:
			tfo_engine_input_nomatch(c->engine, m, p, port_idx, now_us);
			return true;
		case TFO_SYN_SYNCOOKIE:
			tfo_engine_syncookie_reply(c->engine, m, p, port_idx, &o, now_us);
			return true;
		case TFO_SYN_OPEN:
			if (v.offer_cookie && tfo_cookie_gen_burst(c->cookies, &r, 1, &cookie) == 0) {
				op.cookie_form = o.form;
				op.cookie_len = TFO_COOKIE_LEN;
				op.cookie = cookie;
			}
			rc = tfo_engine_open(c->engine, m, p, port_idx, &op, now_us);
			if (rc == 0)
				return true;
			f.open = tfo_syn_open_of(rc);
			continue;
		default:	/* DROP, counted */
			return false;
		}
	}
}

static bool
tfo_control_tcp(struct tfo_control *c, struct rte_mbuf *m, const struct tfo_pkt *p,
		uint8_t port_idx, enum tfo_ctrl_reason reason, uint64_t now_us)
{
	const struct tfo_pkt *pp = p;
	struct tfo_conn *conn;

	if (c->engine == NULL) {
		c->stats.c[TFO_STAT_drop_tcp_nohandler]++;
		return false;
	}
	tfo_engine_lookup_bulk(c->engine, &pp, 1, &conn);
	if (conn != NULL && reason == TFO_CTRL_TCP_SYNCOOKIE_ACK &&
	    tfo_engine_syncookie_supersedes(c->engine, conn, p))
		conn = NULL;
	if (conn != NULL &&
	    tfo_engine_input(c->engine, conn, m, p, now_us) == TFO_INPUT_DONE) {
		return true;
	}
	if (reason == TFO_CTRL_TCP_SYNCOOKIE_ACK) {
		/* checked on the worker, under the secret we share */
		struct tfo_syncookie_ack a;

		tfo_syn_summary_to_ack(tfo_syn_summary(m), &a);
		tfo_engine_syncookie_open(c->engine, m, p, port_idx, &a, now_us);
		return true;
	}
	if ((p->tcp_flags & (TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_RST)) == TFO_TCP_SYN &&
	    reason != TFO_CTRL_TCP_NO_SERVICE)
		return tfo_control_syn(c, m, p, port_idx, reason, now_us);
	/* RST for what belongs to nothing (never for a RST), or a SYN-cookie ACK */
	tfo_engine_input_nomatch(c->engine, m, p, port_idx, now_us);
	return true;
}

/* ---- path-MTU errors ---------------------------------------------------- */

/* Hand @p m to worker @p wi's inbox; false if it is full. */
static bool
tfo_control_to_inbox(struct tfo_control *c, unsigned int wi, struct rte_mbuf *m,
		     enum tfo_ctrl_reason r)
{
	struct rte_ring *in = c->workers[wi]->from_ctl;

	tfo_ctrl_reason_set(m, r);
	/* multi-producer when several control lcores hand over */
	if (in == NULL || rte_ring_mp_enqueue(in, m) != 0)
		return false;
	tfo_doorbell_ring(&c->workers[wi]->idle.bell, &c->stats);
	return true;
}

/*
 * Hand path-MTU error @p m, about a flow no engine of a control lcore
 * holds, to the worker RSS gives the flow: the ICMP arrived hashed on the
 * router's address, so that worker is computed from the quoted tuple. When
 * the port's redirection table is not known, a copy goes to every worker
 * (only the owner finds the flow). @return false if the inbox was full
 * (@p m not consumed).
 */
static bool
tfo_control_ptb_to_worker(struct tfo_control *c, struct rte_mbuf *m, uint8_t pi,
			  const struct tfo_ptb *ptb)
{
	unsigned int w = tfo_port_flow_worker(&c->ports[pi], c->nb_workers, &ptb->flow);

	if (w < c->nb_workers)
		return tfo_control_to_inbox(c, w, m, TFO_CTRL_PTB);
	for (unsigned int wi = 1; wi < c->nb_workers; wi++) {
		struct rte_mbuf *copy = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);

		if (copy != NULL && !tfo_control_to_inbox(c, wi, copy, TFO_CTRL_PTB_ANY))
			rte_pktmbuf_free(copy);
	}
	return tfo_control_to_inbox(c, 0, m, TFO_CTRL_PTB_ANY);
}

/*
 * A path-MTU error about one of our TCP flows. The connection lives on the
 * engine of the control lcore tfo_ctrl_pick gives its flow (slow path:
 * this one, or another, which gets the frame in its inbox), or on a
 * worker (tfo_control_ptb_to_worker).
 * @return -1 if @p m is another ICMP message (for neigh.c), else as
 * tfo_control_handle.
 */
static int
tfo_control_icmp_err(struct tfo_control *c, struct rte_mbuf *m, const struct tfo_pkt *p,
		     uint8_t pi, uint64_t now_us)
{
	struct tfo_ptb ptb;
	unsigned int k;
	int rc = tfo_pkt_icmp_ptb(m, &c->ports[pi], p, &ptb);

	if (rc == 0)
		return -1;
	if (rc < 0) {
		c->stats.c[TFO_STAT_drop_pmtu_bad_quote]++;
		return false;
	}
	k = tfo_ctrl_pick(&ptb.flow, c->nb_controls);
	if (k != c->idx && c->peers != NULL) {
		struct rte_ring *in = c->peers[k]->inbox;

		if (in == NULL || rte_ring_mp_enqueue(in, m) != 0) {
			c->stats.c[TFO_STAT_drop_pmtu_inbox_full]++;
			return false;
		}
		tfo_doorbell_ring(&c->peers[k]->idle.bell, &c->stats);
		c->stats.c[TFO_STAT_pmtu_ctrl_handoff]++;
		return true;
	}
	if (c->engine != NULL && tfo_engine_ptb(c->engine, &ptb, now_us) != -ENOENT) {
		rte_pktmbuf_free(m);
		return true;
	}
	if (!tfo_control_ptb_to_worker(c, m, pi, &ptb)) {
		c->stats.c[TFO_STAT_drop_pmtu_inbox_full]++;
		return false;
	}
	c->stats.c[TFO_STAT_pmtu_handoff]++;
	return true;
}

unsigned int
tfo_control_inbox(struct tfo_control *c, uint64_t now_us)
{
	struct rte_mbuf *pkts[TFO_TX_BUF];
	unsigned int n;

	if (c->inbox == NULL)
		return 0;
	n = rte_ring_sc_dequeue_burst(c->inbox, (void **)pkts, c->burst, NULL);
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		int pi = tfo_control_port_idx(c, m->port);
		struct tfo_ptb ptb;
		struct tfo_pkt p;

		/* control 0 parsed it already: what fails here is lost */
		if (pi < 0 || tfo_pkt_classify(m, &c->ports[pi], &p) == TFO_PKT_DROP ||
		    tfo_pkt_icmp_ptb(m, &c->ports[pi], &p, &ptb) != 1) {
			c->stats.c[TFO_STAT_pmtu_handoff_lost]++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (c->engine != NULL && tfo_engine_ptb(c->engine, &ptb, now_us) != -ENOENT) {
			rte_pktmbuf_free(m);
			continue;
		}
		if (tfo_control_ptb_to_worker(c, m, (uint8_t)pi, &ptb)) {
			c->stats.c[TFO_STAT_pmtu_handoff]++;
		} else {
			c->stats.c[TFO_STAT_pmtu_handoff_lost]++;
			rte_pktmbuf_free(m);
		}
	}
	return n;
}

/* ---- the loop ---------------------------------------------------------- */

/*
 * Handle one frame from a worker. @return true if it was delivered (@m is
 * the handler's now), false if it is to be freed: then exactly one
 * frame-drop reason was counted (the accounting of stats.h).
 */
static bool
tfo_control_handle(struct tfo_control *c, struct rte_mbuf *m, uint64_t now_us)
{
	struct tfo_pkt p;
	int pi = tfo_control_port_idx(c, m->port);
	enum tfo_pkt_class cls;

	if (pi < 0) {
		c->stats.c[TFO_STAT_drop_ctrl_no_port]++;
		return false;
	}
	/* a slow-path SYN comes with what its worker parsed (syn_defence.h);
	 * the rest is parsed again: cheaper than carrying struct tfo_pkt */
	cls = tfo_syn_summary_pkt(m, tfo_ctrl_reason_get(m), &p) ? TFO_PKT_TCP :
	      tfo_pkt_classify(m, &c->ports[pi], &p);
	/* a served port's UDP datagram that reached a control lcore (its
	 * own RX queue): answered here as on a worker */
	if (unlikely(cls == TFO_PKT_DROP && p.drop == TFO_PKT_DROP_l4_proto &&
		     p.l4proto == IPPROTO_UDP && c->engine != NULL)) {
		int rc = tfo_engine_udp_input(c->engine, m, &p, (uint8_t)pi);

		if (rc >= 0) {
			/* delivered: it is ours to free (counted by the caller) */
			if (rc > 0)
				rte_pktmbuf_free(m);
			return rc > 0;
		}
	}
	if (c->exc != NULL && c->ports[pi].exception &&
	    tfo_exc_wants(&c->ports[pi], c->engine, m, &p))
		return tfo_exc_to_kernel(&c->exc[pi], &c->stats, m, now_us);
	switch (cls) {
	case TFO_PKT_ICMP:
	case TFO_PKT_ICMP6: {
		int rc = tfo_control_icmp_err(c, m, &p, (uint8_t)pi, now_us);

		if (rc >= 0)
			return rc != 0;
	}
		/* fall through */
	case TFO_PKT_ARP:
		/* our XDP program passes these to the kernel: if one gets
		 * here anyway (xdp.h), the kernel has answered it already */
		if (c->ports[pi].kernel_neigh) {
			c->stats.c[TFO_STAT_drop_kernel_neigh]++;
			return false;
		}
		return tfo_neigh_input(&c->tx, &c->stats, &c->ports[pi], (uint8_t)pi,
				       m, &p, &c->echo_tb, now_us);
	case TFO_PKT_TCP:
		return tfo_control_tcp(c, m, &p, (uint8_t)pi, tfo_ctrl_reason_get(m),
				       now_us);
	case TFO_PKT_DROP:
	default:
		tfo_stats_drop(&c->stats, (enum tfo_pkt_drop)p.drop);
		return false;
	}
}

void
tfo_control_burst(struct tfo_control *c, struct rte_mbuf **pkts, unsigned int n,
		  uint64_t now_us)
{
	c->stats.c[TFO_STAT_ctrl_rx] += n;
	for (unsigned int i = 0; i < n; i++) {
		if (tfo_control_handle(c, pkts[i], now_us))
			c->stats.c[TFO_STAT_rx_delivered]++;
		else
			rte_pktmbuf_free(pkts[i]);
	}
}

/*
 * The SYN queue of a port with hardware SYN steering: each SYN goes to the
 * worker RSS gives its flow, so that the rest of the connection (which RSS
 * sends there) finds it. A full inbox is a counted drop (the client
 * retransmits its SYN).
 */
static unsigned int
tfo_control_syn_queue(struct tfo_control *c, uint8_t pi)
{
	const struct tfo_port_info *port = &c->ports[pi];
	struct rte_mbuf *pkts[TFO_TX_BUF];
	uint16_t n = rte_eth_rx_burst(port->port_id, port->syn_queue, pkts,
				      (uint16_t)c->burst);

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct tfo_pkt p, *pp = NULL;
		unsigned int w;

		if (!(m->ol_flags & RTE_MBUF_F_RX_RSS_HASH) && port->syn_workers > 1 &&
		    tfo_pkt_classify(m, port, &p) == TFO_PKT_TCP)
			pp = &p;
		w = tfo_port_syn_worker(port, m, pp);
		if (w < c->nb_workers && tfo_control_to_inbox(c, w, m, TFO_CTRL_TCP_SYN)) {
			c->stats.c[TFO_STAT_syn_steered]++;
			continue;
		}
		/* counted here as received, and dropped */
		c->stats.c[TFO_STAT_rx_pkts]++;
		c->stats.c[TFO_STAT_rx_bytes] += m->pkt_len;
		c->stats.c[TFO_STAT_syn_steer_drop]++;
		rte_pktmbuf_free(m);
	}
	return n;
}

unsigned int
tfo_control_poll(struct tfo_control *c, uint64_t now_us)
{
	struct rte_mbuf *pkts[TFO_TX_BUF];
	unsigned int total = 0;

	/* ARP and ND first, whatever waits in the other rings: answered
	 * within one poll under any flood of pings or stray segments */
	for (unsigned int wi = 0; wi < c->nb_workers && c->neigh; wi++) {
		struct rte_ring *r = c->workers[wi]->to_neigh;
		unsigned int n;

		if (r == NULL)
			continue;
		n = rte_ring_sc_dequeue_burst(r, (void **)pkts, c->burst, NULL);
		total += n;
		tfo_control_burst(c, pkts, n, now_us);
	}
	for (unsigned int wi = 0; wi < c->nb_workers; wi++) {
		unsigned int n = rte_ring_sc_dequeue_burst(c->workers[wi]->to_ctl[c->idx],
							   (void **)pkts, c->burst, NULL);

		total += n;
		tfo_control_burst(c, pkts, n, now_us);
	}
	total += tfo_control_inbox(c, now_us);
	for (uint8_t pi = 0; pi < c->nb_ports && c->syn_queues; pi++)
		if (c->ports[pi].syn_steering)
			total += tfo_control_syn_queue(c, pi);
	if (c->engine != NULL) {
		uint8_t pressure;

		tfo_engine_timers(c->engine, now_us);
		pressure = tfo_engine_free_conns(c->engine) <= c->syn_reserve;
		if (pressure != c->syn_pressure)
			c->syn_pressure = pressure;
	}
	for (uint8_t pi = 0; pi < c->nb_ports; pi++) {
		if (c->exc != NULL && c->ports[pi].exception)
			total += tfo_exc_poll(&c->exc[pi], &c->tx, pi, &c->stats, now_us,
					      c->burst);
		c->tx.flush(&c->tx, pi);
	}
	return total;
}

/* Its engine's timers need a tick; else doorbells bring frames. */
uint64_t
tfo_control_wait_max(const struct tfo_control *c)
{
	if (c->engine != NULL && !tfo_engine_quiet(c->engine))
		return TFO_IDLE_WAIT_MAX_US;
	return TFO_IDLE_QUIET_US;
}

int
tfo_control_enter(struct tfo_control *c)
{
	char what[32];

	c->lcore_id = rte_lcore_id();
	snprintf(what, sizeof(what), "control %u", c->idx);
	tfo_idle_enter(&c->idle, what);
	if (tfo_qs_reader_enter() < 0)
		return -EINVAL;
	c->polling = true;
	return 0;
}

void
tfo_control_leave(struct tfo_control *c)
{
	RTE_SET_USED(c);
	tfo_qs_reader_leave();
}

unsigned int
tfo_control_round(struct tfo_control *c, uint64_t t0)
{
	uint64_t now_us = t0 / c->tsc_per_us;
	unsigned int n;

	/* between bursts: a device's memory may be unmapped (qs.h) */
	tfo_qs_report();
	c->lat.t_rx = t0;	/* what this poll takes arrived now */
	/* the drain flag shares the quit flag's cache line */
	if (unlikely(c->drain != NULL && *c->drain) && !c->draining)
		tfo_control_drain_begin(c, now_us);
	n = tfo_control_poll(c, now_us);
	if (c->lat.npend != 0)	/* after the TX flush */
		tfo_lat_flush(&c->lat, rte_rdtsc());
	return n;
}

void
tfo_control_busy(struct tfo_control *c, unsigned int n, uint64_t t0)
{
	/* busy share, as the workers': sizes control_lcores */
	if (n != 0) {
		c->stats.c[TFO_STAT_busy_tsc] += rte_rdtsc() - t0;
		tfo_idle_work(&c->idle, t0);
	}
}

int
tfo_control_main(struct tfo_control *c)
{
	if (tfo_control_enter(c) < 0)
		return -EINVAL;
	while (!*c->quit) {
		uint64_t t0 = rte_rdtsc();
		unsigned int n = tfo_control_round(c, t0);

		tfo_control_busy(c, n, t0);
		if (n == 0)
			tfo_idle_wait(&c->idle, t0, (uint32_t)tfo_control_wait_max(c), &c->stats);
	}
	tfo_control_leave(c);
	return 0;
}

int
tfo_control_lcore_main(void *arg)
{
	struct tfo_control *c = arg;

	TFO_LOG(INFO, "control %u on lcore %u: TX queue %u", c->idx, rte_lcore_id(),
		c->tx_queue);
	return tfo_control_main(c);
}
