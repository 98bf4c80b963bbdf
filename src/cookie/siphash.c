/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: SipHash-2-4 (Aumasson, Bernstein), scalar and in SIMD lanes.
 *
 * The lane kernels keep one 64-bit SipHash state word per lane: v0 of all
 * lanes in one register, and so on. A batch shares one key, so the start
 * state is a broadcast. The build targets a baseline CPU (DPDK's pkg-config
 * adds -march=corei7), so the kernels carry target attributes and are
 * chosen at run time.
 */
#include <string.h>

#include <immintrin.h>

#include <rte_byteorder.h>

#include "cookie/siphash.h"

static inline uint64_t
load_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return rte_le_to_cpu_64(v);
}

void
tfo_siphash_init(struct tfo_siphash_key *sk, const uint8_t key[16])
{
	uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);

	sk->v[0] = k0 ^ TFO_SIP_C0;
	sk->v[1] = k1 ^ TFO_SIP_C1;
	sk->v[2] = k0 ^ TFO_SIP_C2;
	sk->v[3] = k1 ^ TFO_SIP_C3;
}

/* ---- scalar ----------------------------------------------------------- */

#define S_ADD TFO_SIP_ADD
#define S_XOR TFO_SIP_XOR
#define S_ROL TFO_SIP_ROL

uint64_t
tfo_siphash(const struct tfo_siphash_key *sk, const void *msg, size_t len)
{
	const uint8_t *p = msg;
	uint64_t v[4] = { sk->v[0], sk->v[1], sk->v[2], sk->v[3] };
	size_t left = len;
	uint8_t tail[8] = { 0 };

	for (; left >= 8; left -= 8, p += 8)
		tfo_sip_compress(v, load_le64(p));
	memcpy(tail, p, left);
	return tfo_sip_finish(v, ((uint64_t)len << 56) | load_le64(tail));
}

/* ---- AVX2: 4 lanes per ymm -------------------------------------------- */

#define TFO_AVX2 __attribute__((target("avx2"), always_inline))

static inline TFO_AVX2 __m256i
rol_avx2(__m256i x, const int b)
{
	/* AVX2 has no 64-bit rotate: byte shuffles where the count allows */
	if (b == 32)
		return _mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1));
	if (b == 16)
		return _mm256_shuffle_epi8(x, _mm256_setr_epi8(
			6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13,
			6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13));
	return _mm256_or_si256(_mm256_slli_epi64(x, b),
			       _mm256_srli_epi64(x, 64 - b));
}

#define Y_ADD(a, b) _mm256_add_epi64((a), (b))
#define Y_XOR(a, b) _mm256_xor_si256((a), (b))
#define Y_ROL(x, b) rol_avx2((x), (b))
#define Y_SET1(v) _mm256_set1_epi64x((long long)(v))
#define Y_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define Y_STORE(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))

/* ---- AVX-512: 8 lanes per zmm, with a real rotate ---------------------- */

#define Z_ADD(a, b) _mm512_add_epi64((a), (b))
#define Z_XOR(a, b) _mm512_xor_si512((a), (b))
#define Z_ROL(x, b) _mm512_rol_epi64((x), (b))
#define Z_SET1(v) _mm512_set1_epi64((long long)(v))
#define Z_LOAD(p) _mm512_loadu_si512((p))
#define Z_STORE(p, v) _mm512_storeu_si512((p), (v))

/*
 * One lane kernel per ISA: the same SipHash over a vector type V of W
 * lanes, with that ISA's operations (prefix P: P##_ADD, P##_LOAD, ...).
 * The scalar one is the same with W = 1.
 */
#define SIPHASH_LANES_KERNEL(name, attr, V, W, P) \
attr static void \
name(const struct tfo_siphash_key *sk, const uint64_t *m, unsigned int words, \
     unsigned int stride, unsigned int n, uint64_t *out) \
{ \
	const V k0 = P##_SET1(sk->v[0]), k1 = P##_SET1(sk->v[1]); \
	const V k2 = P##_SET1(sk->v[2]), k3 = P##_SET1(sk->v[3]); \
	const V b = P##_SET1((uint64_t)words << 59), ff = P##_SET1(0xff); \
\
	for (unsigned int i = 0; i < n; i += (W)) { \
		V v0 = k0, v1 = k1, v2 = k2, v3 = k3; \
\
		for (unsigned int w = 0; w < words; w++) { \
			V mw = P##_LOAD(&m[w * stride + i]); \
\
			v3 = P##_XOR(v3, mw); \
			TFO_SIPROUND(P##_ADD, P##_XOR, P##_ROL, v0, v1, v2, v3); \
			TFO_SIPROUND(P##_ADD, P##_XOR, P##_ROL, v0, v1, v2, v3); \
			v0 = P##_XOR(v0, mw); \
		} \
		v3 = P##_XOR(v3, b); \
		TFO_SIPROUND(P##_ADD, P##_XOR, P##_ROL, v0, v1, v2, v3); \
		TFO_SIPROUND(P##_ADD, P##_XOR, P##_ROL, v0, v1, v2, v3); \
		v0 = P##_XOR(v0, b); \
		v2 = P##_XOR(v2, ff); \
		for (int r = 0; r < 4; r++) \
			TFO_SIPROUND(P##_ADD, P##_XOR, P##_ROL, v0, v1, v2, v3); \
		P##_STORE(&out[i], P##_XOR(P##_XOR(v0, v1), P##_XOR(v2, v3))); \
	} \
}

#define S_SET1(v) ((uint64_t)(v))
#define S_LOAD(p) (*(p))
#define S_STORE(p, v) (*(p) = (v))

SIPHASH_LANES_KERNEL(siphash_lanes_scalar, , uint64_t, 1, S)
SIPHASH_LANES_KERNEL(siphash_lanes_avx2, __attribute__((target("avx2"))),
		     __m256i, 4, Y)
SIPHASH_LANES_KERNEL(siphash_lanes_avx512, __attribute__((target("avx512f"))),
		     __m512i, 8, Z)

/* ---- dispatch ---------------------------------------------------------- */

int
tfo_simd_supported(enum tfo_simd s)
{
	__builtin_cpu_init();
	switch (s) {
	case TFO_SIMD_AUTO:
	case TFO_SIMD_SCALAR:
		return 1;
	case TFO_SIMD_AVX2:
		return __builtin_cpu_supports("avx2");
	case TFO_SIMD_AVX512:
		return __builtin_cpu_supports("avx512f");
	}
	return 0;
}

enum tfo_simd
tfo_simd_best(void)
{
	if (tfo_simd_supported(TFO_SIMD_AVX512))
		return TFO_SIMD_AVX512;
	if (tfo_simd_supported(TFO_SIMD_AVX2))
		return TFO_SIMD_AVX2;
	return TFO_SIMD_SCALAR;
}

void
tfo_siphash_lanes(enum tfo_simd s, const struct tfo_siphash_key *sk,
		  const uint64_t *m, unsigned int words, unsigned int stride,
		  unsigned int n, uint64_t *out)
{
	switch (s) {
	case TFO_SIMD_AVX512:
		siphash_lanes_avx512(sk, m, words, stride, n, out);
		break;
	case TFO_SIMD_AVX2:
		siphash_lanes_avx2(sk, m, words, stride, n, out);
		break;
	default:
		siphash_lanes_scalar(sk, m, words, stride, n, out);
		break;
	}
}
