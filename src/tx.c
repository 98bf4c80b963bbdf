/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: sending a TX buffer's queue to a port.
 */
#include <rte_ethdev.h>

#include "tfo/tx.h"

void
tfo_tx_q_send(struct tfo_tx_q *q, uint16_t port_id, uint16_t queue,
	      struct tfo_stats *s)
{
	uint16_t sent, n = q->n;

	if (n == 0)
		return;
	sent = rte_eth_tx_burst(port_id, queue, q->pkts, n);
	for (uint16_t i = 0; i < sent; i++)
		s->c[TFO_STAT_tx_bytes] += q->pkts[i]->pkt_len;
	s->c[TFO_STAT_tx_pkts] += sent;
	if (unlikely(sent < n)) {
		s->c[TFO_STAT_tx_drop_full] += n - sent;
		rte_pktmbuf_free_bulk(&q->pkts[sent], n - sent);
	}
	q->n = 0;
}
