/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's zone set, private to the service: the
 * read-only store every lcore answers from (zones, nodes by (zone, name),
 * RRsets, the prebuilt answer blocks) and its lookup (dns_zone.c). It
 * reads nothing of the writer or of DNSSEC: dns_load.c builds the set
 * whole (dns_set_tables here, then dns_sec.c's chains, then the blocks
 * dns_answer.c composes).
 */
#ifndef TFO_DNS_ZONE_H
#define TFO_DNS_ZONE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tfo/service.h"

#include "dns_cookie.h"
#include "dns_wire.h"
#include "dns_zparse.h"

struct rte_memzone;

/** One RRset; its RRs are rdata[0..count) of the set's rdata arena,
 *  each a 2-byte length (host order) then the bytes. */
struct dns_rrset {
	uint16_t type;
	uint16_t count;
	uint32_t ttl;
	uint32_t rdata;		/* offset into dns_set.rdata */
	uint16_t covers;	/* RRSIG: the type its RRs sign; else 0 */
};

/** A prebuilt answer: the message's sections after the question, for a
 *  question whose name is the node's (any case): pointers in it point
 *  into the question. blob.data: the sections, then a plain OPT
 *  (DNS_OPT_LEN bytes, the configured payload size) for EDNS queries. */
struct dns_block {
	struct tfo_blob blob;	/* the sections, then the plain OPT */
	uint32_t len;		/* the sections */
	uint32_t len_noadd;	/* the sections without the additional one */
	uint16_t an, ns, ar;
	uint8_t rcode;
	uint8_t aa;
};

enum {
	DNS_N_APEX = 1,		/* a zone's apex */
	DNS_N_CUT = 2,		/* NS below an apex: a delegation point */
	DNS_N_BELOW = 4,	/* strictly below a delegation point (glue) */
	DNS_N_WILD = 8,		/* has a "*" child */
	DNS_N_NSEC3 = 16,	/* only NSEC3 (and its RRSIG): a hashed owner,
				 * not a name of the zone (RFC 5155 7.2) */
};

struct dns_node {
	uint32_t name;		/* offset of its wire name (lower case) */
	uint16_t zone;		/* index into dns_set.zones */
	uint8_t flags;		/* DNS_N_* */
	uint8_t nb_rrsets;	/* RRsets served by type (RRSIGs not counted) */
	uint32_t rrsets;	/* first index into dns_set.rrsets */
	uint32_t blocks;	/* first index into dns_set.blocks: one per
				 * RRset (same order), then the NODATA one;
				 * in a signed zone the same again for DO=1 */
	int32_t cut;		/* the delegation node above (DNS_N_BELOW), or -1 */
	uint8_t nb_sigs;	/* RRSIG RRsets, one per type covered, after
				 * the nb_rrsets others */
};

enum {
	DNS_Z_NSEC = 1,		/* signed, denial by NSEC (RFC 4035) */
	DNS_Z_NSEC3 = 2,	/* signed, denial by NSEC3 (RFC 5155) */
};

struct dns_zone {
	uint32_t name;		/* offset of the apex name */
	uint32_t apex;		/* node index */
	int32_t soa;		/* rrset index */
	uint8_t sec;		/* 0 (unsigned: DO=1 adds nothing) or DNS_Z_* */
	/* NSEC: the nodes owning one, in canonical order (RFC 4034 6.1);
	 * NSEC3: the hashed owners' nodes in hash order; both
	 * dns_set.chain[chain .. chain + nb_chain) */
	uint32_t chain, nb_chain;
	/* NSEC3PARAM's (RFC 5155 4): how names are hashed */
	uint16_t n3_iter;
	uint8_t n3_salt_len;
	uint8_t n3_salt[255];
};

struct dns_slot {
	uint32_t hash;
	int32_t node;		/* -1: empty */
};

/** Everything loaded: read-only once built, shared by every lcore. */
struct dns_set {
	uint64_t gen;
	uint16_t nb_zones;
	uint32_t nb_nodes, nb_rrsets, nb_blocks;
	uint32_t mask;		/* slots - 1 */
	struct dns_zone *zones;
	struct dns_node *nodes;
	struct dns_rrset *rrsets;
	struct dns_block *blocks;
	struct dns_slot *slots;
	uint8_t *names;		/* wire names, lower case */
	uint8_t *rdata;
	uint32_t *chain;	/* node indexes: dns_zone.chain */
	uint8_t (*n3hash)[20];	/* NSEC3 zones: a node's hashed name
				 * (SHA-1), by node index; else NULL */
	uint8_t (*n3wild)[20];	/* ... and of "*.<its name>" (NXDOMAIN's
				 * wildcard proof without hashing) */
	const struct rte_memzone *mz;	/* the blocks' bytes */
	uint16_t edns_size;	/* our UDP payload size in OPT */
	uint32_t nb_records;
	/* the largest sections an answer composed per query can take
	 * (referrals, wildcards, denials; DO=1 included), measured at load:
	 * dns.c refuses a TCP response buffer smaller (CNAME chains are not
	 * measured) */
	uint32_t max_composed;
	/* the cookie secrets: in the set so that a reload swaps them with
	 * the zones in one pointer store (dns.c fills them after the load) */
	struct dns_cookie_keys cookie;
};

/**
 * The tables of a new set (DPDK memory on @p socket; rte_malloc only, so
 * any thread may call it) from @p recs[i], the records of zone
 * @p origins[i] read from @p files[i] (for errors; may be NULL): nodes
 * (owners, the names between them and their apex, empty non-terminals),
 * RRsets (a node's in the order their types first appear, RRs sorted by
 * rdata, duplicates dropped), the name table and the flags (apex, cut,
 * below a cut, wildcard parent, NSEC3 owner). No DNSSEC chain, no block:
 * dns_set_build() adds them. Refuses, "file:line: reason" in @p why, a
 * zone without exactly one SOA at its apex, a SOA elsewhere, CNAME with
 * other data or twice (RFC 1034 3.6.2). @return 0 or a negative errno
 * (-ENOMEM may leave @p why empty).
 */
int dns_set_tables(struct dns_recs *recs, const uint8_t (*origins)[DNS_NAME_MAX],
		   unsigned int nb, int socket, uint16_t edns_size, struct dns_set **out,
		   char *why, size_t whylen, const char *const *files);
/** Free @p s (NULL: nothing) and everything it holds. */
void dns_set_free(struct dns_set *s);

/** Node of the exact name @p lname (lower case, wire, @p len bytes) in
 *  zone @p zone, or -1. */
int32_t dns_set_find(const struct dns_set *s, uint16_t zone, const uint8_t *lname,
		     unsigned int len);
/** Zone whose apex @p lname is at or below (the deepest), or -1. */
int dns_set_zone_of(const struct dns_set *s, const uint8_t *lname);

/** The zone that answers @p qtype at @p lname: dns_set_zone_of(), but
 *  for DS at a zone's apex the parent zone when it is served too. */
int dns_set_zone_for(const struct dns_set *s, const uint8_t *lname, uint16_t qtype);

enum dns_lk_kind {
	DNS_LK_NODE,		/* node answers (exact, or a wildcard's) */
	DNS_LK_REFERRAL,	/* node is the delegation point */
	DNS_LK_NXDOMAIN,
};

struct dns_lookup {
	enum dns_lk_kind kind;
	int zone;
	int32_t node;
	bool wild;		/* node is the "*" that matched (RFC 4592) */
};

/** Where @p lname (lower case) of zone @p zone leads for @p qtype. */
void dns_set_lookup(const struct dns_set *s, int zone, const uint8_t *lname,
		    uint16_t qtype, struct dns_lookup *r);
/** The prebuilt answer for @p lk and @p qtype, or NULL (composed per
 *  request: wildcards, CNAME chains, referrals, NXDOMAIN, RRSIG by
 *  type); with @p dnssec (DO=1) in a signed zone, the one with the
 *  signatures and proofs (and an OPT with DO set). */
const struct dns_block *dns_set_block(const struct dns_set *s,
				      const struct dns_lookup *lk, uint16_t qtype,
				      bool dnssec);

/** The wire name (lower case) of node @p n. */
static inline const uint8_t *
dns_node_name(const struct dns_set *s, const struct dns_node *n)
{
	return s->names + n->name;
}

/** The RRSIG RRset of @p n covering @p type, or NULL. */
static inline const struct dns_rrset *
dns_node_sigs(const struct dns_set *s, const struct dns_node *n, uint16_t type)
{
	for (unsigned int i = 0; i < n->nb_sigs; i++)
		if (s->rrsets[n->rrsets + n->nb_rrsets + i].covers == type)
			return &s->rrsets[n->rrsets + n->nb_rrsets + i];
	return NULL;
}

/** The RRset of @p type at @p n (RRSIGs not searched), or NULL. */
static inline const struct dns_rrset *
dns_node_rrset(const struct dns_set *s, const struct dns_node *n, uint16_t type)
{
	for (unsigned int i = 0; i < n->nb_rrsets; i++)
		if (s->rrsets[n->rrsets + i].type == type)
			return &s->rrsets[n->rrsets + i];
	return NULL;
}

#endif /* TFO_DNS_ZONE_H */
