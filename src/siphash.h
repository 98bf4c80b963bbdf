/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath (private to src/): SipHash-2-4, one message at a time and
 * many messages of one length under one key in SIMD lanes.
 */
#ifndef TFO_SIPHASH_H
#define TFO_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/** The state after keying: what a batch of one key starts from. */
struct tfo_siphash_key {
	uint64_t v[4];
};

/** Which lane engine a batch uses. */
enum tfo_simd {
	TFO_SIMD_AUTO = 0,	/**< the best this CPU has */
	TFO_SIMD_SCALAR,
	TFO_SIMD_AVX2,		/**< 4 lanes per ymm */
	TFO_SIMD_AVX512,	/**< 8 lanes per zmm (AVX-512F) */
};

/** Lanes are processed in groups of this many: pad buffers to a multiple. */
#define TFO_SIPHASH_LANE_PAD 16

/** @p key: 16 bytes, read as two little-endian words (the SipHash spec). */
void tfo_siphash_init(struct tfo_siphash_key *sk, const uint8_t key[16]);

/** SipHash-2-4 of @p len bytes. */
uint64_t tfo_siphash(const struct tfo_siphash_key *sk, const void *msg,
		     size_t len);

/** The best engine this CPU supports (never AUTO). */
enum tfo_simd tfo_simd_best(void);

/** 1 if this CPU can run @p s. */
int tfo_simd_supported(enum tfo_simd s);

/**
 * SipHash-2-4 of @p n messages of @p words 64-bit little-endian words
 * each (1..4), laid out word-major: word w of message i at m[w * stride + i].
 * @p stride >= n rounded up to TFO_SIPHASH_LANE_PAD; lanes between n and
 * that are computed on whatever the buffers hold, so @p m and @p out must
 * be that large. @p s must be supported (tfo_simd_supported).
 */
void tfo_siphash_lanes(enum tfo_simd s, const struct tfo_siphash_key *sk,
		       const uint64_t *m, unsigned int words,
		       unsigned int stride, unsigned int n, uint64_t *out);

#endif /* TFO_SIPHASH_H */
