/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TCP engine scenarios, the opening: the plain
 * handshake, TFO with the response in the SYN-ACK, SYN data without the
 * option, cookie requests, zero windows, responses larger than the initial
 * window. The "engine" program is this file and the other test_engine_*.c
 * (tests/meson.build), on engine_harness.c and engine_scenario.c.
 */
#include "engine_scenario.h"

TFO_TEST(plain_handshake_request_response_close)
{
	struct harness h;
	struct cl c;
	const struct h_seg *s;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40000, 80);
	cl_syn(&c, NULL, 0);
	REQUIRE(cl_nsegs(&c) == 1);
	s = seg(&c, 0);
	CHECK_EQ(s->p.tcp_flags, TFO_TCP_SYN | TFO_TCP_ACK);
	CHECK_EQ(s->p.ack, c.iss + 1);
	CHECK_EQ(s->len, 0);
	CHECK(s->o.has_mss && s->o.mss == 1460);
	CHECK(s->o.has_ts && s->o.tsecr == 5000);	/* echoes the SYN's TSval */
	CHECK(s->o.has_wscale && s->o.wscale == 0);
	/* the client sent SACK-permitted: echoed (RFC 2018), since SACK
	 * recovery (it was recorded only before) */
	CHECK(s->o.sack_ok);
	CHECK_EQ(s->o.form, TFO_FORM_NONE);
	CHECK_EQ(s->p.window, 4096);	/* the request buffer's room */
	CHECK_EQ(nstate(&h, TFO_CONN_SYN_RCVD), 1);
	cl_recv(&c);
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	CHECK_EQ(cl_nsegs(&c), 0);
	CHECK_EQ(nstate(&h, TFO_CONN_ESTABLISHED), 1);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "100\n", 4);
	REQUIRE(cl_nsegs(&c) == 1);
	s = seg(&c, 0);
	CHECK_EQ(s->p.tcp_flags, TFO_TCP_ACK | TFO_TCP_PSH | TFO_TCP_FIN);
	CHECK_EQ(s->p.ack, c.snd_nxt);
	CHECK_EQ(s->p.seq, c.irs + 1);
	CHECK(s->o.has_ts && s->o.tsecr == c.tsval - 1);
	cl_recv(&c);
	CHECK(rx_is(&c, "100\n") && c.fin);
	CHECK_EQ(nstate(&h, TFO_CONN_FIN_WAIT_1), 1);
	h_clear(&h);
	client_close(&c);
	REQUIRE(cl_nsegs(&c) == 1);
	s = seg(&c, 0);
	CHECK_EQ(s->p.tcp_flags, TFO_TCP_ACK);
	CHECK_EQ(s->p.ack, c.snd_nxt);
	CHECK_EQ(nstate(&h, TFO_CONN_TIME_WAIT), 1);
	CHECK_EQ(h_stat(&h, "conns_opened_plain"), 1);
	CHECK_EQ(h_stat(&h, "svc_calls"), 1);
	CHECK_EQ(h_stat(&h, "time_wait_entered"), 1);
	CHECK(h_finish(&h, 5) == 0);
	CHECK_EQ(h_stat(&h, "conns_closed_normal"), 1);
	cl_free(&c);
}

TFO_TEST(tfo_open_response_in_synack)
{
	struct harness h;
	struct cl c;
	const struct h_seg *s;
	unsigned long calls;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40001, 80);
	c.tfo = CL_COOKIE;
	calls = h_gen_calls;
	cl_syn(&c, "200\n", 4);
	REQUIRE(cl_nsegs(&c) == 1);
	s = seg(&c, 0);
	CHECK_EQ(s->p.tcp_flags, TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_PSH | TFO_TCP_FIN);
	CHECK_EQ(s->p.ack, c.iss + 1 + 4);
	CHECK_EQ(s->len, 200);
	CHECK_EQ(s->o.form, TFO_FORM_NONE);	/* valid cookie: none offered */
	CHECK(s->o.has_ts && s->o.tsecr == 5000);
	CHECK_EQ(h_gen_calls - calls, 1);
	CHECK_EQ(h_stat(&h, "TCPFastOpenPassive"), 1);
	CHECK_EQ(h_stat(&h, "tfo_pending"), 1);
	CHECK_EQ(tfo_engine_tfo_pending(h.e), 1);
	cl_recv(&c);
	CHECK(rx_is(&c, "200\n") && c.fin);
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);	/* acks SYN, data and FIN */
	CHECK_EQ(h_stat(&h, "tfo_pending"), 0);
	CHECK_EQ(nstate(&h, TFO_CONN_FIN_WAIT_2), 1);
	CHECK_EQ(cl_nsegs(&c), 0);
	client_close(&c);
	CHECK_EQ(nstate(&h, TFO_CONN_TIME_WAIT), 1);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/* Cookie-less mode: SYN data without a TFO option is served, but the
 * response goes behind the SYN-ACK (a plain client drops SYN-ACK data). */
TFO_TEST(syn_data_without_tfo_option)
{
	struct harness h;
	struct cl c;

	h_init(&h, 16);
	h.accept_all = true;
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40030, 80);
	cl_syn(&c, "100\n", 4);
	REQUIRE(cl_nsegs(&c) == 2);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_SYN | TFO_TCP_ACK);
	CHECK_EQ(seg(&c, 0)->len, 0);
	CHECK_EQ(seg(&c, 0)->p.ack, c.iss + 5);
	CHECK_EQ(seg(&c, 1)->len, 100);
	CHECK(seg(&c, 1)->p.tcp_flags & TFO_TCP_FIN);
	cl_recv(&c);
	CHECK(rx_is(&c, "100\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/*
 * Cookie-less mode with a Linux client (tcp_fastopen = 5): the response
 * goes right behind a bare SYN-ACK, so the client's handshake ACK acks only
 * the SYN, having crossed the data in flight. That ACK says nothing was
 * lost: the response leaves once (it went twice, 0.2-3.3 ms apart).
 */
TFO_TEST(cookie_less_response_sent_once)
{
	struct harness h;
	struct cl c;

	h_init(&h, 16);
	h.accept_all = true;
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40031, 80);
	cl_syn(&c, "100\n", 4);
	REQUIRE(cl_nsegs(&c) == 2);
	cl_fold(&c, seg(&c, 0));	/* the SYN-ACK alone */
	{
		struct h_seg data = *seg(&c, 1);

		h_clear(&h);
		cl_send(&c, TFO_TCP_ACK, NULL, 0);	/* acks only our SYN */
		CHECK_EQ(cl_nsegs(&c), 0);
		CHECK_EQ(h_stat(&h, "synack_data_resend"), 0);
		cl_fold(&c, &data);
	}
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	CHECK(rx_is(&c, "100\n") && c.fin);
	CHECK_EQ(h_stat(&h, "retransmit_segs"), 0);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/*
 * A TFO SYN with data that advertises a zero window gets a bare SYN-ACK
 * (as Linux): the request is taken, the response waits for the window,
 * then persists as for any zero window.
 */
TFO_TEST(tfo_syn_with_zero_window_gets_bare_synack)
{
	struct harness h;
	struct cl c;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40032, 80);
	c.tfo = CL_COOKIE;
	c.rwnd = 0;
	cl_syn(&c, "200\n", 4);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_SYN | TFO_TCP_ACK);
	CHECK_EQ(seg(&c, 0)->len, 0);
	CHECK_EQ(seg(&c, 0)->p.ack, c.iss + 1 + 4);	/* the request is taken */
	CHECK_EQ(h_stat(&h, "TCPFastOpenPassive"), 1);
	cl_recv(&c);
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);	/* still zero */
	CHECK_EQ(cl_nsegs(&c), 0);
	h_advance(&h, 1100 * MS);		/* a persist probe, no data */
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->len, 0);
	h_clear(&h);
	c.rwnd = 65535;
	cl_send(&c, TFO_TCP_ACK, NULL, 0);	/* the window opens */
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->len, 200);
	cl_recv(&c);
	CHECK(rx_is(&c, "200\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

TFO_TEST(cookie_request_gets_cookie_then_plain)
{
	struct harness h;
	struct cl c;
	const struct h_seg *s;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40002, 80);
	c.tfo = CL_COOKIE_REQ;
	cl_syn(&c, NULL, 0);
	REQUIRE(cl_nsegs(&c) == 1);
	s = seg(&c, 0);
	CHECK_EQ(s->o.form, TFO_FORM_RFC);
	CHECK_EQ(s->o.cookie_state, TFO_COOKIE_PRESENT);
	CHECK(s->o.cookie_len == 8 && memcmp(s->o.cookie, "COOKIE!!", 8) == 0);
	cl_recv(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "300\n", 4);
	cl_recv(&c);
	CHECK(rx_is(&c, "300\n") && c.fin);
	CHECK_EQ(h_stat(&h, "TCPFastOpenPassive"), 0);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

static void
response_larger_than_iw(bool multiseg)
{
	struct harness h;
	struct cl c;
	unsigned int n, zc = 0, rounds;
	uint32_t bytes = 0;

	h_init(&h, 16);
	h.srv_port.tx_multiseg = multiseg;
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40003, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "100000b\n", 8);
	n = cl_nsegs(&c);
	CHECK_EQ(n, 10);	/* IW10 */
	for (unsigned int i = 0; i < n; i++) {
		const struct h_seg *s = seg(&c, i);

		bytes += s->len;
		zc += s->nb_segs == 2;
		CHECK(s->len <= 1448);	/* MSS - timestamps */
		CHECK(!(s->p.tcp_flags & TFO_TCP_FIN));
	}
	CHECK_EQ(bytes, 14480);
	/* every segment's body is an external buffer, or a copy when the
	 * device cannot send chains */
	CHECK_EQ(zc, multiseg ? 10 : 0);
	rounds = ack_each_until_fin(&c, 50);
	CHECK(c.fin);
	CHECK(rx_is(&c, "100000b\n"));
	/* slow start: 10, 20, 40, ... segments per round */
	CHECK(rounds >= 3 && rounds <= 5);
	CHECK_EQ(h_stat(&h, "retransmit_segs"), 0);
	if (multiseg)
		CHECK(h_stat(&h, "zero_copy_segs") >= 69);
	else
		CHECK_EQ(h_stat(&h, "zero_copy_segs"), 0);
	h_clear(&h);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

TFO_TEST(response_larger_than_iw_zero_copy)
{
	response_larger_than_iw(true);
}

TFO_TEST(response_larger_than_iw_copied_without_multiseg)
{
	response_larger_than_iw(false);
}

/*
 * tfo_engine_sends_from (service reloads free a retired table by it): true
 * for the blob's range while a zero-copy body is unacknowledged, false
 * for the ranges around it and once the client has ACKed it all.
 */

TFO_TEST_MAIN()
