/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: a worker lcore's poll loop (the fast path).
 *
 * A worker owns RX and TX queue `queue` on every port, its counters, its
 * TX buffer, its TCP engine and (with TFO) its cookie checker. It parses
 * every frame it receives, handles what the fast path can, and passes the
 * rest to a control lcore over its own single-producer/single-consumer
 * ring to each, each frame tagged with the reason (an mbuf dynamic field):
 * slow-path TCP to the control lcore tfo_ctrl_pick() names for the
 * segment's 4-tuple, ARP, ICMP and ICMPv6 to control 0. It also
 * takes the SYNs the control core hands over from hardware SYN steering and
 * sends the control core's frames on ports that gave it no TX queue.
 */
#ifndef TFO_WORKER_H
#define TFO_WORKER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "cookie/cookie.h"
#include "lcore/ctrl_pick.h"
#include "lcore/idle.h"
#include "lcore/syn_defence.h"
#include "net/pkt.h"
#include "net/tx.h"
#include "ops/stats.h"
#include "tcp/engine.h"
#include "tcp/latency.h"
#include "tcp/syn_admit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most frames a worker takes in one burst (its RX burst, [server] burst):
 *  the size of its per-burst scratch on the stack. Apart from TFO_TX_BUF,
 *  what its TX buffer holds per port, though a burst's TFO opens must fit
 *  tfo_engine_conn_hash_burst() (checked at build time in worker.c). */
#define TFO_RX_BURST_MAX 64

/** Why a worker passed a frame to the control core. */
#define TFO_CTRL_REASONS(X) \
	X(ARP) X(ICMP) X(ICMP6) \
	X(TCP_MISS)		/* non-SYN segment of no fast-path connection */ \
	X(TCP_SYN)		/* SYN without TFO option, or TFO disabled */ \
	X(TCP_COOKIE_REQ)	/* SYN asking for a cookie */ \
	X(TCP_BAD_COOKIE)	/* SYN whose cookie did not validate */ \
	X(TCP_OVERFLOW)		/* valid cookie, pending-TFO limit reached */ \
	X(TCP_FULL)		/* valid cookie, worker's table full */ \
	X(TCP_NO_SERVICE)	/* nothing listens on the port here */ \
	X(TCP_SYNCOOKIE_ACK)	/* ACK of a valid SYN cookie (checked on the \
				 * worker; tfo_syn_summary says what it \
				 * encoded): a connection to create */ \
	X(PTB)			/* control -> inbox: a path-MTU error for the \
				 * worker's flow */ \
	X(PTB_ANY)		/* control -> every inbox: the same, owner \
				 * unknown (RSS table not known) */ \
	X(EXCEPTION)		/* not ours to serve: the kernel interface */

enum tfo_ctrl_reason {
#define TFO_X_ENUM(r) TFO_CTRL_##r,
	TFO_CTRL_REASONS(TFO_X_ENUM)
#undef TFO_X_ENUM
	TFO_CTRL_NB_REASONS
};

/** The reason a worker gives a SYN whose verdict (tcp/syn_admit.h) is the
 *  slow path for @p path (enum tfo_syn_path): the SYN reasons are in the
 *  same order. */
static inline enum tfo_ctrl_reason
tfo_ctrl_reason_of_path(unsigned int path)
{
	RTE_BUILD_BUG_ON(TFO_CTRL_TCP_NO_SERVICE - TFO_CTRL_TCP_SYN != TFO_SYN_PATH_NO_SERVICE);
	RTE_BUILD_BUG_ON(TFO_CTRL_TCP_OVERFLOW - TFO_CTRL_TCP_SYN != TFO_SYN_PATH_OVERFLOW);
	return (enum tfo_ctrl_reason)(TFO_CTRL_TCP_SYN + path);
}

/** The enum tfo_syn_path of a SYN handed over with @p r (PLAIN for a
 *  reason that is not a SYN one). */
static inline uint8_t
tfo_syn_path_of_reason(enum tfo_ctrl_reason r)
{
	return r >= TFO_CTRL_TCP_SYN && r <= TFO_CTRL_TCP_NO_SERVICE ?
	       (uint8_t)(r - TFO_CTRL_TCP_SYN) : TFO_SYN_PATH_PLAIN;
}

/** Register the dynamic mbuf fields that carry the reason and the SYN
 *  summary (lcore/syn_defence.h). Once, at start. */
int tfo_ctrl_reason_register(void);

extern int tfo_ctrl_reason_offset;

static inline void
tfo_ctrl_reason_set(struct rte_mbuf *m, enum tfo_ctrl_reason r)
{
	*RTE_MBUF_DYNFIELD(m, tfo_ctrl_reason_offset, uint8_t *) = (uint8_t)r;
}

static inline enum tfo_ctrl_reason
tfo_ctrl_reason_get(const struct rte_mbuf *m)
{
	return (enum tfo_ctrl_reason)*RTE_MBUF_DYNFIELD(m, tfo_ctrl_reason_offset,
							 const uint8_t *);
}

struct tfo_worker {
	struct tfo_stats stats;		/* first: its own cache lines */
	struct tfo_tx tx;
	unsigned int lcore_id;
	uint16_t queue;			/**< RX/TX queue index on every port */
	uint16_t nb_ports;
	const struct tfo_port_info *ports;
	/** SP/SC rings, this worker -> each control lcore (nb_controls of
	 *  them): to_ctl[0] to control 0, which also takes ARP, ICMP and
	 *  ICMPv6. */
	struct rte_ring *to_ctl[TFO_MAX_CONTROLS];
	unsigned int nb_controls;	/**< 1..TFO_MAX_CONTROLS */
	/** SP/SC, this worker -> control 0: ARP and ND only (tfo_neigh_is_nd),
	 *  which control 0 drains before anything else, so that a flood of
	 *  pings or stray segments filling to_ctl cannot make the member
	 *  unreachable; NULL: they share to_ctl[0]. */
	struct rte_ring *to_neigh;
	/** Per port, frames control lcores ask this worker to send (ports
	 *  whose device gave them no TX queue): the SP/SC ring of each control
	 *  lcore k with k % workers == this worker's index (relay[pi][k /
	 *  workers]), nb_relays of them; NULL on other ports. */
	struct rte_ring *relay[TFO_MAX_PORTS][TFO_MAX_CONTROLS];
	unsigned int nb_relays;
	/** Sends relayed frames on port index @p pi and counts those the
	 *  queue took as tx_pkts/tx_bytes; returns how many (the rest stay in
	 *  the relay ring): tfo_tx_burst on this worker's queue, set by
	 *  tfo_worker_init; tests replace it. */
	uint16_t (*relay_send)(struct tfo_worker *w, uint8_t pi, struct rte_mbuf **pkts,
			       uint16_t n);
	/** The control core's hand-overs: SYNs from the ports' SYN queues
	 *  (hardware SYN steering) and path-MTU errors about this worker's
	 *  flows (reason PTB, PTB_ANY); NULL only in tests. */
	struct rte_ring *from_ctl;
	uint32_t burst;
	uint64_t tsc_per_us;
	const volatile bool *quit;
	/** The server's drain flag (lcore/drain.h; NULL: none), read with quit
	 *  once per poll into @p draining: new SYNs to a served port then get
	 *  a RST (drain_syn_refused). */
	const volatile bool *drain;
	bool draining;
	/** Set once its loop runs (control 0 sends READY=1 when all are). */
	volatile bool polling;
	/** The doorbell of each control lcore, rung after frames go on its
	 *  ring (set with the control lcores; NULL: none sleeps). */
	struct tfo_doorbell *ctl_bell[TFO_MAX_CONTROLS];
	struct tfo_engine *engine;	/**< NULL: TCP is counted and dropped */
	struct tfo_cookie_ctx *cookies;	/**< NULL: TFO off (all SYNs to control) */
	bool cookie_not_required;	/**< SYN data accepted without a cookie */
	struct tfo_syn_defence syn_def;	/**< SYN cookies on this worker */
	/** Its idle policy and doorbell: the control lcores ring it after
	 *  filling its inbox or the relay rings (its own cache line). */
	struct tfo_idle idle;
	/** Its latency histograms (tcp/latency.h): t_rx set at each poll's
	 *  start, the pending samples binned after its TX flush. */
	struct tfo_lat lat;
} __rte_cache_aligned;

/** What a worker is given; the engine and the relay rings are set after
 *  tfo_worker_init (the engine counts in w->stats and sends by w->tx). */
struct tfo_worker_params {
	uint16_t queue;			/**< its RX/TX queue on every port */
	unsigned int lcore_id;
	const struct tfo_port_info *ports;
	uint16_t nb_ports;
	/** Control lcores (0 counts as 1) and the ring to each:
	 *  to_controls[0] to control 0. */
	unsigned int nb_controls;
	struct rte_ring *to_controls[TFO_MAX_CONTROLS];
	struct rte_ring *from_ctl;	/**< control -> worker; NULL: none */
	struct rte_ring *to_neigh;	/**< ARP and ND to control 0; NULL: none */
	uint32_t burst;			/**< 1..TFO_RX_BURST_MAX */
	struct tfo_idle_params idle;	/**< what it does when a poll finds nothing */
	const volatile bool *quit;
	const volatile bool *drain;	/**< NULL: no drain */
	struct tfo_cookie_ctx *cookies;	/**< NULL: TFO off */
	bool cookie_not_required;
	uint8_t syncookies;		/**< enum tfo_syncookies_mode (0: no) */
};

/** Fill @p w from @p p (its doorbell: an eventfd with idle policy
 *  adaptive). @return 0, -EINVAL (bad parameters) or the -errno of the
 *  doorbell's eventfd(). */
int tfo_worker_init(struct tfo_worker *w, const struct tfo_worker_params *p);

/**
 * Process @p n (<= TFO_RX_BURST_MAX) frames received on port @p port_idx: parse,
 * classify, look up, check cookies in one batch, run the engine; frames for
 * the control lcores go to their rings (per control lcore, one enqueue per
 * burst; TCP by tfo_ctrl_pick, the rest to control 0). Replies are queued in w->tx (flushed by
 * tfo_worker_housekeeping). No device is touched: benchmarks and fuzzers
 * feed bursts here directly (set w->tx.flush to capture what is sent).
 */
void tfo_worker_burst(struct tfo_worker *w, uint8_t port_idx,
		      struct rte_mbuf **pkts, unsigned int n, uint64_t now_us);

/**
 * A path-MTU error @p m the control core handed over (reason PTB or
 * PTB_ANY, its frame already counted there as delivered): looked up in this
 * worker's connections and given to the engine; pmtu_no_conn when no
 * connection has its flow (PTB only: a PTB_ANY copy went to every worker).
 * Frees @p m.
 */
void tfo_worker_ptb(struct tfo_worker *w, struct rte_mbuf *m, uint64_t now_us);

/**
 * Take up to a burst of the control core's hand-overs from w->from_ctl:
 * steered SYNs (tfo_worker_burst, by runs of one port) and path-MTU errors
 * (tfo_worker_ptb). Device-free. @return frames taken.
 */
unsigned int tfo_worker_inbox(struct tfo_worker *w, uint64_t now_us);

/** Run the engine's timers, take relayed control frames, flush w->tx. */
void tfo_worker_housekeeping(struct tfo_worker *w, uint64_t now_us);

/** rx_burst every port, then the inbox (steered SYNs: tfo_worker_burst;
 *  path-MTU errors: tfo_worker_ptb), housekeeping; @return frames received. */
unsigned int tfo_worker_poll(struct tfo_worker *w, uint64_t now_us);

/**
 * Its rings and RX queues for its idle policy (lcore/idle.h): the inbox and
 * the relay rings, every port's queue. After the relay rings are set.
 * @return 0 or a negative errno.
 */
int tfo_worker_idle_watch(struct tfo_worker *w);

/** Close the doorbell. */
void tfo_worker_close(struct tfo_worker *w);

/** The drain has begun (its loop saw the flag): new SYNs to a served port
 *  get a RST from now on, and the engine closes its idle keep-alive
 *  connections (tfo_engine_drain). Once. */
void tfo_worker_drain_begin(struct tfo_worker *w, uint64_t now_us);

/** lcore entry point (rte_eal_remote_launch): poll until *quit; between
 *  empty polls, what its idle policy says. */
int tfo_worker_main(void *arg);

#ifdef __cplusplus
}
#endif

#endif /* TFO_WORKER_H */
