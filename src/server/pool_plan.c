/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the mbufs of each socket's pool (see pool_plan.h).
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "net/tx.h"
#include "net/xdp.h"
#include "server/pool_plan.h"
#include "tfo/log.h"

/* Frames in flight besides what the queues and rings hold (per pool). */
#define PLAN_SLACK 1024u

uint32_t
tfo_pool_plan_inbox_size(const struct tfo_config *c)
{
	for (unsigned int i = 0; i < c->nb_ports; i++)
		if (c->ports[i].syn_steering)
			return c->ring_size;
	return RTE_MIN(c->ring_size, 256u);
}

uint16_t
tfo_pool_plan_data_room(uint16_t max_mtu)
{
	return (uint16_t)RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE,
				 (uint32_t)max_mtu + RTE_ETHER_HDR_LEN + 4 + RTE_PKTMBUF_HEADROOM);
}

static int
plan_socket_ok(int socket, const char *what, unsigned int i, char *err, size_t errlen)
{
	if (socket >= 0 && socket < TFO_PLAN_SOCKETS)
		return 0;
	return tfo_errmsg(err, errlen, "%s %u: socket %d: out of 0..%d", what, i, socket,
			  TFO_PLAN_SOCKETS - 1);
}

/*
 * What each socket's pool must hold at once: the terms of the one pool
 * the whole server had before (one socket: the same count), each on the socket
 * whose pool the frames were taken from: a worker's RX descriptors and
 * its rings to the control lcores, the neighbour ring included (what it
 * received waits there), on the
 * worker's; the SYN queue and the inboxes (what control 0 steered or
 * handed on) on control 0's; each lcore's TX descriptors, cache, burst and
 * TX buffers, and a control lcore's relay rings, on its own.
 */
/* What port @p i's RX queue of one lcore holds of the pool. */
static uint64_t
plan_rxq(const struct tfo_cfg_port *p)
{
	/*
	 * net_af_xdp (22.11) fills its fill ring with 2048 mbufs whatever
	 * rx_desc says (its RX ring is filled from those), and keeps every
	 * frame it sent until it pulls the completion ring, 2048 more.
	 */
	if (tfo_xdp_is_af_xdp(p->vdev))
		return TFO_POOL_PLAN_XSK_FILL + TFO_POOL_PLAN_XSK_COMP;
	return p->rx_desc;
}

/* @p n more mbufs on socket @p s, as part @p part */
static void
plan_add(uint64_t need[TFO_PLAN_SOCKETS], struct tfo_pool_plan *out, int s,
	 enum tfo_pool_part part, uint64_t n)
{
	need[s] += n;
	out->part[s][part] += n;
}

static void
plan_need(const struct tfo_pool_plan_in *in, uint64_t need[TFO_PLAN_SOCKETS],
	  struct tfo_pool_plan *out)
{
	const struct tfo_config *c = in->cfg;
	int ctl0 = in->control_socket[0];
	uint64_t per_lcore = (uint64_t)c->mbuf_cache * 3 / 2 + c->burst +
			     (uint64_t)TFO_TX_BUF * c->nb_ports;
	uint64_t tx_desc = 0;

	for (unsigned int i = 0; i < c->nb_ports; i++) {
		tx_desc += c->ports[i].tx_desc;
		plan_add(need, out, ctl0, TFO_POOL_RXQ,
			 (uint64_t)c->ports[i].syn_steering * c->ports[i].rx_desc);
	}
	for (unsigned int wi = 0; wi < in->nb_workers; wi++) {
		int s = in->worker_socket[wi];

		for (unsigned int i = 0; i < c->nb_ports; i++)
			plan_add(need, out, s, tfo_xdp_is_af_xdp(c->ports[i].vdev) ?
				 TFO_POOL_XSK : TFO_POOL_RXQ, plan_rxq(&c->ports[i]));
		plan_add(need, out, s, TFO_POOL_TXQ, tx_desc);
		plan_add(need, out, s, TFO_POOL_LCORES, per_lcore);
		plan_add(need, out, s, TFO_POOL_RINGS,
			 (uint64_t)in->nb_controls * c->ring_size + TFO_POOL_PLAN_NEIGH);
		plan_add(need, out, ctl0, TFO_POOL_RINGS, in->inbox_size);
	}
	for (unsigned int k = 0; k < in->nb_controls; k++) {
		int s = in->control_socket[k];

		plan_add(need, out, s, TFO_POOL_TXQ, tx_desc);
		plan_add(need, out, s, TFO_POOL_LCORES, per_lcore);
		/* its relay ring on every port (what it built, from its pool) */
		plan_add(need, out, s, TFO_POOL_RINGS, (uint64_t)TFO_POOL_PLAN_RELAY * c->nb_ports);
		if (k > 0)
			plan_add(need, out, ctl0, TFO_POOL_RINGS, in->ctl_inbox_size);
	}
	for (int s = 0; s < TFO_PLAN_SOCKETS; s++)
		if (need[s] != 0)
			plan_add(need, out, s, TFO_POOL_SLACK, PLAN_SLACK);
}

static int
plan_split(const struct tfo_pool_plan_in *in, struct tfo_pool_plan *out,
	   const uint64_t need[TFO_PLAN_SOCKETS], uint64_t need_all, char *err,
	   size_t errlen)
{
	uint64_t given = 0;

	for (int s = 0; s < TFO_PLAN_SOCKETS; s++) {
		if (need[s] == 0)
			continue;
		out->mbufs[s] = (uint32_t)((uint64_t)in->mbufs * need[s] / need_all);
		given += out->mbufs[s];
	}
	out->mbufs[in->control_socket[0]] += (uint32_t)(in->mbufs - given);
	for (int s = 0; s < TFO_PLAN_SOCKETS && !in->exact; s++) {
		if (out->mbufs[s] >= need[s])
			continue;
		if (out->nb_pools == 1)
			tfo_errmsg(err, errlen, "[server] mbufs = %u: too small for %u "
				   "workers, %u control lcores, %u ports and their "
				   "queues/rings; need at least %u (or 0 = computed)",
				   in->mbufs, in->nb_workers, in->nb_controls,
				   in->cfg->nb_ports, out->need_all);
		else
			tfo_errmsg(err, errlen, "[server] mbufs = %u: socket %d's share is "
				   "%u (the total is split over the %u sockets' pools in "
				   "proportion to what their lcores hold), below the %u it "
				   "needs; need at least %u in all (or 0 = computed)",
				   in->mbufs, s, out->mbufs[s], out->nb_pools, out->need[s],
				   out->need_all);
		return -ENOSPC;
	}
	return 0;
}

int
tfo_pool_plan(const struct tfo_pool_plan_in *in, struct tfo_pool_plan *out, char *err,
	      size_t errlen)
{
	uint64_t need[TFO_PLAN_SOCKETS] = { 0 }, need_all = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (in->cfg == NULL || in->nb_workers == 0 || in->nb_controls == 0 ||
	    in->worker_socket == NULL || in->control_socket == NULL)
		return tfo_errmsg(err, errlen, "pool plan: no configuration, worker or "
				  "control lcore");
	for (unsigned int wi = 0; wi < in->nb_workers; wi++)
		if (plan_socket_ok(in->worker_socket[wi], "worker", wi, err, errlen) < 0)
			return -EINVAL;
	for (unsigned int k = 0; k < in->nb_controls; k++)
		if (plan_socket_ok(in->control_socket[k], "control lcore", k, err,
				   errlen) < 0)
			return -EINVAL;
	plan_need(in, need, out);
	for (unsigned int i = 0; i < in->cfg->nb_ports; i++) {
		int s = in->port_socket != NULL ? in->port_socket[i] : -1;

		if (s < 0)
			continue;	/* SOCKET_ID_ANY: control 0's, which has one */
		rc = plan_socket_ok(s, "port", i, err, errlen);
		if (rc < 0)
			return rc;
		if (need[s] == 0)
			out->ports_alone |= 1u << i;
	}
	for (int s = 0; s < TFO_PLAN_SOCKETS; s++) {
		if (need[s] == 0)
			continue;
		out->need[s] = (uint32_t)RTE_MIN(need[s], (uint64_t)UINT32_MAX);
		out->mbufs[s] = out->need[s];
		need_all += need[s];
		out->nb_pools++;
	}
	out->need_all = (uint32_t)RTE_MIN(need_all, (uint64_t)UINT32_MAX);
	if (in->mbufs == 0)
		return 0;
	return plan_split(in, out, need, need_all, err, errlen);
}
