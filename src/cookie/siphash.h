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

#define TFO_SIP_C0 0x736f6d6570736575ULL
#define TFO_SIP_C1 0x646f72616e646f6dULL
#define TFO_SIP_C2 0x6c7967656e657261ULL
#define TFO_SIP_C3 0x7465646279746573ULL

/* One SipRound over whatever ADD/XOR/ROL mean for the state's type. */
#define TFO_SIPROUND(ADD, XOR, ROL, v0, v1, v2, v3) do { \
	v0 = ADD(v0, v1); v1 = ROL(v1, 13); v1 = XOR(v1, v0); \
	v0 = ROL(v0, 32); \
	v2 = ADD(v2, v3); v3 = ROL(v3, 16); v3 = XOR(v3, v2); \
	v0 = ADD(v0, v3); v3 = ROL(v3, 21); v3 = XOR(v3, v0); \
	v2 = ADD(v2, v1); v1 = ROL(v1, 17); v1 = XOR(v1, v2); \
	v2 = ROL(v2, 32); \
} while (0)

#define TFO_SIP_ADD(a, b) ((a) + (b))
#define TFO_SIP_XOR(a, b) ((a) ^ (b))
#define TFO_SIP_ROL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

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

/* One message word into the state: SipHash-2-4's compression. */
static inline void
tfo_sip_compress(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	TFO_SIPROUND(TFO_SIP_ADD, TFO_SIP_XOR, TFO_SIP_ROL, v[0], v[1], v[2], v[3]);
	TFO_SIPROUND(TFO_SIP_ADD, TFO_SIP_XOR, TFO_SIP_ROL, v[0], v[1], v[2], v[3]);
	v[0] ^= m;
}

/* The last word @p b (the length byte and the tail) and finalization. */
static inline uint64_t
tfo_sip_finish(uint64_t v[4], uint64_t b)
{
	tfo_sip_compress(v, b);
	v[2] ^= 0xff;
	for (int r = 0; r < 4; r++)
		TFO_SIPROUND(TFO_SIP_ADD, TFO_SIP_XOR, TFO_SIP_ROL,
			     v[0], v[1], v[2], v[3]);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/**
 * tfo_siphash() of the @p words * 8 bytes whose little-endian 64-bit words
 * are @p w: the same value, without the byte loop and the tail. Inlined
 * with a constant @p words it is straight-line code (the per-connection
 * ISN and TSval offset).
 */
static inline uint64_t
tfo_siphash24_words(const struct tfo_siphash_key *sk, const uint64_t *w,
		    unsigned int words)
{
	uint64_t v[4] = { sk->v[0], sk->v[1], sk->v[2], sk->v[3] };

	for (unsigned int i = 0; i < words; i++)
		tfo_sip_compress(v, w[i]);
	return tfo_sip_finish(v, (uint64_t)words << 59);
}

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
