/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: selective acknowledgements (RFC 2018) and the loss
 * recovery they allow (RFC 6675, simplified to the engine's model of one
 * response in flight). The scoreboard is the send queue's header
 * (struct tfo_sndq), so only a connection with a response in flight has
 * one. Recovery: a byte below the highest SACKed one and not SACKed is
 * taken as lost (no reordering allowance beyond DupThresh at entry); the
 * holes are resent in order while pipe (bytes in flight: not SACKed, not
 * lost, or resent) leaves room in cwnd, then new data as pipe allows
 * (tfo_tcp_sack_credit). A peer that did not send SACK-permitted gets NewReno
 * (tcp_input.c).
 */
#include "tcp/engine_priv.h"

/* Merge [l, r) into the sorted, disjoint ranges. */
static void
sb_insert(struct tfo_sndq *q, uint32_t l, uint32_t r)
{
	unsigned int i = 0, j, n = q->nsack;

	while (i < n && tfo_seq_lt(q->sack_r[i], l))
		i++;
	for (j = i; j < n && tfo_seq_le(q->sack_l[j], r); j++) {
		if (tfo_seq_lt(q->sack_l[j], l))
			l = q->sack_l[j];
		if (tfo_seq_gt(q->sack_r[j], r))
			r = q->sack_r[j];
	}
	if (j == i) {
		if (n == TFO_SACK_BLOCKS_MAX) {
			/* full: forget the highest range (its bytes look
			 * in flight, which only makes recovery slower) */
			if (i == n)
				return;
			n--;
		}
		memmove(&q->sack_l[i + 1], &q->sack_l[i], (n - i) * sizeof(uint32_t));
		memmove(&q->sack_r[i + 1], &q->sack_r[i], (n - i) * sizeof(uint32_t));
		n++;
	} else if (j > i + 1) {
		memmove(&q->sack_l[i + 1], &q->sack_l[j], (n - j) * sizeof(uint32_t));
		memmove(&q->sack_r[i + 1], &q->sack_r[j], (n - j) * sizeof(uint32_t));
		n -= j - i - 1;
	}
	q->sack_l[i] = l;
	q->sack_r[i] = r;
	q->nsack = (uint8_t)n;
}

/* SACKed bytes below @p x (every range is above snd_una). */
static uint32_t
sacked_below(const struct tfo_sndq *q, uint32_t x)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i < q->nsack && tfo_seq_lt(q->sack_l[i], x); i++)
		sum += (tfo_seq_lt(q->sack_r[i], x) ? q->sack_r[i] : x) - q->sack_l[i];
	return sum;
}

static inline uint32_t
sack_high(const struct tfo_conn *c, const struct tfo_sndq *q)
{
	return q->nsack > 0 ? q->sack_r[q->nsack - 1] : c->snd_una;
}

/* RFC 6675 pipe: above the highest SACK in flight, below it only what was
 * resent (the rest is lost or SACKed). */
static uint32_t
pipe_bytes(const struct tfo_conn *c, const struct tfo_sndq *q)
{
	uint32_t high = sack_high(c, q), rx = q->high_rxt;
	uint32_t pipe = c->snd_max - high;

	if (tfo_seq_gt(rx, high))
		rx = high;
	if (tfo_seq_gt(rx, c->snd_una))
		pipe += rx - c->snd_una - sacked_below(q, rx);
	return pipe;
}

/* The first hole at or above @p from: [*hs, *he). */
static bool
next_hole(const struct tfo_sndq *q, uint32_t from, uint32_t *hs, uint32_t *he)
{
	for (unsigned int i = 0; i < q->nsack; i++) {
		if (tfo_seq_lt(from, q->sack_l[i])) {
			*hs = from;
			*he = q->sack_l[i];
			return true;
		}
		if (tfo_seq_lt(from, q->sack_r[i]))
			from = q->sack_r[i];
	}
	return false;
}

void
tfo_tcp_sack_input(struct tfo_engine *e, struct tfo_conn *c,
		   const struct rte_mbuf *m, const struct tfo_pkt *p)
{
	uint32_t l[TFO_SACK_BLOCKS_MAX], r[TFO_SACK_BLOCKS_MAX], lo;
	struct tfo_sndq *q = tfo_tcp_sndq(e, c);
	unsigned int n;

	if (tfo_seq_gt(p->ack, c->snd_max))
		return;		/* the ACK is dropped */
	n = tfo_tcpopt_sack_blocks(tfo_pkt_tcp_hdr(m, p) + TFO_TCP_HDR_LEN,
				   p->l4_len - TFO_TCP_HDR_LEN, l, r);
	lo = tfo_seq_gt(p->ack, c->snd_una) ? p->ack : c->snd_una;
	for (unsigned int k = 0; k < n; k++) {
		/* D-SACK (RFC 2883: below the ack), beyond what we sent,
		 * empty or reversed: of no use to the scoreboard */
		if (!tfo_seq_lt(l[k], r[k]) || tfo_seq_lt(l[k], lo) ||
		    tfo_seq_gt(r[k], c->snd_max)) {
			tfo_tcp_stat_inc(e, TFO_STAT_sack_blocks_ignored);
			continue;
		}
		tfo_tcp_stat_inc(e, TFO_STAT_sack_blocks_rx);
		sb_insert(q, l[k], r[k]);
	}
}

void
tfo_tcp_sack_acked(struct tfo_engine *e, struct tfo_conn *c, uint32_t ack)
{
	struct tfo_sndq *q = tfo_tcp_sndq(e, c);
	unsigned int i = 0, n = q->nsack;

	while (i < n && tfo_seq_le(q->sack_r[i], ack))
		i++;
	if (i > 0) {
		n -= i;
		memmove(&q->sack_l[0], &q->sack_l[i], n * sizeof(uint32_t));
		memmove(&q->sack_r[0], &q->sack_r[i], n * sizeof(uint32_t));
	}
	if (n > 0 && tfo_seq_lt(q->sack_l[0], ack))
		q->sack_l[0] = ack;
	q->nsack = (uint8_t)n;
}

/* RFC 6675 IsLost(snd_una): DupThresh ranges, or more than
 * (DupThresh - 1) * SMSS bytes, SACKed above it. */
bool
tfo_tcp_sack_lost(const struct tfo_engine *e, const struct tfo_conn *c)
{
	const struct tfo_sndq *q;

	if (!(c->flags & TFO_CF_PEER_SACK) || c->sbuf == TFO_CONN_NONE)
		return false;
	q = tfo_tcp_sndq(e, c);
	return q->nsack >= 3 ||
	       sacked_below(q, c->snd_max) > 2 * (uint32_t)seg_max(c);
}

/*
 * Resend holes in order from HighRxt while pipe leaves room in cwnd.
 * @p force: the first one regardless of cwnd, and with no SACK
 * information at all the segment at snd_una (the ACK point is a hole).
 */
static void
send_holes(struct tfo_engine *e, struct tfo_conn *c, struct tfo_sndq *q,
	   bool force)
{
	uint32_t start = data_start(c), total = unacked_len(e, c);
	uint32_t smax = seg_max(c);

	for (;;) {
		uint32_t from = tfo_seq_gt(q->high_rxt, c->snd_una) ?
				q->high_rxt : c->snd_una;
		uint32_t hs, he, doff, len;
		bool fin;

		if (!next_hole(q, from, &hs, &he)) {
			if (!force || q->nsack > 0)
				break;
			hs = from;
			he = start + total + 1;	/* the rest, FIN included */
		}
		doff = hs - start;
		if (doff > total)
			break;
		len = RTE_MIN(RTE_MIN(he - hs, smax), total - doff);
		/* the FIN rides along when the hole runs to it (or is it) */
		fin = fin_pending(c) && doff + len == total &&
		      he - hs > len && tfo_seq_gt(c->snd_max, start + total);
		if (len == 0 && !fin)
			break;
		if (!force && pipe_bytes(c, q) + len > c->cwnd)
			break;
		if (tfo_tcp_xmit(e, c, hs, TFO_TCP_ACK |
				 (doff + len == total ? TFO_TCP_PSH : 0) |
				 (fin ? TFO_TCP_FIN : 0), doff, len) != 0)
			break;
		tfo_tcp_stat_inc(e, TFO_STAT_retransmit_segs);
		tfo_tcp_stat_inc(e, TFO_STAT_sack_retransmit_segs);
		c->flags &= (uint16_t)~TFO_CF_RTT_TIMING;	/* Karn */
		q->high_rxt = hs + len + fin;
		force = false;
	}
}

/* Entering fast recovery (cwnd, ssthresh, recover are set): SACK-driven
 * when the peer allows it. @return false for NewReno. */
bool
tfo_tcp_sack_enter(struct tfo_engine *e, struct tfo_conn *c)
{
	struct tfo_sndq *q;

	if (c->sbuf == TFO_CONN_NONE)
		return false;
	q = tfo_tcp_sndq(e, c);
	/* after an RTO's rewind go-back-N is already resending */
	q->sack_rec = (c->flags & TFO_CF_PEER_SACK) && c->snd_nxt == c->snd_max &&
		      unacked_len(e, c) > 0;
	if (!q->sack_rec)
		return false;
	q->high_rxt = c->snd_una;
	tfo_tcp_stat_inc(e, TFO_STAT_sack_recovery_episodes);
	send_holes(e, c, q, true);
	return true;
}

/* A partial ACK in recovery. @return false when NewReno handles it. */
bool
tfo_tcp_sack_partial(struct tfo_engine *e, struct tfo_conn *c, uint32_t ack)
{
	struct tfo_sndq *q;

	if (c->sbuf == TFO_CONN_NONE)
		return false;
	q = tfo_tcp_sndq(e, c);
	if (!q->sack_rec)
		return false;
	/* everything resent is in, and no SACK tells where the next hole
	 * is: the ACK point is one (what NewReno would resend) */
	if (q->nsack == 0 && tfo_seq_ge(ack, q->high_rxt))
		send_holes(e, c, q, true);
	return true;
}

/*
 * Sent bytes that SACK recovery does not count in flight (SACKed, or lost
 * and not resent): what tfo_tcp_output() adds to cwnd for new data
 * (RFC 6675 NextSeg rule 2). 0 outside SACK recovery.
 */
uint32_t
tfo_tcp_sack_credit(const struct tfo_engine *e, const struct tfo_conn *c)
{
	const struct tfo_sndq *q;

	if (c->sbuf == TFO_CONN_NONE)
		return 0;
	q = tfo_tcp_sndq(e, c);
	if (!q->sack_rec)
		return 0;
	return c->snd_max - c->snd_una - pipe_bytes(c, q);
}

/* Room in the window after an ACK during recovery: more holes. */
void
tfo_tcp_sack_output(struct tfo_engine *e, struct tfo_conn *c)
{
	struct tfo_sndq *q;

	if (c->sbuf == TFO_CONN_NONE)
		return;
	q = tfo_tcp_sndq(e, c);
	if (q->sack_rec)
		send_holes(e, c, q, false);
}
