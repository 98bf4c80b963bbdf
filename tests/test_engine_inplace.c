/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the ACK built in the mbuf of the segment it answers
 * (tcp_output.c's tfo_tcp_ack_in_place, taken for the client's FIN in
 * FIN_WAIT_2) against the general build (tfo_tcp_xmit, send_ack's): for
 * IPv4 and IPv6, with and without a VLAN tag, with checksums in software
 * and offloaded, the two give the same frame bytes (the checksum field as
 * the device gets it) and the same mbuf fields, and the frames verify.
 * Then its fallback: a frame it must not write over (shared, another
 * option layout, another VLAN) is left untouched, and the whole close with
 * the FIN's mbuf held elsewhere (the general build) sends the same ACK,
 * states and counters as the close that answers in place.
 */
#include <inttypes.h>

#include "tcp/engine_priv.h"

#include "engine_scenario.h"

#define IP_FRAME_MAX 128

/* REQUIRE for a helper that returns a pointer: NULL when @p ok is false
 * (the caller REQUIREs it). */
#define IP_NEED(ok) do { \
	bool ip_ok_ = (ok); \
	CHECK(ip_ok_ && #ok); \
	if (!ip_ok_) \
		return NULL; \
} while (0)

/* A frame as the device would get it: bytes and the mbuf's TX fields. */
struct ip_frame {
	uint8_t b[IP_FRAME_MAX];
	uint32_t pkt_len;
	uint16_t data_len, nb_segs;
	uint64_t ol_flags, tx_offload;
	uint32_t packet_type;
	uint16_t vlan_tci, vlan_tci_outer, port;
	const struct rte_mbuf *m;
};

/* The last frame the engine queued on port 0 (not yet flushed). */
static void
ip_last(struct harness *h, struct ip_frame *f)
{
	const struct tfo_tx_q *q = &h->tx.q[0];
	const struct rte_mbuf *m;

	memset(f, 0, sizeof(*f));
	REQUIRE(q->n > 0);
	m = q->pkts[q->n - 1];
	REQUIRE(m->pkt_len <= IP_FRAME_MAX && m->nb_segs == 1);
	memcpy(f->b, rte_pktmbuf_mtod(m, const uint8_t *), m->pkt_len);
	f->pkt_len = m->pkt_len;
	f->data_len = m->data_len;
	f->nb_segs = m->nb_segs;
	f->ol_flags = m->ol_flags;
	f->tx_offload = m->tx_offload;
	f->packet_type = m->packet_type;
	f->vlan_tci = m->vlan_tci;
	f->vlan_tci_outer = m->vlan_tci_outer;
	f->port = m->port;
	f->m = m;
}

static void
ip_same(const struct ip_frame *a, const struct ip_frame *b)
{
	CHECK_EQ(a->pkt_len, b->pkt_len);
	CHECK_EQ(a->data_len, b->data_len);
	CHECK_EQ(a->nb_segs, b->nb_segs);
	CHECK_EQ(a->ol_flags, b->ol_flags);
	CHECK_EQ(a->tx_offload, b->tx_offload);
	CHECK_EQ(a->packet_type, b->packet_type);
	CHECK_EQ(a->vlan_tci, b->vlan_tci);
	CHECK_EQ(a->vlan_tci_outer, b->vlan_tci_outer);
	CHECK_EQ(a->port, b->port);
	CHECK(memcmp(a->b, b->b, RTE_MIN(a->pkt_len, (uint32_t)IP_FRAME_MAX)) == 0);
}

/* A TFO open answered whole (response and FIN in the SYN-ACK), then the
 * client's ACK of all: the entry is in FIN_WAIT_2. */
static struct tfo_conn *
ip_fin_wait_2(struct harness *h, struct cl *c, int family, uint16_t vlan,
	      bool offload)
{
	struct tfo_conn_key key;
	struct tfo_pkt p;
	struct rte_mbuf *m;
	struct tfo_conn *conn;
	int cls;

	h_init(h, 16);
	h->srv_port.tx_ip_cksum_offload = offload && family == AF_INET;
	h->srv_port.tx_tcp_cksum_offload = offload;
	h->accept_all = true;
	IP_NEED(h_start(h) == 0);
	cl_init(c, h, family, 40401, 80);
	c->vlan = vlan;
	cl_syn(c, "100\n", 4);
	cl_recv(c);
	IP_NEED(c->fin && rx_is(c, "100\n"));
	cl_send(c, TFO_TCP_ACK, NULL, 0);
	IP_NEED(nstate(h, TFO_CONN_FIN_WAIT_2) == 1);
	h_clear(h);
	/* the entry, by the key of the client's next segment */
	m = cl_frame(c, TFO_TCP_ACK | TFO_TCP_FIN, c->snd_nxt, c->rcv_nxt, NULL, 0);
	cls = tfo_pkt_classify(m, &h->srv_port, &p);
	rte_pktmbuf_free(m);
	IP_NEED(cls == TFO_PKT_TCP);
	tfo_conn_key_from_pkt(&key, &p);
	conn = tfo_conn_lookup(h->e->ct, &key);
	IP_NEED(conn != NULL);
	return conn;
}

/* The client's FIN, parsed as the worker would. */
static struct rte_mbuf *
ip_fin(struct harness *h, struct cl *c, struct tfo_pkt *p)
{
	struct rte_mbuf *m = cl_frame(c, TFO_TCP_ACK | TFO_TCP_FIN, c->snd_nxt,
				      c->rcv_nxt, NULL, 0);
	int cls = tfo_pkt_classify(m, &h->srv_port, p);

	if (cls != TFO_PKT_TCP)
		rte_pktmbuf_free(m);
	IP_NEED(cls == TFO_PKT_TCP);
	return m;
}

static void
ip_end(struct harness *h, struct cl *c)
{
	h_advance(h, 0);	/* flush: the frames verify as a receiver's */
	CHECK_EQ(h->bad_out, 0);
	CHECK(h_finish(h, 70) == 0);
	cl_free(c);
}

/* The same ACK, bytes and mbuf fields, from both builders. */
static void
ip_same_frame(int family, uint16_t vlan, bool offload)
{
	struct harness h;
	struct cl c;
	struct tfo_conn *conn = ip_fin_wait_2(&h, &c, family, vlan, offload);
	struct ip_frame general, inplace;
	struct tfo_conn before;
	struct tfo_pkt p;
	struct rte_mbuf *m;
	unsigned int nx;

	REQUIRE(conn != NULL);
	before = *conn;
	nx = h.e->nxmit;
	REQUIRE(tfo_tcp_xmit(h.e, conn, conn->snd_max, TFO_TCP_ACK, 0, 0) == 0);
	ip_last(&h, &general);
	/* the entry as it was (adv_wnd rewritten with the same value) */
	CHECK(memcmp(&before, conn, sizeof(before)) == 0);
	m = ip_fin(&h, &c, &p);
	REQUIRE(m != NULL);
	CHECK(tfo_tcp_ack_in_place(h.e, conn, m, &p));
	ip_last(&h, &inplace);
	CHECK(inplace.m == m);			/* the FIN's own mbuf */
	CHECK(memcmp(&before, conn, sizeof(before)) == 0);
	ip_same(&general, &inplace);
	/* each counted as a frame built */
	CHECK_EQ(h.e->nxmit, nx + 2);
	ip_end(&h, &c);
}

TFO_TEST(inplace_ack_same_frame_v4)
{
	ip_same_frame(AF_INET, 0, false);
	ip_same_frame(AF_INET, 0, true);
}

TFO_TEST(inplace_ack_same_frame_v6)
{
	ip_same_frame(AF_INET6, 0, false);
	ip_same_frame(AF_INET6, 0, true);
}

TFO_TEST(inplace_ack_same_frame_vlan)
{
	ip_same_frame(AF_INET, 100, false);
	ip_same_frame(AF_INET, 100, true);
	ip_same_frame(AF_INET6, 4095, true);
}

/* A frame the in-place build must refuse: untouched, still the caller's. */
static void
ip_refused(struct harness *h, struct tfo_conn *conn, struct rte_mbuf *m,
	   const struct tfo_pkt *p)
{
	uint8_t b[IP_FRAME_MAX];
	uint32_t len = RTE_MIN(m->pkt_len, (uint32_t)IP_FRAME_MAX);
	uint64_t ol = m->ol_flags;
	uint16_t off = m->data_off, n = h->tx.q[0].n;
	unsigned int nx = h->e->nxmit;

	memcpy(b, rte_pktmbuf_mtod(m, const uint8_t *), len);
	CHECK(!tfo_tcp_ack_in_place(h->e, conn, m, p));
	CHECK(memcmp(b, rte_pktmbuf_mtod(m, const uint8_t *), len) == 0);
	CHECK_EQ(m->ol_flags, ol);
	CHECK_EQ(m->data_off, off);
	CHECK_EQ(h->tx.q[0].n, n);
	CHECK_EQ(h->e->nxmit, nx);
}

TFO_TEST(inplace_ack_refuses_what_is_not_its_layout)
{
	struct harness h;
	struct cl c;
	struct tfo_conn *conn = ip_fin_wait_2(&h, &c, AF_INET, 0, true);
	struct tfo_pkt p;
	struct rte_mbuf *m;
	uint8_t *o;

	REQUIRE(conn != NULL);

	/* shared: another holder still reads it */
	m = ip_fin(&h, &c, &p);
	REQUIRE(m != NULL);
	rte_mbuf_refcnt_update(m, 1);
	ip_refused(&h, conn, m, &p);
	CHECK_EQ(rte_mbuf_refcnt_read(m), 2);
	rte_pktmbuf_free(m);
	rte_pktmbuf_free(m);
	/* the timestamp as TS, NOP, NOP: not the layout our ACK has */
	m = ip_fin(&h, &c, &p);
	REQUIRE(m != NULL);
	o = rte_pktmbuf_mtod_offset(m, uint8_t *, p.l2_len + p.l3_len + TFO_TCP_HDR_LEN);
	memmove(o, o + 2, 10);
	o[10] = TFO_OPT_NOP;
	o[11] = TFO_OPT_NOP;
	ip_refused(&h, conn, m, &p);
	rte_pktmbuf_free(m);
	/* a VLAN tag the entry does not have (a longer Ethernet header) */
	c.vlan = 5;
	m = ip_fin(&h, &c, &p);
	c.vlan = 0;
	REQUIRE(m != NULL);
	ip_refused(&h, conn, m, &p);
	rte_pktmbuf_free(m);
	/* an entry without timestamps: its ACK has no options */
	m = ip_fin(&h, &c, &p);
	REQUIRE(m != NULL);
	conn->flags &= (uint16_t)~TFO_CF_PEER_TS;
	ip_refused(&h, conn, m, &p);
	conn->flags |= TFO_CF_PEER_TS;
	rte_pktmbuf_free(m);
	ip_end(&h, &c);
}

/*
 * The whole close, twice: the FIN answered in its own mbuf, and the FIN
 * held by a second reference (the in-place build refuses, send_ack builds
 * it): the same ACK (relative to the ISNs), states and counters.
 */
static void
ip_close(bool held, char *trace, size_t cap)
{
	static const char *const ctrs[] = {
		"time_wait_entered", "mbuf_alloc_fail", "conns_closed_normal", "rx_dup_data",
	};
	struct harness h;
	struct cl c;
	struct tfo_pkt p;
	struct rte_mbuf *m;
	const struct h_seg *s;
	size_t len = 0;

	REQUIRE(ip_fin_wait_2(&h, &c, AF_INET, 0, true) != NULL);
	m = ip_fin(&h, &c, &p);
	REQUIRE(m != NULL);
	if (held)
		rte_mbuf_refcnt_update(m, 1);
	c.snd_nxt++;
	h_rx(&h, m);
	if (held) {
		CHECK_EQ(rte_mbuf_refcnt_read(m), 1);
		rte_pktmbuf_free(m);
	}
	REQUIRE(cl_nsegs(&c) == 1);
	s = seg(&c, 0);
	len += (size_t)snprintf(trace + len, cap - len, "[%02x %u %u w%u l%u e%u v%u]",
				s->p.tcp_flags, s->p.seq - c.irs, s->p.ack - c.iss,
				s->p.window, s->len, s->o.tsecr - c.tsval, s->o.has_ts);
	for (int st = TFO_CONN_CLOSED + 1; st < TFO_CONN_NB_STATES; st++)
		len += (size_t)snprintf(trace + len, cap - len, " %u", nstate(&h, st));
	for (unsigned int k = 0; k < RTE_DIM(ctrs); k++)
		len += (size_t)snprintf(trace + len, cap - len, " %s %" PRIu64, ctrs[k],
					h_stat(&h, ctrs[k]));
	CHECK_EQ(h_stat(&h, "time_wait_entered"), 1);
	CHECK_EQ(nstate(&h, TFO_CONN_TIME_WAIT), 1);
	ip_end(&h, &c);
}

TFO_TEST(inplace_ack_close_as_general_build)
{
	char a[512], b[512];

	ip_close(false, a, sizeof(a));
	ip_close(true, b, sizeof(b));
	if (strcmp(a, b) != 0)
		fprintf(stderr, "  in place: %s\n  general:  %s\n", a, b);
	CHECK(strcmp(a, b) == 0);
}
