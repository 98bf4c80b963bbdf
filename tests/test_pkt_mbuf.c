/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the packet parser on the mbuf's side: RX checksum
 * offload flags, multi-segment mbufs, inconsistent lengths, and random
 * corruption (no crash, invariants hold).
 */
#include "pkt_harness.h"

/* ---- RX checksum offload flags ------------------------------------------ */

TFO_TEST(rx_cksum_offload_flags)
{
	struct tfo_port_info on = our_port(), off = our_port();
	struct frame good, bad_ip, bad_tcp, good6, bad6;
	const uint64_t ipg = RTE_MBUF_F_RX_IP_CKSUM_GOOD,
		       ipb = RTE_MBUF_F_RX_IP_CKSUM_BAD,
		       ipn = RTE_MBUF_F_RX_IP_CKSUM_NONE,
		       l4g = RTE_MBUF_F_RX_L4_CKSUM_GOOD,
		       l4b = RTE_MBUF_F_RX_L4_CKSUM_BAD,
		       l4n = RTE_MBUF_F_RX_L4_CKSUM_NONE;

	on.rx_cksum_offload = true;
	mk_tcp(&good, AF_INET, 0, 0, 12, 30);
	bad_ip = good;
	bad_ip.b[bad_ip.l3 + 10] ^= 0x55;
	bad_tcp = good;
	bad_tcp.b[bad_tcp.l4 + 17] ^= 0x55;
	mk_tcp(&good6, AF_INET6, 0, 0, 12, 31);
	bad6 = good6;
	bad6.b[bad6.l4 + 16] ^= 0x01;

#define EXPECT(fr, flags, pi, cls_, drop_) do { \
	struct tfo_pkt p_ = parse_n(&(fr), (fr).len, (flags), &(pi)); \
	CHECK_MSG(p_.cls == (cls_) && p_.drop == (drop_), \
		  "%s flags %#llx %s: cls %u drop %s", #fr, \
		  (unsigned long long)(flags), #pi, p_.cls, \
		  tfo_pkt_drop_name((enum tfo_pkt_drop)p_.drop)); \
} while (0)
	/* offload on: GOOD trusted even when the frame's checksum is wrong */
	EXPECT(bad_ip, ipg | l4g, on, TFO_PKT_TCP, D(NONE));
	EXPECT(bad_tcp, ipg | l4g, on, TFO_PKT_TCP, D(NONE));
	EXPECT(bad6, l4g, on, TFO_PKT_TCP, D(NONE));
	/* BAD drops even when the frame's checksum is right */
	EXPECT(good, ipb | l4g, on, TFO_PKT_DROP, D(ipv4_cksum));
	EXPECT(good, ipg | l4b, on, TFO_PKT_DROP, D(tcp_cksum));
	EXPECT(good6, l4b, on, TFO_PKT_DROP, D(tcp_cksum));
	/* UNKNOWN: software */
	EXPECT(good, 0, on, TFO_PKT_TCP, D(NONE));
	EXPECT(good6, 0, on, TFO_PKT_TCP, D(NONE));
	EXPECT(bad_ip, l4g, on, TFO_PKT_DROP, D(ipv4_cksum));
	EXPECT(bad_tcp, ipg, on, TFO_PKT_DROP, D(tcp_cksum));
	EXPECT(bad6, 0, on, TFO_PKT_DROP, D(tcp_cksum));
	/* NONE: "not correct in the packet, but integrity verified" (virtio
	 * with partial checksums): trusted like GOOD */
	EXPECT(bad_ip, ipn | l4n, on, TFO_PKT_TCP, D(NONE));
	EXPECT(bad_tcp, ipn | l4n, on, TFO_PKT_TCP, D(NONE));
	EXPECT(bad6, l4n, on, TFO_PKT_TCP, D(NONE));
	/* offload off: flags ignored both ways */
	EXPECT(bad_ip, ipg | l4g, off, TFO_PKT_DROP, D(ipv4_cksum));
	EXPECT(bad_tcp, ipg | l4g, off, TFO_PKT_DROP, D(tcp_cksum));
	EXPECT(bad6, l4g, off, TFO_PKT_DROP, D(tcp_cksum));
	EXPECT(bad_tcp, ipn | l4n, off, TFO_PKT_DROP, D(tcp_cksum));
	EXPECT(good, ipb | l4b, off, TFO_PKT_TCP, D(NONE));
	EXPECT(good6, l4b, off, TFO_PKT_TCP, D(NONE));
	/* ICMP: PMDs report L4 flags for TCP/UDP only, so ICMP is always
	 * checked in software */
	{
		struct frame ic;

		mk_icmp4(&ic, 0, 0, 8);
		ic.b[ic.l4 + 2] ^= 1;
		EXPECT(ic, ipg | l4g, on, TFO_PKT_DROP, D(icmp_cksum));
		mk_icmp6_echo(&ic, 0, 8);
		ic.b[ic.l4 + 2] ^= 1;
		EXPECT(ic, l4g, on, TFO_PKT_DROP, D(icmp_cksum));
		mk_icmp4(&ic, 0, 0, 8);
		EXPECT(ic, ipb | l4b, on, TFO_PKT_DROP, D(ipv4_cksum));
		EXPECT(ic, l4b, on, TFO_PKT_ICMP, D(NONE));
	}
#undef EXPECT
}

/* ---- multi-segment mbufs ------------------------------------------------- */

TFO_TEST(multiseg_split_everywhere)
{
	struct tfo_port_info pi = our_port();

	for (int t = 0; t < TM_MAX; t++) {
		struct frame f;

		mk_tmpl(&f, t);
		for (uint16_t cut = 0; cut <= f.len; cut++) {
			struct rte_mbuf *m = mk_chain(f.b, f.len, &cut, 1);
			struct tfo_pkt p = parse_m(m, &pi);
			int want = cut < hdr_end(&f) ? D(multiseg) : D(NONE);

			/* a frame shorter than Ethernet is short, split or not */
			check_expect(&p, &f, want, t, cut, "split");
			if (want == D(NONE) && f.proto == IPPROTO_TCP &&
			    f.kind == F_IP)
				check_tcp_fields(&p, &f, p.family == AF_INET ?
						 IDX_OUR4 : IDX_OUR6);
			rte_pktmbuf_free(m);
		}
	}
}

/* Payload over several segments, odd lengths included: the software TCP
 * checksum must be right (and must notice a flipped byte anywhere). */
TFO_TEST(multiseg_payload_cksum)
{
	struct tfo_port_info pi = our_port();
	int runs = 0;

	for (int fam = 0; fam < 2; fam++) {
		for (int iter = 0; iter < 300; iter++) {
			struct frame f;
			uint16_t cuts[4];
			unsigned int nb = 1 + rnd() % 4;
			uint16_t pay = (uint16_t)(1 + rnd() % 1200);
			struct rte_mbuf *m;
			struct tfo_pkt p;

			mk_tcp(&f, fam ? AF_INET6 : AF_INET, iter & 1,
			       fam ? 0 : 4 * (iter % 4), 4 * (iter % 6), pay);
			rnd_fill(f.b + f.pay, pay);
			f_cksums(&f);
			if (iter & 2)
				f_pad(&f, (uint16_t)(f.len + rnd() % 8), 0xaa);
			/* cuts anywhere after the headers, ascending, may repeat
			 * (empty segments) */
			for (unsigned int i = 0; i < nb; i++)
				cuts[i] = (uint16_t)(f.pay + rnd() % (f.len - f.pay + 1));
			for (unsigned int i = 1; i < nb; i++)
				for (unsigned int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
					uint16_t tmp = cuts[j];

					cuts[j] = cuts[j - 1];
					cuts[j - 1] = tmp;
				}
			m = mk_chain(f.b, f.len, cuts, nb);
			p = parse_m(m, &pi);
			check_tcp_fields(&p, &f, fam ? IDX_OUR6 : IDX_OUR4);
			rte_pktmbuf_free(m);

			/* flip one payload byte: the checksum must see it */
			{
				uint16_t at = (uint16_t)(f.pay + rnd() % pay);

				f.b[at] ^= (uint8_t)(1 + rnd() % 255);
				m = mk_chain(f.b, f.len, cuts, nb);
				CHECK_DROP(parse_m(m, &pi), D(tcp_cksum));
				rte_pktmbuf_free(m);
			}
			runs++;
		}
	}
	/* the classic odd case: first segment odd, second even and odd */
	{
		struct frame f;
		uint16_t cut;
		struct rte_mbuf *m;

		mk_tcp(&f, AF_INET, 0, 0, 0, 101);
		cut = (uint16_t)(f.pay + 1);
		m = mk_chain(f.b, f.len, &cut, 1);
		CHECK_EQ(parse_m(m, &pi).cls, TFO_PKT_TCP);
		CHECK(m->data_len & 1);
		rte_pktmbuf_free(m);
		/* an ICMP message whose data continues in a second segment */
		mk_icmp4(&f, 0, 0, 99);
		cut = (uint16_t)(f.l4 + 9);
		m = mk_chain(f.b, f.len, &cut, 1);
		CHECK_EQ(parse_m(m, &pi).cls, TFO_PKT_ICMP);
		rte_pktmbuf_free(m);
	}
	CHECK_EQ(runs, 600);
}

/* An mbuf whose pkt_len claims more than its only segment holds. */
TFO_TEST(mbuf_lengths_inconsistent)
{
	struct tfo_port_info pi = our_port();
	struct frame f;
	struct rte_mbuf *m;

	mk_tcp(&f, AF_INET, 0, 0, 0, 40);
	m = mk_mbuf(f.b, (uint16_t)(f.pay + 10), 0);
	m->pkt_len = f.len;	/* 30 payload bytes are not there */
	CHECK_DROP(parse_m(m, &pi), D(multiseg));
	m->pkt_len = (uint32_t)(f.pay + 9);	/* and the other way round */
	CHECK_DROP(parse_m(m, &pi), D(multiseg));
	rte_pktmbuf_free(m);
}

/* ---- random corruption: no crash, invariants hold ------------------------- */

TFO_TEST(fuzz_mutations)
{
	struct tfo_port_info pi = our_port();
	unsigned int accepted = 0, iters = 30000;

	for (unsigned int it = 0; it < iters; it++) {
		struct frame f;
		struct rte_mbuf *m;
		struct tfo_pkt p;
		uint16_t len;

		mk_tmpl(&f, (int)(rnd() % TM_MAX));
		for (unsigned int k = rnd() % 4; k > 0; k--)
			f.b[rnd() % f.len] ^= (uint8_t)(1u << (rnd() % 8));
		if (rnd() & 1)
			f_cksums(&f);
		len = (uint16_t)(rnd() % 4 ? f.len : rnd() % (f.len + 1));
		if (rnd() % 4 == 0 && len > 1) {
			uint16_t cut = (uint16_t)(rnd() % len);

			m = mk_chain(f.b, len, &cut, 1);
		} else {
			m = mk_mbuf(f.b, len, rnd() % 8 == 0 ?
				    RTE_MBUF_F_RX_IP_CKSUM_GOOD : 0);
		}
		pi.rx_cksum_offload = rnd() % 8 == 0;
		p = parse_m(m, &pi);
		if (p.cls == TFO_PKT_DROP) {
			if (p.drop == D(NONE) || p.drop >= TFO_PKT_DROP_MAX) {
				CHECK_MSG(0, "iter %u: drop %u", it, p.drop);
			}
		} else if (p.cls == TFO_PKT_TCP) {
			accepted++;
			if (p.payload_off != p.l2_len + p.l3_len + p.l4_len ||
			    p.payload_off + p.payload_len > len ||
			    p.l4_len < 20 || p.l4_len > 60 || p.l4_len % 4 ||
			    p.sport == 0 || p.dport == 0 ||
			    p.local_idx < ADDR_BASE ||
			    p.local_idx >= ADDR_BASE + pi.nb_addrs)
				CHECK_MSG(0, "iter %u: bad TCP fields", it);
		} else if (p.cls == TFO_PKT_ICMP || p.cls == TFO_PKT_ICMP6 ||
			   p.cls == TFO_PKT_MLD) {
			if (p.payload_off + p.l4_len > len ||
			    p.payload_off != p.l2_len + p.l3_len)
				CHECK_MSG(0, "iter %u: bad ICMP fields", it);
		} else if (p.cls != TFO_PKT_ARP || p.drop != D(NONE)) {
			CHECK_MSG(0, "iter %u: cls %u drop %u", it, p.cls, p.drop);
		}
		rte_pktmbuf_free(m);
	}
	/* some mutations leave the frame valid (flips in the payload) */
	CHECK(accepted > iters / 50);
}
