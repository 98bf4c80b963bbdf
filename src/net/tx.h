/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: a per-lcore TX buffer, one queue of frames per port.
 *
 * Whoever builds frames (the engine, the control core, the load generator)
 * pushes them here; the owner's flush callback sends or frees a port's
 * queue when it is full and at the end of each burst. The engine never
 * touches a device: tests and benchmarks give it a buffer whose flush
 * captures the frames.
 */
#ifndef TFO_TX_H
#define TFO_TX_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "net/pkt.h"
#include "ops/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TFO_TX_BUF 64

struct tfo_tx;
/** Called when a port's buffer is full and at the end of the caller's burst. */
typedef void (*tfo_tx_flush_t)(struct tfo_tx *tx, uint8_t port_idx);

/*
 * pkts[0, n) is sent in order; the last nlow of them are re-sent answers
 * (tfo_tx_push_low) that fresh frames overtake, so that when the port takes
 * only part of a burst (it drops the tail) they are the first to go. A
 * flush only sets n = 0: a stale nlow > n is read as 0 by the next push.
 */
struct tfo_tx_q {
	uint16_t n;
	uint16_t nlow;
	struct rte_mbuf *pkts[TFO_TX_BUF];
};

struct tfo_tx {
	tfo_tx_flush_t flush;	/**< must empty q[port_idx] (send or free) */
	void *arg;		/**< for the flush callback */
	/** The owner's counters: each push counts tx_queued (the accounting
	 *  of stats.h); NULL: not counted. */
	struct tfo_stats *stats;
	struct tfo_tx_q q[TFO_MAX_PORTS];
};

/* Port @p port_idx's queue with room for one frame (flushed when full),
 * its nlow made valid again after a flush. */
static inline struct tfo_tx_q *
tfo_tx_room(struct tfo_tx *tx, uint8_t port_idx)
{
	struct tfo_tx_q *q = &tx->q[port_idx];

	if (unlikely(q->n == TFO_TX_BUF)) {
		tx->flush(tx, port_idx);
		q = &tx->q[port_idx];
	}
	if (unlikely(q->nlow > q->n))
		q->nlow = 0;	/* flushed since */
	if (tx->stats != NULL)
		tx->stats->c[TFO_STAT_tx_queued]++;
	return q;
}

/** Queue @p m for port @p port_idx, ahead of the re-sent answers queued
 *  (tfo_tx_push_low); flushes first when the buffer is full. */
static inline void
tfo_tx_push(struct tfo_tx *tx, uint8_t port_idx, struct rte_mbuf *m)
{
	struct tfo_tx_q *q = tfo_tx_room(tx, port_idx);

	if (unlikely(q->nlow != 0)) {
		/* the first low frame moves to the end: m takes its place */
		uint16_t f = (uint16_t)(q->n - q->nlow);

		q->pkts[q->n++] = q->pkts[f];
		q->pkts[f] = m;
		return;
	}
	q->pkts[q->n++] = m;
}

/**
 * Queue @p m, a re-sent answer (a duplicate SYN's SYN-ACK), behind every
 * fresh frame of the buffer: when the port takes only part of the burst,
 * these are dropped first (counted as tx_drop_resend by tfo_tx_q_send).
 */
static inline void
tfo_tx_push_low(struct tfo_tx *tx, uint8_t port_idx, struct rte_mbuf *m)
{
	struct tfo_tx_q *q = tfo_tx_room(tx, port_idx);

	q->pkts[q->n++] = m;
	q->nlow++;
}

/**
 * Send @p n (at most TFO_TX_BUF) frames of @p pkts on (@p port_id,
 * @p queue): those the port takes are counted in @p s as tx_pkts/tx_bytes
 * and are the device's; the rest stay the caller's.
 * @return how many the port took (the first ones).
 */
uint16_t tfo_tx_burst(uint16_t port_id, uint16_t queue, struct rte_mbuf **pkts,
		      uint16_t n, struct tfo_stats *s);

/**
 * Send @p q on (@p port_id, @p queue) and empty it: what the port takes is
 * counted in @p s as tx_pkts/tx_bytes, the rest freed as tx_drop_full (of
 * which the re-sent answers, the tail, also as tx_drop_resend).
 */
void tfo_tx_q_send(struct tfo_tx_q *q, uint16_t port_id, uint16_t queue,
		   struct tfo_stats *s);

/** Of the @p dropped last frames of @p q (not taken by the port or the
 *  relay ring), how many were re-sent answers. */
static inline uint16_t
tfo_tx_q_low_dropped(const struct tfo_tx_q *q, uint16_t dropped)
{
	uint16_t low = q->nlow > q->n ? 0 : q->nlow;

	return RTE_MIN(low, dropped);
}

#ifdef __cplusplus
}
#endif

#endif /* TFO_TX_H */
