/* SPDX-License-Identifier: BSD-3-Clause
 * The dns unit tests' DNS messages, shared by test_dns.c, test_dns_sec.c,
 * test_dns_rrl.c and test_dns_cookie.c: a query made as a client makes
 * it, handle() called on an exact-size copy of it (so ASan sees a read
 * past its end) with the response flattened as the engine sends it, and
 * a response decoded as a client reads it: the question and every record
 * of its sections, compression pointers followed.
 */
#ifndef TFO_TEST_DNS_DECODE_H
#define TFO_TEST_DNS_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "tfo/service.h"

#include "../services/dns_wire.h"

#define TDNS_RR_MAX 64
#define TDNS_STR_MAX 300	/* a name in presentation form */

/** What a query carries beyond its name and type (NULL: nothing). */
struct tdns_qopt {
	bool edns;
	uint16_t payload;
	uint8_t version;
	bool do_bit;
	bool keepalive;		/* an empty edns-tcp-keepalive option */
	bool nsid;		/* an empty NSID option */
	uint8_t opcode;
	uint16_t qdcount;	/* 0: 1 */
	uint16_t qclass;	/* 0: IN */
};

/** The query (ID 0x1234, RD) for @p name (presentation, absolute) and
 *  @p qtype into @p b; aborts on a bad name. @return its length. */
uint32_t tdns_query(uint8_t *b, const char *name, uint16_t qtype, const struct tdns_qopt *o);

/** A response flattened: the DNS message (TCP's prefix removed, a
 *  zero-copy body appended) and the service's response fields. */
struct tdns_answer {
	struct tfo_svc_resp r;
	uint8_t msg[70000];
	uint32_t len;		/* 0: no response */
};

/**
 * @p svc's handle() with state @p st on an exact-size copy of the @p len
 * bytes of @p req, answering into @p buf of @p cap bytes; the message in
 * @p a. Checks the engine's contract: a body slice within its blob, TCP's
 * length prefix equal to the message's. @return handle()'s status.
 */
enum tfo_svc_status tdns_call(const struct tfo_service *svc, void *st,
			      const struct tfo_svc_ctx *ctx, const uint8_t *req, uint32_t len,
			      uint8_t *buf, uint32_t cap, struct tdns_answer *a);

/** tdns_call() with the query tdns_query() makes for @p name, @p qtype and
 *  @p o, framed with its 2-byte length over TCP. */
enum tfo_svc_status tdns_ask(const struct tfo_service *svc, void *st,
			     const struct tfo_svc_ctx *ctx, const char *name, uint16_t qtype,
			     const struct tdns_qopt *o, uint8_t *buf, uint32_t cap,
			     struct tdns_answer *a);

/** One record of a response. */
struct tdns_rr {
	char name[TDNS_STR_MAX];	/* its owner, presentation, the case sent */
	uint8_t owner[DNS_NAME_MAX];	/* ... wire, lower case */
	uint32_t owner_off;		/* where the owner starts in the message */
	uint16_t type, rclass;
	uint32_t ttl;
	uint16_t rdlen;
	const uint8_t *rd;		/* in the message */
	int section;			/* 1 answer, 2 authority, 3 additional */
};

/** A response decoded. */
struct tdns_msg {
	char qname[TDNS_STR_MAX];	/* the question's name ("" without one) */
	unsigned int nb_rr;		/* TDNS_RR_MAX at most */
	struct tdns_rr rr[TDNS_RR_MAX];
};

/** The @p len bytes of @p m into @p d. @return 0, or -1 when a name or a
 *  record runs past the message or the records end before it does. */
int tdns_decode(const uint8_t *m, uint32_t len, struct tdns_msg *d);

/** Records of @p type in @p section; RRSIGs covering @p type when @p sig. */
unsigned int tdns_count(const struct tdns_msg *d, int section, uint16_t type, bool sig);

#endif /* TFO_TEST_DNS_DECODE_H */
