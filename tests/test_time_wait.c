/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the TIME-WAIT record answers as the full entry would.
 *
 * A connection in TIME-WAIT is kept as a one-line record (struct tfo_tw),
 * and tfo_tcp_tw_input() answers its segments by running the input steps
 * on an entry rebuilt on the stack (tfo_tcp_tw_conn), reading a restart of
 * TIME-WAIT from the timer kind those steps leave. That contract rests on
 * the steps treating the rebuilt entry as tfo_tcp_conn_input() treats a
 * full entry in TIME_WAIT. Here every segment of a list goes once to the
 * record and once to a full entry made from the same record, at the same
 * clock, and the two must give the same verdict, the same replies, the
 * same counters and the same TIME-WAIT afterwards (a restart included).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcp/conn.h"
#include "tcp/engine.h"
#include "engine_harness.h"
#include "tcp/engine_priv.h"
#include "test.h"

#define MS 1000ull

/* What one path made of one segment. */
struct tw_run {
	int verdict;			/* enum tfo_input_result */
	unsigned int nrep;
	struct h_seg rep[4];
	bool tw_after;			/* the tuple still in TIME-WAIT afterwards */
	uint32_t expire_ms;		/* the record's deadline (0: an entry) */
	struct tfo_stats st;		/* the counters afterwards */
};

/* A segment of the tuple, relative to the connection in TIME-WAIT. */
struct tw_case {
	const char *what;
	uint8_t flags;
	int32_t dseq;			/* from the client's snd_nxt */
	int32_t dack;			/* from the client's rcv_nxt */
	int32_t dts;			/* from the client's TSval */
	uint32_t len;			/* data bytes */
	bool restart;			/* TIME-WAIT starts again: the FIN
					 * (RFC 9293 3.10.7.4) or data in
					 * the window again, taken for a
					 * retransmission (process_data) */
};

static const struct tw_case tw_cases[] = {
	{ "the FIN again (our last ACK lost)", TFO_TCP_ACK | TFO_TCP_FIN, -1, 0, 0, 0, true },
	{ "the FIN again, later timestamp", TFO_TCP_ACK | TFO_TCP_FIN, -1, 0, 5, 0, true },
	{ "a pure ACK", TFO_TCP_ACK, 0, 0, 0, 0, false },
	{ "data after the FIN", TFO_TCP_ACK | TFO_TCP_PSH, 0, 0, 1, 10, true },
	{ "old data", TFO_TCP_ACK | TFO_TCP_PSH, -20, 0, 0, 10, false },
	{ "ahead of the window", TFO_TCP_ACK, 1 << 30, 0, 0, 0, false },
	{ "an ACK of data never sent", TFO_TCP_ACK, 0, 1000, 0, 0, false },
	{ "an old ACK", TFO_TCP_ACK, 0, -100000, 0, 0, false },
	{ "an old timestamp (PAWS)", TFO_TCP_ACK, 0, 0, -1000, 0, false },
	{ "no ACK flag", TFO_TCP_PSH, 0, 0, 0, 10, false },
	{ "a RST (RFC 1337)", TFO_TCP_RST, 0, 0, 0, 0, false },
	{ "a RST+ACK", TFO_TCP_RST | TFO_TCP_ACK, 0, 0, 0, 0, false },
	{ "a SYN, older ISN and timestamp", TFO_TCP_SYN, -1000, 0, -1000, 0, false },
	{ "a SYN, newer ISN (reopen)", TFO_TCP_SYN, 100000, 0, 1000, 0, false },
	{ "a SYN, newer timestamp only (reopen)", TFO_TCP_SYN, -1000, 0, 1000, 0, false },
	{ "a SYN+ACK", TFO_TCP_SYN | TFO_TCP_ACK, 0, 0, 0, 0, false },
	{ "a SYN+FIN", TFO_TCP_SYN | TFO_TCP_FIN, 100000, 0, 1000, 0, false },
	{ "a SYN+RST", TFO_TCP_SYN | TFO_TCP_RST, 100000, 0, 1000, 0, false },
};

static void
tw_key(struct cl *c, struct tfo_conn_key *key)
{
	struct rte_mbuf *m = cl_frame(c, TFO_TCP_ACK, c->snd_nxt, c->rcv_nxt, NULL, 0);
	struct tfo_pkt p;

	tfo_pkt_classify(m, &c->h->srv_port, &p);
	tfo_conn_key_from_pkt(key, &p);
	rte_pktmbuf_free(m);
}

/* The record @p snap back in the table, as TIME-WAIT left it. */
static void
tw_as_record(struct harness *h, const struct tfo_tw *snap)
{
	struct tfo_engine *e = h->e;

	RTE_VERIFY(tfo_conn_tw_add(e->ct, snap) != NULL);
	e->nstate[TFO_CONN_TIME_WAIT]++;
	tfo_stats_inc(e->st, TFO_STAT_conns_active);
}

/* The same as a full entry in TIME_WAIT: what the record stands for
 * (tfo_tcp_tw_conn) in an entry of the table, with its per-source count,
 * as tfo_tcp_conn_input() found it before the record existed. */
static void
tw_as_entry(struct harness *h, const struct tfo_tw *snap)
{
	struct tfo_engine *e = h->e;
	struct tfo_conn tmp, *c, *exists;
	struct tfo_timer node;
	int err;

	tfo_tcp_tw_conn(snap, &tmp);
	c = tfo_tcp_conn_new(e, &snap->key, &exists, &err);
	RTE_VERIFY(c != NULL);
	node = c->timer;	/* the table's; the rest is the engine's */
	*c = tmp;
	c->timer = node;
	e->nstate[TFO_CONN_TIME_WAIT]++;
	tfo_stats_inc(e->st, TFO_STAT_conns_active);
}

/* Whatever TIME-WAIT the tuple is in (a record, or the entry when the
 * segment was dropped before the entry became a record), gone without a
 * count. */
static void
tw_forget(struct harness *h, const struct tfo_conn_key *key)
{
	struct tfo_tw *w = tfo_conn_tw_lookup(h->e->ct, key);
	struct tfo_conn *c = tfo_conn_lookup(h->e->ct, key);

	if (w != NULL)
		tfo_tcp_tw_end(h->e, w, -1);
	if (c != NULL) {
		RTE_VERIFY(c->state == TFO_CONN_TIME_WAIT);
		tfo_tcp_conn_free(h->e, c, -1);
	}
}

/* Segment @p tc of client @p c to the engine as a worker gives it. */
static void
tw_feed(struct harness *h, struct cl *c, const struct tw_case *tc,
	const struct tfo_conn_key *key, struct tw_run *r)
{
	static const uint8_t data[64] = "0123456789";
	uint32_t tsval = c->tsval;
	struct tfo_pkt p;
	const struct tfo_pkt *pp = &p;
	struct tfo_conn *conn = NULL;
	struct rte_mbuf *m;
	unsigned int first = h->n_out;
	struct tfo_tw *w;

	c->tsval = tsval + (uint32_t)tc->dts;
	m = cl_frame(c, tc->flags, c->snd_nxt + (uint32_t)tc->dseq,
		     (tc->flags & TFO_TCP_ACK) ? c->rcv_nxt + (uint32_t)tc->dack : 0,
		     tc->len > 0 ? data : NULL, tc->len);
	c->tsval = tsval;
	RTE_VERIFY(tfo_pkt_classify(m, &h->srv_port, &p) == TFO_PKT_TCP);
	tfo_engine_lookup_bulk(h->e, &pp, 1, &conn);
	RTE_VERIFY(conn != NULL);
	r->verdict = tfo_engine_input(h->e, conn, m, &p, h->now);
	if (r->verdict != TFO_INPUT_DONE)
		rte_pktmbuf_free(m);	/* not consumed: the caller's */
	for (uint8_t i = 0; i < TFO_MAX_PORTS; i++)
		if (h->tx.q[i].n > 0)
			h->tx.flush(&h->tx, i);
	r->nrep = 0;
	for (unsigned int i = first; i < h->n_out && r->nrep < RTE_DIM(r->rep); i++)
		r->rep[r->nrep++] = h->out[i];
	r->nrep += h->n_out - first > RTE_DIM(r->rep) ?
		   h->n_out - first - (unsigned int)RTE_DIM(r->rep) : 0;
	w = tfo_conn_tw_lookup(h->e->ct, key);
	conn = tfo_conn_lookup(h->e->ct, key);
	r->tw_after = w != NULL || (conn != NULL && conn->state == TFO_CONN_TIME_WAIT);
	r->expire_ms = w != NULL ? w->expire_ms : 0;
	r->st = h->stats;
}

static bool
tw_same_reply(const struct h_seg *a, const struct h_seg *b)
{
	return a->p.tcp_flags == b->p.tcp_flags && a->p.seq == b->p.seq &&
	       a->p.ack == b->p.ack && a->p.window == b->p.window &&
	       a->p.payload_len == b->p.payload_len && a->len == b->len &&
	       a->o.has_ts == b->o.has_ts && a->o.tsval == b->o.tsval &&
	       a->o.tsecr == b->o.tsecr &&
	       memcmp(a->p.src.b, b->p.src.b, sizeof(a->p.src.b)) == 0 &&
	       memcmp(a->p.dst.b, b->p.dst.b, sizeof(a->p.dst.b)) == 0 &&
	       a->p.sport == b->p.sport && a->p.dport == b->p.dport;
}

/* The counters either path changed, by name, with both deltas. */
static unsigned int
tw_counters_differ(const struct tfo_stats *base, const struct tw_run *rec,
		   const struct tw_run *ent)
{
	unsigned int bad = 0;

	for (unsigned int id = 0; id < TFO_STAT_MAX; id++) {
		uint64_t dr = rec->st.c[id] - base->c[id];
		uint64_t de = ent->st.c[id] - base->c[id];

		if (dr == de)
			continue;
		fprintf(stderr, "    counter %s: record +%" PRId64 ", entry +%" PRId64 "\n",
			tfo_stats_name(id), (int64_t)dr, (int64_t)de);
		bad++;
	}
	return bad;
}

static void
tw_compare(const char *family, const struct tw_case *tc, const struct tfo_stats *base,
	   const struct tw_run *rec, const struct tw_run *ent, uint32_t snap_expire)
{
	bool same = rec->nrep == ent->nrep;

	for (unsigned int i = 0; same && i < rec->nrep && i < RTE_DIM(rec->rep); i++)
		same = tw_same_reply(&rec->rep[i], &ent->rep[i]);
	CHECK_MSG(rec->verdict == ent->verdict, "%s %s: verdict record %d, entry %d",
		  family, tc->what, rec->verdict, ent->verdict);
	CHECK_MSG(same, "%s %s: replies differ (record %u, entry %u frames)", family,
		  tc->what, rec->nrep, ent->nrep);
	CHECK_MSG(tw_counters_differ(base, rec, ent) == 0, "%s %s: counters differ",
		  family, tc->what);
	CHECK_MSG(rec->tw_after == ent->tw_after, "%s %s: TIME-WAIT after: record %d, entry %d",
		  family, tc->what, rec->tw_after, ent->tw_after);
	/* the entry's record is made now, so its deadline is a restart's:
	 * the record's must move exactly when the segment restarts it */
	CHECK_MSG((rec->tw_after && rec->expire_ms != snap_expire) == tc->restart,
		  "%s %s: the record's TIME-WAIT %s", family, tc->what,
		  tc->restart ? "did not restart" : "restarted");
	if (tc->restart)
		CHECK_MSG(rec->expire_ms == ent->expire_ms,
			  "%s %s: restarted TIME-WAIT ends at %u (record), %u (entry)",
			  family, tc->what, rec->expire_ms, ent->expire_ms);
}

static void
tw_family(int family, uint16_t sport)
{
	struct harness h;
	struct tfo_conn_key key;
	struct tfo_tw snap;
	struct cl c;
	unsigned int restarts = 0, reopens = 0, replies = 0;

	h_init(&h, 16);
	h.prm.time_wait_ms = 30000;
	REQUIRE(h_start(&h) == 0);
	cl_init(&c, &h, family, sport, 80);
	cl_syn(&c, NULL, 0);
	cl_recv(&c);
	cl_send(&c, TFO_TCP_ACK, NULL, 0);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_PSH, "10\n", 3);
	cl_recv(&c);
	cl_send(&c, TFO_TCP_ACK | TFO_TCP_FIN, NULL, 0);
	cl_recv(&c);
	REQUIRE(c.fin);
	tw_key(&c, &key);
	REQUIRE(tfo_conn_tw_lookup(h.e->ct, &key) != NULL);
	snap = *tfo_conn_tw_lookup(h.e->ct, &key);
	tw_forget(&h, &key);
	h_advance(&h, 1000 * MS);	/* the record is a second old */
	h_clear(&h);

	for (unsigned int i = 0; i < RTE_DIM(tw_cases); i++) {
		const struct tw_case *tc = &tw_cases[i];
		struct tfo_stats before, base;
		struct tw_run rec, ent;
		uint32_t chal_n;

		/* a second each: the challenge-ACK budget is per second */
		h_advance(&h, 1000 * MS);
		before = h.stats;
		chal_n = h.e->chal_n;
		tw_as_record(&h, &snap);
		base = h.stats;
		tw_feed(&h, &c, tc, &key, &rec);
		tw_forget(&h, &key);
		h.stats = before;
		h.e->chal_n = chal_n;	/* the same challenge-ACK budget */
		tw_as_entry(&h, &snap);
		CHECK(memcmp(&base, &h.stats, sizeof(base)) == 0);
		tw_feed(&h, &c, tc, &key, &ent);
		tw_forget(&h, &key);
		h.stats = before;
		tw_compare(family == AF_INET ? "IPv4" : "IPv6", tc, &base, &rec, &ent,
			   snap.expire_ms);
		restarts += rec.tw_after && rec.expire_ms != snap.expire_ms;
		reopens += rec.verdict == TFO_INPUT_REOPEN;
		replies += rec.nrep;
		h_clear(&h);
	}
	/* the list reaches every way out of TIME-WAIT input */
	CHECK(restarts >= 3);
	CHECK(reopens >= 2);
	CHECK(replies >= 5);
	cl_free(&c);
	CHECK(h_finish(&h, 1) == 0);
}

TFO_TEST(time_wait_record_answers_as_the_entry_v4)
{
	tw_family(AF_INET, 40300);
}

TFO_TEST(time_wait_record_answers_as_the_entry_v6)
{
	tw_family(AF_INET6, 40301);
}

TFO_TEST_MAIN()
