/* SPDX-License-Identifier: BSD-3-Clause
 * In-memory harness for the TCP engine tests: one engine on a fake port,
 * a fake clock, a TX buffer whose flush parses every frame the engine sent
 * (checksums verified) into h->out, simple clients that craft frames with
 * tfo_pkt_prepend_tcp, and a worker-like dispatcher (lookup, open, input,
 * nomatch). Test services: "gen" (responses of a requested size, from the
 * buffer or zero-copy from a blob) and echo.
 */
#ifndef TFO_ENGINE_HARNESS_H
#define TFO_ENGINE_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "net/pkt.h"
#include "net/tcpopt.h"
#include "net/tx.h"
#include "tcp/engine.h"

#define H_SEG_DATA 2048

/** A frame the engine sent, parsed. */
struct h_seg {
	struct tfo_pkt p;
	struct tfo_tcpopts o;
	uint16_t nb_segs;	/**< mbufs in the chain (2: zero-copy body) */
	uint32_t len;
	uint8_t data[H_SEG_DATA];
};

struct harness {
	struct rte_mempool *pool;
	struct tfo_port_info srv_port;
	struct tfo_port_info cli_port;
	struct tfo_stats stats;
	struct tfo_tx tx;
	struct tfo_engine *e;
	struct tfo_engine_params prm;
	struct tfo_service_inst svc[3];
	uint64_t now;
	/* how the "worker" treats SYNs */
	bool tfo_ok;		/**< a SYN with a cookie gets accept_data */
	bool accept_all;	/**< every SYN gets accept_data (no cookie) */
	bool offer_cookie;	/**< answer a cookie request with h->cookie */
	uint8_t cookie[TFO_COOKIE_LEN];
	int last_open_rc;
	/* what the engine sent since the last h_clear() */
	struct h_seg *out;
	unsigned int n_out, cap;
	unsigned int bad_out;	/**< frames that did not parse as TCP */
	unsigned int gen;	/**< h_clear() count */
	uint32_t nb_bufs;	/**< free buffers right after create */
};

/** Defaults for the engine parameters (tests change some before h_start). */
void h_init(struct harness *h, uint32_t max_conns);
/** Create the engine with h->prm. @return 0. */
int h_start(struct harness *h);
/**
 * Run the clock forward until every connection is gone (or @p max_s
 * seconds pass), free the engine. @return 0 if the connection pool, the
 * buffers and every mbuf came back, else -1 (with a message).
 */
int h_finish(struct harness *h, unsigned int max_s);
/** Free the frames h_flush_cb captured (h_finish does it; a test whose
 *  server has no harness engine calls it itself). */
void h_out_free(struct harness *h);

/** Give a frame to the engine as a worker would; flush. */
void h_rx(struct harness *h, struct rte_mbuf *m);
/** Advance the clock by @p us and run the timers; flush. */
void h_advance(struct harness *h, uint64_t us);
void h_clear(struct harness *h);
/** Counter by name. */
uint64_t h_stat(const struct harness *h, const char *name);
/** The test addresses: 198.18.0.@p last and fd00::@p last (server 1,
 * clients from 2). */
void h_addr_v4(struct tfo_addr *a, uint8_t last);
void h_addr_v6(struct tfo_addr *a, uint8_t last);

/* ---- a client ---------------------------------------------------------- */

enum cl_tfo { CL_NO_TFO = 0, CL_COOKIE_REQ, CL_COOKIE };

#define CL_SACK_MAX 16

struct cl {
	struct harness *h;
	int family;
	uint16_t sport, dport;
	uint8_t addr_idx;	/**< which client address (0..3) */
	uint16_t vlan;		/**< 802.1Q tag to send, 0 = none */
	uint32_t iss, snd_nxt;
	uint32_t irs, rcv_nxt;
	bool synced;		/**< SYN-ACK seen */
	bool ts;		/**< send timestamps */
	uint32_t tsval, ts_recent;
	bool ws;
	uint8_t wscale;
	uint16_t mss;
	uint32_t rwnd;		/**< receive window we advertise, bytes */
	bool rst;		/**< got a RST */
	unsigned int cursor, gen;	/**< next h->out to fold in */
	enum cl_tfo tfo;
	/* what it received, in order */
	uint8_t *rx;
	uint32_t rx_len, rx_cap;
	bool fin;
	uint32_t srv_ack;	/**< highest ack seen from the server */
	uint32_t srv_wnd;
	struct tfo_tcpopts synack_opts;
	uint32_t synack_len;
	unsigned int synacks;
	/* SACK (RFC 2018) */
	bool no_sack_perm;	/**< the SYN does not offer SACK-permitted */
	bool sack;		/**< keep out-of-order data, send SACK blocks */
	bool ooo_keep;		/**< keep out-of-order data (without SACK) */
	uint32_t sack_l[CL_SACK_MAX], sack_r[CL_SACK_MAX];	/**< ranges held
						 *   above rcv_nxt, sorted */
	unsigned int nsack;
	uint32_t sack_last;	/**< a sequence number of the latest range */
	bool ooo_fin;		/**< a FIN came out of order, at ooo_fin_seq */
	uint32_t ooo_fin_seq;
};

void cl_init(struct cl *c, struct harness *h, int family, uint16_t sport,
	     uint16_t dport);
void cl_free(struct cl *c);
/** A frame from @p c with explicit fields; TS option when c->ts. */
struct rte_mbuf *cl_frame(struct cl *c, uint8_t flags, uint32_t seq,
			  uint32_t ack, const void *data, uint32_t len);
/** The SYN (options as c says, TFO option per c->tfo), with data. */
void cl_syn(struct cl *c, const void *data, uint32_t len);
/** Send from snd_nxt, acking rcv_nxt; advances snd_nxt. */
void cl_send(struct cl *c, uint8_t flags, const void *data, uint32_t len);
/** Fold the engine's segments to @p c (in h->out) into its state. */
unsigned int cl_recv(struct cl *c);
/** Fold one segment (in order data, SYN-ACK, FIN, RST, TS, acks). */
void cl_fold(struct cl *c, const struct h_seg *s);
bool cl_owns(const struct cl *c, const struct h_seg *s);
/**
 * A client with c->sack holds [seq, seq + len) above rcv_nxt: remember it
 * for the SACK blocks of its next frames (merged, latest first on the wire).
 */
void cl_sack_add(struct cl *c, uint32_t seq, uint32_t len);
/** Forget the ranges below @p rcv_nxt. */
void cl_sack_trim(struct cl *c, uint32_t rcv_nxt);
/** Index in h->out of the @p nth segment to @p c, or -1. */
int cl_seg(const struct cl *c, unsigned int nth);
unsigned int cl_nsegs(const struct cl *c);

/* ---- the gen test service ---------------------------------------------- */

/**
 * "gen": a request is one line "<n><flags>\n". The response is n bytes of
 * a pattern in the buffer, or with flag 'b' the header "B<n>\n" in the
 * buffer plus n bytes of a blob sent zero-copy. Flags: 'k' keep-alive
 * (default: close), 'x' reject, 'e' empty response, 'i' idle_ms 300,
 * 'I' idle_ms 40000. It counts complete requests in its one counter
 * (gen_requests) and serves UDP too (udp_ok).
 */
extern struct tfo_service h_gen_service;
/** What gen's handle() was told: the last call's context, and in_syn of
 *  each complete request (reset it between cases). */
struct h_gen_ctx_log {
	struct tfo_svc_ctx last;
	uint8_t in_syn[32];
	unsigned int n;
};
extern struct h_gen_ctx_log h_gen_log;
/** The expected response to @p line (into @p out); @return its length. */
uint32_t h_gen_expect(const char *line, uint8_t *out, uint32_t cap);
/** The blob gen's 'b' responses send from. */
const struct tfo_blob *h_gen_blob(void);
/** Calls of gen's handle() so far. */
extern unsigned long h_gen_calls;

/**
 * A UDP datagram from the client's first address (IPv4 or IPv6) and port
 * 5353 to the server's first address of that family and @p dport, with
 * @p len bytes of @p data; checksum right, or @p cksum when not -1.
 */
struct rte_mbuf *h_udp_frame(struct harness *h, int family, uint16_t dport,
			     const void *data, uint16_t len, int cksum);

#endif /* TFO_ENGINE_HARNESS_H */
