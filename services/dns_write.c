/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's response writer (dns_write.h).
 *
 * Used twice: at load, to prebuild each node's answers after a question
 * of the node's own (lower-case) name; per request, for what cannot be
 * prebuilt (wildcards, CNAME chains, referrals, NXDOMAIN) and for the
 * header, the question and the OPT record. What goes in the sections is
 * dns_answer.c's choice: nothing here reads the lookup.
 *
 * Compression (RFC 1035 4.1.4): a name is written as its longest suffix
 * already in the message, found among the label offsets written so far
 * (the question's first); labels are compared without case, so a block
 * built against the lower-case name points into any question of the same
 * name whatever its case, and the question's case is what the client
 * reads back (owners that are the question name are a pointer to it).
 * Names in NS, CNAME, PTR, MX and SOA rdata are compressed; SRV's target
 * is not (RFC 2782).
 */
#include <string.h>

#include "dns_query.h"
#include "dns_write.h"
#include "dns_zone.h"

static inline void
w_put(struct dns_writer *w, const void *p, uint32_t n)
{
	if (w->overflow || w->len + n > w->cap) {
		w->overflow = true;
		return;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static inline void
w_put16(struct dns_writer *w, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	w_put(w, b, 2);
}

static inline void
w_put32(struct dns_writer *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8),
			 (uint8_t)v };

	w_put(w, b, 4);
}

static inline uint8_t
lc(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c;
}

void
dns_w_init(struct dns_writer *w, uint8_t *buf, uint32_t cap)
{
	w->buf = buf;
	w->cap = cap;
	w->len = 0;
	w->overflow = false;
	w->nb_ptr = 0;
}

/* The name at message offset @p p (labels, pointers) equals @p n. */
static bool
w_name_eq(const struct dns_writer *w, uint32_t p, const uint8_t *n)
{
	for (unsigned int hops = 0; hops < 128; hops++) {
		while ((w->buf[p] & 0xc0) == 0xc0)
			p = ((uint32_t)(w->buf[p] & 0x3f) << 8) | w->buf[p + 1];
		if (w->buf[p] != *n)
			return false;
		if (*n == 0)
			return true;
		for (unsigned int i = 1; i <= *n; i++)
			if (lc(w->buf[p + i]) != lc(n[i]))
				return false;
		p += 1u + w->buf[p];
		n += 1u + *n;
	}
	return false;
}

static inline void
w_remember(struct dns_writer *w, uint32_t off)
{
	if (off < 0x3fff && w->nb_ptr < DNS_COMPR_MAX)
		w->ptr[w->nb_ptr++] = (uint16_t)off;
}

void
dns_w_name(struct dns_writer *w, const uint8_t *n)
{
	const uint8_t *sfx = n;
	int32_t at = -1;

	/* the longest suffix already written */
	for (; *sfx != 0 && at < 0; ) {
		for (unsigned int i = 0; i < w->nb_ptr; i++)
			if (w_name_eq(w, w->ptr[i], sfx)) {
				at = w->ptr[i];
				break;
			}
		if (at < 0)
			sfx += *sfx + 1;
	}
	for (const uint8_t *l = n; l != sfx; l += *l + 1) {
		w_remember(w, w->len);
		w_put(w, l, 1u + *l);
	}
	if (at >= 0)
		w_put16(w, (uint16_t)(0xc000 | at));
	else
		w_put(w, "", 1);
}

void
dns_w_head(struct dns_writer *w, const struct dns_query *q, uint8_t rcode, bool aa)
{
	uint8_t h[DNS_HDR] = { 0 };

	h[0] = (uint8_t)(q->id >> 8);
	h[1] = (uint8_t)q->id;
	/* QR, the opcode, AA; RD copied (RFC 1035 4.1.1); CD too, but only
	 * for QUERY: it means nothing elsewhere (RFC 6840 5.9, RFC 8906 3.2) */
	h[2] = (uint8_t)(0x80 | (q->opcode << 3) | (aa ? 0x04 : 0) | (q->flags1 & 0x01));
	h[3] = (uint8_t)((q->opcode == 0 ? q->flags2 & 0x10 : 0) | (rcode & 0x0f));
	h[5] = q->has_q ? 1 : 0;
	w_put(w, h, DNS_HDR);
	if (!q->has_q)
		return;
	for (uint32_t o = 0; q->qname[o] != 0; o += 1u + q->qname[o])
		w_remember(w, DNS_HDR + o);
	w_put(w, q->qname, q->qname_len);
	w_put16(w, q->qtype);
	w_put16(w, q->qclass);
}

void
dns_w_question(struct dns_writer *w, const uint8_t *name, uint16_t qtype)
{
	uint8_t h[DNS_HDR] = { 0 };

	h[5] = 1;
	w_put(w, h, DNS_HDR);
	for (uint32_t o = 0; name[o] != 0; o += 1u + name[o])
		w_remember(w, DNS_HDR + o);
	w_put(w, name, dns_name_len(name));
	w_put16(w, qtype);
	w_put16(w, DNS_CLASS_IN);
}

/* Offset of the compressible name in @p type's rdata, or -1. */
static int
rdata_name_at(uint16_t type)
{
	switch (type) {
	case DNS_T_NS:
	case DNS_T_CNAME:
	case DNS_T_PTR:
	case DNS_T_SOA:
		return 0;
	case DNS_T_MX:
		return 2;
	default:
		return -1;
	}
}

unsigned int
dns_w_rrset(struct dns_writer *w, const struct dns_set *s, const uint8_t *owner,
	    const struct dns_rrset *rr, uint32_t ttl_cap)
{
	const uint8_t *rd = s->rdata + rr->rdata;
	uint32_t ttl = rr->ttl < ttl_cap ? rr->ttl : ttl_cap;
	int at = rdata_name_at(rr->type);

	for (unsigned int i = 0; i < rr->count; i++) {
		uint16_t rdlen;
		uint32_t lenpos;

		memcpy(&rdlen, rd, 2);
		rd += 2;
		dns_w_name(w, owner);
		w_put16(w, rr->type);
		w_put16(w, DNS_CLASS_IN);
		w_put32(w, ttl);
		lenpos = w->len;
		w_put16(w, 0);
		if (rr->type == DNS_T_SRV) {
			/* not compressed (RFC 2782), but later names may point
			 * into it */
			w_put(w, rd, 6);
			for (uint32_t o = 6; o < rdlen && rd[o] != 0; o += 1u + rd[o])
				w_remember(w, w->len + o - 6);
			w_put(w, rd + 6, rdlen - 6u);
		} else if (at < 0) {
			w_put(w, rd, rdlen);
		} else {
			const uint8_t *nm = rd + at;
			uint32_t nl = dns_name_len(nm);

			w_put(w, rd, (uint32_t)at);
			dns_w_name(w, nm);
			if (rr->type == DNS_T_SOA) {
				const uint8_t *nm2 = nm + nl;

				dns_w_name(w, nm2);
				w_put(w, nm2 + dns_name_len(nm2), 20);
			}
		}
		if (!w->overflow) {
			uint32_t l = w->len - lenpos - 2;

			w->buf[lenpos] = (uint8_t)(l >> 8);
			w->buf[lenpos + 1] = (uint8_t)l;
		}
		rd += rdlen;
	}
	return rr->count;
}

void
dns_w_opt(struct dns_writer *w, uint16_t payload, uint8_t ext_rcode, bool do_bit,
	  int32_t keepalive, int32_t ede)
{
	w_put(w, "", 1);
	w_put16(w, DNS_T_OPT);
	w_put16(w, payload);
	w_put32(w, ((uint32_t)ext_rcode << 24) | (do_bit ? 0x8000u : 0));
	w_put16(w, (uint16_t)((keepalive >= 0 ? 6 : 0) + (ede >= 0 ? 6 : 0)));
	if (keepalive >= 0) {
		w_put16(w, DNS_OPT_KEEPALIVE);
		w_put16(w, 2);
		w_put16(w, (uint16_t)keepalive);
	}
	if (ede >= 0) {
		w_put16(w, DNS_OPT_EDE);
		w_put16(w, 2);
		w_put16(w, (uint16_t)ede);
	}
}

void
dns_w_opt_add(struct dns_writer *w, uint32_t opt, uint16_t code, const uint8_t *data,
	      uint16_t len)
{
	uint32_t rdl = opt + 9;	/* the root, type, class, TTL */
	uint16_t n;

	w_put16(w, code);
	w_put16(w, len);
	w_put(w, data, len);
	if (w->overflow)
		return;
	n = (uint16_t)(((w->buf[rdl] << 8) | w->buf[rdl + 1]) + 4 + len);
	w->buf[rdl] = (uint8_t)(n >> 8);
	w->buf[rdl + 1] = (uint8_t)n;
}

void
dns_w_tsig_error(struct dns_writer *w, const struct dns_query *q, uint16_t error)
{
	const uint8_t *alg = q->tsig_rd;
	uint32_t al = dns_name_len(alg);

	/* names as received, uncompressed (RFC 8945 4.2) */
	w_put(w, q->tsig_key, dns_name_len(q->tsig_key));
	w_put16(w, DNS_T_TSIG);
	w_put16(w, DNS_CLASS_ANY);
	w_put32(w, 0);
	w_put16(w, (uint16_t)(al + 16));
	w_put(w, alg, al);
	w_put(w, alg + al, 8);		/* time signed, fudge: the query's */
	w_put16(w, 0);			/* no MAC (5.3.2: unsigned) */
	w_put16(w, q->id);
	w_put16(w, error);
	w_put16(w, 0);
}

void
dns_w_counts(struct dns_writer *w, uint16_t an, uint16_t ns, uint16_t ar)
{
	if (w->len < DNS_HDR)
		return;
	w->buf[6] = (uint8_t)(an >> 8);
	w->buf[7] = (uint8_t)an;
	w->buf[8] = (uint8_t)(ns >> 8);
	w->buf[9] = (uint8_t)ns;
	w->buf[10] = (uint8_t)(ar >> 8);
	w->buf[11] = (uint8_t)ar;
}
