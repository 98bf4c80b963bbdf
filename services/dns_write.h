/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's message writer (dns_write.c), private
 * to the service: the header, the question, RRsets with name compression
 * (RFC 1035 4.1.4), the OPT record and its options, an error TSIG. Used
 * at load for the prebuilt blocks and per request for the rest; nothing
 * here allocates or logs. A write past the buffer sets `overflow` and
 * writes nothing more: callers check it once at the end. Reads the zone
 * set (dns_zone.h) and the parsed query (dns_query.h), below it.
 */
#ifndef TFO_DNS_WRITE_H
#define TFO_DNS_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "dns_query.h"
#include "dns_wire.h"
#include "dns_zone.h"

#define DNS_COMPR_MAX 64

/** A message being written into [buf, buf+cap). */
struct dns_writer {
	uint8_t *buf;
	uint32_t cap;
	uint32_t len;
	bool overflow;
	uint16_t nb_ptr;
	uint16_t ptr[DNS_COMPR_MAX];	/* offsets of written labels */
};

/** An empty message in @p buf of @p cap bytes. */
void dns_w_init(struct dns_writer *w, uint8_t *buf, uint32_t cap);
/** Header (counts 0) and the question of @p q (its name as received). */
void dns_w_head(struct dns_writer *w, const struct dns_query *q, uint8_t rcode,
		bool aa);
/** The question from a lower-case name (prebuilt blocks). */
void dns_w_question(struct dns_writer *w, const uint8_t *name, uint16_t qtype);
/** Name @p n (wire, uncompressed) with compression. */
void dns_w_name(struct dns_writer *w, const uint8_t *n);
/** Every RR of @p rr owned by @p owner; @p ttl_cap caps the TTL (negative
 *  answers' SOA). @return RRs written. */
unsigned int dns_w_rrset(struct dns_writer *w, const struct dns_set *s,
			 const uint8_t *owner, const struct dns_rrset *rr,
			 uint32_t ttl_cap);
/** The OPT record: our payload size, ext rcode, DO, keepalive (100 ms units
 *  or -1: none), an extended DNS error (RFC 8914 info code, or -1: none). */
void dns_w_opt(struct dns_writer *w, uint16_t payload, uint8_t ext_rcode,
	       bool do_bit, int32_t keepalive, int32_t ede);
/** Append option @p code with @p len bytes of @p data to the OPT record
 *  written at @p opt (its offset in @p w), fixing its RDLENGTH. */
void dns_w_opt_add(struct dns_writer *w, uint32_t opt, uint16_t code,
		   const uint8_t *data, uint16_t len);
/** The unsigned TSIG record of an error answer to @p q's TSIG (RFC 8945
 *  5.3.2): the query's key name, algorithm, time signed and fudge, no
 *  MAC, our original ID, TSIG error @p error. */
void dns_w_tsig_error(struct dns_writer *w, const struct dns_query *q,
		      uint16_t error);
/** The header's section counts (nothing when no header is written). */
void dns_w_counts(struct dns_writer *w, uint16_t an, uint16_t ns, uint16_t ar);

#endif /* TFO_DNS_WRITE_H */
