/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: unit tests of the packet parser, the checksum helpers and
 * the TCP header builder (src/net/pkt.c).
 *
 * Frames are crafted byte by byte here, with a deliberately naive RFC 1071
 * checksum, so that nothing is checked against itself. The parser is given
 * each frame in an external buffer of exactly the frame's size: under ASan a
 * malloc() of that size (ASan poisons the next byte), otherwise a buffer that
 * ends at a PROT_NONE page. A read past the frame is a crash or an ASan
 * report, never a silent pass.
 */
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_net.h>
#include <rte_tcp.h>

#include "net/pkt.h"
#include "ops/stats.h"
#include "test.h"
#include "pkt_vectors.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifdef TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define D(r) TFO_PKT_DROP_##r

/* ---- addresses ---------------------------------------------------------- */

static const struct rte_ether_addr our_mac = {{ 0x02, 0, 0, 0, 0, 0x01 }};
static const struct rte_ether_addr peer_mac = {{ 0x02, 0, 0, 0, 0, 0x02 }};
static const struct rte_ether_addr other_mac = {{ 0x02, 0, 0, 0, 0, 0x03 }};
static const struct rte_ether_addr bcast_mac = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};

static const uint8_t our4[4] = { 198, 18, 0, 2 };
static const uint8_t our4b[4] = { 203, 0, 113, 7 };
static const uint8_t peer4[4] = { 198, 18, 0, 1 };
static const uint8_t our6[16] = { 0xfd, 0x00, 0x07, 0xf0, [15] = 0x02 };
/* EUI-64 link-local of our_mac */
static const uint8_t our6ll[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe,
				    [15] = 0x01 };
static const uint8_t peer6[16] = { 0xfd, 0x00, 0x07, 0xf0, [15] = 0x01 };
static const uint8_t peer6ll[16] = { 0xfe, 0x80, [8] = 0x12, [15] = 0x34 };

/* Global address indices: the port's addresses start at ADDR_BASE. */
#define ADDR_BASE 3
#define IDX_OUR4 (ADDR_BASE + 0)
#define IDX_OUR6 (ADDR_BASE + 1)
#define IDX_OUR4B (ADDR_BASE + 2)
#define IDX_OUR6LL (ADDR_BASE + 3)

static void
set_addr(struct tfo_local_addr *la, int family, const uint8_t *a, uint8_t plen)
{
	memset(la, 0, sizeof(*la));
	la->family = (uint8_t)family;
	la->prefix_len = plen;
	memcpy(la->addr.b, a, family == AF_INET ? 4 : 16);
}

static struct tfo_port_info
our_port(void)
{
	struct tfo_port_info pi;

	memset(&pi, 0, sizeof(pi));
	pi.port_id = 1;
	pi.mtu = 1500;
	pi.mac = our_mac;
	pi.addr_base = ADDR_BASE;
	pi.nb_addrs = 4;
	set_addr(&pi.addrs[0], AF_INET, our4, 24);
	set_addr(&pi.addrs[1], AF_INET6, our6, 64);
	set_addr(&pi.addrs[2], AF_INET, our4b, 24);
	set_addr(&pi.addrs[3], AF_INET6, our6ll, 64);
	return pi;
}

/* ---- PRNG (fixed seed: failures reproduce) ------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t
rnd(void)
{
	return tfo_test_rand(&rng_state);
}

static void
rnd_fill(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rnd();
}

/* ---- reference checksum: RFC 1071 as written ----------------------------- */

static uint16_t
ref_cksum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
		sum = (sum & 0xffff) + (sum >> 16);
	}
	if (len & 1) {
		sum += (uint32_t)p[len - 1] << 8;
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)sum;	/* host order, not inverted */
}

/* The pseudo-header (RFC 793 / RFC 8200 8.1) as bytes; returns its size. */
static size_t
ref_pseudo(uint8_t *out, int family, const uint8_t *src, const uint8_t *dst,
	   uint8_t proto, uint32_t l4_len)
{
	uint8_t *scratch = out;
	size_t n = 0;

	if (family == AF_INET) {
		memcpy(scratch, src, 4);
		memcpy(scratch + 4, dst, 4);
		scratch[8] = 0;
		scratch[9] = proto;
		scratch[10] = (uint8_t)(l4_len >> 8);
		scratch[11] = (uint8_t)l4_len;
		n = 12;
	} else if (family == AF_INET6) {
		memcpy(scratch, src, 16);
		memcpy(scratch + 16, dst, 16);
		scratch[32] = (uint8_t)(l4_len >> 24);
		scratch[33] = (uint8_t)(l4_len >> 16);
		scratch[34] = (uint8_t)(l4_len >> 8);
		scratch[35] = (uint8_t)l4_len;
		scratch[36] = scratch[37] = scratch[38] = 0;
		scratch[39] = proto;
		n = 40;
	}
	return n;
}

/* Sum over a pseudo-header followed by the L4 bytes, built in a scratch
 * buffer: slow and obviously right. */
static uint16_t
ref_l4_cksum(int family, const uint8_t *src, const uint8_t *dst, uint8_t proto,
	     const uint8_t *l4, uint32_t l4_len)
{
	static uint8_t scratch[40 + 70000];
	size_t n = ref_pseudo(scratch, family, src, dst, proto, l4_len);

	memcpy(scratch + n, l4, l4_len);
	return ref_cksum(scratch, n + l4_len);
}

/* ---- frame builder ------------------------------------------------------ */

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

#define FMAX 2048

enum fkind { F_RAW, F_ARP, F_IP };

/* A crafted frame and where its layers start. */
struct frame {
	uint8_t b[FMAX];
	uint16_t len;
	enum fkind kind;
	int family;
	uint8_t proto;
	uint16_t l3;	/* IP/ARP header */
	uint16_t l4;	/* L4 header */
	uint16_t pay;	/* TCP payload (= l4 for other protocols) */
	uint16_t end;	/* end of the IP datagram; padding follows */
};

static void
f_bytes(struct frame *f, const void *d, size_t n)
{
	memcpy(f->b + f->len, d, n);
	f->len = (uint16_t)(f->len + n);
}

static void
f_eth(struct frame *f, const struct rte_ether_addr *dst, uint16_t type)
{
	memset(f, 0, sizeof(*f));
	f_bytes(f, dst->addr_bytes, 6);
	f_bytes(f, peer_mac.addr_bytes, 6);
	put16(f->b + 12, type);
	f->len = 14;
	f->l3 = f->l4 = f->pay = f->end = f->len;
}

/* Append a VLAN tag; the caller gave 0x8100 as the Ethernet type. */
static void
f_vlan(struct frame *f, uint16_t tci, uint16_t type)
{
	put16(f->b + f->len, tci);
	put16(f->b + f->len + 2, type);
	f->len = (uint16_t)(f->len + 4);
	f->l3 = f->l4 = f->pay = f->end = f->len;
}

static void
f_eth_l2(struct frame *f, const struct rte_ether_addr *dst, int vlan,
	 uint16_t type)
{
	if (vlan) {
		f_eth(f, dst, RTE_ETHER_TYPE_VLAN);
		f_vlan(f, 0xa123, type);	/* PCP 5, DEI 0, VID 0x123 */
	} else {
		f_eth(f, dst, type);
	}
}

static void
f_ipv4(struct frame *f, const uint8_t *src, const uint8_t *dst, uint8_t proto,
       const uint8_t *opts, uint8_t opt_len)
{
	uint8_t *h = f->b + f->len;

	f->kind = F_IP;
	f->family = AF_INET;
	f->proto = proto;
	f->l3 = f->len;
	h[0] = (uint8_t)(0x40 | ((20 + opt_len) / 4));
	h[1] = 0x10;
	put16(h + 2, 0);		/* set by f_done */
	put16(h + 4, 0x1234);
	put16(h + 6, 0x4000);		/* DF */
	h[8] = 61;
	h[9] = proto;
	put16(h + 10, 0);
	memcpy(h + 12, src, 4);
	memcpy(h + 16, dst, 4);
	f->len = (uint16_t)(f->len + 20);
	if (opt_len)
		f_bytes(f, opts, opt_len);
	f->l4 = f->pay = f->end = f->len;
}

static void
f_ipv6(struct frame *f, const uint8_t *src, const uint8_t *dst, uint8_t nh,
       uint8_t hlim)
{
	uint8_t *h = f->b + f->len;

	f->kind = F_IP;
	f->family = AF_INET6;
	f->proto = nh;
	f->l3 = f->len;
	put32(h, 0x6a012345);		/* TC 0xa0, flow label 0x12345 */
	put16(h + 4, 0);
	h[6] = nh;
	h[7] = hlim;
	memcpy(h + 8, src, 16);
	memcpy(h + 24, dst, 16);
	f->len = (uint16_t)(f->len + 40);
	f->l4 = f->pay = f->end = f->len;
}

#define T_SPORT 40001
#define T_DPORT 80
#define T_SEQ 0x01020304u
#define T_ACK 0xa0b0c0d0u
#define T_WIN 0xfedc
#define T_FLAGS (TFO_TCP_SYN | TFO_TCP_ECE | TFO_TCP_CWR)

static void
f_tcp(struct frame *f, uint16_t sport, uint16_t dport, uint8_t flags,
      const uint8_t *opts, uint8_t opt_len)
{
	uint8_t *h = f->b + f->len;

	f->l4 = f->len;
	put16(h, sport);
	put16(h + 2, dport);
	put32(h + 4, T_SEQ);
	put32(h + 8, T_ACK);
	h[12] = (uint8_t)(((20 + opt_len) / 4) << 4);
	h[13] = flags;
	put16(h + 14, T_WIN);
	put16(h + 16, 0);
	put16(h + 18, 0);
	f->len = (uint16_t)(f->len + 20);
	if (opt_len)
		f_bytes(f, opts, opt_len);
	f->pay = f->end = f->len;
}

/* ICMP/ICMPv6 header: type, code, checksum, 4 bytes of "rest". */
static void
f_icmp(struct frame *f, uint8_t type, uint8_t code, uint32_t rest)
{
	uint8_t *h = f->b + f->len;

	f->l4 = f->pay = f->len;
	h[0] = type;
	h[1] = code;
	put16(h + 2, 0);
	put32(h + 4, rest);
	f->len = (uint16_t)(f->len + 8);
	f->end = f->len;
}

static void
f_payload(struct frame *f, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		f->b[f->len + i] = (uint8_t)(0x30 + i * 7);
	f->len = (uint16_t)(f->len + n);
	f->end = f->len;
}

static uint16_t
l4_cksum_off(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return 16;
	case IPPROTO_UDP:
		return 6;
	default:
		return 2;	/* ICMP, ICMPv6 */
	}
}

/* Recompute the IP header checksum and the L4 checksum over [l4, end). */
static void
f_cksums(struct frame *f)
{
	uint8_t *ip = f->b + f->l3;
	uint32_t l4_len = (uint32_t)(f->end - f->l4);
	uint16_t co = l4_cksum_off(f->proto);
	uint16_t c;

	if (f->kind != F_IP)
		return;
	if (f->family == AF_INET) {
		uint16_t ihl = (uint16_t)((ip[0] & 0xf) * 4);

		if (f->l3 + 20 <= f->end) {
			put16(ip + 10, 0);
			if (f->l3 + ihl <= f->end)
				put16(ip + 10, (uint16_t)~ref_cksum(ip, ihl));
		}
	}
	if (f->l4 >= f->end || l4_len < (uint32_t)co + 2)
		return;
	put16(f->b + f->l4 + co, 0);
	if (f->family == AF_INET && f->proto != IPPROTO_TCP &&
	    f->proto != IPPROTO_UDP)
		c = (uint16_t)~ref_cksum(f->b + f->l4, l4_len);
	else
		c = (uint16_t)~ref_l4_cksum(f->family, ip + (f->family == AF_INET ? 12 : 8),
					    ip + (f->family == AF_INET ? 16 : 24),
					    f->proto, f->b + f->l4, l4_len);
	if (f->proto == IPPROTO_UDP && c == 0)
		c = 0xffff;
	put16(f->b + f->l4 + co, c);
}

/* Set the IP length field so that the datagram ends at @end, and fix the
 * checksums. */
static void
f_set_end(struct frame *f, uint16_t end)
{
	uint8_t *ip = f->b + f->l3;

	f->end = end;
	if (f->kind == F_IP && f->family == AF_INET)
		put16(ip + 2, (uint16_t)(end - f->l3));
	else if (f->kind == F_IP)
		put16(ip + 4, (uint16_t)(end - f->l3 - 40));
	f_cksums(f);
}

static void
f_done(struct frame *f)
{
	if (f->kind != F_IP)
		f->end = f->len;
	else
		f_set_end(f, f->len);
}

/* Ethernet padding up to @min bytes (after f_done: not part of the IP
 * datagram); @fill makes it visible if anyone sums it. */
static void
f_pad(struct frame *f, uint16_t min, uint8_t fill)
{
	while (f->len < min)
		f->b[f->len++] = fill;
}

/* ---- frame templates ---------------------------------------------------- */

static const uint8_t syn_opts[20] = {
	2, 4, 0x05, 0xb4,			/* MSS 1460 */
	4, 2,					/* SACK permitted */
	8, 10, 1, 2, 3, 4, 0, 0, 0, 0,		/* timestamps */
	1,					/* NOP */
	3, 3, 7,				/* window scale 7 */
};
/* Router alert + NOP padding + timestamp option with room for 1 entry. */
static const uint8_t ip_opts[12] = {
	0x94, 4, 0, 0,
	0x44, 8, 5, 0, 0, 0, 0, 0,
};

static void
mk_tcp(struct frame *f, int family, int vlan, uint8_t ip_opt_len,
       uint8_t tcp_opt_len, uint16_t pay)
{
	f_eth_l2(f, &our_mac, vlan,
		 family == AF_INET ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	if (family == AF_INET)
		f_ipv4(f, peer4, our4, IPPROTO_TCP, ip_opts, ip_opt_len);
	else
		f_ipv6(f, peer6, our6, IPPROTO_TCP, 64);
	f_tcp(f, T_SPORT, T_DPORT, T_FLAGS, syn_opts, tcp_opt_len);
	f_payload(f, pay);
	f_done(f);
}

static void
mk_arp(struct frame *f, int vlan, uint16_t op)
{
	uint8_t a[28];

	f_eth_l2(f, &bcast_mac, vlan, RTE_ETHER_TYPE_ARP);
	f->kind = F_ARP;
	put16(a, 1);			/* Ethernet */
	put16(a + 2, RTE_ETHER_TYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, op);
	memcpy(a + 8, peer_mac.addr_bytes, 6);
	memcpy(a + 14, peer4, 4);
	memset(a + 18, 0, 6);
	memcpy(a + 24, our4, 4);
	f_bytes(f, a, sizeof(a));
	f->l4 = f->pay = f->end = f->len;
}

static void
mk_icmp4(struct frame *f, int vlan, uint8_t ip_opt_len, uint16_t data)
{
	f_eth_l2(f, &our_mac, vlan, RTE_ETHER_TYPE_IPV4);
	f_ipv4(f, peer4, our4b, IPPROTO_ICMP, ip_opts, ip_opt_len);
	f_icmp(f, 8, 0, 0x00420001);
	f_payload(f, data);
	f_done(f);
}

static void
mk_icmp6_echo(struct frame *f, int vlan, uint16_t data)
{
	f_eth_l2(f, &our_mac, vlan, RTE_ETHER_TYPE_IPV6);
	f_ipv6(f, peer6, our6, IPPROTO_ICMPV6, 64);
	f_icmp(f, 128, 0, 0x00430002);
	f_payload(f, data);
	f_done(f);
}

/* Neighbor Solicitation for @target, sent to its solicited-node group. */
static void
mk_ns(struct frame *f, const uint8_t *src, const uint8_t *target)
{
	struct rte_ether_addr mc = {{ 0x33, 0x33, 0xff, target[13], target[14],
				      target[15] }};
	uint8_t dst[16] = { 0xff, 0x02, [11] = 1, [12] = 0xff };
	uint8_t slla[8] = { 1, 1 };

	memcpy(dst + 13, target + 13, 3);
	memcpy(slla + 2, peer_mac.addr_bytes, 6);
	f_eth_l2(f, &mc, 0, RTE_ETHER_TYPE_IPV6);
	f_ipv6(f, src, dst, IPPROTO_ICMPV6, 255);
	f_icmp(f, 135, 0, 0);
	f_bytes(f, target, 16);
	f_bytes(f, slla, sizeof(slla));
	f_done(f);
}

/*
 * An IPv6 extension header for f_ipv6_ext(): @type (IPPROTO_HOPOPTS, ...),
 * @len its whole size (a multiple of 8), @body its bytes after the next
 * header and length bytes (@len - 2 of them; NULL: zeros, i.e. Pad1s).
 */
struct ext_hdr {
	uint8_t type;
	uint16_t len;
	const uint8_t *body;
};

/* HBH/DO bodies (6 bytes: one 8-byte header) */
static const uint8_t opt_padn4[6] = { 1, 4, 0, 0, 0, 0 };
static const uint8_t opt_router_alert[6] = { 5, 2, 0, 0, 1, 0 };	/* RA MLD, PadN 0 */
/* Routing header type 0 (RFC 2460) with one address and segments left 0 */
static const uint8_t rh0_body[22] = { 0, 0, 0, 0, 0, 0, 0xfd, 0, 0x07, 0xf0, [21] = 0x09 };

/*
 * An IPv6 header followed by the extension headers @x[0..n-1], chained
 * by their next-header fields, the last one's pointing to @nh; f->proto is
 * the upper layer's, so f_cksums() sums it over the final destination.
 */
static void
f_ipv6_ext(struct frame *f, const uint8_t *src, const uint8_t *dst, uint8_t nh,
	   uint8_t hlim, const struct ext_hdr *x, unsigned int n)
{
	f_ipv6(f, src, dst, n > 0 ? x[0].type : nh, hlim);
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *h = f->b + f->len;

		memset(h, 0, x[i].len);
		h[0] = i + 1 < n ? x[i + 1].type : nh;
		h[1] = (uint8_t)(x[i].len / 8 - 1);
		if (x[i].body != NULL)
			memcpy(h + 2, x[i].body, x[i].len - 2u);
		f->len = (uint16_t)(f->len + x[i].len);
	}
	f->proto = nh;
	f->l4 = f->pay = f->end = f->len;
}

/* A TCP SYN (options, 7 bytes of data) behind extension headers. */
static void
mk_tcp6_ext(struct frame *f, int vlan, const struct ext_hdr *x, unsigned int n)
{
	f_eth_l2(f, &our_mac, vlan, RTE_ETHER_TYPE_IPV6);
	f_ipv6_ext(f, peer6, our6, IPPROTO_TCP, 64, x, n);
	f_tcp(f, T_SPORT, T_DPORT, T_FLAGS, syn_opts, 20);
	f_payload(f, 7);
	f_done(f);
}

/* Hop-by-Hop (PadN), Destination Options (PadN), Routing type 0 left 0. */
static const struct ext_hdr ext_hbh_do_rh[] = {
	{ IPPROTO_HOPOPTS, 8, opt_padn4 },
	{ IPPROTO_DSTOPTS, 8, opt_padn4 },
	{ IPPROTO_ROUTING, 24, rh0_body },
};

/* An MLDv2 report (RFC 3810: type 143, one record) to ff02::16, with the
 * Hop-by-Hop router alert every MLD message carries. */
static void
mk_mld_report(struct frame *f, bool hbh)
{
	static const uint8_t mld_routers[16] = { 0xff, 0x02, [15] = 0x16 };
	static const struct rte_ether_addr mc = {{ 0x33, 0x33, 0, 0, 0, 0x16 }};
	const struct ext_hdr ra = { IPPROTO_HOPOPTS, 8, opt_router_alert };
	/* record: type 4 (CHANGE_TO_EXCLUDE), no sources, the group */
	uint8_t rec[20] = { 4, 0, 0, 0, 0xff, 0x02, [15] = 0x01, [16] = 0xff };

	memcpy(rec + 17, our6 + 13, 3);
	f_eth_l2(f, &mc, 0, RTE_ETHER_TYPE_IPV6);
	f_ipv6_ext(f, peer6ll, mld_routers, IPPROTO_ICMPV6, 1, &ra, hbh ? 1 : 0);
	f_icmp(f, 143, 0, 1);		/* reserved, 1 record */
	f_bytes(f, rec, sizeof(rec));
	f_done(f);
}

/* ---- mbufs over exact-size buffers -------------------------------------- */

static struct rte_mempool *pool;

static void
setup(void)
{
	if (pool != NULL)
		return;
	tfo_test_eal_init("test_pkt", 64, (const char *)NULL);
	pool = rte_pktmbuf_pool_create("test_pkt", 1023, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (pool == NULL) {
		printf("FAIL: cannot create the mbuf pool\n");
		exit(1);
	}
}

struct xbuf {
	struct rte_mbuf_ext_shared_info shinfo;
	void *map;
	size_t map_len;
};

static void
xbuf_free_cb(void *addr, void *opaque)
{
	struct xbuf *x = opaque;

#ifdef TEST_ASAN
	free(addr);
#else
	RTE_SET_USED(addr);
	munmap(x->map, x->map_len);
#endif
	free(x);
}

/* @len bytes that end where readable memory ends. */
static uint8_t *
xbuf_alloc(size_t len, struct xbuf **xp)
{
	struct xbuf *x = calloc(1, sizeof(*x));
	uint8_t *data;

	if (x == NULL)
		abort();
#ifdef TEST_ASAN
	data = malloc(len);
	if (data == NULL)
		abort();
#else
	{
		size_t pg = (size_t)sysconf(_SC_PAGESIZE);
		size_t body = RTE_ALIGN_CEIL(len + 1, pg);
		uint8_t *map = mmap(NULL, body + pg, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (map == MAP_FAILED || mprotect(map + body, pg, PROT_NONE) != 0)
			abort();
		x->map = map;
		x->map_len = body + pg;
		/* keep the start 2-aligned like a PMD's; an odd frame then
		 * has one byte of slack before the guard page */
		data = map + body - RTE_ALIGN_CEIL(len, 2);
	}
#endif
	rte_mbuf_ext_refcnt_set(&x->shinfo, 1);
	x->shinfo.free_cb = xbuf_free_cb;
	x->shinfo.fcb_opaque = x;
	*xp = x;
	return data;
}

static struct rte_mbuf *
seg_exact(const uint8_t *bytes, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct xbuf *x;
	uint8_t *data;

	if (m == NULL)
		abort();
	data = xbuf_alloc(len, &x);
	memcpy(data, bytes, len);
	rte_pktmbuf_attach_extbuf(m, data, 0, len, &x->shinfo);
	m->data_len = len;
	m->pkt_len = len;
	return m;
}

/* The first @len bytes of @bytes in one exact-size segment. */
static struct rte_mbuf *
mk_mbuf(const uint8_t *bytes, uint16_t len, uint64_t ol_flags)
{
	struct rte_mbuf *m;

	setup();
	m = seg_exact(bytes, len);
	m->ol_flags |= ol_flags;
	return m;
}

/* @len bytes cut at @cuts (ascending) into nb_cuts + 1 exact segments. */
static struct rte_mbuf *
mk_chain(const uint8_t *bytes, uint16_t len, const uint16_t *cuts,
	 unsigned int nb_cuts)
{
	struct rte_mbuf *head = NULL;
	uint16_t from = 0;

	setup();
	for (unsigned int i = 0; i <= nb_cuts; i++) {
		uint16_t to = i < nb_cuts ? cuts[i] : len;
		struct rte_mbuf *s = seg_exact(bytes + from, (uint16_t)(to - from));

		if (head == NULL)
			head = s;
		else if (rte_pktmbuf_chain(head, s) != 0)
			abort();
		from = to;
	}
	return head;
}

static struct tfo_pkt
parse_m(const struct rte_mbuf *m, const struct tfo_port_info *pi)
{
	struct tfo_pkt p;
	enum tfo_pkt_class c;

	/* poison: every field the parser reports must have been written */
	memset(&p, 0xa5, sizeof(p));
	c = tfo_pkt_classify(m, pi, &p);
	if (c != p.cls) {
		fprintf(stderr, "  return value %d != p.cls %d\n", c, p.cls);
		p.cls = 0xee;
	}
	return p;
}

/* Parse the first @len bytes of @f, exact-size buffer, on our port. */
static struct tfo_pkt
parse_n(const struct frame *f, uint16_t len, uint64_t ol_flags,
	const struct tfo_port_info *pi)
{
	struct rte_mbuf *m = mk_mbuf(f->b, len, ol_flags);
	struct tfo_pkt p = parse_m(m, pi);

	rte_pktmbuf_free(m);
	return p;
}

static struct tfo_pkt
parse_f(const struct frame *f)
{
	struct tfo_port_info pi = our_port();

	return parse_n(f, f->len, 0, &pi);
}

/* Expect a drop for @reason; print the class/reason seen otherwise. */
#define CHECK_DROP(p, reason) do { \
	struct tfo_pkt chk_p_ = (p); \
	CHECK_MSG(chk_p_.cls == TFO_PKT_DROP && chk_p_.drop == (reason), \
		  "%s: cls %u drop %s, want %s", #p, chk_p_.cls, \
		  tfo_pkt_drop_name((enum tfo_pkt_drop)chk_p_.drop), \
		  tfo_pkt_drop_name(reason)); \
} while (0)

/* Every field of a TCP parse against the frame it came from. */
static void
check_tcp_fields(const struct tfo_pkt *p, const struct frame *f, int idx)
{
	const uint8_t *ip = f->b + f->l3;
	const uint8_t *th = f->b + f->l4;
	struct tfo_addr src = {{ 0 }}, dst = {{ 0 }};

	CHECK_EQ(p->cls, TFO_PKT_TCP);
	CHECK_EQ(p->drop, TFO_PKT_DROP_NONE);
	CHECK_EQ(p->family, f->family);
	CHECK_EQ(p->l4proto, IPPROTO_TCP);
	CHECK_EQ(p->has_vlan, f->l3 == 18);
	CHECK_EQ(p->vlan_tci, f->l3 == 18 ? get16(f->b + 14) : 0);
	CHECK_EQ(p->local_idx, idx);
	CHECK_EQ(p->l2_len, f->l3);
	CHECK_EQ(p->l3_len, f->l4 - f->l3);
	CHECK_EQ(p->l4_len, f->pay - f->l4);
	CHECK_EQ(p->payload_off, f->pay);
	CHECK_EQ(p->payload_len, f->end - f->pay);
	CHECK_EQ(p->sport, get16(th));
	CHECK_EQ(p->dport, get16(th + 2));
	CHECK_EQ(p->seq, (uint32_t)get16(th + 4) << 16 | get16(th + 6));
	CHECK_EQ(p->ack, (uint32_t)get16(th + 8) << 16 | get16(th + 10));
	CHECK_EQ(p->tcp_flags, th[13]);
	CHECK_EQ(p->window, get16(th + 14));
	if (f->family == AF_INET) {
		memcpy(src.b, ip + 12, 4);
		memcpy(dst.b, ip + 16, 4);
	} else {
		memcpy(src.b, ip + 8, 16);
		memcpy(dst.b, ip + 24, 16);
	}
	CHECK_MEM(p->src.b, src.b, 16);
	CHECK_MEM(p->dst.b, dst.b, 16);
}

/* ---- sanity of the harness itself --------------------------------------- */

TFO_TEST(harness_catches_overread)
{
	struct xbuf *x;
	uint8_t *d;
	struct frame f;

	setup();
	d = xbuf_alloc(61, &x);
#ifdef TEST_ASAN
	CHECK(!__asan_address_is_poisoned(d + 60));
	CHECK(__asan_address_is_poisoned(d + 61));
#else
	{
		pid_t pid = fork();
		int st = 0;

		if (pid == 0) {
			volatile const uint8_t *v = d;

			signal(SIGSEGV, SIG_DFL);
			(void)v[62];	/* past the 1 byte of slack */
			_exit(0);
		}
		REQUIRE(pid > 0);
		waitpid(pid, &st, 0);
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
	}
#endif
	xbuf_free_cb(d, x);

	/* the reference checksums agree with DPDK's on a crafted frame */
	mk_tcp(&f, AF_INET, 0, 12, 20, 33);
	{
		/* with options: rte_ipv4_cksum sums IHL * 4 bytes */
		CHECK_EQ(rte_ipv4_cksum((const struct rte_ipv4_hdr *)(f.b + f.l3)), 0);
		CHECK_EQ(rte_ipv4_udptcp_cksum_verify(
			(const struct rte_ipv4_hdr *)(f.b + f.l3), f.b + f.l4), 0);
	}
}

/* ---- valid frames -------------------------------------------------------- */

TFO_TEST(parse_ipv4_tcp)
{
	struct frame f;
	struct tfo_pkt p;

	mk_tcp(&f, AF_INET, 0, 0, 20, 17);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR4);
	CHECK_EQ(p.l2_len, 14);
	CHECK_EQ(p.l3_len, 20);
	CHECK_EQ(p.l4_len, 40);
	CHECK_EQ(p.payload_off, 74);
	CHECK_EQ(p.payload_len, 17);
	CHECK_EQ(p.sport, T_SPORT);
	CHECK_EQ(p.seq, T_SEQ);
	CHECK_EQ(p.ack, T_ACK);
	CHECK_EQ(p.window, T_WIN);
	CHECK_EQ(p.tcp_flags, T_FLAGS);
	CHECK_MEM(p.dst.b, our4, 4);

	/* the second IPv4 address of the port: its own index */
	f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV4);
	f_ipv4(&f, peer4, our4b, IPPROTO_TCP, NULL, 0);
	f_tcp(&f, 1, 65535, TFO_TCP_ACK | TFO_TCP_FIN | TFO_TCP_PSH |
	      TFO_TCP_URG | TFO_TCP_RST, NULL, 0);
	f_done(&f);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR4B);
	CHECK_EQ(p.payload_len, 0);

	/* tfo_pkt_tcp_hdr points at the TCP header */
	{
		struct rte_mbuf *m = mk_mbuf(f.b, f.len, 0);
		struct tfo_port_info pi = our_port();

		p = parse_m(m, &pi);
		CHECK(tfo_pkt_tcp_hdr(m, &p) ==
		      rte_pktmbuf_mtod_offset(m, uint8_t *, f.l4));
		rte_pktmbuf_free(m);
	}
}

TFO_TEST(parse_ipv4_options_skipped)
{
	for (uint8_t ol = 4; ol <= 40; ol += 4) {
		uint8_t opts[40];
		struct frame f;
		struct tfo_pkt p;

		/* NOPs then EOL, or a run of unknown options: never read */
		memset(opts, ol & 8 ? 1 : 0x99, sizeof(opts));
		opts[ol - 1] = 0;
		f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV4);
		f_ipv4(&f, peer4, our4, IPPROTO_TCP, opts, ol);
		f_tcp(&f, T_SPORT, T_DPORT, T_FLAGS, syn_opts, 8);
		f_payload(&f, 3);
		f_done(&f);
		p = parse_f(&f);
		check_tcp_fields(&p, &f, IDX_OUR4);
		CHECK_EQ(p.l3_len, 20 + ol);
	}
}

TFO_TEST(parse_ipv6_tcp)
{
	struct frame f;
	struct tfo_pkt p;

	mk_tcp(&f, AF_INET6, 0, 0, 20, 100);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR6);
	CHECK_EQ(p.l3_len, 40);
	CHECK_EQ(p.payload_off, 14 + 40 + 40);
	CHECK_MEM(p.src.b, peer6, 16);

	/* to the link-local address, from a link-local peer */
	f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV6);
	f_ipv6(&f, peer6ll, our6ll, IPPROTO_TCP, 64);
	f_tcp(&f, T_SPORT, 7, TFO_TCP_ACK, NULL, 0);
	f_payload(&f, 1);
	f_done(&f);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR6LL);
}

TFO_TEST(parse_vlan)
{
	struct frame f;
	struct tfo_pkt p;

	mk_tcp(&f, AF_INET, 1, 8, 12, 5);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR4);
	CHECK_EQ(p.has_vlan, 1);
	CHECK_EQ(p.vlan_tci, 0xa123);
	CHECK_EQ(p.l2_len, 18);

	mk_tcp(&f, AF_INET6, 1, 0, 0, 0);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR6);
	CHECK_EQ(p.l2_len, 18);

	/* VLAN 0 (priority tag) and the maximum VID */
	for (int i = 0; i < 2; i++) {
		mk_tcp(&f, AF_INET, 1, 0, 0, 0);
		put16(f.b + 14, i ? 0xffff : 0);
		p = parse_f(&f);
		check_tcp_fields(&p, &f, IDX_OUR4);
		CHECK_EQ(p.vlan_tci, i ? 0xffff : 0);
	}
}

TFO_TEST(parse_arp)
{
	struct frame f;
	struct tfo_pkt p;

	for (int vlan = 0; vlan < 2; vlan++) {
		for (uint16_t op = 1; op <= 2; op++) {
			mk_arp(&f, vlan, op);
			p = parse_f(&f);
			CHECK_EQ(p.cls, TFO_PKT_ARP);
			CHECK_EQ(p.drop, TFO_PKT_DROP_NONE);
			CHECK_EQ(p.family, 0);
			CHECK_EQ(p.l2_len, vlan ? 18 : 14);
			CHECK_EQ(p.l3_len, 28);
			CHECK_EQ(p.has_vlan, vlan);
		}
	}
	/* unicast to us is fine too */
	mk_arp(&f, 0, 2);
	memcpy(f.b, our_mac.addr_bytes, 6);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_ARP);

	/* not Ethernet/IPv4 ARP */
	for (int field = 0; field < 4; field++) {
		mk_arp(&f, 0, 1);
		f.b[14 + (field < 2 ? field * 2 + 1 : field + 2)] ^= 0x20;
		p = parse_f(&f);
		CHECK_DROP(p, D(arp_short));
	}
}

TFO_TEST(parse_icmp_echo)
{
	struct frame f;
	struct tfo_pkt p;

	mk_icmp4(&f, 0, 0, 56);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP);
	CHECK_EQ(p.family, AF_INET);
	CHECK_EQ(p.l4proto, IPPROTO_ICMP);
	CHECK_EQ(p.local_idx, IDX_OUR4B);
	CHECK_EQ(p.l2_len, 14);
	CHECK_EQ(p.l3_len, 20);
	CHECK_EQ(p.l4_len, 64);
	CHECK_EQ(p.payload_off, 34);
	CHECK_MEM(p.src.b, peer4, 4);
	CHECK_MEM(p.dst.b, our4b, 4);

	/* odd length, IP options, VLAN */
	mk_icmp4(&f, 1, 12, 7);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP);
	CHECK_EQ(p.l3_len, 32);
	CHECK_EQ(p.l4_len, 15);
	CHECK_EQ(p.payload_off, 18 + 32);

	/* checksum wrong */
	f.b[f.end - 1] ^= 1;
	CHECK_DROP(parse_f(&f), D(icmp_cksum));
}

/* ---- path-MTU errors (tfo_pkt_icmp_ptb) --------------------------------- */

static const uint8_t router4[4] = { 198, 18, 0, 254 };
static const uint8_t router6[16] = { 0xfd, 0x00, 0x07, 0xf0, [15] = 0xfe };
/* a Destination Options header in the quote: PadN, then TCP */
static const uint8_t quote_dstopts[8] = { IPPROTO_TCP, 0, 1, 4, 0, 0, 0, 0 };

/*
 * A router's path-MTU error about a segment from @qsrc to @qdst (ports 80
 * -> T_SPORT, seq T_SEQ): IPv4 type 3 code 4, IPv6 type 2; the quote holds
 * the IP header (+ @ext), then @tcp_bytes of the TCP header.
 */
static void
mk_ptb(struct frame *f, int family, uint32_t mtu, const uint8_t *qsrc,
       const uint8_t *qdst, uint8_t qproto, const uint8_t *ext, uint8_t ext_len,
       uint16_t tcp_bytes)
{
	uint8_t q[40 + 8 + 20];
	uint8_t th[20] = { 0 };

	memset(q, 0, sizeof(q));
	if (family == AF_INET) {
		f_eth_l2(f, &our_mac, 0, RTE_ETHER_TYPE_IPV4);
		f_ipv4(f, router4, our4, IPPROTO_ICMP, NULL, 0);
		f_icmp(f, 3, 4, mtu & 0xffff);
		q[0] = 0x45;
		put16(q + 2, 1500);
		put16(q + 6, 0x4000);
		q[8] = 64;
		q[9] = qproto;
		memcpy(q + 12, qsrc, 4);
		memcpy(q + 16, qdst, 4);
		f_bytes(f, q, 20);
	} else {
		f_eth_l2(f, &our_mac, 0, RTE_ETHER_TYPE_IPV6);
		f_ipv6(f, router6, our6, IPPROTO_ICMPV6, 64);
		f_icmp(f, 2, 0, mtu);
		put32(q, 0x60000000);
		put16(q + 4, 1460);
		q[6] = ext_len ? IPPROTO_DSTOPTS : qproto;
		q[7] = 64;
		memcpy(q + 8, qsrc, 16);
		memcpy(q + 24, qdst, 16);
		f_bytes(f, q, 40);
		if (ext_len)
			f_bytes(f, ext, ext_len);
	}
	put16(th, T_DPORT);
	put16(th + 2, T_SPORT);
	put32(th + 4, T_SEQ);
	put32(th + 8, T_ACK);
	th[12] = 5 << 4;
	th[13] = TFO_TCP_ACK;
	f_bytes(f, th, tcp_bytes);
	f_done(f);
}

/* tfo_pkt_icmp_ptb on the first @len bytes of @f (an exact-size buffer),
 * the IP length set to match: a quote cut short, honestly. */
static int
ptb_n(const struct frame *f, uint16_t len, struct tfo_ptb *out)
{
	struct tfo_port_info pi = our_port();
	struct frame g = *f;
	struct rte_mbuf *m;
	struct tfo_pkt p;
	int rc = -100;

	g.len = len;
	f_set_end(&g, len);
	m = mk_mbuf(g.b, len, 0);
	memset(out, 0xa5, sizeof(*out));
	p = parse_m(m, &pi);
	if (p.cls == TFO_PKT_ICMP || p.cls == TFO_PKT_ICMP6)
		rc = tfo_pkt_icmp_ptb(m, &pi, &p, out);
	rte_pktmbuf_free(m);
	return rc;
}

TFO_TEST(parse_icmp_ptb_quote)
{
	struct frame f;
	struct tfo_ptb b;
	static const uint8_t other4[4] = { 192, 0, 2, 9 };

	/* IPv4 fragmentation needed, a full TCP header quoted */
	mk_ptb(&f, AF_INET, 1400, our4, peer4, IPPROTO_TCP, NULL, 0, 20);
	REQUIRE(ptb_n(&f, f.len, &b) == 1);
	CHECK_EQ(b.mtu, 1400);
	CHECK_EQ(b.seq, T_SEQ);
	CHECK_EQ(b.flow.cls, TFO_PKT_TCP);
	CHECK_EQ(b.flow.family, AF_INET);
	CHECK_EQ(b.flow.l4proto, IPPROTO_TCP);
	CHECK_EQ(b.flow.local_idx, IDX_OUR4);
	CHECK_EQ(b.flow.sport, T_SPORT);	/* the peer's, as it sends */
	CHECK_EQ(b.flow.dport, T_DPORT);
	CHECK_MEM(b.flow.src.b, peer4, 4);
	CHECK_MEM(b.flow.dst.b, our4, 4);
	/* 8 bytes of TCP are enough (RFC 792's minimum quote) */
	mk_ptb(&f, AF_INET, 576, our4b, peer4, IPPROTO_TCP, NULL, 0, 8);
	REQUIRE(ptb_n(&f, f.len, &b) == 1);
	CHECK_EQ(b.flow.local_idx, IDX_OUR4B);
	CHECK_EQ(b.seq, T_SEQ);

	/* IPv6 packet too big, with a Destination Options header quoted */
	mk_ptb(&f, AF_INET6, 1280, our6, peer6, IPPROTO_TCP, quote_dstopts,
	       sizeof(quote_dstopts), 20);
	REQUIRE(ptb_n(&f, f.len, &b) == 1);
	CHECK_EQ(b.mtu, 1280);
	CHECK_EQ(b.seq, T_SEQ);
	CHECK_EQ(b.flow.family, AF_INET6);
	CHECK_EQ(b.flow.local_idx, IDX_OUR6);
	CHECK_MEM(b.flow.src.b, peer6, 16);
	CHECK_MEM(b.flow.dst.b, our6, 16);
	CHECK_EQ(b.flow.sport, T_SPORT);

	/* other ICMP is not ours to take: 0 */
	mk_icmp4(&f, 0, 0, 56);
	CHECK_EQ(ptb_n(&f, f.len, &b), 0);
	mk_ptb(&f, AF_INET, 1400, our4, peer4, IPPROTO_TCP, NULL, 0, 20);
	f.b[f.l4 + 1] = 3;	/* port unreachable */
	CHECK_EQ(ptb_n(&f, f.len, &b), 0);
	mk_icmp6_echo(&f, 0, 8);
	CHECK_EQ(ptb_n(&f, f.len, &b), 0);

	/* quotes that are not a TCP segment we sent */
	mk_ptb(&f, AF_INET, 1400, our4, peer4, IPPROTO_UDP, NULL, 0, 20);
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);
	mk_ptb(&f, AF_INET, 1400, other4, peer4, IPPROTO_TCP, NULL, 0, 20);
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);	/* not from us */
	mk_ptb(&f, AF_INET, 1400, our4, our4b, IPPROTO_TCP, NULL, 0, 20);
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);	/* to ourselves */
	mk_ptb(&f, AF_INET, 1400, our4, peer4, IPPROTO_TCP, NULL, 0, 20);
	f.b[f.l4 + 8 + 7] = 0x10;	/* a later fragment: no ports in it */
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);
	mk_ptb(&f, AF_INET, 1400, our4, peer4, IPPROTO_TCP, NULL, 0, 20);
	f.b[f.l4 + 8] = 0x65;	/* version 6 */
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);
	mk_ptb(&f, AF_INET6, 1280, peer6, our6, IPPROTO_TCP, NULL, 0, 20);
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);	/* reversed */
	mk_ptb(&f, AF_INET6, 1280, our6, peer6, IPPROTO_UDP, NULL, 0, 20);
	CHECK_EQ(ptb_n(&f, f.len, &b), -EINVAL);
}

/* Cut at every byte: never a crash, never accepted without IP + 8. */
TFO_TEST(parse_icmp_ptb_truncated_at_every_byte)
{
	struct frame f;
	struct tfo_ptb b;

	for (int v = 0; v < 3; v++) {
		uint16_t need;

		if (v == 0)
			mk_ptb(&f, AF_INET, 1400, our4, peer4, IPPROTO_TCP, NULL, 0, 20);
		else if (v == 1)
			mk_ptb(&f, AF_INET6, 1280, our6, peer6, IPPROTO_TCP, NULL, 0, 20);
		else
			mk_ptb(&f, AF_INET6, 1280, our6, peer6, IPPROTO_TCP, quote_dstopts,
			       sizeof(quote_dstopts), 20);
		/* ICMP header + IP header (+ ext) + 8 bytes of TCP */
		need = (uint16_t)(f.l4 + 8 + (v == 0 ? 20 : 40) + (v == 2 ? 8 : 0) + 8);
		for (uint16_t len = (uint16_t)(f.l4 + 8); len <= f.len; len++) {
			int rc = ptb_n(&f, len, &b);

			CHECK_MSG(rc == (len < need ? -EINVAL : 1),
				  "variant %d, %u of %u bytes: %d", v, len, f.len, rc);
			if (rc == 1)
				CHECK_EQ(b.seq, T_SEQ);
		}
	}
}

TFO_TEST(parse_icmp6_echo_and_nd)
{
	struct frame f;
	struct tfo_pkt p;
	static const uint8_t unspec[16];
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };

	mk_icmp6_echo(&f, 0, 56);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.family, AF_INET6);
	CHECK_EQ(p.l4proto, IPPROTO_ICMPV6);
	CHECK_EQ(p.local_idx, IDX_OUR6);
	CHECK_EQ(p.l3_len, 40);
	CHECK_EQ(p.l4_len, 64);
	CHECK_EQ(p.payload_off, 54);

	mk_icmp6_echo(&f, 1, 3);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.l4_len, 11);
	CHECK_EQ(p.payload_off, 58);

	/* NS to the solicited-node group of each of our addresses */
	mk_ns(&f, peer6ll, our6);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.local_idx, IDX_OUR6);
	CHECK_EQ(p.l4_len, 32);
	mk_ns(&f, peer6ll, our6ll);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.local_idx, IDX_OUR6LL);
	/* duplicate address detection: from "::" */
	mk_ns(&f, unspec, our6);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.local_idx, IDX_OUR6);
	/* a group we are not in */
	{
		uint8_t other[16];

		memcpy(other, our6, 16);
		other[15] = 0x77;
		mk_ns(&f, peer6ll, other);
		CHECK_DROP(parse_f(&f), D(ip_not_ours));
	}
	/* all-nodes */
	mk_icmp6_echo(&f, 0, 0);
	memcpy(f.b + f.l3 + 24, all_nodes, 16);
	memcpy(f.b, "\x33\x33\x00\x00\x00\x01", 6);
	f_cksums(&f);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.local_idx, IDX_OUR6);
	/* all-routers is not ours */
	memcpy(f.b + f.l3 + 24, all_nodes, 16);
	f.b[f.l3 + 24 + 15] = 2;
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ip_not_ours));
	/* checksum wrong */
	mk_ns(&f, peer6ll, our6);
	f.b[f.l4 + 8] ^= 0x80;
	CHECK_DROP(parse_f(&f), D(icmp_cksum));
	/* TCP to a solicited-node group is not ours */
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	memcpy(f.b + f.l3 + 24, "\xff\x02\0\0\0\0\0\0\0\0\0\x01\xff\0\0\x02", 16);
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ip_not_ours));
}

TFO_TEST(parse_padded_frames)
{
	struct frame f;
	struct tfo_pkt p;

	/* bare ACK: 54 bytes, padded to 60 with junk that must not be summed */
	f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV4);
	f_ipv4(&f, peer4, our4, IPPROTO_TCP, NULL, 0);
	f_tcp(&f, T_SPORT, T_DPORT, TFO_TCP_ACK, NULL, 0);
	f_done(&f);
	f_pad(&f, 60, 0xee);
	CHECK_EQ(f.len, 60);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR4);
	CHECK_EQ(p.payload_len, 0);
	CHECK_EQ(p.payload_off, 54);

	/* one payload byte; padding 5 bytes */
	f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV4);
	f_ipv4(&f, peer4, our4, IPPROTO_TCP, NULL, 0);
	f_tcp(&f, T_SPORT, T_DPORT, TFO_TCP_ACK | TFO_TCP_PSH, NULL, 0);
	f_payload(&f, 1);
	f_done(&f);
	f_pad(&f, 60, 0x5a);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR4);
	CHECK_EQ(p.payload_len, 1);

	/* VLAN: 58 bytes of datagram, padded to 64 (some switches) */
	f_eth_l2(&f, &our_mac, 1, RTE_ETHER_TYPE_IPV4);
	f_ipv4(&f, peer4, our4, IPPROTO_TCP, NULL, 0);
	f_tcp(&f, T_SPORT, T_DPORT, TFO_TCP_ACK, NULL, 0);
	f_done(&f);
	f_pad(&f, 64, 0xff);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR4);

	/* ICMP and ARP padded */
	mk_icmp4(&f, 0, 0, 0);
	f_pad(&f, 60, 0x11);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP);
	CHECK_EQ(p.l4_len, 8);
	mk_arp(&f, 0, 1);
	f_pad(&f, 60, 0x22);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_ARP);

	/* IPv6 frames are never below 60, but trailing bytes can still come */
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	f_pad(&f, (uint16_t)(f.len + 9), 0x33);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR6);
	CHECK_EQ(p.payload_len, 0);
	mk_ns(&f, peer6ll, our6);
	f_pad(&f, (uint16_t)(f.len + 3), 0x44);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_ICMP6);
	CHECK_EQ(p.l4_len, 32);
}

/* ---- truncation ---------------------------------------------------------- */

enum tmpl_id {
	TM_TCP4_OPTS, TM_TCP4_VLAN, TM_TCP6, TM_TCP6_VLAN, TM_ARP, TM_ARP_VLAN,
	TM_ICMP4_OPTS, TM_ICMP6_ECHO, TM_TCP6_EXT, TM_TCP6_EXT_VLAN, TM_MLD,
	TM_NS, TM_MAX
};

static void
mk_tmpl(struct frame *f, int id)
{
	switch (id) {
	case TM_TCP4_OPTS:
		mk_tcp(f, AF_INET, 0, 12, 20, 16);
		break;
	case TM_TCP4_VLAN:
		mk_tcp(f, AF_INET, 1, 0, 12, 5);
		break;
	case TM_TCP6:
		mk_tcp(f, AF_INET6, 0, 0, 20, 7);
		break;
	case TM_TCP6_VLAN:
		mk_tcp(f, AF_INET6, 1, 0, 0, 0);
		break;
	case TM_ARP:
		mk_arp(f, 0, 1);
		break;
	case TM_ARP_VLAN:
		mk_arp(f, 1, 1);
		break;
	case TM_ICMP4_OPTS:
		mk_icmp4(f, 0, 8, 9);
		break;
	case TM_ICMP6_ECHO:
		mk_icmp6_echo(f, 1, 8);
		break;
	case TM_TCP6_EXT:
		mk_tcp6_ext(f, 0, ext_hbh_do_rh, RTE_DIM(ext_hbh_do_rh));
		break;
	case TM_TCP6_EXT_VLAN:
		mk_tcp6_ext(f, 1, ext_hbh_do_rh, 2);
		break;
	case TM_MLD:
		mk_mld_report(f, true);
		break;
	default:
		mk_ns(f, peer6ll, our6);
		break;
	}
}

/* Bytes that must sit in the first segment: all headers the parser reads. */
static uint16_t
hdr_end(const struct frame *f)
{
	if (f->kind == F_ARP)
		return (uint16_t)(f->l3 + 28);
	switch (f->proto) {
	case IPPROTO_TCP:
		return f->pay;
	case IPPROTO_ICMP:
		return (uint16_t)(f->l4 + 8);
	default:
		return (uint16_t)(f->l4 + 4);
	}
}

static int
good_class(const struct frame *f)
{
	if (f->kind == F_ARP)
		return TFO_PKT_ARP;
	switch (f->proto) {
	case IPPROTO_TCP:
		return TFO_PKT_TCP;
	case IPPROTO_ICMP:
		return TFO_PKT_ICMP;
	default:
		return f->b[f->l4] == 143 ? TFO_PKT_MLD : TFO_PKT_ICMP6;
	}
}

/* The frame cut after @len bytes, IP length fields untouched. */
static int
expect_cut(const struct frame *f, uint16_t len)
{
	if (len < 14 || len < f->l3)
		return D(l2_short);
	if (f->kind == F_ARP)
		return len < f->l3 + 28 ? D(arp_short) : D(NONE);
	if (f->family == AF_INET)
		return len < f->end ? D(ipv4_short) : D(NONE);
	return len < f->end ? D(ipv6_short) : D(NONE);
}

/* The datagram shortened to end at @end, its IP length saying so. */
static int
expect_short_datagram(const struct frame *f, uint16_t end)
{
	uint16_t l4 = end > f->l4 ? (uint16_t)(end - f->l4) : 0;

	if (end < f->l4)	/* inside the IP options or extension headers */
		return f->family == AF_INET ? D(ipv4_short) : D(ipv6_ext_short);
	switch (f->proto) {
	case IPPROTO_TCP:
		return l4 < f->pay - f->l4 ? D(tcp_short) : D(NONE);
	case IPPROTO_ICMP:
		return l4 < 8 ? D(icmp_short) : D(NONE);
	default:
		/* MLD to ff02::16 is taken by its type: without one, the
		 * group is not ours */
		if (l4 == 0 && f->b[f->l3 + 24] == 0xff && f->b[f->l4] == 143)
			return D(ip_not_ours);
		return l4 < 4 ? D(icmp_short) : D(NONE);
	}
}

static void
check_expect(const struct tfo_pkt *p, const struct frame *f, int want,
	     int tmpl, uint16_t len, const char *what)
{
	if (want == D(NONE))
		CHECK_MSG(p->cls == good_class(f) && p->drop == D(NONE),
			  "%s: template %d len %u: cls %u drop %s", what, tmpl,
			  len, p->cls,
			  tfo_pkt_drop_name((enum tfo_pkt_drop)p->drop));
	else
		CHECK_MSG(p->cls == TFO_PKT_DROP && p->drop == want,
			  "%s: template %d len %u: cls %u drop %s, want %s",
			  what, tmpl, len, p->cls,
			  tfo_pkt_drop_name((enum tfo_pkt_drop)p->drop),
			  tfo_pkt_drop_name((enum tfo_pkt_drop)want));
}

TFO_TEST(truncated_at_every_byte)
{
	struct tfo_port_info pi = our_port();

	for (int t = 0; t < TM_MAX; t++) {
		struct frame f;

		mk_tmpl(&f, t);
		for (uint16_t len = 0; len <= f.len; len++) {
			struct tfo_pkt p = parse_n(&f, len, 0, &pi);

			check_expect(&p, &f, expect_cut(&f, len), t, len, "cut");
		}
	}
}

/*
 * The datagram shortened at every byte with its IP length matching (and
 * checksums recomputed), so the cut lands in the IP options, the TCP header,
 * the TCP options or the ICMP header: each layer's own check must fire. Once
 * as the whole frame, once followed by the original bytes as "padding".
 */
TFO_TEST(short_datagram_at_every_byte)
{
	struct tfo_port_info pi = our_port();

	for (int t = 0; t < TM_MAX; t++) {
		struct frame orig;

		mk_tmpl(&orig, t);
		if (orig.kind != F_IP)
			continue;
		for (uint16_t end = (uint16_t)(orig.l3 + (orig.family == AF_INET ? 20 : 40));
		     end <= orig.end; end++) {
			struct frame f = orig;
			struct tfo_pkt p;
			int want;

			f_set_end(&f, end);
			want = expect_short_datagram(&f, end);
			p = parse_n(&f, end, 0, &pi);
			check_expect(&p, &f, want, t, end, "short");
			if (want == D(NONE) && f.proto == IPPROTO_TCP) {
				CHECK_EQ(p.payload_len, end - f.pay);
				CHECK_EQ(p.payload_off, f.pay);
			}
			if (want == D(NONE) && f.proto != IPPROTO_TCP)
				CHECK_EQ(p.l4_len, end - f.l4);
			p = parse_n(&f, f.len, 0, &pi);
			check_expect(&p, &f, want, t, end, "short+pad");
		}
	}
}

/* ---- malformed headers --------------------------------------------------- */

TFO_TEST(ipv4_bad_header)
{
	struct frame f, o;
	struct tfo_pkt p;

	mk_tcp(&o, AF_INET, 0, 0, 0, 10);
	/* IHL 0..4 */
	for (uint8_t ihl = 0; ihl < 5; ihl++) {
		f = o;
		f.b[f.l3] = (uint8_t)(0x40 | ihl);
		f_cksums(&f);
		CHECK_DROP(parse_f(&f), D(ipv4_short));
	}
	/* IHL one byte past the datagram, which ends the frame */
	for (uint8_t ihl = 6; ihl <= 15; ihl++) {
		struct tfo_port_info pi = our_port();

		f = o;
		f.b[f.l3] = (uint8_t)(0x40 | ihl);
		put16(f.b + f.l3 + 2, (uint16_t)(ihl * 4 - 1));
		p = parse_n(&f, (uint16_t)(f.l3 + ihl * 4 - 1), 0, &pi);
		CHECK_DROP(p, D(ipv4_short));
	}
	/* IHL past the whole frame (the datagram is 50 bytes) */
	for (uint8_t ihl = 13; ihl <= 15; ihl++) {
		f = o;
		f.b[f.l3] = (uint8_t)(0x40 | ihl);
		CHECK_DROP(parse_f(&f), D(ipv4_short));
	}
	/* total length past the frame, by one byte and by a lot */
	f = o;
	put16(f.b + f.l3 + 2, (uint16_t)(f.len - f.l3 + 1));
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ipv4_short));
	put16(f.b + f.l3 + 2, 0xffff);
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ipv4_short));
	/* total length shorter than the header */
	put16(f.b + f.l3 + 2, 19);
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ipv4_short));
	put16(f.b + f.l3 + 2, 0);
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ipv4_short));
	/* version */
	for (uint8_t v = 0; v < 16; v++) {
		if (v == 4)
			continue;
		f = o;
		f.b[f.l3] = (uint8_t)(v << 4 | 5);
		f_cksums(&f);
		CHECK_DROP(parse_f(&f), D(ipv4_version));
	}
	/* header checksum: every bit of the header flipped */
	for (int bit = 0; bit < 20 * 8; bit++) {
		f = o;
		f.b[f.l3 + bit / 8] ^= (uint8_t)(1 << (bit % 8));
		p = parse_f(&f);
		if (bit / 8 == 0)	/* version / IHL: their own checks */
			CHECK(p.cls == TFO_PKT_DROP);
		else if (bit / 8 == 2 || bit / 8 == 3)	/* length: may go short */
			CHECK(p.cls == TFO_PKT_DROP &&
			      (p.drop == D(ipv4_cksum) || p.drop == D(ipv4_short)));
		else
			CHECK_DROP(p, D(ipv4_cksum));
	}
	/* a bad checksum on a header with options */
	mk_tcp(&f, AF_INET, 0, 12, 0, 0);
	f.b[f.l3 + 20 + 5] ^= 0x40;
	CHECK_DROP(parse_f(&f), D(ipv4_cksum));
}

TFO_TEST(tcp_bad_checksum)
{
	struct frame o, f;
	int n = 0;

	mk_tcp(&o, AF_INET, 0, 0, 20, 9);
	/* every bit of the segment, and of the pseudo-header's source */
	for (uint16_t i = o.l4; i < o.end; i++) {
		for (int bit = 0; bit < 8; bit++) {
			struct tfo_pkt p;

			f = o;
			f.b[i] ^= (uint8_t)(1 << bit);
			if (i == o.l4 + 12 && bit >= 4)
				continue;	/* data offset: its own test */
			p = parse_f(&f);
			if (get16(f.b + f.l4) == 0 || get16(f.b + f.l4 + 2) == 0)
				CHECK_DROP(p, D(tcp_port));
			else
				CHECK_DROP(p, D(tcp_cksum));
			n++;
		}
	}
	CHECK(n > 300);
	f = o;
	f.b[f.l3 + 12 + 3] ^= 0x10;	/* source address: IP cksum fixed */
	f.b[f.l3 + 10] = 0;
	f.b[f.l3 + 11] = 0;
	put16(f.b + f.l3 + 10, (uint16_t)~ref_cksum(f.b + f.l3, 20));
	CHECK_DROP(parse_f(&f), D(tcp_cksum));

	mk_tcp(&o, AF_INET6, 0, 0, 0, 33);
	f = o;
	f.b[f.end - 1] ^= 0x01;
	CHECK_DROP(parse_f(&f), D(tcp_cksum));
	f = o;
	f.b[f.l3 + 8] ^= 0x01;	/* IPv6 source: only the TCP checksum sees it */
	CHECK_DROP(parse_f(&f), D(tcp_cksum));
	/* unlike UDP, a zero TCP checksum does not mean "none" */
	f = o;
	REQUIRE(get16(f.b + f.l4 + 16) != 0 && get16(f.b + f.l4 + 16) != 0xffff);
	put16(f.b + f.l4 + 16, 0);
	CHECK_DROP(parse_f(&f), D(tcp_cksum));
}

TFO_TEST(tcp_data_offset)
{
	struct frame o, f;
	struct tfo_pkt p;

	mk_tcp(&o, AF_INET, 0, 0, 12, 48);
	/* data offset < 5 */
	for (uint8_t d = 0; d < 5; d++) {
		f = o;
		f.b[f.l4 + 12] = (uint8_t)(d << 4);
		f_cksums(&f);
		CHECK_DROP(parse_f(&f), D(tcp_short));
	}
	/* every legal data offset: header + options + payload move */
	for (uint8_t d = 5; d <= 15; d++) {
		f = o;
		f.b[f.l4 + 12] = (uint8_t)(d << 4);
		f.pay = (uint16_t)(f.l4 + d * 4);
		f_cksums(&f);
		p = parse_f(&f);
		check_tcp_fields(&p, &f, IDX_OUR4);
	}
	/* data offset past the segment but inside the frame (padding) */
	f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV4);
	f_ipv4(&f, peer4, our4, IPPROTO_TCP, NULL, 0);
	f_tcp(&f, T_SPORT, T_DPORT, TFO_TCP_ACK, NULL, 0);
	f_done(&f);
	f_pad(&f, 60, 0);
	f.b[f.l4 + 12] = 6 << 4;	/* 24 bytes; only 20 in the datagram */
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(tcp_short));
	/* past the segment and the frame */
	f = o;
	f.b[f.l4 + 12] = 15 << 4;
	f_set_end(&f, (uint16_t)(f.l4 + 59));
	{
		struct tfo_port_info pi = our_port();

		CHECK_DROP(parse_n(&f, f.end, 0, &pi), D(tcp_short));
	}
	/* IPv6 */
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	f.b[f.l4 + 12] = 6 << 4;
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(tcp_short));
}

/*
 * Options whose lengths run past the header (or are garbage): the parser
 * does not read them, so it accepts the segment; the frame ends right after
 * the header so that any look at "the rest" of an option is an over-read.
 */
TFO_TEST(tcp_options_past_header)
{
	static const uint8_t bad[][8] = {
		{ 2, 40, 5, 0xb4, 1, 1, 1, 1 },	/* MSS claiming 40 bytes */
		{ 1, 1, 1, 1, 1, 1, 1, 34 },	/* TFO kind, no length byte */
		{ 34, 255, 1, 2, 3, 4, 5, 6 },	/* cookie longer than anything */
		{ 8, 10, 0, 0, 0, 0, 0, 0 },	/* timestamps cut short */
		{ 254, 0, 0, 0, 0, 0, 0, 0 },	/* length 0 */
		{ 5, 1, 0, 0, 0, 0, 0, 0 },	/* length 1 */
	};

	for (int fam = 0; fam < 2; fam++) {
		for (size_t i = 0; i < RTE_DIM(bad); i++) {
			struct frame f;
			struct tfo_pkt p;

			f_eth(&f, &our_mac, fam ? RTE_ETHER_TYPE_IPV6 :
			      RTE_ETHER_TYPE_IPV4);
			if (fam)
				f_ipv6(&f, peer6, our6, IPPROTO_TCP, 64);
			else
				f_ipv4(&f, peer4, our4, IPPROTO_TCP, NULL, 0);
			f_tcp(&f, T_SPORT, T_DPORT, TFO_TCP_SYN, bad[i], 8);
			f_done(&f);
			p = parse_f(&f);
			check_tcp_fields(&p, &f, fam ? IDX_OUR6 : IDX_OUR4);
			CHECK_EQ(p.l4_len, 28);
			CHECK_EQ(p.payload_len, 0);
			CHECK_EQ(p.payload_off, f.len);
		}
	}
}

TFO_TEST(ipv4_fragments)
{
	static const uint16_t frag[] = {
		0x2000,		/* MF, offset 0: the first fragment */
		0x0001,		/* offset 8, last fragment */
		0x2001,		/* middle */
		0x1fff,		/* largest offset */
		0x6000,		/* DF + MF: contradictory, still a fragment */
		0x4001,		/* DF + offset */
	};
	struct tfo_stats st;
	int id = tfo_stats_lookup("drop_ipv4_frag");

	memset(&st, 0, sizeof(st));
	REQUIRE(id >= 0);
	for (size_t i = 0; i < RTE_DIM(frag); i++) {
		for (int proto = 0; proto < 2; proto++) {
			struct frame f;
			struct tfo_pkt p;

			if (proto)
				mk_icmp4(&f, 0, 0, 16);
			else
				mk_tcp(&f, AF_INET, 0, 0, 0, 16);
			put16(f.b + f.l3 + 6, frag[i]);
			f_cksums(&f);
			p = parse_f(&f);
			CHECK_DROP(p, D(ipv4_frag));
			if (p.cls == TFO_PKT_DROP)
				tfo_stats_drop(&st, (enum tfo_pkt_drop)p.drop);
		}
	}
	CHECK_EQ(st.c[id], 2 * RTE_DIM(frag));
	/* DF alone and the reserved bit are not fragments */
	for (int i = 0; i < 2; i++) {
		struct frame f;

		mk_tcp(&f, AF_INET, 0, 0, 0, 0);
		put16(f.b + f.l3 + 6, i ? 0x8000 : 0x0000);
		f_cksums(&f);
		CHECK_EQ(parse_f(&f).cls, TFO_PKT_TCP);
	}
}

TFO_TEST(ipv6_bad_header)
{
	/* headers we do not process: AH, ESP, mobility, HIP, shim6, 253/254 */
	static const uint8_t ext[] = { 51, 50, 135, 139, 140, 253, 254 };
	struct frame o, f;

	mk_tcp(&o, AF_INET6, 0, 0, 0, 12);
	for (size_t i = 0; i < RTE_DIM(ext); i++) {
		f = o;
		f.b[f.l3 + 6] = ext[i];
		CHECK_DROP(parse_f(&f), D(ipv6_ext));
	}
	f = o;
	f.b[f.l3 + 6] = IPPROTO_FRAGMENT;
	CHECK_DROP(parse_f(&f), D(ipv6_frag));
	/* "no next header" is not an extension we could skip: not served */
	f = o;
	f.b[f.l3 + 6] = 59;
	CHECK_DROP(parse_f(&f), D(l4_proto));
	/* payload length past the frame */
	f = o;
	put16(f.b + f.l3 + 4, (uint16_t)(f.len - f.l3 - 40 + 1));
	CHECK_DROP(parse_f(&f), D(ipv6_short));
	put16(f.b + f.l3 + 4, 0xffff);
	CHECK_DROP(parse_f(&f), D(ipv6_short));
	/* version */
	for (uint8_t v = 0; v < 16; v++) {
		if (v == 6)
			continue;
		f = o;
		f.b[f.l3] = (uint8_t)(v << 4 | (f.b[f.l3] & 0xf));
		CHECK_DROP(parse_f(&f), D(ipv6_version));
	}
	/* an IPv4 header under the IPv6 EtherType, and vice versa */
	mk_tcp(&f, AF_INET, 0, 0, 0, 40);
	put16(f.b + 12, RTE_ETHER_TYPE_IPV6);
	CHECK_DROP(parse_f(&f), D(ipv6_version));
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	put16(f.b + 12, RTE_ETHER_TYPE_IPV4);
	CHECK_DROP(parse_f(&f), D(ipv4_version));
}

/* One Destination Options header of TFO_IPV6_EXT_MAX_LEN bytes: two
 * skippable options of 253 bytes. */
static struct ext_hdr
ext_max_len(void)
{
	static uint8_t body[TFO_IPV6_EXT_MAX_LEN - 2] = {
		0x1e, 253, [255] = 0x1e, [256] = 253,
	};

	return (struct ext_hdr){ IPPROTO_DSTOPTS, TFO_IPV6_EXT_MAX_LEN, body };
}

/* A SYN behind extension headers parses like one without, offsets shifted. */
static void
check_ext_syn(const struct ext_hdr *x, unsigned int n, int vlan)
{
	struct frame f;
	struct tfo_pkt p;

	mk_tcp6_ext(&f, vlan, x, n);
	p = parse_f(&f);
	check_tcp_fields(&p, &f, IDX_OUR6);
	CHECK_EQ(p.l4_len, 40);
	CHECK_EQ(p.payload_len, 7);
	/* the checksum is verified in software too, and the RX flags trusted */
	{
		struct tfo_port_info pi = our_port();

		pi.rx_cksum_offload = true;
		p = parse_n(&f, f.len, RTE_MBUF_F_RX_L4_CKSUM_GOOD, &pi);
		check_tcp_fields(&p, &f, IDX_OUR6);
	}
}

TFO_TEST(ipv6_ext_syn_accepted)
{
	/* unknown options whose two high bits say "skip" (RFC 8200 4.2) */
	static const uint8_t opt_skip8[22] = { 0x1e, 0, 0x1e, 0, 0x1e, 0, 0x1e, 0,
					       0x1e, 0, 0x1e, 0, 0x1e, 0, 0x1e, 0,
					       1, 4, 0, 0, 0, 0 };
	static const uint8_t rh4_body[22] = { 4, 0, 0, 0, 0, 0, 0xfd, [21] = 0x09 };
	const struct ext_hdr hbh = { IPPROTO_HOPOPTS, 8, opt_padn4 };
	const struct ext_hdr big = ext_max_len();
	const struct ext_hdr hbh_ra = { IPPROTO_HOPOPTS, 8, opt_router_alert };
	const struct ext_hdr dst = { IPPROTO_DSTOPTS, 8, NULL };	/* 6 Pad1 */
	const struct ext_hdr dst8 = { IPPROTO_DSTOPTS, 24, opt_skip8 };
	const struct ext_hdr rh0 = { IPPROTO_ROUTING, 24, rh0_body };
	const struct ext_hdr rh4 = { IPPROTO_ROUTING, 24, rh4_body };
	struct ext_hdr x[TFO_IPV6_EXT_MAX_HDRS];

	for (int vlan = 0; vlan < 2; vlan++) {
		check_ext_syn(&hbh, 1, vlan);
		check_ext_syn(&dst, 1, vlan);
		x[0] = hbh;
		x[1] = dst;
		check_ext_syn(x, 2, vlan);
		check_ext_syn(&rh0, 1, vlan);
		check_ext_syn(&rh4, 1, vlan);
		check_ext_syn(ext_hbh_do_rh, RTE_DIM(ext_hbh_do_rh), vlan);
		x[0] = hbh_ra;
		x[1] = dst8;
		x[2] = rh0;
		x[3] = dst;
		check_ext_syn(x, 4, vlan);
	}
	/* the limits themselves */
	for (unsigned int i = 0; i < TFO_IPV6_EXT_MAX_HDRS; i++)
		x[i] = dst;
	check_ext_syn(x, TFO_IPV6_EXT_MAX_HDRS, 0);
	check_ext_syn(&big, 1, 0);
}

/* A pseudo-header over another address than the IPv6 destination fails. */
TFO_TEST(ipv6_ext_cksum_final_dst)
{
	struct frame f;
	uint8_t d[16];

	mk_tcp6_ext(&f, 0, ext_hbh_do_rh, RTE_DIM(ext_hbh_do_rh));
	/* summed as if the Routing header's address were the destination */
	memcpy(d, f.b + f.l3 + 24, 16);
	memcpy(f.b + f.l3 + 24, f.b + f.l3 + 16 + 8 + 8, 16);
	f_cksums(&f);
	memcpy(f.b + f.l3 + 24, d, 16);
	CHECK_DROP(parse_f(&f), D(tcp_cksum));
}

TFO_TEST(ipv6_ext_dropped)
{
	static const uint8_t rh0_left1[22] = { 0, 1, 0, 0, 0, 0, 0xfd, [21] = 0x09 };
	static const uint8_t rh2_left1[22] = { 2, 1, 0, 0, 0, 0, 0xfd, [21] = 0x09 };
	static const uint8_t rh4_left1[22] = { 4, 1, 0, 0, 0, 0, 0xfd, [21] = 0x09 };
	static const uint8_t rh9_left255[22] = { 9, 255 };
	static const uint8_t opt_skip9[22] = { 0x1e, 0, 0x1e, 0, 0x1e, 0, 0x1e, 0,
					       0x1e, 0, 0x1e, 0, 0x1e, 0, 0x1e, 0,
					       0x1e, 0, 1, 2, 0, 0 };
	static const uint8_t opt_padn_dirty[6] = { 1, 4, 0, 0, 1, 0 };
	static const uint8_t opt_ra_len3[6] = { 5, 3, 0, 0, 0, 0 };
	static const uint8_t opt_overrun[6] = { 0x1e, 5, 0, 0, 0, 0 };
	static const uint8_t opt_jumbo[6] = { 0xc2, 4, 0, 1, 0, 0 };
	static const uint8_t opt_01[6] = { 0x5e, 4 }, opt_10[6] = { 0x9e, 4 },
			     opt_11[6] = { 0xde, 4 };
#define HBH(body) { IPPROTO_HOPOPTS, 8, body }
#define DST(body) { IPPROTO_DSTOPTS, 8, body }
#define RH(body) { IPPROTO_ROUTING, 24, body }
	static const struct {
		const char *what;
		unsigned int n;
		struct ext_hdr x[3];
		int reason;
	} cases[] = {
		{ "HBH second", 2, { DST(NULL), HBH(NULL) }, D(ipv6_ext_bad) },
		{ "HBH twice", 2, { HBH(NULL), HBH(NULL) }, D(ipv6_ext_bad) },
		/* segments left: not for us, whatever the type */
		{ "RH0 left 1", 1, { RH(rh0_left1) }, D(ipv6_rthdr) },
		{ "RH2 left 1", 1, { RH(rh2_left1) }, D(ipv6_rthdr) },
		{ "RH4 left 1", 1, { RH(rh4_left1) }, D(ipv6_rthdr) },
		{ "HBH RH9 left 255", 2, { HBH(NULL), RH(rh9_left255) }, D(ipv6_rthdr) },
		/* even a whole datagram in one fragment (offset 0, M 0) */
		{ "fragment", 2, { HBH(NULL), { IPPROTO_FRAGMENT, 8, NULL } }, D(ipv6_frag) },
		{ "AH", 2, { DST(NULL), { IPPROTO_AH, 8, NULL } }, D(ipv6_ext) },
		{ "9 options", 1, { { IPPROTO_DSTOPTS, 24, opt_skip9 } }, D(ipv6_ext_bad) },
		{ "14 Pad1", 1, { { IPPROTO_DSTOPTS, 16, NULL } }, D(ipv6_ext_bad) },
		{ "PadN not zero", 1, { HBH(opt_padn_dirty) }, D(ipv6_ext_bad) },
		{ "router alert length 3", 1, { HBH(opt_ra_len3) }, D(ipv6_ext_bad) },
		{ "option past the header", 1, { DST(opt_overrun) }, D(ipv6_ext_bad) },
		/* options whose type says discard: 01, 10, 11; jumbo */
		{ "DO option 01", 1, { DST(opt_01) }, D(ipv6_ext_opt) },
		{ "DO option 10", 1, { DST(opt_10) }, D(ipv6_ext_opt) },
		{ "DO option 11", 1, { DST(opt_11) }, D(ipv6_ext_opt) },
		{ "HBH option 01", 1, { HBH(opt_01) }, D(ipv6_ext_opt) },
		{ "HBH option 11", 1, { HBH(opt_11) }, D(ipv6_ext_opt) },
		{ "jumbo", 1, { HBH(opt_jumbo) }, D(ipv6_ext_opt) },
	};
	const struct ext_hdr dst = DST(NULL);
	struct ext_hdr x[TFO_IPV6_EXT_MAX_HDRS + 1];
	struct frame f;

	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		struct tfo_pkt p;

		mk_tcp6_ext(&f, 0, cases[i].x, cases[i].n);
		p = parse_f(&f);
		CHECK_MSG(p.cls == TFO_PKT_DROP && p.drop == cases[i].reason,
			  "%s: cls %u drop %s", cases[i].what, p.cls,
			  tfo_pkt_drop_name((enum tfo_pkt_drop)p.drop));
	}
#undef HBH
#undef DST
#undef RH
	/* too many, too long */
	for (unsigned int i = 0; i <= TFO_IPV6_EXT_MAX_HDRS; i++)
		x[i] = dst;
	mk_tcp6_ext(&f, 0, x, TFO_IPV6_EXT_MAX_HDRS + 1);
	CHECK_DROP(parse_f(&f), D(ipv6_ext_limit));
	x[0] = ext_max_len();
	mk_tcp6_ext(&f, 0, x, 2);
	CHECK_DROP(parse_f(&f), D(ipv6_ext_limit));
	x[0] = dst;
	x[1] = ext_max_len();
	mk_tcp6_ext(&f, 0, x, 2);
	CHECK_DROP(parse_f(&f), D(ipv6_ext_limit));
	/* the upper layer behind them: "no next header" and UDP not served */
	f_eth_l2(&f, &our_mac, 0, RTE_ETHER_TYPE_IPV6);
	f_ipv6_ext(&f, peer6, our6, 59, 64, &dst, 1);
	f_payload(&f, 8);
	f_done(&f);
	CHECK_DROP(parse_f(&f), D(l4_proto));
	f.b[f.l3 + 40] = IPPROTO_UDP;
	CHECK_DROP(parse_f(&f), D(l4_proto));
	/* a header's length past the payload length (and past the frame) */
	mk_tcp6_ext(&f, 0, &dst, 1);
	f.b[f.l3 + 41] = 200;
	CHECK_DROP(parse_f(&f), D(ipv6_ext_short));
}

/* Each extension header cut inside, its IPv6 length saying so. */
TFO_TEST(ipv6_ext_truncated_at_every_byte)
{
	struct tfo_port_info pi = our_port();
	struct frame o;

	mk_tcp6_ext(&o, 0, ext_hbh_do_rh, RTE_DIM(ext_hbh_do_rh));
	for (uint16_t end = (uint16_t)(o.l3 + 40); end < o.l4; end++) {
		struct frame f = o;

		f_set_end(&f, end);
		CHECK_DROP(parse_n(&f, end, 0, &pi), D(ipv6_ext_short));
		CHECK_DROP(parse_f(&f), D(ipv6_ext_short));	/* the rest as padding */
		/* the frame itself cut: its IPv6 length says more */
		CHECK_DROP(parse_n(&o, end, 0, &pi), D(ipv6_short));
	}
}

TFO_TEST(mld_ignored)
{
	static const uint8_t unspec[16];
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
	static const uint8_t all_routers[16] = { 0xff, 0x02, [15] = 2 };
	struct frame f;
	struct tfo_pkt p;
	int id = tfo_stats_lookup("rx_mld_ignored");

	/* a counter of its own, which is not a frame drop */
	CHECK(id >= 0);
	CHECK(!tfo_stats_is_frame_drop((unsigned int)id));

	mk_mld_report(&f, true);
	p = parse_f(&f);
	CHECK_EQ(p.cls, TFO_PKT_MLD);
	CHECK_EQ(p.drop, D(NONE));
	CHECK_EQ(p.family, AF_INET6);
	CHECK_EQ(p.l4proto, IPPROTO_ICMPV6);
	CHECK_EQ(p.l3_len, 48);
	CHECK_EQ(p.payload_off, f.l4);
	CHECK_EQ(p.l4_len, 28);
	CHECK_EQ(p.local_idx, IDX_OUR6);
	/* without the router alert; from "::" (before DAD, RFC 3810 5.2.13) */
	mk_mld_report(&f, false);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_MLD);
	mk_mld_report(&f, true);
	memcpy(f.b + f.l3 + 8, unspec, 16);
	f_cksums(&f);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_MLD);
	/* MLDv1 report to our own solicited-node group, query to all-nodes,
	 * done to all-routers */
	mk_ns(&f, peer6ll, our6);
	f.b[f.l4] = 131;
	f_cksums(&f);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_MLD);
	f.b[f.l4] = 130;
	memcpy(f.b + f.l3 + 24, all_nodes, 16);
	f_cksums(&f);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_MLD);
	f.b[f.l4] = 132;
	memcpy(f.b + f.l3 + 24, all_routers, 16);
	f_cksums(&f);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_MLD);
	/* checked like any ICMPv6 first */
	mk_mld_report(&f, true);
	f.b[f.len - 1] ^= 1;
	CHECK_DROP(parse_f(&f), D(icmp_cksum));
	mk_mld_report(&f, true);
	f.b[f.l3 + 8] = 0xff;		/* source: multicast */
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ip_bad_src));
	/* anything else to ff02::16 is not ours */
	mk_mld_report(&f, true);
	f.b[f.l4] = 128;
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ip_not_ours));
	/* a port without IPv6 addresses is in no group */
	{
		struct tfo_port_info pi = our_port();

		pi.nb_addrs = 1;
		mk_mld_report(&f, true);
		CHECK_DROP(parse_n(&f, f.len, 0, &pi), D(ip_not_ours));
	}
}

/* An answer built in place leaves the extension headers behind. */
TFO_TEST(ipv6_strip_ext)
{
	struct tfo_port_info pi = our_port();
	struct frame f;
	struct tfo_pkt p, q;
	struct rte_mbuf *m;
	uint8_t icmp[64];

	for (int vlan = 0; vlan < 2; vlan++) {
		f_eth_l2(&f, &our_mac, vlan, RTE_ETHER_TYPE_IPV6);
		f_ipv6_ext(&f, peer6, our6, IPPROTO_ICMPV6, 64, ext_hbh_do_rh,
			   RTE_DIM(ext_hbh_do_rh));
		f_icmp(&f, 128, 0, 0x00430002);
		f_payload(&f, 13);
		f_done(&f);
		memcpy(icmp, f.b + f.l4, f.end - f.l4);
		setup();
		m = rte_pktmbuf_alloc(pool);
		memcpy(rte_pktmbuf_append(m, f.len), f.b, f.len);
		p = parse_m(m, &pi);
		CHECK_EQ(p.cls, TFO_PKT_ICMP6);
		CHECK_EQ(p.l3_len, 80);
		CHECK_EQ(tfo_pkt_ipv6_strip_ext(m, &p), 40);
		CHECK_EQ(m->pkt_len, f.len - 40u);
		CHECK_EQ(p.l3_len, 40);
		CHECK_EQ(p.payload_off, f.l4 - 40);
		q = parse_m(m, &pi);
		CHECK_EQ(q.cls, TFO_PKT_ICMP6);
		CHECK_EQ(q.l3_len, 40);
		CHECK_EQ(q.payload_off, p.payload_off);
		CHECK_EQ(q.l4_len, f.end - f.l4);
		CHECK_EQ(q.has_vlan, vlan);
		CHECK_MEM(rte_pktmbuf_mtod(m, uint8_t *), f.b, 12);
		CHECK_MEM(rte_pktmbuf_mtod_offset(m, uint8_t *, q.payload_off), icmp,
			  f.end - f.l4);
		/* nothing left to strip */
		CHECK_EQ(tfo_pkt_ipv6_strip_ext(m, &q), 0);
		CHECK_EQ(m->pkt_len, f.len - 40u);
		rte_pktmbuf_free(m);
	}
}

TFO_TEST(bad_sources)
{
	static const uint8_t bad4[][4] = {
		{ 224, 0, 0, 1 }, { 239, 255, 255, 250 }, { 240, 0, 0, 1 },
		{ 255, 255, 255, 255 }, { 127, 0, 0, 1 }, { 127, 1, 2, 3 },
		{ 0, 0, 0, 0 }, { 0, 1, 2, 3 },
		{ 198, 18, 0, 2 },	/* ours */
		{ 203, 0, 113, 7 },	/* ours, the other address */
		{ 198, 18, 0, 255 },	/* our subnet's broadcast */
		{ 203, 0, 113, 255 },
	};
	static const uint8_t bad6[][16] = {
		{ 0xff, 0x02, [15] = 1 },
		{ 0xff, 0x0e, [15] = 0x42 },
		{ [15] = 1 },					/* ::1 */
		{ [15] = 0 },					/* :: */
		{ [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 },	/* ::ffff:127.0.0.1 */
		{ [10] = 0xff, [11] = 0xff, 198, 18, 0, 1 },	/* v4-mapped */
		{ 0xfd, 0x00, 0x07, 0xf0, [15] = 0x02 },	/* ours */
		{ 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 1 },
	};

	for (size_t i = 0; i < RTE_DIM(bad4); i++) {
		for (int proto = 0; proto < 2; proto++) {
			struct frame f;

			if (proto)
				mk_icmp4(&f, 0, 0, 0);
			else
				mk_tcp(&f, AF_INET, 0, 0, 0, 0);
			memcpy(f.b + f.l3 + 12, bad4[i], 4);
			f_cksums(&f);
			CHECK_MSG(parse_f(&f).drop == D(ip_bad_src),
				  "source %u.%u.%u.%u proto %d", bad4[i][0],
				  bad4[i][1], bad4[i][2], bad4[i][3], proto);
		}
	}
	for (size_t i = 0; i < RTE_DIM(bad6); i++) {
		for (int proto = 0; proto < 2; proto++) {
			struct frame f;

			if (proto)
				mk_icmp6_echo(&f, 0, 4);
			else
				mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
			memcpy(f.b + f.l3 + 8, bad6[i], 16);
			f_cksums(&f);
			if (proto && i == 3)	/* "::" is DAD's source */
				CHECK_EQ(parse_f(&f).cls, TFO_PKT_ICMP6);
			else
				CHECK_MSG(parse_f(&f).drop == D(ip_bad_src),
					  "source #%zu proto %d", i, proto);
		}
	}
	/* ordinary neighbours of the bad ones are fine */
	{
		static const uint8_t ok4[][4] = {
			{ 223, 255, 255, 254 }, { 126, 255, 255, 255 },
			{ 1, 0, 0, 0 }, { 198, 18, 0, 254 }, { 198, 18, 1, 255 },
		};

		for (size_t i = 0; i < RTE_DIM(ok4); i++) {
			struct frame f;

			mk_tcp(&f, AF_INET, 0, 0, 0, 0);
			memcpy(f.b + f.l3 + 12, ok4[i], 4);
			f_cksums(&f);
			CHECK_EQ(parse_f(&f).cls, TFO_PKT_TCP);
		}
	}
}

TFO_TEST(not_for_us)
{
	static const uint8_t dst4[][4] = {
		{ 198, 18, 0, 3 }, { 255, 255, 255, 255 }, { 198, 18, 0, 255 },
		{ 224, 0, 0, 1 }, { 0, 0, 0, 0 }, { 2, 18, 0, 198 },
	};
	struct frame f;

	for (size_t i = 0; i < RTE_DIM(dst4); i++) {
		mk_tcp(&f, AF_INET, 0, 0, 0, 0);
		memcpy(f.b + f.l3 + 16, dst4[i], 4);
		f_cksums(&f);
		CHECK_DROP(parse_f(&f), D(ip_not_ours));
		mk_icmp4(&f, 0, 0, 0);
		memcpy(f.b + f.l3 + 16, dst4[i], 4);
		f_cksums(&f);
		CHECK_DROP(parse_f(&f), D(ip_not_ours));
	}
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	f.b[f.l3 + 24 + 15] = 3;
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ip_not_ours));
	/* an IPv4 address's bytes at the start of an IPv6 destination */
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	memset(f.b + f.l3 + 24, 0, 16);
	memcpy(f.b + f.l3 + 24, our4, 4);
	f_cksums(&f);
	CHECK_DROP(parse_f(&f), D(ip_not_ours));
	/* a port with no addresses at all */
	{
		struct tfo_port_info pi = our_port();

		pi.nb_addrs = 0;
		mk_tcp(&f, AF_INET, 0, 0, 0, 0);
		CHECK_DROP(parse_n(&f, f.len, 0, &pi), D(ip_not_ours));
		mk_ns(&f, peer6ll, our6);
		CHECK_DROP(parse_n(&f, f.len, 0, &pi), D(ip_not_ours));
	}
}

TFO_TEST(l2_checks)
{
	struct frame f;
	struct tfo_pkt p;

	/* another host's MAC */
	mk_tcp(&f, AF_INET, 0, 0, 0, 0);
	memcpy(f.b, other_mac.addr_bytes, 6);
	CHECK_DROP(parse_f(&f), D(l2_not_ours));
	mk_arp(&f, 0, 1);
	memcpy(f.b, other_mac.addr_bytes, 6);
	CHECK_DROP(parse_f(&f), D(l2_not_ours));
	/* TCP is unicast only (Linux drops !PACKET_HOST in tcp_v4_rcv) */
	mk_tcp(&f, AF_INET, 0, 0, 0, 0);
	memcpy(f.b, bcast_mac.addr_bytes, 6);
	CHECK_DROP(parse_f(&f), D(l2_not_ours));
	mk_tcp(&f, AF_INET6, 0, 0, 0, 0);
	memcpy(f.b, "\x33\x33\x00\x00\x00\x02", 6);
	CHECK_DROP(parse_f(&f), D(l2_not_ours));
	/* ICMP echo to our IP through a broadcast MAC is answered (as Linux) */
	mk_icmp4(&f, 0, 0, 0);
	memcpy(f.b, bcast_mac.addr_bytes, 6);
	CHECK_EQ(parse_f(&f).cls, TFO_PKT_ICMP);

	/* stacked VLANs, QinQ */
	mk_tcp(&f, AF_INET, 1, 0, 0, 0);
	put16(f.b + 16, RTE_ETHER_TYPE_VLAN);
	CHECK_DROP(parse_f(&f), D(l2_ethertype));
	mk_tcp(&f, AF_INET, 1, 0, 0, 0);
	put16(f.b + 12, RTE_ETHER_TYPE_QINQ);
	CHECK_DROP(parse_f(&f), D(l2_ethertype));
	mk_tcp(&f, AF_INET, 1, 0, 0, 0);
	put16(f.b + 16, RTE_ETHER_TYPE_QINQ);
	CHECK_DROP(parse_f(&f), D(l2_ethertype));
	/* unknown types, an 802.3 length field, MPLS */
	{
		static const uint16_t types[] = { 0x88cc, 0x0000, 0x05dc, 0x8847,
						  0x86dc, 0x0801, 0xffff };

		for (size_t i = 0; i < RTE_DIM(types); i++) {
			mk_tcp(&f, AF_INET, i & 1, 0, 0, 0);
			put16(f.b + f.l3 - 2, types[i]);
			p = parse_f(&f);
			CHECK_DROP(p, D(l2_ethertype));
		}
	}
}

TFO_TEST(unserved_protocols_and_port_zero)
{
	static const uint8_t protos[] = { IPPROTO_UDP, IPPROTO_GRE, IPPROTO_SCTP,
					  IPPROTO_ICMPV6, IPPROTO_RAW, 200 };
	struct frame f;
	struct tfo_pkt p;

	for (size_t i = 0; i < RTE_DIM(protos); i++) {
		f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV4);
		f_ipv4(&f, peer4, our4, protos[i], NULL, 0);
		f_payload(&f, 12);
		f_done(&f);
		p = parse_f(&f);
		CHECK_DROP(p, D(l4_proto));
		CHECK_EQ(p.l4proto, protos[i]);
	}
	for (size_t i = 0; i < RTE_DIM(protos); i++) {
		uint8_t pr = protos[i] == IPPROTO_ICMPV6 ? IPPROTO_ICMP :
			     protos[i];

		f_eth(&f, &our_mac, RTE_ETHER_TYPE_IPV6);
		f_ipv6(&f, peer6, our6, pr, 64);
		f_payload(&f, 12);
		f_done(&f);
		p = parse_f(&f);
		CHECK_DROP(p, D(l4_proto));
		CHECK_EQ(p.l4proto, pr);
	}
	for (int fam = 0; fam < 2; fam++) {
		for (int which = 0; which < 3; which++) {
			mk_tcp(&f, fam ? AF_INET6 : AF_INET, 0, 0, 0, 4);
			if (which != 1)
				put16(f.b + f.l4, 0);
			if (which != 0)
				put16(f.b + f.l4 + 2, 0);
			f_cksums(&f);
			CHECK_DROP(parse_f(&f), D(tcp_port));
		}
	}
}

/* ---- RX checksum offload flags ------------------------------------------ */

TFO_TEST(rx_cksum_offload_flags)
{
	struct tfo_port_info on = our_port(), off = our_port();
	struct frame good, bad_ip, bad_tcp, good6, bad6;
	const uint64_t ipg = RTE_MBUF_F_RX_IP_CKSUM_GOOD,
		       ipb = RTE_MBUF_F_RX_IP_CKSUM_BAD,
		       ipn = RTE_MBUF_F_RX_IP_CKSUM_NONE,
		       l4g = RTE_MBUF_F_RX_L4_CKSUM_GOOD,
		       l4b = RTE_MBUF_F_RX_L4_CKSUM_BAD,
		       l4n = RTE_MBUF_F_RX_L4_CKSUM_NONE;

	on.rx_cksum_offload = true;
	mk_tcp(&good, AF_INET, 0, 0, 12, 30);
	bad_ip = good;
	bad_ip.b[bad_ip.l3 + 10] ^= 0x55;
	bad_tcp = good;
	bad_tcp.b[bad_tcp.l4 + 17] ^= 0x55;
	mk_tcp(&good6, AF_INET6, 0, 0, 12, 31);
	bad6 = good6;
	bad6.b[bad6.l4 + 16] ^= 0x01;

#define EXPECT(fr, flags, pi, cls_, drop_) do { \
	struct tfo_pkt p_ = parse_n(&(fr), (fr).len, (flags), &(pi)); \
	CHECK_MSG(p_.cls == (cls_) && p_.drop == (drop_), \
		  "%s flags %#llx %s: cls %u drop %s", #fr, \
		  (unsigned long long)(flags), #pi, p_.cls, \
		  tfo_pkt_drop_name((enum tfo_pkt_drop)p_.drop)); \
} while (0)
	/* offload on: GOOD trusted even when the frame's checksum is wrong */
	EXPECT(bad_ip, ipg | l4g, on, TFO_PKT_TCP, D(NONE));
	EXPECT(bad_tcp, ipg | l4g, on, TFO_PKT_TCP, D(NONE));
	EXPECT(bad6, l4g, on, TFO_PKT_TCP, D(NONE));
	/* BAD drops even when the frame's checksum is right */
	EXPECT(good, ipb | l4g, on, TFO_PKT_DROP, D(ipv4_cksum));
	EXPECT(good, ipg | l4b, on, TFO_PKT_DROP, D(tcp_cksum));
	EXPECT(good6, l4b, on, TFO_PKT_DROP, D(tcp_cksum));
	/* UNKNOWN: software */
	EXPECT(good, 0, on, TFO_PKT_TCP, D(NONE));
	EXPECT(good6, 0, on, TFO_PKT_TCP, D(NONE));
	EXPECT(bad_ip, l4g, on, TFO_PKT_DROP, D(ipv4_cksum));
	EXPECT(bad_tcp, ipg, on, TFO_PKT_DROP, D(tcp_cksum));
	EXPECT(bad6, 0, on, TFO_PKT_DROP, D(tcp_cksum));
	/* NONE: "not correct in the packet, but integrity verified" (virtio
	 * with partial checksums): trusted like GOOD */
	EXPECT(bad_ip, ipn | l4n, on, TFO_PKT_TCP, D(NONE));
	EXPECT(bad_tcp, ipn | l4n, on, TFO_PKT_TCP, D(NONE));
	EXPECT(bad6, l4n, on, TFO_PKT_TCP, D(NONE));
	/* offload off: flags ignored both ways */
	EXPECT(bad_ip, ipg | l4g, off, TFO_PKT_DROP, D(ipv4_cksum));
	EXPECT(bad_tcp, ipg | l4g, off, TFO_PKT_DROP, D(tcp_cksum));
	EXPECT(bad6, l4g, off, TFO_PKT_DROP, D(tcp_cksum));
	EXPECT(bad_tcp, ipn | l4n, off, TFO_PKT_DROP, D(tcp_cksum));
	EXPECT(good, ipb | l4b, off, TFO_PKT_TCP, D(NONE));
	EXPECT(good6, l4b, off, TFO_PKT_TCP, D(NONE));
	/* ICMP: PMDs report L4 flags for TCP/UDP only, so ICMP is always
	 * checked in software */
	{
		struct frame ic;

		mk_icmp4(&ic, 0, 0, 8);
		ic.b[ic.l4 + 2] ^= 1;
		EXPECT(ic, ipg | l4g, on, TFO_PKT_DROP, D(icmp_cksum));
		mk_icmp6_echo(&ic, 0, 8);
		ic.b[ic.l4 + 2] ^= 1;
		EXPECT(ic, l4g, on, TFO_PKT_DROP, D(icmp_cksum));
		mk_icmp4(&ic, 0, 0, 8);
		EXPECT(ic, ipb | l4b, on, TFO_PKT_DROP, D(ipv4_cksum));
		EXPECT(ic, l4b, on, TFO_PKT_ICMP, D(NONE));
	}
#undef EXPECT
}

/* ---- multi-segment mbufs ------------------------------------------------- */

TFO_TEST(multiseg_split_everywhere)
{
	struct tfo_port_info pi = our_port();

	for (int t = 0; t < TM_MAX; t++) {
		struct frame f;

		mk_tmpl(&f, t);
		for (uint16_t cut = 0; cut <= f.len; cut++) {
			struct rte_mbuf *m = mk_chain(f.b, f.len, &cut, 1);
			struct tfo_pkt p = parse_m(m, &pi);
			int want = cut < hdr_end(&f) ? D(multiseg) : D(NONE);

			/* a frame shorter than Ethernet is short, split or not */
			check_expect(&p, &f, want, t, cut, "split");
			if (want == D(NONE) && f.proto == IPPROTO_TCP &&
			    f.kind == F_IP)
				check_tcp_fields(&p, &f, p.family == AF_INET ?
						 IDX_OUR4 : IDX_OUR6);
			rte_pktmbuf_free(m);
		}
	}
}

/* Payload over several segments, odd lengths included: the software TCP
 * checksum must be right (and must notice a flipped byte anywhere). */
TFO_TEST(multiseg_payload_cksum)
{
	struct tfo_port_info pi = our_port();
	int runs = 0;

	for (int fam = 0; fam < 2; fam++) {
		for (int iter = 0; iter < 300; iter++) {
			struct frame f;
			uint16_t cuts[4];
			unsigned int nb = 1 + rnd() % 4;
			uint16_t pay = (uint16_t)(1 + rnd() % 1200);
			struct rte_mbuf *m;
			struct tfo_pkt p;

			mk_tcp(&f, fam ? AF_INET6 : AF_INET, iter & 1,
			       fam ? 0 : 4 * (iter % 4), 4 * (iter % 6), pay);
			rnd_fill(f.b + f.pay, pay);
			f_cksums(&f);
			if (iter & 2)
				f_pad(&f, (uint16_t)(f.len + rnd() % 8), 0xaa);
			/* cuts anywhere after the headers, ascending, may repeat
			 * (empty segments) */
			for (unsigned int i = 0; i < nb; i++)
				cuts[i] = (uint16_t)(f.pay + rnd() % (f.len - f.pay + 1));
			for (unsigned int i = 1; i < nb; i++)
				for (unsigned int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
					uint16_t tmp = cuts[j];

					cuts[j] = cuts[j - 1];
					cuts[j - 1] = tmp;
				}
			m = mk_chain(f.b, f.len, cuts, nb);
			p = parse_m(m, &pi);
			check_tcp_fields(&p, &f, fam ? IDX_OUR6 : IDX_OUR4);
			rte_pktmbuf_free(m);

			/* flip one payload byte: the checksum must see it */
			{
				uint16_t at = (uint16_t)(f.pay + rnd() % pay);

				f.b[at] ^= (uint8_t)(1 + rnd() % 255);
				m = mk_chain(f.b, f.len, cuts, nb);
				CHECK_DROP(parse_m(m, &pi), D(tcp_cksum));
				rte_pktmbuf_free(m);
			}
			runs++;
		}
	}
	/* the classic odd case: first segment odd, second even and odd */
	{
		struct frame f;
		uint16_t cut;
		struct rte_mbuf *m;

		mk_tcp(&f, AF_INET, 0, 0, 0, 101);
		cut = (uint16_t)(f.pay + 1);
		m = mk_chain(f.b, f.len, &cut, 1);
		CHECK_EQ(parse_m(m, &pi).cls, TFO_PKT_TCP);
		CHECK(m->data_len & 1);
		rte_pktmbuf_free(m);
		/* an ICMP message whose data continues in a second segment */
		mk_icmp4(&f, 0, 0, 99);
		cut = (uint16_t)(f.l4 + 9);
		m = mk_chain(f.b, f.len, &cut, 1);
		CHECK_EQ(parse_m(m, &pi).cls, TFO_PKT_ICMP);
		rte_pktmbuf_free(m);
	}
	CHECK_EQ(runs, 600);
}

/* An mbuf whose pkt_len claims more than its only segment holds. */
TFO_TEST(mbuf_lengths_inconsistent)
{
	struct tfo_port_info pi = our_port();
	struct frame f;
	struct rte_mbuf *m;

	mk_tcp(&f, AF_INET, 0, 0, 0, 40);
	m = mk_mbuf(f.b, (uint16_t)(f.pay + 10), 0);
	m->pkt_len = f.len;	/* 30 payload bytes are not there */
	CHECK_DROP(parse_m(m, &pi), D(multiseg));
	m->pkt_len = (uint32_t)(f.pay + 9);	/* and the other way round */
	CHECK_DROP(parse_m(m, &pi), D(multiseg));
	rte_pktmbuf_free(m);
}

/* ---- random corruption: no crash, invariants hold ------------------------- */

TFO_TEST(fuzz_mutations)
{
	struct tfo_port_info pi = our_port();
	unsigned int accepted = 0, iters = 30000;

	for (unsigned int it = 0; it < iters; it++) {
		struct frame f;
		struct rte_mbuf *m;
		struct tfo_pkt p;
		uint16_t len;

		mk_tmpl(&f, (int)(rnd() % TM_MAX));
		for (unsigned int k = rnd() % 4; k > 0; k--)
			f.b[rnd() % f.len] ^= (uint8_t)(1u << (rnd() % 8));
		if (rnd() & 1)
			f_cksums(&f);
		len = (uint16_t)(rnd() % 4 ? f.len : rnd() % (f.len + 1));
		if (rnd() % 4 == 0 && len > 1) {
			uint16_t cut = (uint16_t)(rnd() % len);

			m = mk_chain(f.b, len, &cut, 1);
		} else {
			m = mk_mbuf(f.b, len, rnd() % 8 == 0 ?
				    RTE_MBUF_F_RX_IP_CKSUM_GOOD : 0);
		}
		pi.rx_cksum_offload = rnd() % 8 == 0;
		p = parse_m(m, &pi);
		if (p.cls == TFO_PKT_DROP) {
			if (p.drop == D(NONE) || p.drop >= TFO_PKT_DROP_MAX) {
				CHECK_MSG(0, "iter %u: drop %u", it, p.drop);
			}
		} else if (p.cls == TFO_PKT_TCP) {
			accepted++;
			if (p.payload_off != p.l2_len + p.l3_len + p.l4_len ||
			    p.payload_off + p.payload_len > len ||
			    p.l4_len < 20 || p.l4_len > 60 || p.l4_len % 4 ||
			    p.sport == 0 || p.dport == 0 ||
			    p.local_idx < ADDR_BASE ||
			    p.local_idx >= ADDR_BASE + pi.nb_addrs)
				CHECK_MSG(0, "iter %u: bad TCP fields", it);
		} else if (p.cls == TFO_PKT_ICMP || p.cls == TFO_PKT_ICMP6 ||
			   p.cls == TFO_PKT_MLD) {
			if (p.payload_off + p.l4_len > len ||
			    p.payload_off != p.l2_len + p.l3_len)
				CHECK_MSG(0, "iter %u: bad ICMP fields", it);
		} else if (p.cls != TFO_PKT_ARP || p.drop != D(NONE)) {
			CHECK_MSG(0, "iter %u: cls %u drop %u", it, p.cls, p.drop);
		}
		rte_pktmbuf_free(m);
	}
	/* some mutations leave the frame valid (flips in the payload) */
	CHECK(accepted > iters / 50);
}

/* ---- checksum helpers ---------------------------------------------------- */

/* tfo_cksum_add's folded value stored in memory is in network order */
static uint16_t
tfo_sum_host(uint64_t sum)
{
	return rte_be_to_cpu_16(tfo_cksum_fold(sum));
}

TFO_TEST(cksum_add_vs_rfc1071)
{
	static uint8_t buf[8 + 300 + 8];
	unsigned int bad = 0;

	for (size_t len = 0; len <= 300; len++) {
		for (int rep = 0; rep < 8; rep++) {
			size_t off = rnd() % 8;

			rnd_fill(buf, sizeof(buf));
			if (rep == 7)
				memset(buf, 0xff, sizeof(buf));
			if (tfo_sum_host(tfo_cksum_add(0, buf + off, len)) !=
			    ref_cksum(buf + off, len))
				bad++;
		}
	}
	CHECK_EQ(bad, 0);

	/* chained: even-length chunks then one of any length, from any start */
	bad = 0;
	for (int iter = 0; iter < 3000; iter++) {
		size_t len = rnd() % 301, off = rnd() % 8, done = 0;
		uint64_t sum = 0;

		rnd_fill(buf, sizeof(buf));
		while (done < len) {
			size_t n = (rnd() % 40) & ~(size_t)1;

			if (n > len - done || rnd() % 8 == 0)
				n = len - done;
			sum = tfo_cksum_add(sum, buf + off + done, n);
			done += n;
		}
		if (tfo_sum_host(sum) != ref_cksum(buf + off, len))
			bad++;
	}
	CHECK_EQ(bad, 0);

	/* a caller's starting sum is carried */
	rnd_fill(buf, sizeof(buf));
	CHECK_EQ(tfo_sum_host(tfo_cksum_add(tfo_cksum_add(0, buf, 20), buf + 20, 21)),
		 ref_cksum(buf, 41));
	CHECK_EQ(tfo_cksum_fold(tfo_cksum_add(0xffffffffull, buf, 0)), 0xffff);

	/* the largest datagram, all ones: accumulator does not overflow */
	{
		static uint8_t big[65535];

		memset(big, 0xff, sizeof(big));
		CHECK_EQ(tfo_sum_host(tfo_cksum_add(0, big, sizeof(big))),
			 ref_cksum(big, sizeof(big)));
		rnd_fill(big, sizeof(big));
		CHECK_EQ(tfo_sum_host(tfo_cksum_add(0, big, sizeof(big))),
			 ref_cksum(big, sizeof(big)));
		CHECK_EQ(tfo_cksum_fold(tfo_cksum_add(0, big, sizeof(big))),
			 rte_raw_cksum(big, sizeof(big)));
	}
	/* fold: end-around carries of a full 64-bit sum */
	CHECK_EQ(tfo_cksum_fold(0xffffffffffffffffull), 0xffff);
	CHECK_EQ(tfo_cksum_fold(0x0001000000000000ull), 1);
	CHECK_EQ(tfo_cksum_fold(0x1ffffull), 1);
	CHECK_EQ(tfo_cksum_fold(0), 0);
}

/* Words whose sum carries out of bit 63 at every add (all ones, and all
 * ones but one byte), at every length up to a few loop rounds and every
 * alignment: the carries tfo_cksum_add counts apart must all come back. */
TFO_TEST(cksum_add_carries)
{
	static uint8_t buf[8 + 80];
	unsigned int bad = 0;

	for (size_t len = 0; len <= 80; len++) {
		for (size_t off = 0; off < 8; off++) {
			for (size_t hole = 0; hole <= len; hole++) {
				memset(buf, 0xff, sizeof(buf));
				if (hole < len)
					buf[off + hole] = 0xfe;
				if (tfo_sum_host(tfo_cksum_add(0, buf + off, len)) !=
				    ref_cksum(buf + off, len))
					bad++;
				/* a caller's large sum is carried too */
				if (tfo_cksum_fold(tfo_cksum_add(0xfffffffffffull,
								 buf + off, len)) !=
				    tfo_cksum_fold(0xfffffffffffull +
						   tfo_cksum_add(0, buf + off, len)))
					bad++;
			}
		}
	}
	CHECK_EQ(bad, 0);
}

TFO_TEST(cksum_pseudo)
{
	for (int iter = 0; iter < 200; iter++) {
		struct tfo_addr s = {{ 0 }}, d = {{ 0 }};
		struct rte_ipv4_hdr ih;
		struct rte_ipv6_hdr i6;
		uint8_t proto = (uint8_t)rnd();
		uint16_t l4 = (uint16_t)rnd();
		uint8_t ph[40];

		rnd_fill(s.b, 4);
		rnd_fill(d.b, 4);
		CHECK_EQ(tfo_sum_host(tfo_cksum_pseudo(AF_INET, &s, &d, proto, l4)),
			 ref_cksum(ph, ref_pseudo(ph, AF_INET, s.b, d.b, proto, l4)));
		/* DPDK's view: what a NIC offload expects in the field */
		memset(&ih, 0, sizeof(ih));
		ih.version_ihl = 0x45;
		ih.total_length = rte_cpu_to_be_16((uint16_t)(l4 + 20));
		ih.next_proto_id = proto;
		memcpy(&ih.src_addr, s.b, 4);
		memcpy(&ih.dst_addr, d.b, 4);
		if (l4 <= 65535 - 20)
			CHECK_EQ(tfo_cksum_fold(tfo_cksum_pseudo(AF_INET, &s, &d,
								 proto, l4)),
				 rte_ipv4_phdr_cksum(&ih, 0));

		rnd_fill(s.b, 16);
		rnd_fill(d.b, 16);
		memset(&i6, 0, sizeof(i6));
		i6.payload_len = rte_cpu_to_be_16(l4);
		i6.proto = proto;
		memcpy(i6.src_addr, s.b, 16);
		memcpy(i6.dst_addr, d.b, 16);
		/* DPDK 22.11 shifts the int-promoted proto by 24: UB from 128 */
		i6.proto = proto & 0x7f;
		CHECK_EQ(tfo_cksum_fold(tfo_cksum_pseudo(AF_INET6, &s, &d,
							 proto & 0x7f, l4)),
			 rte_ipv6_phdr_cksum(&i6, 0));
		CHECK_EQ(tfo_sum_host(tfo_cksum_pseudo(AF_INET6, &s, &d, proto, l4)),
			 ref_cksum(ph, ref_pseudo(ph, AF_INET6, s.b, d.b, proto, l4)));
		/* jumbograms: the upper 16 bits of the length count (RFC 2675) */
		{
			uint32_t jl = 0x10000u + rnd() % 0x100000u;

			CHECK_EQ(tfo_sum_host(tfo_cksum_pseudo(AF_INET6, &s, &d,
							       proto, jl)),
				 ref_cksum(ph, ref_pseudo(ph, AF_INET6, s.b, d.b,
							  proto, jl)));
		}
	}
}

/* ---- building ------------------------------------------------------------- */

static struct tfo_port_info
peer_port(int family)
{
	struct tfo_port_info pi;

	memset(&pi, 0, sizeof(pi));
	pi.mac = peer_mac;
	pi.nb_addrs = 1;
	pi.addr_base = 0;
	set_addr(&pi.addrs[0], family, family == AF_INET ? peer4 : peer6, 24);
	return pi;
}

static struct tfo_route
mk_route(int family, int vlan)
{
	struct tfo_route r;

	memset(&r, 0, sizeof(r));
	r.peer_mac = peer_mac;
	r.has_vlan = (uint8_t)vlan;
	r.vlan_tci = vlan ? 0x2abc : 0;
	r.family = (uint8_t)family;
	r.local_idx = family == AF_INET ? IDX_OUR4 : IDX_OUR6;
	r.port_idx = 2;
	memcpy(r.local.b, family == AF_INET ? our4 : our6, family == AF_INET ? 4 : 16);
	memcpy(r.peer.b, family == AF_INET ? peer4 : peer6, family == AF_INET ? 4 : 16);
	return r;
}

/* An mbuf chain holding @pay_len payload bytes in @nb_segs segments (the
 * first may hold 0), from the pool, headroom as allocated. */
static struct rte_mbuf *
mk_payload(const uint8_t *pay, uint16_t pay_len, unsigned int nb_segs)
{
	struct rte_mbuf *head = NULL;
	uint16_t done = 0;

	setup();
	for (unsigned int i = 0; i < nb_segs; i++) {
		struct rte_mbuf *s = rte_pktmbuf_alloc(pool);
		uint16_t n = i + 1 == nb_segs ? (uint16_t)(pay_len - done) :
			     (uint16_t)(((pay_len - done) / (nb_segs - i)) | 1);
		char *d;

		if (s == NULL)
			abort();
		if (n > pay_len - done)
			n = (uint16_t)(pay_len - done);
		d = rte_pktmbuf_append(s, n);
		if (d == NULL)
			abort();
		memcpy(d, pay + done, n);
		done = (uint16_t)(done + n);
		if (head == NULL)
			head = s;
		else
			rte_pktmbuf_chain(head, s);
	}
	return head;
}

/*
 * What a NIC does with the offload flags: fill in the checksums. Summed
 * over a linear copy with the reference code: DPDK 22.11's
 * rte_raw_cksum_mbuf() is wrong for a segment that starts at an odd offset
 * (it truncates the segment's 32-bit sum to 16 bits before the byte swap).
 */
static void
emulate_tx_offload(struct rte_mbuf *m)
{
	static uint8_t flat[FMAX];
	const uint8_t *b;

	if (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) {
		uint8_t *ih = rte_pktmbuf_mtod_offset(m, uint8_t *, m->l2_len);

		put16(ih + 10, (uint16_t)~ref_cksum(ih, m->l3_len));
	}
	if ((m->ol_flags & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_TCP_CKSUM) {
		uint8_t *th = rte_pktmbuf_mtod_offset(m, uint8_t *,
						      m->l2_len + m->l3_len);

		/* the field holds the pseudo-header sum: sum over it */
		b = rte_pktmbuf_read(m, 0, m->pkt_len, flat);
		put16(th + 16, (uint16_t)~ref_cksum(b + m->l2_len + m->l3_len,
						    m->pkt_len - m->l2_len - m->l3_len));
	}
}

static void
build_case(int family, int vlan, uint8_t opt_len, uint16_t pay_len,
	   unsigned int nb_segs, int ip_off, int tcp_off)
{
	static const uint8_t opts[40] = {
		2, 4, 0x05, 0xb4, 1, 3, 3, 9, 4, 2, 1, 1,
		34, 10, 0xc0, 0x0c, 0x1e, 0x5a, 0x11, 0x22, 0x33, 0x44, 1, 1,
		8, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 1, 0,
	};
	struct tfo_port_info us = our_port(), peer = peer_port(family);
	struct tfo_route r = mk_route(family, vlan);
	struct tfo_tcp_out t = {
		.sport = 80, .dport = 51234, .seq = 0xdeadbeef, .ack = 0x01234567,
		.window = 0x7fff, .flags = TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_FIN,
		.opt_len = opt_len, .opts = opts,
	};
	uint8_t pay[1500], got[1500];
	uint16_t hl = (uint16_t)(tfo_pkt_hdr_len(&r) + opt_len);
	uint16_t l2 = (uint16_t)(vlan ? 18 : 14), l3 = family == AF_INET ? 20 : 40;
	struct rte_mbuf *m;
	struct tfo_pkt p;
	char what[96];
	uint64_t want_fl;

	snprintf(what, sizeof(what), "fam %d vlan %d opts %u pay %u segs %u off %d/%d",
		 family, vlan, opt_len, pay_len, nb_segs, ip_off, tcp_off);
	us.tx_ip_cksum_offload = ip_off;
	us.tx_tcp_cksum_offload = tcp_off;
	rnd_fill(pay, pay_len);
	m = mk_payload(pay, pay_len, nb_segs);
	/* flags a previous user of the mbuf may have left */
	m->ol_flags |= RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
	CHECK_MSG(tfo_pkt_prepend_tcp(m, &us, &r, &t) == 0, "%s", what);
	CHECK_MSG(m->pkt_len == (uint32_t)(hl + pay_len), "%s", what);
	CHECK_EQ(m->l2_len, l2);
	CHECK_EQ(m->l3_len, l3);
	CHECK_EQ(m->l4_len, 20 + opt_len);
	want_fl = family == AF_INET ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6;
	if (ip_off && family == AF_INET)
		want_fl |= RTE_MBUF_F_TX_IP_CKSUM;
	if (tcp_off)
		want_fl |= RTE_MBUF_F_TX_TCP_CKSUM;
	CHECK_MSG((m->ol_flags & (RTE_MBUF_F_TX_OFFLOAD_MASK)) == want_fl,
		  "%s: ol_flags %#llx", what,
		  (unsigned long long)(m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK));
	CHECK_EQ(rte_validate_tx_offload(m), 0);

	/* fixed header fields */
	{
		const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);

		CHECK_MEM(b, peer_mac.addr_bytes, 6);
		CHECK_MEM(b + 6, our_mac.addr_bytes, 6);
		if (family == AF_INET) {
			CHECK_EQ(b[l2], 0x45);
			CHECK_EQ(b[l2 + 1], 0);
			CHECK_EQ(get16(b + l2 + 2), m->pkt_len - l2);
			CHECK_EQ(get16(b + l2 + 6), 0x4000);
			CHECK_EQ(b[l2 + 8], 64);
			CHECK_EQ(b[l2 + 9], IPPROTO_TCP);
			if (ip_off)
				CHECK_EQ(get16(b + l2 + 10), 0);
		} else {
			CHECK_EQ(get16(b + l2), 0x6000);
			CHECK_EQ(get16(b + l2 + 2), 0);
			CHECK_EQ(get16(b + l2 + 4), m->pkt_len - l2 - 40);
			CHECK_EQ(b[l2 + 7], 64);
		}
		CHECK_EQ(get16(b + l2 + l3 + 18), 0);	/* urgent pointer */
		CHECK_MEM(b + l2 + l3 + 20, opts, opt_len);
	}

	if (tcp_off) {
		const struct rte_tcp_hdr *th = rte_pktmbuf_mtod_offset(m,
			const struct rte_tcp_hdr *, l2 + l3);
		uint16_t want;

		if (family == AF_INET)
			want = rte_ipv4_phdr_cksum(rte_pktmbuf_mtod_offset(m,
				const struct rte_ipv4_hdr *, l2), m->ol_flags);
		else
			want = rte_ipv6_phdr_cksum(rte_pktmbuf_mtod_offset(m,
				const struct rte_ipv6_hdr *, l2), m->ol_flags);
		CHECK_MSG(th->cksum == want, "%s: pseudo %#x want %#x", what,
			  th->cksum, want);
		/* and what an Intel PMD's tx_prepare would write is the same */
		if (rte_pktmbuf_data_len(m) >= hl) {
			uint16_t before = th->cksum;

			CHECK_EQ(rte_net_intel_cksum_prepare(m), 0);
			CHECK_EQ(th->cksum, before);
		}
	}
	emulate_tx_offload(m);
	/* checksums verify: reference code and DPDK's, on a linear copy */
	{
		static uint8_t flat[FMAX];
		const uint8_t *b = rte_pktmbuf_read(m, 0, m->pkt_len, flat);
		const uint8_t *ip = b + l2, *l4 = b + l2 + l3;
		uint32_t l4_len = m->pkt_len - l2 - l3;

		REQUIRE(b != NULL);
		if (family == AF_INET) {
			CHECK_MSG(ref_cksum(ip, 20) == 0xffff, "%s", what);
			CHECK_MSG(rte_ipv4_cksum((const struct rte_ipv4_hdr *)ip) == 0,
				  "%s", what);
			CHECK_MSG(rte_ipv4_udptcp_cksum_verify(
				(const struct rte_ipv4_hdr *)ip, l4) == 0, "%s", what);
		} else {
			CHECK_MSG(rte_ipv6_udptcp_cksum_verify(
				(const struct rte_ipv6_hdr *)ip, l4) == 0, "%s", what);
		}
		CHECK_MSG(ref_l4_cksum(family, ip + (family == AF_INET ? 12 : 8),
				       ip + (family == AF_INET ? 16 : 24),
				       IPPROTO_TCP, l4, l4_len) == 0xffff,
			  "%s", what);
	}

	/* the peer parses it: every field round-trips */
	p = parse_m(m, &peer);
	CHECK_MSG(p.cls == TFO_PKT_TCP, "%s: cls %u drop %s", what, p.cls,
		  tfo_pkt_drop_name((enum tfo_pkt_drop)p.drop));
	CHECK_EQ(p.family, family);
	CHECK_EQ(p.has_vlan, vlan);
	CHECK_EQ(p.vlan_tci, r.vlan_tci);
	CHECK_EQ(p.l2_len, l2);
	CHECK_EQ(p.l3_len, l3);
	CHECK_EQ(p.l4_len, 20 + opt_len);
	CHECK_EQ(p.payload_off, hl);
	CHECK_EQ(p.payload_len, pay_len);
	CHECK_EQ(p.sport, t.sport);
	CHECK_EQ(p.dport, t.dport);
	CHECK_EQ(p.seq, t.seq);
	CHECK_EQ(p.ack, t.ack);
	CHECK_EQ(p.window, t.window);
	CHECK_EQ(p.tcp_flags, t.flags);
	CHECK_EQ(p.local_idx, 0);
	CHECK_MEM(p.src.b, r.local.b, 16);
	CHECK_MEM(p.dst.b, r.peer.b, 16);
	if (pay_len) {
		const void *pp = rte_pktmbuf_read(m, hl, pay_len, got);

		CHECK(pp != NULL && memcmp(pp, pay, pay_len) == 0);
	}
	rte_pktmbuf_free(m);
}

TFO_TEST(prepend_tcp_roundtrip)
{
	static const uint8_t opt_lens[] = { 0, 4, 12, 40 };
	static const uint16_t pays[] = { 0, 1, 333, 1400 };
	unsigned int cases = 0;

	for (int fam = 0; fam < 2; fam++)
		for (int vlan = 0; vlan < 2; vlan++)
			for (size_t o = 0; o < RTE_DIM(opt_lens); o++)
				for (size_t pl = 0; pl < RTE_DIM(pays); pl++)
					for (unsigned int segs = 1; segs <= 3; segs += 2)
						for (int off = 0; off < 4; off++) {
							if (pays[pl] == 0 && segs > 1)
								continue;
							build_case(fam ? AF_INET6 : AF_INET,
								   vlan, opt_lens[o], pays[pl],
								   segs, off & 1, off >> 1);
							cases++;
						}
	CHECK(cases > 200);
}

TFO_TEST(prepend_tcp_headroom)
{
	for (int fam = 0; fam < 2; fam++) {
		for (int vlan = 0; vlan < 2; vlan++) {
			struct tfo_port_info us = our_port();
			struct tfo_route r = mk_route(fam ? AF_INET6 : AF_INET, vlan);
			struct tfo_tcp_out t = { .sport = 1, .dport = 2,
						 .flags = TFO_TCP_RST, .opt_len = 8,
						 .opts = syn_opts };
			uint16_t need = (uint16_t)(tfo_pkt_hdr_len(&r) + 8);
			struct rte_mbuf *m;

			setup();
			m = rte_pktmbuf_alloc(pool);
			REQUIRE(m != NULL);
			m->data_off = (uint16_t)(need - 1);
			rte_pktmbuf_append(m, 10);
			CHECK_EQ(tfo_pkt_prepend_tcp(m, &us, &r, &t), -ENOSPC);
			/* untouched */
			CHECK_EQ(m->data_off, need - 1);
			CHECK_EQ(m->data_len, 10);
			CHECK_EQ(m->pkt_len, 10);
			m->data_off = need;
			CHECK_EQ(tfo_pkt_prepend_tcp(m, &us, &r, &t), 0);
			CHECK_EQ(m->data_off, 0);
			CHECK_EQ(m->pkt_len, need + 10);
			rte_pktmbuf_free(m);
		}
	}
}

/* Payload in an external buffer (zero-copy responses): headers go into a
 * segment in front of it. */
TFO_TEST(prepend_tcp_extbuf_payload)
{
	struct tfo_port_info us = our_port(), peer = peer_port(AF_INET);
	struct tfo_route r = mk_route(AF_INET, 0);
	struct tfo_tcp_out t = { .sport = 80, .dport = 3333, .seq = 7, .ack = 9,
				 .window = 100, .flags = TFO_TCP_ACK | TFO_TCP_PSH };
	static const char body[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
	uint16_t blen = (uint16_t)(sizeof(body) - 1);
	struct rte_mbuf *h, *b;
	struct tfo_pkt p;

	b = mk_mbuf((const uint8_t *)body, blen, 0);
	h = rte_pktmbuf_alloc(pool);
	REQUIRE(h != NULL);
	/* REQUIRE evaluates its condition twice: no side effects in it */
	CHECK_EQ(rte_pktmbuf_chain(h, b), 0);
	CHECK_EQ(tfo_pkt_prepend_tcp(h, &us, &r, &t), 0);
	CHECK_EQ(h->nb_segs, 2);
	p = parse_m(h, &peer);
	CHECK_EQ(p.cls, TFO_PKT_TCP);
	CHECK_EQ(p.payload_len, blen);
	CHECK_EQ(p.payload_off, 54);
	rte_pktmbuf_free(h);
}

/*
 * tfo_pkt_prepend_tcp as it was written field by field, before it stored
 * whole words: the bytes and mbuf fields the word writer must reproduce.
 */
static int
ref_prepend_tcp(struct rte_mbuf *m, const struct tfo_port_info *port,
		const struct tfo_route *r, const struct tfo_tcp_out *t)
{
	uint16_t l2 = RTE_ETHER_HDR_LEN + (r->has_vlan ? 4 : 0);
	uint16_t l3 = r->family == AF_INET ? 20 : 40;
	uint16_t l4 = (uint16_t)(TFO_TCP_HDR_LEN + t->opt_len);
	uint32_t l4_total;
	struct rte_ether_hdr *eh;
	struct rte_tcp_hdr *th;
	uint8_t *p;

	p = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(l2 + l3 + l4));
	if (p == NULL)
		return -ENOSPC;
	l4_total = m->pkt_len - l2 - l3;

	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	rte_ether_addr_copy(&r->peer_mac, &eh->dst_addr);
	rte_ether_addr_copy(&port->mac, &eh->src_addr);
	if (r->has_vlan) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eh + 1);

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(r->vlan_tci);
		vh->eth_proto = rte_cpu_to_be_16(r->family == AF_INET ?
						 RTE_ETHER_TYPE_IPV4 :
						 RTE_ETHER_TYPE_IPV6);
	} else {
		eh->ether_type = rte_cpu_to_be_16(r->family == AF_INET ?
						  RTE_ETHER_TYPE_IPV4 :
						  RTE_ETHER_TYPE_IPV6);
	}

	m->l2_len = l2;
	m->l3_len = l3;
	m->l4_len = l4;
	m->ol_flags &= ~(RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6 |
			 RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK);

	if (r->family == AF_INET) {
		struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)(p + l2);

		ih->version_ihl = 0x45;
		ih->type_of_service = 0;
		ih->total_length = rte_cpu_to_be_16((uint16_t)(l3 + l4_total));
		ih->packet_id = 0;
		ih->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ih->time_to_live = 64;
		ih->next_proto_id = IPPROTO_TCP;
		ih->hdr_checksum = 0;
		memcpy(&ih->src_addr, r->local.b, 4);
		memcpy(&ih->dst_addr, r->peer.b, 4);
		m->ol_flags |= RTE_MBUF_F_TX_IPV4;
		if (port->tx_ip_cksum_offload)
			m->ol_flags |= RTE_MBUF_F_TX_IP_CKSUM;
		else
			ih->hdr_checksum = (uint16_t)~tfo_cksum_fold(tfo_cksum_add(0, ih, 20));
	} else {
		struct rte_ipv6_hdr *ih = (struct rte_ipv6_hdr *)(p + l2);

		ih->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ih->payload_len = rte_cpu_to_be_16((uint16_t)l4_total);
		ih->proto = IPPROTO_TCP;
		ih->hop_limits = 64;
		memcpy(ih->src_addr, r->local.b, 16);
		memcpy(ih->dst_addr, r->peer.b, 16);
		m->ol_flags |= RTE_MBUF_F_TX_IPV6;
	}

	th = (struct rte_tcp_hdr *)(p + l2 + l3);
	th->src_port = rte_cpu_to_be_16(t->sport);
	th->dst_port = rte_cpu_to_be_16(t->dport);
	th->sent_seq = rte_cpu_to_be_32(t->seq);
	th->recv_ack = rte_cpu_to_be_32(t->ack);
	th->data_off = (uint8_t)((l4 / 4) << 4);
	th->tcp_flags = t->flags;
	th->rx_win = rte_cpu_to_be_16(t->window);
	th->cksum = 0;
	th->tcp_urp = 0;
	if (t->opt_len)
		memcpy(th + 1, t->opts, t->opt_len);

	{
		uint64_t sum = tfo_cksum_pseudo(r->family, &r->local, &r->peer,
						IPPROTO_TCP, l4_total);

		if (port->tx_tcp_cksum_offload) {
			/* the NIC adds the segment to the pseudo-header sum */
			m->ol_flags |= RTE_MBUF_F_TX_TCP_CKSUM;
			th->cksum = tfo_cksum_fold(sum);
		} else {
			if (likely(m->next == NULL))
				sum = tfo_cksum_add(sum, th, l4_total);
			else
				sum += tfo_cksum_mbuf(m, (uint32_t)(l2 + l3), l4_total);
			th->cksum = (uint16_t)~tfo_cksum_fold(sum);
		}
	}
	return 0;
}

/* Both writers on the same payload; everything they produce compared. */
static void
same_bytes_case(int family, int vlan, uint8_t opt_len, uint16_t pay_len,
		unsigned int nb_segs, int ip_off, int tcp_off)
{
	static uint8_t fa[FMAX], fb[FMAX];
	struct tfo_port_info us = our_port();
	struct tfo_route r = mk_route(family, vlan);
	uint8_t opts[40], pay[1500];
	struct tfo_tcp_out t = {
		.sport = (uint16_t)rnd(), .dport = (uint16_t)rnd(),
		.seq = (uint32_t)rnd(), .ack = (uint32_t)rnd(),
		.window = (uint16_t)rnd(), .flags = (uint8_t)rnd(),
		.opt_len = opt_len, .opts = opts,
	};
	struct rte_mbuf *a, *b;
	const uint8_t *pa, *pb;
	char what[96];

	snprintf(what, sizeof(what), "fam %d vlan %d opts %u pay %u segs %u off %d/%d",
		 family, vlan, opt_len, pay_len, nb_segs, ip_off, tcp_off);
	rnd_fill(opts, sizeof(opts));
	rnd_fill(pay, pay_len);
	rnd_fill(r.peer_mac.addr_bytes, 6);
	rnd_fill(us.mac.addr_bytes, 6);
	rnd_fill(r.local.b, family == AF_INET ? 4 : 16);
	rnd_fill(r.peer.b, family == AF_INET ? 4 : 16);
	if (vlan)
		r.vlan_tci = (uint16_t)rnd();
	us.tx_ip_cksum_offload = ip_off;
	us.tx_tcp_cksum_offload = tcp_off;
	a = mk_payload(pay, pay_len, nb_segs);
	b = mk_payload(pay, pay_len, nb_segs);
	a->ol_flags |= RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
	b->ol_flags |= RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
	CHECK_MSG(tfo_pkt_prepend_tcp(a, &us, &r, &t) == 0, "%s", what);
	CHECK_MSG(ref_prepend_tcp(b, &us, &r, &t) == 0, "%s", what);
	CHECK_MSG(a->pkt_len == b->pkt_len && a->data_len == b->data_len &&
		  a->data_off == b->data_off, "%s", what);
	CHECK_MSG(a->ol_flags == b->ol_flags, "%s: ol_flags %#llx want %#llx", what,
		  (unsigned long long)a->ol_flags, (unsigned long long)b->ol_flags);
	CHECK_MSG(a->tx_offload == b->tx_offload, "%s", what);
	pa = rte_pktmbuf_read(a, 0, a->pkt_len, fa);
	pb = rte_pktmbuf_read(b, 0, b->pkt_len, fb);
	REQUIRE(pa != NULL && pb != NULL);
	for (uint32_t i = 0; i < a->pkt_len && i < b->pkt_len; i++)
		if (pa[i] != pb[i]) {
			CHECK_MSG(pa[i] == pb[i], "%s: byte %u is %#x, want %#x",
				  what, i, pa[i], pb[i]);
			break;
		}
	rte_pktmbuf_free(a);
	rte_pktmbuf_free(b);
}

TFO_TEST(prepend_tcp_same_bytes)
{
	static const uint8_t opt_lens[] = { 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40 };
	static const uint16_t pays[] = { 0, 1, 2, 3, 7, 64, 333, 1400 };
	unsigned int cases = 0;

	/* k: family, VLAN, IP and TCP checksum offload, one bit each */
	for (int k = 0; k < 16 * 3; k++)
		for (size_t o = 0; o < RTE_DIM(opt_lens); o++)
			for (size_t pl = 0; pl < RTE_DIM(pays); pl++)
				for (unsigned int segs = 1; segs <= 3; segs += 2) {
					if (pays[pl] < 2 && segs > 1)
						continue;
					same_bytes_case(k & 1 ? AF_INET6 : AF_INET,
							(k >> 1) & 1, opt_lens[o],
							pays[pl], segs, (k >> 2) & 1,
							(k >> 3) & 1);
					cases++;
				}
	CHECK(cases > 1000);
}

/* ---- names and routes ----------------------------------------------------- */

TFO_TEST(drop_names)
{
	static const char *const want[] = {
		"none",
#define X(name, help) #name,
		TFO_PKT_DROP_REASONS(X)
#undef X
	};

	CHECK_EQ(RTE_DIM(want), TFO_PKT_DROP_MAX);
	for (unsigned int r = 0; r < TFO_PKT_DROP_MAX; r++) {
		const char *n = tfo_pkt_drop_name((enum tfo_pkt_drop)r);
		char cname[64];
		int id;

		CHECK(n != NULL && strcmp(n, want[r]) == 0);
		for (unsigned int q = 0; q < r; q++)
			CHECK(strcmp(n, tfo_pkt_drop_name((enum tfo_pkt_drop)q)) != 0);
		/* the counter of the reason is "drop_<name>" */
		snprintf(cname, sizeof(cname), "drop_%s", n);
		id = tfo_stats_lookup(cname);
		CHECK_EQ(id, TFO_STAT_PKT_DROP_BASE + r);
	}
	CHECK(strcmp(tfo_pkt_drop_name(TFO_PKT_DROP_MAX), "?") == 0);
	CHECK(strcmp(tfo_pkt_drop_name((enum tfo_pkt_drop)255), "?") == 0);
	CHECK(strcmp(tfo_pkt_drop_name((enum tfo_pkt_drop)-1), "?") == 0);
}

TFO_TEST(route_from_pkt)
{
	struct tfo_port_info pi = our_port();
	struct frame f;

	for (int fam = 0; fam < 2; fam++) {
		for (int vlan = 0; vlan < 2; vlan++) {
			struct rte_mbuf *m;
			struct tfo_pkt p;
			struct tfo_route r;
			struct tfo_addr zero = {{ 0 }};

			mk_tcp(&f, fam ? AF_INET6 : AF_INET, vlan, 0, 0, 3);
			m = mk_mbuf(f.b, f.len, 0);
			p = parse_m(m, &pi);
			REQUIRE(p.cls == TFO_PKT_TCP);
			memset(&r, 0x5a, sizeof(r));
			tfo_route_from_pkt(&r, m, &p, 5);
			CHECK(rte_is_same_ether_addr(&r.peer_mac, &peer_mac));
			CHECK_EQ(r.has_vlan, vlan);
			CHECK_EQ(r.vlan_tci, vlan ? 0xa123 : 0);
			CHECK_EQ(r.family, fam ? AF_INET6 : AF_INET);
			CHECK_EQ(r.local_idx, fam ? IDX_OUR6 : IDX_OUR4);
			CHECK_EQ(r.port_idx, 5);
			CHECK_MEM(r.local.b, fam ? our6 : our4, fam ? 16 : 4);
			CHECK_MEM(r.peer.b, fam ? peer6 : peer4, fam ? 16 : 4);
			if (!fam) {
				CHECK_MEM(r.local.b + 4, zero.b, 12);
				CHECK_MEM(r.peer.b + 4, zero.b, 12);
			}
			rte_pktmbuf_free(m);

			/* the answer built from the route goes back to the peer */
			{
				struct tfo_port_info peer = peer_port(r.family);
				struct tfo_tcp_out t = { .sport = p.dport,
					.dport = p.sport, .seq = 1,
					.ack = p.seq + 1,
					.flags = TFO_TCP_SYN | TFO_TCP_ACK };
				struct rte_mbuf *a;
				struct tfo_pkt q;

				setup();
				a = rte_pktmbuf_alloc(pool);
				REQUIRE(a != NULL);
				CHECK_EQ(tfo_pkt_prepend_tcp(a, &pi, &r, &t), 0);
				q = parse_m(a, &peer);
				CHECK_EQ(q.cls, TFO_PKT_TCP);
				CHECK_EQ(q.dport, T_SPORT);
				CHECK_EQ(q.has_vlan, vlan);
				CHECK_EQ(q.vlan_tci, p.vlan_tci);
				CHECK_MEM(q.src.b, p.dst.b, 16);
				CHECK_MEM(q.dst.b, p.src.b, 16);
				rte_pktmbuf_free(a);
			}
		}
	}
}

/* ---- cross-check against scapy (vectors in pkt_vectors.h) --------------- */

/*
 * Frames scapy built (tests/gen_pkt_vectors.py): the parser must take them
 * as scapy describes them, and tfo_pkt_prepend_tcp must produce the same
 * bytes as scapy for the same fields.
 */
TFO_TEST(scapy_vectors)
{
	struct tfo_port_info pi = our_port();

	for (size_t i = 0; i < RTE_DIM(pkt_vectors); i++) {
		const struct pkt_vector *v = &pkt_vectors[i];
		struct rte_mbuf *m = mk_mbuf(v->bytes, v->len, 0);
		struct tfo_pkt p = parse_m(m, &pi);

		CHECK_MSG(p.cls == v->cls && p.drop == v->drop,
			  "%s: cls %u drop %s", v->name, p.cls,
			  tfo_pkt_drop_name((enum tfo_pkt_drop)p.drop));
		if (p.cls == TFO_PKT_TCP) {
			CHECK_EQ(p.sport, v->sport);
			CHECK_EQ(p.dport, v->dport);
			CHECK_EQ(p.seq, v->seq);
			CHECK_EQ(p.ack, v->ack);
			CHECK_EQ(p.window, v->window);
			CHECK_EQ(p.tcp_flags, v->flags);
			CHECK_EQ(p.payload_off, v->payload_off);
			CHECK_EQ(p.payload_len, v->payload_len);
		}
		rte_pktmbuf_free(m);
	}

	for (size_t i = 0; i < RTE_DIM(pkt_built); i++) {
		const struct pkt_built *v = &pkt_built[i];
		struct tfo_port_info us = our_port();
		struct tfo_route r = mk_route(v->family, v->vlan);
		struct tfo_tcp_out t = {
			.sport = v->sport, .dport = v->dport, .seq = v->seq,
			.ack = v->ack, .window = v->window, .flags = v->flags,
			.opt_len = v->opt_len, .opts = v->opts,
		};
		uint16_t hl = (uint16_t)(tfo_pkt_hdr_len(&r) + v->opt_len);
		struct rte_mbuf *m = mk_payload(v->bytes + hl,
						(uint16_t)(v->len - hl), 1);

		CHECK_EQ(tfo_pkt_prepend_tcp(m, &us, &r, &t), 0);
		CHECK_EQ(m->pkt_len, v->len);
		CHECK_MSG(m->pkt_len == v->len &&
			  memcmp(rte_pktmbuf_mtod(m, void *), v->bytes, v->len) == 0,
			  "%s: bytes differ from scapy's", v->name);
		rte_pktmbuf_free(m);
	}
}

/* ---- fast branch vs generic parser -------------------------------------- */

/*
 * tfo_pkt_parse and tfo_pkt_parse_generic on the same mbuf, each into a
 * tfo_pkt poisoned alike: false (and what differs on stderr) unless the
 * class and every byte of the result agree, the fields the parse leaves
 * alone included.
 */
static bool
parse_same(const struct rte_mbuf *m, bool offload, const char *what,
	   unsigned int it)
{
	struct tfo_pkt f, g;
	enum tfo_pkt_class cf, cg;

	memset(&f, 0xa5, sizeof(f));
	memset(&g, 0xa5, sizeof(g));
	cf = tfo_pkt_parse(m, offload, &f);
	cg = tfo_pkt_parse_generic(m, offload, &g);
	if (cf == cg && memcmp(&f, &g, sizeof(f)) == 0)
		return true;
	fprintf(stderr, "  %s %u (%u bytes, offload %d, flags %#llx): "
		"fast cls %d drop %s, generic cls %d drop %s\n", what, it,
		m->pkt_len, offload, (unsigned long long)m->ol_flags, cf,
		tfo_pkt_drop_name((enum tfo_pkt_drop)f.drop), cg,
		tfo_pkt_drop_name((enum tfo_pkt_drop)g.drop));
	return false;
}

/* Untagged IPv4 TCP without IP options: what the fast branch takes, with
 * the TCP options and payload picked by @p r. */
static void
mk_plain_tcp4(struct frame *f, uint32_t r)
{
	static const uint8_t opt_lens[] = { 0, 4, 12, 20 };

	mk_tcp(f, AF_INET, 0, 0, opt_lens[r % 4], (uint16_t)((r >> 2) % 80));
	if ((r >> 9) % 4 == 0)
		f_pad(f, 60, 0x5e);	/* Ethernet minimum, padded */
}

TFO_TEST(fast_parse_matches_generic)
{
	static const uint64_t flags[] = {
		0, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD,
		RTE_MBUF_F_RX_IP_CKSUM_BAD, RTE_MBUF_F_RX_L4_CKSUM_BAD,
		RTE_MBUF_F_RX_IP_CKSUM_NONE | RTE_MBUF_F_RX_L4_CKSUM_NONE,
		RTE_MBUF_F_RX_IP_CKSUM_GOOD,
	};
	unsigned long bad = 0, runs = 0;

	/* scapy's frames, as they are */
	for (size_t i = 0; i < RTE_DIM(pkt_vectors); i++) {
		struct rte_mbuf *m = mk_mbuf(pkt_vectors[i].bytes,
					     pkt_vectors[i].len, 0);

		bad += !parse_same(m, false, pkt_vectors[i].name, 0);
		runs++;
		rte_pktmbuf_free(m);
	}

	/* the fast branch's frames and the other templates, mutated: bits
	 * flipped (mostly in the headers), checksums fixed or not, cut,
	 * split, IP length moved, RX checksum flags */
	for (unsigned int it = 0; it < 60000; it++) {
		uint32_t r = rnd();
		struct frame f;
		struct rte_mbuf *m;
		uint16_t len;
		uint64_t fl = flags[rnd() % RTE_DIM(flags)];

		if (r % 4 != 0)
			mk_plain_tcp4(&f, rnd());
		else
			mk_tmpl(&f, (int)(rnd() % TM_MAX));
		for (unsigned int k = (r >> 2) % 4; k > 0; k--) {
			uint32_t at = rnd() % 4 ? rnd() % RTE_MIN(f.len, 60u) :
				      rnd() % f.len;

			f.b[at] ^= (uint8_t)(1u << (rnd() % 8));
		}
		/* or a header byte replaced: a port or a length of 0 */
		if ((r >> 15) % 4 == 0) {
			uint32_t at = rnd() % RTE_MIN(f.len, 60u);

			f.b[at] = rnd() % 2 ? 0 : (uint8_t)rnd();
		}
		if ((r >> 4) % 8 == 0 && f.kind == F_IP)
			f_set_end(&f, (uint16_t)(f.l4 + rnd() % (f.len - f.l4 + 8)));
		if ((r >> 7) % 2)
			f_cksums(&f);
		len = (uint16_t)((r >> 8) % 6 ? f.len : rnd() % (f.len + 1));
		if ((r >> 11) % 6 == 0 && len > 1) {
			uint16_t cut = (uint16_t)(1 + rnd() % (len - 1));

			m = mk_chain(f.b, len, &cut, 1);
		} else {
			m = mk_mbuf(f.b, len, 0);
		}
		m->ol_flags |= fl;
		bad += !parse_same(m, (r >> 14) % 2, "mutation", it);
		runs++;
		rte_pktmbuf_free(m);
	}
	CHECK_EQ(bad, 0);
	CHECK(runs > 60000);
}

/*
 * tfo_pkt_match_local's one pass for IPv4 must give the generic match's
 * verdicts and fields: frames to our MAC or not, from our addresses,
 * their broadcasts, martians or peers, to ours or not, on ports whose
 * prefixes have broadcasts or not.
 */
TFO_TEST(fast_match_matches_generic)
{
	static const uint8_t srcs[][4] = {
		{ 198, 18, 0, 1 }, { 198, 18, 0, 2 }, { 198, 18, 0, 255 },
		{ 203, 0, 113, 255 }, { 203, 0, 113, 7 }, { 198, 18, 0, 3 },
		{ 127, 0, 0, 1 }, { 224, 0, 0, 1 }, { 0, 1, 2, 3 },
		{ 255, 255, 255, 255 }, { 198, 19, 255, 255 },
	};
	static const uint8_t plens[] = { 0, 8, 15, 24, 30, 31, 32 };
	const struct rte_ether_addr *macs[] = { &our_mac, &other_mac, &bcast_mac };
	unsigned long bad = 0, taken = 0;

	for (unsigned int it = 0; it < 40000; it++) {
		struct tfo_port_info pi = our_port();
		struct tfo_pkt p, f, g;
		enum tfo_pkt_class cf, cg;
		struct rte_mbuf *m;
		struct frame fr;
		uint32_t r = rnd();

		pi.addrs[0].prefix_len = plens[rnd() % RTE_DIM(plens)];
		pi.addrs[2].prefix_len = plens[rnd() % RTE_DIM(plens)];
		if (r % 8 == 0)
			pi.nb_addrs = (uint8_t)(rnd() % 5);
		if ((r >> 3) % 4 != 0)
			mk_plain_tcp4(&fr, rnd());
		else
			mk_tmpl(&fr, (int)(rnd() % TM_MAX));
		if (fr.kind == F_IP && fr.family == AF_INET) {
			memcpy(fr.b + fr.l3 + 12, srcs[rnd() % RTE_DIM(srcs)], 4);
			memcpy(fr.b + fr.l3 + 16, rnd() % 4 ? our4 :
			       srcs[rnd() % RTE_DIM(srcs)], 4);
			if ((r >> 5) % 8 != 0)
				f_cksums(&fr);
		}
		if ((r >> 8) % 4 == 0)
			memcpy(fr.b, macs[rnd() % RTE_DIM(macs)], 6);
		m = mk_mbuf(fr.b, fr.len, 0);
		memset(&p, 0xa5, sizeof(p));
		tfo_pkt_parse(m, false, &p);
		taken += p.cls == TFO_PKT_TCP && p.family == AF_INET;
		f = p;
		g = p;
		cf = tfo_pkt_match_local(&pi, m, &f);
		cg = tfo_pkt_match_local_generic(&pi, m, &g);
		if (cf != cg || memcmp(&f, &g, sizeof(f)) != 0) {
			bad++;
			fprintf(stderr, "  match %u: fast cls %d drop %s, generic cls %d drop %s\n",
				it, cf, tfo_pkt_drop_name((enum tfo_pkt_drop)f.drop), cg,
				tfo_pkt_drop_name((enum tfo_pkt_drop)g.drop));
		}
		rte_pktmbuf_free(m);
	}
	CHECK_EQ(bad, 0);
	CHECK(taken > 10000);
}

TFO_TEST_MAIN()
