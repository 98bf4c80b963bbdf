/* SPDX-License-Identifier: BSD-3-Clause
 * The service interface v2 as the engine keeps it (issue 26): in_syn per
 * request, a response's idle_ms, the services' counters, and UDP datagrams
 * (tfo_engine_udp_input, tfo_pkt_parse_udp, tfo_pkt_prepend_udp).
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_udp.h>

#include "tcp/conn.h"
#include "tcp/latency.h"
#include "tfo/service.h"
#include "net/tx.h"
#include "engine_harness.h"
#include "test.h"

#define MS 1000ull

static void
log_reset(void)
{
	memset(&h_gen_log, 0, sizeof(h_gen_log));
}

static const struct h_seg *
seg(const struct cl *c, unsigned int nth)
{
	int i = cl_seg(c, nth);

	return i < 0 ? NULL : &c->h->out[i];
}

/* The client acks what it got and closes; the server's FIN was sent. */
static void
ack_all(struct cl *c)
{
	cl_recv(c);
	cl_send(c, TFO_TCP_ACK, NULL, 0);
	cl_recv(c);
}

/* A whole request in the SYN: 1; the next one, after the handshake: 0. */
TFO_TEST(in_syn_whole_request_then_not)
{
	struct harness h;
	struct cl c;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	log_reset();
	cl_init(&c, &h, AF_INET, 41001, 80);
	c.tfo = CL_COOKIE;
	cl_syn(&c, "10k\n", 4);
	ack_all(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "20\n", 3);
	ack_all(&c);
	REQUIRE(h_gen_log.n == 2);
	CHECK_EQ(h_gen_log.in_syn[0], 1);
	CHECK_EQ(h_gen_log.in_syn[1], 0);
	CHECK_EQ(h_gen_log.last.transport, TFO_SVC_TCP);
	CHECK_EQ(h_gen_log.last.family, AF_INET);
	CHECK_EQ(h_gen_log.last.src_port, 41001);
	CHECK_EQ(h_gen_log.last.dst_port, 80);
	CHECK_EQ(h_gen_log.last.udp_max, 0);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_FIN, NULL, 0);
	cl_recv(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/* A request begun in the SYN and completed after the handshake is in_syn;
 * so are the pipelined ones that begin in the SYN's bytes, served later
 * from the held bytes; the first that begins after them is not. */
TFO_TEST(in_syn_split_and_pipelined)
{
	struct harness h;
	struct cl c;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	log_reset();
	cl_init(&c, &h, AF_INET6, 41002, 80);
	c.tfo = CL_COOKIE;
	/* 1: whole; 2: whole, waits for 1's ACK; 3: begins in the SYN */
	cl_syn(&c, "10k\n20k\n3", 9);
	cl_recv(&c);
	REQUIRE(h_gen_log.n == 1);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);	/* 1 acked: 2 from the held bytes */
	cl_recv(&c);
	REQUIRE(h_gen_log.n == 2);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "0k\n5k\n", 6);	/* ends 3, then 4 */
	ack_all(&c);
	ack_all(&c);
	REQUIRE(h_gen_log.n == 4);
	CHECK_EQ(h_gen_log.in_syn[0], 1);
	CHECK_EQ(h_gen_log.in_syn[1], 1);
	CHECK_EQ(h_gen_log.in_syn[2], 1);	/* "30k": its '3' in the SYN */
	CHECK_EQ(h_gen_log.in_syn[3], 0);
	CHECK_EQ(h_gen_log.last.family, AF_INET6);
	/* keep-alive: our FIN, the server's, our last ACK */
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_FIN, NULL, 0);
	cl_recv(&c);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

TFO_TEST(in_syn_split_request)
{
	struct harness h;
	struct cl c;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	log_reset();
	cl_init(&c, &h, AF_INET, 41003, 80);
	c.tfo = CL_COOKIE;
	cl_syn(&c, "10", 2);		/* not a whole line: held */
	cl_recv(&c);
	CHECK_EQ(h_gen_log.n, 0);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "k\n", 2);
	ack_all(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "10\n", 3);
	ack_all(&c);
	REQUIRE(h_gen_log.n == 2);
	CHECK_EQ(h_gen_log.in_syn[0], 1);
	CHECK_EQ(h_gen_log.in_syn[1], 0);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_FIN, NULL, 0);
	cl_recv(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/* Without TFO nothing is in_syn: the plain SYN's data is not accepted. */
TFO_TEST(in_syn_zero_without_tfo)
{
	struct harness h;
	struct cl c;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	log_reset();
	cl_init(&c, &h, AF_INET, 41004, 80);
	cl_syn(&c, NULL, 0);
	cl_recv(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "10\n", 3);
	ack_all(&c);
	REQUIRE(h_gen_log.n == 1);
	CHECK_EQ(h_gen_log.in_syn[0], 0);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_FIN, NULL, 0);
	cl_recv(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/* A response's idle_ms replaces idle_timeout_ms (5000 here) until the next
 * response; 0 brings the default back. */
TFO_TEST(idle_ms_of_a_response)
{
	struct harness h;
	struct cl c;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 41005, 80);
	c.tfo = CL_COOKIE;
	cl_syn(&c, "10ki\n", 5);	/* idle 300 ms, asked in the SYN-ACK */
	ack_all(&c);
	h_clear(&h);
	h_advance(&h, 250 * MS);
	CHECK_EQ(cl_nsegs(&c), 0);
	h_advance(&h, 100 * MS);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_ACK | TFO_TCP_FIN);
	CHECK_EQ(h_stat(&h, "conns_idle_timeout"), 1);
	cl_recv(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_FIN, NULL, 0);
	cl_free(&c);

	/* 40 s (whole seconds), then a response without: 5 s again */
	cl_init(&c, &h, AF_INET, 41006, 80);
	c.tfo = CL_COOKIE;
	cl_syn(&c, "10kI\n", 5);
	ack_all(&c);
	h_clear(&h);
	h_advance(&h, 6000 * MS);
	CHECK_EQ(cl_nsegs(&c), 0);		/* past the default */
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "10k\n", 4);
	ack_all(&c);
	h_clear(&h);
	h_advance(&h, 4900 * MS);
	CHECK_EQ(cl_nsegs(&c), 0);
	h_advance(&h, 200 * MS);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_ACK | TFO_TCP_FIN);
	CHECK_EQ(h_stat(&h, "conns_idle_timeout"), 2);
	cl_recv(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_FIN, NULL, 0);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/* ---- counters ----------------------------------------------------------- */

TFO_TEST(counters_check_names)
{
	static const struct tfo_svc_counter good[] = { { "t_a", "a" }, { "t_b", NULL },
						       { NULL, NULL } };
	static const struct tfo_svc_counter other[] = { { "u_a", "" }, { NULL, NULL } };
	static const struct tfo_svc_counter twice[] = { { "t_a", "" }, { "t_a", "" },
							{ NULL, NULL } };
	static const struct tfo_svc_counter builtin[] = { { "rx_pkts", "" }, { NULL, NULL } };
	static const struct tfo_svc_counter bare[] = { { "t_", "" }, { NULL, NULL } };
	static const struct tfo_svc_counter dash[] = { { "t_a-b", "" }, { NULL, NULL } };
	static struct tfo_svc_counter many[TFO_SVC_MAX_COUNTERS + 2];
	static char names[TFO_SVC_MAX_COUNTERS + 1][16];
	struct tfo_service s = { .name = "t" };
	struct tfo_service r = { .name = "rx" };
	struct tfo_svc_ctr_map map;
	struct tfo_service_inst a = { .svc = &s }, b = { .svc = &s };
	char why[160];

	CHECK_EQ(tfo_service_counters_check(&s, why, sizeof(why)), 0);	/* none */
	s.counters = good;
	CHECK_EQ(tfo_service_counters_check(&s, why, sizeof(why)), 2);
	s.counters = other;
	CHECK(tfo_service_counters_check(&s, why, sizeof(why)) < 0 &&
	      strstr(why, "must be named t_") != NULL);
	s.counters = twice;
	CHECK(tfo_service_counters_check(&s, why, sizeof(why)) < 0 &&
	      strstr(why, "twice") != NULL);
	r.counters = builtin;
	CHECK(tfo_service_counters_check(&r, why, sizeof(why)) < 0 &&
	      strstr(why, "built-in") != NULL);
	s.counters = bare;
	CHECK(tfo_service_counters_check(&s, why, sizeof(why)) < 0);
	s.counters = dash;
	CHECK(tfo_service_counters_check(&s, why, sizeof(why)) < 0);
	for (unsigned int i = 0; i <= TFO_SVC_MAX_COUNTERS; i++) {
		snprintf(names[i], sizeof(names[i]), "t_%u", i);
		many[i].name = names[i];
	}
	s.counters = many;
	CHECK(tfo_service_counters_check(&s, why, sizeof(why)) < 0 &&
	      strstr(why, "more than") != NULL);
	many[TFO_SVC_MAX_COUNTERS].name = NULL;
	CHECK_EQ(tfo_service_counters_check(&s, why, sizeof(why)), TFO_SVC_MAX_COUNTERS);

	/* the map: slots in order; the same names twice are refused */
	memset(&map, 0, sizeof(map));
	s.counters = good;
	CHECK_EQ(tfo_svc_ctr_map_add(&map, &a, why, sizeof(why)), 0);
	CHECK(map.nb == 2 && a.ctr_base == 0 && a.nb_ctr == 2);
	CHECK(strcmp(map.name[1], "t_b") == 0 && strcmp(map.help[1], "") == 0 &&
	      strcmp(map.service[0], "t") == 0);
	CHECK(tfo_svc_ctr_map_add(&map, &b, why, sizeof(why)) < 0 &&
	      strstr(why, "too") != NULL);
	/* the total is bounded */
	map.nb = TFO_SVC_STATS_MAX - 1;
	CHECK(tfo_svc_ctr_map_add(&map, &b, why, sizeof(why)) < 0 &&
	      strstr(why, "in all") != NULL);
}

/* "<service>_<NNN>" and "<service>_<NNN>_<reason>" count a status (the
 * stats line sums them by class); nothing else does. */
TFO_TEST(counters_status_from_names)
{
	static const struct tfo_svc_counter ctrs[] = {
		{ "t_200", "" }, { "t_404", "" }, { "t_400_host", "" }, { "t_599", "" },
		{ "t_100", "" }, { "t_600", "" }, { "t_099", "" }, { "t_2000", "" },
		{ "t_20", "" }, { "t_40x", "" }, { "t_range_ignored", "" },
		{ "t_404x", "" }, { NULL, NULL }
	};
	static const uint16_t want[] = { 200, 404, 400, 599, 100, 0, 0, 0, 0, 0, 0, 0 };
	struct tfo_service s = { .name = "t", .counters = ctrs };
	struct tfo_service_inst a = { .svc = &s };
	struct tfo_svc_ctr_map map;
	char why[160] = "";

	memset(&map, 0, sizeof(map));
	CHECK_MSG(tfo_svc_ctr_map_add(&map, &a, why, sizeof(why)) == 0, "%s", why);
	REQUIRE(map.nb == RTE_DIM(want));
	for (unsigned int i = 0; i < RTE_DIM(want); i++)
		CHECK_MSG(map.status[i] == want[i], "%s: %u", map.name[i], map.status[i]);
}

/* ctx->counters are the calling lcore's slots of the service. */
TFO_TEST(counters_reach_handle)
{
	struct harness h;
	struct cl c;

	h_init(&h, 16);
	h.svc[0].ctr_base = 5;
	h.svc[0].nb_ctr = 1;
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 41007, 80);
	cl_syn(&c, NULL, 0);
	cl_recv(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "10k\n20\n", 7);
	ack_all(&c);
	ack_all(&c);
	CHECK(h_gen_log.last.counters == &h.stats.svc[5]);
	CHECK_EQ(h.stats.svc[5], 2);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_FIN, NULL, 0);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/* ---- UDP ---------------------------------------------------------------- */

/* Hand @p m to the engine as a worker does; @return tfo_engine_udp_input's. */
static int
udp_in(struct harness *h, struct rte_mbuf *m)
{
	struct tfo_pkt p;
	int rc;

	if (tfo_pkt_classify(m, &h->srv_port, &p) != TFO_PKT_DROP ||
	    p.drop != TFO_PKT_DROP_l4_proto || p.l4proto != IPPROTO_UDP) {
		rte_pktmbuf_free(m);
		return -EPROTO;
	}
	rc = tfo_engine_udp_input(h->e, m, &p, 0);
	rte_pktmbuf_free(m);
	return rc;
}

/* The one answer queued since the last call, checked as a client parses
 * it (the device's checksum offload done first): its payload into @p out.
 * @return its length, or -1 if there is not exactly one good one. */
static int
udp_out(struct harness *h, uint8_t *out, uint16_t *dport)
{
	struct tfo_tx_q *q = &h->tx.q[0];
	struct rte_mbuf *m;
	struct tfo_pkt p;
	int n = -1;

	if (q->n != 1) {
		for (uint16_t i = 0; i < q->n; i++)
			rte_pktmbuf_free(q->pkts[i]);
		q->n = 0;
		return -1;
	}
	m = q->pkts[0];
	q->n = 0;
	if ((m->ol_flags & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_UDP_CKSUM) {
		uint32_t off = (uint32_t)m->l2_len + m->l3_len;
		struct rte_udp_hdr *uh = rte_pktmbuf_mtod_offset(m, struct rte_udp_hdr *, off);

		uh->dgram_cksum = (uint16_t)~tfo_cksum_fold(tfo_cksum_mbuf(m, off,
								     m->pkt_len - off));
	}
	if (tfo_pkt_classify(m, &h->cli_port, &p) == TFO_PKT_DROP &&
	    p.drop == TFO_PKT_DROP_l4_proto &&
	    tfo_pkt_parse_udp(m, false, &p) == TFO_PKT_UDP && p.sport != 0) {
		memcpy(out, rte_pktmbuf_mtod_offset(m, const uint8_t *, p.payload_off),
		       p.payload_len);
		*dport = p.dport;
		n = p.payload_len;
	}
	rte_pktmbuf_free(m);
	return n;
}

static void
udp_harness(struct harness *h)
{
	h_init(h, 16);
	h->svc[0].udp = true;		/* gen on 80 */
	h->svc[0].ctr_base = 0;
	h->svc[0].nb_ctr = 1;
	h->svc[1].udp = true;		/* echo on 7 */
	h->svc[1].ctr_base = 1;
	h->svc[1].nb_ctr = 3;
}

TFO_TEST(udp_echo_v4_v6_and_counters)
{
	struct harness h;
	uint8_t out[2048];
	uint16_t dport = 0;

	udp_harness(&h);
	REQUIRE(h_start(&h) == 0);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 7, "hello\n", 6, -1)), 1);
	CHECK(udp_out(&h, out, &dport) == 6 && memcmp(out, "hello\n", 6) == 0 &&
	      dport == 5353);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET6, 7, "hello6", 6, -1)), 1);
	CHECK(udp_out(&h, out, &dport) == 6 && memcmp(out, "hello6", 6) == 0);
	/* offloaded UDP checksum: the pseudo-header sum in the field */
	h.srv_port.tx_udp_cksum_offload = true;
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET6, 7, "offload", 7, -1)), 1);
	CHECK(udp_out(&h, out, &dport) == 7 && memcmp(out, "offload", 7) == 0);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 7, "offload4", 8, -1)), 1);
	CHECK(udp_out(&h, out, &dport) == 8);
	h.srv_port.tx_udp_cksum_offload = false;
	/* IPv4 without a checksum (0) is served */
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 7, "nosum", 5, 0)), 1);
	CHECK_EQ(udp_out(&h, out, &dport), 5);
	CHECK_EQ(h_stat(&h, "svc_udp_rx"), 5);
	CHECK_EQ(h_stat(&h, "svc_udp_tx"), 5);
	CHECK_EQ(h_stat(&h, "svc_responses"), 5);
	CHECK_EQ(h.stats.svc[1 + 2], 5);	/* echo_datagrams */
	CHECK_EQ(h.stats.svc[1 + 0], 0);	/* echo_lines: TCP only */
	CHECK(h_finish(&h, 5) == 0);
}

/* An answer is a request_to_response sample of the poll (no SYN one). */
TFO_TEST(udp_answer_latency_sample)
{
	static struct tfo_lat lat;
	struct harness h;
	uint8_t out[64];
	uint16_t dport;

	udp_harness(&h);
	tfo_lat_init(&lat, 1000000000ull);
	h.prm.lat = &lat;
	REQUIRE(h_start(&h) == 0);
	lat.t_rx = 1000000;
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 7, "lat\n", 4, -1)), 1);
	CHECK_EQ(lat.npend, 1u);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 80, "12", 2, -1)), 0);	/* dropped */
	CHECK_EQ(lat.npend, 1u);
	tfo_lat_flush(&lat, lat.t_rx + 3000);
	CHECK_EQ(tfo_lat_samples(&lat, TFO_LAT_REQ), 1u);
	CHECK_EQ(tfo_lat_samples(&lat, TFO_LAT_SYN), 0u);
	CHECK_EQ(udp_out(&h, out, &dport), 4);
	CHECK(h_finish(&h, 5) == 0);
}

TFO_TEST(udp_not_served_is_left_alone)
{
	struct harness h;

	udp_harness(&h);
	h.svc[0].udp = false;
	REQUIRE(h_start(&h) == 0);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 9, "x\n", 2, -1)), -ENOENT);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 80, "1\n", 2, -1)), -ENOENT);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET6, 80, "1\n", 2, -1)), -ENOENT);
	CHECK_EQ(h.tx.q[0].n, 0);
	CHECK_EQ(h_stat(&h, "svc_udp_rx"), 0);
	CHECK_EQ(h_stat(&h, "drop_udp_cksum"), 0);
	CHECK(h_finish(&h, 5) == 0);
}

TFO_TEST(udp_bad_headers_dropped)
{
	struct harness h;
	struct rte_mbuf *m;

	udp_harness(&h);
	REQUIRE(h_start(&h) == 0);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 7, "x\n", 2, 0x1234)), 0);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET6, 7, "x\n", 2, 0x1234)), 0);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET6, 7, "x\n", 2, 0)), 0);	/* none: v6 */
	CHECK_EQ(h_stat(&h, "drop_udp_cksum"), 3);
	/* a UDP length past the IP payload */
	m = h_udp_frame(&h, AF_INET, 7, "xy", 2, 0);
	rte_pktmbuf_mtod_offset(m, struct rte_udp_hdr *, 34)->dgram_len = rte_cpu_to_be_16(11);
	CHECK_EQ(udp_in(&h, m), 0);
	CHECK_EQ(h_stat(&h, "drop_udp_short"), 1);
	/* source port 0: nowhere to answer */
	m = h_udp_frame(&h, AF_INET, 7, "xy", 2, 0);
	rte_pktmbuf_mtod_offset(m, struct rte_udp_hdr *, 34)->src_port = 0;
	CHECK_EQ(udp_in(&h, m), 0);
	CHECK_EQ(h_stat(&h, "drop_udp_port"), 1);
	CHECK_EQ(h.tx.q[0].n, 0);
	CHECK_EQ(h_stat(&h, "svc_udp_rx"), 0);
	CHECK(h_finish(&h, 5) == 0);
}

/* What the service makes of a datagram, and what it is told. */
TFO_TEST(udp_service_outcomes)
{
	static const char big[] = "1500b\n";
	struct harness h;
	uint8_t out[2048];
	uint16_t dport;

	udp_harness(&h);
	REQUIRE(h_start(&h) == 0);
	log_reset();
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 80, "100\n", 4, -1)), 1);
	CHECK_EQ(udp_out(&h, out, &dport), 100);
	CHECK_EQ(h_gen_log.last.transport, TFO_SVC_UDP);
	CHECK_EQ(h_gen_log.last.in_syn, 0);
	CHECK_EQ(h_gen_log.last.udp_max, 1500 - 20 - 8);
	CHECK_EQ(h_gen_log.last.src_port, 5353);
	CHECK_EQ(h_gen_log.last.dst_port, 80);
	CHECK(memcmp(h_gen_log.last.dst_addr, h.srv_port.addrs[0].addr.b, 4) == 0);
	CHECK(h_gen_log.last.counters == &h.stats.svc[0]);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET6, 80, "1400\n", 5, -1)), 1);
	CHECK_EQ(udp_out(&h, out, &dport), 1400);
	CHECK_EQ(h_gen_log.last.udp_max, 1500 - 40 - 8);
	CHECK_EQ(h_gen_log.last.family, AF_INET6);
	/* each way to drop it */
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 80, "12", 2, -1)), 0);
	CHECK_EQ(h_stat(&h, "svc_udp_need_more"), 1);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 80, "1x\n", 3, -1)), 0);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 80, "5\nmore", 6, -1)), 0);	/* part */
	CHECK_EQ(h_stat(&h, "svc_udp_reject"), 2);
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 80, big, sizeof(big) - 1, -1)), 0);
	CHECK_EQ(h_stat(&h, "svc_udp_too_big"), 1);
	CHECK_EQ(h.tx.q[0].n, 0);
	CHECK_EQ(h_stat(&h, "svc_udp_rx"), 6);
	CHECK_EQ(h_stat(&h, "svc_udp_tx"), 2);
	CHECK_EQ(h.stats.svc[0], 5);	/* gen_requests: every complete line */
	/* a smaller MTU, a smaller udp_max */
	h.srv_port.mtu = 576;
	CHECK_EQ(udp_in(&h, h_udp_frame(&h, AF_INET, 80, "600\n", 4, -1)), 0);
	CHECK_EQ(h_gen_log.last.udp_max, 576 - 28);
	CHECK_EQ(h_stat(&h, "svc_udp_reject"), 3);	/* gen: n > buf_cap */
	CHECK(h_finish(&h, 5) == 0);
}

TFO_TEST_MAIN()
