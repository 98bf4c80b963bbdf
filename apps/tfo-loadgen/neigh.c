/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-loadgen: ARP and IPv6 neighbor discovery.
 *
 * The clients must look like hosts: the server (a kernel behind net_tap,
 * or tfo-server) resolves every client address before it answers, so
 * requests for any address of the range (and the alias) are answered.
 * The server's own MAC is learned from whatever ARP/ND message it sends
 * (its answer to our request, or its own request), as a kernel would.
 */
#include <netinet/in.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "lg.h"

#define ND_NS 135
#define ND_NA 136
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define ND_NA_SOLICITED 0x40
#define ND_NA_OVERRIDE 0x20
#define ND_LEN 32		/* NS/NA with one link-layer address option */

static bool
lg_is_ours(const struct lg_opts *o, int family, const struct tfo_addr *a)
{
	if (lg_addr_index(o, family, a) >= 0)
		return true;
	return o->alias_set && family == o->family &&
	       memcmp(a->b, o->alias.b, family == AF_INET ? 4 : 16) == 0;
}

static void
lg_learn_server(struct lg_lcore *lc, uint8_t port_idx, const struct rte_ether_addr *mac)
{
	struct lg_port *p = &lc->sh->ports[port_idx];

	if (p->resolved || rte_is_zero_ether_addr(mac) || rte_is_multicast_ether_addr(mac))
		return;
	p->server_mac = *mac;
	rte_smp_wmb();
	p->resolved = 1;
	LG_INC(&lc->stats, server_mac_learned);
}

/* ---- ARP ------------------------------------------------------------------ */

void
lg_arp_input(struct lg_lcore *lc, struct rte_mbuf *m, const struct tfo_pkt *p,
	     uint8_t port_idx)
{
	const struct lg_opts *o = lc->o;
	const struct tfo_port_info *port = &lc->sh->ports[port_idx].info;
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *ah = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *,
							 p->l2_len);
	struct tfo_addr tip = { .b = { 0 } };
	uint32_t sip = ah->arp_data.arp_sip;

	if (o->family == AF_INET && memcmp(&sip, o->server.b, 4) == 0)
		lg_learn_server(lc, port_idx, &ah->arp_data.arp_sha);
	memcpy(tip.b, &ah->arp_data.arp_tip, 4);
	if (ah->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST) ||
	    !lg_is_ours(o, AF_INET, &tip)) {
		LG_INC(&lc->stats, neigh_ignored);
		rte_pktmbuf_free(m);
		return;
	}
	LG_INC(&lc->stats, arp_request_rx);
	ah->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	ah->arp_data.arp_tha = ah->arp_data.arp_sha;
	ah->arp_data.arp_sha = port->mac;
	ah->arp_data.arp_tip = sip;
	memcpy(&ah->arp_data.arp_sip, tip.b, 4);
	eh->dst_addr = eh->src_addr;
	eh->src_addr = port->mac;
	m->ol_flags = 0;
	tfo_tx_push(&lc->tx, port_idx, m);
	LG_INC(&lc->stats, arp_reply_tx);
}

static void
lg_arp_request(struct lg_lcore *lc, uint8_t port_idx, const struct tfo_addr *src)
{
	const struct tfo_port_info *port = &lc->sh->ports[port_idx].info;
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *ah;
	struct rte_mbuf *m = rte_pktmbuf_alloc(lc->pool);

	if (m == NULL) {
		LG_INC(&lc->stats, mbuf_alloc_fail);
		return;
	}
	eh = (struct rte_ether_hdr *)(void *)rte_pktmbuf_append(m, sizeof(*eh) + sizeof(*ah));
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		LG_INC(&lc->stats, mbuf_alloc_fail);
		return;
	}
	memset(&eh->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	eh->src_addr = port->mac;
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	ah = (struct rte_arp_hdr *)(eh + 1);
	ah->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	ah->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ah->arp_hlen = RTE_ETHER_ADDR_LEN;
	ah->arp_plen = 4;
	ah->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
	ah->arp_data.arp_sha = port->mac;
	memcpy(&ah->arp_data.arp_sip, src->b, 4);
	memset(&ah->arp_data.arp_tha, 0, RTE_ETHER_ADDR_LEN);
	memcpy(&ah->arp_data.arp_tip, lc->o->server.b, 4);
	tfo_tx_push(&lc->tx, port_idx, m);
	LG_INC(&lc->stats, arp_request_tx);
}

/* ---- ND ------------------------------------------------------------------ */

/*
 * An NS or NA (RFC 4861 4.3/4.4) with one link-layer address option,
 * built in a fresh mbuf.
 */
static void
lg_nd_send(struct lg_lcore *lc, uint8_t port_idx, uint8_t type, uint8_t na_flags,
	   const struct rte_ether_addr *dst_mac, const uint8_t *src, const uint8_t *dst,
	   const uint8_t *target)
{
	const struct tfo_port_info *port = &lc->sh->ports[port_idx].info;
	struct rte_ether_hdr *eh;
	struct rte_ipv6_hdr *ih;
	struct tfo_addr s, d;
	struct rte_mbuf *m = rte_pktmbuf_alloc(lc->pool);
	uint8_t *nd;
	uint16_t ck;

	if (m == NULL) {
		LG_INC(&lc->stats, mbuf_alloc_fail);
		return;
	}
	eh = (struct rte_ether_hdr *)(void *)rte_pktmbuf_append(m, sizeof(*eh) + sizeof(*ih) + ND_LEN);
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		LG_INC(&lc->stats, mbuf_alloc_fail);
		return;
	}
	eh->dst_addr = *dst_mac;
	eh->src_addr = port->mac;
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ih = (struct rte_ipv6_hdr *)(eh + 1);
	ih->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ih->payload_len = rte_cpu_to_be_16(ND_LEN);
	ih->proto = IPPROTO_ICMPV6;
	ih->hop_limits = 255;
	memcpy(ih->src_addr, src, 16);
	memcpy(ih->dst_addr, dst, 16);
	nd = (uint8_t *)(ih + 1);
	memset(nd, 0, ND_LEN);
	nd[0] = type;
	nd[4] = na_flags;
	memcpy(nd + 8, target, 16);
	nd[24] = type == ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA;
	nd[25] = 1;
	memcpy(nd + 26, port->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(s.b, src, 16);
	memcpy(d.b, dst, 16);
	ck = (uint16_t)~tfo_cksum_fold(tfo_cksum_add(
		tfo_cksum_pseudo(AF_INET6, &s, &d, IPPROTO_ICMPV6, ND_LEN), nd, ND_LEN));
	memcpy(nd + 2, &ck, 2);
	tfo_tx_push(&lc->tx, port_idx, m);
}

void
lg_icmp6_input(struct lg_lcore *lc, struct rte_mbuf *m, const struct tfo_pkt *p,
	       uint8_t port_idx)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
	static const struct rte_ether_addr all_nodes_mac = {
		.addr_bytes = { 0x33, 0x33, 0, 0, 0, 1 } };
	const struct lg_opts *o = lc->o;
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *ih = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
								p->l2_len);
	const uint8_t *icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, p->payload_off);
	struct tfo_addr target;
	uint32_t len = p->l4_len;

	if ((icmp[0] != ND_NS && icmp[0] != ND_NA) || icmp[1] != 0 || len < 24 ||
	    ih->hop_limits != 255 || m->next != NULL) {
		LG_INC(&lc->stats, neigh_ignored);
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(target.b, icmp + 8, 16);
	if (icmp[0] == ND_NA) {
		struct rte_ether_addr mac = eh->src_addr;

		/* the target link-layer address option, if any, wins */
		for (uint32_t off = 24; off + 8 <= len && icmp[off + 1] != 0;
		     off += icmp[off + 1] * 8u)
			if (icmp[off] == ND_OPT_TLLA)
				memcpy(mac.addr_bytes, icmp + off + 2, RTE_ETHER_ADDR_LEN);
		if (o->family == AF_INET6 && memcmp(target.b, o->server.b, 16) == 0)
			lg_learn_server(lc, port_idx, &mac);
		else
			LG_INC(&lc->stats, neigh_ignored);
		rte_pktmbuf_free(m);
		return;
	}
	if (o->family == AF_INET6 && memcmp(p->src.b, o->server.b, 16) == 0)
		lg_learn_server(lc, port_idx, &eh->src_addr);
	if (!lg_is_ours(o, AF_INET6, &target)) {
		LG_INC(&lc->stats, neigh_ignored);
		rte_pktmbuf_free(m);
		return;
	}
	LG_INC(&lc->stats, nd_ns_rx);
	if (p->src.b[0] == 0 && memcmp(p->src.b, p->src.b + 1, 15) == 0)
		/* duplicate address detection: answer to all nodes */
		lg_nd_send(lc, port_idx, ND_NA, ND_NA_OVERRIDE, &all_nodes_mac,
			   target.b, all_nodes, target.b);
	else
		lg_nd_send(lc, port_idx, ND_NA, ND_NA_SOLICITED | ND_NA_OVERRIDE,
			   &eh->src_addr, target.b, p->src.b, target.b);
	LG_INC(&lc->stats, nd_na_tx);
	rte_pktmbuf_free(m);
}

void
lg_resolve_send(struct lg_lcore *lc, uint8_t port_idx)
{
	const struct lg_opts *o = lc->o;
	struct tfo_addr src;

	lg_addr_make(o, lc->sh->ports[port_idx].first_client, &src);
	if (o->family == AF_INET) {
		lg_arp_request(lc, port_idx, &src);
	} else {
		/* to the server's solicited-node group ff02::1:ffXX:XXXX */
		uint8_t group[16] = { 0xff, 0x02, [11] = 1, [12] = 0xff };
		struct rte_ether_addr mac = { .addr_bytes = { 0x33, 0x33, 0xff } };

		memcpy(group + 13, o->server.b + 13, 3);
		memcpy(mac.addr_bytes + 3, o->server.b + 13, 3);
		lg_nd_send(lc, port_idx, ND_NS, 0, &mac, src.b, group, o->server.b);
		LG_INC(&lc->stats, nd_ns_tx);
	}
}
