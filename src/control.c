/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the control core: ARP, ICMP, ND, the slow path, stats.
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "tfo/control.h"
#include "tfo/log.h"
#include "tfo/port.h"

#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY 129
#define ND_NEIGHBOR_SOLICIT 135
#define ND_NEIGHBOR_ADVERT 136
#define ND_OPT_SOURCE_LLADDR 1
#define ND_OPT_TARGET_LLADDR 2
#define ND_NA_FLAG_SOLICITED 0x40
#define ND_NA_FLAG_OVERRIDE 0x20

/* Control-core TX: software checksums everywhere (slow path), so frames
 * carry no offload request. */
static void
tfo_control_tx_flush(struct tfo_tx *tx, uint8_t port_idx)
{
	struct tfo_control *c = tx->arg;
	struct tfo_tx_q *q = &tx->q[port_idx];
	uint16_t sent, n = q->n;

	if (n == 0)
		return;
	if (c->relay[port_idx] == NULL) {
		tfo_tx_q_send(q, c->ports[port_idx].port_id, c->tx_queue, &c->stats);
		return;
	}
	/* the worker counts them as its tx_pkts when the port takes them */
	sent = (uint16_t)rte_ring_sp_enqueue_burst(c->relay[port_idx],
						   (void **)q->pkts, n, NULL);
	c->stats.c[TFO_STAT_ctrl_relayed] += sent;
	if (unlikely(sent < n)) {
		c->stats.c[TFO_STAT_tx_drop_full] += n - sent;
		rte_pktmbuf_free_bulk(&q->pkts[sent], n - sent);
	}
	q->n = 0;
}

int
tfo_control_init(struct tfo_control *c, const struct tfo_config *cfg,
		 const struct tfo_port_info *ports, uint16_t nb_ports,
		 struct tfo_worker **workers, unsigned int nb_workers,
		 const volatile bool *quit)
{
	if (nb_ports > TFO_MAX_PORTS || cfg->burst > TFO_TX_BUF)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->cfg = cfg;
	c->ports = ports;
	c->nb_ports = nb_ports;
	c->workers = workers;
	c->nb_workers = nb_workers;
	c->tx_queue = (uint16_t)nb_workers;
	c->burst = cfg->burst;
	c->idle_sleep_us = cfg->idle_sleep_us;
	c->stats_period_s = cfg->stats_period;
	c->quit = quit;
	c->out = stdout;
	c->tsc_per_us = RTE_MAX(rte_get_tsc_hz() / 1000000, (uint64_t)1);
	c->tx.flush = tfo_control_tx_flush;
	c->tx.arg = c;
	c->tx.stats = &c->stats;
	c->syn_reserve = cfg->max_conns / 4;
	return 0;
}

static int
tfo_control_port_idx(const struct tfo_control *c, uint16_t port_id)
{
	for (uint16_t i = 0; i < c->nb_ports; i++)
		if (c->ports[i].port_id == port_id)
			return i;
	return -1;
}

/*
 * A received frame becomes our reply: its RX offload flags go, but not the
 * flags that say whose buffer it is. A frame in an external buffer (some
 * PMDs receive into them) or attached to another mbuf, freed as a direct
 * one, would put a foreign buffer into the mempool.
 */
static inline void
tfo_reply_flags(struct rte_mbuf *m)
{
	m->ol_flags &= RTE_MBUF_F_EXTERNAL | RTE_MBUF_F_INDIRECT;
}

static void
tfo_swap_macs(struct rte_ether_hdr *eh, const struct rte_ether_addr *ours)
{
	rte_ether_addr_copy(&eh->src_addr, &eh->dst_addr);
	rte_ether_addr_copy(ours, &eh->src_addr);
}

/* ---- ARP --------------------------------------------------------------- */

static bool
tfo_control_arp(struct tfo_control *c, struct rte_mbuf *m, const struct tfo_pkt *p,
		uint8_t port_idx)
{
	const struct tfo_port_info *port = &c->ports[port_idx];
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *ah = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *,
							 p->l2_len);
	struct tfo_addr tip = { .b = { 0 } };
	uint32_t sip = ah->arp_data.arp_sip;

	memcpy(tip.b, &ah->arp_data.arp_tip, 4);
	if (ah->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST) ||
	    tfo_port_addr_lookup(port, AF_INET, &tip) < 0) {
		c->stats.c[TFO_STAT_drop_arp_other]++;
		return false;
	}
	c->stats.c[TFO_STAT_arp_request_rx]++;
	ah->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	rte_ether_addr_copy(&ah->arp_data.arp_sha, &ah->arp_data.arp_tha);
	rte_ether_addr_copy(&port->mac, &ah->arp_data.arp_sha);
	ah->arp_data.arp_tip = sip;
	memcpy(&ah->arp_data.arp_sip, tip.b, 4);
	tfo_swap_macs(eh, &port->mac);
	tfo_reply_flags(m);
	tfo_tx_push(&c->tx, port_idx, m);
	c->stats.c[TFO_STAT_arp_reply_tx]++;
	return true;
}

/* ---- ICMPv4 echo ------------------------------------------------------- */

static bool
tfo_control_icmp(struct tfo_control *c, struct rte_mbuf *m, const struct tfo_pkt *p,
		 uint8_t port_idx)
{
	const struct tfo_port_info *port = &c->ports[port_idx];
	struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
							  p->l2_len);
	struct rte_icmp_hdr *icmp = rte_pktmbuf_mtod_offset(m, struct rte_icmp_hdr *,
							    p->payload_off);
	uint32_t tmp;
	uint64_t sum;

	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST || icmp->icmp_code != 0) {
		c->stats.c[TFO_STAT_drop_icmp_other]++;
		return false;
	}
	if (m->next != NULL) {
		/* a jumbo echo in chained mbufs: not worth answering */
		tfo_stats_drop(&c->stats, TFO_PKT_DROP_multiseg);
		return false;
	}
	c->stats.c[TFO_STAT_icmp_echo_rx]++;
	/* trim Ethernet padding so that the reply is exactly the datagram */
	rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - p->l2_len -
				       rte_be_to_cpu_16(ih->total_length)));
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	icmp->icmp_cksum = 0;
	sum = tfo_cksum_add(0, icmp, p->l4_len);
	icmp->icmp_cksum = (uint16_t)~tfo_cksum_fold(sum);
	tmp = ih->src_addr;
	ih->src_addr = ih->dst_addr;
	ih->dst_addr = tmp;
	ih->time_to_live = 64;
	ih->hdr_checksum = 0;
	ih->hdr_checksum = (uint16_t)~tfo_cksum_fold(tfo_cksum_add(0, ih, p->l3_len));
	tfo_swap_macs(rte_pktmbuf_mtod(m, struct rte_ether_hdr *), &port->mac);
	tfo_reply_flags(m);
	tfo_tx_push(&c->tx, port_idx, m);
	c->stats.c[TFO_STAT_icmp_echo_tx]++;
	return true;
}

/* ---- ICMPv6: echo and neighbor discovery ------------------------------- */

static const struct tfo_addr *
tfo_local_addr_by_idx(const struct tfo_port_info *port, uint8_t idx)
{
	return &port->addrs[idx - port->addr_base].addr;
}

static void
tfo_icmp6_cksum(struct rte_ipv6_hdr *ih, uint8_t *icmp, uint32_t len)
{
	struct tfo_addr s, d;
	uint64_t sum;

	memcpy(s.b, ih->src_addr, 16);
	memcpy(d.b, ih->dst_addr, 16);
	icmp[2] = icmp[3] = 0;
	sum = tfo_cksum_pseudo(AF_INET6, &s, &d, IPPROTO_ICMPV6, len);
	sum = tfo_cksum_add(sum, icmp, len);
	{
		uint16_t ck = (uint16_t)~tfo_cksum_fold(sum);

		memcpy(icmp + 2, &ck, 2);
	}
}

static bool
tfo_control_echo6(struct tfo_control *c, struct rte_mbuf *m, const struct tfo_pkt *req,
		  uint8_t port_idx)
{
	const struct tfo_port_info *port = &c->ports[port_idx];
	struct tfo_pkt q = *req, *p = &q;
	struct rte_ipv6_hdr *ih;
	uint8_t *icmp;

	if (m->next != NULL) {
		c->stats.c[TFO_STAT_drop_icmp6_other]++;
		return false;
	}
	c->stats.c[TFO_STAT_icmp6_echo_rx]++;
	/* the reply carries none of the request's extension headers */
	tfo_pkt_ipv6_strip_ext(m, p);
	ih = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, p->l2_len);
	icmp = rte_pktmbuf_mtod_offset(m, uint8_t *, p->payload_off);
	rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - p->payload_off - p->l4_len));
	icmp[0] = ICMP6_ECHO_REPLY;
	memcpy(ih->dst_addr, ih->src_addr, 16);
	/* an echo to a multicast group is answered from our unicast address */
	memcpy(ih->src_addr, tfo_local_addr_by_idx(port, p->local_idx)->b, 16);
	ih->hop_limits = 64;
	tfo_icmp6_cksum(ih, icmp, p->l4_len);
	tfo_swap_macs(rte_pktmbuf_mtod(m, struct rte_ether_hdr *), &port->mac);
	tfo_reply_flags(m);
	tfo_tx_push(&c->tx, port_idx, m);
	c->stats.c[TFO_STAT_icmp6_echo_tx]++;
	return true;
}

/*
 * Neighbor solicitation (RFC 4861 section 7.1.1 checks) for one of our
 * addresses: answer with a solicited NA carrying our link-layer address.
 * The reply is built in a fresh mbuf: the NS may lack the room or carry
 * options we do not want to echo. @return true when the NS was for us and
 * valid (then @p m is freed here, answered or not), false for a counted drop.
 */
static bool
tfo_control_ns(struct tfo_control *c, struct rte_mbuf *m, const struct tfo_pkt *p,
	       uint8_t port_idx, struct rte_mempool *pool)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
	const struct tfo_port_info *port = &c->ports[port_idx];
	const struct rte_ipv6_hdr *ih = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
								p->l2_len);
	const uint8_t *icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, p->payload_off);
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	struct tfo_addr target;
	bool dad;
	struct rte_mbuf *r;
	uint8_t *out;
	struct rte_ether_hdr *oeh;
	struct rte_ipv6_hdr *oih;
	uint8_t *na;
	uint16_t l2 = p->l2_len;
	const uint16_t na_len = 24 + 8;

	if (ih->hop_limits != 255 || icmp[1] != 0 || p->l4_len < 24 ||
	    m->next != NULL) {
		c->stats.c[TFO_STAT_drop_nd_bad]++;
		return false;
	}
	memcpy(target.b, icmp + 8, 16);
	if (target.b[0] == 0xff) {
		c->stats.c[TFO_STAT_drop_nd_bad]++;
		return false;
	}
	/* options: each a multiple of 8 bytes, none of length 0 */
	for (uint32_t off = 24; off < p->l4_len;) {
		if (off + 2 > p->l4_len || icmp[off + 1] == 0 ||
		    off + icmp[off + 1] * 8u > p->l4_len) {
			c->stats.c[TFO_STAT_drop_nd_bad]++;
			return false;
		}
		off += icmp[off + 1] * 8u;
	}
	if (tfo_port_addr_lookup(port, AF_INET6, &target) < 0) {
		c->stats.c[TFO_STAT_drop_icmp6_other]++;
		return false;
	}
	c->stats.c[TFO_STAT_nd_ns_rx]++;
	dad = p->src.b[0] == 0 && memcmp(p->src.b, p->src.b + 1, 15) == 0;

	r = rte_pktmbuf_alloc(pool);
	if (r == NULL) {
		c->stats.c[TFO_STAT_mbuf_alloc_fail]++;
		rte_pktmbuf_free(m);
		return true;	/* delivered; only the answer failed */
	}
	out = (uint8_t *)rte_pktmbuf_append(r, (uint16_t)(l2 + 40 + na_len));
	if (out == NULL) {
		rte_pktmbuf_free(r);
		c->stats.c[TFO_STAT_mbuf_alloc_fail]++;
		rte_pktmbuf_free(m);
		return true;
	}
	/* L2 (with the VLAN tag, if any) copied, then addressed back */
	memcpy(out, eh, l2);
	oeh = (struct rte_ether_hdr *)(void *)out;
	if (dad) {
		static const struct rte_ether_addr all_nodes_mac = {
			.addr_bytes = { 0x33, 0x33, 0, 0, 0, 1 } };

		rte_ether_addr_copy(&all_nodes_mac, &oeh->dst_addr);
	} else {
		rte_ether_addr_copy(&eh->src_addr, &oeh->dst_addr);
	}
	rte_ether_addr_copy(&port->mac, &oeh->src_addr);

	oih = (struct rte_ipv6_hdr *)(void *)(out + l2);
	oih->vtc_flow = rte_cpu_to_be_32(6u << 28);
	oih->payload_len = rte_cpu_to_be_16(na_len);
	oih->proto = IPPROTO_ICMPV6;
	oih->hop_limits = 255;
	memcpy(oih->src_addr, target.b, 16);
	memcpy(oih->dst_addr, dad ? all_nodes : p->src.b, 16);

	na = out + l2 + 40;
	memset(na, 0, na_len);
	na[0] = ND_NEIGHBOR_ADVERT;
	na[4] = (uint8_t)((dad ? 0 : ND_NA_FLAG_SOLICITED) | ND_NA_FLAG_OVERRIDE);
	memcpy(na + 8, target.b, 16);
	na[24] = ND_OPT_TARGET_LLADDR;
	na[25] = 1;
	memcpy(na + 26, port->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	tfo_icmp6_cksum(oih, na, na_len);

	tfo_tx_push(&c->tx, port_idx, r);
	c->stats.c[TFO_STAT_nd_na_tx]++;
	rte_pktmbuf_free(m);	/* the request itself is not reused */
	return true;
}

static bool
tfo_control_icmp6(struct tfo_control *c, struct rte_mbuf *m, const struct tfo_pkt *p,
		  uint8_t port_idx)
{
	const uint8_t *icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, p->payload_off);

	switch (icmp[0]) {
	case ICMP6_ECHO_REQUEST:
		if (icmp[1] == 0 && p->l4_len >= 8 &&
		    tfo_port_addr_lookup(&c->ports[port_idx], AF_INET6, &p->dst) >= 0)
			return tfo_control_echo6(c, m, p, port_idx);
		break;
	case ND_NEIGHBOR_SOLICIT:
		return tfo_control_ns(c, m, p, port_idx, m->pool);
	default:
		break;
	}
	c->stats.c[TFO_STAT_drop_icmp6_other]++;
	return false;
}

/* ---- slow-path TCP ----------------------------------------------------- */

/*
 * A SYN the fast path did not take, by the worker's reason: plain
 * handshakes, cookie requests and failed cookies get a SYN-ACK that acks only
 * the SYN (the SYN's data is not delivered: the client re-sends it), the
 * latter two with a fresh cookie; over the limit or with a worker's table
 * full, no cookie (as Linux). A table full down to its reserve means a SYN
 * cookie: under a flood of spoofed SYNs the entries they would take stay
 * free for the clients that complete the handshake (RFC 4987 section 3.6).
 * @return true if @m was consumed (false: a counted drop, caller frees).
 */
static bool
tfo_control_syn(struct tfo_control *c, struct rte_mbuf *m, const struct tfo_pkt *p,
		uint8_t port_idx, enum tfo_ctrl_reason reason, uint64_t now_us)
{
	const uint8_t *th = tfo_pkt_tcp_hdr(m, p);
	uint8_t cookie[TFO_COOKIE_LEN];
	struct tfo_tcpopts o;
	struct tfo_open_params op = { .opts = &o };
	int rc;

	tfo_tcpopt_parse(th + 20, p->l4_len - 20u, &o);	/* malformed: keep what parsed */
	if (c->cfg->syncookies && tfo_engine_free_conns(c->engine) <= c->syn_reserve &&
	    tfo_engine_serves(c->engine, p->dport)) {
		tfo_engine_syncookie_reply(c->engine, m, p, port_idx, &o, now_us);
		return true;
	}
	if ((reason == TFO_CTRL_TCP_COOKIE_REQ || reason == TFO_CTRL_TCP_BAD_COOKIE) &&
	    c->cookies != NULL && o.form != TFO_FORM_NONE) {
		struct tfo_cookie_req r = {
			.family = p->family, .client = &p->src, .server = &p->dst,
		};

		if (tfo_cookie_gen_burst(c->cookies, &r, 1, &cookie) == 0) {
			op.cookie_form = o.form;
			op.cookie_len = TFO_COOKIE_LEN;
			op.cookie = cookie;
		}
	}
	rc = tfo_engine_open(c->engine, m, p, port_idx, &op, now_us);
	if (rc == 0)
		return true;
	if (rc == -ENOSPC && c->cfg->syncookies) {
		tfo_engine_syncookie_reply(c->engine, m, p, port_idx, &o, now_us);
		return true;
	}
	if (rc == -ENOSPC) {
		/* no room and no SYN cookies: silence, as Linux; the client
		 * retransmits its SYN (a RST would make it give up) */
		c->stats.c[TFO_STAT_drop_syn_table_full]++;
		return false;
	}
	/* -ENOENT: closed port, answered with a RST */
	tfo_engine_input_nomatch(c->engine, m, p, port_idx, now_us);
	return true;
}

static bool
tfo_control_tcp(struct tfo_control *c, struct rte_mbuf *m, const struct tfo_pkt *p,
		uint8_t port_idx, enum tfo_ctrl_reason reason, uint64_t now_us)
{
	const struct tfo_pkt *pp = p;
	struct tfo_conn *conn;

	if (c->engine == NULL) {
		c->stats.c[TFO_STAT_drop_tcp_nohandler]++;
		return false;
	}
	tfo_engine_lookup_bulk(c->engine, &pp, 1, &conn);
	if (conn != NULL &&
	    tfo_engine_input(c->engine, conn, m, p, port_idx, now_us) == TFO_INPUT_DONE) {
		return true;
	}
	if ((p->tcp_flags & (TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_RST)) == TFO_TCP_SYN &&
	    reason != TFO_CTRL_TCP_NO_SERVICE) {
		return tfo_control_syn(c, m, p, port_idx, reason, now_us);
	}
	/* RST for what belongs to nothing (never for a RST), or a SYN-cookie ACK */
	tfo_engine_input_nomatch(c->engine, m, p, port_idx, now_us);
	return true;
}

/* ---- keys -------------------------------------------------------------- */

static void
tfo_control_keys(struct tfo_control *c, uint64_t now_us)
{
	bool due = c->next_rotate_us != 0 && now_us >= c->next_rotate_us;

	if (c->keys == NULL || (!due && !c->rotate_requested))
		return;
	if (due)
		c->next_rotate_us = now_us + (uint64_t)c->cfg->rotate_period_s * 1000000;
	c->rotate_requested = 0;
	if (tfo_keyring_rotate(c->keys, NULL) == 0)
		c->stats.c[TFO_STAT_key_rotations]++;
}

/*
 * Re-read the key file (SIGHUP, /tfo/reload). Done here, not in the
 * telemetry thread, so that the counters keep one writer; the outcome is
 * published with reload_seq for whoever asked.
 */
static void
tfo_control_reload(struct tfo_control *c)
{
	char msg[sizeof(c->reload_msg)];
	int rc;

	if (!c->reload_requested)
		return;
	c->reload_requested = 0;
	if (c->keys == NULL) {
		rc = -ENOTSUP;
		snprintf(msg, sizeof(msg), "TFO is disabled: no keys to reload");
	} else if (c->key_file == NULL) {
		rc = -ENOENT;
		snprintf(msg, sizeof(msg), "no [tfo] key_file configured (random keys): "
			 "nothing to reload; /tfo/rotate makes a new key");
	} else {
		rc = tfo_keyring_reload_file(c->keys, c->key_file, msg, sizeof(msg));
	}
	if (rc < 0) {
		c->stats.c[TFO_STAT_key_reload_errors]++;
		TFO_LOG(ERR, "key reload refused: %s", msg);
	} else {
		if (rc > 0)
			c->stats.c[TFO_STAT_key_reloads]++;
		TFO_LOG(INFO, "key file %s re-read: %s", c->key_file, msg);
	}
	c->reload_rc = rc;
	snprintf(c->reload_msg, sizeof(c->reload_msg), "%s", msg);
	__atomic_store_n(&c->reload_seq, c->reload_seq + 1, __ATOMIC_RELEASE);
}

/* ---- the loop ---------------------------------------------------------- */

/*
 * Handle one frame from a worker. @return true if it was delivered (@m is
 * the handler's now), false if it is to be freed: then exactly one
 * frame-drop reason was counted (the accounting of stats.h).
 */
static bool
tfo_control_handle(struct tfo_control *c, struct rte_mbuf *m, uint64_t now_us)
{
	struct tfo_pkt p;
	int pi = tfo_control_port_idx(c, m->port);
	enum tfo_pkt_class cls;

	if (pi < 0) {
		c->stats.c[TFO_STAT_drop_ctrl_no_port]++;
		return false;
	}
	/* re-parse: cheaper than carrying struct tfo_pkt through the ring */
	cls = tfo_pkt_parse(m, &c->ports[pi], &p);
	switch (cls) {
	case TFO_PKT_ARP:
		return tfo_control_arp(c, m, &p, (uint8_t)pi);
	case TFO_PKT_ICMP:
		return tfo_control_icmp(c, m, &p, (uint8_t)pi);
	case TFO_PKT_ICMP6:
		return tfo_control_icmp6(c, m, &p, (uint8_t)pi);
	case TFO_PKT_TCP:
		return tfo_control_tcp(c, m, &p, (uint8_t)pi, tfo_ctrl_reason_get(m),
				       now_us);
	case TFO_PKT_DROP:
	default:
		tfo_stats_drop(&c->stats, (enum tfo_pkt_drop)p.drop);
		return false;
	}
}

void
tfo_control_burst(struct tfo_control *c, struct rte_mbuf **pkts, unsigned int n,
		  uint64_t now_us)
{
	c->stats.c[TFO_STAT_ctrl_rx] += n;
	for (unsigned int i = 0; i < n; i++) {
		if (tfo_control_handle(c, pkts[i], now_us))
			c->stats.c[TFO_STAT_rx_delivered]++;
		else
			rte_pktmbuf_free(pkts[i]);
	}
}

/*
 * The SYN queue of a port with hardware SYN steering: each SYN goes to the
 * worker RSS gives its flow, so that the rest of the connection (which RSS
 * sends there) finds it. A full inbox is a counted drop (the client
 * retransmits its SYN).
 */
static unsigned int
tfo_control_syn_queue(struct tfo_control *c, uint8_t pi)
{
	const struct tfo_port_info *port = &c->ports[pi];
	struct rte_mbuf *pkts[TFO_TX_BUF];
	uint16_t n = rte_eth_rx_burst(port->port_id, port->syn_queue, pkts,
				      (uint16_t)c->burst);

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct tfo_pkt p, *pp = NULL;
		unsigned int w;

		if (!(m->ol_flags & RTE_MBUF_F_RX_RSS_HASH) && port->syn_workers > 1 &&
		    tfo_pkt_parse(m, port, &p) == TFO_PKT_TCP)
			pp = &p;
		w = tfo_port_syn_worker(port, m, pp);
		if (w < c->nb_workers && c->workers[w]->syn_inbox != NULL &&
		    rte_ring_sp_enqueue(c->workers[w]->syn_inbox, m) == 0) {
			c->stats.c[TFO_STAT_syn_steered]++;
			continue;
		}
		/* counted here as received, and dropped */
		c->stats.c[TFO_STAT_rx_pkts]++;
		c->stats.c[TFO_STAT_rx_bytes] += m->pkt_len;
		c->stats.c[TFO_STAT_syn_steer_drop]++;
		rte_pktmbuf_free(m);
	}
	return n;
}

unsigned int
tfo_control_poll(struct tfo_control *c, uint64_t now_us)
{
	struct rte_mbuf *pkts[TFO_TX_BUF];
	unsigned int total = 0;

	for (unsigned int wi = 0; wi < c->nb_workers; wi++) {
		unsigned int n = rte_ring_sc_dequeue_burst(c->workers[wi]->to_control,
							   (void **)pkts, c->burst, NULL);

		total += n;
		tfo_control_burst(c, pkts, n, now_us);
	}
	for (uint8_t pi = 0; pi < c->nb_ports; pi++)
		if (c->ports[pi].syn_steering)
			total += tfo_control_syn_queue(c, pi);
	if (c->engine != NULL)
		tfo_engine_timers(c->engine, now_us);
	tfo_control_keys(c, now_us);
	tfo_control_reload(c);
	for (uint8_t pi = 0; pi < c->nb_ports; pi++)
		c->tx.flush(&c->tx, pi);
	return total;
}

void
tfo_control_aggregate(const struct tfo_control *c, struct tfo_stats *total)
{
	memset(total, 0, sizeof(*total));
	tfo_stats_accumulate(total, &c->stats);
	for (unsigned int i = 0; i < c->nb_workers; i++)
		tfo_stats_accumulate(total, &c->workers[i]->stats);
}

static uint64_t
tfo_drops(const struct tfo_stats *s)
{
	/* frames, not the engine's segment-level drop_* (those were answered) */
	uint64_t d = s->c[TFO_STAT_tx_drop_full];

	for (unsigned int i = 0; i < TFO_STAT_MAX; i++)
		if (tfo_stats_is_frame_drop(i))
			d += s->c[i];
	return d;
}

static void
tfo_control_stats_line(struct tfo_control *c, uint64_t now_us)
{
	struct tfo_stats total;
	double secs = (double)(now_us - c->last_stats_us) / 1e6;
	const uint64_t *t, *l;

	tfo_control_aggregate(c, &total);
	t = total.c;
	l = c->last_total.c;
	fprintf(c->out,
		"stats: rx %.0f pps tx %.0f pps | rx %" PRIu64 " tx %" PRIu64
		" drops %" PRIu64 " to_control %" PRIu64 " | conns %" PRIu64
		" pending %" PRIu64
		" | TFO passive %" PRIu64 " fail %" PRIu64 " overflow %" PRIu64
		" cookiereq %" PRIu64 " altkey %" PRIu64 "\n",
		(double)(t[TFO_STAT_rx_pkts] - l[TFO_STAT_rx_pkts]) / secs,
		(double)(t[TFO_STAT_tx_pkts] - l[TFO_STAT_tx_pkts]) / secs,
		t[TFO_STAT_rx_pkts], t[TFO_STAT_tx_pkts], tfo_drops(&total),
		t[TFO_STAT_to_control], t[TFO_STAT_conns_active], t[TFO_STAT_tfo_pending],
		t[TFO_STAT_TCPFastOpenPassive], t[TFO_STAT_TCPFastOpenPassiveFail],
		t[TFO_STAT_TCPFastOpenListenOverflow], t[TFO_STAT_TCPFastOpenCookieReqd],
		t[TFO_STAT_TCPFastOpenPassiveAltKey]);
	fflush(c->out);
	c->last_total = total;
	c->last_stats_us = now_us;
}

int
tfo_control_main(struct tfo_control *c)
{
	uint64_t now_us = rte_rdtsc() / c->tsc_per_us;

	c->last_stats_us = now_us;
	while (!*c->quit) {
		unsigned int n;

		now_us = rte_rdtsc() / c->tsc_per_us;
		n = tfo_control_poll(c, now_us);
		if (c->stats_period_s &&
		    now_us - c->last_stats_us >= (uint64_t)c->stats_period_s * 1000000)
			tfo_control_stats_line(c, now_us);
		if (n == 0 && c->idle_sleep_us)
			tfo_nap_us(c->idle_sleep_us);
	}
	return 0;
}

static void
tfo_summary_lcore(FILE *f, const char *who, const struct tfo_stats *s)
{
	char prefix[48];

	snprintf(prefix, sizeof(prefix), "  %s ", who);
	tfo_stats_dump(f, prefix, s);
}

/*
 * Frames waiting in the rings between the lcores: to the control core
 * (sum of the workers' to_control - ctrl_rx) and on the relay (ctrl_relayed
 * - tx_relay_in). From the counters and from the rings themselves: the two
 * agree when every lcore is stopped (at exit).
 */
static void
tfo_ring_backlog(const struct tfo_control *c, const struct tfo_stats *total,
		 int64_t *counted, uint64_t *in_rings)
{
	*counted = (int64_t)(total->c[TFO_STAT_to_control] - total->c[TFO_STAT_ctrl_rx]) +
		   (int64_t)(total->c[TFO_STAT_ctrl_relayed] - total->c[TFO_STAT_tx_relay_in]);
	*in_rings = 0;
	for (unsigned int i = 0; i < c->nb_workers; i++)
		if (c->workers[i]->to_control != NULL)
			*in_rings += rte_ring_count(c->workers[i]->to_control);
	for (uint16_t i = 0; i < c->nb_ports; i++)
		if (c->relay[i] != NULL)
			*in_rings += rte_ring_count(c->relay[i]);
}

static bool
tfo_summary_acct(FILE *f, const char *who, const struct tfo_stats *s)
{
	struct tfo_acct a;
	char line[320];
	bool ok = tfo_stats_account(s, &a);

	if (f != NULL) {
		tfo_acct_format(&a, line, sizeof(line));
		fprintf(f, "  %s %s: %s\n", who, ok ? "ok" : "UNBALANCED", line);
	}
	return ok;
}

bool
tfo_control_accounting(const struct tfo_control *c, FILE *f)
{
	struct tfo_stats total;
	uint64_t in_rings;
	int64_t counted;
	char who[40];
	bool ok;

	tfo_control_aggregate(c, &total);
	tfo_ring_backlog(c, &total, &counted, &in_rings);
	if (f != NULL)
		fprintf(f, "summary: accounting (every frame counted exactly once)\n");
	snprintf(who, sizeof(who), "control(lcore %u)", rte_get_main_lcore());
	ok = tfo_summary_acct(f, who, &c->stats);
	for (unsigned int i = 0; i < c->nb_workers; i++) {
		snprintf(who, sizeof(who), "worker%u(lcore %u)", i, c->workers[i]->lcore_id);
		ok &= tfo_summary_acct(f, who, &c->workers[i]->stats);
	}
	ok &= tfo_summary_acct(f, "total", &total);
	ok &= counted == (int64_t)in_rings;
	if (f != NULL) {
		fprintf(f, "  rings: %" PRId64 " frames by the counters, %" PRIu64
			" in the rings\n", counted, in_rings);
		fprintf(f, "accounting: %s\n", ok ? "ok" : "UNBALANCED");
	}
	return ok;
}

void
tfo_control_summary(const struct tfo_control *c, FILE *f)
{
	struct tfo_stats total;
	char who[32];

	tfo_control_aggregate(c, &total);
	fprintf(f, "summary: counters (all lcores)\n");
	tfo_summary_lcore(f, "total", &total);
	snprintf(who, sizeof(who), "control(lcore %u)", rte_get_main_lcore());
	tfo_summary_lcore(f, who, &c->stats);
	for (unsigned int i = 0; i < c->nb_workers; i++) {
		snprintf(who, sizeof(who), "worker%u(lcore %u)", i,
			 c->workers[i]->lcore_id);
		tfo_summary_lcore(f, who, &c->workers[i]->stats);
	}
	tfo_control_accounting(c, f);
	for (uint16_t i = 0; i < c->nb_ports; i++) {
		struct rte_eth_stats es;

		if (rte_eth_stats_get(c->ports[i].port_id, &es) != 0)
			continue;
		fprintf(f, "  port%u ipackets %" PRIu64 " opackets %" PRIu64
			" imissed %" PRIu64 " ierrors %" PRIu64 " oerrors %" PRIu64
			" rx_nombuf %" PRIu64 "\n", c->ports[i].port_id,
			es.ipackets, es.opackets, es.imissed, es.ierrors,
			es.oerrors, es.rx_nombuf);
	}
	fflush(f);
}

/* ---- telemetry --------------------------------------------------------- */

static struct tfo_control *tfo_tel_control;

static void
tfo_tel_add_stats(struct rte_tel_data *d, const struct tfo_stats *s, bool all)
{
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < TFO_STAT_MAX; i++) {
		if (i == TFO_STAT_PKT_DROP_BASE)
			continue;
		if (all || s->c[i] != 0)
			rte_tel_data_add_dict_u64(d, tfo_stats_name(i), s->c[i]);
	}
}

/* The accounting fields of one lcore (or the total) in its dict. */
static void
tfo_tel_add_acct(struct rte_tel_data *d, const struct tfo_stats *s)
{
	struct tfo_acct a;
	bool ok = tfo_stats_account(s, &a);

	rte_tel_data_add_dict_u64(d, "rx_dropped", a.dropped);
	rte_tel_data_add_dict_int(d, "rx_unaccounted",
				  (int)RTE_MAX(RTE_MIN(a.rx_unaccounted, (int64_t)INT32_MAX),
					       (int64_t)INT32_MIN));
	rte_tel_data_add_dict_int(d, "tx_unaccounted",
				  (int)RTE_MAX(RTE_MIN(a.tx_unaccounted, (int64_t)INT32_MAX),
					       (int64_t)INT32_MIN));
	rte_tel_data_add_dict_u64(d, "accounting_ok", ok);
}

/*
 * Copy every lcore's counters (control first) into @p snap. A busy lcore
 * may be in the middle of a burst, so that its copy does not balance: copy
 * again a few times, 1 ms apart, until all balance (an idle server always
 * does; a busy one shows what it shows).
 */
static void
tfo_tel_snapshot(const struct tfo_control *c, struct tfo_stats *snap)
{
	for (int attempt = 0; attempt < 5; attempt++) {
		struct tfo_acct a;
		bool ok;

		snap[0] = c->stats;
		ok = tfo_stats_account(&snap[0], &a);
		for (unsigned int i = 0; i < c->nb_workers; i++) {
			snap[1 + i] = c->workers[i]->stats;
			ok &= tfo_stats_account(&snap[1 + i], &a);
		}
		if (ok)
			return;
		tfo_nap_us(1000);
	}
}

/* Name and lcore id of snapshot entry @p i (0: the control core). */
static unsigned int
tfo_tel_lcore_name(const struct tfo_control *c, unsigned int i, char *name, size_t len)
{
	if (i == 0) {
		snprintf(name, len, "lcore%u_control", rte_get_main_lcore());
		return rte_get_main_lcore();
	}
	snprintf(name, len, "lcore%u_worker%u", c->workers[i - 1]->lcore_id, i - 1);
	return c->workers[i - 1]->lcore_id;
}

/*
 * /tfo/stats: the totals (every counter), then each lcore's non-zero ones.
 * With many workers that outgrows the telemetry answer (16 KiB), so a
 * parameter narrows it: "total", "lcores" (name -> lcore id), or an lcore
 * id (all of that lcore's counters); tfo-prom asks lcore by lcore.
 */
static int
tfo_tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tfo_control *c = tfo_tel_control;
	struct tfo_stats total, *snap;
	struct rte_tel_data *sub;
	char name[32];
	bool one = false, total_only = false, list = false;
	unsigned long want = 0;
	int rc = 0;

	RTE_SET_USED(cmd);
	if (c == NULL)
		return -ENODEV;
	if (params != NULL && params[0] != '\0') {
		char *end;

		if (strcmp(params, "total") == 0) {
			total_only = true;
		} else if (strcmp(params, "lcores") == 0) {
			list = true;
		} else {
			want = strtoul(params, &end, 10);
			if (*end != '\0' || end == params)
				return -EINVAL;
			one = true;
		}
	}
	if (list) {
		rte_tel_data_start_dict(d);
		for (unsigned int i = 0; i <= c->nb_workers; i++) {
			unsigned int lc = tfo_tel_lcore_name(c, i, name, sizeof(name));

			rte_tel_data_add_dict_u64(d, name, lc);
		}
		return 0;
	}
	snap = malloc(sizeof(*snap) * (c->nb_workers + 1));
	if (snap == NULL)
		return -ENOMEM;
	tfo_tel_snapshot(c, snap);
	if (one) {
		rc = -EINVAL;
		for (unsigned int i = 0; i <= c->nb_workers; i++) {
			if (tfo_tel_lcore_name(c, i, name, sizeof(name)) != want)
				continue;
			tfo_tel_add_stats(d, &snap[i], true);
			tfo_tel_add_acct(d, &snap[i]);
			rc = 0;
		}
		free(snap);
		return rc;
	}
	memset(&total, 0, sizeof(total));
	for (unsigned int i = 0; i <= c->nb_workers; i++)
		tfo_stats_accumulate(&total, &snap[i]);
	tfo_tel_add_stats(d, &total, true);
	tfo_tel_add_acct(d, &total);
	for (unsigned int i = 0; i <= c->nb_workers && !total_only; i++) {
		sub = rte_tel_data_alloc();
		if (sub == NULL) {
			rc = -ENOMEM;
			break;
		}
		tfo_tel_add_stats(sub, &snap[i], false);
		tfo_tel_add_acct(sub, &snap[i]);
		tfo_tel_lcore_name(c, i, name, sizeof(name));
		rte_tel_data_add_dict_container(d, name, sub, 0);
	}
	free(snap);
	return rc;
}

/*
 * /tfo/counters[,FROM]: what every counter means, as "counter: help" or
 * "gauge: help", TFO_TEL_COUNTERS_PAGE at a time from id FROM (the whole
 * list does not fit one telemetry answer); "next" is where the next page
 * starts, 0 after the last.
 */
#define TFO_TEL_COUNTERS_PAGE 64

static int
tfo_tel_counters(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rte_tel_data *sub;
	unsigned long from = 0;
	unsigned int i, n = 0;

	RTE_SET_USED(cmd);
	if (params != NULL && params[0] != '\0') {
		char *end;

		from = strtoul(params, &end, 10);
		if (*end != '\0')
			return -EINVAL;
	}
	sub = rte_tel_data_alloc();
	if (sub == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(sub);
	for (i = (unsigned int)RTE_MIN(from, (unsigned long)TFO_STAT_MAX);
	     i < TFO_STAT_MAX && n < TFO_TEL_COUNTERS_PAGE; i++) {
		char text[RTE_TEL_MAX_STRING_LEN];

		if (i == TFO_STAT_PKT_DROP_BASE)
			continue;
		snprintf(text, sizeof(text), "%s: %s", tfo_stats_is_gauge(i) ? "gauge" : "counter",
			 tfo_stats_help(i));
		rte_tel_data_add_dict_string(sub, tfo_stats_name(i), text);
		n++;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "next", i < TFO_STAT_MAX ? i : 0);
	rte_tel_data_add_dict_container(d, "counters", sub, 0);
	return 0;
}

static int
tfo_tel_keys(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tfo_control *c = tfo_tel_control;
	char prim[17], backup[17];

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (c == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	if (c->keys == NULL) {
		rte_tel_data_add_dict_string(d, "tfo", "disabled");
		return 0;
	}
	tfo_keyring_fingerprints(c->keys, prim, backup);
	rte_tel_data_add_dict_string(d, "algo",
				     tfo_cookie_algo_name(tfo_keyring_algo(c->keys)));
	rte_tel_data_add_dict_string(d, "primary", prim);
	rte_tel_data_add_dict_string(d, "backup", backup);
	rte_tel_data_add_dict_u64(d, "generation", tfo_keyring_generation(c->keys));
	rte_tel_data_add_dict_u64(d, "rotate_period_s", c->cfg->rotate_period_s);
	return 0;
}

/* Rotation is requested here and done by the control core, the single
 * writer of the key ring's schedule; the answer shows the new keys. */
static int
tfo_tel_rotate(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tfo_control *c = tfo_tel_control;
	uint64_t gen;

	if (c == NULL)
		return -ENODEV;
	if (c->keys == NULL)
		return tfo_tel_keys(cmd, params, d);
	gen = tfo_keyring_generation(c->keys);
	c->rotate_requested = 1;
	for (uint64_t end = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();
	     tfo_keyring_generation(c->keys) == gen && rte_get_tsc_cycles() < end;)
		tfo_nap_us(1000);
	return tfo_tel_keys(cmd, params, d);
}

/* Key file reload, done by the control core; the answer says what happened. */
static int
tfo_tel_reload(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tfo_control *c = tfo_tel_control;
	uint64_t seq;
	int done = 0;

	if (c == NULL)
		return -ENODEV;
	seq = __atomic_load_n(&c->reload_seq, __ATOMIC_ACQUIRE);
	c->reload_requested = 1;
	for (uint64_t end = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();
	     !done && rte_get_tsc_cycles() < end;) {
		tfo_nap_us(1000);
		done = __atomic_load_n(&c->reload_seq, __ATOMIC_ACQUIRE) != seq;
	}
	if (!done) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "result", "error");
		rte_tel_data_add_dict_string(d, "error", "the control core did not answer in 2 s");
		return 0;
	}
	tfo_tel_keys(cmd, params, d);
	if (c->key_file != NULL)
		rte_tel_data_add_dict_string(d, "key_file", c->key_file);
	rte_tel_data_add_dict_string(d, "result", c->reload_rc > 0 ? "changed" :
				     c->reload_rc == 0 ? "unchanged" : "error");
	rte_tel_data_add_dict_string(d, c->reload_rc < 0 ? "error" : "message",
				     c->reload_msg);
	return 0;
}

static void
tfo_tel_add_conns(struct rte_tel_data *d, const struct tfo_engine *e)
{
	uint32_t n[TFO_CONN_NB_STATES];

	rte_tel_data_start_dict(d);
	tfo_engine_conn_counts(e, n);
	for (unsigned int s = 1; s < TFO_CONN_NB_STATES; s++)
		rte_tel_data_add_dict_u64(d, tfo_conn_state_name((enum tfo_conn_state)s),
					  n[s]);
	rte_tel_data_add_dict_u64(d, "free", tfo_engine_free_conns(e));
	rte_tel_data_add_dict_u64(d, "tfo_pending", tfo_engine_tfo_pending(e));
}

static int
tfo_tel_conns(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tfo_control *c = tfo_tel_control;
	char name[32];

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (c == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	if (c->engine != NULL) {
		struct rte_tel_data *sub = rte_tel_data_alloc();

		if (sub == NULL)
			return -ENOMEM;
		tfo_tel_add_conns(sub, c->engine);
		snprintf(name, sizeof(name), "lcore%u_control", rte_get_main_lcore());
		rte_tel_data_add_dict_container(d, name, sub, 0);
	}
	for (unsigned int i = 0; i < c->nb_workers; i++) {
		struct rte_tel_data *sub;

		if (c->workers[i]->engine == NULL)
			continue;
		sub = rte_tel_data_alloc();
		if (sub == NULL)
			return -ENOMEM;
		tfo_tel_add_conns(sub, c->workers[i]->engine);
		snprintf(name, sizeof(name), "lcore%u_worker%u", c->workers[i]->lcore_id, i);
		rte_tel_data_add_dict_container(d, name, sub, 0);
	}
	return 0;
}

/*
 * The effective configuration, as "section.key = value" strings (telemetry
 * dict names may not hold the spaces, dots and colons of section names,
 * and a port may repeat ipv4/ipv6).
 */
static int
tfo_tel_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tfo_control *c = tfo_tel_control;
	char *text = NULL, *line, *save = NULL, section[96] = "";
	size_t len = 0;
	FILE *f;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (c == NULL)
		return -ENODEV;
	f = open_memstream(&text, &len);
	if (f == NULL)
		return -ENOMEM;
	tfo_config_dump(f, c->cfg);
	fclose(f);
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char entry[RTE_TEL_MAX_STRING_LEN];

		if (line[0] == '[') {
			snprintf(section, sizeof(section), "%.*s", (int)strcspn(line + 1, "]"),
				 line + 1);
			continue;
		}
		if (line[0] == ';' || strstr(line, " = ") == NULL)
			continue;
		snprintf(entry, sizeof(entry), "%s.%s", section, line);
		rte_tel_data_add_array_string(d, entry);
	}
	free(text);
	return 0;
}

int
tfo_control_telemetry_register(struct tfo_control *c)
{
	static const struct {
		const char *name;
		telemetry_cb cb;
		const char *help;
	} cmds[] = {
		{ "/tfo/stats", tfo_tel_stats,
		  "counters: totals, then per lcore (non-zero); ,total ,lcores or ,LCORE_ID (all)" },
		{ "/tfo/counters", tfo_tel_counters,
		  "what each counter means (counter or gauge: help), 64 from ,FROM" },
		{ "/tfo/keys", tfo_tel_keys,
		  "TFO key fingerprints (never the keys), algorithm, generation" },
		{ "/tfo/rotate", tfo_tel_rotate,
		  "rotate the TFO key now (new primary, old primary becomes backup)" },
		{ "/tfo/reload", tfo_tel_reload,
		  "re-read the TFO key file, as SIGHUP (a bad file changes nothing)" },
		{ "/tfo/conns", tfo_tel_conns, "connections by state, per lcore" },
		{ "/tfo/config", tfo_tel_config,
		  "the effective configuration, as section.key = value lines" },
	};
	int rc = 0;

	tfo_tel_control = c;
	for (unsigned int i = 0; i < RTE_DIM(cmds); i++) {
		int r = rte_telemetry_register_cmd(cmds[i].name, cmds[i].cb, cmds[i].help);

		if (r != 0) {
			TFO_LOG(ERR, "telemetry %s: %s", cmds[i].name, strerror(-r));
			rc = r;
		}
	}
	return rc;
}
