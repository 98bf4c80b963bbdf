/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the packet parser on truncated and malformed
 * frames: every truncation point, bad IPv4 headers, TCP checksums, data
 * offsets and options, IPv4 fragments.
 */
#include "pkt_harness.h"

/* ---- truncation ---------------------------------------------------------- */

TFO_TEST(truncated_at_every_byte)
{
	struct tfo_port_info pi = our_port();

	for (int t = 0; t < TM_MAX; t++) {
		struct frame f;

		mk_tmpl(&f, t);
		for (uint16_t len = 0; len <= f.len; len++) {
			struct tfo_pkt p = parse_n(&f, len, 0, &pi);

			check_expect(&p, &f, expect_cut(&f, len), t, len, "cut");
		}
	}
}

/*
 * The datagram shortened at every byte with its IP length matching (and
 * checksums recomputed), so the cut lands in the IP options, the TCP header,
 * the TCP options or the ICMP header: each layer's own check must fire. Once
 * as the whole frame, once followed by the original bytes as "padding".
 */
TFO_TEST(short_datagram_at_every_byte)
{
	struct tfo_port_info pi = our_port();

	for (int t = 0; t < TM_MAX; t++) {
		struct frame orig;

		mk_tmpl(&orig, t);
		if (orig.kind != F_IP)
			continue;
		for (uint16_t end = (uint16_t)(orig.l3 + (orig.family == AF_INET ? 20 : 40));
		     end <= orig.end; end++) {
			struct frame f = orig;
			struct tfo_pkt p;
			int want;

			f_set_end(&f, end);
			want = expect_short_datagram(&f, end);
			p = parse_n(&f, end, 0, &pi);
			check_expect(&p, &f, want, t, end, "short");
			if (want == D(NONE) && f.proto == IPPROTO_TCP) {
				CHECK_EQ(p.payload_len, end - f.pay);
				CHECK_EQ(p.payload_off, f.pay);
			}
			if (want == D(NONE) && f.proto != IPPROTO_TCP)
				CHECK_EQ(p.l4_len, end - f.l4);
			p = parse_n(&f, f.len, 0, &pi);
			check_expect(&p, &f, want, t, end, "short+pad");
		}
	}
}

/* ---- malformed headers --------------------------------------------------- */

TFO_TEST(ipv4_bad_header)
{
	struct frame f, o;
	struct tfo_pkt p;

	mk_tcp(&o, AF_INET, 0, 0, 0, 10);
	/* IHL 0..4 */
	for (uint8_t ihl = 0; ihl < 5; ihl++) {
		f = o;
		f.b[f.l3] = (uint8_t)(0x40 | ihl);
		f_cksums(&f);
		CHECK_DROP(parse_f(&f), D(ipv4_short));
	}
	/* IHL one byte past the datagram, which ends the frame */
	for (uint8_t ihl = 6; ihl <= 15; ihl++) {
		struct tfo_port_info pi = our_port();

		f = o;
		f.b[f.l3] = (uint8_t)(0x40 | ihl);
		put16(f.b + f.l3 + 2, (uint16_t)(ihl * 4 - 1));
		p = parse_n(&f, (uint16_t)(f.l3 + ihl * 4 - 1), 0, &pi);
		CHECK_DROP(p, D(ipv4_short));
	}
	/* IHL past the whole frame (the datagram is 50 bytes) */
	for (uint8_t ihl = 13; ihl <= 15; ihl++) {
		f = o;
		f.b[f.l3] = (uint8_t)(0x40 | ihl);
		CHECK_DROP(parse_f(&f), D(ipv4_short));
	}
	/* total length past the frame, by one byte and by a lot */
	f = o;
	put16(f.b + f.l3 + 2, (uint16_t)(f.len - f.l3 + 1));
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ipv4_short));
	put16(f.b + f.l3 + 2, 0xffff);
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ipv4_short));
	/* total length shorter than the header */
	put16(f.b + f.l3 + 2, 19);
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ipv4_short));
	put16(f.b + f.l3 + 2, 0);
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ipv4_short));
	/* version */
	for (uint8_t v = 0; v < 16; v++) {
		if (v == 4)
			continue;
		f = o;
		f.b[f.l3] = (uint8_t)(v << 4 | 5);
		f_cksums(&f);
		CHECK_DROP(parse_f(&f), D(ipv4_version));
	}
	/* header checksum: every bit of the header flipped */
	for (int bit = 0; bit < 20 * 8; bit++) {
		f = o;
		f.b[f.l3 + bit / 8] ^= (uint8_t)(1 << (bit % 8));
		p = parse_f(&f);
		if (bit / 8 == 0)	/* version / IHL: their own checks */
			CHECK(p.cls == TFO_PKT_DROP);
		else if (bit / 8 == 2 || bit / 8 == 3)	/* length: may go short */
			CHECK(p.cls == TFO_PKT_DROP &&
			      (p.drop == D(ipv4_cksum) || p.drop == D(ipv4_short)));
		else
			CHECK_DROP(p, D(ipv4_cksum));
	}
	/* a bad checksum on a header with options */
	mk_tcp(&f, AF_INET, 0, 12, 0, 0);
	f.b[f.l3 + 20 + 5] ^= 0x40;
	CHECK_DROP(parse_f(&f), D(ipv4_cksum));
}

TFO_TEST(tcp_bad_checksum)
{
	struct frame o, f;
	int n = 0;

	mk_tcp(&o, AF_INET, 0, 0, 20, 9);
	/* every bit of the segment, and of the pseudo-header's source */
	for (uint16_t i = o.l4; i < o.end; i++) {
		for (int bit = 0; bit < 8; bit++) {
			struct tfo_pkt p;

			f = o;
			f.b[i] ^= (uint8_t)(1 << bit);
			if (i == o.l4 + 12 && bit >= 4)
				continue;	/* data offset: its own test */
			p = parse_f(&f);
			if (get16(f.b + f.l4) == 0 || get16(f.b + f.l4 + 2) == 0)
				CHECK_DROP(p, D(tcp_port));
			else
				CHECK_DROP(p, D(tcp_cksum));
			n++;
		}
	}
	CHECK(n > 300);
	f = o;
	f.b[f.l3 + 12 + 3] ^= 0x10;	/* source address: IP cksum fixed */
	f.b[f.l3 + 10] = 0;
	f.b[f.l3 + 11] = 0;
	put16(f.b + f.l3 + 10, (uint16_t)~ref_cksum(f.b + f.l3, 20));
	CHECK_DROP(parse_f(&f), D(tcp_cksum));

	mk_tcp(&o, AF_INET6, 0, 0, 0, 33);
	f = o;
	f.b[f.end - 1] ^= 0x01;
	CHECK_DROP(parse_f(&f), D(tcp_cksum));
	f = o;
	f.b[f.l3 + 8] ^= 0x01;	/* IPv6 source: only the TCP checksum sees it */
	CHECK_DROP(parse_f(&f), D(tcp_cksum));
	/* unlike UDP, a zero TCP checksum does not mean "none" */
	f = o;
	REQUIRE(get16(f.b + f.l4 + 16) != 0 && get16(f.b + f.l4 + 16) != 0xffff);
	put16(f.b + f.l4 + 16, 0);
	CHECK_DROP(parse_f(&f), D(tcp_cksum));
}

TFO_TEST(tcp_data_offset)
{
	struct frame o, f;
	struct tfo_pkt p;

	mk_tcp(&o, AF_INET, 0, 0, 12, 48);
	/* data offset < 5 */
	for (uint8_t d = 0; d < 5; d++) {
		f = o;
		f.b[f.l4 + 12] = (uint8_t)(d << 4);
		f_cksums(&f);
		CHECK_DROP(parse_f(&f), D(tcp_short));
	}
	/* every legal data offset: header + options + payload move */
	for (uint8_t d = 5; d <= 15; d++) {
		f = o;
		f.b[f.l4 + 12] = (uint8_t)(d << 4);
		f.pay = (uint16_t)(f.l4 + d * 4);
		f_cksums(&f);
		p = parse_f(&f);
		check_tcp_fields(&p, &f, IDX_OUR4);
	}
	/* data offset past the segment but inside the frame (padding) */
	f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV4);
	f_ipv4(&f, peer4, our4, IPPROTO_TCP, NULL, 0);
	f_tcp(&f, T_SPORT, T_DPORT, TFO_TCP_ACK, NULL, 0);
	f_done(&f);
	f_pad(&f, 60, 0);
	f.b[f.l4 + 12] = 6 << 4;	/* 24 bytes; only 20 in the datagram */
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(tcp_short));
	/* past the segment and the frame */
	f = o;
	f.b[f.l4 + 12] = 15 << 4;
	f_set_end(&f, (uint16_t)(f.l4 + 59));
	{
		struct tfo_port_info pi = our_port();

		CHECK_DROP(parse_n(&f, f.end, 0, &pi), D(tcp_short));
	}
	/* IPv6 */
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	f.b[f.l4 + 12] = 6 << 4;
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(tcp_short));
}

/*
 * Options whose lengths run past the header (or are garbage): the parser
 * does not read them, so it accepts the segment; the frame ends right after
 * the header so that any look at "the rest" of an option is an over-read.
 */
TFO_TEST(tcp_options_past_header)
{
	static const uint8_t bad[][8] = {
		{ 2, 40, 5, 0xb4, 1, 1, 1, 1 },	/* MSS claiming 40 bytes */
		{ 1, 1, 1, 1, 1, 1, 1, 34 },	/* TFO kind, no length byte */
		{ 34, 255, 1, 2, 3, 4, 5, 6 },	/* cookie longer than anything */
		{ 8, 10, 0, 0, 0, 0, 0, 0 },	/* timestamps cut short */
		{ 254, 0, 0, 0, 0, 0, 0, 0 },	/* length 0 */
		{ 5, 1, 0, 0, 0, 0, 0, 0 },	/* length 1 */
	};

	for (int fam = 0; fam < 2; fam++) {
		for (size_t i = 0; i < RTE_DIM(bad); i++) {
			struct frame f;
			struct tfo_pkt p;

			f_eth(&f, &our_mac, fam ? RTE_ETHER_TYPE_IPV6 :
			      RTE_ETHER_TYPE_IPV4);
			if (fam)
				f_ipv6(&f, peer6, our6, IPPROTO_TCP, 64);
			else
				f_ipv4(&f, peer4, our4, IPPROTO_TCP, NULL, 0);
			f_tcp(&f, T_SPORT, T_DPORT, TFO_TCP_SYN, bad[i], 8);
			f_done(&f);
			p = parse_f(&f);
			check_tcp_fields(&p, &f, fam ? IDX_OUR6 : IDX_OUR4);
			CHECK_EQ(p.l4_len, 28);
			CHECK_EQ(p.payload_len, 0);
			CHECK_EQ(p.payload_off, f.len);
		}
	}
}

TFO_TEST(ipv4_fragments)
{
	static const uint16_t frag[] = {
		0x2000,		/* MF, offset 0: the first fragment */
		0x0001,		/* offset 8, last fragment */
		0x2001,		/* middle */
		0x1fff,		/* largest offset */
		0x6000,		/* DF + MF: contradictory, still a fragment */
		0x4001,		/* DF + offset */
	};
	struct tfo_stats st;
	int id = tfo_stats_lookup("drop_ipv4_frag");

	memset(&st, 0, sizeof(st));
	REQUIRE(id >= 0);
	for (size_t i = 0; i < RTE_DIM(frag); i++) {
		for (int proto = 0; proto < 2; proto++) {
			struct frame f;
			struct tfo_pkt p;

			if (proto)
				mk_icmp4(&f, 0, 0, 16);
			else
				mk_tcp(&f, AF_INET, 0, 0, 0, 16);
			put16(f.b + f.l3 + 6, frag[i]);
			f_cksums(&f);
			p = parse_f(&f);
			CHECK_DROP(p, D(ipv4_frag));
			if (p.cls == TFO_PKT_DROP)
				tfo_stats_drop(&st, (enum tfo_pkt_drop)p.drop);
		}
	}
	CHECK_EQ(st.c[id], 2 * RTE_DIM(frag));
	/* DF alone and the reserved bit are not fragments */
	for (int i = 0; i < 2; i++) {
		struct frame f;

		mk_tcp(&f, AF_INET, 0, 0, 0, 0);
		put16(f.b + f.l3 + 6, i ? 0x8000 : 0x0000);
		f_cksums(&f);
		CHECK_EQ(parse_f(&f).cls, TFO_PKT_TCP);
	}
}
