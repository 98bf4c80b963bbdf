/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: building frames: the route of a reply, IPv6 extension
 * headers taken out of a frame answered in place, and the Ethernet, IP and
 * TCP headers in front of a segment, or UDP's in front of a datagram
 * (checksums in software or offloaded).
 * Parsing is pkt.c's.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "net/pkt_build.h"

/* ---- building ---------------------------------------------------------- */

void
tfo_route_from_pkt(struct tfo_route *r, const struct rte_mbuf *m,
		   const struct tfo_pkt *p, uint8_t port_idx)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

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

int
tfo_pkt_prepend_tcp(struct rte_mbuf *m, const struct tfo_port_info *port,
		    const struct tfo_route *r, const struct tfo_tcp_out *t)
{
	return tfo_pkt_build_tcp(m, port, r, t);
}

/*
 * A UDP answer: one per datagram served (`udp = on`); the Ethernet and IP
 * headers as a TCP segment's (tfo_build_eth, tfo_build_ipv4,
 * tfo_build_ipv6), the UDP header with DPDK's struct.
 */
int
tfo_pkt_prepend_udp(struct rte_mbuf *m, const struct tfo_port_info *port,
		    const struct tfo_route *r, uint16_t sport, uint16_t dport)
{
	uint16_t l2 = RTE_ETHER_HDR_LEN + (r->has_vlan ? 4 : 0);
	uint16_t l3 = r->family == AF_INET ? 20 : 40;
	uint32_t ulen = m->pkt_len + (uint32_t)sizeof(struct rte_udp_hdr);
	struct rte_udp_hdr *uh;
	uint64_t sum, ol = 0;
	uint8_t *p, *ip;

	p = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(l2 + l3 + sizeof(*uh)));
	if (p == NULL)
		return -ENOSPC;
	tfo_build_eth(p, port, r);
	ip = p + l2;
	if (r->family == AF_INET)
		tfo_build_ipv4(ip, &ol, port, &r->local, &r->peer, ulen, IPPROTO_UDP);
	else
		tfo_build_ipv6(ip, &ol, &r->local, &r->peer, ulen, IPPROTO_UDP);
	uh = (struct rte_udp_hdr *)(void *)(ip + l3);
	uh->src_port = rte_cpu_to_be_16(sport);
	uh->dst_port = rte_cpu_to_be_16(dport);
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)ulen);
	uh->dgram_cksum = 0;
	sum = tfo_cksum_pseudo(r->family, &r->local, &r->peer, IPPROTO_UDP, ulen);
	if (port->tx_udp_cksum_offload) {
		/* the NIC adds the datagram to the pseudo-header sum */
		ol |= RTE_MBUF_F_TX_UDP_CKSUM;
		uh->dgram_cksum = tfo_cksum_fold(sum);
	} else {
		uint16_t ck;

		sum += tfo_cksum_mbuf(m, (uint32_t)(l2 + l3), ulen);
		ck = (uint16_t)~tfo_cksum_fold(sum);
		uh->dgram_cksum = ck == 0 ? 0xffff : ck;
	}
	tfo_build_mbuf_tx(m, l2, l3, sizeof(*uh), ol);
	return 0;
}
