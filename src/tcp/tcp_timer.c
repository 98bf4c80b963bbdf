/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the engine's timers: one per connection (RTO, persist,
 * idle or request deadline, TIME-WAIT) on the timer wheel.
 */
#include "tcp/engine_priv.h"

static uint32_t
rto_ms(const struct tfo_engine *e, const struct tfo_conn *c)
{
	uint64_t rto;

	if (c->flags & TFO_CF_RTT_VALID)
		rto = (c->srtt8 >> 3) + RTE_MAX((uint32_t)c->rttvar4, 1u);
	else
		rto = e->p.rto_init_ms;
	rto = RTE_MAX(rto, (uint64_t)e->p.rto_min_ms);
	rto <<= RTE_MIN(c->retries, 20);
	return (uint32_t)RTE_MIN(rto, (uint64_t)e->p.rto_max_ms);
}

static void
arm(struct tfo_engine *e, struct tfo_conn *c, enum tfo_conn_timer_kind k,
    uint64_t after_us)
{
	c->tkind = (uint8_t)k;
	tfo_timer_arm_node(e->tw, &c->timer, conn_idx(e, c), e->now_us + after_us);
}

/* Set the one timer from the connection's state. */
void
tfo_tcp_update_timer(struct tfo_engine *e, struct tfo_conn *c)
{
	bool pending_send = c->snd_max != c->snd_una ||
			    unacked_len(e, c) > 0 || fin_pending(c);

	if (pending_send) {
		if (c->snd_max == c->snd_una && c->snd_wnd == 0) {
			if (c->tkind != TFO_CT_PERSIST)
				arm(e, c, TFO_CT_PERSIST,
				    (uint64_t)rto_ms(e, c) * 1000);
		} else if (c->tkind != TFO_CT_RTO) {
			arm(e, c, TFO_CT_RTO, (uint64_t)rto_ms(e, c) * 1000);
		}
	} else if (c->state == TFO_CONN_ESTABLISHED ||
		   c->state == TFO_CONN_CLOSE_WAIT ||
		   c->state == TFO_CONN_FIN_WAIT_2) {
		/* the last response's own (a service's keepalive), else ours */
		uint64_t after = c->flags2 & TFO_CF2_SVC_IDLE ?
				 tfo_idle_code_us(c->idle_code) :
				 (uint64_t)e->p.idle_timeout_ms * 1000;

		/* one timer: a held request's deadline does not move with
		 * the bytes that re-arm the idle limit (slowloris) */
		if (req_timed(e, c))
			after = RTE_MIN(after, req_left_us(e, c));
		arm(e, c, TFO_CT_IDLE, after);
	} else if (c->tkind != TFO_CT_NONE) {
		tfo_timer_cancel_node(e->tw, &c->timer);
		c->tkind = TFO_CT_NONE;
	}
}

/* ---- timers ------------------------------------------------------------ */

static void
on_rto(struct tfo_engine *e, struct tfo_conn *c)
{
	uint32_t smax = seg_max(c);

	if (c->state == TFO_CONN_SYN_RCVD) {
		if (c->retries >= e->p.synack_retries) {
			tfo_tcp_conn_free(e, c, TFO_STAT_conns_closed_synack_timeout);
			return;
		}
		c->retries++;
		tfo_tcp_stat_inc(e, TFO_STAT_synack_retransmits);
		c->flags &= (uint16_t)~TFO_CF_RTT_TIMING;
		/* XXX not rate-limited (nor are Linux's): under a spoofed flood
		 * of half-open entries these go out behind fresh frames only */
		/* RFC 7413 / Linux: no data, no TFO option; the data goes
		 * after the handshake ACK. A re-sent answer: behind fresh
		 * frames (under a spoofed SYN flood nearly all of these go
		 * to no one) */
		e->tx_low = true;
		tfo_tcp_send_synack(e, c, false, TFO_FORM_NONE, 0, NULL);
		e->tx_low = false;
		arm(e, c, TFO_CT_RTO, (uint64_t)rto_ms(e, c) * 1000);
		return;
	}
	if (c->retries >= e->p.max_retries) {
		tfo_tcp_conn_reset(e, c, TFO_STAT_conns_closed_rto_timeout);
		return;
	}
	c->retries++;
	tfo_tcp_stat_inc(e, TFO_STAT_rto_expired);
	/* RFC 5681 3.1 (5.5/5.6 of RFC 6298): loss window, go back N */
	c->ssthresh = RTE_MAX((c->snd_max - c->snd_una) / 2, 2 * smax);
	c->cwnd = smax;
	c->dupacks = 0;
	c->flags &= (uint16_t)~(TFO_CF_RECOVERY | TFO_CF_RTT_TIMING);
	/* the peer may have dropped what it SACKed (RFC 2018 8) */
	if (c->sbuf != TFO_CONN_NONE)
		sack_reset(tfo_tcp_sndq(e, c));
	c->snd_nxt = data_start(c);
	c->snd_nxt += tfo_tcp_retransmit_first(e, c);
	arm(e, c, TFO_CT_RTO, (uint64_t)rto_ms(e, c) * 1000);
}

static void
on_persist(struct tfo_engine *e, struct tfo_conn *c)
{
	if (c->snd_wnd != 0) {
		tfo_tcp_output(e, c);
		tfo_tcp_update_timer(e, c);
		return;
	}
	if (c->retries >= e->p.max_retries) {
		tfo_tcp_conn_reset(e, c, TFO_STAT_conns_closed_persist_timeout);
		return;
	}
	c->retries++;
	tfo_tcp_stat_inc(e, TFO_STAT_persist_probes);
	/* an old sequence number makes the peer answer with its window */
	tfo_tcp_xmit(e, c, c->snd_una - 1, TFO_TCP_ACK, 0, 0);
	arm(e, c, TFO_CT_PERSIST, (uint64_t)rto_ms(e, c) * 1000);
}

static void
on_idle(struct tfo_engine *e, struct tfo_conn *c)
{
	if (c->state == TFO_CONN_FIN_WAIT_2) {
		tfo_tcp_conn_free(e, c, TFO_STAT_conns_closed_fin_wait2_timeout);
		return;
	}
	/* the wheel never fires early: nothing left means the deadline */
	if (req_timed(e, c) && req_left_us(e, c) == 0) {
		tfo_tcp_conn_reset(e, c, TFO_STAT_request_timeouts);
		return;
	}
	tfo_tcp_stat_inc(e, TFO_STAT_conns_idle_timeout);
	tfo_tcp_queue_fin(e, c);
	tfo_tcp_output(e, c);
	tfo_tcp_update_timer(e, c);
}

static void
timer_cb(void *arg, uint32_t idx)
{
	struct tfo_engine *e = arg;
	struct tfo_conn *c = tfo_conn_at(e->ct, idx);
	uint8_t kind = c->tkind;

	c->tkind = TFO_CT_NONE;
	switch (kind) {
	case TFO_CT_RTO:
		on_rto(e, c);
		break;
	case TFO_CT_PERSIST:
		on_persist(e, c);
		break;
	case TFO_CT_IDLE:
		on_idle(e, c);
		break;
	default:
		break;
	}
}

/* ---- TIME-WAIT ---------------------------------------------------------- */

/* TIME-WAIT's record for @p c, whose entry is freed */
static __rte_noinline void
time_wait_record(struct tfo_engine *e, struct tfo_conn *c)
{
	struct tfo_tw *w = tfo_conn_tw_next(e->ct);

	if (w == NULL) {
		/* the oldest is the nearest to its end anyway; the newest is
		 * the one whose last ACK may still be lost */
		tfo_tcp_stat_inc(e, TFO_STAT_time_wait_recycled);
		tfo_tcp_tw_end(e, tfo_conn_tw_oldest(e->ct),
			       TFO_STAT_conns_closed_normal);
		w = tfo_conn_tw_next(e->ct);
	}
	w->snd_nxt = c->snd_max;
	w->rcv_nxt = c->rcv_nxt;
	w->ts_recent = c->ts_recent;
	w->ts_off = c->ts_off;
	w->expire_ms = now_ms(e) + e->p.time_wait_ms;
	w->flags = c->flags;
	w->peer_ws = c->peer_ws;
	w->port_idx = c->port_idx;
	w->peer_mac = c->peer_mac;
	w->vlan_tci = c->vlan_tci;
	/* the connection stays in the state counts and the gauge */
	tfo_tcp_conn_release(e, c, false);
	tfo_conn_tw_replace(e->ct, c, w);
}

/* kept apart from the record: a close with no TIME-WAIT (time_wait_ms 0)
 * is a jump to the free, without the record's saves */
void
tfo_tcp_time_wait(struct tfo_engine *e, struct tfo_conn *c)
{
	if (e->p.time_wait_ms == 0)
		tfo_tcp_conn_free(e, c, TFO_STAT_conns_closed_normal);
	else
		time_wait_record(e, c);
}

void
tfo_tcp_tw_end(struct tfo_engine *e, struct tfo_tw *w, int why)
{
	e->nstate[TFO_CONN_TIME_WAIT]--;
	tfo_stats_dec(e->st, TFO_STAT_conns_active);
	tfo_conn_tw_remove(e->ct, w);
	if (why >= 0)
		tfo_tcp_stat_inc(e, (enum tfo_stat_id)why);
}

/* TIME-WAIT records due: the ring is in deadline order but for restarted
 * ones, which go to its end when they come first. */
static void
tw_expire(struct tfo_engine *e)
{
	uint32_t now = now_ms(e);
	struct tfo_tw *w;

	while ((w = tfo_conn_tw_oldest(e->ct)) != NULL) {
		if ((int32_t)(now - w->expire_ms) < 0) {
			if (!w->restarted)
				break;
			w->restarted = 0;
			tfo_conn_tw_requeue(e->ct);
			continue;
		}
		tfo_tcp_tw_end(e, w, TFO_STAT_conns_closed_normal);
	}
}

void
tfo_engine_timers(struct tfo_engine *e, uint64_t now_us)
{
	engine_clock(e, now_us);
	hold_expire(e);
	tfo_timer_run(e->tw, now_us, timer_cb, e);
	if (tfo_conn_tw_count(e->ct) > 0)
		tw_expire(e);
	tfo_tcp_spare_free(e);
}
