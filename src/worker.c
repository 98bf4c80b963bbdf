/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the worker poll loop (fast path).
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>

#include "tfo/log.h"
#include "tfo/worker.h"

int tfo_ctrl_reason_offset = -1;

static const char *const tfo_ctrl_reason_names[TFO_CTRL_NB_REASONS] = {
#define TFO_X_NAME(r) [TFO_CTRL_##r] = #r,
	TFO_CTRL_REASONS(TFO_X_NAME)
#undef TFO_X_NAME
};

const char *
tfo_ctrl_reason_name(enum tfo_ctrl_reason r)
{
	return (unsigned int)r < TFO_CTRL_NB_REASONS ? tfo_ctrl_reason_names[r] : "?";
}

int
tfo_ctrl_reason_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "tfo_ctrl_reason",
		.size = sizeof(uint8_t),
		.align = __alignof__(uint8_t),
	};
	int off = rte_mbuf_dynfield_register(&desc);

	if (off < 0) {
		TFO_LOG(ERR, "cannot register the mbuf field for control reasons: %s",
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	tfo_ctrl_reason_offset = off;
	return 0;
}

/* TX buffer flush: what the port does not take is freed and counted. */
static void
tfo_worker_tx_flush(struct tfo_tx *tx, uint8_t port_idx)
{
	struct tfo_worker *w = tx->arg;
	struct tfo_tx_q *q = &tx->q[port_idx];
	uint16_t sent, n = q->n;

	if (n == 0)
		return;
	sent = rte_eth_tx_burst(w->ports[port_idx].port_id, w->queue, q->pkts, n);
	for (uint16_t i = 0; i < sent; i++)
		w->stats.c[TFO_STAT_tx_bytes] += q->pkts[i]->pkt_len;
	w->stats.c[TFO_STAT_tx_pkts] += sent;
	if (unlikely(sent < n)) {
		w->stats.c[TFO_STAT_tx_drop_full] += n - sent;
		rte_pktmbuf_free_bulk(&q->pkts[sent], n - sent);
	}
	q->n = 0;
}

int
tfo_worker_init(struct tfo_worker *w, uint16_t queue,
		const struct tfo_port_info *ports, uint16_t nb_ports,
		struct rte_ring *to_control, uint32_t burst,
		uint32_t idle_sleep_us, const volatile bool *quit)
{
	if (burst == 0 || burst > TFO_TX_BUF || nb_ports > TFO_MAX_PORTS)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->queue = queue;
	w->ports = ports;
	w->nb_ports = nb_ports;
	w->to_control = to_control;
	w->burst = burst;
	w->idle_sleep_us = idle_sleep_us;
	w->quit = quit;
	w->tsc_per_us = RTE_MAX(rte_get_tsc_hz() / 1000000, (uint64_t)1);
	w->tx.flush = tfo_worker_tx_flush;
	w->tx.arg = w;
	return 0;
}

/* Hand @n frames to the control core; a full ring is a counted drop. */
static void
tfo_worker_to_control(struct tfo_worker *w, struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int done;

	if (n == 0)
		return;
	done = rte_ring_sp_enqueue_burst(w->to_control, (void **)pkts, n, NULL);
	w->stats.c[TFO_STAT_to_control] += done;
	if (unlikely(done < n)) {
		w->stats.c[TFO_STAT_ring_drop_full] += n - done;
		rte_pktmbuf_free_bulk(&pkts[done], n - done);
	}
}

unsigned int
tfo_worker_poll(struct tfo_worker *w, uint64_t now_us)
{
	struct rte_mbuf *pkts[TFO_TX_BUF], *ctrl[TFO_TX_BUF], *drop[TFO_TX_BUF];
	struct tfo_pkt pk[TFO_TX_BUF];
	unsigned int total = 0;

	for (uint16_t pi = 0; pi < w->nb_ports; pi++) {
		const struct tfo_port_info *port = &w->ports[pi];
		unsigned int nc = 0, nd = 0;
		uint16_t n;

		n = rte_eth_rx_burst(port->port_id, w->queue, pkts, (uint16_t)w->burst);
		if (n == 0)
			continue;
		total += n;
		w->stats.c[TFO_STAT_rx_pkts] += n;
		for (uint16_t i = 0; i < n; i++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));

		for (uint16_t i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			struct tfo_pkt *p = &pk[i];

			w->stats.c[TFO_STAT_rx_bytes] += m->pkt_len;
			switch (tfo_pkt_parse(m, port, p)) {
			case TFO_PKT_TCP:
				/* the fast-path engine is not wired yet */
				w->stats.c[TFO_STAT_drop_tcp_nohandler]++;
				drop[nd++] = m;
				break;
			case TFO_PKT_ARP:
				tfo_ctrl_reason_set(m, TFO_CTRL_ARP);
				ctrl[nc++] = m;
				break;
			case TFO_PKT_ICMP:
				tfo_ctrl_reason_set(m, TFO_CTRL_ICMP);
				ctrl[nc++] = m;
				break;
			case TFO_PKT_ICMP6:
				tfo_ctrl_reason_set(m, TFO_CTRL_ICMP6);
				ctrl[nc++] = m;
				break;
			case TFO_PKT_DROP:
			default:
				tfo_stats_drop(&w->stats, (enum tfo_pkt_drop)p->drop);
				drop[nd++] = m;
				break;
			}
		}
		tfo_worker_to_control(w, ctrl, nc);
		if (nd)
			rte_pktmbuf_free_bulk(drop, nd);
	}
	for (uint8_t pi = 0; pi < w->nb_ports; pi++) {
		if (w->relay[pi] != NULL) {
			struct tfo_tx_q *q = &w->tx.q[pi];
			unsigned int room = TFO_TX_BUF - q->n;

			q->n = (uint16_t)(q->n + rte_ring_sc_dequeue_burst(w->relay[pi],
					(void **)&q->pkts[q->n], room, NULL));
		}
		tfo_worker_tx_flush(&w->tx, pi);
	}
	RTE_SET_USED(now_us);
	return total;
}

int
tfo_worker_main(void *arg)
{
	struct tfo_worker *w = arg;

	w->lcore_id = rte_lcore_id();
	TFO_LOG(INFO, "worker on lcore %u: queue %u on %u port(s)", w->lcore_id,
		w->queue, w->nb_ports);
	while (!*w->quit) {
		uint64_t now_us = rte_rdtsc() / w->tsc_per_us;

		if (tfo_worker_poll(w, now_us) == 0 && w->idle_sleep_us)
			rte_delay_us_sleep(w->idle_sleep_us);
	}
	return 0;
}
