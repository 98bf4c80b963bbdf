/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench cookie: cycles per TFO cookie check, batch sizes 1..64.
 *
 *   tfo-bench cookie [--reps R] [--cookies N]
 *
 * Rows (IPv4 SYNs with valid primary-key cookies unless noted):
 *   (a) batch API      tfo_cookie_check_burst(), aes128: gather, one
 *                      ipsec-mb ECB job, constant-time compare (below 3
 *                      blocks it uses AES-NI instead of a job)
 *   (a) IPv6           the same with IPv6 SYNs (two dependent ECB jobs)
 *   (a) all bad        every cookie wrong: primary pass + backup pass
 *   (b) one at a time  tfo_cookie_check_one(), AES-NI, one cookie per call
 *   (c) raw ECB        the ipsec-mb job alone on the same, already
 *                      gathered blocks: the floor of approach (a)
 *   (d) siphash        siphash-linux one at a time, and batched with the
 *                      scalar, AVX2 (4 lanes) and AVX-512 (8 lanes) engines
 * Each figure: TSC cycles per cookie, median of R runs of N cookies.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-ipsec-mb.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "cookie/cookie.h"

#include "bench.h"

#define BC_MAX TFO_COOKIE_BURST_MAX

static const unsigned int bc_sizes[] = { 1, 4, 8, 16, 32, 64 };
#define BC_NSIZES RTE_DIM(bc_sizes)

/* The requests of one algorithm: IPv4 good, IPv6 good, IPv4 bad. */
struct bc_set {
	struct tfo_cookie_req v4[BC_MAX], v6[BC_MAX], bad[BC_MAX];
	uint8_t ck4[BC_MAX][TFO_COOKIE_LEN], ck6[BC_MAX][TFO_COOKIE_LEN];
	uint8_t ckbad[BC_MAX][TFO_COOKIE_LEN];
};

struct bc {
	struct bc_set aes, sip;
	struct tfo_addr cl4[BC_MAX], sv4[BC_MAX], cl6[BC_MAX], sv6[BC_MAX];
	struct tfo_cookie_ctx *aes_ctx, *sip_ctx;
	/* raw ECB: our own manager and the already gathered blocks */
	IMB_MGR *mgr;
	uint32_t enc[60] __rte_aligned(16);
	uint32_t dec[60] __rte_aligned(16);
	uint8_t blk_in[BC_MAX][16] __rte_aligned(64);
	uint8_t blk_out[BC_MAX][16] __rte_aligned(64);
	uint8_t verdict[BC_MAX];
	uint64_t sink;
};

typedef void (*bc_op)(struct bc *b, unsigned int n);

static void
op_batch_aes(struct bc *b, unsigned int n)
{
	tfo_cookie_check_burst(b->aes_ctx, b->aes.v4, n, b->verdict);
	b->sink += b->verdict[n - 1];
}

static void
op_batch_aes6(struct bc *b, unsigned int n)
{
	tfo_cookie_check_burst(b->aes_ctx, b->aes.v6, n, b->verdict);
	b->sink += b->verdict[n - 1];
}

static void
op_batch_aes_bad(struct bc *b, unsigned int n)
{
	tfo_cookie_check_burst(b->aes_ctx, b->aes.bad, n, b->verdict);
	b->sink += b->verdict[n - 1];
}

static void
op_single_aesni(struct bc *b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		b->sink += (uint64_t)tfo_cookie_check_one(b->aes_ctx, &b->aes.v4[i]);
}

static void
op_raw_ecb(struct bc *b, unsigned int n)
{
	IMB_JOB *job = IMB_GET_NEXT_JOB(b->mgr);

	job->cipher_direction = IMB_DIR_ENCRYPT;
	job->chain_order = IMB_ORDER_CIPHER_HASH;
	job->cipher_mode = IMB_CIPHER_ECB;
	job->hash_alg = IMB_AUTH_NULL;
	job->enc_keys = b->enc;
	job->dec_keys = b->dec;
	job->key_len_in_bytes = IMB_KEY_128_BYTES;
	job->src = b->blk_in[0];
	job->dst = b->blk_out[0];
	job->cipher_start_src_offset_in_bytes = 0;
	job->msg_len_to_cipher_in_bytes = (uint64_t)n * 16;
	job->iv = NULL;
	job->iv_len_in_bytes = 0;
	job = IMB_SUBMIT_JOB_NOCHECK(b->mgr);
	b->sink += job != NULL ? b->blk_out[n - 1][0] : 1;
}

static void
op_single_sip(struct bc *b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		b->sink += (uint64_t)tfo_cookie_check_one(b->sip_ctx, &b->sip.v4[i]);
}

static void
op_batch_sip(struct bc *b, unsigned int n)
{
	tfo_cookie_check_burst(b->sip_ctx, b->sip.v4, n, b->verdict);
	b->sink += b->verdict[n - 1];
}

static void
op_batch_sip6(struct bc *b, unsigned int n)
{
	tfo_cookie_check_burst(b->sip_ctx, b->sip.v6, n, b->verdict);
	b->sink += b->verdict[n - 1];
}

/* Median over @p reps runs of TSC cycles per cookie. */
static double
measure(bc_op op, struct bc *b, unsigned int n, unsigned int reps,
	unsigned int cookies)
{
	double v[64];
	unsigned int iters = cookies / n;

	if (reps > RTE_DIM(v))
		reps = RTE_DIM(v);
	for (unsigned int i = 0; i < iters / 8 + 1; i++)	/* warm up */
		op(b, n);
	for (unsigned int r = 0; r < reps; r++) {
		uint64_t t0 = rte_rdtsc_precise();

		for (unsigned int i = 0; i < iters; i++)
			op(b, n);
		v[r] = (double)(rte_rdtsc_precise() - t0) / ((double)iters * n);
	}
	return tfo_bench_median(v, reps);
}

static void
rand_bytes(uint8_t *p, size_t n, uint64_t *x)
{
	for (size_t i = 0; i < n; i++) {
		*x ^= *x << 13;
		*x ^= *x >> 7;
		*x ^= *x << 17;
		p[i] = (uint8_t)*x;
	}
}

/* Requests of one algorithm with cookies made by @p ctx (primary key). */
static int
fill_set(struct bc *b, struct bc_set *s, struct tfo_cookie_ctx *ctx)
{
	for (unsigned int i = 0; i < BC_MAX; i++) {
		s->v4[i] = (struct tfo_cookie_req){ .family = AF_INET,
			.cookie_len = TFO_COOKIE_LEN, .client = &b->cl4[i],
			.server = &b->sv4[i], .cookie = s->ck4[i] };
		s->v6[i] = (struct tfo_cookie_req){ .family = AF_INET6,
			.cookie_len = TFO_COOKIE_LEN, .client = &b->cl6[i],
			.server = &b->sv6[i], .cookie = s->ck6[i] };
		s->bad[i] = s->v4[i];
		s->bad[i].cookie = s->ckbad[i];
	}
	if (tfo_cookie_gen_burst(ctx, s->v4, BC_MAX, s->ck4) < 0 ||
	    tfo_cookie_gen_burst(ctx, s->v6, BC_MAX, s->ck6) < 0)
		return -EIO;
	for (unsigned int i = 0; i < BC_MAX; i++) {
		memcpy(s->ckbad[i], s->ck4[i], TFO_COOKIE_LEN);
		s->ckbad[i][i % TFO_COOKIE_LEN] ^= 0x20;
	}
	return 0;
}

/* Every good cookie accepted, every bad one refused, by batch and single. */
static int
sanity(struct bc *b, struct tfo_cookie_ctx *ctx, struct bc_set *s)
{
	uint8_t v4[BC_MAX], v6[BC_MAX], vb[BC_MAX];

	if (tfo_cookie_check_burst(ctx, s->v4, BC_MAX, v4) < 0 ||
	    tfo_cookie_check_burst(ctx, s->v6, BC_MAX, v6) < 0 ||
	    tfo_cookie_check_burst(ctx, s->bad, BC_MAX, vb) < 0)
		return -EIO;
	for (unsigned int i = 0; i < BC_MAX; i++)
		if (v4[i] != TFO_COOKIE_OK_PRIMARY ||
		    v6[i] != TFO_COOKIE_OK_PRIMARY || vb[i] != TFO_COOKIE_BAD ||
		    tfo_cookie_check_one(ctx, &s->v4[i]) != TFO_COOKIE_OK_PRIMARY)
			return -EPROTO;
	RTE_SET_USED(b);
	return 0;
}

static int
bc_setup(struct bc *b, struct tfo_keyring **kr)
{
	struct tfo_key k[2];
	uint64_t x = rte_rdtsc() | 1;
	void *mem;

	for (unsigned int i = 0; i < BC_MAX; i++) {
		rand_bytes(b->cl4[i].b, 4, &x);
		rand_bytes(b->sv4[i].b, 4, &x);
		rand_bytes(b->cl6[i].b, 16, &x);
		rand_bytes(b->sv6[i].b, 16, &x);
	}
	if (tfo_key_generate(&k[0]) < 0 || tfo_key_generate(&k[1]) < 0)
		return -EIO;
	kr[0] = tfo_keyring_create(TFO_COOKIE_ALGO_AES128, &k[0], &k[1],
				   (int)rte_socket_id());
	kr[1] = tfo_keyring_create(TFO_COOKIE_ALGO_SIPHASH_LINUX, &k[0], &k[1],
				   (int)rte_socket_id());
	if (kr[0] == NULL || kr[1] == NULL)
		return -ENOMEM;
	b->aes_ctx = tfo_cookie_ctx_create(kr[0], (int)rte_socket_id());
	b->sip_ctx = tfo_cookie_ctx_create(kr[1], (int)rte_socket_id());
	if (b->aes_ctx == NULL || b->sip_ctx == NULL)
		return -ENOMEM;
	if (fill_set(b, &b->aes, b->aes_ctx) < 0 ||
	    fill_set(b, &b->sip, b->sip_ctx) < 0)
		return -EIO;
	if (sanity(b, b->aes_ctx, &b->aes) < 0 ||
	    sanity(b, b->sip_ctx, &b->sip) < 0) {
		fprintf(stderr, "cookie: sanity check failed: wrong verdicts\n");
		return -EPROTO;
	}

	/* the raw pass: its own manager, the IPv4 blocks gathered once */
	mem = rte_malloc_socket("bench_imb", imb_get_mb_mgr_size(), 64,
				(int)rte_socket_id());
	if (mem == NULL)
		return -ENOMEM;
	b->mgr = imb_set_pointers_mb_mgr(mem, 0, 1);
	init_mb_mgr_auto(b->mgr, NULL);
	IMB_AES_KEYEXP_128(b->mgr, k[0].b, b->enc, b->dec);
	for (unsigned int i = 0; i < BC_MAX; i++) {
		memset(b->blk_in[i], 0, 16);
		memcpy(b->blk_in[i], b->cl4[i].b, 4);
		memcpy(b->blk_in[i] + 4, b->sv4[i].b, 4);
	}
	op_raw_ecb(b, BC_MAX);
	for (unsigned int i = 0; i < BC_MAX; i++)
		if (memcmp(b->blk_out[i], b->aes.ck4[i], TFO_COOKIE_LEN) != 0) {
			fprintf(stderr, "cookie: raw ECB disagrees with the "
				"batch\n");
			return -EPROTO;
		}
	return 0;
}

struct bc_row {
	const char *name;
	bc_op op;
	enum tfo_cookie_simd simd;	/* for the siphash batch rows */
	double v[BC_NSIZES];
	bool skip;
};

static int
bench_cookie(int argc, char **argv)
{
	struct bc_row rows[] = {
		{ "(a) batch API, aes128", op_batch_aes, 0, { 0 }, false },
		{ "(a) batch API, aes128 IPv6", op_batch_aes6, 0, { 0 }, false },
		{ "(a) batch API, aes128 all bad", op_batch_aes_bad, 0, { 0 }, false },
		{ "(b) one at a time, AES-NI", op_single_aesni, 0, { 0 }, false },
		{ "(c) raw ipsec-mb ECB job", op_raw_ecb, 0, { 0 }, false },
		{ "(d) siphash one at a time", op_single_sip, 0, { 0 }, false },
		{ "(d) siphash batch, scalar", op_batch_sip,
		  TFO_COOKIE_SIMD_SCALAR, { 0 }, false },
		{ "(d) siphash batch, AVX2", op_batch_sip,
		  TFO_COOKIE_SIMD_AVX2, { 0 }, false },
		{ "(d) siphash batch, AVX-512", op_batch_sip,
		  TFO_COOKIE_SIMD_AVX512, { 0 }, false },
		{ "(d) siphash batch, IPv6, best", op_batch_sip6,
		  TFO_COOKIE_SIMD_AUTO, { 0 }, false },
	};
	unsigned int reps = 9, cookies = 200000;
	const struct tfo_bench_opt opts[] = {
		{ "reps", TFO_BENCH_OPT_U32, &reps, NULL, 0, 0 },
		{ "cookies", TFO_BENCH_OPT_U32, &cookies, NULL, 0, 0 },
	};
	struct tfo_keyring *kr[2] = { NULL, NULL };
	struct bc *b;
	int rc;

	if (tfo_bench_getopt(argc, argv, opts, RTE_DIM(opts),
			     "usage: tfo-bench cookie [--reps R] [--cookies N]") < 0)
		return -EINVAL;
	if (reps == 0 || reps > 64 || cookies < BC_MAX) {
		fprintf(stderr, "cookie: --reps 1..64, --cookies >= 64\n");
		return -EINVAL;
	}
	b = rte_zmalloc_socket("bench_cookie", sizeof(*b), 64,
			       (int)rte_socket_id());
	if (b == NULL)
		return -ENOMEM;
	rc = bc_setup(b, kr);
	if (rc < 0)
		goto out;

	printf("# aes128 batch engine: %s; siphash best: ",
	       tfo_cookie_ctx_engine(b->aes_ctx));
	tfo_cookie_ctx_set_simd(b->sip_ctx, TFO_COOKIE_SIMD_AUTO);
	printf("%s\n", tfo_cookie_ctx_engine(b->sip_ctx));
	printf("# TSC cycles per cookie, median of %u runs of %u cookies; "
	       "IPv4 unless noted\n", reps, cookies);
	for (unsigned int r = 0; r < RTE_DIM(rows); r++) {
		if (rows[r].op == op_batch_sip || rows[r].op == op_batch_sip6)
			rows[r].skip = tfo_cookie_ctx_set_simd(b->sip_ctx,
							       rows[r].simd) < 0;
		for (unsigned int s = 0; s < BC_NSIZES && !rows[r].skip; s++)
			rows[r].v[s] = measure(rows[r].op, b, bc_sizes[s],
					       reps, cookies);
	}
	tfo_cookie_ctx_set_simd(b->sip_ctx, TFO_COOKIE_SIMD_AUTO);

	printf("%-34s", "batch size");
	for (unsigned int s = 0; s < BC_NSIZES; s++)
		printf("%8u", bc_sizes[s]);
	printf("\n");
	for (unsigned int r = 0; r < RTE_DIM(rows); r++) {
		printf("%-34s", rows[r].name);
		for (unsigned int s = 0; s < BC_NSIZES; s++)
			if (rows[r].skip)
				printf("%8s", "n/a");
			else
				printf("%8.1f", rows[r].v[s]);
		printf("\n");
	}
	/* the target: (a) <= 1.5 x (c) and <= 12 cycles at 32 */
	printf("%-34s", "(a) / (c)");
	for (unsigned int s = 0; s < BC_NSIZES; s++)
		printf("%8.2f", rows[0].v[s] / rows[4].v[s]);
	printf("\n%-34s", "(a) - (c) (n < 3: no ECB job)");
	for (unsigned int s = 0; s < BC_NSIZES; s++)
		printf("%8.1f", rows[0].v[s] - rows[4].v[s]);
	printf("\n# sink %" PRIu64 "\n", b->sink);
out:
	if (b->mgr != NULL)
		rte_free(b->mgr);
	tfo_cookie_ctx_free(b->aes_ctx);
	tfo_cookie_ctx_free(b->sip_ctx);
	tfo_keyring_free(kr[0]);
	tfo_keyring_free(kr[1]);
	rte_free(b);
	return rc;
}

TFO_BENCH(bench_cookie_reg, "cookie",
	  "TFO cookie checks: batch API vs one at a time vs raw ECB, siphash",
	  bench_cookie)
