/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the table of scalar configuration keys, shared by
 * config.c (the grammar, parsing, --set) and config_keys.c (the table
 * itself, --print-config, --help-config). Private to them.
 */
#ifndef TFO_CONFIG_PRIV_H
#define TFO_CONFIG_PRIV_H

#include <stddef.h>
#include <stdint.h>

enum tfo_key_type {
	KT_U32,
	KT_U16,
	KT_U8,
	KT_BOOL,
	KT_STR,
	KT_ENUM,	/* uint8_t, the index of its value in names[] */
};

struct tfo_key_desc {
	const char *section;
	const char *key;
	enum tfo_key_type type;
	size_t off;
	size_t size;		/* KT_STR: buffer size */
	uint64_t min;
	uint64_t max;
	const char *def;
	const char *help;
	const char *const *names;	/* KT_ENUM: the values, NULL-terminated */
};

/** Every scalar key, grouped by section in the order they are printed. */
extern const struct tfo_key_desc tfo_keys[];
extern const unsigned int tfo_nb_keys;
/** [tcp] syncookies' values (by enum tfo_syncookies_mode). */
extern const char *const tfo_syncookies_names[];

/** What 0 means for an integer key whose range starts higher, or NULL. */
const char *tfo_key_zero(const struct tfo_key_desc *k);
/** The accepted values of an integer key, for messages and --help-config. */
void tfo_key_range(const struct tfo_key_desc *k, char *buf, size_t len);

#endif /* TFO_CONFIG_PRIV_H */
