/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the dns service's secondary zones (services/dns_xfr.c,
 * services/dns_secondary.c): the `secondary` key, a transfer's messages
 * into records (compressed names, several messages, truncated and broken
 * streams), the zone set built from them, IXFR diff sequences applied
 * (and refused when they do not apply), NOTIFY verdicts, and through
 * handle() with a primary on 127.0.0.1 played by a thread of the test:
 * SERVFAIL before the first transfer, the zone served after it, NOTIFY
 * NOERROR/REFUSED, a new serial taken on NOTIFY, a garbage-sending primary
 * that keeps the old zone and counts a failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "tfo/service.h"

#include "../services/dns_load.h"
#include "../services/dns_wire.h"
#include "../services/dns_zone.h"
#include "../services/dns_zparse.h"
#include "../services/dns_xfr.h"
#include "test.h"

#define ZDIR TFO_CONFIG_DIR "/../tests/dns"

static const uint8_t ORG[] = "\7example\3com";	/* wire, root byte included */

/* ------------------------------------------------------------------ */
/* building messages                                                   */

struct mb {
	uint8_t b[4096];
	uint32_t n;
	uint16_t an;
};

static void
put(struct mb *m, const void *p, uint32_t n)
{
	REQUIRE(m->n + n <= sizeof(m->b));
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void
put16(struct mb *m, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put(m, b, 2);
}

static void
put32(struct mb *m, uint32_t v)
{
	put16(m, (uint16_t)(v >> 16));
	put16(m, (uint16_t)v);
}

/* A response header and the question (example.com, @p qtype). */
static void
msg_start(struct mb *m, uint16_t id, uint16_t qtype, uint8_t rcode)
{
	memset(m, 0, sizeof(*m));
	put16(m, id);
	put16(m, (uint16_t)(0x8400 | rcode));
	put16(m, 1);
	put16(m, 0);
	put16(m, 0);
	put16(m, 0);
	put(m, ORG, sizeof(ORG));
	put16(m, qtype);
	put16(m, DNS_CLASS_IN);
}

/* A record; @p owner NULL: a pointer to the question's name. */
static void
rr(struct mb *m, const uint8_t *owner, uint16_t type, const void *rd, uint16_t rdlen)
{
	if (owner == NULL)
		put16(m, 0xc000 | DNS_HDR);
	else
		put(m, owner, dns_name_len(owner));
	put16(m, type);
	put16(m, DNS_CLASS_IN);
	put32(m, 3600);
	put16(m, rdlen);
	put(m, rd, rdlen);
	m->an++;
	m->b[6] = (uint8_t)(m->an >> 8);
	m->b[7] = (uint8_t)m->an;
}

/* The primary thread's SOA timers (refresh, retry, expire). */
static uint32_t soa_timers[3] = { 3600, 600, 86400 };

/* The SOA with @p serial: names compressed against the question. */
static void
soa(struct mb *m, uint32_t serial)
{
	uint8_t rd[64];
	uint32_t n = 0;
	const uint32_t t[5] = { serial, soa_timers[0], soa_timers[1], soa_timers[2], 300 };

	memcpy(rd, "\3ns1\xc0\x0c\12hostmaster\xc0\x0c", 19);
	n = 19;
	for (unsigned int i = 0; i < 5; i++) {
		rd[n++] = (uint8_t)(t[i] >> 24);
		rd[n++] = (uint8_t)(t[i] >> 16);
		rd[n++] = (uint8_t)(t[i] >> 8);
		rd[n++] = (uint8_t)t[i];
	}
	rr(m, NULL, DNS_T_SOA, rd, (uint16_t)n);
}

static void
a_rec(struct mb *m, const uint8_t *owner, uint8_t last)
{
	const uint8_t ip[4] = { 198, 18, 0, last };

	rr(m, owner, DNS_T_A, ip, 4);
}

static const uint8_t WWW[] = "\3www\7example\3com";

/* The zone at @p serial: SOA, NS ns1 (compressed), www A 198.18.0.@p last. */
static void
zone_body(struct mb *m, uint32_t serial, uint8_t last)
{
	soa(m, serial);
	rr(m, NULL, DNS_T_NS, "\3ns1\xc0\x0c", 6);
	a_rec(m, (const uint8_t *)"\3ns1\7example\3com", 53);
	a_rec(m, WWW, last);
	soa(m, serial);
}

static const struct dns_rec *
find(const struct dns_recs *rs, uint16_t type, const uint8_t *owner)
{
	for (unsigned int i = 0; i < rs->n; i++)
		if (rs->r[i].type == type && (owner == NULL ||
		    memcmp(rs->r[i].owner, owner, dns_name_len(owner)) == 0))
			return &rs->r[i];
	return NULL;
}

static uint32_t
serial_of(const struct dns_recs *rs)
{
	const struct dns_rec *s = find(rs, DNS_T_SOA, NULL);
	uint32_t serial = 0, x;

	CHECK(s != NULL && dns_soa_times(s->rdata, s->rdlen, &serial, &x, &x, &x) == 0);
	return serial;
}

/* ------------------------------------------------------------------ */

TFO_TEST(key)
{
	struct dns_secondary_src s[4];
	unsigned int nb = 0;
	char why[256];

	CHECK_EQ(dns_secondary_value("example.com:198.18.0.1", s, &nb, 4, why, sizeof(why)), 0);
	CHECK_EQ(nb, 1);
	CHECK_EQ(s[0].family, AF_INET);
	CHECK_EQ(s[0].port, 53);
	CHECK(memcmp(s[0].origin, ORG, sizeof(ORG)) == 0);
	CHECK_EQ(dns_secondary_value("Example.NET.:fd00::53@5353 x.org:[fd00::1]@54", s, &nb, 4,
			       why, sizeof(why)), 0);
	CHECK_EQ(nb, 3);
	CHECK_EQ(s[1].family, AF_INET6);
	CHECK_EQ(s[1].port, 5353);
	CHECK(memcmp(s[1].origin, "\7example\3net", 13) == 0);
	CHECK_EQ(s[2].port, 54);
	CHECK_MSG(strcmp(s[2].text, "[fd00::1]:54") == 0, "%s", s[2].text);
	/* refused, with the reason */
	CHECK(dns_secondary_value("example.com:198.18.0.1", s, &nb, 4, why, sizeof(why)) < 0);
	CHECK_MSG(strstr(why, "twice") != NULL, "%s", why);
	CHECK(dns_secondary_value("example.com", NULL, NULL, 0, why, sizeof(why)) < 0);
	CHECK_MSG(strstr(why, "ORIGIN:ADDRESS") != NULL, "%s", why);
	CHECK(dns_secondary_value("a.com:host.example", NULL, NULL, 0, why, sizeof(why)) < 0);
	CHECK(dns_secondary_value("a.com:198.18.0.1@0", NULL, NULL, 0, why, sizeof(why)) < 0);
	CHECK(dns_secondary_value("a.com:198.18.0.1@70000", NULL, NULL, 0, why, sizeof(why)) < 0);
	CHECK_MSG(strstr(why, "1..65535") != NULL, "%s", why);
	CHECK(dns_secondary_value("a.com:198.18.0.1@", NULL, NULL, 0, why, sizeof(why)) < 0);
}

TFO_TEST(serial_arithmetic)
{
	CHECK(dns_serial_newer(2, 1));
	CHECK(!dns_serial_newer(1, 1));
	CHECK(!dns_serial_newer(1, 2));
	CHECK(dns_serial_newer(0, 0xffffffffu));	/* RFC 1982 wrap */
	CHECK(!dns_serial_newer(0x80000000u, 0));	/* undefined: not newer */
}

TFO_TEST(query_bytes)
{
	uint8_t b[600], soard[60];
	uint32_t n = dns_xfr_query(b, 0x1234, ORG, NULL, 0, 0);

	CHECK_EQ(n, 2 + DNS_HDR + sizeof(ORG) + 4);
	CHECK_EQ((b[0] << 8 | b[1]), n - 2);
	CHECK_EQ(b[2], 0x12);
	CHECK_EQ(b[3], 0x34);
	CHECK_EQ(b[4] & 0xf8, 0);	/* QUERY, not a response */
	CHECK_EQ(b[7], 1);		/* one question */
	CHECK(memcmp(b + 14, ORG, sizeof(ORG)) == 0);
	CHECK_EQ(b[14 + sizeof(ORG) + 1], DNS_T_AXFR);
	/* IXFR: our SOA in the authority section (RFC 1995 3) */
	memset(soard, 7, sizeof(soard));
	n = dns_xfr_query(b, 1, ORG, soard, sizeof(soard), 300);
	CHECK_EQ(b[14 + sizeof(ORG) + 1], DNS_T_IXFR);
	CHECK_EQ(b[2 + 9], 1);		/* NSCOUNT */
	CHECK_EQ(n, 2 + DNS_HDR + sizeof(ORG) + 4 + 12 + sizeof(soard));
}

/* Run @p nb messages through a fresh rx; @return dns_xfr_msg's last rc. */
static int
feed(struct dns_xfr_rx *rx, struct mb *m, unsigned int nb, enum dns_xfr_err *err,
     char *why, size_t whylen)
{
	int rc = 0;

	for (unsigned int i = 0; i < nb && rc == 0; i++)
		rc = dns_xfr_msg(rx, m[i].b, m[i].n, err, why, whylen);
	return rc;
}

TFO_TEST(axfr_records)
{
	static struct mb m[3];
	struct dns_xfr_rx rx = { .origin = ORG, .id = 7 };
	struct dns_recs out = { 0 }, none = { 0 };
	enum dns_xfr_err err = DNS_XE_NONE;
	const struct dns_rec *r;
	char why[256] = "";
	bool ix;

	/* one zone over three messages (RFC 5936 2.2: any split) */
	msg_start(&m[0], 7, DNS_T_AXFR, 0);
	soa(&m[0], 10);
	rr(&m[0], NULL, DNS_T_NS, "\3ns1\xc0\x0c", 6);
	msg_start(&m[1], 7, DNS_T_AXFR, 0);
	a_rec(&m[1], (const uint8_t *)"\3ns1\7example\3com", 53);
	rr(&m[1], WWW, DNS_T_MX, "\0\12\4mail\xc0\x0c", 9);
	msg_start(&m[2], 7, DNS_T_AXFR, 0);
	a_rec(&m[2], WWW, 1);
	soa(&m[2], 10);
	CHECK_EQ(feed(&rx, m, 2, &err, why, sizeof(why)), 0);
	CHECK(!rx.done);
	/* the stream ends here: truncated */
	CHECK(dns_xfr_result(&rx, &none, false, 0, &out, &ix, &err, why, sizeof(why)) < 0);
	CHECK_EQ(err, DNS_XE_TRUNCATED);
	CHECK_EQ(feed(&rx, m + 2, 1, &err, why, sizeof(why)), 0);
	CHECK(rx.done);
	CHECK_EQ(rx.serial, 10);
	CHECK_EQ(dns_xfr_result(&rx, &none, false, 0, &out, &ix, &err, why, sizeof(why)), 1);
	CHECK(!ix);
	CHECK_EQ(out.n, 5);	/* the closing SOA left out */
	/* names decompressed: NS, MX targets, the SOA's two names */
	r = find(&out, DNS_T_NS, NULL);
	REQUIRE(r != NULL);
	CHECK_EQ(r->rdlen, 17);
	CHECK(memcmp(r->rdata, "\3ns1\7example\3com", 17) == 0);
	r = find(&out, DNS_T_MX, WWW);
	REQUIRE(r != NULL);
	CHECK_EQ(r->rdlen, 2 + 18);
	CHECK(memcmp(r->rdata + 2, "\4mail\7example\3com", 18) == 0);
	CHECK_EQ(serial_of(&out), 10);
	r = find(&out, DNS_T_SOA, NULL);
	CHECK_EQ(r->rdlen, 17 + 24 + 20);
	/* more after the closing SOA is broken */
	CHECK(dns_xfr_msg(&rx, m[2].b, m[2].n, &err, why, sizeof(why)) < 0);
	CHECK_EQ(err, DNS_XE_MESSAGE);
	dns_xfr_rx_free(&rx);
	/* the same serial again: nothing newer; an older one: refused */
	rx = (struct dns_xfr_rx){ .origin = ORG, .id = 7 };
	CHECK_EQ(feed(&rx, m, 3, &err, why, sizeof(why)), 0);
	CHECK_EQ(dns_xfr_result(&rx, &out, true, 10, &none, &ix, &err, why, sizeof(why)), 0);
	CHECK(dns_xfr_result(&rx, &out, true, 11, &none, &ix, &err, why, sizeof(why)) < 0);
	CHECK_EQ(err, DNS_XE_SERIAL);
	CHECK_MSG(strstr(why, "not newer") != NULL, "%s", why);
	dns_xfr_rx_free(&rx);
	dns_recs_free(&out);
}

TFO_TEST(broken_messages)
{
	static struct mb m;
	struct dns_xfr_rx rx = { .origin = ORG, .id = 7 };
	enum dns_xfr_err err;
	char why[256];

	/* another ID */
	msg_start(&m, 8, DNS_T_AXFR, 0);
	zone_body(&m, 1, 1);
	CHECK(dns_xfr_msg(&rx, m.b, m.n, &err, why, sizeof(why)) < 0);
	CHECK_EQ(err, DNS_XE_MESSAGE);
	/* REFUSED by the primary (no transfer ACL) */
	msg_start(&m, 7, DNS_T_AXFR, DNS_R_REFUSED);
	CHECK(dns_xfr_msg(&rx, m.b, m.n, &err, why, sizeof(why)) < 0);
	CHECK_EQ(err, DNS_XE_RCODE);
	CHECK_MSG(strstr(why, "REFUSED") != NULL, "%s", why);
	/* a record outside the zone */
	msg_start(&m, 7, DNS_T_AXFR, 0);
	soa(&m, 1);
	a_rec(&m, (const uint8_t *)"\3www\7example\3org", 1);
	CHECK(dns_xfr_msg(&rx, m.b, m.n, &err, why, sizeof(why)) < 0);
	CHECK_EQ(err, DNS_XE_MESSAGE);
	CHECK_MSG(strstr(why, "outside the zone") != NULL, "%s", why);
	dns_xfr_rx_free(&rx);
	/* a compression loop, a pointer forward */
	rx = (struct dns_xfr_rx){ .origin = ORG, .id = 7 };
	msg_start(&m, 7, DNS_T_AXFR, 0);
	rr(&m, NULL, DNS_T_NS, "\3ns1\xc0\x00", 6);
	m.b[m.n - 2] = (uint8_t)((m.n - 6) >> 8 | 0xc0);
	m.b[m.n - 1] = (uint8_t)(m.n - 6);
	CHECK(dns_xfr_msg(&rx, m.b, m.n, &err, why, sizeof(why)) < 0);
	CHECK_EQ(err, DNS_XE_MESSAGE);
	/* a first record that is not the SOA, cut messages */
	msg_start(&m, 7, DNS_T_AXFR, 0);
	a_rec(&m, WWW, 1);
	CHECK(dns_xfr_msg(&rx, m.b, m.n, &err, why, sizeof(why)) < 0);
	dns_xfr_rx_free(&rx);
	rx = (struct dns_xfr_rx){ .origin = ORG, .id = 7 };
	msg_start(&m, 7, DNS_T_AXFR, 0);
	zone_body(&m, 1, 1);
	for (uint32_t cut = 0; cut < m.n; cut += 7) {
		CHECK(dns_xfr_msg(&rx, m.b, cut, &err, why, sizeof(why)) < 0);
		dns_xfr_rx_free(&rx);
		rx = (struct dns_xfr_rx){ .origin = ORG, .id = 7 };
	}
	CHECK_EQ(dns_xfr_msg(&rx, m.b, m.n, &err, why, sizeof(why)), 0);
	CHECK(rx.done);
	dns_xfr_rx_free(&rx);
}

/* The zone at serial 1 (www A .1) as held, from an AXFR. */
static void
held_zone(struct dns_recs *cur)
{
	static struct mb m;
	struct dns_xfr_rx rx = { .origin = ORG, .id = 1 };
	struct dns_recs none = { 0 };
	enum dns_xfr_err err;
	char why[256];
	bool ix;

	msg_start(&m, 1, DNS_T_AXFR, 0);
	zone_body(&m, 1, 1);
	REQUIRE(dns_xfr_msg(&rx, m.b, m.n, &err, why, sizeof(why)) == 0);
	REQUIRE(dns_xfr_result(&rx, &none, false, 0, cur, &ix, &err, why, sizeof(why)) == 1);
	dns_xfr_rx_free(&rx);
}

TFO_TEST(ixfr_diffs)
{
	static struct mb m;
	struct dns_xfr_rx rx = { .origin = ORG, .id = 2, .ixfr = true, .our_serial = 1 };
	struct dns_recs cur = { 0 }, out = { 0 };
	enum dns_xfr_err err = DNS_XE_NONE;
	const struct dns_rec *r;
	char why[256] = "";
	bool ix;

	held_zone(&cur);
	CHECK_EQ(cur.n, 4);
	/* RFC 1995 7's shape: 1 -> 2 changes www, 2 -> 3 adds a TXT */
	msg_start(&m, 2, DNS_T_IXFR, 0);
	soa(&m, 3);
	soa(&m, 1);
	a_rec(&m, WWW, 1);
	soa(&m, 2);
	a_rec(&m, WWW, 2);
	soa(&m, 2);
	soa(&m, 3);
	rr(&m, WWW, DNS_T_TXT, "\2hi", 3);
	soa(&m, 3);
	CHECK_EQ(dns_xfr_msg(&rx, m.b, m.n, &err, why, sizeof(why)), 0);
	CHECK(rx.done);
	CHECK(rx.incremental);
	CHECK_MSG(dns_xfr_result(&rx, &cur, true, 1, &out, &ix, &err, why, sizeof(why)) == 1,
		  "%s", why);
	CHECK(ix);
	CHECK_EQ(out.n, 5);
	CHECK_EQ(serial_of(&out), 3);
	r = find(&out, DNS_T_A, WWW);
	REQUIRE(r != NULL);
	CHECK_EQ(r->rdata[3], 2);
	CHECK(find(&out, DNS_T_TXT, WWW) != NULL);
	dns_recs_free(&out);
	dns_xfr_rx_free(&rx);

	/* a deletion of what we do not hold: refused (the caller asks AXFR) */
	rx = (struct dns_xfr_rx){ .origin = ORG, .id = 2, .ixfr = true, .our_serial = 1 };
	msg_start(&m, 2, DNS_T_IXFR, 0);
	soa(&m, 2);
	soa(&m, 1);
	a_rec(&m, WWW, 9);
	soa(&m, 2);
	soa(&m, 2);
	CHECK_EQ(dns_xfr_msg(&rx, m.b, m.n, &err, why, sizeof(why)), 0);
	CHECK(dns_xfr_result(&rx, &cur, true, 1, &out, &ix, &err, why, sizeof(why)) < 0);
	CHECK_EQ(err, DNS_XE_ZONE);
	CHECK_MSG(strstr(why, "not in the zone") != NULL, "%s", why);
	CHECK_EQ(out.n, 0);
	dns_xfr_rx_free(&rx);

	/* diffs from a serial we do not hold */
	rx = (struct dns_xfr_rx){ .origin = ORG, .id = 2, .ixfr = true, .our_serial = 1 };
	msg_start(&m, 2, DNS_T_IXFR, 0);
	soa(&m, 6);
	soa(&m, 5);
	soa(&m, 6);
	soa(&m, 6);
	CHECK_EQ(dns_xfr_msg(&rx, m.b, m.n, &err, why, sizeof(why)), 0);
	CHECK(dns_xfr_result(&rx, &cur, true, 1, &out, &ix, &err, why, sizeof(why)) < 0);
	CHECK_MSG(strstr(why, "from serial 5") != NULL, "%s", why);
	dns_xfr_rx_free(&rx);

	/* up to date: a lone SOA with our serial ends the transfer */
	rx = (struct dns_xfr_rx){ .origin = ORG, .id = 2, .ixfr = true, .our_serial = 1 };
	msg_start(&m, 2, DNS_T_IXFR, 0);
	soa(&m, 1);
	CHECK_EQ(dns_xfr_msg(&rx, m.b, m.n, &err, why, sizeof(why)), 0);
	CHECK(rx.done);
	CHECK_EQ(dns_xfr_result(&rx, &cur, true, 1, &out, &ix, &err, why, sizeof(why)), 0);
	dns_xfr_rx_free(&rx);

	/* an AXFR-style answer to an IXFR is taken whole */
	rx = (struct dns_xfr_rx){ .origin = ORG, .id = 2, .ixfr = true, .our_serial = 1 };
	msg_start(&m, 2, DNS_T_IXFR, 0);
	zone_body(&m, 4, 4);
	CHECK_EQ(dns_xfr_msg(&rx, m.b, m.n, &err, why, sizeof(why)), 0);
	CHECK(rx.done && !rx.incremental);
	CHECK_EQ(dns_xfr_result(&rx, &cur, true, 1, &out, &ix, &err, why, sizeof(why)), 1);
	CHECK(!ix);
	CHECK_EQ(serial_of(&out), 4);
	dns_recs_free(&out);
	dns_xfr_rx_free(&rx);
	dns_recs_free(&cur);
}

TFO_TEST(zone_set_from_wire)
{
	struct dns_recs cur = { 0 };
	uint8_t origin[1][DNS_NAME_MAX];
	struct dns_set *s = NULL;
	struct dns_lookup lk;
	char why[256] = "";
	int z;

	held_zone(&cur);
	memcpy(origin[0], ORG, sizeof(ORG));
	CHECK_MSG(dns_set_build(&cur, (const uint8_t (*)[DNS_NAME_MAX])origin, 1, 0, 1232,
				&s, why, sizeof(why), NULL) == 0, "%s", why);
	REQUIRE(s != NULL);
	CHECK_EQ(s->nb_records, 4);
	z = dns_set_zone_of(s, WWW);
	CHECK_EQ(z, 0);
	dns_set_lookup(s, z, WWW, DNS_T_A, &lk);
	CHECK_EQ(lk.kind, DNS_LK_NODE);
	CHECK(dns_set_block(s, &lk, DNS_T_A, false) != NULL);
	dns_set_free(s);
	/* an empty set (only secondaries, none transferred yet) builds */
	s = NULL;
	CHECK_MSG(dns_set_build(NULL, NULL, 0, 0, 1232, &s, why, sizeof(why), NULL) == 0,
		  "%s", why);
	CHECK(s != NULL && s->nb_zones == 0);
	CHECK_EQ(dns_set_zone_of(s, WWW), -1);
	dns_set_free(s);
	dns_recs_free(&cur);
}

TFO_TEST(notify_verdicts)
{
	struct dns_secondary_src src[2];
	unsigned int nb = 0;
	const uint8_t p4[4] = { 198, 18, 0, 1 }, o4[4] = { 198, 18, 0, 2 };
	uint8_t p6[16];
	char why[128];

	REQUIRE(dns_secondary_value("example.com:198.18.0.1 example.net:fd00::1", src, &nb, 2,
			      why, sizeof(why)) == 0);
	inet_pton(AF_INET6, "fd00::1", p6);
	CHECK_EQ(dns_notify_verdict(src, nb, ORG, AF_INET, p4), 0);
	CHECK_EQ(dns_notify_verdict(src, nb, (const uint8_t *)"\7example\3net", AF_INET6, p6), 1);
	/* another address, another family, a zone that is not secondary */
	CHECK_EQ(dns_notify_verdict(src, nb, ORG, AF_INET, o4), -1);
	CHECK_EQ(dns_notify_verdict(src, nb, ORG, AF_INET6, p6), -1);
	CHECK_EQ(dns_notify_verdict(src, nb, (const uint8_t *)"\7example\3org", AF_INET, p4), -1);
	CHECK_EQ(dns_notify_verdict(src, nb, WWW, AF_INET, p4), -1);
}

/* ------------------------------------------------------------------ */
/* through the service, with a primary played by a thread              */

static const struct tfo_service *svc;
static uint64_t ctrs[TFO_SVC_MAX_COUNTERS];

enum prim_mode { PRIM_ZONE, PRIM_GARBAGE, PRIM_CUT };

struct prim {
	int lfd;
	uint16_t port;
	volatile uint32_t serial;	/* the version it serves */
	volatile int mode;
	volatile int stop;
	volatile unsigned int served;
	pthread_t th;
};

static void *
prim_main(void *arg)
{
	struct prim *p = arg;

	while (!p->stop) {
		static struct mb m;
		uint8_t q[600], pre[2];
		struct timeval tv = { 0, 200000 };
		ssize_t n;
		int fd = accept(p->lfd, NULL, NULL);

		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recv(fd, q, sizeof(q), 0);
		if (n >= 2 + DNS_HDR) {
			uint16_t id = (uint16_t)(q[2] << 8 | q[3]);
			uint16_t qt = (uint16_t)(q[2 + DNS_HDR + sizeof(ORG)] << 8 |
						 q[2 + DNS_HDR + sizeof(ORG) + 1]);

			msg_start(&m, id, qt, 0);
			zone_body(&m, p->serial, (uint8_t)p->serial);
			if (p->mode == PRIM_GARBAGE)
				memset(m.b + DNS_HDR, 0xc0, m.n - DNS_HDR);
			pre[0] = (uint8_t)(m.n >> 8);
			pre[1] = (uint8_t)m.n;
			send(fd, pre, 2, MSG_NOSIGNAL);
			send(fd, m.b, p->mode == PRIM_CUT ? m.n / 2 : m.n, MSG_NOSIGNAL);
			p->served++;
		}
		close(fd);
	}
	return NULL;
}

static int
prim_start(struct prim *p)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	struct timeval tv = { 0, 100000 };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p->lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(p->lfd, 4) < 0 || getsockname(p->lfd, (struct sockaddr *)&a, &al) < 0)
		return -1;
	setsockopt(p->lfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	p->port = ntohs(a.sin_port);
	return pthread_create(&p->th, NULL, prim_main, p);
}

static uint64_t
ctr(const char *name)
{
	for (unsigned int i = 0; svc->counters[i].name != NULL; i++)
		if (strcmp(svc->counters[i].name, name) == 0)
			return ctrs[i];
	CHECK_MSG(false, "no counter %s", name);
	return 0;
}

static uint8_t ans[2048];

/* A UDP message for @p name/@p qtype, opcode @p op, from @p src; the
 * answer's rcode (its header in ans), or -1: not answered. */
static int
ask_on(void *state, const uint8_t *name, uint16_t qtype, uint8_t op, const uint8_t src[4],
       bool tcp)
{
	struct tfo_svc_ctx ctx = {
		.family = AF_INET, .transport = tcp ? TFO_SVC_TCP : TFO_SVC_UDP,
		.dst_port = 53, .udp_max = tcp ? 0 : 1472, .counters = ctrs,
	};
	static uint8_t buf[sizeof(ans) + 2];
	struct tfo_svc_resp r = { .buf = buf, .buf_cap = sizeof(buf) };
	uint8_t b[300] = { 0 }, *q = b + (tcp ? 2 : 0);
	unsigned int nl = dns_name_len(name), pre = tcp ? 2 : 0;

	q[0] = 0x55;
	q[1] = 0x66;
	q[2] = (uint8_t)(op << 3);
	q[5] = 1;
	memcpy(ctx.src_addr, src, 4);
	memcpy(q + DNS_HDR, name, nl);
	q[DNS_HDR + nl + 1] = (uint8_t)qtype;
	q[DNS_HDR + nl + 3] = DNS_CLASS_IN;
	b[1] = (uint8_t)(DNS_HDR + nl + 4);
	if (svc->handle(state, &ctx, b, pre + DNS_HDR + nl + 4, &r) != TFO_SVC_RESPOND)
		return -1;
	memcpy(ans, buf + pre, r.buf_len - pre);
	return ans[3] & 0x0f;
}

static int
ask(void *state, const uint8_t *name, uint16_t qtype, uint8_t op, const uint8_t src[4])
{
	return ask_on(state, name, qtype, op, src, false);
}

/* Wait up to @p ms for www.example.com's A to end in @p last. */
static bool
served(void *state, uint8_t last, unsigned int ms)
{
	const uint8_t lo[4] = { 127, 0, 0, 1 };

	for (unsigned int t = 0; t < ms; t += 20) {
		if (ask(state, WWW, DNS_T_A, 0, lo) == DNS_R_NOERROR && ans[7] == 1 &&
		    ans[DNS_HDR + sizeof(WWW) + 4 + 12 + 3] == last)
			return true;
		usleep(20000);
	}
	return false;
}

TFO_TEST(service)
{
	static struct prim p = { .serial = 5 };
	const uint8_t lo[4] = { 127, 0, 0, 1 }, other[4] = { 198, 18, 0, 7 };
	char val[64], m[512];
	struct tfo_service_kv kv[] = {
		{ "zone", "example.org:" ZDIR "/example.org.zone" },
		{ "secondary", val },
		{ "reload_drain", "1" },
	};
	struct tfo_service_args a = { .port = 53, .udp = true, .nb_kv = 3, .kv = kv };
	void *st = NULL;
	uint64_t f0;

	REQUIRE(svc != NULL);
	if (prim_start(&p) != 0) {
		tfo_test_skip("no TCP listener on 127.0.0.1: %s", strerror(errno));
		return;
	}
	/* the primary answers after the service started: SERVFAIL until then */
	p.stop = 0;
	snprintf(val, sizeof(val), "example.com:127.0.0.1@%u", p.port);
	CHECK_EQ(svc->check(&a, m, sizeof(m)), 0);
	REQUIRE(svc->create(&a, &st) == 0);
	CHECK_MSG(served(st, 5, 3000), "serial 5 not served");
	CHECK(ctr("dns_xfr_ok") >= 1);
	/* the file zone still serves; NOTIFY from elsewhere, for the file
	 * zone, of another type: REFUSED */
	CHECK_EQ(ask(st, (const uint8_t *)"\3www\7example\3org", DNS_T_A, 0, lo), 0);
	CHECK_EQ(ask(st, ORG, DNS_T_SOA, DNS_OP_NOTIFY, other), DNS_R_REFUSED);
	CHECK_EQ(ask(st, (const uint8_t *)"\7example\3org", DNS_T_SOA, DNS_OP_NOTIFY, lo),
		 DNS_R_REFUSED);
	CHECK_EQ(ctr("dns_xfr_notify_refused"), 2);
	/* a new version: NOTIFY from the primary, NOERROR with AA */
	p.serial = 6;
	CHECK_EQ(ask(st, ORG, DNS_T_SOA, DNS_OP_NOTIFY, lo), DNS_R_NOERROR);
	CHECK_EQ(ans[2], 0x80 | DNS_OP_NOTIFY << 3 | 0x04);
	CHECK_EQ(ctr("dns_xfr_notify"), 1);
	CHECK_MSG(served(st, 6, 3000), "serial 6 not served after NOTIFY");
	/* over TCP the same (RFC 1996 3.1 allows it) */
	CHECK_EQ(ask_on(st, ORG, DNS_T_SOA, DNS_OP_NOTIFY, lo, true), DNS_R_NOERROR);
	CHECK_EQ(ask_on(st, ORG, DNS_T_SOA, DNS_OP_NOTIFY, other, true), DNS_R_REFUSED);
	CHECK_EQ(ctr("dns_xfr_notify"), 2);
	/* the old sets drain and are freed */
	usleep(1100 * 1000);
	svc->reclaim(st, NULL, NULL);
	/* a primary that sends garbage, then one that cuts the stream: the
	 * old zone keeps serving, each failure counted */
	f0 = ctr("dns_xfr_failed_message") + ctr("dns_xfr_failed_truncated");
	p.serial = 7;
	p.mode = PRIM_GARBAGE;
	CHECK_EQ(ask(st, ORG, DNS_T_SOA, DNS_OP_NOTIFY, lo), DNS_R_NOERROR);
	for (unsigned int t = 0; t < 3000 && p.served < 4; t += 20)
		usleep(20000);
	p.mode = PRIM_CUT;
	CHECK_EQ(ask(st, ORG, DNS_T_SOA, DNS_OP_NOTIFY, lo), DNS_R_NOERROR);
	usleep(2000 * 1000);
	CHECK(served(st, 6, 100));
	CHECK_MSG(ctr("dns_xfr_failed_message") + ctr("dns_xfr_failed_truncated") >= f0 + 2,
		  "failures %u", (unsigned int)(ctr("dns_xfr_failed_message") +
						ctr("dns_xfr_failed_truncated")));
	/* a reload keeps the transferred zone */
	usleep(1100 * 1000);
	svc->reclaim(st, NULL, NULL);
	CHECK_MSG(svc->reload(st, m, sizeof(m)) == 1, "%s", m);
	CHECK(served(st, 6, 100));
	svc->destroy(st);
	p.stop = 1;
	pthread_join(p.th, NULL);
	close(p.lfd);
}

TFO_TEST(service_expire)
{
	static struct prim p = { .serial = 9 };
	const uint8_t lo[4] = { 127, 0, 0, 1 };
	char val[64];
	struct tfo_service_kv kv[] = { { "secondary", val }, { "reload_drain", "1" } };
	struct tfo_service_args a = { .port = 53, .udp = true, .nb_kv = 2, .kv = kv };
	void *st = NULL;
	uint64_t e0 = ctr("dns_xfr_expired");
	unsigned int t;

	/* refresh and retry 1 s, expire 2 s */
	soa_timers[0] = 1;
	soa_timers[1] = 1;
	soa_timers[2] = 2;
	if (prim_start(&p) != 0) {
		tfo_test_skip("no TCP listener on 127.0.0.1: %s", strerror(errno));
		return;
	}
	snprintf(val, sizeof(val), "example.com:127.0.0.1@%u", p.port);
	REQUIRE(svc->create(&a, &st) == 0);
	CHECK_MSG(served(st, 9, 3000), "serial 9 not served");
	/* refreshed with the same serial: still served past expire */
	usleep(2500 * 1000);
	CHECK(served(st, 9, 100));
	CHECK(ctr("dns_xfr_uptodate") >= 1);
	/* the primary breaks every stream: SERVFAIL once expire passes */
	p.mode = PRIM_CUT;
	for (t = 0; t < 5000 && ask(st, WWW, DNS_T_A, 0, lo) != DNS_R_SERVFAIL; t += 50)
		usleep(50000);
	CHECK_MSG(t >= 1000 && t < 5000, "SERVFAIL after %u ms", t);
	CHECK_EQ(ctr("dns_xfr_expired"), e0 + 1);
	/* back: served again (first-version retry, 5 s) */
	p.mode = PRIM_ZONE;
	CHECK_MSG(served(st, 9, 8000), "not served again after the primary came back");
	svc->destroy(st);
	p.stop = 1;
	pthread_join(p.th, NULL);
	close(p.lfd);
	soa_timers[0] = 3600;
	soa_timers[1] = 600;
	soa_timers[2] = 86400;
}

TFO_TEST(service_no_primary)
{
	const uint8_t lo[4] = { 127, 0, 0, 1 };
	struct tfo_service_kv kv[] = { { "secondary", "example.com:127.0.0.1@1" } };
	struct tfo_service_args a = { .port = 53, .udp = true, .nb_kv = 1, .kv = kv };
	void *st = NULL;
	uint64_t f0 = ctr("dns_xfr_failed_connect");

	/* secondaries alone are a valid configuration */
	REQUIRE(svc->create(&a, &st) == 0);
	usleep(300 * 1000);
	/* not transferred: SERVFAIL (RFC 1034 4.3.5), other names REFUSED */
	CHECK_EQ(ask(st, WWW, DNS_T_A, 0, lo), DNS_R_SERVFAIL);
	CHECK_EQ(ask(st, (const uint8_t *)"\3www\7example\3org", DNS_T_A, 0, lo),
		 DNS_R_REFUSED);
	CHECK(ctr("dns_xfr_failed_connect") >= f0 + 1);
	svc->destroy(st);
}

TFO_TEST(config_refused)
{
	struct tfo_service_kv kv[] = {
		{ "zone", "example.org:" ZDIR "/example.org.zone" },
		{ "secondary", "example.org:198.18.0.1" },
	};
	struct tfo_service_args a = { .port = 53, .nb_kv = 2, .kv = kv };
	char why[512];

	CHECK(svc->check(&a, why, sizeof(why)) < 0);
	CHECK_MSG(strstr(why, "keep one") != NULL, "%s", why);
	CHECK(svc->check_key("secondary", "example.org", why, sizeof(why)) < 0);
	CHECK(svc->check_key("secondary", "example.org:198.18.0.1@53", why, sizeof(why)) == 0);
	a.nb_kv = 0;
	CHECK(svc->check(&a, why, sizeof(why)) < 0);
	CHECK_MSG(strstr(why, "secondary = ORIGIN:ADDRESS") != NULL, "%s", why);
}

int
main(int argc, char **argv)
{
	tfo_test_eal_init("test_dns_xfr", 256, NULL);
	svc = tfo_service_find("dns");
	return tfo_test_run_all(argc, argv);
}
