/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: packet parsing, classification, checksums and header building.
 *
 * One job: turn a received frame into a struct tfo_pkt (or a drop reason),
 * and put the Ethernet/IP/TCP headers in front of an outgoing payload.
 * Nothing here allocates, locks or logs; every function reads only the bytes
 * of the frame it was given.
 */
#ifndef TFO_PKT_H
#define TFO_PKT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "net/xsk.h"
#include "ops/addr.h"	/* struct tfo_addr, our addresses */
#include "ops/drops.h"	/* enum tfo_pkt_drop */

#ifdef __cplusplus
extern "C" {
#endif

/* TCP flag bits (the low byte of the flags field). */
#define TFO_TCP_FIN 0x01
#define TFO_TCP_SYN 0x02
#define TFO_TCP_RST 0x04
#define TFO_TCP_PSH 0x08
#define TFO_TCP_ACK 0x10
#define TFO_TCP_URG 0x20
#define TFO_TCP_ECE 0x40
#define TFO_TCP_CWR 0x80

#define TFO_TCP_HDR_LEN 20	/**< TCP header without options */

/**
 * What the data path needs to know about a port: its identity (MAC and
 * addresses) and which offloads it may use. Built at start by the app,
 * read-only afterwards, shared by all lcores.
 */
struct tfo_port_info {
	uint16_t port_id;
	uint16_t mtu;
	struct rte_ether_addr mac;
	uint8_t nb_addrs;
	/** Index of this port's first address in the global address table
	 *  (tfo_pkt.local_idx numbers addresses over all ports). */
	uint8_t addr_base;
	bool rx_cksum_offload;	/**< trust RX checksum flags from the PMD */
	bool tx_ip_cksum_offload;
	bool tx_tcp_cksum_offload;
	bool tx_udp_cksum_offload;	/**< UDP answers (`udp = on`) */
	/** The device needs as many TX as RX queues (net_tap): the control
	 *  lcores have no TX queue of their own: control k relays through
	 *  worker k % workers. */
	bool ctrl_tx_relay;
	/** The device sends chained mbufs (RTE_ETH_TX_OFFLOAD_MULTI_SEGS):
	 *  zero-copy bodies go out as external buffers; else they are copied. */
	bool tx_multiseg;
	/** Frames we do not serve go to a kernel interface (exception.h). */
	bool exception;
	/** The kernel owns the interface's ARP, ND and ICMP echo (AF_XDP
	 *  with our XDP program, xdp.h): never answered here. */
	bool kernel_neigh;
	/** Its RX queues have interrupt fds: a frame wakes an idle worker
	 *  (idle_policy adaptive, tfo/idle.h); else the worker naps. */
	bool rx_intr;
	struct tfo_local_addr addrs[TFO_MAX_PORT_ADDRS];
	/** RSS hash functions in use (RTE_ETH_RSS_*), 0 = one RX queue or
	 *  none; for the start-up line and the runbook's checks. */
	uint64_t rss_hf;
	/** [port] rss = peer: the peer hashes flows to queues as RSS
	 *  would, with tfo_port_rss_peer's key and table (control lcores
	 *  then have TX queues of their own on net_memif). */
	bool rss_peer;
	/* Hardware SYN steering (syn_steering = on, and the device took the
	 * rte_flow rule): SYNs arrive on RX queue syn_queue, polled by the
	 * control core, which hands each to the worker RSS gives its flow
	 * (redirection table entry i = worker i % syn_workers). syn_workers
	 * and the RSS key are set without steering too whenever the table
	 * could be written: path-MTU errors go to the flow's worker. */
	bool syn_steering;
	uint16_t syn_queue;
	uint16_t syn_workers;
	uint16_t reta_size;
	uint8_t rss_key_len;
	/** for the hash when the NIC reports none; rte_softrss() reads it in
	 *  32-bit words */
	uint8_t rss_key[52] __rte_aligned(4);
	/** net_af_xdp: its AF_XDP sockets, for the kernel's counters of
	 *  them (net/xsk.h: fill ring empty, RX ring full); 0 elsewhere. */
	uint8_t nb_xsk;
	int xsk_fd[TFO_XSK_MAX];
};

/** What a received frame is, after parsing and classification. */
enum tfo_pkt_class {
	TFO_PKT_TCP = 0,	/**< TCP to one of our addresses: fields valid */
	TFO_PKT_ARP,		/**< ARP (any opcode): control core */
	TFO_PKT_ICMP,		/**< ICMPv4 to one of our addresses */
	TFO_PKT_ICMP6,		/**< ICMPv6 (incl. ND) to us or our multicast groups */
	/** MLD (RFC 2710/3810: listener query, report, done) to us or any
	 *  multicast group: routers' and snooping switches' business, not a
	 *  host's that joins no groups. Ignored by design (rx_mld_ignored),
	 *  not a drop; fields as for TFO_PKT_ICMP6. */
	TFO_PKT_MLD,
	/** UDP to one of our addresses, checksum verified: sport, dport,
	 *  payload_off, payload_len valid (l4_len: the UDP length) */
	TFO_PKT_UDP,
	TFO_PKT_DROP,		/**< see tfo_pkt.drop */
};

/** Name ("ipv4_cksum") of a drop reason; "none" for TFO_PKT_DROP_NONE. */
const char *tfo_pkt_drop_name(enum tfo_pkt_drop r);

/**
 * The 4-tuple of a TCP connection, the connection table's key (tcp/conn.h).
 * Our address is named by its global index (tfo_pkt.local_idx), which is
 * unique over all ports, so 24 bytes hold an IPv6 tuple. IPv4 peers keep
 * the tfo_addr convention (4 bytes, 12 zero bytes). pad must be 0.
 */
struct tfo_conn_key {
	struct tfo_addr peer;
	uint16_t peer_port;	/**< host order */
	uint16_t local_port;	/**< host order */
	uint8_t local_idx;
	uint8_t family;
	uint16_t pad;
};

/**
 * A parsed frame. Multi-byte fields are in host order except the addresses,
 * which stay in network order. Offsets count from the start of the frame.
 *
 * The peer's address and port, ours and the family are laid out as the
 * connection table's key (key, valid for a TFO_PKT_TCP frame once
 * tfo_pkt_match_local set local_idx): a segment is looked up with the key
 * it carries, not a copy built for each lookup. Code that fills a tfo_pkt
 * by hand sets key_pad to 0.
 */
struct tfo_pkt {
	union {
		struct tfo_conn_key key;
		struct {
			struct tfo_addr src;
			uint16_t sport;
			uint16_t dport;
			/** global index of our address (tfo_pkt_match_local) */
			uint8_t local_idx;
			uint8_t family;	/**< AF_INET / AF_INET6, 0 for ARP */
			uint16_t key_pad;	/**< key.pad: 0 */
		};
	};
	struct tfo_addr dst;
	uint32_t seq;
	uint32_t ack;
	uint8_t cls;		/**< enum tfo_pkt_class */
	uint8_t drop;		/**< enum tfo_pkt_drop when cls == TFO_PKT_DROP */
	uint8_t l4proto;	/**< IPPROTO_* */
	uint8_t tcp_flags;	/**< TFO_TCP_* */
	uint8_t has_vlan;
	uint8_t l2_len;		/**< Ethernet (+ VLAN) header bytes */
	/** IP header bytes: IPv4 options, IPv6 extension headers included */
	uint16_t l3_len;
	uint16_t l4_len;	/**< TCP: header incl. options; ICMP: whole message */
	uint16_t payload_off;	/**< TCP payload offset in the frame */
	uint16_t payload_len;	/**< TCP payload bytes (from the IP length) */
	uint16_t vlan_tci;
	uint16_t window;	/**< raw window field (not scaled) */
	uint16_t rsvd;		/**< not written: no hidden padding */
};

/**
 * Parse a received frame, knowing nothing of the port's addresses.
 *
 * Checks every length against the bytes present (headers must sit in the
 * first segment; the payload may continue in later ones), verifies IPv4,
 * TCP, ICMP and ICMPv6 checksums (trusting the mbuf's RX checksum flags when
 * @p rx_cksum_offload and the flags say GOOD or BAD, in software
 * otherwise), skips IPv4 options, drops fragments, walks the IPv6
 * Hop-by-Hop, Destination Options and Routing headers (RFC 8200 sections 4.1
 * to 4.4: Hop-by-Hop only first, options processed by their action bits,
 * a Routing header only with segments left 0, at most
 * TFO_IPV6_EXT_MAX_HDRS headers and TFO_IPV6_EXT_MAX_LEN bytes of them;
 * anything else is a counted drop). With no Routing header left to
 * process, the IPv6 destination is the final one, so the pseudo-header sums
 * use it. Answers are built without the extension headers
 * (tfo_pkt_prepend_tcp; tfo_pkt_ipv6_strip_ext for answers built in place),
 * as Linux does. TCP options are not parsed here (see tcpopt.h);
 * payload_off/l4_len tell where they are. Whether the frame is for us is
 * tfo_pkt_match_local's question (p->local_idx is left 0).
 *
 * @return p->cls (TFO_PKT_DROP with p->drop set for a frame to drop).
 */
enum tfo_pkt_class tfo_pkt_parse(const struct rte_mbuf *m, bool rx_cksum_offload,
				 struct tfo_pkt *p);

/**
 * tfo_pkt_parse() without its fast branch for untagged IPv4 TCP without
 * options: the reference that branch must agree with, field by field and
 * drop reason by drop reason (for tests).
 */
enum tfo_pkt_class tfo_pkt_parse_generic(const struct rte_mbuf *m,
					 bool rx_cksum_offload, struct tfo_pkt *p);

/**
 * Decide whether a frame tfo_pkt_parse() parsed into @p p is for @p port:
 * the destination MAC is the port's (or, but not for TCP, a multicast one),
 * the IP destination one of its addresses (ICMPv6 also: all-nodes, the
 * solicited-node group of one of them, any group for MLD), which sets
 * p->local_idx; and the source is one we may answer (not martian, not ours,
 * not the broadcast of one of our subnets). ARP's target is neigh.c's to
 * check. Otherwise a drop: l2_not_ours, ip_not_ours, ip_bad_src.
 *
 * @return p->cls (TFO_PKT_DROP as it came, or with p->drop set).
 */
static inline enum tfo_pkt_class tfo_pkt_match_local(const struct tfo_port_info *port,
						     const struct rte_mbuf *m,
						     struct tfo_pkt *p);

/**
 * tfo_pkt_match_local() without its one-pass branch for IPv4 to our MAC:
 * the reference that branch must agree with (for tests).
 */
enum tfo_pkt_class tfo_pkt_match_local_generic(const struct tfo_port_info *port,
					       const struct rte_mbuf *m,
					       struct tfo_pkt *p);

/* ---- internal: tfo_pkt_match_local's IPv4 pass, inline ------------------
 * Every frame takes it: as a call it cost six register saves and restores
 * around a loop of a dozen instructions (callgrind). pkt_match.c's generic
 * path asks the same questions through these. */

/* A martian IPv4 source: multicast, reserved, broadcast, loopback, 0/8. */
static inline bool
tfo_pkt_ipv4_src_bad_(const uint8_t *s)
{
	return s[0] >= 224 || s[0] == 127 || s[0] == 0;
}

/*
 * Whether @p p's IPv4 source is one of our addresses, or the broadcast
 * address of one of our subnets: a reply to either would go to ourselves
 * or to the whole subnet. With @p idx, also the global index of the first
 * of our addresses that is @p p's destination (left as it was if none):
 * one pass for both questions. The broadcast test is src == (a | host)
 * (the network bits equal, the host bits all ones), with host = 0 for /0,
 * /31 and /32 (no broadcast address, RFC 3021), where it is the src == a
 * test again: no branch but the family's.
 */
static inline bool
tfo_pkt_ipv4_scan_(const struct tfo_port_info *port, const struct tfo_pkt *p, int *idx)
{
	uint32_t src, dst;
	bool local = false;
	int found = idx != NULL ? *idx : 0;

	memcpy(&src, p->src.b, 4);
	memcpy(&dst, p->dst.b, 4);
	src = rte_be_to_cpu_32(src);
	dst = rte_be_to_cpu_32(dst);
	for (unsigned int i = 0; i < port->nb_addrs; i++) {
		const struct tfo_local_addr *la = &port->addrs[i];
		uint32_t a, host;

		if (la->family != AF_INET)
			continue;
		memcpy(&a, la->addr.b, 4);
		a = rte_be_to_cpu_32(a);
		if (dst == a && found < 0)
			found = port->addr_base + (int)i;
		/* prefix 1..30: (unsigned)(len - 1) < 30 */
		host = (uint32_t)(la->prefix_len - 1) < 30u ? UINT32_MAX >> la->prefix_len : 0;
		local |= (src == a) | (src == (a | host));
	}
	if (idx != NULL)
		*idx = found;
	return local;
}

/*
 * The common case: an IPv4 frame the parser took, sent to our MAC. One
 * pass over the port's addresses finds the destination and whether the
 * source is ours or one of our broadcasts: the verdicts of the generic
 * path, in its order (ip_not_ours before ip_bad_src).
 */
static inline enum tfo_pkt_class
tfo_pkt_match_local(const struct tfo_port_info *port, const struct rte_mbuf *m,
		    struct tfo_pkt *p)
{
	int idx = -1;
	bool src_local;

	if (unlikely(p->cls == TFO_PKT_DROP || p->family != AF_INET ||
		     !rte_is_same_ether_addr(rte_pktmbuf_mtod(m, const struct rte_ether_addr *),
					     &port->mac)))
		return tfo_pkt_match_local_generic(port, m, p);
	src_local = tfo_pkt_ipv4_scan_(port, p, &idx);
	if (idx < 0) {
		p->cls = TFO_PKT_DROP;
		p->drop = TFO_PKT_DROP_ip_not_ours;
		return TFO_PKT_DROP;
	}
	p->local_idx = (uint8_t)idx;
	if (src_local || tfo_pkt_ipv4_src_bad_(p->src.b)) {
		p->cls = TFO_PKT_DROP;
		p->drop = TFO_PKT_DROP_ip_bad_src;
		return TFO_PKT_DROP;
	}
	return (enum tfo_pkt_class)p->cls;
}

/**
 * tfo_pkt_classify's one pass (parse and match) for the frame nearly every
 * segment is: one segment, untagged IPv4 without options or fragments,
 * TCP, both checksums vouched for by the NIC (@p port's rx_cksum_offload
 * and the mbuf's GOOD or NONE flags), to our MAC and one of our addresses
 * from a source we may answer. A leaf function: no call, no register
 * saved.
 *
 * @return TFO_PKT_TCP with every field tfo_pkt_parse() and
 *   tfo_pkt_match_local() would write, as they would write it; or -1 for
 *   anything else (drops included): theirs to give (@p p's fields are
 *   then garbage until they write them).
 */
int tfo_pkt_classify_fast(const struct rte_mbuf *m, const struct tfo_port_info *port,
			  struct tfo_pkt *p);

/** Parse a frame received on @p port and match it against its addresses:
 *  what the worker and the control core do with every frame. */
static inline enum tfo_pkt_class
tfo_pkt_classify(const struct rte_mbuf *m, const struct tfo_port_info *port,
		 struct tfo_pkt *p)
{
	if (likely(tfo_pkt_classify_fast(m, port, p) == TFO_PKT_TCP))
		return TFO_PKT_TCP;
	tfo_pkt_parse(m, port->rx_cksum_offload, p);
	return tfo_pkt_match_local(port, m, p);
}

/**
 * UDP, which tfo_pkt_parse leaves as a drop (l4_proto) since most ports
 * serve none: the destination port of such a frame @p p (parsed and
 * matched, so that p->local_idx is ours), read without any check but
 * that it is in the first segment; 0 when @p p is not UDP left as
 * l4_proto or the port is not there. What the worker asks first.
 */
uint16_t tfo_pkt_udp_dport(const struct rte_mbuf *m, const struct tfo_pkt *p);

/**
 * Parse the UDP header of a frame tfo_pkt_udp_dport() gave a served port:
 * length (the IP payload's at most; bytes past it ignored), ports not 0,
 * the checksum (the RX flags as in tfo_pkt_parse, else in software; 0 is
 * "none" over IPv4 only). Sets sport, dport, l4_len (the UDP length),
 * payload_off and payload_len.
 *
 * @return TFO_PKT_UDP, or TFO_PKT_DROP with p->drop set (udp_short,
 *   udp_port, udp_cksum, multiseg).
 */
enum tfo_pkt_class tfo_pkt_parse_udp(const struct rte_mbuf *m, bool rx_cksum_offload,
				     struct tfo_pkt *p);

/** Most IPv6 extension headers in front of the upper layer (RFC 8200
 *  section 4.1 lists at most 4 for a packet that is not fragmented). */
#define TFO_IPV6_EXT_MAX_HDRS 8
/** Most bytes of IPv6 extension headers together. */
#define TFO_IPV6_EXT_MAX_LEN 512
/** Most options other than padding in one Hop-by-Hop or Destination Options
 *  header (Linux's net.ipv6.max_{hbh,dst}_opts_number default). */
#define TFO_IPV6_MAX_OPTS 8

/**
 * Remove the IPv6 extension headers of a frame @p p parsed (as anything
 * but TFO_PKT_DROP) from @p m, so that an answer built in place does not
 * echo them: the Ethernet (+VLAN) and IPv6 headers move forward over them,
 * the IPv6 next header and payload length are fixed up, and @p p's l3_len
 * and payload_off follow. Nothing to do (returns 0) without extension
 * headers. The headers sit in the first segment (tfo_pkt_parse checked it).
 *
 * @return bytes removed.
 */
uint16_t tfo_pkt_ipv6_strip_ext(struct rte_mbuf *m, struct tfo_pkt *p);

/** IPv4 minimum path MTU we accept from a "fragmentation needed" (Linux's
 *  net.ipv4.route.min_pmtu): smaller reports are raised to it. */
#define TFO_PMTU_MIN_V4 552
/** IPv6 minimum link MTU (RFC 8200 section 5). */
#define TFO_PMTU_MIN_V6 1280

/**
 * A "packet too big" ICMP error about a TCP segment we sent: the flow is
 * given as the peer sends it (src = the peer, dst = our address, sport = the
 * peer's port, local_idx and family set), so that it looks up like a
 * received segment of the connection.
 */
struct tfo_ptb {
	struct tfo_pkt flow;
	uint32_t seq;		/**< the quoted segment's sequence number */
	uint32_t mtu;		/**< the reported next-hop MTU (0 if none) */
};

/**
 * Recognise a path-MTU error in a frame @p p that parsed as TFO_PKT_ICMP
 * (type 3 code 4, RFC 1191) or TFO_PKT_ICMP6 (type 2, RFC 8201) and read the
 * segment it quotes: an IP header (IPv4 without fragment offset; IPv6 with
 * the extension headers tfo_pkt_parse accepts) and at least the first 8
 * bytes of a TCP header (ports and sequence number), from one of @p port's
 * addresses to an address that is not ours. The quote must sit in the first
 * segment.
 *
 * @return 1 and @p out filled for a usable error, 0 if the frame is another
 *   ICMP message (for neigh.c), -EINVAL if it is a path-MTU error whose
 *   quote is truncated or is not a TCP segment we could have sent.
 */
int tfo_pkt_icmp_ptb(const struct rte_mbuf *m, const struct tfo_port_info *port,
		     const struct tfo_pkt *p, struct tfo_ptb *out);

/** Pointer to the TCP header of a frame that parsed as TFO_PKT_TCP. */
static inline uint8_t *
tfo_pkt_tcp_hdr(const struct rte_mbuf *m, const struct tfo_pkt *p)
{
	return rte_pktmbuf_mtod_offset(m, uint8_t *, p->l2_len + p->l3_len);
}

/* ---- checksums --------------------------------------------------------- */

/**
 * Ones'-complement sum of @p len bytes, not folded and not inverted, with a
 * 64-bit accumulator (DPDK's rte_raw_cksum adds 16 bits at a time). Start
 * from @p sum so that calls can be chained; odd lengths are padded with a
 * zero byte as the Internet checksum requires (only the last chunk of a
 * chain may be odd).
 */
uint64_t tfo_cksum_add(uint64_t sum, const void *buf, size_t len);

/** Fold a 64-bit ones'-complement sum to 16 bits (not inverted). Always
 *  inline: GCC made it a call in a sender with many live registers. */
static __rte_always_inline uint16_t
tfo_cksum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffffull) + (sum >> 32);
	sum = (sum & 0xffffffffull) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/**
 * Sum of the TCP/UDP pseudo-header (addresses, protocol, @p l4_len), not
 * folded. @p family AF_INET or AF_INET6.
 */
uint64_t tfo_cksum_pseudo(int family, const struct tfo_addr *src,
			  const struct tfo_addr *dst, uint8_t proto,
			  uint32_t l4_len);

/**
 * Sum (not folded) of @p len bytes of the chain @p m from offset @p off,
 * with the byte pairing kept across segments of any length: what a
 * receiver computes over the frame it gets.
 */
uint64_t tfo_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len);

/* ---- building ---------------------------------------------------------- */

/**
 * Where a reply goes: everything needed to address a frame to a peer,
 * taken (reversed) from a frame it sent us. The TCP engine keeps one per
 * connection.
 */
struct tfo_route {
	struct rte_ether_addr peer_mac;
	uint16_t vlan_tci;
	uint8_t has_vlan;
	uint8_t family;
	uint8_t local_idx;	/**< global index of our address */
	uint8_t port_idx;	/**< index into the port table */
	struct tfo_addr local;
	struct tfo_addr peer;
};

/** Fill @p r to answer the frame @p p received on port index @p port_idx. */
void tfo_route_from_pkt(struct tfo_route *r, const struct rte_mbuf *m,
			const struct tfo_pkt *p, uint8_t port_idx);

/** The fields of an outgoing TCP segment. */
struct tfo_tcp_out {
	uint16_t sport;		/**< host order */
	uint16_t dport;
	uint32_t seq;
	uint32_t ack;
	uint16_t window;	/**< already scaled down */
	uint8_t flags;		/**< TFO_TCP_* */
	uint8_t opt_len;	/**< multiple of 4, at most 40 */
	const uint8_t *opts;
};

/** Bytes of Ethernet(+VLAN)+IP+TCP header (without options) for @p r. */
static inline uint16_t
tfo_pkt_hdr_len(const struct tfo_route *r)
{
	return (uint16_t)(RTE_ETHER_HDR_LEN + (r->has_vlan ? 4 : 0) +
			  (r->family == AF_INET ? 20 : 40) + TFO_TCP_HDR_LEN);
}

/**
 * Prepend Ethernet, optional VLAN, IPv4/IPv6 and TCP headers (with @p t's
 * options) to @p m, which holds the TCP payload already (possibly chained
 * or in external buffers), and fill in the checksums: through the port's TX
 * offloads when @p port has them (ol_flags, l2/l3/l4_len, pseudo-header
 * sum), in software otherwise.
 *
 * @return 0, or -ENOSPC when @p m lacks headroom for the headers.
 */
int tfo_pkt_prepend_tcp(struct rte_mbuf *m, const struct tfo_port_info *port,
			const struct tfo_route *r, const struct tfo_tcp_out *t);

/**
 * Prepend Ethernet, optional VLAN, IPv4 (DF set) or IPv6 and UDP headers
 * from our port @p sport to the peer's @p dport to @p m, which holds the
 * UDP payload (one segment or a chain), with the UDP checksum through the
 * port's offload or in software (0 sent as 0xffff, RFC 768).
 *
 * @return 0, or -ENOSPC when @p m lacks headroom for the headers.
 */
int tfo_pkt_prepend_udp(struct rte_mbuf *m, const struct tfo_port_info *port,
			const struct tfo_route *r, uint16_t sport, uint16_t dport);

/**
 * Address lookup: global index of @p a among the addresses of @p port, or -1.
 * Used by classification; exposed for the control core.
 */
int tfo_port_addr_lookup(const struct tfo_port_info *port, int family,
			 const struct tfo_addr *a);

#ifdef __cplusplus
}
#endif

#endif /* TFO_PKT_H */
