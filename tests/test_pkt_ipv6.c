/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the packet parser on IPv6: bad headers, extension
 * header chains (accepted, dropped, truncated), MLD, stripping extensions.
 */
#include "pkt_harness.h"

TFO_TEST(ipv6_bad_header)
{
	/* headers we do not process: AH, ESP, mobility, HIP, shim6, 253/254 */
	static const uint8_t ext[] = { 51, 50, 135, 139, 140, 253, 254 };
	struct frame o, f;

	mk_tcp(&o, AF_INET6, 0, 0, 0, 12);
	for (size_t i = 0; i < RTE_DIM(ext); i++) {
		f = o;
		f.b[f.l3 + 6] = ext[i];
		CHECK_DROP(parse_f(&f), D(ipv6_ext));
	}
	f = o;
	f.b[f.l3 + 6] = IPPROTO_FRAGMENT;
	CHECK_DROP(parse_f(&f), D(ipv6_frag));
	/* "no next header" is not an extension we could skip: not served */
	f = o;
	f.b[f.l3 + 6] = 59;
	CHECK_DROP(parse_f(&f), D(l4_proto));
	/* payload length past the frame */
	f = o;
	put16(f.b + f.l3 + 4, (uint16_t)(f.len - f.l3 - 40 + 1));
	CHECK_DROP(parse_f(&f), D(ipv6_short));
	put16(f.b + f.l3 + 4, 0xffff);
	CHECK_DROP(parse_f(&f), D(ipv6_short));
	/* version */
	for (uint8_t v = 0; v < 16; v++) {
		if (v == 6)
			continue;
		f = o;
		f.b[f.l3] = (uint8_t)(v << 4 | (f.b[f.l3] & 0xf));
		CHECK_DROP(parse_f(&f), D(ipv6_version));
	}
	/* an IPv4 header under the IPv6 EtherType, and vice versa */
	mk_tcp(&f, AF_INET, 0, 0, 0, 40);
	put16(f.b + 12, RTE_ETHER_TYPE_IPV6);
	CHECK_DROP(parse_f(&f), D(ipv6_version));
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	put16(f.b + 12, RTE_ETHER_TYPE_IPV4);
	CHECK_DROP(parse_f(&f), D(ipv4_version));
}

/* One Destination Options header of TFO_IPV6_EXT_MAX_LEN bytes: two
 * skippable options of 253 bytes. */
static struct ext_hdr
ext_max_len(void)
{
	static uint8_t body[TFO_IPV6_EXT_MAX_LEN - 2] = {
		0x1e, 253, [255] = 0x1e, [256] = 253,
	};

	return (struct ext_hdr){ IPPROTO_DSTOPTS, TFO_IPV6_EXT_MAX_LEN, body };
}

/* A SYN behind extension headers parses like one without, offsets shifted. */
static void
check_ext_syn(const struct ext_hdr *x, unsigned int n, int vlan)
{
	struct frame f;
	struct tfo_pkt p;

	mk_tcp6_ext(&f, vlan, x, n);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR6);
	CHECK_EQ(p.l4_len, 40);
	CHECK_EQ(p.payload_len, 7);
	/* the checksum is verified in software too, and the RX flags trusted */
	{
		struct tfo_port_info pi = our_port();

		pi.rx_cksum_offload = true;
		p = parse_n(&f, f.len, RTE_MBUF_F_RX_L4_CKSUM_GOOD, &pi);
		check_tcp_fields(&p, &f, IDX_OUR6);
	}
}

TFO_TEST(ipv6_ext_syn_accepted)
{
	/* unknown options whose two high bits say "skip" (RFC 8200 4.2) */
	static const uint8_t opt_skip8[22] = { 0x1e, 0, 0x1e, 0, 0x1e, 0, 0x1e, 0,
					       0x1e, 0, 0x1e, 0, 0x1e, 0, 0x1e, 0,
					       1, 4, 0, 0, 0, 0 };
	static const uint8_t rh4_body[22] = { 4, 0, 0, 0, 0, 0, 0xfd, [21] = 0x09 };
	const struct ext_hdr hbh = { IPPROTO_HOPOPTS, 8, opt_padn4 };
	const struct ext_hdr big = ext_max_len();
	const struct ext_hdr hbh_ra = { IPPROTO_HOPOPTS, 8, opt_router_alert };
	const struct ext_hdr dst = { IPPROTO_DSTOPTS, 8, NULL };	/* 6 Pad1 */
	const struct ext_hdr dst8 = { IPPROTO_DSTOPTS, 24, opt_skip8 };
	const struct ext_hdr rh0 = { IPPROTO_ROUTING, 24, rh0_body };
	const struct ext_hdr rh4 = { IPPROTO_ROUTING, 24, rh4_body };
	struct ext_hdr x[TFO_IPV6_EXT_MAX_HDRS];

	for (int vlan = 0; vlan < 2; vlan++) {
		check_ext_syn(&hbh, 1, vlan);
		check_ext_syn(&dst, 1, vlan);
		x[0] = hbh;
		x[1] = dst;
		check_ext_syn(x, 2, vlan);
		check_ext_syn(&rh0, 1, vlan);
		check_ext_syn(&rh4, 1, vlan);
		check_ext_syn(ext_hbh_do_rh, RTE_DIM(ext_hbh_do_rh), vlan);
		x[0] = hbh_ra;
		x[1] = dst8;
		x[2] = rh0;
		x[3] = dst;
		check_ext_syn(x, 4, vlan);
	}
	/* the limits themselves */
	for (unsigned int i = 0; i < TFO_IPV6_EXT_MAX_HDRS; i++)
		x[i] = dst;
	check_ext_syn(x, TFO_IPV6_EXT_MAX_HDRS, 0);
	check_ext_syn(&big, 1, 0);
}

/* A pseudo-header over another address than the IPv6 destination fails. */
TFO_TEST(ipv6_ext_cksum_final_dst)
{
	struct frame f;
	uint8_t d[16];

	mk_tcp6_ext(&f, 0, ext_hbh_do_rh, RTE_DIM(ext_hbh_do_rh));
	/* summed as if the Routing header's address were the destination */
	memcpy(d, f.b + f.l3 + 24, 16);
	memcpy(f.b + f.l3 + 24, f.b + f.l3 + 16 + 8 + 8, 16);
	f_cksums(&f);
	memcpy(f.b + f.l3 + 24, d, 16);
	CHECK_DROP(parse_f(&f), D(tcp_cksum));
}

TFO_TEST(ipv6_ext_dropped)
{
	static const uint8_t rh0_left1[22] = { 0, 1, 0, 0, 0, 0, 0xfd, [21] = 0x09 };
	static const uint8_t rh2_left1[22] = { 2, 1, 0, 0, 0, 0, 0xfd, [21] = 0x09 };
	static const uint8_t rh4_left1[22] = { 4, 1, 0, 0, 0, 0, 0xfd, [21] = 0x09 };
	static const uint8_t rh9_left255[22] = { 9, 255 };
	static const uint8_t opt_skip9[22] = { 0x1e, 0, 0x1e, 0, 0x1e, 0, 0x1e, 0,
					       0x1e, 0, 0x1e, 0, 0x1e, 0, 0x1e, 0,
					       0x1e, 0, 1, 2, 0, 0 };
	static const uint8_t opt_padn_dirty[6] = { 1, 4, 0, 0, 1, 0 };
	static const uint8_t opt_ra_len3[6] = { 5, 3, 0, 0, 0, 0 };
	static const uint8_t opt_overrun[6] = { 0x1e, 5, 0, 0, 0, 0 };
	static const uint8_t opt_jumbo[6] = { 0xc2, 4, 0, 1, 0, 0 };
	static const uint8_t opt_01[6] = { 0x5e, 4 }, opt_10[6] = { 0x9e, 4 },
			     opt_11[6] = { 0xde, 4 };
#define HBH(body) { IPPROTO_HOPOPTS, 8, body }
#define DST(body) { IPPROTO_DSTOPTS, 8, body }
#define RH(body) { IPPROTO_ROUTING, 24, body }
	static const struct {
		const char *what;
		unsigned int n;
		struct ext_hdr x[3];
		int reason;
	} cases[] = {
		{ "HBH second", 2, { DST(NULL), HBH(NULL) }, D(ipv6_ext_bad) },
		{ "HBH twice", 2, { HBH(NULL), HBH(NULL) }, D(ipv6_ext_bad) },
		/* segments left: not for us, whatever the type */
		{ "RH0 left 1", 1, { RH(rh0_left1) }, D(ipv6_rthdr) },
		{ "RH2 left 1", 1, { RH(rh2_left1) }, D(ipv6_rthdr) },
		{ "RH4 left 1", 1, { RH(rh4_left1) }, D(ipv6_rthdr) },
		{ "HBH RH9 left 255", 2, { HBH(NULL), RH(rh9_left255) }, D(ipv6_rthdr) },
		/* even a whole datagram in one fragment (offset 0, M 0) */
		{ "fragment", 2, { HBH(NULL), { IPPROTO_FRAGMENT, 8, NULL } }, D(ipv6_frag) },
		{ "AH", 2, { DST(NULL), { IPPROTO_AH, 8, NULL } }, D(ipv6_ext) },
		{ "9 options", 1, { { IPPROTO_DSTOPTS, 24, opt_skip9 } }, D(ipv6_ext_bad) },
		{ "14 Pad1", 1, { { IPPROTO_DSTOPTS, 16, NULL } }, D(ipv6_ext_bad) },
		{ "PadN not zero", 1, { HBH(opt_padn_dirty) }, D(ipv6_ext_bad) },
		{ "router alert length 3", 1, { HBH(opt_ra_len3) }, D(ipv6_ext_bad) },
		{ "option past the header", 1, { DST(opt_overrun) }, D(ipv6_ext_bad) },
		/* options whose type says discard: 01, 10, 11; jumbo */
		{ "DO option 01", 1, { DST(opt_01) }, D(ipv6_ext_opt) },
		{ "DO option 10", 1, { DST(opt_10) }, D(ipv6_ext_opt) },
		{ "DO option 11", 1, { DST(opt_11) }, D(ipv6_ext_opt) },
		{ "HBH option 01", 1, { HBH(opt_01) }, D(ipv6_ext_opt) },
		{ "HBH option 11", 1, { HBH(opt_11) }, D(ipv6_ext_opt) },
		{ "jumbo", 1, { HBH(opt_jumbo) }, D(ipv6_ext_opt) },
	};
	const struct ext_hdr dst = DST(NULL);
	struct ext_hdr x[TFO_IPV6_EXT_MAX_HDRS + 1];
	struct frame f;

	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		struct tfo_pkt p;

		mk_tcp6_ext(&f, 0, cases[i].x, cases[i].n);
		p = parse_f(&f);
		CHECK_MSG(p.cls == TFO_PKT_DROP && p.drop == cases[i].reason,
			  "%s: cls %u drop %s", cases[i].what, p.cls,
			  tfo_pkt_drop_name((enum tfo_pkt_drop)p.drop));
	}
#undef HBH
#undef DST
#undef RH
	/* too many, too long */
	for (unsigned int i = 0; i <= TFO_IPV6_EXT_MAX_HDRS; i++)
		x[i] = dst;
	mk_tcp6_ext(&f, 0, x, TFO_IPV6_EXT_MAX_HDRS + 1);
	CHECK_DROP(parse_f(&f), D(ipv6_ext_limit));
	x[0] = ext_max_len();
	mk_tcp6_ext(&f, 0, x, 2);
	CHECK_DROP(parse_f(&f), D(ipv6_ext_limit));
	x[0] = dst;
	x[1] = ext_max_len();
	mk_tcp6_ext(&f, 0, x, 2);
	CHECK_DROP(parse_f(&f), D(ipv6_ext_limit));
	/* the upper layer behind them: "no next header" and UDP not served */
	f_eth_l2(&f, &our_mac, 0, RTE_ETHER_TYPE_IPV6);
	f_ipv6_ext(&f, peer6, our6, 59, 64, &dst, 1);
	f_payload(&f, 8);
	f_done(&f);
	CHECK_DROP(parse_f(&f), D(l4_proto));
	f.b[f.l3 + 40] = IPPROTO_UDP;
	CHECK_DROP(parse_f(&f), D(l4_proto));
	/* a header's length past the payload length (and past the frame) */
	mk_tcp6_ext(&f, 0, &dst, 1);
	f.b[f.l3 + 41] = 200;
	CHECK_DROP(parse_f(&f), D(ipv6_ext_short));
}

/* Each extension header cut inside, its IPv6 length saying so. */
TFO_TEST(ipv6_ext_truncated_at_every_byte)
{
	struct tfo_port_info pi = our_port();
	struct frame o;

	mk_tcp6_ext(&o, 0, ext_hbh_do_rh, RTE_DIM(ext_hbh_do_rh));
	for (uint16_t end = (uint16_t)(o.l3 + 40); end < o.l4; end++) {
		struct frame f = o;

		f_set_end(&f, end);
		CHECK_DROP(parse_n(&f, end, 0, &pi), D(ipv6_ext_short));
		CHECK_DROP(parse_f(&f), D(ipv6_ext_short));	/* the rest as padding */
		/* the frame itself cut: its IPv6 length says more */
		CHECK_DROP(parse_n(&o, end, 0, &pi), D(ipv6_short));
	}
}

TFO_TEST(mld_ignored)
{
	static const uint8_t unspec[16];
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
	static const uint8_t all_routers[16] = { 0xff, 0x02, [15] = 2 };
	struct frame f;
	struct tfo_pkt p;
	int id = tfo_stats_lookup("rx_mld_ignored");

	/* a counter of its own, which is not a frame drop */
	CHECK(id >= 0);
	CHECK(!tfo_stats_is_frame_drop((unsigned int)id));

	mk_mld_report(&f, true);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_MLD);
	CHECK_EQ(p.drop, D(NONE));
	CHECK_EQ(p.family, AF_INET6);
	CHECK_EQ(p.l4proto, IPPROTO_ICMPV6);
	CHECK_EQ(p.l3_len, 48);
	CHECK_EQ(p.payload_off, f.l4);
	CHECK_EQ(p.l4_len, 28);
	CHECK_EQ(p.local_idx, IDX_OUR6);
	/* without the router alert; from "::" (before DAD, RFC 3810 5.2.13) */
	mk_mld_report(&f, false);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_MLD);
	mk_mld_report(&f, true);
	memcpy(f.b + f.l3 + 8, unspec, 16);
	f_cksums(&f);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_MLD);
	/* MLDv1 report to our own solicited-node group, query to all-nodes,
	 * done to all-routers */
	mk_ns(&f, peer6ll, our6);
	f.b[f.l4] = 131;
	f_cksums(&f);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_MLD);
	f.b[f.l4] = 130;
	memcpy(f.b + f.l3 + 24, all_nodes, 16);
	f_cksums(&f);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_MLD);
	f.b[f.l4] = 132;
	memcpy(f.b + f.l3 + 24, all_routers, 16);
	f_cksums(&f);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_MLD);
	/* checked like any ICMPv6 first */
	mk_mld_report(&f, true);
	f.b[f.len - 1] ^= 1;
	CHECK_DROP(parse_f(&f), D(icmp_cksum));
	mk_mld_report(&f, true);
	f.b[f.l3 + 8] = 0xff;		/* source: multicast */
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ip_bad_src));
	/* anything else to ff02::16 is not ours */
	mk_mld_report(&f, true);
	f.b[f.l4] = 128;
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ip_not_ours));
	/* a port without IPv6 addresses is in no group */
	{
		struct tfo_port_info pi = our_port();

		pi.nb_addrs = 1;
		mk_mld_report(&f, true);
		CHECK_DROP(parse_n(&f, f.len, 0, &pi), D(ip_not_ours));
	}
}

/* An answer built in place leaves the extension headers behind. */
TFO_TEST(ipv6_strip_ext)
{
	struct tfo_port_info pi = our_port();
	struct frame f;
	struct tfo_pkt p, q;
	struct rte_mbuf *m;
	uint8_t icmp[64];

	for (int vlan = 0; vlan < 2; vlan++) {
		f_eth_l2(&f, &our_mac, vlan, RTE_ETHER_TYPE_IPV6);
		f_ipv6_ext(&f, peer6, our6, IPPROTO_ICMPV6, 64, ext_hbh_do_rh,
			   RTE_DIM(ext_hbh_do_rh));
		f_icmp(&f, 128, 0, 0x00430002);
		f_payload(&f, 13);
		f_done(&f);
		memcpy(icmp, f.b + f.l4, f.end - f.l4);
		setup();
		m = rte_pktmbuf_alloc(pool);
		memcpy(rte_pktmbuf_append(m, f.len), f.b, f.len);
		p = parse_m(m, &pi);
		CHECK_EQ(p.cls, TFO_PKT_ICMP6);
		CHECK_EQ(p.l3_len, 80);
		CHECK_EQ(tfo_pkt_ipv6_strip_ext(m, &p), 40);
		CHECK_EQ(m->pkt_len, f.len - 40u);
		CHECK_EQ(p.l3_len, 40);
		CHECK_EQ(p.payload_off, f.l4 - 40);
		q = parse_m(m, &pi);
		CHECK_EQ(q.cls, TFO_PKT_ICMP6);
		CHECK_EQ(q.l3_len, 40);
		CHECK_EQ(q.payload_off, p.payload_off);
		CHECK_EQ(q.l4_len, f.end - f.l4);
		CHECK_EQ(q.has_vlan, vlan);
		CHECK_MEM(rte_pktmbuf_mtod(m, uint8_t *), f.b, 12);
		CHECK_MEM(rte_pktmbuf_mtod_offset(m, uint8_t *, q.payload_off), icmp,
			  f.end - f.l4);
		/* nothing left to strip */
		CHECK_EQ(tfo_pkt_ipv6_strip_ext(m, &q), 0);
		CHECK_EQ(m->pkt_len, f.len - 40u);
		rte_pktmbuf_free(m);
	}
}
