/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's pre-signed DNSSEC (dns_sec.h): the
 * denial chains built at load and the proofs written per answer.
 *
 * Zones come signed (dnssec-signzone, ldns-signzone, knot): nothing is
 * signed here. At load, each zone with NSEC records gets the nodes that
 * own one sorted in canonical order (RFC 4034 6.1); a zone with an
 * NSEC3PARAM gets every node's hashed name (RFC 5155 5: SHA-1, the
 * zone's iterations and salt) and its NSEC3 owners sorted by hash. Per
 * answer, a binary search finds the record matching or covering a name.
 * The hash of "*.<name>" is prebuilt for every name too, so a query
 * hashes only its next closer name (SHA-1 below: one block with RFC
 * 9276's iterations 0; no allocation, no system call).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "tfo/log.h"

#include "dns_sec.h"
#include "dns_write.h"
#include "dns_zone.h"
#include "dns_zparse.h"

/* ------------------------------------------------------------------ */
/* SHA-1 (FIPS 180-4), for NSEC3 hashes only                           */

static inline uint32_t
rol(uint32_t x, unsigned int n)
{
	return (x << n) | (x >> (32 - n));
}

static void
sha1_block(uint32_t h[5], const uint8_t *p)
{
	uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		uint32_t f, k, t;

		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		t = rol(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol(b, 30);
		b = a;
		a = t;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

/* SHA-1 of @p a (@p al bytes) then @p b (@p bl bytes). */
static void
sha1_2(const uint8_t *a, size_t al, const uint8_t *b, size_t bl, uint8_t out[20])
{
	uint32_t h[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
	uint8_t blk[64];
	size_t n = 0, total = al + bl;
	uint64_t bits = (uint64_t)total * 8;

	for (size_t i = 0; i < total; i++) {
		blk[n++] = i < al ? a[i] : b[i - al];
		if (n == 64) {
			sha1_block(h, blk);
			n = 0;
		}
	}
	blk[n++] = 0x80;
	if (n > 56) {
		memset(blk + n, 0, 64 - n);
		sha1_block(h, blk);
		n = 0;
	}
	memset(blk + n, 0, 56 - n);
	for (int i = 0; i < 8; i++)
		blk[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
	sha1_block(h, blk);
	for (int i = 0; i < 5; i++) {
		out[4 * i] = (uint8_t)(h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(h[i] >> 8);
		out[4 * i + 3] = (uint8_t)h[i];
	}
}

void
dns_sha1(const uint8_t *m, size_t len, uint8_t out[20])
{
	sha1_2(m, len, NULL, 0, out);
}

void
dns_nsec3_hash(const struct dns_zone *z, const uint8_t *lname, uint8_t out[20])
{
	/* RFC 5155 5: IH(salt, x, 0) = H(x || salt), then k more rounds */
	sha1_2(lname, dns_name_len(lname), z->n3_salt, z->n3_salt_len, out);
	for (unsigned int i = 0; i < z->n3_iter; i++)
		sha1_2(out, 20, z->n3_salt, z->n3_salt_len, out);
}

/* qsort has no context argument: the set being sorted, one load at a
 * time (the reload thread and create() never load at once) */
static const struct dns_set *sort_set;

static int
chain_cmp_name(const void *x, const void *y)
{
	const struct dns_set *s = sort_set;

	return dns_name_canon_cmp(dns_node_name(s, &s->nodes[*(const uint32_t *)x]),
				  dns_node_name(s, &s->nodes[*(const uint32_t *)y]));
}

/* The hash an NSEC3 node's owner says (its first label, base32hex). */
static int
owner_hash(const struct dns_set *s, uint32_t node, uint8_t out[20])
{
	const uint8_t *n = dns_node_name(s, &s->nodes[node]);

	return dns_b32hex_decode((const char *)n + 1, n[0], out, 20) == 20 ? 0 : -EINVAL;
}

static int
chain_cmp_hash(const void *x, const void *y)
{
	uint8_t a[20] = { 0 }, b[20] = { 0 };

	owner_hash(sort_set, *(const uint32_t *)x, a);
	owner_hash(sort_set, *(const uint32_t *)y, b);
	return memcmp(a, b, 20);
}

/* "*." then @p ce into @p out; false when too long. */
static bool
wild_of(const uint8_t *ce, uint8_t out[DNS_NAME_MAX])
{
	unsigned int l = dns_name_len(ce);

	if (l + 2 > DNS_NAME_MAX)
		return false;
	out[0] = 1;
	out[1] = '*';
	memcpy(out + 2, ce, l);
	return true;
}

int
dns_sec_build(struct dns_set *s, int socket, char *why, size_t whylen)
{
	uint32_t nb = 0, at = 0;
	bool any_n3 = false;

	for (uint32_t i = 0; i < s->nb_nodes; i++) {
		const struct dns_node *n = &s->nodes[i];
		struct dns_zone *z = &s->zones[n->zone];
		const struct dns_rrset *p;

		if (dns_node_rrset(s, n, DNS_T_NSEC) != NULL) {
			z->sec |= DNS_Z_NSEC;
			nb++;
		}
		if (n->flags & DNS_N_NSEC3)
			nb++;
		if ((n->flags & DNS_N_APEX) &&
		    (p = dns_node_rrset(s, n, DNS_T_NSEC3PARAM)) != NULL) {
			const uint8_t *rd = s->rdata + p->rdata + 2;
			uint16_t rdlen;

			memcpy(&rdlen, s->rdata + p->rdata, 2);
			if (rd[0] != 1)
				return tfo_errmsg(why, whylen, "NSEC3PARAM: hash algorithm %u "
						  "unknown (RFC 5155: 1, SHA-1)", rd[0]);
			z->n3_iter = (uint16_t)(rd[2] << 8 | rd[3]);
			z->n3_salt_len = rd[4];
			memcpy(z->n3_salt, rd + 5, rd[4]);
			z->sec |= DNS_Z_NSEC3;
			any_n3 = true;
		}
	}
	for (unsigned int zi = 0; zi < s->nb_zones; zi++)
		if (s->zones[zi].sec == (DNS_Z_NSEC | DNS_Z_NSEC3))
			return tfo_errmsg(why, whylen, "a zone with both NSEC and NSEC3PARAM: "
					  "sign it with one of them");
	s->chain = rte_malloc_socket("tfo_dns_chain", (nb + 1) * sizeof(*s->chain), 0, socket);
	if (s->chain == NULL)
		return tfo_errmsg(why, whylen, "out of memory");
	if (any_n3) {
		s->n3hash = rte_malloc_socket("tfo_dns_n3hash", (s->nb_nodes + 1) * 20, 0, socket);
		s->n3wild = rte_malloc_socket("tfo_dns_n3wild", (s->nb_nodes + 1) * 20, 0, socket);
		if (s->n3hash == NULL || s->n3wild == NULL)
			return tfo_errmsg(why, whylen, "out of memory");
	}
	for (unsigned int zi = 0; zi < s->nb_zones; zi++) {
		struct dns_zone *z = &s->zones[zi];

		z->chain = at;
		for (uint32_t i = 0; i < s->nb_nodes; i++) {
			const struct dns_node *n = &s->nodes[i];

			if (n->zone != zi)
				continue;
			if (z->sec == DNS_Z_NSEC3 && (n->flags & DNS_N_NSEC3)) {
				uint8_t h[20];

				if (owner_hash(s, i, h) < 0) {
					char nm[DNS_NAME_MAX * 4];

					dns_name_str(dns_node_name(s, n), nm, sizeof(nm));
					return tfo_errmsg(why, whylen, "%s: an NSEC3 owner that is "
							  "not a SHA-1 hash", nm);
				}
				s->chain[at++] = i;
			} else if (z->sec == DNS_Z_NSEC &&
				   dns_node_rrset(s, n, DNS_T_NSEC) != NULL) {
				s->chain[at++] = i;
			}
			if (z->sec == DNS_Z_NSEC3) {
				uint8_t wild[DNS_NAME_MAX];

				dns_nsec3_hash(z, dns_node_name(s, n), s->n3hash[i]);
				if (wild_of(dns_node_name(s, n), wild))
					dns_nsec3_hash(z, wild, s->n3wild[i]);
			}
		}
		z->nb_chain = at - z->chain;
		sort_set = s;
		qsort(s->chain + z->chain, z->nb_chain, sizeof(*s->chain),
		      z->sec == DNS_Z_NSEC3 ? chain_cmp_hash : chain_cmp_name);
		sort_set = NULL;
		if (z->sec == DNS_Z_NSEC3)	/* their owner hashes, found fast */
			for (uint32_t k = z->chain; k < at; k++)
				owner_hash(s, s->chain[k], s->n3hash[s->chain[k]]);
		if (z->sec != 0 && z->nb_chain == 0)
			z->sec = 0;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* finding                                                             */

/* The chain entry matching or covering (the last <=) @p lname. */
static uint32_t
nsec_find(const struct dns_set *s, const struct dns_zone *z, const uint8_t *lname)
{
	uint32_t lo = 0, hi = z->nb_chain;	/* answer in [lo, hi) */

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct dns_node *n = &s->nodes[s->chain[z->chain + mid]];

		if (dns_name_canon_cmp(dns_node_name(s, n), lname) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return s->chain[z->chain + lo];	/* the apex is first: always <= */
}

/* The NSEC3 matching or covering @p h: the last <=, or the last of all
 * when @p h is before the first (the chain wraps). */
static uint32_t
nsec3_find(const struct dns_set *s, const struct dns_zone *z, const uint8_t h[20],
	   bool *match)
{
	uint32_t lo = 0, hi = z->nb_chain;

	while (lo < hi) {	/* first > h */
		uint32_t mid = lo + (hi - lo) / 2;

		if (memcmp(s->n3hash[s->chain[z->chain + mid]], h, 20) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	lo = lo == 0 ? z->nb_chain - 1 : lo - 1;
	*match = memcmp(s->n3hash[s->chain[z->chain + lo]], h, 20) == 0;
	return s->chain[z->chain + lo];
}

/* ------------------------------------------------------------------ */
/* writing                                                             */

struct deny {
	uint32_t done[4];
	unsigned int nb;
	uint16_t rrs;
	struct dns_sigq *q;
};

unsigned int
dns_sigq_flush(struct dns_writer *w, const struct dns_set *s, struct dns_sigq *q)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < q->nb; i++)
		k += dns_w_rrset(w, s, q->e[i].owner, q->e[i].sig, q->e[i].ttl_cap);
	q->nb = 0;
	return k;
}

/* The NSEC or NSEC3 of @p node (its signature queued), once per answer. */
static void
put_denial(struct dns_writer *w, const struct dns_set *s, struct deny *d, uint32_t node,
	   uint16_t type)
{
	const struct dns_node *n = &s->nodes[node];
	const struct dns_rrset *rr = dns_node_rrset(s, n, type);

	for (unsigned int i = 0; i < d->nb; i++)
		if (d->done[i] == node)
			return;
	if (rr == NULL || d->nb == RTE_DIM(d->done))
		return;
	d->done[d->nb++] = node;
	d->rrs += (uint16_t)dns_w_rrset(w, s, dns_node_name(s, n), rr, UINT32_MAX);
	dns_sigq_add(d->q, dns_node_name(s, n), dns_node_sigs(s, n, type), UINT32_MAX);
}

/* @p lname's closest encloser in zone @p zone (a name of the zone), its
 * node in *node; *nc: the next closer name (RFC 5155 1.3). */
static const uint8_t *
closest_encloser(const struct dns_set *s, int zone, const uint8_t *lname,
		 const uint8_t **nc, int32_t *node)
{
	const uint8_t *p = lname;
	unsigned int len = dns_name_len(lname);

	*nc = lname;
	for (;;) {
		int32_t ni = dns_set_find(s, (uint16_t)zone, p, len);

		*node = ni;
		if ((ni >= 0 && !(s->nodes[ni].flags & DNS_N_NSEC3)) || *p == 0)
			return p;
		*nc = p;
		len -= *p + 1u;
		p += *p + 1;
	}
}

static void
hash_of(const struct dns_set *s, int zone, const uint8_t *lname, uint8_t h[20])
{
	int32_t ni = dns_set_find(s, (uint16_t)zone, lname, dns_name_len(lname));

	if (ni >= 0)
		memcpy(h, s->n3hash[ni], 20);	/* prebuilt */
	else
		dns_nsec3_hash(&s->zones[zone], lname, h);
}

static void
deny_nsec(struct dns_writer *w, const struct dns_set *s, int zone, const uint8_t *lname,
	  enum dns_deny kind, struct deny *d)
{
	const struct dns_zone *z = &s->zones[zone];
	const uint8_t *ce, *nc;
	uint8_t wild[DNS_NAME_MAX];
	int32_t cen;

	/* the NSEC matching the name (NODATA, DS) or covering it (NXDOMAIN,
	 * wildcard answers: no closer match) */
	put_denial(w, s, d, nsec_find(s, z, lname), DNS_T_NSEC);
	if (kind != DNS_DENY_NXDOMAIN && kind != DNS_DENY_WILD_NODATA)
		return;
	/* and the one covering (NXDOMAIN) or matching (NODATA) the wildcard */
	ce = closest_encloser(s, zone, lname, &nc, &cen);
	if (wild_of(ce, wild))
		put_denial(w, s, d, nsec_find(s, z, wild), DNS_T_NSEC);
}

static void
deny_nsec3(struct dns_writer *w, const struct dns_set *s, int zone, const uint8_t *lname,
	   enum dns_deny kind, struct deny *d)
{
	const struct dns_zone *z = &s->zones[zone];
	const uint8_t *ce, *nc;
	uint8_t h[20];
	uint32_t at;
	int32_t cen;
	bool match;

	if (kind == DNS_DENY_NODATA || kind == DNS_DENY_DS) {
		/* RFC 5155 7.2.3, 7.2.4: the NSEC3 matching the name */
		hash_of(s, zone, lname, h);
		at = nsec3_find(s, z, h, &match);
		if (match) {
			put_denial(w, s, d, at, DNS_T_NSEC3);
			return;
		}
		/* an opt-out span (7.2.4): the closest provable encloser's */
	}
	/* 7.2.1: the closest encloser's, the next closer name's cover */
	ce = closest_encloser(s, zone, lname, &nc, &cen);
	if (kind != DNS_DENY_WILDCARD) {
		hash_of(s, zone, ce, h);
		at = nsec3_find(s, z, h, &match);
		if (match)
			put_denial(w, s, d, at, DNS_T_NSEC3);
	}
	if (nc != ce) {
		dns_nsec3_hash(z, nc, h);
		put_denial(w, s, d, nsec3_find(s, z, h, &match), DNS_T_NSEC3);
	}
	/* 7.2.2: the wildcard's cover; 7.2.5: the wildcard's match */
	if ((kind == DNS_DENY_NXDOMAIN || kind == DNS_DENY_WILD_NODATA) && cen >= 0)
		put_denial(w, s, d, nsec3_find(s, z, s->n3wild[cen], &match), DNS_T_NSEC3);
}

unsigned int
dns_sec_deny(struct dns_writer *w, const struct dns_set *s, int zone, const uint8_t *lname,
	     enum dns_deny kind, struct dns_sigq *q)
{
	struct deny d = { .nb = 0, .rrs = 0, .q = q };

	if (s->zones[zone].sec == DNS_Z_NSEC)
		deny_nsec(w, s, zone, lname, kind, &d);
	else if (s->zones[zone].sec == DNS_Z_NSEC3)
		deny_nsec3(w, s, zone, lname, kind, &d);
	return d.rrs;
}
