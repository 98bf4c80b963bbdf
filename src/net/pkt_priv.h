/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: what pkt.c (parsing), pkt_match.c (ours or not, ICMP
 * errors about our segments) and pkt_cksum.c share. Private to them.
 */
#ifndef TFO_PKT_PRIV_H
#define TFO_PKT_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "net/pkt.h"


static inline enum tfo_pkt_class
tfo_drop(struct tfo_pkt *p, enum tfo_pkt_drop r)
{
	p->cls = TFO_PKT_DROP;
	p->drop = (uint8_t)r;
	return TFO_PKT_DROP;
}

/* MLD: listener query, v1 report, done, v2 report (RFC 2710, RFC 3810). */
static inline bool
tfo_icmp6_is_mld(uint8_t type)
{
	return type == 130 || type == 131 || type == 132 || type == 143;
}

/* The IPv6 extension headers' walk of tfo_pkt_parse (pkt.c), which the
 * quote of an ICMPv6 error takes too: TFO_PKT_DROP_NONE, *nh the upper
 * layer and *ext the headers' bytes; or the drop reason. */
enum tfo_pkt_drop tfo_ipv6_ext_walk(const struct rte_mbuf *m, uint32_t off,
				    uint32_t plen, uint32_t seg_len,
				    uint8_t *nh, uint32_t *ext);

#endif /* TFO_PKT_PRIV_H */
