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

#include "tfo/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_control;

/** Sum of all lcores' counters into @p total. */
void tfo_control_aggregate(const struct tfo_control *c, struct tfo_stats *total);

/**
 * Print one stats line to c->out: rates since the last line (or since
 * c->last_stats_us), totals, TFO counters; remember them for the next one.
 * Called by the control core's loop every stats_period_s.
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
