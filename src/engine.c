/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the TCP engine (see engine.h for the contract and the
 * behaviour chosen).
 *
 * Model of one connection's send side: the bytes not yet acknowledged are
 * the send queue, which lives in one engine buffer (struct tfo_sndq + the
 * bytes the service wrote) plus an optional slice of an immutable blob.
 * The first unacknowledged data byte is at data_start() (snd_una, or
 * snd_una + 1 while our SYN is unacknowledged); an ACK trims the queue from
 * the front, so stream offsets are always relative to data_start(). Our FIN,
 * when queued, sits right after the last byte. snd_nxt is the next byte to
 * (re)send, snd_max the highest sent: an RTO rewinds snd_nxt (go-back-N),
 * and segments are rebuilt from the queue (no mbuf is kept for
 * retransmission).
 *
 * Receive side: in-order bytes only (out-of-order is dropped with a
 * duplicate ACK), handed to the service straight from the mbuf when nothing
 * is held, otherwise appended to a request buffer; the window we advertise
 * is that buffer's free space.
 *
 * One timer per connection (tfo_conn.tkind says what for): RTO while
 * anything is in flight, persist while the peer's window is zero, idle
 * while quiet, TIME-WAIT at the end.
 */
#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "tfo/conn.h"
#include "tfo/cookie.h"
#include "tfo/engine.h"
#include "tfo/log.h"
#include "tfo/timer.h"

#define TFO_TS_OPT_LEN 12
#define TFO_MIN_MSS 88			/* Linux's TCP_MIN_MSS */
#define TFO_DEFAULT_MSS_V4 536		/* RFC 9293 3.7.1 */
#define TFO_DEFAULT_MSS_V6 1220		/* RFC 8200 MTU - 60 */
#define TFO_BUF_HDR 64			/* struct tfo_sndq, one cache line */
#define TFO_EXT_MIN 256			/* smaller body slices are copied */
#define TFO_CHALLENGE_PER_S 1000	/* RFC 5961 section 7 */
#define TFO_TICK_SHIFT 10		/* timer tick 1.024 ms */
#define TFO_WHEEL_SLOTS 16384		/* 16.8 s per rotation */
#define TFO_CWND_MAX (1u << 30)
#define TFO_RTT_MAX_MS 8000		/* srtt8 fits 16 bits */

/* Head of a send buffer: what of the response is still unacknowledged. */
struct tfo_sndq {
	const struct tfo_blob *body;
	uint32_t body_off;	/* first unacked body byte */
	uint32_t body_len;	/* unacked body bytes */
	uint32_t buf_off;	/* first unacked byte of the buffer part */
	uint32_t buf_len;	/* end of the buffer part */
};

struct tfo_engine {
	struct tfo_engine_params p;
	struct tfo_conn_table *ct;
	struct tfo_timer_wheel *tw;
	struct tfo_stats *st;
	struct tfo_tx *tx;
	struct rte_mempool *pool;
	uint64_t now_us;
	bool clock_started;		/* the wheel runs on the caller's clock */
	struct rte_mbuf *spare;		/* consumed input mbuf, reusable */
	unsigned int nxmit;		/* segments built so far (any kind) */

	/* request/response buffers */
	uint8_t *bufs;
	uint32_t *buf_free;
	uint32_t nb_bufs;
	uint32_t nb_buf_free;
	uint32_t buf_size;		/* TFO_BUF_HDR + payload capacity */
	uint32_t resp_cap;
	uint32_t max_request;
	uint32_t rcv_wnd_max;		/* min(rcv_wnd, max_request) */
	uint8_t our_ws;

	/* pending TFO and its hold after resets (FIFO of expiry times) */
	uint32_t pending_live;
	uint32_t hold_cap, hold_head, hold_n;
	uint64_t *hold;

	/* challenge ACK rate limit */
	uint64_t chal_sec;
	uint32_t chal_n;

	uint64_t isn_key[2];
	struct tfo_syncookie_secret sc_secret;
	struct rte_mbuf_ext_shared_info shinfo;

	uint32_t nstate[TFO_CONN_NB_STATES];
	uint16_t mss4[TFO_MAX_PORTS];
	uint16_t mss6[TFO_MAX_PORTS];
	struct tfo_addr laddr[256];	/* by global local_idx */
};

/* ---- small helpers ----------------------------------------------------- */

static inline bool seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static inline bool seq_le(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }
static inline bool seq_gt(uint32_t a, uint32_t b) { return (int32_t)(a - b) > 0; }
static inline bool seq_ge(uint32_t a, uint32_t b) { return (int32_t)(a - b) >= 0; }

static inline uint32_t
rd32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

static inline void
cnt(struct tfo_engine *e, enum tfo_stat_id id)
{
	tfo_stats_inc(e->st, id);
}

/*
 * The caller's clock, at every entry. The wheel was created at time 0; its
 * 32-bit ticks (1.024 ms) compare modulo 2^32, so a first run 2^31 ticks
 * (25 days of TSC uptime) or more later looked like the past and no timer
 * ever fired: the wheel starts at the first time the engine is given.
 */
static inline void
engine_clock(struct tfo_engine *e, uint64_t now_us)
{
	e->now_us = now_us;
	if (unlikely(!e->clock_started)) {
		tfo_timer_wheel_start(e->tw, now_us);
		e->clock_started = true;
	}
}

static inline uint32_t
now_ms(const struct tfo_engine *e)
{
	return (uint32_t)(e->now_us / 1000);
}

static inline uint32_t
tsval(const struct tfo_engine *e, const struct tfo_conn *c)
{
	return now_ms(e) + c->ts_off;
}

/* SipHash-2-4 over the 24-byte key: the RFC 6528 ISN function F (low 32
 * bits) and the RFC 7323 TSval offset (high 32 bits). */
static inline uint64_t
rotl64(uint64_t v, unsigned int n)
{
	return (v << n) | (v >> (64 - n));
}

#define SIPROUND do { \
	v0 += v1; v1 = rotl64(v1, 13); v1 ^= v0; v0 = rotl64(v0, 32); \
	v2 += v3; v3 = rotl64(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = rotl64(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = rotl64(v1, 17); v1 ^= v2; v2 = rotl64(v2, 32); \
} while (0)

static uint64_t
conn_secret_hash(const struct tfo_engine *e, const struct tfo_conn_key *k)
{
	uint64_t v0 = e->isn_key[0] ^ 0x736f6d6570736575ull;
	uint64_t v1 = e->isn_key[1] ^ 0x646f72616e646f6dull;
	uint64_t v2 = e->isn_key[0] ^ 0x6c7967656e657261ull;
	uint64_t v3 = e->isn_key[1] ^ 0x7465646279746573ull;
	uint64_t w[3];

	memcpy(w, k, sizeof(w));
	for (unsigned int i = 0; i < 3; i++) {
		v3 ^= w[i];
		SIPROUND;
		SIPROUND;
		v0 ^= w[i];
	}
	v3 ^= (uint64_t)sizeof(w) << 56;
	SIPROUND;
	SIPROUND;
	v0 ^= (uint64_t)sizeof(w) << 56;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

static inline void
set_state(struct tfo_engine *e, struct tfo_conn *c, enum tfo_conn_state s)
{
	e->nstate[c->state]--;
	e->nstate[s]++;
	c->state = (uint8_t)s;
}

static inline uint32_t
conn_idx(const struct tfo_engine *e, const struct tfo_conn *c)
{
	return tfo_conn_index(e->ct, c);
}

/* Data bytes per segment: MSS minus the options every segment carries. */
static inline uint32_t
seg_max(const struct tfo_conn *c)
{
	return c->mss - ((c->flags & TFO_CF_PEER_TS) ? TFO_TS_OPT_LEN : 0);
}

static inline uint32_t
iw_bytes(uint32_t smss)
{
	/* RFC 6928 */
	return RTE_MIN(10 * smss, RTE_MAX(2 * smss, 14600u));
}

static inline uint8_t *
buf_ptr(const struct tfo_engine *e, uint32_t idx)
{
	return e->bufs + (size_t)idx * e->buf_size;
}

static inline struct tfo_sndq *
sndq(const struct tfo_engine *e, const struct tfo_conn *c)
{
	return (struct tfo_sndq *)(void *)buf_ptr(e, c->sbuf);
}

static inline uint8_t *
req_data(const struct tfo_engine *e, const struct tfo_conn *c)
{
	return buf_ptr(e, c->rbuf) + TFO_BUF_HDR;
}

static inline uint32_t
buf_get(struct tfo_engine *e)
{
	if (unlikely(e->nb_buf_free == 0))
		return TFO_CONN_NONE;
	return e->buf_free[--e->nb_buf_free];
}

static inline void
buf_put(struct tfo_engine *e, uint32_t *idx)
{
	if (*idx != TFO_CONN_NONE) {
		e->buf_free[e->nb_buf_free++] = *idx;
		*idx = TFO_CONN_NONE;
	}
}

/* Unacknowledged data bytes in the send queue. */
static inline uint32_t
unacked_len(const struct tfo_engine *e, const struct tfo_conn *c)
{
	const struct tfo_sndq *q;

	if (c->sbuf == TFO_CONN_NONE)
		return 0;
	q = sndq(e, c);
	return q->buf_len - q->buf_off + q->body_len;
}

/* Our FIN is queued and not yet acknowledged. */
static inline bool
fin_pending(const struct tfo_conn *c)
{
	return (c->flags & (TFO_CF_FIN_QUEUED | TFO_CF_FIN_ACKED)) ==
	       TFO_CF_FIN_QUEUED;
}

static inline uint32_t
data_start(const struct tfo_conn *c)
{
	return c->snd_una + (c->state == TFO_CONN_SYN_RCVD);
}

static inline uint32_t
rcv_space(const struct tfo_engine *e, const struct tfo_conn *c)
{
	return e->rcv_wnd_max > c->req_len ? e->rcv_wnd_max - c->req_len : 0;
}

static inline uint32_t
max_snd_wnd(const struct tfo_conn *c)
{
	return (c->flags & TFO_CF_PEER_WS) ? (uint32_t)65535 << c->peer_ws : 65535;
}

static const struct tfo_service_inst *
find_service(const struct tfo_engine *e, uint16_t port, unsigned int *idx)
{
	for (unsigned int i = 0; i < e->p.nb_services; i++)
		if (e->p.services[i].port == port) {
			*idx = i;
			return &e->p.services[i];
		}
	return NULL;
}

static void
pending_gauge(struct tfo_engine *e)
{
	e->st->c[TFO_STAT_tfo_pending] = e->pending_live + e->hold_n;
}

static void
hold_expire(struct tfo_engine *e)
{
	bool changed = false;

	while (e->hold_n > 0 && e->hold[e->hold_head] <= e->now_us) {
		e->hold_head = (e->hold_head + 1) % e->hold_cap;
		e->hold_n--;
		changed = true;
	}
	if (changed)
		pending_gauge(e);
}

/* ---- mbufs ------------------------------------------------------------- */

/* Done reading the input frame: keep it to build the first reply in. */
static inline void
release_input(struct tfo_engine *e, struct rte_mbuf *m)
{
	if (m == NULL)
		return;
	if (e->spare == NULL && RTE_MBUF_DIRECT(m) && m->nb_segs == 1 &&
	    rte_mbuf_refcnt_read(m) == 1)
		e->spare = m;
	else
		rte_pktmbuf_free(m);
}

static inline void
finish(struct tfo_engine *e)
{
	if (e->spare != NULL) {
		rte_pktmbuf_free(e->spare);
		e->spare = NULL;
	}
}

/* An mbuf with room for @p copy payload bytes behind the headers. */
static struct rte_mbuf *
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
		cnt(e, TFO_STAT_mbuf_alloc_fail);
	return m;
}

static void
ext_free_noop(void *addr, void *opaque)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(opaque);
}

/*
 * Append send-queue bytes [doff, doff + len) (offsets from data_start) to
 * @p m: the buffer part by copy, the body by copy when small, else as one
 * external-buffer mbuf chained behind. @return 0 or -ENOMEM.
 */
static int
fill_payload(struct tfo_engine *e, const struct tfo_conn *c,
	     struct rte_mbuf *m, uint32_t doff, uint32_t len)
{
	const struct tfo_sndq *q = sndq(e, c);
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
			cnt(e, TFO_STAT_mbuf_alloc_fail);
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
		cnt(e, TFO_STAT_zero_copy_segs);
	}
	return 0;
}

static void
conn_route(const struct tfo_engine *e, const struct tfo_conn *c,
	   struct tfo_route *r)
{
	r->peer_mac = c->peer_mac;
	r->vlan_tci = c->vlan_tci;
	r->has_vlan = (c->flags & TFO_CF_VLAN) != 0;
	r->family = c->key.family;
	r->local_idx = c->key.local_idx;
	r->port_idx = c->port_idx;
	r->local = e->laddr[c->key.local_idx];
	r->peer = c->key.peer;
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

static int
push_frame(struct tfo_engine *e, struct rte_mbuf *m, uint8_t port_idx,
	   const struct tfo_route *r, const struct tfo_tcp_out *t)
{
	if (unlikely(tfo_pkt_prepend_tcp(m, &e->p.ports[port_idx], r, t) != 0)) {
		rte_pktmbuf_free(m);
		cnt(e, TFO_STAT_mbuf_alloc_fail);
		return -ENOSPC;
	}
	tfo_tx_push(e->tx, port_idx, m);
	e->nxmit++;
	return 0;
}

/* A non-SYN segment of @p c: @p len send-queue bytes from @p doff. */
static int
xmit(struct tfo_engine *e, struct tfo_conn *c, uint32_t seq, uint8_t flags,
     uint32_t doff, uint32_t len)
{
	uint8_t opts[TFO_TCPOPT_MAX_LEN];
	struct tfo_tcp_out t;
	struct tfo_route r;
	struct rte_mbuf *m;

	m = out_mbuf(e, len);
	if (m == NULL)
		return -ENOMEM;
	if (len > 0 && fill_payload(e, c, m, doff, len) != 0) {
		rte_pktmbuf_free(m);
		return -ENOMEM;
	}
	t.sport = c->key.local_port;
	t.dport = c->key.peer_port;
	t.seq = seq;
	t.ack = (flags & TFO_TCP_ACK) ? c->rcv_nxt : 0;
	t.window = wnd_field(e, c);
	t.flags = flags;
	t.opt_len = 0;
	t.opts = opts;
	if (c->flags & TFO_CF_PEER_TS)
		t.opt_len = (uint8_t)tfo_tcpopt_write_ts(opts, tsval(e, c),
							 c->ts_recent);
	conn_route(e, c, &r);
	return push_frame(e, m, c->port_idx, &r, &t);
}

static inline void
send_ack(struct tfo_engine *e, struct tfo_conn *c)
{
	xmit(e, c, c->snd_max, TFO_TCP_ACK, 0, 0);
}

static void
challenge_ack(struct tfo_engine *e, struct tfo_conn *c)
{
	uint64_t sec = e->now_us / 1000000;

	if (sec != e->chal_sec) {
		e->chal_sec = sec;
		e->chal_n = 0;
	}
	if (e->chal_n >= TFO_CHALLENGE_PER_S) {
		cnt(e, TFO_STAT_challenge_acks_limited);
		return;
	}
	e->chal_n++;
	cnt(e, TFO_STAT_challenge_acks);
	send_ack(e, c);
}

/* The SYN-ACK of @p c, with up to one segment of the response when
 * @p data_ok; sets snd_nxt behind what it carried. */
static int
send_synack(struct tfo_engine *e, struct tfo_conn *c, bool data_ok,
	    uint8_t form, uint8_t cookie_len, const uint8_t *cookie)
{
	uint8_t opts[TFO_TCPOPT_MAX_LEN];
	struct tfo_synack_opts so;
	uint32_t olen, total = 0, dlen = 0;
	struct tfo_tcp_out t;
	struct tfo_route r;
	struct rte_mbuf *m;
	bool fin = false;

	memset(&so, 0, sizeof(so));
	so.mss = c->key.family == AF_INET ? e->mss4[c->port_idx] :
		 e->mss6[c->port_idx];
	so.wscale = e->our_ws;
	so.peer_wscale = (c->flags & TFO_CF_PEER_WS) != 0;
	so.ts = (c->flags & TFO_CF_PEER_TS) != 0;
	so.tsval = tsval(e, c);
	so.tsecr = c->ts_recent;
	so.form = cookie_len ? form : TFO_FORM_NONE;
	so.cookie_len = cookie_len;
	so.cookie = cookie;
	olen = tfo_tcpopt_write_synack(opts, &so);

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
	t.sport = c->key.local_port;
	t.dport = c->key.peer_port;
	t.seq = c->snd_una;
	t.ack = c->rcv_nxt;
	/* never scaled in a SYN-ACK */
	t.window = (uint16_t)RTE_MIN(rcv_space(e, c), 65535u);
	c->adv_wnd = (uint16_t)(t.window >> ((c->flags & TFO_CF_PEER_WS) ?
					    e->our_ws : 0));
	t.flags = TFO_TCP_SYN | TFO_TCP_ACK |
		  (dlen > 0 && dlen == total ? TFO_TCP_PSH : 0) |
		  (fin ? TFO_TCP_FIN : 0);
	t.opt_len = (uint8_t)olen;
	t.opts = opts;
	conn_route(e, c, &r);
	if (push_frame(e, m, c->port_idx, &r, &t) != 0)
		return -ENOSPC;
	if (dlen > 0)
		c->flags |= TFO_CF_SYNACK_DATA;
	c->snd_nxt = c->snd_una + 1 + dlen + fin;
	if (seq_gt(c->snd_nxt, c->snd_max))
		c->snd_max = c->snd_nxt;
	return 0;
}

/* RST for a segment that matched nothing (RFC 9293 3.10.7.1), in place. */
static void
send_rst_nomatch(struct tfo_engine *e, struct rte_mbuf *m,
		 const struct tfo_pkt *p, uint8_t port_idx)
{
	struct tfo_tcp_out t;
	struct tfo_route r;

	tfo_route_from_pkt(&r, m, p, port_idx, &e->p.ports[port_idx]);
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
		cnt(e, TFO_STAT_rst_tx);
		cnt(e, TFO_STAT_rst_tx_nomatch);
	}
}

/* ---- connection life --------------------------------------------------- */

static void
pending_done(struct tfo_engine *e, struct tfo_conn *c, bool hold)
{
	if (!(c->flags & TFO_CF_TFO_PENDING))
		return;
	c->flags &= (uint16_t)~TFO_CF_TFO_PENDING;
	e->pending_live--;
	if (hold && e->p.tfo_pending_hold_ms > 0 && e->hold_n < e->hold_cap) {
		e->hold[(e->hold_head + e->hold_n) % e->hold_cap] =
			e->now_us + (uint64_t)e->p.tfo_pending_hold_ms * 1000;
		e->hold_n++;
	}
	pending_gauge(e);
}

/* Forget @p c (no segment sent); @p why is counted unless negative. */
static void
conn_free(struct tfo_engine *e, struct tfo_conn *c, int why)
{
	tfo_timer_cancel(e->tw, conn_idx(e, c));
	c->tkind = TFO_CT_NONE;
	buf_put(e, &c->sbuf);
	buf_put(e, &c->rbuf);
	c->req_len = 0;
	pending_done(e, c, why == TFO_STAT_conns_closed_rst_rx);
	e->nstate[c->state]--;
	tfo_stats_dec(e->st, TFO_STAT_conns_active);
	tfo_conn_remove(e->ct, c);	/* state becomes CLOSED */
	if (why >= 0)
		cnt(e, (enum tfo_stat_id)why);
}

/* Abort: RST (RFC 9293 3.10.7: SEQ = what the peer expects next) + free. */
static void
conn_reset(struct tfo_engine *e, struct tfo_conn *c, enum tfo_stat_id why)
{
	if (xmit(e, c, c->snd_max, TFO_TCP_RST | TFO_TCP_ACK, 0, 0) == 0)
		cnt(e, TFO_STAT_rst_tx);
	cnt(e, why);
	conn_free(e, c, TFO_STAT_conns_closed_rst_tx);
}

/* Queue our FIN after the send queue (the service is not called again). */
static void
queue_fin(struct tfo_engine *e, struct tfo_conn *c)
{
	if (c->flags & TFO_CF_FIN_QUEUED)
		return;
	c->flags |= TFO_CF_FIN_QUEUED;
	buf_put(e, &c->rbuf);
	c->req_len = 0;
	if (c->state == TFO_CONN_ESTABLISHED)
		set_state(e, c, TFO_CONN_FIN_WAIT_1);
	else if (c->state == TFO_CONN_CLOSE_WAIT)
		set_state(e, c, TFO_CONN_LAST_ACK);
	/* SYN_RCVD: becomes FIN_WAIT_1 on the handshake ACK */
}

static void
enter_time_wait(struct tfo_engine *e, struct tfo_conn *c)
{
	set_state(e, c, TFO_CONN_TIME_WAIT);
	cnt(e, TFO_STAT_time_wait_entered);
	buf_put(e, &c->sbuf);
	buf_put(e, &c->rbuf);
	c->req_len = 0;
	c->tkind = TFO_CT_NONE;	/* update_timer() arms TIME-WAIT */
}

static uint32_t
rto_ms(const struct tfo_engine *e, const struct tfo_conn *c)
{
	uint64_t rto;

	if (c->flags & TFO_CF_RTT_VALID)
		rto = (c->srtt8 >> 3) + RTE_MAX((uint32_t)c->rttvar4, 1u);
	else
		rto = e->p.rto_init_ms;
	rto = RTE_MAX(rto, (uint64_t)e->p.rto_min_ms);
	rto <<= RTE_MIN(c->retries, 20);
	return (uint32_t)RTE_MIN(rto, (uint64_t)e->p.rto_max_ms);
}

static void
arm(struct tfo_engine *e, struct tfo_conn *c, enum tfo_conn_timer_kind k,
    uint64_t after_us)
{
	c->tkind = (uint8_t)k;
	tfo_timer_arm(e->tw, conn_idx(e, c), e->now_us + after_us);
}

/* Set the one timer from the connection's state. */
static void
update_timer(struct tfo_engine *e, struct tfo_conn *c)
{
	bool pending_send = c->snd_max != c->snd_una ||
			    unacked_len(e, c) > 0 || fin_pending(c);

	if (c->state == TFO_CONN_TIME_WAIT) {
		if (c->tkind != TFO_CT_TIME_WAIT)
			arm(e, c, TFO_CT_TIME_WAIT,
			    (uint64_t)e->p.time_wait_ms * 1000);
	} else if (pending_send) {
		if (c->snd_max == c->snd_una && c->snd_wnd == 0) {
			if (c->tkind != TFO_CT_PERSIST)
				arm(e, c, TFO_CT_PERSIST,
				    (uint64_t)rto_ms(e, c) * 1000);
		} else if (c->tkind != TFO_CT_RTO) {
			arm(e, c, TFO_CT_RTO, (uint64_t)rto_ms(e, c) * 1000);
		}
	} else if (c->state == TFO_CONN_ESTABLISHED ||
		   c->state == TFO_CONN_CLOSE_WAIT ||
		   c->state == TFO_CONN_FIN_WAIT_2) {
		arm(e, c, TFO_CT_IDLE, (uint64_t)e->p.idle_timeout_ms * 1000);
	} else if (c->tkind != TFO_CT_NONE) {
		tfo_timer_cancel(e->tw, conn_idx(e, c));
		c->tkind = TFO_CT_NONE;
	}
}

static void
rtt_sample(struct tfo_conn *c, uint32_t r)
{
	int32_t delta;

	r = RTE_MIN(r, (uint32_t)TFO_RTT_MAX_MS);
	if (!(c->flags & TFO_CF_RTT_VALID)) {
		c->srtt8 = (uint16_t)(r << 3);
		c->rttvar4 = (uint16_t)(r << 1);
		c->flags |= TFO_CF_RTT_VALID;
		return;
	}
	/* RFC 6298 2.3, Jacobson's fixed point: rttvar first, with the old srtt */
	delta = (int32_t)r - (int32_t)(c->srtt8 >> 3);
	c->srtt8 = (uint16_t)((int32_t)c->srtt8 + delta);
	if (delta < 0)
		delta = -delta;
	c->rttvar4 = (uint16_t)((int32_t)c->rttvar4 + delta - (c->rttvar4 >> 2));
}

/*
 * Send what the windows allow from snd_nxt: new data, data to resend after
 * a rewind, and the FIN. Every segment acks rcv_nxt. Sender-side silly
 * window avoidance: a window-limited runt waits while anything is in flight.
 */
static void
output(struct tfo_engine *e, struct tfo_conn *c)
{
	uint32_t start = data_start(c), total = unacked_len(e, c);
	uint32_t smax = seg_max(c);
	uint32_t wnd = RTE_MIN(c->cwnd, c->snd_wnd);
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
			if (xmit(e, c, c->snd_nxt,
				 TFO_TCP_ACK | (off + len == total ? TFO_TCP_PSH : 0) |
				 (fin ? TFO_TCP_FIN : 0), off, len) != 0)
				break;
			if (seq_lt(c->snd_nxt, c->snd_max)) {
				cnt(e, TFO_STAT_retransmit_segs);
			} else if (!(c->flags & (TFO_CF_PEER_TS | TFO_CF_RTT_TIMING))) {
				/* time one segment per RTT (no timestamps) */
				c->flags |= TFO_CF_RTT_TIMING;
				c->rtt_seq = c->snd_nxt;
				c->rtt_start = now_ms(e);
			}
			c->snd_nxt += len + fin;
		} else if (fin_q && off == total) {
			if (xmit(e, c, c->snd_nxt, TFO_TCP_ACK | TFO_TCP_FIN, 0, 0) != 0)
				break;
			if (seq_lt(c->snd_nxt, c->snd_max))
				cnt(e, TFO_STAT_retransmit_segs);
			c->snd_nxt++;
		} else {
			break;
		}
		if (seq_gt(c->snd_nxt, c->snd_max))
			c->snd_max = c->snd_nxt;
	}
}

/* Resend the first unacknowledged segment (fast retransmit, RTO), whatever
 * the windows say; @return the sequence space it covered. */
static uint32_t
retransmit_first(struct tfo_engine *e, struct tfo_conn *c)
{
	uint32_t start = data_start(c), total = unacked_len(e, c);
	uint32_t len = RTE_MIN(total, seg_max(c));
	bool fin = fin_pending(c) && len == total &&
		   seq_gt(c->snd_max, start + total);

	if (len == 0 && !fin)
		return 0;
	if (xmit(e, c, start, TFO_TCP_ACK | (len == total && len ? TFO_TCP_PSH : 0) |
		 (fin ? TFO_TCP_FIN : 0), 0, len) != 0)
		return 0;
	cnt(e, TFO_STAT_retransmit_segs);
	c->flags &= (uint16_t)~TFO_CF_RTT_TIMING;	/* Karn */
	return len + fin;
}

/* ---- the service ------------------------------------------------------- */

enum { GONE = -1 };

/*
 * Hand @p len request bytes at @p req to the service. @p from_mbuf: they
 * are in the input frame (not held yet); otherwise they are the request
 * buffer's. @return the bytes accepted (from_mbuf: len, or fewer when they
 * could not be stored), or GONE when the connection was reset.
 */
static int
run_service(struct tfo_engine *e, struct tfo_conn *c, const uint8_t *req,
	    uint32_t len, bool from_mbuf)
{
	const struct tfo_service_inst *si = &e->p.services[c->svc];
	uint32_t done = 0, rest;

	for (;;) {
		struct tfo_svc_resp resp;
		enum tfo_svc_status st;
		struct tfo_sndq *q;
		uint32_t sb = c->sbuf;

		if (sb == TFO_CONN_NONE) {
			sb = buf_get(e);
			if (sb == TFO_CONN_NONE) {
				/* callers make sure held bytes find one */
				cnt(e, TFO_STAT_buf_pool_empty);
				return (int)done;
			}
		}
		memset(&resp, 0, sizeof(resp));
		resp.buf = buf_ptr(e, sb) + TFO_BUF_HDR;
		resp.buf_cap = e->resp_cap;
		resp.stats = e->st;
		st = si->svc->handle(si->state, req + done, len - done, &resp);
		cnt(e, TFO_STAT_svc_calls);

		if (st == TFO_SVC_NEED_MORE) {
			c->sbuf = sb;
			buf_put(e, &c->sbuf);
			if (len - done >= e->max_request) {
				conn_reset(e, c, TFO_STAT_req_too_big);
				return GONE;
			}
			break;
		}
		if (st != TFO_SVC_RESPOND) {
			c->sbuf = sb;
			conn_reset(e, c, TFO_STAT_svc_reject);
			return GONE;
		}
		if (resp.consumed == 0 || resp.consumed > len - done ||
		    resp.buf_len > e->resp_cap ||
		    (resp.body != NULL && (resp.body_off > resp.body->len ||
					   resp.body_len > resp.body->len - resp.body_off))) {
			c->sbuf = sb;
			conn_reset(e, c, TFO_STAT_svc_bad_response);
			return GONE;
		}
		cnt(e, TFO_STAT_svc_responses);
		done += resp.consumed;
		q = (struct tfo_sndq *)(void *)buf_ptr(e, sb);
		q->body = resp.body != NULL && resp.body_len > 0 ? resp.body : NULL;
		q->body_off = q->body != NULL ? resp.body_off : 0;
		q->body_len = q->body != NULL ? resp.body_len : 0;
		q->buf_off = 0;
		q->buf_len = resp.buf_len;
		c->sbuf = sb;
		if (resp.close) {
			queue_fin(e, c);
			if (q->buf_len + q->body_len == 0)
				buf_put(e, &c->sbuf);
			return (int)len;	/* the rest is discarded */
		}
		if (q->buf_len + q->body_len > 0)
			break;
		/* an empty response: on to the next request */
		buf_put(e, &c->sbuf);
		if (done == len)
			break;
	}

	rest = len - done;
	if (rest == 0) {
		if (!from_mbuf) {
			buf_put(e, &c->rbuf);
			c->req_len = 0;
		}
		return (int)len;
	}
	if (from_mbuf) {
		if (c->rbuf == TFO_CONN_NONE)
			c->rbuf = buf_get(e);
		if (c->rbuf == TFO_CONN_NONE) {
			/* accept what was answered; the peer resends the rest */
			cnt(e, TFO_STAT_buf_pool_empty);
			return (int)done;
		}
		memcpy(req_data(e, c), req + done, rest);
	} else if (done > 0) {
		memmove(req_data(e, c), req + done, rest);
	}
	c->req_len = (uint16_t)rest;
	return (int)len;
}

/* In-order new bytes [off, off + len) of @p m for the request. */
static int
deliver(struct tfo_engine *e, struct tfo_conn *c, const struct rte_mbuf *m,
	uint32_t off, uint32_t len)
{
	bool can_serve = c->sbuf == TFO_CONN_NONE &&
			 !(c->flags & TFO_CF_FIN_QUEUED);
	const uint8_t *d;

	if (can_serve && c->req_len == 0 && off + len <= m->data_len)
		return run_service(e, c, rte_pktmbuf_mtod_offset(m, const uint8_t *, off),
				   len, true);

	/* held bytes must always find a response buffer when served */
	if (e->nb_buf_free < (uint32_t)(c->rbuf == TFO_CONN_NONE) +
			     (uint32_t)can_serve) {
		cnt(e, TFO_STAT_buf_pool_empty);
		return 0;
	}
	if (c->rbuf == TFO_CONN_NONE)
		c->rbuf = buf_get(e);
	d = rte_pktmbuf_read(m, off, len, req_data(e, c) + c->req_len);
	if (d != req_data(e, c) + c->req_len)
		memcpy(req_data(e, c) + c->req_len, d, len);
	c->req_len = (uint16_t)(c->req_len + len);
	if (can_serve && run_service(e, c, req_data(e, c), c->req_len, false) == GONE)
		return GONE;
	return (int)len;
}

/* The response is acknowledged: serve a pipelined request, or close. */
static int
after_drain(struct tfo_engine *e, struct tfo_conn *c)
{
	if (c->flags & TFO_CF_FIN_QUEUED) {
		buf_put(e, &c->sbuf);
		return 0;
	}
	if (c->req_len > 0) {
		uint32_t before = c->adv_wnd;

		/* serve from the held bytes, reusing the drained buffer */
		if (run_service(e, c, req_data(e, c), c->req_len, false) == GONE)
			return GONE;
		if (c->sbuf == TFO_CONN_NONE && (c->flags & TFO_CF_PEER_FIN)) {
			queue_fin(e, c);	/* the request can never complete */
		} else if (c->sbuf == TFO_CONN_NONE && before < seg_max(c)) {
			send_ack(e, c);	/* window update */
		}
		return 0;
	}
	buf_put(e, &c->sbuf);
	if (c->flags & TFO_CF_PEER_FIN)
		queue_fin(e, c);
	return 0;
}

/* ---- segment processing ------------------------------------------------ */

/* Timestamps of a non-SYN segment (fast path for Linux's NOP,NOP,TS). */
static bool
seg_ts(const struct rte_mbuf *m, const struct tfo_pkt *p, uint32_t *val,
       uint32_t *ecr)
{
	unsigned int olen = p->l4_len - 20u;
	const uint8_t *o;
	struct tfo_tcpopts opts;

	if (olen == 0)
		return false;
	o = tfo_pkt_tcp_hdr(m, p) + 20;
	if (olen == 12 && o[0] == TFO_OPT_NOP && o[1] == TFO_OPT_NOP &&
	    o[2] == TFO_OPT_TS && o[3] == 10) {
		*val = rd32(o + 4);
		*ecr = rd32(o + 8);
		return true;
	}
	tfo_tcpopt_parse(o, olen, &opts);
	*val = opts.tsval;
	*ecr = opts.tsecr;
	return opts.has_ts;
}

static void
new_ack(struct tfo_engine *e, struct tfo_conn *c, uint32_t ack,
	bool has_ts, uint32_t tsecr, int *gone)
{
	uint32_t acked = ack - c->snd_una;
	uint32_t total = unacked_len(e, c);
	uint32_t n = RTE_MIN(acked, total);
	uint32_t smax = seg_max(c);
	bool fin_acked;

	if ((c->flags & TFO_CF_PEER_TS) && has_ts && tsecr != 0)
		rtt_sample(c, tsval(e, c) - tsecr);
	else if ((c->flags & TFO_CF_RTT_TIMING) && seq_gt(ack, c->rtt_seq)) {
		rtt_sample(c, now_ms(e) - c->rtt_start);
		c->flags &= (uint16_t)~TFO_CF_RTT_TIMING;
	}
	if (n > 0) {
		struct tfo_sndq *q = sndq(e, c);
		uint32_t k = RTE_MIN(n, q->buf_len - q->buf_off);

		q->buf_off += k;
		q->body_off += n - k;
		q->body_len -= n - k;
	}
	fin_acked = fin_pending(c) && acked > n;
	c->snd_una = ack;
	if (seq_lt(c->snd_nxt, ack))
		c->snd_nxt = ack;
	c->retries = 0;
	c->tkind = TFO_CT_NONE;	/* RFC 6298 5.3: restart the RTO */

	if (c->flags & TFO_CF_RECOVERY) {
		if (seq_ge(ack, c->recover)) {
			c->cwnd = c->ssthresh;
			c->flags &= (uint16_t)~TFO_CF_RECOVERY;
			c->dupacks = 0;
		} else {
			/* NewReno partial ACK (RFC 6582 3.2 step 3) */
			retransmit_first(e, c);
			c->cwnd = (c->cwnd > acked ? c->cwnd - acked : 0) + smax;
		}
	} else {
		c->dupacks = 0;
		if (c->cwnd < c->ssthresh)
			c->cwnd += RTE_MIN(acked, smax);
		else
			c->cwnd += RTE_MAX(smax * smax / c->cwnd, 1u);
		c->cwnd = RTE_MIN(c->cwnd, TFO_CWND_MAX);
	}

	if (fin_acked) {
		c->flags |= TFO_CF_FIN_ACKED;
		switch (c->state) {
		case TFO_CONN_FIN_WAIT_1:
			set_state(e, c, TFO_CONN_FIN_WAIT_2);
			break;
		case TFO_CONN_CLOSING:
			enter_time_wait(e, c);
			break;
		case TFO_CONN_LAST_ACK:
			conn_free(e, c, TFO_STAT_conns_closed_normal);
			*gone = 1;
			return;
		default:
			break;
		}
	}
	if (total > 0 && n == total && c->sbuf != TFO_CONN_NONE &&
	    after_drain(e, c) == GONE)
		*gone = 1;
}

static void
dup_ack(struct tfo_engine *e, struct tfo_conn *c)
{
	uint32_t smax = seg_max(c);

	cnt(e, TFO_STAT_dup_acks_rx);
	if (c->flags & TFO_CF_RECOVERY) {
		c->cwnd = RTE_MIN(c->cwnd + smax, TFO_CWND_MAX);
		return;
	}
	if (++c->dupacks != 3)
		return;
	/* RFC 5681 3.2 / RFC 6582 */
	cnt(e, TFO_STAT_fast_retransmits);
	c->ssthresh = RTE_MAX((c->snd_max - c->snd_una) / 2, 2 * smax);
	c->recover = c->snd_max;
	c->flags |= TFO_CF_RECOVERY;
	retransmit_first(e, c);
	c->cwnd = c->ssthresh + 3 * smax;
}

enum ack_result { ACK_OK, ACK_DROP, ACK_GONE };

static enum ack_result
process_ack(struct tfo_engine *e, struct tfo_conn *c, const struct tfo_pkt *p,
	    bool has_ts, uint32_t tsecr)
{
	uint32_t ack = p->ack, seq = p->seq, old_una, nwin;
	int gone = 0;

	nwin = (uint32_t)p->window << ((c->flags & TFO_CF_PEER_WS) ? c->peer_ws : 0);
	if (c->state == TFO_CONN_SYN_RCVD) {
		if (!(seq_gt(ack, c->snd_una) && seq_le(ack, c->snd_max))) {
			/* RFC 9293 3.10.7.4: <SEQ=SEG.ACK><CTL=RST> */
			cnt(e, TFO_STAT_drop_synrcvd_bad_ack);
			if (xmit(e, c, ack, TFO_TCP_RST, 0, 0) == 0)
				cnt(e, TFO_STAT_rst_tx);
			return ACK_DROP;
		}
		pending_done(e, c, false);
		c->snd_una++;	/* our SYN */
		set_state(e, c, (c->flags & TFO_CF_FIN_QUEUED) ?
			  TFO_CONN_FIN_WAIT_1 : TFO_CONN_ESTABLISHED);
		c->snd_wnd = nwin;
		c->wl1 = seq;
		if (c->retries > 0) {
			/* RFC 6298 5.7: the SYN-ACK was lost, start from 1 MSS */
			c->cwnd = seg_max(c);
			c->retries = 0;
		}
		if (ack == c->snd_una && (c->flags & TFO_CF_SYNACK_DATA) &&
		    seq_gt(c->snd_max, c->snd_una)) {
			/* the client dropped the SYN-ACK's data (a plain
			 * connect does), so what followed is out of order
			 * there too: resend the response now, not after an
			 * RTO. Behind a bare SYN-ACK this ACK only crossed
			 * the response in flight. */
			cnt(e, TFO_STAT_synack_data_resend);
			c->snd_nxt = c->snd_una;
			c->flags &= (uint16_t)~TFO_CF_RTT_TIMING;
		}
		if (ack == c->snd_una) {
			/* only the SYN: a sample, then nothing more to trim */
			if ((c->flags & TFO_CF_PEER_TS) && has_ts && tsecr != 0)
				rtt_sample(c, tsval(e, c) - tsecr);
			else if (c->flags & TFO_CF_RTT_TIMING)
				rtt_sample(c, now_ms(e) - c->rtt_start);
			c->flags &= (uint16_t)~TFO_CF_RTT_TIMING;
			c->tkind = TFO_CT_NONE;
			return ACK_OK;
		}
	}
	if (seq_gt(ack, c->snd_max)) {
		cnt(e, TFO_STAT_drop_ack_unsent);
		send_ack(e, c);
		return ACK_DROP;
	}
	if (seq_lt(ack, c->snd_una - max_snd_wnd(c))) {
		cnt(e, TFO_STAT_drop_old_ack);
		challenge_ack(e, c);
		return ACK_DROP;
	}
	old_una = c->snd_una;
	if (ack == old_una && p->payload_len == 0 &&
	    !(p->tcp_flags & TFO_TCP_FIN) && nwin == c->snd_wnd &&
	    c->snd_max != c->snd_una)
		dup_ack(e, c);
	/* window update (RFC 9293 3.10.7.4; SND.WL2 <= SEG.ACK holds for any
	 * ack >= snd_una, so WL2 need not be kept) */
	if (seq_gt(seq, c->wl1) || (seq == c->wl1 && seq_ge(ack, old_una))) {
		if (c->snd_wnd == 0 && nwin > 0 && c->tkind == TFO_CT_PERSIST) {
			c->retries = 0;
			c->tkind = TFO_CT_NONE;
		}
		c->snd_wnd = nwin;
		c->wl1 = seq;
	}
	if (seq_gt(ack, old_una))
		new_ack(e, c, ack, has_ts, tsecr, &gone);
	return gone ? ACK_GONE : ACK_OK;
}

/* The peer's FIN was just accepted in ESTABLISHED. */
static void
peer_closed(struct tfo_engine *e, struct tfo_conn *c)
{
	set_state(e, c, TFO_CONN_CLOSE_WAIT);
	/* a pipelined request waits for the drain (after_drain closes);
	 * otherwise nothing more can come: FIN after what is queued */
	if (!(c->sbuf != TFO_CONN_NONE && c->req_len > 0))
		queue_fin(e, c);
}

static int
process_data(struct tfo_engine *e, struct tfo_conn *c,
	     const struct rte_mbuf *m, const struct tfo_pkt *p, bool *need_ack)
{
	uint32_t plen = p->payload_len, seq = p->seq;
	bool fin = (p->tcp_flags & TFO_TCP_FIN) != 0;

	if (plen == 0 && !fin)
		return 0;
	*need_ack = true;
	if (c->flags & TFO_CF_PEER_FIN) {
		/* a retransmission of what we have (the FIN included) */
		cnt(e, TFO_STAT_rx_dup_data);
		if (c->state == TFO_CONN_TIME_WAIT)
			c->tkind = TFO_CT_NONE;	/* restart TIME-WAIT */
		return 0;
	}
	if (seq_gt(seq, c->rcv_nxt)) {
		cnt(e, TFO_STAT_rx_ooo_drop);
		return 0;
	}
	if (plen > 0) {
		uint32_t skip = c->rcv_nxt - seq;
		uint32_t fresh = skip < plen ? plen - skip : 0;

		if (fresh == 0) {
			if (!fin)
				cnt(e, TFO_STAT_rx_dup_data);
		} else if ((c->flags & TFO_CF_FIN_QUEUED) ||
			   c->state != TFO_CONN_ESTABLISHED) {
			/* after our close: ack and discard */
			cnt(e, TFO_STAT_rx_after_close);
			c->rcv_nxt += fresh;
		} else {
			uint32_t take = RTE_MIN(fresh, rcv_space(e, c));
			int acc = 0;

			if (take < fresh)
				cnt(e, TFO_STAT_rx_trimmed);
			if (take > 0)
				acc = deliver(e, c, m, p->payload_off + skip, take);
			if (acc == GONE)
				return GONE;
			c->rcv_nxt += (uint32_t)acc;
			if ((uint32_t)acc < fresh)
				return 0;	/* the FIN is not next */
		}
	}
	if (fin && seq + plen == c->rcv_nxt) {
		c->rcv_nxt++;
		c->flags |= TFO_CF_PEER_FIN;
		switch (c->state) {
		case TFO_CONN_ESTABLISHED:
			peer_closed(e, c);
			break;
		case TFO_CONN_FIN_WAIT_1:
			set_state(e, c, TFO_CONN_CLOSING);	/* simultaneous close */
			break;
		case TFO_CONN_FIN_WAIT_2:
			enter_time_wait(e, c);
			break;
		default:
			break;
		}
	}
	return 0;
}

static void
dup_syn(struct tfo_engine *e, struct tfo_conn *c, struct rte_mbuf *m,
	const struct tfo_pkt *p)
{
	struct tfo_tcpopts o;
	unsigned int olen = p->l4_len - 20u;

	tfo_tcpopt_parse(tfo_pkt_tcp_hdr(m, p) + 20, olen, &o);
	cnt(e, TFO_STAT_dup_syn);
	if ((c->flags & TFO_CF_PEER_TS) && o.has_ts)
		c->ts_recent = o.tsval;
	release_input(e, m);
	/* the same first flight; data in the SYN-ACK only for a TFO SYN */
	send_synack(e, c, (c->flags & TFO_CF_SYNACK_DATA) &&
		    o.form != TFO_FORM_NONE, TFO_FORM_NONE, 0, NULL);
	output(e, c);
}

static int
conn_input(struct tfo_engine *e, struct tfo_conn *c, struct rte_mbuf *m,
	   const struct tfo_pkt *p)
{
	uint8_t fl = p->tcp_flags;
	uint32_t seq = p->seq, tv = 0, te = 0, end, wnd;
	bool has_ts = false, need_ack = false;

	if (unlikely(fl & TFO_TCP_SYN)) {
		if (fl & (TFO_TCP_RST | TFO_TCP_FIN)) {
			cnt(e, TFO_STAT_drop_syn_bad);
			rte_pktmbuf_free(m);
			return TFO_INPUT_DONE;
		}
		if (!(fl & TFO_TCP_ACK)) {
			if (c->state == TFO_CONN_SYN_RCVD && seq == c->wl1) {
				dup_syn(e, c, m, p);
				return TFO_INPUT_DONE;
			}
			if (c->state == TFO_CONN_TIME_WAIT) {
				has_ts = seg_ts(m, p, &tv, &te);
				if (seq_gt(seq, c->rcv_nxt) ||
				    ((c->flags & TFO_CF_PEER_TS) && has_ts &&
				     seq_gt(tv, c->ts_recent))) {
					conn_free(e, c, TFO_STAT_conns_closed_reopen);
					return TFO_INPUT_REOPEN;
				}
			}
		}
		/* RFC 5961 4.2: any other SYN gets a challenge ACK */
		cnt(e, TFO_STAT_drop_syn_bad);
		release_input(e, m);
		challenge_ack(e, c);
		return TFO_INPUT_DONE;
	}

	has_ts = seg_ts(m, p, &tv, &te);
	/* PAWS (RFC 7323 5.3); never for RSTs */
	if ((c->flags & TFO_CF_PEER_TS) && has_ts && !(fl & TFO_TCP_RST) &&
	    seq_lt(tv, c->ts_recent)) {
		cnt(e, TFO_STAT_drop_paws);
		release_input(e, m);
		send_ack(e, c);
		return TFO_INPUT_DONE;
	}
	/* acceptability, Linux's form of RFC 9293 3.10.7.4 */
	wnd = rcv_space(e, c);
	end = seq + p->payload_len + !!(fl & TFO_TCP_FIN);
	if (seq_lt(end, c->rcv_nxt) || seq_gt(seq, c->rcv_nxt + wnd)) {
		release_input(e, m);
		if (fl & TFO_TCP_RST) {
			cnt(e, TFO_STAT_drop_rst_ignored);
		} else {
			cnt(e, TFO_STAT_drop_seq_window);
			send_ack(e, c);
		}
		return TFO_INPUT_DONE;
	}
	if (fl & TFO_TCP_RST) {
		release_input(e, m);
		if (c->state == TFO_CONN_TIME_WAIT) {
			cnt(e, TFO_STAT_drop_rst_ignored);	/* RFC 1337 */
		} else if (seq == c->rcv_nxt) {
			conn_free(e, c, TFO_STAT_conns_closed_rst_rx);
		} else {
			challenge_ack(e, c);	/* RFC 5961 3.2 */
		}
		return TFO_INPUT_DONE;
	}
	if (!(fl & TFO_TCP_ACK)) {
		cnt(e, TFO_STAT_drop_no_ack);
		rte_pktmbuf_free(m);
		return TFO_INPUT_DONE;
	}
	/* RFC 7323 4.3: TS.Recent from segments at or before rcv_nxt */
	if ((c->flags & TFO_CF_PEER_TS) && has_ts && seq_le(seq, c->rcv_nxt))
		c->ts_recent = tv;

	switch (process_ack(e, c, p, has_ts, te)) {
	case ACK_GONE:
		rte_pktmbuf_free(m);
		return TFO_INPUT_DONE;
	case ACK_DROP:
		rte_pktmbuf_free(m);
		return TFO_INPUT_DONE;
	default:
		break;
	}
	if (process_data(e, c, m, p, &need_ack) == GONE) {
		rte_pktmbuf_free(m);
		return TFO_INPUT_DONE;
	}
	release_input(e, m);
	{
		unsigned int before = e->nxmit;

		output(e, c);
		if (need_ack && e->nxmit == before)
			send_ack(e, c);
	}
	if (c->state == TFO_CONN_TIME_WAIT && e->p.time_wait_ms == 0) {
		conn_free(e, c, TFO_STAT_conns_closed_normal);
		return TFO_INPUT_DONE;
	}
	update_timer(e, c);
	return TFO_INPUT_DONE;
}

/* ---- timers ------------------------------------------------------------ */

static void
on_rto(struct tfo_engine *e, struct tfo_conn *c)
{
	uint32_t smax = seg_max(c);

	if (c->state == TFO_CONN_SYN_RCVD) {
		if (c->retries >= e->p.synack_retries) {
			conn_free(e, c, TFO_STAT_conns_closed_synack_timeout);
			return;
		}
		c->retries++;
		cnt(e, TFO_STAT_synack_retransmits);
		c->flags &= (uint16_t)~TFO_CF_RTT_TIMING;
		/* RFC 7413 / Linux: no data, no TFO option; the data goes
		 * after the handshake ACK */
		send_synack(e, c, false, TFO_FORM_NONE, 0, NULL);
		arm(e, c, TFO_CT_RTO, (uint64_t)rto_ms(e, c) * 1000);
		return;
	}
	if (c->retries >= e->p.max_retries) {
		conn_reset(e, c, TFO_STAT_conns_closed_rto_timeout);
		return;
	}
	c->retries++;
	cnt(e, TFO_STAT_rto_expired);
	/* RFC 5681 3.1 (5.5/5.6 of RFC 6298): loss window, go back N */
	c->ssthresh = RTE_MAX((c->snd_max - c->snd_una) / 2, 2 * smax);
	c->cwnd = smax;
	c->dupacks = 0;
	c->flags &= (uint16_t)~(TFO_CF_RECOVERY | TFO_CF_RTT_TIMING);
	c->snd_nxt = data_start(c);
	c->snd_nxt += retransmit_first(e, c);
	arm(e, c, TFO_CT_RTO, (uint64_t)rto_ms(e, c) * 1000);
}

static void
on_persist(struct tfo_engine *e, struct tfo_conn *c)
{
	if (c->snd_wnd != 0) {
		output(e, c);
		update_timer(e, c);
		return;
	}
	if (c->retries >= e->p.max_retries) {
		conn_reset(e, c, TFO_STAT_conns_closed_persist_timeout);
		return;
	}
	c->retries++;
	cnt(e, TFO_STAT_persist_probes);
	/* an old sequence number makes the peer answer with its window */
	xmit(e, c, c->snd_una - 1, TFO_TCP_ACK, 0, 0);
	arm(e, c, TFO_CT_PERSIST, (uint64_t)rto_ms(e, c) * 1000);
}

static void
on_idle(struct tfo_engine *e, struct tfo_conn *c)
{
	if (c->state == TFO_CONN_FIN_WAIT_2) {
		conn_free(e, c, TFO_STAT_conns_closed_fin_wait2_timeout);
		return;
	}
	cnt(e, TFO_STAT_conns_idle_timeout);
	queue_fin(e, c);
	output(e, c);
	update_timer(e, c);
}

static void
timer_cb(void *arg, uint32_t idx)
{
	struct tfo_engine *e = arg;
	struct tfo_conn *c = tfo_conn_at(e->ct, idx);
	uint8_t kind = c->tkind;

	c->tkind = TFO_CT_NONE;
	switch (kind) {
	case TFO_CT_RTO:
		on_rto(e, c);
		break;
	case TFO_CT_PERSIST:
		on_persist(e, c);
		break;
	case TFO_CT_IDLE:
		on_idle(e, c);
		break;
	case TFO_CT_TIME_WAIT:
		conn_free(e, c, TFO_STAT_conns_closed_normal);
		break;
	default:
		break;
	}
}

void
tfo_engine_timers(struct tfo_engine *e, uint64_t now_us)
{
	engine_clock(e, now_us);
	hold_expire(e);
	tfo_timer_run(e->tw, now_us, timer_cb, e);
	finish(e);
}

/* ---- opening ----------------------------------------------------------- */

/* Fields every new entry needs, from the frame that created it. */
static void
conn_init(struct tfo_engine *e, struct tfo_conn *c, const struct rte_mbuf *m,
	  const struct tfo_pkt *p, uint8_t port_idx, unsigned int svc,
	  uint16_t peer_mss, enum tfo_conn_state state)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	uint16_t ours = p->family == AF_INET ? e->mss4[port_idx] : e->mss6[port_idx];

	tfo_timer_init(e->tw, conn_idx(e, c));
	c->state = (uint8_t)state;
	e->nstate[state]++;
	tfo_stats_inc(e->st, TFO_STAT_conns_active);
	c->tkind = TFO_CT_NONE;
	c->flags = p->has_vlan ? TFO_CF_VLAN : 0;
	c->mss = RTE_MAX(RTE_MIN(peer_mss, ours), (uint16_t)TFO_MIN_MSS);
	c->req_len = 0;
	c->sbuf = TFO_CONN_NONE;
	c->rbuf = TFO_CONN_NONE;
	c->ts_recent = 0;
	c->peer_ws = 0;
	c->retries = 0;
	c->dupacks = 0;
	c->srtt8 = 0;
	c->rttvar4 = 0;
	c->port_idx = port_idx;
	c->peer_mac = eh->src_addr;
	c->vlan_tci = p->vlan_tci;
	c->adv_wnd = 0;
	c->svc = (uint8_t)svc;
	c->ssthresh = TFO_CWND_MAX;
}

int
tfo_engine_open(struct tfo_engine *e, struct rte_mbuf *m,
		const struct tfo_pkt *p, uint8_t port_idx,
		const struct tfo_open_params *op, uint64_t now_us)
{
	const struct tfo_tcpopts *o = op->opts;
	struct tfo_conn *c, *exists;
	struct tfo_conn_key key;
	unsigned int svc;
	uint64_t h;
	int acc = 0;

	engine_clock(e, now_us);
	if (unlikely((p->tcp_flags & (TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_RST |
				      TFO_TCP_FIN)) != TFO_TCP_SYN)) {
		cnt(e, TFO_STAT_drop_syn_bad);
		rte_pktmbuf_free(m);
		return 0;
	}
	if (find_service(e, p->dport, &svc) == NULL) {
		cnt(e, TFO_STAT_svc_no_service);
		return -ENOENT;
	}
	if (op->accept_data) {
		hold_expire(e);
		if (e->pending_live + e->hold_n >= e->p.tfo_pending_limit) {
			cnt(e, TFO_STAT_tfo_pending_busy);
			return -EBUSY;
		}
	}
	tfo_conn_key_from_pkt(&key, p);
	c = tfo_conn_insert(e->ct, &key, &exists);
	if (c == NULL && exists != NULL) {
		/* the same tuple twice in one burst: a duplicate (or a reuse) */
		if (tfo_engine_input(e, exists, m, p, port_idx, now_us) !=
		    TFO_INPUT_REOPEN)
			return 0;
		c = tfo_conn_insert(e->ct, &key, &exists);
	}
	if (c == NULL) {
		cnt(e, TFO_STAT_conn_pool_full);
		return -ENOSPC;
	}
	conn_init(e, c, m, p, port_idx, svc,
		  o->has_mss ? o->mss : (p->family == AF_INET ? TFO_DEFAULT_MSS_V4 :
					 TFO_DEFAULT_MSS_V6), TFO_CONN_SYN_RCVD);
	if (o->has_ts) {
		c->flags |= TFO_CF_PEER_TS;
		c->ts_recent = o->tsval;
	}
	if (o->has_wscale) {
		c->flags |= TFO_CF_PEER_WS;
		c->peer_ws = o->wscale;
	}
	if (o->sack_ok)
		c->flags |= TFO_CF_PEER_SACK;
	if (o->form != TFO_FORM_NONE)
		c->flags |= TFO_CF_SYN_TFO_OPT;
	/* RFC 6528: F(tuple, secret) + a 4 us clock */
	h = conn_secret_hash(e, &key);
	c->snd_una = (uint32_t)h + (uint32_t)(now_us >> 2);
	c->snd_nxt = c->snd_una;
	c->snd_max = c->snd_una;
	c->recover = c->snd_una;
	c->ts_off = (uint32_t)(h >> 32);
	c->rcv_nxt = p->seq + 1;
	c->wl1 = p->seq;	/* the peer's ISN while in SYN_RCVD */
	c->snd_wnd = p->window;	/* a SYN's window is never scaled */
	c->cwnd = iw_bytes(seg_max(c));
	c->flags |= TFO_CF_RTT_TIMING;
	c->rtt_seq = c->snd_una;
	c->rtt_start = now_ms(e);

	if (op->accept_data) {
		c->flags |= TFO_CF_TFO | TFO_CF_TFO_PENDING;
		e->pending_live++;
		pending_gauge(e);
		cnt(e, TFO_STAT_TCPFastOpenPassive);
		cnt(e, TFO_STAT_conns_opened_tfo);
		if (p->payload_len > 0) {
			acc = deliver(e, c, m, p->payload_off, p->payload_len);
			if (acc == GONE) {
				rte_pktmbuf_free(m);
				return 0;
			}
			c->rcv_nxt += (uint32_t)acc;
		}
	} else {
		cnt(e, TFO_STAT_conns_opened_plain);
	}
	if ((uint32_t)acc < p->payload_len)
		cnt(e, TFO_STAT_syn_data_dropped);
	release_input(e, m);
	/* data in a SYN-ACK only for a SYN with a TFO option: a plain
	 * client (cookie-less mode) drops it; it gets the response right
	 * behind instead */
	send_synack(e, c, op->accept_data && o->form != TFO_FORM_NONE,
		    op->cookie_form, op->cookie_len, op->cookie);
	if (c->snd_nxt == c->snd_una)
		c->snd_nxt = c->snd_max = c->snd_una + 1;	/* SYN-ACK not sent: the RTO resends it */
	output(e, c);
	update_timer(e, c);
	finish(e);
	return 0;
}

int
tfo_engine_input(struct tfo_engine *e, struct tfo_conn *c, struct rte_mbuf *m,
		 const struct tfo_pkt *p, uint8_t port_idx, uint64_t now_us)
{
	struct tfo_conn_key key;
	int r;

	RTE_SET_USED(port_idx);
	engine_clock(e, now_us);
	tfo_conn_key_from_pkt(&key, p);
	if (unlikely(c->state == TFO_CONN_CLOSED || !tfo_conn_key_eq(&c->key, &key))) {
		c = tfo_conn_lookup(e->ct, &key);
		if (c == NULL) {
			cnt(e, TFO_STAT_input_stale_conn);
			return TFO_INPUT_MISS;
		}
	}
	r = conn_input(e, c, m, p);
	finish(e);
	return r;
}

void
tfo_engine_lookup_bulk(struct tfo_engine *e, const struct tfo_pkt *const *pkts,
		       unsigned int n, struct tfo_conn **conns)
{
	struct tfo_conn_key keys[64];
	const struct tfo_conn_key *kp[64];

	for (unsigned int base = 0; base < n; base += 64) {
		unsigned int k = RTE_MIN(n - base, 64u);

		for (unsigned int i = 0; i < k; i++) {
			tfo_conn_key_from_pkt(&keys[i], pkts[base + i]);
			kp[i] = &keys[i];
		}
		tfo_conn_lookup_bulk(e->ct, kp, k, conns + base);
	}
}

/* ---- SYN cookies and unknown segments ---------------------------------- */

void
tfo_engine_syncookie_reply(struct tfo_engine *e, struct rte_mbuf *m,
			   const struct tfo_pkt *p, uint8_t port_idx,
			   const struct tfo_tcpopts *o, uint64_t now_us)
{
	struct tfo_syncookie_info info;
	uint8_t opts[TFO_TCPOPT_MAX_LEN];
	struct tfo_synack_opts so;
	struct tfo_conn_key key;
	struct tfo_tcp_out t;
	struct tfo_route r;
	uint32_t tv;

	engine_clock(e, now_us);
	if ((p->tcp_flags & (TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_RST |
			     TFO_TCP_FIN)) != TFO_TCP_SYN) {
		cnt(e, TFO_STAT_drop_syn_bad);
		rte_pktmbuf_free(m);
		return;
	}
	tfo_conn_key_from_pkt(&key, p);
	info.mss = o->has_mss ? o->mss : (p->family == AF_INET ?
					  TFO_DEFAULT_MSS_V4 : TFO_DEFAULT_MSS_V6);
	/* without timestamps nothing carries WS/SACK: offer neither (Linux) */
	info.wscale = o->has_ts && o->has_wscale ? o->wscale : 0xf;
	info.sack_ok = o->has_ts && o->sack_ok;
	tv = now_ms(e) + (uint32_t)(conn_secret_hash(e, &key) >> 32);

	memset(&so, 0, sizeof(so));
	so.mss = p->family == AF_INET ? e->mss4[port_idx] : e->mss6[port_idx];
	so.wscale = e->our_ws;
	so.peer_wscale = info.wscale != 0xf;
	so.ts = o->has_ts;
	so.tsecr = o->tsval;
	memset(&t, 0, sizeof(t));
	t.seq = tfo_syncookie_make(&e->sc_secret, p, (uint32_t)(now_us / 1000000),
				   &info, o->has_ts, &tv);
	so.tsval = tv;
	t.opt_len = (uint8_t)tfo_tcpopt_write_synack(opts, &so);
	t.opts = opts;
	t.sport = p->dport;
	t.dport = p->sport;
	t.ack = p->seq + 1;
	t.window = (uint16_t)RTE_MIN(e->rcv_wnd_max, 65535u);
	t.flags = TFO_TCP_SYN | TFO_TCP_ACK;
	tfo_route_from_pkt(&r, m, p, port_idx, &e->p.ports[port_idx]);
	release_input(e, m);
	m = out_mbuf(e, 0);
	if (m != NULL && push_frame(e, m, port_idx, &r, &t) == 0)
		cnt(e, TFO_STAT_syncookies_sent);
	finish(e);
}

/* A valid SYN-cookie ACK: the connection, ESTABLISHED. */
static struct tfo_conn *
syncookie_conn(struct tfo_engine *e, const struct rte_mbuf *m,
	       const struct tfo_pkt *p, uint8_t port_idx,
	       const struct tfo_syncookie_info *info, bool has_ts, uint32_t tv)
{
	struct tfo_conn *c, *exists;
	struct tfo_conn_key key;
	unsigned int svc;

	if (find_service(e, p->dport, &svc) == NULL) {
		cnt(e, TFO_STAT_svc_no_service);
		return NULL;
	}
	tfo_conn_key_from_pkt(&key, p);
	c = tfo_conn_insert(e->ct, &key, &exists);
	if (c == NULL) {
		cnt(e, TFO_STAT_conn_pool_full);
		return NULL;
	}
	conn_init(e, c, m, p, port_idx, svc, info->mss, TFO_CONN_ESTABLISHED);
	c->flags |= TFO_CF_SYNCOOKIE;
	if (info->wscale != 0xf) {
		c->flags |= TFO_CF_PEER_WS;
		c->peer_ws = RTE_MIN(info->wscale, (uint8_t)14);
	}
	if (info->sack_ok)
		c->flags |= TFO_CF_PEER_SACK;
	if (has_ts) {
		c->flags |= TFO_CF_PEER_TS;
		c->ts_recent = tv;
	}
	c->ts_off = (uint32_t)(conn_secret_hash(e, &key) >> 32);
	c->snd_una = p->ack;
	c->snd_nxt = p->ack;
	c->snd_max = p->ack;
	c->recover = p->ack;
	c->rcv_nxt = p->seq;
	c->wl1 = p->seq;
	c->snd_wnd = (uint32_t)p->window << c->peer_ws;
	c->cwnd = iw_bytes(seg_max(c));
	cnt(e, TFO_STAT_conns_opened_syncookie);
	return c;
}

void
tfo_engine_input_nomatch(struct tfo_engine *e, struct rte_mbuf *m,
			 const struct tfo_pkt *p, uint8_t port_idx,
			 uint64_t now_us)
{
	uint8_t fl = p->tcp_flags;

	engine_clock(e, now_us);
	if (fl & TFO_TCP_RST) {
		cnt(e, TFO_STAT_drop_rst_ignored);	/* never answer a RST */
		rte_pktmbuf_free(m);
		return;
	}
	if (e->p.syncookies && (fl & (TFO_TCP_SYN | TFO_TCP_ACK)) == TFO_TCP_ACK) {
		struct tfo_syncookie_info info;
		uint32_t tv = 0, te = 0;
		bool has_ts = seg_ts(m, p, &tv, &te);

		if (tfo_syncookie_check(&e->sc_secret, p, (uint32_t)(now_us / 1000000),
					has_ts, te, &info) == 0) {
			struct tfo_conn *c;

			cnt(e, TFO_STAT_syncookies_ok);
			c = syncookie_conn(e, m, p, port_idx, &info, has_ts, tv);
			if (c != NULL) {
				conn_input(e, c, m, p);
				finish(e);
				return;
			}
		} else {
			cnt(e, TFO_STAT_syncookies_bad);
		}
	}
	send_rst_nomatch(e, m, p, port_idx);
	finish(e);
}

/* ---- state ------------------------------------------------------------- */

int
tfo_engine_tfo_pending_ok(struct tfo_engine *e, uint64_t now_us)
{
	engine_clock(e, now_us);
	hold_expire(e);
	return e->pending_live + e->hold_n < e->p.tfo_pending_limit;
}

uint32_t
tfo_engine_tfo_pending(const struct tfo_engine *e)
{
	return e->pending_live + e->hold_n;
}

int
tfo_engine_serves(const struct tfo_engine *e, uint16_t port)
{
	unsigned int idx;

	return find_service(e, port, &idx) != NULL;
}

static const char *const tfo_state_names[TFO_CONN_NB_STATES] = {
	[TFO_CONN_CLOSED] = "CLOSED",
#define TFO_X_NAME(s) [TFO_CONN_##s] = #s,
	TFO_CONN_STATES(TFO_X_NAME)
#undef TFO_X_NAME
};

const char *
tfo_conn_state_name(enum tfo_conn_state s)
{
	return (unsigned int)s < TFO_CONN_NB_STATES ? tfo_state_names[s] : "?";
}

void
tfo_engine_conn_counts(const struct tfo_engine *e, uint32_t *out)
{
	memcpy(out, e->nstate, sizeof(e->nstate));
}

uint32_t
tfo_engine_free_conns(const struct tfo_engine *e)
{
	return tfo_conn_free_count(e->ct);
}

uint32_t
tfo_engine_free_bufs(const struct tfo_engine *e)
{
	return e->nb_buf_free;
}

void
tfo_engine_memory_detail(const struct tfo_engine *e, size_t *table,
			 size_t *bufs, size_t *other)
{
	*table = tfo_conn_table_memory(e->ct);
	*bufs = (size_t)e->nb_bufs * (e->buf_size + sizeof(uint32_t));
	*other = sizeof(*e) + tfo_timer_wheel_memory(e->tw) +
		 (size_t)e->hold_cap * sizeof(uint64_t);
}

size_t
tfo_engine_memory(const struct tfo_engine *e)
{
	size_t t, b, o;

	tfo_engine_memory_detail(e, &t, &b, &o);
	return t + b + o;
}

/* ---- create / free ----------------------------------------------------- */

static int
check_params(const struct tfo_engine_params *p)
{
	const char *n = p->name != NULL ? p->name : "engine";

	if (p->pool == NULL || p->ports == NULL || p->nb_ports == 0 ||
	    p->nb_ports > TFO_MAX_PORTS || p->tx == NULL || p->stats == NULL) {
		TFO_LOG(ERR, "%s: pool, ports (1..%d), tx and stats are required",
			n, TFO_MAX_PORTS);
		return -EINVAL;
	}
	if (p->nb_services > 255 || (p->nb_services > 0 && p->services == NULL)) {
		TFO_LOG(ERR, "%s: %u services (at most 255)", n, p->nb_services);
		return -EINVAL;
	}
	if (p->max_request != 0 && (p->max_request < 64 || p->max_request > 65535)) {
		TFO_LOG(ERR, "%s: max_request %u out of range 64..65535", n,
			p->max_request);
		return -EINVAL;
	}
	if (p->mss != 0 && p->mss < TFO_MIN_MSS + 20) {
		TFO_LOG(ERR, "%s: mss %u too small", n, p->mss);
		return -EINVAL;
	}
	if (p->resp_buf_size > 65535) {
		TFO_LOG(ERR, "%s: resp_buf_size %u over 65535", n, p->resp_buf_size);
		return -EINVAL;
	}
	return 0;
}

struct tfo_engine *
tfo_engine_create(const struct tfo_engine_params *params)
{
	const char *name = params->name != NULL ? params->name : "engine";
	struct tfo_engine *e;
	uint32_t room;
	char mz[64];
	int rc;

	rc = check_params(params);
	if (rc != 0) {
		rte_errno = -rc;
		return NULL;
	}
	e = rte_zmalloc_socket(name, sizeof(*e), RTE_CACHE_LINE_SIZE,
			       params->socket_id);
	if (e == NULL) {
		TFO_LOG(ERR, "%s: no memory for the engine", name);
		rte_errno = ENOMEM;
		return NULL;
	}
	e->p = *params;
	e->p.name = name;
	if (e->p.max_request == 0)
		e->p.max_request = 4096;
	if (e->p.mss == 0)
		e->p.mss = 1460;
	if (e->p.rcv_wnd == 0)
		e->p.rcv_wnd = 65535;
	if (e->p.rto_init_ms == 0)
		e->p.rto_init_ms = 1000;
	if (e->p.rto_min_ms == 0)
		e->p.rto_min_ms = 200;
	if (e->p.rto_max_ms == 0)
		e->p.rto_max_ms = 60000;
	if (e->p.idle_timeout_ms == 0)
		e->p.idle_timeout_ms = 30000;
	e->st = params->stats;
	e->tx = params->tx;
	e->pool = params->pool;
	e->now_us = 0;
	e->max_request = e->p.max_request;
	e->rcv_wnd_max = RTE_MIN(e->p.rcv_wnd, e->max_request);
	/* the smallest shift our window needs, at most the configured one */
	while (e->our_ws < e->p.wscale && e->our_ws < 14 &&
	       (e->rcv_wnd_max >> e->our_ws) > 65535)
		e->our_ws++;
	e->resp_cap = e->p.resp_buf_size ? e->p.resp_buf_size : 2048;
	e->buf_size = RTE_ALIGN_CEIL(TFO_BUF_HDR + RTE_MAX(e->resp_cap, e->max_request),
				     RTE_CACHE_LINE_SIZE);
	e->resp_cap = e->buf_size - TFO_BUF_HDR;
	e->nb_bufs = e->p.nb_bufs ? e->p.nb_bufs :
		     RTE_MIN(RTE_MAX(e->p.max_conns / 4, 256u), 16384u);

	room = rte_pktmbuf_data_room_size(e->pool);
	if (room < (uint32_t)RTE_PKTMBUF_HEADROOM + e->p.mss) {
		TFO_LOG(ERR, "%s: mbufs of %u bytes cannot carry headroom %u + MSS %u",
			name, room, RTE_PKTMBUF_HEADROOM, e->p.mss);
		rte_errno = EINVAL;
		goto fail;
	}
	for (unsigned int i = 0; i < e->p.nb_ports; i++) {
		const struct tfo_port_info *pi = &e->p.ports[i];
		uint32_t mtu = pi->mtu ? pi->mtu : 1500;

		e->mss4[i] = (uint16_t)RTE_MIN((uint32_t)e->p.mss, mtu - 40);
		e->mss6[i] = (uint16_t)RTE_MIN((uint32_t)e->p.mss - 20, mtu - 60);
		for (unsigned int a = 0; a < pi->nb_addrs; a++)
			if (pi->addr_base + a < RTE_DIM(e->laddr))
				e->laddr[pi->addr_base + a] = pi->addrs[a].addr;
	}

	snprintf(mz, sizeof(mz), "%s_ct", name);
	e->ct = tfo_conn_table_create(mz, e->p.max_conns, e->p.socket_id);
	if (e->ct == NULL)
		goto fail;
	snprintf(mz, sizeof(mz), "%s_tw", name);
	e->tw = tfo_timer_wheel_create(mz, e->p.socket_id, TFO_WHEEL_SLOTS,
				       TFO_TICK_SHIFT, tfo_conn_array(e->ct),
				       sizeof(struct tfo_conn),
				       offsetof(struct tfo_conn, timer),
				       e->p.max_conns, 0);
	if (e->tw == NULL)
		goto fail;
	snprintf(mz, sizeof(mz), "%s_bufs", name);
	e->bufs = rte_malloc_socket(mz, (size_t)e->nb_bufs * e->buf_size,
				    RTE_CACHE_LINE_SIZE, e->p.socket_id);
	snprintf(mz, sizeof(mz), "%s_buffree", name);
	e->buf_free = rte_malloc_socket(mz, (size_t)e->nb_bufs * sizeof(uint32_t),
					0, e->p.socket_id);
	e->hold_cap = RTE_MAX(e->p.tfo_pending_limit, 1u);
	snprintf(mz, sizeof(mz), "%s_hold", name);
	e->hold = rte_malloc_socket(mz, (size_t)e->hold_cap * sizeof(uint64_t),
				    0, e->p.socket_id);
	if (e->bufs == NULL || e->buf_free == NULL || e->hold == NULL) {
		TFO_LOG(ERR, "%s: no memory for %u buffers of %u bytes", name,
			e->nb_bufs, e->buf_size);
		rte_errno = ENOMEM;
		goto fail;
	}
	for (uint32_t i = 0; i < e->nb_bufs; i++)
		e->buf_free[i] = e->nb_bufs - 1 - i;
	e->nb_buf_free = e->nb_bufs;

	if (getrandom(e->isn_key, sizeof(e->isn_key), 0) != (ssize_t)sizeof(e->isn_key) ||
	    getrandom(&e->sc_secret, sizeof(e->sc_secret), 0) !=
	    (ssize_t)sizeof(e->sc_secret)) {
		TFO_LOG(ERR, "%s: getrandom failed", name);
		rte_errno = EIO;
		goto fail;
	}
	/* the engine's own reference keeps it from reaching 0 */
	e->shinfo.free_cb = ext_free_noop;
	e->shinfo.fcb_opaque = e;
	rte_mbuf_ext_refcnt_set(&e->shinfo, 1);
	TFO_LOG(DEBUG, "%s: %u connections, %u buffers of %u bytes, %.1f MiB",
		name, e->p.max_conns, e->nb_bufs, e->buf_size,
		(double)tfo_engine_memory(e) / (1 << 20));
	return e;

fail:
	tfo_engine_free(e);
	return NULL;
}

static void
free_one(struct tfo_conn *c, void *arg)
{
	conn_free(arg, c, -1);
}

void
tfo_engine_free(struct tfo_engine *e)
{
	if (e == NULL)
		return;
	if (e->ct != NULL && e->tw != NULL)
		tfo_conn_foreach(e->ct, free_one, e);
	tfo_timer_wheel_free(e->tw);
	tfo_conn_table_free(e->ct);
	rte_free(e->bufs);
	rte_free(e->buf_free);
	rte_free(e->hold);
	finish(e);
	rte_free(e);
}
