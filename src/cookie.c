/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TFO cookies (RFC 7413 section 4.1): keys, key ring,
 * per-lcore batched checker.
 *
 * aes128 is the cookie of Linux 3.7-5.1, siphash-linux that of Linux 5.2+,
 * both from the same 16 key bytes (the tcp_fastopen_key words stored
 * little-endian). A burst is checked with one ipsec-mb ECB job per key and
 * CBC-MAC step, or with SipHash in SIMD lanes.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <emmintrin.h>

#include <intel-ipsec-mb.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_spinlock.h>

#include "tfo/cookie.h"
#include "tfo/log.h"

#include "aes128.h"
#include "siphash.h"

/* ---- keys ---------------------------------------------------------------- */

int
tfo_cookie_algo_parse(const char *s, enum tfo_cookie_algo *algo)
{
	if (strcmp(s, "aes128") == 0)
		*algo = TFO_COOKIE_ALGO_AES128;
	else if (strcmp(s, "siphash-linux") == 0)
		*algo = TFO_COOKIE_ALGO_SIPHASH_LINUX;
	else
		return -EINVAL;
	return 0;
}

const char *
tfo_cookie_algo_name(enum tfo_cookie_algo algo)
{
	switch (algo) {
	case TFO_COOKIE_ALGO_AES128:
		return "aes128";
	case TFO_COOKIE_ALGO_SIPHASH_LINUX:
		return "siphash-linux";
	}
	return "?";
}

static int
hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* One key "w-w-w-w" at *pp; advances *pp past it. */
static int
parse_one_key(const char **pp, struct tfo_key *k)
{
	const char *p = *pp;

	for (int g = 0; g < 4; g++) {
		uint32_t w = 0;
		int digits = 0, v;

		if (g > 0 && *p++ != '-')
			return -EINVAL;
		while ((v = hexval((unsigned char)*p)) >= 0) {
			if (++digits > 8)
				return -EINVAL;
			w = (w << 4) | (uint32_t)v;
			p++;
		}
		if (digits == 0)
			return -EINVAL;
		/* Linux: key[i] = cpu_to_le32(user_key[i]) */
		k->b[4 * g + 0] = (uint8_t)w;
		k->b[4 * g + 1] = (uint8_t)(w >> 8);
		k->b[4 * g + 2] = (uint8_t)(w >> 16);
		k->b[4 * g + 3] = (uint8_t)(w >> 24);
	}
	*pp = p;
	return 0;
}

static const char *
skip_space(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

int
tfo_key_parse(const char *text, struct tfo_key *primary,
	      struct tfo_key *backup, bool *has_backup)
{
	struct tfo_key k[2];
	bool two = false;
	const char *p = skip_space(text);

	if (parse_one_key(&p, &k[0]) < 0)
		return -EINVAL;
	p = skip_space(p);
	if (*p == ',') {
		p = skip_space(p + 1);
		if (parse_one_key(&p, &k[1]) < 0)
			goto bad;
		two = true;
		p = skip_space(p);
	}
	if (*p != '\0')
		goto bad;
	*primary = k[0];
	if (two && backup != NULL)
		*backup = k[1];
	if (has_backup != NULL)
		*has_backup = two;
	explicit_bzero(k, sizeof(k));
	return 0;
bad:
	explicit_bzero(k, sizeof(k));
	return -EINVAL;
}

static uint32_t
key_word(const struct tfo_key *k, int g)
{
	return (uint32_t)k->b[4 * g] | ((uint32_t)k->b[4 * g + 1] << 8) |
	       ((uint32_t)k->b[4 * g + 2] << 16) |
	       ((uint32_t)k->b[4 * g + 3] << 24);
}

void
tfo_key_format(const struct tfo_key *k, char *buf, size_t len)
{
	if (len < 36) {
		if (len > 0)
			buf[0] = '\0';
		return;
	}
	snprintf(buf, len, "%08x-%08x-%08x-%08x", key_word(k, 0),
		 key_word(k, 1), key_word(k, 2), key_word(k, 3));
}

int
tfo_key_generate(struct tfo_key *k)
{
	size_t got = 0;

	while (got < sizeof(k->b)) {
		ssize_t r = getrandom(k->b + got, sizeof(k->b) - got, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)r;
	}
	return 0;
}

void
tfo_key_fingerprint(const struct tfo_key *k, char out[17])
{
	/* 28 bytes: never the length of a siphash-linux cookie input */
	static const char label[28] = "tfo-fastpath key fingerprnt";
	struct tfo_siphash_key sk;
	uint64_t h;

	tfo_siphash_init(&sk, k->b);
	h = tfo_siphash(&sk, label, sizeof(label));
	explicit_bzero(&sk, sizeof(sk));
	snprintf(out, 17, "%016" PRIx64, h);
}

/* ---- key ring -------------------------------------------------------------- */

/* What readers copy: both keys and the backup flag, as whole words so that
 * the copy is made of (relaxed) atomic loads. */
union tfo_keyset {
	struct {
		struct tfo_key k[2];
		uint64_t has_backup;
	} s;
	uint64_t w[5];
};

struct tfo_keyring {
	/* even: stable; odd: a writer is in the middle. generation = seq/2 */
	uint64_t seq;
	union tfo_keyset set;
	enum tfo_cookie_algo algo;
	rte_spinlock_t wlock;	/* writers only */
} __rte_cache_aligned;

/*
 * How long a worker waits for a writer caught mid-update (it writes 40
 * bytes; only a preempted writer takes longer). Then the worker keeps its
 * keys for this burst and looks again at the next one.
 */
#define TFO_KEYRING_READ_TRIES_HOT 16

/*
 * Copy a consistent key set, trying at most @p tries times.
 * @return 0, or -EAGAIN if a writer stayed in the middle of an update.
 */
static int
keyring_read(const struct tfo_keyring *kr, union tfo_keyset *out,
	     uint64_t *seq_out, unsigned int tries)
{
	for (unsigned int t = 0; t < tries; t++) {
		uint64_t s1 = __atomic_load_n(&kr->seq, __ATOMIC_ACQUIRE);

		if (s1 & 1) {
			rte_pause();
			continue;
		}
		for (unsigned int i = 0; i < RTE_DIM(out->w); i++)
			out->w[i] = __atomic_load_n(&kr->set.w[i],
						    __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&kr->seq, __ATOMIC_RELAXED) == s1) {
			*seq_out = s1;
			return 0;
		}
	}
	return -EAGAIN;
}

static void
keyring_write(struct tfo_keyring *kr, const union tfo_keyset *in)
{
	uint64_t s = kr->seq;

	__atomic_store_n(&kr->seq, s + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (unsigned int i = 0; i < RTE_DIM(in->w); i++)
		__atomic_store_n(&kr->set.w[i], in->w[i], __ATOMIC_RELAXED);
	__atomic_store_n(&kr->seq, s + 2, __ATOMIC_RELEASE);
}

static void
keyring_log(const struct tfo_keyring *kr, const union tfo_keyset *ks,
	    uint64_t gen)
{
	char fp[2][17];

	tfo_key_fingerprint(&ks->s.k[0], fp[0]);
	if (ks->s.has_backup)
		tfo_key_fingerprint(&ks->s.k[1], fp[1]);
	TFO_LOG(INFO, "cookie keys (%s) generation %" PRIu64
		": primary %s, backup %s", tfo_cookie_algo_name(kr->algo), gen,
		fp[0], ks->s.has_backup ? fp[1] : "none");
}

/* Install @p ks and log it (outside the writer lock). */
static void
keyring_install(struct tfo_keyring *kr, union tfo_keyset *ks, bool rotate)
{
	uint64_t gen;

	rte_spinlock_lock(&kr->wlock);
	/* the writer lock makes this read of the old primary stable */
	if (rotate)
		ks->s.k[1] = kr->set.s.k[0];
	keyring_write(kr, ks);
	gen = kr->seq / 2;
	rte_spinlock_unlock(&kr->wlock);
	keyring_log(kr, ks, gen);
	explicit_bzero(ks, sizeof(*ks));
}

struct tfo_keyring *
tfo_keyring_create(enum tfo_cookie_algo algo, const struct tfo_key *primary,
		   const struct tfo_key *backup, int socket_id)
{
	struct tfo_keyring *kr;
	union tfo_keyset ks;
	int rc;

	if (algo != TFO_COOKIE_ALGO_AES128 &&
	    algo != TFO_COOKIE_ALGO_SIPHASH_LINUX) {
		rte_errno = EINVAL;
		return NULL;
	}
	memset(&ks, 0, sizeof(ks));
	if (primary != NULL) {
		ks.s.k[0] = *primary;
	} else if ((rc = tfo_key_generate(&ks.s.k[0])) < 0) {
		TFO_LOG(ERR, "cannot generate a cookie key: %s", strerror(-rc));
		rte_errno = -rc;
		return NULL;
	}
	if (backup != NULL) {
		ks.s.k[1] = *backup;
		ks.s.has_backup = 1;
	}
	kr = rte_zmalloc_socket("tfo_keyring", sizeof(*kr), RTE_CACHE_LINE_SIZE,
				socket_id);
	if (kr == NULL) {
		explicit_bzero(&ks, sizeof(ks));
		TFO_LOG(ERR, "no memory for the cookie key ring on socket %d",
			socket_id);
		rte_errno = ENOMEM;
		return NULL;
	}
	kr->algo = algo;
	rte_spinlock_init(&kr->wlock);
	kr->seq = 0;
	keyring_install(kr, &ks, false);	/* seq 2: generation 1 */
	return kr;
}

void
tfo_keyring_free(struct tfo_keyring *kr)
{
	if (kr == NULL)
		return;
	explicit_bzero(kr, sizeof(*kr));
	rte_free(kr);
}

enum tfo_cookie_algo
tfo_keyring_algo(const struct tfo_keyring *kr)
{
	return kr->algo;
}

int
tfo_keyring_set(struct tfo_keyring *kr, const struct tfo_key *primary,
		const struct tfo_key *backup)
{
	union tfo_keyset ks;

	if (kr == NULL || primary == NULL)
		return -EINVAL;
	memset(&ks, 0, sizeof(ks));
	ks.s.k[0] = *primary;
	if (backup != NULL) {
		ks.s.k[1] = *backup;
		ks.s.has_backup = 1;
	}
	keyring_install(kr, &ks, false);
	return 0;
}

int
tfo_keyring_rotate(struct tfo_keyring *kr, const struct tfo_key *next)
{
	union tfo_keyset ks;
	int rc;

	if (kr == NULL)
		return -EINVAL;
	memset(&ks, 0, sizeof(ks));
	if (next != NULL)
		ks.s.k[0] = *next;
	else if ((rc = tfo_key_generate(&ks.s.k[0])) < 0)
		return rc;
	ks.s.has_backup = 1;
	keyring_install(kr, &ks, true);
	return 0;
}

/*
 * Read and parse a key file into @p k (@p two: a backup key follows).
 * @return 0, or a negative errno with the reason in @p err (short, without
 * the path; never the file's text: it may be a key with a typo).
 */
static int
keyfile_read(const char *path, struct tfo_key k[2], bool *two, char *err,
	     size_t errlen)
{
	char buf[256];
	struct stat st;
	ssize_t n;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s", strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) == 0 && (st.st_mode & S_IROTH))
		TFO_LOG(WARNING, "cookie key file %s is readable by everyone: "
			"anyone who reads it can forge TFO cookies", path);
	n = read(fd, buf, sizeof(buf) - 1);
	rc = n < 0 ? -errno : 0;
	/* a key file is one line; more is not a key file */
	if (n == (ssize_t)sizeof(buf) - 1)
		rc = -EFBIG;
	close(fd);
	if (rc < 0) {
		snprintf(err, errlen, "%s", strerror(-rc));
		explicit_bzero(buf, sizeof(buf));
		return rc;
	}
	buf[n] = '\0';
	rc = tfo_key_parse(buf, &k[0], &k[1], two);
	explicit_bzero(buf, sizeof(buf));
	if (rc < 0)
		snprintf(err, errlen, "not in tcp_fastopen_key format "
			 "(xxxxxxxx-xxxxxxxx-xxxxxxxx-xxxxxxxx[,backup])");
	return rc;
}

int
tfo_keyring_load_file(struct tfo_keyring *kr, const char *path)
{
	struct tfo_key k[2];
	char err[128];
	bool two;
	int rc;

	rc = keyfile_read(path, k, &two, err, sizeof(err));
	if (rc < 0) {
		TFO_LOG(ERR, "cookie key file %s: %s", path, err);
		return rc;
	}
	rc = tfo_keyring_set(kr, &k[0], two ? &k[1] : NULL);
	explicit_bzero(k, sizeof(k));
	return rc;
}

int
tfo_keyring_reload_file(struct tfo_keyring *kr, const char *path, char *err,
			size_t errlen)
{
	struct tfo_key k[2];
	union tfo_keyset ks;
	bool two, changed;
	uint64_t gen;
	int rc;

	if (kr == NULL || path == NULL) {
		snprintf(err, errlen, "no key ring or no key file");
		return -EINVAL;
	}
	rc = keyfile_read(path, k, &two, err, errlen);
	if (rc < 0) {
		TFO_LOG(ERR, "cookie key file %s: %s; the running keys stay", path, err);
		return rc;
	}
	memset(&ks, 0, sizeof(ks));
	ks.s.k[0] = k[0];
	ks.s.k[1] = k[1];
	ks.s.has_backup = two;
	explicit_bzero(k, sizeof(k));

	rte_spinlock_lock(&kr->wlock);
	/* one key: promote it (the old primary keeps validating as backup) */
	if (!two && memcmp(&ks.s.k[0], &kr->set.s.k[0], sizeof(ks.s.k[0])) != 0) {
		ks.s.k[1] = kr->set.s.k[0];
		ks.s.has_backup = 1;
	} else if (!two) {
		ks.s.k[1] = kr->set.s.k[1];
		ks.s.has_backup = kr->set.s.has_backup;
	}
	changed = memcmp(&ks, &kr->set, sizeof(ks)) != 0;
	if (changed)
		keyring_write(kr, &ks);
	gen = kr->seq / 2;
	rte_spinlock_unlock(&kr->wlock);
	if (changed)
		keyring_log(kr, &ks, gen);
	explicit_bzero(&ks, sizeof(ks));
	snprintf(err, errlen, "%s", changed ? "keys changed" : "keys unchanged");
	return changed ? 1 : 0;
}

void
tfo_keyring_fingerprints(const struct tfo_keyring *kr, char primary[17],
			 char backup[17])
{
	union tfo_keyset ks;
	uint64_t seq;

	/* not a hot path: wait out a writer however long it takes */
	while (keyring_read(kr, &ks, &seq, UINT_MAX) < 0)
		;
	tfo_key_fingerprint(&ks.s.k[0], primary);
	if (ks.s.has_backup)
		tfo_key_fingerprint(&ks.s.k[1], backup);
	else
		backup[0] = '\0';
	explicit_bzero(&ks, sizeof(ks));
}

uint64_t
tfo_keyring_generation(const struct tfo_keyring *kr)
{
	return __atomic_load_n(&kr->seq, __ATOMIC_ACQUIRE) / 2;
}

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
	if (keyring_read(c->kr, &ks, &seq, TFO_KEYRING_READ_TRIES_HOT) < 0)
		return;		/* writer preempted mid-update: old keys */
	keys_expand(c, &c->key[0], &ks.s.k[0]);
	c->has_backup = ks.s.has_backup != 0;
	if (c->has_backup)
		keys_expand(c, &c->key[1], &ks.s.k[1]);
	c->seq = seq;
	explicit_bzero(&ks, sizeof(ks));
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
	while (keyring_read(kr, &ks, &c->seq, UINT_MAX) < 0)
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
 * aes128, in one loop over the requests @p sel[0..n) (0..n-1 when NULL):
 * pick the candidates, write their first blocks (IPv4 block, or the first
 * CBC-MAC block of IPv6) and, when checking, the cookies they sent.
 * @return the number of candidates; *n6 of them are IPv6.
 */
static __rte_always_inline unsigned int
aes_gather(struct tfo_cookie_ctx *c, const struct tfo_cookie_req *reqs,
	   const uint8_t *sel, unsigned int n, bool check, unsigned int *n6)
{
	unsigned int j = 0, k = 0;

	for (unsigned int t = 0; t < n; t++) {
		unsigned int i = sel != NULL ? sel[t] : t;
		const struct tfo_cookie_req *r = &reqs[i];

		if (unlikely(!usable(r, check)))
			continue;
		if (likely(r->family == AF_INET)) {
			store128(c->blk_in[j], v4_word(r), 0);
		} else {
			memcpy(c->blk_in[j], r->client->b, 16);
			c->v6pos[k++] = (uint8_t)j;
		}
		if (check)
			c->sent[j] = load64(r->cookie);
		c->cand[j++] = (uint8_t)i;
	}
	*n6 = k;
	return j;
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

/* siphash-linux: the same gathering, into the IPv4 and the IPv6 lanes. */
static __rte_always_inline void
sip_gather(struct tfo_cookie_ctx *c, const struct tfo_cookie_req *reqs,
	   const uint8_t *sel, unsigned int n, bool check, unsigned int *n4,
	   unsigned int *n6)
{
	unsigned int a = 0, b = 0;

	for (unsigned int t = 0; t < n; t++) {
		unsigned int i = sel != NULL ? sel[t] : t;
		const struct tfo_cookie_req *r = &reqs[i];

		if (unlikely(!usable(r, check)))
			continue;
		if (likely(r->family == AF_INET)) {
			c->sip_m4[a] = v4_word(r);
			if (check)
				c->sent[a] = load64(r->cookie);
			c->cand[a++] = (uint8_t)i;
		} else {
			c->sip_m6[0 * SIP_STRIDE + b] = load64(r->client->b);
			c->sip_m6[1 * SIP_STRIDE + b] = load64(r->client->b + 8);
			c->sip_m6[2 * SIP_STRIDE + b] = load64(r->server->b);
			c->sip_m6[3 * SIP_STRIDE + b] = load64(r->server->b + 8);
			if (check)
				c->sent6[b] = load64(r->cookie);
			c->cand6[b++] = (uint8_t)i;
		}
	}
	*n4 = a;
	*n6 = b;
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
		nc = aes_gather(c, reqs, sel, n, true, &n6);
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
	sip_gather(c, reqs, sel, n, true, &n4, &n6);
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
	unsigned int n4, n6, j;
	int rc = 0;

	if (unlikely(!burst_start(c, reqs, n, out)))
		return -EINVAL;
	if (c->algo == TFO_COOKIE_ALGO_AES128) {
		if (aes_gather(c, reqs, NULL, n, false, &n6) != n)
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
	sip_gather(c, reqs, NULL, n, false, &n4, &n6);
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
