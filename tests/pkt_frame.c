/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the packet tests' frames (pkt_harness.h): a byte-by-byte
 * builder of Ethernet, VLAN, ARP, IPv4, IPv6 with extension headers, TCP
 * and ICMP, and the frame templates the truncation, multi-segment and
 * cross-check cases walk.
 */
#include "pkt_harness.h"

/* ---- frame builder ------------------------------------------------------ */

void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

void
f_bytes(struct frame *f, const void *d, size_t n)
{
	memcpy(f->b + f->len, d, n);
	f->len = (uint16_t)(f->len + n);
}

void
f_eth(struct frame *f, const struct rte_ether_addr *dst, uint16_t type)
{
	memset(f, 0, sizeof(*f));
	f_bytes(f, dst->addr_bytes, 6);
	f_bytes(f, peer_mac.addr_bytes, 6);
	put16(f->b + 12, type);
	f->len = 14;
	f->l3 = f->l4 = f->pay = f->end = f->len;
}

/* Append a VLAN tag; the caller gave 0x8100 as the Ethernet type. */
void
f_vlan(struct frame *f, uint16_t tci, uint16_t type)
{
	put16(f->b + f->len, tci);
	put16(f->b + f->len + 2, type);
	f->len = (uint16_t)(f->len + 4);
	f->l3 = f->l4 = f->pay = f->end = f->len;
}

void
f_eth_l2(struct frame *f, const struct rte_ether_addr *dst, int vlan,
	 uint16_t type)
{
	if (vlan) {
		f_eth(f, dst, RTE_ETHER_TYPE_VLAN);
		f_vlan(f, 0xa123, type);	/* PCP 5, DEI 0, VID 0x123 */
	} else {
		f_eth(f, dst, type);
	}
}

void
f_ipv4(struct frame *f, const uint8_t *src, const uint8_t *dst, uint8_t proto,
       const uint8_t *opts, uint8_t opt_len)
{
	uint8_t *h = f->b + f->len;

	f->kind = F_IP;
	f->family = AF_INET;
	f->proto = proto;
	f->l3 = f->len;
	h[0] = (uint8_t)(0x40 | ((20 + opt_len) / 4));
	h[1] = 0x10;
	put16(h + 2, 0);		/* set by f_done */
	put16(h + 4, 0x1234);
	put16(h + 6, 0x4000);		/* DF */
	h[8] = 61;
	h[9] = proto;
	put16(h + 10, 0);
	memcpy(h + 12, src, 4);
	memcpy(h + 16, dst, 4);
	f->len = (uint16_t)(f->len + 20);
	if (opt_len)
		f_bytes(f, opts, opt_len);
	f->l4 = f->pay = f->end = f->len;
}

void
f_ipv6(struct frame *f, const uint8_t *src, const uint8_t *dst, uint8_t nh,
       uint8_t hlim)
{
	uint8_t *h = f->b + f->len;

	f->kind = F_IP;
	f->family = AF_INET6;
	f->proto = nh;
	f->l3 = f->len;
	put32(h, 0x6a012345);		/* TC 0xa0, flow label 0x12345 */
	put16(h + 4, 0);
	h[6] = nh;
	h[7] = hlim;
	memcpy(h + 8, src, 16);
	memcpy(h + 24, dst, 16);
	f->len = (uint16_t)(f->len + 40);
	f->l4 = f->pay = f->end = f->len;
}

void
f_tcp(struct frame *f, uint16_t sport, uint16_t dport, uint8_t flags,
      const uint8_t *opts, uint8_t opt_len)
{
	uint8_t *h = f->b + f->len;

	f->l4 = f->len;
	put16(h, sport);
	put16(h + 2, dport);
	put32(h + 4, T_SEQ);
	put32(h + 8, T_ACK);
	h[12] = (uint8_t)(((20 + opt_len) / 4) << 4);
	h[13] = flags;
	put16(h + 14, T_WIN);
	put16(h + 16, 0);
	put16(h + 18, 0);
	f->len = (uint16_t)(f->len + 20);
	if (opt_len)
		f_bytes(f, opts, opt_len);
	f->pay = f->end = f->len;
}

/* ICMP/ICMPv6 header: type, code, checksum, 4 bytes of "rest". */
void
f_icmp(struct frame *f, uint8_t type, uint8_t code, uint32_t rest)
{
	uint8_t *h = f->b + f->len;

	f->l4 = f->pay = f->len;
	h[0] = type;
	h[1] = code;
	put16(h + 2, 0);
	put32(h + 4, rest);
	f->len = (uint16_t)(f->len + 8);
	f->end = f->len;
}

void
f_payload(struct frame *f, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		f->b[f->len + i] = (uint8_t)(0x30 + i * 7);
	f->len = (uint16_t)(f->len + n);
	f->end = f->len;
}

uint16_t
l4_cksum_off(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return 16;
	case IPPROTO_UDP:
		return 6;
	default:
		return 2;	/* ICMP, ICMPv6 */
	}
}

/* Recompute the IP header checksum and the L4 checksum over [l4, end). */
void
f_cksums(struct frame *f)
{
	uint8_t *ip = f->b + f->l3;
	uint32_t l4_len = (uint32_t)(f->end - f->l4);
	uint16_t co = l4_cksum_off(f->proto);
	uint16_t c;

	if (f->kind != F_IP)
		return;
	if (f->family == AF_INET) {
		uint16_t ihl = (uint16_t)((ip[0] & 0xf) * 4);

		if (f->l3 + 20 <= f->end) {
			put16(ip + 10, 0);
			if (f->l3 + ihl <= f->end)
				put16(ip + 10, (uint16_t)~ref_cksum(ip, ihl));
		}
	}
	if (f->l4 >= f->end || l4_len < (uint32_t)co + 2)
		return;
	put16(f->b + f->l4 + co, 0);
	if (f->family == AF_INET && f->proto != IPPROTO_TCP &&
	    f->proto != IPPROTO_UDP)
		c = (uint16_t)~ref_cksum(f->b + f->l4, l4_len);
	else
		c = (uint16_t)~ref_l4_cksum(f->family, ip + (f->family == AF_INET ? 12 : 8),
					    ip + (f->family == AF_INET ? 16 : 24),
					    f->proto, f->b + f->l4, l4_len);
	if (f->proto == IPPROTO_UDP && c == 0)
		c = 0xffff;
	put16(f->b + f->l4 + co, c);
}

/* Set the IP length field so that the datagram ends at @end, and fix the
 * checksums. */
void
f_set_end(struct frame *f, uint16_t end)
{
	uint8_t *ip = f->b + f->l3;

	f->end = end;
	if (f->kind == F_IP && f->family == AF_INET)
		put16(ip + 2, (uint16_t)(end - f->l3));
	else if (f->kind == F_IP)
		put16(ip + 4, (uint16_t)(end - f->l3 - 40));
	f_cksums(f);
}

void
f_done(struct frame *f)
{
	if (f->kind != F_IP)
		f->end = f->len;
	else
		f_set_end(f, f->len);
}

/* Ethernet padding up to @min bytes (after f_done: not part of the IP
 * datagram); @fill makes it visible if anyone sums it. */
void
f_pad(struct frame *f, uint16_t min, uint8_t fill)
{
	while (f->len < min)
		f->b[f->len++] = fill;
}

/* ---- frame templates ---------------------------------------------------- */

const uint8_t syn_opts[20] = {
	2, 4, 0x05, 0xb4,			/* MSS 1460 */
	4, 2,					/* SACK permitted */
	8, 10, 1, 2, 3, 4, 0, 0, 0, 0,		/* timestamps */
	1,					/* NOP */
	3, 3, 7,				/* window scale 7 */
};
/* Router alert + NOP padding + timestamp option with room for 1 entry. */
const uint8_t ip_opts[12] = {
	0x94, 4, 0, 0,
	0x44, 8, 5, 0, 0, 0, 0, 0,
};

void
mk_tcp(struct frame *f, int family, int vlan, uint8_t ip_opt_len,
       uint8_t tcp_opt_len, uint16_t pay)
{
	f_eth_l2(f, &our_mac, vlan,
		 family == AF_INET ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	if (family == AF_INET)
		f_ipv4(f, peer4, our4, IPPROTO_TCP, ip_opts, ip_opt_len);
	else
		f_ipv6(f, peer6, our6, IPPROTO_TCP, 64);
	f_tcp(f, T_SPORT, T_DPORT, T_FLAGS, syn_opts, tcp_opt_len);
	f_payload(f, pay);
	f_done(f);
}

void
mk_arp(struct frame *f, int vlan, uint16_t op)
{
	uint8_t a[28];

	f_eth_l2(f, &bcast_mac, vlan, RTE_ETHER_TYPE_ARP);
	f->kind = F_ARP;
	put16(a, 1);			/* Ethernet */
	put16(a + 2, RTE_ETHER_TYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, op);
	memcpy(a + 8, peer_mac.addr_bytes, 6);
	memcpy(a + 14, peer4, 4);
	memset(a + 18, 0, 6);
	memcpy(a + 24, our4, 4);
	f_bytes(f, a, sizeof(a));
	f->l4 = f->pay = f->end = f->len;
}

void
mk_icmp4(struct frame *f, int vlan, uint8_t ip_opt_len, uint16_t data)
{
	f_eth_l2(f, &our_mac, vlan, RTE_ETHER_TYPE_IPV4);
	f_ipv4(f, peer4, our4b, IPPROTO_ICMP, ip_opts, ip_opt_len);
	f_icmp(f, 8, 0, 0x00420001);
	f_payload(f, data);
	f_done(f);
}

void
mk_icmp6_echo(struct frame *f, int vlan, uint16_t data)
{
	f_eth_l2(f, &our_mac, vlan, RTE_ETHER_TYPE_IPV6);
	f_ipv6(f, peer6, our6, IPPROTO_ICMPV6, 64);
	f_icmp(f, 128, 0, 0x00430002);
	f_payload(f, data);
	f_done(f);
}

/* Neighbor Solicitation for @target, sent to its solicited-node group. */
void
mk_ns(struct frame *f, const uint8_t *src, const uint8_t *target)
{
	struct rte_ether_addr mc = {{ 0x33, 0x33, 0xff, target[13], target[14],
				      target[15] }};
	uint8_t dst[16] = { 0xff, 0x02, [11] = 1, [12] = 0xff };
	uint8_t slla[8] = { 1, 1 };

	memcpy(dst + 13, target + 13, 3);
	memcpy(slla + 2, peer_mac.addr_bytes, 6);
	f_eth_l2(f, &mc, 0, RTE_ETHER_TYPE_IPV6);
	f_ipv6(f, src, dst, IPPROTO_ICMPV6, 255);
	f_icmp(f, 135, 0, 0);
	f_bytes(f, target, 16);
	f_bytes(f, slla, sizeof(slla));
	f_done(f);
}

/* HBH/DO bodies (6 bytes: one 8-byte header) */
const uint8_t opt_padn4[6] = { 1, 4, 0, 0, 0, 0 };
const uint8_t opt_router_alert[6] = { 5, 2, 0, 0, 1, 0 };	/* RA MLD, PadN 0 */
/* Routing header type 0 (RFC 2460) with one address and segments left 0 */
const uint8_t rh0_body[22] = { 0, 0, 0, 0, 0, 0, 0xfd, 0, 0x07, 0xf0, [21] = 0x09 };

/*
 * An IPv6 header followed by the extension headers @x[0..n-1], chained
 * by their next-header fields, the last one's pointing to @nh; f->proto is
 * the upper layer's, so f_cksums() sums it over the final destination.
 */
void
f_ipv6_ext(struct frame *f, const uint8_t *src, const uint8_t *dst, uint8_t nh,
	   uint8_t hlim, const struct ext_hdr *x, unsigned int n)
{
	f_ipv6(f, src, dst, n > 0 ? x[0].type : nh, hlim);
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *h = f->b + f->len;

		memset(h, 0, x[i].len);
		h[0] = i + 1 < n ? x[i + 1].type : nh;
		h[1] = (uint8_t)(x[i].len / 8 - 1);
		if (x[i].body != NULL)
			memcpy(h + 2, x[i].body, x[i].len - 2u);
		f->len = (uint16_t)(f->len + x[i].len);
	}
	f->proto = nh;
	f->l4 = f->pay = f->end = f->len;
}

/* A TCP SYN (options, 7 bytes of data) behind extension headers. */
void
mk_tcp6_ext(struct frame *f, int vlan, const struct ext_hdr *x, unsigned int n)
{
	f_eth_l2(f, &our_mac, vlan, RTE_ETHER_TYPE_IPV6);
	f_ipv6_ext(f, peer6, our6, IPPROTO_TCP, 64, x, n);
	f_tcp(f, T_SPORT, T_DPORT, T_FLAGS, syn_opts, 20);
	f_payload(f, 7);
	f_done(f);
}

/* Hop-by-Hop (PadN), Destination Options (PadN), Routing type 0 left 0. */
const struct ext_hdr ext_hbh_do_rh[] = {
	{ IPPROTO_HOPOPTS, 8, opt_padn4 },
	{ IPPROTO_DSTOPTS, 8, opt_padn4 },
	{ IPPROTO_ROUTING, 24, rh0_body },
};

/* An MLDv2 report (RFC 3810: type 143, one record) to ff02::16, with the
 * Hop-by-Hop router alert every MLD message carries. */
void
mk_mld_report(struct frame *f, bool hbh)
{
	static const uint8_t mld_routers[16] = { 0xff, 0x02, [15] = 0x16 };
	static const struct rte_ether_addr mc = {{ 0x33, 0x33, 0, 0, 0, 0x16 }};
	const struct ext_hdr ra = { IPPROTO_HOPOPTS, 8, opt_router_alert };
	/* record: type 4 (CHANGE_TO_EXCLUDE), no sources, the group */
	uint8_t rec[20] = { 4, 0, 0, 0, 0xff, 0x02, [15] = 0x01, [16] = 0xff };

	memcpy(rec + 17, our6 + 13, 3);
	f_eth_l2(f, &mc, 0, RTE_ETHER_TYPE_IPV6);
	f_ipv6_ext(f, peer6ll, mld_routers, IPPROTO_ICMPV6, 1, &ra, hbh ? 1 : 0);
	f_icmp(f, 143, 0, 1);		/* reserved, 1 record */
	f_bytes(f, rec, sizeof(rec));
	f_done(f);
}

/* ---- templates for the truncation, multi-segment and cross-check cases --- */

void
mk_tmpl(struct frame *f, int id)
{
	switch (id) {
	case TM_TCP4_OPTS:
		mk_tcp(f, AF_INET, 0, 12, 20, 16);
		break;
	case TM_TCP4_VLAN:
		mk_tcp(f, AF_INET, 1, 0, 12, 5);
		break;
	case TM_TCP6:
		mk_tcp(f, AF_INET6, 0, 0, 20, 7);
		break;
	case TM_TCP6_VLAN:
		mk_tcp(f, AF_INET6, 1, 0, 0, 0);
		break;
	case TM_ARP:
		mk_arp(f, 0, 1);
		break;
	case TM_ARP_VLAN:
		mk_arp(f, 1, 1);
		break;
	case TM_ICMP4_OPTS:
		mk_icmp4(f, 0, 8, 9);
		break;
	case TM_ICMP6_ECHO:
		mk_icmp6_echo(f, 1, 8);
		break;
	case TM_TCP6_EXT:
		mk_tcp6_ext(f, 0, ext_hbh_do_rh, RTE_DIM(ext_hbh_do_rh));
		break;
	case TM_TCP6_EXT_VLAN:
		mk_tcp6_ext(f, 1, ext_hbh_do_rh, 2);
		break;
	case TM_MLD:
		mk_mld_report(f, true);
		break;
	default:
		mk_ns(f, peer6ll, our6);
		break;
	}
}

/* Bytes that must sit in the first segment: all headers the parser reads. */
uint16_t
hdr_end(const struct frame *f)
{
	if (f->kind == F_ARP)
		return (uint16_t)(f->l3 + 28);
	switch (f->proto) {
	case IPPROTO_TCP:
		return f->pay;
	case IPPROTO_ICMP:
		return (uint16_t)(f->l4 + 8);
	default:
		return (uint16_t)(f->l4 + 4);
	}
}

int
good_class(const struct frame *f)
{
	if (f->kind == F_ARP)
		return TFO_PKT_ARP;
	switch (f->proto) {
	case IPPROTO_TCP:
		return TFO_PKT_TCP;
	case IPPROTO_ICMP:
		return TFO_PKT_ICMP;
	default:
		return f->b[f->l4] == 143 ? TFO_PKT_MLD : TFO_PKT_ICMP6;
	}
}

/* The frame cut after @len bytes, IP length fields untouched. */
int
expect_cut(const struct frame *f, uint16_t len)
{
	if (len < 14 || len < f->l3)
		return D(l2_short);
	if (f->kind == F_ARP)
		return len < f->l3 + 28 ? D(arp_short) : D(NONE);
	if (f->family == AF_INET)
		return len < f->end ? D(ipv4_short) : D(NONE);
	return len < f->end ? D(ipv6_short) : D(NONE);
}

/* The datagram shortened to end at @end, its IP length saying so. */
int
expect_short_datagram(const struct frame *f, uint16_t end)
{
	uint16_t l4 = end > f->l4 ? (uint16_t)(end - f->l4) : 0;

	if (end < f->l4)	/* inside the IP options or extension headers */
		return f->family == AF_INET ? D(ipv4_short) : D(ipv6_ext_short);
	switch (f->proto) {
	case IPPROTO_TCP:
		return l4 < f->pay - f->l4 ? D(tcp_short) : D(NONE);
	case IPPROTO_ICMP:
		return l4 < 8 ? D(icmp_short) : D(NONE);
	default:
		/* MLD to ff02::16 is taken by its type: without one, the
		 * group is not ours */
		if (l4 == 0 && f->b[f->l3 + 24] == 0xff && f->b[f->l4] == 143)
			return D(ip_not_ours);
		return l4 < 4 ? D(icmp_short) : D(NONE);
	}
}

void
check_expect(const struct tfo_pkt *p, const struct frame *f, int want,
	     int tmpl, uint16_t len, const char *what)
{
	if (want == D(NONE))
		CHECK_MSG(p->cls == good_class(f) && p->drop == D(NONE),
			  "%s: template %d len %u: cls %u drop %s", what, tmpl,
			  len, p->cls,
			  tfo_pkt_drop_name((enum tfo_pkt_drop)p->drop));
	else
		CHECK_MSG(p->cls == TFO_PKT_DROP && p->drop == want,
			  "%s: template %d len %u: cls %u drop %s, want %s",
			  what, tmpl, len, p->cls,
			  tfo_pkt_drop_name((enum tfo_pkt_drop)p->drop),
			  tfo_pkt_drop_name((enum tfo_pkt_drop)want));
}
