/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench: in-memory micro-benchmarks. Each benchmark is one file that
 * registers itself with TFO_BENCH(); main.c starts EAL and runs the one
 * named on the command line. Benchmarks print figures; they never fail on
 * a number (exit code != 0 only when they could not run).
 */
#ifndef TFO_BENCH_H
#define TFO_BENCH_H

#include <stdint.h>

#include <rte_cycles.h>

struct tfo_bench {
	const char *name;
	const char *help;
	/** argv[0] is the benchmark name; @return 0 or a negative errno. */
	int (*run)(int argc, char **argv);
	struct tfo_bench *next;
};

void tfo_bench_register(struct tfo_bench *b);

/** Median of @p n values (sorts @p v in place). */
double tfo_bench_median(double *v, unsigned int n);

/** TSC ticks per second, and the ratio core cycles / TSC tick if known (else 1). */
uint64_t tfo_bench_tsc_hz(void);

/** /proc/cpuinfo's "model name" (printed with the figures: they depend on it). */
const char *tfo_bench_cpu_model(void);

#define TFO_BENCH(sym, name_, help_, fn_) \
	static struct tfo_bench sym = { .name = name_, .help = help_, .run = fn_ }; \
	RTE_INIT(tfo_bench_reg_##sym) { tfo_bench_register(&sym); }

#endif /* TFO_BENCH_H */
