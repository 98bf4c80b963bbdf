/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-loadgen: the client side of a TFO transaction, many at a time.
 *
 * A transaction: SYN (a cookie request, cookie + request data, a corrupted
 * cookie + data, or no TFO option) -> SYN-ACK (validated; its cookie
 * learned; data in it accepted) -> the rest of the request, if any ->
 * the response, checked byte by byte as it arrives -> ACK+FIN -> the
 * server's FIN and the ACK of ours. Both shapes of server are played: the
 * response inside the SYN-ACK (tfo-server) or after it (Linux).
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "tfo/log.h"
#include "tfo/port.h"
#include "tfo/seq.h"

#include "lg.h"

#define LG_NO_SLOT UINT32_MAX
#define LG_BACKOFF_MAX 6
#define LG_WARM_TRIES 3

static inline uint64_t
lg_rand(struct lg_lcore *lc)
{
	/* xorshift64*: good enough to pick a mix and an ISN offset */
	lc->rng ^= lc->rng >> 12;
	lc->rng ^= lc->rng << 25;
	lc->rng ^= lc->rng >> 27;
	return lc->rng * 0x2545F4914F6CDD1Dull;
}

static inline uint32_t
lg_tsval(const struct lg_lcore *lc, uint64_t now)
{
	/* Linux's 1 kHz timestamp clock, without a random offset: the TSC
	 * counts from boot, so a tuple's TSval grows across runs too, and a
	 * server's TIME-WAIT entry from the previous run takes our new SYN
	 * (RFC 7323 PAWS, Linux tcp_timewait_state_process) */
	return (uint32_t)(now / lc->tsc_per_ms);
}

/* ---- addresses ----------------------------------------------------------- */

static inline unsigned int
lg_addr_off(int family)
{
	return family == AF_INET ? 0 : 12;
}

void
lg_addr_make(const struct lg_opts *o, uint32_t a, struct tfo_addr *out)
{
	unsigned int off = lg_addr_off(o->family);
	uint32_t v;

	*out = o->client;
	memcpy(&v, out->b + off, 4);
	v = rte_cpu_to_be_32(rte_be_to_cpu_32(v) + a);
	memcpy(out->b + off, &v, 4);
}

int64_t
lg_addr_index(const struct lg_opts *o, int family, const struct tfo_addr *x)
{
	unsigned int off = lg_addr_off(family);
	uint32_t v, base;

	if (family != o->family)
		return -1;
	if (off != 0 && memcmp(x->b, o->client.b, off) != 0)
		return -1;
	memcpy(&v, x->b + off, 4);
	memcpy(&base, o->client.b + off, 4);
	v = rte_be_to_cpu_32(v) - rte_be_to_cpu_32(base);
	return v < o->nb_clients ? (int64_t)v : -1;
}

static inline struct lg_addr *
lg_conn_addr(struct lg_lcore *lc, const struct lg_conn *c)
{
	return &lc->addrs[c->addr / lc->sh->nb_lcores];
}

/* ---- request bytes ------------------------------------------------------- */

/* The per-transaction tag: 16 lower-case hex digits of the id (never '\n',
 * so line-based echo servers still see one line). */
static inline uint8_t
lg_tag_byte(uint64_t id, uint32_t i)
{
	static const char hex[] = "0123456789abcdef";

	return (uint8_t)hex[(id >> (4 * (LG_TAG_LEN - 1 - i))) & 0xf];
}

static void
lg_fill_request(const struct lg_opts *o, uint64_t id, uint8_t *dst, uint32_t off,
		uint32_t len)
{
	memcpy(dst, o->request + off, len);
	if (o->tag)
		for (uint32_t i = off; i < LG_TAG_LEN && i < off + len; i++)
			dst[i - off] = lg_tag_byte(id, i);
}

static inline uint8_t
lg_request_byte(const struct lg_opts *o, uint64_t id, uint32_t i)
{
	return o->tag && i < LG_TAG_LEN ? lg_tag_byte(id, i) : o->request[i];
}

/* ---- transmit ------------------------------------------------------------ */

struct lg_seg {
	uint8_t port_idx;
	uint8_t flags;
	uint8_t opt_len;
	uint16_t sport;
	uint16_t window;
	uint32_t addr;
	uint32_t seq;
	uint32_t ack;
	uint32_t data_off;
	uint32_t data_len;
	uint64_t txn_id;
	const uint8_t *opts;
};

static int
lg_xmit(struct lg_lcore *lc, const struct lg_seg *s)
{
	const struct lg_opts *o = lc->o;
	const struct lg_port *port = &lc->sh->ports[s->port_idx];
	struct tfo_route r;
	struct tfo_tcp_out t;
	struct rte_mbuf *m;

	m = rte_pktmbuf_alloc(lc->pool);
	if (unlikely(m == NULL)) {
		LG_INC(&lc->stats, mbuf_alloc_fail);
		return -ENOMEM;
	}
	if (s->data_len > 0) {
		uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)s->data_len);

		if (unlikely(d == NULL)) {
			rte_pktmbuf_free(m);
			LG_INC(&lc->stats, mbuf_alloc_fail);
			return -ENOSPC;
		}
		lg_fill_request(o, s->txn_id, d, s->data_off, s->data_len);
	}
	r.peer_mac = port->server_mac;
	r.vlan_tci = 0;
	r.has_vlan = 0;
	r.family = (uint8_t)o->family;
	r.local_idx = 0;
	r.port_idx = s->port_idx;
	lg_addr_make(o, s->addr, &r.local);
	r.peer = o->server;
	t.sport = s->sport;
	t.dport = o->server_port;
	t.seq = s->seq;
	t.ack = s->ack;
	t.window = s->window;
	t.flags = s->flags;
	t.opt_len = s->opt_len;
	t.opts = s->opts;
	if (unlikely(tfo_pkt_prepend_tcp(m, &port->info, &r, &t) < 0)) {
		rte_pktmbuf_free(m);
		LG_INC(&lc->stats, mbuf_alloc_fail);
		return -ENOSPC;
	}
	tfo_tx_push(&lc->tx, s->port_idx, m);
	return 0;
}

/*
 * A SYN's options in Linux's order: MSS, SACK-permitted + timestamps, NOP +
 * window scale, then the TFO option (NOP-padded after it, as Linux does).
 * @p cookie_len 0 with a form asks for a cookie.
 */
static unsigned int
lg_syn_opts(uint8_t *out, uint16_t mss, uint32_t tsval, uint8_t form,
	    const uint8_t *cookie, unsigned int cookie_len)
{
	unsigned int n = 20, len;
	uint8_t *p;

	out[0] = TFO_OPT_MSS;
	out[1] = 4;
	out[2] = (uint8_t)(mss >> 8);
	out[3] = (uint8_t)mss;
	out[4] = TFO_OPT_SACK_PERM;
	out[5] = 2;
	out[6] = TFO_OPT_TS;
	out[7] = 10;
	out[8] = (uint8_t)(tsval >> 24);
	out[9] = (uint8_t)(tsval >> 16);
	out[10] = (uint8_t)(tsval >> 8);
	out[11] = (uint8_t)tsval;
	memset(out + 12, 0, 4);
	out[16] = TFO_OPT_NOP;
	out[17] = TFO_OPT_WSCALE;
	out[18] = 3;
	out[19] = LG_WSCALE;
	if (form == TFO_FORM_NONE)
		return n;
	p = out + n;
	if (form == TFO_FORM_EXP) {
		len = 4 + cookie_len;
		p[0] = TFO_OPT_EXP;
		p[1] = (uint8_t)len;
		p[2] = TFO_OPT_EXP_MAGIC_TFO >> 8;
		p[3] = TFO_OPT_EXP_MAGIC_TFO & 0xff;
		if (cookie_len != 0)
			memcpy(p + 4, cookie, cookie_len);
	} else {
		len = 2 + cookie_len;
		p[0] = TFO_OPT_FASTOPEN;
		p[1] = (uint8_t)len;
		if (cookie_len != 0)
			memcpy(p + 2, cookie, cookie_len);
	}
	memset(p + len, TFO_OPT_NOP, ((len + 3) & ~3u) - len);
	return n + ((len + 3) & ~3u);
}

static inline uint16_t
lg_rcv_window(const struct lg_conn *c)
{
	return (c->flags & LG_F_WS) ? (uint16_t)(LG_RCV_WND >> LG_WSCALE) : 65535;
}

/* The SYN of @p c; with data (the first one) or without (retransmissions). */
static void
lg_send_syn(struct lg_lcore *lc, struct lg_conn *c, bool with_data, uint64_t now)
{
	const struct lg_opts *o = lc->o;
	struct lg_addr *a = lg_conn_addr(lc, c);
	uint8_t opts[TFO_TCPOPT_MAX_LEN], bad[TFO_COOKIE_MAX];
	const uint8_t *cookie = NULL;
	unsigned int cookie_len = 0;
	uint8_t form = TFO_FORM_NONE;
	uint32_t tsval = lg_tsval(lc, now);
	struct lg_seg s;

	switch (c->kind) {
	case LG_KIND_COOKIE_REQ:
		form = o->cookie_form;
		break;
	case LG_KIND_TFO:
		form = a->form;
		cookie = a->cookie;
		cookie_len = a->cookie_len;
		break;
	case LG_KIND_BAD_COOKIE:
		/* the cached cookie with every bit flipped: surely invalid */
		cookie_len = a->cookie_len ? a->cookie_len : TFO_COOKIE_LEN;
		for (unsigned int i = 0; i < cookie_len; i++)
			bad[i] = (uint8_t)~a->cookie[i];
		cookie = bad;
		form = a->cookie_len ? a->form : o->cookie_form;
		break;
	default:
		break;
	}
	if (with_data)
		c->syn_tsval_first = tsval;
	c->syn_tsval_last = tsval;
	s.port_idx = c->port_idx;
	s.flags = TFO_TCP_SYN;
	s.opts = opts;
	s.opt_len = (uint8_t)lg_syn_opts(opts, o->mss, tsval, form, cookie, cookie_len);
	s.sport = c->sport;
	s.window = 65535;
	s.addr = c->addr;
	s.seq = c->isn;
	s.ack = 0;
	s.data_off = 0;
	s.data_len = with_data ? c->syn_data : 0;
	s.txn_id = c->txn_id;
	lg_xmit(lc, &s);
}

/* A segment of an open connection: ACK, data from the request, FIN, RST. */
static void
lg_send(struct lg_lcore *lc, struct lg_conn *c, uint8_t flags, uint32_t seq,
	uint32_t data_len, uint64_t now)
{
	uint8_t opts[12];
	struct lg_seg s;

	s.port_idx = c->port_idx;
	s.flags = flags;
	s.opts = opts;
	s.opt_len = 0;
	if (c->flags & LG_F_TS)
		s.opt_len = (uint8_t)tfo_tcpopt_write_ts(opts, lg_tsval(lc, now),
							 c->ts_recent);
	s.sport = c->sport;
	s.window = lg_rcv_window(c);
	s.addr = c->addr;
	s.seq = seq;
	s.ack = (flags & TFO_TCP_ACK) ? c->rcv_nxt : 0;
	s.data_off = seq - (c->isn + 1);
	s.data_len = data_len;
	s.txn_id = c->txn_id;
	lg_xmit(lc, &s);
}

/* ---- slots --------------------------------------------------------------- */

static void
lg_free(struct lg_lcore *lc, struct lg_conn *c)
{
	uint32_t slot = (uint32_t)(c - lc->conns);

	if (c->flags & LG_F_WARMUP) {
		lg_conn_addr(lc, c)->warming = 0;
		lc->warm_inflight--;
	}
	lc->tuple_map[c->tuple] = 0;
	c->state = LG_ST_FREE;
	c->flags = 0;
	c->next_free = lc->free_head;
	lc->free_head = slot;
	lc->nb_free++;
}

/* Count error @p id once and drop the transaction (RST it if @p rst). */
static void
lg_fail(struct lg_lcore *lc, struct lg_conn *c, enum lg_stat_id id, bool rst,
	uint64_t now)
{
	if (id < LG_STAT_MAX)	/* LG_STAT_MAX: counted by the caller */
		lc->stats.c[id]++;
	if (rst) {
		if (c->state == LG_ST_SYN_SENT)
			lg_send(lc, c, TFO_TCP_RST, c->snd_nxt, 0, now);
		else
			lg_send(lc, c, TFO_TCP_RST | TFO_TCP_ACK, c->snd_nxt, 0, now);
	}
	lg_free(lc, c);
}

static void
lg_complete(struct lg_lcore *lc, struct lg_conn *c)
{
	if (c->flags & LG_F_WARMUP) {
		LG_INC(&lc->stats, warmup_completed);
	} else {
		LG_INC(&lc->stats, txn_completed);
		lc->stats.c[lg_kind_done(c->kind)]++;
	}
	lg_free(lc, c);
}

static inline void
lg_mark(struct lg_lcore *lc, struct lg_conn *c, uint64_t now)
{
	if (c->flags & LG_F_PENDING)
		return;
	if (unlikely(lc->nb_pending == RTE_DIM(lc->pending)))
		lg_output_pending(lc, now);
	c->flags |= LG_F_PENDING;
	lc->pending[lc->nb_pending++] = (uint32_t)(c - lc->conns);
}

/* ---- start ---------------------------------------------------------------- */

unsigned int
lg_flow_queue(const struct lg_shared *sh, const struct lg_opts *o, uint32_t addr,
	      uint16_t sport)
{
	struct tfo_pkt p;

	memset(&p, 0, sizeof(p));
	p.family = (uint8_t)o->family;
	lg_addr_make(o, addr, &p.src);
	p.dst = o->server;
	p.sport = sport;
	p.dport = o->server_port;
	return tfo_port_flow_worker(&sh->ports[lg_addr_port(sh, addr)].peer, sh->nb_lcores, &p);
}

/* Tuple @p t of @p lc goes out on lc's own queue pair (always, without
 * --rss-peer: the server's worker is whichever queue it came on). */
static bool
lg_tuple_ours(const struct lg_lcore *lc, uint32_t t)
{
	uint32_t local = t % lc->nb_addrs;

	return !lc->o->rss_peer ||
	       lg_flow_queue(lc->sh, lc->o, local * lc->sh->nb_lcores + lc->idx,
			     (uint16_t)(lc->o->port_lo + t / lc->nb_addrs)) == lc->queue;
}

/* How many tuples the round robin of lg_pick_tuple goes over. */
static uint32_t
lg_nb_pickable(const struct lg_lcore *lc)
{
	return lc->own_tuples != NULL ? lc->nb_own : lc->nb_tuples;
}

static uint32_t
lg_pick_tuple(struct lg_lcore *lc, uint32_t local)
{
	uint32_t t;

	if (local == UINT32_MAX) {
		/* round robin over all tuples (--rss-peer: those of our queue):
		 * a tuple is reused as late as possible, consecutive starts
		 * change address */
		for (unsigned int tries = 0; tries < 8; tries++) {
			uint32_t i = lc->tuple_cursor++;

			if (lc->tuple_cursor == lg_nb_pickable(lc))
				lc->tuple_cursor = 0;
			t = lc->own_tuples != NULL ? lc->own_tuples[i] : i;
			if (lc->tuple_map[t] == 0)
				return t;
		}
		return UINT32_MAX;
	}
	for (unsigned int tries = 0; tries < lc->nb_sports; tries++) {
		t = (lc->warm_port++ % lc->nb_sports) * lc->nb_addrs + local;
		if (lc->tuple_map[t] == 0 && lg_tuple_ours(lc, t))
			return t;
	}
	return UINT32_MAX;
}

/* Linux's SYN-data budget: the cached MSS less 40 bytes of options room. */
static uint32_t
lg_syn_budget(const struct lg_opts *o, const struct lg_addr *a)
{
	uint32_t mss = a->server_mss ? RTE_MIN(a->server_mss, o->mss) : o->mss;

	return mss > 40 ? mss - 40 : 0;
}

int
lg_start(struct lg_lcore *lc, enum lg_kind kind, uint32_t local, bool warmup,
	 uint64_t now)
{
	const struct lg_opts *o = lc->o;
	struct lg_conn *c;
	struct lg_addr *a;
	uint32_t slot, t;

	if (lc->nb_free == 0)
		return -EBUSY;
	t = lg_pick_tuple(lc, local);
	if (t == UINT32_MAX)
		return -EBUSY;
	slot = lc->free_head;
	c = &lc->conns[slot];
	lc->free_head = c->next_free;
	lc->nb_free--;

	local = t % lc->nb_addrs;
	a = &lc->addrs[local];
	if (kind == LG_KIND_TFO && a->cookie_len == 0)
		kind = LG_KIND_COOKIE_REQ;	/* as a real client would */

	memset(c, 0, sizeof(*c));
	c->state = LG_ST_SYN_SENT;
	c->kind = (uint8_t)kind;
	c->addr = local * lc->sh->nb_lcores + lc->idx;
	c->port_idx = lg_addr_port(lc->sh, c->addr);
	c->sport = (uint16_t)(o->port_lo + t / lc->nb_addrs);
	c->tuple = t;
	/* clock-driven ISN (64 ns ticks, like Linux) plus a constant per
	 * tuple: a reused tuple starts above its previous connection (within
	 * 137 s, also across runs), which a peer in TIME-WAIT needs */
	c->isn = (uint32_t)(now / lc->tsc_per_isn) +
		 (c->addr * 2654435761u ^ (uint32_t)c->sport * 40503u);
	c->txn_id = ((uint64_t)lc->idx << 48) | (lc->started + lc->stats.c[LG_STAT_warmup_started]);
	if (kind == LG_KIND_TFO || kind == LG_KIND_BAD_COOKIE)
		c->syn_data = RTE_MIN(o->request_len, lg_syn_budget(o, a));
	c->snd_una = c->isn;
	c->snd_nxt = c->isn + 1 + c->syn_data;
	c->snd_max = c->snd_nxt;
	c->start_tsc = now;
	c->deadline_tsc = now + lc->timeout_tsc;
	c->rto_tsc = now + lc->rto_tsc;
	lc->tuple_map[t] = (uint16_t)(slot + 1);

	if (warmup) {
		c->flags |= LG_F_WARMUP;
		a->warming = 1;
		a->warm_tries++;
		lc->warm_inflight++;
		LG_INC(&lc->stats, warmup_started);
	} else {
		LG_INC(&lc->stats, txn_started);
		if (kind == LG_KIND_COOKIE_REQ)
			LG_INC(&lc->stats, txn_cookie_req);
		else if (kind == LG_KIND_BAD_COOKIE)
			LG_INC(&lc->stats, txn_bad_cookie);
		else if (kind == LG_KIND_PLAIN)
			LG_INC(&lc->stats, txn_plain);
	}
	lg_send_syn(lc, c, true, now);
	return 0;
}

void
lg_flood_syn(struct lg_lcore *lc, uint64_t now)
{
	const struct lg_opts *o = lc->o;
	uint32_t nports = (uint32_t)(o->flood_hi - o->flood_lo) + 1;
	uint32_t local = lc->flood_cursor % lc->nb_addrs;
	uint32_t addr = local * lc->sh->nb_lcores + lc->idx;
	struct lg_addr *a = &lc->addrs[local];
	uint8_t opts[TFO_TCPOPT_MAX_LEN];
	uint32_t tsval = lg_tsval(lc, now);
	struct lg_seg s;

	/* valid cookie and data: each one that the server accepts holds a
	 * pending-TFO place until its SYN-ACKs time out */
	s.port_idx = lg_addr_port(lc->sh, addr);
	s.flags = TFO_TCP_SYN;
	s.opts = opts;
	s.opt_len = (uint8_t)lg_syn_opts(opts, o->mss, tsval,
					 a->cookie_len ? a->form : o->cookie_form,
					 a->cookie, a->cookie_len);
	s.sport = (uint16_t)(o->flood_lo + (lc->flood_cursor / lc->nb_addrs) % nports);
	s.window = 65535;
	s.addr = addr;
	s.seq = (uint32_t)lg_rand(lc);
	s.ack = 0;
	s.data_off = 0;
	s.data_len = a->cookie_len ? RTE_MIN(o->request_len, lg_syn_budget(o, a)) : 0;
	s.txn_id = 0;
	lc->flood_cursor++;
	if (lg_xmit(lc, &s) == 0)
		LG_INC(&lc->stats, flood_syn_tx);
}

bool
lg_spoof_match(const struct lg_opts *o, int family, const struct tfo_addr *x)
{
	unsigned int bits = o->spoof_prefix, i;

	if (!o->spoof || family != o->family)
		return false;
	for (i = 0; bits >= 8; i++, bits -= 8)
		if (x->b[i] != o->spoof_src.b[i])
			return false;
	return bits == 0 || ((x->b[i] ^ o->spoof_src.b[i]) & (uint8_t)(0xff00 >> bits)) == 0;
}

/* A plain SYN from a random address and port of the spoofed range. */
static int
lg_spoof_syn(struct lg_lcore *lc, uint64_t now)
{
	const struct lg_opts *o = lc->o;
	const struct lg_port *port;
	unsigned int alen = o->family == AF_INET ? 4 : 16, bits = o->spoof_prefix;
	uint32_t nports = (uint32_t)(o->spoof_port_hi - o->spoof_port_lo) + 1;
	uint64_t r1 = lg_rand(lc), r2 = lg_rand(lc);
	uint8_t opts[TFO_TCPOPT_MAX_LEN], rnd[16];
	uint8_t port_idx = (uint8_t)(r2 % lc->sh->nb_ports);
	struct tfo_tcp_out t;
	struct tfo_route r;
	struct rte_mbuf *m;

	port = &lc->sh->ports[port_idx];
	memcpy(rnd, &r1, 8);
	memcpy(rnd + 8, &r2, 8);
	memset(&r, 0, sizeof(r));
	r.peer_mac = port->server_mac;
	r.family = (uint8_t)o->family;
	r.port_idx = port_idx;
	r.peer = o->server;
	/* the prefix's bits, random ones below it */
	for (unsigned int i = 0; i < alen; i++) {
		unsigned int b = bits > i * 8 ? bits - i * 8 : 0;
		uint8_t mask = b >= 8 ? 0xff : (uint8_t)(0xff00 >> b);

		r.local.b[i] = (uint8_t)((o->spoof_src.b[i] & mask) | (rnd[i] & ~mask));
	}
	memset(&t, 0, sizeof(t));
	t.sport = (uint16_t)(o->spoof_port_lo + (uint32_t)(r1 >> 40) % nports);
	t.dport = o->server_port;
	t.seq = (uint32_t)(r2 >> 16);
	t.window = 65535;
	t.flags = TFO_TCP_SYN;
	t.opts = opts;
	t.opt_len = (uint8_t)lg_syn_opts(opts, o->mss, lg_tsval(lc, now), TFO_FORM_NONE, NULL, 0);
	m = rte_pktmbuf_alloc(lc->pool);
	if (unlikely(m == NULL)) {
		LG_INC(&lc->stats, mbuf_alloc_fail);
		return -ENOMEM;
	}
	if (unlikely(tfo_pkt_prepend_tcp(m, &port->info, &r, &t) < 0)) {
		rte_pktmbuf_free(m);
		LG_INC(&lc->stats, mbuf_alloc_fail);
		return -ENOSPC;
	}
	tfo_tx_push(&lc->tx, port_idx, m);
	return 0;
}

/* Push the SYNs owed: spaced by spoof_interval, or a burst when flat out. */
static unsigned int
lg_spoof_push(struct lg_lcore *lc, uint64_t now)
{
	unsigned int n = 0;

	if (lc->spoof_interval != 0) {
		if (lc->spoof_next_tsc == 0 ||
		    (int64_t)(now - lc->spoof_next_tsc) > (int64_t)(lc->tsc_hz / 100))
			lc->spoof_next_tsc = now;	/* the start, or after a stall */
		while (n < lc->o->burst && (int64_t)(now - lc->spoof_next_tsc) >= 0 &&
		       lg_spoof_syn(lc, now) == 0) {
			lc->spoof_next_tsc += lc->spoof_interval;
			n++;
		}
		return n;
	}
	while (n < lc->o->burst && lg_spoof_syn(lc, now) == 0)
		n++;
	return n;
}

unsigned int
lg_spoof_syns(struct lg_lcore *lc, uint64_t now)
{
	uint64_t *c = lc->stats.c, sent0, drop0;
	unsigned int n;

	/* the good clients' frames go first, the flood gets the room left;
	 * only the SYNs a port took count as sent */
	lg_tx_flush_all(lc);
	sent0 = c[LG_STAT_tx_pkts];
	drop0 = c[LG_STAT_tx_drop_full];
	n = lg_spoof_push(lc, now);
	lg_tx_flush_all(lc);
	c[LG_STAT_spoof_syn_tx] += c[LG_STAT_tx_pkts] - sent0;
	c[LG_STAT_spoof_tx_drop] += c[LG_STAT_tx_drop_full] - drop0;
	return n;
}

/* ---- receive --------------------------------------------------------------- */

/*
 * Compare @p len response bytes at offset @p pos of the response (frame
 * offset @p off of @p m) with what is expected. @return false (after
 * counting the error) on a mismatch.
 */
static bool
lg_check_response(struct lg_lcore *lc, const struct lg_conn *c,
		  const struct rte_mbuf *m, uint32_t off, uint32_t pos, uint32_t len)
{
	const struct lg_opts *o = lc->o;
	uint8_t buf[256];

	if (o->expect_len >= 0 && (uint64_t)pos + len > (uint64_t)o->expect_len) {
		LG_INC(&lc->stats, err_response_long);
		return false;
	}
	if (!o->expect_echo && pos >= o->expect_prefix_len)
		return true;
	while (len > 0) {
		uint32_t n = RTE_MIN(len, (uint32_t)sizeof(buf));
		const uint8_t *p = rte_pktmbuf_read(m, off, n, buf);

		if (p == NULL)
			return false;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t at = pos + i;
			bool ok = true;

			if (at < o->expect_prefix_len)
				ok = p[i] == o->expect_prefix[at];
			if (ok && o->expect_echo)
				ok = p[i] == lg_request_byte(o, c->txn_id, at);
			if (!ok) {
				LG_INC(&lc->stats, err_response_mismatch);
				return false;
			}
		}
		off += n;
		pos += n;
		len -= n;
	}
	return true;
}

static void
lg_resp_done(struct lg_lcore *lc, struct lg_conn *c, uint64_t now)
{
	c->flags |= LG_F_RESP_DONE;
	LG_INC(&lc->stats, responses_validated);
	if (!(c->flags & LG_F_WARMUP)) {
		lg_hist_add(&lc->hist, now - c->start_tsc);
		lg_hist_add(&lc->hist_kind[c->kind], now - c->start_tsc);
		lc->last_done_tsc = now;
	}
}

/*
 * The payload and FIN of a segment whose first payload byte has sequence
 * number @p seq. @return false if the transaction failed (already freed).
 */
static bool
lg_rcv(struct lg_lcore *lc, struct lg_conn *c, const struct rte_mbuf *m,
       const struct tfo_pkt *p, uint32_t seq, bool fin, uint64_t now)
{
	const struct lg_opts *o = lc->o;
	uint32_t len = p->payload_len;

	if (len > 0) {
		int32_t d = (int32_t)(seq - c->rcv_nxt);

		c->flags |= LG_F_ACK_NOW;
		if (d > 0) {
			LG_INC(&lc->stats, rx_ooo);
			return true;
		}
		if ((int64_t)d + len <= 0) {
			LG_INC(&lc->stats, rx_dup_data);
		} else {
			uint32_t skip = (uint32_t)-d, take = len - skip;

			if (c->flags & LG_F_FIN_RCVD) {
				/* data beyond the FIN the server sent */
				lg_fail(lc, c, LG_STAT_err_response_long, true, now);
				return false;
			}
			if (!lg_check_response(lc, c, m, p->payload_off + skip,
					       c->resp_len, take)) {
				lg_fail(lc, c, LG_STAT_MAX, true, now);
				return false;
			}
			c->resp_len += take;
			c->rcv_nxt += take;
			LG_ADD(&lc->stats, response_bytes, take);
		}
	}
	if (fin) {
		c->flags |= LG_F_ACK_NOW;
		if (seq + len == c->rcv_nxt && !(c->flags & LG_F_FIN_RCVD)) {
			c->flags |= LG_F_FIN_RCVD;
			c->rcv_nxt++;
		}
	}
	if (!(c->flags & LG_F_RESP_DONE)) {
		if (o->expect_len >= 0 && c->resp_len == (uint64_t)o->expect_len) {
			lg_resp_done(lc, c, now);
		} else if (c->flags & LG_F_FIN_RCVD) {
			if (o->expect_len >= 0 || c->resp_len < o->expect_prefix_len) {
				lg_fail(lc, c, LG_STAT_err_response_short, true, now);
				return false;
			}
			lg_resp_done(lc, c, now);
		}
	}
	return true;
}

static void
lg_learn_cookie(struct lg_lcore *lc, struct lg_addr *a, const struct tfo_tcpopts *op)
{
	if (a->cookie_len == 0)
		LG_INC(&lc->stats, cookies_learned);
	else if (a->cookie_len != op->cookie_len ||
		 memcmp(a->cookie, op->cookie, op->cookie_len) != 0 ||
		 a->form != op->form)
		LG_INC(&lc->stats, cookies_replaced);
	memcpy(a->cookie, op->cookie, op->cookie_len);
	a->cookie_len = op->cookie_len;
	a->form = op->form;
}

static void
lg_synack(struct lg_lcore *lc, struct lg_conn *c, const struct rte_mbuf *m,
	  const struct tfo_pkt *p, const struct tfo_tcpopts *op, uint64_t now)
{
	const struct lg_opts *o = lc->o;
	struct lg_addr *a = lg_conn_addr(lc, c);
	uint32_t acked = p->ack - (c->isn + 1);
	bool data_acked, warm = c->flags & LG_F_WARMUP;
	uint16_t mss;

	if ((p->tcp_flags & (TFO_TCP_SYN | TFO_TCP_ACK)) != (TFO_TCP_SYN | TFO_TCP_ACK)) {
		if (p->tcp_flags & TFO_TCP_ACK) {
			/* RFC 9293 3.10.7.3: an ACK that does not answer our SYN
			 * (a server's TIME-WAIT entry of this tuple that refused
			 * it) gets an RST; our SYN retransmission then gets
			 * through, as a Linux client's does */
			lg_send(lc, c, TFO_TCP_RST, p->ack, 0, now);
			LG_INC(&lc->stats, rst_tx_synsent);
		} else {
			LG_INC(&lc->stats, rx_no_conn);
		}
		return;
	}
	if (acked == 0) {
		data_acked = false;
	} else if (acked == c->syn_data && c->syn_data > 0) {
		data_acked = true;
	} else {
		lg_fail(lc, c, LG_STAT_err_synack_ack, true, now);
		return;
	}
	if (op->has_ts) {
		if (tfo_seq_lt(op->tsecr, c->syn_tsval_first) ||
		    tfo_seq_gt(op->tsecr, c->syn_tsval_last)) {
			lg_fail(lc, c, LG_STAT_err_synack_tsecr, true, now);
			return;
		}
		c->flags |= LG_F_TS;
		c->ts_recent = op->tsval;
	}
	if (p->payload_len > 0 && c->kind == LG_KIND_PLAIN) {
		lg_fail(lc, c, LG_STAT_err_synack_data_plain, true, now);
		return;
	}
	if (op->has_wscale) {
		c->flags |= LG_F_WS;
		c->snd_wscale = op->wscale;
	}
	c->snd_wnd = p->window;
	mss = op->has_mss ? op->mss : (o->family == AF_INET ? 536 : 1220);
	a->server_mss = mss;
	mss = RTE_MIN(mss, o->mss);
	c->snd_mss = (uint16_t)(mss - ((c->flags & LG_F_TS) ? 12 : 0));

	if (op->cookie_state == TFO_COOKIE_PRESENT)
		lg_learn_cookie(lc, a, op);
	else if (op->cookie_state == TFO_COOKIE_INVALID)
		LG_INC(&lc->stats, cookie_bad_len);
	else if (c->kind == LG_KIND_COOKIE_REQ)
		LG_INC(&lc->stats, cookie_not_offered);

	if (c->syn_data > 0) {
		if (data_acked) {
			if (c->kind == LG_KIND_BAD_COOKIE)
				LG_INC(&lc->stats, err_bad_cookie_accepted);
			else if (!warm)
				LG_INC(&lc->stats, txn_tfo);
		} else if (!(c->flags & LG_F_SYN_REXMIT)) {
			if (c->kind == LG_KIND_BAD_COOKIE)
				LG_INC(&lc->stats, fallbacks_bad_cookie);
			else
				LG_INC(&lc->stats, fallbacks);
		}
	}

	c->state = LG_ST_OPEN;
	c->irs = p->seq;
	c->rcv_nxt = p->seq + 1;
	/* after a fallback the whole request goes again, at once, as Linux
	 * does */
	c->snd_una = p->ack;
	c->snd_nxt = p->ack;
	c->snd_max = p->ack;
	c->retries = 0;
	c->backoff = 0;
	c->rto_tsc = 0;
	c->flags |= LG_F_ACK_NOW;
	if (p->payload_len > 0)
		LG_INC(&lc->stats, synack_data);
	if (p->tcp_flags & TFO_TCP_FIN)
		LG_INC(&lc->stats, synack_fin);
	if (!lg_rcv(lc, c, m, p, p->seq + 1, p->tcp_flags & TFO_TCP_FIN, now))
		return;
	lg_mark(lc, c, now);
}

static void
lg_segment(struct lg_lcore *lc, struct lg_conn *c, const struct rte_mbuf *m,
	   const struct tfo_pkt *p, const struct tfo_tcpopts *op, uint64_t now)
{
	if (p->tcp_flags & TFO_TCP_SYN) {
		/* our ACK of the SYN-ACK got lost, or crossed it */
		LG_INC(&lc->stats, rx_dup_synack);
		c->flags |= LG_F_ACK_NOW;
		lg_mark(lc, c, now);
		return;
	}
	if (!(p->tcp_flags & TFO_TCP_ACK))
		return;
	if (tfo_seq_gt(p->ack, c->snd_max)) {
		lg_fail(lc, c, LG_STAT_err_ack_unsent, true, now);
		return;
	}
	if (tfo_seq_gt(p->ack, c->snd_nxt))
		c->snd_nxt = p->ack;	/* acked while we were going back */
	if ((c->flags & LG_F_TS) && op->has_ts && !tfo_seq_gt(p->seq, c->rcv_nxt))
		c->ts_recent = op->tsval;
	if (tfo_seq_gt(p->ack, c->snd_una)) {
		c->snd_una = p->ack;
		c->retries = 0;
		c->backoff = 0;
		c->rto_tsc = 0;	/* re-armed by the output if data is still out */
		if ((c->flags & LG_F_FIN_SENT) && c->snd_una == c->snd_nxt)
			c->flags |= LG_F_FIN_ACKED;
		lg_mark(lc, c, now);
	}
	c->snd_wnd = (uint32_t)p->window << ((c->flags & LG_F_WS) ? c->snd_wscale : 0);
	if (!lg_rcv(lc, c, m, p, p->seq, p->tcp_flags & TFO_TCP_FIN, now))
		return;
	if (c->flags & LG_F_ACK_NOW)
		lg_mark(lc, c, now);
}

static void
lg_tcp_input(struct lg_lcore *lc, const struct rte_mbuf *m, const struct tfo_pkt *p,
	     uint32_t addr, uint64_t now)
{
	const struct lg_opts *o = lc->o;
	struct tfo_tcpopts op;
	struct lg_conn *c;
	uint32_t local = addr / lc->sh->nb_lcores, t;
	uint16_t slot;

	if (p->dport >= o->flood_lo && p->dport <= o->flood_hi) {
		LG_INC(&lc->stats, flood_rx);
		return;
	}
	if (p->dport < o->port_lo || p->dport > o->port_hi ||
	    p->sport != o->server_port ||
	    memcmp(p->src.b, o->server.b, o->family == AF_INET ? 4 : 16) != 0) {
		LG_INC(&lc->stats, rx_no_conn);
		return;
	}
	t = (uint32_t)(p->dport - o->port_lo) * lc->nb_addrs + local;
	slot = lc->tuple_map[t];
	if (slot == 0) {
		LG_INC(&lc->stats, rx_no_conn);
		return;
	}
	c = &lc->conns[slot - 1];
	tfo_tcpopt_parse(tfo_pkt_tcp_hdr(m, p) + 20, p->l4_len - 20u, &op);
	if (p->tcp_flags & TFO_TCP_RST) {
		/* RFC 9293: in SYN-SENT an RST counts if it acks our SYN; later
		 * if it is in the window */
		if (c->state == LG_ST_SYN_SENT ?
		    ((p->tcp_flags & TFO_TCP_ACK) && !tfo_seq_lt(p->ack, c->isn + 1) &&
		     !tfo_seq_gt(p->ack, c->isn + 1 + c->syn_data)) :
		    !tfo_seq_lt(p->seq, c->rcv_nxt) &&
		    tfo_seq_lt(p->seq, c->rcv_nxt + LG_RCV_WND))
			lg_fail(lc, c, LG_STAT_err_rst_rx, false, now);
		return;
	}
	if (c->state == LG_ST_SYN_SENT)
		lg_synack(lc, c, m, p, &op, now);
	else
		lg_segment(lc, c, m, p, &op, now);
}

/* ---- frames -------------------------------------------------------------- */

enum lg_rx_kind {
	LG_RX_TCP,		/**< TCP to a client address: its owner handles it */
	LG_RX_LOCAL,		/**< ARP, ND, anything else: handled here */
	LG_RX_NOT_OURS,
	LG_RX_SPOOF,		/**< to a spoofed source: counted, never answered */
};

/*
 * tfo_pkt_match_local matches a port's (at most 8) addresses exactly, but
 * the clients are a range of up to 65536. So look at the destination first
 * (the NS target for a solicitation to a multicast group), parse, then
 * match against a copy of the port whose one address is that destination:
 * the MAC and source checks still hold.
 */
static enum lg_rx_kind
lg_rx_peek(const struct lg_opts *o, const struct rte_mbuf *m, struct tfo_addr *dst,
	   int64_t *idx, bool *known)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = m->data_len;
	uint16_t type;
	uint8_t proto;
	int family;

	*idx = -1;
	*known = false;
	if (len < RTE_ETHER_HDR_LEN)
		return LG_RX_LOCAL;
	type = (uint16_t)(d[12] << 8 | d[13]);
	memset(dst, 0, sizeof(*dst));
	if (type == RTE_ETHER_TYPE_IPV4) {
		if (len < RTE_ETHER_HDR_LEN + 20)
			return LG_RX_LOCAL;
		family = AF_INET;
		memcpy(dst->b, d + RTE_ETHER_HDR_LEN + 16, 4);
		proto = d[RTE_ETHER_HDR_LEN + 9];
	} else if (type == RTE_ETHER_TYPE_IPV6) {
		const uint8_t *icmp = d + RTE_ETHER_HDR_LEN + 40;

		if (len < RTE_ETHER_HDR_LEN + 40)
			return LG_RX_LOCAL;
		family = AF_INET6;
		memcpy(dst->b, d + RTE_ETHER_HDR_LEN + 24, 16);
		proto = d[RTE_ETHER_HDR_LEN + 6];
		if (dst->b[0] == 0xff && proto == IPPROTO_ICMPV6 &&
		    len >= RTE_ETHER_HDR_LEN + 40 + 24 && icmp[0] == 135)
			memcpy(dst->b, icmp + 8, 16);
	} else {
		return LG_RX_LOCAL;	/* ARP, or a drop the parser counts */
	}
	*idx = lg_addr_index(o, family, dst);
	if (*idx >= 0) {
		*known = true;
		return proto == IPPROTO_TCP ? LG_RX_TCP : LG_RX_LOCAL;
	}
	if (o->alias_set && family == o->family &&
	    memcmp(dst->b, o->alias.b, family == AF_INET ? 4 : 16) == 0) {
		*known = true;
		return LG_RX_LOCAL;
	}
	if (proto == IPPROTO_TCP && lg_spoof_match(o, family, dst))
		return LG_RX_SPOOF;
	return LG_RX_NOT_OURS;
}

static enum tfo_pkt_class
lg_parse(struct lg_lcore *lc, const struct rte_mbuf *m, uint8_t port_idx,
	 const struct tfo_addr *dst, bool known, struct tfo_pkt *p)
{
	struct tfo_port_info *pi = &lc->match_port[port_idx];

	pi->nb_addrs = known ? 1 : 0;
	if (known) {
		pi->addrs[0].family = (uint8_t)lc->o->family;
		pi->addrs[0].addr = *dst;
	}
	tfo_pkt_parse(m, pi->rx_cksum_offload, p);
	if (tfo_pkt_match_local(pi, m, p) == TFO_PKT_DROP)
		lc->stats.c[LG_STAT_PKT_DROP_BASE + p->drop]++;
	return (enum tfo_pkt_class)p->cls;
}

/* A TCP segment for an address of this lcore. */
static void
lg_rx_owned(struct lg_lcore *lc, struct rte_mbuf *m, uint8_t port_idx,
	    const struct tfo_addr *dst, uint32_t idx, uint64_t now)
{
	struct tfo_pkt p;

	if (lg_parse(lc, m, port_idx, dst, true, &p) == TFO_PKT_TCP)
		lg_tcp_input(lc, m, &p, idx, now);
	rte_pktmbuf_free(m);
}

/* A TCP segment to a spoofed source: the flags are all that counts (the
 * headers were bounds-checked by lg_rx_peek up to the IP header). */
static void
lg_spoof_input(struct lg_lcore *lc, struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t off = RTE_ETHER_HDR_LEN;

	off += lc->o->family == AF_INET ? (uint32_t)(d[off] & 0x0f) * 4 : 40;
	if (m->data_len >= off + 14 &&
	    (d[off + 13] & (TFO_TCP_SYN | TFO_TCP_ACK)) == (TFO_TCP_SYN | TFO_TCP_ACK))
		LG_INC(&lc->stats, spoof_synack_rx);
	else
		LG_INC(&lc->stats, spoof_rx_other);
	rte_pktmbuf_free(m);
}

void
lg_rx_frame(struct lg_lcore *lc, struct rte_mbuf *m, uint8_t port_idx, uint64_t now)
{
	struct tfo_addr dst;
	struct tfo_pkt p;
	int64_t idx;
	bool known;

	switch (lg_rx_peek(lc->o, m, &dst, &idx, &known)) {
	case LG_RX_TCP: {
		unsigned int owner = lg_addr_owner(lc->sh, (uint32_t)idx);

		if (owner == lc->idx) {
			lg_rx_owned(lc, m, port_idx, &dst, (uint32_t)idx, now);
			return;
		}
		LG_INC(&lc->stats, rx_handoff);
		if (rte_ring_sp_enqueue(lc->sh->handoff[lc->idx][owner], m) != 0) {
			LG_INC(&lc->stats, rx_handoff_drop);
			rte_pktmbuf_free(m);
		}
		return;
	}
	case LG_RX_NOT_OURS:
		LG_INC(&lc->stats, rx_not_ours);
		rte_pktmbuf_free(m);
		return;
	case LG_RX_SPOOF:
		lg_spoof_input(lc, m);
		return;
	default:
		break;
	}
	switch (lg_parse(lc, m, port_idx, &dst, known, &p)) {
	case TFO_PKT_ARP:
		lg_arp_input(lc, m, &p, port_idx);
		return;
	case TFO_PKT_ICMP6:
		lg_icmp6_input(lc, m, &p, port_idx);
		return;
	case TFO_PKT_DROP:
		break;
	default:
		LG_INC(&lc->stats, rx_other);
		break;
	}
	rte_pktmbuf_free(m);
}

/* ---- output and timers -------------------------------------------------- */

/* Send what @p c owes: request data within the window, our FIN once the
 * response is complete, or an ACK. Completes the transaction when the FIN
 * exchange is over. */
static void
lg_output(struct lg_lcore *lc, struct lg_conn *c, uint64_t now)
{
	uint32_t req_end = c->isn + 1 + lc->o->request_len;
	bool sent = false;

	while (tfo_seq_lt(c->snd_nxt, req_end)) {
		uint32_t wnd_end = c->snd_una + c->snd_wnd;
		uint32_t n = req_end - c->snd_nxt;
		uint8_t fl = TFO_TCP_ACK;

		if (!tfo_seq_lt(c->snd_nxt, wnd_end))
			break;
		n = RTE_MIN(n, (uint32_t)c->snd_mss);
		n = RTE_MIN(n, wnd_end - c->snd_nxt);
		if (c->snd_nxt + n == req_end) {
			fl |= TFO_TCP_PSH;
			if ((c->flags & (LG_F_RESP_DONE | LG_F_FIN_SENT)) == LG_F_RESP_DONE)
				fl |= TFO_TCP_FIN;
		}
		lg_send(lc, c, fl, c->snd_nxt, n, now);
		c->snd_nxt += n;
		if (fl & TFO_TCP_FIN) {
			c->snd_nxt++;
			c->flags |= LG_F_FIN_SENT;
		}
		sent = true;
	}
	if ((c->flags & (LG_F_RESP_DONE | LG_F_FIN_SENT)) == LG_F_RESP_DONE &&
	    c->snd_nxt == req_end) {
		lg_send(lc, c, TFO_TCP_FIN | TFO_TCP_ACK, c->snd_nxt, 0, now);
		c->snd_nxt++;
		c->flags |= LG_F_FIN_SENT;
		sent = true;
	}
	if (!sent && (c->flags & LG_F_ACK_NOW))
		lg_send(lc, c, TFO_TCP_ACK, c->snd_nxt, 0, now);
	c->flags &= (uint16_t)~LG_F_ACK_NOW;
	if (tfo_seq_gt(c->snd_nxt, c->snd_max))
		c->snd_max = c->snd_nxt;
	if (c->snd_una != c->snd_nxt && c->rto_tsc == 0)
		c->rto_tsc = now + (lc->rto_tsc << c->backoff);
	if ((c->flags & (LG_F_FIN_SENT | LG_F_FIN_ACKED | LG_F_FIN_RCVD | LG_F_RESP_DONE)) ==
	    (LG_F_FIN_SENT | LG_F_FIN_ACKED | LG_F_FIN_RCVD | LG_F_RESP_DONE))
		lg_complete(lc, c);
}

void
lg_output_pending(struct lg_lcore *lc, uint64_t now)
{
	uint32_t n = lc->nb_pending;

	lc->nb_pending = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct lg_conn *c = &lc->conns[lc->pending[i]];

		if (c->state == LG_ST_FREE || !(c->flags & LG_F_PENDING))
			continue;
		c->flags &= (uint16_t)~LG_F_PENDING;
		lg_output(lc, c, now);
	}
}

static void
lg_retransmit(struct lg_lcore *lc, struct lg_conn *c, uint64_t now)
{
	uint32_t req_end = c->isn + 1 + lc->o->request_len;

	if (++c->retries > lc->o->retries) {
		enum lg_stat_id id = c->state == LG_ST_SYN_SENT ? LG_STAT_err_timeout_syn :
				     tfo_seq_lt(c->snd_una, req_end) ? LG_STAT_err_timeout_data :
				     LG_STAT_err_timeout_fin;

		lg_fail(lc, c, id, true, now);
		return;
	}
	if (c->backoff < LG_BACKOFF_MAX)
		c->backoff++;
	c->rto_tsc = 0;
	if (c->state == LG_ST_SYN_SENT) {
		/* as Linux: the SYN again without data; the data follows the
		 * handshake (the SYN-ACK may still ack the first SYN's data) */
		c->flags |= LG_F_SYN_REXMIT;
		lg_send_syn(lc, c, false, now);
		c->rto_tsc = now + (lc->rto_tsc << c->backoff);
		LG_INC(&lc->stats, syn_retransmits);
		return;
	}
	if (tfo_seq_lt(c->snd_una, req_end))
		LG_INC(&lc->stats, data_retransmits);
	else
		LG_INC(&lc->stats, fin_retransmits);
	/* go back to the first unacknowledged byte (or the FIN) */
	c->snd_nxt = c->snd_una;
	c->flags &= (uint16_t)~LG_F_FIN_SENT;
	lg_output(lc, c, now);
}

void
lg_timers(struct lg_lcore *lc, uint64_t now, uint32_t max_slots)
{
	uint32_t n = RTE_MIN(max_slots, lc->nb_conns);

	for (uint32_t i = 0; i < n; i++) {
		struct lg_conn *c = &lc->conns[lc->sweep];

		if (++lc->sweep == lc->nb_conns)
			lc->sweep = 0;
		if (c->state == LG_ST_FREE)
			continue;
		if (now >= c->deadline_tsc)
			lg_fail(lc, c, LG_STAT_err_timeout_txn, true, now);
		else if (c->rto_tsc != 0 && now >= c->rto_tsc)
			lg_retransmit(lc, c, now);
	}
}

/* ---- phases -------------------------------------------------------------- */

static unsigned int
lg_warmup_starts(struct lg_lcore *lc, uint64_t now)
{
	unsigned int started = 0, scanned = 0;

	while (lc->nb_free > 0 && started < lc->o->burst && scanned < lc->o->burst * 2u) {
		uint32_t local = lc->warm_cursor;
		struct lg_addr *a = &lc->addrs[local];

		if (++lc->warm_cursor == lc->nb_addrs)
			lc->warm_cursor = 0;
		scanned++;
		if (a->cookie_len != 0 || a->warming || a->warm_tries >= LG_WARM_TRIES)
			continue;
		if (lg_start(lc, LG_KIND_COOKIE_REQ, local, true, now) < 0)
			break;
		started++;
	}
	if (started == 0 && lc->warm_inflight == 0) {
		/* done when no address is left to try */
		bool left = false;

		for (uint32_t i = 0; i < lc->nb_addrs && !left; i++)
			left = lc->addrs[i].cookie_len == 0 &&
			       lc->addrs[i].warm_tries < LG_WARM_TRIES;
		if (!left)
			lc->warm_done = 1;
	}
	return started;
}

/* The kind of a start that is not a flood SYN: the other shares are of all
 * starts, so they are drawn from what the flood leaves. */
static enum lg_kind
lg_pick_kind(struct lg_lcore *lc)
{
	const struct lg_opts *o = lc->o;
	uint32_t r;

	if (o->bp_flood >= 10000)
		return LG_KIND_TFO;	/* not reached: every start is a flood SYN */
	r = (uint32_t)(lg_rand(lc) >> 32) % (10000 - o->bp_flood);
	if (r < o->bp_bad_cookie)
		return LG_KIND_BAD_COOKIE;
	r -= o->bp_bad_cookie;
	if (r < o->bp_no_tfo)
		return LG_KIND_PLAIN;
	r -= o->bp_no_tfo;
	if (r < o->bp_cookie_req)
		return LG_KIND_COOKIE_REQ;
	return LG_KIND_TFO;
}

unsigned int
lg_starts(struct lg_lcore *lc, int phase, uint64_t now)
{
	const struct lg_opts *o = lc->o;
	unsigned int n = 0;

	if (phase == LG_PHASE_WARMUP)
		return lc->warm_done ? 0 : lg_warmup_starts(lc, now);
	if (phase != LG_PHASE_RUN || lc->run_done)
		return 0;
	if (lc->run_start_tsc == 0) {
		lc->run_start_tsc = now;
		lc->next_start_tsc = now;
	}
	if (lc->rate_interval != 0 && now - lc->next_start_tsc > lc->tsc_hz / 100 &&
	    (int64_t)(now - lc->next_start_tsc) > 0)
		lc->next_start_tsc = now - lc->tsc_hz / 100;	/* no bursts after a stall */
	while (n < o->burst) {
		if (lc->started >= lc->quota) {
			lc->run_done = 1;
			break;
		}
		if (lc->rate_interval != 0 && (int64_t)(now - lc->next_start_tsc) < 0)
			break;
		if (lg_flood_due(lc->flood_started, lc->started, o->bp_flood)) {
			lg_flood_syn(lc, now);
			lc->flood_started++;
		} else if (lg_start(lc, lg_pick_kind(lc), UINT32_MAX, false, now) < 0) {
			if (lc->rate_interval != 0)
				LG_INC(&lc->stats, start_no_slot);
			break;
		}
		lc->started++;
		lc->next_start_tsc += lc->rate_interval;
		n++;
	}
	return n;
}

/* ---- the loop ------------------------------------------------------------ */

static void
lg_tx_flush(struct tfo_tx *tx, uint8_t port_idx)
{
	struct lg_lcore *lc = tx->arg;
	struct tfo_tx_q *q = &tx->q[port_idx];
	uint16_t port_id = lc->sh->ports[port_idx].info.port_id;
	uint16_t sent = 0, n = q->n;
	uint32_t len[TFO_TX_BUF];

	/* read before the device owns them (tfo_tx_burst says why) */
	for (uint16_t i = 0; i < n; i++)
		len[i] = q->pkts[i]->pkt_len;
	for (int tries = 0; tries < 4 && sent < n; tries++)
		sent = (uint16_t)(sent + rte_eth_tx_burst(port_id, lc->queue,
							  q->pkts + sent,
							  (uint16_t)(n - sent)));
	for (uint16_t i = 0; i < sent; i++)
		LG_ADD(&lc->stats, tx_bytes, len[i]);
	LG_ADD(&lc->stats, tx_pkts, sent);
	if (unlikely(sent < n)) {
		LG_ADD(&lc->stats, tx_drop_full, n - sent);
		rte_pktmbuf_free_bulk(q->pkts + sent, n - sent);
	}
	q->n = 0;
}

void
lg_tx_flush_all(struct lg_lcore *lc)
{
	for (uint8_t i = 0; i < lc->sh->nb_ports; i++)
		if (lc->tx.q[i].n != 0)
			lc->tx.flush(&lc->tx, i);
}

static void
lg_count_missing_cookies(struct lg_lcore *lc)
{
	for (uint32_t i = 0; i < lc->nb_addrs; i++)
		if (lc->addrs[i].cookie_len == 0)
			LG_INC(&lc->stats, err_warmup_no_cookie);
}

unsigned int
lg_poll(struct lg_lcore *lc, uint64_t now)
{
	struct lg_shared *sh = lc->sh;
	struct rte_mbuf *pkts[TFO_TX_BUF];
	unsigned int total = 0;
	int phase = sh->phase;

	for (uint8_t pi = 0; pi < sh->nb_ports; pi++) {
		for (uint16_t qi = 0; qi < lc->nb_rx_queues; qi++) {
			uint16_t n = rte_eth_rx_burst(sh->ports[pi].info.port_id,
						      lc->rx_queues[qi], pkts,
						      (uint16_t)lc->o->burst);

			for (uint16_t i = 0; i < n; i++) {
				if (i + 1 < n)
					rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
				LG_ADD(&lc->stats, rx_bytes, pkts[i]->pkt_len);
				lg_rx_frame(lc, pkts[i], pi, now);
			}
			LG_ADD(&lc->stats, rx_pkts, n);
			total += n;
			lg_output_pending(lc, now);
		}
	}
	for (unsigned int src = 0; src < sh->nb_lcores; src++) {
		unsigned int n;

		if (src == lc->idx)
			continue;
		n = rte_ring_sc_dequeue_burst(sh->handoff[src][lc->idx], (void **)pkts,
					      lc->o->burst, NULL);
		for (unsigned int i = 0; i < n; i++) {
			struct tfo_addr dst;
			int64_t idx;
			bool known;

			lg_rx_peek(lc->o, pkts[i], &dst, &idx, &known);
			lg_rx_owned(lc, pkts[i], (uint8_t)sh->port_idx_of[pkts[i]->port],
				    &dst, (uint32_t)idx, now);
		}
		lg_output_pending(lc, now);
	}

	if (phase == LG_PHASE_RESOLVE && lc->idx == 0 && now >= lc->next_resolve_tsc) {
		for (uint8_t pi = 0; pi < sh->nb_ports; pi++)
			if (!sh->ports[pi].resolved)
				lg_resolve_send(lc, pi);
		lc->next_resolve_tsc = now + lc->tsc_hz / 5;
	}
	if (phase >= LG_PHASE_RUN && !lc->warm_counted) {
		lc->warm_counted = true;
		if (lc->o->warmup_timeout_s > 0)
			lg_count_missing_cookies(lc);
	}
	lg_timers(lc, now, 64);
	lg_starts(lc, phase, now);
	if (phase == LG_PHASE_RUN && lc->o->spoof && !lc->run_done)
		lg_spoof_syns(lc, now);
	lg_tx_flush_all(lc);

	lc->inflight = lc->nb_conns - lc->nb_free;
	if (phase == LG_PHASE_DRAIN && lc->inflight == 0)
		lc->drained = 1;
	return total;
}

int
lg_lcore_main(void *arg)
{
	struct lg_lcore *lc = arg;

	while (lc->sh->phase != LG_PHASE_DONE)
		lg_poll(lc, rte_rdtsc());
	lg_tx_flush_all(lc);
	return 0;
}

/* ---- set-up -------------------------------------------------------------- */

/*
 * --rss-peer: the tuples whose flow the server's hash puts on this
 * lcore's queue pair, about 1/L of them; the others would reach another
 * worker than the queue they were sent on says.
 */
static int
lg_own_tuples(struct lg_lcore *lc, int socket, char *err, size_t errlen)
{
	lc->own_tuples = rte_malloc_socket("lg_own", sizeof(*lc->own_tuples) * lc->nb_tuples,
					   RTE_CACHE_LINE_SIZE, socket);
	if (lc->own_tuples == NULL)
		return tfo_errmsg(err, errlen, "out of memory for lcore %u's %u tuples: raise -m",
				  lc->idx, lc->nb_tuples);
	lc->nb_own = 0;
	for (uint32_t t = 0; t < lc->nb_tuples; t++)
		if (lg_tuple_ours(lc, t))
			lc->own_tuples[lc->nb_own++] = t;
	if (lc->nb_own < 2 * lc->nb_conns)
		return tfo_errmsg(err, errlen, "--concurrency %u: the server's hash gives lcore "
				  "%u's queue only %u of its %u (address, port) tuples; want at "
				  "least twice the concurrency (more --clients or --client-ports)",
				  lc->nb_conns, lc->idx, lc->nb_own, lc->nb_tuples);
	return 0;
}

int
lg_lcore_init(struct lg_lcore *lc, unsigned int idx, const struct lg_opts *o,
	      struct lg_shared *sh, struct rte_mempool *pool, int socket,
	      char *err, size_t errlen)
{
	unsigned int L = sh->nb_lcores;
	uint64_t hz = rte_get_tsc_hz();

	memset(lc, 0, offsetof(struct lg_lcore, pending));
	lc->idx = idx;
	lc->queue = (uint16_t)idx;
	lc->rx_queues[lc->nb_rx_queues++] = lc->queue;
	for (uint16_t c = 0; o->rss_peer && c < o->peer_controls; c++)
		if (c % L == idx)
			lc->rx_queues[lc->nb_rx_queues++] = (uint16_t)(L + c);
	lc->o = o;
	lc->sh = sh;
	lc->pool = pool;
	lc->tx.flush = lg_tx_flush;
	lc->tx.arg = lc;
	for (uint16_t p = 0; p < sh->nb_ports; p++) {
		lc->match_port[p] = sh->ports[p].info;
		lc->match_port[p].addr_base = 0;
		lc->match_port[p].addrs[0].prefix_len = o->family == AF_INET ? 32 : 128;
	}

	lc->nb_addrs = o->nb_clients / L + (idx < o->nb_clients % L ? 1 : 0);
	lc->nb_sports = (uint16_t)(o->port_hi - o->port_lo + 1);
	lc->nb_tuples = lc->nb_addrs * lc->nb_sports;
	lc->nb_conns = o->concurrency;
	if (lc->nb_addrs == 0) {
		snprintf(err, errlen, "--clients %u: fewer client addresses than the %u "
			 "generator lcores", o->nb_clients, L);
		return -EINVAL;
	}
	if (lc->nb_tuples < 2 * lc->nb_conns) {
		snprintf(err, errlen, "--concurrency %u: lcore %u has only %u (address, port) "
			 "tuples; want at least twice as many (more --clients or "
			 "--client-ports)", o->concurrency, idx, lc->nb_tuples);
		return -EINVAL;
	}
	lc->addrs = rte_zmalloc_socket("lg_addrs", sizeof(*lc->addrs) * lc->nb_addrs,
				       RTE_CACHE_LINE_SIZE, socket);
	lc->tuple_map = rte_zmalloc_socket("lg_tuples", sizeof(*lc->tuple_map) * lc->nb_tuples,
					   RTE_CACHE_LINE_SIZE, socket);
	lc->conns = rte_zmalloc_socket("lg_conns", sizeof(*lc->conns) * lc->nb_conns,
				       RTE_CACHE_LINE_SIZE, socket);
	if (lc->addrs == NULL || lc->tuple_map == NULL || lc->conns == NULL) {
		lg_lcore_free(lc);
		snprintf(err, errlen, "out of memory for lcore %u's tables (%u addresses, "
			 "%u tuples, %u slots): raise -m", idx, lc->nb_addrs,
			 lc->nb_tuples, lc->nb_conns);
		return -ENOMEM;
	}
	if (o->rss_peer) {
		int rc = lg_own_tuples(lc, socket, err, errlen);

		if (rc < 0) {
			lg_lcore_free(lc);
			return rc;
		}
	}
	for (uint32_t i = 0; i < lc->nb_conns; i++)
		lc->conns[i].next_free = i + 1 < lc->nb_conns ? i + 1 : LG_NO_SLOT;
	lc->free_head = 0;
	lc->nb_free = lc->nb_conns;
	lc->tuple_cursor = (uint32_t)((uint64_t)idx * 7919 % lg_nb_pickable(lc));

	lc->tsc_hz = hz;
	lc->tsc_per_ms = RTE_MAX(hz / 1000, (uint64_t)1);
	lc->tsc_per_isn = RTE_MAX(hz / 15625000, (uint64_t)1);
	lc->rto_tsc = (uint64_t)o->rto_ms * lc->tsc_per_ms;
	lc->timeout_tsc = (uint64_t)o->timeout_ms * lc->tsc_per_ms;
	lc->rng = rte_rdtsc() ^ ((uint64_t)(idx + 1) * 0x9E3779B97F4A7C15ull);
	if (lc->rng == 0)
		lc->rng = 1;

	lc->quota = UINT64_MAX;
	if (o->count != 0)
		lc->quota = o->count / L + (idx < o->count % L ? 1 : 0);
	if (o->rate != 0) {
		/* each lcore's share of the rate */
		double per = (double)o->rate / L;

		lc->rate_interval = RTE_MAX((uint64_t)((double)hz / per), (uint64_t)1);
	}
	if (o->spoof && o->spoof_rate != 0)
		lc->spoof_interval = RTE_MAX((uint64_t)((double)hz * L / (double)o->spoof_rate),
					     (uint64_t)1);
	if (o->warmup_timeout_s <= 0)
		lc->warm_done = 1;
	return 0;
}

void
lg_lcore_free(struct lg_lcore *lc)
{
	rte_free(lc->addrs);
	rte_free(lc->tuple_map);
	rte_free(lc->conns);
	rte_free(lc->own_tuples);
	lc->own_tuples = NULL;
	lc->addrs = NULL;
	lc->tuple_map = NULL;
	lc->conns = NULL;
}
