/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TCP engine scenarios, the connection table
 * and options: timestamps and PAWS, hash bursts against open, many
 * connections and their timers, VLAN without timestamps or wscale, buffer
 * exhaustion, the memory plan against the engine's create, a burst's
 * lookup result gone stale (freed, reused by an open), a close without
 * TIME-WAIT.
 */
#include "engine_scenario.h"

TFO_TEST(timestamps_echo_and_paws)
{
	struct harness h;
	struct cl c;
	uint32_t tv;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40026, 80);
	plain_open(&c);
	tv = c.tsval;
	cl_send(&c, TFO_TCP_ACK, "1", 1);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->o.tsecr, tv);
	cl_recv(&c);
	h_clear(&h);
	/* an old timestamp: dropped (PAWS), answered with an ACK */
	c.tsval = tv - 10;
	cl_send(&c, TFO_TCP_ACK, "0\n", 2);
	c.snd_nxt -= 2;
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.ack, c.snd_nxt);
	CHECK_EQ(h_stat(&h, "drop_paws"), 1);
	/* header prediction's edges go the generic path's way: URG is
	 * data as before, out of order is dropped, and a TSval equal to
	 * TS.Recent is not old (RFC 7323 5.3) */
	c.tsval = tv + 10;
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_URG, "0", 1);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.ack, c.snd_nxt);
	cl_recv(&c);
	h_clear(&h);
	c.snd_nxt += 5;
	cl_send(&c, TFO_TCP_ACK, "3", 1);
	c.snd_nxt -= 6;
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.ack, c.snd_nxt);
	CHECK_EQ(h_stat(&h, "rx_ooo_drop"), 1);
	cl_recv(&c);
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, "\n", 1);
	cl_recv(&c);
	CHECK_EQ(h_stat(&h, "drop_paws"), 1);	/* the old one's only */
	CHECK(rx_is(&c, "10\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/* The worker's batched ISN/TSval-offset hashes (SIMD lanes, or scalar for
 * 1 or 2) are the values the engine computes alone for each open. */
TFO_TEST(conn_hash_burst_matches_open)
{
	enum { N = 11 };
	static const unsigned int sizes[] = { 1, 2, 3, 4, 9, N };
	struct harness h;
	struct cl c[N];
	struct tfo_pkt p[N];
	const struct tfo_pkt *pp[N];
	struct tfo_conn *conn[N];
	uint64_t now[N], hash[TFO_TX_BUF];

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	for (unsigned int i = 0; i < N; i++) {
		struct rte_mbuf *m;

		cl_init(&c[i], &h, i % 3 == 2 ? AF_INET6 : AF_INET,
			(uint16_t)(40200 + 7 * i), i % 2 ? 7 : 80);
		c[i].addr_idx = (uint8_t)(i % 4);
		now[i] = h.now;
		plain_open(&c[i]);
		REQUIRE(c[i].synced);
		m = cl_frame(&c[i], TFO_TCP_ACK, c[i].snd_nxt, c[i].rcv_nxt, NULL, 0);
		REQUIRE(tfo_pkt_classify(m, &h.srv_port, &p[i]) == TFO_PKT_TCP);
		rte_pktmbuf_free(m);
		pp[i] = &p[i];
		h_advance(&h, 1234);
	}
	tfo_engine_lookup_bulk(h.e, pp, N, conn);
	for (unsigned int s = 0; s < RTE_DIM(sizes); s++) {
		unsigned int n = sizes[s], first = N - n;

		tfo_engine_conn_hash_burst(h.e, &pp[first], n, hash);
		for (unsigned int i = 0; i < n; i++) {
			unsigned int k = first + i;

			REQUIRE(conn[k] != NULL);
			CHECK_EQ(c[k].irs, (uint32_t)hash[i] + (uint32_t)(now[k] >> 2));
			CHECK_EQ(conn[k]->ts_off, (uint32_t)(hash[i] >> 32));
		}
	}
	for (unsigned int i = 0; i < N; i++)	/* the clients walk away */
		cl_send(&c[i], TFO_TCP_RST, NULL, 0);
	CHECK(h_finish(&h, 5) == 0);
	for (unsigned int i = 0; i < N; i++)
		cl_free(&c[i]);
}

TFO_TEST(many_connections_table_and_timers)
{
	struct harness h;
	const unsigned int n = 500;
	struct cl *c = calloc(n, sizeof(*c));

	REQUIRE(c != NULL);
	h_init(&h, n);
	h.prm.tfo_pending_limit = n;
	h.prm.nb_bufs = n;
	REQUIRE(h_start(&h) == 0);
	for (unsigned int i = 0; i < n; i++) {
		cl_init(&c[i], &h, i & 1 ? AF_INET6 : AF_INET, (uint16_t)(20000 + i), 80);
		c[i].addr_idx = (uint8_t)(i % 4);
		c[i].tfo = CL_COOKIE;
		cl_syn(&c[i], "50k\n", 4);
	}
	CHECK_EQ(tfo_engine_free_conns(h.e), 0);
	for (unsigned int i = 0; i < n; i++) {
		cl_recv(&c[i]);
		if (!rx_is(&c[i], "50k\n")) {
			CHECK_MSG(0, "conn %u", i);
			break;
		}
		cl_send(&c[i], TFO_TCP_ACK, NULL, 0);
	}
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 0);
	/* idle timeout closes them all; the clients never answer: FIN
	 * retransmissions, then RSTs */
	CHECK(h_finish(&h, 120) == 0);
	CHECK_EQ(h_stat(&h, "conns_idle_timeout"), n);
	for (unsigned int i = 0; i < n; i++)
		cl_free(&c[i]);
	free(c);
}

/* A VLAN-tagged client without timestamps or window scale. */
TFO_TEST(vlan_no_timestamps_no_wscale)
{
	struct harness h;
	struct cl c;
	const struct h_seg *s;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 43100, 80);
	c.vlan = 100;
	c.ts = false;
	c.ws = false;
	c.mss = 536;
	c.tfo = CL_COOKIE;
	cl_syn(&c, "2000\n", 5);
	REQUIRE(cl_nsegs(&c) >= 2);
	s = seg(&c, 0);
	CHECK(s->p.has_vlan && s->p.vlan_tci == 100);
	CHECK(!s->o.has_ts && !s->o.has_wscale && s->o.has_mss);
	/* MSS - the options: MSS and NOP,NOP,SACK-permitted */
	CHECK_EQ(s->len, 536 - 8);
	for (unsigned int i = 1; i < cl_nsegs(&c); i++) {
		s = seg(&c, i);
		CHECK(s->p.has_vlan && s->p.vlan_tci == 100);
		CHECK(s->len <= 536 && s->p.l4_len == 20);	/* no options */
	}
	ack_each_until_fin(&c, 10);
	CHECK(rx_is(&c, "2000\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/* No buffer for a TFO SYN's response: its data is not acked (the client
 * sends it again after the handshake) and it is served once one is free. */
TFO_TEST(buffer_exhaustion_falls_back)
{
	struct harness h;
	struct cl a, b;

	h_init(&h, 16);
	h.prm.nb_bufs = 1;
	REQUIRE(h_start(&h) == 0);
	cl_init(&a, &h, AF_INET, 43000, 80);
	cl_init(&b, &h, AF_INET, 43001, 80);
	a.tfo = b.tfo = CL_COOKIE;
	cl_syn(&a, "100\n", 4);
	cl_syn(&b, "200\n", 4);
	REQUIRE(cl_nsegs(&b) == 1);
	CHECK_EQ(seg(&b, 0)->p.ack, b.iss + 1);	/* only the SYN */
	CHECK_EQ(h_stat(&h, "buf_pool_empty"), 1);
	CHECK_EQ(h_stat(&h, "syn_data_dropped"), 1);
	cl_recv(&a);
	cl_recv(&b);
	h_clear(&h);
	/* b resends its request with the handshake ACK: still no buffer */
	b.snd_nxt = b.iss + 1;
	cl_send(&b, TFO_TCP_ACK | TFO_TCP_PSH, "200\n", 4);
	REQUIRE(cl_nsegs(&b) == 1);
	CHECK_EQ(seg(&b, 0)->p.ack, b.iss + 1);
	/* a's response is acked: its buffer comes back; b retransmits */
	cl_send(&a, TFO_TCP_ACK, NULL, 0);
	h_rx(&h, cl_frame(&b, TFO_TCP_ACK | TFO_TCP_PSH, b.iss + 1, b.rcv_nxt, "200\n", 4));
	cl_recv(&b);
	CHECK(rx_is(&b, "200\n") && b.fin);
	CHECK(rx_is(&a, "100\n") && a.fin);
	client_close(&a);
	client_close(&b);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&a);
	cl_free(&b);
}

/*
 * --print-config's memory plan (start_plan.c) counts an engine with
 * tfo_engine_plan_memory, before the EAL: it must be what the engine then
 * allocates, part by part, for a worker's and a control lcore's engine
 * with TIME-WAIT, per-source tables and without.
 */
TFO_TEST(engine_plan_memory_matches_create)
{
	struct tfo_config c;

	tfo_config_defaults(&c);
	c.max_conns = 1000;
	c.time_wait_max = 5000;
	for (unsigned int v = 0; v < 4; v++) {
		bool control = v & 1;
		struct tfo_engine_params ep;
		struct harness h;
		size_t pt, pb, po, t, b, o;

		c.time_wait_ms = v & 2 ? 0 : 1000;
		c.pending_per_source = v & 2 ? 0 : 512;
		h_init(&h, 16);
		tfo_engine_params_from_config(&c, control, &ep);
		h.prm.max_conns = ep.max_conns;
		h.prm.max_request = ep.max_request;
		h.prm.time_wait_ms = ep.time_wait_ms;
		h.prm.time_wait_max = ep.time_wait_max;
		h.prm.tfo_pending_limit = ep.tfo_pending_limit;
		h.prm.tfo_pending_per_source = ep.tfo_pending_per_source;
		h.prm.conn_per_source = ep.conn_per_source;
		REQUIRE(tfo_engine_plan_memory(&h.prm, &pt, &pb, &po) == 0);
		REQUIRE(h_start(&h) == 0);
		tfo_engine_memory_detail(h.e, &t, &b, &o);
		CHECK_EQ(pt, t);
		CHECK_EQ(pb, b);
		CHECK_EQ(po, o);
		CHECK(t > (size_t)ep.max_conns * 128);	/* the entries at least */
		CHECK(h_finish(&h, 1) == 0);
	}
}

/* One segment of @p c, classified, as the worker holds it for a burst. */
static struct rte_mbuf *
burst_seg(struct cl *c, uint8_t flags, struct tfo_pkt *p)
{
	struct rte_mbuf *m = cl_frame(c, flags, c->snd_nxt, c->rcv_nxt, NULL, 0);

	RTE_VERIFY(tfo_pkt_classify(m, &c->h->srv_port, p) == TFO_PKT_TCP);
	return m;
}

/* tfo_engine_input as the worker calls it, what it sent flushed to h->out */
static int
burst_input(struct harness *h, struct tfo_conn *c, struct rte_mbuf *m,
	    const struct tfo_pkt *p)
{
	int r = tfo_engine_input(h->e, c, m, p, h->now);

	for (uint8_t i = 0; i < TFO_MAX_PORTS; i++)
		if (h->tx.q[i].n > 0)
			h->tx.flush(&h->tx, i);
	return r;
}

/*
 * A burst of @p c's RST and an ACK behind it, looked up at once; the RST
 * taken (the entry freed). @return the ACK, its lookup result in *@p conn.
 */
static struct rte_mbuf *
burst_rst_then_ack(struct cl *c, struct tfo_pkt *p, struct tfo_conn **conn)
{
	const struct tfo_pkt *pp[2] = { &p[0], &p[1] };
	struct tfo_conn *found[2];
	struct rte_mbuf *m[2];

	plain_open(c);
	m[0] = burst_seg(c, TFO_TCP_RST | TFO_TCP_ACK, &p[0]);
	m[1] = burst_seg(c, TFO_TCP_ACK, &p[1]);
	tfo_engine_lookup_bulk(c->h->e, pp, 2, found);
	RTE_VERIFY(found[0] != NULL && found[1] == found[0]);
	RTE_VERIFY(burst_input(c->h, found[0], m[0], &p[0]) == TFO_INPUT_DONE);
	*conn = found[1];
	return m[1];
}

/*
 * A burst's lookup result goes stale when an earlier segment of the burst
 * frees the entry, or frees it and an open gives it another tuple.
 * tfo_engine_input checks the tuple again only then (the entry CLOSED, or
 * an open since the lookup): a stale entry is looked up again (a miss
 * here) and never taken for the tuple it now holds, and an entry that is
 * still the segment's is served though an open came between.
 */
TFO_TEST(stale_lookup_after_free_and_reopen)
{
	struct harness h;
	struct cl a, b, c, d;
	struct tfo_pkt p[2];
	const struct tfo_pkt *pp[2] = { &p[0], &p[1] };
	struct tfo_conn *conn[2];
	struct rte_mbuf *m[2];

	h_init(&h, 4);
	REQUIRE(h_start(&h) == 0);

	/* freed by the burst's RST, no open since: the CLOSED entry */
	cl_init(&a, &h, AF_INET, 40301, 80);
	m[1] = burst_rst_then_ack(&a, p, &conn[1]);
	CHECK_EQ(h_stat(&h, "conns_closed_rst_rx"), 1);
	CHECK_EQ(burst_input(&h, conn[1], m[1], &p[1]), TFO_INPUT_MISS);
	rte_pktmbuf_free(m[1]);
	CHECK_EQ(h_stat(&h, "input_stale_conn"), 1);
	CHECK_EQ(h.n_out, 0);

	/* freed, then an open takes the entry for another tuple */
	cl_init(&b, &h, AF_INET, 40302, 80);
	m[1] = burst_rst_then_ack(&b, p, &conn[1]);
	CHECK_EQ(h_stat(&h, "conns_closed_rst_rx"), 2);
	cl_init(&c, &h, AF_INET, 40303, 80);
	cl_syn(&c, NULL, 0);
	cl_recv(&c);
	REQUIRE(conn[1]->state == TFO_CONN_SYN_RCVD && conn[1]->key.peer_port == 40303);
	h_clear(&h);
	CHECK_EQ(burst_input(&h, conn[1], m[1], &p[1]), TFO_INPUT_MISS);
	rte_pktmbuf_free(m[1]);
	CHECK_EQ(h_stat(&h, "input_stale_conn"), 2);
	CHECK_EQ(h.n_out, 0);			/* nothing sent for b on c's entry */
	CHECK_EQ(nstate(&h, TFO_CONN_SYN_RCVD), 1);	/* c's, untouched */
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	CHECK_EQ(nstate(&h, TFO_CONN_ESTABLISHED), 1);
	h_clear(&h);

	/* an open since the lookup, the entry still the segment's: served */
	m[0] = cl_frame(&c, TFO_TCP_ACK, c.snd_nxt, c.rcv_nxt, "10\n", 3);
	REQUIRE(tfo_pkt_classify(m[0], &h.srv_port, &p[0]) == TFO_PKT_TCP);
	c.snd_nxt += 3;
	tfo_engine_lookup_bulk(h.e, pp, 1, conn);
	REQUIRE(conn[0] != NULL);
	cl_init(&d, &h, AF_INET, 40304, 80);
	plain_open(&d);
	CHECK_EQ(burst_input(&h, conn[0], m[0], &p[0]), TFO_INPUT_DONE);
	CHECK_EQ(h_stat(&h, "input_stale_conn"), 2);
	ack_each_until_fin(&c, 8);
	CHECK(rx_is(&c, "10\n") && c.fin);
	client_close(&c);

	cl_send(&d, TFO_TCP_RST, NULL, 0);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&a);
	cl_free(&b);
	cl_free(&c);
	cl_free(&d);
}

/* With TIME-WAIT off the last ACK frees the entry at once: no record,
 * counted as a normal close that entered TIME-WAIT (as with a record). */
TFO_TEST(close_without_time_wait_frees_at_once)
{
	struct harness h;
	struct cl c;

	h_init(&h, 4);
	h.prm.time_wait_ms = 0;
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40311, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK, "10\n", 3);
	ack_each_until_fin(&c, 8);
	CHECK(rx_is(&c, "10\n") && c.fin);
	client_close(&c);
	CHECK_EQ(tfo_engine_free_conns(h.e), 4);
	CHECK_EQ(tfo_engine_time_wait_count(h.e), 0);
	CHECK_EQ(h_stat(&h, "time_wait_entered"), 1);
	CHECK_EQ(h_stat(&h, "conns_closed_normal"), 1);
	CHECK(h_finish(&h, 1) == 0);
	cl_free(&c);
}
