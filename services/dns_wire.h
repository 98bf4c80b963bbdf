/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's wire vocabulary, private to the service:
 * a message's constants (header, types, rcodes, classes, EDNS options) and
 * names in wire form, with the helpers every other dns file reads them
 * with (dns_wire.c). The bottom of the service: it includes no other dns
 * header, and nothing here needs DPDK (the configuration check and the
 * fuzzers use it too).
 *
 * The service's headers, one per noun, bottom up: a header includes only
 * the ones before it, a source file its own and those before it
 * (tests/dns_layers_test.py reads this list and checks it), so the
 * files cannot call each other in a circle:
 *
 *   dns_wire.h    constants, names (dns_wire.c)
 *   dns_zparse.h  master files -> records (dns_zparse.c, dns_zsec.c)
 *   dns_zone.h    the zone set: the store and its lookup (dns_zone.c)
 *   dns_query.h   a query parsed: header, question, EDNS (dns_query.c)
 *   dns_write.h   the message writer (dns_write.c)
 *   dns_sec.h     pre-signed DNSSEC: chains, hashes, proofs (dns_sec.c)
 *   dns_answer.h  an answer's sections composed (dns_answer.c)
 *   dns_load.h    zone files -> a served set with its prebuilt answers
 *                 (dns_load.c)
 *   dns_svc.h     the service itself: configuration, state, counters
 *                 (dns.c, dns_conf.c, dns_handle.c)
 *
 * beside them dns_cookie.h, dns_rrl.h and dns_xfr.h (cookies, rate
 * limiting, secondary zones).
 *
 * Names are kept in wire form (length-prefixed labels, root byte last);
 * lookups use a lower-cased copy, answers echo the question's case.
 */
#ifndef TFO_DNS_WIRE_H
#define TFO_DNS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#define DNS_R_BADCOOKIE 23	/* RFC 7873 8: extended, needs EDNS */
#define DNS_OP_NOTIFY 4		/* RFC 1996 */
#define DNS_TSIG_BADKEY 17	/* RFC 8945 TSIG error */

#define DNS_CLASS_IN 1
#define DNS_CLASS_CH 3
#define DNS_CLASS_ANY 255
#define DNS_OPT_NSID 3		/* RFC 5001 name server identifier */
#define DNS_NSID_MAX 128	/* our NSID's bytes at most */
#define DNS_OPT_KEEPALIVE 11	/* RFC 7828 edns-tcp-keepalive */
#define DNS_OPT_COOKIE 10	/* RFC 7873 */
#define DNS_OPT_EDE 15		/* RFC 8914 extended DNS error */
#define DNS_EDE_NOT_AUTH 20	/* Not Authoritative */

/** Wire length of the uncompressed name at @p n (root byte included). */
unsigned int dns_name_len(const uint8_t *n);
/** Number of labels of @p n (the root not counted). */
unsigned int dns_name_labels(const uint8_t *n);
/** Lower-case copy of @p n into @p out (may be @p n); @return its length. */
unsigned int dns_name_lower(uint8_t *out, const uint8_t *n);
/** @p n equals or is below @p zone (both lower case). */
bool dns_name_under(const uint8_t *n, const uint8_t *zone);
/** Presentation form of @p n into @p out (for logs), cut to @p cap. */
void dns_name_str(const uint8_t *n, char *out, size_t cap);
/** Presentation name ("example.org.") -> wire into @p out (DNS_NAME_MAX
 *  bytes), relative to @p origin (may be NULL: absolute only; "@" is
 *  @p origin). @return wire length or -EINVAL. */
int dns_name_from_text(const char *s, size_t len, const uint8_t *origin,
		       uint8_t *out);
/** RFC 4034 6.1 order of two lower-case wire names: <0, 0, >0. */
int dns_name_canon_cmp(const uint8_t *a, const uint8_t *b);

/** One escaped character of presentation text at @p s[*i] (a '\\': "\\X"
 *  or "\\DDD") into @p c, *i moved past it. @return 0 or -EINVAL. */
int dns_text_unescape(const char *s, size_t len, size_t *i, uint8_t *c);

/** A key's decimal value in @p lo..@p hi into @p out.
 *  @return 0 or -EINVAL (not digits only, or out of the range). */
int dns_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out);

#endif /* TFO_DNS_WIRE_H */
