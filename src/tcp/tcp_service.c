/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the engine's service bridge: request bytes to the
 * service, its response into the send queue.
 */
#include <rte_cycles.h>

#include "tcp/engine_priv.h"

/*
 * The sampled transaction's access-log record: who, how, what was asked
 * (the request's first line) and answered. Off the common path: 1 in
 * access_log_sample responses.
 */
static __rte_noinline void
alog_fill(struct tfo_engine *e, const struct tfo_conn *c, struct tfo_alog_rec *r,
	  const uint8_t *req, uint32_t len, const struct tfo_svc_resp *resp)
{
	const uint8_t *eol = memchr(req, '\n', RTE_MIN(len, (uint32_t)TFO_ALOG_REQ_MAX + 1));
	uint32_t n = eol != NULL ? (uint32_t)(eol - req) : len;

	if (n > 0 && req[n - 1] == '\r')
		n--;
	n = RTE_MIN(n, (uint32_t)TFO_ALOG_REQ_MAX);
	memcpy(r->req, req, n);
	r->req_len = (uint8_t)n;
	r->peer = c->key.peer;
	r->peer_port = c->key.peer_port;
	r->local_port = c->key.local_port;
	r->family = c->key.family;
	r->flags = (c->flags & TFO_CF_TFO) ? TFO_ALOG_F_TFO : 0;
	r->svc = c->svc;
	r->status = resp->status;
	r->bytes = resp->buf_len + resp->body_len;
	RTE_SET_USED(e);
}

/* A first response whose SYN came in an earlier poll (plain handshake),
 * or a sampled transaction: off the TFO path. */
static __rte_noinline void
lat_push_slow(struct tfo_engine *e, struct tfo_conn *c, uint32_t age, const uint8_t *req,
	      uint32_t len, const struct tfo_svc_resp *resp)
{
	struct tfo_lat *l = e->lat;
	struct tfo_alog_src *a = l->alog;

	if (age != 0) {
		if (unlikely(l->nold == TFO_LAT_PEND))
			tfo_lat_flush(l, rte_rdtsc());	/* bin early */
		l->old_age[l->nold++] = (uint64_t)age << TFO_LAT_STAMP_SHIFT;
	}
	if (a != NULL && tfo_alog_sampled(a)) {
		if (unlikely(a->nstage == TFO_LAT_PEND))
			tfo_lat_flush(l, rte_rdtsc());
		alog_fill(e, c, &a->stage[a->nstage++], req, len, resp);
	}
}

/*
 * A response is queued: its latency samples (tcp/latency.h), binned at
 * the poll's TX flush. request_to_response runs from this poll's start;
 * syn_to_response, for the connection's first response, from its SYN's
 * poll (the stamp in recover): the same poll for TFO (counted), an
 * earlier one for a plain handshake (its age kept).
 */
static inline void
lat_push(struct tfo_engine *e, struct tfo_conn *c, const uint8_t *req, uint32_t len,
	 const struct tfo_svc_resp *resp)
{
	struct tfo_lat *l = e->lat;
	uint32_t age = 0;

	if (l == NULL)
		return;
	l->npend++;
	if (c->flags2 & TFO_CF2_SYN_STAMP) {
		c->flags2 &= (uint8_t)~TFO_CF2_SYN_STAMP;
		age = (uint32_t)(l->t_rx >> TFO_LAT_STAMP_SHIFT) - c->recover;
		l->nsyn_now += age == 0;
	}
	if (unlikely(age != 0 || l->alog != NULL))
		lat_push_slow(e, c, age, req, len, resp);
}

static inline struct tfo_rbuf_hdr *
rbuf_hdr(const struct tfo_engine *e, const struct tfo_conn *c)
{
	return (struct tfo_rbuf_hdr *)(void *)buf_ptr(e, c->rbuf);
}

/*
 * After the service answered @p done of the @p len bytes at @p req, whose
 * first @p syn came in the SYN: keep the rest in the request buffer for
 * the next call, with how many of its bytes came in the SYN. @return as
 * run_service.
 */
static int
hold_rest(struct tfo_engine *e, struct tfo_conn *c, const uint8_t *req,
	  uint32_t len, uint32_t done, bool from_mbuf, uint32_t syn)
{
	uint32_t rest = len - done;

	if (rest == 0) {
		if (!from_mbuf) {
			buf_put(e, &c->rbuf);
			c->req_len = 0;
		}
		return (int)len;
	}
	if (from_mbuf) {
		if (c->rbuf == TFO_CONN_NONE)
			c->rbuf = buf_get(e);
		if (c->rbuf == TFO_CONN_NONE) {
			/* accept what was answered; the peer resends the rest */
			tfo_tcp_stat_inc(e, TFO_STAT_buf_pool_empty);
			return (int)done;
		}
		memcpy(req_data(e, c), req + done, rest);
	} else if (done > 0) {
		memmove(req_data(e, c), req + done, rest);
	}
	/* a new request is held (the one before it was answered) */
	if (from_mbuf || done > 0)
		req_begin(e, c);
	c->req_len = (uint16_t)rest;
	rbuf_hdr(e, c)->syn_held = (uint16_t)(syn > done ? syn - done : 0);
	return (int)len;
}

/*
 * The idle timeout the response in send buffer @p sb asked for
 * (tfo_svc_resp.idle_ms) rules the connection from now on. Not in
 * SYN_RCVD, whose duplicate-SYN stamp shares the field: a response is
 * drained (this is called) once acknowledged, which ends SYN_RCVD.
 */
static inline void
svc_idle_apply(struct tfo_engine *e, struct tfo_conn *c, uint32_t sb)
{
	uint16_t code = ((const struct tfo_sndq *)(const void *)buf_ptr(e, sb))->idle;

	if (c->state == TFO_CONN_SYN_RCVD)
		return;
	c->flags &= (uint16_t)~TFO_CF_OOW_STAMP;
	c->idle_code = code;
	if (code != 0)
		c->flags2 |= TFO_CF2_SVC_IDLE;
	else
		c->flags2 &= (uint8_t)~TFO_CF2_SVC_IDLE;
}

/*
 * What handle() learns of the request: who sent it over which connection
 * (in_syn is set per request, by run_service).
 */
static void
svc_ctx_tcp(const struct tfo_engine *e, const struct tfo_conn *c,
	    const struct tfo_service_inst *si, struct tfo_svc_ctx *ctx)
{
	ctx->family = c->key.family;
	ctx->transport = TFO_SVC_TCP;
	ctx->in_syn = 0;
	ctx->reserved0 = 0;
	ctx->src_port = c->key.peer_port;
	ctx->dst_port = c->key.local_port;
	memcpy(ctx->src_addr, c->key.peer.b, sizeof(ctx->src_addr));
	memcpy(ctx->dst_addr, e->laddr[c->key.local_idx].b, sizeof(ctx->dst_addr));
	ctx->udp_max = 0;
	ctx->counters = si->nb_ctr != 0 ? &e->st->svc[si->ctr_base] : NULL;
}

/*
 * Hand @p len request bytes at @p req to the service. @p from_mbuf: they
 * are in the input frame (not held yet); otherwise they are the request
 * buffer's. The first @p syn of them came as data in the SYN: a request
 * that begins there is in_syn, however late its last byte comes.
 * @return the bytes accepted (from_mbuf: len, or fewer when they could
 * not be stored), or TFO_TCP_CONN_GONE when the connection was reset.
 */
static int
run_service(struct tfo_engine *e, struct tfo_conn *c, const uint8_t *req,
	    uint32_t len, bool from_mbuf, uint32_t syn)
{
	const struct tfo_service_inst *si = &e->p.services[c->svc];
	struct tfo_svc_ctx ctx;
	uint32_t done = 0;

	svc_ctx_tcp(e, c, si, &ctx);

	for (;;) {
		struct tfo_svc_resp resp;
		enum tfo_svc_status st;
		struct tfo_sndq *q;
		uint32_t sb = c->sbuf;

		if (sb == TFO_CONN_NONE) {
			sb = buf_get(e);
			if (sb == TFO_CONN_NONE) {
				/* callers make sure held bytes find one */
				tfo_tcp_stat_inc(e, TFO_STAT_buf_pool_empty);
				return (int)done;
			}
		}
		memset(&resp, 0, sizeof(resp));
		resp.buf = buf_ptr(e, sb) + TFO_BUF_HDR;
		resp.buf_cap = e->resp_cap;
		ctx.in_syn = done < syn;
		st = si->svc->handle(si->state, &ctx, req + done, len - done, &resp);
		tfo_tcp_stat_inc(e, TFO_STAT_svc_calls);

		if (st == TFO_SVC_NEED_MORE) {
			c->sbuf = sb;
			buf_put(e, &c->sbuf);
			if (len - done >= e->max_request) {
				tfo_tcp_conn_reset(e, c, TFO_STAT_req_too_big);
				return TFO_TCP_CONN_GONE;
			}
			break;
		}
		if (st != TFO_SVC_RESPOND) {
			c->sbuf = sb;
			tfo_tcp_conn_reset(e, c, TFO_STAT_svc_reject);
			return TFO_TCP_CONN_GONE;
		}
		if (resp.consumed == 0 || resp.consumed > len - done ||
		    resp.buf_len > e->resp_cap ||
		    (resp.body != NULL && (resp.body_off > resp.body->len ||
					   resp.body_len > resp.body->len - resp.body_off))) {
			c->sbuf = sb;
			tfo_tcp_conn_reset(e, c, TFO_STAT_svc_bad_response);
			return TFO_TCP_CONN_GONE;
		}
		tfo_tcp_stat_inc(e, TFO_STAT_svc_responses);
		lat_push(e, c, req + done, len - done, &resp);
		done += resp.consumed;
		q = (struct tfo_sndq *)(void *)buf_ptr(e, sb);
		q->body = resp.body != NULL && resp.body_len > 0 ? resp.body : NULL;
		q->body_off = q->body != NULL ? resp.body_off : 0;
		q->body_len = q->body != NULL ? resp.body_len : 0;
		q->buf_off = 0;
		q->buf_len = resp.buf_len;
		q->idle = tfo_idle_code(resp.idle_ms);
		sack_reset(q);
		c->sbuf = sb;
		if (resp.close) {
			queue_fin(e, c);
			if (q->buf_len + q->body_len == 0)
				buf_put(e, &c->sbuf);
			return (int)len;	/* the rest is discarded */
		}
		if (q->buf_len + q->body_len > 0)
			break;
		/* an empty response: on to the next request */
		svc_idle_apply(e, c, sb);
		buf_put(e, &c->sbuf);
		if (done == len)
			break;
	}

	return hold_rest(e, c, req, len, done, from_mbuf, syn);
}

/* tfo_tcp_deliver's bytes that are held first: with others held before
 * them, while a response is in flight, or spread over segments. */
static __rte_noinline int
deliver_held(struct tfo_engine *e, struct tfo_conn *c, const struct rte_mbuf *m,
	     uint32_t off, uint32_t len, uint32_t syn, bool can_serve)
{
	const uint8_t *d;

	/* held bytes must always find a response buffer when served */
	if (e->nb_buf_free < (uint32_t)(c->rbuf == TFO_CONN_NONE) +
			     (uint32_t)can_serve) {
		tfo_tcp_stat_inc(e, TFO_STAT_buf_pool_empty);
		return 0;
	}
	if (c->rbuf == TFO_CONN_NONE)
		c->rbuf = buf_get(e);
	if (c->req_len == 0) {
		req_begin(e, c);
		rbuf_hdr(e, c)->syn_held = 0;
	}
	d = rte_pktmbuf_read(m, off, len, req_data(e, c) + c->req_len);
	if (d != req_data(e, c) + c->req_len)
		memcpy(req_data(e, c) + c->req_len, d, len);
	/* the SYN's bytes are the first a connection holds */
	if (c->req_len == rbuf_hdr(e, c)->syn_held)
		rbuf_hdr(e, c)->syn_held = (uint16_t)(rbuf_hdr(e, c)->syn_held + syn);
	c->req_len = (uint16_t)(c->req_len + len);
	if (can_serve && run_service(e, c, req_data(e, c), c->req_len, false,
				     rbuf_hdr(e, c)->syn_held) == TFO_TCP_CONN_GONE)
		return TFO_TCP_CONN_GONE;
	return (int)len;
}

/* In-order new bytes [off, off + len) of @p m for the request; @p in_syn:
 * the SYN's data. A whole request in one segment goes to the service from
 * the frame; the held bytes' path is out of line, so that both are tail
 * calls (no frame of this function's own: callgrind). */
int
tfo_tcp_deliver(struct tfo_engine *e, struct tfo_conn *c, const struct rte_mbuf *m,
		uint32_t off, uint32_t len, bool in_syn)
{
	bool can_serve = c->sbuf == TFO_CONN_NONE &&
			 !(c->flags & TFO_CF_FIN_QUEUED);
	uint32_t syn = in_syn ? len : 0;

	if (can_serve && c->req_len == 0 && off + len <= m->data_len)
		return run_service(e, c, rte_pktmbuf_mtod_offset(m, const uint8_t *, off),
				   len, true, syn);
	return deliver_held(e, c, m, off, len, syn, can_serve);
}

/* A drained response with a request held behind it (pipelined): serve
 * it from the held bytes, reusing the drained buffer. */
static __rte_noinline int
drain_serve_held(struct tfo_engine *e, struct tfo_conn *c)
{
	uint32_t before = c->adv_wnd;

	/* the deadline of a pipelined request runs from now, not from its
	 * bytes that came while the response was sent */
	req_begin(e, c);
	if (run_service(e, c, req_data(e, c), c->req_len, false,
			rbuf_hdr(e, c)->syn_held) == TFO_TCP_CONN_GONE)
		return TFO_TCP_CONN_GONE;
	if (c->sbuf == TFO_CONN_NONE && (c->flags & TFO_CF_PEER_FIN)) {
		tfo_tcp_queue_fin(e, c);	/* the request can never complete */
	} else if (c->sbuf == TFO_CONN_NONE && before < seg_max(c)) {
		send_ack(e, c);	/* window update */
	}
	return 0;
}

/* A drained response with nothing held: the connection waits for its
 * next request (keep-alive), unless it is closing. */
static __rte_noinline int
drain_idle(struct tfo_engine *e, struct tfo_conn *c)
{
	buf_put(e, &c->sbuf);
	req_begin(e, c);	/* idle from now (eviction's age) */
	c->flags2 |= TFO_CF2_KEEPALIVE;
	if (c->flags & TFO_CF_PEER_FIN) {
		tfo_tcp_queue_fin(e, c);
	} else if (unlikely(e->draining)) {
		/* the server is going away: no next request here */
		tfo_tcp_stat_inc(e, TFO_STAT_drain_keepalive_closed);
		tfo_tcp_queue_fin(e, c);
	}
	return 0;
}

/* The response is acknowledged: serve a pipelined request, or close. The
 * closing response's case (our FIN queued behind it, the single shot of a
 * request whole in the SYN) needs no frame of its own: the others are out
 * of line. */
int
tfo_tcp_after_drain(struct tfo_engine *e, struct tfo_conn *c)
{
	if (c->sbuf != TFO_CONN_NONE)
		svc_idle_apply(e, c, c->sbuf);
	if (c->flags & TFO_CF_FIN_QUEUED) {
		buf_put(e, &c->sbuf);
		return 0;
	}
	if (c->req_len > 0)
		return drain_serve_held(e, c);
	return drain_idle(e, c);
}
