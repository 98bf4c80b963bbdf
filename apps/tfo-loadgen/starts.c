/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-loadgen: starting transactions. The client addresses, the choice of
 * a free (address, port) tuple (--rss-peer: one the server's hash puts on
 * this lcore's queue), the mix of kinds, the warm-up's cookie requests,
 * the flood SYNs of --syn-flood and the spoofed ones of --spoof-flood.
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_cycles.h>

#include "net/port.h"

#include "lg.h"

#define LG_WARM_TRIES 3

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
bool
lg_tuple_ours(const struct lg_lcore *lc, uint32_t t)
{
	uint32_t local = t % lc->nb_addrs;

	return !lc->o->rss_peer ||
	       lg_flow_queue(lc->sh, lc->o, local * lc->sh->nb_lcores + lc->idx,
			     (uint16_t)(lc->o->port_lo + t / lc->nb_addrs)) == lc->queue;
}

/* How many tuples the round robin of lg_pick_tuple goes over. */
uint32_t
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
