/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of TFO cookies, the key ring, the batched checker and SYN
 * cookies (src/cookie/cookie.c, src/cookie/siphash.c, src/cookie/aes128.c, src/cookie/syncookie.c).
 *
 * The aes128 expectations are computed by openssl(1) from inside the test
 * (an AES implementation that is not ours); the siphash-linux ones are the
 * vectors of issue 7 (cookies Linux 5.2+ issued).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_memory.h>

#include "cookie/cookie.h"
#include "cookie/syncookie.h"
#include "tfo/log.h"

#include "cookie/siphash.h"
#include "test.h"

static void
need_eal(void)
{
	static int done;

	if (!done) {
		tfo_test_eal_init("test_cookie", 128, NULL);
		/* key installs log at INFO: thousands in the rotation test */
		rte_log_set_level(tfo_logtype, RTE_LOG_WARNING);
		done = 1;
	}
}

static void
addr_of(const char *s, int *family, struct tfo_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->b) == 1) {
		*family = AF_INET;
		return;
	}
	if (inet_pton(AF_INET6, s, a->b) != 1)
		abort();
	*family = AF_INET6;
}

static void
hex_of(const uint8_t *b, unsigned int n, char *out)
{
	for (unsigned int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static int
unhex(const char *s, uint8_t *b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (sscanf(s + 2 * i, "%2hhx", &b[i]) != 1)
			return -1;
	return 0;
}

/* A key ring and a checker on it (the ring comes back in @p kr). */
static struct tfo_cookie_ctx *
make_ctx(enum tfo_cookie_algo algo, const struct tfo_key *primary,
	 const struct tfo_key *backup, struct tfo_keyring **kr)
{
	*kr = tfo_keyring_create(algo, primary, backup, SOCKET_ID_ANY);
	return *kr == NULL ? NULL : tfo_cookie_ctx_create(*kr, SOCKET_ID_ANY);
}

static void
free_ctx(struct tfo_cookie_ctx *c, struct tfo_keyring *kr)
{
	tfo_cookie_ctx_free(c);
	tfo_keyring_free(kr);
}

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

/* ---- cookie vectors --------------------------------------------------------------- */

struct vec {
	const char *key, *client, *server, *cookie;
};

/* Issue 7: what Linux 5.2+ issues for these keys and addresses. */
static const struct vec sip_vectors[] = {
	{ "a1a1a1a1-b2b2b2b2-c3c3c3c3-d4d4d4d4", "192.0.2.1", "192.168.0.1",
	  "3021b9d889017eeb" },
	{ "a1a1a1a1-b2b2b2b2-c3c3c3c3-d4d4d4d4", "fd3d:fa7b:d17d::1",
	  "fd3d:a0b:17d6::1", "c1d1e9742a47a9bc" },
	{ "a0bf63f7-ed803d81-cd641d30-cebc4a90", "10.248.0.2", "192.168.0.2",
	  "00abaaabe8e954c2" },
	{ "00000000-00000000-00000000-00000000", "10.248.0.2", "192.168.0.2",
	  "93b7aa4f550f8a1a" },
};

/* One AES-128 block by openssl(1); @p keyhex is the raw key bytes. */
static int
openssl_aes(const char *keyhex, const uint8_t in[16], uint8_t out[16])
{
	char path[] = "/tmp/tfo_aes_XXXXXX", cmd[256];
	FILE *f;
	int fd = mkstemp(path), rc = -1;

	if (fd < 0)
		return -1;
	if (write(fd, in, 16) == 16) {
		snprintf(cmd, sizeof(cmd),
			 "openssl enc -aes-128-ecb -nopad -K %s -in %s 2>/dev/null",
			 keyhex, path);
		f = popen(cmd, "r");
		if (f != NULL) {
			if (fread(out, 1, 16, f) == 16)
				rc = 0;
			if (pclose(f) != 0)
				rc = -1;
		}
	}
	close(fd);
	unlink(path);
	return rc;
}

/*
 * The aes128 cookie as the issue defines it, with openssl doing the AES.
 * The key's byte order is written out here by hand from the key text
 * (four 32-bit words, each little-endian), not taken from tfo_key_parse.
 */
static int
openssl_cookie(const char *key_text, int family, const struct tfo_addr *c,
	       const struct tfo_addr *s, uint8_t cookie[8])
{
	uint32_t w[4];
	char keyhex[33];
	uint8_t kb[16], blk[16], mid[16];

	if (sscanf(key_text, "%x-%x-%x-%x", &w[0], &w[1], &w[2], &w[3]) != 4)
		return -1;
	for (int g = 0; g < 4; g++)
		for (int j = 0; j < 4; j++)
			kb[4 * g + j] = (uint8_t)(w[g] >> (8 * j));
	hex_of(kb, 16, keyhex);
	if (family == AF_INET) {
		memset(blk, 0, sizeof(blk));
		memcpy(blk, c->b, 4);
		memcpy(blk + 4, s->b, 4);
		if (openssl_aes(keyhex, blk, mid) < 0)
			return -1;
	} else {
		if (openssl_aes(keyhex, c->b, mid) < 0)
			return -1;
		for (int i = 0; i < 16; i++)
			blk[i] = mid[i] ^ s->b[i];
		if (openssl_aes(keyhex, blk, mid) < 0)
			return -1;
	}
	memcpy(cookie, mid, 8);
	return 0;
}

static const struct vec aes_cases[] = {
	{ "00112233-44556677-8899aabb-ccddeeff", "192.0.2.1", "192.168.0.1", NULL },
	{ "a0bf63f7-ed803d81-cd641d30-cebc4a90", "10.248.0.2", "192.168.0.2", NULL },
	{ "00000000-00000000-00000000-00000000", "203.0.113.77", "198.51.100.1", NULL },
	{ "00112233-44556677-8899aabb-ccddeeff", "fd3d:fa7b:d17d::1",
	  "fd3d:a0b:17d6::1", NULL },
	{ "deadbeef-01234567-89abcdef-00000001", "2001:db8::dead:beef",
	  "2001:db8:1:2:3:4:5:6", NULL },
};

/* Run @p v through compute, gen_burst and check_burst on engine @p simd
 * (which the caller made sure this CPU has), and check_one. */
static void
check_vector(enum tfo_cookie_algo algo, enum tfo_cookie_simd simd,
	     const char *key_text, const char *client, const char *server,
	     const uint8_t want[8])
{
	struct tfo_key k;
	struct tfo_addr c, s;
	int fam, fam2;
	uint8_t got[8], gen[1][TFO_COOKIE_LEN], verdict = 0xff;
	struct tfo_keyring *kr;
	struct tfo_cookie_ctx *ctx;
	struct tfo_cookie_req r;
	char hex[17];

	REQUIRE(tfo_key_parse(key_text, &k, NULL, NULL) == 0);
	addr_of(client, &fam, &c);
	addr_of(server, &fam2, &s);
	REQUIRE(tfo_cookie_compute(algo, &k, fam, &c, &s, got) == 0);
	hex_of(got, 8, hex);
	CHECK_MSG(memcmp(got, want, 8) == 0, "%s %s %s -> %s", key_text,
		  client, server, hex);

	ctx = make_ctx(algo, &k, NULL, &kr);
	REQUIRE(ctx != NULL);
	r = (struct tfo_cookie_req){ .family = (uint8_t)fam,
		.cookie_len = 8, .client = &c, .server = &s, .cookie = want };
	CHECK_EQ(tfo_cookie_ctx_set_simd(ctx, simd), 0);
	CHECK_EQ(tfo_cookie_gen_burst(ctx, &r, 1, gen), 0);
	CHECK_MEM(gen[0], want, 8);
	CHECK_EQ(tfo_cookie_check_burst(ctx, &r, 1, &verdict), 0);
	CHECK_EQ(verdict, TFO_COOKIE_OK_PRIMARY);
	CHECK_EQ(tfo_cookie_check_one(ctx, &r), TFO_COOKIE_OK_PRIMARY);
	free_ctx(ctx, kr);
}

/* The cookie engines are the SipHash lane engines, value for value. */
_Static_assert((int)TFO_COOKIE_SIMD_SCALAR == (int)TFO_SIMD_SCALAR &&
	       (int)TFO_COOKIE_SIMD_AVX2 == (int)TFO_SIMD_AVX2 &&
	       (int)TFO_COOKIE_SIMD_AVX512 == (int)TFO_SIMD_AVX512,
	       "enum tfo_cookie_simd follows enum tfo_simd");

/* Every vector on engine @p simd; an engine this CPU lacks is a skipped
 * case, one per engine. */
static void
siphash_linux_vectors(enum tfo_cookie_simd simd)
{
	need_eal();
	if (!tfo_simd_supported((enum tfo_simd)simd))
		SKIP("SIMD engine %d not on this CPU (best here: %d)", simd,
		     tfo_simd_best());
	for (unsigned int i = 0; i < RTE_DIM(sip_vectors); i++) {
		const struct vec *v = &sip_vectors[i];
		uint8_t want[8];

		REQUIRE(unhex(v->cookie, want, 8) == 0);
		check_vector(TFO_COOKIE_ALGO_SIPHASH_LINUX, simd, v->key,
			     v->client, v->server, want);
	}
}

TFO_TEST(siphash_linux_vectors_scalar)
{
	siphash_linux_vectors(TFO_COOKIE_SIMD_SCALAR);
}

TFO_TEST(siphash_linux_vectors_avx2)
{
	siphash_linux_vectors(TFO_COOKIE_SIMD_AVX2);
}

TFO_TEST(siphash_linux_vectors_avx512)
{
	siphash_linux_vectors(TFO_COOKIE_SIMD_AVX512);
}

static void
aes128_vectors_by_openssl(enum tfo_cookie_simd simd)
{
	need_eal();
	if (!tfo_simd_supported((enum tfo_simd)simd))
		SKIP("SIMD engine %d not on this CPU (best here: %d)", simd,
		     tfo_simd_best());
	for (unsigned int i = 0; i < RTE_DIM(aes_cases); i++) {
		const struct vec *v = &aes_cases[i];
		struct tfo_addr c, s;
		uint8_t want[8];
		int fam, fam2;

		addr_of(v->client, &fam, &c);
		addr_of(v->server, &fam2, &s);
		REQUIRE(openssl_cookie(v->key, fam, &c, &s, want) == 0);
		check_vector(TFO_COOKIE_ALGO_AES128, simd, v->key, v->client,
			     v->server, want);
	}
}

TFO_TEST(aes128_vectors_by_openssl_scalar)
{
	aes128_vectors_by_openssl(TFO_COOKIE_SIMD_SCALAR);
}

TFO_TEST(aes128_vectors_by_openssl_avx2)
{
	aes128_vectors_by_openssl(TFO_COOKIE_SIMD_AVX2);
}

TFO_TEST(aes128_vectors_by_openssl_avx512)
{
	aes128_vectors_by_openssl(TFO_COOKIE_SIMD_AVX512);
}

/* ---- AES known answers through the batch's ECB path ---------------------------- */

TFO_TEST(aes_kat_fips197)
{
	/* FIPS-197 appendix C.1 and appendix B */
	static const uint8_t k1[16] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
		0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f };
	static const uint8_t p1[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
		0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	static const uint8_t c1[16] = { 0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b,
		0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a };
	static const uint8_t k2[16] = { 0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae,
		0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c };
	static const uint8_t p2[16] = { 0x32, 0x43, 0xf6, 0xa8, 0x88, 0x5a,
		0x30, 0x8d, 0x31, 0x31, 0x98, 0xa2, 0xe0, 0x37, 0x07, 0x34 };
	static const uint8_t c2[16] = { 0x39, 0x25, 0x84, 0x1d, 0x02, 0xdc,
		0x09, 0xfb, 0xdc, 0x11, 0x85, 0x97, 0x19, 0x6a, 0x0b, 0x32 };
	/* SP 800-38A F.1.1, ECB-AES128: four blocks in one job */
	static const char *const sp_p =
		"6bc1bee22e409f96e93d7e117393172a"
		"ae2d8a571e03ac9c9eb76fac45af8e51"
		"30c81c46a35ce411e5fbc1191a0a52ef"
		"f69f2445df4f9b17ad2b417be66c3710";
	static const char *const sp_c =
		"3ad77bb40d7a3660a89ecaf32466ef97"
		"f5d3d58503b9699de785895a96fdbaaf"
		"43b1cd7f598ece23881b00e3ed030688"
		"7b0c785e27e8ad3f8223207104725dd4";
	static uint8_t in[128][16] __attribute__((aligned(64)));
	static uint8_t out[128][16] __attribute__((aligned(64)));
	uint8_t sp[64], spc[64];
	struct tfo_key key;
	struct tfo_keyring *kr;
	struct tfo_cookie_ctx *c;

	need_eal();
	c = make_ctx(TFO_COOKIE_ALGO_AES128, NULL, NULL, &kr);
	REQUIRE(c != NULL);
	printf("  engine: %s\n", tfo_cookie_ctx_engine(c));

	memcpy(key.b, k1, 16);
	memcpy(in[0], p1, 16);
	CHECK_EQ(tfo_cookie_ecb(c, &key, in[0], out[0], 1), 0);
	CHECK_MEM(out[0], c1, 16);
	memcpy(key.b, k2, 16);
	memcpy(in[0], p2, 16);
	CHECK_EQ(tfo_cookie_ecb(c, &key, in[0], out[0], 1), 0);
	CHECK_MEM(out[0], c2, 16);

	REQUIRE(unhex(sp_p, sp, 64) == 0 && unhex(sp_c, spc, 64) == 0);
	/* every job size up to the largest the batch submits */
	for (unsigned int n = 1; n <= 128; n++) {
		for (unsigned int i = 0; i < n; i++)
			memcpy(in[i], sp + 16 * (i % 4), 16);
		memset(out, 0, sizeof(out));
		CHECK_EQ(tfo_cookie_ecb(c, &key, in[0], out[0], n), 0);
		for (unsigned int i = 0; i < n; i++)
			CHECK_MEM(out[i], spc + 16 * (i % 4), 16);
	}
	CHECK_EQ(tfo_cookie_ecb(c, &key, in[0], out[0], 0), -EINVAL);
	CHECK_EQ(tfo_cookie_ecb(c, &key, in[0], out[0], 129), -EINVAL);
	free_ctx(c, kr);
}

/*
 * FIPS-197 C.1 through the batch itself: with server = AES_K(client) ^ P,
 * the IPv6 cookie is AES_K(P), so the ciphertext's first 8 bytes must come
 * out of both ECB passes of gen_burst and check_burst.
 */
TFO_TEST(aes_kat_through_batch)
{
	static const uint8_t c1[8] = { 0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b,
				       0x04, 0x30 };
	struct tfo_key key;
	struct tfo_addr cl, sv;
	struct tfo_keyring *kr;
	struct tfo_cookie_ctx *c;
	struct tfo_cookie_req r[64];
	uint8_t gen[64][TFO_COOKIE_LEN], v[64];

	need_eal();
	for (int i = 0; i < 16; i++) {
		key.b[i] = (uint8_t)i;
		cl.b[i] = (uint8_t)(0x11 * i);	/* P = 00 11 22 .. ff */
	}
	/* server = C1 ^ P, with C1 = AES_K(P) the full FIPS answer */
	{
		static const uint8_t full[16] = { 0x69, 0xc4, 0xe0, 0xd8, 0x6a,
			0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4,
			0xc5, 0x5a };

		for (int i = 0; i < 16; i++)
			sv.b[i] = full[i] ^ cl.b[i];
	}
	c = make_ctx(TFO_COOKIE_ALGO_AES128, &key, NULL, &kr);
	REQUIRE(c != NULL);
	/* 3: ECB job then AES-NI (2 blocks); 64: two ECB jobs. Every third
	 * request IPv4: both passes must keep the requests in order. */
	for (unsigned int n = 3; n <= 64; n += 61) {
		unsigned int ok = 0, bad = 0;

		for (unsigned int i = 0; i < n; i++)
			r[i] = (struct tfo_cookie_req){
				.family = i % 3 == 1 ? AF_INET : AF_INET6,
				.cookie_len = 8, .client = &cl, .server = &sv,
				.cookie = c1 };
		CHECK_EQ(tfo_cookie_gen_burst(c, r, n, gen), 0);
		CHECK_EQ(tfo_cookie_check_burst(c, r, n, v), 0);
		for (unsigned int i = 0; i < n; i++) {
			bool v6 = r[i].family == AF_INET6;

			if (v6 && memcmp(gen[i], c1, 8) == 0 &&
			    v[i] == TFO_COOKIE_OK_PRIMARY)
				ok++;
			if (!v6 && v[i] == TFO_COOKIE_BAD)
				bad++;
		}
		CHECK_EQ(ok + bad, n);
	}
	free_ctx(c, kr);
}

/* ---- batch == one at a time ------------------------------------------------------- */

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

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

/* ---- key ring ----------------------------------------------------------------------- */

static uint8_t
verdict_for(struct tfo_cookie_ctx *c, enum tfo_cookie_algo algo,
	    const struct tfo_key *k)
{
	struct tfo_addr cl, sv;
	uint8_t ck[8], v = 0xff;
	struct tfo_cookie_req r;

	memset(&cl, 0, sizeof(cl));
	memset(&sv, 0, sizeof(sv));
	cl.b[0] = 198;
	cl.b[3] = 7;
	sv.b[0] = 10;
	sv.b[3] = 1;
	tfo_cookie_compute(algo, k, AF_INET, &cl, &sv, ck);
	r = (struct tfo_cookie_req){ .family = AF_INET, .cookie_len = 8,
		.client = &cl, .server = &sv, .cookie = ck };
	if (tfo_cookie_check_burst(c, &r, 1, &v) < 0)
		return 0xfe;
	return v;
}

TFO_TEST(keyring_rotate_set_load)
{
	struct tfo_key k[4];
	struct tfo_keyring *kr;
	struct tfo_cookie_ctx *c;
	char fp[17], fb[17], want[17], text[80], path[] = "/tmp/tfo_key_XXXXXX";
	const enum tfo_cookie_algo algo = TFO_COOKIE_ALGO_AES128;
	int fd, rc;

	need_eal();
	for (int i = 0; i < 4; i++)
		REQUIRE(tfo_key_generate(&k[i]) == 0);
	c = make_ctx(algo, &k[0], NULL, &kr);
	REQUIRE(c != NULL);
	CHECK_EQ(tfo_keyring_generation(kr), 1);
	tfo_keyring_fingerprints(kr, fp, fb);
	tfo_key_fingerprint(&k[0], want);
	CHECK(strcmp(fp, want) == 0);
	CHECK_EQ(fb[0], '\0');
	CHECK_EQ(verdict_for(c, algo, &k[0]), TFO_COOKIE_OK_PRIMARY);
	CHECK_EQ(verdict_for(c, algo, &k[1]), TFO_COOKIE_BAD);

	CHECK_EQ(tfo_keyring_rotate(kr, &k[1]), 0);
	CHECK_EQ(tfo_keyring_generation(kr), 2);
	CHECK_EQ(verdict_for(c, algo, &k[1]), TFO_COOKIE_OK_PRIMARY);
	CHECK_EQ(tfo_cookie_ctx_generation(c), 2);
	CHECK_EQ(verdict_for(c, algo, &k[0]), TFO_COOKIE_OK_BACKUP);
	CHECK_EQ(tfo_keyring_rotate(kr, NULL), 0);	/* random primary */
	CHECK_EQ(verdict_for(c, algo, &k[1]), TFO_COOKIE_OK_BACKUP);
	CHECK_EQ(verdict_for(c, algo, &k[0]), TFO_COOKIE_BAD);	/* retired */

	CHECK_EQ(tfo_keyring_set(kr, &k[2], NULL), 0);
	CHECK_EQ(verdict_for(c, algo, &k[2]), TFO_COOKIE_OK_PRIMARY);
	CHECK_EQ(verdict_for(c, algo, &k[1]), TFO_COOKIE_BAD);
	CHECK_EQ(tfo_keyring_set(kr, NULL, NULL), -EINVAL);

	/* a key file in Linux's format: primary,backup */
	fd = mkstemp(path);
	REQUIRE(fd >= 0);
	tfo_key_format(&k[3], text, 40);
	strcat(text, ",");
	tfo_key_format(&k[0], text + strlen(text), 40);
	strcat(text, "\n");
	rc = (int)write(fd, text, strlen(text));
	REQUIRE(rc == (int)strlen(text));
	close(fd);
	CHECK_EQ(tfo_keyring_load_file(kr, path), 0);
	CHECK_EQ(verdict_for(c, algo, &k[3]), TFO_COOKIE_OK_PRIMARY);
	CHECK_EQ(verdict_for(c, algo, &k[0]), TFO_COOKIE_OK_BACKUP);
	CHECK_EQ(verdict_for(c, algo, &k[2]), TFO_COOKIE_BAD);
	tfo_keyring_fingerprints(kr, fp, fb);
	tfo_key_fingerprint(&k[0], want);
	CHECK(strcmp(fb, want) == 0);
	/* a bad file changes nothing */
	fd = open(path, O_WRONLY | O_TRUNC);
	REQUIRE(fd >= 0);
	rc = (int)write(fd, "not a key\n", 10);
	REQUIRE(rc == 10);
	close(fd);
	CHECK_EQ(tfo_keyring_load_file(kr, path), -EINVAL);
	CHECK_EQ(verdict_for(c, algo, &k[3]), TFO_COOKIE_OK_PRIMARY);
	unlink(path);
	CHECK_EQ(tfo_keyring_load_file(kr, path), -ENOENT);

	free_ctx(c, kr);
}

/*
 * Rotation under load: one thread rotates through a list of keys as fast as
 * it can while this one checks bursts. Whatever generation G a burst used,
 * cookies of key G are accepted as primary, of key G-1 as backup, and all
 * others (retired or not yet installed) never.
 */
#define ROT_KEYS 1024	/* generation g uses keys[g % ROT_KEYS] */

struct rot_arg {
	struct tfo_keyring *kr;
	const struct tfo_key *keys;
	atomic_int stop;
	unsigned int rotations;
};

static void *
rotator(void *p)
{
	struct rot_arg *a = p;

	for (uint64_t g = 2; !atomic_load(&a->stop); g++) {
		tfo_keyring_rotate(a->kr, &a->keys[g % ROT_KEYS]);
		a->rotations++;
		/* about one burst's time between rotations */
		rte_delay_us_block(1);
	}
	return NULL;
}

static void
rotation_under_load(enum tfo_cookie_algo algo)
{
	static struct tfo_key keys[ROT_KEYS];
	struct rot_arg a;
	struct tfo_cookie_ctx *c;
	struct tfo_addr cl[64], sv[64];
	uint8_t ck[64][8], v[64];
	uint64_t from[64];
	struct tfo_cookie_req r[64];
	unsigned long bursts = 0, bad = 0, seen_gens = 0, ok[3] = { 0 };
	uint64_t last_gen = 0, t_end;
	pthread_t th;
	int rc;

	for (unsigned int i = 0; i < ROT_KEYS; i++)
		REQUIRE(tfo_key_generate(&keys[i]) == 0);
	memset(&a, 0, sizeof(a));
	a.keys = keys;
	c = make_ctx(algo, &keys[1], &keys[0], &a.kr);
	REQUIRE(c != NULL);
	for (unsigned int i = 0; i < 64; i++) {
		memset(&cl[i], 0, sizeof(cl[i]));
		memset(&sv[i], 0, sizeof(sv[i]));
		for (int b = 0; b < 16; b++) {
			cl[i].b[b] = (uint8_t)rng();
			sv[i].b[b] = (uint8_t)rng();
		}
	}
	/* EAL pinned this thread to lcore 0: let the rotator run elsewhere,
	 * or the two would only take turns and never overlap */
	{
		pthread_attr_t at;
		cpu_set_t all;

		CPU_ZERO(&all);
		for (long i = 0; i < sysconf(_SC_NPROCESSORS_ONLN) && i < CPU_SETSIZE; i++)
			CPU_SET(i, &all);
		pthread_attr_init(&at);
		pthread_attr_setaffinity_np(&at, sizeof(all), &all);
		rc = pthread_create(&th, &at, rotator, &a);
		pthread_attr_destroy(&at);
	}
	REQUIRE(rc == 0);
	t_end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 2;	/* 0.5 s */
	while (rte_get_tsc_cycles() < t_end) {
		/* cookies of keys around the generation the ring is at now */
		uint64_t g = tfo_keyring_generation(a.kr), used;

		for (unsigned int i = 0; i < 64; i++) {
			int fam = i & 1 ? AF_INET6 : AF_INET;
			uint64_t x = g + (rng() % 7);

			from[i] = x < 3 ? 0 : x - 3;
			tfo_cookie_compute(algo, &keys[from[i] % ROT_KEYS], fam,
					   &cl[i], &sv[i], ck[i]);
			r[i] = (struct tfo_cookie_req){ .family = (uint8_t)fam,
				.cookie_len = 8, .client = &cl[i],
				.server = &sv[i], .cookie = ck[i] };
		}
		if (tfo_cookie_check_burst(c, r, 64, v) < 0) {
			bad++;
			break;
		}
		used = tfo_cookie_ctx_generation(c);
		if (used != last_gen) {
			seen_gens++;
			last_gen = used;
		}
		for (unsigned int i = 0; i < 64; i++) {
			/* by key, not by generation: when the two threads share
			 * a CPU the ring can move more than ROT_KEYS ahead */
			uint64_t kf = from[i] % ROT_KEYS;
			uint8_t want = kf == used % ROT_KEYS ?
				TFO_COOKIE_OK_PRIMARY :
				kf == (used - 1) % ROT_KEYS ?
				TFO_COOKIE_OK_BACKUP : TFO_COOKIE_BAD;

			if (v[i] != want)
				bad++;
			ok[v[i]]++;
		}
		bursts++;
	}
	atomic_store(&a.stop, 1);
	pthread_join(th, NULL);
	CHECK_EQ(bad, 0);
	CHECK(bursts > 100);
	CHECK(seen_gens > 5);
	CHECK(ok[1] > 0 && ok[2] > 0 && ok[0] > 0);
	printf("  %s: %u rotations, %lu bursts, %lu generations seen by the "
	       "checker, verdicts bad %lu primary %lu backup %lu\n",
	       tfo_cookie_algo_name(algo), a.rotations, bursts, seen_gens,
	       ok[0], ok[1], ok[2]);
	free_ctx(c, a.kr);
}

TFO_TEST(rotation_under_load_aes128)
{
	need_eal();
	rotation_under_load(TFO_COOKIE_ALGO_AES128);
}

TFO_TEST(rotation_under_load_siphash)
{
	need_eal();
	rotation_under_load(TFO_COOKIE_ALGO_SIPHASH_LINUX);
}

/* ---- SYN cookies ------------------------------------------------------------------ */

static void
syn_of(struct tfo_pkt *p, int family, uint32_t isn)
{
	memset(p, 0, sizeof(*p));
	p->family = (uint8_t)family;
	p->cls = TFO_PKT_TCP;
	p->tcp_flags = TFO_TCP_SYN;
	if (family == AF_INET) {
		inet_pton(AF_INET, "198.51.100.9", p->src.b);
		inet_pton(AF_INET, "192.0.2.80", p->dst.b);
	} else {
		inet_pton(AF_INET6, "2001:db8::9", p->src.b);
		inet_pton(AF_INET6, "2001:db8:ffff::80", p->dst.b);
	}
	p->sport = 40000;
	p->dport = 80;
	p->seq = isn;
}

/* The client's first ACK answering our SYN-ACK with ISN @p our_isn. */
static void
ack_of(struct tfo_pkt *a, const struct tfo_pkt *syn, uint32_t our_isn)
{
	*a = *syn;
	a->tcp_flags = TFO_TCP_ACK;
	a->seq = syn->seq + 1;
	a->ack = our_isn + 1;
}

TFO_TEST(syncookie_round_trip)
{
	static const uint16_t v4[] = { 536, 1300, 1440, 1460 };
	static const uint16_t v6[] = { 1220, 1420, 1440, 8940 };
	struct tfo_syncookie_secret s;
	unsigned int n = 0;

	for (int i = 0; i < 16; i++)
		s.k[i] = (uint8_t)(0x30 + i);
	for (int fam = 0; fam < 2; fam++) {
		const uint16_t *tab = fam ? v6 : v4;

		for (int m = 0; m < 4; m++) {
			for (int ts = 0; ts < 2; ts++) {
				struct tfo_syncookie_info in = {
					.mss = (uint16_t)(tab[m] + (m == 3 ? 100 : 1)),
					.wscale = (uint8_t)(m * 4 + ts),
					.sack_ok = (m & 1) != 0,
				}, out;
				struct tfo_pkt syn, ack;
				uint32_t now = 1000000 + (uint32_t)m * 17;
				uint32_t clock = 0x12345678u + (uint32_t)m;
				uint32_t tsval = clock, isn;

				syn_of(&syn, fam ? AF_INET6 : AF_INET,
				       0xfffffff0u + (uint32_t)m);
				isn = tfo_syncookie_make(&s, &syn, now, &in,
							 ts, &tsval);
				ack_of(&ack, &syn, isn);
				if (ts) {
					/* low 6 bits replaced, not ahead */
					CHECK((int32_t)(tsval - clock) <= 0);
					CHECK(clock - tsval < 64);
				} else {
					CHECK_EQ(tsval, clock);
				}
				/* accepted now and one minute later */
				CHECK_EQ(tfo_syncookie_check(&s, &ack, now, ts,
							     tsval, &out), 0);
				CHECK_EQ(out.mss, tab[m]);
				if (ts) {
					CHECK_EQ(out.wscale, in.wscale > 14 ?
						 0xf : in.wscale);
					CHECK_EQ(out.sack_ok, in.sack_ok);
				} else {
					CHECK_EQ(out.wscale, 0xf);
					CHECK(!out.sack_ok);
				}
				CHECK_EQ(tfo_syncookie_check(&s, &ack, now + 60,
							     ts, tsval, &out), 0);
				n++;
			}
		}
	}
	CHECK_EQ(n, 16);
}

TFO_TEST(syncookie_rejects)
{
	struct tfo_syncookie_secret s, s2;
	struct tfo_syncookie_info in = { .mss = 1460, .wscale = 7,
					 .sack_ok = true }, out;
	struct tfo_pkt syn, ack, x;
	uint32_t now = 7777777, tsval = 0xabcdef00u, isn;
	unsigned long forged_ok = 0;

	memset(&s, 0x42, sizeof(s));
	memset(&s2, 0x43, sizeof(s2));
	syn_of(&syn, AF_INET, 123456789);
	isn = tfo_syncookie_make(&s, &syn, now, &in, true, &tsval);
	ack_of(&ack, &syn, isn);
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now, true, tsval, &out), 0);

	/* expired: two or more minute steps later; and from the future */
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now + 120, true, tsval, &out),
		 -EINVAL);
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now + 3600, true, tsval, &out),
		 -EINVAL);
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now - 60, true, tsval, &out),
		 -EINVAL);
	/* other secret */
	CHECK_EQ(tfo_syncookie_check(&s2, &ack, now, true, tsval, &out), -EINVAL);
	/* wrong tuple: each field */
	x = ack;
	x.sport++;
	CHECK_EQ(tfo_syncookie_check(&s, &x, now, true, tsval, &out), -EINVAL);
	x = ack;
	x.dport = 443;
	CHECK_EQ(tfo_syncookie_check(&s, &x, now, true, tsval, &out), -EINVAL);
	x = ack;
	x.src.b[3] ^= 1;
	CHECK_EQ(tfo_syncookie_check(&s, &x, now, true, tsval, &out), -EINVAL);
	x = ack;
	x.dst.b[0] ^= 0x80;
	CHECK_EQ(tfo_syncookie_check(&s, &x, now, true, tsval, &out), -EINVAL);
	x = ack;
	x.seq++;	/* another peer ISN */
	CHECK_EQ(tfo_syncookie_check(&s, &x, now, true, tsval, &out), -EINVAL);
	/* forged: another MSS index, altered TS bits, no TS */
	x = ack;
	x.ack ^= 1;
	CHECK_EQ(tfo_syncookie_check(&s, &x, now, true, tsval, &out), -EINVAL);
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now, true, tsval ^ 0x10, &out),
		 -EINVAL);
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now, true, tsval ^ 0x3, &out),
		 -EINVAL);
	CHECK_EQ(tfo_syncookie_check(&s, &ack, now, false, 0, &out), -EINVAL);
	/* random ISNs in the current minute: about 2^-22 pass each */
	for (unsigned int i = 0; i < 200000; i++) {
		x = ack;
		x.ack = (uint32_t)rng();
		x.ack = ((now / 60 & 0xff) << 24 | (x.ack & 0xffffff)) + 1;
		if (x.ack != ack.ack &&
		    tfo_syncookie_check(&s, &x, now, true, tsval, &out) == 0)
			forged_ok++;
	}
	CHECK_MSG(forged_ok <= 2, "%lu forged cookies accepted", forged_ok);
}

TFO_TEST_MAIN()
