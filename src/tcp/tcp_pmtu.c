/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: path-MTU discovery (RFC 1191, RFC 8201): a "fragmentation
 * needed" or "packet too big" for a segment in flight lowers the
 * connection's MSS and re-sends the flight in the smaller size.
 */
#include "tcp/engine_priv.h"

/* The error for connection @p c, quoting @p seq, reporting @p mtu (the
 * contract: tfo_engine_ptb in engine.h). @return enum tfo_ptb_result. */
static int
pmtu_apply(struct tfo_engine *e, struct tfo_conn *c, uint32_t seq, uint32_t mtu,
	   uint64_t now_us)
{
	bool v4 = c->key.family == AF_INET;
	uint32_t mss;

	engine_clock(e, now_us);
	/* RFC 5927 4.1: only an error about a segment in flight; Linux
	 * counts the others as OutOfWindowIcmps */
	if (tfo_seq_lt(seq, c->snd_una) || tfo_seq_ge(seq, c->snd_max)) {
		tfo_tcp_stat_inc(e, TFO_STAT_pmtu_rejected_seq);
		return TFO_PTB_REJECTED_SEQ;
	}
	/* a smaller (or no) MTU is raised to the floor, as Linux's
	 * min_pmtu and IPv6's minimum link MTU */
	mtu = RTE_MAX(mtu, v4 ? (uint32_t)TFO_PMTU_MIN_V4 : (uint32_t)TFO_PMTU_MIN_V6);
	mss = mtu - (v4 ? 20u : 40u) - TFO_TCP_HDR_LEN;
	if (mss >= c->mss) {
		tfo_tcp_stat_inc(e, TFO_STAT_pmtu_ignored);
		return TFO_PTB_IGNORED;
	}
	c->mss = (uint16_t)mss;
	tfo_tcp_stat_inc(e, TFO_STAT_pmtu_accepted);
	/* Karn: the re-sent segments time nothing */
	c->flags &= (uint16_t)~TFO_CF_RTT_TIMING;
	if (c->state == TFO_CONN_SYN_RCVD && seq == c->snd_una)
		/* the SYN-ACK itself was too big (TFO data in it): again,
		 * with what fits now and without the cookie */
		tfo_tcp_send_synack(e, c, (c->flags & TFO_CF_SYNACK_DATA) != 0,
				    TFO_FORM_NONE, 0, NULL);
	else
		c->snd_nxt = data_start(c);
	/* go back to snd_una with the window as it is: tcp_simple_retransmit
	 * treats this as no congestion */
	tfo_tcp_output(e, c);
	tfo_tcp_update_timer(e, c);
	tfo_tcp_spare_free(e);
	return TFO_PTB_ACCEPTED;
}

int
tfo_engine_ptb(struct tfo_engine *e, const struct tfo_ptb *ptb, uint64_t now_us)
{
	const struct tfo_pkt *pp = &ptb->flow;
	struct tfo_conn *c;

	tfo_engine_lookup_bulk(e, &pp, 1, &c);
	if (c == NULL)
		return -ENOENT;
	if (c == tfo_conn_tw_mark(e->ct)) {
		/* TIME-WAIT: nothing in flight, any quote is out of it */
		tfo_tcp_stat_inc(e, TFO_STAT_pmtu_rejected_seq);
		return TFO_PTB_REJECTED_SEQ;
	}
	return pmtu_apply(e, c, ptb->seq, ptb->mtu, now_us);
}
