/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the packet tests' harness (pkt_harness.h).
 */
#include "pkt_harness.h"

/* ---- addresses ---------------------------------------------------------- */

const struct rte_ether_addr our_mac = {{ 0x02, 0, 0, 0, 0, 0x01 }};
const struct rte_ether_addr peer_mac = {{ 0x02, 0, 0, 0, 0, 0x02 }};
const struct rte_ether_addr other_mac = {{ 0x02, 0, 0, 0, 0, 0x03 }};
const struct rte_ether_addr bcast_mac = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};

const uint8_t our4[4] = { 198, 18, 0, 2 };
const uint8_t our4b[4] = { 203, 0, 113, 7 };
const uint8_t peer4[4] = { 198, 18, 0, 1 };
const uint8_t our6[16] = { 0xfd, 0x00, 0x07, 0xf0, [15] = 0x02 };
/* EUI-64 link-local of our_mac */
const uint8_t our6ll[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe,
				    [15] = 0x01 };
const uint8_t peer6[16] = { 0xfd, 0x00, 0x07, 0xf0, [15] = 0x01 };
const uint8_t peer6ll[16] = { 0xfe, 0x80, [8] = 0x12, [15] = 0x34 };

void
set_addr(struct tfo_local_addr *la, int family, const uint8_t *a, uint8_t plen)
{
	memset(la, 0, sizeof(*la));
	la->family = (uint8_t)family;
	la->prefix_len = plen;
	memcpy(la->addr.b, a, family == AF_INET ? 4 : 16);
}

struct tfo_port_info
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

uint64_t rng_state = 0x9e3779b97f4a7c15ull;

uint32_t
rnd(void)
{
	return tfo_test_rand(&rng_state);
}

void
rnd_fill(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rnd();
}

/* ---- reference checksum: RFC 1071 as written ----------------------------- */

uint16_t
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
size_t
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
uint16_t
ref_l4_cksum(int family, const uint8_t *src, const uint8_t *dst, uint8_t proto,
	     const uint8_t *l4, uint32_t l4_len)
{
	static uint8_t scratch[40 + 70000];
	size_t n = ref_pseudo(scratch, family, src, dst, proto, l4_len);

	memcpy(scratch + n, l4, l4_len);
	return ref_cksum(scratch, n + l4_len);
}

/* ---- frame builder ------------------------------------------------------ */

void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

void
f_bytes(struct frame *f, const void *d, size_t n)
{
	memcpy(f->b + f->len, d, n);
	f->len = (uint16_t)(f->len + n);
}

void
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
void
f_vlan(struct frame *f, uint16_t tci, uint16_t type)
{
	put16(f->b + f->len, tci);
	put16(f->b + f->len + 2, type);
	f->len = (uint16_t)(f->len + 4);
	f->l3 = f->l4 = f->pay = f->end = f->len;
}

void
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

void
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

void
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

void
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
void
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

void
f_payload(struct frame *f, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		f->b[f->len + i] = (uint8_t)(0x30 + i * 7);
	f->len = (uint16_t)(f->len + n);
	f->end = f->len;
}

uint16_t
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
void
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
void
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

void
f_done(struct frame *f)
{
	if (f->kind != F_IP)
		f->end = f->len;
	else
		f_set_end(f, f->len);
}

/* Ethernet padding up to @min bytes (after f_done: not part of the IP
 * datagram); @fill makes it visible if anyone sums it. */
void
f_pad(struct frame *f, uint16_t min, uint8_t fill)
{
	while (f->len < min)
		f->b[f->len++] = fill;
}

/* ---- frame templates ---------------------------------------------------- */

const uint8_t syn_opts[20] = {
	2, 4, 0x05, 0xb4,			/* MSS 1460 */
	4, 2,					/* SACK permitted */
	8, 10, 1, 2, 3, 4, 0, 0, 0, 0,		/* timestamps */
	1,					/* NOP */
	3, 3, 7,				/* window scale 7 */
};
/* Router alert + NOP padding + timestamp option with room for 1 entry. */
const uint8_t ip_opts[12] = {
	0x94, 4, 0, 0,
	0x44, 8, 5, 0, 0, 0, 0, 0,
};

void
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

void
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

void
mk_icmp4(struct frame *f, int vlan, uint8_t ip_opt_len, uint16_t data)
{
	f_eth_l2(f, &our_mac, vlan, RTE_ETHER_TYPE_IPV4);
	f_ipv4(f, peer4, our4b, IPPROTO_ICMP, ip_opts, ip_opt_len);
	f_icmp(f, 8, 0, 0x00420001);
	f_payload(f, data);
	f_done(f);
}

void
mk_icmp6_echo(struct frame *f, int vlan, uint16_t data)
{
	f_eth_l2(f, &our_mac, vlan, RTE_ETHER_TYPE_IPV6);
	f_ipv6(f, peer6, our6, IPPROTO_ICMPV6, 64);
	f_icmp(f, 128, 0, 0x00430002);
	f_payload(f, data);
	f_done(f);
}

/* Neighbor Solicitation for @target, sent to its solicited-node group. */
void
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

/* HBH/DO bodies (6 bytes: one 8-byte header) */
const uint8_t opt_padn4[6] = { 1, 4, 0, 0, 0, 0 };
const uint8_t opt_router_alert[6] = { 5, 2, 0, 0, 1, 0 };	/* RA MLD, PadN 0 */
/* Routing header type 0 (RFC 2460) with one address and segments left 0 */
const uint8_t rh0_body[22] = { 0, 0, 0, 0, 0, 0, 0xfd, 0, 0x07, 0xf0, [21] = 0x09 };

/*
 * An IPv6 header followed by the extension headers @x[0..n-1], chained
 * by their next-header fields, the last one's pointing to @nh; f->proto is
 * the upper layer's, so f_cksums() sums it over the final destination.
 */
void
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
void
mk_tcp6_ext(struct frame *f, int vlan, const struct ext_hdr *x, unsigned int n)
{
	f_eth_l2(f, &our_mac, vlan, RTE_ETHER_TYPE_IPV6);
	f_ipv6_ext(f, peer6, our6, IPPROTO_TCP, 64, x, n);
	f_tcp(f, T_SPORT, T_DPORT, T_FLAGS, syn_opts, 20);
	f_payload(f, 7);
	f_done(f);
}

/* Hop-by-Hop (PadN), Destination Options (PadN), Routing type 0 left 0. */
const struct ext_hdr ext_hbh_do_rh[] = {
	{ IPPROTO_HOPOPTS, 8, opt_padn4 },
	{ IPPROTO_DSTOPTS, 8, opt_padn4 },
	{ IPPROTO_ROUTING, 24, rh0_body },
};

/* An MLDv2 report (RFC 3810: type 143, one record) to ff02::16, with the
 * Hop-by-Hop router alert every MLD message carries. */
void
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

struct rte_mempool *pool;

void
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

void
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
uint8_t *
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

struct rte_mbuf *
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
struct rte_mbuf *
mk_mbuf(const uint8_t *bytes, uint16_t len, uint64_t ol_flags)
{
	struct rte_mbuf *m;

	setup();
	m = seg_exact(bytes, len);
	m->ol_flags |= ol_flags;
	return m;
}

/* @len bytes cut at @cuts (ascending) into nb_cuts + 1 exact segments. */
struct rte_mbuf *
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

struct tfo_pkt
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
struct tfo_pkt
parse_n(const struct frame *f, uint16_t len, uint64_t ol_flags,
	const struct tfo_port_info *pi)
{
	struct rte_mbuf *m = mk_mbuf(f->b, len, ol_flags);
	struct tfo_pkt p = parse_m(m, pi);

	rte_pktmbuf_free(m);
	return p;
}

struct tfo_pkt
parse_f(const struct frame *f)
{
	struct tfo_port_info pi = our_port();

	return parse_n(f, f->len, 0, &pi);
}

/* Every field of a TCP parse against the frame it came from. */
void
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

/* ---- templates for the truncation, multi-segment and cross-check cases --- */

void
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
uint16_t
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

int
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
int
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
int
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

void
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

/* ---- routes and payloads for the builder ---------------------------------- */

struct tfo_route
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
struct rte_mbuf *
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
