/* SPDX-License-Identifier: BSD-3-Clause
 * The dns unit tests' DNS messages (dns_decode.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tfo/service.h"

#include "dns_decode.h"
#include "test.h"

uint32_t
tdns_query(uint8_t *b, const char *name, uint16_t qtype, const struct tdns_qopt *o)
{
	uint16_t qclass = o != NULL && o->qclass ? o->qclass : DNS_CLASS_IN;
	uint32_t n = DNS_HDR;
	int l;

	memset(b, 0, DNS_HDR);
	b[0] = 0x12;
	b[1] = 0x34;
	b[2] = (uint8_t)(0x01 | ((o ? o->opcode : 0) << 3));	/* RD */
	b[5] = (uint8_t)(o && o->qdcount ? o->qdcount : 1);
	l = dns_name_from_text(name, strlen(name), NULL, b + n);
	if (l < 0)
		abort();
	n += (uint32_t)l;
	b[n++] = (uint8_t)(qtype >> 8);
	b[n++] = (uint8_t)qtype;
	b[n++] = (uint8_t)(qclass >> 8);
	b[n++] = (uint8_t)qclass;
	if (o == NULL || !o->edns)
		return n;
	b[11] = 1;
	b[n++] = 0;
	b[n++] = 0;
	b[n++] = DNS_T_OPT;
	b[n++] = (uint8_t)(o->payload >> 8);
	b[n++] = (uint8_t)o->payload;
	b[n++] = 0;
	b[n++] = o->version;
	b[n++] = o->do_bit ? 0x80 : 0;
	b[n++] = 0;
	b[n++] = 0;
	b[n++] = (uint8_t)((o->keepalive ? 4 : 0) + (o->nsid ? 4 : 0));
	if (o->keepalive) {
		memcpy(b + n, "\0\x0b\0\0", 4);
		n += 4;
	}
	if (o->nsid) {
		memcpy(b + n, "\0\x03\0\0", 4);
		n += 4;
	}
	return n;
}

enum tfo_svc_status
tdns_call(const struct tfo_service *svc, void *st, const struct tfo_svc_ctx *ctx,
	  const uint8_t *req, uint32_t len, uint8_t *buf, uint32_t cap, struct tdns_answer *a)
{
	uint32_t pre = ctx->transport == TFO_SVC_TCP ? 2 : 0;
	uint8_t *copy = malloc(len ? len : 1);
	enum tfo_svc_status s;

	if (copy == NULL)
		abort();
	memcpy(copy, req, len);
	memset(&a->r, 0, sizeof(a->r));
	a->r.buf = buf;
	a->r.buf_cap = cap;
	s = svc->handle(st, ctx, copy, len, &a->r);
	free(copy);
	a->len = 0;
	if (s != TFO_SVC_RESPOND)
		return s;
	memcpy(a->msg, a->r.buf + pre, a->r.buf_len - pre);
	a->len = a->r.buf_len - pre;
	if (a->r.body != NULL) {
		/* the engine's contract: the slice within the blob */
		CHECK(a->r.body_off <= a->r.body->len &&
		      a->r.body_len <= a->r.body->len - a->r.body_off);
		memcpy(a->msg + a->len, a->r.body->data + a->r.body_off, a->r.body_len);
		a->len += a->r.body_len;
	}
	if (pre)
		CHECK_EQ(((uint32_t)a->r.buf[0] << 8 | a->r.buf[1]), a->len);
	return s;
}

enum tfo_svc_status
tdns_ask(const struct tfo_service *svc, void *st, const struct tfo_svc_ctx *ctx,
	 const char *name, uint16_t qtype, const struct tdns_qopt *o, uint8_t *buf,
	 uint32_t cap, struct tdns_answer *a)
{
	uint32_t pre = ctx->transport == TFO_SVC_TCP ? 2 : 0;
	uint8_t q[600];
	uint32_t n = tdns_query(q + pre, name, qtype, o);

	if (pre) {
		q[0] = (uint8_t)(n >> 8);
		q[1] = (uint8_t)n;
	}
	return tdns_call(svc, st, ctx, q, n + pre, buf, cap, a);
}

/* The name at m[*o] into @p s (presentation, the case sent) and @p w
 * (wire, lower case); *o past it. @return 0 or -1. */
static int
rd_name(const uint8_t *m, uint32_t len, uint32_t *o, char *s, uint8_t *w)
{
	uint32_t p = *o, n = 0, k = 0;
	bool jumped = false;

	for (int hops = 0; hops < 64; hops++) {
		uint8_t l;

		if (p >= len)
			return -1;
		l = m[p];
		if ((l & 0xc0) == 0xc0) {
			if (!jumped)
				*o = p + 2;
			jumped = true;
			p = (uint32_t)(l & 0x3f) << 8 | m[p + 1];
			continue;
		}
		if (k + 1u + l > DNS_NAME_MAX || n + l + 2u > TDNS_STR_MAX || p + 1u + l > len)
			return -1;
		memcpy(w + k, m + p, 1u + l);
		k += 1u + l;
		if (l == 0) {
			if (!jumped)
				*o = p + 1;
			if (n == 0)
				s[n++] = '.';
			s[n] = '\0';
			dns_name_lower(w, w);
			return 0;
		}
		memcpy(s + n, m + p + 1, l);
		n += l;
		s[n++] = '.';
		p += 1u + l;
	}
	return -1;
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

int
tdns_decode(const uint8_t *m, uint32_t len, struct tdns_msg *d)
{
	uint32_t o = DNS_HDR, an, ns, ar;
	uint8_t w[DNS_NAME_MAX];

	d->nb_rr = 0;
	d->qname[0] = '\0';
	if (len < DNS_HDR)
		return -1;
	an = rd16(m + 6);
	ns = rd16(m + 8);
	ar = rd16(m + 10);
	if (rd16(m + 4) == 1) {
		if (rd_name(m, len, &o, d->qname, w) < 0)
			return -1;
		o += 4;
	}
	for (uint32_t i = 0; i < an + ns + ar && d->nb_rr < TDNS_RR_MAX; i++) {
		struct tdns_rr *r = &d->rr[d->nb_rr++];

		r->owner_off = o;
		if (rd_name(m, len, &o, r->name, r->owner) < 0 || o + 10 > len)
			return -1;
		r->type = rd16(m + o);
		r->rclass = rd16(m + o + 2);
		r->ttl = (uint32_t)rd16(m + o + 4) << 16 | rd16(m + o + 6);
		r->rdlen = rd16(m + o + 8);
		r->rd = m + o + 10;
		r->section = i < an ? 1 : i < an + ns ? 2 : 3;
		o += 10u + r->rdlen;
	}
	return o == len ? 0 : -1;
}

unsigned int
tdns_count(const struct tdns_msg *d, int section, uint16_t type, bool sig)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < d->nb_rr; i++) {
		const struct tdns_rr *r = &d->rr[i];

		if (r->section != section)
			continue;
		if (!sig && r->type == type)
			k++;
		if (sig && r->type == DNS_T_RRSIG && r->rdlen >= 2 && rd16(r->rd) == type)
			k++;
	}
	return k;
}
