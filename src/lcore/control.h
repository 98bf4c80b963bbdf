/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the control lcores (the slow path).
 *
 * Control 0 runs on the main lcore, controls 1..N-1 ([server]
 * control_lcores) on the next EAL lcores. Each has its own engine,
 * connection table, timers, counters, cookie generator and TX queue, and
 * drains its own ring from every worker: the slow-path TCP connections
 * whose 4-tuple tfo_ctrl_pick() gives it. Only control 0 does what
 * follows besides: it drains the SYN queues of
 * hardware SYN steering, and handles what the fast path did not take: the
 * slow-path TCP (cookie requests, failed cookies, plain handshakes, SYN
 * cookies under a flood, on its own engine) and ARP, ICMP echo, IPv6
 * neighbor solicitation and ICMPv6 echo for our addresses (net/neigh.h).
 * It sends on its own TX queue (queue nb_workers of every port) or, on a
 * port whose device has no queue for it, through worker idx % workers (relay[]). It
 * rotates and reloads the TFO keys (the single writer of their schedule),
 * prints the periodic stats line and the summary at exit (lcore/report.h)
 * and serves the /tfo/... telemetry commands (lcore/telemetry.h), all over
 * every control lcore's counters. A path-MTU error about a flow that
 * tfo_ctrl_pick() gives control k != 0 goes to control k's inbox.
 */
#ifndef TFO_CONTROL_H
#define TFO_CONTROL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ring.h>

#include "cookie/cookie.h"
#include "lcore/drain.h"
#include "lcore/exception.h"
#include "lcore/link.h"
#include "lcore/report.h"
#include "lcore/worker.h"
#include "net/neigh.h"
#include "net/pkt.h"
#include "net/tx.h"
#include "ops/config.h"
#include "ops/stats.h"
#include "tcp/access_log.h"
#include "tcp/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_svc_reloader;	/* tcp/service_reload.h */

struct tfo_control {
	struct tfo_stats stats;		/* first: its own cache lines */
	struct tfo_tx tx;
	uint16_t tx_queue;		/**< its TX queue on every port */
	unsigned int idx;		/**< 0..nb_controls-1: its ring of each worker */
	unsigned int nb_controls;
	unsigned int lcore_id;
	/** Every control lcore, [0] the first (control 0 reports for all,
	 *  forwards path-MTU errors to their inboxes); NULL: just this one. */
	struct tfo_control *const *peers;
	/** Control 0 -> this one (idx > 0): path-MTU errors about its flows;
	 *  NULL: none. */
	struct rte_ring *inbox;
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
	uint32_t stats_period_s;
	uint64_t tsc_per_us;
	const volatile bool *quit;
	/** The server's drain flag (lcore/drain.h), read with quit; control 0
	 *  sets it for /tfo/drain. NULL: no drain (stops at quit only). */
	volatile bool *drain;
	bool draining;			/**< this lcore's copy, refreshed per poll */
	/** Set once its loop runs: control 0 sends READY=1 when all are. */
	volatile bool polling;
	/** Control 0: readiness, watchdog, the drain (lcore/drain.h). */
	struct tfo_lifecycle life;
	/** Control 0: the ports' links, looked at once a second (link.h). */
	struct tfo_link link;
	const struct tfo_config *cfg;
	struct tfo_engine *engine;	/**< slow-path TCP; NULL: TCP dropped */
	struct tfo_cookie_ctx *cookies;	/**< issues cookies; NULL: TFO off */
	struct tfo_keyring *keys;	/**< rotated here; NULL: TFO off */
	uint64_t next_rotate_us;	/**< automatic rotation, 0 = never */
	/** With SYN cookies: connection entries kept for the handshakes they
	 *  complete. Once only this many are free, SYNs are answered with SYN
	 *  cookies (half-open entries cannot take the whole table). */
	uint32_t syn_reserve;
	volatile int rotate_requested;	/**< set by telemetry, done here */
	/** Key file re-read on SIGHUP or /tfo/reload (tfo_keyring_reload_file);
	 *  NULL: random keys, nothing to reload. */
	const char *key_file;
	volatile int reload_requested;	/**< set by SIGHUP / telemetry, done here */
	uint64_t reload_seq;		/**< reloads done; then the result below */
	int reload_rc;			/**< of the last reload: 1, 0 or -errno */
	char reload_msg[1536];		/**< its one-line outcome (keys; services) */
	/** Services reloaded with the key file (http: document root), on a
	 *  control thread; NULL: none can. */
	struct tfo_svc_reloader *svc_reload;
	bool svc_reload_wait;		/**< keys done, services still loading */
	/** The configured services' counters (tfo_stats.svc): their names
	 *  for /tfo/stats, the stats line and the exit summary; NULL: none. */
	const struct tfo_svc_ctr_map *svc_ctrs;
	/* stats line state (control 0): when the last line was due, and the
	 * snapshot it was computed to (the next one's start) */
	uint64_t last_stats_us;
	struct tfo_report_snap last_snap;
	struct tfo_report_snap next_snap;	/**< the one being taken */
	FILE *out;			/**< stats line / summary stream */
	/** Non-zero while the table is down to syn_reserve (SYN cookies due):
	 *  the workers read it (syncookies = auto) with a plain load; written
	 *  only when it changes, alone in its cache line. */
	volatile uint8_t syn_pressure __rte_cache_aligned;
	/** Its idle policy and doorbell: the workers ring it after filling
	 *  its rings, control 0 after filling its inbox, the server on stop. */
	struct tfo_idle idle;
	/** Its latency histograms (tcp/latency.h), as a worker's. */
	struct tfo_lat lat;
	/** Control 0: the access log's file and every lcore's ring of
	 *  records (tcp/access_log.h); NULL: no access log. */
	struct tfo_alog *alog;
};

/** Control lcores @p c reports for: all of them for control 0 (c->peers). */
static inline unsigned int
tfo_control_nb_peers(const struct tfo_control *c)
{
	return c->peers != NULL ? c->nb_controls : 1;
}

/** Control lcore @p i (< tfo_control_nb_peers) as @p c sees it. */
static inline const struct tfo_control *
tfo_control_peer(const struct tfo_control *c, unsigned int i)
{
	return c->peers != NULL ? c->peers[i] : c;
}

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
	/** Control 0: the service manager's socket (lcore/sdnotify.h); NULL:
	 *  none. */
	struct tfo_sdnotify *notify;
	/** Slow-path TCP, NULL: TCP dropped. Created before tfo_control_init
	 *  on c->stats and c->tx: init zeroes them in place, so the engine's
	 *  pointers stay good. */
	struct tfo_engine *engine;
	struct tfo_cookie_ctx *cookies;	/**< issues cookies; NULL: TFO off */
	/** Rotated every cfg->rotate_period_s (0: never) and reloaded here;
	 *  NULL: TFO off. */
	struct tfo_keyring *keys;
	const char *key_file;		/**< NULL: random keys, no reload */
	struct tfo_svc_reloader *svc_reload;	/**< NULL: no service reloads */
	const struct tfo_svc_ctr_map *svc_ctrs;	/**< NULL: no service counters */
	/** Per port: this control lcore's own ring (SP/SC) to the worker that
	 *  sends for it (ports with ctrl_tx_relay), NULL otherwise: worker
	 *  idx % nb_workers, so no single worker carries every control
	 *  lcore's frames. */
	struct rte_ring *relay[TFO_MAX_PORTS];
	/** Of several control lcores: which one this is (0: the first, which
	 *  alone gets @p keys, the SYN queues, ARP/ICMP and reports), how many,
	 *  all of them (read from the first poll on) and its inbox. */
	unsigned int idx;
	unsigned int nb_controls;	/**< 0 or 1: one control lcore */
	struct tfo_control *const *peers;
	struct rte_ring *inbox;
	/** Per port (nb_ports): its exception path (on or off); NULL: none
	 *  (control 0 only: the workers send it what goes to the kernel). */
	struct tfo_exc *exc;
	/** What it does when a poll finds nothing (lcore/idle.h). */
	struct tfo_idle_params idle;
};

/**
 * Fill @p c from @p p (its doorbell: an eventfd with idle policy adaptive;
 * stats line to stdout, a SYN-cookie reserve of a
 * quarter of cfg->max_conns, the first automatic key rotation one period
 * from now; TX queue nb_workers + idx). What @p p leaves NULL is off.
 * @return 0, or -EINVAL (more than TFO_MAX_PORTS ports, burst over
 * TFO_TX_BUF, idx not below nb_controls, more than TFO_MAX_CONTROLS, an
 * unknown idle policy), or the -errno of the doorbell's eventfd().
 */
int tfo_control_init(struct tfo_control *c, const struct tfo_control_params *p);

/**
 * Its rings and RX queues for its idle policy (lcore/idle.h): its ring of
 * every worker and its inbox; (control 0) the SYN queues and the
 * exception paths' kernel interfaces. After the workers exist.
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
 * One round: drain this control lcore's ring of every worker, its inbox
 * and (control 0) the SYN queues, run the engine's timers, rotate or
 * reload the keys when due or asked, flush c->tx.
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
 * Take up to a burst of path-MTU errors control 0 forwarded to c->inbox
 * (counted there, as delivered): each goes to this control lcore's engine,
 * or to the worker RSS gives its flow (pmtu_handoff), or is counted
 * pmtu_handoff_lost. Device-free. @return frames taken.
 */
unsigned int tfo_control_inbox(struct tfo_control *c, uint64_t now_us);

/** Poll until *quit; prints the stats line every stats_period_s (control 0),
 *  and (control 0) returns when a drain is over (tfo_drain_tick): the
 *  caller then stops the other lcores. */
int tfo_control_main(struct tfo_control *c);

/** lcore entry point of controls 1..N-1 (rte_eal_remote_launch): @p arg
 *  is the struct tfo_control. */
int tfo_control_lcore_main(void *arg);

#ifdef __cplusplus
}
#endif

/* its telemetry: part of its interface (lcore/report.h too, above: the
 * stats line's snapshot is part of the struct) */
#include "lcore/telemetry.h"

#endif /* TFO_CONTROL_H */
