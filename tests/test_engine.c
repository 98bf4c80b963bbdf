/* SPDX-License-Identifier: BSD-3-Clause
 * TCP engine scenario tests: crafted segments in, the engine's segments
 * checked, fake clock. Every scenario ends with h_finish(): the connection
 * pool, the buffers and every mbuf must be back.
 */
#include <errno.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "tcp/access_log.h"
#include "tcp/conn.h"
#include "tcp/latency.h"
#include "net/neigh.h"
#include "net/tx.h"
#include "engine_harness.h"
#include "ops/start_plan.h"
#include "test.h"

#define SEC 1000000ull
#define MS 1000ull

static const struct h_seg *
seg(const struct cl *c, unsigned int nth)
{
	int i = cl_seg(c, nth);

	return i < 0 ? NULL : &c->h->out[i];
}

static uint32_t
nstate(struct harness *h, enum tfo_conn_state s)
{
	uint32_t n[TFO_CONN_NB_STATES];

	tfo_engine_conn_counts(h->e, n);
	return n[s];
}

/* Handshake without TFO; returns with the client synchronised. */
static void
plain_open(struct cl *c)
{
	cl_syn(c, NULL, 0);
	cl_recv(c);
	cl_send(c, TFO_TCP_ACK, NULL, 0);
	h_clear(c->h);
}

static bool
rx_is(const struct cl *c, const char *line)
{
	static uint8_t exp[1 << 20];
	uint32_t n = h_gen_expect(line, exp, sizeof(exp));

	if (n != c->rx_len) {
		fprintf(stderr, "  got %u bytes, want %u\n", c->rx_len, n);
		return false;
	}
	return memcmp(exp, c->rx, n) == 0;
}

/* Client side of a close after the server's FIN: ACK + FIN, then the
 * server's last ACK. */
static void
client_close(struct cl *c)
{
	cl_recv(c);
	cl_send(c, TFO_TCP_ACK | TFO_TCP_FIN, NULL, 0);
	cl_recv(c);
}

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

/*
 * The client acks every segment of the server's flight, one ACK each (as
 * Linux does in quickack mode), until the FIN. @return the rounds taken.
 */
static unsigned int
ack_each_until_fin(struct cl *c, unsigned int max_rounds)
{
	struct harness *h = c->h;
	unsigned int rounds = 0;

	while (!c->fin && rounds < max_rounds && h->n_out > 0) {
		unsigned int n = h->n_out;
		struct h_seg *batch = malloc(n * sizeof(*batch));

		memcpy(batch, h->out, n * sizeof(*batch));
		h_clear(h);
		for (unsigned int i = 0; i < n; i++) {
			if (!cl_owns(c, &batch[i]))
				continue;
			cl_fold(c, &batch[i]);
			cl_send(c, TFO_TCP_ACK, NULL, 0);
		}
		free(batch);
		rounds++;
	}
	return rounds;
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
TFO_TEST(sends_from_until_acked)
{
	const struct tfo_blob *b = h_gen_blob();
	const char *lo = (const char *)b;
	struct harness h;
	struct cl c;

	h_init(&h, 16);
	h.srv_port.tx_multiseg = true;
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40013, 80);
	plain_open(&c);
	CHECK(!tfo_engine_sends_from(h.e, b, b + 1));
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "100000b\n", 8);
	CHECK_EQ(cl_nsegs(&c), 10);	/* IW10: most of it unacknowledged */
	CHECK(tfo_engine_sends_from(h.e, b, b + 1));
	CHECK(tfo_engine_sends_from(h.e, lo - 4096, lo + 1));
	CHECK(!tfo_engine_sends_from(h.e, lo - 4096, b));
	CHECK(!tfo_engine_sends_from(h.e, lo + 1, lo + 4096));
	ack_each_until_fin(&c, 50);
	CHECK(c.fin);
	CHECK(!tfo_engine_sends_from(h.e, b, b + 1));
	h_clear(&h);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/*
 * Every response shape leaves with checksums a receiver accepts, with the
 * device's checksum offload applied as a device does (the harness), also
 * by a device that sums each segment on its own: close / keep-alive x
 * copied / zero-copy (odd and even heads) x one / several segments x in
 * the SYN-ACK (TFO) / behind the handshake, IPv4 and IPv6, offload on/off.
 * Found on net_tap: a close-mode http head of odd length in front of a
 * zero-copy body went out with a bad TCP checksum.
 */
static void
response_checksums(bool offload, int family, bool tfo, const char *line)
{
	struct harness h;
	struct cl c;
	uint32_t len = (uint32_t)strlen(line);

	h_init(&h, 16);
	h.srv_port.tx_ip_cksum_offload = offload && family == AF_INET;
	h.srv_port.tx_tcp_cksum_offload = offload;
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, family, 40100, 80);
	if (tfo) {
		c.tfo = CL_COOKIE;
		cl_syn(&c, line, len);
	} else {
		plain_open(&c);
		cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, line, len);
	}
	ack_each_until_fin(&c, 50);
	CHECK_MSG(rx_is(&c, line) && h.bad_out == 0,
		  "offload %d, %s, %s, \"%.*s\"", offload,
		  family == AF_INET ? "IPv4" : "IPv6", tfo ? "TFO" : "3WHS",
		  (int)len - 1, line);
	if (c.fin) {
		client_close(&c);
	} else {
		cl_send(&c, TFO_TCP_ACK | TFO_TCP_FIN, NULL, 0);
		ack_each_until_fin(&c, 5);
		CHECK(c.fin);
		cl_send(&c, TFO_TCP_ACK, NULL, 0);
	}
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

TFO_TEST(response_checksums_every_shape)
{
	/* copied 1 / several segments; zero-copy bodies behind heads of
	 * 5 (odd), 6 (even) and 7 (odd) bytes, one and several segments */
	static const char *const lines[] = {
		"101\n", "3001\n", "301b\n", "3000b\n", "10001b\n",
		"101k\n", "3001k\n", "301bk\n", "3000bk\n", "10001bk\n",
	};
	for (int off = 0; off < 2; off++)
		for (int f = 0; f < 2; f++)
			for (int tfo = 0; tfo < 2; tfo++)
				for (unsigned int i = 0; i < RTE_DIM(lines); i++)
					response_checksums(off != 0,
							   f ? AF_INET6 : AF_INET,
							   tfo != 0, lines[i]);
}

TFO_TEST(synack_loss_rto_and_retry_limit)
{
	struct harness h;
	struct cl c;
	const struct h_seg *s;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40004, 80);
	cl_syn(&c, NULL, 0);
	h_clear(&h);		/* lost */
	h_advance(&h, 999 * MS);
	CHECK_EQ(cl_nsegs(&c), 0);
	h_advance(&h, 30 * MS);	/* 1 s RTO (+ a tick) */
	REQUIRE(cl_nsegs(&c) == 1);
	s = seg(&c, 0);
	CHECK_EQ(s->p.tcp_flags, TFO_TCP_SYN | TFO_TCP_ACK);
	h_clear(&h);
	h_advance(&h, 1900 * MS);
	CHECK_EQ(cl_nsegs(&c), 0);	/* backoff: 2 s */
	h_advance(&h, 200 * MS);
	CHECK_EQ(cl_nsegs(&c), 1);
	h_advance(&h, 4100 * MS);
	CHECK_EQ(cl_nsegs(&c), 2);	/* 3 retransmissions = synack_retries */
	CHECK_EQ(h_stat(&h, "synack_retransmits"), 3);
	h_advance(&h, 8100 * MS);
	CHECK_EQ(cl_nsegs(&c), 2);	/* freed silently */
	CHECK_EQ(h_stat(&h, "conns_closed_synack_timeout"), 1);
	CHECK_EQ(tfo_engine_free_conns(h.e), 16);
	CHECK(h_finish(&h, 1) == 0);
	cl_free(&c);
}

TFO_TEST(tfo_synack_retransmit_has_no_data_then_resend_at_once)
{
	struct harness h;
	struct cl c;
	const struct h_seg *s;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40005, 80);
	c.tfo = CL_COOKIE;
	cl_syn(&c, "500\n", 4);
	REQUIRE(cl_nsegs(&c) == 1 && seg(&c, 0)->len == 500);
	h_clear(&h);		/* the SYN-ACK with the response is lost */
	h_advance(&h, 1100 * MS);
	REQUIRE(cl_nsegs(&c) == 1);
	s = seg(&c, 0);
	CHECK_EQ(s->p.tcp_flags, TFO_TCP_SYN | TFO_TCP_ACK);
	CHECK_EQ(s->len, 0);
	CHECK_EQ(s->o.form, TFO_FORM_NONE);
	CHECK_EQ(s->p.ack, c.iss + 5);	/* still acks the SYN's data */
	cl_recv(&c);
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);	/* acks our SYN only */
	REQUIRE(cl_nsegs(&c) == 1);	/* the response at once, no RTO */
	s = seg(&c, 0);
	CHECK_EQ(s->p.seq, c.irs + 1);
	CHECK_EQ(s->len, 500);
	CHECK(s->p.tcp_flags & TFO_TCP_FIN);
	CHECK_EQ(h_stat(&h, "synack_data_resend"), 1);
	cl_recv(&c);
	CHECK(rx_is(&c, "500\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/* A client that drops SYN-ACK data (plain connect behind a TFO-capable
 * stack): its ACK covers only the SYN; the response goes again at once. */
TFO_TEST(handshake_ack_of_syn_only_resends_response)
{
	struct harness h;
	struct cl c;
	const struct h_seg *s;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40006, 80);
	c.tfo = CL_COOKIE;
	cl_syn(&c, "3000b\n", 6);
	REQUIRE(cl_nsegs(&c) == 3);	/* SYN-ACK + 2 segments */
	CHECK_EQ(seg(&c, 0)->len, 1460 - 20);	/* MSS - SYN-ACK options */
	s = seg(&c, 0);
	c.synced = true;
	c.irs = s->p.seq;
	c.rcv_nxt = s->p.seq + 1;	/* ignores the data */
	c.synack_opts = s->o;
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	CHECK_EQ(cl_nsegs(&c), 3);
	CHECK_EQ(seg(&c, 0)->p.seq, c.irs + 1);
	CHECK_EQ(h_stat(&h, "synack_data_resend"), 1);
	ack_each_until_fin(&c, 10);
	CHECK(rx_is(&c, "3000b\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

TFO_TEST(dup_syn_resends_first_flight_service_once)
{
	struct harness h;
	struct cl c;
	unsigned long calls;
	const struct h_seg *s;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40007, 80);
	c.tfo = CL_COOKIE;
	calls = h_gen_calls;
	cl_syn(&c, "700\n", 4);
	REQUIRE(cl_nsegs(&c) == 1);
	h_clear(&h);
	c.tsval += 100;
	cl_syn(&c, "700\n", 4);	/* retransmitted SYN, same ISN, with data */
	REQUIRE(cl_nsegs(&c) == 1);
	s = seg(&c, 0);
	CHECK_EQ(s->p.tcp_flags, TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_PSH | TFO_TCP_FIN);
	CHECK_EQ(s->len, 700);
	CHECK_EQ(s->p.ack, c.iss + 5);
	CHECK_EQ(s->o.tsecr, c.tsval - 1);	/* the duplicate's TSval */
	CHECK_EQ(h_gen_calls - calls, 1);
	CHECK_EQ(h_stat(&h, "dup_syn"), 1);
	/* a duplicate without TFO option: SYN-ACK without data, data behind
	 * (past the 500 ms of the duplicate-SYN rate limit) */
	h_clear(&h);
	h_advance(&h, 500 * 1000);
	c.tfo = CL_NO_TFO;
	cl_syn(&c, NULL, 0);
	REQUIRE(cl_nsegs(&c) == 2);
	CHECK_EQ(seg(&c, 0)->len, 0);
	CHECK_EQ(seg(&c, 0)->p.ack, c.iss + 5);
	CHECK_EQ(seg(&c, 1)->len, 700);
	CHECK_EQ(h_gen_calls - calls, 1);
	c.snd_nxt = c.iss + 5;
	cl_recv(&c);
	CHECK(rx_is(&c, "700\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/*
 * Linux's tcp_invalid_ratelimit for a request socket: the first duplicate
 * SYN of a half-open entry is answered, the next ones within 500 ms of
 * that answer are not (TCPACKSkippedSynRecv); after 500 ms one is again.
 * The timer's own retransmission is not limited, the handshake completes.
 */
TFO_TEST(dup_syn_answered_once_per_500ms)
{
	struct harness h;
	struct cl c;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40017, 80);
	cl_syn(&c, NULL, 0);
	REQUIRE(cl_nsegs(&c) == 1);
	h_clear(&h);
	cl_syn(&c, NULL, 0);		/* first duplicate: answered */
	CHECK_EQ(cl_nsegs(&c), 1);
	h_clear(&h);
	for (unsigned int i = 0; i < 10; i++) {	/* a replayed flood of it */
		h_advance(&h, 40 * MS);
		cl_syn(&c, NULL, 0);
	}
	CHECK_EQ(cl_nsegs(&c), 0);
	CHECK_EQ(h_stat(&h, "dup_syn"), 11);
	CHECK_EQ(h_stat(&h, "TCPACKSkippedSynRecv"), 10);
	h_advance(&h, 100 * MS);	/* 500 ms after the answer */
	cl_syn(&c, NULL, 0);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_SYN | TFO_TCP_ACK);
	CHECK_EQ(seg(&c, 0)->p.ack, c.iss + 1);
	CHECK_EQ(h_stat(&h, "TCPACKSkippedSynRecv"), 10);
	cl_syn(&c, NULL, 0);
	CHECK_EQ(cl_nsegs(&c), 1);
	CHECK_EQ(h_stat(&h, "TCPACKSkippedSynRecv"), 11);
	/* the client's ACK of a SYN-ACK opens it as ever */
	cl_recv(&c);
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	CHECK_EQ(nstate(&h, TFO_CONN_ESTABLISHED), 1);
	client_close(&c);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);	/* of our FIN */
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

/* The TX buffer: re-sent answers go behind every fresh frame, so that a
 * port taking part of a burst drops them first. */
static struct rte_mbuf *tx_seen[TFO_TX_BUF * 2];
static unsigned int tx_nseen;

static void
tx_capture(struct tfo_tx *tx, uint8_t port_idx)
{
	struct tfo_tx_q *q = &tx->q[port_idx];

	for (unsigned int i = 0; i < q->n; i++)
		tx_seen[tx_nseen++] = q->pkts[i];
	q->n = 0;
}

TFO_TEST(tx_resent_frames_go_last)
{
	static struct tfo_tx tx;
	struct tfo_stats st;
	/* never dereferenced: the buffer only moves pointers */
	struct rte_mbuf *f[8];

	memset(&st, 0, sizeof(st));
	for (unsigned int i = 0; i < 8; i++)
		f[i] = (struct rte_mbuf *)(uintptr_t)(0x1000 * (i + 1));
	tx.flush = tx_capture;
	tx.stats = &st;
	tx_nseen = 0;
	tfo_tx_push_low(&tx, 0, f[0]);
	tfo_tx_push(&tx, 0, f[1]);
	tfo_tx_push_low(&tx, 0, f[2]);
	tfo_tx_push(&tx, 0, f[3]);
	tfo_tx_push(&tx, 0, f[4]);
	CHECK_EQ(tx.q[0].n, 5);
	CHECK_EQ(tx.q[0].nlow, 2);
	/* of the last 3 a port refused, 2 were re-sent answers */
	CHECK_EQ(tfo_tx_q_low_dropped(&tx.q[0], 3), 2);
	CHECK_EQ(tfo_tx_q_low_dropped(&tx.q[0], 1), 1);
	tx.flush(&tx, 0);
	REQUIRE(tx_nseen == 5);
	CHECK(tx_seen[0] == f[1] && tx_seen[1] == f[3] && tx_seen[2] == f[4]);
	CHECK((tx_seen[3] == f[0] && tx_seen[4] == f[2]) ||
	      (tx_seen[3] == f[2] && tx_seen[4] == f[0]));
	CHECK_EQ(st.c[TFO_STAT_tx_queued], 5);
	/* a flush only empties n: the stale nlow counts for nothing */
	CHECK_EQ(tfo_tx_q_low_dropped(&tx.q[0], 3), 0);
	tfo_tx_push(&tx, 0, f[5]);
	tfo_tx_push(&tx, 0, f[6]);
	CHECK_EQ(tx.q[0].nlow, 0);
	tx.flush(&tx, 0);
	CHECK(tx_nseen == 7 && tx_seen[5] == f[5] && tx_seen[6] == f[6]);
	/* a full buffer flushes before a re-sent answer too */
	for (unsigned int i = 0; i < TFO_TX_BUF; i++)
		tfo_tx_push(&tx, 0, f[7]);
	tfo_tx_push_low(&tx, 0, f[0]);
	CHECK_EQ(tx_nseen, 7 + TFO_TX_BUF);
	CHECK(tx.q[0].n == 1 && tx.q[0].nlow == 1 && tx.q[0].pkts[0] == f[0]);
}

/* The echo replies' token bucket (icmp_echo_per_s, burst 50). */
TFO_TEST(icmp_echo_token_bucket)
{
	struct tfo_tbucket b;
	unsigned int n = 0;

	tfo_tbucket_init(&b, 1000, TFO_ICMP_BURST, 0);
	while (n < 1000 && tfo_tbucket_take(&b, 5000000))
		n++;
	CHECK_EQ(n, TFO_ICMP_BURST);	/* full at start, capped after a silence */
	CHECK(!tfo_tbucket_take(&b, 5000000));
	CHECK(!tfo_tbucket_take(&b, 5000999));	/* 0.999 ms: not yet a token */
	CHECK(tfo_tbucket_take(&b, 5001000));
	CHECK(!tfo_tbucket_take(&b, 5001000));
	/* one second: 1000 more, but the bucket holds 50 */
	for (n = 0; n < 1000 && tfo_tbucket_take(&b, 6001000); n++)
		;
	CHECK_EQ(n, TFO_ICMP_BURST);
	/* a flood at 10x the rate gets the rate: 100 ms -> 100 answers */
	n = 0;
	for (uint64_t t = 7001000; t < 7101000; t += 100)
		n += tfo_tbucket_take(&b, t);
	CHECK(n >= 100 + TFO_ICMP_BURST - 1 && n <= 100 + TFO_ICMP_BURST);
	/* the clock going back takes nothing and adds nothing */
	CHECK(!tfo_tbucket_take(&b, 7000000) || n < 150);
	/* 0: no limit */
	tfo_tbucket_init(&b, 0, TFO_ICMP_BURST, 0);
	for (n = 0; n < 10000 && tfo_tbucket_take(&b, 0); n++)
		;
	CHECK_EQ(n, 10000);
	/* a very long silence neither overflows nor overfills */
	tfo_tbucket_init(&b, 10000000, TFO_ICMP_BURST, 0);
	for (n = 0; n < 1000 && tfo_tbucket_take(&b, UINT64_MAX / 2); n++)
		;
	CHECK_EQ(n, TFO_ICMP_BURST);
}

TFO_TEST(data_loss_fast_retransmit_and_rto)
{
	struct harness h;
	struct cl c;
	struct h_seg first[10];
	unsigned int n;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40008, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "9000b\n", 6);
	n = cl_nsegs(&c);
	REQUIRE(n == 7);	/* 9006 bytes: 6 x 1448 + 318, with FIN */
	memcpy(first, h.out, n * sizeof(first[0]));
	h_clear(&h);
	/* segment 1 is lost: the others produce duplicate ACKs */
	cl_fold(&c, &first[0]);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	for (unsigned int i = 2; i < 5; i++) {
		cl_fold(&c, &first[i]);	/* out of order: no new data */
		cl_send(&c, TFO_TCP_ACK, NULL, 0);
	}
	CHECK_EQ(h_stat(&h, "dup_acks_rx"), 3);
	CHECK_EQ(h_stat(&h, "fast_retransmits"), 1);
	REQUIRE(cl_nsegs(&c) >= 1);
	CHECK_EQ(seg(&c, 0)->p.seq, first[1].p.seq);
	CHECK_EQ(seg(&c, 0)->len, first[1].len);
	cl_recv(&c);
	h_clear(&h);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);	/* partial ACK: up to segment 2 */
	ack_each_until_fin(&c, 20);
	CHECK(rx_is(&c, "9000b\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);

	/* everything lost: RTO with backoff, then RST after max_retries */
	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40009, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "3000\n", 5);
	REQUIRE(cl_nsegs(&c) == 3);
	h_clear(&h);
	for (unsigned int i = 0; i < 4; i++) {
		h_advance(&h, (1000ull << i) * MS + 50 * MS);
		REQUIRE(cl_nsegs(&c) == 1);	/* first segment only */
		CHECK_EQ(seg(&c, 0)->p.seq, c.irs + 1);
		CHECK_EQ(seg(&c, 0)->len, 1448);
		h_clear(&h);
	}
	CHECK_EQ(h_stat(&h, "rto_expired"), 4);
	h_advance(&h, 16100 * MS);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.tcp_flags, TFO_TCP_RST | TFO_TCP_ACK);
	CHECK_EQ(h_stat(&h, "conns_closed_rto_timeout"), 1);
	CHECK(h_finish(&h, 1) == 0);
	cl_free(&c);
}

/*
 * One window of 10 segments with segments 2 and 6 lost; every other one
 * acked as it comes. @return the round trips the client needed after that
 * first flight to have the whole response (each: what the server sent in
 * answer to the previous one's ACKs).
 */
static unsigned int
two_holes(bool sack, uint16_t sport)
{
	struct harness h;
	struct cl c;
	struct h_seg first[12];
	unsigned int n, rounds;

	h_init(&h, 16);
	if (h_start(&h) != 0)
		return 0;
	cl_init(&c, &h, AF_INET, sport, 80);
	c.sack = sack;
	c.no_sack_perm = !sack;
	c.ooo_keep = true;	/* a receiver without SACK keeps it too */
	plain_open(&c);
	CHECK(c.synack_opts.sack_ok == sack);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "14000b\n", 7);
	n = cl_nsegs(&c);
	CHECK_EQ(n, 10);	/* 14007 bytes: 9 x 1448 + 975, with FIN */
	if (n != 10)
		return 0;
	memcpy(first, h.out, n * sizeof(first[0]));
	h_clear(&h);
	for (unsigned int i = 0; i < n; i++) {
		if (i == 2 || i == 6)
			continue;
		cl_fold(&c, &first[i]);
		cl_send(&c, TFO_TCP_ACK, NULL, 0);
	}
	CHECK_EQ(h_stat(&h, "fast_retransmits"), 1);
	rounds = ack_each_until_fin(&c, 20);
	CHECK(rx_is(&c, "14000b\n") && c.fin);
	CHECK_EQ(h_stat(&h, "rto_expired"), 0);
	/* exactly the two holes went again */
	CHECK_EQ(h_stat(&h, "retransmit_segs"), 2);
	if (sack) {
		CHECK_EQ(h_stat(&h, "sack_recovery_episodes"), 1);
		CHECK_EQ(h_stat(&h, "sack_retransmit_segs"), 2);
		CHECK(h_stat(&h, "sack_blocks_rx") >= 5);
		CHECK_EQ(h_stat(&h, "sack_blocks_ignored"), 0);
	} else {
		CHECK_EQ(h_stat(&h, "sack_recovery_episodes"), 0);
		CHECK_EQ(h_stat(&h, "sack_blocks_rx"), 0);
	}
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
	return rounds;
}

/* RFC 6675 against NewReno: two holes in one window cost one round trip
 * with SACK, two without (NewReno learns of the second hole only from the
 * partial ACK of the first). */
TFO_TEST(sack_two_holes_one_round_trip)
{
	CHECK_EQ(two_holes(true, 40020), 1);
	CHECK_EQ(two_holes(false, 40021), 2);
}

/* Blocks that do not describe data in flight change nothing: a D-SACK
 * below snd_una, one beyond snd_max, a reversed one. Good blocks that do
 * not yet prove a loss (one segment SACKed) start no recovery. */
TFO_TEST(sack_bad_blocks_ignored)
{
	struct harness h;
	struct cl c;
	struct h_seg first[12];
	uint32_t una;
	unsigned int n;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40022, 80);
	c.sack = true;
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "14000b\n", 7);
	n = cl_nsegs(&c);
	REQUIRE(n == 10);
	memcpy(first, h.out, n * sizeof(first[0]));
	h_clear(&h);
	cl_fold(&c, &first[0]);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	REQUIRE(h.n_out == 0);
	una = c.rcv_nxt;
	/* segment 1 is missing; the client claims odd things */
	c.sack_l[0] = una - 1000;		/* D-SACK */
	c.sack_r[0] = una - 500;
	c.sack_l[1] = una + 3000;		/* reversed */
	c.sack_r[1] = una + 2000;
	c.sack_l[2] = first[9].p.seq;		/* beyond the FIN */
	c.sack_r[2] = first[9].p.seq + first[9].len + 100;
	c.nsack = 3;
	c.sack_last = c.sack_l[0];
	for (unsigned int i = 0; i < 3; i++)
		cl_send(&c, TFO_TCP_ACK, NULL, 0);
	CHECK_EQ(h_stat(&h, "sack_blocks_ignored"), 9);
	CHECK_EQ(h_stat(&h, "sack_blocks_rx"), 0);
	/* three plain duplicates: NewReno-like fast retransmit of snd_una */
	CHECK_EQ(h_stat(&h, "dup_acks_rx"), 3);
	CHECK_EQ(h_stat(&h, "fast_retransmits"), 1);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.seq, first[1].p.seq);
	c.nsack = 0;
	h_clear(&h);
	for (unsigned int i = 1; i < n; i++)
		cl_fold(&c, &first[i]);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	CHECK(rx_is(&c, "14000b\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);

	/* one segment SACKed after one duplicate: no recovery yet */
	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40023, 80);
	c.sack = true;
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "14000b\n", 7);
	REQUIRE(cl_nsegs(&c) == 10);
	memcpy(first, h.out, 10 * sizeof(first[0]));
	h_clear(&h);
	cl_fold(&c, &first[0]);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	cl_fold(&c, &first[2]);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	CHECK_EQ(h_stat(&h, "sack_blocks_rx"), 1);
	CHECK_EQ(h_stat(&h, "fast_retransmits"), 0);
	CHECK_EQ(h.n_out, 0);
	/* an RTO forgets the scoreboard and goes back to snd_una */
	h_advance(&h, 1100 * MS);
	CHECK_EQ(h_stat(&h, "rto_expired"), 1);
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.seq, first[1].p.seq);
	ack_each_until_fin(&c, 20);
	CHECK(rx_is(&c, "14000b\n") && c.fin);
	client_close(&c);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

TFO_TEST(fin_loss_and_final_ack_loss)
{
	struct harness h;
	struct cl c;
	const struct h_seg *s;

	h_init(&h, 16);
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, AF_INET, 40010, 80);
	plain_open(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "100\n", 4);
	REQUIRE(cl_nsegs(&c) == 1);
	h_clear(&h);		/* response + FIN lost */
	h_advance(&h, 1100 * MS);
	REQUIRE(cl_nsegs(&c) == 1);
	s = seg(&c, 0);
	CHECK_EQ(s->len, 100);
	CHECK(s->p.tcp_flags & TFO_TCP_FIN);
	cl_recv(&c);
	CHECK(rx_is(&c, "100\n") && c.fin);
	h_clear(&h);
	/* the client's ACK of our FIN is lost; its FIN comes later */
	h_advance(&h, 2100 * MS);
	REQUIRE(cl_nsegs(&c) == 1);	/* RTO: the FIN segment again */
	CHECK(seg(&c, 0)->p.tcp_flags & TFO_TCP_FIN);
	cl_recv(&c);
	h_clear(&h);
	client_close(&c);
	CHECK_EQ(nstate(&h, TFO_CONN_TIME_WAIT), 1);
	/* the client's FIN again (our last ACK lost): ACK again in TIME-WAIT */
	h_clear(&h);
	h_rx(&h, cl_frame(&c, TFO_TCP_ACK | TFO_TCP_FIN, c.snd_nxt - 1, c.rcv_nxt,
			  NULL, 0));
	REQUIRE(cl_nsegs(&c) == 1);
	CHECK_EQ(seg(&c, 0)->p.ack, c.snd_nxt);
	CHECK(h_finish(&h, 5) == 0);
	cl_free(&c);
}

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

/* ---- latency histograms and access-log records (tfo/latency.h) ---------- */

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

TFO_TEST_MAIN()
