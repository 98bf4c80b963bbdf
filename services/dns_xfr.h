/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's secondary zones (`secondary =
 * ORIGIN:ADDRESS[@PORT]`): zone transfers from a primary (AXFR, RFC 5936;
 * IXFR, RFC 1995) and NOTIFY (RFC 1996).
 *
 *   dns_xfr.c        the wire side, no DPDK, no socket: the key's syntax,
 *                    the transfer query, a response stream's records into
 *                    struct dns_recs (names decompressed), the IXFR diffs
 *                    applied, the NOTIFY verdict
 *   dns_secondary.c  the refresh thread: one blocking kernel TCP socket at
 *                    a time (never a worker, never the control lcore), the
 *                    SOA timers, the zone set rebuilt and published as a
 *                    reload does, the counters handed to handle()
 */
#ifndef TFO_DNS_XFR_H
#define TFO_DNS_XFR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dns_load.h"
#include "dns_wire.h"
#include "dns_zone.h"
#include "dns_zparse.h"

#define DNS_SECONDARY_MAX 64		/* secondary zones per service */

/** One `secondary = ORIGIN:ADDRESS[@PORT]`. */
struct dns_secondary_src {
	uint8_t origin[DNS_NAME_MAX];	/* wire, lower case */
	uint8_t family;			/* AF_INET or AF_INET6 */
	uint8_t addr[16];		/* network order, IPv4 in 4 bytes */
	uint16_t port;			/* host order */
	char text[96];			/* "ADDRESS@PORT", for logs */
};

/**
 * Parse one value of `secondary` (several may be separated by blanks or
 * commas) into @p out[*nb..] (@p out NULL: the syntax only).
 * @return 0 or -EINVAL with the reason in @p why.
 */
int dns_secondary_value(const char *value, struct dns_secondary_src *out, unsigned int *nb,
		  unsigned int max, char *why, size_t whylen);

/** RFC 1982: @p a is newer than @p b. */
static inline bool
dns_serial_newer(uint32_t a, uint32_t b)
{
	return a != b && (uint32_t)(a - b) < 0x80000000u;
}

/** The serial, refresh, retry and expire of an SOA's rdata (@p rd, @p len
 *  bytes, names uncompressed). @return 0 or -EINVAL. */
int dns_soa_times(const uint8_t *rd, uint16_t len, uint32_t *serial,
		  uint32_t *refresh, uint32_t *retry, uint32_t *expire);

/**
 * The TCP-framed transfer query for @p origin into @p buf (at least 2 +
 * DNS_HDR + DNS_NAME_MAX + 4 + the SOA): AXFR when @p soa is NULL, else
 * IXFR with the SOA we hold (owner @p origin, @p soa_len bytes, TTL
 * @p soa_ttl) in the authority section (RFC 1995 3).
 * @return its length with the prefix.
 */
uint32_t dns_xfr_query(uint8_t *buf, uint16_t id, const uint8_t *origin,
		       const uint8_t *soa, uint16_t soa_len, uint32_t soa_ttl);

/** Why a transfer failed (index of its counter). */
enum dns_xfr_err {
	DNS_XE_NONE = 0,
	DNS_XE_CONNECT,		/* no connection (refused, timeout) */
	DNS_XE_TRUNCATED,	/* the stream ended or stalled mid-transfer */
	DNS_XE_MESSAGE,		/* a malformed message, another ID, a record
				 * outside the zone or of another class */
	DNS_XE_RCODE,		/* the primary answered an error rcode */
	DNS_XE_ZONE,		/* the records make no zone we can serve */
	DNS_XE_SERIAL,		/* the serial is older than ours */
	DNS_XE_MAX
};

/** What the stream's messages told so far. */
struct dns_xfr_rx {
	const uint8_t *origin;	/* wire, lower case */
	uint16_t id;
	bool ixfr;		/* we asked IXFR ... */
	uint32_t our_serial;	/* ... from this serial */
	uint32_t serial;	/* of the first SOA: the new version */
	unsigned int nb_soa;	/* SOAs seen (the first one included) */
	bool incremental;	/* the second record is an older SOA (IXFR) */
	bool done;		/* the closing SOA arrived */
	struct dns_recs rrs;	/* every record of the stream, in order */
};

/**
 * Take one response message (@p m, @p len bytes without the TCP prefix)
 * of the transfer into @p rx. @return 0, or a negative errno with *err and
 * a reason in @p why; rx->done says the transfer is complete.
 */
int dns_xfr_msg(struct dns_xfr_rx *rx, const uint8_t *m, uint32_t len,
		enum dns_xfr_err *err, char *why, size_t whylen);

/**
 * The zone the complete stream @p rx gives, into @p out (empty on entry):
 * an AXFR-style answer as it is (without its closing SOA), an IXFR's diff
 * sequences applied to @p cur (the records we serve, at serial
 * @p cur_serial). @p ixfr_used says which it was.
 * @return 1 when a newer zone is in @p out, 0 when the primary has nothing
 * newer (a single SOA, or the serial we hold), a negative errno with *err
 * and @p why otherwise (a diff that does not apply: the caller asks AXFR).
 */
int dns_xfr_result(struct dns_xfr_rx *rx, const struct dns_recs *cur, bool have_cur,
		   uint32_t cur_serial, struct dns_recs *out, bool *ixfr_used,
		   enum dns_xfr_err *err, char *why, size_t whylen);

void dns_xfr_rx_free(struct dns_xfr_rx *rx);

/**
 * Which secondary a NOTIFY for @p lname (lower case) from @p family /
 * @p addr is for: its index in @p src[0..nb), or -1 when @p lname is no
 * secondary zone here or the source is not its primary (REFUSED).
 */
int dns_notify_verdict(const struct dns_secondary_src *src, unsigned int nb,
		       const uint8_t *lname, uint8_t family, const uint8_t *addr);

/* ------------------------------------------------------------------ */
/* the refresh thread (dns_secondary.c)                                */

/** Its counters, in the order of dns_svc.h's C_XFR_* (folded by handle()). */
enum dns_xfr_ctr {
	DNS_XC_OK,		/* zones taken (AXFR or IXFR) */
	DNS_XC_IXFR,		/* ... of them by IXFR diffs */
	DNS_XC_UPTODATE,	/* refreshes that found our serial current */
	DNS_XC_FAILED_CONNECT,	/* DNS_XC_FAILED_CONNECT + enum dns_xfr_err - 1 */
	DNS_XC_FAILED_TRUNCATED,
	DNS_XC_FAILED_MESSAGE,
	DNS_XC_FAILED_RCODE,
	DNS_XC_FAILED_ZONE,
	DNS_XC_FAILED_SERIAL,
	DNS_XC_EXPIRED,		/* zones that reached their SOA expire */
	DNS_XC_MAX
};

struct dns_secondary;

/** Builds and publishes a zone set from dns_secondary_build() as a reload
 *  does; called with the secondaries' lock held. @return as reload(). */
typedef int (*dns_secondary_publish_fn)(void *arg, char *msg, size_t msglen);

/** The secondaries of @p src[0..nb) (none loaded: each answers SERVFAIL
 *  until its first transfer). @return NULL: out of memory. */
struct dns_secondary *dns_secondary_create(const struct dns_secondary_src *src, unsigned int nb,
			       dns_secondary_publish_fn publish, void *arg);
/** Start the refresh thread (first transfers now). @return 0 or -errno. */
int dns_secondary_start(struct dns_secondary *sec);
/** Stop the thread (within about a second) and free everything. */
void dns_secondary_destroy(struct dns_secondary *sec);
/** Held by reload() and the thread around a build and its publication. */
void dns_secondary_lock(struct dns_secondary *sec);
void dns_secondary_unlock(struct dns_secondary *sec);

/**
 * A zone set of the master files @p z[0..nb) and of the secondary zones
 * of @p sec that are loaded (@p sec may be NULL; its lock held): as
 * dns_set_load().
 */
int dns_secondary_build(struct dns_secondary *sec, const struct dns_zone_src *z, unsigned int nb,
		  int socket, uint16_t edns_size, struct dns_set **out, char *why,
		  size_t whylen);

/** Hot path: @p lname (lower case) is in a secondary zone not served (not
 *  transferred yet, or expired): SERVFAIL (RFC 1034 4.3.2). */
bool dns_secondary_down(const struct dns_secondary *sec, const uint8_t *lname);

/** Hot path: a NOTIFY for @p lname from @p family/@p addr: true (NOERROR,
 *  the refresh thread wakes) when it comes from that secondary zone's
 *  primary, false (REFUSED) otherwise. One atomic store, no lock. */
bool dns_secondary_notify(struct dns_secondary *sec, const uint8_t *lname, uint8_t family,
		    const uint8_t *addr);

/** Hot path: the thread's counts since the last call added to
 *  @p ctr[0..DNS_XC_MAX) (the calling lcore's). Cheap when nothing new. */
void dns_secondary_fold(struct dns_secondary *sec, uint64_t *ctr);

#endif /* TFO_DNS_XFR_H */
