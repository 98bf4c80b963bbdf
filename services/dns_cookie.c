/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's DNS COOKIEs (RFC 7873, RFC 9018).
 *
 * The contract is in dns_cookie.h. SipHash-2-4 and the key file's parser
 * are the library's (cookie/siphash.h, cookie/keyring.h: the TFO
 * cookies' own, so the file means the same to both): a built-in service
 * links with them. The secret reaches the service through its
 * configuration (`cookie_secret_file`), never through the running key
 * ring, whose keys never leave src/cookie/.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cookie/keyring.h"
#include "cookie/siphash.h"
#include "tfo/log.h"
#include "tfo/service.h"

#include "dns_query.h"
#include "dns_write.h"
#include "dns_cookie.h"

/* the derivation's labels: one SipHash output is 8 bytes, a secret 16 */
static const char dns_cookie_label[2][16] = {
	"tfo dns cookie 1", "tfo dns cookie 2",
};

static void
dns_cookie_derive(const uint8_t key[16], uint8_t secret[16])
{
	struct tfo_siphash_key sk;

	tfo_siphash_init(&sk, key);
	for (unsigned int i = 0; i < 2; i++) {
		uint64_t h = tfo_siphash(&sk, dns_cookie_label[i], 16);

		for (unsigned int b = 0; b < 8; b++)
			secret[i * 8 + b] = (uint8_t)(h >> (8 * b));
	}
}

int
dns_cookie_file_read(const char *path, const struct dns_cookie_keys *old,
		     struct dns_cookie_keys *k, char *why, size_t whylen)
{
	struct tfo_key key[2];
	bool has_backup = false;
	char text[256];
	size_t len;
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL)
		return tfo_errmsg(why, whylen, "cookie_secret_file %s: %s", path,
				  strerror(errno));
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	/* the key ring's own parser: the file means what [tfo] key_file does */
	if (tfo_key_parse(text, &key[0], &key[1], &has_backup) < 0)
		return tfo_errmsg(why, whylen, "cookie_secret_file %s: expected PRIMARY "
				  "or PRIMARY,BACKUP, each xxxxxxxx-xxxxxxxx-xxxxxxxx-xxxxxxxx "
				  "(the [tfo] key_file format)", path);
	memset(k, 0, sizeof(*k));
	k->on = true;
	memcpy(k->src_cur, key[0].b, 16);
	dns_cookie_derive(key[0].b, k->cur);
	if (has_backup) {
		dns_cookie_derive(key[1].b, k->prev);
		k->has_prev = true;
	} else if (old != NULL && old->on && memcmp(old->src_cur, key[0].b, 16) != 0) {
		/* promotion: the cookies the running primary made keep
		 * verifying until the next rotation */
		memcpy(k->prev, old->cur, 16);
		k->has_prev = true;
	} else if (old != NULL && old->on) {
		/* the same key again: nothing changes */
		k->has_prev = old->has_prev;
		memcpy(k->prev, old->prev, 16);
	}
	return 0;
}

void
dns_cookie_fingerprint(const struct dns_cookie_keys *k, char out[17])
{
	struct tfo_key key;

	memcpy(key.b, k->src_cur, sizeof(key.b));
	tfo_key_fingerprint(&key, out);
}

/* SipHash-2-4 over cc | version | reserved | timestamp | ip: the 8 bytes
 * of @p cc and the first 8 of @p sc (as received when verifying: RFC 9018
 * A.3 hashes the client's reserved bytes too). */
static uint64_t
dns_cookie_hash(const uint8_t secret[16], const uint8_t *cc, const uint8_t *sc8,
		const uint8_t *ip, unsigned int ip_len)
{
	struct tfo_siphash_key sk;
	uint8_t msg[DNS_COOKIE_CLIENT + 8 + 16];

	memcpy(msg, cc, DNS_COOKIE_CLIENT);
	memcpy(msg + DNS_COOKIE_CLIENT, sc8, 8);
	memcpy(msg + DNS_COOKIE_CLIENT + 8, ip, ip_len);
	tfo_siphash_init(&sk, secret);
	return tfo_siphash(&sk, msg, DNS_COOKIE_CLIENT + 8 + ip_len);
}

void
dns_cookie_make(const uint8_t secret[16], const uint8_t cc[DNS_COOKIE_CLIENT],
		const uint8_t *ip, unsigned int ip_len, uint32_t now,
		uint8_t out[DNS_COOKIE_SERVER])
{
	uint64_t h;

	out[0] = 1;		/* Version */
	out[1] = out[2] = out[3] = 0;	/* Reserved */
	out[4] = (uint8_t)(now >> 24);
	out[5] = (uint8_t)(now >> 16);
	out[6] = (uint8_t)(now >> 8);
	out[7] = (uint8_t)now;
	h = dns_cookie_hash(secret, cc, out, ip, ip_len);
	/* the hash goes out in SipHash's byte order (little-endian), as
	 * RFC 9018's examples show */
	for (unsigned int b = 0; b < 8; b++)
		out[8 + b] = (uint8_t)(h >> (8 * b));
}

static bool
dns_cookie_verifies(const uint8_t secret[16], const uint8_t *c, const uint8_t *ip,
		    unsigned int ip_len)
{
	uint64_t h = dns_cookie_hash(secret, c, c + DNS_COOKIE_CLIENT, ip, ip_len);
	uint64_t got = 0;

	for (unsigned int b = 0; b < 8; b++)
		got |= (uint64_t)c[DNS_COOKIE_CLIENT + 8 + b] << (8 * b);
	return got == h;
}

enum dns_cookie_verdict
dns_cookie_check(const struct dns_cookie_keys *k, const struct dns_query *q,
		 const uint8_t *ip, unsigned int ip_len, uint32_t now,
		 uint8_t sc[DNS_COOKIE_SERVER])
{
	const uint8_t *c = q->cookie;
	uint8_t l = q->cookie_len;
	enum dns_cookie_verdict v;

	if (!k->on || c == NULL)
		return DNS_CK_NONE;
	/* RFC 7873 5.2.2: 8 (client only), or 16..40 */
	if (l != DNS_COOKIE_CLIENT && (l < 16 || l > 40))
		return DNS_CK_FORMERR;
	if (l == DNS_COOKIE_CLIENT) {
		v = DNS_CK_CLIENT_ONLY;
	} else if (l != DNS_COOKIE_CLIENT + DNS_COOKIE_SERVER || c[8] != 1) {
		v = DNS_CK_BAD;	/* not one of ours: another size or version */
	} else {
		uint32_t ts = ((uint32_t)c[12] << 24) | ((uint32_t)c[13] << 16) |
			      ((uint32_t)c[14] << 8) | c[15];
		/* serial arithmetic: the 32-bit timestamp wraps (RFC 9018 4.3) */
		int32_t age = (int32_t)(now - ts);

		bool by_cur = false;

		if (age > DNS_COOKIE_MAX_AGE || age < -DNS_COOKIE_MAX_SKEW)
			v = DNS_CK_BAD;
		else if ((by_cur = dns_cookie_verifies(k->cur, c, ip, ip_len)) ||
			 (k->has_prev && dns_cookie_verifies(k->prev, c, ip, ip_len)))
			v = DNS_CK_VALID;
		else
			v = DNS_CK_BAD;
		/* a young cookie of the current secret, Reserved 0, is echoed:
		 * the client keeps one cookie (RFC 9018 4.3 allows it) */
		if (by_cur && age >= 0 && age < DNS_COOKIE_RENEW &&
		    (c[9] | c[10] | c[11]) == 0) {
			memcpy(sc, c + DNS_COOKIE_CLIENT, DNS_COOKIE_SERVER);
			return v;
		}
	}
	dns_cookie_make(k->cur, c, ip, ip_len, now, sc);
	return v;
}

void
dns_cookie_put(struct dns_writer *w, uint32_t opt_off,
	       const uint8_t cc[DNS_COOKIE_CLIENT], const uint8_t sc[DNS_COOKIE_SERVER])
{
	uint8_t o[DNS_COOKIE_OPT_LEN] = {
		0, DNS_OPT_COOKIE, 0, DNS_COOKIE_CLIENT + DNS_COOKIE_SERVER,
	};
	uint32_t rdlen;

	if (w->overflow || w->len + sizeof(o) > w->cap || opt_off + DNS_OPT_LEN > w->len)
		return;		/* optional: the answer goes without it */
	memcpy(o + 4, cc, DNS_COOKIE_CLIENT);
	memcpy(o + 4 + DNS_COOKIE_CLIENT, sc, DNS_COOKIE_SERVER);
	memcpy(w->buf + w->len, o, sizeof(o));
	w->len += sizeof(o);
	/* the OPT's RDLENGTH: its last two fixed bytes */
	rdlen = ((uint32_t)w->buf[opt_off + 9] << 8 | w->buf[opt_off + 10]) + sizeof(o);
	w->buf[opt_off + 9] = (uint8_t)(rdlen >> 8);
	w->buf[opt_off + 10] = (uint8_t)rdlen;
}
