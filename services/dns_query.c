/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's query parser.
 *
 * One message: the header, exactly one question (its name uncompressed:
 * nothing precedes it to point at), answer and authority records walked
 * over (a query's mean nothing), and in the additional section at most
 * one OPT (RFC 6891) whose options are walked for edns-tcp-keepalive
 * (RFC 7828), NSID (RFC 5001) and the first COOKIE (RFC 7873), and a
 * TSIG (RFC 8945), which must be the last record: only located, for the
 * BADKEY answer (the service knows no key). Other additional records are
 * skipped. Bytes after the last record are ignored (over TCP the framing
 * bounds the message).
 * Reads only [m, m+len).
 */
#include <string.h>

#include "dns_query.h"

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/* Skip a (possibly compressed) name at m[*o]; @return 0 or -1. */
static int
skip_name(const uint8_t *m, uint32_t len, uint32_t *o)
{
	for (unsigned int hops = 0; hops < 128; hops++) {
		uint8_t l;

		if (*o >= len)
			return -1;
		l = m[*o];
		if (l == 0) {
			(*o)++;
			return 0;
		}
		if ((l & 0xc0) == 0xc0) {
			if (*o + 2 > len)
				return -1;
			*o += 2;
			return 0;
		}
		if ((l & 0xc0) != 0)
			return -1;
		*o += 1u + l;
	}
	return -1;
}

static int
parse_opt(const uint8_t *m, uint32_t len, uint32_t o, struct dns_query *q)
{
	/* o: the type field; name (root) already checked */
	uint16_t rdlen;
	uint32_t end;

	if (o + 10 > len)
		return -1;
	q->payload = rd16(m + o + 2);
	q->edns_version = m[o + 5];
	q->edns_do = (m[o + 6] & 0x80) != 0;
	rdlen = rd16(m + o + 8);
	o += 10;
	end = o + rdlen;
	if (end > len)
		return -1;
	while (o < end) {
		uint16_t code, olen;

		if (o + 4 > end)
			return -1;
		code = rd16(m + o);
		olen = rd16(m + o + 2);
		o += 4;
		if (o + olen > end)
			return -1;
		/* RFC 7828 3.2.1: a query's keepalive option has no TIMEOUT */
		if (code == DNS_OPT_KEEPALIVE) {
			if (olen != 0)
				return -1;
			q->keepalive = true;
		}
		/* RFC 5001 2.3: a query's NSID is empty; another is ignored */
		if (code == DNS_OPT_NSID && olen == 0)
			q->nsid = true;
		/* RFC 7873: judged by dns_handle.c (cookies = off ignores it), so a
		 * bad length is a FORMERR with our OPT, not a parse failure */
		if (code == DNS_OPT_COOKIE && q->cookie == NULL) {
			q->cookie = m + o;
			q->cookie_len = (uint8_t)(olen > 255 ? 255 : olen);
		}
		o += olen;
	}
	q->edns = true;
	return 0;
}

/* The name at m[o] is uncompressed and ends before @p end. */
static bool
plain_name(const uint8_t *m, uint32_t o, uint32_t end)
{
	while (o < end && m[o] != 0) {
		if (m[o] & 0xc0)
			return false;
		o += 1u + m[o];
	}
	return o < end;
}

/* The TSIG record whose owner is at m[nm], type at m[o]: names
 * uncompressed (RFC 8945 4.2), rdata fields exactly its length. */
static int
parse_tsig(const uint8_t *m, uint32_t nm, uint32_t o, struct dns_query *q)
{
	uint32_t rd = o + 10, end = rd + rd16(m + o + 8), p;

	if (!plain_name(m, nm, o) || !plain_name(m, rd, end))
		return -1;
	p = rd + dns_name_len(m + rd);
	if (p + 10 > end)		/* time signed, fudge, MAC size */
		return -1;
	p += 10u + rd16(m + p + 8);
	if (p + 6 > end)		/* original ID, error, other len */
		return -1;
	if (p + 6u + rd16(m + p + 4) != end)
		return -1;
	q->tsig_key = m + nm;
	q->tsig_rd = m + rd;
	return 0;
}

enum dns_qerr
dns_query_parse(const uint8_t *m, uint32_t len, struct dns_query *q)
{
	uint16_t qd, an, ns, ar;
	uint32_t o = DNS_HDR;
	unsigned int n = 0;

	memset(q, 0, sizeof(*q));
	if (len < DNS_HDR)
		return DNS_Q_SHORT;
	q->id = rd16(m);
	q->flags1 = m[2];
	q->flags2 = m[3];
	q->opcode = (m[2] >> 3) & 0xf;
	if (m[2] & 0x80)
		return DNS_Q_RESPONSE;
	qd = rd16(m + 4);
	an = rd16(m + 6);
	ns = rd16(m + 8);
	ar = rd16(m + 10);
	if (qd == 1) {
		/* the question: uncompressed labels, at most 255 bytes */
		for (;;) {
			uint8_t l;

			if (o >= len)
				return DNS_Q_FORMERR;
			l = m[o];
			if (l & 0xc0)
				return DNS_Q_FORMERR;
			if (o - DNS_HDR + 1u + l > DNS_NAME_MAX)
				return DNS_Q_FORMERR;
			if (o + 1u + l > len)
				return DNS_Q_FORMERR;
			for (unsigned int i = 0; i <= l; i++)
				q->lname[n + i] = (uint8_t)((i == 0 || m[o + i] < 'A' ||
							     m[o + i] > 'Z') ?
							    m[o + i] : m[o + i] + 32);
			n += 1u + l;
			o += 1u + l;
			if (l == 0)
				break;
		}
		if (o + 4 > len)
			return DNS_Q_FORMERR;
		q->qname = m + DNS_HDR;
		q->qname_len = (uint8_t)n;
		q->qtype = rd16(m + o);
		q->qclass = rd16(m + o + 2);
		o += 4;
		q->has_q = true;
	}
	/* RFC 8906 3.1.4: an opcode we do not implement is NOTIMP however
	 * many questions; two or more are not walked */
	if (qd != 1 && q->opcode == 0)
		return DNS_Q_FORMERR;
	if (qd > 1)
		return DNS_Q_NOTIMP;
	/* records in the answer and authority sections mean nothing in a
	 * query: walked over, as Knot DNS does, FORMERR only if malformed */
	for (uint32_t i = 0; i < (uint32_t)an + ns; i++) {
		if (skip_name(m, len, &o) < 0 || o + 10 > len ||
		    o + 10u + rd16(m + o + 8) > len)
			return DNS_Q_FORMERR;
		o += 10u + rd16(m + o + 8);
	}
	for (uint16_t i = 0; i < ar; i++) {
		uint32_t nm = o;
		uint16_t type, rdlen;

		if (skip_name(m, len, &o) < 0 || o + 10 > len)
			return DNS_Q_FORMERR;
		type = rd16(m + o);
		if (type == DNS_T_OPT) {
			/* RFC 6891 6.1.1: one OPT, owned by the root; the
			 * FORMERR of a second one carries none */
			if (q->edns || o != nm + 1 || m[nm] != 0) {
				q->edns = false;
				return DNS_Q_FORMERR;
			}
			if (parse_opt(m, len, o, q) < 0) {
				q->edns = false;
				return DNS_Q_FORMERR;
			}
		}
		rdlen = rd16(m + o + 8);
		if (o + 10u + rdlen > len)
			return DNS_Q_FORMERR;
		/* RFC 8945 5.1: the last record, or FORMERR */
		if (type == DNS_T_TSIG &&
		    (i + 1u != ar || parse_tsig(m, nm, o, q) < 0))
			return DNS_Q_FORMERR;
		o += 10u + rdlen;
	}
	/* after the OPT: a NOTIMP carries ours (as Knot DNS's) */
	return q->opcode != 0 ? DNS_Q_NOTIMP : DNS_Q_OK;
}
