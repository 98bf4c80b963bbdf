/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the dns service's response rate limiting (dns_rrl.h):
 * the bucket arithmetic on a fake clock (burst, refill, slip ratio, IPv4
 * /24 and IPv6 /56 keys, eviction of a full table), the keys, and through
 * handle(): one bucket per answer class, the slipped answer's shape, TCP
 * and exempt sources never limited.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tfo/service.h"

#include "../services/dns_wire.h"
#include "../services/dns_rrl.h"
#include "dns_decode.h"
#include "test.h"

#define ZDIR TFO_CONFIG_DIR "/../tests/dns"
#define HZ 1000u		/* the fake clock: ms */

static struct dns_rrl_table *
table(uint32_t rate, uint32_t burst, uint32_t slip, uint32_t entries)
{
	struct dns_rrl_conf c;
	struct dns_rrl_table *t = calloc(1, dns_rrl_table_size(entries));

	if (t == NULL)
		abort();
	dns_rrl_conf_init(&c);
	c.rate = rate;
	c.burst = burst;
	c.slip = slip;
	dns_rrl_table_init(t, &c, HZ, 0x1234, entries);
	return t;
}

static const uint8_t V4[4] = { 198, 18, 0, 1 };

/* Answers that pass out of @p n at time @p now. */
static unsigned int
passes(struct dns_rrl_table *t, const uint8_t *a, uint8_t fam,
       enum dns_rrl_class cls, unsigned int n, uint64_t now)
{
	unsigned int p = 0;

	for (unsigned int i = 0; i < n; i++)
		p += dns_rrl_check(t, fam, a, cls, now) == DNS_RRL_PASS;
	return p;
}

TFO_TEST(burst_and_refill)
{
	struct dns_rrl_table *t = table(10, 20, 0, 256);

	/* the burst at once, then nothing */
	CHECK_EQ(passes(t, V4, AF_INET, DNS_RRL_ANSWER, 50, 1000), 20);
	/* 100 ms later: one token per 1/10 s */
	CHECK_EQ(passes(t, V4, AF_INET, DNS_RRL_ANSWER, 50, 1100), 1);
	CHECK_EQ(passes(t, V4, AF_INET, DNS_RRL_ANSWER, 50, 1150), 0);
	CHECK_EQ(passes(t, V4, AF_INET, DNS_RRL_ANSWER, 50, 1400), 3);
	/* idle long enough: the whole burst again, never more */
	CHECK_EQ(passes(t, V4, AF_INET, DNS_RRL_ANSWER, 50, 100000), 20);
	/* a steady 10/s is always answered */
	for (unsigned int s = 0; s < 50; s++)
		CHECK_EQ(passes(t, V4, AF_INET, DNS_RRL_ANSWER, 1, 200000 + s * 100), 1);
	free(t);

	/* burst 0 = rate */
	t = table(5, 0, 0, 256);
	CHECK_EQ(passes(t, V4, AF_INET, DNS_RRL_ANSWER, 50, 5000), 5);
	free(t);
}

TFO_TEST(slip_ratio)
{
	uint32_t slips[] = { 0, 1, 2, 3, 10 };

	for (unsigned int i = 0; i < RTE_DIM(slips); i++) {
		struct dns_rrl_table *t = table(1, 1, slips[i], 256);
		unsigned int nb_slip = 0, nb_drop = 0;

		CHECK_EQ(passes(t, V4, AF_INET, DNS_RRL_ANSWER, 1, 10), 1);
		for (unsigned int k = 0; k < 300; k++) {
			enum dns_rrl_verdict v = dns_rrl_check(t, AF_INET, V4, DNS_RRL_ANSWER, 10);

			nb_slip += v == DNS_RRL_SLIP;
			nb_drop += v == DNS_RRL_DROP;
		}
		CHECK_EQ(nb_slip + nb_drop, 300);
		CHECK_EQ(nb_slip, slips[i] == 0 ? 0 : 300 / slips[i]);
		free(t);
	}
}

TFO_TEST(prefixes_and_classes)
{
	struct dns_rrl_table *t = table(1, 2, 0, 1024);
	uint8_t a[4] = { 198, 18, 0, 1 }, b[16], c[16];

	CHECK_EQ(passes(t, a, AF_INET, DNS_RRL_ANSWER, 5, 10), 2);
	/* the same /24: the same bucket */
	a[3] = 200;
	CHECK_EQ(passes(t, a, AF_INET, DNS_RRL_ANSWER, 5, 10), 0);
	/* every class its own bucket */
	for (int cls = DNS_RRL_ANSWER + 1; cls < DNS_RRL_CLASS_MAX; cls++)
		CHECK_EQ(passes(t, a, AF_INET, (enum dns_rrl_class)cls, 5, 10), 2);
	/* the next /24: another */
	a[2] = 1;
	CHECK_EQ(passes(t, a, AF_INET, DNS_RRL_ANSWER, 5, 10), 2);

	/* IPv6: the /56 is the key; bits past it do not matter */
	inet_pton(AF_INET6, "fd00:1:2:3300::1", b);
	inet_pton(AF_INET6, "fd00:1:2:33ff:ffff::9", c);
	CHECK_EQ(passes(t, b, AF_INET6, DNS_RRL_ANSWER, 5, 10), 2);
	CHECK_EQ(passes(t, c, AF_INET6, DNS_RRL_ANSWER, 5, 10), 0);
	inet_pton(AF_INET6, "fd00:1:2:3400::1", c);
	CHECK_EQ(passes(t, c, AF_INET6, DNS_RRL_ANSWER, 5, 10), 2);
	/* an IPv4 prefix never meets an IPv6 one with the same leading bytes */
	memset(b, 0, sizeof(b));
	memcpy(b, (const uint8_t[]){ 198, 18, 0 }, 3);
	CHECK_EQ(passes(t, b, AF_INET6, DNS_RRL_ANSWER, 5, 10), 2);
	free(t);
}

TFO_TEST(eviction)
{
	/* 64 entries: 16 sets of 4 */
	struct dns_rrl_table *t = table(1, 1, 0, 64);
	uint8_t a[4] = { 198, 18, 0, 1 };

	CHECK_EQ((t->mask + 1) * DNS_RRL_WAYS, 64);
	/* 1000 prefixes at once: all live, most replace a live one */
	for (unsigned int i = 0; i < 1000; i++) {
		a[1] = (uint8_t)(i >> 8);
		a[2] = (uint8_t)i;
		CHECK_EQ(dns_rrl_check(t, AF_INET, a, DNS_RRL_ANSWER, 10), DNS_RRL_PASS);
	}
	CHECK(t->evicted >= 1000 - 64);
	CHECK(t->evicted <= 1000);
	/* a second later every bucket is full again: reused, not evicted */
	t->evicted = 0;
	for (unsigned int i = 0; i < 1000; i++) {
		a[1] = (uint8_t)((i + 5000) >> 8);
		a[2] = (uint8_t)(i + 5000);
		dns_rrl_check(t, AF_INET, a, DNS_RRL_ANSWER, 10 + 2 * HZ + i * HZ);
	}
	CHECK_EQ(t->evicted, 0);
	/* a bounded table: whatever the load, the size set at start */
	CHECK_EQ(dns_rrl_table_size(64), sizeof(*t) + 64 * sizeof(struct dns_rrl_entry));
	CHECK_EQ(dns_rrl_table_size(100), sizeof(*t) + 128 * sizeof(struct dns_rrl_entry));
	free(t);
}

TFO_TEST(keys_and_exempt)
{
	struct dns_rrl_conf c;
	char why[200];
	uint8_t a[16];

	dns_rrl_conf_init(&c);
	CHECK_EQ(c.rate, 0);
	CHECK_EQ(c.slip, 2);
	CHECK_EQ(c.table, DNS_RRL_TABLE_DEFAULT);
	CHECK_EQ(dns_rrl_conf_key("zone", "x", &c, why, sizeof(why)), 0);
	CHECK_EQ(dns_rrl_conf_key("rate_limit", "20", &c, why, sizeof(why)), 1);
	CHECK_EQ(c.rate, 20);
	CHECK(dns_rrl_conf_key("rate_limit", "-1", &c, why, sizeof(why)) < 0);
	CHECK(strstr(why, "0..") != NULL);
	CHECK(dns_rrl_conf_key("slip", "101", &c, why, sizeof(why)) < 0);
	CHECK(dns_rrl_conf_key("rate_limit_table", "10", &c, why, sizeof(why)) < 0);
	CHECK(dns_rrl_conf_key("rate_limit_exempt", "198.51.100.0/33", &c, why,
			       sizeof(why)) < 0);
	CHECK(dns_rrl_conf_key("rate_limit_exempt", "example.org", &c, why, sizeof(why)) < 0);
	CHECK_EQ(dns_rrl_conf_key("rate_limit_exempt", "198.51.100.7/23, 2001:db8::/32,192.0.2.1",
				  &c, why, sizeof(why)), 1);
	CHECK_EQ(c.nb_exempt, 3);
	inet_pton(AF_INET, "198.51.101.255", a);
	CHECK(dns_rrl_exempt(&c, AF_INET, a));
	inet_pton(AF_INET, "198.51.102.0", a);
	CHECK(!dns_rrl_exempt(&c, AF_INET, a));
	inet_pton(AF_INET, "192.0.2.1", a);
	CHECK(dns_rrl_exempt(&c, AF_INET, a));
	inet_pton(AF_INET, "192.0.2.2", a);
	CHECK(!dns_rrl_exempt(&c, AF_INET, a));
	inet_pton(AF_INET6, "2001:db8:ffff::1", a);
	CHECK(dns_rrl_exempt(&c, AF_INET6, a));
	inet_pton(AF_INET6, "2001:db9::1", a);
	CHECK(!dns_rrl_exempt(&c, AF_INET6, a));
}

/* ------------------------------------------------------------------ */
/* through handle()                                                    */

static const struct tfo_service *svc;
static uint64_t ctrs[TFO_SVC_MAX_COUNTERS];
static uint8_t scratch[2048];

static uint64_t
ctr(const char *name)
{
	for (unsigned int i = 0; svc->counters[i].name != NULL; i++)
		if (strcmp(svc->counters[i].name, name) == 0)
			return ctrs[i];
	CHECK_MSG(0, "no counter %s", name);
	return 0;
}

static struct tdns_answer A;	/* the last answer */
static struct tdns_msg D;

static enum tfo_svc_status
ask(void *st, const struct tfo_svc_ctx *ctx, const char *name, uint16_t qtype, bool edns)
{
	struct tdns_qopt o = { .edns = edns, .payload = 4096 };

	return tdns_ask(svc, st, ctx, name, qtype, &o, scratch, sizeof(scratch), &A);
}

static void *
create(const char *rate, const char *burst, const char *slip)
{
	struct tfo_service_kv kv[] = {
		{ "zone", "example.org:" ZDIR "/example.org.zone" },
		{ "rate_limit", rate },
		{ "rate_limit_burst", burst },
		{ "slip", slip },
		{ "rate_limit_exempt", "198.19.0.0/16,fd00:e::/32" },
	};
	struct tfo_service_args a = { .port = 53, .udp = true, .nb_kv = RTE_DIM(kv),
				      .kv = kv, .socket_id = 0 };
	void *st = NULL;

	CHECK_EQ(svc->create(&a, &st), 0);
	if (st == NULL)
		abort();
	return st;
}

TFO_TEST(handle_classes)
{
	struct tfo_svc_ctx u = {
		.family = AF_INET, .transport = TFO_SVC_UDP, .dst_port = 53, .udp_max = 1472,
		.counters = ctrs, .src_addr = { 198, 18, 7, 1 },
	};
	/* one of each class, in the order of enum dns_rrl_class */
	static const struct { const char *name; uint16_t type; uint8_t rcode; } cls[] = {
		{ "www.example.org.", DNS_T_A, DNS_R_NOERROR },		/* answer */
		{ "www.example.org.", DNS_T_MX, DNS_R_NOERROR },	/* NODATA */
		{ "nope.example.org.", DNS_T_A, DNS_R_NXDOMAIN },
		{ "host.sub.example.org.", DNS_T_A, DNS_R_NOERROR },	/* referral */
		{ "www.example.com.", DNS_T_A, DNS_R_REFUSED },		/* error */
	};
	void *st;

	tfo_test_eal_init("test_dns_rrl", 256, NULL);
	svc = tfo_service_find("dns");
	REQUIRE(svc != NULL);
	/* 1/s, a burst of 3, slip every limited answer: 1 token back per s,
	 * far more than this test takes */
	st = create("1", "3", "1");
	for (unsigned int k = 0; k < RTE_DIM(cls); k++) {
		/* each class has its own bucket: a misclassified one would
		 * find the bucket before it empty */
		for (unsigned int i = 0; i < 3; i++) {
			CHECK_EQ(ask(st, &u, cls[k].name, cls[k].type, false), TFO_SVC_RESPOND);
			CHECK_MSG(!(A.r.buf[2] & 0x02), "%s class %u answer %u", cls[k].name, k, i);
			CHECK_EQ(A.r.buf[3] & 0xf, cls[k].rcode);
			/* whole, well formed: the answer class has its A */
			CHECK(tdns_decode(A.msg, A.len, &D) == 0);
			CHECK_EQ(tdns_count(&D, 1, DNS_T_A, false), k == 0 ? 2 : 0);
		}
		CHECK_EQ(ask(st, &u, cls[k].name, cls[k].type, false), TFO_SVC_RESPOND);
		CHECK_MSG(A.r.buf[2] & 0x02, "%s: the 4th slips", cls[k].name);
	}
	CHECK_EQ(ctr("dns_rrl_limited"), RTE_DIM(cls));
	CHECK_EQ(ctr("dns_rrl_slipped"), RTE_DIM(cls));
	CHECK_EQ(ctr("dns_rrl_dropped"), 0);
	svc->destroy(st);
}

TFO_TEST(handle_slip_tcp_exempt)
{
	struct tfo_svc_ctx u = {
		.family = AF_INET, .transport = TFO_SVC_UDP, .dst_port = 53, .udp_max = 1472,
		.counters = ctrs, .src_addr = { 198, 18, 9, 1 },
	};
	struct tfo_svc_ctx tcp = u;
	unsigned int nb_slip = 0, nb_drop = 0;
	uint32_t qlen;
	uint8_t q[600];
	void *st;

	memset(ctrs, 0, sizeof(ctrs));
	tcp.transport = TFO_SVC_TCP;
	tcp.udp_max = 0;
	st = create("1", "2", "2");
	/* a TXT with EDNS: 2 whole answers, then every second one a TC=1
	 * header + question + OPT, the others dropped */
	qlen = tdns_query(q, "example.org.", DNS_T_TXT, &(struct tdns_qopt){ .edns = true,
							       .payload = 4096 });
	for (unsigned int i = 0; i < 2; i++) {
		CHECK_EQ(ask(st, &u, "example.org.", DNS_T_TXT, true), TFO_SVC_RESPOND);
		CHECK(!(A.r.buf[2] & 0x02));
		CHECK_EQ(A.r.buf[7], 1);
	}
	for (unsigned int i = 0; i < 20; i++) {
		enum tfo_svc_status s = ask(st, &u, "example.org.", DNS_T_TXT, true);

		if (s == TFO_SVC_REJECT) {
			nb_drop++;
			continue;
		}
		CHECK_EQ(s, TFO_SVC_RESPOND);
		nb_slip++;
		/* the minimal answer: the query's size, TC, QR, no records but OPT */
		CHECK_EQ(A.r.buf_len, qlen);
		CHECK(A.r.body == NULL);
		CHECK_EQ(A.r.buf[2] & 0x82, 0x82);
		CHECK_EQ(A.r.buf[3] & 0xf, DNS_R_NOERROR);
		CHECK(memcmp(A.r.buf + 4, "\0\1\0\0\0\0\0\1", 8) == 0);
		CHECK(memcmp(A.r.buf + DNS_HDR, q + DNS_HDR, qlen - DNS_HDR - DNS_OPT_LEN) == 0);
		CHECK_EQ(A.r.buf[qlen - DNS_OPT_LEN + 2], 41);
		CHECK(tdns_decode(A.msg, A.len, &D) == 0);
		CHECK(D.nb_rr == 1 && D.rr[0].type == DNS_T_OPT && D.rr[0].section == 3);
	}
	CHECK_EQ(nb_slip, 10);
	CHECK_EQ(nb_drop, 10);
	CHECK_EQ(ctr("dns_rrl_slipped"), 10);
	CHECK_EQ(ctr("dns_rrl_dropped"), 10);
	CHECK_EQ(ctr("dns_rrl_limited"), 20);
	CHECK_EQ(ctr("dns_truncated"), 0);	/* slips are not size truncations */
	/* without EDNS: no OPT */
	CHECK_EQ(ask(st, &u, "example.org.", DNS_T_TXT, false), TFO_SVC_REJECT);
	CHECK_EQ(ask(st, &u, "example.org.", DNS_T_TXT, false), TFO_SVC_RESPOND);
	CHECK_EQ(A.r.buf[11], 0);
	CHECK_EQ(A.r.buf[2] & 0x02, 0x02);
	/* TCP: never limited */
	for (unsigned int i = 0; i < 10; i++) {
		CHECK_EQ(ask(st, &tcp, "big.example.org.", DNS_T_TXT, true), TFO_SVC_RESPOND);
		CHECK(!(A.r.buf[4] & 0x02));
		CHECK(A.r.buf_len + A.r.body_len > 1000);
	}
	/* exempt prefixes, IPv4 and IPv6 */
	u.src_addr[1] = 19;
	for (unsigned int i = 0; i < 10; i++)
		CHECK_EQ(ask(st, &u, "www.example.org.", DNS_T_A, false), TFO_SVC_RESPOND);
	u.family = AF_INET6;
	inet_pton(AF_INET6, "fd00:e:1::5", u.src_addr);
	for (unsigned int i = 0; i < 10; i++) {
		CHECK_EQ(ask(st, &u, "www.example.org.", DNS_T_A, false), TFO_SVC_RESPOND);
		CHECK(!(A.r.buf[2] & 0x02));
	}
	CHECK_EQ(ctr("dns_rrl_exempt"), 20);
	/* an IPv6 source not exempt: limited by its /56 */
	inet_pton(AF_INET6, "fd00:f:1:2201::5", u.src_addr);
	CHECK_EQ(ask(st, &u, "www.example.org.", DNS_T_A, false), TFO_SVC_RESPOND);
	inet_pton(AF_INET6, "fd00:f:1:22ff::7", u.src_addr);
	CHECK_EQ(ask(st, &u, "www.example.org.", DNS_T_A, false), TFO_SVC_RESPOND);
	CHECK(!(A.r.buf[2] & 0x02));
	CHECK_EQ(ctr("dns_rrl_limited"), 22);
	CHECK_EQ(ask(st, &u, "www.example.org.", DNS_T_A, false), TFO_SVC_REJECT);
	CHECK_EQ(ctr("dns_rrl_limited"), 23);
	svc->destroy(st);
}

TFO_TEST(handle_off_by_default)
{
	struct tfo_service_kv kv[] = { { "zone", "example.org:" ZDIR "/example.org.zone" } };
	struct tfo_service_args a = { .port = 53, .udp = true, .nb_kv = 1, .kv = kv };
	struct tfo_svc_ctx u = {
		.family = AF_INET, .transport = TFO_SVC_UDP, .dst_port = 53, .udp_max = 1472,
		.counters = ctrs, .src_addr = { 198, 18, 9, 1 },
	};
	void *st = NULL;

	memset(ctrs, 0, sizeof(ctrs));
	CHECK_EQ(svc->create(&a, &st), 0);
	REQUIRE(st != NULL);
	for (unsigned int i = 0; i < 1000; i++)
		CHECK_EQ(ask(st, &u, "www.example.org.", DNS_T_A, false), TFO_SVC_RESPOND);
	CHECK_EQ(ctr("dns_rrl_limited"), 0);
	/* a bad value is refused with the key's range */
	{
		char why[200] = "";

		CHECK(svc->check_key("slip", "x", why, sizeof(why)) < 0);
		CHECK(strstr(why, "0..100") != NULL);
		CHECK_EQ(svc->check_key("rate_limit", "100", why, sizeof(why)), 0);
	}
	svc->destroy(st);
}

TFO_TEST_MAIN()
