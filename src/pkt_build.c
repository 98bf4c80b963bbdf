/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: building frames: the route of a reply, IPv6 extension
 * headers taken out of a frame answered in place, and the Ethernet, IP and
 * TCP headers in front of a segment (checksums in software or offloaded).
 * Parsing is pkt.c's.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "tfo/pkt.h"

/* ---- building ---------------------------------------------------------- */

void
tfo_route_from_pkt(struct tfo_route *r, const struct rte_mbuf *m,
		   const struct tfo_pkt *p, uint8_t port_idx,
		   const struct tfo_port_info *port)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	RTE_SET_USED(port);
	rte_ether_addr_copy(&eh->src_addr, &r->peer_mac);
	r->vlan_tci = p->vlan_tci;
	r->has_vlan = p->has_vlan;
	r->family = p->family;
	r->local_idx = p->local_idx;
	r->port_idx = port_idx;
	r->local = p->dst;
	r->peer = p->src;
}

uint16_t
tfo_pkt_ipv6_strip_ext(struct rte_mbuf *m, struct tfo_pkt *p)
{
	uint16_t ext, hdr;
	struct rte_ipv6_hdr *ih;
	uint8_t *d;

	if (p->family != AF_INET6 || p->l3_len <= sizeof(*ih))
		return 0;
	ext = (uint16_t)(p->l3_len - sizeof(*ih));
	hdr = (uint16_t)(p->l2_len + sizeof(*ih));
	d = rte_pktmbuf_mtod(m, uint8_t *);
	memmove(d + ext, d, hdr);
	rte_pktmbuf_adj(m, ext);
	ih = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, p->l2_len);
	ih->proto = p->l4proto;
	ih->payload_len = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(ih->payload_len) -
						      ext));
	p->l3_len = sizeof(*ih);
	p->payload_off = (uint16_t)(p->payload_off - ext);
	return ext;
}

/* Over 80 lines: the headers of a frame, outermost first, in one pass. */
int
tfo_pkt_prepend_tcp(struct rte_mbuf *m, const struct tfo_port_info *port,
		    const struct tfo_route *r, const struct tfo_tcp_out *t)
{
	uint16_t l2 = RTE_ETHER_HDR_LEN + (r->has_vlan ? 4 : 0);
	uint16_t l3 = r->family == AF_INET ? 20 : 40;
	uint16_t l4 = (uint16_t)(TFO_TCP_HDR_LEN + t->opt_len);
	uint32_t l4_total;
	struct rte_ether_hdr *eh;
	struct rte_tcp_hdr *th;
	uint8_t *p;

	p = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(l2 + l3 + l4));
	if (p == NULL)
		return -ENOSPC;
	l4_total = m->pkt_len - l2 - l3;

	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	rte_ether_addr_copy(&r->peer_mac, &eh->dst_addr);
	rte_ether_addr_copy(&port->mac, &eh->src_addr);
	if (r->has_vlan) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eh + 1);

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(r->vlan_tci);
		vh->eth_proto = rte_cpu_to_be_16(r->family == AF_INET ?
						 RTE_ETHER_TYPE_IPV4 :
						 RTE_ETHER_TYPE_IPV6);
	} else {
		eh->ether_type = rte_cpu_to_be_16(r->family == AF_INET ?
						  RTE_ETHER_TYPE_IPV4 :
						  RTE_ETHER_TYPE_IPV6);
	}

	m->l2_len = l2;
	m->l3_len = l3;
	m->l4_len = l4;
	m->ol_flags &= ~(RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6 |
			 RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK);

	if (r->family == AF_INET) {
		struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)(p + l2);

		ih->version_ihl = 0x45;
		ih->type_of_service = 0;
		ih->total_length = rte_cpu_to_be_16((uint16_t)(l3 + l4_total));
		ih->packet_id = 0;
		ih->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ih->time_to_live = 64;
		ih->next_proto_id = IPPROTO_TCP;
		ih->hdr_checksum = 0;
		memcpy(&ih->src_addr, r->local.b, 4);
		memcpy(&ih->dst_addr, r->peer.b, 4);
		m->ol_flags |= RTE_MBUF_F_TX_IPV4;
		if (port->tx_ip_cksum_offload)
			m->ol_flags |= RTE_MBUF_F_TX_IP_CKSUM;
		else
			ih->hdr_checksum = (uint16_t)~tfo_cksum_fold(tfo_cksum_add(0, ih, 20));
	} else {
		struct rte_ipv6_hdr *ih = (struct rte_ipv6_hdr *)(p + l2);

		ih->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ih->payload_len = rte_cpu_to_be_16((uint16_t)l4_total);
		ih->proto = IPPROTO_TCP;
		ih->hop_limits = 64;
		memcpy(ih->src_addr, r->local.b, 16);
		memcpy(ih->dst_addr, r->peer.b, 16);
		m->ol_flags |= RTE_MBUF_F_TX_IPV6;
	}

	th = (struct rte_tcp_hdr *)(p + l2 + l3);
	th->src_port = rte_cpu_to_be_16(t->sport);
	th->dst_port = rte_cpu_to_be_16(t->dport);
	th->sent_seq = rte_cpu_to_be_32(t->seq);
	th->recv_ack = rte_cpu_to_be_32(t->ack);
	th->data_off = (uint8_t)((l4 / 4) << 4);
	th->tcp_flags = t->flags;
	th->rx_win = rte_cpu_to_be_16(t->window);
	th->cksum = 0;
	th->tcp_urp = 0;
	if (t->opt_len)
		memcpy(th + 1, t->opts, t->opt_len);

	{
		uint64_t sum = tfo_cksum_pseudo(r->family, &r->local, &r->peer,
						IPPROTO_TCP, l4_total);

		if (port->tx_tcp_cksum_offload) {
			/* the NIC adds the segment to the pseudo-header sum */
			m->ol_flags |= RTE_MBUF_F_TX_TCP_CKSUM;
			th->cksum = tfo_cksum_fold(sum);
		} else {
			if (likely(m->next == NULL))
				sum = tfo_cksum_add(sum, th, l4_total);
			else
				sum += tfo_cksum_mbuf(m, (uint32_t)(l2 + l3), l4_total);
			th->cksum = (uint16_t)~tfo_cksum_fold(sum);
		}
	}
	return 0;
}
