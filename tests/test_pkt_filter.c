/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: which frames the packet parser keeps: bad
 * sources, frames not for us, L2 checks, unserved protocols and port zero.
 */
#include "pkt_harness.h"

TFO_TEST(bad_sources)
{
	static const uint8_t bad4[][4] = {
		{ 224, 0, 0, 1 }, { 239, 255, 255, 250 }, { 240, 0, 0, 1 },
		{ 255, 255, 255, 255 }, { 127, 0, 0, 1 }, { 127, 1, 2, 3 },
		{ 0, 0, 0, 0 }, { 0, 1, 2, 3 },
		{ 198, 18, 0, 2 },	/* ours */
		{ 203, 0, 113, 7 },	/* ours, the other address */
		{ 198, 18, 0, 255 },	/* our subnet's broadcast */
		{ 203, 0, 113, 255 },
	};
	static const uint8_t bad6[][16] = {
		{ 0xff, 0x02, [15] = 1 },
		{ 0xff, 0x0e, [15] = 0x42 },
		{ [15] = 1 },					/* ::1 */
		{ [15] = 0 },					/* :: */
		{ [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 },	/* ::ffff:127.0.0.1 */
		{ [10] = 0xff, [11] = 0xff, 198, 18, 0, 1 },	/* v4-mapped */
		{ 0xfd, 0x00, 0x07, 0xf0, [15] = 0x02 },	/* ours */
		{ 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 1 },
	};

	for (size_t i = 0; i < RTE_DIM(bad4); i++) {
		for (int proto = 0; proto < 2; proto++) {
			struct frame f;

			if (proto)
				mk_icmp4(&f, 0, 0, 0);
			else
				mk_tcp(&f, AF_INET, 0, 0, 0, 0);
			memcpy(f.b + f.l3 + 12, bad4[i], 4);
			f_cksums(&f);
			CHECK_MSG(parse_f(&f).drop == D(ip_bad_src),
				  "source %u.%u.%u.%u proto %d", bad4[i][0],
				  bad4[i][1], bad4[i][2], bad4[i][3], proto);
		}
	}
	for (size_t i = 0; i < RTE_DIM(bad6); i++) {
		for (int proto = 0; proto < 2; proto++) {
			struct frame f;

			if (proto)
				mk_icmp6_echo(&f, 0, 4);
			else
				mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
			memcpy(f.b + f.l3 + 8, bad6[i], 16);
			f_cksums(&f);
			if (proto && i == 3)	/* "::" is DAD's source */
				CHECK_EQ(parse_f(&f).cls, TFO_PKT_ICMP6);
			else
				CHECK_MSG(parse_f(&f).drop == D(ip_bad_src),
					  "source #%zu proto %d", i, proto);
		}
	}
	/* ordinary neighbours of the bad ones are fine */
	{
		static const uint8_t ok4[][4] = {
			{ 223, 255, 255, 254 }, { 126, 255, 255, 255 },
			{ 1, 0, 0, 0 }, { 198, 18, 0, 254 }, { 198, 18, 1, 255 },
		};

		for (size_t i = 0; i < RTE_DIM(ok4); i++) {
			struct frame f;

			mk_tcp(&f, AF_INET, 0, 0, 0, 0);
			memcpy(f.b + f.l3 + 12, ok4[i], 4);
			f_cksums(&f);
			CHECK_EQ(parse_f(&f).cls, TFO_PKT_TCP);
		}
	}
}

TFO_TEST(not_for_us)
{
	static const uint8_t dst4[][4] = {
		{ 198, 18, 0, 3 }, { 255, 255, 255, 255 }, { 198, 18, 0, 255 },
		{ 224, 0, 0, 1 }, { 0, 0, 0, 0 }, { 2, 18, 0, 198 },
	};
	struct frame f;

	for (size_t i = 0; i < RTE_DIM(dst4); i++) {
		mk_tcp(&f, AF_INET, 0, 0, 0, 0);
		memcpy(f.b + f.l3 + 16, dst4[i], 4);
		f_cksums(&f);
		CHECK_DROP(parse_f(&f), D(ip_not_ours));
		mk_icmp4(&f, 0, 0, 0);
		memcpy(f.b + f.l3 + 16, dst4[i], 4);
		f_cksums(&f);
		CHECK_DROP(parse_f(&f), D(ip_not_ours));
	}
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	f.b[f.l3 + 24 + 15] = 3;
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ip_not_ours));
	/* an IPv4 address's bytes at the start of an IPv6 destination */
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	memset(f.b + f.l3 + 24, 0, 16);
	memcpy(f.b + f.l3 + 24, our4, 4);
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ip_not_ours));
	/* a port with no addresses at all */
	{
		struct tfo_port_info pi = our_port();

		pi.nb_addrs = 0;
		mk_tcp(&f, AF_INET, 0, 0, 0, 0);
		CHECK_DROP(parse_n(&f, f.len, 0, &pi), D(ip_not_ours));
		mk_ns(&f, peer6ll, our6);
		CHECK_DROP(parse_n(&f, f.len, 0, &pi), D(ip_not_ours));
	}
}

TFO_TEST(l2_checks)
{
	struct frame f;
	struct tfo_pkt p;

	/* another host's MAC */
	mk_tcp(&f, AF_INET, 0, 0, 0, 0);
	memcpy(f.b, other_mac.addr_bytes, 6);
	CHECK_DROP(parse_f(&f), D(l2_not_ours));
	mk_arp(&f, 0, 1);
	memcpy(f.b, other_mac.addr_bytes, 6);
	CHECK_DROP(parse_f(&f), D(l2_not_ours));
	/* TCP is unicast only (Linux drops !PACKET_HOST in tcp_v4_rcv) */
	mk_tcp(&f, AF_INET, 0, 0, 0, 0);
	memcpy(f.b, bcast_mac.addr_bytes, 6);
	CHECK_DROP(parse_f(&f), D(l2_not_ours));
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	memcpy(f.b, "\x33\x33\x00\x00\x00\x02", 6);
	CHECK_DROP(parse_f(&f), D(l2_not_ours));
	/* ICMP echo to our IP through a broadcast MAC is answered (as Linux) */
	mk_icmp4(&f, 0, 0, 0);
	memcpy(f.b, bcast_mac.addr_bytes, 6);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_ICMP);

	/* stacked VLANs, QinQ */
	mk_tcp(&f, AF_INET, 1, 0, 0, 0);
	put16(f.b + 16, RTE_ETHER_TYPE_VLAN);
	CHECK_DROP(parse_f(&f), D(l2_ethertype));
	mk_tcp(&f, AF_INET, 1, 0, 0, 0);
	put16(f.b + 12, RTE_ETHER_TYPE_QINQ);
	CHECK_DROP(parse_f(&f), D(l2_ethertype));
	mk_tcp(&f, AF_INET, 1, 0, 0, 0);
	put16(f.b + 16, RTE_ETHER_TYPE_QINQ);
	CHECK_DROP(parse_f(&f), D(l2_ethertype));
	/* unknown types, an 802.3 length field, MPLS */
	{
		static const uint16_t types[] = { 0x88cc, 0x0000, 0x05dc, 0x8847,
						  0x86dc, 0x0801, 0xffff };

		for (size_t i = 0; i < RTE_DIM(types); i++) {
			mk_tcp(&f, AF_INET, i & 1, 0, 0, 0);
			put16(f.b + f.l3 - 2, types[i]);
			p = parse_f(&f);
			CHECK_DROP(p, D(l2_ethertype));
		}
	}
}

TFO_TEST(unserved_protocols_and_port_zero)
{
	static const uint8_t protos[] = { IPPROTO_UDP, IPPROTO_GRE, IPPROTO_SCTP,
					  IPPROTO_ICMPV6, IPPROTO_RAW, 200 };
	struct frame f;
	struct tfo_pkt p;

	for (size_t i = 0; i < RTE_DIM(protos); i++) {
		f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV4);
		f_ipv4(&f, peer4, our4, protos[i], NULL, 0);
		f_payload(&f, 12);
		f_done(&f);
		p = parse_f(&f);
		CHECK_DROP(p, D(l4_proto));
		CHECK_EQ(p.l4proto, protos[i]);
	}
	for (size_t i = 0; i < RTE_DIM(protos); i++) {
		uint8_t pr = protos[i] == IPPROTO_ICMPV6 ? IPPROTO_ICMP :
			     protos[i];

		f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV6);
		f_ipv6(&f, peer6, our6, pr, 64);
		f_payload(&f, 12);
		f_done(&f);
		p = parse_f(&f);
		CHECK_DROP(p, D(l4_proto));
		CHECK_EQ(p.l4proto, pr);
	}
	for (int fam = 0; fam < 2; fam++) {
		for (int which = 0; which < 3; which++) {
			mk_tcp(&f, fam ? AF_INET6 : AF_INET, 0, 0, 0, 4);
			if (which != 1)
				put16(f.b + f.l4, 0);
			if (which != 0)
				put16(f.b + f.l4 + 2, 0);
			f_cksums(&f);
			CHECK_DROP(parse_f(&f), D(tcp_port));
		}
	}
}
