/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: a per-instance hashed timer wheel.
 *
 * Timers are nodes embedded in fixed-size objects of one array (the
 * connection entries) and named by their index in it: 12 bytes per node,
 * doubly linked by 32-bit indices. Arm and cancel are O(1) (link/unlink in
 * the slot of the expiry tick); running the wheel visits one slot per tick
 * elapsed (at most one rotation) and only the nodes of those slots. A timer
 * further away than one rotation stays in its slot and is passed over once
 * per rotation until it is due. One owner lcore, no locks.
 *
 * Time is the caller's clock in microseconds; a tick is 2^tick_shift us.
 * A timer fires at the first tfo_timer_run() whose now is at or past its
 * expiry rounded up to a tick, never earlier. Expiries are kept as 32-bit
 * tick counts compared modulo 2^32: a timer may be at most 2^31 ticks away.
 */
#ifndef TFO_TIMER_H
#define TFO_TIMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** prev of a node that is not armed. */
#define TFO_TIMER_UNARMED UINT32_MAX

/** A timer node, embedded in the caller's objects. */
struct tfo_timer {
	uint32_t next;		/**< next node index, or UINT32_MAX */
	uint32_t prev;		/**< previous node index, a slot head
				 *   (high bit set), or TFO_TIMER_UNARMED */
	uint32_t expire;	/**< tick */
};

struct tfo_timer_wheel;

/** Called for each due timer, already disarmed; it may re-arm any timer. */
typedef void (*tfo_timer_cb_t)(void *arg, uint32_t idx);

/**
 * A wheel of @p nb_slots (a power of two, >= 2) slots of 2^@p tick_shift
 * microseconds for @p nb_nodes nodes at @p base + idx * @p stride +
 * @p node_off, starting at time @p now_us. The nodes are initialised to
 * unarmed. @return NULL with rte_errno set on failure.
 */
struct tfo_timer_wheel *tfo_timer_wheel_create(const char *name, int socket_id,
					       uint32_t nb_slots,
					       unsigned int tick_shift,
					       void *base, size_t stride,
					       size_t node_off,
					       uint32_t nb_nodes,
					       uint64_t now_us);
void tfo_timer_wheel_free(struct tfo_timer_wheel *w);

/**
 * Set the wheel's time to @p now_us: for a wheel created before its owner
 * knew the clock. Only while no timer is armed (-EBUSY otherwise).
 * @return 0 or -EBUSY.
 */
int tfo_timer_wheel_start(struct tfo_timer_wheel *w, uint64_t now_us);

/**
 * Mark node @p idx unarmed (when its object is reinitialised). Not needed
 * for a node left by tfo_timer_cancel() or a run: it is unarmed already.
 */
void tfo_timer_init(struct tfo_timer_wheel *w, uint32_t idx);

bool tfo_timer_armed(const struct tfo_timer_wheel *w, uint32_t idx);

/**
 * Fire every timer due at @p now_us (in no particular order within a tick,
 * earlier ticks first). @return the number fired.
 */
unsigned int tfo_timer_run(struct tfo_timer_wheel *w, uint64_t now_us,
			   tfo_timer_cb_t cb, void *arg);

/** Armed timers now. */
uint32_t tfo_timer_count(const struct tfo_timer_wheel *w);

/** Bytes of memory of the wheel itself (slot heads). */
size_t tfo_timer_wheel_memory(const struct tfo_timer_wheel *w);

/** Bytes a wheel of @p nb_slots slots allocates, without allocating. */
size_t tfo_timer_wheel_plan(uint32_t nb_slots);

/* ---- internal: the wheel, for the inline arm and cancel ---------------- */

#define TFO_TIMER_NIL UINT32_MAX
#define TFO_TIMER_HEAD 0x80000000u	/* prev: a slot head, not a node */

/* Out of sight of the callers but for the per-segment arm and cancel,
 * which are a few loads and stores: not worth a call each. */
struct tfo_timer_wheel {
	uint8_t *base;
	size_t stride;
	size_t node_off;
	uint32_t nb_nodes;
	uint32_t mask;		/* nb_slots - 1 */
	uint32_t run_head;	/* head index of the list being run */
	unsigned int tick_shift;
	uint32_t cur;		/* next tick to run */
	uint32_t count;
	uint32_t heads[];	/* nb_slots + 1 (the run list) */
};

static inline struct tfo_timer *
tfo_timer_node_(const struct tfo_timer_wheel *w, uint32_t idx)
{
	return (struct tfo_timer *)(void *)(w->base + (size_t)idx * w->stride +
					    w->node_off);
}

static inline uint32_t
tfo_timer_tick_(const struct tfo_timer_wheel *w, uint64_t us)
{
	return (uint32_t)(us >> w->tick_shift);
}

static inline void
tfo_timer_link_(struct tfo_timer_wheel *w, uint32_t head, uint32_t idx,
		struct tfo_timer *t)
{
	uint32_t first = w->heads[head];

	t->prev = TFO_TIMER_HEAD | head;
	t->next = first;
	if (first != TFO_TIMER_NIL)
		tfo_timer_node_(w, first)->prev = idx;
	w->heads[head] = idx;
}

static inline void
tfo_timer_unlink_(struct tfo_timer_wheel *w, struct tfo_timer *t)
{
	if (t->prev & TFO_TIMER_HEAD)
		w->heads[t->prev & ~TFO_TIMER_HEAD] = t->next;
	else
		tfo_timer_node_(w, t->prev)->next = t->next;
	if (t->next != TFO_TIMER_NIL)
		tfo_timer_node_(w, t->next)->prev = t->prev;
	t->prev = TFO_TIMER_UNARMED;
	t->next = TFO_TIMER_NIL;
}

/**
 * Arm (or re-arm) node @p t, of index @p idx, to fire at @p expire_us:
 * tfo_timer_arm() for a caller that has the node at hand (an owner with
 * the object skips the index's multiply). Re-armed later, an armed node
 * stays in its slot with the new deadline (lazily moved when that slot
 * runs); earlier, it moves at once.
 */
static inline void
tfo_timer_arm_node(struct tfo_timer_wheel *w, struct tfo_timer *t, uint32_t idx,
		   uint64_t expire_us)
{
	/* round up: never fire early */
	uint32_t exp = tfo_timer_tick_(w, expire_us + (1ull << w->tick_shift) - 1);

	/* the past is the next tick to run (the slots before it are done) */
	if ((int32_t)(exp - w->cur) < 0)
		exp = w->cur;
	if (t->prev != TFO_TIMER_UNARMED) {
		/* later than where it sits (an RTO restarted by an ACK, the
		 * idle limit by a request): only the deadline moves; the run
		 * finds it early and puts it in its slot then, if it is still
		 * armed. Most are cancelled before: no list touched twice */
		if ((int32_t)(exp - t->expire) >= 0) {
			t->expire = exp;
			return;
		}
		tfo_timer_unlink_(w, t);
	} else {
		w->count++;
	}
	t->expire = exp;
	tfo_timer_link_(w, exp & w->mask, idx, t);
}

/**
 * Arm (or re-arm) node @p idx to fire at @p expire_us (see
 * tfo_timer_arm_node()).
 */
static inline void
tfo_timer_arm(struct tfo_timer_wheel *w, uint32_t idx, uint64_t expire_us)
{
	tfo_timer_arm_node(w, tfo_timer_node_(w, idx), idx, expire_us);
}

/** Disarm node @p t (no-op when it is not armed). */
static inline void
tfo_timer_cancel_node(struct tfo_timer_wheel *w, struct tfo_timer *t)
{
	if (t->prev == TFO_TIMER_UNARMED)
		return;
	tfo_timer_unlink_(w, t);
	w->count--;
}

/** Disarm node @p idx (no-op when it is not armed). */
static inline void
tfo_timer_cancel(struct tfo_timer_wheel *w, uint32_t idx)
{
	tfo_timer_cancel_node(w, tfo_timer_node_(w, idx));
}

#ifdef __cplusplus
}
#endif

#endif /* TFO_TIMER_H */
