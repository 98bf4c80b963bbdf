/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: what the control core reports: the counters of all lcores
 * summed, the periodic stats line, the summary at exit and the accounting
 * check (every frame counted exactly once, stats.h).
 *
 * Read the lcores' counters without stopping them: exact when they are
 * stopped or idle, a few frames off while they run.
 */
#ifndef TFO_REPORT_H
#define TFO_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>

#include "lcore/ctrl_pick.h"
#include "net/pkt.h"
#include "ops/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_control;

/** Sum of all lcores' counters into @p total. */
void tfo_control_aggregate(const struct tfo_control *c, struct tfo_stats *total);

/** Most workers a snapshot keeps the busy time of. */
#define TFO_REPORT_MAX_WORKERS RTE_MAX_LCORE

/**
 * One reading of what the stats line compares (tfo_report_snap_take): the
 * TSC when taken, every lcore's counters summed, each lcore's busy_tsc and
 * each port's imissed. The line is the difference of two of them.
 */
struct tfo_report_snap {
	uint64_t tsc;			/**< rte_rdtsc() when taken */
	struct tfo_stats total;		/**< all lcores summed */
	unsigned int nb_workers;	/**< at most TFO_REPORT_MAX_WORKERS */
	unsigned int nb_controls;	/**< at most TFO_MAX_CONTROLS */
	uint64_t worker_busy[TFO_REPORT_MAX_WORKERS];	/**< busy_tsc of worker i */
	uint64_t control_busy[TFO_MAX_CONTROLS];	/**< busy_tsc of control k */
	uint16_t nb_ports;		/**< at most TFO_MAX_PORTS */
	/** Bit i: port i's rte_eth_stats_get() answered, imissed[i] is good. */
	uint32_t ports_ok;
	/** rte_eth_stats.imissed of port i, plus (net_af_xdp) the frames the
	 *  kernel dropped for a full RX ring, which the PMD leaves out */
	uint64_t imissed[TFO_MAX_PORTS];
	uint64_t nombuf[TFO_MAX_PORTS];	/**< rte_eth_stats.rx_nombuf of port i */
	/** net_af_xdp: the kernel's counters of port i's sockets (net/xsk.h) */
	struct tfo_xsk_stats xsk[TFO_MAX_PORTS];
	/** the names of total.svc (the line's last fields, those that moved
	 *  in the interval); NULL: none */
	const struct tfo_svc_ctr_map *svc;
};

/**
 * Fill @p s from every lcore's counters (plain loads, as
 * tfo_control_aggregate: a few frames off while they run) and every
 * port's rte_eth_stats (a control-path call: only on a control lcore, never
 * on a worker). Takes no lock.
 */
void tfo_report_snap_take(const struct tfo_control *c, struct tfo_report_snap *s);

/**
 * Format the stats line of the interval between @p prev and @p cur (pure:
 * no device, no clock) into @p out, ending with a newline:
 *
 *   stats: txn=R tfo=R fallback=R [cookie_req=R] [bad_cookie=R]
 *   [over_limit=R] drops=R [drop_top=NAME] imissed=R rx=R tx=R
 *   worker_busy_pct=P worker_busiest=I control_busy_pct=P control_busiest=K
 *   [http_2xx=R] [http_3xx=R] [http_4xx=R] [http_5xx=R] conns=N pending=N
 *   [nombuf=R] [fill_empty=R] [SERVICE_COUNTER=R ...]
 *
 * on one line, in this order. The keys in brackets appear only when their
 * figure is not 0 (drop_top: when drops is not 0; a service counter: when
 * it moved in the interval), so that a server at rest prints a short line
 * (under 200 characters); the others are always there. http_2xx ... are
 * a service's status counters summed by class (tfo/service.h), which are
 * then not shown one by one. R is a rate per
 * second over the real elapsed time (cur->tsc - prev->tsc at @p tsc_hz):
 * "0", two significant digits below 10, a whole number above. P is a busy
 * share in percent (0.0-100.0), I and K indexes ("-": none), NAME the
 * frame-drop counter that grew most, N a gauge's level at @p cur. fallback =
 * cookie_req + bad_cookie + over_limit; nombuf = mbuf_alloc_fail + every
 * port's rx_nombuf; fill_empty = the AF_XDP ports' frames that found the
 * kernel's fill ring empty. docs/runbook.md section 5 says what
 * each key means. A counter that went down (a port reset) counts 0.
 * @return the length snprintf() gives (>= @p len: truncated), or -EINVAL
 * (a NULL argument, no time elapsed, tsc_hz 0).
 */
int tfo_report_rates_line(const struct tfo_report_snap *prev,
			  const struct tfo_report_snap *cur, uint64_t tsc_hz,
			  char *out, size_t len);

/**
 * Print one stats line to c->out: the rates since the last line
 * (tfo_report_rates_line between c->last_snap and a fresh snapshot, which
 * then replaces it). Called by control 0's loop every stats_period_s.
 */
void tfo_control_stats_line(struct tfo_control *c, uint64_t now_us);

/** Print the exit summary: totals, per-lcore counters, accounting, port statistics. */
void tfo_control_summary(const struct tfo_control *c, FILE *f);

/**
 * Check the accounting of stats.h on every lcore and the total, and that
 * the frames the counters say are in the rings are there; print it to
 * @p f (NULL: silent), ending with "accounting: ok" or "accounting:
 * UNBALANCED". Exact only when the lcores are stopped or idle.
 * @return true if everything balances.
 */
bool tfo_control_accounting(const struct tfo_control *c, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* TFO_REPORT_H */
