/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness 1: the packet parser and the TCP option codec.
 *
 * Input: a config byte, a split byte, then a frame.
 *  config bit 0: the port trusts RX checksum flags; bits 1-2: the IP flag,
 *  bits 3-4: the L4 flag (none / good / bad / both); bit 5: the frame's
 *  bytes are in direct mbufs (else in exact-size malloc'ed buffers, so that
 *  ASan sees a read past the frame); bit 6: the reply is built with TX
 *  checksum offload; bit 7: also run the option codec on the input tail.
 *
 * Invariants: tfo_pkt_parse() reads only the frame and gives lengths and
 * offsets inside it, tfo_pkt_match_local() only drops or sets local_idx
 * to one of the port's addresses; for TCP, the options parse in one bounded pass, and a
 * reply built with tfo_route_from_pkt() + tfo_pkt_prepend_tcp() parses
 * back (as the peer would) to exactly the fields it was built from, with
 * valid checksums. The option codec: whatever parses, written back with
 * tfo_tcpopt_write_synack(), parses to the same values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "net/pkt.h"
#include "net/tcpopt.h"

#include "fuzz_common.h"
#include "fuzz_ports.h"

static struct rte_mempool *pool;
static struct tfo_port_info port;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_eal_init((*argv)[0], 64);
	pool = rte_pktmbuf_pool_create("fz_pkt", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL)
		abort();
	fz_port_info(&port, 0);
	return 0;
}

static const uint64_t ip_flags[4] = {
	0, RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_IP_CKSUM_BAD,
	RTE_MBUF_F_RX_IP_CKSUM_NONE,
};
static const uint64_t l4_flags[4] = {
	0, RTE_MBUF_F_RX_L4_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_BAD,
	RTE_MBUF_F_RX_L4_CKSUM_NONE,
};

/* Everything the parser says lies inside the frame; once @matched, our
 * address is one of the port's. */
static void
check_bounds(const struct rte_mbuf *m, const struct tfo_pkt *p, enum tfo_pkt_class cls,
	     bool matched)
{
	FZ_ASSERT(cls == p->cls, "return %d, cls %u", cls, p->cls);
	if (cls == TFO_PKT_DROP) {
		FZ_ASSERT(p->drop > TFO_PKT_DROP_NONE && p->drop < TFO_PKT_DROP_MAX,
			  "drop reason %u", p->drop);
		return;
	}
	FZ_ASSERT(p->drop == TFO_PKT_DROP_NONE, "reason %u on a kept frame", p->drop);
	FZ_ASSERT(p->l2_len == 14 || p->l2_len == 18, "l2_len %u", p->l2_len);
	if (cls == TFO_PKT_ARP) {
		FZ_ASSERT(p->l2_len + p->l3_len <= m->data_len, "ARP past the segment");
		return;
	}
	FZ_ASSERT(p->payload_off >= p->l2_len + p->l3_len, "payload_off %u", p->payload_off);
	if (cls == TFO_PKT_TCP) {
		FZ_ASSERT(p->l4_len >= 20 && p->l4_len <= 60 && (p->l4_len & 3) == 0,
			  "TCP l4_len %u", p->l4_len);
		FZ_ASSERT(p->payload_off == p->l2_len + p->l3_len + p->l4_len,
			  "payload_off %u", p->payload_off);
		/* the header in the first segment, the payload in the frame */
		FZ_ASSERT(p->payload_off <= m->data_len, "TCP header past the segment");
		FZ_ASSERT((uint32_t)p->payload_off + p->payload_len <= m->pkt_len,
			  "payload %u+%u past %u", p->payload_off, p->payload_len, m->pkt_len);
		FZ_ASSERT(p->sport != 0 && p->dport != 0, "port 0");
	} else {
		/* ICMP: the whole message is within the frame */
		FZ_ASSERT((uint32_t)p->payload_off + p->l4_len <= m->pkt_len,
			  "ICMP %u+%u past %u", p->payload_off, p->l4_len, m->pkt_len);
	}
	FZ_ASSERT(p->family == AF_INET || p->family == AF_INET6, "family %u", p->family);
	if (matched)
		FZ_ASSERT(p->local_idx >= port.addr_base &&
			  p->local_idx < port.addr_base + port.nb_addrs,
			  "local_idx %u", p->local_idx);
	else
		FZ_ASSERT(p->local_idx == 0, "local_idx %u before matching", p->local_idx);
}

/* Compare a parse against what was written. */
static void
check_opts_same(const struct tfo_tcpopts *a, const struct tfo_tcpopts *b, bool synack)
{
	FZ_ASSERT(a->has_mss == b->has_mss && (!a->has_mss || a->mss == b->mss),
		  "mss %u/%u vs %u/%u", a->has_mss, a->mss, b->has_mss, b->mss);
	FZ_ASSERT(a->has_ts == b->has_ts &&
		  (!a->has_ts || (a->tsval == b->tsval && a->tsecr == b->tsecr)),
		  "timestamps");
	FZ_ASSERT(a->has_wscale == b->has_wscale && (!a->has_wscale || a->wscale == b->wscale),
		  "wscale");
	FZ_ASSERT(a->sack_ok == b->sack_ok, "sack_ok %u vs %u", a->sack_ok, b->sack_ok);
	FZ_ASSERT(a->form == b->form && a->cookie_state == b->cookie_state,
		  "TFO form %u/%u state %u/%u", a->form, b->form, a->cookie_state,
		  b->cookie_state);
	if (a->cookie_state == TFO_COOKIE_PRESENT)
		FZ_ASSERT(a->cookie_len == b->cookie_len &&
			  memcmp(a->cookie, b->cookie, a->cookie_len) == 0, "cookie");
	FZ_ASSERT(!b->malformed || !synack, "written options malformed");
}

/*
 * The option codec on its own: parse, then write a SYN-ACK from what
 * parsed and parse that back.
 */
static void
fuzz_options(const uint8_t *opts, size_t len)
{
	uint8_t *copy = fz_dup(opts, len);
	uint8_t out[TFO_TCPOPT_MAX_LEN + 8];
	struct tfo_tcpopts o, back, want;
	struct tfo_synack_opts so;
	unsigned int olen;
	int rc;

	rc = tfo_tcpopt_parse(copy, (unsigned int)len, &o);
	FZ_ASSERT((rc < 0) == (o.malformed != 0), "rc %d malformed %u", rc, o.malformed);
	FZ_ASSERT(o.cookie_state <= TFO_COOKIE_INVALID && o.form <= TFO_FORM_EXP,
		  "cookie state %u form %u", o.cookie_state, o.form);
	FZ_ASSERT((o.form == TFO_FORM_NONE) == (o.cookie_state == TFO_COOKIE_ABSENT),
		  "form %u vs state %u", o.form, o.cookie_state);
	if (o.cookie_state == TFO_COOKIE_PRESENT)
		FZ_ASSERT(o.cookie_len >= TFO_COOKIE_MIN && o.cookie_len <= TFO_COOKIE_MAX &&
			  (o.cookie_len & 1) == 0, "cookie_len %u", o.cookie_len);
	FZ_ASSERT(!o.has_wscale || o.wscale <= 14, "wscale %u", o.wscale);
	FZ_ASSERT(!o.has_mss || o.mss != 0, "has_mss with 0");
	free(copy);

	/* write what parsed as a SYN-ACK, parse it back */
	memset(&so, 0, sizeof(so));
	so.mss = o.has_mss ? o.mss : 1460;
	so.wscale = o.wscale;
	so.peer_wscale = o.has_wscale;
	so.sack_ok = o.sack_ok;
	so.ts = o.has_ts;
	so.tsval = o.tsval;
	so.tsecr = o.tsecr;
	if (o.cookie_state == TFO_COOKIE_PRESENT) {
		so.form = o.form;
		so.cookie_len = o.cookie_len;
		so.cookie = o.cookie;
	}
	memset(out, 0xa5, sizeof(out));
	olen = tfo_tcpopt_write_synack(out, &so);
	FZ_ASSERT(olen <= TFO_TCPOPT_MAX_LEN && (olen & 3) == 0, "olen %u", olen);
	for (unsigned int i = TFO_TCPOPT_MAX_LEN; i < sizeof(out); i++)
		FZ_ASSERT(out[i] == 0xa5, "wrote past 40 bytes");
	copy = fz_dup(out, olen);
	rc = tfo_tcpopt_parse(copy, olen, &back);
	free(copy);
	FZ_ASSERT(rc == 0, "our SYN-ACK options do not parse");
	memset(&want, 0, sizeof(want));
	want.has_mss = 1;
	want.mss = so.mss;
	want.has_wscale = o.has_wscale;
	want.wscale = o.wscale;
	want.sack_ok = o.sack_ok;
	want.has_ts = o.has_ts;
	want.tsval = o.tsval;
	want.tsecr = o.tsecr;
	if (o.cookie_state == TFO_COOKIE_PRESENT) {
		want.form = o.form;
		want.cookie_state = TFO_COOKIE_PRESENT;
		want.cookie_len = o.cookie_len;
		memcpy(want.cookie, o.cookie, o.cookie_len);
	}
	check_opts_same(&want, &back, true);

	/* the timestamp writer too */
	olen = tfo_tcpopt_write_ts(out, o.tsval, o.tsecr);
	FZ_ASSERT(olen == 12, "ts olen %u", olen);
	rc = tfo_tcpopt_parse(out, olen, &back);
	FZ_ASSERT(rc == 0 && back.has_ts && back.tsval == o.tsval && back.tsecr == o.tsecr,
		  "TS round trip");
}

/* A reply to @p p, built as the engine does, parsed back as its peer would. */
static void
check_reply(const struct rte_mbuf *m, const struct tfo_pkt *p,
	    const struct tfo_tcpopts *o, bool tx_offload)
{
	struct tfo_port_info srv = port, peer;
	struct tfo_route r;
	struct tfo_tcp_out t;
	struct tfo_pkt q;
	struct tfo_tcpopts qo;
	struct tfo_synack_opts so;
	uint8_t opts[TFO_TCPOPT_MAX_LEN], payload[64];
	uint32_t plen = RTE_MIN((uint32_t)p->payload_len, (uint32_t)sizeof(payload));
	struct rte_mbuf *rm;
	const uint8_t *pl;

	srv.tx_ip_cksum_offload = tx_offload;
	srv.tx_tcp_cksum_offload = tx_offload;
	tfo_route_from_pkt(&r, m, p, 0);
	memset(&so, 0, sizeof(so));
	so.mss = 1460;
	so.peer_wscale = o->has_wscale;
	so.wscale = 7;
	so.ts = o->has_ts;
	so.tsval = 12345;
	so.tsecr = o->tsval;
	so.sack_ok = o->sack_ok;
	if (o->cookie_state == TFO_COOKIE_PRESENT) {
		so.form = o->form;
		so.cookie_len = o->cookie_len;
		so.cookie = o->cookie;
	}
	memset(&t, 0, sizeof(t));
	t.sport = p->dport;
	t.dport = p->sport;
	t.seq = p->ack ^ 0x5a5a5a5a;
	t.ack = p->seq + 1;
	t.window = p->window;
	t.flags = TFO_TCP_SYN | TFO_TCP_ACK;
	t.opt_len = (uint8_t)tfo_tcpopt_write_synack(opts, &so);
	t.opts = opts;

	rm = rte_pktmbuf_alloc(pool);
	FZ_ASSERT(rm != NULL, "pool empty: an mbuf leaked");
	pl = rte_pktmbuf_read(m, p->payload_off, plen, payload);
	FZ_ASSERT(pl != NULL, "payload unreadable");
	memcpy(rte_pktmbuf_append(rm, (uint16_t)plen), pl, plen);
	FZ_ASSERT(tfo_pkt_prepend_tcp(rm, &srv, &r, &t) == 0, "no headroom");

	/* the peer: its MAC and address are the ones the frame came from */
	memset(&peer, 0, sizeof(peer));
	peer.mtu = 1500;
	peer.mac = r.peer_mac;
	peer.nb_addrs = 1;
	peer.addrs[0].family = p->family;
	peer.addrs[0].prefix_len = p->family == AF_INET ? 32 : 128;
	peer.addrs[0].addr = p->src;
	if (tx_offload) {
		/* what the NIC would have done: trust, as a port with RX offload */
		peer.rx_cksum_offload = true;
		rm->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	}
	FZ_ASSERT(tfo_pkt_classify(rm, &peer, &q) == TFO_PKT_TCP,
		  "our reply does not parse: %s", tfo_pkt_drop_name(q.drop));
	FZ_ASSERT(q.sport == t.sport && q.dport == t.dport && q.seq == t.seq &&
		  q.ack == t.ack && q.window == t.window && q.tcp_flags == t.flags,
		  "reply header fields");
	FZ_ASSERT(q.payload_len == plen && memcmp(rte_pktmbuf_mtod_offset(rm, uint8_t *,
							q.payload_off), pl, plen) == 0,
		  "reply payload");
	FZ_ASSERT(memcmp(&q.dst, &p->src, sizeof(q.dst)) == 0 &&
		  memcmp(&q.src, &p->dst, sizeof(q.src)) == 0, "reply addresses");
	FZ_ASSERT(q.has_vlan == p->has_vlan && (!q.has_vlan || q.vlan_tci == p->vlan_tci),
		  "reply VLAN");
	FZ_ASSERT(tfo_tcpopt_parse(tfo_pkt_tcp_hdr(rm, &q) + 20, q.l4_len - 20u, &qo) == 0,
		  "reply options");
	rte_pktmbuf_free(rm);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	uint8_t cfg = fz_u8(&in), split = fz_u8(&in);
	bool direct = cfg & 0x20;
	struct rte_mbuf *m;
	enum tfo_pkt_class cls, parsed;
	struct tfo_pkt p;
	unsigned int avail = rte_mempool_avail_count(pool);

	if (cfg & 0x80)
		fuzz_options(in.p + (in.n > 41 ? in.n - 41 : 0), RTE_MIN(in.n, (size_t)41));
	if (in.n > 2048 && direct)
		direct = false;
	m = fz_frame(pool, in.p, (uint32_t)in.n, !direct, split);
	FZ_ASSERT(m != NULL, "pool empty: an mbuf leaked");
	port.rx_cksum_offload = cfg & 1;
	m->ol_flags |= ip_flags[(cfg >> 1) & 3] | l4_flags[(cfg >> 3) & 3];

	memset(&p, 0xee, sizeof(p));
	cls = tfo_pkt_parse(m, port.rx_cksum_offload, &p);
	check_bounds(m, &p, cls, false);
	parsed = cls;
	cls = tfo_pkt_match_local(&port, m, &p);
	FZ_ASSERT(cls == parsed || cls == TFO_PKT_DROP, "matching turned class %u into %u",
		  parsed, cls);
	check_bounds(m, &p, cls, true);
	if (cls == TFO_PKT_TCP) {
		struct tfo_tcpopts o;
		int rc = tfo_tcpopt_parse(tfo_pkt_tcp_hdr(m, &p) + 20, p.l4_len - 20u, &o);

		FZ_ASSERT((rc < 0) == (o.malformed != 0), "rc vs malformed");
		check_reply(m, &p, &o, cfg & 0x40);
	}
	rte_pktmbuf_free(m);
	FZ_ASSERT(rte_mempool_avail_count(pool) == avail, "mbufs leaked: %u -> %u",
		  avail, rte_mempool_avail_count(pool));
	FZ_ASSERT(fz_ext_live == 0, "external buffer leaked");
	return 0;
}
