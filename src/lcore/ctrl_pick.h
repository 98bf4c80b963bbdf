/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: which control lcore owns a slow-path connection.
 *
 * With several control lcores ([server] control_lcores), every worker hands
 * a slow-path TCP segment to the control lcore tfo_ctrl_pick() names for
 * its 4-tuple. RSS may give the segments of one connection to any worker
 * (and a path-MTU error about it reaches control 0 from anywhere), so the
 * choice depends on the tuple alone: no per-worker or per-port state, no
 * shared table.
 */
#ifndef TFO_CTRL_PICK_H
#define TFO_CTRL_PICK_H

#include <stdint.h>
#include <string.h>

#include "net/pkt.h"
#include "ops/config.h"	/* TFO_MAX_CONTROLS */

#ifdef __cplusplus
extern "C" {
#endif

static inline uint64_t
tfo_ctrl_pick_word(const struct tfo_addr *a, unsigned int off)
{
	uint64_t v;

	memcpy(&v, &a->b[off], sizeof(v));
	return v;
}

/**
 * The control lcore (0 .. @p n - 1) of the connection @p p belongs to.
 *
 * Contract: @p p is a TCP segment as the client sent it (src = the client,
 * dst = our address; a path-MTU error's tfo_ptb.flow has that orientation
 * too). The result depends only on p->src, p->dst, p->sport, p->dport
 * (IPv4 in the first 4 bytes of struct tfo_addr, the rest zero, as
 * tfo_pkt_parse leaves them) and on @p n, so every segment of one
 * connection, received by whichever worker, names the same control lcore;
 * connections spread evenly over @p n. @p n of 0 or 1: always 0, without
 * reading @p p. About ten instructions: a 64-bit mix (murmur3's finaliser)
 * and a multiply-shift instead of a division.
 */
static inline unsigned int
tfo_ctrl_pick(const struct tfo_pkt *p, unsigned int n)
{
	uint64_t k;

	if (n <= 1)
		return 0;
	k = tfo_ctrl_pick_word(&p->src, 0) ^
	    (tfo_ctrl_pick_word(&p->src, 8) * 0x9e3779b97f4a7c15ULL) ^
	    (tfo_ctrl_pick_word(&p->dst, 0) << 29 | tfo_ctrl_pick_word(&p->dst, 0) >> 35) ^
	    (tfo_ctrl_pick_word(&p->dst, 8) * 0xc2b2ae3d27d4eb4fULL) ^
	    ((uint64_t)p->sport << 48 | (uint64_t)p->dport << 32);
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return (unsigned int)(((k >> 32) * n) >> 32);
}

#ifdef __cplusplus
}
#endif

#endif /* TFO_CTRL_PICK_H */
