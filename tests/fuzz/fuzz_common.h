/* SPDX-License-Identifier: BSD-3-Clause
 * Shared pieces of the libFuzzer harnesses: EAL start-up, frames in mbufs
 * whose bytes ASan can bound exactly, a byte reader, and the failure hook.
 *
 * A harness defines LLVMFuzzerInitialize and LLVMFuzzerTestOneInput; it is
 * linked either with libFuzzer (-fsanitize=fuzzer, clang, -Dfuzz=true) or
 * with replay.c, a main() that feeds it files (the corpus replay test,
 * built by any compiler).
 */
#ifndef TFO_FUZZ_COMMON_H
#define TFO_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** Start EAL once (--no-huge, quiet) with @p mem_mb of memory. */
void fz_eal_init(const char *prog, unsigned int mem_mb);

/** An invariant broke: print why and abort (libFuzzer keeps the input). */
#define FZ_ASSERT(cond, ...) do { \
	if (!(cond)) \
		fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
} while (0)

void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 4, 5)));

/** Read from an input: bytes run out as zeros, never past the end. */
struct fz_in {
	const uint8_t *p;
	size_t n;
};

uint8_t fz_u8(struct fz_in *in);
uint16_t fz_u16(struct fz_in *in);
/** Up to @p want bytes (fewer at the end); @return how many, *out points at them. */
size_t fz_take(struct fz_in *in, size_t want, const uint8_t **out);

/**
 * A frame of @p len bytes as an mbuf chain. @p exact: each segment is an
 * external buffer of malloc'ed memory of exactly its length (ASan catches
 * a read one byte past it; freed with the mbuf); otherwise direct mbufs
 * from @p pool. @p split (0 or >= len: one segment) cuts it in two.
 * @return NULL when the pool is empty.
 */
struct rte_mbuf *fz_frame(struct rte_mempool *pool, const uint8_t *data,
			  uint32_t len, bool exact, uint32_t split);

struct tfo_stats;
/** fuzz_worker.c: the worker's (or the control core's) counters, for the
 *  scenario regressions of test_fuzz_regress.c. */
const struct tfo_stats *fz_worker_stats(bool control);

struct tfo_svc_ctr_map;
/** fuzz_worker.c: the names of tfo_stats.svc (the services' counters). */
const struct tfo_svc_ctr_map *fz_svc_ctrs(void);

/** External buffers of fz_frame() not freed yet (a leak check without ASan). */
extern long fz_ext_live;

/** A copy of @p len bytes in a malloc'ed buffer of exactly that size. */
uint8_t *fz_dup(const uint8_t *data, size_t len);

#endif /* TFO_FUZZ_COMMON_H */
