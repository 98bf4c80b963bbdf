/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the engine's UDP bridge (`udp = on`): a datagram to a
 * served port is one request, handed to the service's handle() with no
 * state; its answer leaves as one datagram from the same lcore.
 */
#include <netinet/in.h>
#include <string.h>

#include <rte_udp.h>

#include "tcp/engine_priv.h"

/* The instance serving UDP on @p port, or NULL. */
static inline const struct tfo_service_inst *
udp_service(const struct tfo_engine *e, uint16_t port)
{
	for (unsigned int i = 0; i < e->p.nb_services; i++)
		if (e->p.services[i].udp && e->p.services[i].port == port)
			return &e->p.services[i];
	return NULL;
}

/* What handle() learns of a datagram. */
static void
svc_ctx_udp(const struct tfo_engine *e, const struct tfo_pkt *p,
	    const struct tfo_service_inst *si, uint32_t udp_max,
	    struct tfo_svc_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->family = p->family;
	ctx->transport = TFO_SVC_UDP;
	ctx->src_port = p->sport;
	ctx->dst_port = p->dport;
	memcpy(ctx->src_addr, p->src.b, sizeof(ctx->src_addr));
	memcpy(ctx->dst_addr, p->dst.b, sizeof(ctx->dst_addr));
	ctx->udp_max = udp_max;
	ctx->counters = si->nb_ctr != 0 ? &e->st->svc[si->ctr_base] : NULL;
}

/*
 * Call the service on the datagram and build its answer in @p out.
 * @return 0, or the frame-drop reason counter of the datagram.
 */
static enum tfo_stat_id
udp_answer(struct tfo_engine *e, const struct tfo_service_inst *si,
	   const struct tfo_svc_ctx *ctx, const uint8_t *req, uint32_t len,
	   struct rte_mbuf *out)
{
	struct tfo_svc_resp resp;
	enum tfo_svc_status st;
	uint32_t room = RTE_MIN((uint32_t)rte_pktmbuf_tailroom(out), ctx->udp_max);
	uint8_t *d = rte_pktmbuf_mtod(out, uint8_t *);

	memset(&resp, 0, sizeof(resp));
	resp.buf = d;
	resp.buf_cap = room;
	st = si->svc->handle(si->state, ctx, req, len, &resp);
	tfo_tcp_stat_inc(e, TFO_STAT_svc_calls);
	if (st == TFO_SVC_NEED_MORE)
		return TFO_STAT_svc_udp_need_more;
	/* one datagram is one whole request */
	if (st != TFO_SVC_RESPOND || resp.consumed != len || resp.buf_len > room ||
	    (resp.body != NULL && (resp.body_off > resp.body->len ||
				   resp.body_len > resp.body->len - resp.body_off)))
		return TFO_STAT_svc_udp_reject;
	if (resp.body == NULL)
		resp.body_len = 0;
	if (resp.body_len > room - resp.buf_len)
		return TFO_STAT_svc_udp_too_big;
	if (resp.body_len != 0)
		memcpy(d + resp.buf_len, resp.body->data + resp.body_off, resp.body_len);
	rte_pktmbuf_append(out, (uint16_t)(resp.buf_len + resp.body_len));
	return 0;
}

int
tfo_engine_udp_input(struct tfo_engine *e, const struct rte_mbuf *m,
		     struct tfo_pkt *p, uint8_t port_idx)
{
	const struct tfo_port_info *port = &e->p.ports[port_idx];
	const struct tfo_service_inst *si = udp_service(e, tfo_pkt_udp_dport(m, p));
	struct tfo_svc_ctx ctx;
	struct tfo_route r;
	struct rte_mbuf *out;
	enum tfo_stat_id why;
	uint32_t l3;

	if (si == NULL)
		return -ENOENT;
	if (tfo_pkt_parse_udp(m, port->rx_cksum_offload, p) != TFO_PKT_UDP) {
		tfo_stats_drop(e->st, (enum tfo_pkt_drop)p->drop);
		return 0;
	}
	tfo_tcp_stat_inc(e, TFO_STAT_svc_udp_rx);
	if (unlikely((uint32_t)p->payload_off + p->payload_len > m->data_len)) {
		tfo_tcp_stat_inc(e, TFO_STAT_svc_udp_multiseg);
		return 0;
	}
	out = rte_pktmbuf_alloc(e->pool);
	if (unlikely(out == NULL)) {
		tfo_tcp_stat_inc(e, TFO_STAT_mbuf_alloc_fail);	/* delivered, not answered */
		return 1;
	}
	/* what fits one unfragmented datagram: no IPv6 extension headers
	 * and no IPv4 options in what we send */
	l3 = p->family == AF_INET ? 20 : 40;
	svc_ctx_udp(e, p, si, port->mtu - l3 - (uint32_t)sizeof(struct rte_udp_hdr), &ctx);
	why = udp_answer(e, si, &ctx,
			 rte_pktmbuf_mtod_offset(m, const uint8_t *, p->payload_off),
			 p->payload_len, out);
	if (why != 0) {
		rte_pktmbuf_free(out);
		tfo_tcp_stat_inc(e, why);
		return 0;
	}
	tfo_route_from_pkt(&r, m, p, port_idx);
	if (unlikely(tfo_pkt_prepend_udp(out, port, &r, p->dport, p->sport) != 0)) {
		rte_pktmbuf_free(out);
		tfo_tcp_stat_inc(e, TFO_STAT_mbuf_alloc_fail);
		return 1;
	}
	tfo_tx_push(e->tx, port_idx, out);
	e->nxmit++;
	tfo_tcp_stat_inc(e, TFO_STAT_svc_udp_tx);
	tfo_tcp_stat_inc(e, TFO_STAT_svc_responses);
	/* request_to_response from this poll's start (tcp/latency.h); no
	 * access-log record: XXX it has no field for the transport yet */
	if (e->lat != NULL)
		e->lat->npend++;
	return 1;
}
