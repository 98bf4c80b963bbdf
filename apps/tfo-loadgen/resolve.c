/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-loadgen: address resolution, the loadgen's policy over the
 * library's ARP/ND frames (net/neigh.h).
 *
 * The clients must look like hosts: the server (a kernel behind net_tap,
 * or tfo-server) resolves every client address before it answers, so
 * requests for any address of the range (and the alias) are answered.
 * The server's own MAC is learned from whatever ARP/ND message it sends
 * (its answer to our request, or its own request), as a kernel would.
 */
#include <netinet/in.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "net/neigh.h"

#include "lg.h"

static bool
lg_is_ours(const struct lg_opts *o, int family, const struct tfo_addr *a)
{
	if (lg_addr_index(o, family, a) >= 0)
		return true;
	return o->alias_set && family == o->family &&
	       memcmp(a->b, o->alias.b, family == AF_INET ? 4 : 16) == 0;
}

static void
lg_learn_server(struct lg_lcore *lc, uint8_t port_idx, const struct rte_ether_addr *mac)
{
	struct lg_port *p = &lc->sh->ports[port_idx];

	if (p->resolved || rte_is_zero_ether_addr(mac) || rte_is_multicast_ether_addr(mac))
		return;
	p->server_mac = *mac;
	rte_smp_wmb();
	p->resolved = 1;
	LG_INC(&lc->stats, server_mac_learned);
}

/* Queue @p m (a frame the library built) or count that it could not be built. */
static bool
lg_neigh_send(struct lg_lcore *lc, uint8_t port_idx, struct rte_mbuf *m)
{
	if (m == NULL) {
		LG_INC(&lc->stats, mbuf_alloc_fail);
		return false;
	}
	tfo_tx_push(&lc->tx, port_idx, m);
	return true;
}

void
lg_arp_input(struct lg_lcore *lc, struct rte_mbuf *m, const struct tfo_pkt *p,
	     uint8_t port_idx)
{
	const struct lg_opts *o = lc->o;
	const struct rte_arp_hdr *ah = rte_pktmbuf_mtod_offset(m, const struct rte_arp_hdr *,
							       p->l2_len);
	struct tfo_addr tip;

	if (o->family == AF_INET && memcmp(&ah->arp_data.arp_sip, o->server.b, 4) == 0)
		lg_learn_server(lc, port_idx, &ah->arp_data.arp_sha);
	if (!tfo_arp_request_target(m, p, &tip) || !lg_is_ours(o, AF_INET, &tip)) {
		LG_INC(&lc->stats, neigh_ignored);
		rte_pktmbuf_free(m);
		return;
	}
	LG_INC(&lc->stats, arp_request_rx);
	tfo_arp_reply(m, p, &lc->sh->ports[port_idx].info.mac);
	tfo_tx_push(&lc->tx, port_idx, m);
	LG_INC(&lc->stats, arp_reply_tx);
}

/* An NA: the server's MAC, from its target link-layer address option if any. */
static void
lg_na_input(struct lg_lcore *lc, const struct rte_mbuf *m, const struct tfo_pkt *p,
	    uint8_t port_idx)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *ih = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
								p->l2_len);
	const uint8_t *icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, p->payload_off);
	struct rte_ether_addr mac = eh->src_addr;
	uint32_t len = p->l4_len;

	if (icmp[1] != 0 || len < 24 || ih->hop_limits != 255 || m->next != NULL ||
	    lc->o->family != AF_INET6 || memcmp(icmp + 8, lc->o->server.b, 16) != 0) {
		LG_INC(&lc->stats, neigh_ignored);
		return;
	}
	for (uint32_t off = 24; off + 8 <= len && icmp[off + 1] != 0; off += icmp[off + 1] * 8u)
		if (icmp[off] == TFO_ND_OPT_TARGET_LLADDR)
			memcpy(mac.addr_bytes, icmp + off + 2, RTE_ETHER_ADDR_LEN);
	lg_learn_server(lc, port_idx, &mac);
}

void
lg_icmp6_input(struct lg_lcore *lc, struct rte_mbuf *m, const struct tfo_pkt *p,
	       uint8_t port_idx)
{
	const struct lg_opts *o = lc->o;
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const uint8_t *icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, p->payload_off);
	struct tfo_addr target;

	if (icmp[0] == TFO_ND_NEIGHBOR_ADVERT) {
		lg_na_input(lc, m, p, port_idx);
	} else if (icmp[0] != TFO_ND_NEIGHBOR_SOLICIT || tfo_nd_ns_target(m, p, &target) < 0) {
		LG_INC(&lc->stats, neigh_ignored);
	} else {
		if (o->family == AF_INET6 && memcmp(p->src.b, o->server.b, 16) == 0)
			lg_learn_server(lc, port_idx, &eh->src_addr);
		if (!lg_is_ours(o, AF_INET6, &target)) {
			LG_INC(&lc->stats, neigh_ignored);
		} else {
			LG_INC(&lc->stats, nd_ns_rx);
			/* counted as sent even when no mbuf was left (as before) */
			lg_neigh_send(lc, port_idx,
				      tfo_nd_na_reply(m, p, &target,
						      &lc->sh->ports[port_idx].info.mac, lc->pool));
			LG_INC(&lc->stats, nd_na_tx);
		}
	}
	rte_pktmbuf_free(m);
}

void
lg_resolve_send(struct lg_lcore *lc, uint8_t port_idx)
{
	const struct lg_opts *o = lc->o;
	const struct rte_ether_addr *mac = &lc->sh->ports[port_idx].info.mac;
	struct tfo_addr src;

	lg_addr_make(o, lc->sh->ports[port_idx].first_client, &src);
	if (o->family == AF_INET) {
		if (lg_neigh_send(lc, port_idx, tfo_arp_request(lc->pool, mac, &src, &o->server)))
			LG_INC(&lc->stats, arp_request_tx);
	} else {
		/* to the server's solicited-node group */
		lg_neigh_send(lc, port_idx, tfo_nd_ns_request(lc->pool, mac, &src, &o->server));
		LG_INC(&lc->stats, nd_ns_tx);
	}
}
