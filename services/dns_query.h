/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's query, parsed (dns_query.c), private to
 * the service: the header, the one question, the OPT record's EDNS fields
 * and options, a last TSIG located. The parser reads only the message
 * it is given, allocates nothing and logs nothing (the hot path). Reads
 * only dns_wire.h below it.
 */
#ifndef TFO_DNS_QUERY_H
#define TFO_DNS_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include "dns_wire.h"

struct dns_query {
	uint16_t id;
	uint8_t flags1, flags2;	/* header bytes 2 and 3 as received */
	uint8_t opcode;
	bool has_q;		/* the question parsed */
	uint16_t qtype, qclass;
	uint8_t qname_len;	/* wire length, root byte included */
	const uint8_t *qname;	/* in the request */
	uint8_t lname[DNS_NAME_MAX];	/* lower case */
	bool edns;
	/* the first COOKIE option's data (or NULL) and length, any: judged
	 * by dns_cookie_check(); dns_handle.c sets has_valid_server_cookie */
	const uint8_t *cookie;
	uint8_t cookie_len;
	uint8_t edns_version;
	bool edns_do;
	bool keepalive;		/* edns-tcp-keepalive asked */
	bool nsid;		/* an empty NSID option asked (RFC 5001) */
	uint16_t payload;	/* the client's UDP payload size */
	/* a TSIG record, the last of the message (RFC 8945): its owner
	 * (the key's name) and its rdata, both in the request, names
	 * uncompressed; NULL: none */
	const uint8_t *tsig_key;
	const uint8_t *tsig_rd;
	/* the query carries a server cookie this server made (RFC 7873):
	 * its source is proven, RRL does not limit it. Hook for the DNS
	 * cookie work: dns_query_parse() leaves it false. */
	bool has_valid_server_cookie;
};

enum dns_qerr {
	DNS_Q_OK = 0,
	DNS_Q_SHORT,		/* shorter than a header: no answer possible */
	DNS_Q_RESPONSE,		/* QR set */
	DNS_Q_FORMERR,		/* malformed (has_q says if the question is) */
	DNS_Q_NOTIMP,		/* opcode other than QUERY (whatever the
				 * question count: RFC 8906 3.1.4) */
};

/** Parse the @p len bytes of one message @p m into @p q; its pointers
 *  point into @p m. Never reads outside them. */
enum dns_qerr dns_query_parse(const uint8_t *m, uint32_t len, struct dns_query *q);

#endif /* TFO_DNS_QUERY_H */
