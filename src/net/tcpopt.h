/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TCP option codec (RFC 9293, 7323, 2018, 7413, 6994).
 *
 * Parses the options of a segment in one bounded pass and writes the
 * options of the segments we send (SYN-ACK with MSS, SACK-permitted,
 * timestamps, window scale and a TFO cookie; timestamps on the rest).
 */
#ifndef TFO_TCPOPT_H
#define TFO_TCPOPT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

#include "ops/config.h"	/* TFO_WSCALE_MAX */

#ifdef __cplusplus
extern "C" {
#endif

#define TFO_TCPOPT_MAX_LEN 40	/**< options never exceed 40 bytes */
#define TFO_WSCALE_NONE 0xf	/**< "no window scale" (SYN-cookie encoding) */
#define TFO_COOKIE_MIN 4
#define TFO_COOKIE_MAX 16
#define TFO_COOKIE_LEN 8	/**< length of the cookies we issue */

#define TFO_OPT_EOL 0
#define TFO_OPT_NOP 1
#define TFO_OPT_MSS 2
#define TFO_OPT_WSCALE 3
#define TFO_OPT_SACK_PERM 4
#define TFO_OPT_SACK 5
#define TFO_OPT_TS 8
#define TFO_OPTLEN_TS 10	/**< a timestamp option's length byte */
#define TFO_OPT_FASTOPEN 34
#define TFO_OPT_EXP 254
#define TFO_OPT_EXP_MAGIC_TFO 0xF989

/** Which TFO option form a segment used (answer in the same one). */
enum tfo_opt_form {
	TFO_FORM_NONE = 0,	/**< no TFO option */
	TFO_FORM_RFC = 1,	/**< kind 34 */
	TFO_FORM_EXP = 2,	/**< kind 254, magic 0xF989 */
};

/** State of the TFO option in a segment. */
enum tfo_opt_cookie {
	TFO_COOKIE_ABSENT = 0,	/**< no TFO option */
	TFO_COOKIE_REQUEST,	/**< TFO option with no cookie (length 2 / 4) */
	TFO_COOKIE_PRESENT,	/**< a cookie of valid length: cookie/cookie_len */
	TFO_COOKIE_INVALID,	/**< TFO option with a cookie of bad length */
};

/** Parsed options. Only fields whose *_ok / has_* flag is set are valid. */
struct tfo_tcpopts {
	uint16_t mss;		/**< valid if has_mss */
	uint8_t wscale;		/**< valid if has_wscale; clamped to 14 */
	uint8_t has_mss : 1;
	uint8_t has_wscale : 1;
	uint8_t sack_ok : 1;
	uint8_t has_ts : 1;
	uint8_t malformed : 1;	/**< an option was bad; see tfo_tcpopt_parse */
	uint8_t form;		/**< enum tfo_opt_form */
	uint8_t cookie_state;	/**< enum tfo_opt_cookie */
	uint8_t cookie_len;	/**< valid when cookie_state is PRESENT/INVALID */
	uint32_t tsval;
	uint32_t tsecr;
	uint8_t cookie[TFO_COOKIE_MAX];
};

/**
 * Parse @p len bytes of options at @p opts (the bytes after the fixed
 * 20-byte TCP header; len = data offset * 4 - 20, at most 40).
 *
 * One pass, never reads outside [opts, opts+len), always terminates. A
 * malformed option (length 0 or 1, length running past @p len, wrong fixed
 * length for MSS/WS/SACK-permitted/TS) sets o->malformed and stops the parse
 * at that option, keeping what was parsed before it. A TFO option whose
 * cookie length is odd or outside 4..16 sets cookie_state INVALID (not
 * malformed). Kind 254 with another magic (or too short for one) is
 * ignored. If both forms appear, the first one wins. As in Linux, an MSS
 * of 0 leaves has_mss clear and a later duplicate option overrides an
 * earlier one. EOL ends the list. @p len over 40 is malformed (nothing is
 * read).
 *
 * @return 0 if well formed, -EINVAL if o->malformed.
 */
int tfo_tcpopt_parse(const uint8_t *opts, unsigned int len,
		     struct tfo_tcpopts *o);

/**
 * tfo_tcpopt_parse() without its fast path for Linux's layouts: the
 * reference it must agree with, field by field (for tests).
 */
int tfo_tcpopt_parse_generic(const uint8_t *opts, unsigned int len,
			     struct tfo_tcpopts *o);

/** What to put in a SYN-ACK's options. */
struct tfo_synack_opts {
	uint16_t mss;
	uint8_t wscale;		/**< ours, used only if the peer sent WS */
	bool peer_wscale;	/**< peer sent window scale */
	bool sack_ok;		/**< echo SACK-permitted (peer sent it and we allow) */
	bool ts;		/**< peer sent timestamps */
	uint32_t tsval;
	uint32_t tsecr;		/**< the peer's TSval, echoed exactly */
	uint8_t form;		/**< enum tfo_opt_form; NONE = no TFO option */
	uint8_t cookie_len;	/**< 0 = no cookie (then form must be NONE) */
	const uint8_t *cookie;
};

/**
 * Write a SYN-ACK's options into @p out (at least TFO_TCPOPT_MAX_LEN
 * bytes) in Linux's layout (MSS; SACK-permitted folded into the timestamp
 * word, or NOP,NOP,SACK-permitted; NOP,WS; TFO last, NOP padded), so that
 * the common fields sit 4-byte aligned. If everything does not fit in 40
 * bytes, SACK-permitted is dropped first, then the cookie (with the limits
 * below everything always fits: at most 4 + 12 + 4 + 20 bytes). No TFO
 * option is written unless form is RFC/EXP, cookie is set and cookie_len
 * is 1..16; wscale is clamped to 14.
 *
 * @return the options length (a multiple of 4).
 */
unsigned int tfo_tcpopt_write_synack(uint8_t *out,
				     const struct tfo_synack_opts *s);

#define TFO_OPTLEN_MSS 4
#define TFO_OPTLEN_WSCALE 3
#define TFO_OPTLEN_SACK_PERM 2
#define TFO_SYNACK_COMMON_LEN 20	/**< tfo_tcpopt_write_synack_common's */

/**
 * The SYN-ACK options of what every modern client asks for (Linux,
 * Windows, macOS: MSS, SACK-permitted, timestamps and window scale) and
 * no TFO option, into @p out in tfo_tcpopt_write_synack's layout: five
 * big-endian words, 20 bytes, one store. That function's own common case;
 * inline for the SYN-ACK sender, which skips the option struct and the
 * call. @p wscale is clamped to 14. @return 20.
 */
static inline unsigned int
tfo_tcpopt_write_synack_common(uint8_t *out, uint16_t mss, uint8_t wscale,
			       uint32_t tsval, uint32_t tsecr)
{
	const uint32_t w[5] = {
		rte_cpu_to_be_32((uint32_t)TFO_OPT_MSS << 24 |
				 TFO_OPTLEN_MSS << 16 | mss),
		rte_cpu_to_be_32((uint32_t)TFO_OPT_SACK_PERM << 24 |
				 TFO_OPTLEN_SACK_PERM << 16 |
				 TFO_OPT_TS << 8 | TFO_OPTLEN_TS),
		rte_cpu_to_be_32(tsval),
		rte_cpu_to_be_32(tsecr),
		rte_cpu_to_be_32((uint32_t)TFO_OPT_NOP << 24 |
				 TFO_OPT_WSCALE << 16 | TFO_OPTLEN_WSCALE << 8 |
				 (wscale > TFO_WSCALE_MAX ? TFO_WSCALE_MAX : wscale)),
	};

	memcpy(out, w, sizeof(w));
	return sizeof(w);
}

/** SACK blocks one option can carry (RFC 2018: 4, 3 beside timestamps). */
#define TFO_SACK_BLOCKS_MAX 4

/**
 * Find the SACK option (kind 5) in @p len bytes of a segment's options
 * and copy its blocks, host order, into @p left / @p right (at least
 * TFO_SACK_BLOCKS_MAX each). Never reads outside [opts, opts+len); stops at
 * EOL or a malformed length; a SACK option whose length is not 2 + 8n
 * (n = 1..4) is ignored. The blocks are the peer's word: the caller
 * validates them against its sequence space.
 *
 * @return the number of blocks (0 when there is no valid SACK option).
 */
unsigned int tfo_tcpopt_sack_blocks(const uint8_t *opts, unsigned int len,
				    uint32_t *left, uint32_t *right);

/**
 * Write NOP,NOP,TS (12 bytes) into @p out. @return 12. Every segment of a
 * connection with timestamps carries this: three 32-bit stores, not
 * twelve byte stores, and inline (a call cost more than the stores).
 */
static inline unsigned int
tfo_tcpopt_write_ts(uint8_t *out, uint32_t tsval, uint32_t tsecr)
{
	const uint32_t w[3] = {
		rte_cpu_to_be_32((uint32_t)TFO_OPT_NOP << 24 | TFO_OPT_NOP << 16 |
				 TFO_OPT_TS << 8 | TFO_OPTLEN_TS),
		rte_cpu_to_be_32(tsval),
		rte_cpu_to_be_32(tsecr),
	};

	memcpy(out, w, sizeof(w));
	return sizeof(w);
}

#ifdef __cplusplus
}
#endif

#endif /* TFO_TCPOPT_H */
