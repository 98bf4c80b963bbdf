/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: why the parser drops a frame (net/pkt.c): the reasons,
 * each one a counter "drop_<name>" (ops/stats.h). The ground floor's: every
 * drop has a reason counter, and the counters are the operator's vocabulary.
 */
#ifndef TFO_DROPS_H
#define TFO_DROPS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Why a frame was dropped by the parser. Every value has a counter named
 * "drop_<name>" in stats.h (TFO_DROP_REASONS expands to them).
 */
#define TFO_PKT_DROP_REASONS(X) \
	X(l2_short,		"frame shorter than its Ethernet/VLAN header") \
	X(l2_not_ours,		"destination MAC is not ours (nor broadcast/multicast for ARP/ICMP)") \
	X(l2_ethertype,		"EtherType not IPv4/IPv6/ARP (incl. stacked VLANs)") \
	X(ipv4_short,		"truncated IPv4 header or bad IHL/total length") \
	X(ipv4_version,		"IPv4 version field is not 4") \
	X(ipv4_cksum,		"IPv4 header checksum wrong") \
	X(ipv4_frag,		"IPv4 fragment (reassembly is not supported)") \
	X(ipv6_short,		"truncated IPv6 header or payload length past the frame") \
	X(ipv6_version,		"IPv6 version field is not 6") \
	X(ipv6_ext,		"IPv6 extension header we do not process (AH, ESP, mobility, HIP, shim6, experimental)") \
	X(ipv6_frag,		"IPv6 fragment header (reassembly is not supported)") \
	X(ipv6_ext_short,	"IPv6 extension header truncated (past the payload length)") \
	X(ipv6_ext_bad,		"IPv6 extension header malformed: Hop-by-Hop not first, option TLVs overrunning, padding over 7 bytes or not zero, bad router alert, over 8 options") \
	X(ipv6_ext_opt,		"IPv6 Hop-by-Hop/Destination option of unknown type whose action bits say discard (RFC 8200 4.2; also jumbograms)") \
	X(ipv6_ext_limit,	"more than 8 IPv6 extension headers, or more than 512 bytes of them") \
	X(ipv6_rthdr,		"IPv6 Routing header with segments left > 0 (we are not its final destination)") \
	X(ip_not_ours,		"IP destination is not one of our addresses") \
	X(ip_bad_src,		"IP source is multicast, broadcast, loopback, v4-mapped or ours") \
	X(tcp_short,		"TCP header truncated or data offset < 5 or past the segment") \
	X(tcp_cksum,		"TCP checksum wrong") \
	X(tcp_port,		"TCP source or destination port is 0") \
	X(udp_short,		"UDP header truncated, or its length not the IP payload's") \
	X(udp_cksum,		"UDP checksum wrong (or none over IPv6)") \
	X(udp_port,		"UDP source or destination port is 0") \
	X(arp_short,		"truncated or non-Ethernet/IPv4 ARP") \
	X(icmp_short,		"truncated ICMP/ICMPv6 header") \
	X(icmp_cksum,		"ICMP/ICMPv6 checksum wrong") \
	X(l4_proto,		"IP protocol we do not serve, or UDP to a port no service serves with udp = on") \
	X(multiseg,		"headers not contiguous in the first mbuf segment (or mbuf lengths inconsistent)")

enum tfo_pkt_drop {
	TFO_PKT_DROP_NONE = 0,
#define TFO_X_ENUM(name, help) TFO_PKT_DROP_##name,
	TFO_PKT_DROP_REASONS(TFO_X_ENUM)
#undef TFO_X_ENUM
	TFO_PKT_DROP_MAX
};

#ifdef __cplusplus
}
#endif

#endif /* TFO_DROPS_H */
