/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the harness of the packet parser's unit tests (test_pkt_*.c,
 * one program, "pkt"): addresses, a naive RFC 1071 checksum, a byte-by-byte
 * frame builder and templates (pkt_frame.c), mbufs over exact-size buffers
 * (pkt_harness.c).
 *
 * Frames are crafted byte by byte here, with a deliberately naive RFC 1071
 * checksum, so that nothing is checked against itself. The parser is given
 * each frame in an external buffer of exactly the frame's size: under ASan a
 * malloc() of that size (ASan poisons the next byte), otherwise a buffer that
 * ends at a PROT_NONE page. A read past the frame is a crash or an ASan
 * report, never a silent pass.
 */
#ifndef TFO_TEST_PKT_HARNESS_H
#define TFO_TEST_PKT_HARNESS_H

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
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

extern const struct rte_ether_addr our_mac;
extern const struct rte_ether_addr peer_mac;
extern const struct rte_ether_addr other_mac;
extern const struct rte_ether_addr bcast_mac;

extern const uint8_t our4[4];
extern const uint8_t our4b[4];
extern const uint8_t peer4[4];
extern const uint8_t our6[16];
/* EUI-64 link-local of our_mac */
extern const uint8_t our6ll[16];
extern const uint8_t peer6[16];
extern const uint8_t peer6ll[16];

/* Global address indices: the port's addresses start at ADDR_BASE. */
#define ADDR_BASE 3
#define IDX_OUR4 (ADDR_BASE + 0)
#define IDX_OUR6 (ADDR_BASE + 1)
#define IDX_OUR4B (ADDR_BASE + 2)
#define IDX_OUR6LL (ADDR_BASE + 3)

/* @la = @a/@plen of @family. */
void
set_addr(struct tfo_local_addr *la, int family, const uint8_t *a, uint8_t plen);

/* Our port: our_mac; our4, our6, our4b and our6ll from ADDR_BASE. */
struct tfo_port_info
our_port(void);

/* ---- PRNG (fixed seed: failures reproduce) ------------------------------ */

extern uint64_t rng_state;

uint32_t
rnd(void);

void
rnd_fill(uint8_t *p, size_t n);

/* ---- reference checksum: RFC 1071 as written ----------------------------- */

uint16_t
ref_cksum(const uint8_t *p, size_t len);

/* The pseudo-header (RFC 793 / RFC 8200 8.1) as bytes; returns its size. */
size_t
ref_pseudo(uint8_t *out, int family, const uint8_t *src, const uint8_t *dst,
	   uint8_t proto, uint32_t l4_len);

/* Sum over a pseudo-header followed by the L4 bytes, built in a scratch
 * buffer: slow and obviously right. */
uint16_t
ref_l4_cksum(int family, const uint8_t *src, const uint8_t *dst, uint8_t proto,
	     const uint8_t *l4, uint32_t l4_len);

/* ---- frame builder ------------------------------------------------------ */

void
put16(uint8_t *p, uint16_t v);

void
put32(uint8_t *p, uint32_t v);

uint16_t
get16(const uint8_t *p);

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

void
f_bytes(struct frame *f, const void *d, size_t n);

void
f_eth(struct frame *f, const struct rte_ether_addr *dst, uint16_t type);

/* Append a VLAN tag; the caller gave 0x8100 as the Ethernet type. */
void
f_vlan(struct frame *f, uint16_t tci, uint16_t type);

void
f_eth_l2(struct frame *f, const struct rte_ether_addr *dst, int vlan,
	 uint16_t type);

void
f_ipv4(struct frame *f, const uint8_t *src, const uint8_t *dst, uint8_t proto,
       const uint8_t *opts, uint8_t opt_len);

void
f_ipv6(struct frame *f, const uint8_t *src, const uint8_t *dst, uint8_t nh,
       uint8_t hlim);

#define T_SPORT 40001
#define T_DPORT 80
#define T_SEQ 0x01020304u
#define T_ACK 0xa0b0c0d0u
#define T_WIN 0xfedc
#define T_FLAGS (TFO_TCP_SYN | TFO_TCP_ECE | TFO_TCP_CWR)

void
f_tcp(struct frame *f, uint16_t sport, uint16_t dport, uint8_t flags,
      const uint8_t *opts, uint8_t opt_len);

/* ICMP/ICMPv6 header: type, code, checksum, 4 bytes of "rest". */
void
f_icmp(struct frame *f, uint8_t type, uint8_t code, uint32_t rest);

void
f_payload(struct frame *f, uint16_t n);

uint16_t
l4_cksum_off(uint8_t proto);

/* Recompute the IP header checksum and the L4 checksum over [l4, end). */
void
f_cksums(struct frame *f);

/* Set the IP length field so that the datagram ends at @end, and fix the
 * checksums. */
void
f_set_end(struct frame *f, uint16_t end);

void
f_done(struct frame *f);

/* Ethernet padding up to @min bytes (after f_done: not part of the IP
 * datagram); @fill makes it visible if anyone sums it. */
void
f_pad(struct frame *f, uint16_t min, uint8_t fill);

/* ---- frame templates ---------------------------------------------------- */

extern const uint8_t syn_opts[20];
/* Router alert + NOP padding + timestamp option with room for 1 entry. */
extern const uint8_t ip_opts[12];

void
mk_tcp(struct frame *f, int family, int vlan, uint8_t ip_opt_len,
       uint8_t tcp_opt_len, uint16_t pay);

void
mk_arp(struct frame *f, int vlan, uint16_t op);

void
mk_icmp4(struct frame *f, int vlan, uint8_t ip_opt_len, uint16_t data);

void
mk_icmp6_echo(struct frame *f, int vlan, uint16_t data);

/* Neighbor Solicitation for @target, sent to its solicited-node group. */
void
mk_ns(struct frame *f, const uint8_t *src, const uint8_t *target);

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
extern const uint8_t opt_padn4[6];
extern const uint8_t opt_router_alert[6];
/* Routing header type 0 (RFC 2460) with one address and segments left 0 */
extern const uint8_t rh0_body[22];

/*
 * An IPv6 header followed by the extension headers @x[0..n-1], chained
 * by their next-header fields, the last one's pointing to @nh; f->proto is
 * the upper layer's, so f_cksums() sums it over the final destination.
 */
void
f_ipv6_ext(struct frame *f, const uint8_t *src, const uint8_t *dst, uint8_t nh,
	   uint8_t hlim, const struct ext_hdr *x, unsigned int n);

/* A TCP SYN (options, 7 bytes of data) behind extension headers. */
void
mk_tcp6_ext(struct frame *f, int vlan, const struct ext_hdr *x, unsigned int n);

/* Hop-by-Hop (PadN), Destination Options (PadN), Routing type 0 left 0. */
extern const struct ext_hdr ext_hbh_do_rh[3];

/* An MLDv2 report (RFC 3810: type 143, one record) to ff02::16, with the
 * Hop-by-Hop router alert every MLD message carries. */
void
mk_mld_report(struct frame *f, bool hbh);

/* ---- mbufs over exact-size buffers -------------------------------------- */

extern struct rte_mempool *pool;

/* EAL and the mbuf pool, once. */
void
setup(void);

struct xbuf {
	struct rte_mbuf_ext_shared_info shinfo;
	void *map;
	size_t map_len;
};

void
xbuf_free_cb(void *addr, void *opaque);

/* @len bytes that end where readable memory ends. */
uint8_t *
xbuf_alloc(size_t len, struct xbuf **xp);

struct rte_mbuf *
seg_exact(const uint8_t *bytes, uint16_t len);

/* The first @len bytes of @bytes in one exact-size segment. */
struct rte_mbuf *
mk_mbuf(const uint8_t *bytes, uint16_t len, uint64_t ol_flags);

/* @len bytes cut at @cuts (ascending) into nb_cuts + 1 exact segments. */
struct rte_mbuf *
mk_chain(const uint8_t *bytes, uint16_t len, const uint16_t *cuts,
	 unsigned int nb_cuts);

/* tfo_pkt_classify() of @m on @pi into poisoned fields; cls 0xee when the
 * return value and p.cls differ. */
struct tfo_pkt
parse_m(const struct rte_mbuf *m, const struct tfo_port_info *pi);

/* Parse the first @len bytes of @f, exact-size buffer, on our port. */
struct tfo_pkt
parse_n(const struct frame *f, uint16_t len, uint64_t ol_flags,
	const struct tfo_port_info *pi);

/* The whole of @f, parsed on our_port(). */
struct tfo_pkt
parse_f(const struct frame *f);

/* Expect a drop for @reason; print the class/reason seen otherwise. */
#define CHECK_DROP(p, reason) do { \
	struct tfo_pkt chk_p_ = (p); \
	CHECK_MSG(chk_p_.cls == TFO_PKT_DROP && chk_p_.drop == (reason), \
		  "%s: cls %u drop %s, want %s", #p, chk_p_.cls, \
		  tfo_pkt_drop_name((enum tfo_pkt_drop)chk_p_.drop), \
		  tfo_pkt_drop_name(reason)); \
} while (0)

/* Every field of a TCP parse against the frame it came from. */
void
check_tcp_fields(const struct tfo_pkt *p, const struct frame *f, int idx);

/* ---- templates for the truncation, multi-segment and cross-check cases --- */

enum tmpl_id {
	TM_TCP4_OPTS, TM_TCP4_VLAN, TM_TCP6, TM_TCP6_VLAN, TM_ARP, TM_ARP_VLAN,
	TM_ICMP4_OPTS, TM_ICMP6_ECHO, TM_TCP6_EXT, TM_TCP6_EXT_VLAN, TM_MLD,
	TM_NS, TM_MAX
};

/* Frame template @id (enum tmpl_id): every kind the parser takes. */
void
mk_tmpl(struct frame *f, int id);

/* Bytes that must sit in the first segment: all headers the parser reads. */
uint16_t
hdr_end(const struct frame *f);

/* The class a whole, valid frame of this template parses to. */
int
good_class(const struct frame *f);

/* The frame cut after @len bytes, IP length fields untouched. */
int
expect_cut(const struct frame *f, uint16_t len);

/* The datagram shortened to end at @end, its IP length saying so. */
int
expect_short_datagram(const struct frame *f, uint16_t end);

/* @p parsed from template @tmpl cut at @len: the class, or the drop @want. */
void
check_expect(const struct tfo_pkt *p, const struct frame *f, int want,
	     int tmpl, uint16_t len, const char *what);

/* ---- routes and payloads for the builder ---------------------------------- */

/* The route back to the peer from our IPv4 or IPv6 address, VLAN or not. */
struct tfo_route
mk_route(int family, int vlan);

/* An mbuf chain holding @pay_len payload bytes in @nb_segs segments (the
 * first may hold 0), from the pool, headroom as allocated. */
struct rte_mbuf *
mk_payload(const uint8_t *pay, uint16_t pay_len, unsigned int nb_segs);

#endif /* TFO_TEST_PKT_HARNESS_H */
