/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TFO cookies (RFC 7413 section 4.1): the per-lcore batched
 * checker and generator, and one cookie at a time (cookie/cookie.h). The
 * keys come from the key ring (keyring.c).
 *
 * aes128 is the cookie of Linux 3.7-5.1, siphash-linux that of Linux 5.2+,
 * both from the same 16 key bytes (the tcp_fastopen_key words stored
 * little-endian). A burst is checked with one ipsec-mb ECB job per key and
 * CBC-MAC step, or with SipHash in SIMD lanes.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <emmintrin.h>

#include <intel-ipsec-mb.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "cookie/cookie.h"
#include "tfo/log.h"

#include "cookie/aes128.h"
#include "cookie/keyring_impl.h"
#include "cookie/siphash.h"

/*
 * How long a worker waits for a writer caught mid-update (it writes 40
 * bytes; only a preempted writer takes longer). Then the worker keeps its
 * keys for this burst and looks again at the next one.
 */
#define TFO_KEYRING_READ_TRIES_HOT 16

/* ---- per-lcore checker ------------------------------------------------------ */

/* One key in every form the checker needs. */
struct tfo_cookie_keys {
	uint32_t imb_enc[60] __rte_aligned(16);	/* ipsec-mb expanded */
	uint32_t imb_dec[60] __rte_aligned(16);
	struct tfo_aes128_rk rk;		/* AES-NI, one at a time */
	struct tfo_siphash_key sip;
};

#define SIP_STRIDE (TFO_COOKIE_BURST_MAX + TFO_SIPHASH_LANE_PAD)
#define CB TFO_COOKIE_BURST_MAX

/*
 * A pass works on "candidates": the requests it computes a cookie for,
 * numbered j in the order they were gathered.
 */
struct tfo_cookie_ctx {
	/* aes128: candidate j's block and its cookie block (IPv6: after the
	 * second CBC-MAC step); the second IPv6 blocks. One ECB job each. */
	uint8_t blk_in[CB][16] __rte_aligned(64);
	uint8_t blk_out[CB][16] __rte_aligned(64);
	uint8_t blk_mid[CB][16] __rte_aligned(64);
	/* siphash-linux lanes, word-major (siphash.h), IPv4 and IPv6 apart */
	uint64_t sip_m4[SIP_STRIDE] __rte_aligned(64);
	uint64_t sip_m6[4 * SIP_STRIDE] __rte_aligned(64);
	uint64_t sip_h4[SIP_STRIDE] __rte_aligned(64);
	uint64_t sip_h6[SIP_STRIDE] __rte_aligned(64);
	/* per candidate: the cookie the client sent and the request index
	 * (sent6/cand6: the siphash IPv6 lanes) */
	uint64_t sent[CB], sent6[CB];
	uint8_t cand[CB], cand6[CB];
	uint8_t v6pos[CB];		/* aes128: the candidates that are IPv6 */

	IMB_MGR *mgr;
	const struct tfo_keyring *kr;
	uint64_t seq;			/* key ring sequence of key[] */
	enum tfo_cookie_algo algo;
	enum tfo_simd simd;
	bool has_backup;
	char engine[48];
	struct tfo_cookie_keys key[2];	/* primary, backup */
};

static const char *
imb_arch_name(IMB_ARCH a)
{
	switch (a) {
	case IMB_ARCH_SSE: return "sse";
	case IMB_ARCH_AVX: return "avx";
	case IMB_ARCH_AVX2: return "avx2";
	case IMB_ARCH_AVX512: return "avx512";
	default: return "?";
	}
}

static const char *
simd_name(enum tfo_simd s)
{
	switch (s) {
	case TFO_SIMD_AVX512: return "avx512";
	case TFO_SIMD_AVX2: return "avx2";
	default: return "scalar";
	}
}

static void
ctx_set_engine_name(struct tfo_cookie_ctx *c, IMB_ARCH arch)
{
	if (c->algo == TFO_COOKIE_ALGO_AES128)
		snprintf(c->engine, sizeof(c->engine), "ipsec-mb %s %s",
			 imb_get_version_str(), imb_arch_name(arch));
	else
		snprintf(c->engine, sizeof(c->engine), "siphash %s",
			 simd_name(c->simd));
}

static void
keys_expand(struct tfo_cookie_ctx *c, struct tfo_cookie_keys *ek,
	    const struct tfo_key *k)
{
	IMB_AES_KEYEXP_128(c->mgr, k->b, ek->imb_enc, ek->imb_dec);
	tfo_aes128_expand(&ek->rk, k->b);
	tfo_siphash_init(&ek->sip, k->b);
}

/* Pick up a key change; cheap (one load) when there is none. */
static inline void
ctx_refresh(struct tfo_cookie_ctx *c)
{
	union tfo_keyset ks;
	uint64_t seq;

	if (likely(__atomic_load_n(&c->kr->seq, __ATOMIC_ACQUIRE) == c->seq))
		return;
	if (tfo_keyring_read(c->kr, &ks, &seq, TFO_KEYRING_READ_TRIES_HOT) < 0)
		return;		/* writer preempted mid-update: old keys */
	keys_expand(c, &c->key[0], &ks.s.k[0]);
	c->has_backup = ks.s.has_backup != 0;
	if (c->has_backup)
		keys_expand(c, &c->key[1], &ks.s.k[1]);
	c->seq = seq;
	explicit_bzero(&ks, sizeof(ks));
}

size_t
tfo_cookie_ctx_memory(void)
{
	return sizeof(struct tfo_cookie_ctx) + imb_get_mb_mgr_size();
}

struct tfo_cookie_ctx *
tfo_cookie_ctx_create(struct tfo_keyring *kr, int socket_id)
{
	struct tfo_cookie_ctx *c;
	union tfo_keyset ks;
	IMB_ARCH arch = IMB_ARCH_NONE;
	void *mem;

	if (kr == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (!tfo_aes128_supported()) {
		TFO_LOG(ERR, "TFO cookies need a CPU with AES-NI");
		rte_errno = ENOTSUP;
		return NULL;
	}
	c = rte_zmalloc_socket("tfo_cookie_ctx", sizeof(*c), 64, socket_id);
	mem = rte_malloc_socket("tfo_imb_mgr", imb_get_mb_mgr_size(), 64,
				socket_id);
	if (c == NULL || mem == NULL) {
		TFO_LOG(ERR, "no memory for a cookie checker on socket %d",
			socket_id);
		rte_free(c);
		rte_free(mem);
		rte_errno = ENOMEM;
		return NULL;
	}
	c->mgr = imb_set_pointers_mb_mgr(mem, 0, 1);
	init_mb_mgr_auto(c->mgr, &arch);
	if (c->mgr == NULL || imb_get_errno(c->mgr) != 0 ||
	    arch == IMB_ARCH_NONE || arch == IMB_ARCH_NOAESNI) {
		TFO_LOG(ERR, "ipsec-mb: no usable manager (%s)",
			c->mgr != NULL ? imb_get_strerror(imb_get_errno(c->mgr)) :
			"setup failed");
		rte_free(mem);
		rte_free(c);
		rte_errno = ENOTSUP;
		return NULL;
	}
	c->kr = kr;
	c->algo = kr->algo;
	c->simd = tfo_simd_best();
	ctx_set_engine_name(c, arch);
	/* the first snapshot must succeed: wait for a writer if needed */
	while (tfo_keyring_read(kr, &ks, &c->seq, UINT_MAX) < 0)
		;
	keys_expand(c, &c->key[0], &ks.s.k[0]);
	c->has_backup = ks.s.has_backup != 0;
	if (c->has_backup)
		keys_expand(c, &c->key[1], &ks.s.k[1]);
	explicit_bzero(&ks, sizeof(ks));
	return c;
}

void
tfo_cookie_ctx_free(struct tfo_cookie_ctx *c)
{
	void *mem;

	if (c == NULL)
		return;
	mem = c->mgr;
	explicit_bzero(c, sizeof(*c));
	rte_free(mem);
	rte_free(c);
}

int
tfo_cookie_ctx_set_simd(struct tfo_cookie_ctx *c, enum tfo_cookie_simd s)
{
	static const enum tfo_simd map[] = {
		[TFO_COOKIE_SIMD_AUTO] = TFO_SIMD_AUTO,
		[TFO_COOKIE_SIMD_SCALAR] = TFO_SIMD_SCALAR,
		[TFO_COOKIE_SIMD_AVX2] = TFO_SIMD_AVX2,
		[TFO_COOKIE_SIMD_AVX512] = TFO_SIMD_AVX512,
	};
	enum tfo_simd t;
	IMB_ARCH arch = c->mgr->used_arch;

	if ((unsigned int)s >= RTE_DIM(map))
		return -EINVAL;
	t = map[s] == TFO_SIMD_AUTO ? tfo_simd_best() : map[s];
	if (!tfo_simd_supported(t))
		return -ENOTSUP;
	c->simd = t;
	ctx_set_engine_name(c, arch);
	return 0;
}

const char *
tfo_cookie_ctx_engine(const struct tfo_cookie_ctx *c)
{
	return c->engine;
}

uint64_t
tfo_cookie_ctx_generation(const struct tfo_cookie_ctx *c)
{
	return c->seq / 2;
}

/* ---- the AES pass ------------------------------------------------------------ */

/*
 * ONE ipsec-mb job: ECB over @p n blocks. ECB completes inside the submit;
 * we never leave a job queued, so the job handed back is ours.
 */
static inline int
ecb_job(IMB_MGR *mgr, const struct tfo_cookie_keys *k, const void *in,
	void *out, unsigned int n)
{
	IMB_JOB *job = IMB_GET_NEXT_JOB(mgr);

	job->cipher_direction = IMB_DIR_ENCRYPT;
	job->chain_order = IMB_ORDER_CIPHER_HASH;
	job->cipher_mode = IMB_CIPHER_ECB;
	job->hash_alg = IMB_AUTH_NULL;
	job->enc_keys = k->imb_enc;
	job->dec_keys = k->imb_dec;
	job->key_len_in_bytes = IMB_KEY_128_BYTES;
	job->src = in;
	job->dst = out;
	job->cipher_start_src_offset_in_bytes = 0;
	job->msg_len_to_cipher_in_bytes = (uint64_t)n * 16;
	job->iv = NULL;
	job->iv_len_in_bytes = 0;
	job = IMB_SUBMIT_JOB_NOCHECK(mgr);
	if (unlikely(job == NULL))
		job = IMB_FLUSH_JOB(mgr);
	if (unlikely(job == NULL || job->status != IMB_STATUS_COMPLETED)) {
		while (IMB_FLUSH_JOB(mgr) != NULL)
			;
		return -EIO;
	}
	return 0;
}

int
tfo_cookie_ecb(struct tfo_cookie_ctx *c, const struct tfo_key *k,
	       const uint8_t *in, uint8_t *out, unsigned int n)
{
	struct tfo_cookie_keys ek;
	int rc;

	if (c == NULL || k == NULL || n == 0 ||
	    n > 2 * TFO_COOKIE_BURST_MAX ||
	    ((uintptr_t)in & 15) != 0 || ((uintptr_t)out & 15) != 0)
		return -EINVAL;
	IMB_AES_KEYEXP_128(c->mgr, k->b, ek.imb_enc, ek.imb_dec);
	rc = ecb_job(c->mgr, &ek, in, out, n);
	explicit_bzero(&ek, sizeof(ek));
	return rc;
}

/* ---- gathering and comparing ---------------------------------------------------- */

static inline uint64_t
load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t
load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline void
store128(uint8_t *p, uint64_t lo, uint64_t hi)
{
	/* one 16-byte store: the ECB job reloads these right away */
	_mm_storeu_si128((__m128i *)(void *)p,
			 _mm_set_epi64x((long long)hi, (long long)lo));
}

/*
 * 1 if the 8 cookie bytes differ. One 64-bit compare and no early exit:
 * the time does not depend on how many bytes match (what memcmp would
 * leak); whether the whole cookie matches is public anyway (our answer
 * shows it).
 */
static inline unsigned int
ck_differ(uint64_t a, uint64_t b)
{
	return (a ^ b) != 0;
}

/* IPv4: client | server, the first 8 bytes of the block and the SipHash
 * message (addresses in network order). */
static inline uint64_t
v4_word(const struct tfo_cookie_req *r)
{
	return (uint64_t)load32(r->client->b) |
	       ((uint64_t)load32(r->server->b) << 32);
}

static inline void
xor16(uint8_t out[16], const uint8_t a[16], const uint8_t b[16])
{
	store128(out, load64(a) ^ load64(b), load64(a + 8) ^ load64(b + 8));
}

/* A request a pass computes: known family, and (@p check) our length. */
static __rte_always_inline bool
usable(const struct tfo_cookie_req *r, bool check)
{
	return (r->family == AF_INET || r->family == AF_INET6) &&
	       (!check || r->cookie_len == TFO_COOKIE_LEN);
}

/*
 * One loop over the requests @p sel[0..n) (0..n-1 when NULL), for either
 * algorithm: pick the candidates and, when checking, the cookies they sent
 * (sent[] by candidate), and put each in the algorithm's lanes.
 * aes128 (@p aes): one list of *na candidates (cand[]) whose first blocks
 *   (IPv4 block, or the first CBC-MAC block of IPv6) go to blk_in[];
 *   *n6 of them are IPv6, at v6pos[].
 * siphash-linux: the IPv4 ones, *na, in cand[] and the sip_m4 lanes; the
 *   IPv6 ones, *n6, in cand6[], sent6[] and the sip_m6 lanes.
 */
static __rte_always_inline void
gather(struct tfo_cookie_ctx *c, const struct tfo_cookie_req *reqs, const uint8_t *sel,
       unsigned int n, bool check, bool aes, unsigned int *na, unsigned int *n6)
{
	unsigned int a = 0, b = 0;

	for (unsigned int t = 0; t < n; t++) {
		unsigned int i = sel != NULL ? sel[t] : t;
		const struct tfo_cookie_req *r = &reqs[i];

		if (unlikely(!usable(r, check)))
			continue;
		if (aes) {
			if (likely(r->family == AF_INET)) {
				store128(c->blk_in[a], v4_word(r), 0);
			} else {
				memcpy(c->blk_in[a], r->client->b, 16);
				c->v6pos[b++] = (uint8_t)a;
			}
		} else if (likely(r->family == AF_INET)) {
			c->sip_m4[a] = v4_word(r);
		} else {
			c->sip_m6[0 * SIP_STRIDE + b] = load64(r->client->b);
			c->sip_m6[1 * SIP_STRIDE + b] = load64(r->client->b + 8);
			c->sip_m6[2 * SIP_STRIDE + b] = load64(r->server->b);
			c->sip_m6[3 * SIP_STRIDE + b] = load64(r->server->b + 8);
			if (check)
				c->sent6[b] = load64(r->cookie);
			c->cand6[b++] = (uint8_t)i;
			continue;
		}
		if (check)
			c->sent[a] = load64(r->cookie);
		c->cand[a++] = (uint8_t)i;
	}
	*na = a;
	*n6 = b;
}

/*
 * Fewer blocks than this go through AES-NI one by one instead of an
 * ipsec-mb job: the job's fixed cost (~30 TSC cycles here) is more than
 * two AES-NI blocks (tfo-bench cookie, batch sizes 1..4).
 */
#define TFO_COOKIE_ECB_MIN_BLOCKS 3

/* AES-128 over @p n gathered blocks: one ECB job, or AES-NI if tiny. */
static inline int
aes_blocks(struct tfo_cookie_ctx *c, const struct tfo_cookie_keys *k,
	   uint8_t (*in)[16], uint8_t (*out)[16], unsigned int n)
{
	if (n < TFO_COOKIE_ECB_MIN_BLOCKS) {
		for (unsigned int j = 0; j < n; j++)
			tfo_aes128_encrypt(&k->rk, in[j], out[j]);
		return 0;
	}
	return ecb_job(c->mgr, k, in, out, n);
}

/*
 * The AES of a pass: all first blocks in one ECB job, then the second
 * IPv6 blocks AES_K(client) ^ server in another; each IPv6 cookie goes
 * back to its candidate's place in blk_out.
 */
static int
aes_run(struct tfo_cookie_ctx *c, const struct tfo_cookie_req *reqs,
	unsigned int nc, unsigned int n6, const struct tfo_cookie_keys *k)
{
	int rc = aes_blocks(c, k, c->blk_in, c->blk_out, nc);

	if (likely(n6 == 0) || unlikely(rc < 0))
		return rc;
	for (unsigned int q = 0; q < n6; q++) {
		unsigned int j = c->v6pos[q];

		xor16(c->blk_mid[q], c->blk_out[j], reqs[c->cand[j]].server->b);
	}
	rc = aes_blocks(c, k, c->blk_mid, c->blk_mid, n6);
	for (unsigned int q = 0; q < n6; q++)
		memcpy(c->blk_out[c->v6pos[q]], c->blk_mid[q], TFO_COOKIE_LEN);
	return rc;
}

/* Linux writes cpu_to_le64(siphash(...)); x86 (ipsec-mb's only home) is
 * little-endian, so the lanes' words are the cookies' bytes already. */
static void
sip_run(struct tfo_cookie_ctx *c, unsigned int n4, unsigned int n6,
	const struct tfo_cookie_keys *k)
{
	/* a vector kernel computes all its lanes: for 1 or 2 messages the
	 * scalar one is cheaper (tfo-bench cookie) */
	if (n4 > 0)
		tfo_siphash_lanes(n4 < 3 ? TFO_SIMD_SCALAR : c->simd, &k->sip,
				  c->sip_m4, 1, SIP_STRIDE, n4, c->sip_h4);
	if (n6 > 0)
		tfo_siphash_lanes(n6 < 3 ? TFO_SIMD_SCALAR : c->simd, &k->sip,
				  c->sip_m6, 4, SIP_STRIDE, n6, c->sip_h6);
}

/*
 * Compare @p nc computed cookies (8 bytes every @p stride bytes from
 * @p res) with the ones sent; a match gets @p verdict, a miss is appended
 * to @p miss (at @p nmiss). @return the new number of misses.
 */
static inline unsigned int
compare(const uint8_t *res, size_t stride, const uint64_t *sent,
	const uint8_t *cand, unsigned int nc, uint8_t verdict, uint8_t *out,
	uint8_t *miss, unsigned int nmiss)
{
	for (unsigned int j = 0; j < nc; j++) {
		unsigned int i = cand[j];
		unsigned int d = ck_differ(load64(res + j * stride), sent[j]);

		out[i] = (uint8_t)((d - 1) & verdict);
		miss[nmiss] = (uint8_t)i;
		nmiss += d;
	}
	return nmiss;
}

/* One key over the requests @p sel[0..n) (all n when NULL). @return the
 * number of misses (in @p miss), or -EIO. */
static __rte_always_inline int
check_pass(struct tfo_cookie_ctx *c, const struct tfo_cookie_req *reqs,
	   const uint8_t *sel, unsigned int n, const struct tfo_cookie_keys *k,
	   uint8_t verdict, uint8_t *out, uint8_t *miss)
{
	unsigned int n4, n6, nc;
	int rc;

	if (c->algo == TFO_COOKIE_ALGO_AES128) {
		gather(c, reqs, sel, n, true, true, &nc, &n6);
		/* the compare gives every candidate its verdict */
		if (nc < n)
			memset(out, TFO_COOKIE_BAD, n);
		if (nc == 0)
			return 0;
		rc = aes_run(c, reqs, nc, n6, k);
		if (unlikely(rc < 0))
			return rc;
		return (int)compare(c->blk_out[0], 16, c->sent, c->cand, nc,
				    verdict, out, miss, 0);
	}
	gather(c, reqs, sel, n, true, false, &n4, &n6);
	if (n4 + n6 < n)
		memset(out, TFO_COOKIE_BAD, n);
	sip_run(c, n4, n6, k);
	return (int)compare((const uint8_t *)c->sip_h6, 8, c->sent6, c->cand6,
			    n6, verdict, out, miss,
			    compare((const uint8_t *)c->sip_h4, 8, c->sent,
				    c->cand, n4, verdict, out, miss, 0));
}

/* Argument checks common to the burst calls, then the key pick-up. */
static inline bool
burst_start(struct tfo_cookie_ctx *c, const struct tfo_cookie_req *reqs,
	    unsigned int n, const void *out)
{
	if (c == NULL || n > TFO_COOKIE_BURST_MAX ||
	    (n > 0 && (reqs == NULL || out == NULL)))
		return false;
	ctx_refresh(c);
	return true;
}

int
tfo_cookie_check_burst(struct tfo_cookie_ctx *c,
		       const struct tfo_cookie_req *reqs, unsigned int n,
		       uint8_t *out)
{
	uint8_t miss[TFO_COOKIE_BURST_MAX];
	int nmiss;

	if (unlikely(!burst_start(c, reqs, n, out)))
		return -EINVAL;
	nmiss = check_pass(c, reqs, NULL, n, &c->key[0], TFO_COOKIE_OK_PRIMARY,
			   out, miss);
	/* the backup key only for the misses: rare unless under attack */
	if (nmiss > 0 && c->has_backup)
		nmiss = check_pass(c, reqs, miss, (unsigned int)nmiss,
				   &c->key[1], TFO_COOKIE_OK_BACKUP, out, miss);
	if (unlikely(nmiss < 0)) {
		memset(out, TFO_COOKIE_BAD, n);
		TFO_LOG_RATELIMIT(ERR, "ipsec-mb ECB job failed: cookies "
				  "rejected");
		return nmiss;
	}
	return 0;
}

int
tfo_cookie_gen_burst(struct tfo_cookie_ctx *c,
		     const struct tfo_cookie_req *reqs, unsigned int n,
		     uint8_t (*out)[TFO_COOKIE_LEN])
{
	unsigned int n4, n6, nc, j;
	int rc = 0;

	if (unlikely(!burst_start(c, reqs, n, out)))
		return -EINVAL;
	if (c->algo == TFO_COOKIE_ALGO_AES128) {
		gather(c, reqs, NULL, n, false, true, &nc, &n6);
		if (nc != n)
			return -EINVAL;
		if (n > 0)
			rc = aes_run(c, reqs, n, n6, &c->key[0]);
		if (unlikely(rc < 0)) {
			TFO_LOG_RATELIMIT(ERR, "ipsec-mb ECB job failed: no "
					  "cookies");
			return rc;
		}
		for (j = 0; j < n; j++)
			memcpy(out[c->cand[j]], c->blk_out[j], TFO_COOKIE_LEN);
		return 0;
	}
	gather(c, reqs, NULL, n, false, false, &n4, &n6);
	if (n4 + n6 != n)
		return -EINVAL;
	sip_run(c, n4, n6, &c->key[0]);
	for (j = 0; j < n4; j++)
		memcpy(out[c->cand[j]], &c->sip_h4[j], TFO_COOKIE_LEN);
	for (j = 0; j < n6; j++)
		memcpy(out[c->cand6[j]], &c->sip_h6[j], TFO_COOKIE_LEN);
	return 0;
}

/* ---- one at a time ----------------------------------------------------------- */

/* The cookie of one request under expanded key @p k, without ipsec-mb. */
static uint64_t
cookie_one(enum tfo_cookie_algo algo, const struct tfo_cookie_keys *k,
	   int family, const struct tfo_addr *client,
	   const struct tfo_addr *server)
{
	uint8_t blk[16] __rte_aligned(16);

	if (algo == TFO_COOKIE_ALGO_SIPHASH_LINUX) {
		uint8_t msg[32];

		if (family == AF_INET) {
			memcpy(msg, client->b, 4);
			memcpy(msg + 4, server->b, 4);
			return rte_cpu_to_le_64(tfo_siphash(&k->sip, msg, 8));
		}
		memcpy(msg, client->b, 16);
		memcpy(msg + 16, server->b, 16);
		return rte_cpu_to_le_64(tfo_siphash(&k->sip, msg, 32));
	}
	if (family == AF_INET) {
		struct tfo_cookie_req r = { .client = client, .server = server };

		store128(blk, v4_word(&r), 0);
		tfo_aes128_encrypt(&k->rk, blk, blk);
	} else {
		tfo_aes128_encrypt(&k->rk, client->b, blk);
		xor16(blk, blk, server->b);
		tfo_aes128_encrypt(&k->rk, blk, blk);
	}
	return load64(blk);
}

int
tfo_cookie_check_one(struct tfo_cookie_ctx *c, const struct tfo_cookie_req *r)
{
	uint64_t sent;

	if (r->cookie_len != TFO_COOKIE_LEN ||
	    (r->family != AF_INET && r->family != AF_INET6))
		return TFO_COOKIE_BAD;
	ctx_refresh(c);
	sent = load64(r->cookie);
	if (!ck_differ(cookie_one(c->algo, &c->key[0], r->family, r->client,
				  r->server), sent))
		return TFO_COOKIE_OK_PRIMARY;
	if (c->has_backup &&
	    !ck_differ(cookie_one(c->algo, &c->key[1], r->family, r->client,
				  r->server), sent))
		return TFO_COOKIE_OK_BACKUP;
	return TFO_COOKIE_BAD;
}

int
tfo_cookie_compute(enum tfo_cookie_algo algo, const struct tfo_key *k,
		   int family, const struct tfo_addr *client,
		   const struct tfo_addr *server, uint8_t out[TFO_COOKIE_LEN])
{
	struct tfo_cookie_keys ek;
	uint64_t v;

	if (family != AF_INET && family != AF_INET6)
		return -EINVAL;
	if (algo == TFO_COOKIE_ALGO_AES128) {
		if (!tfo_aes128_supported())
			return -ENOTSUP;
		tfo_aes128_expand(&ek.rk, k->b);
	} else if (algo == TFO_COOKIE_ALGO_SIPHASH_LINUX) {
		tfo_siphash_init(&ek.sip, k->b);
	} else {
		return -EINVAL;
	}
	v = cookie_one(algo, &ek, family, client, server);
	memcpy(out, &v, TFO_COOKIE_LEN);
	explicit_bzero(&ek, sizeof(ek));
	return 0;
}
