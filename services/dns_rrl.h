/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: response rate limiting (RRL) of the dns service's UDP
 * answers, private to the service (dns_rrl.c).
 *
 * A UDP source can be spoofed: without a limit, anyone can aim this
 * server's answers (a 1 KB TXT for a 60-byte query) at a victim. RRL, as
 * Knot's mod-rrl and NSD describe it: each source prefix (/24 IPv4, /56
 * IPv6) and class of answer (enum dns_rrl_class) has a token bucket of
 * rate_limit answers per second and rate_limit_burst at once; past it,
 * every slip-th answer leaves as a minimal TC=1 answer (a real client
 * retries over TCP, which a spoofer cannot) and the others are dropped.
 *
 * Contracts:
 *  - the configuration (dns_rrl_conf_*) needs no DPDK;
 *  - one table per lcore, sized at create and never grown: the hot path
 *    (dns_rrl_check) takes no lock, allocates nothing, makes no system
 *    call; only the lcore that owns a table touches it;
 *  - TCP answers and, once DNS cookies are checked, answers to queries
 *    with a valid server cookie are never limited: the caller decides
 *    (dns_handle), this file only counts buckets.
 */
#ifndef TFO_DNS_RRL_H
#define TFO_DNS_RRL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DNS_RRL_EXEMPT_MAX 32
#define DNS_RRL_TABLE_DEFAULT 4096
#define DNS_RRL_WAYS 4		/* entries of one set: one cache line */

/** What an answer is, for its bucket: an attacker that exhausts one
 *  class (NXDOMAIN for random names) leaves the others answered. */
enum dns_rrl_class {
	DNS_RRL_ANSWER = 1,	/* NOERROR with records in the answer */
	DNS_RRL_NODATA,		/* NOERROR, authoritative, no answer */
	DNS_RRL_NXDOMAIN,
	DNS_RRL_REFERRAL,	/* NOERROR, not authoritative: a delegation */
	DNS_RRL_ERROR,		/* FORMERR, SERVFAIL, NOTIMP, REFUSED, BADVERS */
	DNS_RRL_CLASS_MAX
};

enum dns_rrl_verdict {
	DNS_RRL_PASS = 0,	/* within the rate: answer */
	DNS_RRL_SLIP,		/* limited: a minimal TC=1 answer */
	DNS_RRL_DROP,		/* limited: no answer */
};

struct dns_rrl_prefix {
	uint8_t family;		/* AF_INET, AF_INET6 */
	uint8_t bits;
	uint8_t addr[16];	/* network order, masked to bits */
};

/** The [service dns] keys of RRL (dns_rrl_conf_key). */
struct dns_rrl_conf {
	uint32_t rate;		/* rate_limit: answers/s per bucket; 0 = off */
	uint32_t burst;		/* rate_limit_burst: 0 = rate */
	uint32_t slip;		/* slip: 0 drop all, 1 slip all, N every Nth */
	uint32_t table;		/* rate_limit_table: entries per lcore */
	unsigned int nb_exempt;
	struct dns_rrl_prefix exempt[DNS_RRL_EXEMPT_MAX];
};

/** One bucket: its key and, GCRA form of the token bucket, the time its
 *  bucket is full again (all tokens back). */
struct dns_rrl_entry {
	uint64_t key;		/* 0: empty */
	uint64_t tat;		/* TSC: theoretical arrival time */
};

/** One lcore's buckets and what it needs to judge an answer. */
struct dns_rrl_table {
	uint64_t interval;	/* TSC ticks per token (1/rate s) */
	uint64_t tolerance;	/* (burst - 1) * interval */
	uint64_t seed;		/* hashed with the key: sets not chosen from outside */
	uint32_t mask;		/* number of sets - 1 */
	uint32_t slip;
	uint32_t slip_ctr;	/* limited answers since the last slip */
	uint32_t pad;
	uint64_t evicted;	/* live buckets replaced (table full) */
	struct dns_rrl_entry e[];	/* (mask + 1) * DNS_RRL_WAYS */
};

/** The defaults: off, slip 2, DNS_RRL_TABLE_DEFAULT entries. */
void dns_rrl_conf_init(struct dns_rrl_conf *c);
/**
 * @p key = @p value into @p c if it is an RRL key (@p c NULL: check the
 * value only). @return 1 if the key is RRL's and good, 0 if it is not
 * RRL's, or a negative errno with the reason and the range in @p why.
 */
int dns_rrl_conf_key(const char *key, const char *value, struct dns_rrl_conf *c,
		     char *why, size_t whylen);

/** Bytes of a table of @p entries (rounded up to whole sets, a power of 2). */
size_t dns_rrl_table_size(uint32_t entries);
/** Set up the table at @p t (dns_rrl_table_size() bytes, zeroed) for
 *  @p c, with a clock of @p hz ticks per second. */
void dns_rrl_table_init(struct dns_rrl_table *t, const struct dns_rrl_conf *c,
			uint64_t hz, uint64_t seed, uint32_t entries);

/** @p addr (AF_INET: 4 bytes, AF_INET6: 16) is in an exempt prefix. */
bool dns_rrl_exempt(const struct dns_rrl_conf *c, uint8_t family, const uint8_t *addr);

/**
 * Spend one token of the bucket of (@p addr's prefix, @p cls) at time
 * @p now (ticks of the table's clock): PASS, or when it has none left,
 * SLIP or DROP by the slip ratio. A new key takes an empty or idle entry
 * of its set, else the one nearest to full (counted in t->evicted).
 */
enum dns_rrl_verdict dns_rrl_check(struct dns_rrl_table *t, uint8_t family,
				   const uint8_t *addr, enum dns_rrl_class cls,
				   uint64_t now);

#endif /* TFO_DNS_RRL_H */
