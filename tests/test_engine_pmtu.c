/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TCP engine scenarios, path-MTU discovery:
 * packet-too-big mid response, out-of-window and larger PTBs, the floor,
 * IPv6.
 */
#include "engine_scenario.h"

/* ---- path-MTU discovery ------------------------------------------------ */

/* The connection of @p c on the engine (tests read mss and cwnd). */
static struct tfo_conn *
conn_of(struct cl *c)
{
	struct rte_mbuf *m = cl_frame(c, TFO_TCP_ACK, c->snd_nxt, c->rcv_nxt, NULL, 0);
	const struct tfo_pkt *pp;
	struct tfo_conn *conn = NULL;
	struct tfo_pkt p;

	if (tfo_pkt_classify(m, &c->h->srv_port, &p) == TFO_PKT_TCP) {
		pp = &p;
		tfo_engine_lookup_bulk(c->h->e, &pp, 1, &conn);
	}
	rte_pktmbuf_free(m);
	return conn;
}

/* A path-MTU error about @p c's flow quoting @p seq, as the worker hands
 * it to the engine; flushed. @return tfo_engine_ptb()'s result. */
static int
ptb_to(struct cl *c, uint32_t seq, uint32_t mtu)
{
	struct rte_mbuf *m = cl_frame(c, TFO_TCP_ACK, c->snd_nxt, c->rcv_nxt, NULL, 0);
	struct tfo_ptb b;
	int rc = -EINVAL;

	memset(&b, 0, sizeof(b));
	if (tfo_pkt_classify(m, &c->h->srv_port, &b.flow) == TFO_PKT_TCP) {
		b.seq = seq;
		b.mtu = mtu;
		rc = tfo_engine_ptb(c->h->e, &b, c->h->now);
	}
	rte_pktmbuf_free(m);
	h_advance(c->h, 0);
	return rc;
}

/* Every segment to @p c now carries at most @p max bytes. */
static bool
segs_at_most(const struct cl *c, uint32_t max)
{
	for (unsigned int i = 0; i < cl_nsegs(c); i++)
		if (seg(c, i)->len > max) {
			fprintf(stderr, "  segment %u: %u bytes > %u\n", i, seg(c, i)->len, max);
			return false;
		}
	return true;
}

TFO_TEST(pmtu_ptb_mid_response_resends_smaller)
{
	struct harness h;
	struct cl c;
	struct h_seg first[10];
	struct tfo_conn *conn;
	uint32_t cwnd, ssthresh, una;
	unsigned int n;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40100, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "9000b\n", 6);
	n = cl_nsegs(&c);
	REQUIRE(n == 7);	/* 6 x 1448 + 318, with FIN */
	memcpy(first, h.out, n * sizeof(first[0]));
	h_clear(&h);
	/* the first two arrive; the rest is too big for a tunnel on the way */
	cl_fold(&c, &first[0]);
	cl_fold(&c, &first[1]);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	h_clear(&h);
	conn = conn_of(&c);
	REQUIRE(conn != NULL);
	CHECK_EQ(conn->mss, 1460);
	cwnd = conn->cwnd;
	ssthresh = conn->ssthresh;
	una = conn->snd_una;
	CHECK_EQ(una, first[2].p.seq);
	CHECK_EQ(ptb_to(&c, first[3].p.seq, 1400), TFO_PTB_ACCEPTED);
	CHECK_EQ(h_stat(&h, "pmtu_accepted"), 1);
	CHECK_EQ(conn->mss, 1360);
	/* the whole flight again at once, from snd_una, in the new size */
	REQUIRE(cl_nsegs(&c) >= 5);
	CHECK_EQ(seg(&c, 0)->p.seq, una);
	CHECK_EQ(seg(&c, 0)->len, 1348);	/* 1360 - timestamps */
	CHECK(segs_at_most(&c, 1348));
	/* not a congestion signal */
	CHECK_EQ(conn->cwnd, cwnd);
	CHECK_EQ(conn->ssthresh, ssthresh);
	CHECK_EQ(h_stat(&h, "rto_expired"), 0);
	CHECK_EQ(h_stat(&h, "fast_retransmits"), 0);
	CHECK(h_stat(&h, "retransmit_segs") >= 5);
	/* the rest, and the end, in the small size; the bytes exact */
	while (!c.fin && h.n_out > 0) {
		CHECK(segs_at_most(&c, 1348));
		if (ack_each_until_fin(&c, 1) == 0)
			break;
	}
	CHECK(rx_is(&c, "9000b\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

TFO_TEST(pmtu_ptb_out_of_window_rejected_and_not_smaller_ignored)
{
	struct harness h;
	struct cl c;
	struct tfo_conn *conn;
	uint32_t una, max;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40101, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "3000\n", 5);
	REQUIRE(cl_nsegs(&c) == 3);
	h_clear(&h);
	conn = conn_of(&c);
	REQUIRE(conn != NULL);
	una = conn->snd_una;
	max = conn->snd_max;
	/* a blind attacker's guesses: below snd_una, at and past snd_max */
	CHECK_EQ(ptb_to(&c, una - 1, 576), TFO_PTB_REJECTED_SEQ);
	CHECK_EQ(ptb_to(&c, max, 576), TFO_PTB_REJECTED_SEQ);
	CHECK_EQ(ptb_to(&c, max + 100000, 576), TFO_PTB_REJECTED_SEQ);
	CHECK_EQ(h_stat(&h, "pmtu_rejected_seq"), 3);
	CHECK_EQ(conn->mss, 1460);
	CHECK_EQ(cl_nsegs(&c), 0);
	/* not below the path: nothing to do */
	CHECK_EQ(ptb_to(&c, una, 1500), TFO_PTB_IGNORED);
	CHECK_EQ(ptb_to(&c, una, 9000), TFO_PTB_IGNORED);
	CHECK_EQ(h_stat(&h, "pmtu_ignored"), 2);
	CHECK_EQ(conn->mss, 1460);
	CHECK_EQ(cl_nsegs(&c), 0);
	CHECK_EQ(h_stat(&h, "pmtu_accepted"), 0);
	/* the last byte in flight (the FIN) is still in the window */
	CHECK_EQ(ptb_to(&c, max - 1, 1492), TFO_PTB_ACCEPTED);
	CHECK_EQ(conn->mss, 1452);
	/* and never up again */
	CHECK_EQ(ptb_to(&c, una, 1496), TFO_PTB_IGNORED);
	CHECK_EQ(conn->mss, 1452);
	ack_each_until_fin(&c, 20);
	CHECK(rx_is(&c, "3000\n") && c.fin);
	client_close(&c);
	/* TIME-WAIT: nothing in flight, any quote is out of the window */
	conn = conn_of(&c);
	if (conn != NULL)
		CHECK_EQ(ptb_to(&c, conn->snd_una, 576), TFO_PTB_REJECTED_SEQ);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

TFO_TEST(pmtu_ptb_below_floor_clamped)
{
	struct harness h;
	struct cl c;
	struct tfo_conn *conn;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40102, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "5000b\n", 6);
	REQUIRE(cl_nsegs(&c) == 4);
	h_clear(&h);
	conn = conn_of(&c);
	REQUIRE(conn != NULL);
	/* 68 (RFC 791's minimum) and 0 (no MTU given, RFC 1191 old routers)
	 * both end at Linux's min_pmtu 552: MSS 512 */
	CHECK_EQ(ptb_to(&c, conn->snd_una, 68), TFO_PTB_ACCEPTED);
	CHECK_EQ(conn->mss, 512);
	CHECK(segs_at_most(&c, 500));
	CHECK_EQ(seg(&c, 0)->len, 500);
	CHECK_EQ(ptb_to(&c, conn->snd_una, 0), TFO_PTB_IGNORED);
	CHECK_EQ(conn->mss, 512);
	ack_each_until_fin(&c, 40);
	CHECK(rx_is(&c, "5000b\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

TFO_TEST(pmtu_ipv6_packet_too_big_and_tfo_synack)
{
	struct harness h;
	struct cl c;
	struct tfo_conn *conn;
	const struct h_seg *s;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET6, 40103, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "6000b\n", 6);
	REQUIRE(cl_nsegs(&c) >= 4);
	CHECK_EQ(seg(&c, 0)->len, 1428);	/* 1440 - timestamps */
	h_clear(&h);
	conn = conn_of(&c);
	REQUIRE(conn != NULL);
	/* below IPv6's minimum link MTU: 1280, MSS 1220 */
	CHECK_EQ(ptb_to(&c, conn->snd_una + 1428, 1000), TFO_PTB_ACCEPTED);
	CHECK_EQ(conn->mss, 1220);
	CHECK_EQ(seg(&c, 0)->p.seq, conn->snd_una);
	CHECK(segs_at_most(&c, 1208));
	ack_each_until_fin(&c, 20);
	CHECK(rx_is(&c, "6000b\n") && c.fin);
	client_close(&c);
	cl_free(&c);

	/* the TFO SYN-ACK itself carried too much: sent again, smaller,
	 * still a SYN-ACK with the data */
	cl_init(&c, &h, AF_INET6, 40104, 80);
	c.tfo = CL_COOKIE;
	cl_syn(&c, "4000\n", 5);
	REQUIRE(cl_nsegs(&c) >= 1);
	s = seg(&c, 0);
	REQUIRE(s->p.tcp_flags & TFO_TCP_SYN);
	CHECK(s->len > 1208);
	h_clear(&h);
	conn = conn_of(&c);
	REQUIRE(conn != NULL);
	CHECK_EQ(ptb_to(&c, s->p.seq, 1280), TFO_PTB_ACCEPTED);
	REQUIRE(cl_nsegs(&c) >= 1);
	s = seg(&c, 0);
	CHECK(s->p.tcp_flags & TFO_TCP_SYN);
	CHECK(s->len > 0);
	CHECK(segs_at_most(&c, 1208));
	cl_recv(&c);
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	ack_each_until_fin(&c, 20);
	CHECK(rx_is(&c, "4000\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}
