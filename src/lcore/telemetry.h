/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the /tfo/... DPDK telemetry commands: /tfo/stats,
 * /tfo/counters, /tfo/keys, /tfo/rotate, /tfo/reload, /tfo/conns,
 * /tfo/config (read with dpdk-telemetry.py; docs/runbook.md).
 *
 * They run on DPDK's telemetry thread. Counters are read as they are
 * (snapshots retried until they balance); key rotation, reload and the
 * drain are only requested here and done by the supervisor
 * (lcore/supervisor.h), which stays the one writer of its counters and
 * the key schedule.
 */
#ifndef TFO_TELEMETRY_H
#define TFO_TELEMETRY_H

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_supervisor;

/**
 * Register the /tfo/... telemetry commands, answered for @p sup (its
 * lcores, keys, reloads and drain). DPDK 22.11 telemetry callbacks take no
 * user argument, so @p sup is kept in telemetry.c's one file-scope
 * pointer: one supervisor per process registers.
 * @return 0, or the error of the last registration that failed (logged).
 */
int tfo_telemetry_init(struct tfo_supervisor *sup);

#ifdef __cplusplus
}
#endif

#endif /* TFO_TELEMETRY_H */
