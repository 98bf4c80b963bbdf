/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TCP engine scenarios, sending and loss:
 * sending until acked, checksums of every shape, SYN-ACK and data loss
 * (RTO, fast retransmit, SACK), duplicate SYNs, the ICMP echo bucket, FIN
 * loss.
 */
#include "engine_scenario.h"

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
