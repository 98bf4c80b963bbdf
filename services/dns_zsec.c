/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's DNSSEC records in presentation format
 * (RFC 4034 sections 2.2, 3.2, 4.2, 5.3; RFC 5155 3.3 and 4.3; RFC 7344)
 * to wire form, as dnssec-signzone, ldns-signzone and Knot DNS write
 * them: base64 split over several fields, hex digests split too, type
 * bitmaps of mnemonics or TYPEnnn, base32hex hashes, "-" for an empty
 * salt, signature times as YYYYMMDDHHmmSS or seconds. Also the type
 * mnemonics the parser and these records share. No DPDK (the
 * configuration check reads zone files too).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfo/log.h"

#include "dns_zparse.h"

static const struct {
	const char *name;
	uint16_t type;
} dns_type_names[] = {
	{ "A", DNS_T_A }, { "NS", DNS_T_NS }, { "CNAME", DNS_T_CNAME },
	{ "SOA", DNS_T_SOA }, { "PTR", DNS_T_PTR }, { "HINFO", DNS_T_HINFO },
	{ "MX", DNS_T_MX }, { "TXT", DNS_T_TXT }, { "AAAA", DNS_T_AAAA },
	{ "SRV", DNS_T_SRV }, { "CAA", DNS_T_CAA }, { "DS", DNS_T_DS },
	{ "RRSIG", DNS_T_RRSIG }, { "NSEC", DNS_T_NSEC }, { "DNSKEY", DNS_T_DNSKEY },
	{ "NSEC3", DNS_T_NSEC3 }, { "NSEC3PARAM", DNS_T_NSEC3PARAM },
	{ "CDS", DNS_T_CDS }, { "CDNSKEY", DNS_T_CDNSKEY },
	/* types a bitmap or a signature may name though we do not load them */
	{ "MD", 3 }, { "MF", 4 }, { "MB", 7 }, { "MG", 8 }, { "MR", 9 }, { "NULL", 10 },
	{ "WKS", 11 }, { "MINFO", 14 }, { "RP", 17 }, { "AFSDB", 18 }, { "KEY", 25 },
	{ "LOC", 29 }, { "NAPTR", 35 }, { "KX", 36 }, { "CERT", 37 }, { "DNAME", 39 },
	{ "APL", 42 }, { "SSHFP", 44 }, { "IPSECKEY", 45 }, { "DHCID", 49 },
	{ "TLSA", 52 }, { "SMIMEA", 53 }, { "HIP", 55 }, { "OPENPGPKEY", 61 },
	{ "CSYNC", 62 }, { "ZONEMD", 63 }, { "SVCB", 64 }, { "HTTPS", 65 },
	{ "SPF", 99 }, { "NID", 104 }, { "L32", 105 }, { "L64", 106 }, { "LP", 107 },
	{ "EUI48", 108 }, { "EUI64", 109 }, { "URI", 256 },
};

int
dns_type_from_text(const char *s, size_t len)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < sizeof(dns_type_names) / sizeof(dns_type_names[0]); i++)
		if (strlen(dns_type_names[i].name) == len &&
		    strncasecmp(dns_type_names[i].name, s, len) == 0)
			return dns_type_names[i].type;
	/* RFC 3597 3 */
	if (len < 5 || len > 9 || strncasecmp(s, "TYPE", 4) != 0)
		return -EINVAL;
	for (size_t i = 4; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		v = v * 10 + (uint32_t)(s[i] - '0');
	}
	return v <= 65535 ? (int)v : -EINVAL;
}

/* ------------------------------------------------------------------ */
/* encodings                                                           */

static int
b64_val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* The base64 of fields @p a[0..n) joined (RFC 4648 4) appended to @p out. */
static int
zs_base64(const struct dns_ztok *a, unsigned int n, uint8_t *out, uint32_t cap,
	  uint32_t *len)
{
	uint32_t acc = 0, bits = 0, o = *len, pad = 0, chars = 0;

	for (unsigned int k = 0; k < n; k++) {
		for (size_t i = 0; i < a[k].len; i++) {
			char c = a[k].p[i];
			int v;

			if (c == '=') {
				pad++;
				continue;
			}
			v = b64_val(c);
			if (v < 0 || pad != 0 || a[k].quoted)
				return -EINVAL;
			chars++;
			acc = (acc << 6) | (uint32_t)v;
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				if (o == cap)
					return -EINVAL;
				out[o++] = (uint8_t)(acc >> bits);
			}
		}
	}
	if (chars == 0 || pad > 2 || (chars + pad) % 4 != 0)
		return -EINVAL;
	*len = o;
	return 0;
}

static int
hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The hex of fields @p a[0..n) joined, appended to @p out. */
static int
zs_hex(const struct dns_ztok *a, unsigned int n, uint8_t *out, uint32_t cap, uint32_t *len)
{
	uint32_t o = *len, digits = 0;
	int hi = 0;

	for (unsigned int k = 0; k < n; k++) {
		for (size_t i = 0; i < a[k].len; i++) {
			int v = hex_val(a[k].p[i]);

			if (v < 0 || a[k].quoted)
				return -EINVAL;
			if (digits++ % 2 == 0) {
				hi = v;
				continue;
			}
			if (o == cap)
				return -EINVAL;
			out[o++] = (uint8_t)(hi << 4 | v);
		}
	}
	if (digits % 2 != 0)
		return -EINVAL;
	*len = o;
	return 0;
}

int
dns_b32hex_decode(const char *s, size_t len, uint8_t *out, size_t cap)
{
	uint32_t acc = 0, bits = 0;
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		char c = (char)tolower((unsigned char)s[i]);
		int v;

		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'v')
			v = c - 'a' + 10;
		else
			return -EINVAL;
		acc = (acc << 5) | (uint32_t)v;
		bits += 5;
		if (bits >= 8) {
			bits -= 8;
			if (o == cap)
				return -EINVAL;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	/* RFC 4648 7 without padding: the leftover bits are zero */
	if (bits >= 5 || (acc & ((1u << bits) - 1)) != 0)
		return -EINVAL;
	return (int)o;
}

int
dns_ztok_u32(const struct dns_ztok *t, uint32_t max, uint32_t *v)
{
	uint64_t x = 0;

	if (t->quoted || t->len == 0 || t->len > 10)
		return -EINVAL;
	for (size_t i = 0; i < t->len; i++) {
		if (!isdigit((unsigned char)t->p[i]))
			return -EINVAL;
		x = x * 10 + (uint64_t)(t->p[i] - '0');
	}
	if (x > max)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's). */
static int64_t
days_from_civil(int64_t y, unsigned int m, unsigned int d)
{
	int64_t era;
	unsigned int yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned int)(y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* A signature time (RFC 4034 3.2): YYYYMMDDHHmmSS in UTC, or seconds. */
static int
zs_time(const struct dns_ztok *t, uint32_t *v)
{
	unsigned int f[6] = { 0 };
	static const unsigned int w[6] = { 4, 2, 2, 2, 2, 2 };
	size_t at = 0;
	int64_t s;

	if (t->len != 14)
		return dns_ztok_u32(t, 0xffffffffu, v);
	for (int k = 0; k < 6; k++)
		for (unsigned int i = 0; i < w[k]; i++, at++) {
			if (!isdigit((unsigned char)t->p[at]))
				return -EINVAL;
			f[k] = f[k] * 10 + (unsigned int)(t->p[at] - '0');
		}
	if (f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > 31 || f[3] > 23 || f[4] > 59 ||
	    f[5] > 60)
		return -EINVAL;
	s = days_from_civil(f[0], f[1], f[2]) * 86400 + f[3] * 3600 + f[4] * 60 + f[5];
	/* serial number arithmetic (RFC 4034 3.1.5): modulo 2^32 */
	*v = (uint32_t)s;
	return 0;
}

/* A type bitmap (RFC 4034 4.1.2) of the mnemonics @p a[0..n). */
static int
zs_bitmap(const struct dns_ztok *a, unsigned int n, uint8_t *out, uint32_t cap,
	  uint32_t *len)
{
	uint8_t win[256][32];
	uint8_t used[256] = { 0 };	/* bytes used in each window */
	uint32_t o = *len;

	memset(win, 0, sizeof(win));
	for (unsigned int k = 0; k < n; k++) {
		int t = a[k].quoted ? -EINVAL : dns_type_from_text(a[k].p, a[k].len);

		if (t < 0)
			return -EINVAL;
		win[t >> 8][(t & 0xff) >> 3] |= (uint8_t)(0x80 >> (t & 7));
		if (used[t >> 8] < ((t & 0xff) >> 3) + 1)
			used[t >> 8] = (uint8_t)(((t & 0xff) >> 3) + 1);
	}
	for (unsigned int wn = 0; wn < 256; wn++) {
		if (used[wn] == 0)
			continue;
		if (o + 2u + used[wn] > cap)
			return -EINVAL;
		out[o++] = (uint8_t)wn;
		out[o++] = used[wn];
		memcpy(out + o, win[wn], used[wn]);
		o += used[wn];
	}
	*len = o;
	return 0;
}

static void
put16(uint8_t *out, uint32_t *len, uint32_t v)
{
	out[(*len)++] = (uint8_t)(v >> 8);
	out[(*len)++] = (uint8_t)v;
}

static void
put32(uint8_t *out, uint32_t *len, uint32_t v)
{
	put16(out, len, v >> 16);
	put16(out, len, v & 0xffff);
}

/* Fields as numbers: @p max[i] bounds field i, 0xffff: 16 bits on the wire. */
static int
zs_numbers(const struct dns_ztok *a, const uint32_t *max, unsigned int n, uint8_t *out,
	   uint32_t *len)
{
	for (unsigned int i = 0; i < n; i++) {
		uint32_t v;

		if (dns_ztok_u32(&a[i], max[i], &v) < 0)
			return -EINVAL;
		if (max[i] > 255)
			put16(out, len, v);
		else
			out[(*len)++] = (uint8_t)v;
	}
	return 0;
}

/* A salt: hex, or "-" for none (RFC 5155 3.3). */
static int
zs_salt(const struct dns_ztok *t, uint8_t *out, uint32_t cap, uint32_t *len)
{
	uint32_t at = (*len)++;

	if (t->len == 1 && t->p[0] == '-') {
		out[at] = 0;
		return 0;
	}
	if (t->len > 510 || zs_hex(t, 1, out, cap, len) < 0)
		return -EINVAL;
	out[at] = (uint8_t)(*len - at - 1);
	return 0;
}

static int
zs_err(char *why, size_t whylen, const char *what, const struct dns_ztok *t)
{
	int l = t != NULL ? (int)(t->len > 60 ? 60 : t->len) : 0;

	return tfo_errmsg(why, whylen, "%s%s%.*s", what, t != NULL ? " " : "", l,
			  t != NULL ? t->p : "");
}

/* RRSIG (RFC 4034 3.2): type covered, algorithm, labels, original TTL,
 * expiration, inception, key tag, signer, signature. */
static int
zs_rrsig(const struct dns_ztok *a, unsigned int n, const uint8_t *origin, uint8_t *out,
	 uint32_t cap, uint32_t *len, char *why, size_t whylen)
{
	uint8_t name[DNS_NAME_MAX];
	uint32_t v;
	int l, t;

	if (n < 9)
		return zs_err(why, whylen, "RRSIG: wrong number of fields", NULL);
	t = a[0].quoted ? -EINVAL : dns_type_from_text(a[0].p, a[0].len);
	if (t < 0)
		return zs_err(why, whylen, "RRSIG: bad type covered", &a[0]);
	put16(out, len, (uint32_t)t);
	if (dns_ztok_u32(&a[1], 255, &v) < 0)
		return zs_err(why, whylen, "RRSIG: bad algorithm", &a[1]);
	out[(*len)++] = (uint8_t)v;
	if (dns_ztok_u32(&a[2], 127, &v) < 0)
		return zs_err(why, whylen, "RRSIG: bad labels", &a[2]);
	out[(*len)++] = (uint8_t)v;
	if (dns_ztok_u32(&a[3], 0xffffffffu, &v) < 0)
		return zs_err(why, whylen, "RRSIG: bad original TTL", &a[3]);
	put32(out, len, v);
	for (int i = 4; i < 6; i++) {
		if (zs_time(&a[i], &v) < 0)
			return zs_err(why, whylen, "RRSIG: bad time", &a[i]);
		put32(out, len, v);
	}
	if (dns_ztok_u32(&a[6], 65535, &v) < 0)
		return zs_err(why, whylen, "RRSIG: bad key tag", &a[6]);
	put16(out, len, v);
	l = a[7].quoted ? -EINVAL : dns_name_from_text(a[7].p, a[7].len, origin, name);
	if (l < 0)
		return zs_err(why, whylen, "RRSIG: bad signer name", &a[7]);
	/* RFC 4034 6.2: names in RRSIG rdata in lower case */
	dns_name_lower(out + *len, name);
	*len += (uint32_t)l;
	if (zs_base64(a + 8, n - 8, out, cap, len) < 0)
		return zs_err(why, whylen, "RRSIG: bad base64 signature", &a[8]);
	return 0;
}

/* NSEC3 and NSEC3PARAM (RFC 5155 3.3, 4.3): hash algorithm, flags,
 * iterations, salt; NSEC3: the next hashed owner (base32hex) and the
 * types. */
static int
zs_nsec3(uint16_t type, const struct dns_ztok *a, unsigned int n, uint8_t *out, uint32_t cap,
	 uint32_t *len, char *why, size_t whylen)
{
	static const uint32_t n3_max[3] = { 255, 255, 0xffff };
	int l;

	if (n < 4 || (type == DNS_T_NSEC3 ? n < 5 : n != 4))
		return zs_err(why, whylen, "NSEC3: wrong number of fields", NULL);
	if (zs_numbers(a, n3_max, 3, out, len) < 0)
		return zs_err(why, whylen, "NSEC3: bad number in", &a[0]);
	if (zs_salt(&a[3], out, cap, len) < 0)
		return zs_err(why, whylen, "NSEC3: bad salt", &a[3]);
	if (type == DNS_T_NSEC3PARAM)
		return 0;
	l = a[4].quoted ? -EINVAL :
		dns_b32hex_decode(a[4].p, a[4].len, out + *len + 1, 255);
	if (l <= 0)
		return zs_err(why, whylen, "NSEC3: bad next hashed owner", &a[4]);
	out[*len] = (uint8_t)l;
	*len += 1u + (uint32_t)l;
	if (zs_bitmap(a + 5, n - 5, out, cap, len) < 0)
		return zs_err(why, whylen, "NSEC3: bad type in", &a[5]);
	return 0;
}

int
dns_zsec_rdata(uint16_t type, const struct dns_ztok *a, unsigned int n,
	       const uint8_t *origin, uint8_t *out, uint32_t cap, uint32_t *len,
	       char *why, size_t whylen)
{
	static const uint32_t ds_max[3] = { 0xffff, 255, 255 };
	static const uint32_t key_max[3] = { 0xffff, 255, 255 };
	uint8_t name[DNS_NAME_MAX];
	int l;

	*len = 0;
	if (cap < 512)
		return zs_err(why, whylen, "internal: rdata buffer too small", NULL);
	switch (type) {
	case DNS_T_DS:
	case DNS_T_CDS:
		/* key tag, algorithm, digest type, digest (hex, maybe split) */
		if (n < 4)
			return zs_err(why, whylen, "DS: wrong number of fields", NULL);
		if (zs_numbers(a, ds_max, 3, out, len) < 0)
			return zs_err(why, whylen, "DS: bad number in", &a[0]);
		if (zs_hex(a + 3, n - 3, out, cap, len) < 0)
			return zs_err(why, whylen, "DS: bad hex digest", &a[3]);
		return 0;
	case DNS_T_DNSKEY:
	case DNS_T_CDNSKEY:
		/* flags, protocol, algorithm, public key (base64, maybe split) */
		if (n < 4)
			return zs_err(why, whylen, "DNSKEY: wrong number of fields", NULL);
		if (zs_numbers(a, key_max, 3, out, len) < 0)
			return zs_err(why, whylen, "DNSKEY: bad number in", &a[0]);
		if (zs_base64(a + 3, n - 3, out, cap, len) < 0)
			return zs_err(why, whylen, "DNSKEY: bad base64 key", &a[3]);
		return 0;
	case DNS_T_RRSIG:
		return zs_rrsig(a, n, origin, out, cap, len, why, whylen);
	case DNS_T_NSEC:
		/* next owner name, then the types at the owner */
		if (n < 1)
			return zs_err(why, whylen, "NSEC: wrong number of fields", NULL);
		l = a[0].quoted ? -EINVAL : dns_name_from_text(a[0].p, a[0].len, origin, name);
		if (l < 0)
			return zs_err(why, whylen, "NSEC: bad next name", &a[0]);
		memcpy(out, name, (size_t)l);
		*len = (uint32_t)l;
		if (zs_bitmap(a + 1, n - 1, out, cap, len) < 0)
			return zs_err(why, whylen, "NSEC: bad type in", &a[1]);
		return 0;
	case DNS_T_NSEC3:
	case DNS_T_NSEC3PARAM:
		return zs_nsec3(type, a, n, out, cap, len, why, whylen);
	default:
		return zs_err(why, whylen, "internal: not a DNSSEC type", NULL);
	}
}
