/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the dns service's DNS COOKIEs (services/dns_cookie.c):
 * RFC 9018 Appendix A's cookies, the lengths RFC 7873 5.2.2 refuses,
 * the key file and its rotation, and the verdicts through handle().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tfo/service.h"

#include "../services/dns_cookie.h"
#include "../services/dns_query.h"
#include "../services/dns_wire.h"
#include "dns_decode.h"
#include "test.h"

#define ZDIR TFO_CONFIG_DIR "/../tests/dns"

static void
unhex(const char *s, uint8_t *b)
{
	for (size_t i = 0; s[2 * i] != '\0'; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			abort();
		b[i] = (uint8_t)v;
	}
}

/* RFC 9018 Appendix A: secret, client cookie, client address, time, the
 * server cookie it answers with */
static const struct {
	const char *secret, *cc;
	uint8_t ip[16];
	unsigned int ip_len;
	uint32_t now;
	const char *sc;
} vec[] = {
	{ "e5e973e5a6b2a43f48e7dc849e37bfcf", "2464c4abcf10c957",
	  { 198, 51, 100, 100 }, 4, 1559731985, "010000005cf79f111f8130c3eee29480" },
	{ "e5e973e5a6b2a43f48e7dc849e37bfcf", "2464c4abcf10c957",
	  { 198, 51, 100, 100 }, 4, 1559734385, "010000005cf7a871d4a564a1442aca77" },
	{ "e5e973e5a6b2a43f48e7dc849e37bfcf", "fc93fc62807ddb86",
	  { 203, 0, 113, 203 }, 4, 1559734700, "010000005cf7a9acf73a7810aca2381e" },
	{ "445536bcd2513298075a5d379663c962", "22681ab97d52c298",
	  { 0x20, 0x01, 0x0d, 0xb8, 0x02, 0x20, 0x00, 0x01, 0x59, 0xde, 0xd0, 0xf4,
	    0x87, 0x69, 0x82, 0xb8 }, 16, 1559741961, "010000005cf7c609a6bb79d16625507a" },
};

TFO_TEST(rfc9018_vectors)
{
	for (unsigned int i = 0; i < RTE_DIM(vec); i++) {
		uint8_t secret[16], cc[8], want[16], got[16];

		unhex(vec[i].secret, secret);
		unhex(vec[i].cc, cc);
		unhex(vec[i].sc, want);
		dns_cookie_make(secret, cc, vec[i].ip, vec[i].ip_len, vec[i].now, got);
		CHECK_MSG(memcmp(got, want, 16) == 0, "A.%u", i + 1);
	}
}

/* dns_cookie_check of option data @p hex from @p ip at @p now */
static enum dns_cookie_verdict
judge(const struct dns_cookie_keys *k, const char *hex, const uint8_t *ip,
      unsigned int ip_len, uint32_t now, uint8_t sc[16])
{
	static uint8_t c[64];
	struct dns_query q;

	memset(&q, 0, sizeof(q));
	unhex(hex, c);
	q.cookie = c;
	q.cookie_len = (uint8_t)(strlen(hex) / 2);
	return dns_cookie_check(k, &q, ip, ip_len, now, sc);
}

TFO_TEST(verdicts)
{
	struct dns_cookie_keys k = { .on = true };
	uint8_t sc[16], want[16];
	const uint8_t *ip1 = vec[0].ip, *ip3 = vec[2].ip, *ip6 = vec[3].ip;
	char hex[100];

	unhex("e5e973e5a6b2a43f48e7dc849e37bfcf", k.cur);
	/* A.1: a client cookie alone gets A.1's server cookie */
	CHECK_EQ(judge(&k, "2464c4abcf10c957", ip1, 4, 1559731985, sc), DNS_CK_CLIENT_ONLY);
	unhex(vec[0].sc, want);
	CHECK(memcmp(sc, want, 16) == 0);
	/* A.2: 40 minutes later it is valid and renewed (older than 30) */
	CHECK_EQ(judge(&k, "2464c4abcf10c957010000005cf79f111f8130c3eee29480", ip1, 4,
		       1559734385, sc), DNS_CK_VALID);
	unhex(vec[1].sc, want);
	CHECK(memcmp(sc, want, 16) == 0);
	/* a young valid cookie is echoed */
	CHECK_EQ(judge(&k, "2464c4abcf10c957010000005cf79f111f8130c3eee29480", ip1, 4,
		       1559731985 + 60, sc), DNS_CK_VALID);
	unhex(vec[0].sc, want);
	CHECK(memcmp(sc, want, 16) == 0);
	/* A.3: the client's reserved bytes are hashed as received; the
	 * example's query comes 1h52m after the cookie was made: out of
	 * time, and A.3's fresh cookie is the answer */
	CHECK_EQ(judge(&k, "fc93fc62807ddb8601abcdef5cf78f71a314227b6679ebf5", ip3, 4,
		       1559727985 + 100, sc), DNS_CK_VALID);
	CHECK_EQ(sc[1], 0);	/* not echoed: its reserved bytes are not 0 */
	CHECK_EQ(judge(&k, "fc93fc62807ddb8601abcdef5cf78f71a314227b6679ebf5", ip3, 4,
		       1559734700, sc), DNS_CK_BAD);
	unhex(vec[2].sc, want);
	CHECK(memcmp(sc, want, 16) == 0);
	/* ... and from another address it is not ours: a fresh one */
	CHECK_EQ(judge(&k, "fc93fc62807ddb8601abcdef5cf78f71a314227b6679ebf5", ip1, 4,
		       1559734700, sc), DNS_CK_BAD);
	CHECK_EQ(sc[0], 1);
	/* too old (> 1 hour), too far ahead (> 5 minutes) */
	CHECK_EQ(judge(&k, "2464c4abcf10c957010000005cf79f111f8130c3eee29480", ip1, 4,
		       1559731985 + 3601, sc), DNS_CK_BAD);
	CHECK_EQ(judge(&k, "2464c4abcf10c957010000005cf79f111f8130c3eee29480", ip1, 4,
		       1559731985 + 3600, sc), DNS_CK_VALID);
	CHECK_EQ(judge(&k, "2464c4abcf10c957010000005cf79f111f8130c3eee29480", ip1, 4,
		       1559731985 - 301, sc), DNS_CK_BAD);
	CHECK_EQ(judge(&k, "2464c4abcf10c957010000005cf79f111f8130c3eee29480", ip1, 4,
		       1559731985 - 300, sc), DNS_CK_VALID);
	/* forged: one bit of the hash */
	CHECK_EQ(judge(&k, "2464c4abcf10c957010000005cf79f111f8130c3eee29481", ip1, 4,
		       1559731985, sc), DNS_CK_BAD);
	/* another server's (8 or 32 bytes): not ours, a fresh one */
	CHECK_EQ(judge(&k, "2464c4abcf10c9570102030405060708", ip1, 4, 1559731985, sc),
		 DNS_CK_BAD);
	unhex(vec[0].sc, want);
	CHECK(memcmp(sc, want, 16) == 0);
	/* A.4: after the rollover the old secret's cookie is accepted while
	 * it is the previous one, and renewed with the new secret */
	unhex("445536bcd2513298075a5d379663c962", k.cur);
	CHECK_EQ(judge(&k, "22681ab97d52c298010000005cf7c57926556bd0934c72f8", ip6, 16,
		       1559741961, sc), DNS_CK_BAD);
	unhex("dd3bdf9344b678b185a6f5cb60fca715", k.prev);
	k.has_prev = true;
	CHECK_EQ(judge(&k, "22681ab97d52c298010000005cf7c57926556bd0934c72f8", ip6, 16,
		       1559741961, sc), DNS_CK_VALID);
	unhex(vec[3].sc, want);
	CHECK(memcmp(sc, want, 16) == 0);
	/* RFC 7873 5.2.2: 8, or 16..40 bytes */
	for (unsigned int len = 0; len <= 44; len++) {
		enum dns_cookie_verdict v;

		memset(hex, '1', 2 * len);
		hex[2 * len] = '\0';
		v = judge(&k, hex, ip1, 4, 1559731985, sc);
		if (len == 8)
			CHECK_EQ(v, DNS_CK_CLIENT_ONLY);
		else if (len >= 16 && len <= 40)
			CHECK_MSG(v == DNS_CK_BAD, "len %u", len);
		else
			CHECK_MSG(v == DNS_CK_FORMERR, "len %u", len);
	}
	/* off: nothing is judged */
	k.on = false;
	CHECK_EQ(judge(&k, "2464c4abcf10c957", ip1, 4, 1559731985, sc), DNS_CK_NONE);
}

static char kfile[] = "/tmp/dck_test_key_XXXXXX";

static void
kwrite(const char *text)
{
	FILE *f = fopen(kfile, "w");

	REQUIRE(f != NULL);
	fputs(text, f);
	fclose(f);
}

#define K1 "00112233-44556677-8899aabb-ccddeeff"
#define K2 "ffeeddcc-bbaa9988-77665544-33221100"

TFO_TEST(key_file)
{
	struct dns_cookie_keys a, b, c, d;
	char why[512];
	int fd = mkstemp(kfile);

	REQUIRE(fd >= 0);
	close(fd);
	kwrite(K1 "\n");
	CHECK_EQ(dns_cookie_file_read(kfile, NULL, &a, why, sizeof(why)), 0);
	CHECK(a.on && !a.has_prev);
	/* derived: never the key itself */
	unhex("00112233445566778899aabbccddeeff", b.cur);
	CHECK(memcmp(a.cur, b.cur, 16) != 0);
	/* PRIMARY,BACKUP: the backup's secret is accepted */
	kwrite(K2 "," K1 "\n");
	CHECK_EQ(dns_cookie_file_read(kfile, &a, &b, why, sizeof(why)), 0);
	CHECK(b.has_prev && memcmp(b.prev, a.cur, 16) == 0);
	/* a key alone is promoted: the running primary stays accepted */
	kwrite(K2);
	CHECK_EQ(dns_cookie_file_read(kfile, &a, &c, why, sizeof(why)), 0);
	CHECK(c.has_prev && memcmp(c.prev, a.cur, 16) == 0 &&
	      memcmp(c.cur, b.cur, 16) == 0);
	/* ... and read again, nothing changes */
	CHECK_EQ(dns_cookie_file_read(kfile, &c, &d, why, sizeof(why)), 0);
	CHECK(memcmp(&c, &d, sizeof(c)) == 0);
	/* refused */
	kwrite("0011223344");
	CHECK(dns_cookie_file_read(kfile, NULL, &d, why, sizeof(why)) < 0);
	CHECK_MSG(strstr(why, "key_file format") != NULL, "%s", why);
	kwrite(K1 "," K2 "," K1);
	CHECK(dns_cookie_file_read(kfile, NULL, &d, why, sizeof(why)) < 0);
	kwrite("");
	CHECK(dns_cookie_file_read(kfile, NULL, &d, why, sizeof(why)) < 0);
	CHECK(dns_cookie_file_read("/nonexistent/dck", NULL, &d, why, sizeof(why)) < 0);
	kwrite(K1 "\n");
}

/* ------------------------------------------------------------------ */
/* through handle()                                                    */

static const struct tfo_service *svc;
static void *on, *off;
static uint64_t ctrs[TFO_SVC_MAX_COUNTERS];
static struct tfo_svc_ctx udp_ctx = {
	.family = AF_INET, .transport = TFO_SVC_UDP, .dst_port = 53, .udp_max = 1472,
	.src_addr = { 198, 18, 0, 2 }, .counters = ctrs,
};
static struct tfo_svc_ctx tcp_ctx = {
	.family = AF_INET, .transport = TFO_SVC_TCP, .dst_port = 53,
	.src_addr = { 198, 18, 0, 2 }, .counters = ctrs,
};
static uint8_t scratch[2048];
static struct tdns_answer A;	/* the last answer */
static const uint8_t *msg = A.msg;	/* ... its message */

static unsigned int
ctr(const char *name)
{
	for (unsigned int i = 0; svc->counters[i].name != NULL; i++)
		if (strcmp(svc->counters[i].name, name) == 0)
			return (unsigned int)ctrs[i];
	CHECK_MSG(false, "no counter %s", name);
	return 0;
}

/* www.example.org A with EDNS and a COOKIE option of @p clen bytes @p c */
static void
query(void *state, const struct tfo_svc_ctx *ctx, const uint8_t *c, unsigned int clen)
{
	struct tdns_qopt o = { .edns = true, .payload = 1232 };
	unsigned int pre = ctx->transport == TFO_SVC_TCP ? 2 : 0;
	uint8_t b[200], *p = b + pre;
	uint32_t n = tdns_query(p, "www.example.org.", DNS_T_A, &o);

	/* the option in the OPT, the last record: its RDLENGTH grows */
	p[n - 1] = (uint8_t)(clen + 4);
	p[n + 1] = DNS_OPT_COOKIE;
	p[n] = 0;
	p[n + 2] = 0;
	p[n + 3] = (uint8_t)clen;
	memcpy(p + n + 4, c, clen);
	n += 4 + clen;
	if (pre) {
		b[0] = (uint8_t)(n >> 8);
		b[1] = (uint8_t)n;
	}
	REQUIRE(tdns_call(svc, state, ctx, b, n + pre, scratch, sizeof(scratch), &A) ==
		TFO_SVC_RESPOND);
	REQUIRE(A.r.body == NULL);
}

/* the answer's rcode with the OPT's extended bits; its COOKIE in @p c
 * (@return its length, 0: none) */
static unsigned int
answer(unsigned int *rcode, uint8_t *c)
{
	static struct tdns_msg d;
	const struct tdns_rr *opt;

	*rcode = A.msg[3] & 0x0f;
	CHECK(A.msg[11] >= 1);
	CHECK(tdns_decode(A.msg, A.len, &d) == 0);
	/* the OPT is the last record */
	opt = d.nb_rr > 0 ? &d.rr[d.nb_rr - 1] : NULL;
	CHECK_MSG(opt != NULL && opt->type == DNS_T_OPT && opt->section == 3, "no OPT");
	if (opt == NULL || opt->type != DNS_T_OPT)
		return 0;
	*rcode |= (opt->ttl >> 24) << 4;
	for (unsigned int p = 0; p + 4 <= opt->rdlen; ) {
		unsigned int code = (unsigned int)(opt->rd[p] << 8 | opt->rd[p + 1]);
		unsigned int l = (unsigned int)(opt->rd[p + 2] << 8 | opt->rd[p + 3]);

		if (code == DNS_OPT_COOKIE) {
			memcpy(c, opt->rd + p + 4, l);
			return l;
		}
		p += 4 + l;
	}
	return 0;
}

TFO_TEST(service)
{
	struct tfo_service_kv kv[] = {
		{ "zone", "example.org:" ZDIR "/example.org.zone" },
		{ "cookies", "on" },
		{ "cookie_secret_file", kfile },
	};
	struct tfo_service_args a = { .port = 53, .udp = true, .nb_kv = 3, .kv = kv };
	uint8_t cc[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, c[64], got[64], bogus[24];
	unsigned int rc, l, v0;
	char why[256];

	tfo_test_eal_init("test_dns_cookie", 256, NULL);
	svc = tfo_service_find("dns");
	REQUIRE(svc != NULL);
	/* on without a secret is refused, as the configuration check does */
	a.nb_kv = 2;
	CHECK(svc->check(&a, why, sizeof(why)) < 0);
	CHECK_MSG(strstr(why, "cookie_secret_file") != NULL, "%s", why);
	a.nb_kv = 3;
	CHECK_EQ(svc->check(&a, why, sizeof(why)), 0);
	REQUIRE(svc->create(&a, &on) == 0);
	kv[1].value = "off";
	REQUIRE(svc->create(&a, &off) == 0);

	/* a client cookie alone: NOERROR, the answer, our cookie */
	query(on, &udp_ctx, cc, 8);
	l = answer(&rc, got);
	CHECK_EQ(rc, DNS_R_NOERROR);
	CHECK(msg[7] >= 1);
	CHECK_EQ(l, 24);
	CHECK(memcmp(got, cc, 8) == 0 && got[8] == 1);
	CHECK_EQ(ctr("dns_cookie_client_only"), 1);
	/* sent back: valid, echoed, counted (the RRL's verdict) */
	v0 = ctr("dns_cookie_valid");
	query(on, &udp_ctx, got, 24);
	l = answer(&rc, c);
	CHECK_EQ(rc, DNS_R_NOERROR);
	CHECK(l == 24 && memcmp(c, got, 24) == 0);
	CHECK_EQ(ctr("dns_cookie_valid"), v0 + 1);
	/* from another address it does not verify: over UDP BADCOOKIE (23)
	 * with a fresh cookie and no answer, over TCP the answer */
	udp_ctx.src_addr[3] = 3;
	query(on, &udp_ctx, got, 24);
	l = answer(&rc, c);
	udp_ctx.src_addr[3] = 2;
	CHECK_EQ(rc, DNS_R_BADCOOKIE);
	CHECK_EQ(msg[7], 0);
	CHECK(l == 24 && memcmp(c, cc, 8) == 0 && memcmp(c + 8, got + 8, 16) != 0);
	CHECK_EQ(ctr("dns_cookie_bad"), 1);
	CHECK_EQ(ctr("dns_rcode_badcookie"), 1);
	/* a forged one (this client's address, a wrong hash) */
	memcpy(bogus, got, 24);
	bogus[23] ^= 1;
	query(on, &tcp_ctx, bogus, 24);
	l = answer(&rc, c);
	CHECK_EQ(rc, DNS_R_NOERROR);
	CHECK(msg[7] >= 1);
	CHECK(l == 24 && memcmp(c + 8, bogus + 8, 16) != 0);
	CHECK_EQ(ctr("dns_cookie_bad"), 2);
	/* the fresh one it gave is valid */
	query(on, &udp_ctx, c, 24);
	CHECK_EQ(ctr("dns_cookie_valid"), v0 + 2);
	/* bad lengths: FORMERR with our OPT, no cookie */
	query(on, &udp_ctx, got, 5);
	CHECK_EQ(answer(&rc, c), 0);
	CHECK_EQ(rc, DNS_R_FORMERR);
	memset(c, 7, sizeof(c));
	query(on, &tcp_ctx, c, 41);
	CHECK_EQ(answer(&rc, got), 0);
	CHECK_EQ(rc, DNS_R_FORMERR);
	CHECK_EQ(ctr("dns_cookie_formerr"), 2);
	/* cookies = off: the option is ignored, whatever its length */
	query(off, &udp_ctx, c, 41);
	CHECK_EQ(answer(&rc, got), 0);
	CHECK_EQ(rc, DNS_R_NOERROR);
	query(off, &udp_ctx, cc, 8);
	CHECK_EQ(answer(&rc, got), 0);
	CHECK_EQ(ctr("dns_cookie_client_only"), 1);
}

/*
 * With RRL on, a query whose server cookie verifies is not limited (its
 * source is proven: RFC 7873 section 5.3's point), while the same client
 * without one is: the flag dns_cookie_check sets is the one RRL reads.
 */
TFO_TEST(rrl_spares_valid_cookies)
{
	struct tfo_service_kv kv[] = {
		{ "zone", "example.org:" ZDIR "/example.org.zone" },
		{ "cookies", "on" },
		{ "cookie_secret_file", kfile },
		{ "rate_limit", "1" },
		{ "rate_limit_burst", "1" },
		{ "slip", "1" },
	};
	struct tfo_service_args a = { .port = 53, .udp = true, .nb_kv = 6, .kv = kv };
	uint8_t cc[8] = { 8, 7, 6, 5, 4, 3, 2, 1 }, got[64], c[64];
	unsigned int rc, l, tc = 0, lim0;
	void *st;

	/* the EAL and svc: the service case, before this one */
	REQUIRE(svc != NULL);
	REQUIRE(svc->create(&a, &st) == 0);
	udp_ctx.src_addr[3] = 9;	/* a prefix of its own */
	query(st, &udp_ctx, cc, 8);
	l = answer(&rc, got);
	REQUIRE(l == 24);
	lim0 = ctr("dns_rrl_limited");
	for (unsigned int i = 0; i < 20; i++) {
		query(st, &udp_ctx, got, 24);
		l = answer(&rc, c);
		tc += (msg[2] & 0x02) != 0;
		CHECK(rc == DNS_R_NOERROR && msg[7] >= 1 && l == 24);
	}
	CHECK_EQ(tc, 0);
	CHECK_EQ(ctr("dns_rrl_limited"), lim0);
	/* the same client, a client cookie alone: limited (TC slips) */
	for (unsigned int i = 0; i < 20; i++) {
		query(st, &udp_ctx, cc, 8);
		tc += (msg[2] & 0x02) != 0;
	}
	CHECK(tc >= 18);
	CHECK(ctr("dns_rrl_limited") >= lim0 + 18);
	udp_ctx.src_addr[3] = 2;
	svc->destroy(st);
}

TFO_TEST(rotation_on_reload)
{
	uint8_t cc[8] = { 8, 7, 6, 5, 4, 3, 2, 1 }, got[64], c[64];
	unsigned int rc, v0;
	char m[512];

	query(on, &udp_ctx, cc, 8);
	REQUIRE(answer(&rc, got) == 24);
	/* promoted: K2 makes, K1's cookie still verifies */
	kwrite(K2);
	REQUIRE(svc->reload(on, m, sizeof(m)) == 1);
	CHECK_MSG(strstr(m, "cookies made with key ") != NULL, "%s", m);
	v0 = ctr("dns_cookie_valid");
	query(on, &udp_ctx, got, 24);
	CHECK_EQ(answer(&rc, c), 24);
	CHECK_EQ(rc, DNS_R_NOERROR);
	CHECK_EQ(ctr("dns_cookie_valid"), v0 + 1);
	/* ... renewed with K2's secret: not the one sent */
	CHECK(memcmp(c + 8, got + 8, 16) != 0);
	/* K2,K3: K1 is gone */
	kwrite(K2 ",aaaaaaaa-bbbbbbbb-cccccccc-dddddddd");
	usleep(1100 * 1000);
	svc->reclaim(on, NULL, NULL);
	REQUIRE(svc->reload(on, m, sizeof(m)) == 1);
	query(on, &udp_ctx, got, 24);
	answer(&rc, c);
	CHECK_EQ(rc, DNS_R_BADCOOKIE);
	/* an unreadable file keeps the running set */
	kwrite("nonsense");
	usleep(1100 * 1000);
	svc->reclaim(on, NULL, NULL);
	CHECK(svc->reload(on, m, sizeof(m)) < 0);
	CHECK_MSG(strstr(m, "cookie_secret_file") != NULL, "%s", m);
	svc->destroy(on);
	svc->destroy(off);
	unlink(kfile);
}

TFO_TEST_MAIN()
