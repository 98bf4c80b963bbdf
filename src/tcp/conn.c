/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: connection table (see conn.h).
 */
#include <errno.h>
#include <sys/random.h>

#include <rte_branch_prediction.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "tcp/conn.h"
#include "tfo/log.h"

#define TFO_BUCKET_SLOTS 8
/* average live entries per bucket at max_conns, at most */
#define TFO_BUCKET_FILL 6
/* entry indices share 32 bits with the timer's head flag */
#define TFO_CONN_MAX (1u << 31)
/* in the index, this bit makes a slot's number a TIME-WAIT record's */
#define TW_REF TFO_CONN_MAX

/* One cache line: 8 tags (0 = free slot), 8 entry indices, and how many
 * entries whose probe passed through this bucket live further on. */
struct tfo_bucket {
	uint16_t tag[TFO_BUCKET_SLOTS];
	uint32_t idx[TFO_BUCKET_SLOTS];
	uint32_t overflow;
	uint8_t pad[12];
} __rte_cache_aligned;

struct tfo_conn_table {
	struct tfo_conn *conns;
	struct tfo_bucket *buckets;
	uint32_t *free_stack;
	uint32_t nb_free;
	uint32_t max_conns;
	uint32_t bucket_mask;
	/* TIME-WAIT records: a ring, oldest at tw_head, tw_n slots used
	 * (removed records' slots included), tw_live indexed */
	uint32_t max_tw;
	uint32_t tw_head;
	uint32_t tw_n;
	uint32_t tw_live;
	struct tfo_tw *tws;
	uint64_t hkey[4];
	struct tfo_conn tw_mark;	/* state 0, a key no packet has */
};

/* The key of index slot number @p ref (an entry or a record). */
static inline const struct tfo_conn_key *
ref_key(const struct tfo_conn_table *t, uint32_t ref)
{
	return (ref & TW_REF) ? &t->tws[ref & ~TW_REF].key : &t->conns[ref].key;
}

/* What lookup_bulk answers for slot number @p ref. */
static inline struct tfo_conn *
ref_conn(const struct tfo_conn_table *t, uint32_t ref)
{
	if (ref == TFO_CONN_NONE)
		return NULL;
	if (ref & TW_REF)
		return (struct tfo_conn *)(uintptr_t)&t->tw_mark;
	return &t->conns[ref];
}

static inline uint64_t
mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t
hash_key(const struct tfo_conn_table *t, const struct tfo_conn_key *k)
{
	return mix(tfo_conn_key_word(k, 0) ^ t->hkey[0],
		   tfo_conn_key_word(k, 1) ^ t->hkey[1]) ^
	       mix(tfo_conn_key_word(k, 2) ^ t->hkey[2], t->hkey[3]);
}

static inline uint16_t
tag_of(uint64_t h)
{
	uint16_t tag = (uint16_t)(h >> 48);

	return (uint16_t)(tag + (tag == 0));
}

/* Bit i set when slot i's tag equals @p tag. */
static inline unsigned int
match_tags(const struct tfo_bucket *b, uint16_t tag)
{
#ifdef __SSE2__
	__m128i v = _mm_load_si128((const __m128i *)(const void *)b->tag);
	__m128i eq = _mm_cmpeq_epi16(v, _mm_set1_epi16((short)tag));

	/* a lane is 0 or -1: the signed pack makes it one byte of the same
	 * value, so one movemask gives a bit per slot with no bit shuffling */
	return (unsigned int)_mm_movemask_epi8(
		_mm_packs_epi16(eq, _mm_setzero_si128()));
#else
	unsigned int m = 0;

	for (unsigned int i = 0; i < TFO_BUCKET_SLOTS; i++)
		m |= (unsigned int)(b->tag[i] == tag) << i;
	return m;
#endif
}

struct tfo_conn_table *
tfo_conn_table_create(const char *name, uint32_t max_conns, int socket_id)
{
	return tfo_conn_table_create_tw(name, max_conns, 0, socket_id);
}

/* Buckets of the index: a power of two, TFO_BUCKET_FILL keys each. */
static uint64_t
conn_nb_buckets(uint32_t max_conns, uint32_t max_tw)
{
	uint64_t n = rte_align64pow2(((uint64_t)max_conns + max_tw +
				      TFO_BUCKET_FILL - 1) / TFO_BUCKET_FILL);

	return n < 2 ? 2 : n;
}

size_t
tfo_conn_table_plan(uint32_t max_conns, uint32_t max_tw)
{
	return sizeof(struct tfo_conn_table) + (size_t)max_conns *
	       (sizeof(struct tfo_conn) + sizeof(uint32_t)) +
	       (size_t)max_tw * sizeof(struct tfo_tw) +
	       (size_t)conn_nb_buckets(max_conns, max_tw) * sizeof(struct tfo_bucket);
}

struct tfo_conn_table *
tfo_conn_table_create_tw(const char *name, uint32_t max_conns, uint32_t max_tw,
			 int socket_id)
{
	struct tfo_conn_table *t;
	uint64_t nb_buckets;
	char mz[64];

	RTE_BUILD_BUG_ON(sizeof(struct tfo_conn_key) != 24);
	RTE_BUILD_BUG_ON(sizeof(struct tfo_conn) != 2 * RTE_CACHE_LINE_SIZE);
	RTE_BUILD_BUG_ON(sizeof(struct tfo_bucket) != RTE_CACHE_LINE_SIZE);
	RTE_BUILD_BUG_ON(sizeof(struct tfo_tw) != RTE_CACHE_LINE_SIZE);

	if (max_conns == 0 || max_conns >= TFO_CONN_MAX ||
	    max_tw >= TFO_CONN_MAX - 1 ||
	    (uint64_t)max_conns + max_tw >= TFO_CONN_MAX) {
		TFO_LOG(ERR, "%s: max_conns %u + %u TIME-WAIT records out of range (1..%u)",
			name, max_conns, max_tw, TFO_CONN_MAX - 1);
		rte_errno = EINVAL;
		return NULL;
	}
	nb_buckets = conn_nb_buckets(max_conns, max_tw);

	t = rte_zmalloc_socket(name, sizeof(*t), RTE_CACHE_LINE_SIZE, socket_id);
	if (t == NULL)
		goto nomem;
	snprintf(mz, sizeof(mz), "%s_conns", name);
	t->conns = rte_zmalloc_socket(mz, (size_t)max_conns * sizeof(struct tfo_conn),
				      RTE_CACHE_LINE_SIZE, socket_id);
	snprintf(mz, sizeof(mz), "%s_buckets", name);
	t->buckets = rte_zmalloc_socket(mz, nb_buckets * sizeof(struct tfo_bucket),
					RTE_CACHE_LINE_SIZE, socket_id);
	snprintf(mz, sizeof(mz), "%s_free", name);
	t->free_stack = rte_malloc_socket(mz, (size_t)max_conns * sizeof(uint32_t),
					  RTE_CACHE_LINE_SIZE, socket_id);
	if (max_tw > 0) {
		snprintf(mz, sizeof(mz), "%s_tws", name);
		t->tws = rte_zmalloc_socket(mz, (size_t)max_tw * sizeof(struct tfo_tw),
					    RTE_CACHE_LINE_SIZE, socket_id);
		if (t->tws == NULL)
			goto nomem;
	}
	if (t->conns == NULL || t->buckets == NULL || t->free_stack == NULL)
		goto nomem;
	if (getrandom(t->hkey, sizeof(t->hkey), 0) != (ssize_t)sizeof(t->hkey)) {
		TFO_LOG(ERR, "%s: getrandom failed for the hash key", name);
		tfo_conn_table_free(t);
		rte_errno = EIO;
		return NULL;
	}
	t->max_conns = max_conns;
	t->max_tw = max_tw;
	t->tw_mark.key.family = UINT8_MAX;
	t->bucket_mask = (uint32_t)nb_buckets - 1;
	/* LIFO: entry 0 is handed out first */
	for (uint32_t i = 0; i < max_conns; i++)
		t->free_stack[i] = max_conns - 1 - i;
	t->nb_free = max_conns;
	return t;

nomem:
	TFO_LOG(ERR, "%s: no memory for %u connections (%zu bytes each + index)",
		name, max_conns, sizeof(struct tfo_conn));
	tfo_conn_table_free(t);
	rte_errno = ENOMEM;
	return NULL;
}

void
tfo_conn_table_free(struct tfo_conn_table *t)
{
	if (t == NULL)
		return;
	rte_free(t->conns);
	rte_free(t->buckets);
	rte_free(t->free_stack);
	rte_free(t->tws);
	rte_free(t);
}

/* The index slot number of @p k (hash @p h), or TFO_CONN_NONE; inlined:
 * its callers' own work is smaller than a call's register saves */
static __rte_always_inline uint32_t
lookup_ref(const struct tfo_conn_table *t, const struct tfo_conn_key *k,
	   uint64_t h)
{
	uint32_t b = (uint32_t)h & t->bucket_mask;
	uint16_t tag = tag_of(h);

	for (;;) {
		const struct tfo_bucket *bk = &t->buckets[b];
		unsigned int m = match_tags(bk, tag);

		while (m != 0) {
			uint32_t ref = bk->idx[__builtin_ctz(m)];

			if (likely(tfo_conn_key_eq(ref_key(t, ref), k)))
				return ref;
			m &= m - 1;
		}
		if (likely(bk->overflow == 0))
			return TFO_CONN_NONE;
		b = (b + 1) & t->bucket_mask;
	}
}

struct tfo_conn *
tfo_conn_lookup(const struct tfo_conn_table *t, const struct tfo_conn_key *k)
{
	uint32_t ref = lookup_ref(t, k, hash_key(t, k));

	return ref == TFO_CONN_NONE || (ref & TW_REF) ? NULL : &t->conns[ref];
}

struct tfo_conn *
tfo_conn_tw_mark(struct tfo_conn_table *t)
{
	return &t->tw_mark;
}

#define TFO_BULK_STEP 32

/*
 * The bulk lookup of the keys at byte @p key_off of @p n objects (keys, or
 * the segments that carry theirs): one body for both, the offset a
 * constant in each.
 */
static __rte_always_inline void
lookup_bulk(const struct tfo_conn_table *t, const void *const *objs,
	    size_t key_off, unsigned int n, struct tfo_conn **out)
{
	/* in locals: the stores to out[] may alias the table for the
	 * compiler, which would reload them for every key */
	const struct tfo_bucket *const buckets = t->buckets;
	const uint32_t mask = t->bucket_mask;
	const struct tfo_bucket *bks[TFO_BULK_STEP];
	uint64_t h[TFO_BULK_STEP];
	uint32_t cand[TFO_BULK_STEP];

	for (unsigned int base = 0; base < n; base += TFO_BULK_STEP) {
		unsigned int cnt = RTE_MIN(n - base, (unsigned int)TFO_BULK_STEP);

		for (unsigned int i = 0; i < cnt; i++) {
			h[i] = hash_key(t, RTE_PTR_ADD(objs[base + i], key_off));
			bks[i] = &buckets[(uint32_t)h[i] & mask];
			rte_prefetch0(bks[i]);
		}
		/* first tag match of the home bucket; prefetch its entry */
		for (unsigned int i = 0; i < cnt; i++) {
			const struct tfo_bucket *bk = bks[i];
			unsigned int m = match_tags(bk, tag_of(h[i]));

			cand[i] = TFO_CONN_NONE;
			if (m != 0) {
				const struct tfo_conn *c;

				cand[i] = bk->idx[__builtin_ctz(m)];
				if (unlikely(cand[i] & TW_REF)) {
					rte_prefetch0(ref_key(t, cand[i]));
					continue;
				}
				c = &t->conns[cand[i]];
				rte_prefetch0(c);
				rte_prefetch0(RTE_PTR_ADD(c, RTE_CACHE_LINE_SIZE));
			}
		}
		for (unsigned int i = 0; i < cnt; i++) {
			const struct tfo_conn_key *k =
				RTE_PTR_ADD(objs[base + i], key_off);
			uint32_t ref = cand[i];

			if (ref != TFO_CONN_NONE && tfo_conn_key_eq(ref_key(t, ref), k))
				out[base + i] = ref_conn(t, ref);
			else if (ref == TFO_CONN_NONE && bks[i]->overflow == 0)
				out[base + i] = NULL;
			else	/* a second tag match or an overflow: rare */
				out[base + i] = ref_conn(t, lookup_ref(t, k, h[i]));
		}
	}
}

void
tfo_conn_lookup_bulk(const struct tfo_conn_table *t,
		     const struct tfo_conn_key *const *keys, unsigned int n,
		     struct tfo_conn **out)
{
	lookup_bulk(t, (const void *const *)keys, 0, n, out);
}

void
tfo_conn_lookup_bulk_pkt(const struct tfo_conn_table *t,
			 const struct tfo_pkt *const *pkts, unsigned int n,
			 struct tfo_conn **out)
{
	lookup_bulk(t, (const void *const *)pkts, offsetof(struct tfo_pkt, key),
		    n, out);
}

/* Index slot number @p ref under hash @p h. */
static __rte_always_inline void
index_add(struct tfo_conn_table *t, uint64_t h, uint32_t ref)
{
	uint32_t b;
	unsigned int slot;

	/* the first bucket with a free slot; count the passage in the full
	 * ones (there is room: buckets have more slots than entries and
	 * records together) */
	for (b = (uint32_t)h & t->bucket_mask;; b = (b + 1) & t->bucket_mask) {
		unsigned int m = match_tags(&t->buckets[b], 0);

		if (m != 0) {
			slot = (unsigned int)__builtin_ctz(m);
			break;
		}
		t->buckets[b].overflow++;
	}
	t->buckets[b].tag[slot] = tag_of(h);
	t->buckets[b].idx[slot] = ref;
}

/*
 * Find slot number @p ref under hash @p h and put @p with in its place;
 * with TFO_CONN_NONE the slot is freed and the overflow counts on the way
 * are taken back.
 */
static __rte_always_inline void
index_swap(struct tfo_conn_table *t, uint64_t h, uint32_t ref, uint32_t with)
{
	uint32_t b = (uint32_t)h & t->bucket_mask;
	uint16_t tag = tag_of(h);

	for (;;) {
		struct tfo_bucket *bk = &t->buckets[b];
		unsigned int m = match_tags(bk, tag);

		while (m != 0) {
			unsigned int s = (unsigned int)__builtin_ctz(m);

			if (bk->idx[s] == ref) {
				bk->idx[s] = with;
				if (with == TFO_CONN_NONE)
					bk->tag[s] = 0;
				return;
			}
			m &= m - 1;
		}
		/* not here: it overflowed past this bucket */
		RTE_ASSERT(bk->overflow > 0);
		if (with == TFO_CONN_NONE)
			bk->overflow--;
		b = (b + 1) & t->bucket_mask;
	}
}

/* A free entry for @p k (hash @p h, known to be in no slot), indexed. */
static __rte_always_inline struct tfo_conn *
insert_new(struct tfo_conn_table *t, const struct tfo_conn_key *k, uint64_t h)
{
	struct tfo_conn *c;
	uint32_t idx;

	if (t->nb_free == 0)
		return NULL;
	idx = t->free_stack[--t->nb_free];
	index_add(t, h, idx);
	c = &t->conns[idx];
	c->key = *k;
	return c;
}

/* tfo_conn_insert when the key may be indexed already: the walk. Out of
 * line, reached by a tail call: the common insert saves no register. */
static __rte_noinline struct tfo_conn *
insert_walk(struct tfo_conn_table *t, const struct tfo_conn_key *k, uint64_t h,
	    struct tfo_conn **exists)
{
	*exists = ref_conn(t, lookup_ref(t, k, h));
	if (*exists != NULL)
		return NULL;
	return insert_new(t, k, h);
}

struct tfo_conn *
tfo_conn_insert(struct tfo_conn_table *t, const struct tfo_conn_key *k,
		struct tfo_conn **exists)
{
	uint64_t h = hash_key(t, k);
	const struct tfo_bucket *bk = &t->buckets[(uint32_t)h & t->bucket_mask];

	/* a new tuple (a SYN the lookup missed) matches no tag of its home
	 * bucket, which nothing overflowed from: only a tag match or an
	 * overflow needs the walk */
	if (unlikely(match_tags(bk, tag_of(h)) != 0 || bk->overflow != 0))
		return insert_walk(t, k, h, exists);
	*exists = NULL;
	return insert_new(t, k, h);
}

void
tfo_conn_remove(struct tfo_conn_table *t, struct tfo_conn *c)
{
	uint32_t idx = (uint32_t)(c - t->conns);

	index_swap(t, hash_key(t, &c->key), idx, TFO_CONN_NONE);
	c->state = 0;
	t->free_stack[t->nb_free++] = idx;
}

/* ---- TIME-WAIT records ------------------------------------------------ */

struct tfo_tw *
tfo_conn_tw_lookup(const struct tfo_conn_table *t, const struct tfo_conn_key *k)
{
	uint32_t ref;

	if (t->tw_live == 0)
		return NULL;
	ref = lookup_ref(t, k, hash_key(t, k));
	return ref != TFO_CONN_NONE && (ref & TW_REF) ?
	       &t->tws[ref & ~TW_REF] : NULL;
}

static inline uint32_t
tw_slot(const struct tfo_conn_table *t, uint32_t i)
{
	i += t->tw_head;
	return i >= t->max_tw ? i - t->max_tw : i;
}

bool
tfo_conn_tw_full(struct tfo_conn_table *t)
{
	if (t->tw_n < t->max_tw)
		return false;
	tfo_conn_tw_oldest(t);
	return t->tw_n == t->max_tw;
}

struct tfo_tw *
tfo_conn_tw_add(struct tfo_conn_table *t, const struct tfo_tw *rec)
{
	uint32_t s;
	struct tfo_tw *w;

	if (t->tw_n == t->max_tw && tfo_conn_tw_full(t))
		return NULL;
	s = tw_slot(t, t->tw_n++);
	w = &t->tws[s];
	*w = *rec;
	w->live = 1;
	index_add(t, hash_key(t, &w->key), s | TW_REF);
	t->tw_live++;
	return w;
}

struct tfo_tw *
tfo_conn_tw_next(struct tfo_conn_table *t)
{
	if (tfo_conn_tw_full(t))
		return NULL;
	return &t->tws[tw_slot(t, t->tw_n)];
}

void
tfo_conn_tw_replace(struct tfo_conn_table *t, struct tfo_conn *c, struct tfo_tw *w)
{
	uint32_t idx = (uint32_t)(c - t->conns);
	uint32_t s = (uint32_t)(w - t->tws);

	RTE_ASSERT(s == tw_slot(t, t->tw_n));
	w->key = c->key;
	w->live = 1;
	w->restarted = 0;
	/* one walk: the key's index slot names the record from now on */
	index_swap(t, hash_key(t, &c->key), idx, s | TW_REF);
	t->tw_n++;
	t->tw_live++;
	c->state = 0;
	t->free_stack[t->nb_free++] = idx;
}

void
tfo_conn_tw_remove(struct tfo_conn_table *t, struct tfo_tw *w)
{
	uint32_t s = (uint32_t)(w - t->tws);

	index_swap(t, hash_key(t, &w->key), s | TW_REF, TFO_CONN_NONE);
	w->live = 0;
	t->tw_live--;
}

struct tfo_tw *
tfo_conn_tw_oldest(struct tfo_conn_table *t)
{
	while (t->tw_n > 0) {
		struct tfo_tw *w = &t->tws[t->tw_head];

		if (w->live)
			return w;
		t->tw_head = tw_slot(t, 1);
		t->tw_n--;
	}
	return NULL;
}

struct tfo_tw *
tfo_conn_tw_requeue(struct tfo_conn_table *t)
{
	uint32_t s = t->tw_head, d;

	t->tw_head = tw_slot(t, 1);
	if (t->tw_n == t->max_tw)	/* a full ring: its head is its tail */
		return &t->tws[s];
	d = tw_slot(t, t->tw_n - 1);
	t->tws[d] = t->tws[s];
	t->tws[s].live = 0;
	index_swap(t, hash_key(t, &t->tws[d].key), s | TW_REF, d | TW_REF);
	return &t->tws[d];
}

uint32_t
tfo_conn_tw_count(const struct tfo_conn_table *t)
{
	return t->tw_live;
}

uint32_t
tfo_conn_tw_max(const struct tfo_conn_table *t)
{
	return t->max_tw;
}

uint32_t
tfo_conn_count(const struct tfo_conn_table *t)
{
	return t->max_conns - t->nb_free;
}

uint32_t
tfo_conn_free_count(const struct tfo_conn_table *t)
{
	return t->nb_free;
}

uint32_t
tfo_conn_index(const struct tfo_conn_table *t, const struct tfo_conn *c)
{
	return (uint32_t)(c - t->conns);
}

struct tfo_conn *
tfo_conn_at(const struct tfo_conn_table *t, uint32_t idx)
{
	return &t->conns[idx];
}

struct tfo_conn *
tfo_conn_array(const struct tfo_conn_table *t)
{
	return t->conns;
}

size_t
tfo_conn_table_memory(const struct tfo_conn_table *t)
{
	return tfo_conn_table_plan(t->max_conns, t->max_tw);
}

void
tfo_conn_foreach(struct tfo_conn_table *t,
		 void (*fn)(struct tfo_conn *c, void *arg), void *arg)
{
	for (uint32_t b = 0; b <= t->bucket_mask; b++) {
		struct tfo_bucket *bk = &t->buckets[b];

		for (unsigned int s = 0; s < TFO_BUCKET_SLOTS; s++)
			if (bk->tag[s] != 0 && !(bk->idx[s] & TW_REF))
				fn(&t->conns[bk->idx[s]], arg);
	}
}

uint32_t
tfo_conn_table_max_probe(const struct tfo_conn_table *t)
{
	uint32_t worst = 0;

	/* buckets from an entry's home bucket to the one holding it, + 1 */
	for (uint32_t b = 0; b <= t->bucket_mask; b++) {
		const struct tfo_bucket *bk = &t->buckets[b];

		for (unsigned int s = 0; s < TFO_BUCKET_SLOTS; s++) {
			uint32_t home;

			if (bk->tag[s] == 0)
				continue;
			home = (uint32_t)hash_key(t, ref_key(t, bk->idx[s])) &
			       t->bucket_mask;
			worst = RTE_MAX(worst, ((b - home) & t->bucket_mask) + 1);
		}
	}
	return worst;
}
