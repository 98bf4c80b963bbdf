/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TCP engine scenarios, the short input path (tcp_input.c's
 * seg_fast) against the full one. Each script runs twice on a fresh
 * engine: once with the client's timestamp in Linux's layout (NOP, NOP,
 * TS), which the short path takes, and once as TS, NOP, NOP: the same
 * option, which only the full path takes. What the server sends, its
 * states and its counters must be the same both times. The scripts hold
 * the segments the short path serves (the handshake's ACK of a whole TFO
 * answer or of a bare SYN-ACK, the ACK of a response, the ACK of our FIN,
 * a bare FIN in ESTABLISHED and in FIN_WAIT_2) and those it must leave to
 * the full path (a partial ACK, a duplicate ACK, data with a FIN, a FIN
 * crossing ours, an old timestamp, URG, out of order, a second FIN),
 * each with the full path's own answer asserted too.
 */
#include <inttypes.h>

#include "engine_scenario.h"

/* counters either path may move; the two runs must agree on each */
static const char *const fp_ctrs[] = {
	"conns_closed_normal", "time_wait_entered", "dup_acks_rx", "drop_paws",
	"drop_seq_window", "drop_ack_unsent", "drop_old_ack", "drop_no_ack",
	"rx_dup_data", "rx_ooo_drop", "rx_after_close", "challenge_acks",
	"retransmit_segs", "synack_data_resend", "svc_calls",
};

struct fp_run {
	struct harness h;
	struct cl c;
	bool alt;		/* timestamps as TS, NOP, NOP */
	char trace[4096];
	size_t len;
};

/*
 * The client's NOP, NOP, TS as TS, NOP, NOP: the same six 16-bit words in
 * another order, so the TCP checksum holds.
 */
static struct rte_mbuf *
fp_relayout(struct fp_run *r, struct rte_mbuf *m)
{
	uint8_t *th = rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN +
					      (r->c.family == AF_INET ? 20 : 40));
	uint8_t *o = th + TFO_TCP_HDR_LEN;

	if (!r->alt || (th[12] >> 4) != 8 || o[0] != TFO_OPT_NOP || o[1] != TFO_OPT_NOP ||
	    o[2] != TFO_OPT_TS)
		return m;
	memmove(o, o + 2, 10);
	o[10] = TFO_OPT_NOP;
	o[11] = TFO_OPT_NOP;
	return m;
}

/* What the server sent the client since the last step (relative to both
 * initial sequence numbers), then the state counts, into the trace. */
static void
fp_note(struct fp_run *r, const char *step)
{
	struct cl *c = &r->c;

	cl_recv(c);	/* the SYN-ACK's first: irs */
	r->len += (size_t)snprintf(r->trace + r->len, sizeof(r->trace) - r->len,
				   "%s:", step);
	for (unsigned int i = 0; i < cl_nsegs(c); i++) {
		const struct h_seg *s = seg(c, i);

		r->len += (size_t)snprintf(r->trace + r->len, sizeof(r->trace) - r->len,
					   " [%02x %u %u w%u l%u e%u]", s->p.tcp_flags,
					   s->p.seq - c->irs, s->p.ack - c->iss,
					   s->p.window, s->len, s->o.tsecr);
	}
	for (int st = TFO_CONN_CLOSED + 1; st < TFO_CONN_NB_STATES; st++)
		r->len += (size_t)snprintf(r->trace + r->len, sizeof(r->trace) - r->len,
					   " %u", nstate(&r->h, st));
	r->len += (size_t)snprintf(r->trace + r->len, sizeof(r->trace) - r->len, "\n");
	h_clear(&r->h);
}

/* The client sends @p flags and @p data from its snd_nxt, acking @p ack. */
static void
fp_send_ack(struct fp_run *r, uint8_t flags, const char *data, uint32_t ack)
{
	struct cl *c = &r->c;
	uint32_t len = data != NULL ? (uint32_t)strlen(data) : 0;
	struct rte_mbuf *m = cl_frame(c, flags, c->snd_nxt, ack, data, len);

	c->snd_nxt += len + !!(flags & TFO_TCP_FIN);
	h_rx(&r->h, fp_relayout(r, m));
}

static void
fp_send(struct fp_run *r, uint8_t flags, const char *data)
{
	fp_send_ack(r, flags, data, r->c.rcv_nxt);
}

typedef void (*fp_script)(struct fp_run *r);

/* A plain open and the request @p line; @return the end of the first
 * segment of the response, which the client has taken. */
static uint32_t
fp_request(struct fp_run *r, const char *line)
{
	struct cl *c = &r->c;
	uint32_t end;

	cl_syn(c, NULL, 0);
	fp_note(r, "syn");
	fp_send(r, TFO_TCP_ACK, NULL);
	fp_send(r, TFO_TCP_ACK | TFO_TCP_PSH, line);
	if (cl_nsegs(c) == 0)
		return 0;
	end = seg(c, 0)->p.seq + seg(c, 0)->len;
	fp_note(r, "request");
	return end;
}

/* Run @p script with each timestamp layout; the two traces and counters
 * must agree. */
static void
fp_both(fp_script script, uint16_t sport)
{
	static struct fp_run run[2];

	for (int i = 0; i < 2; i++) {
		struct fp_run *r = &run[i];

		memset(r, 0, sizeof(*r));
		r->alt = i == 1;
		h_init(&r->h, 16);
		REQUIRE(h_start(&r->h) == 0);
		cl_init(&r->c, &r->h, AF_INET, sport, 80);
		script(r);
		for (unsigned int k = 0; k < RTE_DIM(fp_ctrs); k++)
			r->len += (size_t)snprintf(r->trace + r->len,
						   sizeof(r->trace) - r->len, "%s %" PRIu64 "\n",
						   fp_ctrs[k], h_stat(&r->h, fp_ctrs[k]));
		CHECK(h_finish(&r->h, 5) == 0);
		cl_free(&r->c);
	}
	if (strcmp(run[0].trace, run[1].trace) != 0)
		fprintf(stderr, "  short path:\n%s  full path:\n%s", run[0].trace,
			run[1].trace);
	CHECK(strcmp(run[0].trace, run[1].trace) == 0);
}

/* TFO: the answer and FIN in the SYN-ACK, the ACK of all of it
 * (SYN_RCVD -> FIN_WAIT_2), the client's FIN (-> TIME-WAIT). */
static void
fp_tfo_close(struct fp_run *r)
{
	r->h.accept_all = true;
	cl_syn(&r->c, "100\n", 4);
	fp_note(r, "syn");
	CHECK(r->c.fin && rx_is(&r->c, "100\n"));
	fp_send(r, TFO_TCP_ACK, NULL);
	CHECK_EQ(cl_nsegs(&r->c), 0);
	CHECK_EQ(nstate(&r->h, TFO_CONN_FIN_WAIT_2), 1);
	fp_note(r, "ack");
	fp_send(r, TFO_TCP_ACK | TFO_TCP_FIN, NULL);
	REQUIRE(cl_nsegs(&r->c) == 1);
	CHECK_EQ(seg(&r->c, 0)->p.tcp_flags, TFO_TCP_ACK);
	CHECK_EQ(seg(&r->c, 0)->p.ack, r->c.snd_nxt);
	CHECK_EQ(h_stat(&r->h, "time_wait_entered"), 1);
	fp_note(r, "fin");
}

TFO_TEST(fastpath_tfo_ack_and_fin_as_full_path)
{
	fp_both(fp_tfo_close, 40301);
}

/* Keep-alive: the bare SYN-ACK's ACK, a request, the ACK of its response,
 * the client's FIN in ESTABLISHED (ours follows), the ACK of our FIN
 * (LAST_ACK -> closed). */
static void
fp_keepalive_close(struct fp_run *r)
{
	cl_syn(&r->c, NULL, 0);
	fp_note(r, "syn");
	fp_send(r, TFO_TCP_ACK, NULL);
	CHECK_EQ(nstate(&r->h, TFO_CONN_ESTABLISHED), 1);
	fp_note(r, "ack");
	fp_send(r, TFO_TCP_ACK | TFO_TCP_PSH, "100k\n");
	REQUIRE(cl_nsegs(&r->c) == 1);
	fp_note(r, "request");
	fp_send(r, TFO_TCP_ACK, NULL);
	CHECK_EQ(cl_nsegs(&r->c), 0);
	fp_note(r, "ack of the response");
	fp_send(r, TFO_TCP_ACK | TFO_TCP_FIN, NULL);
	REQUIRE(cl_nsegs(&r->c) == 1);
	CHECK_EQ(seg(&r->c, 0)->p.tcp_flags, TFO_TCP_ACK | TFO_TCP_FIN);
	CHECK_EQ(nstate(&r->h, TFO_CONN_LAST_ACK), 1);
	fp_note(r, "fin");
	fp_send(r, TFO_TCP_ACK, NULL);
	CHECK_EQ(nstate(&r->h, TFO_CONN_LAST_ACK), 0);
	CHECK_EQ(h_stat(&r->h, "conns_closed_normal"), 1);
	fp_note(r, "ack of our fin");
}

TFO_TEST(fastpath_keepalive_acks_and_fin_as_full_path)
{
	fp_both(fp_keepalive_close, 40302);
}

/* CLOSING: the client's ACK of our FIN begins TIME-WAIT. */
static void
fp_closing_acked(struct fp_run *r)
{
	fp_send(r, TFO_TCP_ACK, NULL);
	CHECK_EQ(h_stat(&r->h, "time_wait_entered"), 1);
	fp_note(r, "ack of our fin");
}

/* What the short path leaves alone: each segment below differs from one
 * it takes in one way, and gets the full path's answer. */
static void
fp_refused(struct fp_run *r)
{
	struct cl *c = &r->c;
	/* a response of three segments, acknowledged a segment at a time:
	 * a partial ACK, then the same ACK again (a duplicate) */
	uint32_t first_end = fp_request(r, "3000k\n");

	REQUIRE(first_end != 0 && first_end != c->rcv_nxt);	/* not all of it */
	fp_send_ack(r, TFO_TCP_ACK, NULL, first_end);
	fp_note(r, "partial ack");
	fp_send_ack(r, TFO_TCP_ACK, NULL, first_end);
	CHECK_EQ(h_stat(&r->h, "dup_acks_rx"), 1);
	fp_note(r, "duplicate ack");
	fp_send(r, TFO_TCP_ACK, NULL);
	fp_note(r, "ack of all");
	/* URG, and an old timestamp (PAWS), on an ACK of everything */
	fp_send(r, TFO_TCP_ACK | TFO_TCP_URG, NULL);
	fp_note(r, "urg");
	c->tsval -= 100;
	fp_send(r, TFO_TCP_ACK, NULL);
	c->tsval += 200;
	CHECK_EQ(h_stat(&r->h, "drop_paws"), 1);
	fp_note(r, "paws");
	/* out of order (a gap before it), in the window */
	c->snd_nxt += 10;
	fp_send(r, TFO_TCP_ACK, NULL);
	c->snd_nxt -= 10;
	fp_note(r, "out of order");
	/* a FIN with data: a last request, answered with our FIN, which
	 * crosses the client's (CLOSING) */
	fp_send(r, TFO_TCP_ACK | TFO_TCP_PSH | TFO_TCP_FIN, "5\n");
	CHECK_EQ(nstate(&r->h, TFO_CONN_CLOSING), 1);
	fp_note(r, "data and fin");
	/* its FIN again (a second FIN at rcv_nxt: a retransmission to the
	 * full path), acking all but our FIN; then the ACK of all */
	fp_send_ack(r, TFO_TCP_ACK | TFO_TCP_FIN, NULL, c->rcv_nxt - 1);
	c->snd_nxt--;
	CHECK_EQ(h_stat(&r->h, "rx_dup_data"), 1);
	fp_note(r, "fin again");
	fp_closing_acked(r);
}

TFO_TEST(fastpath_refuses_what_it_does_not_know)
{
	fp_both(fp_refused, 40303);
}

/* Our FIN crosses the client's: the client's FIN does not ack ours
 * (FIN_WAIT_1 -> CLOSING), then its ACK of our FIN (-> TIME-WAIT). */
static void
fp_simultaneous(struct fp_run *r)
{
	/* the response and our FIN in one segment */
	uint32_t before_fin = fp_request(r, "10\n");

	REQUIRE(before_fin != 0 && r->c.fin);
	/* acks the data, not our FIN, and carries its own */
	fp_send_ack(r, TFO_TCP_ACK | TFO_TCP_FIN, NULL, before_fin);
	CHECK_EQ(nstate(&r->h, TFO_CONN_CLOSING), 1);
	fp_note(r, "crossing fin");
	fp_closing_acked(r);
}

TFO_TEST(fastpath_simultaneous_close_as_full_path)
{
	fp_both(fp_simultaneous, 40304);
}
