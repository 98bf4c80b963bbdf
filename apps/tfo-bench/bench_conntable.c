/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench conntable: the connection index of conn.c against rte_hash
 * (single writer, no locks, CRC32 hash, as many buckets per entry), with
 * 1k, 64k and 1M live connections.
 *
 *   tfo-bench conntable [--reps R] [--ops N] [--live N[,N...]]
 *
 * Per operation, TSC cycles, median of R runs of N operations on random
 * live keys (IPv4 4-tuples):
 *   bulk hit   lookup of 32 keys at once (the worker's burst), then a read
 *              of each entry's first line (the engine reads it next anyway;
 *              ours compares the key there, rte_hash keeps its own copy)
 *   one hit    the same, one key per call
 *   bulk miss  32 keys that are not in the table
 *   churn      remove a live key, insert a new one (a close and an open)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "tcp/conn.h"

#include "bench.h"

#define BT_BURST 32

struct bt {
	uint32_t live;
	struct tfo_conn_key *keys;	/* live keys, then fresh ones */
	uint32_t nkeys, next;
	uint32_t *slot;			/* key index -> entry (rte_hash side) */
	struct tfo_conn_table *ours;
	struct tfo_conn **ours_c;	/* by key index */
	struct rte_hash *h;
	struct tfo_conn *entries;	/* what rte_hash's data points at */
	uint32_t *free_e;
	uint32_t nfree;
	uint64_t rng;
	uint64_t sink;
};

static uint32_t
bt_rnd(struct bt *b)
{
	b->rng ^= b->rng << 13;
	b->rng ^= b->rng >> 7;
	b->rng ^= b->rng << 17;
	return (uint32_t)(b->rng >> 11);
}

static void
bt_key(struct bt *b, struct tfo_conn_key *k)
{
	uint32_t ip = bt_rnd(b);

	memset(k, 0, sizeof(*k));
	k->family = AF_INET;
	memcpy(k->peer.b, &ip, 4);
	k->peer_port = (uint16_t)bt_rnd(b);
	k->local_port = 80;
}

static uint32_t
bt_hash(const void *key, uint32_t len, uint32_t init)
{
	return rte_hash_crc(key, len, init);
}

static void
bt_free(struct bt *b)
{
	tfo_conn_table_free(b->ours);
	rte_hash_free(b->h);
	rte_free(b->keys);
	rte_free(b->slot);
	rte_free(b->ours_c);
	rte_free(b->entries);
	rte_free(b->free_e);
}

static int
bt_setup(struct bt *b, uint32_t live, uint32_t extra)
{
	struct rte_hash_parameters hp;
	char name[32];

	memset(b, 0, sizeof(*b));
	b->live = live;
	b->rng = 0x9e3779b97f4a7c15ull ^ live;
	b->nkeys = live + extra;
	b->keys = rte_malloc("bt_keys", (size_t)b->nkeys * sizeof(*b->keys), 64);
	b->slot = rte_malloc("bt_slot", (size_t)b->nkeys * sizeof(uint32_t), 64);
	b->ours_c = rte_malloc("bt_oc", (size_t)b->nkeys * sizeof(void *), 64);
	b->entries = rte_zmalloc("bt_ent", (size_t)live * sizeof(struct tfo_conn), 64);
	b->free_e = rte_malloc("bt_free", (size_t)live * sizeof(uint32_t), 64);
	b->ours = tfo_conn_table_create("bt_ours", live, (int)rte_socket_id());
	snprintf(name, sizeof(name), "bt_h%u", live);
	memset(&hp, 0, sizeof(hp));
	hp.name = name;
	/* the same slots per entry as ours: about 2 */
	hp.entries = 2 * live;
	hp.key_len = sizeof(struct tfo_conn_key);
	hp.hash_func = bt_hash;
	hp.socket_id = (int)rte_socket_id();
	b->h = rte_hash_create(&hp);
	if (b->keys == NULL || b->slot == NULL || b->ours_c == NULL ||
	    b->entries == NULL || b->free_e == NULL || b->ours == NULL || b->h == NULL) {
		bt_free(b);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < b->nkeys; i++)
		bt_key(b, &b->keys[i]);
	for (uint32_t i = 0; i < live; i++) {
		struct tfo_conn *ex;

		b->ours_c[i] = tfo_conn_insert(b->ours, &b->keys[i], &ex);
		b->entries[i].key = b->keys[i];
		b->slot[i] = i;
		if (b->ours_c[i] == NULL ||
		    rte_hash_add_key_data(b->h, &b->keys[i], &b->entries[i]) != 0) {
			bt_free(b);
			return -ENOSPC;
		}
	}
	b->next = live;
	return 0;
}

/* Which live key to use: any of the first live (the churn keeps a window). */
static uint32_t
bt_pick(struct bt *b, uint32_t base)
{
	return base + bt_rnd(b) % b->live;
}

static double
bt_bulk_hit(struct bt *b, bool ours, unsigned int ops, uint32_t base)
{
	const struct tfo_conn_key *kp[BT_BURST];
	struct tfo_conn *out[BT_BURST];
	void *data[BT_BURST];
	uint32_t idx[BT_BURST];
	uint64_t cyc = 0;

	for (unsigned int n = 0; n < ops; n += BT_BURST) {
		uint64_t t0;

		for (unsigned int i = 0; i < BT_BURST; i++) {
			idx[i] = bt_pick(b, base);
			kp[i] = &b->keys[idx[i]];
		}
		t0 = rte_rdtsc();
		if (ours) {
			tfo_conn_lookup_bulk(b->ours, kp, BT_BURST, out);
			for (unsigned int i = 0; i < BT_BURST; i++)
				b->sink += out[i]->rcv_nxt;
		} else {
			uint64_t hits;

			rte_hash_lookup_bulk_data(b->h, (const void **)kp, BT_BURST,
						  &hits, data);
			for (unsigned int i = 0; i < BT_BURST; i++)
				b->sink += ((struct tfo_conn *)data[i])->rcv_nxt;
		}
		cyc += rte_rdtsc() - t0;
	}
	return (double)cyc / ops;
}

static double
bt_one_hit(struct bt *b, bool ours, unsigned int ops, uint32_t base)
{
	uint64_t cyc = 0;

	for (unsigned int n = 0; n < ops; n += BT_BURST) {
		uint32_t idx[BT_BURST];
		uint64_t t0;

		for (unsigned int i = 0; i < BT_BURST; i++)
			idx[i] = bt_pick(b, base);
		t0 = rte_rdtsc();
		for (unsigned int i = 0; i < BT_BURST; i++) {
			const struct tfo_conn *c;
			void *d = NULL;

			if (ours) {
				c = tfo_conn_lookup(b->ours, &b->keys[idx[i]]);
			} else {
				rte_hash_lookup_data(b->h, &b->keys[idx[i]], &d);
				c = d;
			}
			b->sink += c->rcv_nxt;
		}
		cyc += rte_rdtsc() - t0;
	}
	return (double)cyc / ops;
}

static double
bt_bulk_miss(struct bt *b, bool ours, unsigned int ops)
{
	struct tfo_conn_key miss[BT_BURST];
	const struct tfo_conn_key *kp[BT_BURST];
	struct tfo_conn *out[BT_BURST];
	void *data[BT_BURST];
	uint64_t cyc = 0;

	for (unsigned int n = 0; n < ops; n += BT_BURST) {
		uint64_t t0;

		for (unsigned int i = 0; i < BT_BURST; i++) {
			bt_key(b, &miss[i]);
			miss[i].local_port = 443;	/* never live */
			kp[i] = &miss[i];
		}
		t0 = rte_rdtsc();
		if (ours)
			tfo_conn_lookup_bulk(b->ours, kp, BT_BURST, out);
		else
			rte_hash_lookup_bulk_data(b->h, (const void **)kp, BT_BURST,
						  &b->sink, data);
		cyc += rte_rdtsc() - t0;
	}
	return (double)cyc / ops;
}

/* Remove the oldest live key, insert the next fresh one (a sliding window
 * of live keys over the key array). */
static double
bt_churn(struct bt *b, bool ours, unsigned int ops, uint32_t *base)
{
	uint64_t cyc = 0;

	for (unsigned int n = 0; n < ops; n++) {
		uint32_t old = *base, neu = *base + b->live;
		uint64_t t0;

		if (neu >= b->nkeys)
			break;
		t0 = rte_rdtsc();
		if (ours) {
			struct tfo_conn *ex;

			tfo_conn_remove(b->ours, b->ours_c[old]);
			b->ours_c[neu] = tfo_conn_insert(b->ours, &b->keys[neu], &ex);
		} else {
			uint32_t e = b->slot[old];

			rte_hash_del_key(b->h, &b->keys[old]);
			b->entries[e].key = b->keys[neu];
			rte_hash_add_key_data(b->h, &b->keys[neu], &b->entries[e]);
			b->slot[neu] = e;
		}
		cyc += rte_rdtsc() - t0;
		(*base)++;
	}
	return (double)cyc / ops;
}

static int
bench_conntable(int argc, char **argv)
{
	uint32_t lives[8] = { 1000, 65536, 1000000 }, nlives = 3;
	unsigned int reps = 7, ops = 65536;
	const struct tfo_bench_opt opts[] = {
		{ "reps", TFO_BENCH_OPT_U32, &reps, NULL, 0, 0 },
		{ "ops", TFO_BENCH_OPT_U32, &ops, NULL, 0, 0 },
		{ "live", TFO_BENCH_OPT_LIST, lives, &nlives, RTE_DIM(lives), 0 },
	};

	if (tfo_bench_getopt(argc, argv, opts, RTE_DIM(opts), NULL) < 0)
		return -EINVAL;
	if (reps == 0 || reps > 99 || ops < BT_BURST)
		return -EINVAL;
	printf("# TSC cycles per key, median of %u x %u; 24-byte keys, random live "
	       "tuples; both read the entry after a hit\n", reps, ops);
	printf("%10s %-9s %9s %9s %9s %9s %10s\n", "live", "index", "bulk hit",
	       "one hit", "bulk miss", "churn", "index MiB");
	for (unsigned int li = 0; li < nlives; li++) {
		struct bt b;

		if (bt_setup(&b, lives[li], 2 * reps * ops) != 0) {
			fprintf(stderr, "conntable: setup failed for %u\n", lives[li]);
			return -ENOMEM;
		}
		for (int side = 1; side >= 0; side--) {
			double *v[4], med[4];
			uint32_t sb = 0;
			size_t mem;

			for (unsigned int s = 0; s < 4; s++)
				v[s] = calloc(reps, sizeof(double));
			/* each side churns its own index over the same keys */
			for (unsigned int r = 0; r < reps; r++) {
				v[0][r] = bt_bulk_hit(&b, side, ops, sb);
				v[1][r] = bt_one_hit(&b, side, ops, sb);
				v[2][r] = bt_bulk_miss(&b, side, ops);
				v[3][r] = bt_churn(&b, side, ops, &sb);
			}
			for (unsigned int s = 0; s < 4; s++) {
				med[s] = tfo_bench_median(v[s], reps);
				free(v[s]);
			}
			mem = side ? tfo_conn_table_memory(b.ours) -
				     (size_t)lives[li] * sizeof(struct tfo_conn) :
				     (size_t)rte_hash_max_key_id(b.h) * (sizeof(struct tfo_conn_key) + 8) +
				     (size_t)2 * lives[li] / 8 * 64;
			printf("%10u %-9s %9.1f %9.1f %9.1f %9.1f %10.1f\n", lives[li],
			       side ? "ours" : "rte_hash", med[0], med[1], med[2], med[3],
			       (double)mem / (1 << 20));
			fflush(stdout);
		}
		bt_free(&b);
	}
	printf("# rte_hash MiB is estimated (key store + buckets); ours is exact "
	       "(buckets + free list), entries excluded on both sides\n");
	return 0;
}

TFO_BENCH(bench_conntable_reg, "conntable",
	  "connection index (conn.c) against rte_hash at 1k/64k/1M live",
	  bench_conntable);
