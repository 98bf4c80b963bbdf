/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench: in-memory micro-benchmarks of tfo-fastpath.
 *
 *   tfo-bench [EAL args --] BENCH [bench options]
 *
 * Without EAL arguments it uses hugepages when some are free (the figures
 * that count), else --no-huge (and says so: 1.4-4.5x slower here).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "app.h"
#include "bench.h"
#include "bench_list.h"

static struct tfo_bench *benches;

void
tfo_bench_register(struct tfo_bench *b)
{
	struct tfo_bench **pp = &benches;

	while (*pp != NULL && strcmp((*pp)->name, b->name) < 0)
		pp = &(*pp)->next;
	b->next = *pp;
	*pp = b;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
tfo_bench_median(double *v, unsigned int n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

uint64_t
tfo_bench_tsc_hz(void)
{
	return rte_get_tsc_hz();
}

const char *
tfo_bench_cpu_model(void)
{
	static char model[128];
	FILE *f;
	char line[256];

	if (model[0] != '\0')
		return model;
	snprintf(model, sizeof(model), "unknown CPU");
	f = fopen("/proc/cpuinfo", "r");
	if (f == NULL)
		return model;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *v = strchr(line, ':');

		if (strncmp(line, "model name", 10) != 0 || v == NULL)
			continue;
		v += strspn(v + 1, " \t") + 1;
		v[strcspn(v, "\n")] = '\0';
		snprintf(model, sizeof(model), "%s", v);
		break;
	}
	fclose(f);
	return model;
}

/* One option's value into its place; false when it does not fit. */
static bool
bench_opt_set(const struct tfo_bench_opt *o, char *arg)
{
	char *end;

	switch (o->type) {
	case TFO_BENCH_OPT_U32:
		*(uint32_t *)o->val = (uint32_t)strtoul(arg, &end, 0);
		return end != arg && *end == '\0';
	case TFO_BENCH_OPT_LIST:
		*o->n = tfo_bench_u32_list(arg, o->val, o->max);
		return *o->n != 0;
	case TFO_BENCH_OPT_FLAG:
		*(bool *)o->val = true;
		return true;
	case TFO_BENCH_OPT_STR:
		*(char **)o->val = arg;
		return true;
	case TFO_BENCH_OPT_PUSH:
		if (*o->n >= o->max)
			return false;
		((uint8_t *)o->val)[(*o->n)++] = o->tag;
		return true;
	}
	return false;
}

int
tfo_bench_getopt(int argc, char **argv, const struct tfo_bench_opt *opts,
		 unsigned int nopts, const char *usage)
{
	struct option lo[TFO_BENCH_MAX_OPTS + 1];
	int opt;

	if (nopts > TFO_BENCH_MAX_OPTS)
		return -EINVAL;
	for (unsigned int i = 0; i < nopts; i++) {
		bool arg = opts[i].type == TFO_BENCH_OPT_U32 || opts[i].type == TFO_BENCH_OPT_LIST ||
			   opts[i].type == TFO_BENCH_OPT_STR;

		/* past any character: the index, never '?' */
		lo[i] = (struct option){ opts[i].name, arg ? required_argument : no_argument,
					 NULL, 256 + (int)i };
	}
	lo[nopts] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1)
		if (opt < 256 || !bench_opt_set(&opts[opt - 256], optarg)) {
			if (usage != NULL)
				fprintf(stderr, "%s\n", usage);
			return -EINVAL;
		}
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: tfo-bench [EAL args --] BENCH [options]\n"
		"benchmarks:\n");
	for (struct tfo_bench *b = benches; b != NULL; b = b->next)
		fprintf(f, "  %-10s %s\n", b->name, b->help);
	fprintf(f, "Without EAL args: hugepages if free, else --no-huge.\n");
}

static int
hugepages_free(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long n = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "HugePages_Free: %ld", &n) == 1)
			break;
	fclose(f);
	return n >= 128 && access("/dev/hugepages", F_OK) == 0;
}

int
main(int argc, char **argv)
{
	char prefix[64], *eal[16];
	int sep = app_find_sep(argc, argv), n = 0, rc;
	struct tfo_bench *b;

	if (sep < 0 && (argc < 2 || strcmp(argv[1], "-h") == 0 ||
			strcmp(argv[1], "--help") == 0)) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (sep > 0) {
		argv[sep] = argv[0];
		rc = app_eal_init(sep, argv);
		argc -= sep;
		argv += sep;
	} else {
		int huge = hugepages_free();

		snprintf(prefix, sizeof(prefix), "tfobench%d", (int)getpid());
		eal[n++] = argv[0];
		eal[n++] = (char *)(uintptr_t)"--file-prefix";
		eal[n++] = prefix;
		eal[n++] = (char *)(uintptr_t)"--no-pci";
		eal[n++] = (char *)(uintptr_t)"--no-shconf";
		eal[n++] = (char *)(uintptr_t)"-m";
		eal[n++] = (char *)(uintptr_t)"512";
		eal[n++] = (char *)(uintptr_t)"-l";
		eal[n++] = (char *)(uintptr_t)"0";
		eal[n++] = (char *)(uintptr_t)"--log-level=lib.*:warning";
		/* the pages' files go at once: a run must not leave its
		 * hugepages taken behind it (--no-shconf keeps no runtime dir) */
		eal[n++] = (char *)(uintptr_t)(huge ? "--huge-unlink" : "--no-huge");
		eal[n] = NULL;
		printf("# memory: %s\n", huge ? "hugepages" :
		       "--no-huge (figures 1.4-4.5x slower than with hugepages)");
		rc = app_eal_init(n, eal);
	}
	if (rc < 0) {
		fprintf(stderr, "tfo-bench: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	for (b = benches; b != NULL; b = b->next)
		if (strcmp(b->name, argv[1]) == 0)
			break;
	if (b == NULL) {
		fprintf(stderr, "tfo-bench: no benchmark '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	printf("# tfo-bench %s, TSC %.3f GHz, lcore %u, CPU %s\n", b->name,
	       (double)rte_get_tsc_hz() / 1e9, rte_lcore_id(), tfo_bench_cpu_model());
	rc = b->run(argc - 1, argv + 1);
	app_eal_stop();
	return rc < 0 ? 1 : 0;
}
