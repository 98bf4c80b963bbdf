/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: hashed timer wheel (see timer.h).
 */
#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "tcp/timer.h"
#include "tfo/log.h"

struct tfo_timer_wheel *
tfo_timer_wheel_create(const char *name, int socket_id, uint32_t nb_slots,
		       unsigned int tick_shift, void *base, size_t stride,
		       size_t node_off, uint32_t nb_nodes, uint64_t now_us)
{
	struct tfo_timer_wheel *w;

	if (nb_slots < 2 || (nb_slots & (nb_slots - 1)) != 0 ||
	    nb_slots >= TFO_TIMER_HEAD || nb_nodes >= TFO_TIMER_HEAD ||
	    tick_shift > 30 || stride < sizeof(struct tfo_timer) ||
	    node_off + sizeof(struct tfo_timer) > stride || base == NULL) {
		TFO_LOG(ERR, "%s: bad timer wheel parameters", name);
		rte_errno = EINVAL;
		return NULL;
	}
	w = rte_zmalloc_socket(name, sizeof(*w) + (nb_slots + 1) * sizeof(uint32_t),
			       RTE_CACHE_LINE_SIZE, socket_id);
	if (w == NULL) {
		TFO_LOG(ERR, "%s: no memory for %u timer slots", name, nb_slots);
		rte_errno = ENOMEM;
		return NULL;
	}
	w->base = base;
	w->stride = stride;
	w->node_off = node_off;
	w->nb_nodes = nb_nodes;
	w->mask = nb_slots - 1;
	w->run_head = nb_slots;
	w->tick_shift = tick_shift;
	w->cur = tfo_timer_tick_(w, now_us);
	for (uint32_t i = 0; i <= nb_slots; i++)
		w->heads[i] = TFO_TIMER_NIL;
	for (uint32_t i = 0; i < nb_nodes; i++)
		tfo_timer_init(w, i);
	return w;
}

int
tfo_timer_wheel_start(struct tfo_timer_wheel *w, uint64_t now_us)
{
	if (w->count != 0)
		return -EBUSY;
	w->cur = tfo_timer_tick_(w, now_us);
	return 0;
}

void
tfo_timer_wheel_free(struct tfo_timer_wheel *w)
{
	rte_free(w);
}

void
tfo_timer_init(struct tfo_timer_wheel *w, uint32_t idx)
{
	struct tfo_timer *t = tfo_timer_node_(w, idx);

	t->next = TFO_TIMER_NIL;
	t->prev = TFO_TIMER_UNARMED;
	t->expire = 0;
}

bool
tfo_timer_armed(const struct tfo_timer_wheel *w, uint32_t idx)
{
	return tfo_timer_node_(w, idx)->prev != TFO_TIMER_UNARMED;
}

unsigned int
tfo_timer_run(struct tfo_timer_wheel *w, uint64_t now_us, tfo_timer_cb_t cb,
	      void *arg)
{
	uint32_t now = tfo_timer_tick_(w, now_us);
	uint32_t from = w->cur, n, fired = 0;

	if ((int32_t)(now - from) < 0)
		return 0;
	n = now - from + 1;
	if (n > w->mask + 1)
		n = w->mask + 1;
	/*
	 * Timers armed by the callbacks land at now + 1 or later, so they are
	 * never due in this run even if their slot is still to be visited.
	 */
	w->cur = now + 1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t slot = (from + i) & w->mask;
		uint32_t idx = w->heads[slot];

		if (idx == TFO_TIMER_NIL)
			continue;
		/* move the slot to the run list: cancel works on it, and nodes
		 * put back into the slot are not visited twice */
		w->heads[slot] = TFO_TIMER_NIL;
		w->heads[w->run_head] = idx;
		tfo_timer_node_(w, idx)->prev = TFO_TIMER_HEAD | w->run_head;
		while ((idx = w->heads[w->run_head]) != TFO_TIMER_NIL) {
			struct tfo_timer *t = tfo_timer_node_(w, idx);

			tfo_timer_unlink_(w, t);
			if ((int32_t)(t->expire - now) > 0) {
				/* a later rotation's timer */
				tfo_timer_link_(w, t->expire & w->mask, idx, t);
				continue;
			}
			w->count--;
			fired++;
			cb(arg, idx);
		}
	}
	return fired;
}

uint32_t
tfo_timer_count(const struct tfo_timer_wheel *w)
{
	return w->count;
}

size_t
tfo_timer_wheel_memory(const struct tfo_timer_wheel *w)
{
	return tfo_timer_wheel_plan(w->mask + 1);
}

size_t
tfo_timer_wheel_plan(uint32_t nb_slots)
{
	return sizeof(struct tfo_timer_wheel) + ((size_t)nb_slots + 1) * sizeof(uint32_t);
}
