/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the wire side of the dns service's zone transfers and
 * NOTIFY (dns_xfr.h). No DPDK and no socket: the unit tests drive it with
 * bytes, the refresh thread (dns_secondary.c) with what the primary sent.
 *
 * A transfer's records become the same struct dns_recs a master file
 * gives (names uncompressed, owners checked to be in the zone, class IN
 * only), so the zone set is built by the one builder (dns_set_build) and
 * held to the same checks as a file.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tfo/log.h"

#include "dns_xfr.h"

/* ------------------------------------------------------------------ */
/* configuration                                                       */

static int
dns_secondary_one(const char *p, size_t n, struct dns_secondary_src *s, char *why, size_t whylen)
{
	const char *colon = memchr(p, ':', n), *at, *a;
	char addr[INET6_ADDRSTRLEN + 2];
	uint8_t name[DNS_NAME_MAX];
	size_t alen;
	uint32_t port = 53;
	int l;

	if (colon == NULL || colon == p || colon + 1 == p + n)
		return tfo_errmsg(why, whylen, "%.*s: expected ORIGIN:ADDRESS[@PORT] "
				  "(example.org:192.0.2.1@53)", (int)n, p);
	l = dns_name_from_text(p, (size_t)(colon - p), (const uint8_t *)"", name);
	if (l < 0)
		return tfo_errmsg(why, whylen, "bad zone name %.*s", (int)(colon - p), p);
	a = colon + 1;
	at = memchr(a, '@', (size_t)(p + n - a));
	alen = (size_t)((at != NULL ? at : p + n) - a);
	if (alen >= 2 && a[0] == '[' && a[alen - 1] == ']') {
		a++;
		alen -= 2;
	}
	if (alen == 0 || alen >= sizeof(addr))
		return tfo_errmsg(why, whylen, "%.*s: bad address", (int)n, p);
	memcpy(addr, a, alen);
	addr[alen] = '\0';
	if (at != NULL) {
		char ps[8];
		size_t pl = (size_t)(p + n - at - 1);

		if (pl == 0 || pl >= sizeof(ps))
			return tfo_errmsg(why, whylen, "%.*s: expected a port in 1..65535 after @",
					  (int)n, p);
		memcpy(ps, at + 1, pl);
		ps[pl] = '\0';
		if (dns_u32(ps, 1, 65535, &port) < 0)
			return tfo_errmsg(why, whylen, "%.*s: expected a port in 1..65535 "
					  "after @", (int)n, p);
	}
	memset(s, 0, sizeof(*s));
	if (inet_pton(AF_INET, addr, s->addr) == 1)
		s->family = AF_INET;
	else if (inet_pton(AF_INET6, addr, s->addr) == 1)
		s->family = AF_INET6;
	else
		return tfo_errmsg(why, whylen, "%.*s: %s is no IPv4 or IPv6 address",
				  (int)n, p, addr);
	dns_name_lower(s->origin, name);
	s->port = (uint16_t)port;
	snprintf(s->text, sizeof(s->text), s->family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 addr, (unsigned int)port);
	return 0;
}

int
dns_secondary_value(const char *value, struct dns_secondary_src *out, unsigned int *nb,
	      unsigned int max, char *why, size_t whylen)
{
	const char *p = value;

	for (;;) {
		struct dns_secondary_src s;
		const char *e;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '\0')
			return 0;
		for (e = p; *e != '\0' && *e != ' ' && *e != '\t' && *e != ','; e++)
			;
		if (dns_secondary_one(p, (size_t)(e - p), &s, why, whylen) < 0)
			return -EINVAL;
		if (out != NULL) {
			for (unsigned int i = 0; i < *nb; i++)
				if (dns_name_len(out[i].origin) == dns_name_len(s.origin) &&
				    memcmp(out[i].origin, s.origin, dns_name_len(s.origin)) == 0)
					return tfo_errmsg(why, whylen, "zone %.*s given twice",
							  (int)(e - p), p);
			if (*nb == max)
				return tfo_errmsg(why, whylen, "more than %u secondary zones", max);
			out[(*nb)++] = s;
		}
		p = e;
	}
}

/* ------------------------------------------------------------------ */
/* records                                                             */

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int
dns_soa_times(const uint8_t *rd, uint16_t len, uint32_t *serial, uint32_t *refresh,
	      uint32_t *retry, uint32_t *expire)
{
	uint32_t o = 0;

	for (int n = 0; n < 2; n++) {
		while (o < len && rd[o] != 0) {
			if (rd[o] > 63)
				return -EINVAL;
			o += 1u + rd[o];
		}
		o++;
	}
	if (o + 20 != len)
		return -EINVAL;
	*serial = rd32(rd + o);
	*refresh = rd32(rd + o + 4);
	*retry = rd32(rd + o + 8);
	*expire = rd32(rd + o + 12);
	return 0;
}

/* The name at m[*o] (compression pointers followed backwards only) into
 * @p out, uncompressed. @return its length or -1. */
static int
wire_name(const uint8_t *m, uint32_t len, uint32_t *o, uint8_t *out)
{
	uint32_t p = *o, n = 0;
	bool jumped = false;

	for (unsigned int hops = 0; hops < 128; hops++) {
		uint8_t l;

		if (p >= len)
			return -1;
		l = m[p];
		if ((l & 0xc0) == 0xc0) {
			uint32_t to;

			if (p + 1 >= len)
				return -1;
			to = (uint32_t)(l & 0x3f) << 8 | m[p + 1];
			if (to >= p)
				return -1;	/* forward or self: a loop */
			if (!jumped)
				*o = p + 2;
			jumped = true;
			p = to;
			continue;
		}
		if (l > 63 || p + 1 + l > len || n + 1 + l > DNS_NAME_MAX)
			return -1;
		memcpy(out + n, m + p, 1u + l);
		n += 1u + l;
		p += 1u + l;
		if (l == 0) {
			if (!jumped)
				*o = p;
			return (int)n;
		}
	}
	return -1;
}

/* Types whose rdata may carry compressed names (RFC 3597 4): the bytes
 * before the first name, the number of names. */
static bool
rdata_names(uint16_t type, unsigned int *pre, unsigned int *names)
{
	switch (type) {
	case DNS_T_NS: case DNS_T_CNAME: case DNS_T_PTR:
		*pre = 0; *names = 1; return true;
	case DNS_T_SOA:
		*pre = 0; *names = 2; return true;
	case DNS_T_MX:
		*pre = 2; *names = 1; return true;
	case DNS_T_SRV:
		*pre = 6; *names = 1; return true;
	default:
		return false;
	}
}

/* What the service serves: the master file's types and the pre-signed
 * DNSSEC ones (their names are never compressed: RFC 4034). */
static bool
type_served(uint16_t t)
{
	switch (t) {
	case DNS_T_A: case DNS_T_NS: case DNS_T_CNAME: case DNS_T_SOA: case DNS_T_PTR:
	case DNS_T_HINFO: case DNS_T_MX: case DNS_T_TXT: case DNS_T_AAAA: case DNS_T_SRV:
	case DNS_T_CAA: case DNS_T_DS: case DNS_T_RRSIG: case DNS_T_NSEC:
	case DNS_T_DNSKEY: case DNS_T_NSEC3: case DNS_T_NSEC3PARAM: case DNS_T_CDS:
	case DNS_T_CDNSKEY:
		return true;
	default:
		return false;
	}
}

/* One record of the answer section at m[*o] into @p r (buffers of the
 * caller: @p owner, @p rd of 65535 bytes). */
static int
wire_rr(const uint8_t *m, uint32_t len, uint32_t *o, struct dns_rec *r,
	uint8_t *owner, uint8_t *rd, uint16_t *klass)
{
	unsigned int pre, names;
	uint32_t rdl, end, n = 0;

	if (wire_name(m, len, o, owner) < 0 || *o + 10 > len)
		return -1;
	r->owner = owner;
	r->type = rd16(m + *o);
	*klass = rd16(m + *o + 2);
	r->ttl = rd32(m + *o + 4) & 0x7fffffffu;	/* RFC 2181 8 */
	rdl = rd16(m + *o + 8);
	*o += 10;
	end = *o + rdl;
	if (end > len)
		return -1;
	r->rdata = rd;
	if (!rdata_names(r->type, &pre, &names)) {
		memcpy(rd, m + *o, rdl);
		r->rdlen = (uint16_t)rdl;
		*o = end;
		return 0;
	}
	if (*o + pre > end)
		return -1;
	memcpy(rd, m + *o, pre);
	n = pre;
	*o += pre;
	for (unsigned int i = 0; i < names; i++) {
		int l = wire_name(m, end, o, rd + n);

		if (l < 0)
			return -1;
		n += (uint32_t)l;
	}
	if (end - *o + n > 65535)
		return -1;
	memcpy(rd + n, m + *o, end - *o);
	n += end - *o;
	*o = end;
	r->rdlen = (uint16_t)n;
	return 0;
}

static int __attribute__((format(printf, 5, 6)))
xfr_err(enum dns_xfr_err *err, enum dns_xfr_err e, char *why, size_t whylen,
	const char *fmt, ...)
{
	va_list ap;

	*err = e;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *const rcode_names[16] = {
	"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED", "YXDOMAIN",
	"YXRRSET", "NXRRSET", "NOTAUTH", "NOTZONE", "rcode 11", "rcode 12", "rcode 13",
	"rcode 14", "rcode 15",
};

/* One record into the stream's state: RFC 1995 4 and RFC 5936 2.2 say
 * where the SOAs stand, which tells when the transfer is complete. */
static int
xfr_take(struct dns_xfr_rx *rx, const struct dns_rec *r, enum dns_xfr_err *err,
	 char *why, size_t whylen)
{
	uint8_t low[DNS_NAME_MAX];
	uint32_t serial, x;

	if (rx->done)
		return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "records after the "
			       "closing SOA");
	if (dns_recs_push(&rx->rrs, r) < 0)
		return xfr_err(err, DNS_XE_ZONE, why, whylen, "out of memory");
	if (r->type != DNS_T_SOA) {
		if (rx->rrs.n == 1)
			return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "the first record "
				       "is not the zone's SOA");
		return 0;
	}
	if (dns_soa_times(r->rdata, r->rdlen, &serial, &x, &x, &x) < 0)
		return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "a malformed SOA");
	rx->nb_soa++;
	dns_name_lower(low, r->owner);
	/* the SOAs delimit the stream: any other owner's is broken */
	if (dns_name_len(low) != dns_name_len(rx->origin) ||
	    memcmp(low, rx->origin, dns_name_len(low)) != 0)
		return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "an SOA that is not "
			       "the zone's");
	if (rx->rrs.n == 1) {
		rx->serial = serial;
		return 0;
	}
	if (rx->rrs.n == 2 && serial != rx->serial)
		rx->incremental = true;
	if (!rx->incremental)
		rx->done = rx->nb_soa == 2;
	else	/* SOAs 2, 4, ... open a diff: the new serial there ends it */
		rx->done = rx->nb_soa % 2 == 0 && serial == rx->serial;
	return 0;
}

int
dns_xfr_msg(struct dns_xfr_rx *rx, const uint8_t *m, uint32_t len,
	    enum dns_xfr_err *err, char *why, size_t whylen)
{
	uint8_t owner[DNS_NAME_MAX], q[DNS_NAME_MAX], rd[65535];
	uint32_t o = DNS_HDR;
	uint16_t qd, an;

	if (len < DNS_HDR)
		return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "a message shorter than "
			       "a header");
	if (rd16(m) != rx->id || (m[2] & 0x80) == 0 || ((m[2] >> 3) & 0xf) != 0)
		return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "a message that is not "
			       "our transfer's answer (ID, QR, opcode)");
	if ((m[3] & 0x0f) != 0)
		return xfr_err(err, DNS_XE_RCODE, why, whylen, "the primary answered %s",
			       rcode_names[m[3] & 0x0f]);
	qd = rd16(m + 4);
	an = rd16(m + 6);
	for (unsigned int i = 0; i < qd; i++)
		if (wire_name(m, len, &o, q) < 0 || (o += 4) > len)
			return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "a malformed "
				       "question");
	for (unsigned int i = 0; i < an; i++) {
		struct dns_rec r = { .line = rx->rrs.n + 1 };
		uint16_t klass;
		char n[DNS_NAME_MAX * 4];
		uint8_t low[DNS_NAME_MAX];

		if (wire_rr(m, len, &o, &r, owner, rd, &klass) < 0)
			return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "a malformed "
				       "record");
		dns_name_lower(low, owner);
		dns_name_str(owner, n, sizeof(n));
		if (klass != DNS_CLASS_IN)
			return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "%s: class %u, not IN",
				       n, klass);
		if (!dns_name_under(low, rx->origin))
			return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "%s: outside the zone",
				       n);
		if (!type_served(r.type))
			return xfr_err(err, DNS_XE_ZONE, why, whylen, "%s: type %u not served",
				       n, r.type);
		if (xfr_take(rx, &r, err, why, whylen) < 0)
			return -EINVAL;
	}
	/* RFC 1995 4: a lone SOA not newer than ours: nothing to send */
	if (rx->ixfr && rx->rrs.n == 1 && !dns_serial_newer(rx->serial, rx->our_serial))
		rx->done = true;
	return 0;
}

void
dns_xfr_rx_free(struct dns_xfr_rx *rx)
{
	dns_recs_free(&rx->rrs);
}

/* ------------------------------------------------------------------ */
/* the result                                                          */

static bool
rec_same(const struct dns_rec *a, const struct dns_rec *b)
{
	uint8_t la[DNS_NAME_MAX], lb[DNS_NAME_MAX];
	unsigned int n = dns_name_lower(la, a->owner);

	return a->type == b->type && a->rdlen == b->rdlen &&
	       dns_name_lower(lb, b->owner) == n && memcmp(la, lb, n) == 0 &&
	       memcmp(a->rdata, b->rdata, a->rdlen) == 0;
}

/* Remove the first record of @p w like @p r (the last takes its place:
 * the builder groups RRsets itself). @return 0 or -1: none. */
static int
recs_remove(struct dns_recs *w, const struct dns_rec *r, bool any_soa)
{
	for (unsigned int i = 0; i < w->n; i++) {
		if (any_soa ? w->r[i].type != DNS_T_SOA : !rec_same(&w->r[i], r))
			continue;
		free(w->r[i].owner);
		free(w->r[i].rdata);
		w->r[i] = w->r[--w->n];
		return 0;
	}
	return -1;
}

/* RFC 1995 4: (SOA old, deletions, SOA new, additions)* then the new SOA. */
static int
xfr_apply(const struct dns_xfr_rx *rx, uint32_t cur_serial, struct dns_recs *w,
	  enum dns_xfr_err *err, char *why, size_t whylen)
{
	const struct dns_recs *s = &rx->rrs;
	uint32_t at = cur_serial, serial, x;
	unsigned int i = 1;

	for (;;) {
		/* a diff's opening SOA: the version it starts from */
		if (s->r[i].type != DNS_T_SOA)
			return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "IXFR: a diff "
				       "without its SOA");
		dns_soa_times(s->r[i].rdata, s->r[i].rdlen, &serial, &x, &x, &x);
		if (i == s->n - 1 && serial == rx->serial) {
			if (at == rx->serial)
				return 0;
			return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "IXFR: the diffs "
				       "do not reach the new serial");
		}
		if (serial != at) {
			return xfr_err(err, DNS_XE_ZONE, why, whylen, "IXFR: a diff from serial %u, we hold %u",
				 serial, at);
		}
		if (recs_remove(w, NULL, true) < 0)
			return xfr_err(err, DNS_XE_ZONE, why, whylen, "IXFR: no SOA to "
				       "replace");
		for (i++; i < s->n && s->r[i].type != DNS_T_SOA; i++)
			if (recs_remove(w, &s->r[i], false) < 0) {
				char n[DNS_NAME_MAX * 4];

				dns_name_str(s->r[i].owner, n, sizeof(n));
				return xfr_err(err, DNS_XE_ZONE, why, whylen, "IXFR: %s type %u to delete is not in "
					 "the zone", n, s->r[i].type);
			}
		if (i >= s->n - 1)
			return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "IXFR: a diff "
				       "without its new SOA");
		dns_soa_times(s->r[i].rdata, s->r[i].rdlen, &at, &x, &x, &x);
		/* the diff's new SOA replaces the old one, then its additions */
		for (bool soa = true; i < s->n && (soa || s->r[i].type != DNS_T_SOA);
		     i++, soa = false)
			if (dns_recs_push(w, &s->r[i]) < 0)
				return xfr_err(err, DNS_XE_ZONE, why, whylen, "out of memory");
		if (i >= s->n)
			return xfr_err(err, DNS_XE_TRUNCATED, why, whylen, "IXFR: the "
				       "stream ends inside a diff");
	}
}

int
dns_xfr_result(struct dns_xfr_rx *rx, const struct dns_recs *cur, bool have_cur,
	       uint32_t cur_serial, struct dns_recs *out, bool *ixfr_used,
	       enum dns_xfr_err *err, char *why, size_t whylen)
{
	*ixfr_used = false;
	if (!rx->done)
		return xfr_err(err, DNS_XE_TRUNCATED, why, whylen, "the stream ended "
			       "before the closing SOA");
	if (have_cur && rx->serial == cur_serial)
		return 0;
	if (have_cur && !dns_serial_newer(rx->serial, cur_serial))
		return xfr_err(err, DNS_XE_SERIAL, why, whylen,
			       "serial %u is not newer than ours, %u", rx->serial, cur_serial);
	if (rx->rrs.n == 1)	/* a lone SOA, newer: says nothing we can use */
		return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "a lone SOA");
	if (!rx->incremental) {
		for (unsigned int i = 0; i + 1 < rx->rrs.n; i++)
			if (dns_recs_push(out, &rx->rrs.r[i]) < 0) {
				dns_recs_free(out);
				return xfr_err(err, DNS_XE_ZONE, why, whylen, "out of memory");
			}
		return 1;
	}
	if (!have_cur)
		return xfr_err(err, DNS_XE_MESSAGE, why, whylen, "diffs, and we hold no "
			       "zone");
	if (dns_recs_copy(out, cur) < 0)
		return xfr_err(err, DNS_XE_ZONE, why, whylen, "out of memory");
	if (xfr_apply(rx, cur_serial, out, err, why, whylen) < 0) {
		dns_recs_free(out);
		return -EINVAL;
	}
	*ixfr_used = true;
	return 1;
}

/* ------------------------------------------------------------------ */
/* queries and NOTIFY                                                  */

uint32_t
dns_xfr_query(uint8_t *buf, uint16_t id, const uint8_t *origin, const uint8_t *soa,
	      uint16_t soa_len, uint32_t soa_ttl)
{
	uint8_t *m = buf + 2;
	unsigned int nl = dns_name_len(origin);
	uint32_t o = DNS_HDR;
	uint16_t qt = soa != NULL ? DNS_T_IXFR : DNS_T_AXFR;

	memset(m, 0, DNS_HDR);
	m[0] = (uint8_t)(id >> 8);
	m[1] = (uint8_t)id;
	m[5] = 1;
	m[9] = soa != NULL ? 1 : 0;
	memcpy(m + o, origin, nl);
	o += nl;
	m[o++] = (uint8_t)(qt >> 8);
	m[o++] = (uint8_t)qt;
	m[o++] = 0;
	m[o++] = DNS_CLASS_IN;
	if (soa != NULL) {
		const uint8_t rr[12] = { 0xc0, DNS_HDR, 0, DNS_T_SOA, 0, DNS_CLASS_IN,
			(uint8_t)(soa_ttl >> 24), (uint8_t)(soa_ttl >> 16),
			(uint8_t)(soa_ttl >> 8), (uint8_t)soa_ttl,
			(uint8_t)(soa_len >> 8), (uint8_t)soa_len };

		memcpy(m + o, rr, sizeof(rr));
		o += sizeof(rr);
		memcpy(m + o, soa, soa_len);
		o += soa_len;
	}
	buf[0] = (uint8_t)(o >> 8);
	buf[1] = (uint8_t)o;
	return o + 2;
}

int
dns_notify_verdict(const struct dns_secondary_src *src, unsigned int nb, const uint8_t *lname,
		   uint8_t family, const uint8_t *addr)
{
	unsigned int ln = dns_name_len(lname);

	for (unsigned int i = 0; i < nb; i++) {
		if (dns_name_len(src[i].origin) != ln ||
		    memcmp(src[i].origin, lname, ln) != 0)
			continue;
		if (src[i].family != family ||
		    memcmp(src[i].addr, addr, family == AF_INET6 ? 16 : 4) != 0)
			return -1;
		return (int)i;
	}
	return -1;
}
