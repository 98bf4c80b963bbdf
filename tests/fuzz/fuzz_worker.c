/* SPDX-License-Identifier: BSD-3-Clause
 * libFuzzer harness 3: a whole worker and the control core, fed arbitrary
 * sequences of frames under a fake clock.
 *
 * One worker (its engine, its batched cookie check, the echo and http
 * services; echo answers UDP too) and the control core (its engine with SYN cookies, ARP, ICMP,
 * ND, key rotation) on two ports, wired as tfo-server wires them: the
 * worker's ring to the control core, and the relay rings by which worker 0
 * sends the control core's frames (net_tap). No device: frames go in
 * through tfo_worker_burst(); what the worker sends is checked and freed
 * by its TX flush, which plays a port (it can refuse frames).
 *
 * Input: a config byte (bit 0: cookie_not_required, bit 1: siphash-linux
 * cookies instead of aes128, bit 2: the worker's syncookies = always, bit 3:
 * = no; else auto), then records:
 *   op & 7 = 0..2  FRAME: flags, seq delta, ack delta, split, u16 length,
 *                  bytes. Frames of a burst share a port; a frame for the
 *                  other port, or 32 frames, end the burst.
 *   op & 7 = 3     AGAIN: flags, seq delta, ack delta, split: the last
 *                  FRAME's bytes again, fixed up anew (the next segment of
 *                  a flow, a retransmission, a duplicate).
 *   op & 7 = 4     STEP: run the burst, the control core, housekeeping
 *   op & 7 = 5     ADVANCE: u16 milliseconds, then STEP
 *   op & 7 = 6     ROTATE the TFO key (the old primary becomes the backup)
 *   op & 7 = 7     REJECT: u8, the port refuses that many of the next frames
 * FRAME flags: bit 0 fix the checksums (IPv4 header, TCP, UDP, ICMP, ICMPv6);
 * bit 1 fix seq/ack to the server's view of the flow (+ the deltas); bit 2
 * a valid cookie in the TFO option (bit 3 too: the backup key's), bit 3
 * alone: a retired key's; bit 4 exact-size external buffers (else direct
 * mbufs); bit 5 split in two segments; bit 6 port 1 (trusts RX checksum
 * flags, TX offloads, chained mbufs for zero-copy bodies); bit 7 RX
 * checksum flags GOOD (op bit 0: BAD).
 * TFO_FUZZ_VERBOSE=1: print what each input did (counter deltas).
 *
 * Invariants: no out-of-bounds access (ASan; RX frames in exact-size
 * buffers), every frame counted exactly once on each lcore after every
 * step (tfo_stats_account, the ring backlogs), every frame sent is
 * well formed (lengths, checksums, within the MTU, from our MAC); after
 * the input, with the clock run forward, both connection tables and
 * buffer pools are full again, nothing is pending, and every mbuf is back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "cookie/cookie.h"
#include "lcore/control.h"
#include "lcore/worker.h"
#include "net/tcpopt.h"
#include "net/tx.h"
#include "ops/config.h"
#include "server/server.h"
#include "tcp/engine.h"
#include "tfo/service.h"

#include "fuzz_common.h"
#include "fuzz_ports.h"

#define NB_PORTS 2
#define POOL_N 2047
#define W_CONNS 32
#define C_CONNS 8
#define BURST 32
#define FRAME_MAX 4096
#define NB_FLOWS 64
#define NB_KEYS 4

#define F_CKSUM 0x01
#define F_SEQACK 0x02
#define F_COOKIE 0x04
#define F_COOKIE_ALT 0x08
#define F_EXACT 0x10
#define F_SPLIT 0x20
#define F_PORT1 0x40
#define F_RX_OL 0x80

/* The server's side of a flow, as seen in what it sent. */
struct flow {
	bool used;
	uint8_t family, port_idx;
	uint16_t cport, sport;
	struct tfo_addr client;
	uint32_t srv_next;	/* seq after the last segment it sent */
	uint32_t srv_ack;	/* what it acked last */
	uint32_t srv_tsval;	/* its last TSval (SYN cookies keep bits in it) */
};

static struct {
	struct tfo_server *srv;		/* owns all but krs[1], wck[1], cck[1] */
	struct rte_mempool *pool;
	struct tfo_port_info ports[NB_PORTS];	/* copied by the server */
	struct tfo_keyring *kr, *krs[2];	/* kr: the ring of this input's algorithm */
	struct tfo_cookie_ctx *wck[2], *cck[2];
	enum tfo_cookie_algo algo;
	struct tfo_key keys[NB_KEYS];
	unsigned int prim;		/* keys[prim] is the primary */
	struct tfo_control *c;
	struct rte_ring *to_ctrl, *to_neigh, *relay[NB_PORTS];
	uint64_t now;
	unsigned int reject;
	uint64_t fed;			/* frames given to the worker */
	uint32_t w_bufs, c_bufs;
	struct flow flows[NB_FLOWS];
	/* the burst being built */
	struct rte_mbuf *burst[BURST];
	unsigned int nb;
	uint8_t burst_port;
	bool verbose;
	struct tfo_stats last_w, last_c;
} G;

static struct tfo_worker *W;

/* ---- what the server sends --------------------------------------------- */

static uint8_t out_buf[FRAME_MAX + 64];

static struct flow *
flow_slot(uint8_t family, const struct tfo_addr *client, uint16_t cport,
	  uint16_t sport, uint8_t port_idx)
{
	uint32_t h = family * 31u + cport * 131u + sport * 7u + port_idx;

	for (unsigned int i = 0; i < 16; i++)
		h = h * 33 + client->b[i];
	return &G.flows[h % NB_FLOWS];
}

static bool
flow_match(const struct flow *f, uint8_t family, const struct tfo_addr *client,
	   uint16_t cport, uint16_t sport, uint8_t port_idx)
{
	return f->used && f->family == family && f->cport == cport && f->sport == sport &&
	       f->port_idx == port_idx && memcmp(&f->client, client, sizeof(*client)) == 0;
}

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A UDP answer (echo's udp = on): its length, ports, checksum (software:
 * no fuzzed port offloads UDP). */
static void
check_udp_out(const uint8_t *uh, uint32_t l4len, int family, const struct tfo_addr *s,
	      const struct tfo_addr *d)
{
	uint64_t sum = tfo_cksum_pseudo(family, s, d, IPPROTO_UDP, l4len);

	FZ_ASSERT(l4len >= 8 && be16(uh + 4) == l4len, "UDP length %u in %u bytes",
		  l4len >= 8 ? be16(uh + 4) : 0, l4len);
	FZ_ASSERT(be16(uh) == 7 && be16(uh + 2) != 0, "UDP ports %u -> %u sent", be16(uh),
		  be16(uh + 2));
	FZ_ASSERT(be16(uh + 6) != 0 && tfo_cksum_fold(tfo_cksum_add(sum, uh, l4len)) == 0xffff,
		  "bad UDP checksum sent");
}

/* A TCP segment we sent: well formed, and what it tells about the flow. */
static void
check_tcp_out(const uint8_t *f, uint32_t l3, uint32_t l4len, uint8_t family,
	      const struct tfo_addr *src, const struct tfo_addr *dst, bool cksum,
	      uint8_t port_idx)
{
	const uint8_t *th = f + l3;
	uint32_t doff = (uint32_t)(th[12] >> 4) * 4, plen;
	uint8_t flags = th[13];
	struct tfo_tcpopts o;
	struct flow *fl;

	FZ_ASSERT(l4len >= 20 && doff >= 20 && doff <= l4len, "TCP doff %u of %u", doff, l4len);
	FZ_ASSERT(tfo_tcpopt_parse(th + 20, doff - 20, &o) == 0, "our TCP options malformed");
	FZ_ASSERT(!((flags & TFO_TCP_SYN) && (flags & TFO_TCP_RST)), "SYN+RST sent");
	FZ_ASSERT(!(flags & TFO_TCP_SYN) || (flags & TFO_TCP_ACK), "SYN without ACK sent");
	if (cksum) {
		uint64_t sum = tfo_cksum_pseudo(family, src, dst, IPPROTO_TCP, l4len);

		FZ_ASSERT(tfo_cksum_fold(tfo_cksum_add(sum, th, l4len)) == 0xffff,
			  "bad TCP checksum sent");
	}
	plen = l4len - doff;
	if (flags & TFO_TCP_RST)
		return;
	fl = flow_slot(family, dst, be16(th + 2), be16(th), port_idx);
	fl->used = true;
	fl->family = family;
	fl->port_idx = port_idx;
	fl->client = *dst;
	fl->cport = be16(th + 2);
	fl->sport = be16(th);
	fl->srv_next = be32(th + 4) + plen + !!(flags & TFO_TCP_SYN) + !!(flags & TFO_TCP_FIN);
	if (flags & TFO_TCP_ACK)
		fl->srv_ack = be32(th + 8);
	if (o.has_ts)
		fl->srv_tsval = o.tsval;
}

static void
check_out(struct rte_mbuf *m, uint8_t port_idx)
{
	const struct tfo_port_info *pi = &G.ports[port_idx];
	const char *why = NULL;
	const uint8_t *f;
	uint32_t len = m->pkt_len, l2 = 14;
	uint16_t type;

	FZ_ASSERT(rte_mbuf_check(m, 1, &why) == 0, "bad mbuf sent: %s", why);
	FZ_ASSERT(len >= 14 && len <= FRAME_MAX, "frame of %u bytes sent", len);
	f = rte_pktmbuf_read(m, 0, len, out_buf);
	FZ_ASSERT(f != NULL, "unreadable frame");
	FZ_ASSERT(memcmp(f + 6, pi->mac.addr_bytes, 6) == 0, "not from our MAC");
	type = be16(f + 12);
	if (type == RTE_ETHER_TYPE_VLAN) {
		FZ_ASSERT(len >= 18, "short VLAN frame");
		type = be16(f + 16);
		l2 = 18;
	}
	FZ_ASSERT(len - l2 <= pi->mtu || type == RTE_ETHER_TYPE_ARP,
		  "%u-byte datagram over the MTU %u", len - l2, pi->mtu);
	if (type == RTE_ETHER_TYPE_ARP) {
		FZ_ASSERT(len >= l2 + 28, "short ARP sent");
		return;
	}
	if (type == RTE_ETHER_TYPE_IPV4) {
		const uint8_t *ih = f + l2;
		struct tfo_addr s = { .b = { 0 } }, d = { .b = { 0 } };
		uint32_t tot;

		FZ_ASSERT(len >= l2 + 20 && ih[0] == 0x45, "IPv4 header sent");
		tot = be16(ih + 2);
		FZ_ASSERT(tot == len - l2, "IPv4 total length %u in %u bytes", tot, len - l2);
		if (!pi->tx_ip_cksum_offload)
			FZ_ASSERT(tfo_cksum_fold(tfo_cksum_add(0, ih, 20)) == 0xffff,
				  "bad IPv4 checksum sent");
		memcpy(s.b, ih + 12, 4);
		memcpy(d.b, ih + 16, 4);
		if (ih[9] == IPPROTO_TCP) {
			check_tcp_out(f, l2 + 20, tot - 20, AF_INET, &s, &d,
				      !pi->tx_tcp_cksum_offload, port_idx);
		} else if (ih[9] == IPPROTO_UDP) {
			check_udp_out(ih + 20, tot - 20, AF_INET, &s, &d);
		} else {
			FZ_ASSERT(ih[9] == IPPROTO_ICMP, "IPv4 protocol %u sent", ih[9]);
			FZ_ASSERT(tfo_cksum_fold(tfo_cksum_add(0, ih + 20, tot - 20)) == 0xffff,
				  "bad ICMP checksum sent");
		}
		return;
	}
	FZ_ASSERT(type == RTE_ETHER_TYPE_IPV6, "EtherType %#x sent", type);
	{
		const uint8_t *ih = f + l2;
		struct tfo_addr s, d;
		uint32_t plen;

		FZ_ASSERT(len >= l2 + 40 && (ih[0] >> 4) == 6, "IPv6 header sent");
		plen = be16(ih + 4);
		FZ_ASSERT(plen == len - l2 - 40, "IPv6 payload length %u in %u bytes", plen,
			  len - l2 - 40);
		memcpy(s.b, ih + 8, 16);
		memcpy(d.b, ih + 24, 16);
		if (ih[6] == IPPROTO_TCP) {
			check_tcp_out(f, l2 + 40, plen, AF_INET6, &s, &d,
				      !pi->tx_tcp_cksum_offload, port_idx);
		} else if (ih[6] == IPPROTO_UDP) {
			check_udp_out(ih + 40, plen, AF_INET6, &s, &d);
		} else {
			uint64_t sum = tfo_cksum_pseudo(AF_INET6, &s, &d, IPPROTO_ICMPV6, plen);

			FZ_ASSERT(ih[6] == IPPROTO_ICMPV6, "IPv6 next header %u sent", ih[6]);
			FZ_ASSERT(tfo_cksum_fold(tfo_cksum_add(sum, ih + 40, plen)) == 0xffff,
				  "bad ICMPv6 checksum sent");
		}
	}
}

/* The worker's TX flush: a port that takes all but G.reject frames. */
static void
fz_flush(struct tfo_tx *tx, uint8_t port_idx)
{
	struct tfo_worker *w = tx->arg;
	struct tfo_tx_q *q = &tx->q[port_idx];
	unsigned int refuse = RTE_MIN(G.reject, (unsigned int)q->n);
	unsigned int sent = q->n - refuse;

	G.reject -= refuse;
	for (unsigned int i = 0; i < q->n; i++) {
		if (i < sent) {
			check_out(q->pkts[i], port_idx);
			w->stats.c[TFO_STAT_tx_bytes] += q->pkts[i]->pkt_len;
		}
		rte_pktmbuf_free(q->pkts[i]);
	}
	w->stats.c[TFO_STAT_tx_pkts] += sent;
	w->stats.c[TFO_STAT_tx_drop_full] += refuse;
	q->n = 0;
}

/* The relay's way out: the same port, whose refusals stay in the ring. */
static uint16_t
fz_relay_send(struct tfo_worker *w, uint8_t pi, struct rte_mbuf **pkts, uint16_t n)
{
	unsigned int refuse = RTE_MIN(G.reject, (unsigned int)n);
	uint16_t sent = (uint16_t)(n - refuse);

	G.reject -= refuse;
	for (uint16_t i = 0; i < sent; i++) {
		check_out(pkts[i], pi);
		w->stats.c[TFO_STAT_tx_bytes] += pkts[i]->pkt_len;
		rte_pktmbuf_free(pkts[i]);
	}
	w->stats.c[TFO_STAT_tx_pkts] += sent;
	return sent;
}

/* ---- set-up ------------------------------------------------------------ */

/* What no configuration key sets: the control core's table smaller than
 * the worker's (cfg.max_conns: its SYN-cookie reserve), few buffers. */
static void
fz_engine_tune(struct tfo_engine_params *p, bool control, void *arg)
{
	p->max_conns = control ? C_CONNS : W_CONNS;
	p->nb_bufs = control ? 8 : 12;
	p->resp_buf_size = 2048;
}

static void
fz_set(struct tfo_config *cfg, const char *section, const char *key, const char *value)
{
	char err[TFO_CFG_ERR];

	if (tfo_config_set(cfg, section, key, value, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz_worker: %s\n", err);
		abort();
	}
}

static void
fz_config(struct tfo_config *cfg)
{
	tfo_config_defaults(cfg);
	cfg->burst = BURST;
	cfg->mbuf_cache = 0;
	cfg->max_conns = C_CONNS;	/* the SYN-cookie reserve: a quarter */
	cfg->max_request = 1024;
	cfg->mss = 1460;
	cfg->wscale = 7;
	cfg->rcv_wnd = 65535;
	cfg->rto_init_ms = 200;
	cfg->rto_min_ms = 50;
	cfg->rto_max_ms = 800;
	cfg->retries = 2;
	cfg->synack_retries = 1;
	cfg->idle_timeout_ms = 1000;
	cfg->time_wait_ms = 100;
	cfg->syncookies = TFO_SYNCOOKIES_AUTO;
	cfg->tfo_enabled = true;
	cfg->cookie_not_required = false;
	cfg->rotate_period_s = 0;
	cfg->pending_limit = 4;
	cfg->pending_hold_ms = 300;
	snprintf(cfg->cookie_algo, sizeof(cfg->cookie_algo), "aes128");
	fz_set(cfg, "service echo", "port", "7");
	fz_set(cfg, "service echo", "max_line", "600");
	fz_set(cfg, "service echo", "udp", "on");
	fz_set(cfg, "service http", "port", "80");
	fz_set(cfg, "service http", "root", TFO_CONFIG_DIR "/../tests/www");
	fz_set(cfg, "service http", "date", "no");
}

/* tfo-server's assembly without devices: one worker, the control core,
 * the relay rings; the aes128 keys its own, the siphash-linux ones ours. */
static void
fz_server(void)
{
	static struct tfo_config cfg;
	char err[TFO_CFG_ERR];
	struct tfo_server_params sp = {
		.name = "fz",
		.ports = G.ports,
		.nb_ports = NB_PORTS,
		.nb_workers = 1,
		.nb_mbufs = POOL_N,
		.key = &G.keys[0],
		.engine_tune = fz_engine_tune,
	};

	fz_config(&cfg);
	G.srv = tfo_server_create(&cfg, &sp, err, sizeof(err));
	if (G.srv == NULL) {
		fprintf(stderr, "fuzz_worker: %s\n", err);
		abort();
	}
	G.pool = tfo_server_pool(G.srv);
	W = tfo_server_worker(G.srv, 0);
	G.c = tfo_server_control(G.srv);
	G.to_ctrl = W->to_ctl[0];
	G.to_neigh = W->to_neigh;	/* ARP and ND: their own ring */
	for (unsigned int i = 0; i < NB_PORTS; i++)
		G.relay[i] = W->relay[i][0];
	G.krs[0] = G.c->keys;
	G.wck[0] = W->cookies;
	G.cck[0] = G.c->cookies;
	G.krs[1] = tfo_keyring_create(TFO_COOKIE_ALGO_SIPHASH_LINUX, &G.keys[0], NULL,
				      SOCKET_ID_ANY);
	if (G.krs[1] == NULL)
		abort();
	G.wck[1] = tfo_cookie_ctx_create(G.krs[1], SOCKET_ID_ANY);
	G.cck[1] = tfo_cookie_ctx_create(G.krs[1], SOCKET_ID_ANY);
	if (G.wck[1] == NULL || G.cck[1] == NULL)
		abort();
	G.kr = G.krs[0];
	W->tx.flush = fz_flush;
	W->relay_send = fz_relay_send;
	G.c->out = stderr;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_eal_init((*argv)[0], 256);
	for (unsigned int i = 0; i < NB_PORTS; i++) {
		fz_port_info(&G.ports[i], (uint8_t)i);
		G.ports[i].ctrl_tx_relay = true;
	}
	G.ports[1].rx_cksum_offload = true;
	G.ports[1].tx_ip_cksum_offload = true;
	G.ports[1].tx_tcp_cksum_offload = true;
	G.ports[1].tx_multiseg = true;
	for (unsigned int i = 0; i < NB_KEYS; i++)
		for (unsigned int j = 0; j < 16; j++)
			G.keys[i].b[j] = (uint8_t)(0x11 * (i + 1) + j);
	fz_server();
	G.w_bufs = tfo_engine_free_bufs(W->engine);
	G.c_bufs = tfo_engine_free_bufs(G.c->engine);
	/* the clock: TFO_FUZZ_CLOCK_US to start elsewhere (wrap-arounds) */
	G.now = getenv("TFO_FUZZ_CLOCK_US") != NULL ?
		strtoull(getenv("TFO_FUZZ_CLOCK_US"), NULL, 0) : 1000000000ull;
	G.verbose = getenv("TFO_FUZZ_VERBOSE") != NULL;
	return 0;
}

/* ---- running ----------------------------------------------------------- */

static void
check_accounting(void)
{
	struct tfo_acct a;
	char line[320];
	uint64_t relayed = G.c->stats.c[TFO_STAT_ctrl_relayed] - W->stats.c[TFO_STAT_tx_relay_in];

	if (!tfo_stats_account(&W->stats, &a)) {
		tfo_acct_format(&a, line, sizeof(line));
		FZ_ASSERT(0, "worker: %s", line);
	}
	if (!tfo_stats_account(&G.c->stats, &a)) {
		tfo_acct_format(&a, line, sizeof(line));
		FZ_ASSERT(0, "control: %s", line);
	}
	FZ_ASSERT(W->stats.c[TFO_STAT_rx_pkts] == G.fed, "rx_pkts %lu, fed %lu",
		  (unsigned long)W->stats.c[TFO_STAT_rx_pkts], (unsigned long)G.fed);
	FZ_ASSERT(W->stats.c[TFO_STAT_to_control] - G.c->stats.c[TFO_STAT_ctrl_rx] ==
		  rte_ring_count(G.to_ctrl) + rte_ring_count(G.to_neigh), "to_control backlog");
	FZ_ASSERT(W->stats.c[TFO_STAT_to_control_neigh] <= W->stats.c[TFO_STAT_to_control],
		  "to_control_neigh is part of to_control");
	FZ_ASSERT(relayed == rte_ring_count(G.relay[0]) + rte_ring_count(G.relay[1]),
		  "relay backlog");
	FZ_ASSERT(tfo_control_accounting(G.c, NULL), "tfo_control_accounting");
}

/* The burst, then the control core and housekeeping until the rings are empty. */
static void
step(void)
{
	if (G.nb > 0) {
		tfo_worker_burst(W, G.burst_port, G.burst, G.nb, G.now);
		G.fed += G.nb;
		G.nb = 0;
	}
	do {
		tfo_control_poll(G.c, G.now);
		/* path-MTU errors the control core handed back */
		while (tfo_worker_inbox(W, G.now) > 0)
			;
	} while (rte_ring_count(G.to_ctrl) + rte_ring_count(G.to_neigh) > 0);
	do {
		tfo_worker_housekeeping(W, G.now);
	} while (rte_ring_count(G.relay[0]) + rte_ring_count(G.relay[1]) > 0);
	check_accounting();
}

/* Where the TCP header is, if the frame has one. */
static bool
find_l4(uint8_t *f, uint32_t len, uint32_t *l3off, uint32_t *l4off, uint32_t *l4len,
	uint8_t *proto, uint8_t *family, struct tfo_addr *src, struct tfo_addr *dst)
{
	uint32_t off = 14;
	uint16_t type;

	if (len < 14)
		return false;
	type = be16(f + 12);
	if (type == RTE_ETHER_TYPE_VLAN) {
		if (len < 18)
			return false;
		type = be16(f + 16);
		off = 18;
	}
	*l3off = off;
	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	if (type == RTE_ETHER_TYPE_IPV4) {
		uint32_t ihl, tot;

		if (len < off + 20)
			return false;
		ihl = (uint32_t)(f[off] & 0xf) * 4;
		tot = be16(f + off + 2);
		if (ihl < 20 || len < off + ihl)
			return false;
		/* the header checksum first: it does not depend on L4 */
		tot = RTE_MIN(tot, len - off);
		if (tot < ihl)
			return false;
		*family = AF_INET;
		*proto = f[off + 9];
		memcpy(src->b, f + off + 12, 4);
		memcpy(dst->b, f + off + 16, 4);
		*l4off = off + ihl;
		*l4len = tot - ihl;
		return true;
	}
	if (type == RTE_ETHER_TYPE_IPV6) {
		if (len < off + 40)
			return false;
		uint32_t l4 = off + 40, plen = RTE_MIN((uint32_t)be16(f + off + 4), len - off - 40);
		uint8_t nh = f[off + 6];

		/* Hop-by-Hop, Destination Options, Routing: to the upper layer */
		while ((nh == 0 || nh == 43 || nh == 60) && plen >= 8 && len >= l4 + 8) {
			uint32_t hl = (f[l4 + 1] + 1u) * 8;

			if (hl > plen || len < l4 + hl)
				break;
			nh = f[l4];
			l4 += hl;
			plen -= hl;
		}
		*family = AF_INET6;
		*proto = nh;
		memcpy(src->b, f + off + 8, 16);
		memcpy(dst->b, f + off + 24, 16);
		*l4off = l4;
		*l4len = plen;
		return true;
	}
	return false;
}

/* The first option of @p kind with length @p olen (0: any), or NULL. */
static uint8_t *
find_opt(uint8_t *th, uint32_t hl, uint8_t want, uint32_t want_len)
{
	for (uint32_t i = 20; i < hl;) {
		uint8_t kind = th[i];
		uint32_t olen;

		if (kind == TFO_OPT_EOL)
			break;
		if (kind == TFO_OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= hl)
			break;
		olen = th[i + 1];
		if (olen < 2 || i + olen > hl)
			break;
		if (kind == want && (want_len == 0 || olen == want_len))
			return th + i;
		i += olen;
	}
	return NULL;
}

/* Put a valid (or a backup, or a retired key's) cookie in the TFO option. */
static void
fix_cookie(uint8_t *th, uint32_t hl, uint8_t family, const struct tfo_addr *src,
	   const struct tfo_addr *dst, uint8_t flags)
{
	unsigned int k;

	if (!(flags & F_COOKIE_ALT))
		k = G.prim;
	else if (flags & F_COOKIE)
		k = (G.prim + NB_KEYS - 1) % NB_KEYS;	/* the backup, if any */
	else
		k = (G.prim + 2) % NB_KEYS;		/* retired (or never used) */
	for (uint32_t i = 20; i < hl;) {
		uint8_t kind = th[i];
		uint32_t olen;

		if (kind == TFO_OPT_EOL)
			break;
		if (kind == TFO_OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= hl)
			break;
		olen = th[i + 1];
		if (olen < 2 || i + olen > hl)
			break;
		if ((kind == TFO_OPT_FASTOPEN && olen == 2 + TFO_COOKIE_LEN) ||
		    (kind == TFO_OPT_EXP && olen == 4 + TFO_COOKIE_LEN &&
		     be16(th + i + 2) == TFO_OPT_EXP_MAGIC_TFO)) {
			(void)tfo_cookie_compute(G.algo, &G.keys[k], family,
						 src, dst, th + i + olen - TFO_COOKIE_LEN);
			return;
		}
		i += olen;
	}
}

static void
fix_frame(uint8_t *f, uint32_t len, uint8_t flags, int8_t sd, int8_t ad, uint8_t port_idx)
{
	struct tfo_addr src, dst;
	uint32_t l3, l4, l4len;
	uint8_t proto, family;
	uint8_t *th;

	if (!find_l4(f, len, &l3, &l4, &l4len, &proto, &family, &src, &dst))
		return;
	th = f + l4;
	if (proto == IPPROTO_TCP && l4len >= 20) {
		uint32_t hl = RTE_MIN((uint32_t)(th[12] >> 4) * 4, l4len);
		struct flow *fl = flow_slot(family, &src, be16(th), be16(th + 2), port_idx);

		if ((flags & F_SEQACK) &&
		    flow_match(fl, family, &src, be16(th), be16(th + 2), port_idx)) {
			uint8_t *tso = find_opt(th, hl, TFO_OPT_TS, 10);

			put32(th + 4, fl->srv_ack + (uint32_t)(int32_t)sd);
			put32(th + 8, fl->srv_next + (uint32_t)(int32_t)ad);
			if (tso != NULL)
				put32(tso + 6, fl->srv_tsval);
		}
		if (flags & (F_COOKIE | F_COOKIE_ALT))
			fix_cookie(th, hl, family, &src, &dst, flags);
	}
	if (!(flags & F_CKSUM))
		return;
	if (family == AF_INET) {
		uint32_t ihl = l4 - l3;

		f[l3 + 10] = f[l3 + 11] = 0;
		{
			uint16_t ck = (uint16_t)~tfo_cksum_fold(tfo_cksum_add(0, f + l3, ihl));

			memcpy(f + l3 + 10, &ck, 2);
		}
	}
	if (proto == IPPROTO_TCP && l4len >= 20) {
		uint64_t sum = tfo_cksum_pseudo(family, &src, &dst, IPPROTO_TCP, l4len);
		uint16_t ck;

		th[16] = th[17] = 0;
		ck = (uint16_t)~tfo_cksum_fold(tfo_cksum_add(sum, th, l4len));
		memcpy(th + 16, &ck, 2);
	} else if (proto == IPPROTO_UDP && l4len >= 8) {
		uint64_t sum = tfo_cksum_pseudo(family, &src, &dst, IPPROTO_UDP, l4len);
		uint16_t ck;

		th[6] = th[7] = 0;
		ck = (uint16_t)~tfo_cksum_fold(tfo_cksum_add(sum, th, l4len));
		memcpy(th + 6, &ck, 2);
	} else if (proto == IPPROTO_ICMP && family == AF_INET && l4len >= 4) {
		uint16_t ck;

		th[2] = th[3] = 0;
		ck = (uint16_t)~tfo_cksum_fold(tfo_cksum_add(0, th, l4len));
		memcpy(th + 2, &ck, 2);
	} else if (proto == IPPROTO_ICMPV6 && family == AF_INET6 && l4len >= 4) {
		uint64_t sum = tfo_cksum_pseudo(family, &src, &dst, IPPROTO_ICMPV6, l4len);
		uint16_t ck;

		th[2] = th[3] = 0;
		ck = (uint16_t)~tfo_cksum_fold(tfo_cksum_add(sum, th, l4len));
		memcpy(th + 2, &ck, 2);
	}
}

static void
add_frame(uint8_t op, struct fz_in *in)
{
	static uint8_t f[FRAME_MAX], last[FRAME_MAX];
	static uint32_t last_len;
	uint8_t flags = fz_u8(in);
	int8_t sd = (int8_t)fz_u8(in), ad = (int8_t)fz_u8(in);
	uint8_t split = fz_u8(in);
	uint8_t port_idx = (flags & F_PORT1) ? 1 : 0;
	uint32_t len;
	bool exact;
	struct rte_mbuf *m;

	if ((op & 7) == 3) {
		len = last_len;		/* AGAIN */
	} else {
		const uint8_t *src;

		len = fz_u16(in) % (FRAME_MAX + 1);
		len = (uint32_t)fz_take(in, len, &src);
		memcpy(last, src, len);
		last_len = len;
	}
	exact = (flags & F_EXACT) || len > 2048;
	memcpy(f, last, len);
	fix_frame(f, len, flags, sd, ad, port_idx);

	if (G.nb > 0 && (G.nb == BURST || G.burst_port != port_idx))
		step();
	m = fz_frame(G.pool, f, len, exact, (flags & F_SPLIT) ? (uint32_t)split + 1 : 0);
	FZ_ASSERT(m != NULL, "mbuf pool empty: leaked mbufs (%u free of %u)",
		  rte_mempool_avail_count(G.pool), POOL_N);
	m->port = G.ports[port_idx].port_id;
	if (flags & F_RX_OL)
		m->ol_flags |= (op & 1) ? RTE_MBUF_F_RX_IP_CKSUM_BAD | RTE_MBUF_F_RX_L4_CKSUM_BAD :
			       RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	G.burst_port = port_idx;
	G.burst[G.nb++] = m;
}

static bool
drained(void)
{
	return tfo_engine_free_conns(W->engine) == W_CONNS &&
	       tfo_engine_free_conns(G.c->engine) == C_CONNS &&
	       tfo_engine_time_wait_count(W->engine) == 0 &&
	       tfo_engine_time_wait_count(G.c->engine) == 0 &&
	       tfo_engine_tfo_pending(W->engine) == 0;
}

static void
check_drained(void)
{
	uint32_t n[TFO_CONN_NB_STATES];

	for (unsigned int i = 0; i < 4000 && !drained(); i++) {
		G.now += 50000;
		step();
	}
	tfo_engine_conn_counts(W->engine, n);
	FZ_ASSERT(drained(), "connections never end: worker %u/%u free (SYN_RCVD %u "
		  "ESTABLISHED %u FIN_WAIT_1 %u LAST_ACK %u), control %u/%u, pending %u",
		  tfo_engine_free_conns(W->engine), W_CONNS, n[TFO_CONN_SYN_RCVD],
		  n[TFO_CONN_ESTABLISHED], n[TFO_CONN_FIN_WAIT_1], n[TFO_CONN_LAST_ACK],
		  tfo_engine_free_conns(G.c->engine), C_CONNS, tfo_engine_tfo_pending(W->engine));
	FZ_ASSERT(tfo_engine_free_bufs(W->engine) == G.w_bufs &&
		  tfo_engine_free_bufs(G.c->engine) == G.c_bufs,
		  "buffers leaked: worker %u/%u, control %u/%u", tfo_engine_free_bufs(W->engine),
		  G.w_bufs, tfo_engine_free_bufs(G.c->engine), G.c_bufs);
	FZ_ASSERT(W->stats.c[TFO_STAT_conns_active] == 0 &&
		  G.c->stats.c[TFO_STAT_conns_active] == 0 &&
		  W->stats.c[TFO_STAT_tfo_pending] == 0, "gauges: %lu %lu %lu",
		  (unsigned long)W->stats.c[TFO_STAT_conns_active],
		  (unsigned long)G.c->stats.c[TFO_STAT_conns_active],
		  (unsigned long)W->stats.c[TFO_STAT_tfo_pending]);
	FZ_ASSERT(rte_mempool_avail_count(G.pool) == POOL_N, "mbufs leaked: %u of %u free",
		  rte_mempool_avail_count(G.pool), POOL_N);
	FZ_ASSERT(fz_ext_live == 0, "%ld external RX buffers never freed (an mbuf freed "
		  "as a direct one?)", fz_ext_live);
}

const struct tfo_stats *
fz_worker_stats(bool control)
{
	return control ? &G.c->stats : &W->stats;
}

const struct tfo_svc_ctr_map *
fz_svc_ctrs(void)
{
	return G.c->svc_ctrs;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	uint8_t cfg = fz_u8(&in);

	bool sip = cfg & 2;

	W->cookie_not_required = cfg & 1;
	W->syn_def.mode = (cfg & 4) ? TFO_SYNCOOKIES_ALWAYS :
			  (cfg & 8) ? TFO_SYNCOOKIES_NO : TFO_SYNCOOKIES_AUTO;
	W->syn_def.issued = false;
	G.algo = sip ? TFO_COOKIE_ALGO_SIPHASH_LINUX : TFO_COOKIE_ALGO_AES128;
	G.kr = G.krs[sip];
	W->cookies = G.wck[sip];
	G.c->cookies = G.cck[sip];
	G.c->keys = G.kr;
	/* every input starts from the same keys */
	G.prim = 0;
	if (tfo_keyring_set(G.kr, &G.keys[0], &G.keys[NB_KEYS - 1]) < 0)
		abort();
	G.reject = 0;
	memset(G.flows, 0, sizeof(G.flows));

	while (in.n > 0) {
		uint8_t op = fz_u8(&in);

		switch (op & 7) {
		case 4:
			step();
			break;
		case 5:
			G.now += (uint64_t)fz_u16(&in) * 1000;
			step();
			break;
		case 6:
			G.prim = (G.prim + 1) % NB_KEYS;
			if (tfo_keyring_rotate(G.kr, &G.keys[G.prim]) < 0)
				abort();
			break;
		case 7:
			G.reject = fz_u8(&in);
			break;
		default:
			add_frame(op, &in);
			break;
		}
	}
	step();
	G.reject = 0;
	check_drained();
	if (G.verbose) {
		/* what this input did (replay with TFO_FUZZ_VERBOSE=1) */
		struct tfo_stats d;

		for (unsigned int i = 0; i < TFO_STAT_MAX; i++)
			d.c[i] = W->stats.c[i] - G.last_w.c[i];
		tfo_stats_dump(stderr, "  worker ", &d);
		for (unsigned int i = 0; i < TFO_STAT_MAX; i++)
			d.c[i] = G.c->stats.c[i] - G.last_c.c[i];
		tfo_stats_dump(stderr, "  control ", &d);
		G.last_w = W->stats;
		G.last_c = G.c->stats;
	}
	return 0;
}
