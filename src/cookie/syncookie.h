/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: SYN cookies (RFC 4987), Linux's encoding: the engine answers
 * a SYN with one when its half-open table is full (tfo_engine_syncookie_reply)
 * and rebuilds the connection from the ACK (tfo_engine_input_nomatch).
 */
#ifndef TFO_SYNCOOKIE_H
#define TFO_SYNCOOKIE_H

#include <stdbool.h>
#include <stdint.h>

#include "net/pkt.h"
#include "net/tcpopt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a SYN cookie encodes and gives back on the ACK. */
struct tfo_syncookie_info {
	uint16_t mss;		/**< rounded down to an encodable value */
	uint8_t wscale;		/**< peer's, TFO_WSCALE_NONE = none (needs timestamps) */
	bool sack_ok;		/**< needs timestamps */
};

struct tfo_syncookie_secret {
	uint8_t k[16];
};

/**
 * The ISN for a SYN-ACK answering @p syn (its 4-tuple and ISN syn->seq) at
 * time @p now_s (seconds), encoding @p info->mss (rounded down to one of 4
 * values per family, Linux's tables).
 *
 * When @p peer_ts: @p tsval_out is in/out: on entry the TSval the caller
 * would send now (its timestamp clock), on return the TSval to send: the
 * same with its low 6 bits replaced by wscale (4 bits, 0xf = none) and
 * SACK-permitted (bit 4), and never later than the entry value (Linux's
 * encoding). Without timestamps, wscale and SACK cannot be kept and
 * @p tsval_out is not touched (may be NULL).
 *
 * The ISN: 8 bits of a minute counter, 22 bits of SipHash-2-4 under @p s
 * over (addresses, ports, peer ISN, minute, MSS index, timestamp bits), and
 * the 2-bit MSS index.
 */
uint32_t tfo_syncookie_make(const struct tfo_syncookie_secret *s,
			    const struct tfo_pkt *syn, uint32_t now_s,
			    const struct tfo_syncookie_info *info, bool peer_ts,
			    uint32_t *tsval_out);

/**
 * Validate the ACK @p ack_pkt (ack = our ISN + 1, seq = peer ISN + 1)
 * against the secret: made in the current or the previous minute of
 * @p now_s / 60 (so at most 2 minutes ago, at least 1). @p tsecr is the
 * ACK's TSecr when @p has_ts (it must then carry the bits the SYN-ACK's
 * TSval had; a cookie made with timestamps fails without them and vice
 * versa).
 * @return 0 and @p info filled, or -EINVAL.
 */
int tfo_syncookie_check(const struct tfo_syncookie_secret *s,
			const struct tfo_pkt *ack_pkt, uint32_t now_s,
			bool has_ts, uint32_t tsecr,
			struct tfo_syncookie_info *info);

#ifdef __cplusplus
}
#endif

#endif /* TFO_SYNCOOKIE_H */
