/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: sending a TX buffer's queue to a port.
 */
#include <rte_ethdev.h>

#include "net/tx.h"

uint16_t
tfo_tx_burst(uint16_t port_id, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	     struct tfo_stats *s)
{
	uint32_t len[TFO_TX_BUF];
	uint16_t sent;

	/* read before the device owns them: a copying PMD (net_memif) frees
	 * a frame inside the burst, and another lcore may reuse it */
	for (uint16_t i = 0; i < n; i++)
		len[i] = pkts[i]->pkt_len;
	sent = rte_eth_tx_burst(port_id, queue, pkts, n);
	for (uint16_t i = 0; i < sent; i++)
		s->c[TFO_STAT_tx_bytes] += len[i];
	s->c[TFO_STAT_tx_pkts] += sent;
	return sent;
}

void
tfo_tx_q_send(struct tfo_tx_q *q, uint16_t port_id, uint16_t queue,
	      struct tfo_stats *s)
{
	uint16_t sent, n = q->n;

	if (n == 0)
		return;
	sent = tfo_tx_burst(port_id, queue, q->pkts, n, s);
	if (unlikely(sent < n)) {
		s->c[TFO_STAT_tx_drop_full] += n - sent;
		s->c[TFO_STAT_tx_drop_resend] += tfo_tx_q_low_dropped(q, (uint16_t)(n - sent));
		rte_pktmbuf_free_bulk(&q->pkts[sent], n - sent);
	}
	q->n = 0;
	q->nlow = 0;
}
