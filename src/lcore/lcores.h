/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: every lcore of a server as the reports see them: the
 * control lcores and the workers (their counters, gauges, histograms,
 * engines and rings), the ports, and the names of the services' counters.
 *
 * Filled once at start (the supervisor's, lcore/supervisor.h) and read by
 * the reports (report.h), the drain (drain.h) and telemetry while the
 * lcores run: plain loads of counters each lcore alone writes.
 */
#ifndef TFO_LCORES_H
#define TFO_LCORES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_control;
struct tfo_worker;
struct tfo_port_info;
struct tfo_svc_ctr_map;

struct tfo_lcores {
	/** Control lcores 0..nb_controls-1 ([0]: the main lcore's). */
	struct tfo_control *const *controls;
	unsigned int nb_controls;
	struct tfo_worker *const *workers;
	unsigned int nb_workers;
	const struct tfo_port_info *ports;
	uint16_t nb_ports;
	/** The configured services' counters (tfo_stats.svc): their names
	 *  for /tfo/stats, the stats line and the exit summary; NULL: none. */
	const struct tfo_svc_ctr_map *svc_ctrs;
};

#ifdef __cplusplus
}
#endif

#endif /* TFO_LCORES_H */
