/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-loadgen: the client side of a TFO transaction, many at a time.
 *
 * A transaction: SYN (a cookie request, cookie + request data, a corrupted
 * cookie + data, or no TFO option) -> SYN-ACK (validated; its cookie
 * learned; data in it accepted) -> the rest of the request, if any ->
 * the response, checked byte by byte as it arrives -> ACK+FIN -> the
 * server's FIN and the ACK of ours. Both shapes of server are played: the
 * response inside the SYN-ACK (tfo-server) or after it (Linux).
 * Starting transactions is starts.c's job, receiving frames and the loop
 * lcore.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "net/port.h"
#include "tcp/seq.h"
#include "tfo/log.h"

#include "lg.h"

#define LG_BACKOFF_MAX 6

/* ---- request bytes ------------------------------------------------------- */

/* The per-transaction tag: 16 lower-case hex digits of the id (never '\n',
 * so line-based echo servers still see one line). */
static inline uint8_t
lg_tag_byte(uint64_t id, uint32_t i)
{
	static const char hex[] = "0123456789abcdef";

	return (uint8_t)hex[(id >> (4 * (LG_TAG_LEN - 1 - i))) & 0xf];
}

static void
lg_fill_request(const struct lg_opts *o, uint64_t id, uint8_t *dst, uint32_t off,
		uint32_t len)
{
	memcpy(dst, o->request + off, len);
	if (o->tag)
		for (uint32_t i = off; i < LG_TAG_LEN && i < off + len; i++)
			dst[i - off] = lg_tag_byte(id, i);
	if (o->dns) {
		/* the ID, bytes 2-3 (after the length field) */
		uint16_t dns_id = lg_dns_id(id);

		for (uint32_t i = RTE_MAX(off, 2u); i < 4 && i < off + len; i++)
			dst[i - off] = (uint8_t)(i == 2 ? dns_id >> 8 : dns_id);
	}
}

static inline uint8_t
lg_request_byte(const struct lg_opts *o, uint64_t id, uint32_t i)
{
	return o->tag && i < LG_TAG_LEN ? lg_tag_byte(id, i) : o->request[i];
}

/* ---- transmit ------------------------------------------------------------ */

int
lg_xmit(struct lg_lcore *lc, const struct lg_seg *s)
{
	const struct lg_opts *o = lc->o;
	const struct lg_port *port = &lc->sh->ports[s->port_idx];
	struct tfo_route r;
	struct tfo_tcp_out t;
	struct rte_mbuf *m;

	m = rte_pktmbuf_alloc(lc->pool);
	if (unlikely(m == NULL)) {
		LG_INC(&lc->stats, mbuf_alloc_fail);
		return -ENOMEM;
	}
	if (s->data_len > 0) {
		uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)s->data_len);

		if (unlikely(d == NULL)) {
			rte_pktmbuf_free(m);
			LG_INC(&lc->stats, mbuf_alloc_fail);
			return -ENOSPC;
		}
		lg_fill_request(o, s->txn_id, d, s->data_off, s->data_len);
	}
	r.peer_mac = port->server_mac;
	r.vlan_tci = 0;
	r.has_vlan = 0;
	r.family = (uint8_t)o->family;
	r.local_idx = 0;
	r.port_idx = s->port_idx;
	lg_addr_make(o, s->addr, &r.local);
	r.peer = o->server;
	t.sport = s->sport;
	t.dport = o->server_port;
	t.seq = s->seq;
	t.ack = s->ack;
	t.window = s->window;
	t.flags = s->flags;
	t.opt_len = s->opt_len;
	t.opts = s->opts;
	if (unlikely(tfo_pkt_prepend_tcp(m, &port->info, &r, &t) < 0)) {
		rte_pktmbuf_free(m);
		LG_INC(&lc->stats, mbuf_alloc_fail);
		return -ENOSPC;
	}
	tfo_tx_push(&lc->tx, s->port_idx, m);
	return 0;
}

/*
 * A SYN's options in Linux's order: MSS, SACK-permitted + timestamps, NOP +
 * window scale, then the TFO option (NOP-padded after it, as Linux does).
 * @p cookie_len 0 with a form asks for a cookie.
 */
unsigned int
lg_syn_opts(uint8_t *out, uint16_t mss, uint32_t tsval, uint8_t form,
	    const uint8_t *cookie, unsigned int cookie_len)
{
	unsigned int n = 20, len;
	uint8_t *p;

	out[0] = TFO_OPT_MSS;
	out[1] = 4;
	out[2] = (uint8_t)(mss >> 8);
	out[3] = (uint8_t)mss;
	out[4] = TFO_OPT_SACK_PERM;
	out[5] = 2;
	out[6] = TFO_OPT_TS;
	out[7] = 10;
	out[8] = (uint8_t)(tsval >> 24);
	out[9] = (uint8_t)(tsval >> 16);
	out[10] = (uint8_t)(tsval >> 8);
	out[11] = (uint8_t)tsval;
	memset(out + 12, 0, 4);
	out[16] = TFO_OPT_NOP;
	out[17] = TFO_OPT_WSCALE;
	out[18] = 3;
	out[19] = LG_WSCALE;
	if (form == TFO_FORM_NONE)
		return n;
	p = out + n;
	if (form == TFO_FORM_EXP) {
		len = 4 + cookie_len;
		p[0] = TFO_OPT_EXP;
		p[1] = (uint8_t)len;
		p[2] = TFO_OPT_EXP_MAGIC_TFO >> 8;
		p[3] = TFO_OPT_EXP_MAGIC_TFO & 0xff;
		if (cookie_len != 0)
			memcpy(p + 4, cookie, cookie_len);
	} else {
		len = 2 + cookie_len;
		p[0] = TFO_OPT_FASTOPEN;
		p[1] = (uint8_t)len;
		if (cookie_len != 0)
			memcpy(p + 2, cookie, cookie_len);
	}
	memset(p + len, TFO_OPT_NOP, ((len + 3) & ~3u) - len);
	return n + ((len + 3) & ~3u);
}

static inline uint16_t
lg_rcv_window(const struct lg_conn *c)
{
	return (c->flags & LG_F_WS) ? (uint16_t)(LG_RCV_WND >> LG_WSCALE) : 65535;
}

/* The SYN of @p c; with data (the first one) or without (retransmissions). */
void
lg_send_syn(struct lg_lcore *lc, struct lg_conn *c, bool with_data, uint64_t now)
{
	const struct lg_opts *o = lc->o;
	struct lg_addr *a = lg_conn_addr(lc, c);
	uint8_t opts[TFO_TCPOPT_MAX_LEN], bad[TFO_COOKIE_MAX];
	const uint8_t *cookie = NULL;
	unsigned int cookie_len = 0;
	uint8_t form = TFO_FORM_NONE;
	uint32_t tsval = lg_tsval(lc, now);
	struct lg_seg s;

	switch (c->kind) {
	case LG_KIND_COOKIE_REQ:
		form = o->cookie_form;
		break;
	case LG_KIND_TFO:
		form = a->form;
		cookie = a->cookie;
		cookie_len = a->cookie_len;
		break;
	case LG_KIND_BAD_COOKIE:
		/* the cached cookie with every bit flipped: surely invalid */
		cookie_len = a->cookie_len ? a->cookie_len : TFO_COOKIE_LEN;
		for (unsigned int i = 0; i < cookie_len; i++)
			bad[i] = (uint8_t)~a->cookie[i];
		cookie = bad;
		form = a->cookie_len ? a->form : o->cookie_form;
		break;
	default:
		break;
	}
	if (with_data)
		c->syn_tsval_first = tsval;
	c->syn_tsval_last = tsval;
	s.port_idx = c->port_idx;
	s.flags = TFO_TCP_SYN;
	s.opts = opts;
	s.opt_len = (uint8_t)lg_syn_opts(opts, o->mss, tsval, form, cookie, cookie_len);
	s.sport = c->sport;
	s.window = 65535;
	s.addr = c->addr;
	s.seq = c->isn;
	s.ack = 0;
	s.data_off = 0;
	s.data_len = with_data ? c->syn_data : 0;
	s.txn_id = c->txn_id;
	lg_xmit(lc, &s);
}

/* A segment of an open connection: ACK, data from the request, FIN, RST. */
static void
lg_send(struct lg_lcore *lc, struct lg_conn *c, uint8_t flags, uint32_t seq,
	uint32_t data_len, uint64_t now)
{
	uint8_t opts[12];
	struct lg_seg s;

	s.port_idx = c->port_idx;
	s.flags = flags;
	s.opts = opts;
	s.opt_len = 0;
	if (c->flags & LG_F_TS)
		s.opt_len = (uint8_t)tfo_tcpopt_write_ts(opts, lg_tsval(lc, now),
							 c->ts_recent);
	s.sport = c->sport;
	s.window = lg_rcv_window(c);
	s.addr = c->addr;
	s.seq = seq;
	s.ack = (flags & TFO_TCP_ACK) ? c->rcv_nxt : 0;
	s.data_off = seq - (c->isn + 1);
	s.data_len = data_len;
	s.txn_id = c->txn_id;
	lg_xmit(lc, &s);
}

/* ---- slots --------------------------------------------------------------- */

static void
lg_free(struct lg_lcore *lc, struct lg_conn *c)
{
	uint32_t slot = (uint32_t)(c - lc->conns);

	if (c->flags & LG_F_WARMUP) {
		lg_conn_addr(lc, c)->warming = 0;
		lc->warm_inflight--;
	}
	lc->tuple_map[c->tuple] = 0;
	c->state = LG_ST_FREE;
	c->flags = 0;
	c->next_free = lc->free_head;
	lc->free_head = slot;
	lc->nb_free++;
}

/* Count error @p id once and drop the transaction (RST it if @p rst). */
static void
lg_fail(struct lg_lcore *lc, struct lg_conn *c, enum lg_stat_id id, bool rst,
	uint64_t now)
{
	if (id < LG_STAT_MAX)	/* LG_STAT_MAX: counted by the caller */
		lc->stats.c[id]++;
	if (rst) {
		if (c->state == LG_ST_SYN_SENT)
			lg_send(lc, c, TFO_TCP_RST, c->snd_nxt, 0, now);
		else
			lg_send(lc, c, TFO_TCP_RST | TFO_TCP_ACK, c->snd_nxt, 0, now);
	}
	lg_free(lc, c);
}

static void
lg_complete(struct lg_lcore *lc, struct lg_conn *c)
{
	if (c->flags & LG_F_WARMUP) {
		LG_INC(&lc->stats, warmup_completed);
	} else {
		LG_INC(&lc->stats, txn_completed);
		lc->stats.c[lg_kind_done(c->kind)]++;
	}
	lg_free(lc, c);
}

static inline void
lg_mark(struct lg_lcore *lc, struct lg_conn *c, uint64_t now)
{
	if (c->flags & LG_F_PENDING)
		return;
	if (unlikely(lc->nb_pending == RTE_DIM(lc->pending)))
		lg_output_pending(lc, now);
	c->flags |= LG_F_PENDING;
	lc->pending[lc->nb_pending++] = (uint32_t)(c - lc->conns);
}

/* ---- receive --------------------------------------------------------------- */

/*
 * Compare @p len response bytes at offset @p pos of the response (frame
 * offset @p off of @p m) with what is expected. @return false (after
 * counting the error) on a mismatch.
 */
static bool
lg_check_response(struct lg_lcore *lc, struct lg_conn *c,
		  const struct rte_mbuf *m, uint32_t off, uint32_t pos, uint32_t len)
{
	const struct lg_opts *o = lc->o;
	uint8_t buf[256];

	if (o->dns)
		return lg_dns_scan(lc, c, m, off, pos, len);

	if (o->expect_len >= 0 && (uint64_t)pos + len > (uint64_t)o->expect_len) {
		LG_INC(&lc->stats, err_response_long);
		return false;
	}
	if (!o->expect_echo && pos >= o->expect_prefix_len)
		return true;
	while (len > 0) {
		uint32_t n = RTE_MIN(len, (uint32_t)sizeof(buf));
		const uint8_t *p = rte_pktmbuf_read(m, off, n, buf);

		if (p == NULL)
			return false;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t at = pos + i;
			bool ok = true;

			if (at < o->expect_prefix_len)
				ok = p[i] == o->expect_prefix[at];
			if (ok && o->expect_echo)
				ok = p[i] == lg_request_byte(o, c->txn_id, at);
			if (!ok) {
				LG_INC(&lc->stats, err_response_mismatch);
				return false;
			}
		}
		off += n;
		pos += n;
		len -= n;
	}
	return true;
}

static void
lg_resp_done(struct lg_lcore *lc, struct lg_conn *c, uint64_t now)
{
	c->flags |= LG_F_RESP_DONE;
	LG_INC(&lc->stats, responses_validated);
	if (!(c->flags & LG_F_WARMUP)) {
		lg_hist_add(&lc->hist, now - c->start_tsc);
		lg_hist_add(&lc->hist_kind[c->kind], now - c->start_tsc);
		lc->last_done_tsc = now;
	}
}

/*
 * The payload and FIN of a segment whose first payload byte has sequence
 * number @p seq. @return false if the transaction failed (already freed).
 */
static bool
lg_rcv(struct lg_lcore *lc, struct lg_conn *c, const struct rte_mbuf *m,
       const struct tfo_pkt *p, uint32_t seq, bool fin, uint64_t now)
{
	const struct lg_opts *o = lc->o;
	uint32_t len = p->payload_len;

	if (len > 0) {
		int32_t d = (int32_t)(seq - c->rcv_nxt);

		c->flags |= LG_F_ACK_NOW;
		if (d > 0) {
			LG_INC(&lc->stats, rx_ooo);
			return true;
		}
		if ((int64_t)d + len <= 0) {
			LG_INC(&lc->stats, rx_dup_data);
		} else {
			uint32_t skip = (uint32_t)-d, take = len - skip;

			if (c->flags & LG_F_FIN_RCVD) {
				/* data beyond the FIN the server sent */
				lg_fail(lc, c, LG_STAT_err_response_long, true, now);
				return false;
			}
			if (!lg_check_response(lc, c, m, p->payload_off + skip,
					       c->resp_len, take)) {
				lg_fail(lc, c, LG_STAT_MAX, true, now);
				return false;
			}
			c->resp_len += take;
			c->rcv_nxt += take;
			LG_ADD(&lc->stats, response_bytes, take);
		}
	}
	if (fin) {
		c->flags |= LG_F_ACK_NOW;
		if (seq + len == c->rcv_nxt && !(c->flags & LG_F_FIN_RCVD)) {
			c->flags |= LG_F_FIN_RCVD;
			c->rcv_nxt++;
		}
	}
	if (!(c->flags & LG_F_RESP_DONE)) {
		int dns = o->dns ? lg_dns_complete(lc, c) : 0;

		if (dns < 0) {
			lg_fail(lc, c, LG_STAT_MAX, true, now);
			return false;
		}
		if (dns > 0 || (o->expect_len >= 0 && c->resp_len == (uint64_t)o->expect_len)) {
			lg_resp_done(lc, c, now);
		} else if (c->flags & LG_F_FIN_RCVD) {
			if (o->dns || o->expect_len >= 0 || c->resp_len < o->expect_prefix_len) {
				lg_fail(lc, c, LG_STAT_err_response_short, true, now);
				return false;
			}
			lg_resp_done(lc, c, now);
		}
	}
	return true;
}

static void
lg_learn_cookie(struct lg_lcore *lc, struct lg_addr *a, const struct tfo_tcpopts *op)
{
	if (a->cookie_len == 0)
		LG_INC(&lc->stats, cookies_learned);
	else if (a->cookie_len != op->cookie_len ||
		 memcmp(a->cookie, op->cookie, op->cookie_len) != 0 ||
		 a->form != op->form)
		LG_INC(&lc->stats, cookies_replaced);
	memcpy(a->cookie, op->cookie, op->cookie_len);
	a->cookie_len = op->cookie_len;
	a->form = op->form;
}

static void
lg_synack(struct lg_lcore *lc, struct lg_conn *c, const struct rte_mbuf *m,
	  const struct tfo_pkt *p, const struct tfo_tcpopts *op, uint64_t now)
{
	const struct lg_opts *o = lc->o;
	struct lg_addr *a = lg_conn_addr(lc, c);
	uint32_t acked = p->ack - (c->isn + 1);
	bool data_acked, warm = c->flags & LG_F_WARMUP;
	uint16_t mss;

	if ((p->tcp_flags & (TFO_TCP_SYN | TFO_TCP_ACK)) != (TFO_TCP_SYN | TFO_TCP_ACK)) {
		if (p->tcp_flags & TFO_TCP_ACK) {
			/* RFC 9293 3.10.7.3: an ACK that does not answer our SYN
			 * (a server's TIME-WAIT entry of this tuple that refused
			 * it) gets an RST; our SYN retransmission then gets
			 * through, as a Linux client's does */
			lg_send(lc, c, TFO_TCP_RST, p->ack, 0, now);
			LG_INC(&lc->stats, rst_tx_synsent);
		} else {
			LG_INC(&lc->stats, rx_no_conn);
		}
		return;
	}
	if (acked == 0) {
		data_acked = false;
	} else if (acked == c->syn_data && c->syn_data > 0) {
		data_acked = true;
	} else {
		lg_fail(lc, c, LG_STAT_err_synack_ack, true, now);
		return;
	}
	if (op->has_ts) {
		if (tfo_seq_lt(op->tsecr, c->syn_tsval_first) ||
		    tfo_seq_gt(op->tsecr, c->syn_tsval_last)) {
			lg_fail(lc, c, LG_STAT_err_synack_tsecr, true, now);
			return;
		}
		c->flags |= LG_F_TS;
		c->ts_recent = op->tsval;
	}
	if (p->payload_len > 0 && c->kind == LG_KIND_PLAIN) {
		lg_fail(lc, c, LG_STAT_err_synack_data_plain, true, now);
		return;
	}
	if (op->has_wscale) {
		c->flags |= LG_F_WS;
		c->snd_wscale = op->wscale;
	}
	c->snd_wnd = p->window;
	mss = op->has_mss ? op->mss : (o->family == AF_INET ? 536 : 1220);
	a->server_mss = mss;
	mss = RTE_MIN(mss, o->mss);
	c->snd_mss = (uint16_t)(mss - ((c->flags & LG_F_TS) ? 12 : 0));

	if (op->cookie_state == TFO_COOKIE_PRESENT)
		lg_learn_cookie(lc, a, op);
	else if (op->cookie_state == TFO_COOKIE_INVALID)
		LG_INC(&lc->stats, cookie_bad_len);
	else if (c->kind == LG_KIND_COOKIE_REQ)
		LG_INC(&lc->stats, cookie_not_offered);

	if (c->syn_data > 0) {
		if (data_acked) {
			if (c->kind == LG_KIND_BAD_COOKIE)
				LG_INC(&lc->stats, err_bad_cookie_accepted);
			else if (!warm)
				LG_INC(&lc->stats, txn_tfo);
		} else if (!(c->flags & LG_F_SYN_REXMIT)) {
			if (c->kind == LG_KIND_BAD_COOKIE)
				LG_INC(&lc->stats, fallbacks_bad_cookie);
			else
				LG_INC(&lc->stats, fallbacks);
		}
	}

	c->state = LG_ST_OPEN;
	c->irs = p->seq;
	c->rcv_nxt = p->seq + 1;
	/* after a fallback the whole request goes again, at once, as Linux
	 * does */
	c->snd_una = p->ack;
	c->snd_nxt = p->ack;
	c->snd_max = p->ack;
	c->retries = 0;
	c->backoff = 0;
	c->rto_tsc = 0;
	c->flags |= LG_F_ACK_NOW;
	if (p->payload_len > 0)
		LG_INC(&lc->stats, synack_data);
	if (p->tcp_flags & TFO_TCP_FIN)
		LG_INC(&lc->stats, synack_fin);
	if (!lg_rcv(lc, c, m, p, p->seq + 1, p->tcp_flags & TFO_TCP_FIN, now))
		return;
	lg_mark(lc, c, now);
}

static void
lg_segment(struct lg_lcore *lc, struct lg_conn *c, const struct rte_mbuf *m,
	   const struct tfo_pkt *p, const struct tfo_tcpopts *op, uint64_t now)
{
	if (p->tcp_flags & TFO_TCP_SYN) {
		/* our ACK of the SYN-ACK got lost, or crossed it */
		LG_INC(&lc->stats, rx_dup_synack);
		c->flags |= LG_F_ACK_NOW;
		lg_mark(lc, c, now);
		return;
	}
	if (!(p->tcp_flags & TFO_TCP_ACK))
		return;
	if (tfo_seq_gt(p->ack, c->snd_max)) {
		lg_fail(lc, c, LG_STAT_err_ack_unsent, true, now);
		return;
	}
	if (tfo_seq_gt(p->ack, c->snd_nxt))
		c->snd_nxt = p->ack;	/* acked while we were going back */
	if ((c->flags & LG_F_TS) && op->has_ts && !tfo_seq_gt(p->seq, c->rcv_nxt))
		c->ts_recent = op->tsval;
	if (tfo_seq_gt(p->ack, c->snd_una)) {
		c->snd_una = p->ack;
		c->retries = 0;
		c->backoff = 0;
		c->rto_tsc = 0;	/* re-armed by the output if data is still out */
		if ((c->flags & LG_F_FIN_SENT) && c->snd_una == c->snd_nxt)
			c->flags |= LG_F_FIN_ACKED;
		lg_mark(lc, c, now);
	}
	c->snd_wnd = (uint32_t)p->window << ((c->flags & LG_F_WS) ? c->snd_wscale : 0);
	if (!lg_rcv(lc, c, m, p, p->seq, p->tcp_flags & TFO_TCP_FIN, now))
		return;
	if (c->flags & LG_F_ACK_NOW)
		lg_mark(lc, c, now);
}

void
lg_tcp_input(struct lg_lcore *lc, const struct rte_mbuf *m, const struct tfo_pkt *p,
	     uint32_t addr, uint64_t now)
{
	const struct lg_opts *o = lc->o;
	struct tfo_tcpopts op;
	struct lg_conn *c;
	uint32_t local = addr / lc->sh->nb_lcores, t;
	uint16_t slot;

	if (p->dport >= o->flood_lo && p->dport <= o->flood_hi) {
		LG_INC(&lc->stats, flood_rx);
		return;
	}
	if (p->dport < o->port_lo || p->dport > o->port_hi ||
	    p->sport != o->server_port ||
	    memcmp(p->src.b, o->server.b, o->family == AF_INET ? 4 : 16) != 0) {
		LG_INC(&lc->stats, rx_no_conn);
		return;
	}
	t = (uint32_t)(p->dport - o->port_lo) * lc->nb_addrs + local;
	slot = lc->tuple_map[t];
	if (slot == 0) {
		LG_INC(&lc->stats, rx_no_conn);
		return;
	}
	c = &lc->conns[slot - 1];
	tfo_tcpopt_parse(tfo_pkt_tcp_hdr(m, p) + 20, p->l4_len - 20u, &op);
	if (p->tcp_flags & TFO_TCP_RST) {
		/* RFC 9293: in SYN-SENT an RST counts if it acks our SYN; later
		 * if it is in the window */
		if (c->state == LG_ST_SYN_SENT ?
		    ((p->tcp_flags & TFO_TCP_ACK) && !tfo_seq_lt(p->ack, c->isn + 1) &&
		     !tfo_seq_gt(p->ack, c->isn + 1 + c->syn_data)) :
		    !tfo_seq_lt(p->seq, c->rcv_nxt) &&
		    tfo_seq_lt(p->seq, c->rcv_nxt + LG_RCV_WND))
			lg_fail(lc, c, LG_STAT_err_rst_rx, false, now);
		return;
	}
	if (c->state == LG_ST_SYN_SENT)
		lg_synack(lc, c, m, p, &op, now);
	else
		lg_segment(lc, c, m, p, &op, now);
}

/* ---- output and timers -------------------------------------------------- */

/* Send what @p c owes: request data within the window, our FIN once the
 * response is complete, or an ACK. Completes the transaction when the FIN
 * exchange is over. */
static void
lg_output(struct lg_lcore *lc, struct lg_conn *c, uint64_t now)
{
	uint32_t req_end = c->isn + 1 + lc->o->request_len;
	bool sent = false;

	while (tfo_seq_lt(c->snd_nxt, req_end)) {
		uint32_t wnd_end = c->snd_una + c->snd_wnd;
		uint32_t n = req_end - c->snd_nxt;
		uint8_t fl = TFO_TCP_ACK;

		if (!tfo_seq_lt(c->snd_nxt, wnd_end))
			break;
		n = RTE_MIN(n, (uint32_t)c->snd_mss);
		n = RTE_MIN(n, wnd_end - c->snd_nxt);
		if (c->snd_nxt + n == req_end) {
			fl |= TFO_TCP_PSH;
			if ((c->flags & (LG_F_RESP_DONE | LG_F_FIN_SENT)) == LG_F_RESP_DONE)
				fl |= TFO_TCP_FIN;
		}
		lg_send(lc, c, fl, c->snd_nxt, n, now);
		c->snd_nxt += n;
		if (fl & TFO_TCP_FIN) {
			c->snd_nxt++;
			c->flags |= LG_F_FIN_SENT;
		}
		sent = true;
	}
	if ((c->flags & (LG_F_RESP_DONE | LG_F_FIN_SENT)) == LG_F_RESP_DONE &&
	    c->snd_nxt == req_end) {
		lg_send(lc, c, TFO_TCP_FIN | TFO_TCP_ACK, c->snd_nxt, 0, now);
		c->snd_nxt++;
		c->flags |= LG_F_FIN_SENT;
		sent = true;
	}
	if (!sent && (c->flags & LG_F_ACK_NOW))
		lg_send(lc, c, TFO_TCP_ACK, c->snd_nxt, 0, now);
	c->flags &= (uint16_t)~LG_F_ACK_NOW;
	if (tfo_seq_gt(c->snd_nxt, c->snd_max))
		c->snd_max = c->snd_nxt;
	if (c->snd_una != c->snd_nxt && c->rto_tsc == 0)
		c->rto_tsc = now + (lc->rto_tsc << c->backoff);
	if ((c->flags & (LG_F_FIN_SENT | LG_F_FIN_ACKED | LG_F_FIN_RCVD | LG_F_RESP_DONE)) ==
	    (LG_F_FIN_SENT | LG_F_FIN_ACKED | LG_F_FIN_RCVD | LG_F_RESP_DONE))
		lg_complete(lc, c);
}

void
lg_output_pending(struct lg_lcore *lc, uint64_t now)
{
	uint32_t n = lc->nb_pending;

	lc->nb_pending = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct lg_conn *c = &lc->conns[lc->pending[i]];

		if (c->state == LG_ST_FREE || !(c->flags & LG_F_PENDING))
			continue;
		c->flags &= (uint16_t)~LG_F_PENDING;
		lg_output(lc, c, now);
	}
}

static void
lg_retransmit(struct lg_lcore *lc, struct lg_conn *c, uint64_t now)
{
	uint32_t req_end = c->isn + 1 + lc->o->request_len;

	if (++c->retries > lc->o->retries) {
		enum lg_stat_id id = c->state == LG_ST_SYN_SENT ? LG_STAT_err_timeout_syn :
				     tfo_seq_lt(c->snd_una, req_end) ? LG_STAT_err_timeout_data :
				     LG_STAT_err_timeout_fin;

		lg_fail(lc, c, id, true, now);
		return;
	}
	if (c->backoff < LG_BACKOFF_MAX)
		c->backoff++;
	c->rto_tsc = 0;
	if (c->state == LG_ST_SYN_SENT) {
		/* as Linux: the SYN again without data; the data follows the
		 * handshake (the SYN-ACK may still ack the first SYN's data) */
		c->flags |= LG_F_SYN_REXMIT;
		lg_send_syn(lc, c, false, now);
		c->rto_tsc = now + (lc->rto_tsc << c->backoff);
		LG_INC(&lc->stats, syn_retransmits);
		return;
	}
	if (tfo_seq_lt(c->snd_una, req_end))
		LG_INC(&lc->stats, data_retransmits);
	else
		LG_INC(&lc->stats, fin_retransmits);
	/* go back to the first unacknowledged byte (or the FIN) */
	c->snd_nxt = c->snd_una;
	c->flags &= (uint16_t)~LG_F_FIN_SENT;
	lg_output(lc, c, now);
}

void
lg_timers(struct lg_lcore *lc, uint64_t now, uint32_t max_slots)
{
	uint32_t n = RTE_MIN(max_slots, lc->nb_conns);

	for (uint32_t i = 0; i < n; i++) {
		struct lg_conn *c = &lc->conns[lc->sweep];

		if (++lc->sweep == lc->nb_conns)
			lc->sweep = 0;
		if (c->state == LG_ST_FREE)
			continue;
		if (now >= c->deadline_tsc)
			lg_fail(lc, c, LG_STAT_err_timeout_txn, true, now);
		else if (c->rto_tsc != 0 && now >= c->rto_tsc)
			lg_retransmit(lc, c, now);
	}
}

