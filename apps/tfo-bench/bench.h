/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench: in-memory micro-benchmarks. Each benchmark is one file that
 * registers itself with TFO_BENCH(); main.c starts EAL and runs the one
 * named on the command line. Benchmarks print figures; they never fail on
 * a number (exit code != 0 only when they could not run).
 */
#ifndef TFO_BENCH_H
#define TFO_BENCH_H

#include <stdbool.h>
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

/** How tfo_bench_getopt() reads an option and where it puts it. */
enum tfo_bench_opt_type {
	TFO_BENCH_OPT_U32,	/**< --name N: *(uint32_t *)val = N */
	TFO_BENCH_OPT_LIST,	/**< --name N[,N...]: up to max numbers into
				 *   (uint32_t *)val, how many in *n (>= 1) */
	TFO_BENCH_OPT_FLAG,	/**< --name: *(bool *)val = true */
	TFO_BENCH_OPT_STR,	/**< --name S: *(char **)val = S (the argv
				 *   string, writable), for the benchmark */
	TFO_BENCH_OPT_PUSH,	/**< --name: @p tag appended to (uint8_t *)val,
				 *   how many in *n (at most max), in the order
				 *   of the command line */
};

/** One option of a benchmark. */
struct tfo_bench_opt {
	const char *name;	/**< without the leading "--" */
	enum tfo_bench_opt_type type;
	void *val;
	unsigned int *n;	/**< LIST, PUSH: the count */
	unsigned int max;	/**< LIST, PUSH: room in val */
	uint8_t tag;		/**< PUSH: the value appended */
};

/** At most this many options per benchmark. */
#define TFO_BENCH_MAX_OPTS 24

/**
 * Read a benchmark's options, argv[1..argc) (argv[0]: its name), by the
 * @p nopts entries of @p opts. On an unknown option, a number that does
 * not parse, an empty or malformed list or a full PUSH list: @p usage (if
 * not NULL) to stderr and -EINVAL. @return 0 or -EINVAL.
 */
int tfo_bench_getopt(int argc, char **argv, const struct tfo_bench_opt *opts,
		     unsigned int nopts, const char *usage);

#define TFO_BENCH(sym, name_, help_, fn_) \
	static struct tfo_bench sym = { .name = name_, .help = help_, .run = fn_ }; \
	RTE_INIT(tfo_bench_reg_##sym) { tfo_bench_register(&sym); }

#endif /* TFO_BENCH_H */
