/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's pre-signed DNSSEC (dns_sec.c), private
 * to the service: at load, each signed zone's NSEC chain in canonical
 * order or NSEC3 chain by hash (SHA-1, RFC 5155 hashes of every name);
 * per answer, the RRSIGs held to their section's end and the NSEC/NSEC3
 * proofs. Nothing is signed here. The per-answer half allocates nothing,
 * takes no lock and makes no system call. Reads the zone set and writes
 * through the writer, both below it.
 */
#ifndef TFO_DNS_SEC_H
#define TFO_DNS_SEC_H

#include <stddef.h>
#include <stdint.h>

#include "dns_write.h"
#include "dns_zone.h"

/** SHA-1 of @p len bytes (FIPS 180-4). */
void dns_sha1(const uint8_t *m, size_t len, uint8_t out[20]);
/** RFC 5155 5: the hash of @p lname with zone @p z's salt and iterations. */
void dns_nsec3_hash(const struct dns_zone *z, const uint8_t *lname, uint8_t out[20]);
/** At load, after dns_set_tables(): each zone's kind of signing, chain,
 *  NSEC3 parameters and hashes. @return 0 or a negative errno and @p why. */
int dns_sec_build(struct dns_set *s, int socket, char *why, size_t whylen);

#define DNS_SIGQ_MAX 80

/** RRSIGs held back to the end of their section, as knotd orders them:
 *  a section's RRsets first, then their signatures. An owner must stay
 *  valid until the queue is flushed. */
struct dns_sigq {
	unsigned int nb;
	struct {
		const uint8_t *owner;
		const struct dns_rrset *sig;
		uint32_t ttl_cap;
	} e[DNS_SIGQ_MAX];
};

/** Queue @p sig (NULL: nothing) owned by @p owner; past DNS_SIGQ_MAX
 *  it is left out. */
static inline void
dns_sigq_add(struct dns_sigq *q, const uint8_t *owner, const struct dns_rrset *sig,
	     uint32_t ttl_cap)
{
	if (sig == NULL || q->nb == DNS_SIGQ_MAX)
		return;
	q->e[q->nb].owner = owner;
	q->e[q->nb].sig = sig;
	q->e[q->nb++].ttl_cap = ttl_cap;
}

/** Write the queued RRSIGs and empty @p q. @return RRs written. */
unsigned int dns_sigq_flush(struct dns_writer *w, const struct dns_set *s,
			    struct dns_sigq *q);

/** What a proof denies. */
enum dns_deny {
	DNS_DENY_NXDOMAIN,	/* the name and the wildcard (RFC 4035 3.1.3.2) */
	DNS_DENY_NODATA,	/* the type at an existing name (3.1.3.1) */
	DNS_DENY_WILDCARD,	/* a closer match, for a wildcard answer (3.1.3.3) */
	DNS_DENY_WILD_NODATA,	/* the name, and the type at the wildcard (3.1.3.4) */
	DNS_DENY_DS,		/* a DS at a delegation point (RFC 4035 3.1.4.1) */
};

/** The NSEC or NSEC3 records that prove @p kind for @p lname in signed
 *  zone @p zone, into @p w, their RRSIGs into @p q. @return RRs written. */
unsigned int dns_sec_deny(struct dns_writer *w, const struct dns_set *s, int zone,
			  const uint8_t *lname, enum dns_deny kind, struct dns_sigq *q);

#endif /* TFO_DNS_SEC_H */
