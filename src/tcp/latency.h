/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the server-side latency histograms of one lcore.
 *
 * Two histograms per lcore (worker or control), written only by it:
 *  - syn_to_response: from the poll that received a connection's SYN to
 *    the TX flush of the poll that sent its first response;
 *  - request_to_response: from the poll that received a request's last
 *    byte to the TX flush that sent its response (a pipelined request's
 *    clock starts when the response before it is acknowledged and it is
 *    taken up).
 * "Received" is the TSC the lcore reads at the start of its poll (before
 * its RX bursts: tfo_lat.t_rx); "sent" is the TSC read after the poll's TX
 * bursts returned, which the poll loop reads anyway for its busy time.
 * Every response queued in a poll has the same request_to_response (its
 * request completed at the poll's start), and so has every first response
 * whose SYN came in the same poll (TFO): the hot path counts them (two
 * increments per response), and once per poll the flush bins the counts
 * with one multiply and one count-leading-zeros. Only a first response
 * whose SYN came in an earlier poll (a plain handshake) leaves its SYN's
 * age in a short list, binned one by one. A control lcore's clock starts
 * when it takes the SYN or the request from its ring, not when a worker
 * got it.
 *
 * Buckets: log2 of microseconds: bucket b counts samples of less than
 * 2^b us (b = 0..TFO_LAT_NB_LE-1: 1 us .. 2^23 us, about 8.4 s), the last
 * one the rest (+Inf). The bounds are whole microseconds, which DPDK 22.11
 * telemetry (integers only) can show as they are.
 */
#ifndef TFO_LATENCY_H
#define TFO_LATENCY_H

#include <stdint.h>

#include <rte_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Finite buckets (upper bounds 1, 2, 4, ... 2^(TFO_LAT_NB_LE-1) us). */
#define TFO_LAT_NB_LE	24
/** All buckets: the finite ones and +Inf. */
#define TFO_LAT_NB	(TFO_LAT_NB_LE + 1)
/** First responses with an older SYN one poll may queue before the
 *  flush runs early; also the access-log records one poll stages. */
#define TFO_LAT_PEND	64
/** tfo_lat.mul is microseconds per TSC tick << this. */
#define TFO_LAT_MUL_SHIFT 24
/** A connection keeps its SYN's t_rx >> this in 32 bits (wraps after
 *  2^40 ticks: 7 minutes at 2.5 GHz, longer than any handshake waits). */
#define TFO_LAT_STAMP_SHIFT 8

enum tfo_lat_kind {
	TFO_LAT_SYN = 0,	/**< syn_to_response */
	TFO_LAT_REQ,		/**< request_to_response */
	TFO_LAT_KINDS
};

struct tfo_alog_src;	/* tcp/access_log.h */

/** One lcore's histograms and this poll's pending samples; written by
 *  that lcore only (plain increments), read racily by telemetry and the
 *  exit summary. */
struct tfo_lat {
	uint64_t t_rx;		/**< TSC at the start of the current poll */
	uint64_t mul;		/**< (ticks * mul) >> TFO_LAT_MUL_SHIFT = us */
	uint32_t npend;		/**< responses queued this poll */
	uint32_t nsyn_now;	/**< of them, first responses of a SYN of
				 *   this poll */
	uint32_t nold;		/**< first responses of an older SYN */
	/** the lcore's access-log producer, or NULL (tcp/access_log.h) */
	struct tfo_alog_src *alog;
	uint64_t old_age[TFO_LAT_PEND];	/**< their SYN's age at t_rx, ticks */
	uint64_t count[TFO_LAT_KINDS][TFO_LAT_NB];
	uint64_t sum_tsc[TFO_LAT_KINDS];	/**< TSC ticks of all samples */
} __rte_cache_aligned;

/** Set @p l up for a TSC of @p tsc_hz (counts zeroed). */
void tfo_lat_init(struct tfo_lat *l, uint64_t tsc_hz);

/**
 * The bucket of a delay of @p ticks: 0 below 1 us, b for [2^(b-1), 2^b)
 * us, TFO_LAT_NB_LE (+Inf) from 2^(TFO_LAT_NB_LE-1) us on. @p mul as
 * tfo_lat.mul. Branch-free: a multiply, a shift and a count-leading-zeros.
 */
static inline unsigned int
tfo_lat_bucket(uint64_t ticks, uint64_t mul)
{
	uint64_t us = (ticks * mul) >> TFO_LAT_MUL_SHIFT;
	/* 63 - clz(2us + 1) = floor(log2(us)) + 1, and 0 for us = 0 */
	unsigned int b = 63u - (unsigned int)__builtin_clzll((us << 1) | 1);

	return b < TFO_LAT_NB_LE ? b : TFO_LAT_NB_LE;
}

/** Upper bound of bucket @p b < TFO_LAT_NB_LE, in microseconds. */
static inline uint64_t
tfo_lat_le_us(unsigned int b)
{
	return UINT64_C(1) << b;
}

/**
 * Bin the poll's pending samples with @p now (the TSC after its TX
 * flush), complete and hand over its access-log records, and start
 * counting afresh. Called by the poll loop once per poll with samples
 * (npend != 0), and by the engine when old_age or the records are full.
 */
void tfo_lat_flush(struct tfo_lat *l, uint64_t now);

/** The microseconds of @p ticks at @p l's TSC rate. */
static inline uint64_t
tfo_lat_ticks_us(const struct tfo_lat *l, uint64_t ticks)
{
	return (ticks * l->mul) >> TFO_LAT_MUL_SHIFT;
}

/**
 * The quantile @p q (0..1) of histogram @p counts as the upper bound of
 * the bucket it falls in, in us (UINT64_MAX: +Inf; 0 with no samples).
 */
uint64_t tfo_lat_quantile_us(const uint64_t counts[TFO_LAT_NB], double q);

/** Add @p src's counts and sums to @p dst's (and take its TSC rate). */
void tfo_lat_accumulate(struct tfo_lat *dst, const struct tfo_lat *src);

/** Samples of histogram @p k. */
uint64_t tfo_lat_samples(const struct tfo_lat *l, enum tfo_lat_kind k);

/** Name of histogram @p k ("syn_to_response", "request_to_response"). */
const char *tfo_lat_kind_name(enum tfo_lat_kind k);

#ifdef __cplusplus
}
#endif

#endif /* TFO_LATENCY_H */
