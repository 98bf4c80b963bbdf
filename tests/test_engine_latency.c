/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TCP engine scenarios, latency histograms
 * and access-log records (tcp/latency.h, tcp/access_log.h).
 */
#include "engine_scenario.h"

/* ---- latency histograms and access-log records (tcp/latency.h) ---------- */

/* A 1 GHz TSC: 1000 ticks a microsecond. */
#define LAT_HZ 1000000000ull

TFO_TEST(latency_bucket_bounds)
{
	struct tfo_lat l;
	uint64_t counts[TFO_LAT_NB] = { 0 };

	l.alog = NULL;
	tfo_lat_init(&l, LAT_HZ);
	/* bucket b: less than 2^b us; 0: under 1 us; the last: +Inf */
	CHECK_EQ(tfo_lat_bucket(0, l.mul), 0u);
	CHECK_EQ(tfo_lat_bucket(999, l.mul), 0u);
	CHECK_EQ(tfo_lat_bucket(1000, l.mul), 1u);
	CHECK_EQ(tfo_lat_bucket(1999, l.mul), 1u);
	CHECK_EQ(tfo_lat_bucket(2000, l.mul), 2u);
	CHECK_EQ(tfo_lat_bucket(3999, l.mul), 2u);
	CHECK_EQ(tfo_lat_bucket(4000, l.mul), 3u);
	for (unsigned int b = 1; b < TFO_LAT_NB_LE; b++) {
		uint64_t at = tfo_lat_le_us(b - 1) * 1000;

		/* the bounds hold to 0.01 % (latency.h) */
		CHECK_EQ(tfo_lat_bucket(at, l.mul), b);
		CHECK_EQ(tfo_lat_bucket(at - at / 10000 - 1, l.mul), b - 1);
	}
	CHECK_EQ(tfo_lat_bucket(tfo_lat_le_us(TFO_LAT_NB_LE - 1) * 1000, l.mul),
		 (unsigned int)TFO_LAT_NB_LE);
	CHECK_EQ(tfo_lat_bucket(UINT64_C(1) << 52, l.mul), (unsigned int)TFO_LAT_NB_LE);
	/* a 2.445 GHz TSC (the bounds hold to 0.01 %) */
	tfo_lat_init(&l, 2445000000ull);
	CHECK_EQ(tfo_lat_bucket(2445, l.mul), 1u);
	CHECK_EQ(tfo_lat_bucket(2440, l.mul), 0u);
	CHECK_EQ(tfo_lat_bucket(2445ull * 1000, l.mul), 10u);	/* 1 ms: [512, 1024) */
	/* quantiles: bucket upper bounds */
	CHECK_EQ(tfo_lat_quantile_us(counts, 0.5), 0u);
	counts[2] = 90;
	counts[5] = 9;
	counts[TFO_LAT_NB_LE] = 1;
	CHECK_EQ(tfo_lat_quantile_us(counts, 0.5), 4u);
	CHECK_EQ(tfo_lat_quantile_us(counts, 0.9), 4u);
	CHECK_EQ(tfo_lat_quantile_us(counts, 0.95), 32u);
	CHECK_EQ(tfo_lat_quantile_us(counts, 1.0), UINT64_MAX);
}

/* What the engine measured for one TFO and one plain transaction, and the
 * access-log records they left on the ring. */
TFO_TEST(latency_histograms_and_access_log_records)
{
	static struct tfo_lat lat;
	struct tfo_alog_rec rec[4];
	struct tfo_alog_src *src;
	struct harness h;
	struct cl c, d;
	unsigned int n;

	h_init(&h, 16);
	src = tfo_alog_src_create("t_alog_eng", SOCKET_ID_ANY, 1, &h.stats);
	REQUIRE(src != NULL);
	lat.alog = src;
	tfo_lat_init(&lat, LAT_HZ);
	h.prm.lat = &lat;
	REQUIRE(h_start(&h) == 0);

	/* TFO: the request in the SYN, answered in the SYN-ACK: 3 us */
	lat.t_rx = 1000000;
	cl_init(&c, &h, AF_INET, 40100, 7);
	c.tfo = CL_COOKIE;
	cl_syn(&c, "hello\nmore", 6);
	CHECK_EQ(lat.npend, 1u);
	tfo_lat_flush(&lat, lat.t_rx + 3000);
	CHECK_EQ(lat.npend, 0u);
	CHECK_EQ(lat.count[TFO_LAT_REQ][2], 1u);
	CHECK_EQ(lat.count[TFO_LAT_SYN][2], 1u);
	CHECK_EQ(lat.sum_tsc[TFO_LAT_REQ], 3000u);
	cl_recv(&c);
	client_close(&c);

	/* plain: SYN, 50 us later the request, answered 1.5 us after it */
	lat.t_rx = 2000000;
	cl_init(&d, &h, AF_INET, 40101, 7);
	cl_syn(&d, NULL, 0);
	cl_recv(&d);
	CHECK_EQ(lat.npend, 0u);
	lat.t_rx += 50000;
	cl_send(&d, TFO_TCP_ACK, "abc\n", 4);
	CHECK_EQ(lat.npend, 1u);
	tfo_lat_flush(&lat, lat.t_rx + 1500);
	CHECK_EQ(lat.count[TFO_LAT_REQ][1], 1u);	/* 1.5 us: [1, 2) */
	CHECK_EQ(lat.count[TFO_LAT_SYN][6], 1u);	/* 51.5 us: [32, 64) */
	CHECK_EQ(tfo_lat_samples(&lat, TFO_LAT_REQ), 2u);
	CHECK_EQ(tfo_lat_samples(&lat, TFO_LAT_SYN), 2u);
	CHECK_EQ(tfo_lat_ticks_us(&lat, lat.sum_tsc[TFO_LAT_SYN]), 3u + 51u);
	cl_recv(&d);
	client_close(&d);

	/* one record per transaction (sample 1), with what it was */
	CHECK_EQ(h_stat(&h, "access_log_records"), 2u);
	CHECK_EQ(h_stat(&h, "access_log_drop_full"), 0u);
	n = rte_ring_sc_dequeue_burst_elem(src->ring, rec, sizeof(rec[0]), 4, NULL);
	REQUIRE(n == 2);
	CHECK_EQ(rec[0].peer_port, 40100);
	CHECK_EQ(rec[0].local_port, 7);
	CHECK(rec[0].flags & TFO_ALOG_F_TFO);
	CHECK(rec[0].req_len == 5 && memcmp(rec[0].req, "hello", 5) == 0);
	CHECK_EQ(rec[0].bytes, 6u);
	CHECK_EQ(rec[0].lat_us, 3u);
	CHECK_EQ(rec[0].tsc, 1003000u);
	CHECK_EQ(rec[0].family, AF_INET);
	CHECK_EQ(rec[1].peer_port, 40101);
	CHECK(!(rec[1].flags & TFO_ALOG_F_TFO));
	CHECK(rec[1].req_len == 3 && memcmp(rec[1].req, "abc", 3) == 0);
	CHECK_EQ(rec[1].lat_us, 1u);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
	cl_free(&d);
	tfo_alog_src_free(src);
}

/* More plain first responses in one poll than old_age holds: the engine
 * bins early (with the TSC of then) and every sample is counted once. */
TFO_TEST(latency_many_plain_first_responses_in_one_poll)
{
	static struct tfo_lat lat;
	static struct cl c[TFO_LAT_PEND + 6];
	const unsigned int n = RTE_DIM(c);
	struct harness h;

	h_init(&h, 2 * n);
	tfo_lat_init(&lat, LAT_HZ);
	h.prm.lat = &lat;
	REQUIRE(h_start(&h) == 0);
	lat.t_rx = rte_rdtsc() - 1000000;	/* the SYNs' poll, 1 ms ago */
	for (unsigned int i = 0; i < n; i++) {
		cl_init(&c[i], &h, AF_INET, (uint16_t)(41000 + i), 7);
		cl_syn(&c[i], NULL, 0);
		cl_recv(&c[i]);
	}
	lat.t_rx += 500000;			/* the requests' poll */
	for (unsigned int i = 0; i < n; i++)
		cl_send(&c[i], TFO_TCP_ACK, "x\n", 2);
	CHECK_EQ(lat.nold, n - TFO_LAT_PEND);	/* flushed once on the way */
	tfo_lat_flush(&lat, rte_rdtsc());
	CHECK_EQ(tfo_lat_samples(&lat, TFO_LAT_REQ), n);
	CHECK_EQ(tfo_lat_samples(&lat, TFO_LAT_SYN), n);
	/* every SYN came 0.5 ms before its request: at least 256 us more */
	CHECK(lat.sum_tsc[TFO_LAT_SYN] >= lat.sum_tsc[TFO_LAT_REQ] + (uint64_t)n * 499000);
	CHECK_EQ(lat.count[TFO_LAT_SYN][0] + lat.count[TFO_LAT_SYN][1], 0u);
	for (unsigned int i = 0; i < n; i++) {
		cl_recv(&c[i]);
		client_close(&c[i]);
		cl_free(&c[i]);
	}
	CHECK(h_finish(&h, 5) == 0);
}

/* A full ring drops the poll's records and counts them; sampling 1 in N. */
TFO_TEST(access_log_ring_full_and_sampling)
{
	static struct tfo_lat lat;
	static struct tfo_stats st;
	struct tfo_alog_src *src = tfo_alog_src_create("t_alog_full", SOCKET_ID_ANY, 3, &st);
	unsigned int taken = 0, cap;
	char line[512];
	struct tfo_alog a;
	struct tfo_alog_rec r;

	REQUIRE(src != NULL);
	cap = rte_ring_get_capacity(src->ring);
	lat.alog = src;
	tfo_lat_init(&lat, LAT_HZ);
	lat.t_rx = 100;
	/* as the engine does: a record per sampled response, the poll's
	 * flush when the stage is full */
	for (unsigned int i = 0; i < 3 * (cap + 40); i++) {
		lat.npend++;
		if (tfo_alog_sampled(src)) {
			struct tfo_alog_rec *rp;

			if (src->nstage == TFO_LAT_PEND)
				tfo_lat_flush(&lat, 2100);
			rp = &src->stage[src->nstage++];
			memset(rp->req, 'x', sizeof(rp->req));
			rp->req_len = 1;
			taken++;
		}
	}
	tfo_lat_flush(&lat, 2100);
	CHECK_EQ(taken, cap + 40);	/* 1 in 3 */
	CHECK_EQ(st.c[TFO_STAT_access_log_records], cap);
	CHECK_EQ(st.c[TFO_STAT_access_log_drop_full], 40u);
	CHECK_EQ(lat.count[TFO_LAT_REQ][2], 3ull * (cap + 40));	/* 2 us */

	/* the line control 0 writes for a record */
	memset(&a, 0, sizeof(a));
	a.tsc_hz = LAT_HZ;
	a.base_tsc = 1000;
	a.base_ns = 1764898200123000000ll;	/* 2025-12-05T01:30:00.123Z */
	a.svc_name[0] = "http";
	memset(&r, 0, sizeof(r));
	r.tsc = 1000 + 5000000;			/* 5 ms later */
	r.family = AF_INET;
	r.peer.b[0] = 198;
	r.peer.b[1] = 18;
	r.peer.b[3] = 2;
	r.peer_port = 41234;
	r.flags = TFO_ALOG_F_TFO;
	memcpy(r.req, "GET /\"a\" HTTP/1.1\x01", 18);
	r.req_len = 18;
	r.status = 200;
	r.bytes = 1234;
	r.lat_us = 5;
	tfo_alog_format(&a, &r, line, sizeof(line));
	CHECK(strcmp(line, "2025-12-05T01:30:00.128Z 198.18.0.2 41234 tfo http "
		      "\"GET /\\x22a\\x22 HTTP/1.1\\x01\" 200 1234 5\n") == 0);
	if (strcmp(line, "2025-12-05T01:30:00.128Z 198.18.0.2 41234 tfo http "
		      "\"GET /\\x22a\\x22 HTTP/1.1\\x01\" 200 1234 5\n") != 0)
		fprintf(stderr, "  line: %s", line);
	tfo_alog_src_free(src);
}
