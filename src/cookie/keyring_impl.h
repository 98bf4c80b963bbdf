/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the key ring's insides, shared by keyring.c (the writers)
 * and cookie.c (the per-lcore readers). Not installed: nothing outside the
 * library sees a key.
 */
#ifndef TFO_KEYRING_IMPL_H
#define TFO_KEYRING_IMPL_H

#include <errno.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_pause.h>
#include <rte_spinlock.h>

#include "cookie/keyring.h"

/* What readers copy: both keys and the backup flag, as whole words so that
 * the copy is made of (relaxed) atomic loads. */
union tfo_keyset {
	struct {
		struct tfo_key k[2];
		uint64_t has_backup;
	} s;
	uint64_t w[5];
};

struct tfo_keyring {
	/* even: stable; odd: a writer is in the middle. generation = seq/2 */
	uint64_t seq;
	union tfo_keyset set;
	enum tfo_cookie_algo algo;
	rte_spinlock_t wlock;	/* writers only */
} __rte_cache_aligned;

/*
 * Copy a consistent key set, trying at most @p tries times.
 * @return 0, or -EAGAIN if a writer stayed in the middle of an update.
 */
static inline int
tfo_keyring_read(const struct tfo_keyring *kr, union tfo_keyset *out,
		 uint64_t *seq_out, unsigned int tries)
{
	for (unsigned int t = 0; t < tries; t++) {
		uint64_t s1 = __atomic_load_n(&kr->seq, __ATOMIC_ACQUIRE);

		if (s1 & 1) {
			rte_pause();
			continue;
		}
		for (unsigned int i = 0; i < RTE_DIM(out->w); i++)
			out->w[i] = __atomic_load_n(&kr->set.w[i],
						    __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&kr->seq, __ATOMIC_RELAXED) == s1) {
			*seq_out = s1;
			return 0;
		}
	}
	return -EAGAIN;
}

#endif /* TFO_KEYRING_IMPL_H */
