/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's zone sets loaded (dns_load.h): master
 * files and transferred records made into a set ready to serve.
 *
 * dns_set_build() runs the steps bottom up: the tables (dns_zone.c), the
 * DNSSEC chains and hashes (dns_sec.c), then each node that is neither a
 * delegation point nor below one gets its answers prebuilt (dns_answer.c
 * composes them once, after a question of the node's lower-case name):
 * one block per RRset (the positive answer with its additional records)
 * and one NODATA block, twice in a signed zone (DO=0, DO=1), all in one
 * IOVA-contiguous memzone, so large answers leave without a copy. Last,
 * the largest answer composed per query is measured (max_composed: the
 * TCP buffer's check).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

#include "tfo/log.h"

#include "dns_answer.h"
#include "dns_load.h"
#include "dns_sec.h"
#include "dns_write.h"
#include "dns_zone.h"

#define DNS_BLOCK_ALIGN 64

/* The blocks' bytes while they are built, before their memzone. */
struct arena {
	uint8_t *p;
	size_t len, cap;
};

/* Each node's first block (UINT32_MAX: none, composed per request):
 * one per RRset then the NODATA one, twice in a signed zone.
 * @return the blocks of the set. */
static uint32_t
blocks_count(struct dns_set *s)
{
	uint32_t nb = 0;

	for (uint32_t i = 0; i < s->nb_nodes; i++) {
		struct dns_node *n = &s->nodes[i];

		if (n->flags & (DNS_N_CUT | DNS_N_BELOW | DNS_N_NSEC3)) {
			n->blocks = UINT32_MAX;
			continue;
		}
		n->blocks = nb;
		nb += (n->nb_rrsets + 1u) * (s->zones[n->zone].sec ? 2 : 1);
	}
	return nb;
}

/* Block @p k of node @p n composed in @p scratch (DNS_MSG_MAX bytes) and
 * appended to @p a, its blob's data the offset in @p a for now.
 * @return 0 or -EINVAL and why. */
static int
block_build(struct dns_set *s, const struct dns_node *n, unsigned int k, uint8_t *scratch,
	    struct arena *a, char *why, size_t whylen)
{
	/* type 0 is never served: the NODATA block */
	unsigned int j = k % (n->nb_rrsets + 1u);
	bool dnssec = k > n->nb_rrsets;
	uint16_t qt = j < n->nb_rrsets ? s->rrsets[n->rrsets + j].type : 0;
	struct dns_block *bl = &s->blocks[n->blocks + k];
	struct dns_sections sec;
	struct dns_writer w;
	uint32_t qend, len;

	dns_w_init(&w, scratch, DNS_MSG_MAX - DNS_OPT_LEN);
	dns_w_question(&w, dns_node_name(s, n), qt);
	qend = w.len;
	dns_compose(&w, s, dns_node_name(s, n), qt, dnssec, &sec);
	if (w.overflow)
		return tfo_errmsg(why, whylen, "an answer is larger than 65535 bytes");
	len = w.len - qend;
	/* DO echoed in the DO=1 block's OPT (RFC 3225 3) */
	dns_w_opt(&w, s->edns_size, 0, dnssec, -1, -1);
	if (a->len + RTE_ALIGN_CEIL(len + DNS_OPT_LEN, DNS_BLOCK_ALIGN) > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 65536;
		uint8_t *na;

		while (cap < a->len + len + DNS_OPT_LEN + DNS_BLOCK_ALIGN)
			cap *= 2;
		na = realloc(a->p, cap);
		if (na == NULL)
			return tfo_errmsg(why, whylen, "out of memory");
		a->p = na;
		a->cap = cap;
	}
	memcpy(a->p + a->len, scratch + qend, len + DNS_OPT_LEN);
	bl->blob.data = (const uint8_t *)(uintptr_t)a->len;	/* for now */
	bl->blob.len = len + DNS_OPT_LEN;
	bl->len = len;
	bl->len_noadd = sec.add_off - qend;
	bl->an = sec.an;
	bl->ns = sec.ns;
	bl->ar = sec.ar;
	bl->rcode = sec.rcode;
	bl->aa = sec.aa;
	a->len += RTE_ALIGN_CEIL(len + DNS_OPT_LEN, DNS_BLOCK_ALIGN);
	return 0;
}

/* The arena into one IOVA-contiguous memzone on @p socket, each block's
 * blob pointed into it. @return 0 or -EINVAL and why. */
static int
blocks_place(struct dns_set *s, int socket, const struct arena *a, char *why, size_t whylen)
{
	static unsigned int instance;
	char mzname[RTE_MEMZONE_NAMESIZE];

	snprintf(mzname, sizeof(mzname), "tfo_dns_%u",
		 __atomic_fetch_add(&instance, 1, __ATOMIC_RELAXED));
	s->mz = rte_memzone_reserve_aligned(mzname, RTE_MAX(a->len, (size_t)64), socket,
					    RTE_MEMZONE_IOVA_CONTIG, RTE_CACHE_LINE_SIZE);
	if (s->mz == NULL)
		return tfo_errmsg(why, whylen, "cannot allocate %zu bytes of IOVA-contiguous "
				  "memory for the answers on socket %d: give EAL more "
				  "memory (-m)", a->len, socket);
	if (a->len > 0)
		memcpy(s->mz->addr, a->p, a->len);
	for (uint32_t i = 0; i < s->nb_blocks; i++) {
		uintptr_t off = (uintptr_t)s->blocks[i].blob.data;

		s->blocks[i].blob.data = (const uint8_t *)s->mz->addr + off;
		s->blocks[i].blob.iova = s->mz->iova + off;
	}
	return 0;
}

/* The prebuilt blocks of every node that answers for itself. */
static int
build_blocks(struct dns_set *s, int socket, char *why, size_t whylen)
{
	struct arena a = { NULL, 0, 0 };
	uint8_t *scratch;
	int rc = 0;

	s->nb_blocks = blocks_count(s);
	s->blocks = rte_zmalloc_socket("tfo_dns_blocks", (s->nb_blocks + 1) * sizeof(*s->blocks),
				       RTE_CACHE_LINE_SIZE, socket);
	scratch = malloc(DNS_MSG_MAX);
	if (s->blocks == NULL || scratch == NULL) {
		free(scratch);
		return tfo_errmsg(why, whylen, "out of memory");
	}
	for (uint32_t i = 0; i < s->nb_nodes && rc == 0; i++) {
		const struct dns_node *n = &s->nodes[i];
		unsigned int nbk = (n->nb_rrsets + 1u) * (s->zones[n->zone].sec ? 2 : 1);

		if (n->blocks == UINT32_MAX)
			continue;
		for (unsigned int k = 0; k < nbk && rc == 0; k++)
			rc = block_build(s, n, k, scratch, &a, why, whylen);
	}
	free(scratch);
	if (rc == 0)
		rc = blocks_place(s, socket, &a, why, whylen);
	free(a.p);
	return rc;
}

/* The sections of the answer to @p lname/@p qtype, DO=0 and DO=1. */
static uint32_t
measure_one(const struct dns_set *s, uint8_t *scratch, const uint8_t *lname, uint16_t qtype)
{
	uint32_t most = 0;

	for (int d = 0; d < 2; d++) {
		struct dns_writer w;
		struct dns_sections sec;
		uint32_t qend;

		dns_w_init(&w, scratch, DNS_MSG_MAX);
		dns_w_question(&w, lname, qtype);
		qend = w.len;
		dns_compose(&w, s, lname, qtype, d == 1, &sec);
		most = RTE_MAX(most, w.overflow ? DNS_MSG_MAX : w.len - qend);
	}
	return most;
}

/* An RRset and its signatures alone, uncompressed but for the owner. */
static uint32_t
measure_rrset(const struct dns_set *s, uint8_t *scratch, const struct dns_node *n,
	      uint16_t type)
{
	const struct dns_rrset *rr = dns_node_rrset(s, n, type);
	const struct dns_rrset *sig = dns_node_sigs(s, n, type);
	struct dns_writer w;

	dns_w_init(&w, scratch, DNS_MSG_MAX);
	if (rr != NULL)
		dns_w_rrset(&w, s, dns_node_name(s, n), rr, UINT32_MAX);
	if (sig != NULL)
		dns_w_rrset(&w, s, dns_node_name(s, n), sig, UINT32_MAX);
	return w.overflow ? DNS_MSG_MAX : w.len;
}

/*
 * max_composed: referrals (a name below each cut) and wildcard answers
 * (a name matching each "*", every type and NODATA) composed as a query
 * would; a denial as its SOA plus two NSEC or three NSEC3 of the largest
 * (every combination of records would be too many to try).
 */
static int
measure_composed(struct dns_set *s)
{
	uint8_t *scratch = malloc(DNS_MSG_MAX), name[DNS_NAME_MAX];
	uint32_t most = 0;

	if (scratch == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nb_nodes; i++) {
		const struct dns_node *n = &s->nodes[i];
		const uint8_t *nm = dns_node_name(s, n);
		unsigned int len = dns_name_len(nm);

		if ((n->flags & DNS_N_CUT) && len + 2 <= DNS_NAME_MAX) {
			name[0] = 1;
			name[1] = 'x';
			memcpy(name + 2, nm, len);
			most = RTE_MAX(most, measure_one(s, scratch, name, DNS_T_A));
		}
		if (nm[0] == 1 && nm[1] == '*' && !(n->flags & DNS_N_BELOW)) {
			name[0] = 1;
			name[1] = 'x';
			memcpy(name + 2, nm + 2, len - 2);
			for (unsigned int k = 0; k <= n->nb_rrsets; k++)
				most = RTE_MAX(most, measure_one(s, scratch, name, k < n->nb_rrsets ?
						s->rrsets[n->rrsets + k].type : 0));
		}
	}
	for (unsigned int z = 0; z < s->nb_zones; z++) {
		const struct dns_zone *zn = &s->zones[z];
		uint32_t den = 0, soa;

		if (zn->sec == 0)
			continue;
		soa = measure_rrset(s, scratch, &s->nodes[zn->apex], DNS_T_SOA);
		for (uint32_t k = 0; k < zn->nb_chain; k++)
			den = RTE_MAX(den, measure_rrset(s, scratch, &s->nodes[s->chain[zn->chain + k]],
							 zn->sec == DNS_Z_NSEC3 ? DNS_T_NSEC3 :
							 DNS_T_NSEC));
		most = RTE_MAX(most, soa + (zn->sec == DNS_Z_NSEC3 ? 3 : 2) * den);
	}
	free(scratch);
	s->max_composed = RTE_MIN(most, (uint32_t)DNS_MSG_MAX);
	return 0;
}

int
dns_set_build(struct dns_recs *recs, const uint8_t (*origins)[DNS_NAME_MAX],
	      unsigned int nb, int socket, uint16_t edns_size,
	      struct dns_set **out, char *why, size_t whylen,
	      const char *const *files)
{
	struct dns_set *s = NULL;
	int rc = dns_set_tables(recs, origins, nb, socket, edns_size, &s, why, whylen, files);

	if (rc < 0)
		return rc;
	rc = dns_sec_build(s, socket, why, whylen);
	if (rc == 0)
		rc = build_blocks(s, socket, why, whylen);
	if (rc == 0)
		rc = measure_composed(s);
	if (rc < 0) {
		if (rc == -ENOMEM && why[0] == '\0')
			tfo_errmsg(why, whylen, "out of memory");
		dns_set_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int
dns_set_load(const struct dns_zone_src *z, unsigned int nb, const struct dns_recs *more,
	     const uint8_t (*more_origins)[DNS_NAME_MAX], const char *const *more_names,
	     unsigned int nb_more, int socket, uint16_t edns_size, struct dns_set **out,
	     char *why, size_t whylen)
{
	unsigned int all = nb + nb_more;
	struct dns_recs *recs = calloc(all + 1, sizeof(*recs));
	uint8_t (*origins)[DNS_NAME_MAX] = calloc(all + 1, sizeof(*origins));
	const char **files = calloc(all + 1, sizeof(*files));
	int rc = 0;

	if (recs == NULL || origins == NULL || files == NULL) {
		rc = tfo_errmsg(why, whylen, "out of memory");
		goto out;
	}
	for (unsigned int i = 0; i < nb && rc == 0; i++) {
		memcpy(origins[i], z[i].origin, dns_name_len(z[i].origin));
		files[i] = z[i].path;
		rc = dns_zparse_file(z[i].path, z[i].origin, &recs[i], why, whylen);
	}
	/* the caller's records are lent, not copied: the build only reads */
	for (unsigned int i = 0; i < nb_more; i++) {
		memcpy(origins[nb + i], more_origins[i], dns_name_len(more_origins[i]));
		files[nb + i] = more_names[i];
		recs[nb + i] = more[i];
	}
	if (rc == 0) {
		why[0] = '\0';
		rc = dns_set_build(recs, (const uint8_t (*)[DNS_NAME_MAX])origins, all, socket,
				   edns_size, out, why, whylen, files);
	}
out:
	if (recs != NULL)
		for (unsigned int i = 0; i < nb; i++)
			dns_recs_free(&recs[i]);
	free(recs);
	free(origins);
	free(files);
	return rc;
}
