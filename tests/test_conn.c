/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests: connection table (conn.c) and timer wheel (timer.c).
 */
#include <stdlib.h>

#include <rte_eal.h>
#include <rte_malloc.h>

#include "tcp/conn.h"
#include "tcp/timer.h"
#include "test.h"

static void
eal_once(void)
{
	static int done;

	if (!done) {
		tfo_test_eal_init("test_conn", 256, NULL);
		done = 1;
	}
}

static void
mk_key(struct tfo_conn_key *k, uint32_t i, int family)
{
	memset(k, 0, sizeof(*k));
	k->family = (uint8_t)family;
	k->peer.b[0] = 198;
	k->peer.b[1] = 18;
	k->peer.b[2] = (uint8_t)(i >> 16);
	k->peer.b[3] = (uint8_t)(i >> 8);
	if (family == AF_INET6)
		k->peer.b[15] = (uint8_t)i;
	k->peer_port = (uint16_t)(1024 + (i & 0xff) * 7);
	k->local_port = 80;
	k->local_idx = (uint8_t)(i % 3);
}

/* The longest probe of a fresh table (a new random key) filled with the
 * keys 0..n-1. */
static uint32_t
full_table_max_probe(uint32_t n)
{
	struct tfo_conn_table *t = tfo_conn_table_create("t1b", n, SOCKET_ID_ANY);
	struct tfo_conn_key k;
	struct tfo_conn *ex;
	uint32_t probe;

	if (t == NULL)
		return UINT32_MAX;
	for (uint32_t i = 0; i < n; i++) {
		mk_key(&k, i, i & 1 ? AF_INET6 : AF_INET);
		tfo_conn_insert(t, &k, &ex);
	}
	probe = tfo_conn_table_max_probe(t);
	tfo_conn_table_free(t);
	return probe;
}

TFO_TEST(conn_insert_lookup_remove)
{
	const uint32_t n = 5000;
	struct tfo_conn_table *t;
	struct tfo_conn_key k;
	struct tfo_conn *c, *ex;

	eal_once();
	t = tfo_conn_table_create("t1", n, SOCKET_ID_ANY);
	REQUIRE(t != NULL);
	for (uint32_t i = 0; i < n; i++) {
		mk_key(&k, i, i & 1 ? AF_INET6 : AF_INET);
		c = tfo_conn_insert(t, &k, &ex);
		REQUIRE(c != NULL);
		c->rcv_nxt = i;
	}
	CHECK_EQ(tfo_conn_count(t), n);
	CHECK_EQ(tfo_conn_free_count(t), 0);
	mk_key(&k, n + 1, AF_INET);
	CHECK(tfo_conn_insert(t, &k, &ex) == NULL && ex == NULL);	/* full */
	mk_key(&k, 17, AF_INET6);
	CHECK(tfo_conn_insert(t, &k, &ex) == NULL && ex != NULL &&
	      ex->rcv_nxt == 17);	/* exists */
	for (uint32_t i = 0; i < n; i++) {
		mk_key(&k, i, i & 1 ? AF_INET6 : AF_INET);
		c = tfo_conn_lookup(t, &k);
		if (c == NULL || c->rcv_nxt != i) {
			CHECK_MSG(0, "lookup %u", i);
			break;
		}
	}
	/* probes stay short at full load; the hash key is random, and about
	 * one table in 60 has a run of 8: such a table gets one retry with a
	 * fresh key (both long: a real regression, about 1 in 3600) */
	{
		uint32_t probe = tfo_conn_table_max_probe(t);

		if (probe >= 8)
			probe = RTE_MIN(probe, full_table_max_probe(n));
		CHECK_MSG(probe < 8, "max probe %u buckets", probe);
	}
	/* remove the even ones; the odd ones must stay reachable */
	for (uint32_t i = 0; i < n; i += 2) {
		mk_key(&k, i, AF_INET);
		c = tfo_conn_lookup(t, &k);
		REQUIRE(c != NULL);
		tfo_conn_remove(t, c);
		CHECK(c->state == 0);
	}
	CHECK_EQ(tfo_conn_count(t), n / 2);
	for (uint32_t i = 0; i < n; i++) {
		mk_key(&k, i, i & 1 ? AF_INET6 : AF_INET);
		c = tfo_conn_lookup(t, &k);
		if ((c != NULL) != (i & 1)) {
			CHECK_MSG(0, "after remove: %u", i);
			break;
		}
	}
	tfo_conn_table_free(t);
}

TFO_TEST(conn_bulk_matches_single)
{
	const uint32_t n = 1000;
	struct tfo_conn_table *t;
	struct tfo_conn_key keys[100];
	const struct tfo_conn_key *kp[100];
	struct tfo_conn *out[100], *out_pkt[100], *ex;
	struct tfo_pkt pk[100];
	const struct tfo_pkt *pp[100];

	eal_once();
	t = tfo_conn_table_create("t2", n, SOCKET_ID_ANY);
	REQUIRE(t != NULL);
	for (uint32_t i = 0; i < n; i += 2) {
		mk_key(&keys[0], i, AF_INET);
		REQUIRE(tfo_conn_insert(t, &keys[0], &ex) != NULL);
	}
	for (uint32_t i = 0; i < 100; i++) {
		mk_key(&keys[i], i * 7, AF_INET);
		kp[i] = &keys[i];
	}
	tfo_conn_lookup_bulk(t, kp, 100, out);
	for (uint32_t i = 0; i < 100; i++)
		CHECK(out[i] == tfo_conn_lookup(t, &keys[i]) &&
		      (out[i] != NULL) == ((i * 7) % 2 == 0));
	/* the keys segments carry (tfo_pkt.key), the rest of them poison:
	 * the same answers */
	for (uint32_t i = 0; i < 100; i++) {
		memset(&pk[i], 0xa5, sizeof(pk[i]));
		pk[i].src = keys[i].peer;
		pk[i].sport = keys[i].peer_port;
		pk[i].dport = keys[i].local_port;
		pk[i].local_idx = keys[i].local_idx;
		pk[i].family = keys[i].family;
		pk[i].key_pad = 0;
		pp[i] = &pk[i];
	}
	tfo_conn_lookup_bulk_pkt(t, pp, 100, out_pkt);
	for (uint32_t i = 0; i < 100; i++)
		CHECK(out_pkt[i] == out[i]);
	tfo_conn_table_free(t);
}

/* Churn at full load: overflow counts must return to zero. */
TFO_TEST(conn_churn_full)
{
	const uint32_t n = 4096;
	struct tfo_conn_table *t;
	struct tfo_conn_key k;
	struct tfo_conn *ex, **live;
	uint32_t *ids, next = 0;

	eal_once();
	t = tfo_conn_table_create("t3", n, SOCKET_ID_ANY);
	live = calloc(n, sizeof(*live));
	ids = calloc(n, sizeof(*ids));
	REQUIRE(t != NULL && live != NULL && ids != NULL);
	for (uint32_t i = 0; i < n; i++) {
		mk_key(&k, next, AF_INET6);
		ids[i] = next++;
		live[i] = tfo_conn_insert(t, &k, &ex);
		REQUIRE(live[i] != NULL);
	}
	srand(7);
	for (uint32_t r = 0; r < 200000; r++) {
		uint32_t i = (uint32_t)rand() % n;

		tfo_conn_remove(t, live[i]);
		mk_key(&k, next, AF_INET6);
		ids[i] = next++;
		live[i] = tfo_conn_insert(t, &k, &ex);
		if (live[i] == NULL) {
			CHECK_MSG(0, "insert failed at round %u", r);
			break;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		mk_key(&k, ids[i], AF_INET6);
		if (tfo_conn_lookup(t, &k) != live[i]) {
			CHECK_MSG(0, "lost %u", ids[i]);
			break;
		}
		tfo_conn_remove(t, live[i]);
	}
	CHECK_EQ(tfo_conn_count(t), 0);
	CHECK_EQ(tfo_conn_table_max_probe(t), 0);	/* empty */
	free(live);
	free(ids);
	tfo_conn_table_free(t);
}

/* ---- timer wheel ------------------------------------------------------- */

struct tnode {
	uint32_t pad;
	struct tfo_timer t;
	uint64_t due;
	uint64_t fired_at;
	int fired;
};

struct tctx {
	struct tnode *nodes;
	uint64_t now;
	struct tfo_timer_wheel *w;
	int rearm;
};

static void
tcb(void *arg, uint32_t idx)
{
	struct tctx *x = arg;

	x->nodes[idx].fired++;
	x->nodes[idx].fired_at = x->now;
	if (x->rearm && x->nodes[idx].fired == 1) {
		x->nodes[idx].due = x->now + 5000;
		tfo_timer_arm(x->w, idx, x->nodes[idx].due);
	}
}

/* TIME-WAIT records share the index with the entries: a key is in one or
 * the other; the ring keeps its order through removals, requeues and wraps,
 * and every record stays findable until it ends. */
TFO_TEST(conn_time_wait_records_ring_and_index)
{
	const uint32_t n = 64, ntw = 16;
	struct tfo_conn_table *t;
	struct tfo_conn *c, *ex, *out;
	struct tfo_conn_key k;
	const struct tfo_conn_key *kp = &k;
	struct tfo_tw rec, *w;
	uint32_t next = 0, first = 0;

	eal_once();
	t = tfo_conn_table_create_tw("t4", n, ntw, SOCKET_ID_ANY);
	REQUIRE(t != NULL);
	CHECK_EQ(tfo_conn_tw_max(t), ntw);
	memset(&rec, 0, sizeof(rec));
	/* an entry becomes a record: the entry is free, the key answers with
	 * the mark in bulk, NULL in a single lookup, and refuses an insert */
	for (unsigned int round = 0; round < 5 * ntw; round++) {
		mk_key(&k, next, round % 2 ? AF_INET6 : AF_INET);
		c = tfo_conn_insert(t, &k, &ex);
		REQUIRE(c != NULL);
		tfo_conn_remove(t, c);
		if (tfo_conn_tw_full(t)) {
			CHECK(tfo_conn_tw_oldest(t) != NULL);
			tfo_conn_tw_remove(t, tfo_conn_tw_oldest(t));
			first++;
		}
		rec.key = k;
		rec.rcv_nxt = next;
		w = tfo_conn_tw_add(t, &rec);
		REQUIRE(w != NULL);
		next++;
		CHECK(tfo_conn_lookup(t, &k) == NULL);
		tfo_conn_lookup_bulk(t, &kp, 1, &out);
		CHECK(out == tfo_conn_tw_mark(t));
		CHECK(out->state == 0);
		CHECK(tfo_conn_insert(t, &k, &ex) == NULL && ex == tfo_conn_tw_mark(t));
		/* every third: the oldest moves to the end (its FIN came again) */
		if (round % 3 == 2) {
			w = tfo_conn_tw_oldest(t);
			REQUIRE(w != NULL);
			w = tfo_conn_tw_requeue(t);
			mk_key(&k, w->rcv_nxt, w->rcv_nxt % 2 ? AF_INET6 : AF_INET);
			CHECK(tfo_conn_tw_lookup(t, &k) == w);
		}
		/* every fifth: one in the middle goes (a SYN reopened it) */
		if (round % 5 == 4) {
			mk_key(&k, next - 2, (next - 2) % 2 ? AF_INET6 : AF_INET);
			w = tfo_conn_tw_lookup(t, &k);
			if (w != NULL)
				tfo_conn_tw_remove(t, w);
		}
	}
	CHECK(tfo_conn_tw_count(t) <= ntw);
	CHECK_EQ(tfo_conn_count(t), 0);
	/* every record is found by its key and says which it is */
	for (uint32_t i = 0; i < next; i++) {
		mk_key(&k, i, i % 2 ? AF_INET6 : AF_INET);
		w = tfo_conn_tw_lookup(t, &k);
		if (w != NULL)
			CHECK_EQ(w->rcv_nxt, i);
	}
	/* drain: the count goes to 0 and every key is gone */
	while ((w = tfo_conn_tw_oldest(t)) != NULL)
		tfo_conn_tw_remove(t, w);
	CHECK_EQ(tfo_conn_tw_count(t), 0);
	for (uint32_t i = 0; i < next; i++) {
		mk_key(&k, i, i % 2 ? AF_INET6 : AF_INET);
		CHECK(tfo_conn_tw_lookup(t, &k) == NULL);
		tfo_conn_lookup_bulk(t, &kp, 1, &out);
		CHECK(out == NULL);
	}
	CHECK_EQ(tfo_conn_table_max_probe(t), 0);
	CHECK(first > 0);
	tfo_conn_table_free(t);
}

TFO_TEST(timer_fires_in_order_never_early)
{
	const uint32_t n = 3000;
	struct tnode *nodes = calloc(n, sizeof(*nodes));
	struct tctx x = { .nodes = nodes };
	unsigned int fired = 0;

	eal_once();
	REQUIRE(nodes != NULL);
	/* 64 slots of 1.024 ms: many timers beyond one rotation */
	x.w = tfo_timer_wheel_create("w1", SOCKET_ID_ANY, 64, 10, nodes,
				     sizeof(*nodes), offsetof(struct tnode, t),
				     n, 0);
	REQUIRE(x.w != NULL);
	srand(3);
	for (uint32_t i = 0; i < n; i++) {
		nodes[i].due = 1 + (uint64_t)rand() % 500000;
		tfo_timer_arm(x.w, i, nodes[i].due);
	}
	/* cancel every 10th, re-arm every 7th elsewhere */
	for (uint32_t i = 0; i < n; i += 10)
		tfo_timer_cancel(x.w, i);
	for (uint32_t i = 3; i < n; i += 7) {
		nodes[i].due = 1 + (uint64_t)rand() % 500000;
		tfo_timer_arm(x.w, i, nodes[i].due);
	}
	CHECK(!tfo_timer_armed(x.w, 0) && tfo_timer_armed(x.w, 1));
	for (x.now = 0; x.now <= 600000; x.now += 1 + (uint64_t)rand() % 3000)
		fired += tfo_timer_run(x.w, x.now, tcb, &x);
	fired += tfo_timer_run(x.w, 700000, tcb, &x);
	for (uint32_t i = 0; i < n; i++) {
		bool cancelled = i % 10 == 0 && (i < 3 || (i - 3) % 7 != 0);

		if (cancelled) {
			CHECK_EQ(nodes[i].fired, 0);
			continue;
		}
		if (nodes[i].fired != 1 || nodes[i].fired_at < nodes[i].due ||
		    nodes[i].fired_at > nodes[i].due + 3000 + 1024) {
			CHECK_MSG(0, "node %u: fired %d at %" PRIu64 " due %" PRIu64,
				  i, nodes[i].fired, nodes[i].fired_at, nodes[i].due);
			break;
		}
	}
	CHECK_EQ(tfo_timer_count(x.w), 0);
	CHECK(fired > n / 2);
	tfo_timer_wheel_free(x.w);
	free(nodes);
}

TFO_TEST(timer_rearm_from_callback_and_big_jump)
{
	const uint32_t n = 100;
	struct tnode *nodes = calloc(n, sizeof(*nodes));
	struct tctx x = { .nodes = nodes, .rearm = 1 };

	eal_once();
	REQUIRE(nodes != NULL);
	x.w = tfo_timer_wheel_create("w2", SOCKET_ID_ANY, 16, 10, nodes,
				     sizeof(*nodes), offsetof(struct tnode, t),
				     n, 1000000);
	REQUIRE(x.w != NULL);
	for (uint32_t i = 0; i < n; i++)
		tfo_timer_arm(x.w, i, 1000000 + i * 100);
	/* a jump far beyond one rotation fires everything once, and the
	 * re-armed timers wait for their own time */
	x.now = 50000000;
	CHECK_EQ(tfo_timer_run(x.w, x.now, tcb, &x), n);
	CHECK_EQ(tfo_timer_count(x.w), n);
	x.now += 4000;
	CHECK_EQ(tfo_timer_run(x.w, x.now, tcb, &x), 0);
	x.now += 2100;
	CHECK_EQ(tfo_timer_run(x.w, x.now, tcb, &x), n);
	for (uint32_t i = 0; i < n; i++)
		CHECK_EQ(nodes[i].fired, 2);
	/* an expiry in the past fires at the next run */
	tfo_timer_arm(x.w, 5, 10);
	CHECK_EQ(tfo_timer_run(x.w, x.now, tcb, &x), 0);
	CHECK_EQ(tfo_timer_run(x.w, x.now + 1024, tcb, &x), 1);
	tfo_timer_wheel_free(x.w);
	free(nodes);
}

TFO_TEST_MAIN()
