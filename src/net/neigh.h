/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: neighbours: ARP, ICMP echo, IPv6 neighbor discovery and
 * ICMPv6 echo, for the control core and for tfo-loadgen.
 *
 * Two levels. tfo_neigh_input() is the server's answering: everything the
 * workers hand the control core that is not TCP, answered for the
 * addresses of the port and counted in struct tfo_stats. Under it, the
 * frame builders, which count nothing and decide nothing about which
 * addresses are ours: tfo-loadgen answers for a whole client range and
 * learns the server's MAC with them.
 *
 * A reply made in place from a received frame keeps the mbuf flags that
 * say whose buffer it is (RTE_MBUF_F_EXTERNAL, RTE_MBUF_F_INDIRECT): a
 * frame received into an external buffer and freed as a direct one would
 * put a foreign buffer into the mempool. Checksums are computed in
 * software (slow path): replies carry no offload request.
 */
#ifndef TFO_NEIGH_H
#define TFO_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "net/tx.h"
#include "net/pkt.h"
#include "ops/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ICMPv6 types and the ND option this module reads and writes (RFC 4861). */
#define TFO_ICMP6_ECHO_REQUEST 128
#define TFO_ICMP6_ECHO_REPLY 129
#define TFO_ND_NEIGHBOR_SOLICIT 135
#define TFO_ND_NEIGHBOR_ADVERT 136
#define TFO_ND_OPT_SOURCE_LLADDR 1
#define TFO_ND_OPT_TARGET_LLADDR 2

/**
 * A token bucket of answers per second (ICMP and ICMPv6 echo replies of one
 * control lcore), in micro-tokens so that the refill is one multiply: one
 * answer costs 10^6, a microsecond adds @c rate.
 */
struct tfo_tbucket {
	uint64_t tok;		/**< micro-tokens now */
	uint64_t cap;		/**< burst * 10^6 */
	uint64_t last_us;	/**< time of the last refill */
	uint32_t rate;		/**< answers per second, 0 = no limit */
};

/** Linux's icmp_msgs_burst: answers a full bucket holds. */
#define TFO_ICMP_BURST 50

/** A full bucket of @p rate answers/s (0: unlimited), @p burst at once. */
static inline void
tfo_tbucket_init(struct tfo_tbucket *b, uint32_t rate, uint32_t burst, uint64_t now_us)
{
	b->rate = rate;
	b->cap = (uint64_t)RTE_MAX(burst, 1u) * 1000000;
	b->tok = b->cap;
	b->last_us = now_us;
}

/** Take one token at @p now_us: false when the bucket is empty. */
static inline bool
tfo_tbucket_take(struct tfo_tbucket *b, uint64_t now_us)
{
	if (b->rate == 0)
		return true;
	if (now_us > b->last_us) {
		/* a long silence: cap the product before it can overflow */
		uint64_t dt = RTE_MIN(now_us - b->last_us, (uint64_t)1 << 32);

		b->tok = RTE_MIN(b->tok + dt * b->rate, b->cap);
		b->last_us = now_us;
	}
	if (b->tok < 1000000)
		return false;
	b->tok -= 1000000;
	return true;
}

/**
 * Answer a frame of class TFO_PKT_ARP, TFO_PKT_ICMP or TFO_PKT_ICMP6 (as
 * tfo_pkt_classify() classified it on @p port): ARP requests, ICMP echo
 * requests, neighbor solicitations and ICMPv6 echo requests for an address
 * of @p port get their reply pushed to @p tx on @p port_idx, built in
 * @p m itself (an NA: in a fresh mbuf of m's pool, @p m freed).
 *
 * Echo requests (ICMP and ICMPv6) are answered while @p echo_tb (NULL: no
 * limit) has a token at @p now_us; over it they are dropped as
 * drop_icmp_echo_rate. ARP and ND are never limited.
 *
 * Counts in @p stats: the *_rx / *_tx counters of each kind, and exactly
 * one frame-drop reason when @p m is not consumed (drop_arp_other,
 * drop_icmp_other, drop_icmp6_other, drop_nd_bad, drop_icmp_echo_rate,
 * multiseg); a valid NS for us whose answer finds no mbuf counts
 * mbuf_alloc_fail and is consumed.
 *
 * A frame of any other class is not looked at: false, nothing counted.
 *
 * @return true if @p m was consumed, false if the caller must free it.
 */
bool tfo_neigh_input(struct tfo_tx *tx, struct tfo_stats *stats,
		     const struct tfo_port_info *port, uint8_t port_idx,
		     struct rte_mbuf *m, const struct tfo_pkt *p,
		     struct tfo_tbucket *echo_tb, uint64_t now_us);

/**
 * Whether the worker should hand @p m (of class @p cls, parsed as @p p) to
 * the control lcore's neighbour ring: ARP, and ICMPv6 neighbour discovery
 * (router/neighbour solicitations and advertisements, redirects; types
 * 133-137), the frames without which the member is unreachable.
 */
static inline bool
tfo_neigh_is_nd(const struct rte_mbuf *m, const struct tfo_pkt *p)
{
	uint8_t t;

	if (p->cls == TFO_PKT_ARP)
		return true;
	if (p->cls != TFO_PKT_ICMP6 || p->l4_len < 1)
		return false;
	t = *rte_pktmbuf_mtod_offset(m, const uint8_t *, p->payload_off);
	return t >= 133 && t <= 137;
}

/* ---- frame builders: no counters, no address policy ------------------- */

/**
 * If @p m (class TFO_PKT_ARP) is an ARP request, its target protocol
 * address in @p tip (IPv4 in the first 4 bytes). @return true for a request.
 */
bool tfo_arp_request_target(const struct rte_mbuf *m, const struct tfo_pkt *p,
			    struct tfo_addr *tip);

/**
 * Turn the ARP request @p m into the reply "target is at @p mac", in place,
 * addressed back to the asker. The caller sends @p m.
 */
void tfo_arp_reply(struct rte_mbuf *m, const struct tfo_pkt *p,
		   const struct rte_ether_addr *mac);

/**
 * A broadcast ARP request from @p mac / @p sip for @p tip, in a fresh mbuf
 * of @p pool. @return the frame, or NULL when no mbuf is left.
 */
struct rte_mbuf *tfo_arp_request(struct rte_mempool *pool,
				 const struct rte_ether_addr *mac,
				 const struct tfo_addr *sip,
				 const struct tfo_addr *tip);

/**
 * The checks of RFC 4861 section 7.1.1 on the neighbor solicitation @p m
 * (class TFO_PKT_ICMP6, type TFO_ND_NEIGHBOR_SOLICIT): hop limit 255, code
 * 0, at least 24 bytes, a unicast target, options each a non-zero multiple
 * of 8 bytes; and one segment. @return 0 with the target in @p target,
 * or -EINVAL.
 */
int tfo_nd_ns_target(const struct rte_mbuf *m, const struct tfo_pkt *p,
		     struct tfo_addr *target);

/**
 * The solicited neighbor advertisement answering the NS @p ns (checked by
 * tfo_nd_ns_target) for @p target at @p mac, in a fresh mbuf of @p pool:
 * L2 (VLAN tag included) copied from @p ns and addressed back; to all
 * nodes, unsolicited, when the NS came from the unspecified address
 * (duplicate address detection). @p ns is left as it was.
 * @return the frame, or NULL when no mbuf is left.
 */
struct rte_mbuf *tfo_nd_na_reply(const struct rte_mbuf *ns, const struct tfo_pkt *p,
				 const struct tfo_addr *target,
				 const struct rte_ether_addr *mac,
				 struct rte_mempool *pool);

/**
 * A neighbor solicitation from @p mac / @p src for @p target, sent to the
 * target's solicited-node multicast group, in a fresh mbuf of @p pool.
 * @return the frame, or NULL when no mbuf is left.
 */
struct rte_mbuf *tfo_nd_ns_request(struct rte_mempool *pool,
				   const struct rte_ether_addr *mac,
				   const struct tfo_addr *src,
				   const struct tfo_addr *target);

#ifdef __cplusplus
}
#endif

#endif /* TFO_NEIGH_H */
