/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's DNS COOKIEs (RFC 7873, RFC 9018),
 * private to the service.
 *
 * Server cookies are the interoperable ones of RFC 9018: Version 1,
 * Reserved 0, a 32-bit timestamp (seconds) and SipHash-2-4 over
 * (client cookie | version | reserved | timestamp | client address)
 * keyed with a 16-byte secret. The secret is derived from the key file
 * `cookie_secret_file` names (the format of `[tfo] key_file`, which it
 * may be): every member of a fleet that shares the file makes and
 * accepts the same cookies. The primary key's secret makes them; the
 * backup key's (or, for a file of one key, the primary before the last
 * reload) is accepted too, so a rotation done as runbook section 6 says
 * never rejects a cookie another member issued.
 *
 * Contract: nothing here allocates, locks or logs on the query path
 * (dns_cookie_check, dns_cookie_put); the file is read at create and
 * reload only.
 */
#ifndef TFO_DNS_COOKIE_H
#define TFO_DNS_COOKIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dns_wire.h"

#define DNS_COOKIE_CLIENT 8
#define DNS_COOKIE_SERVER 16	/* what we make: RFC 9018's */
/* the option we answer with: code, length, client and server cookies */
#define DNS_COOKIE_OPT_LEN (4 + DNS_COOKIE_CLIENT + DNS_COOKIE_SERVER)
#define DNS_COOKIE_MAX_AGE 3600	/* s: RFC 9018 4.3, older is refused */
#define DNS_COOKIE_MAX_SKEW 300	/* s: and this far ahead of our clock */
#define DNS_COOKIE_RENEW 1800	/* s: older valid cookies are renewed */

/** The secrets a zone set carries (copied whole into struct dns_set). */
struct dns_cookie_keys {
	bool on;		/* cookies = on */
	bool has_prev;
	uint8_t cur[16];	/* makes and accepts */
	uint8_t prev[16];	/* accepts only */
	uint8_t src_cur[16];	/* the file's primary: for promotion */
};

/** What a query's COOKIE option is worth (dns_cookie_check). */
enum dns_cookie_verdict {
	DNS_CK_NONE = 0,	/* no option, or cookies off */
	DNS_CK_FORMERR,		/* a length RFC 7873 5.2.2 refuses */
	DNS_CK_CLIENT_ONLY,	/* a client cookie alone: we give one */
	DNS_CK_VALID,		/* a server cookie of ours, in time */
	DNS_CK_BAD,		/* a server cookie that does not verify, or
				 * is too old or too far ahead */
};

struct dns_query;
struct dns_writer;

/**
 * Read @p path (`PRIMARY[,BACKUP]`, the `[tfo] key_file` format, read by
 * the key ring's parser tfo_key_parse) into @p k, each secret derived
 * from its key by a labelled SipHash-2-4 (so the DNS secret never equals
 * a TFO key even when the file is shared). @p old: the keys serving now
 * (reload) or NULL: a file of one key that is not the running primary
 * keeps the running primary as the accepted one ("promotion", as the key
 * ring does). No DPDK. @return 0 or -EINVAL with the reason in @p why.
 */
int dns_cookie_file_read(const char *path, const struct dns_cookie_keys *old,
			 struct dns_cookie_keys *k, char *why, size_t whylen);

/** The fingerprint of the key file's primary @p k makes cookies from
 *  (tfo_key_fingerprint: what /tfo/keys shows for the same key), for the
 *  log: equal across a fleet that makes the same cookies. */
void dns_cookie_fingerprint(const struct dns_cookie_keys *k, char out[17]);

/** The 16-byte RFC 9018 server cookie for client cookie @p cc from
 *  address @p ip (4 or 16 bytes) at @p now, with @p secret. */
void dns_cookie_make(const uint8_t secret[16], const uint8_t cc[DNS_COOKIE_CLIENT],
		     const uint8_t *ip, unsigned int ip_len, uint32_t now,
		     uint8_t out[DNS_COOKIE_SERVER]);

/**
 * Judge @p q's COOKIE option (dns_query.cookie) from address @p ip at
 * @p now with @p k, and put the server cookie to answer with in @p sc
 * (for CLIENT_ONLY, VALID and BAD): the received one while it is younger
 * than DNS_COOKIE_RENEW, a fresh one otherwise.
 */
enum dns_cookie_verdict dns_cookie_check(const struct dns_cookie_keys *k,
					 const struct dns_query *q, const uint8_t *ip,
					 unsigned int ip_len, uint32_t now,
					 uint8_t sc[DNS_COOKIE_SERVER]);

/**
 * Append the COOKIE option (@p cc, @p sc) to the OPT record written at
 * @p opt_off of @p w (its last record), its RDLENGTH grown to match.
 */
void dns_cookie_put(struct dns_writer *w, uint32_t opt_off,
		    const uint8_t cc[DNS_COOKIE_CLIENT],
		    const uint8_t sc[DNS_COOKIE_SERVER]);

#endif /* TFO_DNS_COOKIE_H */
