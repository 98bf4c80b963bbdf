/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the /tfo/... DPDK telemetry commands: /tfo/stats,
 * /tfo/counters, /tfo/keys, /tfo/rotate, /tfo/reload, /tfo/conns,
 * /tfo/config (read with dpdk-telemetry.py; docs/runbook.md).
 *
 * They run on DPDK's telemetry thread. Counters are read as they are
 * (snapshots retried until they balance); key rotation and reload are
 * only requested here and done by the control core, which stays the one
 * writer of the counters and the key schedule.
 */
#ifndef TFO_TELEMETRY_H
#define TFO_TELEMETRY_H

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_control;

/**
 * Register the /tfo/... telemetry commands for @p c. DPDK 22.11 telemetry
 * callbacks take no user argument, so @p c is kept in one file-scope
 * pointer; only one control core exists per process.
 * @return 0, or the error of the last registration that failed (logged).
 */
int tfo_control_telemetry_register(struct tfo_control *c);

#ifdef __cplusplus
}
#endif

#endif /* TFO_TELEMETRY_H */
