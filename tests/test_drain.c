/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the drain (SIGTERM, lcore/drain.c, the supervisor's step):
 * on a device-free server, a SYN that opens nothing is refused with a RST
 * by workers and control lcores alike while the tables' connections are
 * served; idle keep-alive connections are closed, busy ones after their
 * answer; the drain ends when nothing is in flight. (Out of
 * test_controls.c, which holds the several-control-lcores cases.)
 */
#include <string.h>

#include <rte_ring.h>

#include "lcore/drain.h"
#include "lcore/supervisor.h"
#include "ops/config.h"
#include "server/server.h"

#include "engine_harness.h"
#include "test.h"
/* ---- the drain ------------------------------------------------------------ */

/* The supervisor's drain step of server @p s, as its loop runs it. */
static bool
sup_drain_tick(struct tfo_server *s, uint64_t now_us)
{
	struct tfo_supervisor *sup = tfo_server_supervisor(s);

	return tfo_drain_tick(&sup->life, &sup->lcores, now_us);
}

/* A device-free server of one worker and one control lcore, TFO off (every
 * SYN a plain one), echo on port 7 (@p keepalive: close = no), what they
 * send parsed into @p h->out. */

static struct tfo_server *
drain_server(struct harness *h, const char *name, struct tfo_config *cfg, bool keepalive)
{
	struct tfo_server_params sp = {
		.name = name, .nb_ports = 1, .nb_workers = 1, .nb_controls = 1,
		.nb_mbufs = 4096, .ports = &h->srv_port,
	};
	char err[TFO_CFG_ERR];
	struct tfo_server *s;

	tfo_config_defaults(cfg);
	cfg->tfo_enabled = false;
	cfg->drain_timeout = 1;
	CHECK_EQ(tfo_config_set(cfg, "service echo", "port", "7", err, sizeof(err)), 0);
	if (keepalive)
		CHECK_EQ(tfo_config_set(cfg, "service echo", "close", "no", err, sizeof(err)), 0);
	s = tfo_server_create(cfg, &sp, err, sizeof(err));
	CHECK_MSG(s != NULL, "%s", err);
	if (s == NULL)
		return NULL;
	tfo_server_worker(s, 0)->tx.flush = h->tx.flush;
	tfo_server_worker(s, 0)->tx.arg = h;
	tfo_server_control(s)->tx.flush = h->tx.flush;
	tfo_server_control(s)->tx.arg = h;
	return s;
}

/* Free @p s and the frames the harness captured from it (h_flush_cb):
 * these servers have no harness engine, so no h_finish() frees them. */
static void
drain_server_free(struct harness *h, struct tfo_server *s)
{
	tfo_server_free(s);
	h_out_free(h);
}

/* A SYN (with @p len bytes of data) from @p c through worker @p w. */
static void
drain_syn(struct harness *h, struct tfo_worker *w, struct cl *c, uint32_t len,
	  uint64_t now)
{
	struct rte_mbuf *m = cl_frame(c, 0x02, c->iss, 0, "hello", len);

	m->port = h->srv_port.port_id;
	tfo_worker_burst(w, 0, &m, 1, now);
	w->tx.flush(&w->tx, 0);
}

/* The one frame sent since h_clear() is a RST|ACK to @p c's SYN of @p len. */
static void
check_refusal(const struct harness *h, const struct cl *c, uint32_t len)
{
	CHECK_EQ(h->n_out, 1);
	if (h->n_out != 1)
		return;
	CHECK_EQ(h->out[0].p.tcp_flags, TFO_TCP_RST | TFO_TCP_ACK);
	CHECK_EQ(h->out[0].p.ack, c->iss + 1 + len);
	CHECK_EQ(h->out[0].p.dport, c->sport);
	CHECK_EQ(h->out[0].p.sport, c->dport);
}

TFO_TEST(server_drain_refuses_new_syns_keeps_the_rest)
{
	static struct tfo_config cfg;
	struct tfo_server *s;
	struct tfo_worker *w;
	struct tfo_control *c;
	struct tfo_acct acct;
	struct harness h;
	struct cl held, fresh, closed, queued;
	uint64_t now = 1000000, wk, ck;

	h_init(&h, 64);
	s = drain_server(&h, "dr", &cfg, false);
	if (s == NULL)
		return;
	w = tfo_server_worker(s, 0);
	c = tfo_server_control(s);
	/* a plain handshake in flight on the control lcore */
	cl_init(&held, &h, AF_INET, 20001, 7);
	drain_syn(&h, w, &held, 0, now);
	tfo_control_poll(c, now);
	CHECK_EQ(c->stats.c[TFO_STAT_conns_opened_plain], 1);
	CHECK(!tfo_server_draining(s) && !sup_drain_tick(s, now));

	tfo_server_drain(s);
	CHECK(tfo_server_draining(s) && w->drain != NULL && *w->drain && *c->drain);
	/* what their loops do at their next poll */
	tfo_worker_drain_begin(w, now);
	tfo_control_drain_begin(c, now);
	CHECK(w->draining && c->draining);
	/* the held connection has not sent its request yet: not closed */
	CHECK_EQ(c->stats.c[TFO_STAT_drain_keepalive_closed], 0);
	CHECK(!sup_drain_tick(s, now));		/* started: one in flight */
	CHECK(tfo_server_supervisor(s)->life.draining);
	CHECK_EQ(tfo_drain_in_flight(&tfo_server_supervisor(s)->lcores, &wk, &ck), 1);
	CHECK(wk == 0 && ck == 1);

	/* a new SYN with data: a RST from the worker itself, acking it all */
	h_clear(&h);
	cl_init(&fresh, &h, AF_INET, 20002, 7);
	drain_syn(&h, w, &fresh, 5, now);
	check_refusal(&h, &fresh, 5);
	CHECK_EQ(rte_ring_count(w->to_ctl[0]), 0);
	CHECK_EQ(w->stats.c[TFO_STAT_drain_syn_refused], 1);
	CHECK_EQ(w->stats.c[TFO_STAT_rst_tx_nomatch], 1);
	tfo_stats_account(&w->stats, &acct);
	CHECK_EQ(acct.rx_unaccounted, 0);

	/* a port no service serves is not the drain's business */
	h_clear(&h);
	cl_init(&closed, &h, AF_INET, 20003, 9);
	drain_syn(&h, w, &closed, 0, now);
	CHECK_EQ(rte_ring_count(w->to_ctl[0]), 1);
	tfo_control_poll(c, now);
	CHECK_EQ(c->stats.c[TFO_STAT_drain_syn_refused], 0);

	/* a SYN already on the control ring when the drain began */
	h_clear(&h);
	w->draining = false;
	cl_init(&queued, &h, AF_INET, 20004, 7);
	drain_syn(&h, w, &queued, 0, now);
	w->draining = true;
	tfo_control_poll(c, now);
	check_refusal(&h, &queued, 0);
	CHECK_EQ(c->stats.c[TFO_STAT_drain_syn_refused], 1);
	CHECK_EQ(c->stats.c[TFO_STAT_conns_opened_plain], 1);

	/* the held connection keeps the drain going until drain_timeout */
	CHECK(!sup_drain_tick(s, now + 2 * TFO_DRAIN_CHECK_US));
	CHECK(sup_drain_tick(s, now + 1000000 + TFO_DRAIN_CHECK_US));
	cl_free(&held);
	cl_free(&fresh);
	cl_free(&closed);
	cl_free(&queued);
	drain_server_free(&h, s);
}

/* @p m from a client, through worker @p w to control lcore @p c. */
static void
drain_via(struct harness *h, struct tfo_worker *w, struct tfo_control *c, struct rte_mbuf *m,
	  uint64_t now)
{
	m->port = h->srv_port.port_id;
	tfo_worker_burst(w, 0, &m, 1, now);
	tfo_control_poll(c, now);
}

/* The last frame sent since h_clear() to @p cl (NULL if none). */
static const struct h_seg *
drain_last_to(const struct harness *h, const struct cl *cl)
{
	for (unsigned int i = h->n_out; i-- > 0;)
		if (h->out[i].p.dport == cl->sport)
			return &h->out[i];
	return NULL;
}

TFO_TEST(server_drain_closes_idle_keepalive_only)
{
	static struct tfo_config cfg;
	struct tfo_server *s;
	struct tfo_worker *w;
	struct tfo_control *c;
	const struct h_seg *g;
	struct harness h;
	struct cl ka, fresh, late;
	uint32_t ka_iss = 0, late_iss = 0, fresh_iss = 0;
	uint64_t now = 1000000;

	h_init(&h, 64);
	s = drain_server(&h, "dk", &cfg, true);
	if (s == NULL)
		return;
	w = tfo_server_worker(s, 0);
	c = tfo_server_control(s);

	/* ka: one request answered and acked, kept alive; late: one
	 * answered, not yet acked; fresh: a handshake, no request yet */
	cl_init(&ka, &h, AF_INET, 21001, 7);
	cl_init(&late, &h, AF_INET, 21002, 7);
	cl_init(&fresh, &h, AF_INET, 21003, 7);
	h_clear(&h);
	drain_via(&h, w, c, cl_frame(&ka, 0x02, ka.iss, 0, NULL, 0), now);
	drain_via(&h, w, c, cl_frame(&late, 0x02, late.iss, 0, NULL, 0), now);
	drain_via(&h, w, c, cl_frame(&fresh, 0x02, fresh.iss, 0, NULL, 0), now);
	if ((g = drain_last_to(&h, &ka)) != NULL)
		ka_iss = g->p.seq;
	if ((g = drain_last_to(&h, &late)) != NULL)
		late_iss = g->p.seq;
	if ((g = drain_last_to(&h, &fresh)) != NULL)
		fresh_iss = g->p.seq;
	CHECK(ka_iss != 0 && late_iss != 0 && fresh_iss != 0);
	drain_via(&h, w, c, cl_frame(&ka, 0x18, ka.iss + 1, ka_iss + 1, "hi\n", 3), now);
	drain_via(&h, w, c, cl_frame(&ka, 0x10, ka.iss + 4, ka_iss + 4, NULL, 0), now);
	drain_via(&h, w, c, cl_frame(&late, 0x18, late.iss + 1, late_iss + 1, "yo\n", 3), now);
	drain_via(&h, w, c, cl_frame(&fresh, 0x10, fresh.iss + 1, fresh_iss + 1, NULL, 0), now);
	CHECK_EQ(c->stats.c[TFO_STAT_svc_responses], 2);
	CHECK_EQ(tfo_drain_in_flight(&tfo_server_supervisor(s)->lcores, NULL, NULL), 3);

	h_clear(&h);
	tfo_server_drain(s);
	tfo_worker_drain_begin(w, now);
	tfo_control_drain_begin(c, now);
	tfo_control_poll(c, now);	/* flushes what the drain sent */
	/* ka gets a FIN at once; the others nothing */
	g = drain_last_to(&h, &ka);
	CHECK(g != NULL && (g->p.tcp_flags & TFO_TCP_FIN) && g->p.seq == ka_iss + 4);
	CHECK(drain_last_to(&h, &late) == NULL && drain_last_to(&h, &fresh) == NULL);
	CHECK_EQ(c->stats.c[TFO_STAT_drain_keepalive_closed], 1);
	/* late's response is acked during the drain: closed then */
	h_clear(&h);
	drain_via(&h, w, c, cl_frame(&late, 0x10, late.iss + 4, late_iss + 4, NULL, 0), now);
	g = drain_last_to(&h, &late);
	CHECK(g != NULL && (g->p.tcp_flags & TFO_TCP_FIN));
	CHECK_EQ(c->stats.c[TFO_STAT_drain_keepalive_closed], 2);
	/* fresh sends its first request during the drain: answered, and
	 * closed once the answer is acked */
	h_clear(&h);
	drain_via(&h, w, c, cl_frame(&fresh, 0x18, fresh.iss + 1, fresh_iss + 1, "ok\n", 3),
		  now);
	g = drain_last_to(&h, &fresh);
	CHECK(g != NULL && g->len == 3 && memcmp(g->data, "ok\n", 3) == 0);
	drain_via(&h, w, c, cl_frame(&fresh, 0x10, fresh.iss + 4, fresh_iss + 4, NULL, 0), now);
	g = drain_last_to(&h, &fresh);
	CHECK(g != NULL && (g->p.tcp_flags & TFO_TCP_FIN));
	CHECK_EQ(c->stats.c[TFO_STAT_drain_keepalive_closed], 3);
	cl_free(&ka);
	cl_free(&late);
	cl_free(&fresh);
	drain_server_free(&h, s);
}

TFO_TEST(server_drain_ends_when_nothing_is_in_flight)
{
	static struct tfo_config cfg;
	struct tfo_server *s;
	struct tfo_control *c;
	struct harness h;

	h_init(&h, 64);
	s = drain_server(&h, "de", &cfg, false);
	if (s == NULL)
		return;
	c = tfo_server_control(s);
	CHECK(!sup_drain_tick(s, 1000000));
	/* no lcore loop ran here: not ready until every one polls */
	CHECK(!tfo_server_supervisor(s)->life.ready);
	tfo_server_worker(s, 0)->polling = true;
	c->polling = true;
	CHECK(!sup_drain_tick(s, 1000000));
	CHECK(tfo_server_supervisor(s)->life.ready);
	tfo_server_drain(s);
	CHECK(sup_drain_tick(s, 1000000));
	drain_server_free(&h, s);
}


TFO_TEST_MAIN()
