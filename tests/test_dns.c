/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the dns service: master file parsing and its refusals,
 * and every kind of answer through handle(), over TCP and UDP contexts.
 * Queries are handed over in buffers of exactly their length (ASan).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tfo/service.h"

#include "../services/dns_load.h"
#include "../services/dns_wire.h"
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
static uint8_t scratch[2048];
static struct tdns_answer A;	/* the last answer */
static struct tdns_msg D;	/* ... decoded (decode()) */

static enum tfo_svc_status
call(const struct tfo_svc_ctx *ctx, const uint8_t *req, uint32_t len)
{
	return tdns_call(svc, st, ctx, req, len, scratch, sizeof(scratch), &A);
}

static enum tfo_svc_status
ask(const struct tfo_svc_ctx *ctx, const char *name, uint16_t qtype,
    const struct tdns_qopt *o)
{
	return tdns_ask(svc, st, ctx, name, qtype, o, scratch, sizeof(scratch), &A);
}

static unsigned int rcode(void) { return A.msg[3] & 0x0f; }
static bool aa(void) { return (A.msg[2] & 0x04) != 0; }
static bool tc(void) { return (A.msg[2] & 0x02) != 0; }
static unsigned int cnt(int i) { return (unsigned int)(A.msg[4 + 2 * i] << 8 | A.msg[5 + 2 * i]); }

/* Every record of the last answer into D; the question's name in @p qn. */
static void
decode(char *qn)
{
	CHECK(tdns_decode(A.msg, A.len, &D) == 0);
	if (qn != NULL)
		strcpy(qn, D.qname);
}

/* ------------------------------------------------------------------ */
/* zone files                                                          */

static int
parse(const char *text, char *why, size_t whylen)
{
	struct dns_recs recs = { 0 };
	uint8_t origin[DNS_NAME_MAX];
	int rc;

	dns_name_from_text("example.org.", 12, NULL, origin);
	rc = dns_zparse_text(text, strlen(text), "t.zone", origin, &recs, why, whylen);
	dns_recs_free(&recs);
	return rc;
}

TFO_TEST(setup)
{
	struct tfo_service_kv kv[] = {
		{ "zone", "example.org:" ZDIR "/example.org.zone" },
		{ "zone", "example.net:" ZDIR "/example.net.zone" },
		{ "reload_drain", "1" },
	};
	struct tfo_service_args a = { .port = 53, .udp = true, .nb_kv = 3, .kv = kv,
				      .socket_id = 0 };

	tfo_test_eal_init("test_dns", 256, NULL);
	svc = tfo_service_find("dns");
	REQUIRE(svc != NULL);
	CHECK(svc->udp_ok);
	CHECK_EQ(svc->create(&a, &st), 0);
	REQUIRE(st != NULL);
	for (unsigned int i = 0; svc->counters[i].name != NULL; i++)
		CHECK(strncmp(svc->counters[i].name, "dns_", 4) == 0);
}

TFO_TEST(zparse_accepts)
{
	struct dns_recs recs = { 0 };
	uint8_t origin[DNS_NAME_MAX];
	char why[256] = "";
	const char *t =
		"$ORIGIN example.org.\n$TTL 1h\n"
		"@ IN SOA a b ( 1 ; serial\n 2 3 4 5 )\n"
		"  NS ns\n"
		"x 60 IN A 198.18.0.1\n"
		"x IN 70 TXT \"a;b\" c\\059d \"\\\"q\\\"\"\n"
		"$ORIGIN sub.example.org.\n"
		"y CAA 128 tag \"v\"\n"
		"z MX 10 mail.example.org.\n";

	dns_name_from_text("example.org.", 12, NULL, origin);
	CHECK_EQ(dns_zparse_text(t, strlen(t), "t.zone", origin, &recs, why, sizeof(why)), 0);
	CHECK_MSG(recs.n == 6, "%u records: %s", recs.n, why);
	if (recs.n < 6)
		goto out;
	CHECK_EQ(recs.r[0].type, DNS_T_SOA);
	CHECK_EQ(recs.r[0].ttl, 3600);
	CHECK_EQ(recs.r[0].line, 3);
	CHECK_EQ(recs.r[1].type, DNS_T_NS);	/* owner repeated */
	CHECK(recs.r[1].owner[0] == 0 || recs.r[1].owner[0] == 7);
	CHECK_EQ(recs.r[2].ttl, 60);
	CHECK_EQ(recs.r[3].ttl, 70);
	/* three strings: "a;b", "c;d", "\"q\"" */
	CHECK_EQ(recs.r[3].rdlen, 4 + 4 + 4);
	CHECK(memcmp(recs.r[3].rdata, "\3a;b\3c;d\3\"q\"", 12) == 0);
	CHECK_EQ(recs.r[4].type, DNS_T_CAA);
	CHECK(memcmp(recs.r[4].owner, "\1y\3sub\7example\3org", 19) == 0);
	CHECK_EQ(recs.r[5].rdlen, 2 + 18);
out:
	dns_recs_free(&recs);
}

TFO_TEST(zparse_refuses)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "$TTL 60\nx IN LOC 1 2 3\n", "t.zone:2: type LOC not served" },
		{ "$TTL 60\nx CH A 198.18.0.1\n", "t.zone:2: class CH" },
		{ "$TTL 60\nx.example.com. A 198.18.0.1\n", "t.zone:2: owner x.example.com. is outside" },
		{ "$INCLUDE other\n", "t.zone:1: directive not supported" },
		{ "x A 198.18.0.1\n", "t.zone:1: no TTL" },
		{ "$TTL 60\n\nx A 198.18.0.300\n", "t.zone:3: bad address" },
		{ "$TTL 60\nx ( A\n198.18.0.1\n", "unbalanced '('" },
		{ "$TTL 60\nx MX 70000 y\n", "t.zone:2: bad MX" },
		{ "$TTL 1h30\n", "bad $TTL" },
		{ "$TTL 60\nx TXT \"open\n", "unterminated quote" },
		{ "$TTL 60\nx SRV 1 2 y\n", "wrong number of fields" },
		{ " A 198.18.0.1\n", "no owner yet" },
	};
	char why[256];

	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		why[0] = '\0';
		CHECK_EQ(parse(bad[i].text, why, sizeof(why)), -EINVAL);
		CHECK_MSG(strstr(why, bad[i].want) != NULL, "%u: '%s', want '%s'", i, why,
			  bad[i].want);
	}
}

/* Zone checks of the build: CNAME and other data, SOA. */
TFO_TEST(zone_refuses)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "$TTL 60\n@ SOA a b 1 2 3 4 5\nx CNAME y\nx A 198.18.0.1\n",
		  "t.zone:3: x.example.org.: CNAME and other data" },
		{ "$TTL 60\n@ NS a\n", "no SOA at the zone's apex" },
		{ "$TTL 60\n@ SOA a b 1 2 3 4 5\nx SOA a b 1 2 3 4 5\n", "SOA outside" },
	};
	uint8_t origins[1][DNS_NAME_MAX];
	const char *files[] = { "t.zone" };

	dns_name_from_text("example.org.", 12, NULL, origins[0]);
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		struct dns_recs recs = { 0 };
		struct dns_set *s = NULL;
		char why[256] = "";

		CHECK_EQ(dns_zparse_text(bad[i].text, strlen(bad[i].text), "t.zone",
					 origins[0], &recs, why, sizeof(why)), 0);
		CHECK(dns_set_build(&recs, (const uint8_t (*)[DNS_NAME_MAX])origins, 1, 0,
				    1232, &s, why, sizeof(why), files) < 0);
		CHECK(s == NULL);
		CHECK_MSG(strstr(why, bad[i].want) != NULL, "%u: '%s'", i, why);
		dns_recs_free(&recs);
	}
}

TFO_TEST(exact_case_echoed)
{
	char qn[300];

	CHECK_EQ(ask(&tcp_ctx, "WwW.ExAmple.ORG.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	CHECK(aa());
	CHECK_EQ(A.msg[0], 0x12);
	CHECK_EQ(A.msg[1], 0x34);
	CHECK(A.msg[2] & 0x80);
	CHECK(A.msg[2] & 0x01);	/* RD copied */
	CHECK_EQ(cnt(1), 2);
	decode(qn);
	CHECK(strcmp(qn, "WwW.ExAmple.ORG.") == 0);
	/* owners point at the question; RRs sorted by rdata */
	CHECK_EQ(A.msg[D.rr[0].owner_off], 0xc0);
	CHECK_EQ(A.msg[D.rr[0].owner_off + 1], 12);
	CHECK(strcmp(D.rr[0].name, "WwW.ExAmple.ORG.") == 0);
	CHECK(memcmp(D.rr[0].rd, "\xc6\x12\x35\x50", 4) == 0);
	CHECK(memcmp(D.rr[1].rd, "\xc6\x12\x35\x51", 4) == 0);
	CHECK_EQ(D.rr[0].ttl, 3600);
	CHECK_EQ(A.r.status, 0);
	CHECK_EQ(A.r.consumed, 2 + 12 + 17 + 4);
}

TFO_TEST(nodata_nxdomain_ent)
{
	CHECK_EQ(ask(&tcp_ctx, "www.example.org.", DNS_T_MX, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	CHECK(aa());
	CHECK_EQ(cnt(1), 0);
	CHECK_EQ(cnt(2), 1);
	decode(NULL);
	CHECK_EQ(D.rr[0].type, DNS_T_SOA);
	CHECK_EQ(D.rr[0].ttl, 300);	/* min(TTL, MINIMUM) */
	CHECK(strcmp(D.rr[0].name, "example.org.") == 0);

	CHECK_EQ(ask(&udp_ctx, "nope.example.org.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_NXDOMAIN);
	CHECK(aa());
	CHECK_EQ(cnt(2), 1);
	CHECK_EQ(A.r.status, DNS_R_NXDOMAIN);
	/* an empty non-terminal exists: NODATA */
	CHECK_EQ(ask(&udp_ctx, "c.ent.example.org.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	CHECK_EQ(cnt(1), 0);
	CHECK_EQ(cnt(2), 1);
	CHECK_EQ(ask(&udp_ctx, "a.b.c.ent.example.org.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(cnt(1), 1);
}

TFO_TEST(cname)
{
	CHECK_EQ(ask(&tcp_ctx, "chain.example.org.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	CHECK_EQ(cnt(1), 4);
	decode(NULL);
	CHECK_EQ(D.rr[0].type, DNS_T_CNAME);
	CHECK(strcmp(D.rr[0].name, "chain.example.org.") == 0);
	CHECK(strcmp(D.rr[1].name, "alias.example.org.") == 0);
	CHECK(strcmp(D.rr[2].name, "www.example.org.") == 0);
	CHECK_EQ(D.rr[3].type, DNS_T_A);
	/* the CNAME itself */
	CHECK_EQ(ask(&tcp_ctx, "alias.example.org.", DNS_T_CNAME, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(cnt(1), 1);
	/* out of the zone: the CNAME only */
	CHECK_EQ(ask(&tcp_ctx, "outside.example.org.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	CHECK_EQ(cnt(1), 1);
	/* to nothing: NXDOMAIN with the CNAME */
	CHECK_EQ(ask(&tcp_ctx, "deadend.example.org.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_NXDOMAIN);
	CHECK_EQ(cnt(1), 1);
	CHECK_EQ(cnt(2), 1);
}

TFO_TEST(wildcard)
{
	CHECK_EQ(ask(&udp_ctx, "Foo.wild.example.org.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	CHECK(aa());
	CHECK_EQ(cnt(1), 1);
	decode(NULL);
	CHECK(strcmp(D.rr[0].name, "Foo.wild.example.org.") == 0);
	CHECK(memcmp(D.rr[0].rd, "\xc6\x12\x35\x63", 4) == 0);
	/* deeper names match too (RFC 4592 3.3.1) */
	CHECK_EQ(ask(&udp_ctx, "a.b.wild.example.org.", DNS_T_TXT, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(cnt(1), 1);
	/* NODATA at a wildcard */
	CHECK_EQ(ask(&udp_ctx, "a.wild.example.org.", DNS_T_MX, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	CHECK_EQ(cnt(1), 0);
	CHECK_EQ(cnt(2), 1);
	/* the wildcard's parent itself is an empty non-terminal */
	CHECK_EQ(ask(&udp_ctx, "wild.example.org.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	CHECK_EQ(cnt(1), 0);
}

TFO_TEST(referral_glue)
{
	CHECK_EQ(ask(&udp_ctx, "host.sub.example.org.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	CHECK(!aa());
	CHECK_EQ(cnt(1), 0);
	CHECK_EQ(cnt(2), 2);
	CHECK_EQ(cnt(3), 1);
	decode(NULL);
	CHECK_EQ(D.rr[0].type, DNS_T_NS);
	CHECK(strcmp(D.rr[2].name, "ns.sub.example.org.") == 0);
	CHECK_EQ(ask(&udp_ctx, "sub.example.org.", DNS_T_NS, NULL), TFO_SVC_RESPOND);
	CHECK(!aa());
	CHECK_EQ(cnt(2), 2);
	/* DS: the parent's (NODATA here) */
	CHECK_EQ(ask(&udp_ctx, "sub.example.org.", DNS_T_DS, NULL), TFO_SVC_RESPOND);
	CHECK(aa());
	CHECK_EQ(cnt(2), 1);
}

TFO_TEST(additional)
{
	CHECK_EQ(ask(&udp_ctx, "example.org.", DNS_T_MX, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(cnt(1), 1);
	CHECK_EQ(cnt(3), 1);
	decode(NULL);
	CHECK(strcmp(D.rr[1].name, "mail.example.org.") == 0);
	CHECK_EQ(D.rr[1].ttl, 300);
	CHECK_EQ(ask(&udp_ctx, "example.org.", DNS_T_NS, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(cnt(1), 2);
	CHECK_EQ(cnt(3), 3);	/* ns1 A, ns1 AAAA, ns2 A */
	CHECK_EQ(ask(&udp_ctx, "_sip._tcp.example.org.", DNS_T_SRV, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(cnt(1), 1);
	CHECK_EQ(cnt(3), 1);
}

TFO_TEST(errors)
{
	struct tdns_qopt o = { .opcode = 2 };
	uint8_t q[64];
	uint32_t n;

	CHECK_EQ(ask(&udp_ctx, "www.example.com.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_REFUSED);
	CHECK(!aa());
	CHECK_EQ(cnt(0), 1);
	CHECK_EQ(ask(&udp_ctx, "www.example.org.", DNS_T_A, &o), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_NOTIMP);
	CHECK_EQ((A.msg[2] >> 3) & 0xf, 2);
	CHECK_EQ(ask(&tcp_ctx, "example.org.", DNS_T_AXFR, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_REFUSED);
	CHECK_EQ(ask(&tcp_ctx, "example.org.", DNS_T_IXFR, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_REFUSED);
	o = (struct tdns_qopt){ .qdcount = 2 };
	CHECK_EQ(ask(&udp_ctx, "www.example.org.", DNS_T_A, &o), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_FORMERR);
	/* a question cut short: FORMERR without it */
	n = tdns_query(q, "www.example.org.", DNS_T_A, NULL);
	CHECK_EQ(call(&udp_ctx, q, n - 3), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_FORMERR);
	CHECK_EQ(A.len, DNS_HDR);
	CHECK_EQ(cnt(0), 0);
	/* a response, or less than a header: no answer */
	q[2] |= 0x80;
	CHECK_EQ(call(&udp_ctx, q, n), TFO_SVC_REJECT);
	CHECK_EQ(call(&udp_ctx, q, 5), TFO_SVC_REJECT);
	/* compressed question name */
	n = tdns_query(q, "www.example.org.", DNS_T_A, NULL);
	q[DNS_HDR] = 0xc0;
	CHECK_EQ(call(&udp_ctx, q, n), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_FORMERR);
}

TFO_TEST(any_minimal)
{
	CHECK_EQ(ask(&tcp_ctx, "www.example.org.", DNS_T_ANY, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	CHECK_EQ(cnt(1), 2);
	decode(NULL);
	CHECK_EQ(D.rr[0].type, DNS_T_A);
	CHECK_EQ(D.rr[1].type, DNS_T_A);
	CHECK_EQ(ask(&tcp_ctx, "info.example.org.", DNS_T_ANY, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(cnt(1), 1);
	decode(NULL);
	CHECK_EQ(D.rr[0].type, DNS_T_HINFO);
}

TFO_TEST(edns)
{
	struct tdns_qopt o = { .edns = true, .payload = 4096, .do_bit = true };

	CHECK_EQ(ask(&udp_ctx, "www.example.org.", DNS_T_A, &o), TFO_SVC_RESPOND);
	CHECK_EQ(cnt(3), 1);
	decode(NULL);
	CHECK_EQ(D.rr[2].type, DNS_T_OPT);
	CHECK(strcmp(D.rr[2].name, ".") == 0);
	CHECK_EQ(A.msg[A.len - 11 + 3], 1232 >> 8);	/* our payload size */
	CHECK_EQ(A.msg[A.len - 11 + 4], 1232 & 0xff);
	CHECK_EQ(A.msg[A.len - 11 + 7], 0x80);	/* DO echoed */
	o.version = 1;
	CHECK_EQ(ask(&udp_ctx, "www.example.org.", DNS_T_A, &o), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	CHECK_EQ(cnt(1), 0);
	CHECK_EQ(A.msg[A.len - 11 + 5], 1);	/* extended rcode: BADVERS */
	CHECK_EQ(A.r.status, DNS_R_BADVERS);
}

TFO_TEST(udp_truncation)
{
	struct tdns_qopt o = { .edns = true, .payload = 4096 };

	/* 16 TXT of ~100 bytes: more than 512 and than 1232 */
	CHECK_EQ(ask(&udp_ctx, "big.example.org.", DNS_T_TXT, NULL), TFO_SVC_RESPOND);
	CHECK(tc());
	CHECK_EQ(cnt(1), 0);
	CHECK(A.len <= 512);
	CHECK_EQ(ask(&udp_ctx, "big.example.org.", DNS_T_TXT, &o), TFO_SVC_RESPOND);
	CHECK(tc());
	CHECK_EQ(cnt(3), 1);	/* the OPT */
	/* over TCP whole, without a copy */
	CHECK_EQ(ask(&tcp_ctx, "big.example.org.", DNS_T_TXT, NULL), TFO_SVC_RESPOND);
	CHECK(!tc());
	CHECK_EQ(cnt(1), 16);
	CHECK(A.r.body != NULL);
	decode(NULL);
	/* DO asked: copied, so that the OPT echoes it */
	o.do_bit = true;
	CHECK_EQ(ask(&tcp_ctx, "big.example.org.", DNS_T_TXT, &o), TFO_SVC_RESPOND);
	CHECK(A.r.body == NULL);
	CHECK_EQ(A.msg[A.len - 11 + 7], 0x80);
	o.do_bit = false;
	/* the engine's limit wins over the client's */
	udp_ctx.udp_max = 100;
	CHECK_EQ(ask(&udp_ctx, "example.org.", DNS_T_NS, &o), TFO_SVC_RESPOND);
	CHECK(A.len <= 100);
	udp_ctx.udp_max = 1472;
	/* the additional section goes first, without TC */
	o.payload = 512;
	CHECK_EQ(ask(&udp_ctx, "example.org.", DNS_T_NS, &o), TFO_SVC_RESPOND);
	CHECK(!tc());
}

TFO_TEST(tcp_framing_keepalive)
{
	uint8_t q[400];
	uint32_t n1, n2;
	struct tdns_qopt o = { .edns = true, .payload = 1232, .keepalive = true };

	n1 = tdns_query(q + 2, "www.example.org.", DNS_T_A, NULL);
	q[0] = 0;
	q[1] = (uint8_t)n1;
	n2 = tdns_query(q + 2 + n1 + 2, "mail.example.org.", DNS_T_A, NULL);
	q[2 + n1] = 0;
	q[2 + n1 + 1] = (uint8_t)n2;
	/* two queries in one segment: the first answered, then the second */
	CHECK_EQ(call(&tcp_ctx, q, n1 + n2 + 4), TFO_SVC_RESPOND);
	CHECK_EQ(A.r.consumed, n1 + 2);
	CHECK_EQ(cnt(1), 2);
	CHECK(!A.r.close);
	CHECK_EQ(A.r.idle_ms, 10000);
	CHECK_EQ(call(&tcp_ctx, q + A.r.consumed, n2 + 2), TFO_SVC_RESPOND);
	CHECK_EQ(cnt(1), 1);
	/* incomplete: the length, then part of the message */
	CHECK_EQ(call(&tcp_ctx, q, 1), TFO_SVC_NEED_MORE);
	CHECK_EQ(call(&tcp_ctx, q, n1 + 1), TFO_SVC_NEED_MORE);
	/* edns-tcp-keepalive: our idle timeout in 100 ms units */
	CHECK_EQ(ask(&tcp_ctx, "www.example.org.", DNS_T_A, &o), TFO_SVC_RESPOND);
	decode(NULL);
	CHECK_EQ(D.rr[2].type, DNS_T_OPT);
	CHECK_EQ(D.rr[2].rdlen, 6);
	CHECK(memcmp(D.rr[2].rd, "\x00\x0b\x00\x02\x00\x64", 6) == 0);
	/* not over UDP (RFC 7828 3.2.1) */
	CHECK_EQ(ask(&udp_ctx, "www.example.org.", DNS_T_A, &o), TFO_SVC_RESPOND);
	decode(NULL);
	CHECK_EQ(D.rr[2].rdlen, 0);
	CHECK_EQ(A.r.idle_ms, 0);
}

TFO_TEST(counters)
{
	unsigned int a = UINT32_MAX, nx = UINT32_MAX;

	for (unsigned int i = 0; svc->counters[i].name != NULL; i++) {
		if (strcmp(svc->counters[i].name, "dns_qtype_a") == 0)
			a = i;
		if (strcmp(svc->counters[i].name, "dns_rcode_nxdomain") == 0)
			nx = i;
	}
	REQUIRE(a != UINT32_MAX && nx != UINT32_MAX);
	memset(ctrs, 0, sizeof(ctrs));
	ask(&udp_ctx, "nope.example.org.", DNS_T_A, NULL);
	ask(&tcp_ctx, "www.example.org.", DNS_T_A, NULL);
	CHECK_EQ(ctrs[a], 2);
	CHECK_EQ(ctrs[nx], 1);
	/* without the engine's counters */
	udp_ctx.counters = NULL;
	CHECK_EQ(ask(&udp_ctx, "www.example.org.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	udp_ctx.counters = ctrs;
	CHECK_EQ(ctrs[a], 2);
}

/* ------------------------------------------------------------------ */
/* identity (NSID, CHAOS), RFC 8906 details, TSIG, long TCP messages    */

static void *st_plain;

/* A second instance with nsid, identity, version and [tcp] max_request;
 * st points at it until ident_end. */
TFO_TEST(ident_setup)
{
	struct tfo_service_kv kv[] = {
		{ "zone", "example.org:" ZDIR "/example.org.zone" },
		{ "nsid", "fra-1" },
		{ "identity", "ns1.fra" },
		{ "version", "tfo 1.0" },
	};
	struct tfo_service_args a = { .port = 53, .udp = true, .nb_kv = 4, .kv = kv,
				      .socket_id = 0, .max_request = 8192 };
	char why[160];

	CHECK_EQ(svc->check_key("nsid", "0x00ff", why, sizeof(why)), 0);
	CHECK(svc->check_key("nsid", "0x0", why, sizeof(why)) < 0);
	CHECK(svc->check_key("nsid", "0xzz", why, sizeof(why)) < 0);
	CHECK(svc->check_key("identity", "", why, sizeof(why)) < 0);
	st_plain = st;
	st = NULL;
	CHECK_EQ(svc->create(&a, &st), 0);
	REQUIRE(st != NULL);
}

TFO_TEST(nsid)
{
	struct tdns_qopt o = { .edns = true, .payload = 1232, .nsid = true };
	uint32_t plain_len;

	CHECK_EQ(ask(&udp_ctx, "www.example.org.", DNS_T_A, &o), TFO_SVC_RESPOND);
	decode(NULL);
	REQUIRE(D.nb_rr > 0);
	CHECK_EQ(D.rr[D.nb_rr - 1].type, DNS_T_OPT);
	CHECK_EQ(D.rr[D.nb_rr - 1].rdlen, 4 + 5);
	CHECK(memcmp(D.rr[D.nb_rr - 1].rd, "\x00\x03\x00\x05" "fra-1", 9) == 0);
	/* over TCP with keepalive: both options */
	o.keepalive = true;
	CHECK_EQ(ask(&tcp_ctx, "www.example.org.", DNS_T_A, &o), TFO_SVC_RESPOND);
	decode(NULL);
	CHECK_EQ(D.rr[D.nb_rr - 1].rdlen, 6 + 9);
	o.keepalive = false;
	/* not asked: not sent */
	o.nsid = false;
	CHECK_EQ(ask(&udp_ctx, "www.example.org.", DNS_T_A, &o), TFO_SVC_RESPOND);
	decode(NULL);
	CHECK_EQ(D.rr[D.nb_rr - 1].rdlen, 0);
	plain_len = A.len;
	/* no room within the UDP limit: left out, not a TC */
	o.nsid = true;
	udp_ctx.udp_max = plain_len + 4;
	CHECK_EQ(ask(&udp_ctx, "www.example.org.", DNS_T_A, &o), TFO_SVC_RESPOND);
	udp_ctx.udp_max = 1472;
	CHECK(!tc());
	CHECK_EQ(A.len, plain_len);
	/* the instance without nsid: asked, not sent */
	{
		void *mine = st;

		st = st_plain;
		CHECK_EQ(ask(&udp_ctx, "www.example.org.", DNS_T_A, &o), TFO_SVC_RESPOND);
		st = mine;
	}
	decode(NULL);
	CHECK_EQ(D.rr[D.nb_rr - 1].rdlen, 0);
}

/* CH TXT of @p name; @return its rcode, the string into @p txt */
static unsigned int
chaos(const char *name, uint16_t qtype, char *txt)
{
	struct tdns_qopt o = { .qclass = 3 };

	txt[0] = '\0';
	CHECK_EQ(ask(&udp_ctx, name, qtype, &o), TFO_SVC_RESPOND);
	if (rcode() != 0)
		return rcode();
	CHECK(aa());
	CHECK_EQ(cnt(1), 1);
	decode(NULL);
	CHECK_EQ(D.rr[0].type, DNS_T_TXT);
	CHECK_EQ(D.rr[0].ttl, 0);
	/* class CH, after the owner (a pointer to the question) */
	CHECK_EQ(A.msg[D.rr[0].owner_off + 4], 0);
	CHECK_EQ(A.msg[D.rr[0].owner_off + 5], 3);
	CHECK_EQ(D.rr[0].rd[0] + 1, D.rr[0].rdlen);
	memcpy(txt, D.rr[0].rd + 1, D.rr[0].rd[0]);
	txt[D.rr[0].rd[0]] = '\0';
	return 0;
}

TFO_TEST(chaos_txt)
{
	char t[300];

	CHECK_EQ(chaos("id.server.", DNS_T_TXT, t), 0);
	CHECK_MSG(strcmp(t, "ns1.fra") == 0, "'%s'", t);
	CHECK_EQ(chaos("HOSTNAME.bind.", DNS_T_TXT, t), 0);
	CHECK(strcmp(t, "ns1.fra") == 0);
	CHECK_EQ(chaos("version.server.", DNS_T_TXT, t), 0);
	CHECK(strcmp(t, "tfo 1.0") == 0);
	CHECK_EQ(chaos("version.bind.", DNS_T_TXT, t), 0);
	CHECK(strcmp(t, "tfo 1.0") == 0);
	CHECK_EQ(chaos("id.server.", DNS_T_A, t), DNS_R_REFUSED);
	CHECK_EQ(chaos("authors.bind.", DNS_T_TXT, t), DNS_R_REFUSED);
	CHECK_EQ(chaos("www.example.org.", DNS_T_TXT, t), DNS_R_REFUSED);
	/* without the keys: REFUSED, as before */
	{
		void *mine = st;

		st = st_plain;
		CHECK_EQ(chaos("id.server.", DNS_T_TXT, t), DNS_R_REFUSED);
		CHECK_EQ(chaos("version.bind.", DNS_T_TXT, t), DNS_R_REFUSED);
		st = mine;
	}
}

TFO_TEST(opcode_notimp_rfc8906)
{
	uint8_t q[64] = { 0x12, 0x34, 0x7f, 0xf0 };	/* opcode 15, every flag */
	struct tdns_qopt o = { .opcode = 2 };

	/* no question: NOTIMP, the header alone, no CD */
	CHECK_EQ(call(&udp_ctx, q, DNS_HDR), TFO_SVC_RESPOND);
	CHECK_EQ(A.len, DNS_HDR);
	CHECK_EQ(rcode(), DNS_R_NOTIMP);
	CHECK_EQ((A.msg[2] >> 3) & 0xf, 15);
	CHECK_EQ(A.msg[3] & 0x10, 0);
	CHECK_EQ(cnt(0) + cnt(1) + cnt(2) + cnt(3), 0);
	/* QUERY without a question is still a FORMERR */
	q[2] = 0x01;
	CHECK_EQ(call(&udp_ctx, q, DNS_HDR), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_FORMERR);
	/* CD echoed on QUERY only */
	{
		uint32_t n = tdns_query(q, "www.example.org.", DNS_T_A, &o);

		q[3] |= 0x10;
		CHECK_EQ(call(&udp_ctx, q, n), TFO_SVC_RESPOND);
		CHECK_EQ(rcode(), DNS_R_NOTIMP);
		CHECK_EQ(A.msg[3] & 0x10, 0);
		n = tdns_query(q, "www.example.org.", DNS_T_A, NULL);
		q[3] |= 0x10;
		CHECK_EQ(call(&udp_ctx, q, n), TFO_SVC_RESPOND);
		CHECK_EQ(rcode(), 0);
		CHECK_EQ(A.msg[3] & 0x10, 0x10);
	}
}

/* A query for www.example.org. A signed with key k1.example. (unknown). */
static uint32_t
mk_tsig(uint8_t *b, const struct tdns_qopt *o, bool last)
{
	static const uint8_t rd[] = {
		11, 'h', 'm', 'a', 'c', '-', 's', 'h', 'a', '2', '5', '6', 0,
		0, 0, 0x5f, 0x5e, 0x10, 0x01,	/* time signed */
		0x01, 0x2c,			/* fudge 300 */
		0, 4, 1, 2, 3, 4,		/* MAC */
		0x12, 0x34, 0, 0, 0, 0,		/* original ID, error, other */
	};
	static const uint8_t key[] = { 2, 'k', '1', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 0 };
	uint32_t n = tdns_query(b, "www.example.org.", DNS_T_A, o);

	memcpy(b + n, key, sizeof(key));
	n += sizeof(key);
	memcpy(b + n, "\x00\xfa\x00\xff\x00\x00\x00\x00\x00", 9);
	n += 9;
	b[n++] = sizeof(rd);
	memcpy(b + n, rd, sizeof(rd));
	n += sizeof(rd);
	b[11]++;
	if (!last) {	/* an empty OPT after it */
		memcpy(b + n, "\x00\x00\x29\x04\xd0\x00\x00\x00\x00\x00\x00", 11);
		n += 11;
		b[11]++;
	}
	return n;
}

TFO_TEST(tsig_badkey)
{
	uint8_t q[200];
	struct tdns_qopt o = { .edns = true, .payload = 1232 };
	const struct tdns_rr *t;

	CHECK_EQ(call(&udp_ctx, q, mk_tsig(q, &o, true)), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_NOTAUTH);
	CHECK_EQ(cnt(0), 1);
	CHECK_EQ(cnt(1) + cnt(2), 0);
	CHECK_EQ(cnt(3), 2);
	decode(NULL);
	REQUIRE(D.nb_rr == 2);
	CHECK_EQ(D.rr[0].type, DNS_T_OPT);
	t = &D.rr[1];
	CHECK_EQ(t->type, DNS_T_TSIG);
	CHECK(strcmp(t->name, "k1.example.") == 0);
	CHECK_EQ(A.msg[t->owner_off + 14], 0);	/* class ANY */
	CHECK_EQ(A.msg[t->owner_off + 15], 255);
	CHECK_EQ(t->ttl, 0);
	CHECK_EQ(t->rdlen, 13 + 16);
	CHECK(memcmp(t->rd, "\x0bhmac-sha256\x00\x00\x00\x5f\x5e\x10\x01\x01\x2c"
		     "\x00\x00\x12\x34\x00\x11\x00\x00", 29) == 0);
	/* over TCP, without EDNS: the same TSIG */
	{
		uint8_t tq[202];
		uint32_t n = mk_tsig(tq + 2, NULL, true);

		tq[0] = 0;
		tq[1] = (uint8_t)n;
		CHECK_EQ(call(&tcp_ctx, tq, n + 2), TFO_SVC_RESPOND);
		CHECK_EQ(rcode(), DNS_R_NOTAUTH);
		CHECK_EQ(cnt(3), 1);
		decode(NULL);
		CHECK_EQ(D.rr[0].type, DNS_T_TSIG);
	}
	/* not the last record: FORMERR */
	CHECK_EQ(call(&udp_ctx, q, mk_tsig(q, NULL, false)), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), DNS_R_FORMERR);
}

TFO_TEST(tcp_long_message)
{
	uint32_t mlen = 9046, n;
	uint8_t *q = calloc(1, 2 + 65535);

	REQUIRE(q != NULL);
	/* 9,048 bytes framed: past max_request 8192, FORMERR and FIN as soon
	 * as the header is in, never a reset */
	n = tdns_query(q + 2, "www.example.org.", DNS_T_A, NULL);
	q[0] = (uint8_t)(mlen >> 8);
	q[1] = (uint8_t)mlen;
	CHECK_EQ(call(&tcp_ctx, q, 2 + 10), TFO_SVC_NEED_MORE);
	CHECK_EQ(call(&tcp_ctx, q, 2 + n), TFO_SVC_RESPOND);
	CHECK(A.r.close);
	CHECK_EQ(A.r.consumed, 2 + n);
	CHECK_EQ(A.len, DNS_HDR);
	CHECK_EQ(rcode(), DNS_R_FORMERR);
	CHECK(A.msg[0] == 0x12 && A.msg[1] == 0x34);
	CHECK_EQ(cnt(0), 0);
	/* 65,535 bytes: the same */
	q[0] = 0xff;
	q[1] = 0xff;
	CHECK_EQ(call(&tcp_ctx, q, 2 + 65535), TFO_SVC_RESPOND);
	CHECK(A.r.close);
	CHECK_EQ(rcode(), DNS_R_FORMERR);
	/* within max_request: answered, trailing bytes ignored */
	mlen = 8000;
	q[0] = (uint8_t)(mlen >> 8);
	q[1] = (uint8_t)mlen;
	CHECK_EQ(call(&tcp_ctx, q, 2 + mlen), TFO_SVC_RESPOND);
	CHECK(!A.r.close);
	CHECK_EQ(rcode(), 0);
	CHECK_EQ(cnt(1), 2);
	free(q);
}

TFO_TEST(ident_counters)
{
	static const char *const names[] = {
		"dns_nsid", "dns_chaos", "dns_tsig_badkey", "dns_tcp_too_long",
		"dns_rcode_notauth", "dns_rcode_notimp",
	};

	for (unsigned int k = 0; k < RTE_DIM(names); k++) {
		unsigned int i;

		for (i = 0; svc->counters[i].name != NULL; i++)
			if (strcmp(svc->counters[i].name, names[k]) == 0)
				break;
		CHECK_MSG(svc->counters[i].name != NULL, "%s", names[k]);
		if (svc->counters[i].name != NULL)
			CHECK_MSG(ctrs[i] > 0, "%s not counted", names[k]);
	}
}

TFO_TEST(ident_end)
{
	CHECK(st_plain != NULL);
	svc->destroy(st);
	st = st_plain;
}

TFO_TEST(second_zone_and_reload)
{
	char msg[512];

	CHECK_EQ(ask(&udp_ctx, "www.example.net.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(rcode(), 0);
	CHECK_EQ(cnt(1), 1);
	CHECK_EQ(svc->reload(st, msg, sizeof(msg)), 1);
	CHECK_MSG(strstr(msg, "generation 2 serves") != NULL, "%s", msg);
	CHECK_EQ(ask(&udp_ctx, "www.example.net.", DNS_T_A, NULL), TFO_SVC_RESPOND);
	CHECK_EQ(cnt(1), 1);
	/* before the grace time nothing is freed, after it everything */
	CHECK_EQ(svc->reclaim(st, NULL, NULL), 0);
	usleep(1100 * 1000);
	CHECK_EQ(svc->reclaim(st, NULL, NULL), 0);
	CHECK_EQ(svc->reload(st, msg, sizeof(msg)), 1);
	CHECK_MSG(strstr(msg, "generation 3 serves") != NULL, "%s", msg);
	svc->destroy(st);
	st = NULL;
}

TFO_TEST_MAIN()
