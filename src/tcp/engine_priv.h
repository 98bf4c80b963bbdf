/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath (private to src/): the TCP engine's state and the helpers its
 * files share. engine.h has the contract; the engine is split as FreeBSD
 * splits its stack, in call order: tcp_input.c (segments of a connection)
 * -> tcp_service.c (the service bridge) -> tcp_output.c (building frames),
 * tcp_sack.c (SACK blocks and recovery),
 * tcp_timer.c (RTO, persist, idle, TIME-WAIT), tcp_open.c (SYNs, SYN
 * cookies, segments of no connection), engine.c (create, free, connection
 * life, queries).
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
 * while quiet. TIME-WAIT is no entry's: a record in the table's ring of
 * them (struct tfo_tw), due in the order they were made.
 */
#ifndef TFO_ENGINE_PRIV_H
#define TFO_ENGINE_PRIV_H

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_mbuf.h>

#include "cookie/syncookie.h"
#include "net/pkt.h"
#include "net/tcpopt.h"
#include "net/tx.h"
#include "tcp/access_log.h"
#include "tcp/conn.h"
#include "tcp/engine.h"
#include "tcp/latency.h"
#include "tcp/seq.h"
#include "tcp/timer.h"

#include "cookie/siphash.h"

#define TFO_TS_OPT_LEN 12
#define TFO_MIN_MSS 88			/* Linux's TCP_MIN_MSS */
#define TFO_DEFAULT_MSS_V4 536		/* RFC 9293 3.7.1 */
#define TFO_DEFAULT_MSS_V6 1220		/* RFC 8200 MTU - 60 */
#define TFO_BUF_HDR 64			/* struct tfo_sndq, one cache line */
#define TFO_EXT_MIN 256			/* smaller body slices are copied */
#define TFO_CHALLENGE_PER_S 1000	/* RFC 5961 section 7 */
#define TFO_DUP_SYN_INTERVAL_MS 500	/* Linux's tcp_invalid_ratelimit */
#define TFO_TICK_SHIFT 10		/* timer tick 1.024 ms */
#define TFO_WHEEL_SLOTS 16384		/* 16.8 s per rotation */
#define TFO_CWND_MAX (1u << 30)
#define TFO_RTT_MAX_MS 8000		/* srtt8 fits 16 bits */
#define TFO_EVICT_SAMPLE 32		/* entries looked at per eviction */
#define TFO_EVICT_IDLE_MIN_MS 1000	/* younger idle: its request may be on the way */

/* Head of a send buffer: what of the response is still unacknowledged. */
struct tfo_sndq {
	const struct tfo_blob *body;
	uint32_t body_off;	/* first unacked body byte */
	uint32_t body_len;	/* unacked body bytes */
	uint32_t buf_off;	/* first unacked byte of the buffer part */
	uint32_t buf_len;	/* end of the buffer part */
	/*
	 * SACK scoreboard (RFC 2018/6675) of the response in flight: the
	 * ranges the peer reported holding above snd_una, sequence numbers,
	 * sorted and disjoint (the highest is dropped when a fifth comes).
	 * Here and not in tfo_conn, which must stay two cache lines; only
	 * responses that span several segments ever use it.
	 */
	uint32_t sack_l[TFO_SACK_BLOCKS_MAX];
	uint32_t sack_r[TFO_SACK_BLOCKS_MAX];
	uint32_t high_rxt;	/* RFC 6675 HighRxt: holes resent below it */
	uint8_t nsack;
	uint8_t sack_rec;	/* the recovery in progress is SACK-driven */
	uint16_t idle;		/* the response's tfo_svc_resp.idle_ms, as
				 * tfo_idle_code() packs it (0: the default) */
};

/*
 * The header of a request buffer (rbuf), where a send buffer has its
 * tfo_sndq: how many of the held bytes, from the first, came as data in
 * the SYN (tfo_svc_ctx.in_syn of the requests they begin).
 */
struct tfo_rbuf_hdr {
	uint16_t syn_held;
};

/*
 * A service's idle timeout in 16 bits (tfo_conn.idle_code): ms up to
 * 32,767, whole seconds (high bit set) above, up to 32,767 s; 0: none.
 */
static inline uint16_t
tfo_idle_code(uint32_t ms)
{
	if (ms == 0)
		return 0;
	if (ms < 0x8000)
		return (uint16_t)ms;
	return (uint16_t)(0x8000 | RTE_MIN(ms / 1000, 0x7fffu));
}

static inline uint64_t
tfo_idle_code_us(uint16_t code)
{
	return code & 0x8000 ? (uint64_t)(code & 0x7fff) * 1000000 :
			       (uint64_t)code * 1000;
}

_Static_assert(sizeof(struct tfo_sndq) <= TFO_BUF_HDR,
	       "the send queue header is one cache line");

/* One source's count in a struct tfo_src_tab. */
struct tfo_src_ent {
	uint64_t key;
	uint32_t n;
	uint32_t pad;
};

/*
 * A count per source (IPv4 address, IPv6 /64): open addressing, linear
 * probing, n == 0 is a free slot, backward-shift deletion. Sized to at
 * least twice the most sources it can hold, so it never fills. Used for
 * the pending TFO opens (per worker) and for the entries of the slow
 * path's table (per-source connection limit).
 */
struct tfo_src_tab {
	struct tfo_src_ent *ent;	/* NULL: no per-source limit */
	uint32_t mask;
	uint32_t used;
};

struct tfo_engine {
	struct tfo_engine_params p;
	struct tfo_conn_table *ct;
	struct tfo_conn *conns;		/* ct's entries: conn_idx() without a call */
	struct tfo_timer_wheel *tw;
	struct tfo_stats *st;
	struct tfo_tx *tx;
	struct tfo_lat *lat;		/* NULL: no latency samples */
	struct rte_mempool *pool;
	uint64_t now_us;
	bool clock_started;		/* the wheel runs on the caller's clock */
	bool draining;			/* tfo_engine_drain: no keep-alive any more */
	struct rte_mbuf *spare;		/* consumed input mbuf, reusable */
	uint32_t key_gen;		/* entries given a key (tfo_tcp_conn_new) */
	uint32_t lookup_gen;		/* key_gen at the last lookup_bulk */
	unsigned int nxmit;		/* segments built so far (any kind) */
	bool tx_low;			/* frames built now are re-sent answers:
					 * queued last (tfo_tx_push_low) */

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

	/* pending TFO and its hold after resets (FIFO of expiry times and
	 * the source each one counts against) */
	uint32_t pending_live;
	uint32_t hold_cap, hold_head, hold_n;
	uint64_t *hold;
	uint64_t *hold_src;

	/* pending TFO per source: at most one source per pending or held
	 * open, so twice the pending limit never fills */
	struct tfo_src_tab pend_src;
	/* entries per source (conn_per_source): one per entry at most */
	struct tfo_src_tab conn_src;
	uint64_t src_seed;		/* both tables' hash seed */
	uint32_t evict_cursor;		/* where the next victim sample starts */

	/* challenge ACK rate limit */
	uint64_t chal_sec;
	uint32_t chal_n;

	struct tfo_siphash_key isn_key;	/* RFC 6528 F and TSval offsets */
	enum tfo_simd isn_simd;		/* the lanes of a burst's isn_key hashes */
	struct tfo_syncookie_secret sc_secret;
	struct rte_mbuf_ext_shared_info shinfo;

	uint32_t nstate[TFO_CONN_NB_STATES];
	uint16_t mss4[TFO_MAX_PORTS];
	uint16_t mss6[TFO_MAX_PORTS];
	struct tfo_addr laddr[256];	/* by global local_idx */
};

/* ---- small helpers ----------------------------------------------------- */

static inline uint32_t
rd32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

/* The per-source key of an address (IPv4, or an IPv6 /64); inline as
 * every open and close computes it. */
static inline uint64_t
tfo_tcp_src_key(const struct tfo_addr *a, uint8_t family)
{
	uint64_t k;

	/* the top 32 bits of an IPv4 key are a /32 no IPv6 source has */
	if (family == AF_INET)
		return 0xffffffff00000000ull | rd32(a->b);
	memcpy(&k, a->b, sizeof(k));
	return rte_be_to_cpu_64(k);
}

/* Count one of @p id in the engine's counters (its worker's). */
static inline void
tfo_tcp_stat_inc(struct tfo_engine *e, enum tfo_stat_id id)
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

/*
 * The request deadline (request_timeout_ms). Its start is kept in 16 bits
 * of TFO_REQ_TICK_MS (the connection has no room for more), rounded down:
 * the deadline may come up to one tick early, never late. The ticks wrap
 * after 70 min, beyond TFO_REQ_TIMEOUT_MAX_MS, and the idle timer fires at
 * the deadline at the latest, so a start is never read after a wrap.
 */
static inline uint64_t
req_tick(const struct tfo_engine *e)
{
	return e->now_us / (TFO_REQ_TICK_MS * 1000);
}

/* The held request starts now (its first byte, or the previous response
 * drained and it is the one we wait for). */
static inline void
req_begin(const struct tfo_engine *e, struct tfo_conn *c)
{
	c->req_start = (uint16_t)req_tick(e);
}

static inline bool
req_timed(const struct tfo_engine *e, const struct tfo_conn *c)
{
	return e->p.request_timeout_ms != 0 && c->req_len > 0;
}

/* Microseconds until the held request's deadline, 0 when it is past. */
static inline uint64_t
req_left_us(const struct tfo_engine *e, const struct tfo_conn *c)
{
	uint64_t now_t = req_tick(e);
	uint64_t start_t = now_t - (uint16_t)((uint16_t)now_t - c->req_start);
	uint64_t deadline = (start_t * TFO_REQ_TICK_MS + e->p.request_timeout_ms) * 1000;

	return deadline > e->now_us ? deadline - e->now_us : 0;
}

static inline uint32_t
tsval(const struct tfo_engine *e, const struct tfo_conn *c)
{
	return now_ms(e) + c->ts_off;
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
	return (uint32_t)(c - e->conns);	/* tfo_conn_index(), inline */
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

/* The send queue of @p c (c->sbuf must be a buffer). */
static inline struct tfo_sndq *
tfo_tcp_sndq(const struct tfo_engine *e, const struct tfo_conn *c)
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

/* Queue our FIN after the send queue (the service is not called again):
 * tfo_tcp_queue_fin, inline for the service bridge's closing response. */
static inline void
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

/* Unacknowledged data bytes in the send queue. */
static inline uint32_t
unacked_len(const struct tfo_engine *e, const struct tfo_conn *c)
{
	const struct tfo_sndq *q;

	if (c->sbuf == TFO_CONN_NONE)
		return 0;
	q = tfo_tcp_sndq(e, c);
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

static inline const struct tfo_service_inst *
find_service(const struct tfo_engine *e, uint16_t port, unsigned int *idx)
{
	for (unsigned int i = 0; i < e->p.nb_services; i++)
		if (e->p.services[i].port == port) {
			*idx = i;
			return &e->p.services[i];
		}
	return NULL;
}

static inline void
pending_gauge(struct tfo_engine *e)
{
	e->st->c[TFO_STAT_tfo_pending] = e->pending_live + e->hold_n;
}

/* Per-source counts (engine.c): add one to @p key; drop one. */
void tfo_src_add(struct tfo_engine *e, struct tfo_src_tab *t, uint64_t key);
void tfo_src_release(struct tfo_engine *e, struct tfo_src_tab *t, uint64_t key);

/* @p c (TFO_CF_TFO_PENDING) no longer pending, its source @p key's count
 * dropped with it (no hold): inline at every TFO handshake's ACK. */
static inline void
pending_release(struct tfo_engine *e, struct tfo_conn *c, uint64_t key)
{
	c->flags &= (uint16_t)~TFO_CF_TFO_PENDING;
	e->pending_live--;
	tfo_src_release(e, &e->pend_src, key);
	pending_gauge(e);
}

static inline void
hold_expire(struct tfo_engine *e)
{
	bool changed = false;

	while (e->hold_n > 0 && e->hold[e->hold_head] <= e->now_us) {
		tfo_src_release(e, &e->pend_src, e->hold_src[e->hold_head]);
		e->hold_head = (e->hold_head + 1) % e->hold_cap;
		e->hold_n--;
		changed = true;
	}
	if (changed)
		pending_gauge(e);
}

/* ---- mbufs ------------------------------------------------------------- */

/* Done reading the input frame: keep it to build the first reply in.
 * Always inline: every segment's input ends here (GCC kept a copy out of
 * line in tcp_input.c). */
static __rte_always_inline void
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

/* At the end of each entry point: the input frame kept for a first reply
 * (release_input) that no reply took is freed. */
static inline void
tfo_tcp_spare_free(struct tfo_engine *e)
{
	if (e->spare != NULL) {
		/* release_input kept it only direct, of one segment and held
		 * by us alone: none of rte_pktmbuf_free's checks can apply */
		rte_mbuf_raw_free(e->spare);
		e->spare = NULL;
	}
}


/* Timestamps of a non-SYN segment (fast path for Linux's NOP,NOP,TS). */
static inline bool
seg_ts(const struct rte_mbuf *m, const struct tfo_pkt *p, uint32_t *val,
       uint32_t *ecr)
{
	unsigned int olen = p->l4_len - TFO_TCP_HDR_LEN;
	const uint8_t *o;
	struct tfo_tcpopts opts;

	if (olen == 0)
		return false;
	o = tfo_pkt_tcp_hdr(m, p) + TFO_TCP_HDR_LEN;
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

/* A fresh response in the send buffer: nothing SACKed yet. */
static inline void
sack_reset(struct tfo_sndq *q)
{
	q->nsack = 0;
	q->sack_rec = 0;
}

/* ---- across the engine's files --------------------------------------- */

/* A return of the service bridge (tcp_service.c) and of the input steps
 * that call it: the connection was reset and freed, do not touch it. */
enum { TFO_TCP_CONN_GONE = -1 };

/* tcp_output.c */
struct rte_mbuf *tfo_tcp_out_mbuf(struct tfo_engine *e, uint32_t copy);
int tfo_tcp_push_frame(struct tfo_engine *e, struct rte_mbuf *m, uint8_t port_idx,
		       const struct tfo_route *r, const struct tfo_tcp_out *t);
int tfo_tcp_xmit(struct tfo_engine *e, struct tfo_conn *c, uint32_t seq,
		 uint8_t flags, uint32_t doff, uint32_t len);
/*
 * The pure ACK of @p c that send_ack() would send, built in place over
 * @p m, the segment @p p of @p c (its tuple matched) that it answers, and
 * queued. The caller knows that this ACK, and nothing else, is its answer.
 * Taken only when the frame has our layout (no IP options or extension
 * headers, the entry's VLAN, NOP, NOP, TS as its only option, timestamps
 * on), is direct, of one segment and ours alone. @return true: @p m is
 * taken (the ACK is queued); false: nothing was touched, the caller
 * releases @p m and sends the ACK the general way.
 */
bool tfo_tcp_ack_in_place(struct tfo_engine *e, struct tfo_conn *c, struct rte_mbuf *m,
			  const struct tfo_pkt *p);
int tfo_tcp_send_synack(struct tfo_engine *e, struct tfo_conn *c, bool data_ok,
			uint8_t form, uint8_t cookie_len, const uint8_t *cookie);
void tfo_tcp_send_rst_nomatch(struct tfo_engine *e, struct rte_mbuf *m,
			      const struct tfo_pkt *p, uint8_t port_idx);
void tfo_tcp_output_loop(struct tfo_engine *e, struct tfo_conn *c);

/*
 * Send what the windows allow from snd_nxt (tfo_tcp_output_loop). Most
 * calls find nothing due (the response left in the SYN-ACK, a pure ACK):
 * that is known here from snd_nxt, the queue and the FIN, before a call
 * (always inline: GCC kept a copy out of line, a call to decide on one).
 */
static __rte_always_inline void
tfo_tcp_output(struct tfo_engine *e, struct tfo_conn *c)
{
	uint32_t off = c->snd_nxt - data_start(c), total = unacked_len(e, c);

	if (off < total || (fin_pending(c) && off == total))
		tfo_tcp_output_loop(e, c);
}

uint32_t tfo_tcp_retransmit_first(struct tfo_engine *e, struct tfo_conn *c);

/* tcp_sack.c */
void tfo_tcp_sack_input(struct tfo_engine *e, struct tfo_conn *c,
			const struct rte_mbuf *m, const struct tfo_pkt *p);
void tfo_tcp_sack_acked(struct tfo_engine *e, struct tfo_conn *c, uint32_t ack);
bool tfo_tcp_sack_lost(const struct tfo_engine *e, const struct tfo_conn *c);
bool tfo_tcp_sack_enter(struct tfo_engine *e, struct tfo_conn *c);
bool tfo_tcp_sack_partial(struct tfo_engine *e, struct tfo_conn *c, uint32_t ack);
void tfo_tcp_sack_output(struct tfo_engine *e, struct tfo_conn *c);
uint32_t tfo_tcp_sack_credit(const struct tfo_engine *e, const struct tfo_conn *c);

/* engine.c: connection life */
/* Admission of a TFO open from @p src: 0, -EBUSY (per-core limit, counted:
 * TCPFastOpenListenOverflow) or -EDQUOT (per-source cap, counted:
 * tfo_pending_source_overflow), by tfo_syn_pending_admit. */
int tfo_tcp_pending_admit(struct tfo_engine *e, uint64_t src);
/* @p c (from @p src) becomes pending. */
void tfo_tcp_pending_add(struct tfo_engine *e, struct tfo_conn *c, uint64_t src);
void tfo_tcp_conn_free(struct tfo_engine *e, struct tfo_conn *c, int why);
/* What @p c holds besides its entry: timer, buffers, pending TFO (held
 * after a reset when @p rst_rx), its per-source count. */
void tfo_tcp_conn_release(struct tfo_engine *e, struct tfo_conn *c, bool rst_rx);
/* A new entry for @p key (from @p p's source) within the per-source limit,
 * evicting a connection first when the table is under pressure (evict,
 * fewer than 1/8 of the entries free). NULL with *err: -EDQUOT over the
 * limit (counted: conn_source_limit); -ENOSPC with *exists set for a
 * duplicate, NULL for no room (not counted). */
struct tfo_conn *tfo_tcp_conn_new(struct tfo_engine *e, const struct tfo_conn_key *key,
				  struct tfo_conn **exists, int *err);
void tfo_tcp_conn_reset(struct tfo_engine *e, struct tfo_conn *c,
			enum tfo_stat_id why);
void tfo_tcp_queue_fin(struct tfo_engine *e, struct tfo_conn *c);

/* tcp_timer.c */
void tfo_tcp_update_timer(struct tfo_engine *e, struct tfo_conn *c);
/* @p c's TIME-WAIT begins: its entry becomes a record (freed at once
 * without one). */
void tfo_tcp_time_wait(struct tfo_engine *e, struct tfo_conn *c);
/* The record @p w is gone (counted @p why when >= 0). */
void tfo_tcp_tw_end(struct tfo_engine *e, struct tfo_tw *w, int why);

/* tcp_service.c */
int tfo_tcp_deliver(struct tfo_engine *e, struct tfo_conn *c,
		    const struct rte_mbuf *m, uint32_t off, uint32_t len, bool in_syn);
int tfo_tcp_after_drain(struct tfo_engine *e, struct tfo_conn *c);

/* tcp_input.c */
int tfo_tcp_conn_input(struct tfo_engine *e, struct tfo_conn *c,
		       struct rte_mbuf *m, const struct tfo_pkt *p);
int tfo_tcp_tw_input(struct tfo_engine *e, struct tfo_tw *w,
		     struct rte_mbuf *m, const struct tfo_pkt *p);
/* The entry TIME-WAIT record @p w stands for, into @p c: what
 * tfo_tcp_tw_input() answers with, on the stack (tests/test_time_wait.c
 * makes a full entry of it and checks both answer the same). */
void tfo_tcp_tw_conn(const struct tfo_tw *w, struct tfo_conn *c);

static inline void
send_ack(struct tfo_engine *e, struct tfo_conn *c)
{
	tfo_tcp_xmit(e, c, c->snd_max, TFO_TCP_ACK, 0, 0);
}

#endif /* TFO_ENGINE_PRIV_H */
