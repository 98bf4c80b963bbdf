/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "test.h"

struct tfo_test_case *tfo_test_cases;
unsigned long tfo_test_checks;
unsigned long tfo_test_failures;
int tfo_test_skipped;

void
tfo_test_register(struct tfo_test_case *c)
{
	struct tfo_test_case **pp = &tfo_test_cases;

	/* keep file order: constructors run top to bottom */
	while (*pp != NULL)
		pp = &(*pp)->next;
	c->next = NULL;
	*pp = c;
}

void
tfo_test_skip(const char *fmt, ...)
{
	va_list ap;

	tfo_test_skipped = 1;
	fputs("  SKIP: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

int
tfo_test_run_all(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	unsigned int passed = 0, failed = 0, skipped = 0;

	for (struct tfo_test_case *c = tfo_test_cases; c != NULL; c = c->next) {
		if (only != NULL && strstr(c->name, only) == NULL)
			continue;
		tfo_test_checks = 0;
		tfo_test_failures = 0;
		tfo_test_skipped = 0;
		c->fn();
		if (tfo_test_skipped && tfo_test_failures == 0) {
			printf("skip %s (%lu checks)\n", c->name, tfo_test_checks);
			fflush(stdout);
			skipped++;
			continue;
		}
		if (tfo_test_checks == 0) {
			fprintf(stderr, "  FAIL %s: the case checked nothing\n",
				c->name);
			tfo_test_failures = 1;
		}
		printf("%s %s (%lu checks)\n",
		       tfo_test_failures ? "FAIL" : "ok  ", c->name,
		       tfo_test_checks);
		fflush(stdout);
		if (tfo_test_failures)
			failed++;
		else
			passed++;
	}
	printf("cases: %u passed, %u failed, %u skipped\n", passed, failed,
	       skipped);
	if (passed + failed + skipped == 0) {
		printf("no case matched\n");
		return 1;
	}
	if (failed)
		return 1;
	return passed == 0 ? 77 : 0;
}

void
tfo_test_eal_init(const char *prog, unsigned int mem_mb, ...)
{
	static char mem[16], prefix[64];
	char *args[32];
	int n = 0;
	va_list ap;
	const char *extra;

	snprintf(mem, sizeof(mem), "%u", mem_mb);
	snprintf(prefix, sizeof(prefix), "tfotest%d", (int)getpid());
	args[n++] = (char *)(uintptr_t)prog;
	args[n++] = (char *)(uintptr_t)"--no-huge";
	args[n++] = (char *)(uintptr_t)"-m";
	args[n++] = mem;
	args[n++] = (char *)(uintptr_t)"--no-shconf";
	args[n++] = (char *)(uintptr_t)"--no-pci";
	args[n++] = (char *)(uintptr_t)"--file-prefix";
	args[n++] = prefix;
	args[n++] = (char *)(uintptr_t)"--log-level=lib.*:warning";
	args[n++] = (char *)(uintptr_t)"-l";
	args[n++] = (char *)(uintptr_t)"0";
	va_start(ap, mem_mb);
	while ((extra = va_arg(ap, const char *)) != NULL && n < 31)
		args[n++] = (char *)(uintptr_t)extra;
	va_end(ap);
	args[n] = NULL;
	if (rte_eal_init(n, args) < 0) {
		printf("FAIL: rte_eal_init failed: %s\n", rte_strerror(rte_errno));
		exit(1);
	}
}
