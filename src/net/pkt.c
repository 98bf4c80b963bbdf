/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: packet parsing (tfo_pkt_parse: the straight-line branch for
 * the common frame, and the generic reference it is held equal to).
 * Ours or not and ICMP errors: pkt_match.c; checksums: pkt_cksum.c;
 * building frames: pkt_build.c.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "net/pkt.h"

#include "net/pkt_priv.h"

static const char *const tfo_pkt_drop_names[TFO_PKT_DROP_MAX] = {
	[TFO_PKT_DROP_NONE] = "none",
#define TFO_X_NAME(name, help) [TFO_PKT_DROP_##name] = #name,
	TFO_PKT_DROP_REASONS(TFO_X_NAME)
#undef TFO_X_NAME
};

const char *
tfo_pkt_drop_name(enum tfo_pkt_drop r)
{
	return (unsigned int)r < TFO_PKT_DROP_MAX ? tfo_pkt_drop_names[r] : "?";
}

/* ---- parsing ----------------------------------------------------------- */

/* What every parse reports before its first header: nothing yet, but
 * @p l2_len bytes of Ethernet header. */
static inline void
tfo_pkt_reset(struct tfo_pkt *p, uint8_t l2_len)
{
	p->drop = TFO_PKT_DROP_NONE;
	p->l2_len = l2_len;
	p->local_idx = 0;
	p->key_pad = 0;
	p->has_vlan = 0;
	p->vlan_tci = 0;
	p->family = 0;
	p->l4proto = 0;
	p->tcp_flags = 0;
	p->l3_len = 0;
	p->l4_len = 0;
	p->payload_off = 0;
	p->payload_len = 0;
}


/*
 * The options of a Hop-by-Hop or Destination Options header @p h of @p len
 * bytes (RFC 8200 section 4.2), as Linux's ip6_parse_tlv(): padding at most
 * 7 bytes in a row and PadN all zeros (RFC 4942 2.1.9.5), at most
 * TFO_IPV6_MAX_OPTS other options, a router alert (Hop-by-Hop) of length 2,
 * and an unknown option skipped only when its two high bits say so.
 */
static enum tfo_pkt_drop
tfo_ipv6_opts_check(const uint8_t *h, uint32_t len, bool hbh)
{
	uint32_t off = 2, padlen = 0, nopts = 0;

	while (off < len) {
		uint32_t optlen;

		if (h[off] == 0) {	/* Pad1 */
			if (++padlen > 7)
				return TFO_PKT_DROP_ipv6_ext_bad;
			off++;
			continue;
		}
		if (len - off < 2)
			return TFO_PKT_DROP_ipv6_ext_bad;
		optlen = h[off + 1] + 2u;
		if (optlen > len - off)
			return TFO_PKT_DROP_ipv6_ext_bad;
		if (h[off] == 1) {	/* PadN */
			padlen += optlen;
			if (padlen > 7)
				return TFO_PKT_DROP_ipv6_ext_bad;
			for (uint32_t i = 2; i < optlen; i++)
				if (h[off + i] != 0)
					return TFO_PKT_DROP_ipv6_ext_bad;
		} else {
			if (++nopts > TFO_IPV6_MAX_OPTS)
				return TFO_PKT_DROP_ipv6_ext_bad;
			if (hbh && h[off] == 5) {	/* router alert (MLD) */
				if (optlen != 4)
					return TFO_PKT_DROP_ipv6_ext_bad;
			} else if ((h[off] >> 6) != 0) {
				/* 01 discard, 10/11 discard (+ an ICMPv6
				 * parameter problem we do not send); the
				 * jumbo payload option (0xc2) is one */
				return TFO_PKT_DROP_ipv6_ext_opt;
			}
			padlen = 0;
		}
		off += optlen;
	}
	return TFO_PKT_DROP_NONE;
}

/*
 * Walk the extension headers from @p off (just past the IPv6 header),
 * @p plen bytes of payload, @p seg_len bytes in the first segment: on
 * success *nh is the upper-layer protocol and *ext the bytes of extension
 * headers in front of it.
 */
enum tfo_pkt_drop
tfo_ipv6_ext_walk(const struct rte_mbuf *m, uint32_t off, uint32_t plen,
		  uint32_t seg_len, uint8_t *nh, uint32_t *ext)
{
	uint32_t n = 0, done = 0;
	uint8_t next = *nh;

	for (;;) {
		const uint8_t *h;
		uint32_t hl;
		enum tfo_pkt_drop r;

		switch (next) {
		case IPPROTO_HOPOPTS:
			if (n != 0)	/* only right after the IPv6 header */
				return TFO_PKT_DROP_ipv6_ext_bad;
			break;
		case IPPROTO_DSTOPTS:
		case IPPROTO_ROUTING:
			break;
		/* XXX no reassembly (drop_ipv6_frag), as for IPv4 */
		case IPPROTO_FRAGMENT:
			return TFO_PKT_DROP_ipv6_frag;
		case IPPROTO_AH:
		case IPPROTO_ESP:
		case 135:	/* mobility */
		case 139:	/* HIP */
		case 140:	/* shim6 */
		case 253:	/* experimentation (RFC 3692) */
		case 254:
			return TFO_PKT_DROP_ipv6_ext;
		default:	/* the upper layer */
			*nh = next;
			*ext = done;
			return TFO_PKT_DROP_NONE;
		}
		if (++n > TFO_IPV6_EXT_MAX_HDRS)
			return TFO_PKT_DROP_ipv6_ext_limit;
		/* every one of these is at least 8 bytes: next, length, 6 more */
		if (plen - done < 8)
			return TFO_PKT_DROP_ipv6_ext_short;
		if (seg_len < off + done + 8)
			return TFO_PKT_DROP_multiseg;
		h = rte_pktmbuf_mtod_offset(m, const uint8_t *, off + done);
		hl = (h[1] + 1u) * 8;
		if (hl > plen - done)
			return TFO_PKT_DROP_ipv6_ext_short;
		if (done + hl > TFO_IPV6_EXT_MAX_LEN)
			return TFO_PKT_DROP_ipv6_ext_limit;
		if (seg_len < off + done + hl)
			return TFO_PKT_DROP_multiseg;
		if (next == IPPROTO_ROUTING) {
			/* segments left 0: ignore it, whatever its type
			 * (RFC 8200 4.4); else the packet is for the next
			 * hop, and we route nothing (Linux drops type 0 and
			 * unknown types too, RFC 5095) */
			if (h[3] != 0)
				return TFO_PKT_DROP_ipv6_rthdr;
		} else {
			r = tfo_ipv6_opts_check(h, hl, next == IPPROTO_HOPOPTS);
			if (r != TFO_PKT_DROP_NONE)
				return r;
		}
		next = h[0];
		done += hl;
	}
}



/*
 * What the PMD says about a checksum: 1 good, -1 bad, 0 unknown (verify in
 * software). NONE (both bits) means "the field is not right but the data
 * was verified" (virtio with partial checksums): good.
 */
static inline int
tfo_rx_cksum_verdict(bool rx_cksum_offload, uint64_t ol_flags,
		     uint64_t mask, uint64_t bad)
{
	uint64_t f = ol_flags & mask;

	if (!rx_cksum_offload || f == 0)
		return 0;
	return f == bad ? -1 : 1;
}

/* Verify an L4 checksum (TCP, ICMPv6: with pseudo-header; ICMPv4: without). */
static bool
tfo_l4_cksum_ok(const struct rte_mbuf *m, const struct tfo_pkt *p,
		uint32_t l4_off, uint32_t l4_len, bool pseudo)
{
	uint64_t sum = pseudo ? tfo_cksum_pseudo(p->family, &p->src, &p->dst,
						 p->l4proto, l4_len) : 0;

	if (likely(m->next == NULL))
		sum = tfo_cksum_add(sum, rte_pktmbuf_mtod_offset(m, const uint8_t *,
								 l4_off),
				    l4_len);
	else
		sum += tfo_cksum_mbuf(m, l4_off, l4_len);
	return tfo_cksum_fold(sum) == 0xffff;
}

/* A TCP header at @p l4_off that passed every check, @p l4_avail bytes of
 * segment, @p doff of them header. */
static inline enum tfo_pkt_class
tfo_pkt_tcp_fields(struct tfo_pkt *p, const struct rte_tcp_hdr *th,
		   uint32_t l4_off, uint32_t l4_avail, uint32_t doff)
{
	p->l4_len = (uint16_t)doff;
	p->payload_off = (uint16_t)(l4_off + doff);
	p->payload_len = (uint16_t)(l4_avail - doff);
	p->tcp_flags = th->tcp_flags;
	p->sport = rte_be_to_cpu_16(th->src_port);
	p->dport = rte_be_to_cpu_16(th->dst_port);
	p->seq = rte_be_to_cpu_32(th->sent_seq);
	p->ack = rte_be_to_cpu_32(th->recv_ack);
	p->window = rte_be_to_cpu_16(th->rx_win);
	p->cls = TFO_PKT_TCP;
	return TFO_PKT_TCP;
}

static enum tfo_pkt_class
tfo_parse_tcp(const struct rte_mbuf *m, bool rx_cksum_offload,
	      struct tfo_pkt *p, uint32_t l4_off, uint32_t l4_avail,
	      uint32_t seg_avail)
{
	const struct rte_tcp_hdr *th;
	uint32_t doff;
	int verdict;

	if (l4_avail < sizeof(*th))
		return tfo_drop(p, TFO_PKT_DROP_tcp_short);
	if (seg_avail < sizeof(*th))
		return tfo_drop(p, TFO_PKT_DROP_multiseg);
	th = rte_pktmbuf_mtod_offset(m, const struct rte_tcp_hdr *, l4_off);
	doff = (uint32_t)(th->data_off >> 4) * 4;
	if (doff < sizeof(*th) || doff > l4_avail)
		return tfo_drop(p, TFO_PKT_DROP_tcp_short);
	if (doff > seg_avail)
		return tfo_drop(p, TFO_PKT_DROP_multiseg);
	if (th->src_port == 0 || th->dst_port == 0)
		return tfo_drop(p, TFO_PKT_DROP_tcp_port);

	verdict = tfo_rx_cksum_verdict(rx_cksum_offload, m->ol_flags,
				       RTE_MBUF_F_RX_L4_CKSUM_MASK,
				       RTE_MBUF_F_RX_L4_CKSUM_BAD);
	if (verdict < 0 ||
	    (verdict == 0 && !tfo_l4_cksum_ok(m, p, l4_off, l4_avail, true)))
		return tfo_drop(p, TFO_PKT_DROP_tcp_cksum);

	return tfo_pkt_tcp_fields(p, th, l4_off, l4_avail, doff);
}

static enum tfo_pkt_class
tfo_parse_ipv4(const struct rte_mbuf *m, bool rx_cksum_offload,
	       struct tfo_pkt *p, uint32_t off, uint32_t seg_len)
{
	const struct rte_ipv4_hdr *ih;
	uint32_t ihl, tot, frame_avail = m->pkt_len - off;
	int verdict;

	if (frame_avail < sizeof(*ih))
		return tfo_drop(p, TFO_PKT_DROP_ipv4_short);
	if (seg_len - off < sizeof(*ih))
		return tfo_drop(p, TFO_PKT_DROP_multiseg);
	ih = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, off);
	if ((ih->version_ihl >> 4) != 4)
		return tfo_drop(p, TFO_PKT_DROP_ipv4_version);
	ihl = (uint32_t)(ih->version_ihl & 0xf) * 4;
	tot = rte_be_to_cpu_16(ih->total_length);
	/* frames may carry padding after the datagram (60-byte minimum) */
	if (ihl < sizeof(*ih) || tot < ihl || tot > frame_avail)
		return tfo_drop(p, TFO_PKT_DROP_ipv4_short);
	if (ihl > seg_len - off)
		return tfo_drop(p, TFO_PKT_DROP_multiseg);

	verdict = tfo_rx_cksum_verdict(rx_cksum_offload, m->ol_flags,
				       RTE_MBUF_F_RX_IP_CKSUM_MASK,
				       RTE_MBUF_F_RX_IP_CKSUM_BAD);
	if (verdict < 0 ||
	    (verdict == 0 && tfo_cksum_fold(tfo_cksum_add(0, ih, ihl)) != 0xffff))
		return tfo_drop(p, TFO_PKT_DROP_ipv4_cksum);

	/* XXX no reassembly (drop_ipv4_frag): a request fits one segment, and
	 * a fragment means a sender with a wrong path MTU; it is not served */
	if (ih->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
						   RTE_IPV4_HDR_OFFSET_MASK))
		return tfo_drop(p, TFO_PKT_DROP_ipv4_frag);

	p->family = AF_INET;
	p->l3_len = (uint16_t)ihl;
	p->l4proto = ih->next_proto_id;
	memset(&p->src, 0, sizeof(p->src));
	memset(&p->dst, 0, sizeof(p->dst));
	memcpy(p->src.b, &ih->src_addr, 4);
	memcpy(p->dst.b, &ih->dst_addr, 4);

	off += ihl;
	switch (p->l4proto) {
	case IPPROTO_TCP:
		return tfo_parse_tcp(m, rx_cksum_offload, p, off, tot - ihl,
				     seg_len > off ? seg_len - off : 0);
	case IPPROTO_ICMP:
		if (tot - ihl < 8)
			return tfo_drop(p, TFO_PKT_DROP_icmp_short);
		if (seg_len < off + 8)
			return tfo_drop(p, TFO_PKT_DROP_multiseg);
		if (!tfo_l4_cksum_ok(m, p, off, tot - ihl, false))
			return tfo_drop(p, TFO_PKT_DROP_icmp_cksum);
		p->l4_len = (uint16_t)(tot - ihl);
		p->payload_off = (uint16_t)off;
		p->cls = TFO_PKT_ICMP;
		return TFO_PKT_ICMP;
	default:
		return tfo_drop(p, TFO_PKT_DROP_l4_proto);
	}
}

static enum tfo_pkt_class
tfo_parse_ipv6(const struct rte_mbuf *m, bool rx_cksum_offload,
	       struct tfo_pkt *p, uint32_t off, uint32_t seg_len)
{
	const struct rte_ipv6_hdr *ih;
	uint32_t plen, ext = 0, frame_avail = m->pkt_len - off;
	enum tfo_pkt_drop r;
	uint8_t nh;

	if (frame_avail < sizeof(*ih))
		return tfo_drop(p, TFO_PKT_DROP_ipv6_short);
	if (seg_len - off < sizeof(*ih))
		return tfo_drop(p, TFO_PKT_DROP_multiseg);
	ih = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, off);
	if ((rte_be_to_cpu_32(ih->vtc_flow) >> 28) != 6)
		return tfo_drop(p, TFO_PKT_DROP_ipv6_version);
	plen = rte_be_to_cpu_16(ih->payload_len);
	if (plen > frame_avail - sizeof(*ih))
		return tfo_drop(p, TFO_PKT_DROP_ipv6_short);
	off += sizeof(*ih);
	nh = ih->proto;
	if (unlikely(nh != IPPROTO_TCP && nh != IPPROTO_ICMPV6)) {
		r = tfo_ipv6_ext_walk(m, off, plen, seg_len, &nh, &ext);
		if (r != TFO_PKT_DROP_NONE)
			return tfo_drop(p, r);
		off += ext;
		plen -= ext;
	}

	p->family = AF_INET6;
	p->l3_len = (uint16_t)(sizeof(*ih) + ext);
	p->l4proto = nh;
	memcpy(p->src.b, ih->src_addr, 16);
	memcpy(p->dst.b, ih->dst_addr, 16);

	switch (p->l4proto) {
	case IPPROTO_TCP:
		return tfo_parse_tcp(m, rx_cksum_offload, p, off, plen,
				     seg_len > off ? seg_len - off : 0);
	case IPPROTO_ICMPV6:
		if (plen < 4)
			return tfo_drop(p, TFO_PKT_DROP_icmp_short);
		if (seg_len < off + 4)
			return tfo_drop(p, TFO_PKT_DROP_multiseg);
		if (!tfo_l4_cksum_ok(m, p, off, plen, true))
			return tfo_drop(p, TFO_PKT_DROP_icmp_cksum);
		p->l4_len = (uint16_t)plen;
		p->payload_off = (uint16_t)off;
		p->cls = tfo_icmp6_is_mld(*rte_pktmbuf_mtod_offset(m, const uint8_t *, off)) ?
			 TFO_PKT_MLD : TFO_PKT_ICMP6;
		return (enum tfo_pkt_class)p->cls;
	default:
		return tfo_drop(p, TFO_PKT_DROP_l4_proto);
	}
}

enum tfo_pkt_class
tfo_pkt_parse_generic(const struct rte_mbuf *m, bool rx_cksum_offload,
		      struct tfo_pkt *p)
{
	const struct rte_ether_hdr *eh;
	uint32_t seg_len = m->data_len, off = sizeof(*eh);
	uint16_t type;

	tfo_pkt_reset(p, 0);

	if (m->pkt_len < sizeof(*eh))
		return tfo_drop(p, TFO_PKT_DROP_l2_short);
	/* a lone segment must hold the whole frame: the checksums read
	 * pkt_len bytes of it */
	if (seg_len < sizeof(*eh) || seg_len > m->pkt_len ||
	    (m->next == NULL && seg_len != m->pkt_len))
		return tfo_drop(p, TFO_PKT_DROP_multiseg);
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	type = eh->ether_type;
	if (type == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN)) {
		const struct rte_vlan_hdr *vh;

		if (m->pkt_len < off + sizeof(*vh))
			return tfo_drop(p, TFO_PKT_DROP_l2_short);
		if (seg_len < off + sizeof(*vh))
			return tfo_drop(p, TFO_PKT_DROP_multiseg);
		vh = rte_pktmbuf_mtod_offset(m, const struct rte_vlan_hdr *, off);
		p->has_vlan = 1;
		p->vlan_tci = rte_be_to_cpu_16(vh->vlan_tci);
		type = vh->eth_proto;
		off += sizeof(*vh);
	}
	p->l2_len = (uint8_t)off;

	switch (rte_be_to_cpu_16(type)) {
	case RTE_ETHER_TYPE_IPV4:
		return tfo_parse_ipv4(m, rx_cksum_offload, p, off, seg_len);
	case RTE_ETHER_TYPE_IPV6:
		return tfo_parse_ipv6(m, rx_cksum_offload, p, off, seg_len);
	case RTE_ETHER_TYPE_ARP: {
		const struct rte_arp_hdr *ah;

		if (m->pkt_len < off + sizeof(*ah))
			return tfo_drop(p, TFO_PKT_DROP_arp_short);
		if (seg_len < off + sizeof(*ah))
			return tfo_drop(p, TFO_PKT_DROP_multiseg);
		ah = rte_pktmbuf_mtod_offset(m, const struct rte_arp_hdr *, off);
		if (ah->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
		    ah->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
		    ah->arp_hlen != RTE_ETHER_ADDR_LEN || ah->arp_plen != 4)
			return tfo_drop(p, TFO_PKT_DROP_arp_short);
		p->l3_len = sizeof(*ah);
		p->cls = TFO_PKT_ARP;
		return TFO_PKT_ARP;
	}
	default:
		return tfo_drop(p, TFO_PKT_DROP_l2_ethertype);
	}
}

/* Ethernet, IPv4 without options, TCP without options: the shortest frame
 * the fast branch takes. */
#define TFO_PKT_FAST_MIN (RTE_ETHER_HDR_LEN + 2 * 20)
#define TFO_PKT_FAST_NO (-1)

/*
 * The frame nearly every segment is: one segment, untagged IPv4 with no
 * options and no fragmentation, TCP. Every check of the generic parser
 * holds for it (the IPv4 lengths cover the TCP header, the segment the
 * datagram), so it needs only the checksums, summed here with the
 * addresses loaded once for both. Anything else, or a check that fails
 * (but a checksum), is TFO_PKT_FAST_NO: the generic parser's to give, so
 * both give the same fields and the same drop reason.
 */
static inline int
tfo_pkt_parse_fast(const struct rte_mbuf *m, bool rx_cksum_offload,
		   struct tfo_pkt *p)
{
	const struct rte_ether_hdr *eh =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ih = (const struct rte_ipv4_hdr *)(eh + 1);
	const struct rte_tcp_hdr *th = (const struct rte_tcp_hdr *)(ih + 1);
	uint32_t len = m->data_len, tot, l4, doff;
	uint64_t w01, sd, sum;
	uint32_t w2;
	int verdict;

	if (m->next != NULL || len != m->pkt_len || len < TFO_PKT_FAST_MIN ||
	    eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ih->version_ihl != RTE_IPV4_VHL_DEF ||
	    ih->next_proto_id != IPPROTO_TCP ||
	    (ih->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
						    RTE_IPV4_HDR_OFFSET_MASK)))
		return TFO_PKT_FAST_NO;
	tot = rte_be_to_cpu_16(ih->total_length);
	doff = (uint32_t)(th->data_off >> 4) * 4;
	if (tot > len - RTE_ETHER_HDR_LEN || doff < sizeof(*th) ||
	    doff + sizeof(*ih) > tot || th->src_port == 0 || th->dst_port == 0)
		return TFO_PKT_FAST_NO;
	l4 = tot - (uint32_t)sizeof(*ih);

	/* header words 0-1, 2, and 3-4 (the addresses, kept for the
	 * pseudo-header) */
	memcpy(&w01, ih, 8);
	memcpy(&w2, &ih->time_to_live, 4);
	memcpy(&sd, &ih->src_addr, 8);
	verdict = tfo_rx_cksum_verdict(rx_cksum_offload, m->ol_flags,
				       RTE_MBUF_F_RX_IP_CKSUM_MASK,
				       RTE_MBUF_F_RX_IP_CKSUM_BAD);
	if (unlikely(verdict < 0 ||
		     (verdict == 0 &&
		      tfo_cksum_fold((uint32_t)w01 + (w01 >> 32) + w2 +
				     (uint32_t)sd + (sd >> 32)) != 0xffff))) {
		tfo_pkt_reset(p, RTE_ETHER_HDR_LEN);
		return tfo_drop(p, TFO_PKT_DROP_ipv4_cksum);
	}

	verdict = tfo_rx_cksum_verdict(rx_cksum_offload, m->ol_flags,
				       RTE_MBUF_F_RX_L4_CKSUM_MASK,
				       RTE_MBUF_F_RX_L4_CKSUM_BAD);
	if (verdict == 0) {
		/* tfo_cksum_pseudo's sum: l4 fits in 16 bits */
		sum = rte_cpu_to_be_16((uint16_t)IPPROTO_TCP) +
		      (uint64_t)rte_cpu_to_be_16((uint16_t)l4) +
		      (uint32_t)sd + (sd >> 32);
		if (tfo_cksum_fold(tfo_cksum_add(sum, th, l4)) != 0xffff)
			verdict = -1;
	}

	/* every field is written once, after the sums */
	tfo_pkt_reset(p, RTE_ETHER_HDR_LEN);
	p->family = AF_INET;
	p->l3_len = sizeof(*ih);
	p->l4proto = IPPROTO_TCP;
	memset(&p->src, 0, sizeof(p->src));
	memset(&p->dst, 0, sizeof(p->dst));
	memcpy(p->src.b, &ih->src_addr, 4);
	memcpy(p->dst.b, &ih->dst_addr, 4);
	if (unlikely(verdict < 0))
		return tfo_drop(p, TFO_PKT_DROP_tcp_cksum);

	return tfo_pkt_tcp_fields(p, th, RTE_ETHER_HDR_LEN + sizeof(*ih), l4,
				  doff);
}

enum tfo_pkt_class
tfo_pkt_parse(const struct rte_mbuf *m, bool rx_cksum_offload, struct tfo_pkt *p)
{
	int cls = tfo_pkt_parse_fast(m, rx_cksum_offload, p);

	if (likely(cls != TFO_PKT_FAST_NO))
		return (enum tfo_pkt_class)cls;
	return tfo_pkt_parse_generic(m, rx_cksum_offload, p);
}

/* ---- parse and match in one pass ---------------------------------------- */

/* Host order of a network-order field: GCC's builtins, which the compiler
 * folds into the load (movbe), where rte_be_to_cpu_16's asm cannot. */
static inline uint16_t
ld_be16(const void *b)
{
	uint16_t v;

	memcpy(&v, b, 2);
	return __builtin_bswap16(v);
}

static inline uint32_t
ld_be32(const void *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return __builtin_bswap32(v);
}

/* The IPv4 broadcast address of @p la's subnet, network order (@p la's
 * address itself for /0, /31 and /32, which have none): see
 * tfo_pkt_ipv4_scan_. */
static inline uint32_t
ipv4_bcast_be(const struct tfo_local_addr *la, uint32_t a)
{
	uint32_t host = (uint32_t)(la->prefix_len - 1) < 30u ?
			UINT32_MAX >> la->prefix_len : 0;

	return a | __builtin_bswap32(host);
}

/* Little-endian words of the frame's bytes 12-15 and 20-23. */
#define W12_MASK UINT32_C(0x00ffffff)	/* EtherType, version + IHL */
#define W12_IPV4 UINT32_C(0x00450008)	/* 0x0800, 4 and 5 words */
#define W20_MASK UINT32_C(0xff00ff3f)	/* MF + fragment offset, protocol */
#define W20_TCP UINT32_C(0x06000000)	/* 0, IPPROTO_TCP */

/* An untagged frame whose IPv4 header has no options, is not a fragment
 * and carries TCP: two words compared where four fields were. */
static inline bool
ipv4_tcp_hdr(const uint8_t *f)
{
	uint32_t w12, w20;

	memcpy(&w12, f + 12, 4);
	memcpy(&w20, f + 20, 4);
	return (rte_le_to_cpu_32(w12) & W12_MASK) == W12_IPV4 &&
	       (rte_le_to_cpu_32(w20) & W20_MASK) == W20_TCP;
}

/* The 6 bytes at @p b are @p mac: two loads and compares a side. */
static inline bool
mac_eq(const uint8_t *b, const struct rte_ether_addr *mac)
{
	uint32_t x4, y4;
	uint16_t x2, y2;

	memcpy(&x4, b, 4);
	memcpy(&x2, b + 4, 2);
	memcpy(&y4, mac->addr_bytes, 4);
	memcpy(&y2, mac->addr_bytes + 4, 2);
	return ((x4 ^ y4) | (uint32_t)(x2 ^ y2)) == 0;
}

/* Whether IPv4 source @p src (network order) is the address or the
 * broadcast address of one of @p port's IPv4 addresses. */
static inline bool
ipv4_src_ours(const struct tfo_port_info *port, uint32_t src)
{
	bool local = false;

	for (unsigned int i = 0; i < port->nb_addrs; i++) {
		const struct tfo_local_addr *la = &port->addrs[i];
		uint32_t a;

		if (la->family != AF_INET)
			continue;
		memcpy(&a, la->addr.b, 4);
		local |= src == a || src == ipv4_bcast_be(la, a);
	}
	return local;
}

/* The one pass's last fields: the addresses, ours the @p idx-th. */
static __rte_always_inline int
classify_fast_addrs(const struct tfo_port_info *port, struct tfo_pkt *p,
		    unsigned int idx, uint32_t src, uint32_t dst)
{
	p->local_idx = (uint8_t)(port->addr_base + idx);
	memset(&p->src, 0, sizeof(p->src));
	memcpy(p->src.b, &src, 4);
	memset(&p->dst, 0, sizeof(p->dst));
	memcpy(p->dst.b, &dst, 4);
	return TFO_PKT_TCP;
}

/*
 * The one pass's address checks on a port with more than one address or
 * a frame not to the primary: tfo_pkt_ipv4_scan_'s answers (the first
 * IPv4 address equal to @p dst; no address of ours or broadcast equal to
 * @p src). Out of line, reached by a tail call: the common pass saves
 * fewer registers.
 */
static __rte_noinline int
classify_fast_scan(const struct tfo_port_info *port, struct tfo_pkt *p,
		   uint32_t src, uint32_t dst)
{
	unsigned int idx;

	for (idx = 0; idx < port->nb_addrs; idx++)
		if (port->addrs[idx].family == AF_INET &&
		    memcmp(port->addrs[idx].addr.b, &dst, 4) == 0)
			break;
	if (idx >= port->nb_addrs)
		return TFO_PKT_FAST_NO;	/* ip_not_ours */
	if (ipv4_src_ours(port, src) || tfo_pkt_ipv4_src_bad_((const uint8_t *)&src))
		return TFO_PKT_FAST_NO;	/* ip_bad_src */
	return classify_fast_addrs(port, p, idx, src, dst);
}

int
tfo_pkt_classify_fast(const struct rte_mbuf *m, const struct tfo_port_info *port,
		      struct tfo_pkt *p)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv4_hdr *ih =
		(const struct rte_ipv4_hdr *)(f + RTE_ETHER_HDR_LEN);
	const uint8_t *th = f + RTE_ETHER_HDR_LEN + sizeof(*ih);
	uint32_t len = m->data_len, tot, doff, src, dst, a;

	/* the frame: what tfo_pkt_parse_fast takes, with both checksums
	 * vouched for by the NIC (GOOD, or NONE: verified); to our MAC */
	if (m->next != NULL || len != m->pkt_len || len < TFO_PKT_FAST_MIN ||
	    !port->rx_cksum_offload ||
	    (m->ol_flags & (RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD)) !=
	    (RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD) ||
	    !ipv4_tcp_hdr(f) ||
	    !mac_eq(f, &port->mac))
		return TFO_PKT_FAST_NO;
	tot = ld_be16(&ih->total_length);
	doff = (uint32_t)(th[12] >> 2) & 0x3c;
	if (tot > len - RTE_ETHER_HDR_LEN || doff < TFO_TCP_HDR_LEN ||
	    doff + sizeof(*ih) > tot || ld_be16(th) == 0 || ld_be16(th + 2) == 0)
		return TFO_PKT_FAST_NO;

	/* the segment's fields first: fewer values live across the address
	 * checks below (a NO leaves them for tfo_pkt_parse to write again) */
	p->seq = ld_be32(th + 4);
	p->ack = ld_be32(th + 8);
	p->cls = TFO_PKT_TCP;
	p->drop = TFO_PKT_DROP_NONE;
	p->l4proto = IPPROTO_TCP;
	p->tcp_flags = th[13];
	p->has_vlan = 0;
	p->l2_len = RTE_ETHER_HDR_LEN;
	p->l3_len = sizeof(*ih);
	p->l4_len = (uint16_t)doff;
	p->payload_off = (uint16_t)(RTE_ETHER_HDR_LEN + sizeof(*ih) + doff);
	p->payload_len = (uint16_t)(tot - sizeof(*ih) - doff);
	p->vlan_tci = 0;
	p->window = ld_be16(th + 14);
	p->sport = ld_be16(th);
	p->dport = ld_be16(th + 2);
	p->family = AF_INET;
	p->key_pad = 0;

	/* ours: our primary address (one compare) before any scan */
	memcpy(&src, &ih->src_addr, 4);
	memcpy(&dst, &ih->dst_addr, 4);
	memcpy(&a, port->addrs[0].addr.b, 4);
	if (unlikely(port->nb_addrs != 1 || port->addrs[0].family != AF_INET || dst != a))
		return classify_fast_scan(port, p, src, dst);
	/* the source: not martian, not ours, not our broadcast */
	if (src == a || src == ipv4_bcast_be(&port->addrs[0], a) ||
	    tfo_pkt_ipv4_src_bad_((const uint8_t *)&src))
		return TFO_PKT_FAST_NO;	/* ip_bad_src */
	return classify_fast_addrs(port, p, 0, src, dst);
}

/* ---- UDP ---------------------------------------------------------------- */

enum tfo_pkt_class
tfo_pkt_parse_udp(const struct rte_mbuf *m, bool rx_cksum_offload, struct tfo_pkt *p)
{
	uint32_t off = (uint32_t)p->l2_len + p->l3_len, ip_len, ulen;
	const struct rte_udp_hdr *uh;
	int verdict;

	/* the IP payload's length, as the parser checked it against the frame */
	if (p->family == AF_INET) {
		const struct rte_ipv4_hdr *ih =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, p->l2_len);

		ip_len = rte_be_to_cpu_16(ih->total_length) - (uint32_t)p->l3_len;
	} else {
		const struct rte_ipv6_hdr *ih =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, p->l2_len);

		ip_len = rte_be_to_cpu_16(ih->payload_len) + (uint32_t)sizeof(*ih) -
			 p->l3_len;
	}
	if (ip_len < sizeof(*uh))
		return tfo_drop(p, TFO_PKT_DROP_udp_short);
	if (m->data_len < off + sizeof(*uh))
		return tfo_drop(p, TFO_PKT_DROP_multiseg);
	uh = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, off);
	ulen = rte_be_to_cpu_16(uh->dgram_len);
	/* bytes past the UDP length are ignored, as Linux trims them */
	if (ulen < sizeof(*uh) || ulen > ip_len)
		return tfo_drop(p, TFO_PKT_DROP_udp_short);
	if (uh->src_port == 0 || uh->dst_port == 0)
		return tfo_drop(p, TFO_PKT_DROP_udp_port);
	if (uh->dgram_cksum == 0) {
		/* "no checksum": IPv4 only (RFC 768; RFC 8200 section 8.1) */
		if (p->family != AF_INET)
			return tfo_drop(p, TFO_PKT_DROP_udp_cksum);
	} else {
		verdict = tfo_rx_cksum_verdict(rx_cksum_offload, m->ol_flags,
					       RTE_MBUF_F_RX_L4_CKSUM_MASK,
					       RTE_MBUF_F_RX_L4_CKSUM_BAD);
		if (verdict < 0 ||
		    (verdict == 0 && !tfo_l4_cksum_ok(m, p, off, ulen, true)))
			return tfo_drop(p, TFO_PKT_DROP_udp_cksum);
	}
	p->sport = rte_be_to_cpu_16(uh->src_port);
	p->dport = rte_be_to_cpu_16(uh->dst_port);
	p->l4_len = (uint16_t)ulen;
	p->payload_off = (uint16_t)(off + sizeof(*uh));
	p->payload_len = (uint16_t)(ulen - sizeof(*uh));
	p->drop = TFO_PKT_DROP_NONE;
	p->cls = TFO_PKT_UDP;
	return TFO_PKT_UDP;
}

uint16_t
tfo_pkt_udp_dport(const struct rte_mbuf *m, const struct tfo_pkt *p)
{
	uint32_t off = (uint32_t)p->l2_len + p->l3_len;
	const uint8_t *b;

	if (p->l4proto != IPPROTO_UDP || p->drop != TFO_PKT_DROP_l4_proto ||
	    m->data_len < off + 4)
		return 0;
	b = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	return (uint16_t)(b[2] << 8 | b[3]);
}
