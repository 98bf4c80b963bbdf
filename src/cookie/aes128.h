/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath (private to src/): AES-128 encryption of single blocks with
 * AES-NI, for one-at-a-time cookies (the reference and the slow path).
 * Batches go through ipsec-mb instead (cookie.c).
 */
#ifndef TFO_AES128_H
#define TFO_AES128_H

#include <stdint.h>

/** Expanded encryption key: 11 round keys. */
struct tfo_aes128_rk {
	uint8_t rk[11][16];
} __attribute__((aligned(16)));

/** 1 if the CPU has AES-NI (the other functions need it). */
int tfo_aes128_supported(void);

void tfo_aes128_expand(struct tfo_aes128_rk *rk, const uint8_t key[16]);

/** One block; @p in and @p out may alias. */
void tfo_aes128_encrypt(const struct tfo_aes128_rk *rk, const uint8_t in[16],
			uint8_t out[16]);

#endif /* TFO_AES128_H */
