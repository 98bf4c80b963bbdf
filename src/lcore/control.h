/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the control lcores (the slow path).
 *
 * Control 0 runs on the main lcore, controls 1..N-1 ([server]
 * control_lcores) on the next EAL lcores. Each has its own engine,
 * connection table, timers, counters, cookie generator and TX queue, and
 * drains its own ring from every worker: the slow-path TCP connections
 * whose 4-tuple tfo_ctrl_pick() gives it: the slow-path TCP (cookie
 * requests, failed cookies, plain handshakes, SYN cookies under a flood,
 * on its own engine). Each is the same slow-path lcore; what one is given
 * besides, it does: the workers' neighbour rings (ARP, ICMP echo, IPv6
 * neighbor solicitation and ICMPv6 echo for our addresses: net/neigh.h),
 * the SYN queues of hardware SYN steering and the exception paths are
 * given to control 0. Each sends on its own TX queue (queue nb_workers +
 * idx of every port) or, on a port whose device has no queue for it,
 * through worker idx % workers (relay[]). A path-MTU error about a flow
 * that tfo_ctrl_pick() gives another control lcore goes to its inbox.
 *
 * What is server-wide (keys, reloads, the drain, the stats line, the
 * access log, the links, sd_notify) is the supervisor's
 * (lcore/supervisor.h), whose loop runs control 0's poll beside it.
 */
#ifndef TFO_CONTROL_H
#define TFO_CONTROL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ring.h>

#include "cookie/cookie.h"
#include "lcore/ctrl_pick.h"
#include "lcore/exception.h"
#include "lcore/idle.h"
#include "lcore/worker.h"
#include "net/neigh.h"
#include "net/pkt.h"
#include "net/tx.h"
#include "ops/config.h"
#include "ops/stats.h"
#include "tcp/engine.h"
#include "tcp/latency.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_control {
	struct tfo_stats stats;		/* first: its own cache lines */
	struct tfo_tx tx;
	uint16_t tx_queue;		/**< its TX queue on every port */
	unsigned int idx;		/**< 0..nb_controls-1: its ring of each worker */
	unsigned int nb_controls;
	unsigned int lcore_id;
	/** Every control lcore, [0] the first (path-MTU errors about their
	 *  flows go to their inboxes); NULL: just this one. */
	struct tfo_control *const *peers;
	/** Another control lcore -> this one: path-MTU errors about its
	 *  flows; NULL: none. */
	struct rte_ring *inbox;
	/** Drains every worker's neighbour ring (ARP, ND) first in each poll:
	 *  control 0. */
	bool neigh;
	/** Drains the SYN queues of the ports with hardware SYN steering:
	 *  control 0. */
	bool syn_queues;
	/** Per port: our ring to the worker that sends for us (ctrl_tx_relay),
	 *  worker relay_worker (this control's index % workers). */
	struct rte_ring *relay[TFO_MAX_PORTS];
	unsigned int relay_worker;
	struct tfo_exc *exc;		/**< per port: exception path, or NULL */
	uint16_t nb_ports;
	const struct tfo_port_info *ports;
	unsigned int nb_workers;
	struct tfo_worker **workers;
	uint32_t burst;
	/** Echo replies (ICMP, ICMPv6) of this lcore: icmp_echo_per_s. */
	struct tfo_tbucket echo_tb;
	uint64_t tsc_per_us;
	const volatile bool *quit;
	/** The server's drain flag (lcore/drain.h), read with quit; the
	 *  supervisor sets it for /tfo/drain. NULL: no drain (stops at quit
	 *  only). */
	volatile bool *drain;
	bool draining;			/**< this lcore's copy, refreshed per poll */
	/** Set once its loop runs: the supervisor sends READY=1 when all are. */
	volatile bool polling;
	const struct tfo_config *cfg;
	struct tfo_engine *engine;	/**< slow-path TCP; NULL: TCP dropped */
	struct tfo_cookie_ctx *cookies;	/**< issues cookies; NULL: TFO off */
	/** With SYN cookies: connection entries kept for the handshakes they
	 *  complete. Once only this many are free, SYNs are answered with SYN
	 *  cookies (half-open entries cannot take the whole table). */
	uint32_t syn_reserve;
	/** Non-zero while the table is down to syn_reserve (SYN cookies due):
	 *  the workers read it (syncookies = auto) with a plain load; written
	 *  only when it changes, alone in its cache line. */
	volatile uint8_t syn_pressure __rte_cache_aligned;
	/** Its idle policy and doorbell: the workers ring it after filling
	 *  its rings, another control lcore after filling its inbox, the
	 *  supervisor when asked, the server on stop. */
	struct tfo_idle idle;
	/** Its latency histograms (tcp/latency.h), as a worker's. */
	struct tfo_lat lat;
};

/** What a control lcore is given. */
struct tfo_control_params {
	const struct tfo_config *cfg;
	const struct tfo_port_info *ports;
	uint16_t nb_ports;		/**< at most TFO_MAX_PORTS */
	/** Read from the first tfo_control_poll() on (they may be set up
	 *  after tfo_control_init). */
	struct tfo_worker **workers;
	unsigned int nb_workers;
	const volatile bool *quit;
	volatile bool *drain;		/**< the server's drain flag; NULL: none */
	/** Slow-path TCP, NULL: TCP dropped. Created before tfo_control_init
	 *  on c->stats and c->tx: init zeroes them in place, so the engine's
	 *  pointers stay good. */
	struct tfo_engine *engine;
	struct tfo_cookie_ctx *cookies;	/**< issues cookies; NULL: TFO off */
	/** Per port: this control lcore's own ring (SP/SC) to the worker that
	 *  sends for it (ports with ctrl_tx_relay), NULL otherwise: worker
	 *  idx % nb_workers, so no single worker carries every control
	 *  lcore's frames. */
	struct rte_ring *relay[TFO_MAX_PORTS];
	/** Of several control lcores: which one this is, how many, all of
	 *  them (read from the first poll on) and its inbox. */
	unsigned int idx;
	unsigned int nb_controls;	/**< 0 or 1: one control lcore */
	struct tfo_control *const *peers;
	struct rte_ring *inbox;
	/** It drains the workers' neighbour rings (ARP, ND), and the SYN
	 *  queues of the ports with SYN steering: one control lcore does,
	 *  control 0. */
	bool neigh;
	bool syn_queues;
	/** Per port (nb_ports): its exception path (on or off); NULL: none
	 *  (one control lcore's, control 0's: the workers send it what goes
	 *  to the kernel). */
	struct tfo_exc *exc;
	/** What it does when a poll finds nothing (lcore/idle.h). */
	struct tfo_idle_params idle;
};

/**
 * Fill @p c from @p p (its doorbell: an eventfd with idle policy adaptive;
 * a SYN-cookie reserve of a quarter of cfg->max_conns; TX queue
 * nb_workers + idx). What @p p leaves NULL is off.
 * @return 0, or -EINVAL (more than TFO_MAX_PORTS ports, burst over
 * TFO_TX_BUF, idx not below nb_controls, more than TFO_MAX_CONTROLS, an
 * unknown idle policy), or the -errno of the doorbell's eventfd().
 */
int tfo_control_init(struct tfo_control *c, const struct tfo_control_params *p);

/**
 * Its rings and RX queues for its idle policy (lcore/idle.h): its ring of
 * every worker and its inbox; what it was given of the neighbour rings,
 * the SYN queues and the exception paths' kernel interfaces. After the
 * workers exist.
 * @return 0 or a negative errno.
 */
int tfo_control_idle_watch(struct tfo_control *c);

/** Close the doorbell. */
void tfo_control_close(struct tfo_control *c);

/** The drain has begun (its loop saw the flag): new SYNs to a served port
 *  get a RST from now on, and its engine closes its idle keep-alive
 *  connections (tfo_engine_drain). Once. */
void tfo_control_drain_begin(struct tfo_control *c, uint64_t now_us);

/**
 * One round: drain (if given) the neighbour rings, this control lcore's
 * ring of every worker, its inbox and (if given) the SYN queues, run the
 * engine's timers, poll the exception paths, flush c->tx.
 * @return frames taken from the rings and queues.
 */
unsigned int tfo_control_poll(struct tfo_control *c, uint64_t now_us);

/**
 * Handle @p n frames from the workers' rings (what tfo_control_poll does
 * with each burst it dequeues): counted in ctrl_rx, then delivered or
 * dropped. Replies are queued in c->tx (flushed by tfo_control_poll).
 * No ring or device is touched: fuzzers feed frames here directly.
 */
void tfo_control_burst(struct tfo_control *c, struct rte_mbuf **pkts,
		       unsigned int n, uint64_t now_us);

/**
 * Take up to a burst of path-MTU errors another control lcore forwarded
 * to c->inbox
 * (counted there, as delivered): each goes to this control lcore's engine,
 * or to the worker RSS gives its flow (pmtu_handoff), or is counted
 * pmtu_handoff_lost. Device-free. @return frames taken.
 */
unsigned int tfo_control_inbox(struct tfo_control *c, uint64_t now_us);

/*
 * The loop's steps, which tfo_control_main runs and the supervisor's loop
 * (lcore/supervisor.h) runs with its own between them.
 */

/** On its lcore, before the first round: its lcore id, idle and
 *  quiescent-state registration, then `polling`. @return 0 or -EINVAL. */
int tfo_control_enter(struct tfo_control *c);

/** After the last round: leave the quiescent-state readers. */
void tfo_control_leave(struct tfo_control *c);

/** One round of the loop started at TSC @p t0: the drain flag looked at,
 *  tfo_control_poll, the latency histograms binned. @return frames taken. */
unsigned int tfo_control_round(struct tfo_control *c, uint64_t t0);

/** A round that did @p n things (n != 0) counts its time in busy_tsc. */
void tfo_control_busy(struct tfo_control *c, unsigned int n, uint64_t t0);

/** How long it may sleep: a timer tick while its engine has timers, else
 *  TFO_IDLE_QUIET_US (doorbells bring frames and requests). */
uint64_t tfo_control_wait_max(const struct tfo_control *c);

/** Poll until *quit (a plain control lcore: controls 1..N-1). */
int tfo_control_main(struct tfo_control *c);

/** lcore entry point of controls 1..N-1 (rte_eal_remote_launch): @p arg
 *  is the struct tfo_control. */
int tfo_control_lcore_main(void *arg);

#ifdef __cplusplus
}
#endif

#endif /* TFO_CONTROL_H */
