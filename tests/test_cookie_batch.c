/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the batched cookie checker equals one at a
 * time, for every algorithm and SIMD engine; its arguments.
 */
#include "cookie_harness.h"

/* ---- batch == one at a time ------------------------------------------------------- */

enum kind { K_PRIMARY, K_BACKUP, K_RETIRED, K_FLIPPED, K_SHORT, K_LONG,
	    K_FAMILY, K_KINDS };

static void
batch_vs_single(enum tfo_cookie_algo algo, enum tfo_cookie_simd simd)
{
	struct tfo_key keys[3];	/* primary, backup, retired */
	struct tfo_addr cl[64], sv[64];
	uint8_t ck[64][16], v[64], gen[64][TFO_COOKIE_LEN];
	struct tfo_cookie_req r[64];
	enum kind kind[64];
	struct tfo_keyring *kr;
	struct tfo_cookie_ctx *c;
	unsigned long mism = 0, verdicts[3] = { 0 };

	for (int i = 0; i < 3; i++)
		REQUIRE(tfo_key_generate(&keys[i]) == 0);
	c = make_ctx(algo, &keys[0], &keys[1], &kr);
	REQUIRE(c != NULL);
	if (tfo_cookie_ctx_set_simd(c, simd) < 0) {
		tfo_test_skip("SIMD engine %d not on this CPU", simd);
		goto out;
	}
	for (unsigned int round = 0; round < 20; round++) {
		for (unsigned int n = 1; n <= 64; n++) {
			for (unsigned int i = 0; i < n; i++) {
				int fam = rng() & 1 ? AF_INET : AF_INET6;
				uint64_t x = rng();
				const struct tfo_key *kk;

				memset(&cl[i], 0, sizeof(cl[i]));
				memset(&sv[i], 0, sizeof(sv[i]));
				for (int b = 0; b < (fam == AF_INET ? 4 : 16); b++) {
					cl[i].b[b] = (uint8_t)rng();
					sv[i].b[b] = (uint8_t)rng();
				}
				kind[i] = (enum kind)(x % K_KINDS);
				kk = kind[i] == K_BACKUP ? &keys[1] :
				     kind[i] == K_RETIRED ? &keys[2] : &keys[0];
				REQUIRE(tfo_cookie_compute(algo, kk, fam, &cl[i],
							   &sv[i], ck[i]) == 0);
				r[i] = (struct tfo_cookie_req){
					.family = (uint8_t)fam, .cookie_len = 8,
					.client = &cl[i], .server = &sv[i],
					.cookie = ck[i] };
				if (kind[i] == K_FLIPPED)
					ck[i][(x >> 8) % 8] ^=
						(uint8_t)(1u << ((x >> 16) % 8));
				if (kind[i] == K_SHORT)
					r[i].cookie_len = 4 + 2 * ((x >> 8) % 2);
				if (kind[i] == K_LONG)
					r[i].cookie_len = 10 + 2 * ((x >> 8) % 4);
				if (kind[i] == K_FAMILY)
					r[i].family = AF_UNIX;
			}
			REQUIRE(tfo_cookie_check_burst(c, r, n, v) == 0);
			for (unsigned int i = 0; i < n; i++) {
				uint8_t want = kind[i] == K_PRIMARY ?
					TFO_COOKIE_OK_PRIMARY :
					kind[i] == K_BACKUP ?
					TFO_COOKIE_OK_BACKUP : TFO_COOKIE_BAD;

				if (v[i] != want ||
				    v[i] != tfo_cookie_check_one(c, &r[i]))
					mism++;
				verdicts[v[i]]++;
			}
			/* generation: the same as one at a time */
			for (unsigned int i = 0; i < n; i++)
				if (r[i].family == AF_UNIX)
					r[i].family = AF_INET;
			REQUIRE(tfo_cookie_gen_burst(c, r, n, gen) == 0);
			for (unsigned int i = 0; i < n; i++) {
				uint8_t one[8];

				tfo_cookie_compute(algo, &keys[0], r[i].family,
						   r[i].client, r[i].server, one);
				if (memcmp(one, gen[i], 8) != 0)
					mism++;
			}
		}
	}
	CHECK_EQ(mism, 0);
	CHECK(verdicts[0] > 0 && verdicts[1] > 0 && verdicts[2] > 0);
	printf("  %s: bad %lu primary %lu backup %lu\n", tfo_cookie_ctx_engine(c),
	       verdicts[0], verdicts[1], verdicts[2]);
out:
	free_ctx(c, kr);
}

TFO_TEST(batch_equals_single_aes128)
{
	need_eal();
	batch_vs_single(TFO_COOKIE_ALGO_AES128, TFO_COOKIE_SIMD_AUTO);
}

TFO_TEST(batch_equals_single_siphash_scalar)
{
	need_eal();
	batch_vs_single(TFO_COOKIE_ALGO_SIPHASH_LINUX, TFO_COOKIE_SIMD_SCALAR);
}

TFO_TEST(batch_equals_single_siphash_avx2)
{
	need_eal();
	batch_vs_single(TFO_COOKIE_ALGO_SIPHASH_LINUX, TFO_COOKIE_SIMD_AVX2);
}

TFO_TEST(batch_equals_single_siphash_avx512)
{
	need_eal();
	batch_vs_single(TFO_COOKIE_ALGO_SIPHASH_LINUX, TFO_COOKIE_SIMD_AVX512);
}

TFO_TEST(batch_arguments)
{
	struct tfo_keyring *kr;
	struct tfo_cookie_ctx *c;
	struct tfo_cookie_req r[65];
	uint8_t v[65], gen[65][TFO_COOKIE_LEN];
	struct tfo_addr a;

	need_eal();
	memset(&a, 0, sizeof(a));
	c = make_ctx(TFO_COOKIE_ALGO_AES128, NULL, NULL, &kr);
	REQUIRE(c != NULL);
	for (int i = 0; i < 65; i++)
		r[i] = (struct tfo_cookie_req){ .family = AF_INET,
			.cookie_len = 8, .client = &a, .server = &a,
			.cookie = a.b };
	CHECK_EQ(tfo_cookie_check_burst(c, r, 65, v), -EINVAL);
	CHECK_EQ(tfo_cookie_gen_burst(c, r, 65, gen), -EINVAL);
	CHECK_EQ(tfo_cookie_check_burst(c, r, 0, v), 0);
	CHECK_EQ(tfo_cookie_gen_burst(c, r, 0, gen), 0);
	CHECK_EQ(tfo_cookie_check_burst(c, NULL, 1, v), -EINVAL);
	r[3].family = AF_UNIX;
	CHECK_EQ(tfo_cookie_gen_burst(c, r, 4, gen), -EINVAL);
	CHECK_EQ(tfo_cookie_compute(TFO_COOKIE_ALGO_AES128, (struct tfo_key *)&a,
				    AF_UNIX, &a, &a, v), -EINVAL);
	free_ctx(c, kr);
}
