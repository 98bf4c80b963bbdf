/* SPDX-License-Identifier: BSD-3-Clause
 * Randomized TCP engine test: many reference clients talk to one engine
 * through a network that loses, duplicates, delays and reorders frames in
 * both directions. Each client checks every segment it gets against the
 * response it expects: bytes (retransmissions included), the sequence
 * space (never data or FIN beyond the response, never an ack of bytes not
 * sent, nothing beyond the window it advertised), and at the end that the
 * whole response arrived. The pool must be full again afterwards.
 *
 * TFO_TEST_SEED=<n> reproduces a run; each case prints its seed.
 */
#include <stdlib.h>
#include <time.h>

#include "tcp/conn.h"
#include "engine_harness.h"
#include "test.h"

#define MS 1000ull

static uint64_t rng_state;
static int trace_port = -1;	/* TFO_TEST_TRACE=<client port> */

/* One client fetching 1 MiB over a FIFO path instead of the mix: with
 * SACK, or without SACK-permitted (NewReno on the server). */
enum { BULK_OFF, BULK_SACK, BULK_NEWRENO };
static int bulk_mode;
/* bulk: the n-th frame each way is lost or not alike in both modes */
static uint64_t loss_rng[2];
#define BULK_LEN (1u << 20)
#define BULK_SEEDS 10u

static uint32_t
rnd(void)
{
	return tfo_test_rand(&rng_state);
}

static uint32_t
rnd_in(uint32_t lo, uint32_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

static bool
chance(unsigned int per_mille)
{
	return rnd() % 1000 < per_mille;
}

enum { RC_IDLE, RC_SYN_SENT, RC_EST, RC_DONE, RC_FAILED };

struct rcl {
	struct cl c;
	int st;
	uint64_t start_at;
	/* what we send: the requests, then our FIN */
	uint8_t req[8192];
	uint32_t req_len;	/* bytes queued (grows with the 2nd request) */
	uint32_t req1_len;
	uint32_t sent;		/* next request offset to send */
	uint32_t hwm;		/* highest request offset ever sent */
	bool fin_tx;		/* our FIN went out at least once */
	uint32_t acked;		/* request bytes the server acked */
	bool tfo;
	bool keep2;		/* a second request after the first response */
	bool second_queued;
	bool fin_sent, fin_acked;
	/* what we expect */
	uint8_t *exp;
	uint32_t exp_len, exp1_len;
	bool exp_close;		/* the last queued request closes */
	uint8_t *have;		/* per byte: received */
	uint64_t done_at;	/* when the whole response was in */
	uint32_t rcv;		/* contiguous bytes received */
	bool srv_fin;
	uint32_t irs;
	bool synced;
	uint32_t edge;		/* right edge we advertised, response offset */
	/* our retransmission timer */
	uint64_t rto_at;
	uint32_t rto_ms;
	unsigned int retries;
	unsigned int errors;
};

struct net_item {
	uint64_t due;
	uint64_t order;		/* FIFO among equal due times */
	bool to_server;
	struct rte_mbuf *m;	/* to the server */
	struct h_seg seg;	/* to a client */
};

struct net {
	struct net_item *q;
	unsigned int n, cap;
	uint64_t order;
	unsigned int loss, dup;	/* per mille */
	uint32_t min_delay_us, max_delay_us;
};

struct sim {
	struct harness h;
	struct net net;
	struct rcl *cl;
	unsigned int ncl;
	unsigned long frames;
	unsigned int late_rsts;
};

static void
net_put(struct net *n, uint64_t now, bool to_server, struct rte_mbuf *m,
	const struct h_seg *s)
{
	unsigned int copies = 1;

	if (bulk_mode != BULK_OFF ?
	    tfo_test_rand(&loss_rng[to_server]) % 1000 < n->loss : chance(n->loss)) {
		if (m != NULL)
			rte_pktmbuf_free(m);
		return;
	}
	if (chance(n->dup))
		copies = 2;
	for (unsigned int k = 0; k < copies; k++) {
		struct net_item *it;

		if (n->n == n->cap) {
			n->cap = n->cap ? 2 * n->cap : 1024;
			n->q = realloc(n->q, n->cap * sizeof(*n->q));
			if (n->q == NULL)
				abort();
		}
		it = &n->q[n->n++];
		it->due = now + rnd_in(n->min_delay_us, n->max_delay_us);
		it->order = n->order++;
		it->to_server = to_server;
		it->m = NULL;
		if (to_server)
			it->m = k == 0 ? m : rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
		else
			it->seg = *s;
	}
}

static void
fail(struct rcl *r, const char *why, uint32_t a, uint32_t b)
{
	if (r->errors++ < 3)
		fprintf(stderr, "  client %u: %s (%u, %u)\n", r->c.sport, why, a, b);
	r->st = RC_FAILED;
}

/* Send a segment from the client into the network. */
static void
rc_xmit(struct sim *s, struct rcl *r, uint8_t flags, uint32_t seq,
	const void *data, uint32_t len)
{
	uint32_t ack = r->synced ? r->irs + 1 + r->rcv + r->srv_fin : 0;
	struct rte_mbuf *m;

	if (r->synced) {
		bool ws = r->c.ws && r->c.synack_opts.has_wscale;
		uint32_t adv = ws ? RTE_MIN(r->c.rwnd >> r->c.wscale, 65535u) << r->c.wscale :
			       RTE_MIN(r->c.rwnd, 65535u);

		flags |= TFO_TCP_ACK;
		r->edge = RTE_MAX(r->edge, r->rcv + adv);
	}
	/* a millisecond TS clock, as Linux: frames of one burst share it */
	r->c.tsval = 7000 + (uint32_t)(s->h.now / 1000);
	m = cl_frame(&r->c, flags, seq, ack, data, len);
	if (r->c.sport == trace_port)
		printf("    %8.3f C> fl=%02x seq=%u ack=%u len=%u (rel seq %u ack %u)\n",
		       s->h.now / 1e3, flags, seq, ack, len, seq - r->c.iss,
		       r->synced ? ack - r->irs : 0);
	s->frames++;
	net_put(&s->net, s->h.now, true, m, NULL);
}

static void
rc_arm(struct sim *s, struct rcl *r)
{
	r->rto_at = s->h.now + (uint64_t)r->rto_ms * MS;
}

static void
rc_syn(struct sim *s, struct rcl *r, bool first)
{
	uint32_t dlen = 0;

	/* Linux retransmits a TFO SYN without data and without the option */
	if (first && r->tfo) {
		r->c.tfo = CL_COOKIE;
		dlen = RTE_MIN(r->req1_len, 1000u);
	} else {
		r->c.tfo = CL_NO_TFO;
	}
	r->edge = RTE_MIN(r->c.rwnd, 65535u);
	rc_xmit(s, r, TFO_TCP_SYN, r->c.iss, r->req, dlen);
	r->sent = RTE_MAX(r->sent, dlen);
	r->hwm = RTE_MAX(r->hwm, dlen);
}

/* Sequence number of a pure ACK: the highest we sent. */
static uint32_t
rc_ack_seq(const struct rcl *r)
{
	return r->c.iss + 1 + r->hwm + (r->fin_tx ? 1 : 0);
}

/* New request bytes (and the FIN) within the server's window. */
static void
rc_push(struct sim *s, struct rcl *r, bool retx)
{
	uint32_t limit = r->acked + RTE_MAX(r->c.srv_wnd, 1u);

	while (r->sent < r->req_len && r->sent < limit) {
		uint32_t len = RTE_MIN(r->req_len - r->sent, rnd_in(200, 1400));

		len = RTE_MIN(len, limit - r->sent);
		rc_xmit(s, r, TFO_TCP_PSH, r->c.iss + 1 + r->sent, r->req + r->sent, len);
		r->sent += len;
		r->hwm = RTE_MAX(r->hwm, r->sent);
	}
	if (r->fin_sent && !r->fin_acked && r->sent == r->req_len &&
	    (!r->fin_tx || retx)) {
		rc_xmit(s, r, TFO_TCP_FIN, r->c.iss + 1 + r->req_len, NULL, 0);
		r->fin_tx = true;
	}
}

static void
queue_request(struct rcl *r, bool first)
{
	char line[4200];
	uint32_t n, fill, len, k;
	bool body = chance(500), keep;

	n = body ? rnd_in(0, 60000) : rnd_in(0, 4000);
	keep = first ? r->keep2 : chance(300);
	len = (uint32_t)snprintf(line, sizeof(line), "%u%s%s", n, body ? "b" : "",
				 keep ? "k" : "");
	fill = chance(300) ? rnd_in(0, 3000) : rnd_in(0, 20);
	memset(line + len, '.', fill);
	len += fill;
	line[len++] = '\n';
	line[len] = '\0';
	memcpy(r->req + r->req_len, line, len);
	r->req_len += len;
	if (first)
		r->req1_len = len;
	k = h_gen_expect(line, r->exp + r->exp_len, 70000);
	r->exp_len += k;
	if (first)
		r->exp1_len = k;
	r->exp_close = !keep;
}

/* One request for 1 MiB (zero-copy body), window never the limit. */
static void
rc_init_bulk(struct sim *s, struct rcl *r, unsigned int i)
{
	char line[32];

	cl_init(&r->c, &s->h, AF_INET, (uint16_t)(10000 + i), 80);
	r->c.iss = rnd();
	r->c.rwnd = 4u << 20;
	r->c.sack = bulk_mode == BULK_SACK;
	r->c.no_sack_perm = bulk_mode != BULK_SACK;
	r->exp = malloc(BULK_LEN + 64);
	r->have = calloc(BULK_LEN + 64, 1);
	r->start_at = s->h.now;
	r->rto_ms = 400;
	r->req_len = (uint32_t)snprintf(line, sizeof(line), "%ub\n", BULK_LEN);
	memcpy(r->req, line, r->req_len);
	r->req1_len = r->req_len;
	r->exp_len = h_gen_expect(line, r->exp, BULK_LEN + 64);
	r->exp1_len = r->exp_len;
	r->exp_close = true;
	r->st = RC_IDLE;
}

static void
rc_init(struct sim *s, struct rcl *r, unsigned int i)
{
	uint16_t sport = (uint16_t)(10000 + i);

	if (bulk_mode != BULK_OFF) {
		rc_init_bulk(s, r, i);
		return;
	}

	cl_init(&r->c, &s->h, chance(500) ? AF_INET : AF_INET6, sport, 80);
	r->c.addr_idx = (uint8_t)(i % 4);
	r->c.iss = rnd();
	r->c.ts = chance(800);
	r->c.ws = chance(800);
	r->c.rwnd = chance(300) ? rnd_in(3000, 16000) : 65535;
	if (r->c.ws && chance(500))
		r->c.rwnd = rnd_in(65536, 400000);
	r->c.mss = (uint16_t)rnd_in(536, r->c.family == AF_INET ? 1460 : 1440);
	r->exp = malloc(140000);
	r->have = calloc(140000, 1);
	r->tfo = chance(600);
	r->keep2 = chance(300);
	/* SACK blocks; or no SACK-permitted at all (NewReno) */
	r->c.sack = chance(500);
	r->c.no_sack_perm = !r->c.sack && chance(500);
	r->start_at = s->h.now + rnd_in(0, 500) * MS;
	r->rto_ms = 400;
	queue_request(r, true);
	r->st = RC_IDLE;
}

/* A segment from the server: check it, fold it, answer. */
static void
rc_input(struct sim *s, struct rcl *r, const struct h_seg *g)
{
	uint8_t fl = g->p.tcp_flags;
	uint32_t dseq = g->p.seq, off, acked, sent_end;
	bool progress = false;

	if (r->c.sport == trace_port)
		printf("    %8.3f S> fl=%02x seq=%u ack=%u len=%u win=%u (rel seq %u ack %u)\n",
		       s->h.now / 1e3, fl, g->p.seq, g->p.ack, g->len, g->p.window,
		       r->synced ? g->p.seq - r->irs : 0, g->p.ack - r->c.iss);
	if (r->st == RC_DONE || r->st == RC_FAILED || r->st == RC_IDLE)
		return;
	if (fl & TFO_TCP_RST) {
		/* our FIN outlived the server's short TIME-WAIT: harmless
		 * once everything arrived (Linux closes quietly in LAST_ACK) */
		if (r->srv_fin && r->rcv == r->exp_len && r->fin_sent) {
			s->late_rsts++;
			r->st = RC_DONE;
			return;
		}
		fail(r, "RST from the server", g->p.seq, g->p.ack);
		return;
	}
	if (fl & TFO_TCP_SYN) {
		if (!(fl & TFO_TCP_ACK)) {
			fail(r, "SYN without ACK", 0, 0);
			return;
		}
		if (r->synced && g->p.seq != r->irs) {
			fail(r, "SYN-ACK with another ISN", g->p.seq, r->irs);
			return;
		}
		if (!r->synced) {
			r->synced = true;
			r->irs = g->p.seq;
			r->c.synack_opts = g->o;
			r->st = RC_EST;
			r->retries = 0;
			r->rto_ms = 400;
			/* SYN data not acked: it goes again (Linux does) */
			r->sent = g->p.ack - (r->c.iss + 1);
		}
		if (r->c.ts && (!g->o.has_ts || g->o.tsecr == 0))
			fail(r, "SYN-ACK without our timestamp", 0, 0);
		dseq++;
	}
	if (!r->synced)
		return;
	if (!(fl & TFO_TCP_ACK)) {
		fail(r, "segment without ACK", 0, 0);
		return;
	}
	if (g->o.has_ts)
		r->c.ts_recent = g->o.tsval;
	/* the ack: never beyond what we sent */
	acked = g->p.ack - (r->c.iss + 1);
	sent_end = r->hwm + (r->fin_tx ? 1 : 0);
	if ((int32_t)(g->p.ack - (r->c.iss + 1)) < 0 || acked > sent_end) {
		fail(r, "ack beyond what was sent", acked, sent_end);
		return;
	}
	if (acked > r->acked && acked <= r->req_len) {
		r->acked = acked;
		progress = true;
	}
	if (r->fin_sent && acked == r->req_len + 1 && !r->fin_acked) {
		r->acked = r->req_len;
		r->fin_acked = true;
		progress = true;
	}
	r->c.srv_wnd = (fl & TFO_TCP_SYN) ? g->p.window :
		(uint32_t)g->p.window << (r->c.synack_opts.has_wscale ?
					  r->c.synack_opts.wscale : 0);
	/* the data: in the response, byte-exact, within our window */
	off = dseq - (r->irs + 1);
	if (g->len > 0 || (fl & TFO_TCP_FIN)) {
		if ((int32_t)(dseq - (r->irs + 1)) < 0 || off + g->len > r->exp_len) {
			fail(r, "data beyond the response", off + g->len, r->exp_len);
			return;
		}
		if (off + g->len > r->edge && g->len > 0) {
			fail(r, "data beyond our window", off + g->len, r->edge);
			return;
		}
		if (memcmp(g->data, r->exp + off, g->len) != 0) {
			fail(r, "wrong bytes", off, g->len);
			return;
		}
		for (uint32_t i = 0; i < g->len; i++)
			r->have[off + i] = 1;
		if (off > r->rcv)	/* out of order: for the SACK blocks */
			cl_sack_add(&r->c, dseq, g->len);
		while (r->rcv < r->exp_len && r->have[r->rcv]) {
			r->rcv++;
			progress = true;
		}
		cl_sack_trim(&r->c, r->irs + 1 + r->rcv);
		if (r->rcv == r->exp_len && r->done_at == 0)
			r->done_at = s->h.now;
		if (fl & TFO_TCP_FIN) {
			if (off + g->len != r->exp_len ||
			    (!r->exp_close && !r->fin_sent)) {
				fail(r, "FIN not at the end of the response",
				     off + g->len, r->exp_len);
				return;
			}
			if (r->rcv == r->exp_len && !r->srv_fin) {
				r->srv_fin = true;
				progress = true;
			}
		}
	}
	if (progress) {
		r->retries = 0;
		r->rto_ms = 400;
	}
	/* keep-alive: the second request once the first response is in */
	if (r->keep2 && !r->second_queued && r->rcv == r->exp1_len) {
		r->second_queued = true;
		queue_request(r, false);
	}
	/* close: after the server's FIN, or after the last keep-alive answer */
	if (!r->fin_sent && (r->srv_fin || (r->rcv == r->exp_len &&
					    !r->exp_close &&
					    (!r->keep2 || r->second_queued))))
		r->fin_sent = true;
	/* answer: an ACK for anything with data or FIN, then new data */
	if (g->len > 0 || (fl & (TFO_TCP_FIN | TFO_TCP_SYN)))
		rc_xmit(s, r, 0, rc_ack_seq(r), NULL, 0);
	rc_push(s, r, false);
	if (r->fin_acked && r->srv_fin) {
		r->st = RC_DONE;
		return;
	}
	if (progress || r->rto_at == 0)
		rc_arm(s, r);
}

static void
rc_timer(struct sim *s, struct rcl *r)
{
	if (r->st == RC_IDLE) {
		if (s->h.now >= r->start_at) {
			r->st = RC_SYN_SENT;
			rc_syn(s, r, true);
			rc_arm(s, r);
		}
		return;
	}
	if (r->st != RC_SYN_SENT && r->st != RC_EST)
		return;
	if (s->h.now < r->rto_at)
		return;
	if (++r->retries > 14) {
		fail(r, "gave up", r->rcv, r->exp_len);
		return;
	}
	r->rto_ms = RTE_MIN(r->rto_ms * 2, 8000u);
	if (r->st == RC_SYN_SENT) {
		rc_syn(s, r, false);
	} else {
		/* go back N, and ack what we have (the server may need it) */
		r->sent = r->acked;
		rc_xmit(s, r, 0, rc_ack_seq(r), NULL, 0);
		rc_push(s, r, true);
	}
	rc_arm(s, r);
}

static struct rcl *
client_of(struct sim *s, const struct h_seg *g)
{
	unsigned int i = (unsigned int)g->p.dport - 10000;

	if (i >= s->ncl)
		return NULL;
	return &s->cl[i];
}

static int
run_sim_pools(uint64_t seed, unsigned int ncl, unsigned int loss,
	      unsigned int dup, uint32_t max_delay_us, uint32_t nb_bufs,
	      uint32_t pending_limit, double *fetch_s)
{
	struct sim *s = calloc(1, sizeof(*s));
	unsigned int done = 0, failed = 0;
	uint64_t end;
	int rc;

	rng_state = seed;
	loss_rng[0] = seed ^ 0x5eed0001;
	loss_rng[1] = seed ^ 0x5eed0002;
	if (getenv("TFO_TEST_TRACE") != NULL)
		trace_port = atoi(getenv("TFO_TEST_TRACE"));
	s->net.loss = loss;
	s->net.dup = dup;
	s->net.max_delay_us = max_delay_us;
	/* bulk: a fixed one-way delay, so FIFO (loss, no reordering) */
	s->net.min_delay_us = bulk_mode != BULK_OFF ? max_delay_us : 50;
	h_init(&s->h, ncl + 16);
	s->h.prm.nb_bufs = nb_bufs;
	s->h.prm.tfo_pending_limit = pending_limit;
	s->h.prm.max_retries = 12;
	s->h.prm.synack_retries = 10;
	s->h.prm.rto_max_ms = 8000;
	s->h.prm.idle_timeout_ms = 60000;
	s->h.prm.time_wait_ms = 1000;
	if (h_start(&s->h) != 0)
		return -1;
	s->ncl = ncl;
	s->cl = calloc(ncl, sizeof(*s->cl));
	for (unsigned int i = 0; i < ncl; i++)
		rc_init(s, &s->cl[i], i);

	end = s->h.now + 300ull * 1000000;
	while (s->h.now < end) {
		unsigned int active = 0;

		/* deliver what is due, in due order */
		for (;;) {
			unsigned int best = UINT32_MAX;

			for (unsigned int i = 0; i < s->net.n; i++)
				if (s->net.q[i].due <= s->h.now &&
				    (best == UINT32_MAX || s->net.q[i].due < s->net.q[best].due ||
				     (s->net.q[i].due == s->net.q[best].due &&
				      s->net.q[i].order < s->net.q[best].order)))
					best = i;
			if (best == UINT32_MAX)
				break;
			{
				struct net_item it = s->net.q[best];

				s->net.q[best] = s->net.q[--s->net.n];
				if (it.to_server) {
					h_clear(&s->h);
					h_rx(&s->h, it.m);
					for (unsigned int k = 0; k < s->h.n_out; k++)
						net_put(&s->net, s->h.now, false, NULL,
							&s->h.out[k]);
				} else {
					struct rcl *r = client_of(s, &it.seg);

					if (r != NULL)
						rc_input(s, r, &it.seg);
				}
			}
		}
		h_clear(&s->h);
		h_advance(&s->h, 0);
		for (unsigned int k = 0; k < s->h.n_out; k++)
			net_put(&s->net, s->h.now, false, NULL, &s->h.out[k]);
		for (unsigned int i = 0; i < ncl; i++) {
			rc_timer(s, &s->cl[i]);
			active += s->cl[i].st < RC_DONE;
		}
		if (active == 0 && s->net.n == 0)
			break;
		{
			/* to the next event, at most 20 ms (engine timers) */
			uint64_t next = s->h.now + 20 * MS;

			for (unsigned int i = 0; i < s->net.n; i++)
				next = RTE_MIN(next, s->net.q[i].due);
			for (unsigned int i = 0; i < ncl; i++) {
				const struct rcl *r = &s->cl[i];

				if (r->st == RC_IDLE)
					next = RTE_MIN(next, r->start_at);
				else if (r->st < RC_DONE && r->rto_at > s->h.now)
					next = RTE_MIN(next, r->rto_at);
			}
			s->h.now = RTE_MAX(next, s->h.now + rnd_in(10, 300));
		}
	}
	for (unsigned int i = 0; i < ncl; i++) {
		struct rcl *r = &s->cl[i];

		if (fetch_s != NULL)
			*fetch_s = (double)(r->done_at - r->start_at) / 1e6;
		if (r->st == RC_DONE && r->rcv == r->exp_len)
			done++;
		else {
			if (r->st != RC_FAILED)
				fail(r, "not finished", r->rcv, r->exp_len);
			failed++;
		}
	}
	for (unsigned int i = 0; i < s->net.n; i++)
		if (s->net.q[i].to_server)
			rte_pktmbuf_free(s->net.q[i].m);
	printf("  seed %" PRIu64 ": %u clients, loss %u/1000, dup %u/1000: %u done "
	       "(%u closed by a RST after TIME-WAIT), %u failed, %lu client frames, %.1f s simulated; server: %" PRIu64
	       " retransmits, %" PRIu64 " RTOs, %" PRIu64 " fast retransmits, %"
	       PRIu64 " ooo drops, %" PRIu64 " TFO\n",
	       seed, ncl, loss, dup, done, s->late_rsts, failed, s->frames,
	       (double)(s->h.now - 1000000) / 1e6,
	       h_stat(&s->h, "retransmit_segs"), h_stat(&s->h, "rto_expired"),
	       h_stat(&s->h, "fast_retransmits"), h_stat(&s->h, "rx_ooo_drop"),
	       h_stat(&s->h, "TCPFastOpenPassive"));
	if (getenv("TFO_TEST_VERBOSE") != NULL)
		tfo_stats_dump(stdout, "    ", &s->h.stats);
	rc = h_finish(&s->h, 120);
	for (unsigned int i = 0; i < ncl; i++) {
		cl_free(&s->cl[i].c);
		free(s->cl[i].exp);
		free(s->cl[i].have);
	}
	free(s->cl);
	free(s->net.q);
	free(s);
	return failed == 0 && rc == 0 ? 0 : -1;
}

static int
run_sim(uint64_t seed, unsigned int ncl, unsigned int loss, unsigned int dup,
	uint32_t max_delay_us)
{
	return run_sim_pools(seed, ncl, loss, dup, max_delay_us, 2 * ncl, ncl, NULL);
}

static uint64_t
base_seed(void)
{
	const char *e = getenv("TFO_TEST_SEED");

	return e != NULL ? strtoull(e, NULL, 0) : (uint64_t)time(NULL);
}

TFO_TEST(random_fifo_network)
{
	CHECK(run_sim(base_seed() * 8, 300, 0, 0, 50) == 0);
}

TFO_TEST(random_clean_network)
{
	CHECK(run_sim(base_seed() * 8 + 1, 300, 0, 0, 2000) == 0);
}

TFO_TEST(random_loss_dup_reorder)
{
	CHECK(run_sim(base_seed() * 8 + 2, 1000, 50, 30, 30000) == 0);
}

TFO_TEST(random_heavy_loss)
{
	CHECK(run_sim(base_seed() * 8 + 3, 400, 200, 50, 60000) == 0);
}

/* Few buffers and a small pending-TFO limit: refused data, plain fallback. */
TFO_TEST(random_tight_pools)
{
	CHECK(run_sim_pools(base_seed() * 8 + 4, 400, 30, 20, 20000, 48, 16, NULL) == 0);
}

/*
 * 1 MiB over a 20 ms RTT path losing 1 % and 5 % of the frames (both
 * ways), with SACK and without (NewReno): the simulated time to deliver
 * it, per seed (both modes see the same loss pattern, frame by frame,
 * until their traffic differs). A figure, not a pass condition; the transfer must
 * complete byte-exact either way.
 */
TFO_TEST(random_bulk_sack_vs_newreno)
{
	static const unsigned int loss[] = { 10, 50 };
	uint64_t seed0 = base_seed() * 8 + 5;

	for (unsigned int l = 0; l < RTE_DIM(loss); l++) {
		double sum[2] = { 0, 0 };

		for (unsigned int k = 0; k < BULK_SEEDS; k++) {
			double t[2] = { -1, -1 };

			for (int m = 0; m < 2; m++) {
				bulk_mode = m == 0 ? BULK_SACK : BULK_NEWRENO;
				CHECK(run_sim_pools(seed0 + 16 * k, 1, loss[l], 0,
						    10000, 4, 4, &t[m]) == 0);
				sum[m] += t[m];
			}
			printf("  1 MiB, loss %.0f %%, seed %" PRIu64 ": SACK %.3f s, NewReno %.3f s\n",
			       loss[l] / 10.0, seed0 + 16 * k, t[0], t[1]);
		}
		printf("  1 MiB, loss %.0f %%, mean of %u: SACK %.3f s, NewReno %.3f s\n",
		       loss[l] / 10.0, BULK_SEEDS, sum[0] / BULK_SEEDS, sum[1] / BULK_SEEDS);
	}
	bulk_mode = BULK_OFF;
}

TFO_TEST_MAIN()
