/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: unit tests of the packet parser on valid frames
 * (src/net/pkt.c): TCP over IPv4, IPv6 and VLAN, ARP, ICMP echo, path-MTU
 * errors, ICMPv6 echo and neighbour discovery, padded frames. The "pkt"
 * program is this file and the other test_pkt_*.c (tests/meson.build), on
 * the harness of pkt_harness.h (pkt_harness.c, pkt_frame.c).
 */
#include "pkt_harness.h"

/* ---- sanity of the harness itself --------------------------------------- */

TFO_TEST(harness_catches_overread)
{
	struct xbuf *x;
	uint8_t *d;
	struct frame f;

	setup();
	d = xbuf_alloc(61, &x);
#ifdef TEST_ASAN
	CHECK(!__asan_address_is_poisoned(d + 60));
	CHECK(__asan_address_is_poisoned(d + 61));
#else
	{
		pid_t pid = fork();
		int st = 0;

		if (pid == 0) {
			volatile const uint8_t *v = d;

			signal(SIGSEGV, SIG_DFL);
			(void)v[62];	/* past the 1 byte of slack */
			_exit(0);
		}
		REQUIRE(pid > 0);
		waitpid(pid, &st, 0);
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
	}
#endif
	xbuf_free_cb(d, x);

	/* the reference checksums agree with DPDK's on a crafted frame */
	mk_tcp(&f, AF_INET, 0, 12, 20, 33);
	{
		/* with options: rte_ipv4_cksum sums IHL * 4 bytes */
		CHECK_EQ(rte_ipv4_cksum((const struct rte_ipv4_hdr *)(f.b + f.l3)), 0);
		CHECK_EQ(rte_ipv4_udptcp_cksum_verify(
			(const struct rte_ipv4_hdr *)(f.b + f.l3), f.b + f.l4), 0);
	}
}

/* ---- valid frames -------------------------------------------------------- */

TFO_TEST(parse_ipv4_tcp)
{
	struct frame f;
	struct tfo_pkt p;

	mk_tcp(&f, AF_INET, 0, 0, 20, 17);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR4);
	CHECK_EQ(p.l2_len, 14);
	CHECK_EQ(p.l3_len, 20);
	CHECK_EQ(p.l4_len, 40);
	CHECK_EQ(p.payload_off, 74);
	CHECK_EQ(p.payload_len, 17);
	CHECK_EQ(p.sport, T_SPORT);
	CHECK_EQ(p.seq, T_SEQ);
	CHECK_EQ(p.ack, T_ACK);
	CHECK_EQ(p.window, T_WIN);
	CHECK_EQ(p.tcp_flags, T_FLAGS);
	CHECK_MEM(p.dst.b, our4, 4);

	/* the second IPv4 address of the port: its own index */
	f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV4);
	f_ipv4(&f, peer4, our4b, IPPROTO_TCP, NULL, 0);
	f_tcp(&f, 1, 65535, TFO_TCP_ACK | TFO_TCP_FIN | TFO_TCP_PSH |
	      TFO_TCP_URG | TFO_TCP_RST, NULL, 0);
	f_done(&f);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR4B);
	CHECK_EQ(p.payload_len, 0);

	/* tfo_pkt_tcp_hdr points at the TCP header */
	{
		struct rte_mbuf *m = mk_mbuf(f.b, f.len, 0);
		struct tfo_port_info pi = our_port();

		p = parse_m(m, &pi);
		CHECK(tfo_pkt_tcp_hdr(m, &p) ==
		      rte_pktmbuf_mtod_offset(m, uint8_t *, f.l4));
		rte_pktmbuf_free(m);
	}
}

TFO_TEST(parse_ipv4_options_skipped)
{
	for (uint8_t ol = 4; ol <= 40; ol += 4) {
		uint8_t opts[40];
		struct frame f;
		struct tfo_pkt p;

		/* NOPs then EOL, or a run of unknown options: never read */
		memset(opts, ol & 8 ? 1 : 0x99, sizeof(opts));
		opts[ol - 1] = 0;
		f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV4);
		f_ipv4(&f, peer4, our4, IPPROTO_TCP, opts, ol);
		f_tcp(&f, T_SPORT, T_DPORT, T_FLAGS, syn_opts, 8);
		f_payload(&f, 3);
		f_done(&f);
		p = parse_f(&f);
		check_tcp_fields(&p, &f, IDX_OUR4);
		CHECK_EQ(p.l3_len, 20 + ol);
	}
}

TFO_TEST(parse_ipv6_tcp)
{
	struct frame f;
	struct tfo_pkt p;

	mk_tcp(&f, AF_INET6, 0, 0, 20, 100);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR6);
	CHECK_EQ(p.l3_len, 40);
	CHECK_EQ(p.payload_off, 14 + 40 + 40);
	CHECK_MEM(p.src.b, peer6, 16);

	/* to the link-local address, from a link-local peer */
	f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV6);
	f_ipv6(&f, peer6ll, our6ll, IPPROTO_TCP, 64);
	f_tcp(&f, T_SPORT, 7, TFO_TCP_ACK, NULL, 0);
	f_payload(&f, 1);
	f_done(&f);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR6LL);
}

TFO_TEST(parse_vlan)
{
	struct frame f;
	struct tfo_pkt p;

	mk_tcp(&f, AF_INET, 1, 8, 12, 5);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR4);
	CHECK_EQ(p.has_vlan, 1);
	CHECK_EQ(p.vlan_tci, 0xa123);
	CHECK_EQ(p.l2_len, 18);

	mk_tcp(&f, AF_INET6, 1, 0, 0, 0);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR6);
	CHECK_EQ(p.l2_len, 18);

	/* VLAN 0 (priority tag) and the maximum VID */
	for (int i = 0; i < 2; i++) {
		mk_tcp(&f, AF_INET, 1, 0, 0, 0);
		put16(f.b + 14, i ? 0xffff : 0);
		p = parse_f(&f);
		check_tcp_fields(&p, &f, IDX_OUR4);
		CHECK_EQ(p.vlan_tci, i ? 0xffff : 0);
	}
}

TFO_TEST(parse_arp)
{
	struct frame f;
	struct tfo_pkt p;

	for (int vlan = 0; vlan < 2; vlan++) {
		for (uint16_t op = 1; op <= 2; op++) {
			mk_arp(&f, vlan, op);
			p = parse_f(&f);
			CHECK_EQ(p.cls, TFO_PKT_ARP);
			CHECK_EQ(p.drop, TFO_PKT_DROP_NONE);
			CHECK_EQ(p.family, 0);
			CHECK_EQ(p.l2_len, vlan ? 18 : 14);
			CHECK_EQ(p.l3_len, 28);
			CHECK_EQ(p.has_vlan, vlan);
		}
	}
	/* unicast to us is fine too */
	mk_arp(&f, 0, 2);
	memcpy(f.b, our_mac.addr_bytes, 6);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_ARP);

	/* not Ethernet/IPv4 ARP */
	for (int field = 0; field < 4; field++) {
		mk_arp(&f, 0, 1);
		f.b[14 + (field < 2 ? field * 2 + 1 : field + 2)] ^= 0x20;
		p = parse_f(&f);
		CHECK_DROP(p, D(arp_short));
	}
}

TFO_TEST(parse_icmp_echo)
{
	struct frame f;
	struct tfo_pkt p;

	mk_icmp4(&f, 0, 0, 56);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP);
	CHECK_EQ(p.family, AF_INET);
	CHECK_EQ(p.l4proto, IPPROTO_ICMP);
	CHECK_EQ(p.local_idx, IDX_OUR4B);
	CHECK_EQ(p.l2_len, 14);
	CHECK_EQ(p.l3_len, 20);
	CHECK_EQ(p.l4_len, 64);
	CHECK_EQ(p.payload_off, 34);
	CHECK_MEM(p.src.b, peer4, 4);
	CHECK_MEM(p.dst.b, our4b, 4);

	/* odd length, IP options, VLAN */
	mk_icmp4(&f, 1, 12, 7);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP);
	CHECK_EQ(p.l3_len, 32);
	CHECK_EQ(p.l4_len, 15);
	CHECK_EQ(p.payload_off, 18 + 32);

	/* checksum wrong */
	f.b[f.end - 1] ^= 1;
	CHECK_DROP(parse_f(&f), D(icmp_cksum));
}

/* ---- path-MTU errors (tfo_pkt_icmp_ptb) --------------------------------- */

static const uint8_t router4[4] = { 198, 18, 0, 254 };
static const uint8_t router6[16] = { 0xfd, 0x00, 0x07, 0xf0, [15] = 0xfe };
/* a Destination Options header in the quote: PadN, then TCP */
static const uint8_t quote_dstopts[8] = { IPPROTO_TCP, 0, 1, 4, 0, 0, 0, 0 };

/*
 * A router's path-MTU error about a segment from @qsrc to @qdst (ports 80
 * -> T_SPORT, seq T_SEQ): IPv4 type 3 code 4, IPv6 type 2; the quote holds
 * the IP header (+ @ext), then @tcp_bytes of the TCP header.
 */
static void
mk_ptb(struct frame *f, int family, uint32_t mtu, const uint8_t *qsrc,
       const uint8_t *qdst, uint8_t qproto, const uint8_t *ext, uint8_t ext_len,
       uint16_t tcp_bytes)
{
	uint8_t q[40 + 8 + 20];
	uint8_t th[20] = { 0 };

	memset(q, 0, sizeof(q));
	if (family == AF_INET) {
		f_eth_l2(f, &our_mac, 0, RTE_ETHER_TYPE_IPV4);
		f_ipv4(f, router4, our4, IPPROTO_ICMP, NULL, 0);
		f_icmp(f, 3, 4, mtu & 0xffff);
		q[0] = 0x45;
		put16(q + 2, 1500);
		put16(q + 6, 0x4000);
		q[8] = 64;
		q[9] = qproto;
		memcpy(q + 12, qsrc, 4);
		memcpy(q + 16, qdst, 4);
		f_bytes(f, q, 20);
	} else {
		f_eth_l2(f, &our_mac, 0, RTE_ETHER_TYPE_IPV6);
		f_ipv6(f, router6, our6, IPPROTO_ICMPV6, 64);
		f_icmp(f, 2, 0, mtu);
		put32(q, 0x60000000);
		put16(q + 4, 1460);
		q[6] = ext_len ? IPPROTO_DSTOPTS : qproto;
		q[7] = 64;
		memcpy(q + 8, qsrc, 16);
		memcpy(q + 24, qdst, 16);
		f_bytes(f, q, 40);
		if (ext_len)
			f_bytes(f, ext, ext_len);
	}
	put16(th, T_DPORT);
	put16(th + 2, T_SPORT);
	put32(th + 4, T_SEQ);
	put32(th + 8, T_ACK);
	th[12] = 5 << 4;
	th[13] = TFO_TCP_ACK;
	f_bytes(f, th, tcp_bytes);
	f_done(f);
}

/* tfo_pkt_icmp_ptb on the first @len bytes of @f (an exact-size buffer),
 * the IP length set to match: a quote cut short, honestly. */
static int
ptb_n(const struct frame *f, uint16_t len, struct tfo_ptb *out)
{
	struct tfo_port_info pi = our_port();
	struct frame g = *f;
	struct rte_mbuf *m;
	struct tfo_pkt p;
	int rc = -100;

	g.len = len;
	f_set_end(&g, len);
	m = mk_mbuf(g.b, len, 0);
	memset(out, 0xa5, sizeof(*out));
	p = parse_m(m, &pi);
	if (p.cls == TFO_PKT_ICMP || p.cls == TFO_PKT_ICMP6)
		rc = tfo_pkt_icmp_ptb(m, &pi, &p, out);
	rte_pktmbuf_free(m);
	return rc;
}

TFO_TEST(parse_icmp_ptb_quote)
{
	struct frame f;
	struct tfo_ptb b;
	static const uint8_t other4[4] = { 192, 0, 2, 9 };

	/* IPv4 fragmentation needed, a full TCP header quoted */
	mk_ptb(&f, AF_INET, 1400, our4, peer4, IPPROTO_TCP, NULL, 0, 20);
	REQUIRE(ptb_n(&f, f.len, &b) == 1);
	CHECK_EQ(b.mtu, 1400);
	CHECK_EQ(b.seq, T_SEQ);
	CHECK_EQ(b.flow.cls, TFO_PKT_TCP);
	CHECK_EQ(b.flow.family, AF_INET);
	CHECK_EQ(b.flow.l4proto, IPPROTO_TCP);
	CHECK_EQ(b.flow.local_idx, IDX_OUR4);
	CHECK_EQ(b.flow.sport, T_SPORT);	/* the peer's, as it sends */
	CHECK_EQ(b.flow.dport, T_DPORT);
	CHECK_MEM(b.flow.src.b, peer4, 4);
	CHECK_MEM(b.flow.dst.b, our4, 4);
	/* 8 bytes of TCP are enough (RFC 792's minimum quote) */
	mk_ptb(&f, AF_INET, 576, our4b, peer4, IPPROTO_TCP, NULL, 0, 8);
	REQUIRE(ptb_n(&f, f.len, &b) == 1);
	CHECK_EQ(b.flow.local_idx, IDX_OUR4B);
	CHECK_EQ(b.seq, T_SEQ);

	/* IPv6 packet too big, with a Destination Options header quoted */
	mk_ptb(&f, AF_INET6, 1280, our6, peer6, IPPROTO_TCP, quote_dstopts,
	       sizeof(quote_dstopts), 20);
	REQUIRE(ptb_n(&f, f.len, &b) == 1);
	CHECK_EQ(b.mtu, 1280);
	CHECK_EQ(b.seq, T_SEQ);
	CHECK_EQ(b.flow.family, AF_INET6);
	CHECK_EQ(b.flow.local_idx, IDX_OUR6);
	CHECK_MEM(b.flow.src.b, peer6, 16);
	CHECK_MEM(b.flow.dst.b, our6, 16);
	CHECK_EQ(b.flow.sport, T_SPORT);

	/* other ICMP is not ours to take: 0 */
	mk_icmp4(&f, 0, 0, 56);
	CHECK_EQ(ptb_n(&f, f.len, &b), 0);
	mk_ptb(&f, AF_INET, 1400, our4, peer4, IPPROTO_TCP, NULL, 0, 20);
	f.b[f.l4 + 1] = 3;	/* port unreachable */
	CHECK_EQ(ptb_n(&f, f.len, &b), 0);
	mk_icmp6_echo(&f, 0, 8);
	CHECK_EQ(ptb_n(&f, f.len, &b), 0);

	/* quotes that are not a TCP segment we sent */
	mk_ptb(&f, AF_INET, 1400, our4, peer4, IPPROTO_UDP, NULL, 0, 20);
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);
	mk_ptb(&f, AF_INET, 1400, other4, peer4, IPPROTO_TCP, NULL, 0, 20);
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);	/* not from us */
	mk_ptb(&f, AF_INET, 1400, our4, our4b, IPPROTO_TCP, NULL, 0, 20);
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);	/* to ourselves */
	mk_ptb(&f, AF_INET, 1400, our4, peer4, IPPROTO_TCP, NULL, 0, 20);
	f.b[f.l4 + 8 + 7] = 0x10;	/* a later fragment: no ports in it */
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);
	mk_ptb(&f, AF_INET, 1400, our4, peer4, IPPROTO_TCP, NULL, 0, 20);
	f.b[f.l4 + 8] = 0x65;	/* version 6 */
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);
	mk_ptb(&f, AF_INET6, 1280, peer6, our6, IPPROTO_TCP, NULL, 0, 20);
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);	/* reversed */
	mk_ptb(&f, AF_INET6, 1280, our6, peer6, IPPROTO_UDP, NULL, 0, 20);
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);
}

/* Cut at every byte: never a crash, never accepted without IP + 8. */
TFO_TEST(parse_icmp_ptb_truncated_at_every_byte)
{
	struct frame f;
	struct tfo_ptb b;

	for (int v = 0; v < 3; v++) {
		uint16_t need;

		if (v == 0)
			mk_ptb(&f, AF_INET, 1400, our4, peer4, IPPROTO_TCP, NULL, 0, 20);
		else if (v == 1)
			mk_ptb(&f, AF_INET6, 1280, our6, peer6, IPPROTO_TCP, NULL, 0, 20);
		else
			mk_ptb(&f, AF_INET6, 1280, our6, peer6, IPPROTO_TCP, quote_dstopts,
			       sizeof(quote_dstopts), 20);
		/* ICMP header + IP header (+ ext) + 8 bytes of TCP */
		need = (uint16_t)(f.l4 + 8 + (v == 0 ? 20 : 40) + (v == 2 ? 8 : 0) + 8);
		for (uint16_t len = (uint16_t)(f.l4 + 8); len <= f.len; len++) {
			int rc = ptb_n(&f, len, &b);

			CHECK_MSG(rc == (len < need ? -EINVAL : 1),
				  "variant %d, %u of %u bytes: %d", v, len, f.len, rc);
			if (rc == 1)
				CHECK_EQ(b.seq, T_SEQ);
		}
	}
}

TFO_TEST(parse_icmp6_echo_and_nd)
{
	struct frame f;
	struct tfo_pkt p;
	static const uint8_t unspec[16];
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };

	mk_icmp6_echo(&f, 0, 56);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.family, AF_INET6);
	CHECK_EQ(p.l4proto, IPPROTO_ICMPV6);
	CHECK_EQ(p.local_idx, IDX_OUR6);
	CHECK_EQ(p.l3_len, 40);
	CHECK_EQ(p.l4_len, 64);
	CHECK_EQ(p.payload_off, 54);

	mk_icmp6_echo(&f, 1, 3);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.l4_len, 11);
	CHECK_EQ(p.payload_off, 58);

	/* NS to the solicited-node group of each of our addresses */
	mk_ns(&f, peer6ll, our6);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.local_idx, IDX_OUR6);
	CHECK_EQ(p.l4_len, 32);
	mk_ns(&f, peer6ll, our6ll);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.local_idx, IDX_OUR6LL);
	/* duplicate address detection: from "::" */
	mk_ns(&f, unspec, our6);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.local_idx, IDX_OUR6);
	/* a group we are not in */
	{
		uint8_t other[16];

		memcpy(other, our6, 16);
		other[15] = 0x77;
		mk_ns(&f, peer6ll, other);
		CHECK_DROP(parse_f(&f), D(ip_not_ours));
	}
	/* all-nodes */
	mk_icmp6_echo(&f, 0, 0);
	memcpy(f.b + f.l3 + 24, all_nodes, 16);
	memcpy(f.b, "\x33\x33\x00\x00\x00\x01", 6);
	f_cksums(&f);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.local_idx, IDX_OUR6);
	/* all-routers is not ours */
	memcpy(f.b + f.l3 + 24, all_nodes, 16);
	f.b[f.l3 + 24 + 15] = 2;
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ip_not_ours));
	/* checksum wrong */
	mk_ns(&f, peer6ll, our6);
	f.b[f.l4 + 8] ^= 0x80;
	CHECK_DROP(parse_f(&f), D(icmp_cksum));
	/* TCP to a solicited-node group is not ours */
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	memcpy(f.b + f.l3 + 24, "\xff\x02\0\0\0\0\0\0\0\0\0\x01\xff\0\0\x02", 16);
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ip_not_ours));
}

TFO_TEST(parse_padded_frames)
{
	struct frame f;
	struct tfo_pkt p;

	/* bare ACK: 54 bytes, padded to 60 with junk that must not be summed */
	f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV4);
	f_ipv4(&f, peer4, our4, IPPROTO_TCP, NULL, 0);
	f_tcp(&f, T_SPORT, T_DPORT, TFO_TCP_ACK, NULL, 0);
	f_done(&f);
	f_pad(&f, 60, 0xee);
	CHECK_EQ(f.len, 60);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR4);
	CHECK_EQ(p.payload_len, 0);
	CHECK_EQ(p.payload_off, 54);

	/* one payload byte; padding 5 bytes */
	f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV4);
	f_ipv4(&f, peer4, our4, IPPROTO_TCP, NULL, 0);
	f_tcp(&f, T_SPORT, T_DPORT, TFO_TCP_ACK | TFO_TCP_PSH, NULL, 0);
	f_payload(&f, 1);
	f_done(&f);
	f_pad(&f, 60, 0x5a);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR4);
	CHECK_EQ(p.payload_len, 1);

	/* VLAN: 58 bytes of datagram, padded to 64 (some switches) */
	f_eth_l2(&f, &our_mac, 1, RTE_ETHER_TYPE_IPV4);
	f_ipv4(&f, peer4, our4, IPPROTO_TCP, NULL, 0);
	f_tcp(&f, T_SPORT, T_DPORT, TFO_TCP_ACK, NULL, 0);
	f_done(&f);
	f_pad(&f, 64, 0xff);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR4);

	/* ICMP and ARP padded */
	mk_icmp4(&f, 0, 0, 0);
	f_pad(&f, 60, 0x11);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP);
	CHECK_EQ(p.l4_len, 8);
	mk_arp(&f, 0, 1);
	f_pad(&f, 60, 0x22);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_ARP);

	/* IPv6 frames are never below 60, but trailing bytes can still come */
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	f_pad(&f, (uint16_t)(f.len + 9), 0x33);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR6);
	CHECK_EQ(p.payload_len, 0);
	mk_ns(&f, peer6ll, our6);
	f_pad(&f, (uint16_t)(f.len + 3), 0x44);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.l4_len, 32);
}

TFO_TEST_MAIN()
