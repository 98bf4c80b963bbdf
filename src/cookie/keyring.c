/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TFO cookie keys and the key ring (cookie/keyring.h): parsing
 * and formatting Linux's tcp_fastopen_key text, generation, fingerprints,
 * the primary + backup ring its writers install, rotate and reload (key
 * files), read by the lcores' checkers through a sequence counter.
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

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>

#include "cookie/keyring.h"
#include "ops/file.h"
#include "tfo/log.h"

#include "cookie/keyring_impl.h"
#include "cookie/siphash.h"

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
keyfile_read(const char *path, struct tfo_key k[2], bool *two, bool warn,
	     char *err, size_t errlen)
{
	char buf[256];
	struct stat st;
	ssize_t n;
	int fd, rc;

	fd = tfo_open_regular(path, err, errlen);
	if (fd < 0)
		return fd;
	if (warn && fstat(fd, &st) == 0 && (st.st_mode & S_IROTH))
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
	rc = tfo_key_parse(tfo_skip_bom(buf), &k[0], &k[1], two);
	explicit_bzero(buf, sizeof(buf));
	if (rc < 0)
		snprintf(err, errlen, "not in tcp_fastopen_key format "
			 "(xxxxxxxx-xxxxxxxx-xxxxxxxx-xxxxxxxx[,backup])");
	return rc;
}

int
tfo_keyfile_check(const char *path, char *err, size_t errlen)
{
	struct tfo_key k[2];
	bool two;
	int rc;

	rc = keyfile_read(path, k, &two, false, err, errlen);
	explicit_bzero(k, sizeof(k));
	return rc;
}

int
tfo_keyring_load_file(struct tfo_keyring *kr, const char *path)
{
	struct tfo_key k[2];
	char err[128];
	bool two;
	int rc;

	rc = keyfile_read(path, k, &two, true, err, sizeof(err));
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
	rc = keyfile_read(path, k, &two, true, err, errlen);
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
	while (tfo_keyring_read(kr, &ks, &seq, UINT_MAX) < 0)
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
