/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the engine's output: frames built from the send queue
 * (segments, SYN-ACKs, RSTs), the window loop and retransmission.
 */
#include "net/pkt_build.h"
#include "tcp/engine_priv.h"

/* ---- building frames -------------------------------------------------- */

/*
 * An mbuf with room for @p copy payload bytes behind the headers. Inlined
 * into this file's senders, which take one for every frame they build.
 */
static inline struct rte_mbuf *
out_mbuf(struct tfo_engine *e, uint32_t copy)
{
	struct rte_mbuf *m = e->spare;

	if (m != NULL) {
		e->spare = NULL;
		rte_pktmbuf_reset(m);
		if (likely(rte_pktmbuf_tailroom(m) >= copy))
			return m;
		rte_pktmbuf_free(m);
	}
	m = rte_pktmbuf_alloc(e->pool);
	if (unlikely(m == NULL))
		tfo_tcp_stat_inc(e, TFO_STAT_mbuf_alloc_fail);
	return m;
}

struct rte_mbuf *
tfo_tcp_out_mbuf(struct tfo_engine *e, uint32_t copy)
{
	return out_mbuf(e, copy);
}

/*
 * Append send-queue bytes [doff, doff + len) (offsets from data_start) to
 * @p m: the buffer part by copy, the body by copy when small, else as one
 * external-buffer mbuf chained behind. @return 0 or -ENOMEM.
 */
static int
fill_payload_slow(struct tfo_engine *e, const struct tfo_conn *c,
		  struct rte_mbuf *m, uint32_t doff, uint32_t len)
{
	const struct tfo_sndq *q = tfo_tcp_sndq(e, c);
	uint32_t inbuf = q->buf_len - q->buf_off;

	if (doff < inbuf) {
		uint32_t n = RTE_MIN(len, inbuf - doff);
		char *d = rte_pktmbuf_append(m, (uint16_t)n);

		if (d == NULL)
			return -ENOMEM;
		memcpy(d, buf_ptr(e, c->sbuf) + TFO_BUF_HDR + q->buf_off + doff, n);
		doff += n;
		len -= n;
	}
	if (len > 0) {
		const struct tfo_blob *b = q->body;
		uint32_t boff = q->body_off + (doff - inbuf);
		struct rte_mbuf *x;

		/* a device that cannot send chains gets the body copied */
		bool chain = e->p.ports[c->port_idx].tx_multiseg;

		if (len < TFO_EXT_MIN || !chain) {
			char *d = rte_pktmbuf_append(m, (uint16_t)len);

			if (d != NULL) {
				memcpy(d, b->data + boff, len);
				return 0;
			}
			if (!chain)
				return -ENOMEM;
		}
		/*
		 * Keep the head even: a device that sums each segment on its
		 * own (net_tap's emulated TX checksum offload in DPDK 22.11
		 * restarts the 16-bit pairing at every segment) gets a wrong
		 * TCP checksum behind an odd-length head. One body byte more
		 * in the copy makes every device right at no cost.
		 */
		if (m->data_len & 1) {
			char *d = rte_pktmbuf_append(m, 1);

			if (d == NULL)
				return -ENOMEM;
			*d = (char)b->data[boff];
			boff++;
			len--;
		}
		x = rte_pktmbuf_alloc(e->pool);
		if (x == NULL) {
			tfo_tcp_stat_inc(e, TFO_STAT_mbuf_alloc_fail);
			return -ENOMEM;
		}
		rte_mbuf_ext_refcnt_update(&e->shinfo, 1);
		rte_pktmbuf_attach_extbuf(x, (void *)(uintptr_t)(b->data + boff),
					  b->iova == RTE_BAD_IOVA ? RTE_BAD_IOVA :
					  b->iova + boff, (uint16_t)len, &e->shinfo);
		x->data_len = (uint16_t)len;
		x->pkt_len = len;
		if (rte_pktmbuf_chain(m, x) != 0) {
			rte_pktmbuf_free(x);
			return -ENOMEM;
		}
		tfo_tcp_stat_inc(e, TFO_STAT_zero_copy_segs);
	}
	return 0;
}

/*
 * fill_payload_slow() inlined for the common case, bytes all in the
 * buffer part (every SYN-ACK response that fits the buffer): the copy
 * without the call and its register saves. @p m is fresh from
 * out_mbuf() (one segment, empty): the bytes go at its data start
 * without rte_pktmbuf_append's walk to the last segment.
 */
static inline int
fill_payload(struct tfo_engine *e, const struct tfo_conn *c,
	     struct rte_mbuf *m, uint32_t doff, uint32_t len)
{
	const struct tfo_sndq *q = tfo_tcp_sndq(e, c);
	uint32_t inbuf = q->buf_len - q->buf_off;

	RTE_ASSERT(m->next == NULL && m->data_len == 0);
	if (likely(doff < inbuf && len <= inbuf - doff)) {
		/* what rte_pktmbuf_append refuses (a small mbuf, jumbo MSS) */
		if (unlikely(len > (uint32_t)(m->buf_len - m->data_off)))
			return -ENOMEM;
		memcpy(rte_pktmbuf_mtod(m, char *),
		       buf_ptr(e, c->sbuf) + TFO_BUF_HDR + q->buf_off + doff, len);
		m->data_len = (uint16_t)len;
		m->pkt_len = len;
		return 0;
	}
	return fill_payload_slow(e, c, m, doff, len);
}

/* The window field of a non-SYN segment; remembers what it advertised. */
static inline uint16_t
wnd_field(const struct tfo_engine *e, struct tfo_conn *c)
{
	uint32_t w = rcv_space(e, c);

	if (c->flags & TFO_CF_PEER_WS)
		w >>= e->our_ws;
	w = RTE_MIN(w, 65535u);
	c->adv_wnd = (uint16_t)w;
	return (uint16_t)w;
}

/* A frame built: to the TX buffer, behind the fresh ones when re-sent. */
static __rte_always_inline void
queue_frame(struct tfo_engine *e, struct rte_mbuf *m, uint8_t port_idx)
{
	if (unlikely(e->tx_low))
		tfo_tx_push_low(e->tx, port_idx, m);
	else
		tfo_tx_push(e->tx, port_idx, m);
	e->nxmit++;
}

/*
 * Inlined into the senders of this file, the frame builder too: as calls
 * they cost a frame setup and register saves on every segment, SYN-ACK
 * and RST, and the route and segment structs went through memory.
 */
static __rte_always_inline int
push_frame(struct tfo_engine *e, struct rte_mbuf *m, uint8_t port_idx,
	   const struct tfo_route *r, const struct tfo_tcp_out *t)
{
	if (unlikely(tfo_pkt_build_tcp(m, &e->p.ports[port_idx], r, t) != 0)) {
		rte_pktmbuf_free(m);
		tfo_tcp_stat_inc(e, TFO_STAT_mbuf_alloc_fail);
		return -ENOSPC;
	}
	queue_frame(e, m, port_idx);
	return 0;
}

/*
 * push_frame() for a frame of @p c: the destination read from the entry
 * (MAC, VLAN, addresses), not copied into a route first.
 */
static __rte_always_inline int
push_conn_frame(struct tfo_engine *e, struct rte_mbuf *m, const struct tfo_conn *c,
		const struct tfo_tcp_out *t)
{
	const struct tfo_build_to to = {
		.peer_mac = &c->peer_mac,	/* vlan_tci behind it */
		.local = &e->laddr[c->key.local_idx],
		.peer = &c->key.peer,
		.vlan_tci = c->vlan_tci,
		.has_vlan = (c->flags & TFO_CF_VLAN) != 0,
		.family = c->key.family,
	};

	RTE_BUILD_BUG_ON(offsetof(struct tfo_conn, peer_mac) + 8 > sizeof(struct tfo_conn));
	if (unlikely(tfo_build_tcp_frame(m, &e->p.ports[c->port_idx], to, t) != 0)) {
		rte_pktmbuf_free(m);
		tfo_tcp_stat_inc(e, TFO_STAT_mbuf_alloc_fail);
		return -ENOSPC;
	}
	queue_frame(e, m, c->port_idx);
	return 0;
}

int
tfo_tcp_push_frame(struct tfo_engine *e, struct rte_mbuf *m, uint8_t port_idx,
		   const struct tfo_route *r, const struct tfo_tcp_out *t)
{
	return push_frame(e, m, port_idx, r, t);
}

/* A non-SYN segment of @p c: @p len send-queue bytes from @p doff. */
int
tfo_tcp_xmit(struct tfo_engine *e, struct tfo_conn *c, uint32_t seq, uint8_t flags,
	     uint32_t doff, uint32_t len)
{
	uint8_t opts[TFO_TCPOPT_MAX_LEN];
	struct tfo_tcp_out t;
	struct rte_mbuf *m;

	m = out_mbuf(e, len);
	if (m == NULL)
		return -ENOMEM;
	if (len > 0 && fill_payload(e, c, m, doff, len) != 0) {
		rte_pktmbuf_free(m);
		return -ENOMEM;
	}
	/* designated: a field added later is zero, never stack garbage */
	t = (struct tfo_tcp_out){
		.sport = c->key.local_port,
		.dport = c->key.peer_port,
		.seq = seq,
		.ack = (flags & TFO_TCP_ACK) ? c->rcv_nxt : 0,
		.window = wnd_field(e, c),
		.flags = flags,
		.opt_len = 0,
		.opts = opts,
	};
	if (c->flags & TFO_CF_PEER_TS)
		t.opt_len = (uint8_t)tfo_tcpopt_write_ts(opts, tsval(e, c),
							 c->ts_recent);
	return push_conn_frame(e, m, c, &t);
}

/* NOP, NOP, timestamp of 10 bytes (Linux's layout) as the frame holds it */
#define TS_LEAD_WIRE RTE_BE32(0x0101080au)

/*
 * The ACK send_ack() builds, written over the segment it answers: its
 * mbuf already has the frame's layout (the same Ethernet, VLAN and IP
 * header lengths, the same NOP, NOP, TS), so the headers are patched in
 * place: MACs and VLAN tag from the entry as in a built frame, the
 * addresses and ports swapped, IP fields, seq, ack, flags, window and
 * the timestamp words rewritten, and the checksums (or their offload
 * flags) set. No allocation, no mbuf reset beyond the fields a reset
 * clears, no route or segment struct. tests/test_engine_inplace.c holds
 * it to the same bytes and mbuf fields as tfo_tcp_xmit's frame.
 */
/* The destination of the IP header at @p ip is @p local: fixed-size
 * compares (memcmp of a variable size is a call). */
static inline bool
same_local(const uint8_t *ip, const struct tfo_addr *local, bool v4)
{
	uint64_t a[2], b[2];
	uint32_t x, y;

	if (v4) {
		memcpy(&x, ip + 16, 4);
		memcpy(&y, local->b, 4);
		return x == y;
	}
	memcpy(a, ip + 24, 16);
	memcpy(b, local->b, 16);
	return ((a[0] ^ b[0]) | (a[1] ^ b[1])) == 0;
}

bool
tfo_tcp_ack_in_place(struct tfo_engine *e, struct tfo_conn *c, struct rte_mbuf *m,
		     const struct tfo_pkt *p)
{
	const struct tfo_port_info *port = &e->p.ports[c->port_idx];
	const struct tfo_addr *local = &e->laddr[c->key.local_idx];
	bool v4 = c->key.family == AF_INET, vlan = (c->flags & TFO_CF_VLAN) != 0;
	uint16_t l2 = RTE_ETHER_HDR_LEN + (vlan ? 4 : 0);
	uint16_t l3 = v4 ? 20 : 40;
	uint16_t l4 = TFO_TCP_HDR_LEN + TFO_TS_OPT_LEN;
	uint16_t len = (uint16_t)(l2 + l3 + l4), off;
	uint64_t ol, sum, w, tw[2];
	uint32_t lead, ports, ts[2];
	uint8_t *f, *ip, *th;

	if (!(c->flags & TFO_CF_PEER_TS) || p->l2_len != l2 || p->l3_len != l3 ||
	    p->l4_len != l4 || !RTE_MBUF_DIRECT(m) || m->nb_segs != 1 ||
	    rte_mbuf_refcnt_read(m) != 1 || m->data_len < len)
		return false;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	ip = f + l2;
	th = ip + l3;
	memcpy(&lead, th + TFO_TCP_HDR_LEN, 4);
	/* the destination is our address of the entry (as a route has it) */
	if (lead != TS_LEAD_WIRE || !same_local(ip, local, v4))
		return false;

	/* what rte_pktmbuf_reset() clears, the frame kept where it is */
	off = m->data_off;
	rte_pktmbuf_reset(m);
	m->data_off = off;
	m->data_len = len;
	m->pkt_len = len;
	m->tx_offload = rte_mbuf_tx_offload(l2, l3, l4, 0, 0, 0, 0);

	/* read before the Ethernet and IP stores below overwrite them */
	memcpy(&ports, th, 4);
	tfo_build_eth_to(f, port, &c->peer_mac, vlan, c->vlan_tci, c->key.family);
	sum = rte_cpu_to_be_16(l4) + (uint64_t)rte_cpu_to_be_16((uint16_t)IPPROTO_TCP);
	if (v4) {
		uint32_t a[2];
		uint16_t hc = 0;

		memcpy(&a[1], ip + 12, 4);	/* the peer, its source */
		memcpy(&a[0], ip + 16, 4);	/* ours */
		w = 0x45u | (uint64_t)rte_cpu_to_be_16((uint16_t)(20 + l4)) << 16 |
		    (uint64_t)rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG) << 48;
		ol = RTE_MBUF_F_TX_IPV4;
		if (port->tx_ip_cksum_offload)
			ol |= RTE_MBUF_F_TX_IP_CKSUM;
		else
			hc = (uint16_t)~tfo_cksum_fold(tfo_build_sum64(w) +
						      (64u | (uint32_t)IPPROTO_TCP << 8) +
						      a[0] + a[1]);
		memcpy(ip, &w, 8);
		w = 64u | (uint64_t)IPPROTO_TCP << 8 | (uint64_t)hc << 16 |
		    (uint64_t)a[0] << 32;
		memcpy(ip + 8, &w, 8);
		memcpy(ip + 16, &a[1], 4);
		sum += (uint64_t)a[0] + a[1];
	} else {
		uint64_t a[4];

		memcpy(a, ip + 24, 16);		/* ours */
		memcpy(a + 2, ip + 8, 16);	/* the peer */
		w = 0x60u | (uint64_t)rte_cpu_to_be_16(l4) << 32 |
		    (uint64_t)IPPROTO_TCP << 48 | (uint64_t)64 << 56;
		memcpy(ip, &w, 8);
		memcpy(ip + 8, a, 32);
		ol = RTE_MBUF_F_TX_IPV6;
		sum += tfo_build_sum64(a[0]) + tfo_build_sum64(a[1]) +
		       tfo_build_sum64(a[2]) + tfo_build_sum64(a[3]);
	}

	/* the segment's ports swapped: ours first */
	tw[0] = (ports >> 16 | ports << 16) |
		(uint64_t)rte_cpu_to_be_32(c->snd_max) << 32;
	tw[1] = rte_cpu_to_be_32(c->rcv_nxt) | (uint64_t)((l4 / 4) << 4) << 32 |
		(uint64_t)TFO_TCP_ACK << 40 |
		(uint64_t)rte_cpu_to_be_16(wnd_field(e, c)) << 48;
	ts[0] = rte_cpu_to_be_32(tsval(e, c));
	ts[1] = rte_cpu_to_be_32(c->ts_recent);
	memcpy(th, tw, 16);
	memcpy(th + TFO_TCP_HDR_LEN + 4, ts, 8);
	if (port->tx_tcp_cksum_offload) {
		/* the NIC adds the segment to the pseudo-header sum */
		ol |= RTE_MBUF_F_TX_TCP_CKSUM;
		w = tfo_cksum_fold(sum);
	} else {
		sum += tfo_build_sum64(tw[0]) + tfo_build_sum64(tw[1]) +
		       (uint64_t)lead + ts[0] + ts[1];
		w = (uint16_t)~tfo_cksum_fold(sum);
	}
	/* checksum, urgent pointer 0 */
	memcpy(th + 16, &w, 4);
	m->ol_flags = ol;
	queue_frame(e, m, c->port_idx);
	return true;
}

/* The SYN-ACK of @p c, with up to one segment of the response when
 * @p data_ok; sets snd_nxt behind what it carried. */
int
tfo_tcp_send_synack(struct tfo_engine *e, struct tfo_conn *c, bool data_ok,
		    uint8_t form, uint8_t cookie_len, const uint8_t *cookie)
{
	const uint16_t all = TFO_CF_PEER_TS | TFO_CF_PEER_SACK | TFO_CF_PEER_WS;
	uint16_t mss = c->key.family == AF_INET ? e->mss4[c->port_idx] :
		       e->mss6[c->port_idx];
	uint8_t opts[TFO_TCPOPT_MAX_LEN];
	uint32_t olen, total = 0, dlen = 0;
	struct tfo_tcp_out t;
	struct rte_mbuf *m;
	bool fin = false;

	if (likely((c->flags & all) == all && cookie_len == 0)) {
		/* the common set, without the option struct and the call */
		olen = tfo_tcpopt_write_synack_common(opts, mss, e->our_ws, tsval(e, c),
						      c->ts_recent);
	} else {
		/* designated: a field added later is zero, never stack garbage */
		const struct tfo_synack_opts so = {
			.mss = mss,
			.wscale = e->our_ws,
			.peer_wscale = (c->flags & TFO_CF_PEER_WS) != 0,
			.sack_ok = (c->flags & TFO_CF_PEER_SACK) != 0,
			.ts = (c->flags & TFO_CF_PEER_TS) != 0,
			.tsval = tsval(e, c),
			.tsecr = c->ts_recent,
			.form = cookie_len ? form : TFO_FORM_NONE,
			.cookie_len = cookie_len,
			.cookie = cookie,
		};

		olen = tfo_tcpopt_write_synack(opts, &so);
	}

	if (data_ok) {
		total = unacked_len(e, c);
		/* the SYN's window binds too: zero gets a bare SYN-ACK */
		dlen = RTE_MIN(RTE_MIN(total, (uint32_t)c->mss - olen), c->snd_wnd);
		/* FIN only with data: a bare SYN-ACK-FIN is asking for trouble */
		fin = dlen > 0 && dlen == total && (c->flags & TFO_CF_FIN_QUEUED);
	}
	m = out_mbuf(e, dlen);
	if (m == NULL)
		return -ENOMEM;
	if (dlen > 0 && fill_payload(e, c, m, 0, dlen) != 0) {
		rte_pktmbuf_free(m);
		return -ENOMEM;
	}
	t = (struct tfo_tcp_out){
		.sport = c->key.local_port,
		.dport = c->key.peer_port,
		.seq = c->snd_una,
		.ack = c->rcv_nxt,
		/* never scaled in a SYN-ACK */
		.window = (uint16_t)RTE_MIN(rcv_space(e, c), 65535u),
		.flags = TFO_TCP_SYN | TFO_TCP_ACK |
			 (dlen > 0 && dlen == total ? TFO_TCP_PSH : 0) |
			 (fin ? TFO_TCP_FIN : 0),
		.opt_len = (uint8_t)olen,
		.opts = opts,
	};
	c->adv_wnd = (uint16_t)(t.window >> ((c->flags & TFO_CF_PEER_WS) ?
					    e->our_ws : 0));
	if (push_conn_frame(e, m, c, &t) != 0)
		return -ENOSPC;
	if (dlen > 0)
		c->flags |= TFO_CF_SYNACK_DATA;
	c->snd_nxt = c->snd_una + 1 + dlen + fin;
	if (tfo_seq_gt(c->snd_nxt, c->snd_max))
		c->snd_max = c->snd_nxt;
	return 0;
}

/* RST for a segment that matched nothing (RFC 9293 3.10.7.1), in place. */
void
tfo_tcp_send_rst_nomatch(struct tfo_engine *e, struct rte_mbuf *m,
			 const struct tfo_pkt *p, uint8_t port_idx)
{
	struct tfo_tcp_out t;
	struct tfo_route r;

	tfo_route_from_pkt(&r, m, p, port_idx);
	memset(&t, 0, sizeof(t));
	t.sport = p->dport;
	t.dport = p->sport;
	if (p->tcp_flags & TFO_TCP_ACK) {
		t.seq = p->ack;
		t.flags = TFO_TCP_RST;
	} else {
		t.ack = p->seq + p->payload_len +
			!!(p->tcp_flags & TFO_TCP_SYN) + !!(p->tcp_flags & TFO_TCP_FIN);
		t.flags = TFO_TCP_RST | TFO_TCP_ACK;
	}
	release_input(e, m);
	m = out_mbuf(e, 0);
	if (m == NULL)
		return;
	if (push_frame(e, m, port_idx, &r, &t) == 0) {
		tfo_tcp_stat_inc(e, TFO_STAT_rst_tx);
		tfo_tcp_stat_inc(e, TFO_STAT_rst_tx_nomatch);
	}
}


/* ---- the send loop ---------------------------------------------------- */

/*
 * Send what the windows allow from snd_nxt: new data, data to resend after
 * a rewind, and the FIN. Every segment acks rcv_nxt. Sender-side silly
 * window avoidance: a window-limited runt waits while anything is in flight.
 * Called through tfo_tcp_output(), which skips the call when nothing is due.
 */
void
tfo_tcp_output_loop(struct tfo_engine *e, struct tfo_conn *c)
{
	uint32_t start = data_start(c), total = unacked_len(e, c);
	uint32_t smax = seg_max(c);
	/* in SACK recovery cwnd bounds pipe: SACKed and lost bytes are out */
	uint32_t credit = unlikely(c->flags & TFO_CF_RECOVERY) ?
			  tfo_tcp_sack_credit(e, c) : 0;
	uint32_t wnd = RTE_MIN(c->cwnd + credit, c->snd_wnd);
	bool fin_q = fin_pending(c);

	for (;;) {
		uint32_t off = c->snd_nxt - start;
		uint32_t inflight = c->snd_nxt - c->snd_una;
		uint32_t room = wnd > inflight ? wnd - inflight : 0;
		uint32_t len;
		bool fin;

		if (off < total) {
			len = RTE_MIN(total - off, smax);
			if (len > room) {
				if (room == 0 || (room < smax && inflight > 0))
					break;
				len = room;
			}
			fin = fin_q && off + len == total;
			if (tfo_tcp_xmit(e, c, c->snd_nxt,
					 TFO_TCP_ACK | (off + len == total ? TFO_TCP_PSH : 0) |
					 (fin ? TFO_TCP_FIN : 0), off, len) != 0)
				break;
			if (tfo_seq_lt(c->snd_nxt, c->snd_max)) {
				tfo_tcp_stat_inc(e, TFO_STAT_retransmit_segs);
			} else if (!(c->flags & (TFO_CF_PEER_TS | TFO_CF_RTT_TIMING))) {
				/* time one segment per RTT (no timestamps) */
				c->flags |= TFO_CF_RTT_TIMING;
				c->rtt_seq = c->snd_nxt;
				c->rtt_start = now_ms(e);
			}
			c->snd_nxt += len + fin;
		} else if (fin_q && off == total) {
			if (tfo_tcp_xmit(e, c, c->snd_nxt, TFO_TCP_ACK | TFO_TCP_FIN, 0, 0) != 0)
				break;
			if (tfo_seq_lt(c->snd_nxt, c->snd_max))
				tfo_tcp_stat_inc(e, TFO_STAT_retransmit_segs);
			c->snd_nxt++;
		} else {
			break;
		}
		if (tfo_seq_gt(c->snd_nxt, c->snd_max))
			c->snd_max = c->snd_nxt;
	}
}

/* Resend the first unacknowledged segment (fast retransmit, RTO), whatever
 * the windows say; @return the sequence space it covered. */
uint32_t
tfo_tcp_retransmit_first(struct tfo_engine *e, struct tfo_conn *c)
{
	uint32_t start = data_start(c), total = unacked_len(e, c);
	uint32_t len = RTE_MIN(total, seg_max(c));
	bool fin = fin_pending(c) && len == total &&
		   tfo_seq_gt(c->snd_max, start + total);

	if (len == 0 && !fin)
		return 0;
	if (tfo_tcp_xmit(e, c, start, TFO_TCP_ACK | (len == total && len ? TFO_TCP_PSH : 0) |
			 (fin ? TFO_TCP_FIN : 0), 0, len) != 0)
		return 0;
	tfo_tcp_stat_inc(e, TFO_STAT_retransmit_segs);
	c->flags &= (uint16_t)~TFO_CF_RTT_TIMING;	/* Karn */
	return len + fin;
}
