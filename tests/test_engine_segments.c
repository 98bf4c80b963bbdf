/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TCP engine scenarios, the segments a peer
 * sends: duplicates and overlaps, out of order, zero windows and window
 * updates, small windows, FIN first, simultaneous close, RST in and out of
 * the window.
 */
#include "engine_scenario.h"

TFO_TEST(duplicate_and_overlapping_segments)
{
	struct harness h;
	struct cl c;
	uint32_t start;
	unsigned long calls;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40011, 80);
	plain_open(&c);
	start = c.snd_nxt;
	calls = h_gen_calls;
	cl_send(&c, TFO_TCP_ACK, "100", 3);
	REQUIRE(cl_nsegs(&c) == 1);	/* an ACK */
	CHECK_EQ(seg(&c, 0)->p.ack, start + 3);
	h_clear(&h);
	h_rx(&h, cl_frame(&c, TFO_TCP_ACK, start, c.rcv_nxt, "100", 3));
	REQUIRE(cl_nsegs(&c) == 1);	/* duplicate: ACK again */
	CHECK_EQ(seg(&c, 0)->p.ack, start + 3);
	CHECK_EQ(h_stat(&h, "rx_dup_data"), 1);
	h_clear(&h);
	/* overlapping: "00\n" at offset 1, only "\n" is new */
	h_rx(&h, cl_frame(&c, TFO_TCP_ACK, start + 1, c.rcv_nxt, "00\n", 3));
	c.snd_nxt = start + 4;
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.ack, start + 4);
	cl_recv(&c);
	CHECK(rx_is(&c, "100\n"));
	CHECK_EQ(h_gen_calls - calls, 2);	/* "100", then "100\n" */
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

TFO_TEST(out_of_order_dropped_with_dup_ack)
{
	struct harness h;
	struct cl c;
	uint32_t start;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40012, 80);
	plain_open(&c);
	start = c.snd_nxt;
	h_rx(&h, cl_frame(&c, TFO_TCP_ACK, start + 2, c.rcv_nxt, "0\n", 2));
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.ack, start);	/* duplicate ACK */
	CHECK_EQ(seg(&c, 0)->len, 0);
	CHECK_EQ(h_stat(&h, "rx_ooo_drop"), 1);
	h_clear(&h);
	h_rx(&h, cl_frame(&c, TFO_TCP_ACK, start, c.rcv_nxt, "10", 2));
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.ack, start + 2);
	h_clear(&h);
	h_rx(&h, cl_frame(&c, TFO_TCP_ACK, start + 2, c.rcv_nxt, "0\n", 2));
	c.snd_nxt = start + 4;
	cl_recv(&c);
	CHECK(rx_is(&c, "100\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

TFO_TEST(zero_window_persist_and_window_update)
{
	struct harness h;
	struct cl c;
	const struct h_seg *s;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40013, 80);
	plain_open(&c);
	c.rwnd = 0;
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "2000\n", 5);
	REQUIRE(cl_nsegs(&c) == 1);	/* the request acked, no data fits */
	CHECK_EQ(seg(&c, 0)->len, 0);
	CHECK_EQ(seg(&c, 0)->p.ack, c.snd_nxt);
	h_clear(&h);
	h_advance(&h, 1100 * MS);	/* persist: a probe below snd_una */
	REQUIRE(cl_nsegs(&c) == 1);
	s = seg(&c, 0);
	CHECK_EQ(s->len, 0);
	CHECK_EQ(s->p.seq, c.irs);	/* snd_una - 1 */
	CHECK_EQ(h_stat(&h, "persist_probes"), 1);
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);	/* still zero */
	CHECK_EQ(cl_nsegs(&c), 0);
	h_advance(&h, 2100 * MS);
	CHECK_EQ(cl_nsegs(&c), 1);
	h_clear(&h);
	c.rwnd = 65535;
	cl_send(&c, TFO_TCP_ACK, NULL, 0);	/* window update */
	CHECK_EQ(cl_nsegs(&c), 2);
	cl_recv(&c);
	CHECK(rx_is(&c, "2000\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);

	/* a window that never opens: reset after max_retries probes */
	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40014, 80);
	plain_open(&c);
	c.rwnd = 0;
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "2000\n", 5);
	for (unsigned int i = 0; i < 6; i++)
		h_advance(&h, 20 * SEC);
	CHECK_EQ(h_stat(&h, "persist_probes"), 4);
	CHECK_EQ(h_stat(&h, "conns_closed_persist_timeout"), 1);
	CHECK(h_finish(&h, 1) == 0);
	cl_free(&c);
}

TFO_TEST(small_peer_window_is_respected)
{
	struct harness h;
	struct cl c;
	uint32_t bytes = 0;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40015, 80);
	plain_open(&c);
	c.rwnd = 4096;	/* field 32 with scale 7 */
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "20000b\n", 7);
	for (unsigned int i = 0; i < cl_nsegs(&c); i++)
		bytes += seg(&c, i)->len;
	CHECK(bytes <= 4096 && bytes >= 2 * 1448);
	ack_each_until_fin(&c, 40);
	CHECK(rx_is(&c, "20000b\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

TFO_TEST(peer_fin_first)
{
	struct harness h;
	struct cl c;
	const struct h_seg *s;

	/* HTTP/1.0 style half close: request + FIN; response + FIN back */
	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40016, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH | TFO_TCP_FIN, "100k\n", 5);
	REQUIRE(cl_nsegs(&c) == 1);
	s = seg(&c, 0);
	CHECK_EQ(s->p.ack, c.snd_nxt);	/* acks the FIN */
	CHECK(s->p.tcp_flags & TFO_TCP_FIN);	/* keep-alive, but the peer closed */
	CHECK_EQ(nstate(&h, TFO_CONN_LAST_ACK), 1);
	cl_recv(&c);
	CHECK(rx_is(&c, "100k\n"));
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	CHECK_EQ(tfo_engine_free_conns(h.e), 16);	/* no TIME-WAIT for us */
	CHECK(h_finish(&h, 1) == 0);
	cl_free(&c);

	/* FIN with nothing asked */
	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40017, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_FIN, NULL, 0);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_ACK | TFO_TCP_FIN);
	cl_recv(&c);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	CHECK_EQ(h_stat(&h, "conns_closed_normal"), 1);
	CHECK(h_finish(&h, 1) == 0);
	cl_free(&c);
}

TFO_TEST(simultaneous_close)
{
	struct harness h;
	struct cl c;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40018, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "10\n", 3);
	REQUIRE(cl_nsegs(&c) == 1);
	/* the client sends its FIN before seeing ours: it acks nothing new */
	h_rx(&h, cl_frame(&c, TFO_TCP_ACK | TFO_TCP_FIN, c.snd_nxt, c.rcv_nxt, NULL, 0));
	c.snd_nxt++;
	CHECK_EQ(nstate(&h, TFO_CONN_CLOSING), 1);
	cl_recv(&c);
	CHECK(c.fin);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	CHECK_EQ(nstate(&h, TFO_CONN_TIME_WAIT), 1);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

TFO_TEST(rst_in_and_out_of_window)
{
	struct harness h;
	struct cl c;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40019, 80);
	plain_open(&c);
	/* out of window: ignored, no answer */
	h_rx(&h, cl_frame(&c, TFO_TCP_RST, c.snd_nxt + 100000, 0, NULL, 0));
	CHECK_EQ(cl_nsegs(&c), 0);
	CHECK_EQ(h_stat(&h, "drop_rst_ignored"), 1);
	/* in window, not exact: challenge ACK */
	h_rx(&h, cl_frame(&c, TFO_TCP_RST, c.snd_nxt + 10, 0, NULL, 0));
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_ACK);
	CHECK_EQ(seg(&c, 0)->p.ack, c.snd_nxt);
	CHECK_EQ(h_stat(&h, "challenge_acks"), 1);
	CHECK_EQ(nstate(&h, TFO_CONN_ESTABLISHED), 1);
	/* a SYN on the established connection: challenge ACK too */
	h_clear(&h);
	h_rx(&h, cl_frame(&c, TFO_TCP_SYN, c.snd_nxt + 5, 0, NULL, 0));
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_ACK);
	/* exact: reset */
	h_clear(&h);
	h_rx(&h, cl_frame(&c, TFO_TCP_RST, c.snd_nxt, 0, NULL, 0));
	CHECK_EQ(cl_nsegs(&c), 0);
	CHECK_EQ(h_stat(&h, "conns_closed_rst_rx"), 1);
	CHECK_EQ(tfo_engine_free_conns(h.e), 16);
	/* a segment for the gone connection: not ours to answer here
	 * (the harness sends misses to nomatch: RST with seq = its ack) */
	cl_send(&c, TFO_TCP_ACK, "x", 1);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_RST);
	CHECK_EQ(seg(&c, 0)->p.seq, c.rcv_nxt);
	CHECK(h_finish(&h, 1) == 0);
	cl_free(&c);
}
