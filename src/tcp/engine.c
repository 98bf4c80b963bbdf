/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the TCP engine's creation, connection life and queries
 * (engine_priv.h has the model and says which file does what).
 */
#include <stdlib.h>
#include <sys/random.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "tfo/log.h"

#include "tcp/engine_priv.h"

/* ---- pending TFO, per core and per source ----------------------------- */

/* The first slot @p key probes. The seed keeps a chooser of addresses
 * from aiming at one probe run. */
static inline uint32_t
src_home(const struct tfo_engine *e, const struct tfo_src_tab *t, uint64_t key)
{
	return (uint32_t)(((key ^ e->src_seed) * 0x9E3779B97F4A7C15ull) >> 32) &
	       t->mask;
}

/* The slot of @p key, or the free slot where it would go. */
static uint32_t
src_slot(const struct tfo_engine *e, const struct tfo_src_tab *t, uint64_t key)
{
	uint32_t i = src_home(e, t, key);

	while (t->ent[i].n != 0 && t->ent[i].key != key)
		i = (i + 1) & t->mask;
	return i;
}

/* Add one to @p key at its slot @p i from src_slot(), with no insertion
 * or release since. */
static inline void
src_add_at(struct tfo_src_tab *t, uint32_t i, uint64_t key)
{
	if (t->ent[i].n++ == 0) {
		t->ent[i].key = key;
		t->used++;
	}
}

void
tfo_src_add(struct tfo_engine *e, struct tfo_src_tab *t, uint64_t key)
{
	if (t->ent == NULL)
		return;
	src_add_at(t, src_slot(e, t, key), key);
}

void
tfo_src_release(struct tfo_engine *e, struct tfo_src_tab *t, uint64_t key)
{
	uint32_t i, j;

	if (t->ent == NULL)
		return;
	i = src_slot(e, t, key);
	if (t->ent[i].n == 0 || --t->ent[i].n > 0)
		return;
	t->used--;
	/* backward-shift deletion: no tombstones to probe past */
	for (j = (i + 1) & t->mask; t->ent[j].n != 0; j = (j + 1) & t->mask) {
		uint32_t home = src_home(e, t, t->ent[j].key);

		/* j may move to i unless its home lies in (i, j] */
		if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
			t->ent[i] = t->ent[j];
			t->ent[j].n = 0;
			i = j;
		}
	}
}

/* Slots of a table for at most @p nkeys sources: half full at most. */
static uint32_t
src_tab_slots(uint32_t nkeys)
{
	return rte_align32pow2(RTE_MAX(2 * nkeys, 16u));
}

/* A table of counts for at most @p nkeys sources, half full at most. */
static int
src_tab_create(struct tfo_engine *e, struct tfo_src_tab *t, const char *what,
	       uint32_t nkeys)
{
	char mz[64];

	t->mask = src_tab_slots(nkeys) - 1;
	t->used = 0;
	snprintf(mz, sizeof(mz), "%s_%s", e->p.name, what);
	t->ent = rte_zmalloc_socket(mz, (size_t)(t->mask + 1) * sizeof(*t->ent),
				    RTE_CACHE_LINE_SIZE, e->p.socket_id);
	return t->ent != NULL ? 0 : -ENOMEM;
}

static size_t
src_tab_memory(const struct tfo_src_tab *t)
{
	return t->ent != NULL ? (size_t)(t->mask + 1) * sizeof(*t->ent) : 0;
}

/* The pending-TFO state a TFO open from @p key would join (holds expired
 * first); nothing counted. */
static inline void
pending_state(struct tfo_engine *e, uint64_t key, struct tfo_syn_pending *s)
{
	hold_expire(e);
	s->pending = e->pending_live + e->hold_n;
	s->cap = e->p.tfo_pending_limit;
	s->src_pending = 0;
	s->src_cap = UINT32_MAX;
	if (e->pend_src.ent != NULL) {
		uint32_t i = src_slot(e, &e->pend_src, key);

		s->src_cap = e->p.tfo_pending_per_source;
		/* a full table (not reached: sized for the pending limit) is over */
		s->src_pending = e->pend_src.ent[i].n == 0 &&
				 e->pend_src.used >= e->pend_src.mask ? s->src_cap :
									 e->pend_src.ent[i].n;
	}
}

int
tfo_tcp_pending_admit(struct tfo_engine *e, uint64_t key)
{
	struct tfo_syn_pending s;
	int rc;

	pending_state(e, key, &s);
	rc = tfo_syn_pending_admit(&s);
	if (rc != 0)
		tfo_tcp_stat_inc(e, rc == -EBUSY ? TFO_STAT_TCPFastOpenListenOverflow :
				 TFO_STAT_tfo_pending_source_overflow);
	return rc;
}

void
tfo_tcp_pending_add(struct tfo_engine *e, struct tfo_conn *c, uint64_t key)
{
	c->flags |= TFO_CF_TFO_PENDING;
	e->pending_live++;
	pending_gauge(e);
	tfo_src_add(e, &e->pend_src, key);
}

/* ---- connection life --------------------------------------------------- */

/* @p c, of source key @p key, at its close: no longer pending TFO; with
 * @p hold (a reset) and room, still counted for a while (the hold). */
static __rte_always_inline void
pending_done_src(struct tfo_engine *e, struct tfo_conn *c, bool hold, uint64_t key)
{
	uint32_t at;

	if (!(c->flags & TFO_CF_TFO_PENDING))
		return;
	if (!hold || e->p.tfo_pending_hold_ms == 0 || e->hold_n >= e->hold_cap) {
		pending_release(e, c, key);
		return;
	}
	c->flags &= (uint16_t)~TFO_CF_TFO_PENDING;
	e->pending_live--;
	/* the source stays counted with the hold */
	at = (e->hold_head + e->hold_n) % e->hold_cap;
	e->hold[at] = e->now_us + (uint64_t)e->p.tfo_pending_hold_ms * 1000;
	e->hold_src[at] = key;
	e->hold_n++;
	pending_gauge(e);
}

/* tfo_tcp_conn_release(), inlined in tfo_tcp_conn_free (every close) */
static __rte_always_inline void
conn_release(struct tfo_engine *e, struct tfo_conn *c, bool rst_rx)
{
	uint64_t src = tfo_tcp_src_key(&c->key.peer, c->key.family);

	tfo_timer_cancel_node(e->tw, &c->timer);
	c->tkind = TFO_CT_NONE;
	buf_put(e, &c->sbuf);
	buf_put(e, &c->rbuf);
	c->req_len = 0;
	/* one key for both tables; no call without conn_per_source's */
	pending_done_src(e, c, rst_rx, src);
	if (e->conn_src.ent != NULL)
		tfo_src_release(e, &e->conn_src, src);
}

void
tfo_tcp_conn_release(struct tfo_engine *e, struct tfo_conn *c, bool rst_rx)
{
	conn_release(e, c, rst_rx);
}

/* Forget @p c (no segment sent); @p why is counted unless negative. */
void
tfo_tcp_conn_free(struct tfo_engine *e, struct tfo_conn *c, int why)
{
	conn_release(e, c, why == TFO_STAT_conns_closed_rst_rx);
	e->nstate[c->state]--;
	tfo_stats_dec(e->st, TFO_STAT_conns_active);
	tfo_conn_remove(e->ct, c);	/* state becomes CLOSED */
	if (why >= 0)
		tfo_tcp_stat_inc(e, (enum tfo_stat_id)why);
}

/* Abort: RST (RFC 9293 3.10.7: SEQ = what the peer expects next) + free. */
void
tfo_tcp_conn_reset(struct tfo_engine *e, struct tfo_conn *c, enum tfo_stat_id why)
{
	if (tfo_tcp_xmit(e, c, c->snd_max, TFO_TCP_RST | TFO_TCP_ACK, 0, 0) == 0)
		tfo_tcp_stat_inc(e, TFO_STAT_rst_tx);
	tfo_tcp_stat_inc(e, why);
	tfo_tcp_conn_free(e, c, TFO_STAT_conns_closed_rst_tx);
}

/*
 * Room for a new client in a table under pressure (nginx's limit_conn and
 * client_header_timeout are the model; Linux has none): reset the
 * connection that costs an entry and gives least. A sample of
 * TFO_EVICT_SAMPLE entries from a rotating cursor, not a scan. Among the
 * ESTABLISHED connections with nothing in flight or queued: an idle
 * keep-alive one (no request bytes held) waiting for TFO_EVICT_IDLE_MIN_MS
 * or more first, then an incomplete request, then an idle one that just
 * opened or answered (a good client's request is on its way); the oldest
 * in its class. Handshakes, responses and closes are kept.
 */
enum { EV_NONE, EV_IDLE_YOUNG, EV_SLOW, EV_IDLE };

static void
evict_one(struct tfo_engine *e)
{
	const uint16_t young = TFO_EVICT_IDLE_MIN_MS / TFO_REQ_TICK_MS;
	uint16_t now = (uint16_t)req_tick(e), best_age = 0;
	struct tfo_conn *best = NULL;
	uint32_t i = e->evict_cursor;
	int best_cls = EV_NONE;

	for (unsigned int k = 0; k < TFO_EVICT_SAMPLE; k++) {
		struct tfo_conn *c = tfo_conn_at(e->ct, i);
		uint16_t age;
		int cls;

		if (++i >= e->p.max_conns)
			i = 0;
		if (c->state != TFO_CONN_ESTABLISHED || c->snd_una != c->snd_max ||
		    c->sbuf != TFO_CONN_NONE || (c->flags & TFO_CF_FIN_QUEUED))
			continue;
		age = (uint16_t)(now - c->req_start);
		cls = c->req_len > 0 ? EV_SLOW : age >= young ? EV_IDLE : EV_IDLE_YOUNG;
		if (cls > best_cls || (cls == best_cls && age > best_age)) {
			best = c;
			best_cls = cls;
			best_age = age;
		}
	}
	e->evict_cursor = i;
	if (best != NULL)
		tfo_tcp_conn_reset(e, best, best_cls == EV_SLOW ?
				   TFO_STAT_conn_evicted_slow : TFO_STAT_conn_evicted_idle);
}

struct tfo_conn *
tfo_tcp_conn_new(struct tfo_engine *e, const struct tfo_conn_key *key,
		 struct tfo_conn **exists, int *err)
{
	uint64_t src = tfo_tcp_src_key(&key->peer, key->family);
	struct tfo_src_tab *t = &e->conn_src;
	struct tfo_conn *c;
	uint32_t i = 0;

	*exists = NULL;
	/* one probe for the check and the add */
	if (t->ent != NULL) {
		i = src_slot(e, t, src);
		/* the tuple may be known (a duplicate SYN): not a new entry */
		if (t->ent[i].n >= e->p.conn_per_source &&
		    tfo_conn_lookup(e->ct, key) == NULL) {
			tfo_tcp_stat_inc(e, TFO_STAT_conn_source_limit);
			*err = -EDQUOT;
			return NULL;
		}
	}
	if (e->p.evict && tfo_conn_free_count(e->ct) <= e->p.max_conns / 8) {
		evict_one(e);
		/* a release may have emptied or shifted the slot */
		if (t->ent != NULL)
			i = src_slot(e, t, src);
	}
	c = tfo_conn_insert(e->ct, key, exists);
	if (c == NULL) {
		*err = -ENOSPC;
		return NULL;
	}
	e->key_gen++;	/* an entry may have a new key: tfo_engine_input */
	if (t->ent != NULL)
		src_add_at(t, i, src);
	return c;
}

/* Queue our FIN after the send queue (the service is not called again). */
void
tfo_tcp_queue_fin(struct tfo_engine *e, struct tfo_conn *c)
{
	queue_fin(e, c);
}

static void
ext_free_noop(void *addr, void *opaque)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(opaque);
}

/* ---- state ------------------------------------------------------------- */

int
tfo_engine_tfo_pending_check(struct tfo_engine *e, const struct tfo_pkt *p,
			     uint64_t now_us)
{
	engine_clock(e, now_us);
	return tfo_tcp_pending_admit(e, tfo_tcp_src_key(&p->src, p->family));
}

void
tfo_engine_tfo_pending_get(struct tfo_engine *e, const struct tfo_pkt *p,
			   uint64_t now_us, struct tfo_syn_pending *s)
{
	engine_clock(e, now_us);
	pending_state(e, tfo_tcp_src_key(&p->src, p->family), s);
}

uint32_t
tfo_engine_tfo_pending(const struct tfo_engine *e)
{
	return e->pending_live + e->hold_n;
}

int
tfo_engine_serves(const struct tfo_engine *e, uint16_t port)
{
	unsigned int idx;

	return find_service(e, port, &idx) != NULL;
}

static const char *const tfo_state_names[TFO_CONN_NB_STATES] = {
	[TFO_CONN_CLOSED] = "CLOSED",
#define TFO_X_NAME(s) [TFO_CONN_##s] = #s,
	TFO_CONN_STATES(TFO_X_NAME)
#undef TFO_X_NAME
};

const char *
tfo_conn_state_name(enum tfo_conn_state s)
{
	return (unsigned int)s < TFO_CONN_NB_STATES ? tfo_state_names[s] : "?";
}

void
tfo_engine_conn_counts(const struct tfo_engine *e, uint32_t *out)
{
	memcpy(out, e->nstate, sizeof(e->nstate));
}

uint32_t
tfo_engine_free_conns(const struct tfo_engine *e)
{
	return tfo_conn_free_count(e->ct);
}

uint32_t
tfo_engine_free_bufs(const struct tfo_engine *e)
{
	return e->nb_buf_free;
}

void
tfo_engine_drain(struct tfo_engine *e, uint64_t now_us)
{
	struct tfo_conn *conns = tfo_conn_array(e->ct);

	engine_clock(e, now_us);
	e->draining = true;
	for (uint32_t i = 0; i < e->p.max_conns; i++) {
		struct tfo_conn *c = &conns[i];

		if (c->state != TFO_CONN_ESTABLISHED || !(c->flags2 & TFO_CF2_KEEPALIVE) ||
		    (c->flags & TFO_CF_FIN_QUEUED) || c->req_len != 0 ||
		    c->sbuf != TFO_CONN_NONE)
			continue;
		tfo_tcp_stat_inc(e, TFO_STAT_drain_keepalive_closed);
		tfo_tcp_queue_fin(e, c);
		tfo_tcp_output(e, c);
		tfo_tcp_update_timer(e, c);
	}
	tfo_tcp_spare_free(e);
}

bool
tfo_engine_quiet(const struct tfo_engine *e)
{
	return tfo_conn_free_count(e->ct) == e->p.max_conns && tfo_conn_tw_count(e->ct) == 0;
}

uint32_t
tfo_engine_time_wait_count(const struct tfo_engine *e)
{
	return tfo_conn_tw_count(e->ct);
}

uint32_t
tfo_engine_time_wait_max(const struct tfo_engine *e)
{
	return tfo_conn_tw_max(e->ct);
}

void
tfo_engine_capacity(const struct tfo_engine *e, uint32_t rtt_us,
		    uint64_t *tw_per_s, uint64_t *entries_per_s,
		    uint64_t *tfo_per_s)
{
	uint64_t rtt = RTE_MAX(rtt_us, 1u);

	*tw_per_s = e->p.time_wait_ms == 0 ? UINT64_MAX :
		    (uint64_t)tfo_conn_tw_max(e->ct) * 1000 / e->p.time_wait_ms;
	*entries_per_s = (uint64_t)e->p.max_conns * 1000000 / rtt;
	*tfo_per_s = (uint64_t)e->p.tfo_pending_limit * 1000000 / rtt;
}

void
tfo_engine_memory_detail(const struct tfo_engine *e, size_t *table,
			 size_t *bufs, size_t *other)
{
	*table = tfo_conn_table_memory(e->ct);
	*bufs = (size_t)e->nb_bufs * (e->buf_size + sizeof(uint32_t));
	*other = sizeof(*e) + tfo_timer_wheel_memory(e->tw) +
		 (size_t)e->hold_cap * 2 * sizeof(uint64_t) +
		 src_tab_memory(&e->pend_src) + src_tab_memory(&e->conn_src);
}

static void engine_defaults(struct tfo_engine *e, const struct tfo_engine_params *params,
			    const char *name);

/*
 * What engine_setup_memory allocates for @p params, term by term as
 * tfo_engine_memory_detail counts it, from the sizes engine_defaults
 * derives (on a scratch engine in ordinary memory: nothing is touched
 * but its fields).
 */
int
tfo_engine_plan_memory(const struct tfo_engine_params *params, size_t *table,
		       size_t *bufs, size_t *other)
{
	struct tfo_engine *e = calloc(1, sizeof(*e));
	uint32_t hold_cap;

	if (e == NULL)
		return -ENOMEM;
	engine_defaults(e, params, "plan");
	hold_cap = RTE_MAX(e->p.tfo_pending_limit, 1u);
	*table = tfo_conn_table_plan(e->p.max_conns,
				     e->p.time_wait_ms ? e->p.time_wait_max : 0);
	*bufs = (size_t)e->nb_bufs * (e->buf_size + sizeof(uint32_t));
	*other = sizeof(*e) + tfo_timer_wheel_plan(TFO_WHEEL_SLOTS) +
		 (size_t)hold_cap * 2 * sizeof(uint64_t);
	if (e->p.tfo_pending_per_source > 0 && e->p.tfo_pending_limit > 0)
		*other += (size_t)src_tab_slots(e->p.tfo_pending_limit) *
			  sizeof(e->pend_src.ent[0]);
	if (e->p.conn_per_source > 0)
		*other += (size_t)src_tab_slots(e->p.max_conns) * sizeof(e->conn_src.ent[0]);
	free(e);
	return 0;
}

size_t
tfo_engine_memory(const struct tfo_engine *e)
{
	size_t t, b, o;

	tfo_engine_memory_detail(e, &t, &b, &o);
	return t + b + o;
}

/* ---- create / free ----------------------------------------------------- */

static int
check_params(const struct tfo_engine_params *p)
{
	const char *n = p->name != NULL ? p->name : "engine";

	if (p->pool == NULL || p->ports == NULL || p->nb_ports == 0 ||
	    p->nb_ports > TFO_MAX_PORTS || p->tx == NULL || p->stats == NULL) {
		TFO_LOG(ERR, "%s: pool, ports (1..%d), tx and stats are required",
			n, TFO_MAX_PORTS);
		return -EINVAL;
	}
	if (p->nb_services > 255 || (p->nb_services > 0 && p->services == NULL)) {
		TFO_LOG(ERR, "%s: %u services (at most 255)", n, p->nb_services);
		return -EINVAL;
	}
	if (p->max_request != 0 && (p->max_request < 64 || p->max_request > 65535)) {
		TFO_LOG(ERR, "%s: max_request %u out of range 64..65535", n,
			p->max_request);
		return -EINVAL;
	}
	if (p->mss != 0 && p->mss < TFO_MIN_MSS + 20) {
		TFO_LOG(ERR, "%s: mss %u too small", n, p->mss);
		return -EINVAL;
	}
	if (p->resp_buf_size > 65535) {
		TFO_LOG(ERR, "%s: resp_buf_size %u over 65535", n, p->resp_buf_size);
		return -EINVAL;
	}
	return 0;
}

/* Parameters left at 0 take their defaults; the derived sizes follow. */
static void
engine_defaults(struct tfo_engine *e, const struct tfo_engine_params *params,
		const char *name)
{
	e->p = *params;
	e->p.name = name;
	if (e->p.max_request == 0)
		e->p.max_request = 4096;
	if (e->p.mss == 0)
		e->p.mss = 1460;
	if (e->p.rcv_wnd == 0)
		e->p.rcv_wnd = 65535;
	if (e->p.rto_init_ms == 0)
		e->p.rto_init_ms = 1000;
	if (e->p.rto_min_ms == 0)
		e->p.rto_min_ms = 200;
	if (e->p.rto_max_ms == 0)
		e->p.rto_max_ms = 60000;
	if (e->p.idle_timeout_ms == 0)
		e->p.idle_timeout_ms = 30000;
	e->p.request_timeout_ms = RTE_MIN(e->p.request_timeout_ms,
					  (uint32_t)TFO_REQ_TIMEOUT_MAX_MS);
	e->st = params->stats;
	e->tx = params->tx;
	e->lat = params->lat;
	e->pool = params->pool;
	e->now_us = 0;
	e->max_request = e->p.max_request;
	e->rcv_wnd_max = RTE_MIN(e->p.rcv_wnd, e->max_request);
	/* the smallest shift our window needs, at most the configured one */
	while (e->our_ws < e->p.wscale && e->our_ws < TFO_WSCALE_MAX &&
	       (e->rcv_wnd_max >> e->our_ws) > 65535)
		e->our_ws++;
	e->resp_cap = e->p.resp_buf_size ? e->p.resp_buf_size : 2048;
	e->buf_size = RTE_ALIGN_CEIL(TFO_BUF_HDR + RTE_MAX(e->resp_cap, e->max_request),
				     RTE_CACHE_LINE_SIZE);
	e->resp_cap = e->buf_size - TFO_BUF_HDR;
	e->nb_bufs = e->p.nb_bufs ? e->p.nb_bufs :
		     RTE_MIN(RTE_MAX(e->p.max_conns / 4, 256u), 16384u);
	if (e->p.time_wait_max == 0)
		e->p.time_wait_max = e->p.max_conns;
}

/* Per port: the MSS we advertise and the local addresses by global index. */
static int
engine_setup_ports(struct tfo_engine *e)
{
	uint32_t room = rte_pktmbuf_data_room_size(e->pool);

	if (room < (uint32_t)RTE_PKTMBUF_HEADROOM + e->p.mss) {
		TFO_LOG(ERR, "%s: mbufs of %u bytes cannot carry headroom %u + MSS %u",
			e->p.name, room, RTE_PKTMBUF_HEADROOM, e->p.mss);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < e->p.nb_ports; i++) {
		const struct tfo_port_info *pi = &e->p.ports[i];
		uint32_t mtu = pi->mtu ? pi->mtu : 1500;

		e->mss4[i] = (uint16_t)RTE_MIN((uint32_t)e->p.mss, mtu - 40);
		e->mss6[i] = (uint16_t)RTE_MIN((uint32_t)e->p.mss - 20, mtu - 60);
		for (unsigned int a = 0; a < pi->nb_addrs; a++)
			if (pi->addr_base + a < RTE_DIM(e->laddr))
				e->laddr[pi->addr_base + a] = pi->addrs[a].addr;
	}
	return 0;
}

/* The connection table, the timer wheel, the buffers and the hold FIFO. */
static int
engine_setup_memory(struct tfo_engine *e)
{
	const char *name = e->p.name;
	char mz[64];

	snprintf(mz, sizeof(mz), "%s_ct", name);
	e->ct = tfo_conn_table_create_tw(mz, e->p.max_conns,
					 e->p.time_wait_ms ? e->p.time_wait_max : 0,
					 e->p.socket_id);
	if (e->ct == NULL)
		return rte_errno != 0 ? -rte_errno : -ENOMEM;
	e->conns = tfo_conn_array(e->ct);
	snprintf(mz, sizeof(mz), "%s_tw", name);
	e->tw = tfo_timer_wheel_create(mz, e->p.socket_id, TFO_WHEEL_SLOTS,
				       TFO_TICK_SHIFT, tfo_conn_array(e->ct),
				       sizeof(struct tfo_conn),
				       offsetof(struct tfo_conn, timer),
				       e->p.max_conns, 0);
	if (e->tw == NULL)
		return rte_errno != 0 ? -rte_errno : -ENOMEM;
	snprintf(mz, sizeof(mz), "%s_bufs", name);
	e->bufs = rte_malloc_socket(mz, (size_t)e->nb_bufs * e->buf_size,
				    RTE_CACHE_LINE_SIZE, e->p.socket_id);
	snprintf(mz, sizeof(mz), "%s_buffree", name);
	e->buf_free = rte_malloc_socket(mz, (size_t)e->nb_bufs * sizeof(uint32_t),
					0, e->p.socket_id);
	e->hold_cap = RTE_MAX(e->p.tfo_pending_limit, 1u);
	snprintf(mz, sizeof(mz), "%s_hold", name);
	e->hold = rte_malloc_socket(mz, (size_t)e->hold_cap * sizeof(uint64_t),
				    0, e->p.socket_id);
	snprintf(mz, sizeof(mz), "%s_holdsrc", name);
	e->hold_src = rte_malloc_socket(mz, (size_t)e->hold_cap * sizeof(uint64_t),
					0, e->p.socket_id);
	/* a source per pending or held open at most */
	if (e->p.tfo_pending_per_source > 0 && e->p.tfo_pending_limit > 0 &&
	    src_tab_create(e, &e->pend_src, "src", e->p.tfo_pending_limit) != 0)
		return -ENOMEM;
	/* a source per entry at most */
	if (e->p.conn_per_source > 0 &&
	    src_tab_create(e, &e->conn_src, "connsrc", e->p.max_conns) != 0)
		return -ENOMEM;
	if (e->bufs == NULL || e->buf_free == NULL || e->hold == NULL ||
	    e->hold_src == NULL) {
		TFO_LOG(ERR, "%s: no memory for %u buffers of %u bytes", name,
			e->nb_bufs, e->buf_size);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < e->nb_bufs; i++)
		e->buf_free[i] = e->nb_bufs - 1 - i;
	e->nb_buf_free = e->nb_bufs;
	return 0;
}

/* The ISN/TSval secret and the SYN-cookie secret, fresh per engine. */
static int
engine_setup_secrets(struct tfo_engine *e)
{
	uint8_t isn_key[16];

	if (getrandom(isn_key, sizeof(isn_key), 0) != (ssize_t)sizeof(isn_key) ||
	    getrandom(&e->sc_secret, sizeof(e->sc_secret), 0) !=
	    (ssize_t)sizeof(e->sc_secret)) {
		TFO_LOG(ERR, "%s: getrandom failed", e->p.name);
		return -EIO;
	}
	tfo_siphash_init(&e->isn_key, isn_key);
	e->isn_simd = tfo_simd_best();
	if (getrandom(&e->src_seed, sizeof(e->src_seed), 0) != (ssize_t)sizeof(e->src_seed))
		return -EIO;
	return 0;
}

void
tfo_engine_share_secrets(struct tfo_engine *dst, const struct tfo_engine *src)
{
	dst->isn_key = src->isn_key;
	dst->sc_secret = src->sc_secret;
}

struct tfo_engine *
tfo_engine_create(const struct tfo_engine_params *params)
{
	const char *name = params->name != NULL ? params->name : "engine";
	struct tfo_engine *e;
	int rc;

	rc = check_params(params);
	if (rc != 0) {
		rte_errno = -rc;
		return NULL;
	}
	e = rte_zmalloc_socket(name, sizeof(*e), RTE_CACHE_LINE_SIZE,
			       params->socket_id);
	if (e == NULL) {
		TFO_LOG(ERR, "%s: no memory for the engine", name);
		rte_errno = ENOMEM;
		return NULL;
	}
	engine_defaults(e, params, name);
	rc = engine_setup_ports(e);
	if (rc == 0)
		rc = engine_setup_memory(e);
	if (rc == 0)
		rc = engine_setup_secrets(e);
	if (rc != 0) {
		tfo_engine_free(e);
		rte_errno = -rc;
		return NULL;
	}
	/* the engine's own reference keeps it from reaching 0 */
	e->shinfo.free_cb = ext_free_noop;
	e->shinfo.fcb_opaque = e;
	rte_mbuf_ext_refcnt_set(&e->shinfo, 1);
	TFO_LOG(DEBUG, "%s: %u connections, %u buffers of %u bytes, %.1f MiB",
		name, e->p.max_conns, e->nb_bufs, e->buf_size,
		(double)tfo_engine_memory(e) / (1 << 20));
	return e;
}

static void
free_one(struct tfo_conn *c, void *arg)
{
	tfo_tcp_conn_free(arg, c, -1);
}

void
tfo_engine_free(struct tfo_engine *e)
{
	if (e == NULL)
		return;
	if (e->ct != NULL && e->tw != NULL) {
		tfo_conn_foreach(e->ct, free_one, e);
		while (tfo_conn_tw_oldest(e->ct) != NULL)
			tfo_tcp_tw_end(e, tfo_conn_tw_oldest(e->ct), -1);
	}
	tfo_timer_wheel_free(e->tw);
	tfo_conn_table_free(e->ct);
	rte_free(e->bufs);
	rte_free(e->buf_free);
	rte_free(e->hold);
	rte_free(e->hold_src);
	rte_free(e->pend_src.ent);
	rte_free(e->conn_src.ent);
	tfo_tcp_spare_free(e);
	rte_free(e);
}

/*
 * Called by the control lcore while the owning lcore runs: every load below
 * races with the owner's stores, which is why nothing is dereferenced but
 * the engine's own arrays (entries and buffers never move, an index is
 * bounds-checked before use) and the blob pointer is only compared. The
 * answer is still exact for the use it has (tcp/engine.h): once no new
 * reference can appear, a reference that exists for the whole walk sits
 * in one entry's send buffer, which keeps its index and a non-zero
 * body_len until the bytes are acknowledged, so it is seen; a stale or torn read of an entry being
 * freed or reused can only report a reference that is gone, which delays
 * a free and never hastens one.
 */
bool
tfo_engine_sends_from(const struct tfo_engine *e, const void *lo, const void *hi)
{
	const struct tfo_conn *conns = tfo_conn_array(e->ct);
	uintptr_t l = (uintptr_t)lo, h = (uintptr_t)hi;

	for (uint32_t i = 0; i < e->p.max_conns; i++) {
		const struct tfo_conn *c = &conns[i];
		const struct tfo_sndq *q;
		uint32_t sb;
		uintptr_t b;

		if (__atomic_load_n(&c->state, __ATOMIC_RELAXED) == TFO_CONN_CLOSED)
			continue;
		sb = __atomic_load_n(&c->sbuf, __ATOMIC_RELAXED);
		if (sb >= e->nb_bufs)	/* TFO_CONN_NONE, or torn */
			continue;
		q = (const struct tfo_sndq *)(const void *)buf_ptr(e, sb);
		b = (uintptr_t)__atomic_load_n(&q->body, __ATOMIC_RELAXED);
		/* body stays set once its bytes are all acknowledged */
		if (b >= l && b < h &&
		    __atomic_load_n(&q->body_len, __ATOMIC_RELAXED) != 0)
			return true;
	}
	return false;
}
