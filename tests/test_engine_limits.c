/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TCP engine scenarios, limits and timeouts:
 * keep-alive and idle timeout, request timeout, per-source limits,
 * eviction, pool exhaustion and SYN cookies, requests too big, TIME-WAIT
 * records, pending TFO limits, echo over IPv6.
 */
#include "engine_scenario.h"

TFO_TEST(keepalive_two_requests_pipelining_and_idle_timeout)
{
	struct harness h;
	struct cl c;
	uint8_t exp[4096];
	uint32_t n1, n2;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40020, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "100k\n", 5);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK(!(seg(&c, 0)->p.tcp_flags & TFO_TCP_FIN));
	cl_recv(&c);
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "200k\n", 5);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->len, 200);
	cl_recv(&c);
	h_clear(&h);
	/* two pipelined requests in one segment: answered in order, the
	 * second once the first is acked */
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "30k\n40k\n", 8);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->len, 30);
	cl_recv(&c);
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->len, 40);
	cl_recv(&c);
	n1 = h_gen_expect("100k\n", exp, sizeof(exp));
	n2 = h_gen_expect("200k\n", exp + n1, sizeof(exp) - n1);
	n2 += h_gen_expect("30k\n", exp + n1 + n2, sizeof(exp) - n1 - n2);
	n2 += h_gen_expect("40k\n", exp + n1 + n2, sizeof(exp) - n1 - n2);
	CHECK(c.rx_len == n1 + n2 && memcmp(c.rx, exp, c.rx_len) == 0);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	h_clear(&h);
	h_advance(&h, 4900 * MS);
	CHECK_EQ(cl_nsegs(&c), 0);
	h_advance(&h, 200 * MS);	/* idle_timeout_ms 5000: we close */
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_ACK | TFO_TCP_FIN);
	CHECK_EQ(h_stat(&h, "conns_idle_timeout"), 1);
	client_close(&c);
	CHECK_EQ(nstate(&h, TFO_CONN_TIME_WAIT), 1);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/* One byte of a request line that never ends: only a bare ACK back. */
static void
trickle_byte(struct harness *h, struct cl *c)
{
	cl_send(c, TFO_TCP_ACK | TFO_TCP_PSH, "1", 1);
	CHECK(cl_nsegs(c) <= 1 && (cl_nsegs(c) == 0 || seg(c, 0)->len == 0));
	h_clear(h);
}

/*
 * request_timeout_ms: a deadline from a request's first byte that partial
 * data does not extend (one byte every 2 s re-arms the 5 s idle limit
 * forever); every keep-alive request gets its own; a request that
 * completes in time is served.
 */
TFO_TEST(request_timeout_trickle_keepalive)
{
	struct harness h;
	struct cl a, b;

	h_init(&h, 16);
	h.prm.request_timeout_ms = 7000;	/* idle_timeout_ms 5000 */
	REQUIRE(h_start(&h) == 0);
	cl_init(&a, &h, AF_INET, 40030, 80);
	cl_init(&b, &h, AF_INET, 40031, 80);
	plain_open(&a);
	plain_open(&b);
	h_clear(&h);

	/* t = 0: a starts trickling; b sends half a request */
	trickle_byte(&h, &a);
	cl_send(&b, TFO_TCP_ACK | TFO_TCP_PSH, "10", 2);
	h_clear(&h);
	/* t = 2 s: b's request completes in time and is served */
	h_advance(&h, 2000 * MS);
	trickle_byte(&h, &a);
	cl_send(&b, TFO_TCP_ACK | TFO_TCP_PSH, "0k\n", 3);
	REQUIRE(cl_nsegs(&b) == 1);
	CHECK_EQ(seg(&b, 0)->len, 100);
	cl_recv(&b);
	cl_send(&b, TFO_TCP_ACK, NULL, 0);
	h_clear(&h);
	h_advance(&h, 2000 * MS);
	trickle_byte(&h, &a);			/* t = 4 s */
	h_advance(&h, 2000 * MS);
	trickle_byte(&h, &a);			/* t = 6 s */
	trickle_byte(&h, &b);			/* b's second request */

	h_advance(&h, 900 * MS);		/* t = 6.9 s: both still open */
	CHECK_EQ(cl_nsegs(&a), 0);
	h_advance(&h, 200 * MS);		/* a's deadline, 7 s */
	REQUIRE(cl_nsegs(&a) == 1);
	CHECK(seg(&a, 0)->p.tcp_flags & TFO_TCP_RST);
	CHECK_EQ(cl_nsegs(&b), 0);		/* its own deadline: 13 s */
	CHECK_EQ(h_stat(&h, "request_timeouts"), 1);
	h_clear(&h);

	for (int i = 0; i < 3; i++) {		/* t = 8, 10, 12 s */
		h_advance(&h, (i == 0 ? 900 : 2000) * MS);
		CHECK_EQ(cl_nsegs(&b), 0);
		trickle_byte(&h, &b);
	}
	h_advance(&h, 900 * MS);
	CHECK_EQ(cl_nsegs(&b), 0);
	h_advance(&h, 200 * MS);
	REQUIRE(cl_nsegs(&b) == 1);
	CHECK(seg(&b, 0)->p.tcp_flags & TFO_TCP_RST);
	CHECK_EQ(h_stat(&h, "request_timeouts"), 2);
	CHECK_EQ(h_stat(&h, "conns_closed_rst_tx"), 2);
	CHECK_EQ(h_stat(&h, "conns_idle_timeout"), 0);
	CHECK(h_finish(&h, 1) == 0);
	cl_free(&a);
	cl_free(&b);
}

/*
 * conn_per_source (nginx's limit_conn on the slow path): one address fills
 * up to its limit and no further, its next SYN gets a SYN cookie whose ACK
 * is refused; another address is served; a freed entry lets it back in.
 */
TFO_TEST(conn_per_source_limit)
{
	struct harness h;
	struct cl f[6], good;

	h_init(&h, 64);
	h.prm.conn_per_source = 4;
	REQUIRE(h_start(&h) == 0);
	for (unsigned int i = 0; i < 5; i++) {
		cl_init(&f[i], &h, AF_INET, (uint16_t)(45000 + i), 80);
		cl_syn(&f[i], NULL, 0);
		CHECK_EQ(h.last_open_rc, i < 4 ? 0 : -EDQUOT);
	}
	CHECK_EQ(h_stat(&h, "conn_source_limit"), 1);
	CHECK_EQ(h_stat(&h, "syncookies_sent"), 1);
	CHECK_EQ(tfo_engine_free_conns(h.e), 60);
	/* the cookie ACK is held to the limit too: a RST, no entry */
	REQUIRE(cl_nsegs(&f[4]) == 1);
	cl_recv(&f[4]);
	h_clear(&h);
	cl_send(&f[4], TFO_TCP_ACK | TFO_TCP_PSH, "10\n", 3);
	CHECK_EQ(h_stat(&h, "syncookies_ok"), 1);
	CHECK_EQ(h_stat(&h, "conn_source_limit"), 2);
	REQUIRE(cl_nsegs(&f[4]) == 1);
	CHECK(seg(&f[4], 0)->p.tcp_flags & TFO_TCP_RST);
	CHECK_EQ(tfo_engine_free_conns(h.e), 60);
	/* a duplicate SYN of a counted entry is no new entry */
	h_clear(&h);
	cl_syn(&f[0], NULL, 0);
	CHECK_EQ(h_stat(&h, "conn_source_limit"), 2);

	/* another address: served */
	cl_init(&good, &h, AF_INET, 45100, 80);
	good.addr_idx = 1;
	plain_open(&good);
	cl_send(&good, TFO_TCP_ACK | TFO_TCP_PSH, "10\n", 3);
	cl_recv(&good);
	CHECK(rx_is(&good, "10\n"));

	/* one of the four goes: the address may open one more */
	h_clear(&h);
	cl_recv(&f[1]);
	h_rx(&h, cl_frame(&f[1], TFO_TCP_RST, f[1].snd_nxt, 0, NULL, 0));
	cl_init(&f[5], &h, AF_INET, 45005, 80);
	cl_syn(&f[5], NULL, 0);
	CHECK_EQ(h.last_open_rc, 0);
	CHECK_EQ(h_stat(&h, "conn_source_limit"), 2);
	for (unsigned int i = 0; i < 6; i++)
		cl_free(&f[i]);
	cl_free(&good);
	CHECK(h_finish(&h, 60) == 0);
}

/*
 * Eviction under pressure (evict, fewer than 1/8 of the entries free): a
 * new client resets an idle keep-alive connection first, then the one
 * whose incomplete request began first; handshakes are kept.
 */
TFO_TEST(evict_idle_then_oldest_slow_request)
{
	struct harness h;
	struct cl slow[13], idle, n1, n2;

	h_init(&h, 16);
	h.prm.evict = true;
	h.prm.syncookies = false;
	REQUIRE(h_start(&h) == 0);
	for (unsigned int i = 0; i < 13; i++) {
		cl_init(&slow[i], &h, AF_INET, (uint16_t)(46000 + i), 80);
		plain_open(&slow[i]);
	}
	/* a request served on it, then idle: a keep-alive connection */
	cl_init(&idle, &h, AF_INET, 46100, 80);
	idle.addr_idx = 1;
	plain_open(&idle);
	cl_send(&idle, TFO_TCP_ACK | TFO_TCP_PSH, "10k\n", 4);
	cl_recv(&idle);
	cl_send(&idle, TFO_TCP_ACK, NULL, 0);
	CHECK(rx_is(&idle, "10k\n"));
	/* slow[12]'s request starts first, the others 100 ms apart after */
	h_clear(&h);
	trickle_byte(&h, &slow[12]);
	for (unsigned int i = 0; i < 12; i++) {
		h_advance(&h, 100 * MS);
		trickle_byte(&h, &slow[i]);
	}
	CHECK_EQ(tfo_engine_free_conns(h.e), 2);
	h_advance(&h, 1000 * MS);	/* idle for over TFO_EVICT_IDLE_MIN_MS */

	cl_init(&n1, &h, AF_INET, 46200, 80);
	n1.addr_idx = 2;
	cl_syn(&n1, NULL, 0);
	CHECK_EQ(h_stat(&h, "conn_evicted_idle"), 1);
	CHECK_EQ(h_stat(&h, "conn_evicted_slow"), 0);
	cl_recv(&idle);
	CHECK(idle.rst);
	cl_recv(&n1);
	cl_send(&n1, TFO_TCP_ACK, NULL, 0);
	h_clear(&h);
	CHECK_EQ(tfo_engine_free_conns(h.e), 2);

	cl_init(&n2, &h, AF_INET, 46201, 80);
	n2.addr_idx = 2;
	cl_syn(&n2, NULL, 0);
	CHECK_EQ(h_stat(&h, "conn_evicted_slow"), 1);
	cl_recv(&slow[12]);
	CHECK(slow[12].rst);
	for (unsigned int i = 0; i < 12; i++) {
		cl_recv(&slow[i]);
		CHECK(!slow[i].rst);
	}
	/* both new clients are served */
	cl_recv(&n2);
	cl_send(&n2, TFO_TCP_ACK | TFO_TCP_PSH, "10\n", 3);
	cl_recv(&n2);
	CHECK(rx_is(&n2, "10\n"));
	cl_send(&n1, TFO_TCP_ACK | TFO_TCP_PSH, "20\n", 3);
	cl_recv(&n1);
	CHECK(rx_is(&n1, "20\n"));
	CHECK_EQ(h_stat(&h, "conns_closed_rst_tx"), 2);
	for (unsigned int i = 0; i < 13; i++)
		cl_free(&slow[i]);
	cl_free(&idle);
	cl_free(&n1);
	cl_free(&n2);
	CHECK(h_finish(&h, 60) == 0);
}

TFO_TEST(pool_exhaustion_and_syncookies)
{
	struct harness h;
	struct cl c[5];
	const struct h_seg *s;

	h_init(&h, 4);
	h.prm.syncookies = false;
	REQUIRE(h_start(&h) == 0);
	for (unsigned int i = 0; i < 5; i++) {
		cl_init(&c[i], &h, AF_INET, (uint16_t)(41000 + i), 80);
		cl_syn(&c[i], NULL, 0);
	}
	CHECK_EQ(h.last_open_rc, -ENOSPC);
	CHECK_EQ(h_stat(&h, "conn_pool_full"), 1);
	CHECK_EQ(cl_nsegs(&c[4]), 0);
	CHECK_EQ(tfo_engine_free_conns(h.e), 0);
	for (unsigned int i = 0; i < 5; i++)
		cl_free(&c[i]);
	/* SYN_RCVD entries time out and the pool comes back */
	CHECK(h_finish(&h, 30) == 0);

	/* with SYN cookies: the 5th gets a stateless SYN-ACK */
	h_init(&h, 4);
	REQUIRE(h_start(&h) == 0);
	for (unsigned int i = 0; i < 5; i++) {
		cl_init(&c[i], &h, AF_INET, (uint16_t)(41100 + i), 80);
		cl_syn(&c[i], NULL, 0);
	}
	CHECK_EQ(h_stat(&h, "syncookies_sent"), 1);
	REQUIRE(cl_nsegs(&c[4]) == 1);
	s = seg(&c[4], 0);
	CHECK_EQ(s->p.tcp_flags, TFO_TCP_SYN | TFO_TCP_ACK);
	CHECK(s->o.has_ts && s->o.tsecr == 5000 && s->o.has_wscale && s->o.has_mss);
	CHECK(s->o.sack_ok);	/* with timestamps the cookie keeps SACK */
	cl_recv(&c[4]);
	/* free one entry (RST), then the cookie ACK creates the connection */
	cl_recv(&c[0]);
	h_rx(&h, cl_frame(&c[0], TFO_TCP_RST, c[0].snd_nxt, 0, NULL, 0));
	CHECK_EQ(tfo_engine_free_conns(h.e), 1);
	h_clear(&h);
	cl_send(&c[4], TFO_TCP_ACK | TFO_TCP_PSH, "1500\n", 5);
	CHECK_EQ(h_stat(&h, "syncookies_ok"), 1);
	CHECK_EQ(h_stat(&h, "conns_opened_syncookie"), 1);
	ack_each_until_fin(&c[4], 10);
	CHECK(rx_is(&c[4], "1500\n") && c[4].fin);
	/* a bad cookie: RST */
	h_clear(&h);
	cl_free(&c[3]);
	cl_init(&c[3], &h, AF_INET, 41199, 80);
	h_rx(&h, cl_frame(&c[3], TFO_TCP_ACK, 12345, 999, NULL, 0));
	CHECK_EQ(h_stat(&h, "syncookies_bad"), 1);
	REQUIRE(h.n_out >= 1);
	CHECK_EQ(h.out[h.n_out - 1].p.tcp_flags, TFO_TCP_RST);
	client_close(&c[4]);
	for (unsigned int i = 0; i < 5; i++)
		cl_free(&c[i]);
	CHECK(h_finish(&h, 30) == 0);
}

TFO_TEST(request_too_big_and_reject)
{
	struct harness h;
	struct cl c;
	static char big[4096];

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40021, 80);
	plain_open(&c);
	memset(big, '1', sizeof(big));
	cl_send(&c, TFO_TCP_ACK, big, 1400);
	cl_send(&c, TFO_TCP_ACK, big, 1400);
	CHECK_EQ(nstate(&h, TFO_CONN_ESTABLISHED), 1);
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, big, 1296);	/* 4096: full, no newline */
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_RST | TFO_TCP_ACK);
	CHECK_EQ(h_stat(&h, "req_too_big"), 1);
	CHECK_EQ(tfo_engine_free_conns(h.e), 16);
	cl_free(&c);

	cl_init(&c, &h, AF_INET, 40022, 80);
	c.tfo = CL_COOKIE;
	cl_syn(&c, "1x\n", 3);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK(seg(&c, 0)->p.tcp_flags & TFO_TCP_RST);
	CHECK_EQ(h_stat(&h, "svc_reject"), 1);
	CHECK_EQ(h_stat(&h, "tfo_pending"), 0);
	CHECK(h_finish(&h, 1) == 0);
	cl_free(&c);
}

/* TIME-WAIT is a record, not an entry: the entry is free at the last ACK;
 * a new record beyond time_wait_max ends the oldest early; the client's
 * FIN again restarts it, answered as before. */
TFO_TEST(time_wait_record_frees_entry_recycles_restarts)
{
	struct harness h;
	struct cl c[3];

	h_init(&h, 16);
	h.prm.time_wait_ms = 1000;
	h.prm.time_wait_max = 2;
	REQUIRE(h_start(&h) == 0);
	CHECK_EQ(tfo_engine_time_wait_max(h.e), 2);
	for (unsigned int i = 0; i < 3; i++) {
		cl_init(&c[i], &h, AF_INET, (uint16_t)(40100 + i), 80);
		plain_open(&c[i]);
		cl_send(&c[i], TFO_TCP_ACK | TFO_TCP_PSH, "10\n", 3);
		cl_recv(&c[i]);
		h_clear(&h);
		client_close(&c[i]);
		REQUIRE(cl_nsegs(&c[i]) == 1);	/* the last ACK */
		CHECK_EQ(seg(&c[i], 0)->p.ack, c[i].snd_nxt);
		CHECK_EQ(tfo_engine_free_conns(h.e), 16);
		h_advance(&h, 100 * MS);
	}
	CHECK_EQ(nstate(&h, TFO_CONN_TIME_WAIT), 2);
	CHECK_EQ(tfo_engine_time_wait_count(h.e), 2);
	CHECK_EQ(h_stat(&h, "time_wait_entered"), 3);
	CHECK_EQ(h_stat(&h, "time_wait_recycled"), 1);
	CHECK_EQ(h_stat(&h, "conns_active"), 2);
	/* the newest's FIN again at 0.8 s: the same ACK, TIME-WAIT restarts */
	h_advance(&h, 700 * MS);
	h_clear(&h);
	h_rx(&h, cl_frame(&c[2], TFO_TCP_ACK | TFO_TCP_FIN, c[2].snd_nxt - 1,
			  c[2].rcv_nxt, NULL, 0));
	REQUIRE(cl_nsegs(&c[2]) == 1);
	CHECK_EQ(seg(&c[2], 0)->p.tcp_flags, TFO_TCP_ACK);
	CHECK_EQ(seg(&c[2], 0)->p.ack, c[2].snd_nxt);
	CHECK_EQ(seg(&c[2], 0)->p.seq, c[2].rcv_nxt);
	CHECK(seg(&c[2], 0)->o.has_ts);
	CHECK_EQ(h_stat(&h, "rx_dup_data"), 1);
	/* 1.3 s: the middle one is over, the restarted one is not */
	h_advance(&h, 500 * MS);
	CHECK_EQ(tfo_engine_time_wait_count(h.e), 1);
	/* a RST is ignored in TIME-WAIT (RFC 1337) */
	h_clear(&h);
	h_rx(&h, cl_frame(&c[2], TFO_TCP_RST, c[2].snd_nxt, 0, NULL, 0));
	CHECK_EQ(cl_nsegs(&c[2]), 0);
	CHECK_EQ(tfo_engine_time_wait_count(h.e), 1);
	h_advance(&h, 600 * MS);
	CHECK_EQ(tfo_engine_time_wait_count(h.e), 0);
	CHECK_EQ(nstate(&h, TFO_CONN_TIME_WAIT), 0);
	CHECK_EQ(h_stat(&h, "conns_closed_normal"), 3);
	CHECK(h_finish(&h, 1) == 0);
	for (unsigned int i = 0; i < 3; i++)
		cl_free(&c[i]);
}

TFO_TEST(time_wait_reuse_by_new_syn)
{
	struct harness h;
	struct cl c;
	uint32_t old_iss;

	h_init(&h, 16);
	h.prm.time_wait_ms = 30000;
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40023, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "10\n", 3);
	client_close(&c);
	CHECK_EQ(nstate(&h, TFO_CONN_TIME_WAIT), 1);
	h_clear(&h);
	/* an old SYN (lower ISN, same TS): challenge ACK, entry stays */
	old_iss = c.iss;
	c.tsval = 5000;
	c.iss = old_iss - 1000;
	cl_syn(&c, NULL, 0);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_ACK);
	CHECK_EQ(nstate(&h, TFO_CONN_TIME_WAIT), 1);
	h_clear(&h);
	/* a new incarnation: higher ISN */
	cl_free(&c);
	cl_init(&c, &h, AF_INET, 40023, 80);
	c.iss = old_iss + 100000;
	c.tsval = 90000;
	cl_syn(&c, NULL, 0);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_SYN | TFO_TCP_ACK);
	CHECK_EQ(h_stat(&h, "conns_closed_reopen"), 1);
	CHECK_EQ(nstate(&h, TFO_CONN_SYN_RCVD), 1);
	cl_recv(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "20\n", 3);
	cl_recv(&c);
	CHECK(rx_is(&c, "20\n"));
	client_close(&c);
	CHECK(h_finish(&h, 40) == 0);
	cl_free(&c);
}

/* The worker's admission check (tfo_engine_tfo_pending_check) on a SYN of
 * @p c now: 0, -EBUSY (pending limit) or -EDQUOT (source cap). */
static int
pending_admits(struct cl *c)
{
	struct rte_mbuf *m = cl_frame(c, TFO_TCP_SYN, c->iss, 0, NULL, 0);
	struct tfo_pkt p;
	int rc = -EINVAL;

	if (tfo_pkt_classify(m, &c->h->srv_port, &p) == TFO_PKT_TCP)
		rc = tfo_engine_tfo_pending_check(c->h->e, &p, c->h->now);
	rte_pktmbuf_free(m);
	return rc;
}

TFO_TEST(pending_tfo_limit_and_hold_after_reset)
{
	struct harness h;
	struct cl c[3];

	h_init(&h, 16);
	h.prm.tfo_pending_limit = 2;
	h.prm.tfo_pending_hold_ms = 60000;
	REQUIRE(h_start(&h) == 0);
	for (unsigned int i = 0; i < 3; i++) {
		cl_init(&c[i], &h, AF_INET, (uint16_t)(42000 + i), 80);
		c[i].tfo = CL_COOKIE;
		cl_syn(&c[i], "10\n", 3);
	}
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 2);
	CHECK_EQ(h.last_open_rc, -EBUSY);	/* the third: plain */
	CHECK_EQ(h_stat(&h, "TCPFastOpenListenOverflow"), 1);
	CHECK_EQ(seg(&c[2], 0)->p.ack, c[2].iss + 1);	/* data not acked */
	CHECK_EQ(seg(&c[2], 0)->len, 0);
	CHECK_EQ(pending_admits(&c[2]), -EBUSY);
	/* reset one pending open: it stays counted for the hold time */
	cl_recv(&c[0]);
	h_rx(&h, cl_frame(&c[0], TFO_TCP_RST, c[0].snd_nxt, 0, NULL, 0));
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 2);
	/* complete the other: one less */
	cl_recv(&c[1]);
	cl_send(&c[1], TFO_TCP_ACK, NULL, 0);
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 1);
	CHECK_EQ(pending_admits(&c[2]), 0);
	h_advance(&h, 59 * SEC);
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 1);
	h_advance(&h, 2 * SEC);
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 0);
	CHECK_EQ(h_stat(&h, "tfo_pending"), 0);
	for (unsigned int i = 0; i < 3; i++)
		cl_free(&c[i]);
	CHECK(h_finish(&h, 30) == 0);
}

/*
 * One source (one stolen cookie, replayed) stops at its cap, held resets
 * included, and falls back alone: another source still gets TFO.
 */
TFO_TEST(pending_tfo_per_source_cap)
{
	struct harness h;
	struct cl f[7], good;

	h_init(&h, 32);
	h.prm.tfo_pending_limit = 16;
	h.prm.tfo_pending_per_source = 4;
	h.prm.tfo_pending_hold_ms = 60000;
	REQUIRE(h_start(&h) == 0);
	for (unsigned int i = 0; i < 6; i++) {
		cl_init(&f[i], &h, AF_INET, (uint16_t)(43000 + i), 80);
		f[i].tfo = CL_COOKIE;
		cl_syn(&f[i], "10\n", 3);
		CHECK_EQ(h.last_open_rc, i < 4 ? 0 : -EDQUOT);
	}
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 4);
	CHECK_EQ(h_stat(&h, "tfo_pending_source_overflow"), 2);
	CHECK_EQ(h_stat(&h, "TCPFastOpenListenOverflow"), 0);
	CHECK_EQ(seg(&f[5], 0)->p.ack, f[5].iss + 1);	/* data not acked */
	CHECK_EQ(seg(&f[5], 0)->len, 0);
	/* another address: TFO, the response in the SYN-ACK */
	cl_init(&good, &h, AF_INET, 43100, 80);
	good.addr_idx = 1;
	good.tfo = CL_COOKIE;
	cl_syn(&good, "10\n", 3);
	CHECK_EQ(h.last_open_rc, 0);
	REQUIRE(cl_nsegs(&good) >= 1);
	CHECK_EQ(seg(&good, 0)->p.ack, good.iss + 4);
	CHECK_EQ(seg(&good, 0)->len, 10);
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 5);
	cl_recv(&good);
	cl_send(&good, TFO_TCP_ACK, NULL, 0);
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 4);

	/* a reset pending open stays counted against its source */
	cl_recv(&f[0]);
	h_rx(&h, cl_frame(&f[0], TFO_TCP_RST, f[0].snd_nxt, 0, NULL, 0));
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 4);
	cl_init(&f[6], &h, AF_INET, 43006, 80);
	f[6].tfo = CL_COOKIE;
	cl_syn(&f[6], "10\n", 3);
	CHECK_EQ(h.last_open_rc, -EDQUOT);
	CHECK_EQ(h_stat(&h, "tfo_pending_source_overflow"), 3);
	/* the unanswered ones time out, the hold ends: the source is free */
	for (int i = 0; i < 200; i++)
		h_advance(&h, SEC);
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 0);
	f[6].sport = 43007;
	cl_syn(&f[6], "10\n", 3);
	CHECK_EQ(h.last_open_rc, 0);
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 1);
	for (unsigned int i = 0; i < 7; i++)
		cl_free(&f[i]);
	cl_free(&good);
	CHECK(h_finish(&h, 60) == 0);
}

/* IPv6: the cap is per /64 (one host holds a whole /64 of addresses). */
TFO_TEST(pending_tfo_per_source_cap_ipv6_prefix)
{
	struct harness h;
	struct cl f[5];

	h_init(&h, 32);
	h.prm.tfo_pending_limit = 16;
	h.prm.tfo_pending_per_source = 4;
	REQUIRE(h_start(&h) == 0);
	for (unsigned int i = 0; i < 5; i++) {
		cl_init(&f[i], &h, AF_INET6, (uint16_t)(44000 + i), 7);
		f[i].addr_idx = (uint8_t)(i % 2);	/* two addresses, one /64 */
		f[i].tfo = CL_COOKIE;
		cl_syn(&f[i], "v6\n", 3);
		CHECK_EQ(h.last_open_rc, i < 4 ? 0 : -EDQUOT);
	}
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 4);
	CHECK_EQ(h_stat(&h, "tfo_pending_source_overflow"), 1);
	for (unsigned int i = 0; i < 5; i++)
		cl_free(&f[i]);
	CHECK(h_finish(&h, 60) == 0);
}

TFO_TEST(echo_service_and_ipv6)
{
	struct harness h;
	struct cl c;
	const struct h_seg *s;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET6, 40024, 7);
	c.tfo = CL_COOKIE;
	cl_syn(&c, "hello\n", 6);
	REQUIRE(cl_nsegs(&c) == 1);
	s = seg(&c, 0);
	CHECK_EQ(s->p.family, AF_INET6);
	CHECK_EQ(s->p.tcp_flags, TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_PSH | TFO_TCP_FIN);
	CHECK(s->len == 6 && memcmp(s->data, "hello\n", 6) == 0);
	CHECK(s->o.has_mss && s->o.mss == 1440);
	cl_recv(&c);
	client_close(&c);
	cl_free(&c);
	/* a line in two segments, over IPv4 */
	cl_init(&c, &h, AF_INET, 40025, 7);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK, "abc", 3);
	cl_send(&c, TFO_TCP_ACK, "def\nrest", 8);
	cl_recv(&c);
	CHECK(c.rx_len == 7 && memcmp(c.rx, "abcdef\n", 7) == 0 && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}
