/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TFO cookies against vectors nobody here
 * computed: the siphash-linux ones are the vectors of issue 7 (cookies
 * Linux 5.2+ issued); the aes128 ones are computed by openssl(1) from
 * inside the test (an AES implementation that is not ours); and AES known
 * answers (FIPS-197) through the batch's ECB path.
 */
#include "cookie_harness.h"

/* ---- cookie vectors --------------------------------------------------------------- */

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
