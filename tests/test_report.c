/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the stats line (tfo_report_rates_line): from two counter
 * snapshots, rates per second over the real elapsed time, in key=value
 * form, in one stable order, the keys read every second always there and
 * the others only when not 0 (short at rest); fallbacks summed from their
 * named parts, drops with their top reason, imissed only from ports read
 * both times, busy shares of the busiest worker and control lcore.
 */
#include <errno.h>
#include <string.h>

#include "lcore/report.h"

#include "test.h"

#define HZ UINT64_C(1000000000)	/* 1 GHz: a tick is a nanosecond */

static struct tfo_report_snap prev, cur;
/* http's counters as the server's map names them (tfo/service.h): a
 * status counter ("http_404", "http_400_syntax") carries its status. */
static struct tfo_svc_ctr_map http_map;

static void
snaps(unsigned int workers, unsigned int controls, uint64_t secs_x1000)
{
	memset(&prev, 0, sizeof(prev));
	memset(&cur, 0, sizeof(cur));
	prev.tsc = 1000;
	cur.tsc = prev.tsc + HZ / 1000 * secs_x1000;
	prev.nb_workers = cur.nb_workers = workers;
	prev.nb_controls = cur.nb_controls = controls;
	http_map.nb = 0;
}

static void
add(enum tfo_stat_id id, uint64_t before, uint64_t delta)
{
	prev.total.c[id] = before;
	cur.total.c[id] = before + delta;
}

static void
add_http(const char *name, uint16_t status, uint64_t before, uint64_t delta)
{
	unsigned int i;

	for (i = 0; i < http_map.nb && strcmp(http_map.name[i], name) != 0; i++)
		;
	if (i == http_map.nb) {
		http_map.name[i] = name;
		http_map.service[i] = "http";
		http_map.status[i] = status;
		http_map.nb++;
	}
	prev.svc = cur.svc = &http_map;
	prev.total.svc[i] = before;
	cur.total.svc[i] = before + delta;
}

/* Every figure from known deltas over 2 s: the whole line, byte for byte. */
TFO_TEST(rates_line_all_keys_from_two_snapshots)
{
	char line[512];
	int n;
	static const struct {
		enum tfo_stat_id id;
		uint64_t before, delta;
	} moved[] = {
		{ TFO_STAT_svc_responses, 5000, 2000 },
		{ TFO_STAT_TCPFastOpenPassive, 4000, 1800 },
		{ TFO_STAT_TCPFastOpenCookieReqd, 7, 100 },
		{ TFO_STAT_TCPFastOpenPassiveFail, 0, 10 },
		{ TFO_STAT_TCPFastOpenListenOverflow, 1, 6 },
		{ TFO_STAT_tfo_pending_source_overflow, 0, 4 },
		{ TFO_STAT_ring_drop_full, 3, 6 },
		{ TFO_STAT_tx_drop_full, 0, 2 },
		{ TFO_STAT_drop_paws, 0, 50 },	/* engine segment drop: not a frame */
		{ TFO_STAT_rx_pkts, 123456, 4000 },
		{ TFO_STAT_tx_pkts, 123000, 3990 },
		{ TFO_STAT_mbuf_alloc_fail, 0, 4 },
	};

	snaps(2, 1, 2000);
	for (unsigned int i = 0; i < RTE_DIM(moved); i++)
		add(moved[i].id, moved[i].before, moved[i].delta);
	add_http("http_200", 200, 10, 1900);
	add_http("http_301", 301, 0, 10);
	add_http("http_304", 304, 0, 10);
	add_http("http_404", 404, 0, 3);
	add_http("http_400_syntax", 400, 0, 1);
	add_http("http_505", 505, 0, 2);
	cur.total.c[TFO_STAT_conns_active] = 42;
	prev.total.c[TFO_STAT_conns_active] = 1000;	/* a gauge: its level now */
	cur.total.c[TFO_STAT_tfo_pending] = 3;
	/* port 0 read both times, port 1 only now: left out */
	prev.nb_ports = cur.nb_ports = 2;
	prev.ports_ok = 1;
	cur.ports_ok = 3;
	prev.imissed[0] = 100;
	cur.imissed[0] = 114;
	cur.imissed[1] = 1000000;
	prev.nombuf[0] = 9;		/* the PMD's rx_nombuf, beside ours */
	cur.nombuf[0] = 11;
	prev.xsk[0].rx_fill_empty = 1;	/* an AF_XDP port's empty fill ring */
	cur.xsk[0].rx_fill_empty = 13;
	cur.xsk[1].rx_fill_empty = 500;	/* port 1: not read before */
	prev.worker_busy[0] = 77;
	cur.worker_busy[0] = 77 + HZ / 2;		/* 25% of 2 s */
	cur.worker_busy[1] = HZ / 10 * 12;		/* 60% */
	prev.control_busy[0] = 5;
	cur.control_busy[0] = 5 + HZ / 10;		/* 5% */

	n = tfo_report_rates_line(&prev, &cur, HZ, line, sizeof(line));
	CHECK_EQ(n, (int)strlen(line));
	CHECK_MSG(strcmp(line,
		"stats: txn=1000 tfo=900 fallback=60 cookie_req=50 bad_cookie=5"
		" over_limit=5 drops=4 drop_top=ring_drop_full imissed=7 rx=2000"
		" tx=1995 worker_busy_pct=60.0 worker_busiest=1 control_busy_pct=5.0"
		" control_busiest=0 http_2xx=950 http_3xx=10 http_4xx=2 http_5xx=1"
		" conns=42 pending=3 nombuf=3 fill_empty=6\n") == 0, "%s", line);
}

/* Every key of the line, in its order (the runbook's table follows it;
 * tests/docs_test.py reads this list), and those always there. */
static const char *const keys[] = {
	"txn", "tfo", "fallback", "cookie_req", "bad_cookie", "over_limit",
	"drops", "drop_top", "imissed", "rx", "tx", "worker_busy_pct",
	"worker_busiest", "control_busy_pct", "control_busiest", "http_2xx",
	"http_3xx", "http_4xx", "http_5xx", "conns", "pending", "nombuf", "fill_empty",
};
static const char *const always[] = {
	"txn", "tfo", "fallback", "drops", "imissed", "rx", "tx", "worker_busy_pct",
	"worker_busiest", "control_busy_pct", "control_busiest", "conns", "pending",
};

/* The keys of @p line (modified), in order, checked against @p want. */
static void
check_keys(char *line, const char *const *want, unsigned int nb)
{
	char *tok, *save = NULL;
	unsigned int k = 0;

	CHECK(strncmp(line, "stats:", 6) == 0);
	CHECK(line[strlen(line) - 1] == '\n' && strchr(line, '\n') == line + strlen(line) - 1);
	line[strlen(line) - 1] = '\0';
	for (tok = strtok_r(line + 6, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save)) {
		size_t kl = k < nb ? strlen(want[k]) : 0;

		CHECK_MSG(k < nb && strncmp(tok, want[k], kl) == 0 && tok[kl] == '=',
			  "key %u: %s", k, tok);
		k++;
	}
	CHECK_EQ(k, nb);
}

/* Every key moved: all of them, in the order of keys[]. */
TFO_TEST(rates_line_busy_has_every_key_in_order)
{
	char line[512];

	snaps(2, 1, 1000);
	for (unsigned int i = 0; i < TFO_STAT_MAX; i++)
		add((enum tfo_stat_id)i, 0, 1);
	add_http("http_200", 200, 0, 1);
	add_http("http_301", 301, 0, 1);
	add_http("http_400_host", 400, 0, 1);
	add_http("http_505", 505, 0, 1);
	prev.nb_ports = cur.nb_ports = 1;
	prev.ports_ok = cur.ports_ok = 1;
	cur.imissed[0] = cur.nombuf[0] = cur.xsk[0].rx_fill_empty = 1;
	REQUIRE(tfo_report_rates_line(&prev, &cur, HZ, line, sizeof(line)) > 0);
	check_keys(line, keys, RTE_DIM(keys));
}

/* Nothing happened: the keys read every second, in the same order, zeros
 * and "-" where there is no lcore; no drop_top, no zero parts; under 200
 * characters. */
TFO_TEST(rates_line_idle_keeps_the_fixed_keys_in_order)
{
	char line[512];
	int n;

	snaps(0, 1, 1000);
	n = tfo_report_rates_line(&prev, &cur, HZ, line, sizeof(line));
	REQUIRE(n > 0);
	CHECK_MSG(strcmp(line,
		"stats: txn=0 tfo=0 fallback=0 drops=0 imissed=0 rx=0 tx=0"
		" worker_busy_pct=0.0 worker_busiest=- control_busy_pct=0.0"
		" control_busiest=0 conns=0 pending=0\n") == 0, "%s", line);
	check_keys(line, always, RTE_DIM(always));
}

/* At rest as a real server is: ARP and ND now and then, a few keep-alive
 * connections, a little busy share, 8 workers and 2 controls: still short. */
TFO_TEST(rates_line_at_rest_under_200_characters)
{
	char line[512];
	int n;

	snaps(8, 2, 1000);
	add(TFO_STAT_rx_pkts, 1000000, 3);
	add(TFO_STAT_tx_pkts, 1000000, 3);
	cur.total.c[TFO_STAT_conns_active] = 12345678;
	cur.total.c[TFO_STAT_tfo_pending] = 1234;
	cur.worker_busy[7] = HZ / 1000;
	cur.control_busy[1] = HZ / 100;
	n = tfo_report_rates_line(&prev, &cur, HZ, line, sizeof(line));
	REQUIRE(n > 0);
	CHECK_MSG(n < 200, "%d: %s", n, line);
	CHECK_MSG(strstr(line, " rx=3 tx=3 worker_busy_pct=0.1 worker_busiest=7 "
			 "control_busy_pct=1.0 control_busiest=1 conns=12345678 pending=1234\n")
		  != NULL, "%s", line);
}

/* A key left out at rest comes back in the second its figure moves, in its
 * place: one of each alone. */
TFO_TEST(rates_line_moved_key_appears_in_its_place)
{
	static const struct {
		enum tfo_stat_id id;
		const char *after, *want;
	} one[] = {
		{ TFO_STAT_TCPFastOpenCookieReqd, " fallback=", " cookie_req=2 drops=0 " },
		{ TFO_STAT_TCPFastOpenPassiveFail, " fallback=", " bad_cookie=2 drops=0 " },
		{ TFO_STAT_tfo_pending_source_overflow, " fallback=", " over_limit=2 drops=0 " },
		{ TFO_STAT_ring_drop_full, " drops=", " drop_top=ring_drop_full imissed=0 " },
		{ TFO_STAT_mbuf_alloc_fail, " pending=", " nombuf=2\n" },
	};
	static const struct {
		const char *name;
		uint16_t status;
		const char *want;
	} cls[] = {
		{ "http_200", 200, " http_2xx=2 conns=" },
		{ "http_301", 301, " http_3xx=2 conns=" },
		{ "http_404", 404, " http_4xx=2 conns=" },
		{ "http_505", 505, " http_5xx=2 conns=" },
	};
	char line[512];

	for (unsigned int i = 0; i < RTE_DIM(one); i++) {
		snaps(1, 1, 1000);
		add(one[i].id, 7, 2);
		REQUIRE(tfo_report_rates_line(&prev, &cur, HZ, line, sizeof(line)) > 0);
		CHECK_MSG(strstr(line, one[i].want) != NULL &&
			  strstr(line, one[i].after) < strstr(line, one[i].want), "%u: %s", i, line);
	}
	snaps(1, 1, 1000);
	prev.nb_ports = cur.nb_ports = 1;
	prev.ports_ok = cur.ports_ok = 1;
	cur.xsk[0].rx_fill_empty = 3;
	REQUIRE(tfo_report_rates_line(&prev, &cur, HZ, line, sizeof(line)) > 0);
	CHECK_MSG(strstr(line, " pending=0 fill_empty=3\n") != NULL, "%s", line);
	/* http's classes, from its status counters */
	for (unsigned int i = 0; i < RTE_DIM(cls); i++) {
		snaps(1, 1, 1000);
		add_http(cls[i].name, cls[i].status, 7, 2);
		REQUIRE(tfo_report_rates_line(&prev, &cur, HZ, line, sizeof(line)) > 0);
		CHECK_MSG(strstr(line, cls[i].want) != NULL &&
			  strstr(line, " control_busiest=") < strstr(line, cls[i].want),
			  "%u: %s", i, line);
	}
}

/* A service's status counters (tfo/service.h) are summed by class in the
 * class's place and never shown one by one; its other counters come last
 * when they moved, as any service's. */
TFO_TEST(rates_line_status_counters_by_class)
{
	char line[512];

	snaps(1, 1, 1000);
	add_http("http_200", 200, 0, 5);
	add_http("http_204", 204, 0, 3);
	add_http("http_400_host", 400, 0, 1);
	add_http("http_404", 404, 0, 1);
	add_http("http_range_ignored", 0, 0, 4);
	add_http("http_ocsp_hit", 0, 9, 0);
	REQUIRE(tfo_report_rates_line(&prev, &cur, HZ, line, sizeof(line)) > 0);
	CHECK_MSG(strstr(line, " http_2xx=8 http_4xx=2 conns=0 pending=0 "
			 "http_range_ignored=4\n") != NULL, "%s", line);
	CHECK_MSG(strstr(line, "http_200") == NULL && strstr(line, "http_404") == NULL &&
		  strstr(line, "http_3xx") == NULL && strstr(line, "ocsp") == NULL, "%s", line);
}

/* Service counters: only those that moved in the interval, in their
 * order, after the fixed keys; at rest (dns's ~30 counters all 0) the
 * line stays short. */
TFO_TEST(rates_line_service_counters_only_when_nonzero)
{
	static struct tfo_svc_ctr_map map;
	char line[4096];
	int n;

	snaps(1, 1, 1000);
	map.nb = 30;
	for (unsigned int i = 0; i < map.nb; i++)
		map.name[i] = "dns_qtype_xx";
	map.name[3] = "dns_qtype_a";
	map.name[7] = "dns_qtype_aaaa";
	prev.svc = cur.svc = &map;
	n = tfo_report_rates_line(&prev, &cur, HZ, line, sizeof(line));
	REQUIRE(n > 0);
	CHECK_MSG(strstr(line, "dns_") == NULL, "%s", line);
	CHECK_MSG(strstr(line, " pending=0\n") != NULL, "%s", line);
	/* the fixed keys alone (the ~700 characters of a dns server's line
	 * were its zero counters) */
	CHECK_MSG(n < 200, "%d: %s", n, line);
	prev.total.svc[3] = 10;
	cur.total.svc[3] = 15;
	cur.total.svc[7] = 2;
	prev.total.svc[9] = 4;
	cur.total.svc[9] = 4;
	REQUIRE(tfo_report_rates_line(&prev, &cur, HZ, line, sizeof(line)) > 0);
	CHECK_MSG(strstr(line, " pending=0 dns_qtype_a=5 dns_qtype_aaaa=2\n") != NULL,
		  "%s", line);
}

/* A rate below 10/s keeps two significant digits: one drop a minute is not
 * rounded away; above 10 a whole number. */
TFO_TEST(rates_line_small_and_large_rates)
{
	char line[512];

	snaps(1, 1, 60000);
	add(TFO_STAT_drop_icmp_echo_rate, 0, 1);
	add(TFO_STAT_svc_responses, 0, 60 * 3 / 2);	/* 1.5/s */
	add(TFO_STAT_rx_pkts, 0, 60 * 1234);
	REQUIRE(tfo_report_rates_line(&prev, &cur, HZ, line, sizeof(line)) > 0);
	CHECK_MSG(strstr(line, " drops=0.017 drop_top=drop_icmp_echo_rate ") != NULL, "%s", line);
	CHECK_MSG(strstr(line, "stats: txn=1.5 ") != NULL, "%s", line);
	CHECK_MSG(strstr(line, " rx=1234 ") != NULL, "%s", line);
}

/* A counter that went down (a port's counters reset) counts 0, not 2^64;
 * a busy share past the interval (a poll straddling both) stops at 100. */
TFO_TEST(rates_line_counters_down_and_busy_capped)
{
	char line[512];

	snaps(3, 2, 1000);
	prev.nb_ports = cur.nb_ports = 1;
	prev.ports_ok = cur.ports_ok = 1;
	prev.imissed[0] = 500;
	cur.imissed[0] = 20;
	prev.total.c[TFO_STAT_tx_pkts] = 10;
	cur.worker_busy[2] = HZ + HZ / 100;
	cur.control_busy[1] = HZ / 4;
	REQUIRE(tfo_report_rates_line(&prev, &cur, HZ, line, sizeof(line)) > 0);
	CHECK_MSG(strstr(line, " imissed=0 rx=0 tx=0 ") != NULL, "%s", line);
	CHECK_MSG(strstr(line, " worker_busy_pct=100.0 worker_busiest=2 ") != NULL, "%s", line);
	CHECK_MSG(strstr(line, " control_busy_pct=25.0 control_busiest=1 ") != NULL, "%s", line);
}

TFO_TEST(rates_line_refuses_no_time_and_truncates_safely)
{
	char line[512], small[24];
	int n;

	snaps(1, 1, 1000);
	CHECK_EQ(tfo_report_rates_line(&prev, &cur, 0, line, sizeof(line)), -EINVAL);
	CHECK_EQ(tfo_report_rates_line(&cur, &prev, HZ, line, sizeof(line)), -EINVAL);
	CHECK_EQ(tfo_report_rates_line(&prev, &prev, HZ, line, sizeof(line)), -EINVAL);
	CHECK_EQ(tfo_report_rates_line(NULL, &cur, HZ, line, sizeof(line)), -EINVAL);
	n = tfo_report_rates_line(&prev, &cur, HZ, line, sizeof(line));
	memset(small, 'x', sizeof(small));
	CHECK_EQ(tfo_report_rates_line(&prev, &cur, HZ, small, sizeof(small)), n);
	CHECK(memchr(small, '\0', sizeof(small)) == small + sizeof(small) - 1);
	CHECK(strncmp(small, line, sizeof(small) - 1) == 0);
}

TFO_TEST_MAIN()
