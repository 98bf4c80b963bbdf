/* SPDX-License-Identifier: BSD-3-Clause
 * In-memory harness for the TCP engine tests (see engine_harness.h): the
 * gen service, the engine on a fake device and clock; the simulated client
 * is engine_client.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "tcp/conn.h"
#include "tfo/service.h"
#include "engine_harness.h"
#include "test.h"

#define H_POOL_SIZE 16383
#define H_BLOB_LEN ((1 << 20) + 1024)	/* 1 MiB from any offset below 977 */

static struct rte_mempool *h_pool;
static struct tfo_blob h_blob;

const struct tfo_blob *
h_gen_blob(void)
{
	return &h_blob;
}
static void *h_echo_state;
unsigned long h_gen_calls;

static const uint8_t srv_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t cli_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

void
h_addr_v4(struct tfo_addr *a, uint8_t last)
{
	memset(a, 0, sizeof(*a));
	a->b[0] = 198;
	a->b[1] = 18;
	a->b[3] = last;
}

void
h_addr_v6(struct tfo_addr *a, uint8_t last)
{
	memset(a, 0, sizeof(*a));
	a->b[0] = 0xfd;
	a->b[15] = last;
}

static uint8_t
blob_byte(uint32_t i)
{
	return (uint8_t)(i ^ ((i >> 8) * 13));
}

static uint8_t
gen_byte(uint32_t i, uint32_t n)
{
	return (uint8_t)(i * 31 + n);
}

/* ---- gen service ------------------------------------------------------- */

static int
gen_parse(const uint8_t *req, uint32_t len, uint32_t *n, char *flags,
	  uint32_t *line_len)
{
	const uint8_t *nl = memchr(req, '\n', len);
	uint32_t i = 0, f = 0;

	if (nl == NULL)
		return -1;
	*line_len = (uint32_t)(nl - req) + 1;
	*n = 0;
	while (req + i < nl && req[i] >= '0' && req[i] <= '9')
		*n = *n * 10 + (uint32_t)(req[i++] - '0');
	while (req + i < nl && f < 7)
		flags[f++] = (char)req[i++];
	flags[f] = '\0';
	return 0;
}

struct h_gen_ctx_log h_gen_log;

static enum tfo_svc_status
gen_handle(const void *state, const struct tfo_svc_ctx *ctx,
	   const uint8_t *req, uint32_t len,
	   struct tfo_svc_resp *r)
{
	uint32_t n, line;
	char flags[8];

	RTE_SET_USED(state);
	h_gen_calls++;
	h_gen_log.last = *ctx;
	if (gen_parse(req, len, &n, flags, &line) != 0)
		return TFO_SVC_NEED_MORE;
	/* what each complete request was told */
	if (h_gen_log.n < RTE_DIM(h_gen_log.in_syn))
		h_gen_log.in_syn[h_gen_log.n++] = ctx->in_syn;
	if (ctx->counters != NULL)
		ctx->counters[0]++;
	if (strchr(flags, 'x') != NULL)
		return TFO_SVC_REJECT;
	if (strchr(flags, 'i') != NULL)
		r->idle_ms = 300;
	if (strchr(flags, 'I') != NULL)
		r->idle_ms = 40000;	/* kept in whole seconds */
	r->consumed = line;
	r->close = strchr(flags, 'k') == NULL;
	if (strchr(flags, 'e') != NULL) {
		r->buf_len = 0;
		return TFO_SVC_RESPOND;
	}
	if (strchr(flags, 'b') != NULL) {
		r->buf_len = (uint32_t)snprintf((char *)r->buf, r->buf_cap, "B%u\n", n);
		r->body = &h_blob;
		r->body_off = n % 977;
		r->body_len = n;
		return TFO_SVC_RESPOND;
	}
	if (n > r->buf_cap)
		return TFO_SVC_REJECT;
	for (uint32_t i = 0; i < n; i++)
		r->buf[i] = gen_byte(i, n);
	r->buf_len = n;
	return TFO_SVC_RESPOND;
}

uint32_t
h_gen_expect(const char *line, uint8_t *out, uint32_t cap)
{
	uint32_t n, l, k = 0;
	char flags[8];

	if (gen_parse((const uint8_t *)line, (uint32_t)strlen(line), &n, flags, &l) != 0)
		return 0;
	if (strchr(flags, 'e') != NULL)
		return 0;
	if (strchr(flags, 'b') != NULL) {
		k = (uint32_t)snprintf((char *)out, cap, "B%u\n", n);
		for (uint32_t i = 0; i < n && k < cap; i++)
			out[k++] = blob_byte(n % 977 + i);
		return k;
	}
	for (uint32_t i = 0; i < n && i < cap; i++)
		out[k++] = gen_byte(i, n);
	return k;
}

static const struct tfo_svc_counter gen_counters[] = {
	{ "gen_requests", "complete requests seen" },
	{ NULL, NULL },
};

struct tfo_service h_gen_service = {
	.name = "gen",
	.help = "test responses",
	.counters = gen_counters,
	.udp_ok = true,
	.handle = gen_handle,
};

/* ---- harness ----------------------------------------------------------- */

/*
 * The 16-bit one's complement sum of [off, off + len) of @p m summed the way
 * a device that restarts the byte pairing at every segment does (net_tap's
 * emulated offload in DPDK 22.11): right only when every segment but the
 * last holds an even number of L4 bytes.
 */
static uint64_t
sum_per_segment(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	uint64_t sum = 0;

	for (; m != NULL && len > 0; m = m->next) {
		uint32_t n;

		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		n = RTE_MIN(len, (uint32_t)m->data_len - off);
		sum = tfo_cksum_add(sum, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), n);
		off = 0;
		len -= n;
	}
	return sum;
}

/*
 * Do what the device does with the TX offload flags, then check the result
 * as a receiver would: the IPv4 header checksum, and the TCP checksum over
 * the whole chain from the pseudo-header the engine left in the field. A
 * chain that a per-segment summer would get wrong is counted as a bad frame
 * too, so that no device can put a bad checksum on the wire.
 */
static void
h_device_tx(struct harness *h, struct rte_mbuf *m)
{
	uint32_t l4_off = (uint32_t)m->l2_len + m->l3_len;
	uint32_t l4_len = m->pkt_len - l4_off;
	struct rte_tcp_hdr *th;
	uint64_t sum;

	if (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) {
		struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod_offset(m,
				struct rte_ipv4_hdr *, m->l2_len);

		ih->hdr_checksum = 0;
		ih->hdr_checksum = (uint16_t)~tfo_cksum_fold(
			tfo_cksum_add(0, ih, m->l3_len));
	}
	if ((m->ol_flags & RTE_MBUF_F_TX_L4_MASK) != RTE_MBUF_F_TX_TCP_CKSUM)
		return;
	th = rte_pktmbuf_mtod_offset(m, struct rte_tcp_hdr *, l4_off);
	/* the field holds the pseudo-header sum: the device adds the rest */
	sum = tfo_cksum_mbuf(m, l4_off, l4_len);
	if (tfo_cksum_fold(sum_per_segment(m, l4_off, l4_len)) !=
	    tfo_cksum_fold(sum)) {
		fprintf(stderr, "  a per-segment summer gets this chain wrong "
			"(%u segments, head %u bytes)\n", m->nb_segs, m->data_len);
		h->bad_out++;
	}
	th->cksum = (uint16_t)~tfo_cksum_fold(sum);
}

static void
h_flush_cb(struct tfo_tx *tx, uint8_t port_idx)
{
	struct harness *h = tx->arg;
	struct tfo_tx_q *q = &tx->q[port_idx];

	for (uint16_t i = 0; i < q->n; i++) {
		struct rte_mbuf *m = q->pkts[i];
		struct h_seg *s;
		const uint8_t *d;

		if (h->n_out == h->cap) {
			h->cap = h->cap ? 2 * h->cap : 256;
			h->out = realloc(h->out, h->cap * sizeof(*h->out));
			if (h->out == NULL)
				abort();
		}
		s = &h->out[h->n_out];
		h_device_tx(h, m);
		if (tfo_pkt_classify(m, &h->cli_port, &s->p) != TFO_PKT_TCP) {
			fprintf(stderr, "  engine sent a bad frame: %s\n",
				tfo_pkt_drop_name(s->p.drop));
			h->bad_out++;
			rte_pktmbuf_free(m);
			continue;
		}
		tfo_tcpopt_parse(tfo_pkt_tcp_hdr(m, &s->p) + 20, s->p.l4_len - 20u, &s->o);
		s->nb_segs = m->nb_segs;
		s->len = RTE_MIN((uint32_t)s->p.payload_len, (uint32_t)H_SEG_DATA);
		d = rte_pktmbuf_read(m, s->p.payload_off, s->len, s->data);
		if (d != NULL && d != s->data)
			memcpy(s->data, d, s->len);
		h->n_out++;
		rte_pktmbuf_free(m);
	}
	q->n = 0;
}

static void
h_flush(struct harness *h)
{
	for (uint8_t i = 0; i < TFO_MAX_PORTS; i++)
		if (h->tx.q[i].n > 0)
			h->tx.flush(&h->tx, i);
}

void
h_init(struct harness *h, uint32_t max_conns)
{
	static bool eal;

	if (!eal) {
		const struct tfo_service *echo;
		struct tfo_service_args a;

		tfo_test_eal_init("test_engine", 512, NULL);
		h_pool = rte_pktmbuf_pool_create("h_pool", H_POOL_SIZE, 0, 0,
						 RTE_MBUF_DEFAULT_BUF_SIZE,
						 SOCKET_ID_ANY);
		h_blob.data = rte_malloc("h_blob", H_BLOB_LEN, 64);
		if (h_pool == NULL || h_blob.data == NULL) {
			printf("FAIL: no pool/blob\n");
			exit(1);
		}
		for (uint32_t i = 0; i < H_BLOB_LEN; i++)
			((uint8_t *)(uintptr_t)h_blob.data)[i] = blob_byte(i);
		h_blob.len = H_BLOB_LEN;
		h_blob.iova = rte_malloc_virt2iova(h_blob.data);
		echo = tfo_service_find("echo");
		memset(&a, 0, sizeof(a));
		a.port = 7;
		a.socket_id = SOCKET_ID_ANY;
		if (echo == NULL || echo->create(&a, &h_echo_state) != 0) {
			printf("FAIL: echo service\n");
			exit(1);
		}
		eal = true;
	}
	memset(h, 0, sizeof(*h));
	h->pool = h_pool;
	h->srv_port.mtu = 1500;
	h->srv_port.tx_multiseg = true;	/* a device that sends chains */
	memcpy(h->srv_port.mac.addr_bytes, srv_mac, 6);
	h->srv_port.nb_addrs = 2;
	h->srv_port.addrs[0].family = AF_INET;
	h_addr_v4(&h->srv_port.addrs[0].addr, 1);
	h->srv_port.addrs[1].family = AF_INET6;
	h_addr_v6(&h->srv_port.addrs[1].addr, 1);
	h->cli_port.mtu = 1500;
	memcpy(h->cli_port.mac.addr_bytes, cli_mac, 6);
	h->cli_port.nb_addrs = 8;
	for (unsigned int i = 0; i < 4; i++) {
		h->cli_port.addrs[i].family = AF_INET;
		h_addr_v4(&h->cli_port.addrs[i].addr, (uint8_t)(2 + i));
		h->cli_port.addrs[4 + i].family = AF_INET6;
		h_addr_v6(&h->cli_port.addrs[4 + i].addr, (uint8_t)(2 + i));
	}
	h->tx.flush = h_flush_cb;
	h->tx.arg = h;
	h->svc[0].svc = &h_gen_service;
	h->svc[0].port = 80;
	h->svc[1].svc = tfo_service_find("echo");
	h->svc[1].state = h_echo_state;
	h->svc[1].port = 7;
	h->now = 1000000;
	h->tfo_ok = true;
	h->offer_cookie = true;
	memcpy(h->cookie, "COOKIE!!", TFO_COOKIE_LEN);

	h->prm.name = "h_eng";
	h->prm.socket_id = SOCKET_ID_ANY;
	h->prm.max_conns = max_conns;
	h->prm.max_request = 4096;
	h->prm.mss = 1460;
	h->prm.wscale = 7;
	h->prm.rcv_wnd = 65535;
	h->prm.rto_init_ms = 1000;
	h->prm.rto_min_ms = 200;
	h->prm.rto_max_ms = 60000;
	h->prm.max_retries = 4;
	h->prm.synack_retries = 3;
	h->prm.idle_timeout_ms = 5000;
	h->prm.time_wait_ms = 1000;
	h->prm.tfo_pending_limit = 16;
	h->prm.tfo_pending_hold_ms = 60000;
	h->prm.syncookies = true;
	h->prm.pool = h_pool;
	h->prm.ports = &h->srv_port;
	h->prm.nb_ports = 1;
	h->prm.services = h->svc;
	h->prm.nb_services = 2;
	h->prm.stats = &h->stats;
	h->prm.tx = &h->tx;
}

int
h_start(struct harness *h)
{
	h->e = tfo_engine_create(&h->prm);
	if (h->e == NULL)
		return -1;
	h->nb_bufs = tfo_engine_free_bufs(h->e);
	return 0;
}

void
h_out_free(struct harness *h)
{
	free(h->out);
	h->out = NULL;
	h->n_out = h->cap = 0;
}

int
h_finish(struct harness *h, unsigned int max_s)
{
	uint32_t free_conns, free_bufs;
	int rc = 0;

	for (unsigned int i = 0; i < max_s &&
	     (tfo_engine_free_conns(h->e) < h->prm.max_conns ||
	      tfo_engine_time_wait_count(h->e) > 0); i++)
		h_advance(h, 1000000);
	free_conns = tfo_engine_free_conns(h->e);
	free_bufs = tfo_engine_free_bufs(h->e);
	if (free_conns != h->prm.max_conns || free_bufs != h->nb_bufs) {
		uint32_t counts[TFO_CONN_NB_STATES];

		tfo_engine_conn_counts(h->e, counts);
		fprintf(stderr, "  leak: %u/%u conns, %u/%u bufs free; states:",
			free_conns, h->prm.max_conns, free_bufs, h->nb_bufs);
		for (unsigned int s = 0; s < TFO_CONN_NB_STATES; s++)
			if (counts[s])
				fprintf(stderr, " %s=%u", tfo_conn_state_name(s), counts[s]);
		fprintf(stderr, "\n");
		rc = -1;
	}
	if (h->stats.c[TFO_STAT_conns_active] != 0 ||
	    h->stats.c[TFO_STAT_tfo_pending] > 0) {
		fprintf(stderr, "  gauges: conns_active %" PRIu64 " tfo_pending %" PRIu64 "\n",
			h->stats.c[TFO_STAT_conns_active],
			h->stats.c[TFO_STAT_tfo_pending]);
		if (h->stats.c[TFO_STAT_conns_active] != 0)
			rc = -1;
	}
	tfo_engine_free(h->e);
	h->e = NULL;
	h_flush(h);
	if (rte_mempool_avail_count(h->pool) != H_POOL_SIZE) {
		fprintf(stderr, "  leak: %u/%u mbufs free\n",
			rte_mempool_avail_count(h->pool), H_POOL_SIZE);
		rc = -1;
	}
	if (h->bad_out) {
		fprintf(stderr, "  %u bad frames sent\n", h->bad_out);
		rc = -1;
	}
	h_out_free(h);
	return rc;
}

void
h_clear(struct harness *h)
{
	h->n_out = 0;
	h->gen++;
}

uint64_t
h_stat(const struct harness *h, const char *name)
{
	int id = tfo_stats_lookup(name);

	if (id < 0) {
		fprintf(stderr, "  no counter %s\n", name);
		return UINT64_MAX;
	}
	return h->stats.c[id];
}

void
h_rx(struct harness *h, struct rte_mbuf *m)
{
	struct tfo_pkt p;
	const struct tfo_pkt *pp = &p;
	struct tfo_conn *c = NULL;

	if (tfo_pkt_classify(m, &h->srv_port, &p) != TFO_PKT_TCP) {
		fprintf(stderr, "  harness built a bad frame: %s\n",
			tfo_pkt_drop_name(p.drop));
		rte_pktmbuf_free(m);
		h->bad_out++;
		return;
	}
	tfo_engine_lookup_bulk(h->e, &pp, 1, &c);
	if (c != NULL) {
		int r = tfo_engine_input(h->e, c, m, &p, h->now);

		if (r == TFO_INPUT_DONE)
			goto out;
		c = NULL;	/* REOPEN or MISS: as a lookup miss */
	}
	if ((p.tcp_flags & (TFO_TCP_SYN | TFO_TCP_ACK)) == TFO_TCP_SYN) {
		struct tfo_open_params op;
		struct tfo_tcpopts o;
		int rc;

		tfo_tcpopt_parse(tfo_pkt_tcp_hdr(m, &p) + 20, p.l4_len - 20u, &o);
		memset(&op, 0, sizeof(op));
		op.opts = &o;
		op.accept_data = (h->tfo_ok && o.cookie_state == TFO_COOKIE_PRESENT) ||
				 h->accept_all;
		if (o.cookie_state == TFO_COOKIE_REQUEST && h->offer_cookie) {
			op.cookie_form = o.form;
			op.cookie_len = TFO_COOKIE_LEN;
			op.cookie = h->cookie;
		}
		rc = tfo_engine_open(h->e, m, &p, 0, &op, h->now);
		h->last_open_rc = rc;
		if ((rc == -EBUSY || rc == -EDQUOT) && op.accept_data) {
			/* the worker would pass it on as a plain SYN */
			op.accept_data = false;
			rc = tfo_engine_open(h->e, m, &p, 0, &op, h->now);
			if (rc != 0)
				h->last_open_rc = rc;
		}
		/* over the table or the source's limit: as the control core */
		if ((rc == -ENOSPC || rc == -EDQUOT) && h->prm.syncookies)
			tfo_engine_syncookie_reply(h->e, m, &p, 0, &o, h->now);
		else if (rc < 0)
			rte_pktmbuf_free(m);
	} else {
		tfo_engine_input_nomatch(h->e, m, &p, 0, h->now);
	}
out:
	h_flush(h);
}

void
h_advance(struct harness *h, uint64_t us)
{
	h->now += us;
	tfo_engine_timers(h->e, h->now);
	h_flush(h);
}
