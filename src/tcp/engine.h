/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the TCP engine for short request/response connections.
 *
 * One instance per lcore (each worker for the fast path, the control core
 * for the slow path), each with its own connection table, pool, timer
 * wheel and counters; nothing is shared. Everything is sized at create();
 * the input functions allocate nothing but mbufs, take no locks and make no
 * system calls. The engine never touches a device: it writes ready frames
 * into the caller's struct tfo_tx, so it runs in memory under a fake clock.
 *
 * Time is the caller's monotonic clock in microseconds (now_us).
 *
 * Behaviour chosen here (details in src/tcp/engine_priv.h and the tcp_*.c files):
 * - A request over max_request (the service still says NEED_MORE with
 *   max_request bytes held) resets the connection: req_too_big. The receive
 *   window advertised is the request buffer's free space, so a well-behaved
 *   client never overruns it; bytes beyond it are trimmed (rx_trimmed).
 * - One response in flight per connection: a pipelined request is handed to
 *   the service when the previous response is fully acknowledged (in
 *   order; the service always gets the whole resp_buf_size).
 * - Out-of-order segments are dropped and answered with a duplicate ACK
 *   (no SACK blocks of ours: requests are small).
 * - SACK as a sender (RFC 2018, RFC 6675 simplified; src/tcp/tcp_sack.c): the
 *   SYN-ACK echoes SACK-permitted when the SYN carried it (a SYN cookie
 *   keeps it only with timestamps: its bits ride in the TSval). The blocks
 *   of the response in flight are kept (4 ranges, in the send buffer's
 *   header); fast recovery starts on the third duplicate ACK or when more
 *   than 2 segments are SACKed above snd_una, resends every hole below the
 *   highest SACK in order as pipe allows, then new data. D-SACK and blocks
 *   outside [snd_una, snd_max] are ignored (sack_blocks_ignored); an RTO
 *   forgets the blocks (the peer may renege) and goes back to snd_una.
 *   Without SACK-permitted: NewReno.
 * - TIME-WAIT lasts time_wait_ms (0: the entry is freed when it would
 *   enter TIME-WAIT); RSTs are ignored in it (RFC 1337); a SYN with a
 *   higher ISN or a newer timestamp reopens the tuple (TFO_INPUT_REOPEN).
 *   The entry is freed as TIME-WAIT begins: a 64-byte record (tuple,
 *   sequence numbers, timestamps, route) answers for the tuple, as Linux's
 *   timewait sockets. With time_wait_max records live, a new one ends the
 *   oldest early (time_wait_recycled): TIME-WAIT never refuses a
 *   connection, it only gets shorter beyond time_wait_max /
 *   time_wait_ms new connections per ms.
 * - SYN-ACK retransmissions (timer) carry no data and no TFO option; the
 *   response follows as ordinary segments when the handshake ACK arrives
 *   (at once if that ACK acks only the SYN). A duplicate SYN re-sends the
 *   first flight (data in the SYN-ACK only when the duplicate carries a TFO
 *   option) without calling the service again.
 * - Our window is the request buffer's free room, min(rcv_wnd,
 *   max_request) - request bytes held, and our window scale the smallest
 *   shift that window needs (<= params wscale): 0 while requests are
 *   limited to 64 KiB, so windows are exact ([tcp] rcv_wnd_max, wscale_max).
 * - MSS advertised: params.mss for IPv4, params.mss - 20 for IPv6, each at
 *   most the port's MTU - 40 / - 60; segments carry at most
 *   min(peer MSS, ours) - TCP option bytes.
 *
 * Counters: the engine increments everything in TFO_STATS_ENGINE and,
 * from TFO_STATS_TFO, only TCPFastOpenPassive (a tfo_engine_open() with
 * accept_data that succeeded). TCPFastOpenPassiveFail, ListenOverflow,
 * CookieReqd and PassiveAltKey belong to the caller (it checks cookies and
 * the pending limit). mbuf_alloc_fail is shared.
 *
 * Response bodies (struct tfo_blob) go out as external mbuf buffers that
 * point at the blob and at one rte_mbuf_ext_shared_info of the engine:
 * free the engine only once its frames have left the TX queues.
 */
#ifndef TFO_ENGINE_H
#define TFO_ENGINE_H

/* request_timeout_ms's ceiling: the start is kept in 16 bits of 64 ms */
#define TFO_REQ_TICK_MS 64
#define TFO_REQ_TIMEOUT_MAX_MS 3600000

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "net/pkt.h"
#include "cookie/syncookie.h"
#include "tfo/service.h"
#include "ops/stats.h"
#include "net/tcpopt.h"
#include "tcp/syn_admit.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_tx;

/* ---- creation ---------------------------------------------------------- */

struct tfo_lat;		/* tcp/latency.h */

struct tfo_engine_params {
	const char *name;		/**< for memzone names and logs */
	int socket_id;
	uint32_t max_conns;		/**< connection pool size */
	uint32_t max_request;		/**< bytes of one request, at most
					 *   (64..65535; 0: 4096) */
	uint32_t nb_bufs;		/**< request/response buffers (0: derive:
					 *   max_conns / 4, in 256..16384) */
	uint32_t resp_buf_size;		/**< bytes a service may write per
					 *   response (0: 2048); a buffer holds
					 *   max(this, max_request) */
	uint16_t mss;			/**< the MSS we advertise (IPv4; 0: 1460) */
	uint8_t wscale;			/**< our window scale shift at most */
	uint32_t rcv_wnd;		/**< our receive window at most, bytes
					 *   (0: 65535); also capped by the
					 *   request buffer's free space */
	uint32_t rto_init_ms;		/**< RFC 6298: 1000 (0: 1000) */
	uint32_t rto_min_ms;		/**< 0: 200 */
	uint32_t rto_max_ms;		/**< 0: 60000 */
	uint8_t max_retries;		/**< data retransmissions (and zero-window
					 *   probes) before RST; taken as is (0:
					 *   none) */
	uint8_t synack_retries;		/**< SYN-ACK retransmissions before free;
					 *   taken as is (0: none) */
	uint32_t idle_timeout_ms;	/**< keep-alive idle limit, then FIN; also
					 *   the FIN_WAIT_2 limit (0: 30000) */
	uint32_t request_timeout_ms;	/**< a request must be complete this long
					 *   after its first byte (or after the
					 *   previous response drained), else RST;
					 *   partial data does not extend it; at
					 *   most TFO_REQ_TIMEOUT_MAX_MS, 0 = none */
	uint32_t time_wait_ms;		/**< TIME-WAIT hold, 0 = none */
	uint32_t time_wait_max;		/**< TIME-WAIT records at most (0:
					 *   max_conns); the oldest is ended
					 *   early to make room */
	uint32_t tfo_pending_limit;	/**< pending TFO opens allowed */
	uint32_t tfo_pending_hold_ms;	/**< a reset pending open stays counted */
	uint32_t tfo_pending_per_source; /**< pending (and held) TFO opens of one
					 *   source address (IPv6: /64) at most,
					 *   0 = no per-source cap */
	uint32_t conn_per_source;	/**< entries of one source address (IPv6:
					 *   /64) at most; a new connection over it
					 *   is refused (conn_source_limit), 0 = no
					 *   limit */
	bool evict;			/**< with fewer than 1/8 of the entries
					 *   free, a new connection resets an idle
					 *   keep-alive one, else the one whose
					 *   request is oldest (conn_evicted_idle,
					 *   conn_evicted_slow) */
	bool syncookies;		/**< answer SYNs statelessly when full */
	struct rte_mempool *pool;	/**< mbufs for what we send */
	const struct tfo_port_info *ports;	/**< port table, by port_idx */
	uint16_t nb_ports;
	const struct tfo_service_inst *services;
	unsigned int nb_services;
	struct tfo_stats *stats;	/**< this lcore's counters */
	struct tfo_tx *tx;		/**< this lcore's TX buffer */
	/** this lcore's latency histograms and access-log producer
	 *  (tcp/latency.h): each response queued is a pending sample
	 *  there; NULL: none */
	struct tfo_lat *lat;
};

struct tfo_engine;
struct tfo_conn;

/** @return an engine, or NULL with rte_errno set (and a log line why). */
struct tfo_engine *tfo_engine_create(const struct tfo_engine_params *p);
/** Free the engine; connections still open are dropped silently. */
void tfo_engine_free(struct tfo_engine *e);

/* ---- input ------------------------------------------------------------- */

/**
 * Look up the connections of @p n (<= 64) parsed TCP segments in one bulk
 * operation. @p conns[i] is NULL on a miss.
 */
void tfo_engine_lookup_bulk(struct tfo_engine *e, const struct tfo_pkt *const *pkts,
			    unsigned int n, struct tfo_conn **conns);

/** How to answer a SYN that opens a new connection. */
struct tfo_open_params {
	const struct tfo_tcpopts *opts;	/**< the SYN's parsed options */
	bool accept_data;	/**< TFO: deliver the SYN's payload now and put
				 *   the response into the SYN-ACK (counts as a
				 *   pending TFO open until the handshake ACK) */
	bool admitted;		/**< accept_data: the caller's verdict admitted
				 *   it against tfo_engine_tfo_pending_get() and
				 *   no TFO open was added since: not checked
				 *   again (one admission per SYN) */
	uint8_t cookie_form;	/**< enum tfo_opt_form for the SYN-ACK's TFO
				 *   option; TFO_FORM_NONE: no TFO option */
	uint8_t cookie_len;	/**< cookie to offer, 0 = none */
	const uint8_t *cookie;
	bool has_conn_hash;	/**< conn_hash holds this SYN's value from
				 *   tfo_engine_conn_hash_burst() (same engine
				 *   secrets); else the engine computes it */
	uint64_t conn_hash;
};

/**
 * The per-connection secret hash (RFC 6528 ISN function and TSval offset)
 * of the tuples of the @p n SYNs @p p (n <= TFO_TX_BUF) into @p out, in
 * SIMD lanes: what tfo_engine_open() computes one by one, for
 * tfo_open_params.conn_hash. @p out has room for TFO_TX_BUF values (the
 * lanes past @p n are written too).
 */
void tfo_engine_conn_hash_burst(const struct tfo_engine *e,
				const struct tfo_pkt *const *p, unsigned int n,
				uint64_t *out);

/**
 * Open a connection for the SYN @p m/@p p (which missed in the table),
 * arrived on port @p port_idx: create the entry, send the SYN-ACK; with
 * accept_data also run the service on the SYN's payload and send the
 * response in the SYN-ACK (and right behind it, within the initial window);
 * a SYN without a TFO option (cookie-less mode) gets a bare SYN-ACK with
 * the response right behind it. A SYN without accept_data that carries
 * data is answered acking only the SYN (the data is dropped). If no
 * request/response buffer is free, the SYN's data is not acked either (the
 * client sends it again after the handshake; buf_pool_empty).
 *
 * @return 0 (@p m consumed), or without consuming @p m:
 *   -ENOSPC  the pool is full (counted; caller drops it or, on the control
 *            core, answers with a SYN cookie),
 *   -EBUSY   accept_data (not admitted) but the pending-TFO limit is reached (counted:
 *            TCPFastOpenListenOverflow),
 *   -EDQUOT  accept_data but the source's pending-TFO cap is reached
 *            (counted: tfo_pending_source_overflow), or the source holds
 *            conn_per_source entries (counted: conn_source_limit; treat
 *            it as -ENOSPC),
 *   -ENOENT  no service on the destination port.
 * With evict set and fewer than 1/8 of the entries free, one idle or slow
 * connection may be reset first to make room (see tfo_engine_params.evict).
 * A SYN-cookie ACK (tfo_engine_input_nomatch) is held to conn_per_source
 * the same way: over it, it is answered with a RST.
 */
int tfo_engine_open(struct tfo_engine *e, struct rte_mbuf *m,
		    const struct tfo_pkt *p, uint8_t port_idx,
		    const struct tfo_open_params *op, uint64_t now_us);

/** Results of tfo_engine_input(). */
enum tfo_input_result {
	TFO_INPUT_DONE = 0,	/**< handled, @p m consumed */
	TFO_INPUT_REOPEN = 1,	/**< a new SYN replaced a TIME-WAIT entry: the
				 *   entry is gone, @p m NOT consumed; handle
				 *   it like a SYN that missed */
	TFO_INPUT_MISS = 2,	/**< @p c was freed (e.g. by an earlier segment
				 *   of the same burst) and @p p's tuple has no
				 *   entry now: @p m NOT consumed; handle it
				 *   like a lookup miss */
};

/**
 * Process segment @p m/@p p for the connection @p c found by the engine's
 * last tfo_engine_lookup_bulk(). A SYN with the connection's ISN re-sends
 * the first flight (the service is not called again). @p c may be stale
 * (freed or reused by an earlier segment of the same burst): the engine
 * checks the tuple when the entry was freed or an open came since that
 * lookup, and looks it up again.
 *
 * @return enum tfo_input_result.
 */
int tfo_engine_input(struct tfo_engine *e, struct tfo_conn *c,
		     struct rte_mbuf *m, const struct tfo_pkt *p, uint64_t now_us);

/**
 * A segment that matched no connection on this engine (control core only):
 * a valid SYN-cookie ACK creates the connection; anything else but a RST is
 * answered with a RST (RFC 9293 rules). Consumes @p m.
 */
void tfo_engine_input_nomatch(struct tfo_engine *e, struct rte_mbuf *m,
			      const struct tfo_pkt *p, uint8_t port_idx,
			      uint64_t now_us);

/**
 * Answer the SYN @p m statelessly with a SYN cookie (RFC 4987), for when the
 * table is full. Consumes @p m.
 */
void tfo_engine_syncookie_reply(struct tfo_engine *e, struct rte_mbuf *m,
				const struct tfo_pkt *p, uint8_t port_idx,
				const struct tfo_tcpopts *opts, uint64_t now_us);

/**
 * As tfo_engine_syncookie_reply, with a TFO option carrying @p cookie
 * (@p cookie_len bytes, in @p cookie_form) when @p cookie_len > 0: a
 * cookie request or a bad cookie answered statelessly still gets its
 * fresh cookie. Consumes @p m; syncookies_sent counts what was queued.
 */
void tfo_engine_syncookie_reply_cookie(struct tfo_engine *e, struct rte_mbuf *m,
				       const struct tfo_pkt *p, uint8_t port_idx,
				       const struct tfo_tcpopts *opts,
				       uint8_t cookie_form, uint8_t cookie_len,
				       const uint8_t *cookie, uint64_t now_us);

/** What a valid SYN-cookie ACK gives back: what the SYN-ACK encoded, and
 *  the ACK's timestamp (the connection's ts_recent). */
struct tfo_syncookie_ack {
	struct tfo_syncookie_info info;
	bool has_ts;
	uint32_t tsval;
};

/**
 * Check the pure ACK @p m/@p p (a miss) against this engine's SYN-cookie
 * secret (engines that shared it with tfo_engine_share_secrets agree). No
 * counter, no state, @p m untouched.
 * @return 0 and @p a filled, or -EINVAL (not a pure ACK, or a bad cookie).
 */
int tfo_engine_syncookie_ack_check(struct tfo_engine *e, const struct rte_mbuf *m,
				   const struct tfo_pkt *p, uint64_t now_us,
				   struct tfo_syncookie_ack *a);

/**
 * Create the ESTABLISHED connection of a SYN-cookie ACK validated already
 * (@p a, from tfo_engine_syncookie_ack_check here or on another engine
 * sharing the secrets) and process @p m on it (conns_opened_syncookie).
 * No room, no service, or the source at conn_per_source: a RST. Consumes
 * @p m. @return 0 if the connection was created, else a negative errno.
 */
int tfo_engine_syncookie_open(struct tfo_engine *e, struct rte_mbuf *m,
			      const struct tfo_pkt *p, uint8_t port_idx,
			      const struct tfo_syncookie_ack *a, uint64_t now_us);

/**
 * A SYN-cookie ACK @p p, validated on a worker, found @p c: this engine's
 * connection of the same tuple. If @p c is a handshake in SYN_RCVD whose
 * SYN-ACK the ACK does not acknowledge, the client took instead the
 * SYN-cookie SYN-ACK a worker gave its retransmitted SYN (under pressure,
 * the worker does not see this table): the cookie stands, @p c is
 * forgotten without a segment (conns_closed_syncookie_won) and true is
 * returned: open from the cookie (tfo_engine_syncookie_open). Else false:
 * @p p is @p c's, for tfo_engine_input.
 */
bool tfo_engine_syncookie_supersedes(struct tfo_engine *e, struct tfo_conn *c,
				     const struct tfo_pkt *p);

/**
 * Make @p dst use @p src's ISN/TSval secret and SYN-cookie secret: a SYN
 * cookie made on one (a worker) is then valid on the other (the control
 * core), and a connection moved between them keeps its TSval clock.
 * At set-up, before any traffic.
 */
void tfo_engine_share_secrets(struct tfo_engine *dst, const struct tfo_engine *src);

/** Results of tfo_engine_ptb(). */
enum tfo_ptb_result {
	TFO_PTB_ACCEPTED = 0,	/**< the MSS went down, the flight was re-sent */
	TFO_PTB_REJECTED_SEQ,	/**< the quoted sequence is not in flight */
	TFO_PTB_IGNORED,	/**< the MTU is not below the connection's path */
};

/**
 * A parsed path-MTU error @p ptb ("fragmentation needed", "packet too big";
 * tfo_pkt_icmp_ptb) for the connection of the quoted, reversed tuple, if
 * this engine has it, quoting our sequence number and reporting an MTU, as
 * Linux takes it: the sequence must be in [snd_una, snd_max) (RFC 5927
 * section 4.1: a blind attacker must not shrink the segments; a connection
 * in TIME-WAIT has nothing in flight); the MTU is raised to the family's
 * floor (TFO_PMTU_MIN_V4, TFO_PMTU_MIN_V6) and must be below the
 * connection's MSS + headers; then the MSS goes down to it and everything
 * in flight is sent again at once from snd_una in the smaller size
 * (tcp_simple_retransmit: not a congestion signal, cwnd and ssthresh are
 * kept). The MSS never goes up again. Counts pmtu_accepted,
 * pmtu_rejected_seq or pmtu_ignored.
 *
 * @return enum tfo_ptb_result, or -ENOENT when no connection here has the
 *   flow (nothing counted: the caller knows whether another lcore may).
 */
int tfo_engine_ptb(struct tfo_engine *e, const struct tfo_ptb *ptb, uint64_t now_us);

/* ---- UDP (`udp = on`) --------------------------------------------------- */

/**
 * A frame tfo_pkt_classify left as a drop (l4_proto) that is UDP to one of
 * our addresses: if its destination port is served with `udp = on`, check
 * its UDP header and checksum, hand the payload to the service (ctx:
 * TFO_SVC_UDP, udp_max from the port's MTU) and queue its answer as one
 * datagram on @p port_idx. The caller keeps and frees @p m.
 *
 * @return -ENOENT: no service serves that port (the frame goes where it
 *   went before: dropped as l4_proto, or the exception path); 1: it was
 *   delivered (answered; or not, for want of an mbuf: mbuf_alloc_fail):
 *   count it in rx_delivered; 0: it was dropped, its frame-drop reason
 *   counted (udp_cksum, svc_udp_too_big, ...).
 */
int tfo_engine_udp_input(struct tfo_engine *e, const struct rte_mbuf *m,
			 struct tfo_pkt *p, uint8_t port_idx);

/** Run expired timers (retransmissions, idle, TIME-WAIT). Call every poll. */
void tfo_engine_timers(struct tfo_engine *e, uint64_t now_us);

/* ---- state ------------------------------------------------------------- */

/**
 * Whether a new TFO open (accept_data) from @p p's source would be within
 * the limits. @return 0; -EBUSY at the per-core pending limit (counted:
 * TCPFastOpenListenOverflow); -EDQUOT at the per-source cap (counted:
 * tfo_pending_source_overflow).
 */
int tfo_engine_tfo_pending_check(struct tfo_engine *e, const struct tfo_pkt *p,
				 uint64_t now_us);

/** The pending-TFO state a new TFO open from @p p's source would join,
 *  into @p s, for tfo_syn_verdict (holds expired first; nothing counted). */
void tfo_engine_tfo_pending_get(struct tfo_engine *e, const struct tfo_pkt *p,
				uint64_t now_us, struct tfo_syn_pending *s);

/** Pending TFO opens now (incl. the ones held after a reset). */
uint32_t tfo_engine_tfo_pending(const struct tfo_engine *e);

/** 1 if a service listens on TCP port @p port (host order). */
int tfo_engine_serves(const struct tfo_engine *e, uint16_t port);

#define TFO_CONN_STATES(X) \
	X(SYN_RCVD) X(ESTABLISHED) X(CLOSE_WAIT) X(LAST_ACK) \
	X(FIN_WAIT_1) X(FIN_WAIT_2) X(CLOSING) X(TIME_WAIT)

enum tfo_conn_state {
	TFO_CONN_CLOSED = 0,
#define TFO_X_ENUM(s) TFO_CONN_##s,
	TFO_CONN_STATES(TFO_X_ENUM)
#undef TFO_X_ENUM
	TFO_CONN_NB_STATES
};

const char *tfo_conn_state_name(enum tfo_conn_state s);

/**
 * The server drains (lcore/drain.h): close with a FIN every keep-alive
 * connection that waits for its next request, now and whenever one
 * finishes a response from now on (drain_keepalive_closed). A connection
 * that has not sent its first request, or is in the middle of one, is
 * served as before. One pass over the table: call it once, on the
 * engine's lcore, when the drain starts.
 */
void tfo_engine_drain(struct tfo_engine *e, uint64_t now_us);

/** Connections per state now; @p out has TFO_CONN_NB_STATES entries. */
void tfo_engine_conn_counts(const struct tfo_engine *e, uint32_t *out);

/** Free entries in the connection pool (tests: back to max_conns after a drain). */
uint32_t tfo_engine_free_conns(const struct tfo_engine *e);

/** Free request/response buffers (tests: back to nb_bufs after a drain). */
uint32_t tfo_engine_free_bufs(const struct tfo_engine *e);

/** No connection entry and no TIME-WAIT record: no timer can be due
 *  (an idle lcore may sleep until a frame comes). */
bool tfo_engine_quiet(const struct tfo_engine *e);

/** TIME-WAIT records now / at most. */
uint32_t tfo_engine_time_wait_count(const struct tfo_engine *e);
uint32_t tfo_engine_time_wait_max(const struct tfo_engine *e);

/**
 * New connections per second this engine holds without shortening
 * TIME-WAIT (time_wait_max records of time_wait_ms each; UINT64_MAX
 * without TIME-WAIT), and with @p rtt_us per connection from SYN to last
 * ACK: what max_conns entries hold, and what pending_limit holds of TFO
 * opens (0: no TFO opens here).
 */
void tfo_engine_capacity(const struct tfo_engine *e, uint32_t rtt_us,
			 uint64_t *tw_per_s, uint64_t *entries_per_s,
			 uint64_t *tfo_per_s);

/** Bytes of memory the engine allocated at create (table, wheel, buffers). */
size_t tfo_engine_memory(const struct tfo_engine *e);

/**
 * Bytes tfo_engine_create(@p params) would allocate, in the three parts
 * of tfo_engine_memory_detail, without creating it (nor needing the EAL):
 * the sizing of --print-config. Only the sizing fields of @p params are
 * read (max_conns, max_request, time_wait_*, tfo_pending_*,
 * conn_per_source, nb_bufs, resp_buf_size). @return 0 or -ENOMEM.
 */
int tfo_engine_plan_memory(const struct tfo_engine_params *params, size_t *table,
			   size_t *bufs, size_t *other);

/** The same, split: connection entries + index + free list, the
 *  request/response buffers, and the rest (timer wheel, engine, hold). */
void tfo_engine_memory_detail(const struct tfo_engine *e, size_t *table,
			      size_t *bufs, size_t *other);

/**
 * Whether a connection's send queue still holds unacknowledged bytes of a
 * zero-copy body whose struct tfo_blob lies in [@p lo, @p hi) (a service's
 * retired table: its bytes are sent from there until the client
 * acknowledges them, however long a slow reader takes). Compares
 * pointers only, never reads the blobs. O(max_conns): for a check now and
 * then (service reloads ask about once a second per retired table), not
 * for the fast path.
 *
 * May be called from another lcore while @p e's lcore runs (the control
 * lcore does, for every engine): the answer is then exact only for a
 * range no new reference can enter (retired, and past the grace time
 * during which a request answered from it may still be queued); a stale
 * read can only answer true for a reference just gone, delaying the free,
 * never false for one still there.
 */
bool tfo_engine_sends_from(const struct tfo_engine *e, const void *lo, const void *hi);

#ifdef __cplusplus
}
#endif

#endif /* TFO_ENGINE_H */
