/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TCP option codec (RFC 9293, 7323, 2018, 7413, 6994).
 */
#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>

#include "net/tcpopt.h"

#define TFO_OPTLEN_FASTOPEN_BASE 2	/* kind, length */
#define TFO_OPTLEN_EXP_FASTOPEN_BASE 4	/* kind, length, 16-bit magic */

static inline uint16_t
get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t
get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

static inline void
put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A TFO option's cookie: @p n bytes at @p c (@p n may be 0 = request). */
static void
parse_tfo_cookie(struct tfo_tcpopts *o, enum tfo_opt_form form,
		 const uint8_t *c, unsigned int n)
{
	/* the first TFO option of either form wins */
	if (o->form != TFO_FORM_NONE)
		return;
	o->form = form;
	if (n == 0) {
		o->cookie_state = TFO_COOKIE_REQUEST;
		return;
	}
	o->cookie_len = (uint8_t)n;
	if (n < TFO_COOKIE_MIN || n > TFO_COOKIE_MAX || (n & 1) != 0) {
		o->cookie_state = TFO_COOKIE_INVALID;
		return;
	}
	o->cookie_state = TFO_COOKIE_PRESENT;
	memcpy(o->cookie, c, n);
}

/* Over 80 lines: one bounded pass, one case per option kind, kept together. */
int
tfo_tcpopt_parse_generic(const uint8_t *opts, unsigned int len,
			 struct tfo_tcpopts *o)
{
	unsigned int i = 0;

	memset(o, 0, sizeof(*o));
	/* a data offset cannot describe more: the caller computed it wrong */
	if (len > TFO_TCPOPT_MAX_LEN) {
		o->malformed = 1;
		return -EINVAL;
	}

	/* every iteration advances i by at least 1, so this terminates */
	while (i < len) {
		const uint8_t kind = opts[i];
		const uint8_t *v;
		unsigned int olen;

		if (kind == TFO_OPT_EOL)
			break;
		if (kind == TFO_OPT_NOP) {
			i++;
			continue;
		}
		/* a length byte past the end, 0 or 1, or running past the end */
		if (i + 1 >= len)
			goto malformed;
		olen = opts[i + 1];
		if (olen < 2 || olen > len - i)
			goto malformed;
		v = &opts[i + 2];

		switch (kind) {
		case TFO_OPT_MSS:
			if (olen != TFO_OPTLEN_MSS)
				goto malformed;
			/* as Linux: an MSS of 0 is no MSS at all */
			o->mss = get_be16(v);
			o->has_mss = o->mss != 0;
			break;
		case TFO_OPT_WSCALE:
			if (olen != TFO_OPTLEN_WSCALE)
				goto malformed;
			o->wscale = v[0] > TFO_WSCALE_MAX ? TFO_WSCALE_MAX : v[0];
			o->has_wscale = 1;
			break;
		case TFO_OPT_SACK_PERM:
			if (olen != TFO_OPTLEN_SACK_PERM)
				goto malformed;
			o->sack_ok = 1;
			break;
		case TFO_OPT_TS:
			if (olen != TFO_OPTLEN_TS)
				goto malformed;
			o->tsval = get_be32(v);
			o->tsecr = get_be32(v + 4);
			o->has_ts = 1;
			break;
		case TFO_OPT_FASTOPEN:
			parse_tfo_cookie(o, TFO_FORM_RFC, v,
					 olen - TFO_OPTLEN_FASTOPEN_BASE);
			break;
		case TFO_OPT_EXP:
			/* RFC 6994: other experiments share the kind; a
			 * 254 too short for a magic is not ours either */
			if (olen >= TFO_OPTLEN_EXP_FASTOPEN_BASE &&
			    get_be16(v) == TFO_OPT_EXP_MAGIC_TFO)
				parse_tfo_cookie(o, TFO_FORM_EXP, v + 2,
					olen - TFO_OPTLEN_EXP_FASTOPEN_BASE);
			break;
		default:
			/* unknown or irrelevant in a SYN (SACK blocks, MD5...) */
			break;
		}
		i += olen;
	}
	return 0;

malformed:
	o->malformed = 1;
	return -EINVAL;
}

/* The words of Linux's layouts, as get_be32() reads them. */
#define TFO_OPTW_NOP_NOP_TS 0x0101080au	/* NOP, NOP, TS, 10 */
#define TFO_OPTW_SACK_TS 0x0402080au	/* SACK-permitted, TS, 10 */
#define TFO_OPTW_MSS 0x02040000u	/* MSS, 4, (value) */
#define TFO_OPTW_NOP_WS 0x01030300u	/* NOP, WS, 3, (shift) */
#define TFO_OPTLEN_LINUX_SYN 20		/* MSS, SACKOK+TS, NOP+WS */

/*
 * Linux's SYN: MSS, SACK-permitted folded into the timestamp word, NOP,
 * WS, then nothing or a kind-34 TFO option padded with NOPs. Any other
 * tail (or a malformed TFO option) is left to the generic parser, so
 * what this fills is what that would.
 */
static bool
tfo_tcpopt_parse_linux_syn(const uint8_t *opts, unsigned int len,
			   struct tfo_tcpopts *o)
{
	const uint8_t *t = opts + TFO_OPTLEN_LINUX_SYN;
	unsigned int tlen = len - TFO_OPTLEN_LINUX_SYN, olen = 0;

	if ((get_be32(opts) & 0xffff0000u) != TFO_OPTW_MSS ||
	    get_be32(opts + 4) != TFO_OPTW_SACK_TS ||
	    (get_be32(opts + 16) & 0xffffff00u) != TFO_OPTW_NOP_WS)
		return false;
	if (tlen > 0) {
		if (t[0] != TFO_OPT_FASTOPEN || tlen < 2)
			return false;
		olen = t[1];
		if (olen < TFO_OPTLEN_FASTOPEN_BASE || olen > tlen)
			return false;
		for (unsigned int i = olen; i < tlen; i++)
			if (t[i] != TFO_OPT_NOP)
				return false;
	}

	memset(o, 0, sizeof(*o));
	o->mss = get_be16(opts + 2);
	o->has_mss = o->mss != 0;
	o->sack_ok = 1;
	o->tsval = get_be32(opts + 8);
	o->tsecr = get_be32(opts + 12);
	o->has_ts = 1;
	o->wscale = opts[19] > TFO_WSCALE_MAX ? TFO_WSCALE_MAX : opts[19];
	o->has_wscale = 1;
	if (olen != 0)
		parse_tfo_cookie(o, TFO_FORM_RFC, t + TFO_OPTLEN_FASTOPEN_BASE,
				 olen - TFO_OPTLEN_FASTOPEN_BASE);
	return true;
}

/*
 * Nearly every segment carries one of Linux's two layouts; a few word
 * compares recognise them before the byte-at-a-time walk.
 */
int
tfo_tcpopt_parse(const uint8_t *opts, unsigned int len,
		 struct tfo_tcpopts *o)
{
	if (len == 12 && get_be32(opts) == TFO_OPTW_NOP_NOP_TS) {
		memset(o, 0, sizeof(*o));
		o->tsval = get_be32(opts + 4);
		o->tsecr = get_be32(opts + 8);
		o->has_ts = 1;
		return 0;
	}
	if (len >= TFO_OPTLEN_LINUX_SYN && len <= TFO_TCPOPT_MAX_LEN &&
	    tfo_tcpopt_parse_linux_syn(opts, len, o))
		return 0;
	return tfo_tcpopt_parse_generic(opts, len, o);
}

unsigned int
tfo_tcpopt_sack_blocks(const uint8_t *opts, unsigned int len, uint32_t *left,
		       uint32_t *right)
{
	unsigned int i = 0;

	while (i < len) {
		unsigned int olen, n;

		if (opts[i] == TFO_OPT_EOL)
			break;
		if (opts[i] == TFO_OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len)
			break;
		olen = opts[i + 1];
		if (olen < 2 || olen > len - i)
			break;
		if (opts[i] == TFO_OPT_SACK) {
			n = (olen - 2) / 8;
			if ((olen - 2) % 8 != 0 || n == 0 || n > TFO_SACK_BLOCKS_MAX)
				return 0;
			for (unsigned int k = 0; k < n; k++) {
				left[k] = get_be32(&opts[i + 2 + 8 * k]);
				right[k] = get_be32(&opts[i + 6 + 8 * k]);
			}
			return n;
		}
		i += olen;
	}
	return 0;
}

/* Bytes of the TFO option incl. its NOP padding (0 = none). */
static unsigned int
tfo_opt_space(uint8_t form, unsigned int cookie_len)
{
	unsigned int n;

	if (form == TFO_FORM_RFC)
		n = TFO_OPTLEN_FASTOPEN_BASE + cookie_len;
	else if (form == TFO_FORM_EXP)
		n = TFO_OPTLEN_EXP_FASTOPEN_BASE + cookie_len;
	else
		return 0;
	return (n + 3) & ~3u;
}

/* The TFO option and its NOP padding at @p p (@p form not NONE); @return
 * its space. */
static unsigned int
write_tfo_opt(uint8_t *p, uint8_t form, const uint8_t *cookie,
	      unsigned int cookie_len)
{
	unsigned int space = tfo_opt_space(form, cookie_len);
	unsigned int n;

	if (form == TFO_FORM_EXP) {
		n = TFO_OPTLEN_EXP_FASTOPEN_BASE + cookie_len;
		p[0] = TFO_OPT_EXP;
		p[1] = (uint8_t)n;
		put_be16(p + 2, TFO_OPT_EXP_MAGIC_TFO);
		memcpy(p + 4, cookie, cookie_len);
	} else {
		n = TFO_OPTLEN_FASTOPEN_BASE + cookie_len;
		p[0] = TFO_OPT_FASTOPEN;
		p[1] = (uint8_t)n;
		memcpy(p + 2, cookie, cookie_len);
	}
	/* Linux pads after the option, with NOPs */
	memset(p + n, TFO_OPT_NOP, space - n);
	return space;
}

/* Over 80 lines: Linux's option order and fast layout in one place. */
unsigned int
tfo_tcpopt_write_synack(uint8_t *out, const struct tfo_synack_opts *s)
{
	uint8_t *p = out;
	bool sack = s->sack_ok;
	unsigned int cookie_len = s->cookie_len;
	uint8_t form = s->form;
	unsigned int total;

	if (cookie_len == 0 || cookie_len > TFO_COOKIE_MAX || s->cookie == NULL)
		form = TFO_FORM_NONE;
	if (form == TFO_FORM_NONE)
		cookie_len = 0;

	/* what every modern client asks for: tcpopt.h's five words */
	if (likely(s->ts && sack && s->peer_wscale)) {
		unsigned int n = tfo_tcpopt_write_synack_common(out, s->mss, s->wscale,
								s->tsval, s->tsecr);

		RTE_BUILD_BUG_ON(TFO_SYNACK_COMMON_LEN + ((TFO_OPTLEN_EXP_FASTOPEN_BASE +
				 TFO_COOKIE_MAX + 3) & ~3u) > TFO_TCPOPT_MAX_LEN);
		if (form == TFO_FORM_NONE)
			return n;
		return n + write_tfo_opt(out + n, form, s->cookie, cookie_len);
	}

	/*
	 * With the sizes the contract allows this always fits (at most
	 * 4 + 12 + 4 + 20 = 40); the trimming keeps the promise if it grows.
	 */
	total = TFO_OPTLEN_MSS + (s->ts ? 12 : 0) + (sack && !s->ts ? 4 : 0) +
		(s->peer_wscale ? 4 : 0) + tfo_opt_space(form, cookie_len);
	if (total > TFO_TCPOPT_MAX_LEN && sack && !s->ts) {
		sack = false;
		total -= 4;
	}
	if (total > TFO_TCPOPT_MAX_LEN) {
		total -= tfo_opt_space(form, cookie_len);
		form = TFO_FORM_NONE;
		cookie_len = 0;
	}

	p[0] = TFO_OPT_MSS;
	p[1] = TFO_OPTLEN_MSS;
	put_be16(p + 2, s->mss);
	p += 4;

	if (s->ts) {
		/* SACK-permitted takes the two NOPs' place (Linux's layout) */
		if (sack) {
			p[0] = TFO_OPT_SACK_PERM;
			p[1] = TFO_OPTLEN_SACK_PERM;
		} else {
			p[0] = TFO_OPT_NOP;
			p[1] = TFO_OPT_NOP;
		}
		p[2] = TFO_OPT_TS;
		p[3] = TFO_OPTLEN_TS;
		put_be32(p + 4, s->tsval);
		put_be32(p + 8, s->tsecr);
		p += 12;
	} else if (sack) {
		p[0] = TFO_OPT_NOP;
		p[1] = TFO_OPT_NOP;
		p[2] = TFO_OPT_SACK_PERM;
		p[3] = TFO_OPTLEN_SACK_PERM;
		p += 4;
	}

	if (s->peer_wscale) {
		p[0] = TFO_OPT_NOP;
		p[1] = TFO_OPT_WSCALE;
		p[2] = TFO_OPTLEN_WSCALE;
		p[3] = s->wscale > TFO_WSCALE_MAX ? TFO_WSCALE_MAX : s->wscale;
		p += 4;
	}

	if (form != TFO_FORM_NONE)
		p += write_tfo_opt(p, form, s->cookie, cookie_len);

	return (unsigned int)(p - out);
}

