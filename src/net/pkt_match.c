/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: is a parsed frame for us (tfo_pkt_match_local: MAC, our
 * address, a sane source), and the quote of an ICMP error about our
 * segments (tfo_pkt_icmp_ptb). Parsing is pkt.c's.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "net/pkt.h"

#include "net/pkt_priv.h"

int
tfo_port_addr_lookup(const struct tfo_port_info *port, int family,
		     const struct tfo_addr *a)
{
	for (unsigned int i = 0; i < port->nb_addrs; i++) {
		const struct tfo_local_addr *la = &port->addrs[i];

		if (la->family != family)
			continue;
		if (family == AF_INET ? memcmp(la->addr.b, a->b, 4) == 0 :
		    memcmp(la->addr.b, a->b, 16) == 0)
			return port->addr_base + (int)i;
	}
	return -1;
}

static bool
tfo_ipv6_src_bad(const uint8_t *s)
{
	static const uint8_t loopback[16] = { [15] = 1 };
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	/* v4-mapped sources are dropped as Linux does (ip6_rcv_core): they
	 * would let ::ffff:127.0.0.1 pass for something else */
	return s[0] == 0xff || memcmp(s, loopback, 16) == 0 ||
	       memcmp(s, v4mapped, 12) == 0;
}

static bool
tfo_ipv6_unspecified(const uint8_t *s)
{
	static const uint8_t zero[16];

	return memcmp(s, zero, 16) == 0;
}

/* Index of the port's first IPv6 address, or -1. */
static int
tfo_first_ipv6(const struct tfo_port_info *port)
{
	for (unsigned int i = 0; i < port->nb_addrs; i++)
		if (port->addrs[i].family == AF_INET6)
			return port->addr_base + (int)i;
	return -1;
}

/*
 * ICMPv6 may arrive on a multicast group we are in: all-nodes ff02::1 or
 * the solicited-node group ff02::1:ffXX:XXXX of one of our addresses.
 * Returns the index of the address it concerns, or -1.
 */
static int
tfo_ipv6_mcast_lookup(const struct tfo_port_info *port, const uint8_t *d)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
	static const uint8_t sol_node[13] = { 0xff, 0x02, [11] = 1, [12] = 0xff };

	if (memcmp(d, all_nodes, 16) == 0)
		return tfo_first_ipv6(port);
	if (memcmp(d, sol_node, 13) != 0)
		return -1;
	for (unsigned int i = 0; i < port->nb_addrs; i++) {
		const struct tfo_local_addr *la = &port->addrs[i];

		if (la->family == AF_INET6 &&
		    memcmp(la->addr.b + 13, d + 13, 3) == 0)
			return port->addr_base + (int)i;
	}
	return -1;
}
/* ---- ICMP errors about our segments ------------------------------------ */

/* The quoted IPv4 header at @p off, @p avail bytes of quote in the segment. */
static int
tfo_ptb_quote_v4(const struct rte_mbuf *m, uint32_t off, uint32_t avail,
		 struct tfo_ptb *out)
{
	const struct rte_ipv4_hdr *ih;
	uint32_t ihl;

	if (avail < sizeof(*ih))
		return -EINVAL;
	ih = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, off);
	ihl = (uint32_t)(ih->version_ihl & 0xf) * 4;
	if ((ih->version_ihl >> 4) != 4 || ihl < sizeof(*ih) ||
	    avail < ihl + 8 || ih->next_proto_id != IPPROTO_TCP ||
	    (ih->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK)))
		return -EINVAL;
	memcpy(out->flow.dst.b, &ih->src_addr, 4);	/* ours */
	memcpy(out->flow.src.b, &ih->dst_addr, 4);	/* the peer */
	return (int)ihl;
}

/* The quoted IPv6 header (and extension headers) at @p off. */
static int
tfo_ptb_quote_v6(const struct rte_mbuf *m, uint32_t off, uint32_t avail,
		 struct tfo_ptb *out)
{
	const struct rte_ipv6_hdr *ih;
	uint32_t ext = 0, plen;
	uint8_t nh;

	if (avail < sizeof(*ih))
		return -EINVAL;
	ih = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, off);
	if ((rte_be_to_cpu_32(ih->vtc_flow) >> 28) != 6)
		return -EINVAL;
	/* the quote is cut short: walk only what it holds */
	plen = RTE_MIN((uint32_t)rte_be_to_cpu_16(ih->payload_len),
		       avail - (uint32_t)sizeof(*ih));
	nh = ih->proto;
	if (nh != IPPROTO_TCP &&
	    tfo_ipv6_ext_walk(m, off + sizeof(*ih), plen, off + avail, &nh, &ext) !=
	    TFO_PKT_DROP_NONE)
		return -EINVAL;
	if (nh != IPPROTO_TCP || plen < ext + 8)
		return -EINVAL;
	memcpy(out->flow.dst.b, ih->src_addr, 16);
	memcpy(out->flow.src.b, ih->dst_addr, 16);
	return (int)(sizeof(*ih) + ext);
}

int
tfo_pkt_icmp_ptb(const struct rte_mbuf *m, const struct tfo_port_info *port,
		 const struct tfo_pkt *p, struct tfo_ptb *out)
{
	uint32_t off = p->payload_off, len = p->l4_len, seg = m->data_len;
	const uint8_t *icmp, *th;
	int family, qlen, idx;

	/* tfo_pkt_parse left the type and code in the first segment */
	icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	if (p->cls == TFO_PKT_ICMP && icmp[0] == 3 && icmp[1] == 4)
		family = AF_INET;
	else if (p->cls == TFO_PKT_ICMP6 && icmp[0] == 2)
		family = AF_INET6;
	else
		return 0;
	if (seg < off + 8 || len < 8)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->mtu = family == AF_INET ? ((uint32_t)icmp[6] << 8) | icmp[7] :
		   ((uint32_t)icmp[4] << 24) | ((uint32_t)icmp[5] << 16) |
		   ((uint32_t)icmp[6] << 8) | icmp[7];
	/* the quote: what the message holds, and the segment holds of it */
	off += 8;
	len = RTE_MIN(len - 8, seg > off ? seg - off : 0u);
	qlen = family == AF_INET ? tfo_ptb_quote_v4(m, off, len, out) :
				   tfo_ptb_quote_v6(m, off, len, out);
	if (qlen < 0)
		return -EINVAL;
	idx = tfo_port_addr_lookup(port, family, &out->flow.dst);
	if (idx < 0 || tfo_port_addr_lookup(port, family, &out->flow.src) >= 0)
		return -EINVAL;
	th = rte_pktmbuf_mtod_offset(m, const uint8_t *, off + (uint32_t)qlen);
	out->flow.cls = TFO_PKT_TCP;
	out->flow.family = (uint8_t)family;
	out->flow.l4proto = IPPROTO_TCP;
	out->flow.local_idx = (uint8_t)idx;
	out->flow.dport = (uint16_t)((th[0] << 8) | th[1]);	/* our port */
	out->flow.sport = (uint16_t)((th[2] << 8) | th[3]);
	out->seq = ((uint32_t)th[4] << 24) | ((uint32_t)th[5] << 16) |
		   ((uint32_t)th[6] << 8) | th[7];
	if (out->flow.sport == 0 || out->flow.dport == 0)
		return -EINVAL;
	return 1;
}

/* ---- ours or not ------------------------------------------------------- */

/*
 * tfo_pkt_parse checks all the headers first; the verdicts here come in
 * the order the headers are read (MAC, then IP addresses, then TCP's
 * unicast rule), so a frame that is not ours counts as not ours whatever
 * its upper layers hold, as when one pass did both.
 */

/* MLD to a group we are not in (ff02::16, ff02::2, the reported group) is
 * taken, to be counted as ignored: known by its first byte, read even
 * when the rest of the message is a drop. -1: that byte is not in the
 * first segment. */
static int
tfo_match_mld(const struct rte_mbuf *m, const struct tfo_pkt *p)
{
	const struct rte_ipv6_hdr *ih;
	uint32_t off = (uint32_t)p->l2_len + p->l3_len;

	if (p->dst.b[0] != 0xff)
		return 0;
	if (p->cls == TFO_PKT_MLD)
		return 1;
	ih = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, p->l2_len);
	if (rte_be_to_cpu_16(ih->payload_len) + sizeof(*ih) <= p->l3_len)
		return 0;
	if (m->data_len < off + 1)
		return -1;
	return tfo_icmp6_is_mld(*rte_pktmbuf_mtod_offset(m, const uint8_t *, off));
}

/* Which of @p port's addresses @p p is for (-1: none, -2: cannot tell,
 * the frame is split too early). */
static int
tfo_match_dst(const struct tfo_port_info *port, const struct rte_mbuf *m,
	      const struct tfo_pkt *p)
{
	int idx = tfo_port_addr_lookup(port, p->family, &p->dst);

	if (idx >= 0 || p->l4proto != IPPROTO_ICMPV6)
		return idx;
	idx = tfo_ipv6_mcast_lookup(port, p->dst.b);
	if (idx < 0) {
		int mld = tfo_match_mld(m, p);

		if (mld < 0)
			return -2;
		if (mld > 0)
			idx = tfo_first_ipv6(port);
	}
	return idx;
}

/* A source we must not answer: martian, ours, one of our broadcasts. */
static bool
tfo_match_src_bad(const struct tfo_port_info *port, const struct tfo_pkt *p)
{
	if (p->family == AF_INET)
		return tfo_pkt_ipv4_src_bad_(p->src.b) || tfo_pkt_ipv4_scan_(port, p, NULL);
	/* "::" is a legal source only for duplicate address detection (ND) */
	return tfo_ipv6_src_bad(p->src.b) ||
	       (tfo_ipv6_unspecified(p->src.b) && p->l4proto != IPPROTO_ICMPV6) ||
	       tfo_port_addr_lookup(port, AF_INET6, &p->src) >= 0;
}

enum tfo_pkt_class
tfo_pkt_match_local_generic(const struct tfo_port_info *port,
			    const struct rte_mbuf *m, struct tfo_pkt *p)
{
	const struct rte_ether_hdr *eh;
	enum tfo_pkt_class cls = (enum tfo_pkt_class)p->cls;
	int idx;

	/* no Ethernet header to read (the parser's first checks) */
	if (unlikely(cls == TFO_PKT_DROP) &&
	    (m->pkt_len < sizeof(*eh) || m->data_len < sizeof(*eh) ||
	     m->data_len > m->pkt_len || (m->next == NULL && m->data_len != m->pkt_len)))
		return cls;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (!rte_is_multicast_ether_addr(&eh->dst_addr) &&
	    !rte_is_same_ether_addr(&eh->dst_addr, &port->mac))
		return tfo_drop(p, TFO_PKT_DROP_l2_not_ours);
	/* ARP (neigh.c checks its target), or the IP header was a drop */
	if (p->family == 0)
		return cls;
	idx = tfo_match_dst(port, m, p);
	if (idx < 0)
		return tfo_drop(p, idx == -2 ? TFO_PKT_DROP_multiseg :
				   TFO_PKT_DROP_ip_not_ours);
	p->local_idx = (uint8_t)idx;
	if (tfo_match_src_bad(port, p))
		return tfo_drop(p, TFO_PKT_DROP_ip_bad_src);
	/* TCP is unicast only: Linux drops segments not sent to its own MAC
	 * (tcp_v4_rcv: pkt_type != PACKET_HOST); a broadcast SYN would open
	 * a connection on every host of a fleet that shares the address.
	 * The old one-pass parser checked this before the TCP header. */
	if (p->l4proto == IPPROTO_TCP && !rte_is_same_ether_addr(&eh->dst_addr, &port->mac))
		return tfo_drop(p, TFO_PKT_DROP_l2_not_ours);
	return cls;
}
