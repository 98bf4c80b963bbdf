/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TFO cookie keys and the key ring.
 *
 * A key ring holds a primary + backup AES-128-sized key (Linux's
 * tcp_fastopen_key format), shared by all lcores and replaced only by its
 * writers (the control core, at start, on rotation or reload). The
 * lcores read it through their cookie checkers (cookie/cookie.h), which pick
 * a change up at their next burst.
 *
 * Keys never leave the library except as fingerprints.
 */
#ifndef TFO_KEYRING_H
#define TFO_KEYRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tfo_cookie_algo {
	TFO_COOKIE_ALGO_AES128 = 0,	/**< Linux 3.7-5.1, AES-128 (default) */
	TFO_COOKIE_ALGO_SIPHASH_LINUX,	/**< Linux 5.2+, SipHash-2-4 */
};

/** "aes128" / "siphash-linux"; -EINVAL for anything else. */
int tfo_cookie_algo_parse(const char *s, enum tfo_cookie_algo *algo);
const char *tfo_cookie_algo_name(enum tfo_cookie_algo algo);

/** A raw key: the 16 bytes Linux stores for one tcp_fastopen_key. */
struct tfo_key {
	uint8_t b[16];
};

/**
 * Parse Linux's key text: "xxxxxxxx-xxxxxxxx-xxxxxxxx-xxxxxxxx" (32 hex
 * digits in four groups), optionally ",<backup in the same form>",
 * surrounding white space ignored. Each group is a 32-bit word stored
 * little-endian, as Linux does. Like Linux (which reads a group with %x),
 * a group may have 1 to 8 hex digits, either case; nothing else is accepted
 * (no "0x", no sign, no third key).
 *
 * @return 0, or -EINVAL (nothing written to the outputs).
 */
int tfo_key_parse(const char *text, struct tfo_key *primary,
		  struct tfo_key *backup, bool *has_backup);

/**
 * Format @p k in the key-file form ("%08x-%08x-%08x-%08x", as Linux prints
 * it) into @p buf (at least 36 bytes; a shorter buffer gets "").
 */
void tfo_key_format(const struct tfo_key *k, char *buf, size_t len);

/** A fresh random key (getrandom). @return 0 or a negative errno. */
int tfo_key_generate(struct tfo_key *k);

/**
 * Short, non-reversible fingerprint of a key: 16 hex digits + NUL. It is a
 * key check value (SipHash-2-4 under the key of a fixed 28-byte string), so
 * it reveals no cookie of either algorithm; safe to log and to compare
 * across a fleet.
 */
void tfo_key_fingerprint(const struct tfo_key *k, char out[17]);

/* ---- key ring ---------------------------------------------------------- */

struct tfo_keyring;

/**
 * Create a key ring on @p socket_id. With @p primary NULL a random key is
 * generated; @p backup may be NULL (no backup key).
 * @return the ring, or NULL with rte_errno set.
 */
struct tfo_keyring *tfo_keyring_create(enum tfo_cookie_algo algo,
				       const struct tfo_key *primary,
				       const struct tfo_key *backup,
				       int socket_id);
void tfo_keyring_free(struct tfo_keyring *kr);

enum tfo_cookie_algo tfo_keyring_algo(const struct tfo_keyring *kr);

/**
 * Install @p primary (and @p backup, or none when NULL). Writer side: any
 * thread (writers are serialized by a lock that readers never take; the
 * control core and a telemetry command may both rotate). Readers on other
 * lcores pick the new keys up at their next burst and never see a
 * half-written key (sequence counter: a reader copies, then re-checks).
 * Logs the fingerprints, never the keys.
 */
int tfo_keyring_set(struct tfo_keyring *kr, const struct tfo_key *primary,
		    const struct tfo_key *backup);

/**
 * Rotate: @p next (or a fresh random key when NULL) becomes the primary,
 * the old primary becomes the backup, the old backup is retired.
 */
int tfo_keyring_rotate(struct tfo_keyring *kr, const struct tfo_key *next);

/**
 * Read and parse a key file as tfo_keyring_load_file() would, installing
 * nothing: for the configuration check before the EAL starts. @return 0,
 * or a negative errno with the reason (never key material) in @p err.
 */
int tfo_keyfile_check(const char *path, char *err, size_t errlen);

/** Read a key file (Linux format, see tfo_key_parse) and install it. A
 *  regular file only (a FIFO is refused, not waited on); a leading UTF-8
 *  byte order mark is skipped. */
int tfo_keyring_load_file(struct tfo_keyring *kr, const char *path);

/**
 * Re-read the key file of a running server (SIGHUP, /tfo/reload) so that a
 * fleet can rotate keys with files alone:
 * - "NEW,OLD" (two keys) is installed as written: NEW primary, OLD backup.
 *   "CUR,NEXT" installs NEXT as backup while CUR stays primary (step 1 of a
 *   fleet rotation: every server then accepts NEXT before any issues it).
 * - "NEW" (one key) is promoted: NEW becomes the primary and the current
 *   primary the backup, so the cookies already issued keep working; a file
 *   naming the current primary changes nothing (a repeated SIGHUP is
 *   harmless).
 * A file that cannot be read or parsed changes nothing (the running keys
 * stay) and is logged. Writers are serialized as tfo_keyring_set.
 *
 * @return 1 keys changed, 0 unchanged, or a negative errno; @p err gets one
 *   line either way (never key material).
 */
int tfo_keyring_reload_file(struct tfo_keyring *kr, const char *path,
			    char *err, size_t errlen);

/** Fingerprints of the current keys; @p backup gets "" when there is none. */
void tfo_keyring_fingerprints(const struct tfo_keyring *kr, char primary[17],
			      char backup[17]);

/** Number of key changes so far (starts at 1). */
uint64_t tfo_keyring_generation(const struct tfo_keyring *kr);

#ifdef __cplusplus
}
#endif

#endif /* TFO_KEYRING_H */
