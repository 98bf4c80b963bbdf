/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the polling lcores' quiescent states and the writers that
 * wait for them before an unmap (see qs.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lcore/qs.h"
#include "tfo/log.h"

struct rte_rcu_qsbr *tfo_qs_var;
RTE_DEFINE_PER_LCORE(unsigned int, tfo_qs_self);

/* Written by whichever thread unmaps (the EAL interrupt thread, control
 * threads): atomics, read by control 0 into its counters. */
static uint64_t tfo_qs_waits;
static uint64_t tfo_qs_kept;

int
tfo_qs_init(void)
{
	size_t sz;
	void *v;

	if (__atomic_load_n(&tfo_qs_var, __ATOMIC_ACQUIRE) != NULL)
		return 0;
	/* libc memory, not rte_malloc: it must outlive rte_eal_cleanup, since
	 * a writer may look at it until the process exits */
	sz = rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE);
	if (posix_memalign(&v, RTE_CACHE_LINE_SIZE, RTE_ALIGN_CEIL(sz, RTE_CACHE_LINE_SIZE)) != 0)
		return -ENOMEM;
	if (rte_rcu_qsbr_init(v, RTE_MAX_LCORE) != 0) {
		free(v);
		return -ENOMEM;
	}
	/* the variable's contents before the pointer */
	__atomic_store_n(&tfo_qs_var, v, __ATOMIC_RELEASE);
	return 0;
}

int
tfo_qs_reader_enter(void)
{
	unsigned int id = rte_lcore_id();

	if (tfo_qs_var == NULL)
		return 0;
	if (id >= RTE_MAX_LCORE) {
		TFO_LOG(ERR, "quiescent states: a reader must be an EAL lcore");
		return -EINVAL;
	}
	rte_rcu_qsbr_thread_register(tfo_qs_var, id);
	rte_rcu_qsbr_thread_online(tfo_qs_var, id);
	RTE_PER_LCORE(tfo_qs_self) = id + 1;
	return 0;
}

void
tfo_qs_reader_leave(void)
{
	unsigned int self = RTE_PER_LCORE(tfo_qs_self);

	if (self == 0)
		return;
	rte_rcu_qsbr_thread_offline(tfo_qs_var, self - 1);
	rte_rcu_qsbr_thread_unregister(tfo_qs_var, self - 1);
	RTE_PER_LCORE(tfo_qs_self) = 0;
}

int
tfo_qs_wait(void)
{
	struct rte_rcu_qsbr *v = __atomic_load_n(&tfo_qs_var, __ATOMIC_ACQUIRE);
	const struct timespec step = { .tv_nsec = TFO_QS_WAIT_STEP_US * 1000 };
	uint64_t t, deadline;

	/* a reader never waits for itself (it is between bursts when it
	 * unmaps anything), nor does anyone before the variable exists */
	if (v == NULL || RTE_PER_LCORE(tfo_qs_self) != 0)
		return 0;
	/* after the caller's stores (a PMD's cleared flag): a release */
	t = rte_rcu_qsbr_start(v);
	if (rte_rcu_qsbr_check(v, t, false))
		return 0;
	/* the TSC: no clock_gettime, which an early caller may not have */
	deadline = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * TFO_QS_WAIT_MAX_MS;
	/* Sleep between looks, never spin: on a small host the lcore we wait
	 * for may need this CPU to get to its next report. */
	do {
		nanosleep(&step, NULL);
		if (rte_rcu_qsbr_check(v, t, false)) {
			__atomic_fetch_add(&tfo_qs_waits, 1, __ATOMIC_RELAXED);
			return 1;
		}
	} while (rte_get_tsc_cycles() < deadline);
	if (__atomic_fetch_add(&tfo_qs_kept, 1, __ATOMIC_RELAXED) == 0)
		TFO_LOG(ERR, "an lcore passed no quiescent state in %u ms (stuck in a burst, "
			"or stopped): memory a PMD unmaps is left mapped (unmap_kept)",
			TFO_QS_WAIT_MAX_MS);
	return -ETIMEDOUT;
}

void
tfo_qs_stats(struct tfo_stats *st)
{
	st->c[TFO_STAT_unmap_waits] = __atomic_load_n(&tfo_qs_waits, __ATOMIC_RELAXED);
	st->c[TFO_STAT_unmap_kept] = __atomic_load_n(&tfo_qs_kept, __ATOMIC_RELAXED);
}
