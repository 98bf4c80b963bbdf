/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's response writer.
 *
 * Used twice: at load, to prebuild each node's answers after a question
 * of the node's own (lower-case) name; per request, for what cannot be
 * prebuilt (wildcards, CNAME chains, referrals, NXDOMAIN) and for the
 * header, the question and the OPT record.
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

#include "dns.h"

#define DNS_CHAIN_MAX 8
#define DNS_ADD_MAX 32

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

/* ------------------------------------------------------------------ */
/* composing an answer                                                 */

struct compose {
	bool sec;			/* DO=1 in a signed zone */
	struct dns_sigq q;		/* the section's RRSIGs, written last */
	uint8_t owners[DNS_CHAIN_MAX + 1][DNS_NAME_MAX];	/* the chain's names */
	const uint8_t *wild[DNS_CHAIN_MAX + 1];	/* its names a wildcard answered */
	unsigned int nb_wild;
	const uint8_t *targets[DNS_ADD_MAX];	/* names for the additional */
	unsigned int nb_targets;
	int32_t an_node[DNS_CHAIN_MAX + 1];	/* (node, type) in the answer */
	uint16_t an_type[DNS_CHAIN_MAX + 1];
	unsigned int nb_an;
};

/* Note the NS, MX and SRV targets of @p rr for the additional section. */
static void
note_targets(struct compose *c, const struct dns_set *s, const struct dns_rrset *rr)
{
	const uint8_t *rd = s->rdata + rr->rdata;
	unsigned int off;

	switch (rr->type) {
	case DNS_T_NS: off = 0; break;
	case DNS_T_MX: off = 2; break;
	case DNS_T_SRV: off = 6; break;
	default: return;
	}
	for (unsigned int i = 0; i < rr->count; i++) {
		uint16_t rdlen;

		memcpy(&rdlen, rd, 2);
		if (c->nb_targets < DNS_ADD_MAX)
			c->targets[c->nb_targets++] = rd + 2 + off;
		rd += 2u + rdlen;
	}
}

/* @p rr of node @p n as @p owner; (DO=1, signed) its RRSIGs queued for
 * the section's end, as they are, so a wildcard's keep their labels (RFC
 * 4035 5.3.4). @return RRs written. */
static uint16_t
put_rrset(struct dns_writer *w, const struct dns_set *s, struct compose *c,
	  const uint8_t *owner, const struct dns_node *n, const struct dns_rrset *rr,
	  uint32_t ttl_cap)
{
	unsigned int k = dns_w_rrset(w, s, owner, rr, ttl_cap);

	if (c->sec)
		dns_sigq_add(&c->q, owner, dns_node_sigs(s, n, rr->type), ttl_cap);
	return (uint16_t)k;
}

/* Every RRSIG at @p n: the answer to qtype RRSIG, as knotd gives it. */
static uint16_t
put_all_sigs(struct dns_writer *w, const struct dns_set *s, const uint8_t *owner,
	     const struct dns_node *n)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < n->nb_sigs; i++)
		k += dns_w_rrset(w, s, owner, &s->rrsets[n->rrsets + n->nb_rrsets + i],
				 UINT32_MAX);
	return (uint16_t)k;
}

static void
put_soa(struct dns_writer *w, const struct dns_set *s, struct compose *c, int zone,
	struct dns_sections *sec)
{
	const struct dns_zone *z = &s->zones[zone];
	const struct dns_rrset *soa = &s->rrsets[z->soa];
	const uint8_t *rd = s->rdata + soa->rdata + 2;
	const uint8_t *min;
	uint32_t minimum;

	/* RFC 2308 5: the negative TTL is the smaller of the SOA's TTL and
	 * its MINIMUM field */
	rd += dns_name_len(rd);
	rd += dns_name_len(rd);
	min = rd + 16;
	minimum = ((uint32_t)min[0] << 24) | ((uint32_t)min[1] << 16) |
		  ((uint32_t)min[2] << 8) | min[3];
	sec->ns += put_rrset(w, s, c, s->names + z->name, &s->nodes[z->apex], soa, minimum);
}

static void
put_additional(struct dns_writer *w, const struct dns_set *s, int zone,
	       struct compose *c, struct dns_sections *sec)
{
	int32_t done[DNS_ADD_MAX];
	unsigned int nb_done = 0;
	static const uint16_t types[2] = { DNS_T_A, DNS_T_AAAA };

	for (unsigned int i = 0; i < c->nb_targets; i++) {
		uint8_t low[DNS_NAME_MAX];
		unsigned int len = dns_name_lower(low, c->targets[i]);
		int32_t ni = dns_set_find(s, (uint16_t)zone, low, len);
		bool dup = false;

		if (ni < 0)
			continue;
		for (unsigned int k = 0; k < nb_done; k++)
			dup |= done[k] == ni;
		if (dup)
			continue;
		done[nb_done++] = ni;
		for (unsigned int t = 0; t < 2; t++) {
			const struct dns_rrset *rr = dns_node_rrset(s, &s->nodes[ni], types[t]);
			bool in_an = false;

			for (unsigned int k = 0; k < c->nb_an; k++)
				in_an |= c->an_node[k] == ni && c->an_type[k] == types[t];
			if (rr != NULL && !in_an)
				sec->ar += put_rrset(w, s, c, dns_node_name(s, &s->nodes[ni]),
						     &s->nodes[ni], rr, UINT32_MAX);
		}
	}
}

void
dns_compose(struct dns_writer *w, const struct dns_set *s, const uint8_t *lname,
	    uint16_t qtype, bool dnssec, struct dns_sections *sec)
{
	enum { END_ANSWER, END_REFERRAL, END_NXDOMAIN, END_NODATA, END_WILD_NODATA };
	struct compose c;
	uint8_t cur[DNS_NAME_MAX], *own = NULL;
	struct dns_lookup lk;
	int zone = dns_set_zone_for(s, lname, qtype), end = END_ANSWER;
	unsigned int chain;

	memset(sec, 0, sizeof(*sec));
	c.nb_targets = 0;
	c.nb_an = 0;
	sec->aa = true;
	if (zone < 0) {
		sec->rcode = DNS_R_REFUSED;
		sec->aa = false;
		sec->add_off = w->len;
		return;
	}
	c.sec = dnssec && s->zones[zone].sec != 0;
	c.q.nb = 0;
	c.nb_wild = 0;
	memcpy(cur, lname, dns_name_len(lname));
	for (chain = 0; chain <= DNS_CHAIN_MAX; chain++) {
		const struct dns_node *n;
		const struct dns_rrset *rr, *cname;

		own = c.owners[chain];
		memcpy(own, cur, dns_name_len(cur));
		dns_set_lookup(s, zone, cur, qtype, &lk);
		if (lk.kind == DNS_LK_REFERRAL) {
			/* RFC 1034 4.3.2 step 3b: not authoritative below a cut */
			if (chain == 0)
				sec->aa = false;
			end = END_REFERRAL;
			break;
		}
		if (lk.kind == DNS_LK_NXDOMAIN) {
			end = END_NXDOMAIN;
			break;
		}
		n = &s->nodes[lk.node];
		cname = dns_node_rrset(s, n, DNS_T_CNAME);
		if (cname != NULL && qtype != DNS_T_CNAME && qtype != DNS_T_ANY) {
			const uint8_t *target = s->rdata + cname->rdata + 2;

			sec->an += put_rrset(w, s, &c, own, n, cname, UINT32_MAX);
			if (lk.wild)
				c.wild[c.nb_wild++] = own;
			c.an_node[c.nb_an] = lk.node;
			c.an_type[c.nb_an++] = DNS_T_CNAME;
			dns_name_lower(cur, target);
			/* the chain is followed within this zone only */
			if (chain == DNS_CHAIN_MAX || dns_set_zone_of(s, cur) != zone)
				break;
			continue;
		}
		rr = NULL;
		if (qtype == DNS_T_RRSIG && n->nb_sigs != 0) {
			sec->an += put_all_sigs(w, s, own, n);
			break;
		}
		if (qtype == DNS_T_ANY) {
			/* RFC 8482 4.1: one RRset */
			if (n->nb_rrsets > 0)
				rr = &s->rrsets[n->rrsets];
		} else {
			rr = dns_node_rrset(s, n, qtype);
		}
		if (rr == NULL) {
			end = lk.wild ? END_WILD_NODATA : END_NODATA;
			break;
		}
		sec->an += put_rrset(w, s, &c, own, n, rr, UINT32_MAX);
		if (lk.wild)
			c.wild[c.nb_wild++] = own;
		c.an_node[c.nb_an] = lk.node;
		c.an_type[c.nb_an++] = rr->type;
		note_targets(&c, s, rr);
		break;
	}
	sec->an += (uint16_t)dns_sigq_flush(w, s, &c.q);
	if (end == END_REFERRAL) {
		const struct dns_node *n = &s->nodes[lk.node];
		const struct dns_rrset *rr = dns_node_rrset(s, n, DNS_T_NS);

		sec->ns += (uint16_t)dns_w_rrset(w, s, dns_node_name(s, n), rr, UINT32_MAX);
		note_targets(&c, s, rr);
		if (c.sec) {
			/* the DS and its RRSIG, or the proof there is none */
			const struct dns_rrset *ds = dns_node_rrset(s, n, DNS_T_DS);

			if (ds != NULL)
				sec->ns += put_rrset(w, s, &c, dns_node_name(s, n), n, ds,
						     UINT32_MAX);
			else
				sec->ns += (uint16_t)dns_sec_deny(w, s, zone, dns_node_name(s, n),
								  DNS_DENY_DS, &c.q);
		}
	} else if (end != END_ANSWER) {
		static const enum dns_deny deny[] = {
			[END_NXDOMAIN] = DNS_DENY_NXDOMAIN, [END_NODATA] = DNS_DENY_NODATA,
			[END_WILD_NODATA] = DNS_DENY_WILD_NODATA,
		};

		if (end == END_NXDOMAIN)
			sec->rcode = DNS_R_NXDOMAIN;
		put_soa(w, s, &c, zone, sec);	/* NXDOMAIN, NODATA */
		if (c.sec)
			sec->ns += (uint16_t)dns_sec_deny(w, s, zone, own, deny[end], &c.q);
	}
	/* each name a wildcard answered: no closer match (RFC 4035 3.1.3.3) */
	for (unsigned int i = 0; c.sec && i < c.nb_wild; i++)
		sec->ns += (uint16_t)dns_sec_deny(w, s, zone, c.wild[i], DNS_DENY_WILDCARD, &c.q);
	sec->ns += (uint16_t)dns_sigq_flush(w, s, &c.q);
	sec->add_off = w->len;
	put_additional(w, s, zone, &c, sec);
	sec->ar += (uint16_t)dns_sigq_flush(w, s, &c.q);
}
