/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: what a start needs, known before the EAL starts.
 *
 * --print-config runs a start's checks without the EAL: it reads the
 * lcores the EAL arguments give (-l, -c, --lcores, --main-lcore), refuses
 * a configuration that needs more of them than that, and prints the
 * memory each NUMA socket needs at start (the mbuf pools of pool_plan.h,
 * each engine's connection table, TIME-WAIT records, buffers and timers,
 * the rings, the cookie checkers, the NIC queues, and an allowance for
 * the EAL and the drivers) with the 2 MiB hugepages that makes. The same
 * numbers size the shipped unit, setup-host.sh --config and the runbook
 * ("Hugepages"): one sizing rule, in one place.
 */
#ifndef TFO_START_PLAN_H
#define TFO_START_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_config.h>

#include "ops/config.h"
#include "server/pool_plan.h"
#include "tcp/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** MiB per socket with lcores for what the EAL and the PMDs allocate
 *  themselves (memzones, ethdev data, descriptor rings beyond ours,
 *  telemetry); measured under 40 MiB with net_tap, mlx5 and ice take
 *  more. */
#define TFO_PLAN_EAL_MB 64u

/** Headroom over the sum, in percent (heap fragmentation, page ends). */
#define TFO_PLAN_MARGIN_PCT 5u

/** The lcores and memory the EAL arguments ask for. */
struct tfo_eal_layout {
	/** Lcores in the order the server takes them: the main lcore
	 *  (control 0), then the others by id (controls 1..N-1, workers). */
	unsigned int nb_lcores;
	unsigned int lcore[RTE_MAX_LCORE];
	int cpu[RTE_MAX_LCORE];		/**< the first CPU each runs on */
	int socket[RTE_MAX_LCORE];	/**< its NUMA node (tfo_eal_layout_sockets) */
	char lcores_arg[128];		/**< "-l 1-5", as given (for messages) */
	bool no_huge;			/**< --no-huge: all memory is socket 0's */
	bool syslog;			/**< --syslog: the user wants syslog too */
	uint64_t mem_mb;		/**< -m, 0: not given */
	bool has_socket_mem;		/**< --socket-mem given */
	uint64_t socket_mem_mb[TFO_PLAN_SOCKETS];
};

/**
 * Read the EAL arguments @p argv[1..argc-1] as rte_eal_init would for
 * lcores and memory. Without -l, -c or --lcores: every CPU the process may
 * run on, as the EAL does. Sockets are all 0 until tfo_eal_layout_sockets.
 * @return 0, or -EINVAL with one line in @p err (a malformed list).
 */
int tfo_eal_layout_parse(int argc, char *const argv[], struct tfo_eal_layout *l,
			 char *err, size_t errlen);

/** The lcores of the running EAL (after rte_eal_init), with their sockets,
 *  for the plan a start logs. */
void tfo_eal_layout_from_eal(struct tfo_eal_layout *l);

/** Each lcore's socket from @p sysfs (normally "/sys"):
 *  devices/system/cpu/cpuN/nodeK; 0 where none is found. */
void tfo_eal_layout_sockets(struct tfo_eal_layout *l, const char *sysfs);

/**
 * The sizing fields of an engine's parameters from @p c: what a worker's
 * (@p control false) or a control lcore's engine gets. The server adds
 * the rest (name, socket, pool, ports, MSS, stats, tx).
 */
void tfo_engine_params_from_config(const struct tfo_config *c, bool control,
				   struct tfo_engine_params *p);

/** What one socket's lcores allocate at start, in bytes. */
struct tfo_mem_socket {
	uint32_t mbufs;		/**< mbufs of its pool (pool_plan.h), 0: no lcore */
	uint64_t part[TFO_POOL_NB_PARTS];	/**< its need by part (pool_plan.h) */
	uint64_t pool;		/**< the pool: mbufs, its ring, its caches */
	uint64_t tables;	/**< connection tables, index, TIME-WAIT records */
	uint64_t bufs;		/**< request/response buffers */
	uint64_t other;		/**< engines, timers, rings, checkers, queues */
	uint64_t eal;		/**< TFO_PLAN_EAL_MB */
	uint64_t total;		/**< all of it plus TFO_PLAN_MARGIN_PCT, MiB-rounded */
	uint32_t pages;		/**< 2 MiB hugepages for total */
};

struct tfo_mem_plan {
	unsigned int nb_controls;
	unsigned int nb_workers;
	uint16_t data_room;	/**< bytes of an mbuf's data room */
	bool af_xdp;		/**< a net_af_xdp port: pools of 4 KiB objects */
	struct tfo_mem_socket s[TFO_PLAN_SOCKETS];
	uint64_t total;		/**< bytes, all sockets */
	uint32_t pages;		/**< 2 MiB hugepages, all sockets */
};

/**
 * The memory @p c needs at start with the lcores of @p l.
 * @return 0; -EINVAL with one line in @p err naming both numbers when
 *   [server] control_lcores needs more lcores than @p l has; -ENOSPC
 *   when [server] mbufs is too small (pool_plan.h's line).
 */
int tfo_mem_plan(const struct tfo_config *c, const struct tfo_eal_layout *l,
		 struct tfo_mem_plan *p, char *err, size_t errlen);

/** The plan as INI comment lines (the output still loads as a file). */
void tfo_mem_plan_print(FILE *f, const struct tfo_eal_layout *l,
			const struct tfo_mem_plan *p);

/**
 * One line in @p msg when the EAL arguments give less memory than the
 * plan (-m with --no-huge, or a socket's --socket-mem). @return true then.
 */
bool tfo_mem_plan_short(const struct tfo_eal_layout *l, const struct tfo_mem_plan *p,
			char *msg, size_t len);

/** One INFO line per socket: the memory and hugepages the plan needs
 *  (with --no-huge: the -m it needs). */
void tfo_mem_plan_log(const struct tfo_eal_layout *l, const struct tfo_mem_plan *p);

/**
 * One INFO line per socket of @p p: what the EAL heap holds now (call it
 * once the server is built and launched) beside the plan's total and its
 * parts without the EAL reserve and margin, so a plan that drifted from
 * the allocations shows (tests/plan_taken.sh holds them together). A
 * WARNING instead when the heap holds more than the plan's total: the
 * plan is short (a bug: --print-config would have sized the hugepages
 * too small).
 * @return the number of sockets over the plan (0: the plan holds).
 */
unsigned int tfo_mem_plan_log_taken(const struct tfo_mem_plan *p);

#ifdef __cplusplus
}
#endif

#endif /* TFO_START_PLAN_H */
