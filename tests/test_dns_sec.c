/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the dns service's pre-signed DNSSEC: the DNSSEC types in
 * presentation form, SHA-1 and the NSEC3 hash (RFC 5155 appendix A),
 * canonical order (RFC 4034 6.1), and answers from tests/dns/
 * signed.example.zone (NSEC) and signed3.example.zone (NSEC3), signed by
 * tests/dns/sign.sh: DO=0 unchanged, DO=1 with the RRSIGs, the NSEC and
 * NSEC3 proofs (each checked to match or cover the names it must),
 * DS at a signed delegation, its denial at an insecure one, TC=1 over
 * UDP when it does not fit, whole over TCP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tfo/service.h"

#include "../services/dns_sec.h"
#include "../services/dns_wire.h"
#include "../services/dns_zone.h"
#include "../services/dns_zparse.h"
#include "dns_decode.h"
#include "test.h"

#define ZDIR TFO_CONFIG_DIR "/../tests/dns"

static const struct tfo_service *svc;
static void *st;
static uint64_t ctrs[TFO_SVC_MAX_COUNTERS];
static struct tfo_svc_ctx tcp_ctx = {
	.family = AF_INET, .transport = TFO_SVC_TCP, .dst_port = 53, .counters = ctrs,
};
static struct tfo_svc_ctx udp_ctx = {
	.family = AF_INET, .transport = TFO_SVC_UDP, .dst_port = 53, .udp_max = 1472,
	.counters = ctrs,
};
static uint8_t scratch[9000];	/* the engine's response buffer ... */
static uint32_t scratch_cap = 2048;	/* ... of max(2048, max_request) */
static struct tdns_answer A;	/* the last answer */
static struct tdns_msg D;	/* ... decoded (decode()) */

/* A query for @p name/@p qtype; EDNS with @p payload (0: none) and DO. */
static enum tfo_svc_status
ask(const struct tfo_svc_ctx *ctx, const char *name, uint16_t qtype, uint16_t payload,
    bool do_bit)
{
	struct tdns_qopt o = { .edns = payload != 0, .payload = payload, .do_bit = do_bit };

	return tdns_ask(svc, st, ctx, name, qtype, &o, scratch, scratch_cap, &A);
}

static unsigned int rcode(void) { return A.msg[3] & 0x0f; }
static bool tc(void) { return (A.msg[2] & 0x02) != 0; }
static unsigned int cnt(int i) { return (unsigned int)(A.msg[4 + 2 * i] << 8 | A.msg[5 + 2 * i]); }

static void
decode(void)
{
	CHECK(tdns_decode(A.msg, A.len, &D) == 0);
}

/* Records of @p type in @p section; RRSIGs of @p type when @p sig. */
static unsigned int
count(int section, uint16_t type, bool sig)
{
	return tdns_count(&D, section, type, sig);
}

/* The OPT's DO bit (the last record of the additional section). */
static bool
do_echoed(void)
{
	return A.len > 11 && A.msg[A.len - 11] == 0 &&
	       (A.msg[A.len - 10] << 8 | A.msg[A.len - 9]) == DNS_T_OPT &&
	       (A.msg[A.len - 4] & 0x80) != 0;
}

static void
wire(const char *s, uint8_t *n)
{
	if (dns_name_from_text(s, strlen(s), NULL, n) < 0)
		abort();
	dns_name_lower(n, n);
}

/* Some NSEC of the authority matches (@p exact) or covers @p name. */
static bool
nsec_proves(const char *name, bool exact)
{
	uint8_t x[DNS_NAME_MAX];

	wire(name, x);
	for (unsigned int i = 0; i < D.nb_rr; i++) {
		uint8_t next[DNS_NAME_MAX];
		int lo, hi;

		if (D.rr[i].section != 2 || D.rr[i].type != DNS_T_NSEC)
			continue;
		dns_name_lower(next, D.rr[i].rd);
		lo = dns_name_canon_cmp(D.rr[i].owner, x);
		hi = dns_name_canon_cmp(x, next);
		if (exact ? lo == 0 :
		    dns_name_canon_cmp(D.rr[i].owner, next) < 0 ? lo < 0 && hi < 0 :
		    lo < 0 || hi < 0)	/* the last one wraps to the apex */
			return true;
	}
	return false;
}

/* Some NSEC3 of the authority matches or covers @p name's hash. */
static bool
nsec3_proves(const char *name, bool exact)
{
	struct dns_zone z = { .n3_iter = 0, .n3_salt_len = 0 };
	uint8_t x[DNS_NAME_MAX], h[20];

	wire(name, x);
	dns_nsec3_hash(&z, x, h);
	for (unsigned int i = 0; i < D.nb_rr; i++) {
		uint8_t own[20];
		const uint8_t *next;
		int lo, hi;

		if (D.rr[i].section != 2 || D.rr[i].type != DNS_T_NSEC3)
			continue;
		if (dns_b32hex_decode((const char *)D.rr[i].owner + 1, D.rr[i].owner[0], own, 20) != 20)
			continue;
		next = D.rr[i].rd + 5 + D.rr[i].rd[4] + 1;	/* after the salt, the length */
		lo = memcmp(own, h, 20);
		hi = memcmp(h, next, 20);
		if (exact ? lo == 0 :
		    memcmp(own, next, 20) < 0 ? lo < 0 && hi < 0 :
		    lo < 0 || hi < 0)	/* the last one wraps to the first */
			return true;
	}
	return false;
}

/* ------------------------------------------------------------------ */

static int
parse1(const char *text, struct dns_recs *recs, char *why, size_t whylen)
{
	uint8_t origin[DNS_NAME_MAX];

	wire("example.org.", origin);
	memset(recs, 0, sizeof(*recs));
	return dns_zparse_text(text, strlen(text), "t.zone", origin, recs, why, whylen);
}

TFO_TEST(zparse_dnssec_types)
{
	static const char text[] =
		"$TTL 300\n"
		"@ DS 60485 5 1 ( 2BB183AF5F22588179A53B0A\n 98631FAD1A292118 )\n"
		"@ DNSKEY 256 3 5 ( AQOeiiR0GOMYkDshWoSKz9Xz\n fwJr1AYtsmx3TGkJaNXVbfi/ 2pHm822aJ5iI9BMzNXxeYCmZDRD99WYwYqUSdjMmmAphXdvxegXd/ M5+X7OrzKBaMbCVdFLUUh6DhweJBjEVv5f2wwjM9XzcnOf+EPbtG9DMBmADjFDc2w/rljwvFw== )\n"
		"@ RRSIG A 5 3 86400 20030322173103 ( 20030220173103 2642 example.org.\n"
		"  oJB1W6WNGv+ldvQ3WDG0MQkg5IEhjRip8WTrPYGv07h108dUKGMeDPKijVCHX3DDKdfb+v6o\n"
		"  B9wfuh3DTJXUAfI/M0zmO/zz8bW0Rznl8O3tGNazPwQKkRN20XPXV6nwwfoXmJQbsLNrLfkG\n"
		"  J5D6fwFm8nN+6pBzeDQfsS3Ap3o= )\n"
		"@ NSEC host.example.org. ( A MX RRSIG NSEC TYPE1234 )\n"
		"@ NSEC3PARAM 1 0 12 aabbccdd\n"
		"0p9mhaveqvm6t7vbl5lop2u3t2rp3tom NSEC3 1 1 12 aabbccdd (\n"
		"  2t7b4g4vsa5smi47k61mv5bv1a22bojr MX DNSKEY NS SOA NSEC3PARAM RRSIG )\n"
		"@ CDS 0 0 0 00\n"
		"@ CDNSKEY 0 3 0 AA==\n"
		"x NSEC3PARAM 1 0 0 -\n";
	static const uint8_t ds[] = { 0xec, 0x45, 5, 1, 0x2b, 0xb1, 0x83, 0xaf, 0x5f, 0x22,
				      0x58, 0x81, 0x79, 0xa5, 0x3b, 0x0a, 0x98, 0x63, 0x1f,
				      0xad, 0x1a, 0x29, 0x21, 0x18 };
	/* RFC 4034 4.3's bitmap of A MX RRSIG NSEC TYPE1234 */
	static const uint8_t bm[] = { 0x00, 0x06, 0x40, 0x01, 0x00, 0x00, 0x00, 0x03,
				      0x04, 0x1b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
				      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
				      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
				      0x00, 0x00, 0x00, 0x00, 0x20 };
	struct dns_recs r;
	char why[256] = "";

	REQUIRE(parse1(text, &r, why, sizeof(why)) == 0);
	if (why[0] != '\0')
		printf("why: %s\n", why);
	REQUIRE(r.n == 9);
	CHECK_EQ(r.r[0].type, DNS_T_DS);
	CHECK_EQ(r.r[0].rdlen, sizeof(ds));
	CHECK(memcmp(r.r[0].rdata, ds, sizeof(ds)) == 0);
	CHECK_EQ(r.r[1].type, DNS_T_DNSKEY);
	CHECK_EQ(r.r[1].rdlen, 4 + 130);	/* RFC 4034 2.3's key: 130 bytes */
	CHECK_EQ(r.r[2].type, DNS_T_RRSIG);
	CHECK_EQ(r.r[2].rdata[1], DNS_T_A);
	/* 20030322173103 = 1048354263 (RFC 4034 3.3) */
	CHECK(memcmp(r.r[2].rdata + 8, "\x3e\x7c\x9d\xd7", 4) == 0);
	CHECK(memcmp(r.r[2].rdata + 18, "\7example\3org", 13) == 0);
	CHECK_EQ(r.r[3].type, DNS_T_NSEC);
	CHECK_EQ(r.r[3].rdlen, 18 + sizeof(bm));
	CHECK(memcmp(r.r[3].rdata + 18, bm, sizeof(bm)) == 0);
	CHECK_EQ(r.r[4].type, DNS_T_NSEC3PARAM);
	CHECK(memcmp(r.r[4].rdata, "\1\0\0\x0c\4\xaa\xbb\xcc\xdd", 9) == 0);
	CHECK_EQ(r.r[5].type, DNS_T_NSEC3);
	CHECK_EQ(r.r[5].rdata[9], 20);	/* the next hash's length */
	CHECK_EQ(r.r[6].type, DNS_T_CDS);
	CHECK_EQ(r.r[7].type, DNS_T_CDNSKEY);
	CHECK_EQ(r.r[8].rdlen, 5);	/* "-": no salt */
	CHECK_EQ(r.r[8].rdata[4], 0);
	dns_recs_free(&r);

	/* refusals name the record's fault */
	CHECK(parse1("$TTL 1\n@ DS 1 2 3 ABC\n", &r, why, sizeof(why)) < 0);
	CHECK(strstr(why, "t.zone:2: DS: bad hex") != NULL);
	dns_recs_free(&r);
	CHECK(parse1("$TTL 1\n@ DNSKEY 256 3 13 A*==\n", &r, why, sizeof(why)) < 0);
	CHECK(strstr(why, "base64") != NULL);
	dns_recs_free(&r);
	CHECK(parse1("$TTL 1\n@ NSEC a.example.org. A BOGUS\n", &r, why, sizeof(why)) < 0);
	CHECK(strstr(why, "NSEC: bad type") != NULL);
	dns_recs_free(&r);
	CHECK(parse1("$TTL 1\n@ NSEC3 1 0 0 - xyz A\n", &r, why, sizeof(why)) < 0);
	CHECK(strstr(why, "next hashed owner") != NULL);
	dns_recs_free(&r);
	CHECK(parse1("$TTL 1\n@ RRSIG A 13 2 300 2026 2025 1 example.org.\n", &r, why,
		     sizeof(why)) < 0);
	CHECK(strstr(why, "RRSIG: wrong number") != NULL);
	dns_recs_free(&r);
}

TFO_TEST(sha1_nsec3_hash)
{
	uint8_t h[20], n[DNS_NAME_MAX];
	char b32[40];
	struct dns_zone z = { .n3_iter = 12, .n3_salt_len = 4,
			      .n3_salt = { 0xaa, 0xbb, 0xcc, 0xdd } };
	int l;

	dns_sha1((const uint8_t *)"abc", 3, h);
	CHECK(memcmp(h, "\xa9\x99\x3e\x36\x47\x06\x81\x6a\xba\x3e\x25\x71\x78\x50\xc2\x6c"
		     "\x9c\xd0\xd8\x9d", 20) == 0);
	/* 56 bytes: the padding takes a second block */
	dns_sha1((const uint8_t *)"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		 56, h);
	CHECK(memcmp(h, "\x84\x98\x3e\x44\x1c\x3b\xd2\x6e\xba\xae\x4a\xa1\xf9\x51\x29\xe5"
		     "\xe5\x46\x70\xf1", 20) == 0);
	/* RFC 5155 appendix A: H(example) and H(a.example) */
	wire("example.", n);
	dns_nsec3_hash(&z, n, h);
	l = dns_b32hex_decode("0p9mhaveqvm6t7vbl5lop2u3t2rp3tom", 32, (uint8_t *)b32, 20);
	CHECK_EQ(l, 20);
	CHECK(memcmp(h, b32, 20) == 0);
	wire("a.example.", n);
	dns_nsec3_hash(&z, n, h);
	dns_b32hex_decode("35mthgpgcu1qg68fab165klnsnk3dpvl", 32, (uint8_t *)b32, 20);
	CHECK(memcmp(h, b32, 20) == 0);
}

TFO_TEST(canonical_order)
{
	/* RFC 4034 6.1's example, in order */
	static const char *const names[] = {
		"example.", "a.example.", "yljkjljk.a.example.", "Z.a.example.",
		"zABC.a.EXAMPLE.", "z.example.", "\\001.z.example.", "*.z.example.",
		"\\200.z.example.",
	};
	uint8_t a[DNS_NAME_MAX], b[DNS_NAME_MAX];

	for (unsigned int i = 0; i + 1 < sizeof(names) / sizeof(names[0]); i++) {
		wire(names[i], a);
		wire(names[i + 1], b);
		CHECK(dns_name_canon_cmp(a, b) < 0);
		CHECK(dns_name_canon_cmp(b, a) > 0);
		CHECK_EQ(dns_name_canon_cmp(a, a), 0);
	}
}

TFO_TEST(setup)
{
	struct tfo_service_kv kv[] = {
		{ "zone", "signed.example:" ZDIR "/signed.example.zone" },
		{ "zone", "signed3.example:" ZDIR "/signed3.example.zone" },
		{ "reload_drain", "1" },
	};
	struct tfo_service_args a = { .port = 53, .udp = true, .nb_kv = 3, .kv = kv,
				      .socket_id = 0 };

	tfo_test_eal_init("test_dns_sec", 256, NULL);
	svc = tfo_service_find("dns");
	REQUIRE(svc != NULL);
	REQUIRE(svc->create(&a, &st) == 0);
}

TFO_TEST(do0_unchanged)
{
	/* no EDNS, EDNS without DO: no signature, no proof */
	CHECK_EQ(ask(&udp_ctx, "www.signed.example.", DNS_T_A, 0, false), TFO_SVC_RESPOND);
	CHECK_EQ(cnt(1), 1);
	CHECK_EQ(cnt(2), 0);
	CHECK_EQ(ask(&udp_ctx, "nothere.signed.example.", DNS_T_A, 1232, false),
		 TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_NXDOMAIN);
	CHECK_EQ(cnt(2), 1);
	CHECK(!do_echoed());
	/* the DNSSEC types by name, as ordinary RRsets */
	CHECK_EQ(ask(&udp_ctx, "signed.example.", DNS_T_DNSKEY, 1232, false), TFO_SVC_RESPOND);
	decode();
	CHECK_EQ(count(1, DNS_T_DNSKEY, false), 2);
	CHECK_EQ(count(1, DNS_T_DNSKEY, true), 0);
	CHECK_EQ(ask(&udp_ctx, "www.signed.example.", DNS_T_NSEC, 0, false), TFO_SVC_RESPOND);
	decode();
	CHECK_EQ(count(1, DNS_T_NSEC, false), 1);
	CHECK_EQ(ask(&udp_ctx, "sub.signed.example.", DNS_T_DS, 0, false), TFO_SVC_RESPOND);
	decode();
	CHECK_EQ(count(1, DNS_T_DS, false), 1);
	/* qtype RRSIG: every signature at the name (as knotd), DO or not */
	CHECK_EQ(ask(&udp_ctx, "www.signed.example.", DNS_T_RRSIG, 0, false), TFO_SVC_RESPOND);
	decode();
	CHECK_EQ(cnt(1), 3);
	CHECK_EQ(count(1, DNS_T_A, true) + count(1, DNS_T_AAAA, true) +
		 count(1, DNS_T_NSEC, true), 3);
	/* hashed owners are not names of the zone */
	CHECK_EQ(ask(&udp_ctx, "signed3.example.", DNS_T_NSEC3PARAM, 0, false),
		 TFO_SVC_RESPOND);
	CHECK_EQ(cnt(1), 1);
}

TFO_TEST(do1_answer_and_cname)
{
	CHECK_EQ(ask(&udp_ctx, "WWW.signed.example.", DNS_T_A, 1232, true), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	decode();
	CHECK_EQ(count(1, DNS_T_A, false), 1);
	CHECK_EQ(count(1, DNS_T_A, true), 1);
	CHECK(do_echoed());
	/* a CNAME and its target, each signed */
	CHECK_EQ(ask(&udp_ctx, "alias.signed.example.", DNS_T_A, 1232, true), TFO_SVC_RESPOND);
	decode();
	CHECK_EQ(count(1, DNS_T_CNAME, true), 1);
	CHECK_EQ(count(1, DNS_T_A, true), 1);
	CHECK(do_echoed());
	/* the apex's DNSKEY with its signatures (KSK and ZSK sign it) */
	CHECK_EQ(ask(&tcp_ctx, "signed.example.", DNS_T_DNSKEY, 1232, true), TFO_SVC_RESPOND);
	decode();
	CHECK(count(1, DNS_T_DNSKEY, true) >= 1);
}

TFO_TEST(do1_nsec_denials)
{
	/* NXDOMAIN: SOA, the NSEC covering the name and the wildcard's */
	CHECK_EQ(ask(&udp_ctx, "nothere.signed.example.", DNS_T_A, 1232, true),
		 TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_NXDOMAIN);
	decode();
	CHECK_EQ(count(2, DNS_T_SOA, true), 1);
	CHECK(count(2, DNS_T_NSEC, false) >= 1);
	CHECK_EQ(count(2, DNS_T_NSEC, false), count(2, DNS_T_NSEC, true));
	CHECK(nsec_proves("nothere.signed.example.", false));
	CHECK(nsec_proves("*.signed.example.", false));
	/* NODATA: the owner's NSEC */
	CHECK_EQ(ask(&udp_ctx, "www.signed.example.", DNS_T_TXT, 1232, true), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	decode();
	CHECK_EQ(cnt(1), 0);
	CHECK(nsec_proves("www.signed.example.", true));
	CHECK_EQ(count(2, DNS_T_NSEC, true), 1);
	/* NODATA at an empty non-terminal: the NSEC covering it */
	CHECK_EQ(ask(&udp_ctx, "b.ent.signed.example.", DNS_T_A, 1232, true), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	decode();
	CHECK(nsec_proves("b.ent.signed.example.", false));
	/* a wildcard answer: the RRSIG's labels say so, an NSEC no closer match */
	CHECK_EQ(ask(&udp_ctx, "x.wild.signed.example.", DNS_T_A, 1232, true), TFO_SVC_RESPOND);
	decode();
	CHECK_EQ(count(1, DNS_T_A, true), 1);
	for (unsigned int i = 0; i < D.nb_rr; i++)
		if (D.rr[i].type == DNS_T_RRSIG && D.rr[i].section == 1)
			CHECK_EQ(D.rr[i].rd[3], 3);	/* wild.signed.example */
	CHECK(nsec_proves("x.wild.signed.example.", false));
	/* wildcard NODATA: the name covered, the wildcard's NSEC matched */
	CHECK_EQ(ask(&udp_ctx, "x.wild.signed.example.", DNS_T_MX, 1232, true),
		 TFO_SVC_RESPOND);
	decode();
	CHECK(nsec_proves("x.wild.signed.example.", false));
	CHECK(nsec_proves("*.wild.signed.example.", true));
}

TFO_TEST(do1_delegations)
{
	/* a signed delegation: NS, then DS and its RRSIG; glue unsigned */
	CHECK_EQ(ask(&udp_ctx, "host.sub.signed.example.", DNS_T_A, 1232, true),
		 TFO_SVC_RESPOND);
	CHECK(!(A.msg[2] & 0x04));
	decode();
	CHECK_EQ(count(2, DNS_T_NS, false), 1);
	CHECK_EQ(count(2, DNS_T_DS, false), 1);
	CHECK_EQ(count(2, DNS_T_DS, true), 1);
	CHECK_EQ(count(3, DNS_T_A, false), 1);
	CHECK_EQ(count(3, DNS_T_A, true), 0);
	/* an insecure one: the cut's NSEC proves there is no DS */
	CHECK_EQ(ask(&udp_ctx, "host.plain.signed.example.", DNS_T_A, 1232, true),
		 TFO_SVC_RESPOND);
	decode();
	CHECK_EQ(count(2, DNS_T_DS, false), 0);
	CHECK(nsec_proves("plain.signed.example.", true));
	/* the DS itself, from the parent, signed */
	CHECK_EQ(ask(&udp_ctx, "sub.signed.example.", DNS_T_DS, 1232, true), TFO_SVC_RESPOND);
	CHECK(A.msg[2] & 0x04);
	decode();
	CHECK_EQ(count(1, DNS_T_DS, true), 1);
	/* NSEC3: the cut's NSEC3 */
	CHECK_EQ(ask(&udp_ctx, "host.plain.signed3.example.", DNS_T_A, 1232, true),
		 TFO_SVC_RESPOND);
	decode();
	CHECK(nsec3_proves("plain.signed3.example.", true));
}

TFO_TEST(do1_nsec3_denials)
{
	/* NXDOMAIN: closest encloser matched, next closer and wildcard covered */
	CHECK_EQ(ask(&udp_ctx, "a.nothere.signed3.example.", DNS_T_A, 1232, true),
		 TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_NXDOMAIN);
	decode();
	CHECK_EQ(count(2, DNS_T_SOA, true), 1);
	CHECK_EQ(count(2, DNS_T_NSEC3, false), count(2, DNS_T_NSEC3, true));
	CHECK(count(2, DNS_T_NSEC3, false) >= 2);
	CHECK(nsec3_proves("signed3.example.", true));
	CHECK(nsec3_proves("nothere.signed3.example.", false));
	CHECK(nsec3_proves("*.signed3.example.", false));
	/* NODATA, at a name and at an empty non-terminal: their NSEC3 */
	CHECK_EQ(ask(&udp_ctx, "www.signed3.example.", DNS_T_TXT, 1232, true), TFO_SVC_RESPOND);
	decode();
	CHECK(nsec3_proves("www.signed3.example.", true));
	CHECK_EQ(ask(&udp_ctx, "ent.signed3.example.", DNS_T_TXT, 1232, true), TFO_SVC_RESPOND);
	decode();
	CHECK_EQ(rcode(), 0);
	CHECK(nsec3_proves("ent.signed3.example.", true));
	/* a wildcard answer: the next closer name covered */
	CHECK_EQ(ask(&udp_ctx, "x.y.wild.signed3.example.", DNS_T_A, 1232, true),
		 TFO_SVC_RESPOND);
	decode();
	CHECK_EQ(count(1, DNS_T_A, true), 1);
	CHECK(nsec3_proves("y.wild.signed3.example.", false));
	/* a hashed owner's name is no name of the zone: NXDOMAIN */
	CHECK_EQ(ask(&udp_ctx, "nothere.signed3.example.", DNS_T_A, 1232, true),
		 TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_NXDOMAIN);
}

TFO_TEST(do1_sizes)
{
	uint32_t full;

	/* the NSEC3 NXDOMAIN does not fit 512 bytes: TC=1 over UDP ... */
	CHECK_EQ(ask(&tcp_ctx, "a.nothere.signed3.example.", DNS_T_A, 512, true),
		 TFO_SVC_RESPOND);
	full = A.len;
	CHECK(!tc());
	CHECK(full > 512);
	CHECK_EQ(ask(&udp_ctx, "a.nothere.signed3.example.", DNS_T_A, 512, true),
		 TFO_SVC_RESPOND);
	CHECK(tc());
	CHECK_EQ(cnt(1) + cnt(2), 0);
	CHECK(do_echoed());
	/* ... and whole with a larger payload */
	CHECK_EQ(ask(&udp_ctx, "a.nothere.signed3.example.", DNS_T_A, 1232, true),
		 TFO_SVC_RESPOND);
	CHECK(!tc());
	CHECK_EQ(A.len, full);
}

/* A service over @p zones ("origin:file ..."), [tcp] max_request @p mr. */
static int
create(const char *zones, uint32_t mr, void **state)
{
	struct tfo_service_kv kv[] = { { "zone", zones } };
	struct tfo_service_args a = { .port = 53, .udp = true, .nb_kv = 1, .kv = kv,
				      .socket_id = 0, .max_request = mr };

	return svc->create(&a, state);
}

TFO_TEST(ds_from_the_parent)
{
	void *keep = st;

	/* the child served here too: DS still comes from the parent */
	REQUIRE(create("signed.example:" ZDIR "/signed.example.zone "
		       "sub.signed.example:" ZDIR "/sub.signed.example.zone", 8192, &st) == 0);
	CHECK_EQ(ask(&udp_ctx, "sub.signed.example.", DNS_T_DS, 1232, true), TFO_SVC_RESPOND);
	CHECK(A.msg[2] & 0x04);
	decode();
	CHECK_EQ(count(1, DNS_T_DS, true), 1);
	CHECK_EQ(ask(&udp_ctx, "host.sub.signed.example.", DNS_T_A, 1232, true), TFO_SVC_RESPOND);
	CHECK(A.msg[2] & 0x04);	/* the child answers with authority */
	decode();
	CHECK_EQ(count(1, DNS_T_A, true), 1);
	CHECK_EQ(ask(&udp_ctx, "sub.signed.example.", DNS_T_DNSKEY, 1232, true),
		 TFO_SVC_RESPOND);
	decode();
	CHECK(count(1, DNS_T_DNSKEY, false) >= 1);
	svc->destroy(st);
	st = keep;
}

TFO_TEST(tcp_buffer_sized_at_load)
{
	char path[] = "/tmp/tfo_dns_sec_XXXXXX", zones[128];
	void *keep = st;
	FILE *f;
	int fd = mkstemp(path);

	/* a wildcard answer is composed per query: 12 TXT of 250 bytes */
	REQUIRE(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "$TTL 60\n@ SOA ns h 1 2 3 4 5\n NS ns\nns A 198.18.0.2\n");
	for (int i = 0; i < 12; i++)
		fprintf(f, "*.w TXT \"%02d%0248d\"\n", i, 0);
	fclose(f);
	snprintf(zones, sizeof(zones), "example.org:%s", path);
	/* the engine's buffer would be 2048: refused, the fix named */
	CHECK_EQ(create(zones, 1024, &st), -E2BIG);
	/* large enough: the answer leaves whole over TCP, no SERVFAIL */
	REQUIRE(create(zones, 4096, &st) == 0);
	scratch_cap = 4096;
	CHECK_EQ(ask(&tcp_ctx, "x.w.example.org.", DNS_T_TXT, 0, false), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	CHECK_EQ(cnt(1), 12);
	CHECK(A.len > 3000);
	scratch_cap = 2048;
	svc->destroy(st);
	st = keep;
	unlink(path);
}

TFO_TEST(end)
{
	/* every proof above was written whole: nothing became SERVFAIL */
	for (unsigned int i = 0; svc->counters[i].name != NULL; i++)
		if (strcmp(svc->counters[i].name, "dns_rcode_servfail") == 0)
			CHECK_EQ(ctrs[i], 0);
	svc->destroy(st);
}

TFO_TEST_MAIN()
