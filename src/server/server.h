/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the whole server, assembled from a configuration.
 *
 * tfo_server_create() builds what tfo-server runs: the mbuf pools (one
 * per NUMA socket with lcores, pool_plan.h), the ports, the services, the
 * TFO key ring and cookie checkers, the control lcores ([server]
 * control_lcores: the main lcore and the next N-1 EAL lcores; each its
 * engine, cookie generator and TX queue; the relay rings), one worker per
 * remaining EAL lcore (its ring to each control lcore, its SYN inbox, its
 * engine) and the telemetry commands. Each lcore's engine and cookie
 * checker, and each ring, are on the socket of the lcore that polls them;
 * the keys and services, read by all, on the main lcore's. The same
 * function builds the device-free server the fuzzers and benchmarks feed
 * directly (tfo_worker_burst, tfo_control_poll): give it the ports'
 * tfo_port_info instead of devices.
 */
#ifndef TFO_SERVER_H
#define TFO_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "cookie/cookie.h"
#include "lcore/control.h"
#include "lcore/worker.h"
#include "net/pkt.h"
#include "ops/config.h"
#include "tcp/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_server;

/** What differs from tfo-server's assembly; all zero: tfo-server's. */
struct tfo_server_params {
	/** Prefix of the pool and ring names (several servers in one
	 *  process); NULL: "tfo". */
	const char *name;
	/** Non-NULL: no device. These @p nb_ports ports are used as given
	 *  (cfg->ports is ignored), no lcore is launched, and the caller
	 *  feeds the workers and the control core itself. */
	const struct tfo_port_info *ports;
	uint16_t nb_ports;
	/** Workers without devices (>= 1); with devices, one per EAL
	 *  lcore after the control lcores and this must be 0. */
	unsigned int nb_workers;
	/** Control lcores without devices (1..TFO_MAX_CONTROLS; 0: [server]
	 *  control_lcores); with devices this must be 0 (the key decides). */
	unsigned int nb_controls;
	/** mbufs in the pool (a server without devices has one, on the
	 *  caller's socket), taken as given; 0: [server] mbufs, or computed. */
	uint32_t nb_mbufs;
	/** TFO primary (and backup) key; NULL: [tfo] key_file, or random. */
	const struct tfo_key *key;
	const struct tfo_key *backup;
	/** Called on every engine's parameters (filled from the
	 *  configuration) before it is created: what no key sets (buffer
	 *  counts, a control table smaller than the workers'). NULL: none. */
	void (*engine_tune)(struct tfo_engine_params *ep, bool control, void *arg);
	void *arg;
	/** Register the /tfo/... telemetry commands (one server per process). */
	bool telemetry;
};

/**
 * Build the server for @p cfg (validated; copied). With devices, the EAL
 * must be initialised with at least control_lcores + 1 lcores: the calling
 * one is control 0. @return the server, or NULL with a one-line reason in
 * @p err (what to change, as tfo-server prints it).
 */
struct tfo_server *tfo_server_create(const struct tfo_config *cfg,
				     const struct tfo_server_params *params,
				     char *err, size_t errlen);

/**
 * Close the ports and free everything. With telemetry registered only the
 * ports are closed: the telemetry thread may read the counters until
 * rte_eal_cleanup(), which frees the rest. NULL is a no-op.
 */
void tfo_server_free(struct tfo_server *s);

/** Launch controls 1..N-1 and every worker on its lcore.
 *  @return 0 or a negative errno. */
int tfo_server_launch(struct tfo_server *s);

/** Run control 0 on the calling lcore until tfo_server_stop() or the end
 *  of a drain (tfo_server_drain), then stop and wait for the other lcores. */
void tfo_server_run(struct tfo_server *s);

/**
 * Start a drain (async-signal-safe: one store and a doorbell): new SYNs
 * are refused with a RST, the connections in flight are served, and
 * tfo_server_run returns once none is left or [server] drain_timeout is
 * over (lcore/drain.h). tfo_server_stop still stops at once.
 */
void tfo_server_drain(struct tfo_server *s);

/** A drain was asked for (async-signal-safe: one load). */
bool tfo_server_draining(const struct tfo_server *s);

/** Ask every lcore to stop (async-signal-safe: one store). */
void tfo_server_stop(struct tfo_server *s);

/** Ask the control core to re-read the key file (async-signal-safe). */
void tfo_server_reload(struct tfo_server *s);

unsigned int tfo_server_nb_workers(const struct tfo_server *s);
unsigned int tfo_server_nb_ports(const struct tfo_server *s);
struct tfo_worker *tfo_server_worker(struct tfo_server *s, unsigned int i);
/** Control 0: keys, telemetry, reports (over every control lcore). */
struct tfo_control *tfo_server_control(struct tfo_server *s);
/** Control lcores (>= 1). */
unsigned int tfo_server_nb_controls(const struct tfo_server *s);
/** Control lcore @p i (0: tfo_server_control), NULL past the last. */
struct tfo_control *tfo_server_control_at(struct tfo_server *s, unsigned int i);
/** The mbuf pool of the main lcore's socket (control 0's): the one pool
 *  of a server without devices, what its callers build frames from. */
struct rte_mempool *tfo_server_pool(struct tfo_server *s);

#ifdef __cplusplus
}
#endif

#endif /* TFO_SERVER_H */
