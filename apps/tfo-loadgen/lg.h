/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-loadgen: a DPDK load generator that plays many TCP Fast Open clients.
 *
 * Model: every generator lcore owns RX/TX queue `queue` on every port and
 * a share of the client addresses (address a belongs to lcore a % L and
 * goes out of port (a / L) % P). A transaction is one short connection
 * from a (client address, source port) tuple; its state lives in a slot of
 * the lcore's fixed connection table and is found again by the tuple
 * through a direct-mapped index. A segment that arrives at the wrong lcore
 * (the device spread flows its own way) is passed to the owner over a
 * single-producer/single-consumer ring. Nothing is allocated, locked or
 * system-called in the loop.
 */
#ifndef LG_H
#define LG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "net/pkt.h"
#include "net/tcpopt.h"
#include "net/tx.h"
#include "tcp/engine.h"

#include "lg_stats.h"

#define LG_MAX_LCORES 32
#define LG_MAX_CLIENTS 65536u
#define LG_MAX_REQUEST 65535u
#define LG_MAX_CONCURRENCY 65534u	/* slot + 1 fits the 2-byte tuple index */
/** Most (address, port) tuples in all: the tuple index is 2 bytes each. */
#define LG_MAX_TUPLES (1u << 25)
#define LG_MAX_PEER_CONTROLS 16	/* --rss-peer: the server's control lcores */
/** Requests of --request-size >= this carry a per-transaction tag. */
#define LG_TAG_LEN 16
#define LG_WSCALE 7
#define LG_RCV_WND (256u * 1024)
/** --dns-query: the 2-byte length and the 12-byte DNS header */
#define LG_DNS_HDR 14

/* ---- options ----------------------------------------------------------- */

struct lg_opts {
	int family;			/**< AF_INET / AF_INET6 (of --server) */
	struct tfo_addr server;
	uint16_t server_port;
	bool server_mac_set;
	struct rte_ether_addr server_mac;
	struct tfo_addr client;		/**< first client address */
	uint32_t nb_clients;
	uint16_t port_lo, port_hi;	/**< client source ports */
	uint16_t flood_lo, flood_hi;	/**< source ports of flood SYNs */
	bool alias_set;
	struct tfo_addr alias;		/**< also answered for in ARP/ND */

	uint32_t concurrency;		/**< slots per generator lcore */
	uint64_t rate;			/**< starts per second, all lcores; 0 = flat out */
	double duration_s;		/**< 0 = until --count */
	uint64_t count;			/**< starts in the run; 0 = until --duration */
	double warmup_timeout_s;	/**< 0 = no warm-up */
	double resolve_timeout_s;

	/* mix, in basis points (1/100 %) of the starts */
	uint32_t bp_bad_cookie;
	uint32_t bp_no_tfo;
	uint32_t bp_flood;
	uint32_t bp_cookie_req;		/**< cookie requests whatever the cache holds */
	uint8_t cookie_form;		/**< enum tfo_opt_form of our cookie requests */

	/* --spoof-flood: plain SYNs from random addresses of a prefix, never
	 * completed, beside the run's transactions */
	bool spoof;
	uint64_t spoof_rate;		/**< SYNs/s, all lcores; 0 = as fast as it can */
	uint8_t spoof_prefix;		/**< prefix length of spoof_src */
	struct tfo_addr spoof_src;	/**< network of --spoof-src */
	uint16_t spoof_port_lo, spoof_port_hi;		/**< enum tfo_opt_form of our cookie requests */

	uint32_t rto_ms;
	uint32_t retries;
	uint32_t timeout_ms;

	uint16_t mtu;
	uint16_t mss;			/**< ours; 0 = from the MTU */
	uint32_t burst;
	uint16_t rx_desc, tx_desc;
	/** --rss-peer: flows on the queue the server's hash names
	 *  (tfo_port_rss_peer), peer_controls more RX queues */
	bool rss_peer;
	uint16_t peer_controls;
	uint32_t stats_period_s;
	const char *json_path;
	/** --idle: sched_yield after a poll that found no frame (true), or
	 *  spin on (false) */
	bool idle_yield;

	/* request and the expected response */
	uint8_t *request;
	uint32_t request_len;
	bool tag;			/**< bytes 0..15 carry the transaction id */
	bool expect_echo;
	int64_t expect_len;		/**< -1: not checked (echo sets it) */
	uint8_t *expect_prefix;
	uint32_t expect_prefix_len;

	/* --dns-query: the request is a framed DNS query (RFC 1035 4.2.2),
	 * its ID per transaction; every answer is checked (dns.c) */
	bool dns;
	uint8_t dns_rcode;		/**< --dns-rcode: the RCODE expected */
};

/**
 * Parse the application's arguments (after "--") into @p o.
 * @return 0; 1 when --help/--version was printed (exit 0); or -EINVAL
 *   with one line in @p err.
 */
int lg_parse_args(struct lg_opts *o, int argc, char **argv, char *err,
		  size_t errlen);
void lg_usage(FILE *f, const char *prog);
void lg_opts_free(struct lg_opts *o);

/* ---- shared between the lcores ------------------------------------------ */

enum lg_phase {
	LG_PHASE_RESOLVE = 0,	/**< learning the server's MAC */
	LG_PHASE_WARMUP,	/**< cookie requests for every address */
	LG_PHASE_RUN,
	LG_PHASE_DRAIN,		/**< no new starts; in-flight ones finish */
	LG_PHASE_DONE,
};

struct lg_port {
	struct tfo_port_info info;
	/** Written by whichever lcore hears the server (once), read by all. */
	struct rte_ether_addr server_mac;
	volatile uint8_t resolved;
	uint16_t first_client;		/**< a client address index on this port */
	/** --rss-peer: the server's view of this port's hash
	 *  (tfo_port_rss_peer over the generator lcores) */
	struct tfo_port_info peer;
};

struct lg_shared {
	volatile int phase;		/**< enum lg_phase, set by the main lcore */
	uint16_t nb_ports;
	unsigned int nb_lcores;		/**< generator lcores */
	struct lg_port ports[TFO_MAX_PORTS];
	uint16_t port_idx_of[RTE_MAX_ETHPORTS];	/**< port id -> index */
	/** handoff[src][dst]: segments lcore src received for lcore dst. */
	struct rte_ring *handoff[LG_MAX_LCORES][LG_MAX_LCORES];
};

/* ---- per lcore ---------------------------------------------------------- */

/** Per client address, owned by one lcore: what a client's TFO cache holds. */
struct lg_addr {
	uint8_t cookie[TFO_COOKIE_MAX];
	uint8_t cookie_len;		/**< 0 = none */
	uint8_t form;			/**< the form the server answered in */
	uint8_t warm_tries;
	uint8_t warming;		/**< a warm-up transaction is in flight */
	uint16_t server_mss;		/**< from the last SYN-ACK; 0 = unknown */
};

enum lg_kind {
	LG_KIND_COOKIE_REQ = 0,	/**< empty TFO option, data after the handshake */
	LG_KIND_TFO,		/**< cookie + data in the SYN */
	LG_KIND_BAD_COOKIE,	/**< corrupted cookie + data in the SYN */
	LG_KIND_PLAIN,		/**< no TFO option */
	LG_KIND_MAX,
};

/** The done_<kind> counter of @p kind. */
static inline enum lg_stat_id
lg_kind_done(unsigned int kind)
{
	switch (kind) {
	case LG_KIND_COOKIE_REQ:
		return LG_STAT_done_cookie_req;
	case LG_KIND_BAD_COOKIE:
		return LG_STAT_done_bad_cookie;
	case LG_KIND_PLAIN:
		return LG_STAT_done_plain;
	default:
		return LG_STAT_done_tfo;
	}
}

enum lg_state {
	LG_ST_FREE = 0,
	LG_ST_SYN_SENT,
	LG_ST_OPEN,		/**< handshake done, FIN exchange not finished */
};

#define LG_F_TS		0x0001	/**< both sides do timestamps */
#define LG_F_WS		0x0002	/**< both sides sent window scale */
#define LG_F_FIN_SENT	0x0004
#define LG_F_FIN_ACKED	0x0008
#define LG_F_FIN_RCVD	0x0010
#define LG_F_RESP_DONE	0x0020	/**< response complete and validated */
#define LG_F_WARMUP	0x0040	/**< a warm-up transaction */
#define LG_F_PENDING	0x0080	/**< on the output list of this burst */
#define LG_F_ACK_NOW	0x0100	/**< an ACK is owed even without data */
#define LG_F_SYN_REXMIT	0x0200	/**< the SYN was retransmitted (without data) */
#define LG_F_BAD	0x0400	/**< an error was counted: abort */

struct lg_conn {
	uint8_t state;			/**< enum lg_state */
	uint8_t kind;			/**< enum lg_kind */
	uint8_t retries;
	uint8_t port_idx;
	uint16_t flags;
	uint16_t sport;
	uint32_t addr;			/**< global client address index */
	uint32_t tuple;			/**< index in the lcore's tuple map */
	uint32_t isn;
	uint32_t snd_una;
	uint32_t snd_nxt;
	uint32_t snd_max;		/**< highest sequence number sent + 1 */
	uint32_t snd_wnd;		/**< bytes, scaled */
	uint32_t syn_data;		/**< request bytes the first SYN carried */
	uint32_t irs;			/**< the server's ISN */
	uint32_t rcv_nxt;
	uint32_t resp_len;		/**< response bytes received in order */
	uint32_t ts_recent;		/**< the server's last TSval */
	uint32_t syn_tsval_first;
	uint32_t syn_tsval_last;
	uint16_t snd_mss;		/**< payload per segment */
	uint8_t snd_wscale;
	uint8_t backoff;
	uint32_t next_free;
	uint64_t txn_id;
	uint64_t start_tsc;
	uint64_t rto_tsc;		/**< 0 = no retransmission timer */
	uint64_t deadline_tsc;		/**< end of --timeout-ms */
	/** --dns-query: the answer's length field and header, as received */
	uint8_t dns_hdr[LG_DNS_HDR];
};

struct lg_lcore {
	struct lg_stats stats;		/* first: its own cache lines */
	struct lg_hist hist;		/**< run transactions: SYN sent -> response validated */
	struct lg_hist hist_kind[LG_KIND_MAX];	/**< the same, by the kind the SYN was */
	struct tfo_tx tx;

	unsigned int idx;		/**< 0..nb_lcores-1 */
	unsigned int lcore_id;
	uint16_t queue;
	/** RX queues it polls on every port: its own, and with --rss-peer
	 *  the control lcores' queues c (queue L + c) with c % L == idx */
	uint16_t rx_queues[1 + LG_MAX_PEER_CONTROLS];
	uint16_t nb_rx_queues;
	const struct lg_opts *o;
	struct lg_shared *sh;
	struct rte_mempool *pool;
	/** Copies of the ports whose only address is set per frame, to match
	 *  it against (see lg_rx_peek). */
	struct tfo_port_info match_port[TFO_MAX_PORTS];

	/* connection slots */
	struct lg_conn *conns;
	uint32_t nb_conns;
	uint32_t free_head;		/**< UINT32_MAX = none */
	uint32_t nb_free;
	uint32_t sweep;			/**< timer sweep cursor */

	/* addresses owned: local index l is global address l * L + idx */
	struct lg_addr *addrs;
	uint32_t nb_addrs;
	uint16_t nb_sports;
	/** tuple t = port_off * nb_addrs + local addr; value slot + 1, 0 = free */
	uint16_t *tuple_map;
	uint32_t nb_tuples;
	/** --rss-peer: the tuples the server hashes to this lcore's queue
	 *  (round robin over them), NULL otherwise (over all tuples) */
	uint32_t *own_tuples;
	uint32_t nb_own;
	uint32_t tuple_cursor;
	uint32_t flood_cursor;

	/* warm-up */
	uint32_t warm_cursor;
	uint32_t warm_inflight;
	uint32_t warm_port;
	bool warm_counted;

	/* run */
	uint64_t quota;			/**< starts this lcore may make (UINT64_MAX: no limit) */
	uint64_t started;		/**< starts made in the run, flood SYNs included */
	uint64_t flood_started;		/**< flood SYNs among them */
	uint64_t rate_interval;		/**< TSC ticks between starts; 0 = flat out */
	uint64_t next_start_tsc;
	uint64_t last_done_tsc;		/**< last run transaction validated */
	uint64_t run_start_tsc;
	uint64_t spoof_interval;	/**< TSC ticks between spoofed SYNs; 0 = flat out */
	uint64_t spoof_next_tsc;

	/* clocks */
	uint64_t tsc_hz;
	uint64_t tsc_per_ms;
	uint64_t tsc_per_isn;		/**< ISN ticks: 64 ns, like Linux */
	uint64_t rto_tsc;
	uint64_t timeout_tsc;
	uint64_t rng;
	uint64_t next_resolve_tsc;

	/* set by the lcore, read by the main lcore */
	volatile uint32_t inflight;
	volatile uint8_t warm_done;
	volatile uint8_t run_done;
	volatile uint8_t drained;

	/* conns with output owed at the end of this burst */
	uint32_t nb_pending;
	uint32_t pending[TFO_TX_BUF * 2];
} __rte_cache_aligned;

/**
 * Initialise lcore @p idx of @p nb: allocate its tables on @p socket.
 * @return 0 or -ENOMEM / -EINVAL with one line in @p err.
 */
int lg_lcore_init(struct lg_lcore *lc, unsigned int idx, const struct lg_opts *o,
		  struct lg_shared *sh, struct rte_mempool *pool, int socket,
		  char *err, size_t errlen);
void lg_lcore_free(struct lg_lcore *lc);

/** Global address index -> its owner, port and address bytes. */
static inline unsigned int
lg_addr_owner(const struct lg_shared *sh, uint32_t a)
{
	return a % sh->nb_lcores;
}

static inline uint8_t
lg_addr_port(const struct lg_shared *sh, uint32_t a)
{
	return (uint8_t)((a / sh->nb_lcores) % sh->nb_ports);
}

void lg_addr_make(const struct lg_opts *o, uint32_t a, struct tfo_addr *out);
/** Index of @p x in the client range, or -1. */
int64_t lg_addr_index(const struct lg_opts *o, int family, const struct tfo_addr *x);

/**
 * --rss-peer: the queue pair (0..nb_lcores-1) on which the server's hash
 * (sh->ports[].peer) puts the flow from client address index @p addr,
 * port @p sport to the server; its generator lcore sends it there.
 */
unsigned int lg_flow_queue(const struct lg_shared *sh, const struct lg_opts *o,
			   uint32_t addr, uint16_t sport);

/* ---- shared by client.c, starts.c and lcore.c ------------------------- */

static inline uint64_t
lg_rand(struct lg_lcore *lc)
{
	/* xorshift64*: good enough to pick a mix and an ISN offset */
	lc->rng ^= lc->rng >> 12;
	lc->rng ^= lc->rng << 25;
	lc->rng ^= lc->rng >> 27;
	return lc->rng * 0x2545F4914F6CDD1Dull;
}

static inline uint32_t
lg_tsval(const struct lg_lcore *lc, uint64_t now)
{
	/* Linux's 1 kHz timestamp clock, without a random offset: the TSC
	 * counts from boot, so a tuple's TSval grows across runs too, and a
	 * server's TIME-WAIT entry from the previous run takes our new SYN
	 * (RFC 7323 PAWS, Linux tcp_timewait_state_process) */
	return (uint32_t)(now / lc->tsc_per_ms);
}

static inline struct lg_addr *
lg_conn_addr(struct lg_lcore *lc, const struct lg_conn *c)
{
	return &lc->addrs[c->addr / lc->sh->nb_lcores];
}

/** One segment to send for a transaction (lg_xmit builds the frame). */
struct lg_seg {
	uint8_t port_idx;
	uint8_t flags;
	uint8_t opt_len;
	uint16_t sport;
	uint16_t window;
	uint32_t addr;
	uint32_t seq;
	uint32_t ack;
	uint32_t data_off;
	uint32_t data_len;
	uint64_t txn_id;
	const uint8_t *opts;
};

/** Build and queue @p s; @return 0 or -ENOMEM / -ENOSPC (counted). */
int lg_xmit(struct lg_lcore *lc, const struct lg_seg *s);
/** Write a SYN's options into @p out; @return their length. */
unsigned int lg_syn_opts(uint8_t *out, uint16_t mss, uint32_t tsval, uint8_t form,
			 const uint8_t *cookie, unsigned int cookie_len);
/** The SYN of @p c; with data (the first one) or without (retransmissions). */
void lg_send_syn(struct lg_lcore *lc, struct lg_conn *c, bool with_data, uint64_t now);
/** A TCP segment for client address index @p addr of this lcore. */
void lg_tcp_input(struct lg_lcore *lc, const struct rte_mbuf *m, const struct tfo_pkt *p,
		  uint32_t addr, uint64_t now);
/** Whether tuple @p t goes out on @p lc's own queue pair (starts.c). */
bool lg_tuple_ours(const struct lg_lcore *lc, uint32_t t);
/** How many tuples the start's round robin goes over (starts.c). */
uint32_t lg_nb_pickable(const struct lg_lcore *lc);

/* ---- the state machine (client.c, starts.c, lcore.c) -------------------- */

/**
 * Handle a received frame on the lcore that owns it (or hand a TCP
 * segment to the lcore that does). Takes ownership of @p m.
 */
void lg_rx_frame(struct lg_lcore *lc, struct rte_mbuf *m, uint8_t port_idx,
		 uint64_t now);
/** Send what the frames of this burst made owed (ACKs, data, FINs). */
void lg_output_pending(struct lg_lcore *lc, uint64_t now);
/** Check the retransmission and transaction timers of some slots. */
void lg_timers(struct lg_lcore *lc, uint64_t now, uint32_t max_slots);
/**
 * Start one transaction of @p kind from local address @p local (or the
 * next free tuple when @p local is UINT32_MAX). @return 0, -EBUSY when
 * no slot or tuple is free.
 */
int lg_start(struct lg_lcore *lc, enum lg_kind kind, uint32_t local,
	     bool warmup, uint64_t now);
/**
 * Whether the next start is a flood SYN: only while the flood stays within
 * @p bp_flood (1/100 %) of all @p starts made so far (@p floods of them),
 * so that a start that cannot be made (no slot) never turns into a flood
 * SYN and the flood's share holds with or without --rate.
 */
static inline bool
lg_flood_due(uint64_t floods, uint64_t starts, uint32_t bp_flood)
{
	return (floods + 1) * 10000 <= (uint64_t)bp_flood * (starts + 1);
}

/** Send one SYN of the flood share (valid cookie + data, never completed). */
void lg_flood_syn(struct lg_lcore *lc, uint64_t now);
/**
 * Spoofed SYNs owed by --spoof-flood during the run (a burst at most),
 * flushed apart from the rest (counted in spoof_syn_tx / spoof_tx_drop).
 * @return SYNs built.
 */
unsigned int lg_spoof_syns(struct lg_lcore *lc, uint64_t now);
/** Whether @p x (of @p family) is in the --spoof-src prefix. */
bool lg_spoof_match(const struct lg_opts *o, int family, const struct tfo_addr *x);
/** Starts owed by the phase (warm-up, rate, count); @return starts made. */
unsigned int lg_starts(struct lg_lcore *lc, int phase, uint64_t now);
/** Flush every port's TX buffer. */
void lg_tx_flush_all(struct lg_lcore *lc);
/** One iteration of the loop on the devices; @return frames received. */
unsigned int lg_poll(struct lg_lcore *lc, uint64_t now);
/** lcore entry point: poll until the DONE phase. */
int lg_lcore_main(void *arg);

/* ---- DNS queries and answers (dns.c) ----------------------------------- */

/**
 * --dns-query NAME/TYPE: build the framed query (length, header with RD
 * clear, one question of class IN, no EDNS) into @p o's request.
 * @return 0 or -EINVAL with one line in @p err.
 */
int lg_dns_query(struct lg_opts *o, const char *arg, char *err, size_t errlen);
/** --dns-rcode: a name (NOERROR, NXDOMAIN, REFUSED...) or 0..15; -1 if neither. */
int lg_dns_rcode(const char *s);
/** The DNS ID of transaction @p txn_id (bytes 2-3 of its request). */
static inline uint16_t
lg_dns_id(uint64_t txn_id)
{
	/* the lcore (bits 48..) moves the counter's IDs apart */
	return (uint16_t)(txn_id + (txn_id >> 48) * 40503u);
}
/**
 * Check @p len answer bytes at offset @p pos of the answer (frame offset
 * @p off of @p m): the header kept in @p c, the question compared with the
 * query's, nothing past the length field. @return false after counting the
 * error.
 */
bool lg_dns_scan(struct lg_lcore *lc, struct lg_conn *c, const struct rte_mbuf *m,
		 uint32_t off, uint32_t pos, uint32_t len);
/**
 * Whether the answer of @p c is complete, and then whether it is the one
 * expected (ID, QR, opcode, TC, RCODE, an answer record for NOERROR).
 * @return 1 complete and right, 0 not complete, -1 wrong (counted).
 */
int lg_dns_complete(struct lg_lcore *lc, const struct lg_conn *c);

/* ---- ARP / ND (resolve.c; the frames are net/neigh.h's) -------------- */

/** Handle ARP: answer for client/alias addresses, learn the server's MAC. */
void lg_arp_input(struct lg_lcore *lc, struct rte_mbuf *m, const struct tfo_pkt *p,
		  uint8_t port_idx);
/** Handle ICMPv6: NS for our addresses, NA from the server. */
void lg_icmp6_input(struct lg_lcore *lc, struct rte_mbuf *m, const struct tfo_pkt *p,
		    uint8_t port_idx);
/** Send one ARP request / NS for the server's address on @p port_idx. */
void lg_resolve_send(struct lg_lcore *lc, uint8_t port_idx);

/* ---- reports (report.c) ------------------------------------------------- */

struct lg_report {
	struct lg_stats total;
	struct lg_hist hist;
	struct lg_hist hist_kind[LG_KIND_MAX];
	double run_s;			/**< run start -> last validated response */
	uint64_t inflight;
};

/** Sum the lcores' counters and histograms. */
void lg_report_collect(struct lg_report *r, struct lg_lcore *const *lcs,
		       unsigned int n);
/** One progress line (figures of the interval since @p prev). */
void lg_report_progress(FILE *f, const char *phase, double t_s, double dt_s,
			const struct lg_report *cur, const struct lg_report *prev,
			double tsc_per_us);
void lg_report_summary(FILE *f, const struct lg_report *r, const struct lg_opts *o,
		       double tsc_per_us);
int lg_report_json(const char *path, const struct lg_report *r,
		   const struct lg_opts *o, double tsc_per_us);

#endif /* LG_H */
