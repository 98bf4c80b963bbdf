/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the supervisor's part of the server's life under a
 * service manager: readiness, the watchdog, and the drain.
 *
 * A drain (SIGTERM, /tfo/drain) sets one flag the server owns; every lcore
 * reads it once per poll with the quit flag (a plain load, no lock, no
 * system call). From then on a new SYN to a served port is answered with a
 * RST, as Linux answers a SYN for a listener that closed (the client's
 * connect() fails with ECONNREFUSED at once, and a client with several
 * addresses tries the next), counted drain_syn_refused; every connection in
 * the tables is served to its end. The supervisor (lcore/supervisor.h, on
 * control 0's lcore) sums the lcores' `conns_active` gauges (each written
 * only by its own lcore) every TFO_DRAIN_CHECK_US and stops the server when none is left, or when
 * [server] drain_timeout is over (then it logs what it cuts).
 */
#ifndef TFO_DRAIN_H
#define TFO_DRAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "lcore/lcores.h"
#include "lcore/sdnotify.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How often the supervisor looks at the connections in flight during a drain. */
#define TFO_DRAIN_CHECK_US 50000u
/** How often it logs the drain's progress. */
#define TFO_DRAIN_LOG_US 5000000u

/** The state of readiness, watchdog and drain (the supervisor's). */
struct tfo_lifecycle {
	struct tfo_sdnotify *notify;	/**< NULL: no service manager */
	/** The server's drain flag, which every lcore reads with quit;
	 *  NULL: no drain (stops at quit only). */
	volatile bool *drain;
	uint32_t drain_timeout_s;	/**< [server] drain_timeout */
	bool ready;			/**< READY=1 sent (or due with no manager) */
	bool draining;			/**< the drain has started here */
	uint64_t drain_start_us;
	uint64_t next_check_us;
	uint64_t next_log_us;
	uint64_t next_watchdog_us;
};

/**
 * Connections in flight on every lcore of @p l (every worker and control
 * lcore): the sum of their `conns_active` gauges, read while they run.
 * @p workers / @p controls (may be NULL) get the split.
 */
uint64_t tfo_drain_in_flight(const struct tfo_lcores *l, uint64_t *workers,
			     uint64_t *controls);

/**
 * Once per loop of the supervisor: READY=1 once every lcore of @p l polls,
 * WATCHDOG=1 at half the watchdog period, and the drain (started when
 * *life->drain is set: log, STOPPING=1; then progress every
 * TFO_DRAIN_LOG_US).
 * @return true when the drain is over (nothing in flight, or
 * drain_timeout): the supervisor's loop ends and the server stops.
 */
bool tfo_drain_tick(struct tfo_lifecycle *life, const struct tfo_lcores *l,
		    uint64_t now_us);

#ifdef __cplusplus
}
#endif

#endif /* TFO_DRAIN_H */
