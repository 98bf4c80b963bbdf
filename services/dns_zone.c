/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's zone set (dns_zone.h): records -> a
 * read-only structure in DPDK memory (its tables), and the lookup.
 *
 * Every owner name and every name between an owner and its zone's apex
 * (empty non-terminals, RFC 8020: they exist, so NODATA rather than
 * NXDOMAIN) is a node in one open-addressing table keyed by (zone, name),
 * so a name served by two zones (a delegation point and the child zone's
 * apex) is two nodes. A node's RRsets keep the order in which their
 * types first appear in the file (RFC 8482's single RRset for ANY is the
 * first); the RRs of an RRset are sorted by their rdata bytes and
 * duplicates dropped, as Knot DNS does.
 *
 * Refused at load, "file:line: reason": a zone without exactly one SOA
 * at its apex, a SOA elsewhere, CNAME with other data or twice (RFC 1034
 * 3.6.2).
 *
 * The DNSSEC chains (dns_sec.c) and the prebuilt answers (dns_load.c)
 * are added to the tables by dns_set_build(): nothing here writes a
 * message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

#include "tfo/log.h"

#include "dns_zone.h"

static uint32_t
dns_hash(uint16_t zone, const uint8_t *n, unsigned int len)
{
	uint32_t h = 2166136261u ^ zone;

	for (unsigned int i = 0; i < len; i++)
		h = (h ^ n[i]) * 16777619u;
	return h;
}

int32_t
dns_set_find(const struct dns_set *s, uint16_t zone, const uint8_t *lname,
	     unsigned int len)
{
	uint32_t h = dns_hash(zone, lname, len), i = h & s->mask;

	for (;;) {
		const struct dns_slot *sl = &s->slots[i];
		const struct dns_node *n;

		if (sl->node < 0)
			return -1;
		n = &s->nodes[sl->node];
		if (sl->hash == h && n->zone == zone &&
		    memcmp(s->names + n->name, lname, len) == 0 &&
		    dns_name_len(s->names + n->name) == len)
			return sl->node;
		i = (i + 1) & s->mask;
	}
}

int
dns_set_zone_of(const struct dns_set *s, const uint8_t *lname)
{
	int best = -1;
	unsigned int best_len = 0;

	for (unsigned int z = 0; z < s->nb_zones; z++) {
		const uint8_t *zn = s->names + s->zones[z].name;
		unsigned int zl = dns_name_len(zn);

		if ((best < 0 || zl > best_len) && dns_name_under(lname, zn)) {
			best = (int)z;
			best_len = zl;
		}
	}
	return best;
}

int
dns_set_zone_for(const struct dns_set *s, const uint8_t *lname, uint16_t qtype)
{
	int z = dns_set_zone_of(s, lname), up;

	/* DS lives in the parent (RFC 4035 3.1.4.1): a child's apex served
	 * here too asks the parent zone when there is one */
	if (z < 0 || qtype != DNS_T_DS || lname[0] == 0 ||
	    dns_name_len(lname) != dns_name_len(s->names + s->zones[z].name))
		return z;
	up = dns_set_zone_of(s, lname + lname[0] + 1);
	return up >= 0 ? up : z;
}

void
dns_set_lookup(const struct dns_set *s, int zone, const uint8_t *lname,
	       uint16_t qtype, struct dns_lookup *r)
{
	const uint8_t *p = lname;
	unsigned int len = dns_name_len(lname);
	int32_t ni;
	const struct dns_node *n;
	uint8_t wild[DNS_NAME_MAX];

	r->zone = zone;
	r->wild = false;
	ni = dns_set_find(s, (uint16_t)zone, p, len);
	if (ni >= 0 && (s->nodes[ni].flags & DNS_N_NSEC3))
		ni = -1;	/* hashed owners are not names of the zone */
	if (ni >= 0) {
		n = &s->nodes[ni];
		if (n->flags & DNS_N_BELOW) {
			r->kind = DNS_LK_REFERRAL;
			r->node = n->cut;
		} else if ((n->flags & DNS_N_CUT) && qtype != DNS_T_DS) {
			/* the parent answers DS at a cut (RFC 4035 3.1.4.1) */
			r->kind = DNS_LK_REFERRAL;
			r->node = ni;
		} else {
			r->kind = DNS_LK_NODE;
			r->node = ni;
		}
		return;
	}
	/* the closest encloser exists: every name up to the apex is a node */
	do {
		len -= *p + 1u;
		p += *p + 1;
		ni = dns_set_find(s, (uint16_t)zone, p, len);
	} while (ni < 0 && *p != 0);
	if (ni < 0) {	/* cannot happen: the apex is a node */
		r->kind = DNS_LK_NXDOMAIN;
		r->node = -1;
		return;
	}
	n = &s->nodes[ni];
	if (n->flags & (DNS_N_CUT | DNS_N_BELOW)) {
		r->kind = DNS_LK_REFERRAL;
		r->node = (n->flags & DNS_N_CUT) ? ni : n->cut;
		return;
	}
	if ((n->flags & DNS_N_WILD) && len + 2 <= DNS_NAME_MAX) {
		wild[0] = 1;
		wild[1] = '*';
		memcpy(wild + 2, p, len);
		ni = dns_set_find(s, (uint16_t)zone, wild, len + 2);
		if (ni >= 0) {
			r->kind = DNS_LK_NODE;
			r->node = ni;
			r->wild = true;
			return;
		}
	}
	r->kind = DNS_LK_NXDOMAIN;
	r->node = -1;
}

const struct dns_block *
dns_set_block(const struct dns_set *s, const struct dns_lookup *lk, uint16_t qtype,
	      bool dnssec)
{
	const struct dns_node *n;
	uint32_t b;

	if (lk->kind != DNS_LK_NODE || lk->wild)
		return NULL;
	n = &s->nodes[lk->node];
	if (n->blocks == UINT32_MAX || (qtype == DNS_T_RRSIG && n->nb_sigs != 0))
		return NULL;
	/* a signed zone's DO=1 blocks follow its DO=0 ones */
	b = n->blocks + (dnssec && s->zones[n->zone].sec ? n->nb_rrsets + 1u : 0);
	for (unsigned int i = 0; i < n->nb_rrsets; i++) {
		uint16_t t = s->rrsets[n->rrsets + i].type;

		if (t == qtype || (qtype == DNS_T_ANY && i == 0))
			return &s->blocks[b + i];
		if (t == DNS_T_CNAME)
			return NULL;	/* chased per request */
	}
	return &s->blocks[b + n->nb_rrsets];
}

/* ------------------------------------------------------------------ */
/* building                                                            */

struct bnode {			/* a node while building */
	uint8_t *name;		/* lower case, malloc'ed */
	uint16_t zone;
	uint32_t first_rec;	/* UINT32_MAX: an empty non-terminal */
};

struct build {
	struct bnode *nodes;
	uint32_t nb_nodes, cap_nodes;
	int32_t *tslots;	/* temporary table: node index or -1 */
	uint32_t *thash;
	uint32_t tmask;
	char *why;
	size_t whylen;
};

struct rec_ref {
	const struct dns_rec *r;
	uint32_t node;
	uint32_t idx;		/* position in the files */
	uint32_t group;		/* first idx of its (node, type, covers) */
	uint16_t covers;	/* RRSIG: the type covered; else 0 */
};

static int32_t
b_find(struct build *b, uint16_t zone, const uint8_t *n, unsigned int len, uint32_t *slot)
{
	uint32_t h = dns_hash(zone, n, len), i = h & b->tmask;

	for (;;) {
		int32_t ni = b->tslots[i];

		if (ni < 0) {
			*slot = i;
			return -1;
		}
		if (b->thash[i] == h && b->nodes[ni].zone == zone &&
		    dns_name_len(b->nodes[ni].name) == len &&
		    memcmp(b->nodes[ni].name, n, len) == 0)
			return ni;
		i = (i + 1) & b->tmask;
	}
}

static int32_t
b_add(struct build *b, uint16_t zone, const uint8_t *n)
{
	unsigned int len = dns_name_len(n);
	uint32_t slot;
	int32_t ni = b_find(b, zone, n, len, &slot);

	if (ni >= 0)
		return ni;
	if (b->nb_nodes == b->cap_nodes)
		return -ENOMEM;	/* sized for the worst case: cannot happen */
	b->nodes[b->nb_nodes].name = malloc(len);
	if (b->nodes[b->nb_nodes].name == NULL)
		return -ENOMEM;
	memcpy(b->nodes[b->nb_nodes].name, n, len);
	b->nodes[b->nb_nodes].zone = zone;
	b->nodes[b->nb_nodes].first_rec = UINT32_MAX;
	b->tslots[slot] = (int32_t)b->nb_nodes;
	b->thash[slot] = dns_hash(zone, n, len);
	return (int32_t)b->nb_nodes++;
}

static int
rr_cmp_rdata(const struct dns_rec *a, const struct dns_rec *b)
{
	unsigned int n = RTE_MIN(a->rdlen, b->rdlen);
	int c = memcmp(a->rdata, b->rdata, n);

	if (c != 0)
		return c;
	return (int)a->rdlen - (int)b->rdlen;
}

static int
ref_cmp_group(const void *x, const void *y)
{
	const struct rec_ref *a = x, *b = y;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->r->type != b->r->type)
		return a->r->type < b->r->type ? -1 : 1;
	if (a->covers != b->covers)
		return a->covers < b->covers ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int
ref_cmp_final(const void *x, const void *y)
{
	const struct rec_ref *a = x, *b = y;
	int c;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	/* a node's signatures after its RRsets (dns_node.nb_sigs) */
	if ((a->r->type == DNS_T_RRSIG) != (b->r->type == DNS_T_RRSIG))
		return a->r->type == DNS_T_RRSIG ? 1 : -1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	c = rr_cmp_rdata(a->r, b->r);
	if (c != 0)
		return c;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

void
dns_set_free(struct dns_set *s)
{
	if (s == NULL)
		return;
	rte_memzone_free(s->mz);
	rte_free(s->zones);
	rte_free(s->nodes);
	rte_free(s->rrsets);
	rte_free(s->blocks);
	rte_free(s->slots);
	rte_free(s->names);
	rte_free(s->rdata);
	rte_free(s->chain);
	rte_free(s->n3hash);
	rte_free(s->n3wild);
	rte_free(s);
}

static int
set_alloc(struct dns_set *s, int socket, uint32_t names_len, uint32_t rdata_len,
	  uint32_t nslots)
{
	/* + 1: a set of no zone yet (secondaries not transferred) */
	s->zones = rte_zmalloc_socket("tfo_dns_zones", (s->nb_zones + 1u) * sizeof(*s->zones),
				      0, socket);
	s->nodes = rte_zmalloc_socket("tfo_dns_nodes", (s->nb_nodes + 1) * sizeof(*s->nodes),
				      RTE_CACHE_LINE_SIZE, socket);
	s->rrsets = rte_zmalloc_socket("tfo_dns_rrsets",
				       (s->nb_rrsets + 1) * sizeof(*s->rrsets),
				       RTE_CACHE_LINE_SIZE, socket);
	s->slots = rte_malloc_socket("tfo_dns_slots", nslots * sizeof(*s->slots),
				     RTE_CACHE_LINE_SIZE, socket);
	s->names = rte_malloc_socket("tfo_dns_names", names_len + 1, 0, socket);
	s->rdata = rte_malloc_socket("tfo_dns_rdata", rdata_len + 1, 0, socket);
	if (s->zones == NULL || s->nodes == NULL || s->rrsets == NULL ||
	    s->slots == NULL || s->names == NULL || s->rdata == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < nslots; i++)
		s->slots[i].node = -1;
	s->mask = nslots - 1;
	return 0;
}

static int
rec_err(struct build *b, const struct dns_rec *r, const char *file, const char *msg)
{
	char n[DNS_NAME_MAX * 4];

	dns_name_str(r->owner, n, sizeof(n));
	return tfo_errmsg(b->why, b->whylen, "%s:%u: %s: %s", file, r->line, n, msg);
}

/* Checks RFC 1034/1035 ask of one node's sorted records [lo, hi). */
static int
node_check(struct build *b, const struct rec_ref *ref, uint32_t lo, uint32_t hi,
	   bool apex, const char *file)
{
	unsigned int soa = 0, cname = 0, other = 0;

	for (uint32_t i = lo; i < hi; i++) {
		if (ref[i].r->type == DNS_T_SOA)
			soa++;
		else if (ref[i].r->type == DNS_T_CNAME)
			cname++;
		else if (ref[i].r->type != DNS_T_RRSIG && ref[i].r->type != DNS_T_NSEC)
			other++;	/* RFC 4035 2.5: these may sit by a CNAME */
	}
	if (soa > 0 && !apex)
		return rec_err(b, ref[lo].r, file, "SOA outside the zone's apex");
	if (apex && soa != 1)
		return rec_err(b, ref[lo].r, file, soa ? "more than one SOA at the apex" :
			       "no SOA at the zone's apex");
	if (cname > 1)
		return rec_err(b, ref[lo].r, file, "more than one CNAME");
	if (cname > 0 && (other > 0 || soa > 0))
		return rec_err(b, ref[lo].r, file, "CNAME and other data (RFC 1034 3.6.2)");
	return 0;
}

/* Nodes, RRsets and the table from the sorted records. */
static int
build_tables(struct dns_set *s, struct build *b, struct rec_ref *ref, uint32_t nrec,
	     const uint8_t (*origins)[DNS_NAME_MAX], int socket)
{
	uint32_t names_len = 0, rdata_len = 0, nsets = 0, nslots, off;

	for (uint32_t i = 0; i < b->nb_nodes; i++)
		names_len += dns_name_len(b->nodes[i].name);
	for (unsigned int z = 0; z < s->nb_zones; z++)
		names_len += dns_name_len(origins[z]);
	for (uint32_t i = 0; i < nrec; i++) {
		rdata_len += 2u + ref[i].r->rdlen;
		if (i == 0 || ref[i].group != ref[i - 1].group || ref[i].node != ref[i - 1].node)
			nsets++;
	}
	s->nb_nodes = b->nb_nodes;
	s->nb_rrsets = nsets;
	nslots = (uint32_t)rte_align64pow2(2 * (uint64_t)b->nb_nodes + 16);
	if (set_alloc(s, socket, names_len, rdata_len, nslots) < 0)
		return tfo_errmsg(b->why, b->whylen, "out of memory (%u names, %u bytes of rdata)",
				  b->nb_nodes, rdata_len);
	off = 0;
	for (uint32_t i = 0; i < b->nb_nodes; i++) {
		struct dns_node *n = &s->nodes[i];
		unsigned int len = dns_name_len(b->nodes[i].name);
		uint32_t h = dns_hash(b->nodes[i].zone, b->nodes[i].name, len), k;

		memcpy(s->names + off, b->nodes[i].name, len);
		n->name = off;
		n->zone = b->nodes[i].zone;
		n->cut = -1;
		off += len;
		for (k = h & s->mask; s->slots[k].node >= 0; k = (k + 1) & s->mask)
			;
		s->slots[k].node = (int32_t)i;
		s->slots[k].hash = h;
	}
	for (unsigned int z = 0; z < s->nb_zones; z++) {
		unsigned int len = dns_name_len(origins[z]);

		memcpy(s->names + off, origins[z], len);
		s->zones[z].name = off;
		off += len;
	}
	/* RRsets: ref is sorted by node, then group (type order), then rdata */
	nsets = 0;
	off = 0;
	for (uint32_t i = 0; i < nrec; i++) {
		struct dns_rrset *rr;
		struct dns_node *n = &s->nodes[ref[i].node];

		if (i == 0 || ref[i].group != ref[i - 1].group || ref[i].node != ref[i - 1].node) {
			rr = &s->rrsets[nsets];
			rr->type = ref[i].r->type;
			rr->ttl = ref[i].r->ttl;	/* the first RR's, in sorted order */
			rr->rdata = off;
			rr->covers = ref[i].covers;
			if (i == 0 || ref[i].node != ref[i - 1].node)
				n->rrsets = nsets;
			if (n->nb_rrsets == UINT8_MAX || n->nb_sigs == UINT8_MAX)
				return tfo_errmsg(b->why, b->whylen, "more than 255 types at one name");
			if (rr->type == DNS_T_RRSIG)
				n->nb_sigs++;
			else
				n->nb_rrsets++;
			nsets++;
		} else if (rr_cmp_rdata(ref[i].r, ref[i - 1].r) == 0) {
			continue;	/* a duplicate RR */
		}
		rr = &s->rrsets[nsets - 1];
		if (rr->count == UINT16_MAX)
			return tfo_errmsg(b->why, b->whylen, "an RRset of more than 65535 RRs");
		rr->count++;
		memcpy(s->rdata + off, &ref[i].r->rdlen, 2);
		memcpy(s->rdata + off + 2, ref[i].r->rdata, ref[i].r->rdlen);
		off += 2u + ref[i].r->rdlen;
	}
	s->nb_rrsets = nsets;
	return 0;
}

/* Flags: apex, cut, below a cut, wildcard parent. */
static void
build_flags(struct dns_set *s)
{
	for (uint32_t i = 0; i < s->nb_nodes; i++) {
		struct dns_node *n = &s->nodes[i];
		const uint8_t *nm = dns_node_name(s, n);
		const uint8_t *zn = s->names + s->zones[n->zone].name;
		unsigned int len = dns_name_len(nm);

		if (len == dns_name_len(zn)) {
			n->flags |= DNS_N_APEX;
			s->zones[n->zone].apex = i;
			for (unsigned int k = 0; k < n->nb_rrsets; k++)
				if (s->rrsets[n->rrsets + k].type == DNS_T_SOA)
					s->zones[n->zone].soa = (int32_t)(n->rrsets + k);
		} else if (dns_node_rrset(s, n, DNS_T_NS) != NULL) {
			n->flags |= DNS_N_CUT;
		}
		if (n->nb_rrsets > 0 && !(n->flags & DNS_N_APEX)) {
			bool only_n3 = true;

			for (unsigned int k = 0; k < n->nb_rrsets; k++)
				only_n3 &= s->rrsets[n->rrsets + k].type == DNS_T_NSEC3;
			if (only_n3)
				n->flags |= DNS_N_NSEC3;
		}
		if (nm[0] == 1 && nm[1] == '*') {
			int32_t p = dns_set_find(s, n->zone, nm + 2, len - 2);

			if (p >= 0)
				s->nodes[p].flags |= DNS_N_WILD;
		}
	}
	for (uint32_t i = 0; i < s->nb_nodes; i++) {
		struct dns_node *n = &s->nodes[i];
		const uint8_t *p = dns_node_name(s, n);
		unsigned int len = dns_name_len(p);
		unsigned int zl = dns_name_len(s->names + s->zones[n->zone].name);

		/* the highest cut above wins: everything below it is glue */
		while (len > zl) {
			int32_t a;

			len -= *p + 1u;
			p += *p + 1;
			a = dns_set_find(s, n->zone, p, len);
			if (a >= 0 && (s->nodes[a].flags & DNS_N_CUT)) {
				n->flags |= DNS_N_BELOW;
				n->cut = a;
			}
		}
	}
}

/* Every owner, and every name between it and its zone's apex, a node of
 * @p b (apexes first); each record a reference in @p ref, *nrec of them.
 * @return 0 or -ENOMEM. */
static int
collect(struct build *b, struct rec_ref *ref, struct dns_recs *recs,
	const uint8_t (*origins)[DNS_NAME_MAX], unsigned int nb, uint32_t *nrec)
{
	uint32_t k = 0;

	for (unsigned int z = 0; z < nb; z++)
		if (b_add(b, (uint16_t)z, origins[z]) < 0)
			return -ENOMEM;
	for (unsigned int z = 0; z < nb; z++) {
		unsigned int zl = dns_name_len(origins[z]);

		for (unsigned int i = 0; i < recs[z].n; i++) {
			uint8_t low[DNS_NAME_MAX];
			const uint8_t *p = low;
			unsigned int len = dns_name_lower(low, recs[z].r[i].owner);
			int32_t ni = b_add(b, (uint16_t)z, low);

			if (ni < 0)
				return -ENOMEM;
			ref[k].r = &recs[z].r[i];
			ref[k].node = (uint32_t)ni;
			ref[k].idx = k;
			if (recs[z].r[i].type == DNS_T_RRSIG && recs[z].r[i].rdlen >= 2)
				ref[k].covers = (uint16_t)(recs[z].r[i].rdata[0] << 8 |
							   recs[z].r[i].rdata[1]);
			k++;
			while (len > zl) {
				len -= *p + 1u;
				p += *p + 1;
				if (b_add(b, (uint16_t)z, p) < 0)
					return -ENOMEM;
			}
		}
	}
	*nrec = k;
	return 0;
}

/* @p ref[0..k) grouped by RRset (an RRset's first appearance orders a
 * node's RRsets), then in the order build_tables() lays them out. */
static void
sort_refs(struct rec_ref *ref, uint32_t k)
{
	qsort(ref, k, sizeof(*ref), ref_cmp_group);
	for (uint32_t i = 0; i < k; i++)
		ref[i].group = (i > 0 && ref[i].node == ref[i - 1].node &&
				ref[i].r->type == ref[i - 1].r->type &&
				ref[i].covers == ref[i - 1].covers) ?
			ref[i - 1].group : ref[i].idx;
	qsort(ref, k, sizeof(*ref), ref_cmp_final);
}

/* Each node's records as RFC 1034/1035 ask (node_check), then a SOA in
 * each zone. @return 0 or -EINVAL and why. */
static int
check_nodes(struct build *b, const struct rec_ref *ref, uint32_t k,
	    const struct dns_recs *recs, const uint8_t (*origins)[DNS_NAME_MAX],
	    unsigned int nb, const char *const *files)
{
	for (uint32_t i = 0, lo = 0; i <= k; i++) {
		if (i < k && ref[i].node == ref[lo].node)
			continue;
		if (lo < k) {
			uint32_t zi = b->nodes[ref[lo].node].zone;
			bool apex = dns_name_len(b->nodes[ref[lo].node].name) ==
				    dns_name_len(origins[zi]);
			int rc = node_check(b, ref, lo, i, apex, files ? files[zi] : "zone");

			if (rc < 0)
				return rc;
		}
		lo = i;
	}
	for (unsigned int z = 0; z < nb; z++) {
		bool has_soa = false;

		for (unsigned int i = 0; i < recs[z].n && !has_soa; i++)
			has_soa = recs[z].r[i].type == DNS_T_SOA;
		if (!has_soa) {
			char n[DNS_NAME_MAX * 4];

			dns_name_str(origins[z], n, sizeof(n));
			return tfo_errmsg(b->why, b->whylen, "%s: zone %s has no SOA at its apex",
					  files ? files[z] : "zone", n);
		}
	}
	return 0;
}

int
dns_set_tables(struct dns_recs *recs, const uint8_t (*origins)[DNS_NAME_MAX],
	       unsigned int nb, int socket, uint16_t edns_size, struct dns_set **out,
	       char *why, size_t whylen, const char *const *files)
{
	struct build b = { .why = why, .whylen = whylen };
	struct dns_set *s = NULL;
	struct rec_ref *ref = NULL;
	uint64_t nrec = 0, maxnodes = 0, tslots;
	uint32_t k = 0;
	int rc = -ENOMEM;

	for (unsigned int z = 0; z < nb; z++) {
		nrec += recs[z].n;
		for (unsigned int i = 0; i < recs[z].n; i++)
			maxnodes += dns_name_labels(recs[z].r[i].owner) + 1u;
		maxnodes += 1;
	}
	tslots = rte_align64pow2(2 * maxnodes + 16);
	b.cap_nodes = (uint32_t)maxnodes;
	b.nodes = calloc(maxnodes + 1, sizeof(*b.nodes));
	b.tslots = malloc(tslots * sizeof(*b.tslots));
	b.thash = malloc(tslots * sizeof(*b.thash));
	ref = calloc(nrec + 1, sizeof(*ref));
	s = rte_zmalloc_socket("tfo_dns_set", sizeof(*s), RTE_CACHE_LINE_SIZE, socket);
	if (b.nodes == NULL || b.tslots == NULL || b.thash == NULL || ref == NULL ||
	    s == NULL) {
		tfo_errmsg(why, whylen, "out of memory");
		goto out;
	}
	memset(b.tslots, 0xff, tslots * sizeof(*b.tslots));
	b.tmask = (uint32_t)tslots - 1;
	s->nb_zones = (uint16_t)nb;
	s->edns_size = edns_size;
	rc = collect(&b, ref, recs, origins, nb, &k);
	if (rc == 0) {
		sort_refs(ref, k);
		rc = check_nodes(&b, ref, k, recs, origins, nb, files);
	}
	if (rc == 0)
		rc = build_tables(s, &b, ref, k, origins, socket);
	if (rc < 0)
		goto out;
	build_flags(s);
	s->nb_records = k;
	*out = s;
	s = NULL;
out:
	if (rc == -ENOMEM && why[0] == '\0')
		tfo_errmsg(why, whylen, "out of memory");
	for (uint32_t i = 0; i < b.nb_nodes; i++)
		free(b.nodes[i].name);
	free(b.nodes);
	free(b.tslots);
	free(b.thash);
	free(ref);
	dns_set_free(s);
	return rc;
}
