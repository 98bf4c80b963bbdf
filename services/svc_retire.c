/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: replaced service states kept until no lcore uses them
 * (svc_retire.h).
 */
#include <rte_cycles.h>

#include "svc_retire.h"

int
svc_retire_slot(const struct svc_retired *r, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (__atomic_load_n(&r[i].st, __ATOMIC_ACQUIRE) == NULL)
			return (int)i;
	return -1;
}

void
svc_retire_put(struct svc_retired *r, void *old, uint32_t drain_s)
{
	r->grace_tsc = rte_get_tsc_cycles() + (uint64_t)drain_s * rte_get_tsc_hz();
	r->check_tsc = 0;
	r->held = false;
	__atomic_store_n(&r->st, old, __ATOMIC_RELEASE);
}

/*
 * After the swap no handle() returns a retired state's blobs, and after
 * the grace time none that loaded it before the swap is still on its way
 * to a send queue: its references can only go away, so an answer "not
 * sent from" stays true. The check walks every connection: at most once
 * a second per state.
 */
unsigned int
svc_retire_reclaim(struct svc_retired *r, unsigned int n,
		   const struct svc_retire_ops *ops, void *ctx,
		   tfo_svc_sends_from_fn sends_from, void *arg)
{
	uint64_t now = rte_get_tsc_cycles();
	unsigned int held = 0;

	for (unsigned int i = 0; i < n; i++) {
		void *st = __atomic_load_n(&r[i].st, __ATOMIC_ACQUIRE);

		if (st == NULL || now < r[i].grace_tsc || now < r[i].check_tsc)
			continue;
		if (sends_from == NULL || !ops->sent(st, sends_from, arg)) {
			ops->free(st, ctx);
			__atomic_store_n(&r[i].st, NULL, __ATOMIC_RELEASE);
			continue;
		}
		r[i].check_tsc = now + rte_get_tsc_hz();
		if (!r[i].held) {
			r[i].held = true;
			held++;
			ops->held(st, ctx);
		}
	}
	return held;
}
