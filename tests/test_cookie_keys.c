/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: unit tests of TFO cookie keys and SipHash:
 * key text and byte order, generation and fingerprints, algorithm names,
 * SipHash's reference vector and its lanes (scalar, AVX2, AVX-512). The
 * "cookie" program is this file and the other test_cookie_*.c
 * (tests/meson.build) on cookie_harness.c: TFO cookies, the key ring, the
 * batched checker and SYN cookies (src/cookie/cookie.c, siphash.c,
 * aes128.c, syncookie.c).
 */
#include "cookie_harness.h"

/* ---- key text, fingerprints -------------------------------------------------- */

TFO_TEST(key_parse_byte_order)
{
	static const uint8_t want_p[16] = {
		0x33, 0x22, 0x11, 0x00, 0x77, 0x66, 0x55, 0x44,
		0xbb, 0xaa, 0x99, 0x88, 0xff, 0xee, 0xdd, 0xcc };
	static const uint8_t want_b[16] = {
		0x01, 0, 0, 0, 0x02, 0, 0, 0, 0x03, 0, 0, 0, 0xef, 0xbe, 0xad, 0xde };
	struct tfo_key p, b;
	bool two = true;
	char buf[40];

	CHECK_EQ(tfo_key_parse("00112233-44556677-8899aabb-ccddeeff", &p, &b,
			       &two), 0);
	CHECK_MEM(p.b, want_p, 16);
	CHECK(!two);
	CHECK_EQ(tfo_key_parse("  00112233-44556677-8899AABB-ccddeeff , "
			       "1-2-3-DEADbeef\n", &p, &b, &two), 0);
	CHECK_MEM(p.b, want_p, 16);
	CHECK_MEM(b.b, want_b, 16);
	CHECK(two);
	tfo_key_format(&p, buf, sizeof(buf));
	CHECK(strcmp(buf, "00112233-44556677-8899aabb-ccddeeff") == 0);
	tfo_key_format(&b, buf, sizeof(buf));
	CHECK(strcmp(buf, "00000001-00000002-00000003-deadbeef") == 0);
	tfo_key_format(&b, buf, 35);
	CHECK_EQ(buf[0], '\0');
}

TFO_TEST(key_parse_errors)
{
	static const char *const bad[] = {
		"", " ", "00112233-44556677-8899aabb",
		"00112233-44556677-8899aabb-ccddeeff-00",
		"00112233-44556677-8899aabb-ccddeeff,",
		"00112233-44556677-8899aabb-ccddeeff,1-2-3",
		"00112233-44556677-8899aabb-ccddeeff,1-2-3-4,5-6-7-8",
		"100112233-44556677-8899aabb-ccddeeff",
		"0x112233-44556677-8899aabb-ccddeeff",
		"00112233-44556677-8899aabg-ccddeeff",
		"00112233--44556677-8899aabb-ccddeeff",
		"00112233 44556677 8899aabb ccddeeff",
		"-1-2-3-4", "1-2-3-4 x",
	};
	struct tfo_key p, b;
	bool two = false;

	memset(&p, 0x5a, sizeof(p));
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		CHECK_MSG(tfo_key_parse(bad[i], &p, &b, &two) == -EINVAL,
			  "accepted '%s'", bad[i]);
	}
	/* nothing written on failure */
	CHECK_EQ(p.b[0], 0x5a);
	CHECK_EQ(p.b[15], 0x5a);
	CHECK_EQ(tfo_key_parse("0-0-0-0", &p, NULL, NULL), 0);
	CHECK_EQ(p.b[0], 0);
}

TFO_TEST(key_generate_and_fingerprint)
{
	struct tfo_key a, b;
	char fa[17], fb[17], fa2[17], text[40], zero[16] = { 0 };

	CHECK_EQ(tfo_key_generate(&a), 0);
	CHECK_EQ(tfo_key_generate(&b), 0);
	CHECK(memcmp(a.b, b.b, 16) != 0);
	CHECK(memcmp(a.b, zero, 16) != 0);
	tfo_key_fingerprint(&a, fa);
	tfo_key_fingerprint(&b, fb);
	tfo_key_fingerprint(&a, fa2);
	CHECK_EQ(strlen(fa), 16);
	CHECK(strcmp(fa, fa2) == 0);
	CHECK(strcmp(fa, fb) != 0);
	/* no 8-hex-digit group of the key text shows in the fingerprint */
	tfo_key_format(&a, text, sizeof(text));
	for (int g = 0; g < 4; g++) {
		char grp[9];

		memcpy(grp, text + 9 * g, 8);
		grp[8] = '\0';
		CHECK(strstr(fa, grp) == NULL);
	}
}

TFO_TEST(algo_names)
{
	enum tfo_cookie_algo a;

	CHECK_EQ(tfo_cookie_algo_parse("aes128", &a), 0);
	CHECK_EQ(a, TFO_COOKIE_ALGO_AES128);
	CHECK_EQ(tfo_cookie_algo_parse("siphash-linux", &a), 0);
	CHECK_EQ(a, TFO_COOKIE_ALGO_SIPHASH_LINUX);
	CHECK_EQ(tfo_cookie_algo_parse("siphash", &a), -EINVAL);
	CHECK(strcmp(tfo_cookie_algo_name(TFO_COOKIE_ALGO_AES128), "aes128") == 0);
	CHECK(strcmp(tfo_cookie_algo_name(TFO_COOKIE_ALGO_SIPHASH_LINUX),
		     "siphash-linux") == 0);
}

/* ---- SipHash ---------------------------------------------------------------- */

/* The SipHash paper, appendix A: key 00..0f, message 00..0e. */
TFO_TEST(siphash_reference_vector)
{
	uint8_t key[16], msg[64];
	struct tfo_siphash_key sk;

	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
	tfo_siphash_init(&sk, key);
	CHECK_EQ(tfo_siphash(&sk, msg, 15), (long long)0xa129ca6149be45e5ull);
	CHECK_EQ(tfo_siphash(&sk, msg, 0), (long long)0x726fdb47dd0e0e31ull);
	CHECK_EQ(tfo_siphash(&sk, msg, 8), (long long)0x93f5f5799a932462ull);
}

/* The word form (the ISN's) is tfo_siphash() of the same bytes, for
 * random keys and messages of every word count. */
TFO_TEST(siphash_words_equal)
{
	uint64_t st = 0x5eed15f00dULL;

	for (int iter = 0; iter < 2000; iter++) {
		struct tfo_siphash_key sk;
		uint8_t key[16], msg[32];
		uint64_t w[4];
		unsigned int words = (unsigned int)iter % 4 + 1;

		for (unsigned int i = 0; i < sizeof(key); i++)
			key[i] = (uint8_t)tfo_test_rand(&st);
		for (unsigned int i = 0; i < sizeof(msg); i++)
			msg[i] = (uint8_t)tfo_test_rand(&st);
		tfo_siphash_init(&sk, key);
		for (unsigned int i = 0; i < words; i++) {
			memcpy(&w[i], msg + 8 * i, 8);
			w[i] = rte_le_to_cpu_64(w[i]);
		}
		CHECK_MSG(tfo_siphash24_words(&sk, w, words) ==
			  tfo_siphash(&sk, msg, words * 8),
			  "iteration %d words %u", iter, words);
	}
}

/* Lane engine @p eng equals the scalar SipHash, every word count and lane
 * count. An engine this CPU lacks is a skipped case (one case per engine:
 * a machine without AVX-512 says so in the suite's summary). */
static void
siphash_lanes_agree(enum tfo_simd eng)
{
	static uint64_t m[4 * 80], out[80], ref[80];
	struct tfo_siphash_key sk;
	uint8_t key[16];
	unsigned int ran = 0;

	if (!tfo_simd_supported(eng))
		SKIP("SIMD engine %d not on this CPU (best here: %d)", eng,
		     tfo_simd_best());
	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)(i * 7 + 3);
	tfo_siphash_init(&sk, key);
	for (unsigned int i = 0; i < RTE_DIM(m); i++)
		m[i] = 0x0123456789abcdefull * (i + 1);
	for (unsigned int words = 1; words <= 4; words++) {
		for (unsigned int n = 1; n <= 64; n++) {
			for (unsigned int i = 0; i < n; i++) {
				uint64_t msg[4];

				for (unsigned int w = 0; w < words; w++)
					msg[w] = m[w * 80 + i];
				ref[i] = tfo_siphash(&sk, msg, words * 8);
			}
			memset(out, 0, sizeof(out));
			tfo_siphash_lanes(eng, &sk, m, words, 80, n, out);
			CHECK_MSG(memcmp(out, ref, n * 8) == 0,
				  "engine %d words %u n %u", eng, words, n);
			ran++;
		}
	}
	CHECK(ran == 4 * 64);
}

TFO_TEST(siphash_lanes_agree_scalar)
{
	siphash_lanes_agree(TFO_SIMD_SCALAR);
}

TFO_TEST(siphash_lanes_agree_avx2)
{
	siphash_lanes_agree(TFO_SIMD_AVX2);
}

TFO_TEST(siphash_lanes_agree_avx512)
{
	siphash_lanes_agree(TFO_SIMD_AVX512);
}

TFO_TEST_MAIN()
