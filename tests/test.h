/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: a minimal test runner. Each test program defines cases with
 * TFO_TEST(name) and ends with TFO_TEST_MAIN(); every case must assert
 * something (a case that checks nothing fails) or say why it cannot run
 * (SKIP). Exit code: 1 a check failed; 77 (meson's "skipped") when every
 * case that ran was skipped; 0 otherwise. The last line, "cases: N passed,
 * N failed, N skipped", is what scripts/devtools/test-summary.py adds to the
 * suite's skipped count when the program passed: skip a case with SKIP (one
 * case per variant, e.g. per SIMD engine), never with a silent return or
 * continue. argv[1], when given, runs only the cases whose name contains it.
 */
#ifndef TFO_TEST_H
#define TFO_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tfo_test_case {
	const char *name;
	void (*fn)(void);
	struct tfo_test_case *next;
};

extern struct tfo_test_case *tfo_test_cases;
extern unsigned long tfo_test_checks;	/* checks run in the current case */
extern unsigned long tfo_test_failures;	/* failed checks in the current case */
extern int tfo_test_skipped;		/* the current case could not run */

void tfo_test_register(struct tfo_test_case *c);
/** Mark the current case skipped, printing why (printf format). The caller
 * returns (after its clean-up); SKIP() does both when there is none. */
void tfo_test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int tfo_test_run_all(int argc, char **argv);

/**
 * Start EAL for a unit test: --no-huge, legacy memory, no PCI, a private
 * file prefix, warnings only. @p mem_mb of memory. Exits 1 with the reason
 * if EAL cannot start. Extra EAL args (NULL-terminated) may follow.
 */
void tfo_test_eal_init(const char *prog, unsigned int mem_mb, ...);

#define TFO_TEST(name_) \
	static void tfo_test_fn_##name_(void); \
	static struct tfo_test_case tfo_test_case_##name_ = { \
		.name = #name_, .fn = tfo_test_fn_##name_ }; \
	__attribute__((constructor)) static void tfo_test_reg_##name_(void) \
	{ tfo_test_register(&tfo_test_case_##name_); } \
	static void tfo_test_fn_##name_(void)

#define TFO_TEST_MAIN() \
	int main(int argc, char **argv) { return tfo_test_run_all(argc, argv); }

#define CHECK(cond) do { \
	tfo_test_checks++; \
	if (!(cond)) { \
		tfo_test_failures++; \
		fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_MSG(cond, ...) do { \
	tfo_test_checks++; \
	if (!(cond)) { \
		tfo_test_failures++; \
		fprintf(stderr, "  FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	long long tfo_a_ = (long long)(a), tfo_b_ = (long long)(b); \
	tfo_test_checks++; \
	if (tfo_a_ != tfo_b_) { \
		tfo_test_failures++; \
		fprintf(stderr, "  FAIL %s:%d: %s == %s (%lld != %lld)\n", \
			__FILE__, __LINE__, #a, #b, tfo_a_, tfo_b_); \
	} \
} while (0)

#define CHECK_MEM(a, b, n) do { \
	tfo_test_checks++; \
	if (memcmp((a), (b), (n)) != 0) { \
		tfo_test_failures++; \
		fprintf(stderr, "  FAIL %s:%d: memcmp(%s, %s, %s)\n", \
			__FILE__, __LINE__, #a, #b, #n); \
	} \
} while (0)

/* The current case cannot run here (a CPU feature, a tool is missing):
 * say why and return. Counts as skipped, not passed. */
#define SKIP(...) do { \
	tfo_test_skip(__VA_ARGS__); \
	return; \
} while (0)

/* Stop the current case when a check it depends on failed (@p cond is
 * evaluated once). */
#define REQUIRE(cond) do { \
	int tfo_req_ = !!(cond); \
	tfo_test_checks++; \
	if (!tfo_req_) { \
		tfo_test_failures++; \
		fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		return; \
	} \
} while (0)

/* xorshift64 (fixed seeds: failures reproduce); 32 well-mixed bits. */
static inline uint32_t
tfo_test_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (uint32_t)(*state >> 16);
}

#endif /* TFO_TEST_H */
