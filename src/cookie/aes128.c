/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: AES-128 single-block encryption with AES-NI (FIPS-197).
 *
 * The build targets a baseline CPU (DPDK's pkg-config adds -march=corei7,
 * which lacks AES-NI), hence the target attributes.
 */
#include <immintrin.h>

#include "cookie/aes128.h"

#define TFO_AESNI __attribute__((target("aes,sse4.1")))

int
tfo_aes128_supported(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("aes");
}

static inline TFO_AESNI __attribute__((always_inline)) __m128i
expand_step(__m128i key, __m128i assist)
{
	assist = _mm_shuffle_epi32(assist, _MM_SHUFFLE(3, 3, 3, 3));
	key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
	key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
	key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
	return _mm_xor_si128(key, assist);
}

/* aeskeygenassist takes its round constant as an immediate */
#define EXPAND(i, rcon) \
	k[i] = expand_step(k[(i) - 1], _mm_aeskeygenassist_si128(k[(i) - 1], rcon))

TFO_AESNI void
tfo_aes128_expand(struct tfo_aes128_rk *rk, const uint8_t key[16])
{
	__m128i k[11];

	k[0] = _mm_loadu_si128((const __m128i *)(const void *)key);
	EXPAND(1, 0x01);
	EXPAND(2, 0x02);
	EXPAND(3, 0x04);
	EXPAND(4, 0x08);
	EXPAND(5, 0x10);
	EXPAND(6, 0x20);
	EXPAND(7, 0x40);
	EXPAND(8, 0x80);
	EXPAND(9, 0x1b);
	EXPAND(10, 0x36);
	for (int i = 0; i < 11; i++)
		_mm_store_si128((__m128i *)(void *)rk->rk[i], k[i]);
}

TFO_AESNI void
tfo_aes128_encrypt(const struct tfo_aes128_rk *rk, const uint8_t in[16],
		   uint8_t out[16])
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)in);

	x = _mm_xor_si128(x, _mm_load_si128((const __m128i *)(const void *)rk->rk[0]));
	for (int i = 1; i < 10; i++)
		x = _mm_aesenc_si128(x, _mm_load_si128(
			(const __m128i *)(const void *)rk->rk[i]));
	x = _mm_aesenclast_si128(x, _mm_load_si128(
		(const __m128i *)(const void *)rk->rk[10]));
	_mm_storeu_si128((__m128i *)(void *)out, x);
}
