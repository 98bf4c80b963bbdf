/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath (private to src/): the frame builder's inline steps, for
 * pkt_build.c and for the engine's senders (tcp_output.c), where a call
 * per frame, its register saves and the route and segment structs in
 * memory cost more than the building: inlined, they stay in registers.
 */
#ifndef TFO_PKT_BUILD_H
#define TFO_PKT_BUILD_H

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "net/pkt.h"

/* header words are built in wire byte order for a little-endian CPU */
#if RTE_BYTE_ORDER != RTE_LITTLE_ENDIAN
#error "tfo_pkt_build_tcp assumes a little-endian CPU"
#endif

/*
 * A 64-bit word of a frame into a ones'-complement sum: its two 32-bit
 * halves added, so that no carry is lost.
 */
static inline uint64_t
tfo_build_sum64(uint64_t v)
{
	return (v & 0xffffffffu) + (v >> 32);
}

/*
 * The options behind the TCP header: @p n is a multiple of 4, at most 40.
 * Two or three overlapping fixed-size copies instead of memcpy's general
 * size dispatch; every byte lands where memcpy would put it.
 */
static __rte_always_inline void
tfo_build_opts(uint8_t *d, const uint8_t *s, unsigned int n)
{
	if (n >= 16) {
		memcpy(d, s, 16);
		if (n > 32)
			memcpy(d + 16, s + 16, 16);
		memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 8) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else {
		memcpy(d, s, 4);
	}
}

/*
 * The Ethernet header to @p peer_mac (and the VLAN tag @p vlan_tci when
 * @p has_vlan) for @p family at @p p. Both MACs are read 8 bytes at a
 * time: @p peer_mac must have 2 readable bytes behind it (a field of the
 * same struct), as the port's MAC has; what they put in the frame is
 * overwritten by the next store.
 */
static inline void
tfo_build_eth_to(uint8_t *p, const struct tfo_port_info *port, const void *peer_mac,
		 bool has_vlan, uint16_t vlan_tci, uint8_t family)
{
	uint16_t etype = rte_cpu_to_be_16(family == AF_INET ?
					  RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	uint64_t dst, src;

	RTE_BUILD_BUG_ON(offsetof(struct tfo_port_info, mac) + 8 >
			 sizeof(struct tfo_port_info));
	memcpy(&dst, peer_mac, 8);
	memcpy(&src, (const uint8_t *)port + offsetof(struct tfo_port_info, mac), 8);
	memcpy(p, &dst, 8);
	if (has_vlan) {
		uint32_t vh = (uint32_t)rte_cpu_to_be_16(vlan_tci) |
			      (uint32_t)etype << 16;

		etype = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		memcpy(p + RTE_ETHER_HDR_LEN, &vh, 4);
	}
	src = (src & 0xffffffffffffull) | (uint64_t)etype << 48;
	memcpy(p + 6, &src, 8);
}

/* The Ethernet header (and the VLAN tag) of route @p r at @p p. */
static inline void
tfo_build_eth(uint8_t *p, const struct tfo_port_info *port, const struct tfo_route *r)
{
	RTE_BUILD_BUG_ON(offsetof(struct tfo_route, peer_mac) + 8 >
			 sizeof(struct tfo_route));
	tfo_build_eth_to(p, port, (const uint8_t *)r + offsetof(struct tfo_route, peer_mac),
			 r->has_vlan, r->vlan_tci, r->family);
}

/*
 * The IPv4 header at @p ip in front of @p l4_total bytes of protocol
 * @p proto (TCP, UDP), its checksum left to the NIC when the port
 * offloads it (the TX flags it needs added to @p ol). @return the
 * addresses' part of the pseudo-header sum.
 */
static inline uint64_t
tfo_build_ipv4(uint8_t *ip, uint64_t *ol, const struct tfo_port_info *port,
	       const struct tfo_addr *local, const struct tfo_addr *peer,
	       uint32_t l4_total, uint8_t proto)
{
	uint32_t a[2];
	uint64_t ck, w;
	uint16_t hc = 0;

	memcpy(&a[0], local->b, 4);
	memcpy(&a[1], peer->b, 4);
	/* version/IHL 0x45, TOS 0, total length; ID 0, DF */
	w = 0x45u | (uint64_t)rte_cpu_to_be_16((uint16_t)(20 + l4_total)) << 16 |
	    (uint64_t)rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG) << 48;
	*ol |= RTE_MBUF_F_TX_IPV4;
	if (port->tx_ip_cksum_offload) {
		*ol |= RTE_MBUF_F_TX_IP_CKSUM;
	} else {
		/* TTL 64, the protocol, checksum 0 */
		ck = tfo_build_sum64(w) + (64u | (uint32_t)proto << 8) + a[0] + a[1];
		hc = (uint16_t)~tfo_cksum_fold(ck);
	}
	memcpy(ip, &w, 8);
	w = 64u | (uint64_t)proto << 8 | (uint64_t)hc << 16 | (uint64_t)a[0] << 32;
	memcpy(ip + 8, &w, 8);
	memcpy(ip + 16, &a[1], 4);
	return (uint64_t)a[0] + a[1];
}

/*
 * The IPv6 header at @p ip in front of @p l4_total bytes of protocol
 * @p proto (TCP, UDP); its TX flag added to @p ol. @return the
 * addresses' part of the pseudo-header sum.
 */
static inline uint64_t
tfo_build_ipv6(uint8_t *ip, uint64_t *ol, const struct tfo_addr *local,
	       const struct tfo_addr *peer, uint32_t l4_total, uint8_t proto)
{
	uint64_t a[4], w;

	memcpy(a, local->b, 16);
	memcpy(a + 2, peer->b, 16);
	/* version 6, no class or flow label; length, protocol, hop limit 64 */
	w = 0x60u | (uint64_t)rte_cpu_to_be_16((uint16_t)l4_total) << 32 |
	    (uint64_t)proto << 48 | (uint64_t)64 << 56;
	memcpy(ip, &w, 8);
	memcpy(ip + 8, a, 32);
	*ol |= RTE_MBUF_F_TX_IPV6;
	return tfo_build_sum64(a[0]) + tfo_build_sum64(a[1]) + tfo_build_sum64(a[2]) +
	       tfo_build_sum64(a[3]);
}

/*
 * The TCP header of @p t (@p l4 bytes with its options) at @p th but for
 * its checksum and urgent pointer; its first 16 bytes, as stored, in
 * @p tw for the checksum.
 */
static __rte_always_inline void
tfo_build_tcp_hdr(uint8_t *th, const struct tfo_tcp_out *t, uint16_t l4, uint64_t tw[2])
{
	tw[0] = rte_cpu_to_be_16(t->sport) | (uint64_t)rte_cpu_to_be_16(t->dport) << 16 |
		(uint64_t)rte_cpu_to_be_32(t->seq) << 32;
	/* data offset, flags, window */
	tw[1] = rte_cpu_to_be_32(t->ack) | (uint64_t)((l4 / 4) << 4) << 32 |
		(uint64_t)t->flags << 40 | (uint64_t)rte_cpu_to_be_16(t->window) << 48;
	memcpy(th, tw, 16);
	if (t->opt_len)
		tfo_build_opts(th + TFO_TCP_HDR_LEN, t->opts, t->opt_len);
}

/* The bits of tx_offload a frame builder sets: l2_len, l3_len, l4_len. */
#define TFO_BUILD_TXO_LENS (rte_mbuf_tx_offload(RTE_LEN2MASK(RTE_MBUF_L2_LEN_BITS, uint64_t), \
						RTE_LEN2MASK(RTE_MBUF_L3_LEN_BITS, uint64_t), \
						RTE_LEN2MASK(RTE_MBUF_L4_LEN_BITS, uint64_t), \
						0, 0, 0, 0))
/* The TX flags a frame builder owns: cleared, then set as the frame needs. */
#define TFO_BUILD_OL_MASK (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6 | \
			   RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)

/*
 * The header lengths and TX flags of a built frame into @p m, each field
 * in one store: the headers' stores go through byte pointers, which may
 * alias the mbuf, so bit-field and flag updates one by one would each
 * reload and store it again.
 */
static __rte_always_inline void
tfo_build_mbuf_tx(struct rte_mbuf *m, uint16_t l2, uint16_t l3, uint16_t l4, uint64_t ol)
{
	m->tx_offload = (m->tx_offload & ~TFO_BUILD_TXO_LENS) |
			rte_mbuf_tx_offload(l2, l3, l4, 0, 0, 0, 0);
	m->ol_flags = (m->ol_flags & ~TFO_BUILD_OL_MASK) | ol;
}

/*
 * Where a frame goes, as tfo_build_tcp_frame reads it: a route's fields,
 * or a connection entry's read where they are (the engine's senders),
 * without copying them into a route first. Passed by value to inline
 * code: it stays in registers.
 */
struct tfo_build_to {
	const void *peer_mac;		/* 2 readable bytes behind (tfo_build_eth_to) */
	const struct tfo_addr *local;
	const struct tfo_addr *peer;
	uint16_t vlan_tci;
	bool has_vlan;
	uint8_t family;
};

/*
 * The headers of a TCP frame to @p to in front of @p m's payload
 * (tfo_pkt_prepend_tcp's contract), outermost first, in one pass. Every
 * header is built in registers and stored a word at a time; the IPv4
 * header checksum and the TCP pseudo-header and header sums come from
 * those words, not from re-reading the bytes just written.
 */
static __rte_always_inline int
tfo_build_tcp_frame(struct rte_mbuf *m, const struct tfo_port_info *port,
		    struct tfo_build_to to, const struct tfo_tcp_out *t)
{
	uint16_t l2 = RTE_ETHER_HDR_LEN + (to.has_vlan ? 4 : 0);
	uint16_t l3 = to.family == AF_INET ? 20 : 40;
	uint16_t l4 = (uint16_t)(TFO_TCP_HDR_LEN + t->opt_len);
	uint64_t sum, w, tw[2], ol = 0;
	uint32_t l4_total, plen;
	uint8_t *p, *ip, *th;

	p = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(l2 + l3 + l4));
	if (p == NULL)
		return -ENOSPC;
	l4_total = m->pkt_len - l2 - l3;
	tfo_build_eth_to(p, port, to.peer_mac, to.has_vlan, to.vlan_tci, to.family);

	/* the words below are the bytes of the headers, loaded as on the wire */
	ip = p + l2;
	sum = rte_cpu_to_be_16((uint16_t)(l4_total & 0xffff)) +
	      (uint64_t)rte_cpu_to_be_16((uint16_t)(l4_total >> 16)) +
	      rte_cpu_to_be_16((uint16_t)IPPROTO_TCP);
	if (to.family == AF_INET)
		sum += tfo_build_ipv4(ip, &ol, port, to.local, to.peer, l4_total, IPPROTO_TCP);
	else
		sum += tfo_build_ipv6(ip, &ol, to.local, to.peer, l4_total, IPPROTO_TCP);

	th = ip + l3;
	tfo_build_tcp_hdr(th, t, l4, tw);
	if (port->tx_tcp_cksum_offload) {
		/* the NIC adds the segment to the pseudo-header sum */
		ol |= RTE_MBUF_F_TX_TCP_CKSUM;
		w = tfo_cksum_fold(sum);
	} else {
		/* the options and the payload from memory, from an even offset */
		sum += tfo_build_sum64(tw[0]) + tfo_build_sum64(tw[1]);
		plen = l4_total - TFO_TCP_HDR_LEN;
		if (likely(m->next == NULL))
			sum = tfo_cksum_add(sum, th + TFO_TCP_HDR_LEN, plen);
		else
			sum += tfo_cksum_mbuf(m, (uint32_t)(l2 + l3 + TFO_TCP_HDR_LEN), plen);
		w = (uint16_t)~tfo_cksum_fold(sum);
	}
	/* checksum, urgent pointer 0 */
	memcpy(th + 16, &w, 4);
	tfo_build_mbuf_tx(m, l2, l3, l4, ol);
	return 0;
}

/* The destination of route @p r, for tfo_build_tcp_frame. */
static __rte_always_inline struct tfo_build_to
tfo_build_to_route(const struct tfo_route *r)
{
	RTE_BUILD_BUG_ON(offsetof(struct tfo_route, peer_mac) + 8 >
			 sizeof(struct tfo_route));
	return (struct tfo_build_to){
		.peer_mac = (const uint8_t *)r + offsetof(struct tfo_route, peer_mac),
		.local = &r->local,
		.peer = &r->peer,
		.vlan_tci = r->vlan_tci,
		.has_vlan = r->has_vlan,
		.family = r->family,
	};
}

/* tfo_pkt_prepend_tcp (pkt.h has the contract), inline. */
static __rte_always_inline int
tfo_pkt_build_tcp(struct rte_mbuf *m, const struct tfo_port_info *port,
		  const struct tfo_route *r, const struct tfo_tcp_out *t)
{
	return tfo_build_tcp_frame(m, port, tfo_build_to_route(r), t);
}

#endif /* TFO_PKT_BUILD_H */
