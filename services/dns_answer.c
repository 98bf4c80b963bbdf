/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's answers composed (dns_answer.h): the
 * sections for a question from the zone set's lookup, written through
 * dns_write.c, with dns_sec.c's signatures and proofs for DO=1 in a
 * signed zone.
 *
 * The answer section follows CNAME chains within the zone (8 links at
 * most; RFC 1034 4.3.2) and wildcards (RFC 4592); the authority section
 * holds a referral's NS (with DS or its denial), or the SOA of a negative
 * answer (its TTL the smaller of the SOA's and its MINIMUM: RFC 2308 5)
 * with the NSEC/NSEC3 proofs, and the proofs that a wildcard answered no
 * closer name; the additional section the in-zone A/AAAA of NS, MX and
 * SRV targets not already in the answer. Each section's RRSIGs come
 * after its RRsets, as knotd orders them (dns_sigq).
 */
#include <string.h>

#include "dns_answer.h"
#include "dns_sec.h"
#include "dns_write.h"
#include "dns_zone.h"

#define DNS_CHAIN_MAX 8
#define DNS_ADD_MAX 32

/* How the answer section ended: what the authority section says. */
enum answer_end { END_ANSWER, END_REFERRAL, END_NXDOMAIN, END_NODATA, END_WILD_NODATA };

struct compose {
	int zone;			/* the zone answering */
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
	struct dns_lookup lk;		/* the chain's last lookup */
	const uint8_t *own;		/* ... and its name */
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

/* The answer section: @p lname's RRset of @p qtype, or the CNAME chain
 * from it (within the zone), or the RRSIGs asked; the lookup that ended
 * it in c->lk, its name in c->own. @return what the authority says. */
static enum answer_end
put_answer(struct dns_writer *w, const struct dns_set *s, struct compose *c,
	   const uint8_t *lname, uint16_t qtype, struct dns_sections *sec)
{
	uint8_t cur[DNS_NAME_MAX];

	memcpy(cur, lname, dns_name_len(lname));
	for (unsigned int chain = 0; chain <= DNS_CHAIN_MAX; chain++) {
		const struct dns_node *n;
		const struct dns_rrset *rr, *cname;
		uint8_t *own = c->owners[chain];

		c->own = own;
		memcpy(own, cur, dns_name_len(cur));
		dns_set_lookup(s, c->zone, cur, qtype, &c->lk);
		if (c->lk.kind == DNS_LK_REFERRAL) {
			/* RFC 1034 4.3.2 step 3b: not authoritative below a cut */
			if (chain == 0)
				sec->aa = false;
			return END_REFERRAL;
		}
		if (c->lk.kind == DNS_LK_NXDOMAIN)
			return END_NXDOMAIN;
		n = &s->nodes[c->lk.node];
		cname = dns_node_rrset(s, n, DNS_T_CNAME);
		if (cname != NULL && qtype != DNS_T_CNAME && qtype != DNS_T_ANY) {
			const uint8_t *target = s->rdata + cname->rdata + 2;

			sec->an += put_rrset(w, s, c, own, n, cname, UINT32_MAX);
			if (c->lk.wild)
				c->wild[c->nb_wild++] = own;
			c->an_node[c->nb_an] = c->lk.node;
			c->an_type[c->nb_an++] = DNS_T_CNAME;
			dns_name_lower(cur, target);
			/* the chain is followed within this zone only */
			if (chain == DNS_CHAIN_MAX || dns_set_zone_of(s, cur) != c->zone)
				return END_ANSWER;
			continue;
		}
		rr = NULL;
		if (qtype == DNS_T_RRSIG && n->nb_sigs != 0) {
			sec->an += put_all_sigs(w, s, own, n);
			return END_ANSWER;
		}
		if (qtype == DNS_T_ANY) {
			/* RFC 8482 4.1: one RRset */
			if (n->nb_rrsets > 0)
				rr = &s->rrsets[n->rrsets];
		} else {
			rr = dns_node_rrset(s, n, qtype);
		}
		if (rr == NULL)
			return c->lk.wild ? END_WILD_NODATA : END_NODATA;
		sec->an += put_rrset(w, s, c, own, n, rr, UINT32_MAX);
		if (c->lk.wild)
			c->wild[c->nb_wild++] = own;
		c->an_node[c->nb_an] = c->lk.node;
		c->an_type[c->nb_an++] = rr->type;
		note_targets(c, s, rr);
		return END_ANSWER;
	}
	return END_ANSWER;	/* not reached: the last link returns */
}

/* The authority section for @p end: a referral's NS (DS or its denial
 * with DO=1), a negative answer's SOA and proofs, and the proofs that no
 * closer name matched each name a wildcard answered. */
static void
put_authority(struct dns_writer *w, const struct dns_set *s, struct compose *c,
	      enum answer_end end, struct dns_sections *sec)
{
	static const enum dns_deny deny[] = {
		[END_NXDOMAIN] = DNS_DENY_NXDOMAIN, [END_NODATA] = DNS_DENY_NODATA,
		[END_WILD_NODATA] = DNS_DENY_WILD_NODATA,
	};

	if (end == END_REFERRAL) {
		const struct dns_node *n = &s->nodes[c->lk.node];
		const struct dns_rrset *rr = dns_node_rrset(s, n, DNS_T_NS);

		sec->ns += (uint16_t)dns_w_rrset(w, s, dns_node_name(s, n), rr, UINT32_MAX);
		note_targets(c, s, rr);
		if (c->sec) {
			/* the DS and its RRSIG, or the proof there is none */
			const struct dns_rrset *ds = dns_node_rrset(s, n, DNS_T_DS);

			if (ds != NULL)
				sec->ns += put_rrset(w, s, c, dns_node_name(s, n), n, ds,
						     UINT32_MAX);
			else
				sec->ns += (uint16_t)dns_sec_deny(w, s, c->zone, dns_node_name(s, n),
								  DNS_DENY_DS, &c->q);
		}
	} else if (end != END_ANSWER) {
		if (end == END_NXDOMAIN)
			sec->rcode = DNS_R_NXDOMAIN;
		put_soa(w, s, c, c->zone, sec);	/* NXDOMAIN, NODATA */
		if (c->sec)
			sec->ns += (uint16_t)dns_sec_deny(w, s, c->zone, c->own, deny[end], &c->q);
	}
	/* each name a wildcard answered: no closer match (RFC 4035 3.1.3.3) */
	for (unsigned int i = 0; c->sec && i < c->nb_wild; i++)
		sec->ns += (uint16_t)dns_sec_deny(w, s, c->zone, c->wild[i], DNS_DENY_WILDCARD,
						  &c->q);
}

void
dns_compose(struct dns_writer *w, const struct dns_set *s, const uint8_t *lname,
	    uint16_t qtype, bool dnssec, struct dns_sections *sec)
{
	struct compose c;
	enum answer_end end;

	memset(sec, 0, sizeof(*sec));
	c.nb_targets = 0;
	c.nb_an = 0;
	sec->aa = true;
	c.zone = dns_set_zone_for(s, lname, qtype);
	if (c.zone < 0) {
		sec->rcode = DNS_R_REFUSED;
		sec->aa = false;
		sec->add_off = w->len;
		return;
	}
	c.sec = dnssec && s->zones[c.zone].sec != 0;
	c.q.nb = 0;
	c.nb_wild = 0;
	end = put_answer(w, s, &c, lname, qtype, sec);
	sec->an += (uint16_t)dns_sigq_flush(w, s, &c.q);
	put_authority(w, s, &c, end, sec);
	sec->ns += (uint16_t)dns_sigq_flush(w, s, &c.q);
	sec->add_off = w->len;
	put_additional(w, s, c.zone, &c, sec);
	sec->ar += (uint16_t)dns_sigq_flush(w, s, &c.q);
}
