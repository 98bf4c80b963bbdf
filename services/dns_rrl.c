/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: response rate limiting of the dns service's UDP answers
 * (contracts in dns_rrl.h). No DPDK call here: the configuration check
 * reads the keys, the unit tests drive the buckets with a fake clock.
 *
 * The bucket is a token bucket written as GCRA (one time per entry, no
 * division on the hot path): tat is when the bucket would be full again;
 * an answer may go while tat - now <= (burst - 1) / rate, and takes one
 * token (tat += 1 / rate). Refill is implicit in the passing time, so an
 * entry whose tat is past is a full bucket: it carries no state and may
 * be reused without loss, which is how a bounded table stays exact for
 * every source that is sending now.
 *
 * The table is set-associative: a key hashes to one set of DNS_RRL_WAYS
 * entries (one cache line), so a lookup reads one line. A new key takes
 * an empty or full-bucket entry of its set; when all are live, the entry
 * nearest to full is replaced and counted (dns_rrl_evicted): a flood of
 * spoofed prefixes can then make a limited prefix start afresh, which is
 * what the counter tells the operator (rate_limit_table larger).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "tfo/log.h"

#include "dns_wire.h"
#include "dns_rrl.h"

#define RRL_RATE_MAX 10000000u
#define RRL_SLIP_MAX 100u
#define RRL_TABLE_MIN 64u
#define RRL_TABLE_MAX 1048576u	/* 16 MB per lcore */

void
dns_rrl_conf_init(struct dns_rrl_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->slip = 2;		/* as Knot: half the limited answers slip */
	c->table = DNS_RRL_TABLE_DEFAULT;
}

/* "ADDR[/BITS]" (@p len bytes at @p s) into @p p, masked. */
static int
rrl_prefix(const char *s, size_t len, struct dns_rrl_prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash;
	uint32_t bits, max;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash = '\0';
	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET, buf, p->addr) == 1) {
		p->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, p->addr) == 1) {
		p->family = AF_INET6;
		max = 128;
	} else {
		return -EINVAL;
	}
	bits = max;
	if (slash != NULL && dns_u32(slash + 1, 0, max, &bits) < 0)
		return -EINVAL;
	p->bits = (uint8_t)bits;
	for (unsigned int i = 0; i < max / 8; i++) {
		unsigned int keep = bits > i * 8 ? bits - i * 8 : 0;

		if (keep < 8)
			p->addr[i] &= (uint8_t)(0xff00 >> keep);
	}
	return 0;
}

/* "PREFIX[,PREFIX...]" (commas or blanks) into @p c (NULL: check only). */
static int
rrl_exempt_value(const char *value, struct dns_rrl_conf *c, char *why, size_t whylen)
{
	const char *p = value;
	unsigned int n = 0;

	for (;;) {
		struct dns_rrl_prefix pf;
		const char *e;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '\0')
			break;
		for (e = p; *e != '\0' && *e != ' ' && *e != '\t' && *e != ','; e++)
			;
		if (rrl_prefix(p, (size_t)(e - p), &pf) < 0)
			return tfo_errmsg(why, whylen, "%.*s: expected an address or a "
					  "prefix (198.51.100.0/24, 2001:db8::/56)",
					  (int)(e - p), p);
		if (n == DNS_RRL_EXEMPT_MAX)
			return tfo_errmsg(why, whylen, "more than %d prefixes",
					  DNS_RRL_EXEMPT_MAX);
		if (c != NULL)
			c->exempt[n] = pf;
		n++;
		p = e;
	}
	if (c != NULL)
		c->nb_exempt = n;
	return 0;
}

int
dns_rrl_conf_key(const char *key, const char *value, struct dns_rrl_conf *c,
		 char *why, size_t whylen)
{
	uint32_t v;

	if (strcmp(key, "rate_limit_exempt") == 0)
		return rrl_exempt_value(value, c, why, whylen) < 0 ? -EINVAL : 1;
	if (strcmp(key, "rate_limit") == 0) {
		if (dns_u32(value, 0, RRL_RATE_MAX, &v) < 0)
			return tfo_errmsg(why, whylen, "expected answers per second in "
					  "0..%u (0: off)", RRL_RATE_MAX);
		if (c != NULL)
			c->rate = v;
		return 1;
	}
	if (strcmp(key, "rate_limit_burst") == 0) {
		if (dns_u32(value, 0, RRL_RATE_MAX, &v) < 0)
			return tfo_errmsg(why, whylen, "expected answers in 0..%u "
					  "(0: rate_limit)", RRL_RATE_MAX);
		if (c != NULL)
			c->burst = v;
		return 1;
	}
	if (strcmp(key, "slip") == 0) {
		if (dns_u32(value, 0, RRL_SLIP_MAX, &v) < 0)
			return tfo_errmsg(why, whylen, "expected an integer in 0..%u (0: "
					  "drop every limited answer, 1: slip them all)",
					  RRL_SLIP_MAX);
		if (c != NULL)
			c->slip = v;
		return 1;
	}
	if (strcmp(key, "rate_limit_table") == 0) {
		if (dns_u32(value, RRL_TABLE_MIN, RRL_TABLE_MAX, &v) < 0)
			return tfo_errmsg(why, whylen, "expected entries per lcore in %u..%u",
					  RRL_TABLE_MIN, RRL_TABLE_MAX);
		if (c != NULL)
			c->table = v;
		return 1;
	}
	return 0;
}

/* Sets of the table of @p entries: a power of 2, at least one. */
static uint32_t
rrl_sets(uint32_t entries)
{
	uint32_t want = (entries + DNS_RRL_WAYS - 1) / DNS_RRL_WAYS, sets = 1;

	while (sets < want)
		sets <<= 1;
	return sets;
}

size_t
dns_rrl_table_size(uint32_t entries)
{
	return sizeof(struct dns_rrl_table) +
	       (size_t)rrl_sets(entries) * DNS_RRL_WAYS * sizeof(struct dns_rrl_entry);
}

void
dns_rrl_table_init(struct dns_rrl_table *t, const struct dns_rrl_conf *c, uint64_t hz,
		   uint64_t seed, uint32_t entries)
{
	uint32_t burst = c->burst != 0 ? c->burst : c->rate;

	t->interval = c->rate != 0 ? hz / c->rate : 0;
	if (t->interval == 0)
		t->interval = 1;
	t->tolerance = (uint64_t)(burst > 0 ? burst - 1 : 0) * t->interval;
	t->seed = seed;
	t->mask = rrl_sets(entries) - 1;
	t->slip = c->slip;
	t->slip_ctr = 0;
	t->evicted = 0;
}

bool
dns_rrl_exempt(const struct dns_rrl_conf *c, uint8_t family, const uint8_t *addr)
{
	for (unsigned int i = 0; i < c->nb_exempt; i++) {
		const struct dns_rrl_prefix *p = &c->exempt[i];
		unsigned int full = p->bits / 8, rest = p->bits % 8;

		if (p->family != family || memcmp(p->addr, addr, full) != 0)
			continue;
		if (rest == 0 ||
		    ((addr[full] ^ p->addr[full]) & (uint8_t)(0xff00 >> rest)) == 0)
			return true;
	}
	return false;
}

/*
 * The bucket's key: the source prefix, the family and the class in 64
 * bits (IPv6 /56 is 7 bytes, the last byte holds family and class), never
 * 0 (the class is at least 1), so the whole key is compared, no hash
 * collision merges two prefixes.
 */
static inline uint64_t
rrl_key(uint8_t family, const uint8_t *a, enum dns_rrl_class cls)
{
	uint64_t k = 0;

	if (family == AF_INET)
		return ((uint64_t)a[0] << 24 | (uint64_t)a[1] << 16 | (uint64_t)a[2] << 8) |
		       (uint64_t)cls;
	for (unsigned int i = 0; i < 7; i++)
		k = k << 8 | a[i];
	return k << 8 | 0x80 | (uint64_t)cls;
}

enum dns_rrl_verdict
dns_rrl_check(struct dns_rrl_table *t, uint8_t family, const uint8_t *addr,
	      enum dns_rrl_class cls, uint64_t now)
{
	uint64_t key = rrl_key(family, addr, cls);
	/* multiplicative hash of the seeded key: the high bits pick the set */
	uint64_t h = (key ^ t->seed) * 0x9e3779b97f4a7c15ull;
	struct dns_rrl_entry *set = &t->e[((h >> 32) & t->mask) * DNS_RRL_WAYS];
	struct dns_rrl_entry *e = NULL, *victim = &set[0];
	uint64_t tat;

	for (unsigned int i = 0; i < DNS_RRL_WAYS; i++) {
		if (set[i].key == key) {
			e = &set[i];
			break;
		}
		/* the oldest full time: empty (tat 0) or idle entries first */
		if (set[i].tat < victim->tat)
			victim = &set[i];
	}
	if (e == NULL) {
		if (victim->key != 0 && victim->tat > now)
			t->evicted++;	/* a live bucket is forgotten */
		e = victim;
		e->key = key;
		e->tat = now;
	}
	tat = e->tat > now ? e->tat : now;
	if (tat - now <= t->tolerance) {
		e->tat = tat + t->interval;
		return DNS_RRL_PASS;
	}
	if (t->slip == 0)
		return DNS_RRL_DROP;
	if (++t->slip_ctr >= t->slip) {
		t->slip_ctr = 0;
		return DNS_RRL_SLIP;
	}
	return DNS_RRL_DROP;
}
