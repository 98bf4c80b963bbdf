/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the per-socket mbuf pools (tfo_pool_plan): on this
 * one-socket machine a two-socket server cannot start, so its layout is
 * given as a fake lcore -> socket map and the plan checked against the
 * single pool it replaces (the same terms; each pool its own 1024 frames
 * in flight), term by term.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "net/tx.h"
#include "server/pool_plan.h"

#include "test.h"

/* Two ports, the second with syn_steering: every term of the plan. */
static void
cfg_two_ports(struct tfo_config *c)
{
	tfo_config_defaults(c);
	c->nb_ports = 2;
	for (unsigned int i = 0; i < 2; i++) {
		c->ports[i].rx_desc = (uint16_t)(512 * (i + 1));
		c->ports[i].tx_desc = (uint16_t)(256 * (i + 1));
		c->ports[i].syn_steering = i == 1;
	}
	c->ring_size = 2048;
	c->mbuf_cache = 256;
	c->burst = 32;
}

/* The single pool server.c computed before it had one per socket. */
static uint64_t
one_pool_need(const struct tfo_config *c, unsigned int W, unsigned int C,
	      uint32_t inbox, uint32_t ctl_inbox)
{
	uint64_t need = 1024;

	for (unsigned int i = 0; i < c->nb_ports; i++)
		need += (uint64_t)(W + c->ports[i].syn_steering) * c->ports[i].rx_desc +
			(uint64_t)(W + C) * c->ports[i].tx_desc;
	need += (uint64_t)W * C * c->ring_size + (uint64_t)1024 * C * c->nb_ports;
	need += (uint64_t)W * TFO_POOL_PLAN_NEIGH;	/* ARP and ND rings */
	need += (uint64_t)W * inbox + (uint64_t)(C - 1) * ctl_inbox;
	need += (uint64_t)(W + C) * (c->mbuf_cache * 3 / 2 + c->burst +
				     TFO_TX_BUF * c->nb_ports);
	return need;
}

/* One lcore's own terms: its TX descriptors on every port, cache, burst,
 * TX buffers. */
static uint64_t
lcore_terms(const struct tfo_config *c)
{
	return 256 + 512 + c->mbuf_cache * 3 / 2 + c->burst + TFO_TX_BUF * 2;
}

TFO_TEST(one_socket_is_the_old_pool)
{
	struct tfo_config c;
	int ws[3] = { 0, 0, 0 }, cs[2] = { 0, 0 };
	struct tfo_pool_plan_in in = {
		.cfg = &c, .nb_workers = 3, .nb_controls = 2, .worker_socket = ws,
		.control_socket = cs, .inbox_size = 256, .ctl_inbox_size = 256,
	};
	struct tfo_pool_plan p;
	char err[512] = "";
	uint64_t old;

	cfg_two_ports(&c);
	old = one_pool_need(&c, 3, 2, 256, 256);
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), 0);
	CHECK_EQ(p.nb_pools, 1);
	CHECK_EQ(p.need[0], old);
	CHECK_EQ(p.need_all, old);
	CHECK_EQ(p.mbufs[0], old);
	CHECK_EQ(p.ports_alone, 0);

	/* [server] mbufs is the pool's size, as it always was */
	in.mbufs = (uint32_t)old + 5;
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), 0);
	CHECK_EQ(p.mbufs[0], old + 5);
	in.mbufs = (uint32_t)old - 1;
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), -ENOSPC);
	CHECK_MSG(strstr(err, "[server] mbufs = ") != NULL &&
		  strstr(err, "need at least") != NULL, "%s", err);
	/* a benchmark's exact count is taken as given */
	in.exact = true;
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), 0);
	CHECK_EQ(p.mbufs[0], old - 1);
}

/*
 * A net_af_xdp port: each worker's socket holds the PMD's fill ring (2048
 * whatever rx_desc says) and completion ring (2048) instead of rx_desc;
 * the parts add up to the need.
 */
TFO_TEST(af_xdp_port_counts_fill_and_completion_rings)
{
	struct tfo_config c;
	int ws[2] = { 0, 0 }, cs[1] = { 0 };
	struct tfo_pool_plan_in in = {
		.cfg = &c, .nb_workers = 2, .nb_controls = 1, .worker_socket = ws,
		.control_socket = cs, .inbox_size = 256, .ctl_inbox_size = 256,
	};
	struct tfo_pool_plan p;
	char err[512] = "";
	uint64_t old, sum = 0;

	cfg_two_ports(&c);
	c.ports[1].syn_steering = false;
	old = one_pool_need(&c, 2, 1, 256, 256);
	snprintf(c.ports[0].vdev, sizeof(c.ports[0].vdev), "net_af_xdp0,iface=eth0");
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), 0);
	CHECK_EQ(p.need[0], old - 2 * c.ports[0].rx_desc +
		 2 * (TFO_POOL_PLAN_XSK_FILL + TFO_POOL_PLAN_XSK_COMP));
	CHECK_EQ(p.part[0][TFO_POOL_XSK], 2 * (TFO_POOL_PLAN_XSK_FILL + TFO_POOL_PLAN_XSK_COMP));
	CHECK_EQ(p.part[0][TFO_POOL_RXQ], 2u * c.ports[1].rx_desc);
	CHECK_EQ(p.part[0][TFO_POOL_SLACK], 1024u);
	for (unsigned int i = 0; i < TFO_POOL_NB_PARTS; i++)
		sum += p.part[0][i];
	CHECK_EQ(sum, p.need[0]);
}

/*
 * Control 0 and worker 0 on socket 0, control 1 and workers 1-2 on socket
 * 1 with both ports: each socket's pool holds what its own lcores take,
 * and the two add up to the single pool (and one more slack).
 */
TFO_TEST(two_sockets_split_by_lcore)
{
	struct tfo_config c;
	int ws[3] = { 0, 1, 1 }, cs[2] = { 0, 1 }, ps[2] = { 1, 1 };
	struct tfo_pool_plan_in in = {
		.cfg = &c, .nb_workers = 3, .nb_controls = 2, .worker_socket = ws,
		.control_socket = cs, .port_socket = ps, .inbox_size = 2048,
		.ctl_inbox_size = 256,
	};
	struct tfo_pool_plan p;
	char err[512] = "";
	uint64_t worker, s0, s1;

	cfg_two_ports(&c);
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), 0);
	CHECK_EQ(p.nb_pools, 2);
	/* the single pool's terms, and 1024 in flight for the second pool */
	CHECK_EQ(p.need_all, one_pool_need(&c, 3, 2, 2048, 256) + 1024);
	CHECK_EQ((uint64_t)p.need[0] + p.need[1], p.need_all);
	/* a worker: its RX descriptors, its ring to each control lcore and
	 * its neighbour ring */
	worker = 512 + 1024 + 2 * c.ring_size + TFO_POOL_PLAN_NEIGH + lcore_terms(&c);
	/* control 0: the SYN queue (port 1), its relay rings, every inbox;
	 * control 1 its own relay rings */
	s0 = 1024 + worker + lcore_terms(&c) + 1024 + 2 * 1024 + 3 * 2048 + 256;
	s1 = 1024 + 2 * worker + lcore_terms(&c) + 2 * 1024;
	CHECK_EQ(p.need[0], s0);
	CHECK_EQ(p.need[1], s1);
	CHECK_EQ(p.mbufs[0], s0);
	CHECK_EQ(p.mbufs[1], s1);
	CHECK_EQ(p.ports_alone, 0);
	for (unsigned int q = 0; q < 3; q++)
		CHECK_EQ(tfo_pool_plan_rxq_socket(&in, q), ws[q]);
	CHECK_EQ(tfo_pool_plan_rxq_socket(&in, 3), 0);	/* the SYN queue */
	CHECK_EQ(p.need[2], 0);
	CHECK_EQ(p.mbufs[2], 0);
}

/* [server] mbufs over two sockets: in proportion to their need, the rest
 * of the division to control 0's socket; too little names the socket. */
TFO_TEST(two_sockets_share_mbufs)
{
	struct tfo_config c;
	int ws[3] = { 1, 1, 0 }, cs[1] = { 1 };
	struct tfo_pool_plan_in in = {
		.cfg = &c, .nb_workers = 3, .nb_controls = 1, .worker_socket = ws,
		.control_socket = cs, .inbox_size = 256, .ctl_inbox_size = 256,
	};
	struct tfo_pool_plan p;
	char err[512] = "";
	uint32_t need0, need1, total;

	cfg_two_ports(&c);
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), 0);
	need0 = p.need[0];
	need1 = p.need[1];
	CHECK(need1 > need0);
	total = 3 * p.need_all + 1;
	in.mbufs = total;
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), 0);
	CHECK_EQ((uint64_t)p.mbufs[0] + p.mbufs[1], total);
	CHECK_EQ(p.mbufs[0], (uint64_t)total * need0 / p.need_all);
	CHECK_EQ(p.mbufs[1], total - p.mbufs[0]);	/* control 0's: the rest */
	CHECK(p.mbufs[0] >= need0 && p.mbufs[1] >= need1);
	/* exactly the sum is enough; one less is not, and says where */
	in.mbufs = p.need_all;
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), 0);
	CHECK_EQ(p.mbufs[0], need0);
	CHECK_EQ(p.mbufs[1], need1);
	in.mbufs = p.need_all - 1;
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), -ENOSPC);
	CHECK_MSG(strstr(err, "[server] mbufs = ") != NULL &&
		  strstr(err, "socket 0's share") != NULL &&
		  strstr(err, "in proportion") != NULL, "%s", err);
}

/* Every lcore on socket 0, the NIC on socket 1: no pool there (nothing
 * would take from it), the port flagged; a vdev (SOCKET_ID_ANY) is
 * control 0's. */
TFO_TEST(port_on_a_socket_without_lcores)
{
	struct tfo_config c;
	int ws[2] = { 0, 0 }, cs[1] = { 0 }, ps[2] = { 1, -1 };
	struct tfo_pool_plan_in in = {
		.cfg = &c, .nb_workers = 2, .nb_controls = 1, .worker_socket = ws,
		.control_socket = cs, .port_socket = ps, .inbox_size = 256,
		.ctl_inbox_size = 256,
	};
	struct tfo_pool_plan p;
	char err[512] = "";

	cfg_two_ports(&c);
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), 0);
	CHECK_EQ(p.nb_pools, 1);
	CHECK_EQ(p.mbufs[1], 0);
	CHECK_EQ(p.ports_alone, 1u << 0);
	CHECK_EQ(p.need_all, one_pool_need(&c, 2, 1, 256, 256));
}

TFO_TEST(bad_layouts)
{
	struct tfo_config c;
	int ws[2] = { 0, TFO_PLAN_SOCKETS }, cs[1] = { 0 }, ps[2] = { 0, 0 };
	struct tfo_pool_plan_in in = {
		.cfg = &c, .nb_workers = 2, .nb_controls = 1, .worker_socket = ws,
		.control_socket = cs, .port_socket = ps,
	};
	struct tfo_pool_plan p;
	char err[512] = "";

	cfg_two_ports(&c);
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "worker 1") != NULL, "%s", err);
	ws[1] = 0;
	cs[0] = -1;
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "control lcore 0") != NULL, "%s", err);
	cs[0] = 0;
	in.nb_workers = 0;
	CHECK_EQ(tfo_pool_plan(&in, &p, err, sizeof(err)), -EINVAL);
}

TFO_TEST_MAIN()
