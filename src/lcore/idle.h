/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: what an lcore does when a poll finds nothing, and the
 * doorbells by which one lcore wakes another ([server] idle_policy).
 *
 * adaptive (the default): an lcore polls while it has work and for
 * idle_poll_us after its last work, pausing between empty polls and
 * yielding the CPU at least every TFO_IDLE_YIELD_US (every empty poll when
 * another lcore is pinned to the same CPU): a thread woken on its CPU (the
 * kernel client, its softirq work, a tool) runs within microseconds, where
 * the scheduler would let a spinning lcore finish its slice. Then it waits in one
 * ppoll() on its doorbell and on the RX interrupt file descriptors of its
 * queues. An lcore whose every RX queue can wake it (net_tap, NICs with RX
 * interrupts; or no RX queue: controls 1..N-1) waits up to the timer tick
 * (TFO_IDLE_WAIT_MAX_US) while its engine has timers, up to
 * TFO_IDLE_QUIET_US when nothing is due. One with a queue that cannot
 * (net_memif, net_af_xdp, net_ring, net_null in DPDK 22.11) naps: a
 * sixteenth of the silence past the polling window, between
 * TFO_IDLE_NAP_MIN_US and TFO_IDLE_WAIT_MAX_US, so the latency a nap adds
 * stays a small share of the gap between arrivals: short while traffic
 * came in the last milliseconds, one timer tick after real silence. Its
 * doorbell still ends a nap at once. The lcore threads run with a 1 ns
 * timer slack (the kernel's default 50 us would be most of a short nap).
 *
 * busy: poll always (rte_pause between empty polls). One CPU per lcore.
 * sleep: nap idle_sleep_us in one nanosleep after every empty poll (the
 * old default, kept for comparison; no doorbell, default timer slack).
 *
 * A doorbell is an eventfd and an "asleep" word. The owner announces that
 * it waits (asleep = 1, full fence), then checks its rings once more and
 * only then sleeps; a producer enqueues, fences, and writes the eventfd
 * only when it sees asleep set (exchanged back to 0, so one producer of
 * many writes). Either the owner sees the frames or the producer sees the
 * flag: no lost wake-up, and no system call while the owner is awake.
 */
#ifndef TFO_IDLE_H
#define TFO_IDLE_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "net/pkt.h"
#include "ops/config.h"	/* enum tfo_idle_policy */
#include "ops/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The longest wait of an idle lcore with timers armed, and the longest
 *  nap: the engine's timer tick. */
#define TFO_IDLE_WAIT_MAX_US 1000u
/** The longest wait of a wakeable lcore with nothing due (no connection,
 *  no TIME-WAIT record): only a doorbell or a frame has work for it. */
#define TFO_IDLE_QUIET_US 100000u
/** The shortest nap of an lcore that no device can wake. */
#define TFO_IDLE_NAP_MIN_US 8u
/** A nap is the silence past the polling window divided by 2^this. */
#define TFO_IDLE_NAP_SHIFT 4

/** A polling lcore yields its CPU at least this often (adaptive). */
#define TFO_IDLE_YIELD_US 10u

/** Rings an lcore checks before it sleeps: one per worker, inbox, relays. */
#define TFO_IDLE_MAX_RINGS (2 * RTE_MAX_LCORE + TFO_MAX_PORTS + 1)
/** RX queues an lcore polls: one per port, SYN queues, exception paths. */
#define TFO_IDLE_MAX_RXQ (2 * TFO_MAX_PORTS)

/** One lcore's doorbell (its own cache line: producers read it). */
struct tfo_doorbell {
	uint32_t asleep;	/**< 1 while the owner waits or is about to */
	int fd;			/**< eventfd; -1: the owner never sleeps on it */
} __rte_cache_aligned;

/** An RX queue the lcore polls, and what its interrupt needs. */
struct tfo_idle_rxq {
	uint16_t port_id;
	uint16_t queue;
	bool arm;		/**< rte_eth_dev_rx_intr_enable before a wait */
	bool drain;		/**< its fd is an eventfd: read it after a wake */
};

/** What an lcore is given (tfo_idle_init). */
struct tfo_idle_params {
	uint8_t policy;		/**< enum tfo_idle_policy */
	uint32_t sleep_us;	/**< sleep: the nap after an empty poll */
	uint32_t poll_us;	/**< adaptive: polling after the last work */
	/** Another lcore is pinned to one of this lcore's CPUs: an empty
	 *  poll yields the CPU (sched_yield) instead of spinning on it. */
	bool shared_cpu;
};

/** One lcore's idle state; owned by that lcore after tfo_idle_init. */
struct tfo_idle {
	struct tfo_doorbell bell;	/* first: its own cache line */
	uint8_t policy;
	/** Another lcore is pinned to its CPU: every empty poll yields. */
	bool shared_cpu;
	/** Every RX queue it polls has an interrupt: it can wait long. */
	bool wakeable;
	uint32_t sleep_us;
	uint64_t poll_tsc;
	uint64_t tsc_per_us;
	uint64_t last_work_tsc;
	uint64_t yield_tsc;		/* the next yield while polling */
	uint64_t yield_period_tsc;	/* TFO_IDLE_YIELD_US */
	unsigned int nb_rings;
	unsigned int nb_rxq;
	unsigned int nb_fds;		/* bell + interrupt fds */
	struct rte_ring *rings[TFO_IDLE_MAX_RINGS];
	struct tfo_idle_rxq rxq[TFO_IDLE_MAX_RXQ];
	struct pollfd fds[1 + TFO_IDLE_MAX_RXQ];
};

/**
 * Set @p id up from @p p (adaptive: an eventfd for the doorbell).
 * @return 0, -EINVAL (unknown policy) or -errno of eventfd().
 */
int tfo_idle_init(struct tfo_idle *id, const struct tfo_idle_params *p);

/** Close the doorbell's eventfd. Idempotent. */
void tfo_idle_close(struct tfo_idle *id);

/**
 * A ring this lcore consumes and other lcores fill (they ring the
 * doorbell after enqueueing): checked once more before every wait.
 * @return 0 or -ENOSPC.
 */
int tfo_idle_watch_ring(struct tfo_idle *id, struct rte_ring *r);

/**
 * An RX queue this lcore polls. With an interrupt file descriptor
 * (the port configured with intr_conf.rxq), a frame on it ends a wait;
 * without, the lcore is no longer wakeable and naps (adaptive).
 * @return 1 (it can wake the lcore), 0 (it cannot, or the policy is not
 * adaptive), or -ENOSPC.
 */
int tfo_idle_watch_rxq(struct tfo_idle *id, uint16_t port_id, uint16_t queue);

/**
 * On the lcore's own thread, before its loop: the timer slack (adaptive).
 * @p what names the lcore in the log line that says how it waits.
 */
void tfo_idle_enter(struct tfo_idle *id, const char *what);

/** A poll at @p now_tsc found work. */
static inline void
tfo_idle_work(struct tfo_idle *id, uint64_t now_tsc)
{
	id->last_work_tsc = now_tsc;
}

/**
 * adaptive, past the polling window: how long the wait at @p now_tsc may
 * last, in microseconds. A wakeable lcore: @p wait_max_us. One that naps:
 * (the silence since its last work - the polling window) /
 * 2^TFO_IDLE_NAP_SHIFT, at least TFO_IDLE_NAP_MIN_US, at most
 * TFO_IDLE_WAIT_MAX_US and @p wait_max_us.
 */
uint32_t tfo_idle_wait_us(const struct tfo_idle *id, uint64_t now_tsc,
			  uint32_t wait_max_us);

/** tfo_idle_wait's slow part: sleep's nap; adaptive's yield within the
 *  polling window, then its wait for a wake-up, or its nap, past it. */
void tfo_idle_sleep(struct tfo_idle *id, uint64_t now_tsc, uint32_t wait_max_us,
		    struct tfo_stats *st);

/**
 * A poll at @p now_tsc found nothing: pause, yield, wait or nap, as the
 * policy says; a wait lasts @p wait_max_us at most (the owner's next
 * deadline: TFO_IDLE_WAIT_MAX_US while timers are armed). Waits are
 * counted in @p st (idle_waits, idle_wakeups).
 */
static inline void
tfo_idle_wait(struct tfo_idle *id, uint64_t now_tsc, uint32_t wait_max_us,
	      struct tfo_stats *st)
{
	if (id->policy == TFO_IDLE_BUSY ||
	    (id->policy == TFO_IDLE_ADAPTIVE && !id->shared_cpu && now_tsc < id->yield_tsc &&
	     now_tsc - id->last_work_tsc < id->poll_tsc)) {
		rte_pause();
		return;
	}
	tfo_idle_sleep(id, now_tsc, wait_max_us, st);
}

/**
 * Sleep up to @p us microseconds, in one nanosleep: a signal ends it early.
 * Not rte_delay_us_sleep(), which restarts after every signal: net_tap
 * raises one per received frame, and under a storm that sleep never ends.
 */
static inline void
tfo_nap_us(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/** Write the eventfd of @p db (async-signal-safe); counted in @p st when
 *  not NULL. */
void tfo_doorbell_wake(struct tfo_doorbell *db, struct tfo_stats *st);

/**
 * After enqueueing onto a ring whose consumer owns @p db: wake it if it
 * sleeps (a write to its eventfd, counted as doorbell_rings in @p st).
 * NULL @p db (no consumer that sleeps): nothing.
 */
static inline void
tfo_doorbell_ring(struct tfo_doorbell *db, struct tfo_stats *st)
{
	if (db == NULL)
		return;
	/* the enqueue (a release store of the ring's tail) before the load
	 * of asleep: store-load order needs the full fence; the owner does
	 * the mirror image before its last look at the rings */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (likely(__atomic_load_n(&db->asleep, __ATOMIC_RELAXED) == 0))
		return;
	if (__atomic_exchange_n(&db->asleep, 0, __ATOMIC_RELAXED) != 0)
		tfo_doorbell_wake(db, st);
}

#ifdef __cplusplus
}
#endif

#endif /* TFO_IDLE_H */
