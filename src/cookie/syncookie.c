/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: SYN cookies (RFC 4987), for the control core when its
 * half-open table is full.
 *
 * ISN = minute counter (8 bits) | MAC (22 bits) | MSS index (2 bits).
 * The MAC is SipHash-2-4 under the secret over everything the cookie
 * stands for, MSS index and timestamp bits included, so none of them can
 * be altered without knowing the secret. As Linux does, window scale and
 * SACK-permitted ride in the low 6 bits of our TSval when the peer uses
 * timestamps (it echoes them in TSecr).
 */
#include <errno.h>
#include <string.h>

#include "cookie/syncookie.h"

#include "cookie/siphash.h"

#define SYNCOOKIE_PERIOD_S 60
#define SYNCOOKIE_MAX_AGE 2	/* counter steps: current and previous */
#define SYNCOOKIE_COUNT_SHIFT 24
/* XXX 2 bits of MSS index, as Linux's table: a cookie connection's MSS is
 * rounded down to it (an MSS between two entries loses the difference) */
#define SYNCOOKIE_MSS_BITS 2
#define SYNCOOKIE_MAC_MASK ((1u << 22) - 1)

#define SYNCOOKIE_TS_BITS 6
#define SYNCOOKIE_TS_MASK ((1u << SYNCOOKIE_TS_BITS) - 1)
#define SYNCOOKIE_TS_WSCALE_MASK 0xf
#define SYNCOOKIE_TS_SACK 0x10

/* Linux's tables (net/ipv4/syncookies.c, net/ipv6/syncookies.c). */
static const uint16_t mss_v4[1 << SYNCOOKIE_MSS_BITS] = { 536, 1300, 1440, 1460 };
static const uint16_t mss_v6[1 << SYNCOOKIE_MSS_BITS] = { 1220, 1420, 1440, 8940 };

static const uint16_t *
mss_table(int family)
{
	return family == AF_INET6 ? mss_v6 : mss_v4;
}

/* @p ts_bits: 0x40 | the 6 bits when timestamps are in use, else 0. */
static uint32_t
syncookie_mac(const struct tfo_syncookie_secret *s, const struct tfo_pkt *p,
	      uint32_t peer_isn, uint32_t count, uint32_t mssind,
	      uint32_t ts_bits)
{
	struct tfo_siphash_key sk;
	uint8_t msg[48];
	uint32_t w[4] = { peer_isn, count,
			  ((uint32_t)p->sport << 16) | p->dport,
			  ((uint32_t)p->family << 16) | (ts_bits << 8) | mssind };
	uint32_t mac;

	memcpy(msg, p->src.b, 16);
	memcpy(msg + 16, p->dst.b, 16);
	memcpy(msg + 32, w, sizeof(w));
	tfo_siphash_init(&sk, s->k);
	mac = (uint32_t)tfo_siphash(&sk, msg, sizeof(msg)) & SYNCOOKIE_MAC_MASK;
	memset(&sk, 0, sizeof(sk));
	return mac;
}

uint32_t
tfo_syncookie_make(const struct tfo_syncookie_secret *s,
		   const struct tfo_pkt *syn, uint32_t now_s,
		   const struct tfo_syncookie_info *info, bool peer_ts,
		   uint32_t *tsval_out)
{
	const uint16_t *tab = mss_table(syn->family);
	uint32_t count = now_s / SYNCOOKIE_PERIOD_S;
	uint32_t mssind = 0, ts_bits = 0;

	/* the largest table MSS not above the peer's (the smallest if none) */
	for (uint32_t i = 1; i < (1u << SYNCOOKIE_MSS_BITS); i++)
		if (tab[i] <= info->mss && tab[i] > tab[mssind])
			mssind = i;

	if (peer_ts && tsval_out != NULL) {
		uint32_t opts = info->wscale <= TFO_WSCALE_MAX ?
				info->wscale : TFO_WSCALE_NONE;
		uint32_t ts = (*tsval_out & ~SYNCOOKIE_TS_MASK);

		if (info->sack_ok)
			opts |= SYNCOOKIE_TS_SACK;
		ts |= opts;
		/* never ahead of our clock: the peer checks monotony (PAWS) */
		if ((int32_t)(ts - *tsval_out) > 0)
			ts -= 1u << SYNCOOKIE_TS_BITS;
		*tsval_out = ts;
		ts_bits = 0x40 | opts;
	}
	return ((count & 0xff) << SYNCOOKIE_COUNT_SHIFT) |
	       (syncookie_mac(s, syn, syn->seq, count, mssind, ts_bits)
		<< SYNCOOKIE_MSS_BITS) | mssind;
}

int
tfo_syncookie_check(const struct tfo_syncookie_secret *s,
		    const struct tfo_pkt *ack_pkt, uint32_t now_s,
		    bool has_ts, uint32_t tsecr,
		    struct tfo_syncookie_info *info)
{
	uint32_t isn = ack_pkt->ack - 1, peer_isn = ack_pkt->seq - 1;
	uint32_t now = now_s / SYNCOOKIE_PERIOD_S;
	uint32_t age = (now - (isn >> SYNCOOKIE_COUNT_SHIFT)) & 0xff;
	uint32_t mssind = isn & ((1u << SYNCOOKIE_MSS_BITS) - 1);
	uint32_t ts_bits = has_ts ? 0x40 | (tsecr & SYNCOOKIE_TS_MASK) : 0;
	uint32_t mac;

	if (age >= SYNCOOKIE_MAX_AGE)
		return -EINVAL;
	mac = syncookie_mac(s, ack_pkt, peer_isn, now - age, mssind, ts_bits);
	if (mac != ((isn >> SYNCOOKIE_MSS_BITS) & SYNCOOKIE_MAC_MASK))
		return -EINVAL;
	info->mss = mss_table(ack_pkt->family)[mssind];
	if (has_ts) {
		info->wscale = tsecr & SYNCOOKIE_TS_WSCALE_MASK;
		info->sack_ok = (tsecr & SYNCOOKIE_TS_SACK) != 0;
	} else {
		info->wscale = TFO_WSCALE_NONE;
		info->sack_ok = false;
	}
	return 0;
}
