/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: ARP, ICMP echo, IPv6 neighbor discovery and ICMPv6 echo
 * (the contract is in net/neigh.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include "net/neigh.h"

#define ND_NA_FLAG_SOLICITED 0x40
#define ND_NA_FLAG_OVERRIDE 0x20
#define ND_LEN 32		/* NS/NA with one link-layer address option */

static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
static const struct rte_ether_addr all_nodes_mac = {
	.addr_bytes = { 0x33, 0x33, 0, 0, 0, 1 } };

/*
 * A received frame becomes our reply: its RX offload flags go, but not the
 * flags that say whose buffer it is (see net/neigh.h).
 */
static inline void
reply_flags(struct rte_mbuf *m)
{
	m->ol_flags &= RTE_MBUF_F_EXTERNAL | RTE_MBUF_F_INDIRECT;
}

static void
swap_macs(struct rte_ether_hdr *eh, const struct rte_ether_addr *ours)
{
	rte_ether_addr_copy(&eh->src_addr, &eh->dst_addr);
	rte_ether_addr_copy(ours, &eh->src_addr);
}

/* ---- ARP ------------------------------------------------------------------ */

bool
tfo_arp_request_target(const struct rte_mbuf *m, const struct tfo_pkt *p,
		       struct tfo_addr *tip)
{
	const struct rte_arp_hdr *ah = rte_pktmbuf_mtod_offset(m, const struct rte_arp_hdr *,
							       p->l2_len);

	memset(tip, 0, sizeof(*tip));
	memcpy(tip->b, &ah->arp_data.arp_tip, 4);
	return ah->arp_opcode == rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
}

void
tfo_arp_reply(struct rte_mbuf *m, const struct tfo_pkt *p,
	      const struct rte_ether_addr *mac)
{
	struct rte_arp_hdr *ah = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *,
							 p->l2_len);
	uint32_t sip = ah->arp_data.arp_sip;

	ah->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	ah->arp_data.arp_sip = ah->arp_data.arp_tip;
	ah->arp_data.arp_tip = sip;
	rte_ether_addr_copy(&ah->arp_data.arp_sha, &ah->arp_data.arp_tha);
	rte_ether_addr_copy(mac, &ah->arp_data.arp_sha);
	swap_macs(rte_pktmbuf_mtod(m, struct rte_ether_hdr *), mac);
	reply_flags(m);
}

struct rte_mbuf *
tfo_arp_request(struct rte_mempool *pool, const struct rte_ether_addr *mac,
		const struct tfo_addr *sip, const struct tfo_addr *tip)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *ah;

	if (m == NULL)
		return NULL;
	eh = (struct rte_ether_hdr *)(void *)rte_pktmbuf_append(m, sizeof(*eh) + sizeof(*ah));
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(&eh->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	rte_ether_addr_copy(mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	ah = (struct rte_arp_hdr *)(eh + 1);
	ah->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	ah->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ah->arp_hlen = RTE_ETHER_ADDR_LEN;
	ah->arp_plen = 4;
	ah->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
	rte_ether_addr_copy(mac, &ah->arp_data.arp_sha);
	memcpy(&ah->arp_data.arp_sip, sip->b, 4);
	memset(&ah->arp_data.arp_tha, 0, RTE_ETHER_ADDR_LEN);
	memcpy(&ah->arp_data.arp_tip, tip->b, 4);
	return m;
}

/* ---- ICMPv4 echo ---------------------------------------------------------- */

/* @return 0 (m is the reply), -ENOTSUP (not an echo request), -EMSGSIZE (chained). */
static int
icmp_echo_reply(struct rte_mbuf *m, const struct tfo_pkt *p,
		const struct rte_ether_addr *mac)
{
	struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
							  p->l2_len);
	struct rte_icmp_hdr *icmp = rte_pktmbuf_mtod_offset(m, struct rte_icmp_hdr *,
							    p->payload_off);
	uint32_t tmp;
	uint64_t sum;

	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST || icmp->icmp_code != 0)
		return -ENOTSUP;
	/* a jumbo echo in chained mbufs: not worth answering */
	if (m->next != NULL)
		return -EMSGSIZE;
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
	swap_macs(rte_pktmbuf_mtod(m, struct rte_ether_hdr *), mac);
	reply_flags(m);
	return 0;
}

/* ---- ICMPv6: echo and neighbor discovery ---------------------------------- */

static void
icmp6_cksum(const struct rte_ipv6_hdr *ih, uint8_t *icmp, uint32_t len)
{
	struct tfo_addr s, d;
	uint64_t sum;
	uint16_t ck;

	memcpy(s.b, ih->src_addr, 16);
	memcpy(d.b, ih->dst_addr, 16);
	icmp[2] = icmp[3] = 0;
	sum = tfo_cksum_pseudo(AF_INET6, &s, &d, IPPROTO_ICMPV6, len);
	sum = tfo_cksum_add(sum, icmp, len);
	ck = (uint16_t)~tfo_cksum_fold(sum);
	memcpy(icmp + 2, &ck, 2);
}

/* The echo request @p m becomes the reply from @p src, in place. */
static void
icmp6_echo_reply(struct rte_mbuf *m, const struct tfo_pkt *req,
		 const struct rte_ether_addr *mac, const struct tfo_addr *src)
{
	struct tfo_pkt q = *req, *p = &q;
	struct rte_ipv6_hdr *ih;
	uint8_t *icmp;

	/* the reply carries none of the request's extension headers */
	tfo_pkt_ipv6_strip_ext(m, p);
	ih = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, p->l2_len);
	icmp = rte_pktmbuf_mtod_offset(m, uint8_t *, p->payload_off);
	rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - p->payload_off - p->l4_len));
	icmp[0] = TFO_ICMP6_ECHO_REPLY;
	memcpy(ih->dst_addr, ih->src_addr, 16);
	memcpy(ih->src_addr, src->b, 16);
	ih->hop_limits = 64;
	icmp6_cksum(ih, icmp, p->l4_len);
	swap_macs(rte_pktmbuf_mtod(m, struct rte_ether_hdr *), mac);
	reply_flags(m);
}

int
tfo_nd_ns_target(const struct rte_mbuf *m, const struct tfo_pkt *p,
		 struct tfo_addr *target)
{
	const struct rte_ipv6_hdr *ih = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
								p->l2_len);
	const uint8_t *icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, p->payload_off);

	if (ih->hop_limits != 255 || icmp[1] != 0 || p->l4_len < 24 || m->next != NULL)
		return -EINVAL;
	if (icmp[8] == 0xff)		/* a multicast target */
		return -EINVAL;
	/* options: each a multiple of 8 bytes, none of length 0 */
	for (uint32_t off = 24; off < p->l4_len;) {
		if (off + 2 > p->l4_len || icmp[off + 1] == 0 ||
		    off + icmp[off + 1] * 8u > p->l4_len)
			return -EINVAL;
		off += icmp[off + 1] * 8u;
	}
	memcpy(target->b, icmp + 8, 16);
	return 0;
}

/*
 * An NS or NA with one link-layer address option (ours), in a fresh mbuf:
 * the L2 header is @p l2 (@p l2_len bytes, a VLAN tag kept) when given,
 * else a plain Ethernet header; then addressed to @p dst_mac from @p mac.
 */
static struct rte_mbuf *
nd_build(struct rte_mempool *pool, const void *l2, uint16_t l2_len,
	 const struct rte_ether_addr *dst_mac, const struct rte_ether_addr *mac,
	 uint8_t type, uint8_t na_flags, const uint8_t *src, const uint8_t *dst,
	 const uint8_t *target)
{
	struct rte_mbuf *r = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eh;
	struct rte_ipv6_hdr *ih;
	uint8_t *out, *nd;

	if (r == NULL)
		return NULL;
	out = (uint8_t *)rte_pktmbuf_append(r, (uint16_t)(l2_len + sizeof(*ih) + ND_LEN));
	if (out == NULL) {
		rte_pktmbuf_free(r);
		return NULL;
	}
	eh = (struct rte_ether_hdr *)(void *)out;
	if (l2 != NULL)
		memcpy(out, l2, l2_len);
	else
		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	rte_ether_addr_copy(dst_mac, &eh->dst_addr);
	rte_ether_addr_copy(mac, &eh->src_addr);

	ih = (struct rte_ipv6_hdr *)(void *)(out + l2_len);
	ih->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ih->payload_len = rte_cpu_to_be_16(ND_LEN);
	ih->proto = IPPROTO_ICMPV6;
	ih->hop_limits = 255;
	memcpy(ih->src_addr, src, 16);
	memcpy(ih->dst_addr, dst, 16);

	nd = out + l2_len + sizeof(*ih);
	memset(nd, 0, ND_LEN);
	nd[0] = type;
	nd[4] = na_flags;
	memcpy(nd + 8, target, 16);
	nd[24] = type == TFO_ND_NEIGHBOR_SOLICIT ? TFO_ND_OPT_SOURCE_LLADDR :
						   TFO_ND_OPT_TARGET_LLADDR;
	nd[25] = 1;
	memcpy(nd + 26, mac->addr_bytes, RTE_ETHER_ADDR_LEN);
	icmp6_cksum(ih, nd, ND_LEN);
	return r;
}

struct rte_mbuf *
tfo_nd_na_reply(const struct rte_mbuf *ns, const struct tfo_pkt *p,
		const struct tfo_addr *target, const struct rte_ether_addr *mac,
		struct rte_mempool *pool)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(ns, const struct rte_ether_hdr *);
	bool dad = p->src.b[0] == 0 && memcmp(p->src.b, p->src.b + 1, 15) == 0;

	if (dad)	/* duplicate address detection: to all nodes */
		return nd_build(pool, eh, p->l2_len, &all_nodes_mac, mac,
				TFO_ND_NEIGHBOR_ADVERT, ND_NA_FLAG_OVERRIDE,
				target->b, all_nodes, target->b);
	return nd_build(pool, eh, p->l2_len, &eh->src_addr, mac, TFO_ND_NEIGHBOR_ADVERT,
			ND_NA_FLAG_SOLICITED | ND_NA_FLAG_OVERRIDE, target->b, p->src.b,
			target->b);
}

struct rte_mbuf *
tfo_nd_ns_request(struct rte_mempool *pool, const struct rte_ether_addr *mac,
		  const struct tfo_addr *src, const struct tfo_addr *target)
{
	/* the target's solicited-node group ff02::1:ffXX:XXXX */
	uint8_t group[16] = { 0xff, 0x02, [11] = 1, [12] = 0xff };
	struct rte_ether_addr gmac = { .addr_bytes = { 0x33, 0x33, 0xff } };

	memcpy(group + 13, target->b + 13, 3);
	memcpy(gmac.addr_bytes + 3, target->b + 13, 3);
	return nd_build(pool, NULL, sizeof(struct rte_ether_hdr), &gmac, mac,
			TFO_ND_NEIGHBOR_SOLICIT, 0, src->b, group, target->b);
}

/* ---- the server's answering ------------------------------------------------ */

static bool
neigh_arp(struct tfo_tx *tx, struct tfo_stats *st, const struct tfo_port_info *port,
	  uint8_t port_idx, struct rte_mbuf *m, const struct tfo_pkt *p)
{
	struct tfo_addr tip;

	if (!tfo_arp_request_target(m, p, &tip) ||
	    tfo_port_addr_lookup(port, AF_INET, &tip) < 0) {
		st->c[TFO_STAT_drop_arp_other]++;
		return false;
	}
	st->c[TFO_STAT_arp_request_rx]++;
	tfo_arp_reply(m, p, &port->mac);
	tfo_tx_push(tx, port_idx, m);
	st->c[TFO_STAT_arp_reply_tx]++;
	return true;
}

static bool
neigh_icmp(struct tfo_tx *tx, struct tfo_stats *st, const struct tfo_port_info *port,
	   uint8_t port_idx, struct rte_mbuf *m, const struct tfo_pkt *p,
	   struct tfo_tbucket *tb, uint64_t now_us)
{
	const struct rte_icmp_hdr *ic = rte_pktmbuf_mtod_offset(m, const struct rte_icmp_hdr *,
								p->payload_off);

	/* a flood of pings must not take the TX queue (or relay ring) that
	 * ARP, ND and the slow path's answers share */
	if (ic->icmp_type == RTE_IP_ICMP_ECHO_REQUEST && tb != NULL &&
	    !tfo_tbucket_take(tb, now_us)) {
		st->c[TFO_STAT_drop_icmp_echo_rate]++;
		return false;
	}
	switch (icmp_echo_reply(m, p, &port->mac)) {
	case 0:
		break;
	case -EMSGSIZE:
		tfo_stats_drop(st, TFO_PKT_DROP_multiseg);
		return false;
	default:
		st->c[TFO_STAT_drop_icmp_other]++;
		return false;
	}
	st->c[TFO_STAT_icmp_echo_rx]++;
	tfo_tx_push(tx, port_idx, m);
	st->c[TFO_STAT_icmp_echo_tx]++;
	return true;
}

/* A valid NS for us is consumed (answered, or its answer found no mbuf). */
static bool
neigh_ns(struct tfo_tx *tx, struct tfo_stats *st, const struct tfo_port_info *port,
	 uint8_t port_idx, struct rte_mbuf *m, const struct tfo_pkt *p)
{
	struct tfo_addr target;
	struct rte_mbuf *r;

	if (tfo_nd_ns_target(m, p, &target) < 0) {
		st->c[TFO_STAT_drop_nd_bad]++;
		return false;
	}
	if (tfo_port_addr_lookup(port, AF_INET6, &target) < 0) {
		st->c[TFO_STAT_drop_icmp6_other]++;
		return false;
	}
	st->c[TFO_STAT_nd_ns_rx]++;
	/* a fresh mbuf: the NS may lack the room or carry options we do not echo */
	r = tfo_nd_na_reply(m, p, &target, &port->mac, m->pool);
	if (r == NULL) {
		st->c[TFO_STAT_mbuf_alloc_fail]++;
	} else {
		tfo_tx_push(tx, port_idx, r);
		st->c[TFO_STAT_nd_na_tx]++;
	}
	rte_pktmbuf_free(m);	/* the request itself is not reused */
	return true;
}

static bool
neigh_icmp6(struct tfo_tx *tx, struct tfo_stats *st, const struct tfo_port_info *port,
	    uint8_t port_idx, struct rte_mbuf *m, const struct tfo_pkt *p,
	    struct tfo_tbucket *tb, uint64_t now_us)
{
	const uint8_t *icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, p->payload_off);

	if (icmp[0] == TFO_ND_NEIGHBOR_SOLICIT)
		return neigh_ns(tx, st, port, port_idx, m, p);
	if (icmp[0] != TFO_ICMP6_ECHO_REQUEST || icmp[1] != 0 || p->l4_len < 8 ||
	    tfo_port_addr_lookup(port, AF_INET6, &p->dst) < 0 || m->next != NULL) {
		st->c[TFO_STAT_drop_icmp6_other]++;
		return false;
	}
	if (tb != NULL && !tfo_tbucket_take(tb, now_us)) {
		st->c[TFO_STAT_drop_icmp_echo_rate]++;
		return false;
	}
	st->c[TFO_STAT_icmp6_echo_rx]++;
	/* an echo to a multicast group is answered from our unicast address */
	icmp6_echo_reply(m, p, &port->mac, &port->addrs[p->local_idx - port->addr_base].addr);
	tfo_tx_push(tx, port_idx, m);
	st->c[TFO_STAT_icmp6_echo_tx]++;
	return true;
}

bool
tfo_neigh_input(struct tfo_tx *tx, struct tfo_stats *stats,
		const struct tfo_port_info *port, uint8_t port_idx,
		struct rte_mbuf *m, const struct tfo_pkt *p,
		struct tfo_tbucket *echo_tb, uint64_t now_us)
{
	switch (p->cls) {
	case TFO_PKT_ARP:
		return neigh_arp(tx, stats, port, port_idx, m, p);
	case TFO_PKT_ICMP:
		return neigh_icmp(tx, stats, port, port_idx, m, p, echo_tb, now_us);
	case TFO_PKT_ICMP6:
		return neigh_icmp6(tx, stats, port, port_idx, m, p, echo_tb, now_us);
	default:
		return false;
	}
}
