/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the TCP header builder (src/net/pkt_build.c:
 * tfo_pkt_prepend_tcp), drop names and routes taken from a parsed packet.
 */
#include "pkt_harness.h"

/* ---- building ------------------------------------------------------------- */

static struct tfo_port_info
peer_port(int family)
{
	struct tfo_port_info pi;

	memset(&pi, 0, sizeof(pi));
	pi.mac = peer_mac;
	pi.nb_addrs = 1;
	pi.addr_base = 0;
	set_addr(&pi.addrs[0], family, family == AF_INET ? peer4 : peer6, 24);
	return pi;
}

/*
 * What a NIC does with the offload flags: fill in the checksums. Summed
 * over a linear copy with the reference code: DPDK 22.11's
 * rte_raw_cksum_mbuf() is wrong for a segment that starts at an odd offset
 * (it truncates the segment's 32-bit sum to 16 bits before the byte swap).
 */
static void
emulate_tx_offload(struct rte_mbuf *m)
{
	static uint8_t flat[FMAX];
	const uint8_t *b;

	if (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) {
		uint8_t *ih = rte_pktmbuf_mtod_offset(m, uint8_t *, m->l2_len);

		put16(ih + 10, (uint16_t)~ref_cksum(ih, m->l3_len));
	}
	if ((m->ol_flags & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_TCP_CKSUM) {
		uint8_t *th = rte_pktmbuf_mtod_offset(m, uint8_t *,
						      m->l2_len + m->l3_len);

		/* the field holds the pseudo-header sum: sum over it */
		b = rte_pktmbuf_read(m, 0, m->pkt_len, flat);
		put16(th + 16, (uint16_t)~ref_cksum(b + m->l2_len + m->l3_len,
						    m->pkt_len - m->l2_len - m->l3_len));
	}
}

static void
build_case(int family, int vlan, uint8_t opt_len, uint16_t pay_len,
	   unsigned int nb_segs, int ip_off, int tcp_off)
{
	static const uint8_t opts[40] = {
		2, 4, 0x05, 0xb4, 1, 3, 3, 9, 4, 2, 1, 1,
		34, 10, 0xc0, 0x0c, 0x1e, 0x5a, 0x11, 0x22, 0x33, 0x44, 1, 1,
		8, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 1, 0,
	};
	struct tfo_port_info us = our_port(), peer = peer_port(family);
	struct tfo_route r = mk_route(family, vlan);
	struct tfo_tcp_out t = {
		.sport = 80, .dport = 51234, .seq = 0xdeadbeef, .ack = 0x01234567,
		.window = 0x7fff, .flags = TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_FIN,
		.opt_len = opt_len, .opts = opts,
	};
	uint8_t pay[1500], got[1500];
	uint16_t hl = (uint16_t)(tfo_pkt_hdr_len(&r) + opt_len);
	uint16_t l2 = (uint16_t)(vlan ? 18 : 14), l3 = family == AF_INET ? 20 : 40;
	struct rte_mbuf *m;
	struct tfo_pkt p;
	char what[96];
	uint64_t want_fl;

	snprintf(what, sizeof(what), "fam %d vlan %d opts %u pay %u segs %u off %d/%d",
		 family, vlan, opt_len, pay_len, nb_segs, ip_off, tcp_off);
	us.tx_ip_cksum_offload = ip_off;
	us.tx_tcp_cksum_offload = tcp_off;
	rnd_fill(pay, pay_len);
	m = mk_payload(pay, pay_len, nb_segs);
	/* flags a previous user of the mbuf may have left */
	m->ol_flags |= RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
	CHECK_MSG(tfo_pkt_prepend_tcp(m, &us, &r, &t) == 0, "%s", what);
	CHECK_MSG(m->pkt_len == (uint32_t)(hl + pay_len), "%s", what);
	CHECK_EQ(m->l2_len, l2);
	CHECK_EQ(m->l3_len, l3);
	CHECK_EQ(m->l4_len, 20 + opt_len);
	want_fl = family == AF_INET ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6;
	if (ip_off && family == AF_INET)
		want_fl |= RTE_MBUF_F_TX_IP_CKSUM;
	if (tcp_off)
		want_fl |= RTE_MBUF_F_TX_TCP_CKSUM;
	CHECK_MSG((m->ol_flags & (RTE_MBUF_F_TX_OFFLOAD_MASK)) == want_fl,
		  "%s: ol_flags %#llx", what,
		  (unsigned long long)(m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK));
	CHECK_EQ(rte_validate_tx_offload(m), 0);

	/* fixed header fields */
	{
		const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);

		CHECK_MEM(b, peer_mac.addr_bytes, 6);
		CHECK_MEM(b + 6, our_mac.addr_bytes, 6);
		if (family == AF_INET) {
			CHECK_EQ(b[l2], 0x45);
			CHECK_EQ(b[l2 + 1], 0);
			CHECK_EQ(get16(b + l2 + 2), m->pkt_len - l2);
			CHECK_EQ(get16(b + l2 + 6), 0x4000);
			CHECK_EQ(b[l2 + 8], 64);
			CHECK_EQ(b[l2 + 9], IPPROTO_TCP);
			if (ip_off)
				CHECK_EQ(get16(b + l2 + 10), 0);
		} else {
			CHECK_EQ(get16(b + l2), 0x6000);
			CHECK_EQ(get16(b + l2 + 2), 0);
			CHECK_EQ(get16(b + l2 + 4), m->pkt_len - l2 - 40);
			CHECK_EQ(b[l2 + 7], 64);
		}
		CHECK_EQ(get16(b + l2 + l3 + 18), 0);	/* urgent pointer */
		CHECK_MEM(b + l2 + l3 + 20, opts, opt_len);
	}

	if (tcp_off) {
		const struct rte_tcp_hdr *th = rte_pktmbuf_mtod_offset(m,
			const struct rte_tcp_hdr *, l2 + l3);
		uint16_t want;

		if (family == AF_INET)
			want = rte_ipv4_phdr_cksum(rte_pktmbuf_mtod_offset(m,
				const struct rte_ipv4_hdr *, l2), m->ol_flags);
		else
			want = rte_ipv6_phdr_cksum(rte_pktmbuf_mtod_offset(m,
				const struct rte_ipv6_hdr *, l2), m->ol_flags);
		CHECK_MSG(th->cksum == want, "%s: pseudo %#x want %#x", what,
			  th->cksum, want);
		/* and what an Intel PMD's tx_prepare would write is the same */
		if (rte_pktmbuf_data_len(m) >= hl) {
			uint16_t before = th->cksum;

			CHECK_EQ(rte_net_intel_cksum_prepare(m), 0);
			CHECK_EQ(th->cksum, before);
		}
	}
	emulate_tx_offload(m);
	/* checksums verify: reference code and DPDK's, on a linear copy */
	{
		static uint8_t flat[FMAX];
		const uint8_t *b = rte_pktmbuf_read(m, 0, m->pkt_len, flat);
		const uint8_t *ip = b + l2, *l4 = b + l2 + l3;
		uint32_t l4_len = m->pkt_len - l2 - l3;

		REQUIRE(b != NULL);
		if (family == AF_INET) {
			CHECK_MSG(ref_cksum(ip, 20) == 0xffff, "%s", what);
			CHECK_MSG(rte_ipv4_cksum((const struct rte_ipv4_hdr *)ip) == 0,
				  "%s", what);
			CHECK_MSG(rte_ipv4_udptcp_cksum_verify(
				(const struct rte_ipv4_hdr *)ip, l4) == 0, "%s", what);
		} else {
			CHECK_MSG(rte_ipv6_udptcp_cksum_verify(
				(const struct rte_ipv6_hdr *)ip, l4) == 0, "%s", what);
		}
		CHECK_MSG(ref_l4_cksum(family, ip + (family == AF_INET ? 12 : 8),
				       ip + (family == AF_INET ? 16 : 24),
				       IPPROTO_TCP, l4, l4_len) == 0xffff,
			  "%s", what);
	}

	/* the peer parses it: every field round-trips */
	p = parse_m(m, &peer);
	CHECK_MSG(p.cls == TFO_PKT_TCP, "%s: cls %u drop %s", what, p.cls,
		  tfo_pkt_drop_name((enum tfo_pkt_drop)p.drop));
	CHECK_EQ(p.family, family);
	CHECK_EQ(p.has_vlan, vlan);
	CHECK_EQ(p.vlan_tci, r.vlan_tci);
	CHECK_EQ(p.l2_len, l2);
	CHECK_EQ(p.l3_len, l3);
	CHECK_EQ(p.l4_len, 20 + opt_len);
	CHECK_EQ(p.payload_off, hl);
	CHECK_EQ(p.payload_len, pay_len);
	CHECK_EQ(p.sport, t.sport);
	CHECK_EQ(p.dport, t.dport);
	CHECK_EQ(p.seq, t.seq);
	CHECK_EQ(p.ack, t.ack);
	CHECK_EQ(p.window, t.window);
	CHECK_EQ(p.tcp_flags, t.flags);
	CHECK_EQ(p.local_idx, 0);
	CHECK_MEM(p.src.b, r.local.b, 16);
	CHECK_MEM(p.dst.b, r.peer.b, 16);
	if (pay_len) {
		const void *pp = rte_pktmbuf_read(m, hl, pay_len, got);

		CHECK(pp != NULL && memcmp(pp, pay, pay_len) == 0);
	}
	rte_pktmbuf_free(m);
}

TFO_TEST(prepend_tcp_roundtrip)
{
	static const uint8_t opt_lens[] = { 0, 4, 12, 40 };
	static const uint16_t pays[] = { 0, 1, 333, 1400 };
	unsigned int cases = 0;

	for (int fam = 0; fam < 2; fam++)
		for (int vlan = 0; vlan < 2; vlan++)
			for (size_t o = 0; o < RTE_DIM(opt_lens); o++)
				for (size_t pl = 0; pl < RTE_DIM(pays); pl++)
					for (unsigned int segs = 1; segs <= 3; segs += 2)
						for (int off = 0; off < 4; off++) {
							if (pays[pl] == 0 && segs > 1)
								continue;
							build_case(fam ? AF_INET6 : AF_INET,
								   vlan, opt_lens[o], pays[pl],
								   segs, off & 1, off >> 1);
							cases++;
						}
	CHECK(cases > 200);
}

TFO_TEST(prepend_tcp_headroom)
{
	for (int fam = 0; fam < 2; fam++) {
		for (int vlan = 0; vlan < 2; vlan++) {
			struct tfo_port_info us = our_port();
			struct tfo_route r = mk_route(fam ? AF_INET6 : AF_INET, vlan);
			struct tfo_tcp_out t = { .sport = 1, .dport = 2,
						 .flags = TFO_TCP_RST, .opt_len = 8,
						 .opts = syn_opts };
			uint16_t need = (uint16_t)(tfo_pkt_hdr_len(&r) + 8);
			struct rte_mbuf *m;

			setup();
			m = rte_pktmbuf_alloc(pool);
			REQUIRE(m != NULL);
			m->data_off = (uint16_t)(need - 1);
			rte_pktmbuf_append(m, 10);
			CHECK_EQ(tfo_pkt_prepend_tcp(m, &us, &r, &t), -ENOSPC);
			/* untouched */
			CHECK_EQ(m->data_off, need - 1);
			CHECK_EQ(m->data_len, 10);
			CHECK_EQ(m->pkt_len, 10);
			m->data_off = need;
			CHECK_EQ(tfo_pkt_prepend_tcp(m, &us, &r, &t), 0);
			CHECK_EQ(m->data_off, 0);
			CHECK_EQ(m->pkt_len, need + 10);
			rte_pktmbuf_free(m);
		}
	}
}

/* Payload in an external buffer (zero-copy responses): headers go into a
 * segment in front of it. */
TFO_TEST(prepend_tcp_extbuf_payload)
{
	struct tfo_port_info us = our_port(), peer = peer_port(AF_INET);
	struct tfo_route r = mk_route(AF_INET, 0);
	struct tfo_tcp_out t = { .sport = 80, .dport = 3333, .seq = 7, .ack = 9,
				 .window = 100, .flags = TFO_TCP_ACK | TFO_TCP_PSH };
	static const char body[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
	uint16_t blen = (uint16_t)(sizeof(body) - 1);
	struct rte_mbuf *h, *b;
	struct tfo_pkt p;

	b = mk_mbuf((const uint8_t *)body, blen, 0);
	h = rte_pktmbuf_alloc(pool);
	REQUIRE(h != NULL);
	/* REQUIRE evaluates its condition twice: no side effects in it */
	CHECK_EQ(rte_pktmbuf_chain(h, b), 0);
	CHECK_EQ(tfo_pkt_prepend_tcp(h, &us, &r, &t), 0);
	CHECK_EQ(h->nb_segs, 2);
	p = parse_m(h, &peer);
	CHECK_EQ(p.cls, TFO_PKT_TCP);
	CHECK_EQ(p.payload_len, blen);
	CHECK_EQ(p.payload_off, 54);
	rte_pktmbuf_free(h);
}

/*
 * tfo_pkt_prepend_tcp as it was written field by field, before it stored
 * whole words: the bytes and mbuf fields the word writer must reproduce.
 */
static int
ref_prepend_tcp(struct rte_mbuf *m, const struct tfo_port_info *port,
		const struct tfo_route *r, const struct tfo_tcp_out *t)
{
	uint16_t l2 = RTE_ETHER_HDR_LEN + (r->has_vlan ? 4 : 0);
	uint16_t l3 = r->family == AF_INET ? 20 : 40;
	uint16_t l4 = (uint16_t)(TFO_TCP_HDR_LEN + t->opt_len);
	uint32_t l4_total;
	struct rte_ether_hdr *eh;
	struct rte_tcp_hdr *th;
	uint8_t *p;

	p = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(l2 + l3 + l4));
	if (p == NULL)
		return -ENOSPC;
	l4_total = m->pkt_len - l2 - l3;

	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	rte_ether_addr_copy(&r->peer_mac, &eh->dst_addr);
	rte_ether_addr_copy(&port->mac, &eh->src_addr);
	if (r->has_vlan) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eh + 1);

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(r->vlan_tci);
		vh->eth_proto = rte_cpu_to_be_16(r->family == AF_INET ?
						 RTE_ETHER_TYPE_IPV4 :
						 RTE_ETHER_TYPE_IPV6);
	} else {
		eh->ether_type = rte_cpu_to_be_16(r->family == AF_INET ?
						  RTE_ETHER_TYPE_IPV4 :
						  RTE_ETHER_TYPE_IPV6);
	}

	m->l2_len = l2;
	m->l3_len = l3;
	m->l4_len = l4;
	m->ol_flags &= ~(RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6 |
			 RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK);

	if (r->family == AF_INET) {
		struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)(p + l2);

		ih->version_ihl = 0x45;
		ih->type_of_service = 0;
		ih->total_length = rte_cpu_to_be_16((uint16_t)(l3 + l4_total));
		ih->packet_id = 0;
		ih->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ih->time_to_live = 64;
		ih->next_proto_id = IPPROTO_TCP;
		ih->hdr_checksum = 0;
		memcpy(&ih->src_addr, r->local.b, 4);
		memcpy(&ih->dst_addr, r->peer.b, 4);
		m->ol_flags |= RTE_MBUF_F_TX_IPV4;
		if (port->tx_ip_cksum_offload)
			m->ol_flags |= RTE_MBUF_F_TX_IP_CKSUM;
		else
			ih->hdr_checksum = (uint16_t)~tfo_cksum_fold(tfo_cksum_add(0, ih, 20));
	} else {
		struct rte_ipv6_hdr *ih = (struct rte_ipv6_hdr *)(p + l2);

		ih->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ih->payload_len = rte_cpu_to_be_16((uint16_t)l4_total);
		ih->proto = IPPROTO_TCP;
		ih->hop_limits = 64;
		memcpy(ih->src_addr, r->local.b, 16);
		memcpy(ih->dst_addr, r->peer.b, 16);
		m->ol_flags |= RTE_MBUF_F_TX_IPV6;
	}

	th = (struct rte_tcp_hdr *)(p + l2 + l3);
	th->src_port = rte_cpu_to_be_16(t->sport);
	th->dst_port = rte_cpu_to_be_16(t->dport);
	th->sent_seq = rte_cpu_to_be_32(t->seq);
	th->recv_ack = rte_cpu_to_be_32(t->ack);
	th->data_off = (uint8_t)((l4 / 4) << 4);
	th->tcp_flags = t->flags;
	th->rx_win = rte_cpu_to_be_16(t->window);
	th->cksum = 0;
	th->tcp_urp = 0;
	if (t->opt_len)
		memcpy(th + 1, t->opts, t->opt_len);

	{
		uint64_t sum = tfo_cksum_pseudo(r->family, &r->local, &r->peer,
						IPPROTO_TCP, l4_total);

		if (port->tx_tcp_cksum_offload) {
			/* the NIC adds the segment to the pseudo-header sum */
			m->ol_flags |= RTE_MBUF_F_TX_TCP_CKSUM;
			th->cksum = tfo_cksum_fold(sum);
		} else {
			if (likely(m->next == NULL))
				sum = tfo_cksum_add(sum, th, l4_total);
			else
				sum += tfo_cksum_mbuf(m, (uint32_t)(l2 + l3), l4_total);
			th->cksum = (uint16_t)~tfo_cksum_fold(sum);
		}
	}
	return 0;
}

/* Both writers on the same payload; everything they produce compared. */
static void
same_bytes_case(int family, int vlan, uint8_t opt_len, uint16_t pay_len,
		unsigned int nb_segs, int ip_off, int tcp_off)
{
	static uint8_t fa[FMAX], fb[FMAX];
	struct tfo_port_info us = our_port();
	struct tfo_route r = mk_route(family, vlan);
	uint8_t opts[40], pay[1500];
	struct tfo_tcp_out t = {
		.sport = (uint16_t)rnd(), .dport = (uint16_t)rnd(),
		.seq = (uint32_t)rnd(), .ack = (uint32_t)rnd(),
		.window = (uint16_t)rnd(), .flags = (uint8_t)rnd(),
		.opt_len = opt_len, .opts = opts,
	};
	struct rte_mbuf *a, *b;
	const uint8_t *pa, *pb;
	char what[96];

	snprintf(what, sizeof(what), "fam %d vlan %d opts %u pay %u segs %u off %d/%d",
		 family, vlan, opt_len, pay_len, nb_segs, ip_off, tcp_off);
	rnd_fill(opts, sizeof(opts));
	rnd_fill(pay, pay_len);
	rnd_fill(r.peer_mac.addr_bytes, 6);
	rnd_fill(us.mac.addr_bytes, 6);
	rnd_fill(r.local.b, family == AF_INET ? 4 : 16);
	rnd_fill(r.peer.b, family == AF_INET ? 4 : 16);
	if (vlan)
		r.vlan_tci = (uint16_t)rnd();
	us.tx_ip_cksum_offload = ip_off;
	us.tx_tcp_cksum_offload = tcp_off;
	a = mk_payload(pay, pay_len, nb_segs);
	b = mk_payload(pay, pay_len, nb_segs);
	a->ol_flags |= RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
	b->ol_flags |= RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
	CHECK_MSG(tfo_pkt_prepend_tcp(a, &us, &r, &t) == 0, "%s", what);
	CHECK_MSG(ref_prepend_tcp(b, &us, &r, &t) == 0, "%s", what);
	CHECK_MSG(a->pkt_len == b->pkt_len && a->data_len == b->data_len &&
		  a->data_off == b->data_off, "%s", what);
	CHECK_MSG(a->ol_flags == b->ol_flags, "%s: ol_flags %#llx want %#llx", what,
		  (unsigned long long)a->ol_flags, (unsigned long long)b->ol_flags);
	CHECK_MSG(a->tx_offload == b->tx_offload, "%s", what);
	pa = rte_pktmbuf_read(a, 0, a->pkt_len, fa);
	pb = rte_pktmbuf_read(b, 0, b->pkt_len, fb);
	REQUIRE(pa != NULL && pb != NULL);
	for (uint32_t i = 0; i < a->pkt_len && i < b->pkt_len; i++)
		if (pa[i] != pb[i]) {
			CHECK_MSG(pa[i] == pb[i], "%s: byte %u is %#x, want %#x",
				  what, i, pa[i], pb[i]);
			break;
		}
	rte_pktmbuf_free(a);
	rte_pktmbuf_free(b);
}

TFO_TEST(prepend_tcp_same_bytes)
{
	static const uint8_t opt_lens[] = { 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40 };
	static const uint16_t pays[] = { 0, 1, 2, 3, 7, 64, 333, 1400 };
	unsigned int cases = 0;

	/* k: family, VLAN, IP and TCP checksum offload, one bit each */
	for (int k = 0; k < 16 * 3; k++)
		for (size_t o = 0; o < RTE_DIM(opt_lens); o++)
			for (size_t pl = 0; pl < RTE_DIM(pays); pl++)
				for (unsigned int segs = 1; segs <= 3; segs += 2) {
					if (pays[pl] < 2 && segs > 1)
						continue;
					same_bytes_case(k & 1 ? AF_INET6 : AF_INET,
							(k >> 1) & 1, opt_lens[o],
							pays[pl], segs, (k >> 2) & 1,
							(k >> 3) & 1);
					cases++;
				}
	CHECK(cases > 1000);
}

/* ---- names and routes ----------------------------------------------------- */

TFO_TEST(drop_names)
{
	static const char *const want[] = {
		"none",
#define X(name, help) #name,
		TFO_PKT_DROP_REASONS(X)
#undef X
	};

	CHECK_EQ(RTE_DIM(want), TFO_PKT_DROP_MAX);
	for (unsigned int r = 0; r < TFO_PKT_DROP_MAX; r++) {
		const char *n = tfo_pkt_drop_name((enum tfo_pkt_drop)r);
		char cname[64];
		int id;

		CHECK(n != NULL && strcmp(n, want[r]) == 0);
		for (unsigned int q = 0; q < r; q++)
			CHECK(strcmp(n, tfo_pkt_drop_name((enum tfo_pkt_drop)q)) != 0);
		/* the counter of the reason is "drop_<name>" */
		snprintf(cname, sizeof(cname), "drop_%s", n);
		id = tfo_stats_lookup(cname);
		CHECK_EQ(id, TFO_STAT_PKT_DROP_BASE + r);
	}
	CHECK(strcmp(tfo_pkt_drop_name(TFO_PKT_DROP_MAX), "?") == 0);
	CHECK(strcmp(tfo_pkt_drop_name((enum tfo_pkt_drop)255), "?") == 0);
	CHECK(strcmp(tfo_pkt_drop_name((enum tfo_pkt_drop)-1), "?") == 0);
}

TFO_TEST(route_from_pkt)
{
	struct tfo_port_info pi = our_port();
	struct frame f;

	for (int fam = 0; fam < 2; fam++) {
		for (int vlan = 0; vlan < 2; vlan++) {
			struct rte_mbuf *m;
			struct tfo_pkt p;
			struct tfo_route r;
			struct tfo_addr zero = {{ 0 }};

			mk_tcp(&f, fam ? AF_INET6 : AF_INET, vlan, 0, 0, 3);
			m = mk_mbuf(f.b, f.len, 0);
			p = parse_m(m, &pi);
			REQUIRE(p.cls == TFO_PKT_TCP);
			memset(&r, 0x5a, sizeof(r));
			tfo_route_from_pkt(&r, m, &p, 5);
			CHECK(rte_is_same_ether_addr(&r.peer_mac, &peer_mac));
			CHECK_EQ(r.has_vlan, vlan);
			CHECK_EQ(r.vlan_tci, vlan ? 0xa123 : 0);
			CHECK_EQ(r.family, fam ? AF_INET6 : AF_INET);
			CHECK_EQ(r.local_idx, fam ? IDX_OUR6 : IDX_OUR4);
			CHECK_EQ(r.port_idx, 5);
			CHECK_MEM(r.local.b, fam ? our6 : our4, fam ? 16 : 4);
			CHECK_MEM(r.peer.b, fam ? peer6 : peer4, fam ? 16 : 4);
			if (!fam) {
				CHECK_MEM(r.local.b + 4, zero.b, 12);
				CHECK_MEM(r.peer.b + 4, zero.b, 12);
			}
			rte_pktmbuf_free(m);

			/* the answer built from the route goes back to the peer */
			{
				struct tfo_port_info peer = peer_port(r.family);
				struct tfo_tcp_out t = { .sport = p.dport,
					.dport = p.sport, .seq = 1,
					.ack = p.seq + 1,
					.flags = TFO_TCP_SYN | TFO_TCP_ACK };
				struct rte_mbuf *a;
				struct tfo_pkt q;

				setup();
				a = rte_pktmbuf_alloc(pool);
				REQUIRE(a != NULL);
				CHECK_EQ(tfo_pkt_prepend_tcp(a, &pi, &r, &t), 0);
				q = parse_m(a, &peer);
				CHECK_EQ(q.cls, TFO_PKT_TCP);
				CHECK_EQ(q.dport, T_SPORT);
				CHECK_EQ(q.has_vlan, vlan);
				CHECK_EQ(q.vlan_tci, p.vlan_tci);
				CHECK_MEM(q.src.b, p.dst.b, 16);
				CHECK_MEM(q.dst.b, p.src.b, 16);
				rte_pktmbuf_free(a);
			}
		}
	}
}
