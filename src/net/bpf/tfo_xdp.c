/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tfo-fastpath: the XDP program of a net_af_xdp port with [port] xdp = own
 * (docs/runbook.md, "AF_XDP"). Built with clang's BPF target, embedded in
 * tfo-server, loaded by net_af_xdp (xdp_prog=) and filled by src/net/xdp.c.
 *
 * It hands to the AF_XDP socket of the frame's RX queue only what
 * tfo-server serves: TCP to a (served address, service port) of the
 * tfo_served map, UDP to one whose service has udp = on (the map's value
 * says which), and ICMP "fragmentation needed" / ICMPv6 "packet too big"
 * whose quoted TCP segment left from one (path-MTU discovery of our
 * connections). Everything else (ARP, ND, ping, SSH, the host's other
 * UDP, other TCP ports, VLAN tags, IPv6 extension headers) is XDP_PASS:
 * the kernel keeps it, at the kernel's speed. So are IP fragments, UDP's
 * included: a later fragment carries no port to look up, and tfo-server
 * does not reassemble (it drops a fragment, drop_ipv4_frag): were the
 * first fragment ours, the kernel would hold the rest for ipfrag_time
 * waiting for it. The kernel gets them all, reassembles the datagram and
 * gives it to its own socket on that port, or answers ICMP port
 * unreachable. An empty map (before tfo-server filled it) or a queue
 * without a socket (tfo-server gone) passes too.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "tfo_xdp.h"

/* linux/icmp.h pulls in the C library's headers (not for BPF): the few
 * ICMP definitions needed here */
struct icmphdr {
	__u8 type;
	__u8 code;
	__sum16 checksum;
	__be32 rest;
};

struct icmp6hdr {
	__u8 icmp6_type;
	__u8 icmp6_code;
	__sum16 icmp6_cksum;
	__be32 rest;
};

#define ICMP_DEST_UNREACH	3
#define ICMP_FRAG_NEEDED	4
#define ICMPV6_PKT_TOOBIG	2

/* net_af_xdp looks this map up by name and puts queue i's socket at i */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, TFO_XDP_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

/* what tfo-server serves: filled after the load (src/net/xdp.c); the
 * value is TFO_XDP_SERVE_* bits */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TFO_XDP_MAX_SERVED);
	__type(key, struct tfo_xdp_key);
	__type(value, __u32);
} tfo_served SEC(".maps");

/* per CPU: frames redirected, and frames left to the kernel */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TFO_XDP_NB_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} tfo_xdp_stats SEC(".maps");

static __always_inline int
count(int verdict, __u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&tfo_xdp_stats, &which);

	if (v != NULL)
		*v += 1;
	return verdict;
}

/* Is (@p k) served over @p proto (TFO_XDP_SERVE_TCP or _UDP)? */
static __always_inline int
served(const struct tfo_xdp_key *k, __u32 proto)
{
	__u32 *v = bpf_map_lookup_elem(&tfo_served, k);

	return v != NULL && (*v & proto) != 0;
}

/* Ours: to the socket of this RX queue (XDP_PASS when it has none). */
static __always_inline int
to_socket(struct xdp_md *ctx)
{
	count(0, TFO_XDP_REDIRECTED);
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

static __always_inline int
pass(void)
{
	return count(XDP_PASS, TFO_XDP_PASSED);
}

/* TCP or UDP (@p l4proto) at @p l4 to the address in @p k: ours if the
 * pair is served over that protocol. Both headers put the destination
 * port at byte 2; a TCP header must be whole, as before UDP. */
static __always_inline int
to_port(struct xdp_md *ctx, struct tfo_xdp_key *k, __u8 l4proto, void *l4, void *end)
{
	struct udphdr *uh = l4;

	if (l4proto == IPPROTO_TCP ? l4 + sizeof(struct tcphdr) > end :
				     (void *)(uh + 1) > end)
		return pass();
	k->port = uh->dest;
	return served(k, l4proto == IPPROTO_TCP ? TFO_XDP_SERVE_TCP : TFO_XDP_SERVE_UDP) ?
	       to_socket(ctx) : pass();
}

/* IPv4 from @ip on: TCP or served UDP to us, or a frag-needed quoting
 * one of our segments. */
static __always_inline int
v4(struct xdp_md *ctx, struct iphdr *ip, void *end)
{
	struct tfo_xdp_key k = { .family = TFO_XDP_V4 };
	struct tcphdr *th;
	struct icmphdr *ic;
	struct iphdr *q;

	if ((void *)(ip + 1) > end || ip->ihl < 5 ||
	    (ip->frag_off & bpf_htons(0x3fff)) != 0)	/* MF or an offset */
		return pass();
	if (ip->protocol == IPPROTO_TCP || ip->protocol == IPPROTO_UDP) {
		__builtin_memcpy(k.addr, &ip->daddr, 4);
		return to_port(ctx, &k, ip->protocol, (void *)ip + ip->ihl * 4, end);
	}
	if (ip->protocol != IPPROTO_ICMP)
		return pass();
	ic = (void *)ip + ip->ihl * 4;
	if ((void *)(ic + 1) > end || ic->type != ICMP_DEST_UNREACH ||
	    ic->code != ICMP_FRAG_NEEDED)
		return pass();
	/* the quote: our segment's IP header and its first 8 bytes */
	q = (void *)(ic + 1);
	if ((void *)(q + 1) > end || q->ihl != 5 || q->protocol != IPPROTO_TCP)
		return pass();
	th = (void *)(q + 1);
	if ((void *)th + 4 > end)
		return pass();
	k.port = th->source;
	__builtin_memcpy(k.addr, &q->saddr, 4);
	return served(&k, TFO_XDP_SERVE_TCP) ? to_socket(ctx) : pass();
}

/* IPv6 from @ip on: TCP or served UDP to us (no extension headers: a
 * Fragment header is one), or a packet too big quoting one of our TCP
 * segments. */
static __always_inline int
v6(struct xdp_md *ctx, struct ipv6hdr *ip, void *end)
{
	struct tfo_xdp_key k = { .family = TFO_XDP_V6 };
	struct tcphdr *th;
	struct icmp6hdr *ic;
	struct ipv6hdr *q;

	if ((void *)(ip + 1) > end)
		return pass();
	if (ip->nexthdr == IPPROTO_TCP || ip->nexthdr == IPPROTO_UDP) {
		__builtin_memcpy(k.addr, &ip->daddr, 16);
		return to_port(ctx, &k, ip->nexthdr, ip + 1, end);
	}
	if (ip->nexthdr != IPPROTO_ICMPV6)
		return pass();
	ic = (void *)(ip + 1);
	if ((void *)(ic + 1) > end || ic->icmp6_type != ICMPV6_PKT_TOOBIG)
		return pass();
	q = (void *)(ic + 1);
	if ((void *)(q + 1) > end || q->nexthdr != IPPROTO_TCP)
		return pass();
	th = (void *)(q + 1);
	if ((void *)th + 4 > end)
		return pass();
	k.port = th->source;
	__builtin_memcpy(k.addr, &q->saddr, 16);
	return served(&k, TFO_XDP_SERVE_TCP) ? to_socket(ctx) : pass();
}

SEC("xdp")
int
tfo_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eh = data;

	if ((void *)(eh + 1) > end)
		return pass();
	if (eh->h_proto == bpf_htons(ETH_P_IP))
		return v4(ctx, (void *)(eh + 1), end);
	if (eh->h_proto == bpf_htons(ETH_P_IPV6))
		return v6(ctx, (void *)(eh + 1), end);
	return pass();
}

char _license[] SEC("license") = "Dual BSD/GPL";
