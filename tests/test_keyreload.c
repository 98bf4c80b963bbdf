/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the key file reload of a running server
 * (tfo_keyring_reload_file): the fleet rotation order, promotion of a
 * single key, idempotence, and refusal of bad files with the keys kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_log.h>
#include <rte_memory.h>

#include "cookie/cookie.h"
#include "tfo/log.h"

#include "test.h"

static char path[64];

static void
setup(void)
{
	static int done;
	int fd;

	if (!done) {
		tfo_test_eal_init("test_keyreload", 64, NULL);
		rte_log_set_level(tfo_logtype, RTE_LOG_CRIT);	/* refused reloads log ERR */
		done = 1;
	}
	snprintf(path, sizeof(path), "/tmp/tfo_reload_XXXXXX");
	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
}

/* Write "A" or "A,B" (NULL for none) to the key file. */
static void
write_file(const struct tfo_key *a, const struct tfo_key *b)
{
	char text[100];
	FILE *f = fopen(path, "w");

	tfo_key_format(a, text, 40);
	if (b != NULL) {
		strcat(text, ",");
		tfo_key_format(b, text + strlen(text), 40);
	}
	if (f != NULL) {
		fprintf(f, "%s\n", text);
		fclose(f);
	}
}

static void
write_text(const char *text)
{
	FILE *f = fopen(path, "w");

	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

/* Primary and backup fingerprints equal those of @p p and @p b (NULL: none). */
static int
keys_are(struct tfo_keyring *kr, const struct tfo_key *p, const struct tfo_key *b)
{
	char fp[17], fb[17], wp[17], wb[17] = "";

	tfo_keyring_fingerprints(kr, fp, fb);
	tfo_key_fingerprint(p, wp);
	if (b != NULL)
		tfo_key_fingerprint(b, wb);
	return strcmp(fp, wp) == 0 && strcmp(fb, wb) == 0;
}

TFO_TEST(fleet_order_backup_then_promote)
{
	struct tfo_key k[3];
	struct tfo_keyring *kr;
	char err[128];

	setup();
	for (int i = 0; i < 3; i++)
		REQUIRE(tfo_key_generate(&k[i]) == 0);
	kr = tfo_keyring_create(TFO_COOKIE_ALGO_AES128, &k[0], NULL, SOCKET_ID_ANY);
	REQUIRE(kr != NULL);
	/* step 1: the next key as backup, the primary unchanged */
	write_file(&k[0], &k[1]);
	CHECK_EQ(tfo_keyring_reload_file(kr, path, err, sizeof(err)), 1);
	CHECK(keys_are(kr, &k[0], &k[1]));
	CHECK(strcmp(err, "keys changed") == 0);
	/* step 2: promote it */
	write_file(&k[1], &k[0]);
	CHECK_EQ(tfo_keyring_reload_file(kr, path, err, sizeof(err)), 1);
	CHECK(keys_are(kr, &k[1], &k[0]));
	CHECK_EQ(tfo_keyring_generation(kr), 3);
	/* the same file again: nothing changes, not even the generation */
	CHECK_EQ(tfo_keyring_reload_file(kr, path, err, sizeof(err)), 0);
	CHECK_EQ(tfo_keyring_generation(kr), 3);
	CHECK(strcmp(err, "keys unchanged") == 0);
	/* a two-key file is authoritative: the old backup can be retired */
	write_file(&k[1], &k[2]);
	CHECK_EQ(tfo_keyring_reload_file(kr, path, err, sizeof(err)), 1);
	CHECK(keys_are(kr, &k[1], &k[2]));
	tfo_keyring_free(kr);
	unlink(path);
}

TFO_TEST(single_key_promotes)
{
	struct tfo_key k[3];
	struct tfo_keyring *kr;
	char err[128];

	setup();
	for (int i = 0; i < 3; i++)
		REQUIRE(tfo_key_generate(&k[i]) == 0);
	kr = tfo_keyring_create(TFO_COOKIE_ALGO_SIPHASH_LINUX, &k[0], &k[2], SOCKET_ID_ANY);
	REQUIRE(kr != NULL);
	/* the current primary alone: unchanged, the backup kept */
	write_file(&k[0], NULL);
	CHECK_EQ(tfo_keyring_reload_file(kr, path, err, sizeof(err)), 0);
	CHECK(keys_are(kr, &k[0], &k[2]));
	/* a new key alone: primary, the old primary becomes the backup */
	write_file(&k[1], NULL);
	CHECK_EQ(tfo_keyring_reload_file(kr, path, err, sizeof(err)), 1);
	CHECK(keys_are(kr, &k[1], &k[0]));
	CHECK_EQ(tfo_keyring_reload_file(kr, path, err, sizeof(err)), 0);
	CHECK(keys_are(kr, &k[1], &k[0]));
	tfo_keyring_free(kr);
	unlink(path);
}

TFO_TEST(bad_files_keep_the_keys)
{
	static const char *const bad[] = {
		"", "\n", "not a key\n", "0x1-2-3-4\n", "1-2-3\n", "1-2-3-4,\n",
		"1-2-3-4,5-6-7-8,9-a-b-c\n", "123456789-2-3-4\n", "1-2-3-4 junk\n",
	};
	struct tfo_key k[2];
	struct tfo_keyring *kr;
	char err[128];
	uint64_t gen;

	setup();
	for (int i = 0; i < 2; i++)
		REQUIRE(tfo_key_generate(&k[i]) == 0);
	kr = tfo_keyring_create(TFO_COOKIE_ALGO_AES128, &k[0], &k[1], SOCKET_ID_ANY);
	REQUIRE(kr != NULL);
	gen = tfo_keyring_generation(kr);
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		write_text(bad[i]);
		err[0] = '\0';
		CHECK_EQ(tfo_keyring_reload_file(kr, path, err, sizeof(err)), -EINVAL);
		CHECK_MSG(strstr(err, "tcp_fastopen_key format") != NULL, "case %u: %s", i, err);
		CHECK(keys_are(kr, &k[0], &k[1]));
	}
	/* over one line of text is not a key file */
	{
		char big[400];

		memset(big, '1', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		write_text(big);
		CHECK_EQ(tfo_keyring_reload_file(kr, path, err, sizeof(err)), -EFBIG);
	}
	unlink(path);
	CHECK_EQ(tfo_keyring_reload_file(kr, path, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "No such file") != NULL);
	CHECK(keys_are(kr, &k[0], &k[1]));
	CHECK_EQ(tfo_keyring_generation(kr), gen);
	CHECK_EQ(tfo_keyring_reload_file(NULL, path, err, sizeof(err)), -EINVAL);
	tfo_keyring_free(kr);
}

TFO_TEST_MAIN()
