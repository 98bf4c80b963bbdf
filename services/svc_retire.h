/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the states a service's reload() replaced, kept until no
 * lcore can use them (shared by the built-in services: http's roots,
 * dns's zone sets).
 *
 * handle() loads the current state once per request; reload() publishes a
 * new one with one release store and retires the old one here. Engine send
 * queues may still point into its blobs until the client acknowledges them,
 * however long a slow reader takes, so reclaim() (the control lcore's
 * loop) frees a retired state only once its grace time is over (reload_drain
 * seconds: a handle() that loaded it before the swap, frames on their way
 * to the NIC) AND no engine sends from it any more, asked at most once a
 * second per state (see tfo_service.reclaim).
 */
#ifndef TFO_SVC_RETIRE_H
#define TFO_SVC_RETIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "tfo/service.h"

/** One slot of replaced state; zero-initialised it is free. */
struct svc_retired {
	void *st;		/**< atomic; NULL: a free slot */
	uint64_t grace_tsc;	/**< written before st */
	/* control lcore only (reclaim): */
	uint64_t check_tsc;	/**< next reference check */
	bool held;		/**< kept past grace_tsc: logged, counted */
};

/** What the reclaim needs to know of one service's states. */
struct svc_retire_ops {
	/** Whether an engine still sends from @p st (@p sends_from is
	 *  never NULL here). */
	bool (*sent)(const void *st, tfo_svc_sends_from_fn sends_from, void *arg);
	/** Log and free @p st: nothing uses it any more. */
	void (*free)(void *st, void *ctx);
	/** Log, once per state, that @p st outlives its grace time. */
	void (*held)(const void *st, void *ctx);
};

/** A free slot of @p r[0..n), or -1 when every one still drains (reload's
 *  thread). */
int svc_retire_slot(const struct svc_retired *r, unsigned int n);

/** Retire @p old into free slot @p r: freed no sooner than @p drain_s
 *  seconds from now. Call before publishing the new state. */
void svc_retire_put(struct svc_retired *r, void *old, uint32_t drain_s);

/**
 * Free what of @p r[0..n) is past its grace time and not sent from (all of
 * it when @p sends_from is NULL: no engine exists). @p ctx goes to
 * @p ops's free and held. @return how many states were found held in this
 * call (each counted once), for tfo_service.reclaim.
 */
unsigned int svc_retire_reclaim(struct svc_retired *r, unsigned int n,
				const struct svc_retire_ops *ops, void *ctx,
				tfo_svc_sends_from_fn sends_from, void *arg);

#endif /* TFO_SVC_RETIRE_H */
