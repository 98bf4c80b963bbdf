/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-loadgen: a generator lcore. Received frames sorted (TCP for a
 * client address to its owner lcore, ARP/ND here, the flood's answers
 * counted), the poll loop, and the lcore's tables set up and freed.
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <sched.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "net/port.h"
#include "tfo/log.h"

#include "lg.h"

#define LG_NO_SLOT UINT32_MAX

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

	while (lc->sh->phase != LG_PHASE_DONE) {
		/*
		 * A poll that found nothing gives the CPU away: a server (or
		 * its kernel's softirq thread) woken on this CPU then runs at
		 * once. Spinning on, it waits for the scheduler to take the
		 * CPU from us, a whole time slice (3-4 ms at HZ 250: every
		 * transaction, at one in flight). Alone on its CPU the call
		 * returns at once.
		 */
		if (lg_poll(lc, rte_rdtsc()) == 0 && lc->o->idle_yield) {
			LG_INC(&lc->stats, idle_yields);
			sched_yield();
		}
	}
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
