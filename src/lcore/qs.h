/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the polling lcores' quiescent states, so that memory a PMD
 * reads in its bursts is not unmapped under them.
 *
 * Why: DPDK 22.11's net_memif checks its connected flag once at the start
 * of eth_memif_rx / eth_memif_tx (a plain field) and then reads the peer's
 * shared rings and buffers. When the peer leaves, memif_disconnect runs on
 * the EAL interrupt thread: it clears the flag and munmaps the regions at
 * once, without waiting for the lcores (memif_socket.c:537, then
 * rte_eth_memif.c:874). An lcore inside a burst then faults on ring->head.
 * memif raises no event we could act on first, and the flag is private.
 *
 * What: every polling lcore is a reader of one rte_rcu_qsbr variable. It
 * reports a quiescent state once per poll loop (between bursts: it holds
 * no pointer into a PMD's memory), is offline while it sleeps and after
 * its loop. tfo-server interposes munmap (apps/tfo-server/munmap.c): a
 * thread that is not a reader waits, before the unmap, until every online
 * reader has passed a quiescent state (tfo_qs_wait). The PMD cleared its
 * flag before it called munmap; the writer's token increment (a release)
 * comes after that store, and a reader's report loads the token with
 * acquire: a reader that reported the new token sees the cleared flag in
 * its next burst and leaves it at once. So once the wait is over no lcore
 * is inside a burst that began before the flag was cleared, and none will
 * enter one that reads the peer's memory.
 *
 * The variable is process-wide (a static of qs.c): munmap has no argument
 * to carry it. A reader's id is its lcore id, kept in a thread-local.
 * Cost on the hot path: tfo_qs_report, once per poll loop (two loads and
 * a compare while no writer waits).
 */
#ifndef TFO_QS_H
#define TFO_QS_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_per_lcore.h>
#include <rte_rcu_qsbr.h>

#include "ops/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How long a writer waits for the readers before it gives up
 *  (tfo_qs_wait): far above a poll loop (microseconds) or a preempted
 *  lcore's time off its CPU (milliseconds). */
#define TFO_QS_WAIT_MAX_MS 5000u
/** A waiting writer sleeps this long between two looks. */
#define TFO_QS_WAIT_STEP_US 20u

/** The process's QS variable; NULL until tfo_qs_init (qs.c). */
extern struct rte_rcu_qsbr *tfo_qs_var;
/** This thread's reader id + 1 while it is a reader; 0 otherwise. */
RTE_DECLARE_PER_LCORE(unsigned int, tfo_qs_self);

/**
 * Create the QS variable (once per process; later calls do nothing). Until
 * then readers and writers do nothing. Not freed: a writer may look at it
 * from any thread at any time, up to the process's exit.
 * @return 0 or -ENOMEM.
 */
int tfo_qs_init(void);

/**
 * On an lcore's own thread, before its poll loop: register as a reader
 * (id: its lcore id) and go online. Nothing without tfo_qs_init.
 * @return 0, or -EINVAL (not an EAL lcore) logged.
 */
int tfo_qs_reader_enter(void);

/** On the reader's thread, after its poll loop: offline, unregistered. */
void tfo_qs_reader_leave(void);

/**
 * Once per poll loop, between bursts: this lcore holds no pointer into a
 * PMD's memory. Nothing on a thread that is not a reader.
 */
static inline void
tfo_qs_report(void)
{
	unsigned int self = RTE_PER_LCORE(tfo_qs_self);

	if (likely(self != 0))
		rte_rcu_qsbr_quiescent(tfo_qs_var, self - 1);
}

/** Before a sleep (ppoll, nanosleep): a writer need not wait for it. */
static inline void
tfo_qs_offline(void)
{
	unsigned int self = RTE_PER_LCORE(tfo_qs_self);

	if (self != 0)
		rte_rcu_qsbr_thread_offline(tfo_qs_var, self - 1);
}

/** After the sleep, before the next burst (a full fence inside). */
static inline void
tfo_qs_online(void)
{
	unsigned int self = RTE_PER_LCORE(tfo_qs_self);

	if (self != 0)
		rte_rcu_qsbr_thread_online(tfo_qs_var, self - 1);
}

/**
 * Writer side (the munmap interposer): on a thread that is not a reader,
 * wait until every online reader has passed a quiescent state, sleeping
 * TFO_QS_WAIT_STEP_US between looks, TFO_QS_WAIT_MAX_MS at most.
 * @return 0 (no variable, a reader's own thread, or no reader online: no
 * wait), 1 (waited; counted unmap_waits), or -ETIMEDOUT (a reader is stuck
 * in a burst, or stopped: the caller must leave the memory mapped; counted
 * unmap_kept, logged the first time).
 */
int tfo_qs_wait(void);

/** Copy the writers' counters (unmap_waits, unmap_kept) into @p st
 *  (control 0's, once per loop and at exit). */
void tfo_qs_stats(struct tfo_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* TFO_QS_H */
