/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-loadgen --dns-query: DNS over TCP (RFC 1035 4.2.2, RFC 7766), one
 * query per connection, the way a TFO client sends it: the framed query in
 * the SYN. The query is built once (ID 0); lg_fill_request writes each
 * transaction's ID into it. Every answer is checked as it arrives: its
 * length field bounds it, the question must be the query's byte for byte
 * (the case echoed), and once complete the header must be a response to
 * this query (ID, QR, opcode QUERY, TC clear, one question) with the
 * RCODE expected and, for NOERROR, at least one answer record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tfo/log.h"

#include "lg.h"

#define LG_DNS_NAME_MAX 255	/* RFC 1035 2.3.4: a name on the wire */

static const struct {
	const char *name;
	uint16_t type;
} lg_dns_types[] = {
	{ "A", 1 }, { "NS", 2 }, { "CNAME", 5 }, { "SOA", 6 }, { "PTR", 12 },
	{ "MX", 15 }, { "TXT", 16 }, { "AAAA", 28 }, { "SRV", 33 }, { "DS", 43 },
	{ "DNSKEY", 48 }, { "CAA", 257 }, { "ANY", 255 },
};

static const char *const lg_dns_rcodes[] = {
	"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED",
};

int
lg_dns_rcode(const char *s)
{
	char *end;
	long v;

	for (unsigned int i = 0; i < RTE_DIM(lg_dns_rcodes); i++)
		if (strcasecmp(s, lg_dns_rcodes[i]) == 0)
			return (int)i;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < 0 || v > 15)
		return -1;
	return (int)v;
}

/* TYPE: a mnemonic of the table, TYPEnnn (RFC 3597) or a number. */
static int
lg_dns_type(const char *s)
{
	char *end;
	long v;

	for (unsigned int i = 0; i < RTE_DIM(lg_dns_types); i++)
		if (strcasecmp(s, lg_dns_types[i].name) == 0)
			return lg_dns_types[i].type;
	if (strncasecmp(s, "TYPE", 4) == 0)
		s += 4;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < 1 || v > 65535)
		return -1;
	return (int)v;
}

/* NAME in presentation form (labels of 1..63 bytes, the root "."), into
 * wire form at @p out. @return its length, or -1. */
static int
lg_dns_name(const char *s, size_t slen, uint8_t *out)
{
	size_t n = 0;

	if (slen == 1 && s[0] == '.') {
		out[0] = 0;
		return 1;
	}
	while (slen > 0) {
		const char *dot = memchr(s, '.', slen);
		size_t l = dot != NULL ? (size_t)(dot - s) : slen;

		if (l == 0 || l > 63 || n + 1 + l + 1 > LG_DNS_NAME_MAX)
			return -1;
		out[n++] = (uint8_t)l;
		memcpy(out + n, s, l);
		n += l;
		if (dot == NULL)
			break;
		slen -= l + 1;
		s = dot + 1;
	}
	out[n++] = 0;
	return (int)n;
}

int
lg_dns_query(struct lg_opts *o, const char *arg, char *err, size_t errlen)
{
	const char *slash = strrchr(arg, '/');
	uint8_t q[LG_DNS_HDR + LG_DNS_NAME_MAX + 4];
	int nlen, type;
	uint32_t len;

	if (slash == NULL || slash == arg)
		return tfo_errmsg(err, errlen, "--dns-query %s: want NAME/TYPE (e.g. "
				  "www.example.org/A)", arg);
	type = lg_dns_type(slash + 1);
	if (type < 0)
		return tfo_errmsg(err, errlen, "--dns-query %s: unknown type '%s' (A, AAAA, "
				  "MX, TXT..., TYPEnnn or a number)", arg, slash + 1);
	nlen = lg_dns_name(arg, (size_t)(slash - arg), q + LG_DNS_HDR);
	if (nlen < 0)
		return tfo_errmsg(err, errlen, "--dns-query %s: not a domain name (labels of "
				  "1..63 bytes, 255 in all)", arg);
	len = LG_DNS_HDR - 2 + (uint32_t)nlen + 4;
	memset(q, 0, LG_DNS_HDR);
	q[0] = (uint8_t)(len >> 8);
	q[1] = (uint8_t)len;
	/* ID 0 (per transaction), flags 0: a QUERY, RD clear (authoritative
	 * servers are asked), QDCOUNT 1 */
	q[7] = 1;
	q[LG_DNS_HDR + nlen] = (uint8_t)(type >> 8);
	q[LG_DNS_HDR + nlen + 1] = (uint8_t)type;
	q[LG_DNS_HDR + nlen + 2] = 0;
	q[LG_DNS_HDR + nlen + 3] = 1;	/* class IN */
	free(o->request);
	o->request = malloc(len + 2);
	if (o->request == NULL)
		return tfo_errmsg(err, errlen, "out of memory");
	memcpy(o->request, q, len + 2);
	o->request_len = len + 2;
	o->tag = false;
	o->dns = true;
	return 0;
}

bool
lg_dns_scan(struct lg_lcore *lc, struct lg_conn *c, const struct rte_mbuf *m,
	    uint32_t off, uint32_t pos, uint32_t len)
{
	const struct lg_opts *o = lc->o;
	uint32_t end = pos + len;
	uint8_t buf[64];

	/* the header kept, the question compared, byte by byte; the rest
	 * (the records) only bounded by the length field */
	while (pos < o->request_len && len > 0) {
		uint32_t n = RTE_MIN(RTE_MIN(len, o->request_len - pos), (uint32_t)sizeof(buf));
		const uint8_t *p = rte_pktmbuf_read(m, off, n, buf);

		if (p == NULL)
			return false;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t at = pos + i;

			if (at < LG_DNS_HDR) {
				c->dns_hdr[at] = p[i];
			} else if (p[i] != o->request[at]) {
				LG_INC(&lc->stats, err_dns_question);
				return false;
			}
		}
		off += n;
		pos += n;
		len -= n;
	}
	if (end >= 2 && end > 2 + ((uint32_t)c->dns_hdr[0] << 8 | c->dns_hdr[1])) {
		LG_INC(&lc->stats, err_response_long);
		return false;
	}
	return true;
}

int
lg_dns_complete(struct lg_lcore *lc, const struct lg_conn *c)
{
	const struct lg_opts *o = lc->o;
	const uint8_t *h = c->dns_hdr;
	uint32_t want;
	uint16_t id, qd, an;
	uint8_t rcode;

	if (c->resp_len < 2)
		return 0;
	want = 2 + ((uint32_t)h[0] << 8 | h[1]);
	if (c->resp_len < want)
		return 0;
	if (want < LG_DNS_HDR) {
		LG_INC(&lc->stats, err_dns_header);
		return -1;
	}
	id = (uint16_t)(h[2] << 8 | h[3]);
	if (id != lg_dns_id(c->txn_id)) {
		LG_INC(&lc->stats, err_dns_id);
		return -1;
	}
	qd = (uint16_t)(h[6] << 8 | h[7]);
	/* QR set, opcode 0 (QUERY), TC clear (TCP has room for any answer) */
	if ((h[4] & 0xfa) != 0x80 || qd != 1) {
		LG_INC(&lc->stats, err_dns_header);
		return -1;
	}
	if (want < o->request_len) {
		LG_INC(&lc->stats, err_dns_question);	/* the question cut short */
		return -1;
	}
	rcode = h[5] & 0x0f;
	if (rcode != o->dns_rcode) {
		LG_INC(&lc->stats, err_dns_rcode);
		return -1;
	}
	an = (uint16_t)(h[8] << 8 | h[9]);
	if (rcode == 0 && an == 0) {
		LG_INC(&lc->stats, err_dns_no_answer);
		return -1;
	}
	return 1;
}
