/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the engine's input: a segment of a known connection
 * (acceptability, ACK processing, congestion control, data, FIN).
 */
#include "tcp/engine_priv.h"

static void
challenge_ack(struct tfo_engine *e, struct tfo_conn *c)
{
	uint64_t sec = e->now_us / 1000000;

	if (sec != e->chal_sec) {
		e->chal_sec = sec;
		e->chal_n = 0;
	}
	if (e->chal_n >= TFO_CHALLENGE_PER_S) {
		tfo_tcp_stat_inc(e, TFO_STAT_challenge_acks_limited);
		return;
	}
	e->chal_n++;
	tfo_tcp_stat_inc(e, TFO_STAT_challenge_acks);
	send_ack(e, c);
}


/* inlined: on the common close (ACK+FIN) path, called once per connection */
static __rte_always_inline void
enter_time_wait(struct tfo_engine *e, struct tfo_conn *c)
{
	set_state(e, c, TFO_CONN_TIME_WAIT);
	tfo_tcp_stat_inc(e, TFO_STAT_time_wait_entered);
	buf_put(e, &c->sbuf);
	buf_put(e, &c->rbuf);
	c->req_len = 0;
	c->tkind = TFO_CT_NONE;	/* tfo_tcp_update_timer() arms TIME-WAIT */
}


/* inlined: the first sample, every connection's, is a few stores */
static __rte_always_inline void
rtt_sample(struct tfo_conn *c, uint32_t r)
{
	int32_t delta;

	r = RTE_MIN(r, (uint32_t)TFO_RTT_MAX_MS);
	if (!(c->flags & TFO_CF_RTT_VALID)) {
		c->srtt8 = (uint16_t)(r << 3);
		c->rttvar4 = (uint16_t)(r << 1);
		c->flags |= TFO_CF_RTT_VALID;
		return;
	}
	/* RFC 6298 2.3, Jacobson's fixed point: rttvar first, with the old srtt */
	delta = (int32_t)r - (int32_t)(c->srtt8 >> 3);
	c->srtt8 = (uint16_t)((int32_t)c->srtt8 + delta);
	if (delta < 0)
		delta = -delta;
	c->rttvar4 = (uint16_t)((int32_t)c->rttvar4 + delta - (c->rttvar4 >> 2));
}


/* ---- segment processing ------------------------------------------------ */

static __rte_always_inline void
new_ack(struct tfo_engine *e, struct tfo_conn *c, uint32_t ack,
	bool has_ts, uint32_t tsecr, int *gone)
{
	uint32_t acked = ack - c->snd_una;
	uint32_t total = unacked_len(e, c);
	uint32_t n = RTE_MIN(acked, total);
	uint32_t smax = seg_max(c);
	bool fin_acked;

	if ((c->flags & TFO_CF_PEER_TS) && has_ts && tsecr != 0)
		rtt_sample(c, tsval(e, c) - tsecr);
	else if ((c->flags & TFO_CF_RTT_TIMING) && tfo_seq_gt(ack, c->rtt_seq)) {
		rtt_sample(c, now_ms(e) - c->rtt_start);
		c->flags &= (uint16_t)~TFO_CF_RTT_TIMING;
	}
	if (n > 0) {
		struct tfo_sndq *q = tfo_tcp_sndq(e, c);
		uint32_t k = RTE_MIN(n, q->buf_len - q->buf_off);

		q->buf_off += k;
		q->body_off += n - k;
		q->body_len -= n - k;
		if (q->nsack > 0)
			tfo_tcp_sack_acked(e, c, ack);
	}
	fin_acked = fin_pending(c) && acked > n;
	c->snd_una = ack;
	if (tfo_seq_lt(c->snd_nxt, ack))
		c->snd_nxt = ack;
	c->retries = 0;
	c->tkind = TFO_CT_NONE;	/* RFC 6298 5.3: restart the RTO */

	if (c->flags & TFO_CF_RECOVERY) {
		if (tfo_seq_ge(ack, c->recover)) {
			c->cwnd = c->ssthresh;
			c->flags &= (uint16_t)~TFO_CF_RECOVERY;
			c->dupacks = 0;
		} else if (!tfo_tcp_sack_partial(e, c, ack)) {
			/* NewReno partial ACK (RFC 6582 3.2 step 3) */
			tfo_tcp_retransmit_first(e, c);
			c->cwnd = (c->cwnd > acked ? c->cwnd - acked : 0) + smax;
		}
	} else {
		c->dupacks = 0;
		if (c->cwnd < c->ssthresh)
			c->cwnd += RTE_MIN(acked, smax);
		else
			c->cwnd += RTE_MAX(smax * smax / c->cwnd, 1u);
		c->cwnd = RTE_MIN(c->cwnd, TFO_CWND_MAX);
	}

	if (fin_acked) {
		c->flags |= TFO_CF_FIN_ACKED;
		switch (c->state) {
		case TFO_CONN_FIN_WAIT_1:
			set_state(e, c, TFO_CONN_FIN_WAIT_2);
			break;
		case TFO_CONN_CLOSING:
			enter_time_wait(e, c);
			break;
		case TFO_CONN_LAST_ACK:
			tfo_tcp_conn_free(e, c, TFO_STAT_conns_closed_normal);
			*gone = 1;
			return;
		default:
			break;
		}
	}
	if (total > 0 && n == total && c->sbuf != TFO_CONN_NONE &&
	    tfo_tcp_after_drain(e, c) == TFO_TCP_CONN_GONE)
		*gone = 1;
}

static void
dup_ack(struct tfo_engine *e, struct tfo_conn *c)
{
	uint32_t smax = seg_max(c);

	tfo_tcp_stat_inc(e, TFO_STAT_dup_acks_rx);
	if (c->flags & TFO_CF_RECOVERY) {
		/* NewReno inflates; RFC 6675 counts pipe instead */
		if (c->sbuf == TFO_CONN_NONE || !tfo_tcp_sndq(e, c)->sack_rec)
			c->cwnd = RTE_MIN(c->cwnd + smax, TFO_CWND_MAX);
		return;
	}
	/* the third duplicate, or before it enough SACKed (RFC 6675 5) */
	if (++c->dupacks != 3 && !(c->dupacks < 3 && tfo_tcp_sack_lost(e, c)))
		return;
	/* RFC 5681 3.2 / RFC 6582 */
	tfo_tcp_stat_inc(e, TFO_STAT_fast_retransmits);
	c->ssthresh = RTE_MAX((c->snd_max - c->snd_una) / 2, 2 * smax);
	c->recover = c->snd_max;
	c->flags2 &= (uint8_t)~TFO_CF2_SYN_STAMP;	/* recover is taken */
	c->flags |= TFO_CF_RECOVERY;
	c->cwnd = c->ssthresh;
	if (tfo_tcp_sack_enter(e, c))
		return;
	tfo_tcp_retransmit_first(e, c);
	c->cwnd = c->ssthresh + 3 * smax;
}

/* The handshake's ACK, acceptable (RFC 9293 3.10.7.4): our SYN is
 * acknowledged, the connection established (or closing, its FIN queued). */
static __rte_always_inline void
handshake_acked(struct tfo_engine *e, struct tfo_conn *c, uint32_t nwin, uint32_t seq)
{
	if (c->flags & TFO_CF_TFO_PENDING)
		pending_release(e, c, tfo_tcp_src_key(&c->key.peer, c->key.family));
	c->snd_una++;	/* our SYN */
	set_state(e, c, (c->flags & TFO_CF_FIN_QUEUED) ?
		  TFO_CONN_FIN_WAIT_1 : TFO_CONN_ESTABLISHED);
	c->snd_wnd = nwin;
	c->wl1 = seq;
	if (c->retries > 0) {
		/* RFC 6298 5.7: the SYN-ACK was lost, start from 1 MSS */
		c->cwnd = seg_max(c);
		c->retries = 0;
	}
}

/* The handshake's ACK acknowledged only the SYN: a sample, then nothing
 * more to trim. */
static __rte_always_inline void
syn_only_acked(struct tfo_engine *e, struct tfo_conn *c, bool has_ts, uint32_t tsecr)
{
	if ((c->flags & TFO_CF_PEER_TS) && has_ts && tsecr != 0)
		rtt_sample(c, tsval(e, c) - tsecr);
	else if (c->flags & TFO_CF_RTT_TIMING)
		rtt_sample(c, now_ms(e) - c->rtt_start);
	c->flags &= (uint16_t)~TFO_CF_RTT_TIMING;
	c->tkind = TFO_CT_NONE;
}

/* The peer's window, from a segment not older than the last update
 * (SND.WL1); an opening window ends the persist timer. */
static __rte_always_inline void
wnd_update(struct tfo_conn *c, uint32_t seq, uint32_t nwin)
{
	if (c->snd_wnd == 0 && nwin > 0 && c->tkind == TFO_CT_PERSIST) {
		c->retries = 0;
		c->tkind = TFO_CT_NONE;
	}
	c->snd_wnd = nwin;
	c->wl1 = seq;
}

enum ack_result { ACK_OK, ACK_DROP, ACK_GONE };

/* inlined in both inputs: the entry's is the hot one */
static __rte_always_inline enum ack_result
process_ack(struct tfo_engine *e, struct tfo_conn *c, const struct tfo_pkt *p,
	    bool has_ts, uint32_t tsecr)
{
	uint32_t ack = p->ack, seq = p->seq, old_una, nwin;
	int gone = 0;

	nwin = (uint32_t)p->window << ((c->flags & TFO_CF_PEER_WS) ? c->peer_ws : 0);
	if (c->state == TFO_CONN_SYN_RCVD) {
		if (!(tfo_seq_gt(ack, c->snd_una) && tfo_seq_le(ack, c->snd_max))) {
			/* RFC 9293 3.10.7.4: <SEQ=SEG.ACK><CTL=RST> */
			tfo_tcp_stat_inc(e, TFO_STAT_drop_synrcvd_bad_ack);
			if (tfo_tcp_xmit(e, c, ack, TFO_TCP_RST, 0, 0) == 0)
				tfo_tcp_stat_inc(e, TFO_STAT_rst_tx);
			return ACK_DROP;
		}
		handshake_acked(e, c, nwin, seq);
		if (ack == c->snd_una && (c->flags & TFO_CF_SYNACK_DATA) &&
		    tfo_seq_gt(c->snd_max, c->snd_una)) {
			/* the client dropped the SYN-ACK's data (a plain
			 * connect does), so what followed is out of order
			 * there too: resend the response now, not after an
			 * RTO. Behind a bare SYN-ACK this ACK only crossed
			 * the response in flight. */
			tfo_tcp_stat_inc(e, TFO_STAT_synack_data_resend);
			c->snd_nxt = c->snd_una;
			c->flags &= (uint16_t)~TFO_CF_RTT_TIMING;
		}
		if (ack == c->snd_una) {
			syn_only_acked(e, c, has_ts, tsecr);
			return ACK_OK;
		}
	}
	if (tfo_seq_gt(ack, c->snd_max)) {
		tfo_tcp_stat_inc(e, TFO_STAT_drop_ack_unsent);
		send_ack(e, c);
		return ACK_DROP;
	}
	if (tfo_seq_lt(ack, c->snd_una - max_snd_wnd(c))) {
		tfo_tcp_stat_inc(e, TFO_STAT_drop_old_ack);
		challenge_ack(e, c);
		return ACK_DROP;
	}
	old_una = c->snd_una;
	if (ack == old_una && p->payload_len == 0 &&
	    !(p->tcp_flags & TFO_TCP_FIN) && nwin == c->snd_wnd &&
	    c->snd_max != c->snd_una)
		dup_ack(e, c);
	/* window update (RFC 9293 3.10.7.4; SND.WL2 <= SEG.ACK holds for any
	 * ack >= snd_una, so WL2 need not be kept) */
	if (tfo_seq_gt(seq, c->wl1) || (seq == c->wl1 && tfo_seq_ge(ack, old_una)))
		wnd_update(c, seq, nwin);
	if (tfo_seq_gt(ack, old_una))
		new_ack(e, c, ack, has_ts, tsecr, &gone);
	return gone ? ACK_GONE : ACK_OK;
}

/* The peer's FIN was just accepted in ESTABLISHED. */
static void
peer_closed(struct tfo_engine *e, struct tfo_conn *c)
{
	set_state(e, c, TFO_CONN_CLOSE_WAIT);
	/* a pipelined request waits for the drain (after_drain closes);
	 * otherwise nothing more can come: FIN after what is queued */
	if (!(c->sbuf != TFO_CONN_NONE && c->req_len > 0))
		tfo_tcp_queue_fin(e, c);
}

/* The peer's FIN, next in sequence, is taken. */
static __rte_always_inline void
fin_accepted(struct tfo_engine *e, struct tfo_conn *c)
{
	c->rcv_nxt++;
	c->flags |= TFO_CF_PEER_FIN;
	switch (c->state) {
	case TFO_CONN_ESTABLISHED:
		peer_closed(e, c);
		break;
	case TFO_CONN_FIN_WAIT_1:
		set_state(e, c, TFO_CONN_CLOSING);	/* simultaneous close */
		break;
	case TFO_CONN_FIN_WAIT_2:
		enter_time_wait(e, c);
		break;
	default:
		break;
	}
}

static __rte_always_inline int
process_data(struct tfo_engine *e, struct tfo_conn *c,
	     const struct rte_mbuf *m, const struct tfo_pkt *p, bool *need_ack)
{
	uint32_t plen = p->payload_len, seq = p->seq;
	bool fin = (p->tcp_flags & TFO_TCP_FIN) != 0;

	if (plen == 0 && !fin)
		return 0;
	*need_ack = true;
	if (c->flags & TFO_CF_PEER_FIN) {
		/* a retransmission of what we have (the FIN included) */
		tfo_tcp_stat_inc(e, TFO_STAT_rx_dup_data);
		if (c->state == TFO_CONN_TIME_WAIT)
			c->tkind = TFO_CT_NONE;	/* restart TIME-WAIT */
		return 0;
	}
	if (tfo_seq_gt(seq, c->rcv_nxt)) {
		tfo_tcp_stat_inc(e, TFO_STAT_rx_ooo_drop);
		return 0;
	}
	if (plen > 0) {
		uint32_t skip = c->rcv_nxt - seq;
		uint32_t fresh = skip < plen ? plen - skip : 0;

		if (fresh == 0) {
			if (!fin)
				tfo_tcp_stat_inc(e, TFO_STAT_rx_dup_data);
		} else if ((c->flags & TFO_CF_FIN_QUEUED) ||
			   c->state != TFO_CONN_ESTABLISHED) {
			/* after our close: ack and discard */
			tfo_tcp_stat_inc(e, TFO_STAT_rx_after_close);
			c->rcv_nxt += fresh;
		} else {
			uint32_t take = RTE_MIN(fresh, rcv_space(e, c));
			int acc = 0;

			if (take < fresh)
				tfo_tcp_stat_inc(e, TFO_STAT_rx_trimmed);
			if (take > 0)
				acc = tfo_tcp_deliver(e, c, m, p->payload_off + skip, take,
						      false);
			if (acc == TFO_TCP_CONN_GONE)
				return TFO_TCP_CONN_GONE;
			c->rcv_nxt += (uint32_t)acc;
			if ((uint32_t)acc < fresh)
				return 0;	/* the FIN is not next */
		}
	}
	if (fin && seq + plen == c->rcv_nxt)
		fin_accepted(e, c);
	return 0;
}

static void
dup_syn(struct tfo_engine *e, struct tfo_conn *c, struct rte_mbuf *m,
	const struct tfo_pkt *p)
{
	struct tfo_tcpopts o;
	unsigned int olen = p->l4_len - TFO_TCP_HDR_LEN;

	uint16_t ms = (uint16_t)now_ms(e);

	tfo_tcp_stat_inc(e, TFO_STAT_dup_syn);
	/*
	 * Linux's tcp_oow_rate_limited() for a request socket: at most one
	 * answer per TFO_DUP_SYN_INTERVAL_MS per entry (the first duplicate
	 * is answered). A replayed flood of a few thousand spoofed SYNs
	 * otherwise has each of them answered again, filling the TX queue
	 * that good clients' answers need; a real client retransmits its
	 * SYN after 1 s, well past the interval. The timer's retransmission
	 * is not limited. 16 bits of ms: a handshake lives far less than
	 * the 65 s wrap, and a wrong skip at worst leaves it to the timer.
	 */
	if ((c->flags & TFO_CF_OOW_STAMP) &&
	    (uint16_t)(ms - c->oow_ms) < TFO_DUP_SYN_INTERVAL_MS) {
		tfo_tcp_stat_inc(e, TFO_STAT_TCPACKSkippedSynRecv);
		release_input(e, m);
		return;
	}
	c->flags |= TFO_CF_OOW_STAMP;
	c->oow_ms = ms;
	tfo_tcpopt_parse(tfo_pkt_tcp_hdr(m, p) + TFO_TCP_HDR_LEN, olen, &o);
	if ((c->flags & TFO_CF_PEER_TS) && o.has_ts)
		c->ts_recent = o.tsval;
	release_input(e, m);
	/* the same first flight; data in the SYN-ACK only for a TFO SYN.
	 * Queued behind the fresh answers of the burst, so that a full TX
	 * queue drops these first (tx_drop_resend). */
	e->tx_low = true;
	tfo_tcp_send_synack(e, c, (c->flags & TFO_CF_SYNACK_DATA) &&
			    o.form != TFO_FORM_NONE, TFO_FORM_NONE, 0, NULL);
	tfo_tcp_output(e, c);
	e->tx_low = false;
}

/* A SYN on an existing connection: a duplicate, a reopen of a TIME-WAIT
 * tuple, or a challenge ACK. */
static int
syn_input(struct tfo_engine *e, struct tfo_conn *c, struct rte_mbuf *m,
	  const struct tfo_pkt *p)
{
	uint8_t fl = p->tcp_flags;
	uint32_t seq = p->seq, tv = 0, te = 0;
	bool has_ts;

	if (fl & (TFO_TCP_RST | TFO_TCP_FIN)) {
		tfo_tcp_stat_inc(e, TFO_STAT_drop_syn_bad);
		rte_pktmbuf_free(m);
		return TFO_INPUT_DONE;
	}
	if (!(fl & TFO_TCP_ACK)) {
		if (c->state == TFO_CONN_SYN_RCVD && seq == c->wl1) {
			dup_syn(e, c, m, p);
			return TFO_INPUT_DONE;
		}
		if (c->state == TFO_CONN_TIME_WAIT) {
			has_ts = seg_ts(m, p, &tv, &te);
			if (tfo_seq_gt(seq, c->rcv_nxt) ||
			    ((c->flags & TFO_CF_PEER_TS) && has_ts &&
			     tfo_seq_gt(tv, c->ts_recent))) {
				tfo_tcp_conn_free(e, c, TFO_STAT_conns_closed_reopen);
				return TFO_INPUT_REOPEN;
			}
		}
	}
	/* RFC 5961 4.2: any other SYN gets a challenge ACK */
	tfo_tcp_stat_inc(e, TFO_STAT_drop_syn_bad);
	release_input(e, m);
	challenge_ack(e, c);
	return TFO_INPUT_DONE;
}

/*
 * The checks before a non-SYN segment is processed: PAWS, acceptability,
 * RST, ACK present. @return true when they used up the segment (@p m is
 * released, any answer sent).
 */
static __rte_always_inline bool
seg_rejected(struct tfo_engine *e, struct tfo_conn *c, struct rte_mbuf *m,
	     const struct tfo_pkt *p, bool has_ts, uint32_t tv)
{
	uint8_t fl = p->tcp_flags;
	uint32_t seq = p->seq, end, wnd;

	/* PAWS (RFC 7323 5.3); never for RSTs */
	if ((c->flags & TFO_CF_PEER_TS) && has_ts && !(fl & TFO_TCP_RST) &&
	    tfo_seq_lt(tv, c->ts_recent)) {
		tfo_tcp_stat_inc(e, TFO_STAT_drop_paws);
		release_input(e, m);
		send_ack(e, c);
		return true;
	}
	/* acceptability, Linux's form of RFC 9293 3.10.7.4 */
	wnd = rcv_space(e, c);
	end = seq + p->payload_len + !!(fl & TFO_TCP_FIN);
	if (tfo_seq_lt(end, c->rcv_nxt) || tfo_seq_gt(seq, c->rcv_nxt + wnd)) {
		release_input(e, m);
		if (fl & TFO_TCP_RST) {
			tfo_tcp_stat_inc(e, TFO_STAT_drop_rst_ignored);
		} else {
			tfo_tcp_stat_inc(e, TFO_STAT_drop_seq_window);
			send_ack(e, c);
		}
		return true;
	}
	if (fl & TFO_TCP_RST) {
		release_input(e, m);
		if (c->state == TFO_CONN_TIME_WAIT) {
			tfo_tcp_stat_inc(e, TFO_STAT_drop_rst_ignored);	/* RFC 1337 */
		} else if (seq == c->rcv_nxt) {
			tfo_tcp_conn_free(e, c, TFO_STAT_conns_closed_rst_rx);
		} else {
			challenge_ack(e, c);	/* RFC 5961 3.2 */
		}
		return true;
	}
	if (!(fl & TFO_TCP_ACK)) {
		tfo_tcp_stat_inc(e, TFO_STAT_drop_no_ack);
		rte_pktmbuf_free(m);
		return true;
	}
	return false;
}

/*
 * Header prediction: the segment almost every connection gets (an ACK, in
 * order, with data and a FIN or not, its options one timestamp that passes
 * PAWS). Such a segment passes seg_rejected() (seq == rcv_nxt is in any
 * window, there is no RST and an ACK), takes TS.Recent and holds no SACK
 * blocks: true lets the caller skip those checks. Anything else (no ACK,
 * RST, URG, other options, out of order) takes the generic path.
 */
static __rte_always_inline bool
seg_predicted(const struct tfo_conn *c, const struct tfo_pkt *p, bool has_ts,
	      uint32_t tv)
{
	return (p->tcp_flags & (TFO_TCP_ACK | TFO_TCP_RST | TFO_TCP_URG)) == TFO_TCP_ACK &&
	       p->seq == c->rcv_nxt && has_ts &&
	       p->l4_len == TFO_TCP_HDR_LEN + TFO_TS_OPT_LEN &&
	       (c->flags & TFO_CF_PEER_TS) && !tfo_seq_lt(tv, c->ts_recent);
}

/*
 * The end of a segment's processing once its ACK and data are taken: the
 * input frame released, what the windows now allow sent (an ACK when the
 * segment needs one and nothing else went), TIME-WAIT or the timer.
 */
static __rte_always_inline void
input_done(struct tfo_engine *e, struct tfo_conn *c, struct rte_mbuf *m, bool need_ack)
{
	unsigned int before;

	release_input(e, m);
	before = e->nxmit;
	if (unlikely(c->flags & TFO_CF_RECOVERY))
		tfo_tcp_sack_output(e, c);
	tfo_tcp_output(e, c);
	if (need_ack && e->nxmit == before)
		send_ack(e, c);
	if (c->state == TFO_CONN_TIME_WAIT) {
		tfo_tcp_time_wait(e, c);
		return;
	}
	tfo_tcp_update_timer(e, c);
}

/* NOP, NOP, timestamp of 10 bytes: Linux's layout, as one word */
#define TS_LEAD 0x0101080au

/*
 * The short path, for the two segments that end nearly every transaction:
 * an ACK of all we sent (the handshake's ACK of a TFO answer sent whole in
 * the SYN-ACK, or the ACK of a response) and the peer's bare FIN once all
 * is acknowledged, in ESTABLISHED or FIN_WAIT_2. No data, in order
 * (seq == rcv_nxt, not before the last window update), a timestamp in
 * Linux's layout as the only option and not older than TS.Recent, no
 * flag but ACK, PSH and FIN, out of recovery; a FIN only the first.
 * For such a segment the full path's checks all pass (in the window, no
 * RST, the ACK within what we sent, not a duplicate, no SACK blocks, no
 * data, the FIN next): this does the same steps in the same order
 * without them. @return false, having changed nothing, for any other
 * segment (the full path takes it).
 */
static __rte_always_inline bool
seg_fast(struct tfo_engine *e, struct tfo_conn *c, struct rte_mbuf *m,
	 const struct tfo_pkt *p)
{
	uint8_t fl = p->tcp_flags & (uint8_t)~TFO_TCP_PSH;
	uint32_t ack = p->ack, seq = p->seq, tv, te, nwin;
	const uint8_t *o;
	int gone = 0;

	if ((fl != TFO_TCP_ACK && fl != (TFO_TCP_ACK | TFO_TCP_FIN)) ||
	    p->payload_len != 0 || p->l4_len != TFO_TCP_HDR_LEN + TFO_TS_OPT_LEN ||
	    seq != c->rcv_nxt || ack != c->snd_max ||
	    (c->flags & (TFO_CF_PEER_TS | TFO_CF_RECOVERY)) != TFO_CF_PEER_TS ||
	    tfo_seq_lt(seq, c->wl1))
		return false;
	o = tfo_pkt_tcp_hdr(m, p) + TFO_TCP_HDR_LEN;
	tv = rd32(o + 4);
	if (rd32(o) != TS_LEAD || tfo_seq_lt(tv, c->ts_recent))
		return false;
	if (fl & TFO_TCP_FIN) {
		/* the first FIN alone: nothing of ours left to acknowledge */
		if (ack != c->snd_una || (c->flags & TFO_CF_PEER_FIN) ||
		    (c->state != TFO_CONN_ESTABLISHED && c->state != TFO_CONN_FIN_WAIT_2))
			return false;
	} else if (ack == c->snd_una) {
		return false;	/* acknowledges nothing new: the full path's */
	}
	te = rd32(o + 8);
	nwin = (uint32_t)p->window << ((c->flags & TFO_CF_PEER_WS) ? c->peer_ws : 0);
	c->ts_recent = tv;
	if (fl & TFO_TCP_FIN) {
		wnd_update(c, seq, nwin);
		fin_accepted(e, c);
		/* FIN_WAIT_2's FIN: our ACK is all, in the FIN's own mbuf */
		if (c->state == TFO_CONN_TIME_WAIT && tfo_tcp_ack_in_place(e, c, m, p)) {
			tfo_tcp_time_wait(e, c);
			return true;
		}
		input_done(e, c, m, true);
		return true;
	}
	if (c->state == TFO_CONN_SYN_RCVD) {
		handshake_acked(e, c, nwin, seq);
		if (ack == c->snd_una) {
			syn_only_acked(e, c, true, te);
			input_done(e, c, m, false);
			return true;
		}
	} else {
		wnd_update(c, seq, nwin);
	}
	new_ack(e, c, ack, true, te, &gone);
	if (gone) {
		rte_pktmbuf_free(m);
		return true;
	}
	input_done(e, c, m, false);
	return true;
}

int
tfo_tcp_conn_input(struct tfo_engine *e, struct tfo_conn *c, struct rte_mbuf *m,
		   const struct tfo_pkt *p)
{
	uint32_t tv = 0, te = 0;
	bool has_ts, need_ack = false;

	if (unlikely(p->tcp_flags & TFO_TCP_SYN))
		return syn_input(e, c, m, p);
	has_ts = seg_ts(m, p, &tv, &te);
	if (seg_predicted(c, p, has_ts, tv)) {
		/* what seg_rejected() would let through, and the TS.Recent
		 * update it would be followed by; nothing to SACK */
		c->ts_recent = tv;
	} else {
		if (seg_rejected(e, c, m, p, has_ts, tv))
			return TFO_INPUT_DONE;
		/* RFC 7323 4.3: TS.Recent from segments at or before rcv_nxt */
		if ((c->flags & TFO_CF_PEER_TS) && has_ts &&
		    tfo_seq_le(p->seq, c->rcv_nxt))
			c->ts_recent = tv;
		/* SACK blocks: only when the options hold more than a timestamp */
		if (unlikely(p->l4_len > TFO_TCP_HDR_LEN + (has_ts ? TFO_TS_OPT_LEN : 0)) &&
		    (c->flags & TFO_CF_PEER_SACK) && c->sbuf != TFO_CONN_NONE &&
		    c->state != TFO_CONN_SYN_RCVD)
			tfo_tcp_sack_input(e, c, m, p);
	}

	if (process_ack(e, c, p, has_ts, te) != ACK_OK ||
	    process_data(e, c, m, p, &need_ack) == TFO_TCP_CONN_GONE) {
		rte_pktmbuf_free(m);
		return TFO_INPUT_DONE;
	}
	input_done(e, c, m, need_ack);
	return TFO_INPUT_DONE;
}

void
tfo_tcp_tw_conn(const struct tfo_tw *w, struct tfo_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->key = w->key;
	c->state = TFO_CONN_TIME_WAIT;
	c->tkind = TFO_CT_TIME_WAIT;
	c->flags = w->flags;
	c->snd_una = w->snd_nxt;
	c->snd_nxt = w->snd_nxt;
	c->snd_max = w->snd_nxt;
	c->rcv_nxt = w->rcv_nxt;
	c->ts_recent = w->ts_recent;
	c->ts_off = w->ts_off;
	c->mss = TFO_MIN_MSS;
	c->sbuf = TFO_CONN_NONE;
	c->rbuf = TFO_CONN_NONE;
	c->peer_ws = w->peer_ws;
	c->port_idx = w->port_idx;
	c->peer_mac = w->peer_mac;
	c->vlan_tci = w->vlan_tci;
}

/*
 * A segment of a tuple in TIME-WAIT: what tfo_tcp_conn_input does for an
 * entry in TIME_WAIT (nothing is in flight, the peer's FIN is in: a SYN
 * may reopen, everything else is at most answered with an ACK), on the
 * record: the input steps run on the entry it stands for, rebuilt on the
 * stack, and a restart is what they leave in its timer kind
 * (enter_time_wait or a retransmission in process_data clear it).
 * tests/test_time_wait.c holds the two paths to the same verdict,
 * replies, counters and restart. @return enum tfo_input_result.
 */
__rte_noinline int
tfo_tcp_tw_input(struct tfo_engine *e, struct tfo_tw *w, struct rte_mbuf *m,
		 const struct tfo_pkt *p)
{
	uint8_t fl = p->tcp_flags;
	uint32_t tv = 0, te = 0;
	bool has_ts, need_ack = false;
	struct tfo_conn c;

	tfo_tcp_tw_conn(w, &c);
	has_ts = seg_ts(m, p, &tv, &te);
	if (unlikely(fl & TFO_TCP_SYN)) {
		if (fl & (TFO_TCP_RST | TFO_TCP_FIN)) {
			tfo_tcp_stat_inc(e, TFO_STAT_drop_syn_bad);
			rte_pktmbuf_free(m);
			return TFO_INPUT_DONE;
		}
		if (!(fl & TFO_TCP_ACK) &&
		    (tfo_seq_gt(p->seq, w->rcv_nxt) ||
		     ((w->flags & TFO_CF_PEER_TS) && has_ts &&
		      tfo_seq_gt(tv, w->ts_recent)))) {
			tfo_tcp_tw_end(e, w, TFO_STAT_conns_closed_reopen);
			return TFO_INPUT_REOPEN;
		}
		tfo_tcp_stat_inc(e, TFO_STAT_drop_syn_bad);	/* RFC 5961 4.2 */
		release_input(e, m);
		challenge_ack(e, &c);
		return TFO_INPUT_DONE;
	}
	if (seg_rejected(e, &c, m, p, has_ts, tv))
		return TFO_INPUT_DONE;
	if ((w->flags & TFO_CF_PEER_TS) && has_ts && tfo_seq_le(p->seq, w->rcv_nxt)) {
		w->ts_recent = tv;
		c.ts_recent = tv;
	}
	/* nothing in flight: an ACK is at most refused (answered) */
	if (process_ack(e, &c, p, has_ts, te) != ACK_OK) {
		rte_pktmbuf_free(m);
		return TFO_INPUT_DONE;
	}
	process_data(e, &c, m, p, &need_ack);
	release_input(e, m);
	if (need_ack)
		send_ack(e, &c);
	if (c.tkind == TFO_CT_NONE) {	/* the FIN again: TIME-WAIT restarts */
		w->expire_ms = now_ms(e) + e->p.time_wait_ms;
		w->restarted = 1;
	}
	return TFO_INPUT_DONE;
}

int
tfo_engine_input(struct tfo_engine *e, struct tfo_conn *c, struct rte_mbuf *m,
		 const struct tfo_pkt *p, uint64_t now_us)
{
	struct tfo_conn_key key;
	int r;

	engine_clock(e, now_us);
	/* @p c is the last lookup's: it holds @p p's key unless it was freed
	 * since (CLOSED), or freed and given another key, which only an open
	 * since that lookup (key_gen moved) can do */
	if (unlikely(c->state == TFO_CONN_CLOSED || e->key_gen != e->lookup_gen)) {
		tfo_conn_key_from_pkt(&key, p);
		if (c->state == TFO_CONN_CLOSED || !tfo_conn_key_eq(&c->key, &key)) {
			c = tfo_conn_lookup(e->ct, &key);
			if (c == NULL) {
				/* also the lookup's mark of a TIME-WAIT record */
				struct tfo_tw *w = tfo_conn_tw_lookup(e->ct, &key);

				if (w != NULL) {
					r = tfo_tcp_tw_input(e, w, m, p);
					tfo_tcp_spare_free(e);
					return r;
				}
				tfo_tcp_stat_inc(e, TFO_STAT_input_stale_conn);
				return TFO_INPUT_MISS;
			}
		}
	}
	/* the short path inline, without the full one's call and saves */
	if (likely(!(p->tcp_flags & TFO_TCP_SYN)) && seg_fast(e, c, m, p))
		r = TFO_INPUT_DONE;
	else
		r = tfo_tcp_conn_input(e, c, m, p);
	tfo_tcp_spare_free(e);
	return r;
}

void
tfo_engine_lookup_bulk(struct tfo_engine *e, const struct tfo_pkt *const *pkts,
		       unsigned int n, struct tfo_conn **conns)
{
	e->lookup_gen = e->key_gen;	/* tfo_engine_input: no open since */
	/* the keys the segments carry, not copies */
	tfo_conn_lookup_bulk_pkt(e->ct, pkts, n, conns);
}
