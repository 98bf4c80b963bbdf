/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of several control lcores ([server] control_lcores): the hash
 * that picks a connection's control lcore (tfo_ctrl_pick: the tuple alone
 * decides, spread even), and the device-free server with two workers and
 * two control lcores: every segment of one connection reaches the same
 * control lcore from either worker, each control lcore serves what it
 * gets on its own engine, and the accounting balances.
 */
#include <string.h>
#include <arpa/inet.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_ring.h>

#include "cookie/keyring.h"
#include "lcore/ctrl_pick.h"
#include "net/neigh.h"
#include "ops/config.h"
#include "server/server.h"

#include "engine_harness.h"
#include "test.h"

static void
flow(struct tfo_pkt *p, int family, const char *src, uint16_t sport, const char *dst,
     uint16_t dport)
{
	memset(p, 0, sizeof(*p));
	p->family = (uint8_t)family;
	inet_pton(family, src, p->src.b);
	inet_pton(family, dst, p->dst.b);
	p->sport = sport;
	p->dport = dport;
}

TFO_TEST(pick_one_control_or_none)
{
	struct tfo_pkt p;

	flow(&p, AF_INET, "198.18.0.2", 40000, "198.18.0.1", 80);
	CHECK_EQ(tfo_ctrl_pick(&p, 0), 0);
	CHECK_EQ(tfo_ctrl_pick(&p, 1), 0);
}

/* Only the 4-tuple counts: the segment's other fields (flags, sequence
 * numbers, lengths, which worker parsed it) and a path-MTU error's copy of
 * the flow name the same control lcore. */
TFO_TEST(pick_depends_on_the_tuple_only)
{
	uint64_t rnd = 7;

	for (unsigned int i = 0; i < 2000; i++) {
		struct tfo_pkt a, b;
		char src[64];
		unsigned int n = 2 + (unsigned int)(tfo_test_rand(&rnd) % (TFO_MAX_CONTROLS - 1));
		uint16_t sport = (uint16_t)(1024 + tfo_test_rand(&rnd) % 60000);

		if (i & 1)
			snprintf(src, sizeof(src), "fd00::%x:%x", i, (unsigned int)(rnd & 0xffff));
		else
			snprintf(src, sizeof(src), "198.18.%u.%u", (i >> 8) & 255, i & 255);
		flow(&a, (i & 1) ? AF_INET6 : AF_INET, src, sport,
		     (i & 1) ? "fd00::1" : "198.18.0.1", 7);
		b = a;
		b.tcp_flags = 0x10;
		b.seq = (uint32_t)tfo_test_rand(&rnd);
		b.ack = (uint32_t)tfo_test_rand(&rnd);
		b.payload_len = 100;
		b.l2_len = 18;
		b.local_idx = 1;
		CHECK(tfo_ctrl_pick(&a, n) < n);
		CHECK_EQ(tfo_ctrl_pick(&a, n), tfo_ctrl_pick(&b, n));
	}
}

/* Connections spread evenly: one client address with consecutive source
 * ports (a NAT, tfo-loadgen), many addresses with one port each, IPv6. */
TFO_TEST(pick_spreads_evenly)
{
	static const unsigned int ns[] = { 2, 3, 4, 8, 16 };
	const unsigned int conns = 32768;

	for (unsigned int v = 0; v < 3; v++) {
		for (unsigned int t = 0; t < RTE_DIM(ns); t++) {
			unsigned int n = ns[t], cnt[TFO_MAX_CONTROLS] = { 0 };
			unsigned int lo = UINT32_MAX, hi = 0;

			for (unsigned int i = 0; i < conns; i++) {
				struct tfo_pkt p;
				char src[64];

				if (v == 0) {
					flow(&p, AF_INET, "198.18.0.2", (uint16_t)(10000 + i),
					     "198.18.0.1", 80);
				} else if (v == 1) {
					snprintf(src, sizeof(src), "198.%u.%u.%u", 18 + (i >> 16),
						 (i >> 8) & 255, i & 255);
					flow(&p, AF_INET, src, 40000, "198.18.0.1", 80);
				} else {
					snprintf(src, sizeof(src), "fd00::%x", i + 2);
					flow(&p, AF_INET6, src, (uint16_t)(30000 + (i & 1023)),
					     "fd00::1", 443);
				}
				cnt[tfo_ctrl_pick(&p, n)]++;
			}
			for (unsigned int k = 0; k < n; k++) {
				lo = RTE_MIN(lo, cnt[k]);
				hi = RTE_MAX(hi, cnt[k]);
			}
			/* within 10 % of the even share (about 7 standard
			 * deviations at n = 16) */
			CHECK_MSG(lo * 10 * n >= conns * 9 && hi * 10 * n <= conns * 11,
				  "variant %u, %u controls: %u..%u of %u", v, n, lo, hi, conns / n);
		}
	}
}

/* ---- the device-free server with two control lcores -------------------- */

/* No device: what a control lcore sends is counted as sent and freed. */
static void
sink_flush(struct tfo_tx *tx, uint8_t port_idx)
{
	struct tfo_tx_q *q = &tx->q[port_idx];

	tx->stats->c[TFO_STAT_tx_pkts] += q->n;
	rte_pktmbuf_free_bulk(q->pkts, q->n);
	q->n = 0;
}

#define NCONN 24

/*
 * A router's "fragmentation needed" (IPv4 type 3 code 4, next-hop MTU
 * @p mtu) quoting our segment of @p flow (the client's segment: src is the
 * client) with sequence number @p seq.
 */
static struct rte_mbuf *
mk_ptb4(struct harness *h, const struct tfo_pkt *flow, uint32_t seq, uint16_t mtu)
{
	static const uint8_t router[4] = { 198, 18, 0, 254 };
	const uint16_t icmp_len = 8 + 20 + 8;
	struct rte_mbuf *m = rte_pktmbuf_alloc(h->pool);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip, *qip;
	uint8_t *ic, *th;

	if (m == NULL)
		return NULL;
	if (rte_pktmbuf_append(m, 14 + 20 + icmp_len) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	memset(eh, 0, 14 + 20 + icmp_len);
	eh->dst_addr = h->srv_port.mac;
	eh->src_addr.addr_bytes[0] = 0x02;
	eh->src_addr.addr_bytes[5] = 0x99;
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(20 + icmp_len);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	memcpy(&ip->src_addr, router, 4);
	memcpy(&ip->dst_addr, flow->dst.b, 4);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	ic = (uint8_t *)(ip + 1);
	ic[0] = 3;
	ic[1] = 4;
	ic[6] = (uint8_t)(mtu >> 8);
	ic[7] = (uint8_t)mtu;
	qip = (struct rte_ipv4_hdr *)(ic + 8);
	qip->version_ihl = 0x45;
	qip->total_length = rte_cpu_to_be_16(1500);
	qip->fragment_offset = rte_cpu_to_be_16(0x4000);
	qip->time_to_live = 64;
	qip->next_proto_id = IPPROTO_TCP;
	memcpy(&qip->src_addr, flow->dst.b, 4);
	memcpy(&qip->dst_addr, flow->src.b, 4);
	qip->hdr_checksum = rte_ipv4_cksum(qip);
	th = (uint8_t *)(qip + 1);
	th[0] = (uint8_t)(flow->dport >> 8);
	th[1] = (uint8_t)flow->dport;
	th[2] = (uint8_t)(flow->sport >> 8);
	th[3] = (uint8_t)flow->sport;
	th[4] = (uint8_t)(seq >> 24);
	th[5] = (uint8_t)(seq >> 16);
	th[6] = (uint8_t)(seq >> 8);
	th[7] = (uint8_t)seq;
	{
		uint16_t ck = (uint16_t)~rte_raw_cksum(ic, icmp_len);

		memcpy(ic + 2, &ck, 2);
	}
	m->port = h->srv_port.port_id;
	return m;
}

/* The device-free server of @p cfg with an echo service on port 7, on the
 * harness's server port; NULL (a failed check) when it cannot be made. */
static struct tfo_server *
echo_server(struct harness *h, struct tfo_config *cfg, const char *name,
	    unsigned int workers, unsigned int controls)
{
	struct tfo_server_params sp = {
		.name = name,
		.ports = &h->srv_port,
		.nb_ports = 1,
		.nb_workers = workers,
		.nb_controls = controls,
		.nb_mbufs = 8192,
	};
	char err[TFO_CFG_ERR];
	struct tfo_server *s;

	CHECK_EQ(tfo_config_set(cfg, "service echo", "port", "7", err, sizeof(err)), 0);
	s = tfo_server_create(cfg, &sp, err, sizeof(err));
	CHECK_MSG(s != NULL, "%s", err);
	return s;
}

TFO_TEST(server_two_controls_two_workers)
{
	static struct tfo_config cfg;
	struct tfo_stats total;
	struct tfo_server *s;
	struct tfo_worker *w[2];
	struct tfo_control *c[2];
	struct harness h;
	struct cl cl[NCONN];
	unsigned int per_ctl[2] = { 0 }, opened = 0, on1 = NCONN;
	struct tfo_pkt fl[NCONN];
	uint64_t now = 1000000;

	h_init(&h, 64);
	tfo_config_defaults(&cfg);
	cfg.tfo_enabled = false;	/* every SYN a plain one, to the control lcores */
	s = echo_server(&h, &cfg, "mc", 2, 2);
	if (s == NULL)
		return;
	CHECK_EQ(tfo_server_nb_controls(s), 2);
	CHECK(tfo_server_control_at(s, 0) == tfo_server_control(s));
	CHECK(tfo_server_control_at(s, 2) == NULL);
	for (unsigned int i = 0; i < 2; i++) {
		w[i] = tfo_server_worker(s, i);
		c[i] = tfo_server_control_at(s, i);
		CHECK(c[i] != NULL && c[i]->idx == i && w[i]->nb_controls == 2);
		c[i]->tx.flush = sink_flush;
	}
	CHECK(w[0]->to_ctl[0] != NULL && w[0]->to_ctl[1] != NULL &&
	      w[0]->to_ctl[0] != w[0]->to_ctl[1]);
	CHECK(c[0]->tx_queue == 2 && c[1]->tx_queue == 3);

	for (unsigned int i = 0; i < NCONN; i++) {
		struct rte_mbuf *m;
		unsigned int k, got[2][2];

		cl_init(&cl[i], &h, (i & 1) ? AF_INET6 : AF_INET, (uint16_t)(20000 + 7 * i), 7);
		/* the SYN through worker 0, the ACK of the same tuple through
		 * worker 1 (as RSS might) */
		m = cl_frame(&cl[i], 0x02, cl[i].iss, 0, NULL, 0);
		m->port = h.srv_port.port_id;	/* the control lcore checks it */
		CHECK_EQ(tfo_pkt_classify(m, &h.srv_port, &fl[i]), TFO_PKT_TCP);
		tfo_worker_burst(w[0], 0, &m, 1, now);
		m = cl_frame(&cl[i], 0x10, cl[i].iss + 1, 12345, NULL, 0);
		m->port = h.srv_port.port_id;
		tfo_worker_burst(w[1], 0, &m, 1, now);
		for (unsigned int wi = 0; wi < 2; wi++)
			for (k = 0; k < 2; k++)
				got[wi][k] = rte_ring_count(w[wi]->to_ctl[k]);
		k = got[0][1] != 0;
		CHECK_MSG(got[0][k] == 1 && got[1][k] == 1 && got[0][!k] == 0 && got[1][!k] == 0,
			  "conn %u: worker0 %u/%u worker1 %u/%u", i, got[0][0], got[0][1],
			  got[1][0], got[1][1]);
		per_ctl[k]++;
		CHECK_EQ(tfo_ctrl_pick(&fl[i], 2), k);
		if (k == 1 && fl[i].family == AF_INET)
			on1 = i;
		/* each control lcore drains its own rings only */
		tfo_control_poll(c[!k], now);
		CHECK(rte_ring_count(w[0]->to_ctl[k]) == 1);
		tfo_control_poll(c[k], now);
		CHECK(rte_ring_count(w[0]->to_ctl[k]) == 0 && rte_ring_count(w[1]->to_ctl[k]) == 0);
	}
	CHECK_MSG(per_ctl[0] > 0 && per_ctl[1] > 0, "spread %u/%u", per_ctl[0], per_ctl[1]);
	for (unsigned int k = 0; k < 2; k++) {
		CHECK_EQ(c[k]->stats.c[TFO_STAT_ctrl_rx], 2 * per_ctl[k]);
		opened += (unsigned int)c[k]->stats.c[TFO_STAT_conns_opened_plain];
		CHECK_EQ(c[k]->stats.c[TFO_STAT_conns_opened_plain], per_ctl[k]);
		/* a SYN-ACK for its SYNs, a RST for the ACKs that match nothing */
		CHECK_EQ(c[k]->stats.c[TFO_STAT_tx_pkts], 2 * per_ctl[k]);
	}
	CHECK_EQ(opened, NCONN);
	tfo_report_aggregate(&tfo_server_supervisor(s)->lcores, &total);
	CHECK_EQ(total.c[TFO_STAT_ctrl_rx], 2 * NCONN);
	CHECK_EQ(total.c[TFO_STAT_to_control], 2 * NCONN);
	CHECK(tfo_report_accounting(&tfo_server_supervisor(s)->lcores, stdout));

	/* path-MTU errors reach control 0 (ICMP); one about a connection of
	 * control 1 is forwarded to control 1's inbox and found there */
	CHECK(on1 < NCONN);
	if (on1 < NCONN) {
		struct tfo_pkt other = fl[on1];
		struct rte_mbuf *m = mk_ptb4(&h, &fl[on1], 7, 1280);
		unsigned int tries = 0;

		tfo_worker_burst(w[1], 0, &m, 1, now);
		CHECK_EQ(rte_ring_count(w[1]->to_ctl[0]), 1);	/* ICMP: control 0 */
		tfo_control_poll(c[0], now);
		CHECK_EQ(c[0]->stats.c[TFO_STAT_pmtu_ctrl_handoff], 1);
		CHECK_EQ(tfo_control_inbox(c[1], now), 1);
		/* found on control 1's engine: its quoted sequence number is
		 * out of the window */
		CHECK_EQ(c[1]->stats.c[TFO_STAT_pmtu_rejected_seq], 1);
		/* a flow of control 1 that it does not hold: on to the workers
		 * (the RSS table is unknown here: a copy to each) */
		do
			other.sport = (uint16_t)(other.sport + 1);
		while (tfo_ctrl_pick(&other, 2) != 1 && ++tries < 100);
		m = mk_ptb4(&h, &other, 7, 1280);
		tfo_worker_burst(w[0], 0, &m, 1, now);
		tfo_control_poll(c[0], now);
		CHECK_EQ(c[0]->stats.c[TFO_STAT_pmtu_ctrl_handoff], 2);
		CHECK_EQ(tfo_control_inbox(c[1], now), 1);
		CHECK_EQ(c[1]->stats.c[TFO_STAT_pmtu_handoff], 1);
		CHECK_EQ(tfo_worker_inbox(w[0], now) + tfo_worker_inbox(w[1], now), 2);
		CHECK(tfo_report_accounting(&tfo_server_supervisor(s)->lcores, NULL));
	}
	for (unsigned int i = 0; i < NCONN; i++)
		cl_free(&cl[i]);
	tfo_server_free(s);
}

/*
 * ARP and ND from the router get through a worker -> control ring that a
 * flood of stray segments keeps full: they take the neighbour ring, which
 * control 0 drains first, and are answered in its next poll.
 */
TFO_TEST(server_neighbours_pass_a_full_control_ring)
{
	static struct tfo_config cfg;
	static const struct rte_ether_addr router = {
		.addr_bytes = { 0x02, 0, 0, 0xcc, 0, 1 } };
	struct tfo_server *s;
	struct tfo_worker *w;
	struct tfo_control *c;
	struct harness h;
	struct cl cl;
	struct tfo_addr sip, sip6;
	struct rte_mbuf *m[2];
	uint64_t now = 1000000;

	h_init(&h, 64);
	tfo_config_defaults(&cfg);
	cfg.ring_size = 64;
	s = echo_server(&h, &cfg, "nb", 1, 1);
	if (s == NULL)
		return;
	w = tfo_server_worker(s, 0);
	c = tfo_server_control(s);
	c->tx.flush = sink_flush;
	REQUIRE(w->to_neigh != NULL);
	/* ACKs that match nothing: more than the control ring holds */
	cl_init(&cl, &h, AF_INET, 30000, 7);
	for (unsigned int b = 0; b < 4; b++) {
		struct rte_mbuf *acks[32];

		for (unsigned int i = 0; i < 32; i++) {
			acks[i] = cl_frame(&cl, 0x10, cl.iss + 1 + 1000 * (b * 32 + i), 12345,
					   NULL, 0);
			acks[i]->port = h.srv_port.port_id;
		}
		tfo_worker_burst(w, 0, acks, 32, now);
	}
	CHECK(w->stats.c[TFO_STAT_ring_drop_full] > 0);
	CHECK_EQ(rte_ring_count(w->to_ctl[0]), rte_ring_get_capacity(w->to_ctl[0]));
	/* the router asks for our MAC on both families */
	memset(&sip, 0, sizeof(sip));
	sip.b[0] = 198, sip.b[1] = 18, sip.b[3] = 254;
	memset(&sip6, 0, sizeof(sip6));
	sip6.b[0] = 0xfd, sip6.b[15] = 0xfe;
	m[0] = tfo_arp_request(h.pool, &router, &sip, &h.srv_port.addrs[0].addr);
	m[1] = tfo_nd_ns_request(h.pool, &router, &sip6, &h.srv_port.addrs[1].addr);
	REQUIRE(m[0] != NULL && m[1] != NULL);
	m[0]->port = m[1]->port = h.srv_port.port_id;
	tfo_worker_burst(w, 0, m, 2, now);
	CHECK_EQ(w->stats.c[TFO_STAT_to_control_neigh], 2);
	CHECK_EQ(rte_ring_count(w->to_neigh), 2);
	/* what waits in the neighbour ring is to_control not yet ctrl_rx */
	CHECK(tfo_report_accounting(&tfo_server_supervisor(s)->lcores, NULL));
	/* one poll of control 0: both answered, whatever waits in the other */
	tfo_control_poll(c, now);
	CHECK_EQ(c->stats.c[TFO_STAT_arp_reply_tx], 1);
	CHECK_EQ(c->stats.c[TFO_STAT_nd_na_tx], 1);
	while (tfo_control_poll(c, now) != 0)
		;
	CHECK(tfo_report_accounting(&tfo_server_supervisor(s)->lcores, stdout));
	cl_free(&cl);
	tfo_server_free(s);
}

/* An Ethernet frame of @p len bytes after the header, to our MAC (or
 * broadcast), from a neighbour; zeroed. */
static struct rte_mbuf *
mk_l2(struct harness *h, uint16_t type, uint16_t len, bool bcast)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(h->pool);
	struct rte_ether_hdr *eh;

	if (m == NULL || rte_pktmbuf_append(m, 14 + len) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	memset(eh, 0, 14u + len);
	if (bcast)
		memset(&eh->dst_addr, 0xff, sizeof(eh->dst_addr));
	else
		eh->dst_addr = h->srv_port.mac;
	eh->src_addr.addr_bytes[0] = 0x02;
	eh->src_addr.addr_bytes[5] = 0x42;
	eh->ether_type = rte_cpu_to_be_16(type);
	m->port = h->srv_port.port_id;
	return m;
}

/*
 * AF_XDP mode (kernel_neigh): the kernel answers ARP and ping; one that
 * reaches the control lcore anyway is a counted drop, never answered,
 * while a path-MTU error about our flows is still ours.
 */
TFO_TEST(kernel_neigh_port_answers_no_arp_or_ping)
{
	static struct tfo_config cfg;
	struct tfo_server_params sp = {
		.name = "kn", .nb_ports = 1, .nb_workers = 1, .nb_controls = 1,
		.nb_mbufs = 4096,
	};
	const uint8_t *ours = NULL;
	char err[TFO_CFG_ERR];
	struct tfo_server *s;
	struct tfo_worker *w;
	struct tfo_control *c;
	struct rte_mbuf *m[3];
	struct tfo_pkt flow;
	struct harness h;
	uint64_t now = 1000000;

	h_init(&h, 64);
	for (unsigned int i = 0; i < h.srv_port.nb_addrs; i++)
		if (h.srv_port.addrs[i].family == AF_INET)
			ours = h.srv_port.addrs[i].addr.b;
	REQUIRE(ours != NULL);
	h.srv_port.kernel_neigh = true;
	sp.ports = &h.srv_port;
	tfo_config_defaults(&cfg);
	CHECK_EQ(tfo_config_set(&cfg, "service echo", "port", "7", err, sizeof(err)), 0);
	s = tfo_server_create(&cfg, &sp, err, sizeof(err));
	CHECK_MSG(s != NULL, "%s", err);
	if (s == NULL)
		return;
	w = tfo_server_worker(s, 0);
	c = tfo_server_control(s);
	c->tx.flush = sink_flush;

	/* an ARP request for our address, broadcast */
	m[0] = mk_l2(&h, RTE_ETHER_TYPE_ARP, sizeof(struct rte_arp_hdr), true);
	REQUIRE(m[0] != NULL);
	{
		struct rte_arp_hdr *ah = rte_pktmbuf_mtod_offset(m[0], struct rte_arp_hdr *, 14);

		ah->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
		ah->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		ah->arp_hlen = 6;
		ah->arp_plen = 4;
		ah->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
		ah->arp_data.arp_sha.addr_bytes[0] = 0x02;
		ah->arp_data.arp_sha.addr_bytes[5] = 0x42;
		ah->arp_data.arp_sip = rte_cpu_to_be_32(0xc6120063);	/* 198.18.0.99 */
		memcpy(&ah->arp_data.arp_tip, ours, 4);
	}
	/* an ICMP echo request to our address */
	m[1] = mk_l2(&h, RTE_ETHER_TYPE_IPV4, 20 + 8 + 8, false);
	REQUIRE(m[1] != NULL);
	{
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m[1], struct rte_ipv4_hdr *, 14);
		uint8_t *ic = (uint8_t *)(ip + 1);
		uint16_t ck;

		ip->version_ihl = 0x45;
		ip->total_length = rte_cpu_to_be_16(20 + 16);
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_ICMP;
		ip->src_addr = rte_cpu_to_be_32(0xc6120063);
		memcpy(&ip->dst_addr, ours, 4);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		ic[0] = 8;	/* echo request */
		ic[5] = 1;
		ck = (uint16_t)~rte_raw_cksum(ic, 16);
		memcpy(ic + 2, &ck, 2);
	}
	/* a path-MTU error quoting a segment of ours */
	memset(&flow, 0, sizeof(flow));
	flow.family = AF_INET;
	memcpy(flow.dst.b, ours, 4);
	flow.src.b[0] = 198;
	flow.src.b[1] = 18;
	flow.src.b[3] = 99;
	flow.sport = 40000;
	flow.dport = 7;
	m[2] = mk_ptb4(&h, &flow, 7, 1280);
	REQUIRE(m[2] != NULL);

	tfo_worker_burst(w, 0, m, 3, now);
	tfo_control_poll(c, now);
	CHECK_EQ(c->stats.c[TFO_STAT_drop_kernel_neigh], 2);
	CHECK_EQ(c->stats.c[TFO_STAT_arp_reply_tx] + c->stats.c[TFO_STAT_icmp_echo_tx] +
		 c->stats.c[TFO_STAT_tx_pkts], 0);
	CHECK_EQ(c->stats.c[TFO_STAT_pmtu_handoff], 1);
	CHECK_EQ(tfo_worker_inbox(w, now), 1);
	CHECK_EQ(w->stats.c[TFO_STAT_pmtu_no_conn], 1);
	CHECK(tfo_report_accounting(&tfo_server_supervisor(s)->lcores, NULL));
	tfo_server_free(s);
}

/*
 * `udp = on` in a whole server: a worker answers a datagram to echo's port
 * and leaves another port's as before (drop_l4_proto); a control lcore
 * answers one that reaches it; echo's own counter is its slot of the
 * server's map; every lcore balances.
 */
TFO_TEST(server_udp_on_worker_and_control)
{
	static struct tfo_config cfg;
	char err[TFO_CFG_ERR];
	struct tfo_server *s;
	struct tfo_worker *w;
	struct tfo_control *c;
	const struct tfo_svc_ctr_map *map;
	struct rte_mbuf *m[2];
	struct tfo_acct a;
	struct harness h;
	uint64_t now = 1000000;

	h_init(&h, 64);
	tfo_config_defaults(&cfg);
	/* the section first, then its udp key */
	CHECK_EQ(tfo_config_set(&cfg, "service echo", "port", "7", err, sizeof(err)), 0);
	CHECK_EQ(tfo_config_set(&cfg, "service echo", "udp", "on", err, sizeof(err)), 0);
	s = echo_server(&h, &cfg, "udp", 1, 1);
	if (s == NULL)
		return;
	w = tfo_server_worker(s, 0);
	c = tfo_server_control(s);
	w->tx.flush = sink_flush;
	c->tx.flush = sink_flush;
	map = tfo_server_supervisor(s)->lcores.svc_ctrs;
	REQUIRE(map != NULL && map->nb == 3);
	CHECK(strcmp(map->name[2], "echo_datagrams") == 0);

	m[0] = h_udp_frame(&h, AF_INET, 7, "ping\n", 5, -1);
	m[1] = h_udp_frame(&h, AF_INET, 9, "ping\n", 5, -1);
	REQUIRE(m[0] != NULL && m[1] != NULL);
	tfo_worker_burst(w, 0, m, 2, now);
	w->tx.flush(&w->tx, 0);
	CHECK_EQ(w->stats.c[TFO_STAT_svc_udp_tx], 1);
	CHECK_EQ(w->stats.c[TFO_STAT_PKT_DROP_BASE + TFO_PKT_DROP_l4_proto], 1);
	CHECK_EQ(w->stats.c[TFO_STAT_tx_pkts], 1);
	CHECK_EQ(w->stats.svc[2], 1);
	CHECK(tfo_stats_account(&w->stats, &a));

	m[0] = h_udp_frame(&h, AF_INET6, 7, "ping6", 5, -1);
	REQUIRE(m[0] != NULL);
	tfo_control_burst(c, m, 1, now);
	c->tx.flush(&c->tx, 0);
	CHECK_EQ(c->stats.c[TFO_STAT_svc_udp_tx], 1);
	CHECK_EQ(c->stats.c[TFO_STAT_rx_delivered], 1);
	CHECK_EQ(c->stats.svc[2], 1);
	CHECK(tfo_stats_account(&c->stats, &a));
	tfo_server_free(s);
}

/*
 * The supervisor's step, which runs on control 0's lcore after its round:
 * a rotation asked for (as /tfo/rotate) waits for it (the control lcores'
 * polls leave the keys alone) and is counted on control 0; a reload with
 * random keys answers "keys: none configured", counts no error and is
 * published (reload_seq).
 */
TFO_TEST(server_supervisor_step)
{
	static struct tfo_config cfg;
	struct tfo_supervisor *sup;
	struct tfo_server *s;
	struct harness h;
	uint64_t gen, seq, now = 1000000;
	bool over = true;

	h_init(&h, 64);
	tfo_config_defaults(&cfg);
	s = echo_server(&h, &cfg, "sv", 1, 2);
	if (s == NULL)
		return;
	sup = tfo_server_supervisor(s);
	REQUIRE(sup->keys != NULL && sup->ctl == tfo_server_control(s));
	CHECK(sup->lcores.nb_controls == 2 && sup->lcores.nb_workers == 1);
	CHECK(sup->lcores.controls[1] == tfo_server_control_at(s, 1));
	gen = tfo_keyring_generation(sup->keys);
	tfo_supervisor_rotate(sup);
	tfo_control_poll(tfo_server_control_at(s, 0), now);
	tfo_control_poll(tfo_server_control_at(s, 1), now);
	CHECK_EQ(tfo_keyring_generation(sup->keys), gen);
	CHECK_EQ(tfo_supervisor_step(sup, now, rte_rdtsc(), &over), 0);
	CHECK(!over);
	CHECK_EQ(tfo_keyring_generation(sup->keys), gen + 1);
	CHECK_EQ(sup->ctl->stats.c[TFO_STAT_key_rotations], 1);
	CHECK_EQ(tfo_server_control_at(s, 1)->stats.c[TFO_STAT_key_rotations], 0);
	seq = __atomic_load_n(&sup->reload_seq, __ATOMIC_ACQUIRE);
	tfo_server_reload(s);
	/* the services' part (if any) is built on a thread: 2 s at most */
	for (unsigned int i = 0; i < 2000 && sup->reload_seq == seq; i++) {
		tfo_supervisor_step(sup, now, rte_rdtsc(), &over);
		if (sup->reload_seq == seq)
			rte_delay_us_sleep(1000);
	}
	CHECK_EQ(sup->reload_seq, seq + 1);
	CHECK(sup->reload_rc >= 0 && !over);
	CHECK_MSG(strncmp(sup->reload_msg, "keys: none configured", 21) == 0, "%s",
		  sup->reload_msg);
	CHECK_EQ(sup->ctl->stats.c[TFO_STAT_key_reload_errors], 0);
	tfo_server_free(s);
}

TFO_TEST_MAIN()
