/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's master files (RFC 1035 section 5) read
 * into records in wire form, private to the service: dns_zparse.c reads
 * the entries and the common types, dns_zsec.c the DNSSEC types and the
 * type mnemonics. No DPDK: the configuration check reads zone files too.
 * Reads only dns_wire.h below it.
 */
#ifndef TFO_DNS_ZPARSE_H
#define TFO_DNS_ZPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dns_wire.h"

/** One record as read from a master file; rdata in wire form. */
struct dns_rec {
	uint8_t *owner;		/* malloc'ed wire name, as written */
	uint16_t type;
	uint32_t ttl;
	uint16_t rdlen;
	uint8_t *rdata;		/* malloc'ed */
	unsigned int line;
};

/** A zone's records, in the file's order. */
struct dns_recs {
	struct dns_rec *r;
	unsigned int n, cap;
};

/**
 * Read the master file @p path for zone @p origin (wire, lower case) into
 * @p out (appended). Refuses, with "file:line: reason" in @p why, what the
 * service cannot serve: other types than the common ones, other classes
 * than IN, names outside the zone, $INCLUDE, syntax errors.
 * @return 0 or a negative errno.
 */
int dns_zparse_file(const char *path, const uint8_t *origin,
		    struct dns_recs *out, char *why, size_t whylen);
/** The same from @p len bytes of text in memory (tests, fuzzing); @p fname
 *  names it in errors. */
int dns_zparse_text(const char *text, size_t len, const char *fname,
		    const uint8_t *origin, struct dns_recs *out, char *why,
		    size_t whylen);
/** Append a copy of @p r to @p rs. @return 0 or -ENOMEM. */
int dns_recs_push(struct dns_recs *rs, const struct dns_rec *r);

/** Deep copy of @p in into @p out (empty on entry; emptied again when
 * it fails). @return 0 or -ENOMEM. */
int dns_recs_copy(struct dns_recs *out, const struct dns_recs *in);

/** Free every record of @p rs and empty it. */
void dns_recs_free(struct dns_recs *rs);

/* ------------------------------------------------------------------ */
/* DNSSEC records in presentation form (dns_zsec.c)                    */

/** One field of a master file entry. */
struct dns_ztok {
	const char *p;
	size_t len;
	bool quoted;
};

/** Field @p t as a decimal number in 0..@p max. @return 0 or -EINVAL. */
int dns_ztok_u32(const struct dns_ztok *t, uint32_t max, uint32_t *v);
/** Type mnemonic ("RRSIG", "TYPE65534") -> number, or -EINVAL. */
int dns_type_from_text(const char *s, size_t len);
/** Base32hex without padding (RFC 4648 7) -> bytes; @return their
 *  number or -EINVAL. */
int dns_b32hex_decode(const char *s, size_t len, uint8_t *out, size_t cap);
/**
 * The rdata of a DS, CDS, DNSKEY, CDNSKEY, RRSIG, NSEC, NSEC3 or
 * NSEC3PARAM record from its fields @p a[0..n) (names relative to
 * @p origin) into @p out (at least 512 bytes of @p cap), its length in
 * @p len. @return 0, or -EINVAL and the reason (no file:line) in @p why.
 */
int dns_zsec_rdata(uint16_t type, const struct dns_ztok *a, unsigned int n,
		   const uint8_t *origin, uint8_t *out, uint32_t cap, uint32_t *len,
		   char *why, size_t whylen);

#endif /* TFO_DNS_ZPARSE_H */
