/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the packet tests' harness (pkt_harness.h): addresses, the
 * reference checksum, mbufs over exact-size buffers, routes and payloads;
 * the frames are pkt_frame.c's.
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
