/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the cookie key ring: rotate, set, load, and
 * rotation under load.
 */
#include "cookie_harness.h"

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
