/* SPDX-License-Identifier: BSD-3-Clause
 * The simulated TCP client of the engine tests (see engine_harness.h):
 * frames it sends (options, SACK blocks), and the server's segments folded
 * into its receive buffer; and UDP frames.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "engine_harness.h"
#include "test.h"

/* ---- client ------------------------------------------------------------ */

void
cl_init(struct cl *c, struct harness *h, int family, uint16_t sport,
	uint16_t dport)
{
	memset(c, 0, sizeof(*c));
	c->h = h;
	c->family = family;
	c->sport = sport;
	c->dport = dport;
	c->iss = 0x10000000u * (sport & 7) + sport * 1000u;
	c->snd_nxt = c->iss;
	c->ts = true;
	c->tsval = 5000;
	c->ws = true;
	c->wscale = 7;
	c->mss = family == AF_INET ? 1460 : 1440;
	c->rwnd = 65535;
	c->rx_cap = 1 << 20;
	c->rx = malloc(c->rx_cap);
	c->gen = h->gen;
}

void
cl_free(struct cl *c)
{
	free(c->rx);
	c->rx = NULL;
}

/* Big-endian stores into option bytes. */
static void
opt16(uint8_t *p, uint16_t v)
{
	rte_be16_t be = rte_cpu_to_be_16(v);

	memcpy(p, &be, 2);
}

static void
put32(uint8_t *p, uint32_t v)
{
	opt16(p, (uint16_t)(v >> 16));
	opt16(p + 2, (uint16_t)v);
}

/* NOP,NOP,SACK: the latest range first, then the others from the top
 * (RFC 2018 4). */
static unsigned int
sack_opt(const struct cl *c, uint8_t *o, unsigned int max)
{
	unsigned int n = 0, first = c->nsack;

	for (unsigned int i = 0; i < c->nsack; i++)
		if ((int32_t)(c->sack_last - c->sack_l[i]) >= 0 &&
		    (int32_t)(c->sack_last - c->sack_r[i]) < 0)
			first = i;
	if (first < c->nsack) {
		put32(o + 4, c->sack_l[first]);
		put32(o + 8, c->sack_r[first]);
		n++;
	}
	for (unsigned int i = c->nsack; i-- > 0 && n < max;) {
		if (i == first)
			continue;
		put32(o + 4 + 8 * n, c->sack_l[i]);
		put32(o + 8 + 8 * n, c->sack_r[i]);
		n++;
	}
	o[0] = TFO_OPT_NOP;
	o[1] = TFO_OPT_NOP;
	o[2] = TFO_OPT_SACK;
	o[3] = (uint8_t)(2 + 8 * n);
	return 4 + 8 * n;
}

void
cl_sack_add(struct cl *c, uint32_t seq, uint32_t len)
{
	uint32_t l = seq, r = seq + len;
	unsigned int i = 0, j, n = c->nsack;

	if (len == 0)
		return;
	c->sack_last = seq;
	while (i < n && (int32_t)(c->sack_r[i] - l) < 0)
		i++;
	for (j = i; j < n && (int32_t)(c->sack_l[j] - r) <= 0; j++) {
		if ((int32_t)(c->sack_l[j] - l) < 0)
			l = c->sack_l[j];
		if ((int32_t)(c->sack_r[j] - r) > 0)
			r = c->sack_r[j];
	}
	if (j == i) {
		if (n == CL_SACK_MAX)
			return;
		memmove(&c->sack_l[i + 1], &c->sack_l[i], (n - i) * 4);
		memmove(&c->sack_r[i + 1], &c->sack_r[i], (n - i) * 4);
		n++;
	} else if (j > i + 1) {
		memmove(&c->sack_l[i + 1], &c->sack_l[j], (n - j) * 4);
		memmove(&c->sack_r[i + 1], &c->sack_r[j], (n - j) * 4);
		n -= j - i - 1;
	}
	c->sack_l[i] = l;
	c->sack_r[i] = r;
	c->nsack = n;
}

void
cl_sack_trim(struct cl *c, uint32_t rcv_nxt)
{
	unsigned int i = 0;

	while (i < c->nsack && (int32_t)(c->sack_r[i] - rcv_nxt) <= 0)
		i++;
	memmove(&c->sack_l[0], &c->sack_l[i], (c->nsack - i) * 4);
	memmove(&c->sack_r[0], &c->sack_r[i], (c->nsack - i) * 4);
	c->nsack -= i;
	if (c->nsack > 0 && (int32_t)(c->sack_l[0] - rcv_nxt) < 0)
		c->sack_l[0] = rcv_nxt;
}

struct rte_mbuf *
cl_frame(struct cl *c, uint8_t flags, uint32_t seq, uint32_t ack,
	 const void *data, uint32_t len)
{
	struct harness *h = c->h;
	uint8_t opts[40];
	struct tfo_tcp_out t;
	struct tfo_route r;
	struct rte_mbuf *m = rte_pktmbuf_alloc(h->pool);
	unsigned int n = 0;

	if (m == NULL)
		abort();
	if (len > 0)
		memcpy(rte_pktmbuf_append(m, (uint16_t)len), data, len);
	if (flags & TFO_TCP_SYN) {
		opts[n++] = TFO_OPT_MSS;
		opts[n++] = 4;
		opt16(opts + n, c->mss);
		n += 2;
		opts[n++] = c->no_sack_perm ? TFO_OPT_NOP : TFO_OPT_SACK_PERM;
		opts[n++] = c->no_sack_perm ? TFO_OPT_NOP : 2;
		if (c->ts) {
			opts[n++] = TFO_OPT_TS;
			opts[n++] = 10;
			opt16(opts + n, (uint16_t)(c->tsval >> 16));
			opt16(opts + n + 2, (uint16_t)c->tsval);
			memset(opts + n + 4, 0, 4);
			n += 8;
		} else {
			opts[n++] = TFO_OPT_NOP;
			opts[n++] = TFO_OPT_NOP;
		}
		if (c->ws) {
			opts[n++] = TFO_OPT_NOP;
			opts[n++] = TFO_OPT_WSCALE;
			opts[n++] = 3;
			opts[n++] = c->wscale;
		}
		if (c->tfo == CL_COOKIE_REQ) {
			opts[n++] = TFO_OPT_FASTOPEN;
			opts[n++] = 2;
			opts[n++] = TFO_OPT_NOP;
			opts[n++] = TFO_OPT_NOP;
		} else if (c->tfo == CL_COOKIE) {
			opts[n++] = TFO_OPT_FASTOPEN;
			opts[n++] = 10;
			memcpy(opts + n, h->cookie, 8);
			n += 8;
			opts[n++] = TFO_OPT_NOP;
			opts[n++] = TFO_OPT_NOP;
		}
	} else {
		if (c->ts)
			n = tfo_tcpopt_write_ts(opts, c->tsval, c->ts_recent);
		if (c->sack && c->nsack > 0 && (flags & TFO_TCP_ACK))
			n += sack_opt(c, opts + n, c->ts ? 3 : 4);
	}
	c->tsval++;
	memset(&t, 0, sizeof(t));
	t.sport = c->sport;
	t.dport = c->dport;
	t.seq = seq;
	t.ack = ack;
	if (flags & TFO_TCP_SYN)
		t.window = (uint16_t)RTE_MIN(c->rwnd, 65535u);
	else
		t.window = (uint16_t)RTE_MIN(c->rwnd >> (c->ws &&
			c->synack_opts.has_wscale ? c->wscale : 0), 65535u);
	t.flags = flags;
	t.opt_len = (uint8_t)n;
	t.opts = opts;
	memset(&r, 0, sizeof(r));
	rte_ether_addr_copy(&c->h->srv_port.mac, &r.peer_mac);
	r.has_vlan = c->vlan != 0;
	r.vlan_tci = c->vlan;
	r.family = (uint8_t)c->family;
	if (c->family == AF_INET) {
		h_addr_v4(&r.local, (uint8_t)(2 + c->addr_idx));
		h_addr_v4(&r.peer, 1);
	} else {
		h_addr_v6(&r.local, (uint8_t)(2 + c->addr_idx));
		h_addr_v6(&r.peer, 1);
	}
	if (tfo_pkt_prepend_tcp(m, &h->cli_port, &r, &t) != 0)
		abort();
	return m;
}

void
cl_syn(struct cl *c, const void *data, uint32_t len)
{
	c->snd_nxt = c->iss + 1 + len;
	h_rx(c->h, cl_frame(c, TFO_TCP_SYN, c->iss, 0, data, len));
}

void
cl_send(struct cl *c, uint8_t flags, const void *data, uint32_t len)
{
	struct rte_mbuf *m = cl_frame(c, flags, c->snd_nxt,
				      (flags & TFO_TCP_ACK) ? c->rcv_nxt : 0,
				      data, len);

	c->snd_nxt += len + !!(flags & TFO_TCP_FIN);
	h_rx(c->h, m);
}

static bool
seg_is_mine(const struct cl *c, const struct h_seg *s)
{
	return s->p.dport == c->sport && s->p.sport == c->dport &&
	       s->p.family == c->family &&
	       s->p.local_idx == (c->family == AF_INET ? 0 : 4) + c->addr_idx;
}

unsigned int
cl_nsegs(const struct cl *c)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < c->h->n_out; i++)
		n += seg_is_mine(c, &c->h->out[i]);
	return n;
}

int
cl_seg(const struct cl *c, unsigned int nth)
{
	for (unsigned int i = 0; i < c->h->n_out; i++)
		if (seg_is_mine(c, &c->h->out[i]) && nth-- == 0)
			return (int)i;
	return -1;
}

void
cl_fold(struct cl *c, const struct h_seg *s)
{
	uint8_t fl = s->p.tcp_flags;
	uint32_t dseq = s->p.seq;

	if (fl & TFO_TCP_RST) {
		c->rst = true;
		return;
	}
	if ((fl & (TFO_TCP_SYN | TFO_TCP_ACK)) == (TFO_TCP_SYN | TFO_TCP_ACK)) {
		c->synacks++;
		if (!c->synced) {
			c->synced = true;
			c->irs = s->p.seq;
			c->rcv_nxt = s->p.seq + 1;
			c->synack_opts = s->o;
			c->synack_len = s->len;
		}
		dseq = s->p.seq + 1;
	}
	if (!c->synced)
		return;
	if (s->o.has_ts)
		c->ts_recent = s->o.tsval;
	if (fl & TFO_TCP_ACK) {
		if ((int32_t)(s->p.ack - c->srv_ack) > 0 || c->srv_ack == 0)
			c->srv_ack = s->p.ack;
		c->srv_wnd = (fl & TFO_TCP_SYN) ? s->p.window :
			(uint32_t)s->p.window << (c->synack_opts.has_wscale ?
						   c->synack_opts.wscale : 0);
	}
	if ((int32_t)(dseq - c->rcv_nxt) <= 0 &&
	    (int32_t)(dseq + s->len - c->rcv_nxt) > 0) {
		uint32_t skip = c->rcv_nxt - dseq, k = s->len - skip;

		if (c->rx_len + k <= c->rx_cap) {
			memcpy(c->rx + c->rx_len, s->data + skip, k);
			c->rx_len += k;
		}
		c->rcv_nxt += k;
	} else if ((c->sack || c->ooo_keep) && (int32_t)(dseq - c->rcv_nxt) > 0) {
		/* out of order: keep it in place for when the hole fills */
		uint32_t at = c->rx_len + (dseq - c->rcv_nxt);

		if (s->len > 0 && at + s->len <= c->rx_cap) {
			memcpy(c->rx + at, s->data, s->len);
			cl_sack_add(c, dseq, s->len);
		}
		if (fl & TFO_TCP_FIN) {
			c->ooo_fin = true;
			c->ooo_fin_seq = dseq + s->len;
		}
	}
	/* what was held out of order and now follows */
	cl_sack_trim(c, c->rcv_nxt);
	while (c->nsack > 0 && c->sack_l[0] == c->rcv_nxt) {
		uint32_t k = c->sack_r[0] - c->rcv_nxt;

		c->rx_len += k;
		c->rcv_nxt += k;
		cl_sack_trim(c, c->rcv_nxt);
	}
	if (c->ooo_fin && c->ooo_fin_seq == c->rcv_nxt && !c->fin) {
		c->rcv_nxt++;
		c->fin = true;
	}
	if ((fl & TFO_TCP_FIN) && dseq + s->len == c->rcv_nxt && !c->fin) {
		c->rcv_nxt++;
		c->fin = true;
	}
}

bool
cl_owns(const struct cl *c, const struct h_seg *s)
{
	return seg_is_mine(c, s);
}

unsigned int
cl_recv(struct cl *c)
{
	struct harness *h = c->h;
	unsigned int n = 0;

	if (c->gen != h->gen) {
		c->gen = h->gen;
		c->cursor = 0;
	}
	for (; c->cursor < h->n_out; c->cursor++) {
		if (!seg_is_mine(c, &h->out[c->cursor]))
			continue;
		n++;
		cl_fold(c, &h->out[c->cursor]);
	}
	return n;
}

/* ---- UDP ---------------------------------------------------------------- */

struct rte_mbuf *
h_udp_frame(struct harness *h, int family, uint16_t dport, const void *data, uint16_t len,
       int cksum)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(h->pool);
	uint16_t l3 = family == AF_INET ? 20 : 40;
	struct rte_ether_hdr *eh;
	struct rte_udp_hdr *uh;
	uint8_t *ip;

	if (m == NULL)
		return NULL;
	eh = (struct rte_ether_hdr *)(void *)rte_pktmbuf_append(m, (uint16_t)(14 + l3 + 8 + len));
	rte_ether_addr_copy(&h->srv_port.mac, &eh->dst_addr);
	rte_ether_addr_copy(&h->cli_port.mac, &eh->src_addr);
	ip = (uint8_t *)(eh + 1);
	uh = (struct rte_udp_hdr *)(ip + l3);
	uh->src_port = rte_cpu_to_be_16(5353);
	uh->dst_port = rte_cpu_to_be_16(dport);
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + len));
	uh->dgram_cksum = 0;
	memcpy(uh + 1, data, len);
	if (family == AF_INET) {
		struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)ip;

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		memset(ih, 0, sizeof(*ih));
		ih->version_ihl = RTE_IPV4_VHL_DEF;
		ih->total_length = rte_cpu_to_be_16((uint16_t)(l3 + 8 + len));
		ih->time_to_live = 64;
		ih->next_proto_id = IPPROTO_UDP;
		memcpy(&ih->src_addr, h->cli_port.addrs[0].addr.b, 4);
		memcpy(&ih->dst_addr, h->srv_port.addrs[0].addr.b, 4);
		ih->hdr_checksum = rte_ipv4_cksum(ih);
		uh->dgram_cksum = rte_ipv4_udptcp_cksum(ih, uh);
	} else {
		struct rte_ipv6_hdr *ih = (struct rte_ipv6_hdr *)ip;

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
		memset(ih, 0, sizeof(*ih));
		ih->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ih->payload_len = rte_cpu_to_be_16((uint16_t)(8 + len));
		ih->proto = IPPROTO_UDP;
		ih->hop_limits = 64;
		memcpy(ih->src_addr, h->cli_port.addrs[4].addr.b, 16);
		memcpy(ih->dst_addr, h->srv_port.addrs[1].addr.b, 16);
		uh->dgram_cksum = rte_ipv6_udptcp_cksum(ih, uh);
	}
	if (cksum >= 0)
		uh->dgram_cksum = rte_cpu_to_be_16((uint16_t)cksum);
	m->port = h->srv_port.port_id;
	return m;
}
