/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's answers composed (dns_answer.c),
 * private to the service: the answer, authority and additional sections
 * for a question, from the zone set's lookup, through the writer, with
 * DNSSEC's signatures and proofs. Used at load for the prebuilt blocks
 * and per request for the rest (wildcards, CNAME chains, referrals,
 * NXDOMAIN); allocates nothing. Reads the zone set, the writer and
 * dns_sec.h, below it.
 */
#ifndef TFO_DNS_ANSWER_H
#define TFO_DNS_ANSWER_H

#include <stdbool.h>
#include <stdint.h>

#include "dns_write.h"
#include "dns_zone.h"

/** What dns_compose() wrote. */
struct dns_sections {
	uint16_t an, ns, ar;
	uint32_t add_off;	/* where the additional section starts */
	uint8_t rcode;
	bool aa;
};

/**
 * The answer, authority and additional sections for the question
 * (@p lname, lower case; @p qtype) into @p w, after its question: the
 * lookup, CNAME chains within the zone (8 links at most), wildcards,
 * referrals with glue, NXDOMAIN and NODATA with the SOA, additional
 * A/AAAA for NS, MX and SRV targets in the zone. REFUSED outside the
 * zones. With @p dnssec (DO=1) in a signed zone: each RRset's RRSIGs
 * after it, the NSEC/NSEC3 proofs (dns_sec_deny) of negative and
 * wildcard answers, DS or its denial with a referral. @p w->overflow
 * says it did not fit.
 */
void dns_compose(struct dns_writer *w, const struct dns_set *s,
		 const uint8_t *lname, uint16_t qtype, bool dnssec,
		 struct dns_sections *sec);

#endif /* TFO_DNS_ANSWER_H */
