/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's shared pieces, private to the service.
 *
 *   dns_zparse.c  RFC 1035 master files -> records (no DPDK)
 *   dns_zone.c    records -> the read-only zone set in DPDK memory, lookup
 *   dns_query.c   query bytes -> struct dns_query (header, question, EDNS)
 *   dns_write.c   the message writer: header, question, sections with
 *                 name compression, OPT (at load for the prebuilt blocks,
 *                 per request for the rest)
 *   dns.c         the service: keys, create/reload/reclaim, handle()
 *
 * Names are kept in wire form (length-prefixed labels, root byte last);
 * lookups use a lower-cased copy, answers echo the question's case.
 */
#ifndef TFO_DNS_H
#define TFO_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_memzone.h>

#include "tfo/service.h"

#include "dns_cookie.h"

#define DNS_NAME_MAX 255
#define DNS_HDR 12
#define DNS_OPT_LEN 11		/* an OPT record without options */
#define DNS_MSG_MAX 65535

enum {
	DNS_T_A = 1, DNS_T_NS = 2, DNS_T_CNAME = 5, DNS_T_SOA = 6,
	DNS_T_PTR = 12, DNS_T_HINFO = 13, DNS_T_MX = 15, DNS_T_TXT = 16,
	DNS_T_AAAA = 28, DNS_T_SRV = 33, DNS_T_OPT = 41, DNS_T_DS = 43,
	DNS_T_RRSIG = 46, DNS_T_NSEC = 47, DNS_T_DNSKEY = 48, DNS_T_NSEC3 = 50,
	DNS_T_NSEC3PARAM = 51, DNS_T_CDS = 59, DNS_T_CDNSKEY = 60,
	DNS_T_TSIG = 250, DNS_T_IXFR = 251, DNS_T_AXFR = 252, DNS_T_ANY = 255, DNS_T_CAA = 257,
};

enum {
	DNS_R_NOERROR = 0, DNS_R_FORMERR = 1, DNS_R_SERVFAIL = 2,
	DNS_R_NXDOMAIN = 3, DNS_R_NOTIMP = 4, DNS_R_REFUSED = 5,
	DNS_R_NOTAUTH = 9, DNS_R_BADVERS = 16,
};

#define DNS_TSIG_BADKEY 17	/* RFC 8945 TSIG error */

#define DNS_CLASS_IN 1
#define DNS_CLASS_CH 3
#define DNS_CLASS_ANY 255
#define DNS_OPT_NSID 3		/* RFC 5001 name server identifier */
#define DNS_NSID_MAX 128	/* our NSID's bytes at most */
#define DNS_OPT_KEEPALIVE 11	/* RFC 7828 edns-tcp-keepalive */
#define DNS_OPT_EDE 15		/* RFC 8914 extended DNS error */
#define DNS_EDE_NOT_AUTH 20	/* Not Authoritative */

/** A key's decimal value in @p lo..@p hi into @p out (dns.c; no DPDK).
 *  @return 0 or -EINVAL. */
int dns_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out);

/* ------------------------------------------------------------------ */
/* names (dns_zparse.c)                                                */

/** Wire length of the uncompressed name at @p n (root byte included). */
unsigned int dns_name_len(const uint8_t *n);
/** Number of labels of @p n (the root not counted). */
unsigned int dns_name_labels(const uint8_t *n);
/** Lower-case copy of @p n into @p out; @return its length. */
unsigned int dns_name_lower(uint8_t *out, const uint8_t *n);
/** @p n equals or is below @p zone (both lower case). */
bool dns_name_under(const uint8_t *n, const uint8_t *zone);
/** Presentation form of @p n into @p out (for logs). */
void dns_name_str(const uint8_t *n, char *out, size_t cap);

/* ------------------------------------------------------------------ */
/* master files (dns_zparse.c)                                         */

/** One record as read from a master file; rdata in wire form. */
struct dns_rec {
	uint8_t *owner;		/* malloc'ed wire name, as written */
	uint16_t type;
	uint32_t ttl;
	uint16_t rdlen;
	uint8_t *rdata;		/* malloc'ed */
	unsigned int line;
};

struct dns_recs {
	struct dns_rec *r;
	unsigned int n, cap;
};

/**
 * Read the master file @p path for zone @p origin (wire, lower case) into
 * @p out (appended). Refuses, with "file:line: reason" in @p why, what the
 * service cannot serve: other types than the common ones, other classes
 * than IN, names outside the zone, $INCLUDE, syntax errors. No DPDK.
 * @return 0 or a negative errno.
 */
int dns_zparse_file(const char *path, const uint8_t *origin,
		    struct dns_recs *out, char *why, size_t whylen);
/** The same from @p len bytes of text in memory (tests, fuzzing); @p fname
 *  names it in errors. */
int dns_zparse_text(const char *text, size_t len, const char *fname,
		    const uint8_t *origin, struct dns_recs *out, char *why,
		    size_t whylen);
void dns_recs_free(struct dns_recs *rs);
/** One field of a master file entry (dns_zparse.c). */
struct dns_ztok {
	const char *p;
	size_t len;
	bool quoted;
};

/* ------------------------------------------------------------------ */
/* DNSSEC records in presentation form (dns_zsec.c)                    */

/** Field @p t as a decimal number in 0..@p max. @return 0 or -EINVAL. */
int dns_ztok_u32(const struct dns_ztok *t, uint32_t max, uint32_t *v);
/** Type mnemonic ("RRSIG", "TYPE65534") -> number, or -EINVAL. */
int dns_type_from_text(const char *s, size_t len);
/** Base32hex without padding (RFC 4648 7) -> bytes; @return their
 *  number or -EINVAL. */
int dns_b32hex_decode(const char *s, size_t len, uint8_t *out, size_t cap);
/**
 * The rdata of a DS, CDS, DNSKEY, CDNSKEY, RRSIG, NSEC, NSEC3 or
 * NSEC3PARAM record from its fields @p a[0..n) (names relative to
 * @p origin) into @p out (at least 512 bytes of @p cap), its length in
 * @p len. @return 0, or -EINVAL and the reason (no file:line) in @p why.
 */
int dns_zsec_rdata(uint16_t type, const struct dns_ztok *a, unsigned int n,
		   const uint8_t *origin, uint8_t *out, uint32_t cap, uint32_t *len,
		   char *why, size_t whylen);

/** Presentation name ("example.org.") -> wire, relative to @p origin
 *  (may be NULL: absolute only). @return wire length or -EINVAL. */
int dns_name_from_text(const char *s, size_t len, const uint8_t *origin,
		       uint8_t *out);

/* ------------------------------------------------------------------ */
/* the zone set (dns_zone.c)                                           */

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

/** One zone to load: "origin:path". */
struct dns_zone_src {
	uint8_t origin[DNS_NAME_MAX];
	char path[4096];
};

/**
 * Load @p nb zones into a new set (DPDK memory on @p socket; rte_malloc
 * only, so any thread may call it), and with them the @p nb_more zones
 * already read: @p more[i] for zone @p more_origins[i], named
 * @p more_names[i] in errors (secondary zones; only read). @p why: the
 * reason it failed.
 */
int dns_set_load(const struct dns_zone_src *z, unsigned int nb, const struct dns_recs *more,
		 const uint8_t (*more_origins)[DNS_NAME_MAX], const char *const *more_names,
		 unsigned int nb_more, int socket, uint16_t edns_size, struct dns_set **out,
		 char *why, size_t whylen);
/** The same from records already read: @p recs[i] for zone
 *  @p origins[i] read from @p files[i] (for errors; may be NULL). */
int dns_set_build(struct dns_recs *recs, const uint8_t (*origins)[DNS_NAME_MAX],
		  unsigned int nb, int socket, uint16_t edns_size,
		  struct dns_set **out, char *why, size_t whylen,
		  const char *const *files);
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

static inline const struct dns_rrset *
dns_node_rrset(const struct dns_set *s, const struct dns_node *n, uint16_t type)
{
	for (unsigned int i = 0; i < n->nb_rrsets; i++)
		if (s->rrsets[n->rrsets + i].type == type)
			return &s->rrsets[n->rrsets + i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* pre-signed DNSSEC (dns_sec.c)                                       */

/** RFC 4034 6.1 order of two lower-case wire names: <0, 0, >0. */
int dns_name_canon_cmp(const uint8_t *a, const uint8_t *b);
/** SHA-1 of @p len bytes (FIPS 180-4). */
void dns_sha1(const uint8_t *m, size_t len, uint8_t out[20]);
/** RFC 5155 5: the hash of @p lname with zone @p z's salt and iterations. */
void dns_nsec3_hash(const struct dns_zone *z, const uint8_t *lname, uint8_t out[20]);
/** At load, after the flags: each zone's kind of signing, chain, NSEC3
 *  parameters and hashes. @return 0 or a negative errno and @p why. */
int dns_sec_build(struct dns_set *s, int socket, char *why, size_t whylen);

struct dns_writer;

#define DNS_SIGQ_MAX 80

/** RRSIGs held back to the end of their section, as knotd orders them:
 *  a section's RRsets first, then their signatures. An owner must stay
 *  valid until the queue is flushed. */
struct dns_sigq {
	unsigned int nb;
	struct {
		const uint8_t *owner;
		const struct dns_rrset *sig;
		uint32_t ttl_cap;
	} e[DNS_SIGQ_MAX];
};

/** Queue @p sig (NULL: nothing) owned by @p owner. */
static inline void
dns_sigq_add(struct dns_sigq *q, const uint8_t *owner, const struct dns_rrset *sig,
	     uint32_t ttl_cap)
{
	if (sig == NULL || q->nb == DNS_SIGQ_MAX)
		return;
	q->e[q->nb].owner = owner;
	q->e[q->nb].sig = sig;
	q->e[q->nb++].ttl_cap = ttl_cap;
}

/** Write the queued RRSIGs and empty @p q. @return RRs written. */
unsigned int dns_sigq_flush(struct dns_writer *w, const struct dns_set *s,
			    struct dns_sigq *q);

/** What a proof denies. */
enum dns_deny {
	DNS_DENY_NXDOMAIN,	/* the name and the wildcard (RFC 4035 3.1.3.2) */
	DNS_DENY_NODATA,	/* the type at an existing name (3.1.3.1) */
	DNS_DENY_WILDCARD,	/* a closer match, for a wildcard answer (3.1.3.3) */
	DNS_DENY_WILD_NODATA,	/* the name, and the type at the wildcard (3.1.3.4) */
	DNS_DENY_DS,		/* a DS at a delegation point (RFC 4035 3.1.4.1) */
};

/** The NSEC or NSEC3 records that prove @p kind for @p lname in signed
 *  zone @p zone, into @p w, their RRSIGs into @p q. @return RRs written. */
unsigned int dns_sec_deny(struct dns_writer *w, const struct dns_set *s, int zone,
			  const uint8_t *lname, enum dns_deny kind, struct dns_sigq *q);

/* ------------------------------------------------------------------ */
/* queries (dns_query.c)                                               */

struct dns_query {
	uint16_t id;
	uint8_t flags1, flags2;	/* header bytes 2 and 3 as received */
	uint8_t opcode;
	bool has_q;		/* the question parsed */
	uint16_t qtype, qclass;
	uint8_t qname_len;	/* wire length, root byte included */
	const uint8_t *qname;	/* in the request */
	uint8_t lname[DNS_NAME_MAX];	/* lower case */
	bool edns;
	/* the first COOKIE option's data (or NULL) and length, any: judged
	 * by dns_cookie_check(); dns.c sets has_valid_server_cookie */
	const uint8_t *cookie;
	uint8_t cookie_len;
	uint8_t edns_version;
	bool edns_do;
	bool keepalive;		/* edns-tcp-keepalive asked */
	bool nsid;		/* an empty NSID option asked (RFC 5001) */
	uint16_t payload;	/* the client's UDP payload size */
	/* a TSIG record, the last of the message (RFC 8945): its owner
	 * (the key's name) and its rdata, both in the request, names
	 * uncompressed; NULL: none */
	const uint8_t *tsig_key;
	const uint8_t *tsig_rd;
	/* the query carries a server cookie this server made (RFC 7873):
	 * its source is proven, RRL does not limit it. Hook for the DNS
	 * cookie work: dns_query_parse() leaves it false. */
	bool has_valid_server_cookie;
};

enum dns_qerr {
	DNS_Q_OK = 0,
	DNS_Q_SHORT,		/* shorter than a header: no answer possible */
	DNS_Q_RESPONSE,		/* QR set */
	DNS_Q_FORMERR,		/* malformed (has_q says if the question is) */
	DNS_Q_NOTIMP,		/* opcode other than QUERY (whatever the
				 * question count: RFC 8906 3.1.4) */
};

/** Parse the @p len bytes of one message. Never reads outside them. */
enum dns_qerr dns_query_parse(const uint8_t *m, uint32_t len, struct dns_query *q);

/* ------------------------------------------------------------------ */
/* writing (dns_write.c)                                               */

#define DNS_COMPR_MAX 64

/** A message being written into [buf, buf+cap). */
struct dns_writer {
	uint8_t *buf;
	uint32_t cap;
	uint32_t len;
	bool overflow;
	uint16_t nb_ptr;
	uint16_t ptr[DNS_COMPR_MAX];	/* offsets of written labels */
};

void dns_w_init(struct dns_writer *w, uint8_t *buf, uint32_t cap);
/** Header (counts 0) and the question of @p q (its name as received). */
void dns_w_head(struct dns_writer *w, const struct dns_query *q, uint8_t rcode,
		bool aa);
/** The question from a lower-case name (prebuilt blocks). */
void dns_w_question(struct dns_writer *w, const uint8_t *name, uint16_t qtype);
/** Name @p n (wire, uncompressed) with compression. */
void dns_w_name(struct dns_writer *w, const uint8_t *n);
/** Every RR of @p rr owned by @p owner; @p ttl_cap caps the TTL (negative
 *  answers' SOA). @return RRs written. */
unsigned int dns_w_rrset(struct dns_writer *w, const struct dns_set *s,
			 const uint8_t *owner, const struct dns_rrset *rr,
			 uint32_t ttl_cap);
/** The OPT record: our payload size, ext rcode, DO, keepalive (100 ms units
 *  or -1: none), an extended DNS error (RFC 8914 info code, or -1: none). */
void dns_w_opt(struct dns_writer *w, uint16_t payload, uint8_t ext_rcode,
	       bool do_bit, int32_t keepalive, int32_t ede);
/** Append option @p code with @p len bytes of @p data to the OPT record
 *  written at @p opt (its offset in @p w), fixing its RDLENGTH. */
void dns_w_opt_add(struct dns_writer *w, uint32_t opt, uint16_t code,
		   const uint8_t *data, uint16_t len);
/** The unsigned TSIG record of an error answer to @p q's TSIG (RFC 8945
 *  5.3.2): the query's key name, algorithm, time signed and fudge, no
 *  MAC, our original ID, TSIG error @p error. */
void dns_w_tsig_error(struct dns_writer *w, const struct dns_query *q,
		      uint16_t error);
void dns_w_counts(struct dns_writer *w, uint16_t an, uint16_t ns, uint16_t ar);

/** What dns_compose() wrote. */
struct dns_sections {
	uint16_t an, ns, ar;
	uint32_t add_off;	/* where the additional section starts */
	uint8_t rcode;
	bool aa;
};

/**
 * The answer, authority and additional sections for the question
 * (@p lname, lower case; @p qtype) into @p w, after its question: the
 * lookup, CNAME chains within the zone (8 links at most), wildcards,
 * referrals with glue, NXDOMAIN and NODATA with the SOA, additional
 * A/AAAA for NS, MX and SRV targets in the zone. REFUSED outside the
 * zones. With @p dnssec (DO=1) in a signed zone: each RRset's RRSIGs
 * after it, the NSEC/NSEC3 proofs (dns_sec_deny) of negative and
 * wildcard answers, DS or its denial with a referral. @p w->overflow
 * says it did not fit.
 */
void dns_compose(struct dns_writer *w, const struct dns_set *s,
		 const uint8_t *lname, uint16_t qtype, bool dnssec,
		 struct dns_sections *sec);

#endif /* TFO_DNS_H */
