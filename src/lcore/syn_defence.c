/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the workers' stateless SYN defence (see lcore/syn_defence.h).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_errno.h>

#include "lcore/syn_defence.h"
#include "lcore/worker.h"
#include "tfo/log.h"

int tfo_syn_summary_offset = -1;

int
tfo_syn_summary_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "tfo_syn_summary",
		.size = sizeof(struct tfo_syn_summary),
		.align = __alignof__(struct tfo_syn_summary),
	};
	int off = rte_mbuf_dynfield_register(&desc);

	if (off < 0) {
		TFO_LOG(ERR, "cannot register the mbuf field for SYN summaries: %s",
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	tfo_syn_summary_offset = off;
	return 0;
}

/* The parse's results that the control core would compute again. */
static void
syn_summary_set_pkt(struct tfo_syn_summary *s, const struct tfo_pkt *p)
{
	s->local_idx = p->local_idx;
	s->l2_len = p->l2_len;
	s->l3_len = p->l3_len;
	s->l4_len = p->l4_len;
	s->payload_len = p->payload_len;
	s->flags |= TFO_SYNSUM_PKT | (p->family == AF_INET6 ? TFO_SYNSUM_V6 : 0);
}

void
tfo_syn_summary_from_ack(struct tfo_syn_summary *s, const struct tfo_syncookie_ack *a)
{
	memset(s, 0, sizeof(*s));
	s->mss = a->info.mss;
	s->wscale = a->info.wscale;
	s->flags = (a->info.sack_ok ? TFO_SYNSUM_SACK : 0) |
		   (a->has_ts ? TFO_SYNSUM_HAS_TS : 0);
	s->tsval = a->tsval;
}

void
tfo_syn_summary_to_ack(const struct tfo_syn_summary *s, struct tfo_syncookie_ack *a)
{
	a->info.mss = s->mss;
	a->info.wscale = s->wscale;
	a->info.sack_ok = (s->flags & TFO_SYNSUM_SACK) != 0;
	a->has_ts = (s->flags & TFO_SYNSUM_HAS_TS) != 0;
	a->tsval = s->tsval;
}

static inline bool
syn_summary_reason(int reason)
{
	switch (reason) {
	case TFO_CTRL_TCP_SYN:
	case TFO_CTRL_TCP_COOKIE_REQ:
	case TFO_CTRL_TCP_BAD_COOKIE:
	case TFO_CTRL_TCP_OVERFLOW:
	case TFO_CTRL_TCP_FULL:
	case TFO_CTRL_TCP_SYNCOOKIE_ACK:
		return true;
	default:
		return false;
	}
}

static inline uint16_t
rd16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t
rd32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

bool
tfo_syn_summary_pkt(struct rte_mbuf *m, int reason, struct tfo_pkt *p)
{
	const struct tfo_syn_summary *s;
	const uint8_t *f, *ih, *th;

	if (!syn_summary_reason(reason))
		return false;
	s = tfo_syn_summary(m);
	if (!(s->flags & TFO_SYNSUM_PKT))
		return false;
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	ih = f + s->l2_len;
	th = ih + s->l3_len;
	p->cls = TFO_PKT_TCP;
	p->drop = TFO_PKT_DROP_NONE;
	p->l4proto = IPPROTO_TCP;
	p->local_idx = s->local_idx;
	p->key_pad = 0;
	p->l2_len = s->l2_len;
	p->has_vlan = s->l2_len > RTE_ETHER_HDR_LEN;
	p->vlan_tci = p->has_vlan ? rd16(f + RTE_ETHER_HDR_LEN) : 0;
	p->l3_len = s->l3_len;
	p->l4_len = s->l4_len;
	p->payload_off = (uint16_t)(s->l2_len + s->l3_len + s->l4_len);
	p->payload_len = s->payload_len;
	if (s->flags & TFO_SYNSUM_V6) {
		p->family = AF_INET6;
		memcpy(p->src.b, ih + 8, 16);
		memcpy(p->dst.b, ih + 24, 16);
	} else {
		p->family = AF_INET;
		memset(&p->src, 0, sizeof(p->src));
		memset(&p->dst, 0, sizeof(p->dst));
		memcpy(p->src.b, ih + 12, 4);
		memcpy(p->dst.b, ih + 16, 4);
	}
	p->sport = rd16(th);
	p->dport = rd16(th + 2);
	p->seq = rd32(th + 4);
	p->ack = rd32(th + 8);
	p->tcp_flags = th[13];
	p->window = rd16(th + 14);
	return true;
}

bool
tfo_syn_summary_opts(struct rte_mbuf *m, int reason, struct tfo_tcpopts *o)
{
	const struct tfo_syn_summary *s;

	if (!syn_summary_reason(reason) || reason == TFO_CTRL_TCP_SYNCOOKIE_ACK)
		return false;
	s = tfo_syn_summary(m);
	if (!(s->flags & TFO_SYNSUM_SYN))
		return false;
	memset(o, 0, offsetof(struct tfo_tcpopts, cookie));
	o->mss = s->mss;
	o->wscale = s->wscale;
	o->has_mss = (s->flags & TFO_SYNSUM_HAS_MSS) != 0;
	o->has_wscale = (s->flags & TFO_SYNSUM_HAS_WS) != 0;
	o->sack_ok = (s->flags & TFO_SYNSUM_SACK) != 0;
	o->has_ts = (s->flags & TFO_SYNSUM_HAS_TS) != 0;
	o->malformed = (s->flags & TFO_SYNSUM_MALFORMED) != 0;
	o->form = s->form;
	o->cookie_state = s->cookie_state;
	o->tsval = s->tsval;
	return true;
}

void
tfo_syn_defence_init(struct tfo_syn_defence *d, uint8_t mode,
		     const struct rte_ring *to_control)
{
	memset(d, 0, sizeof(*d));
	d->mode = mode;
	/* half full: the control core is falling behind, and the other half
	 * still takes the cookie requests and plain SYNs it can serve */
	d->ring_hi = to_control != NULL ? RTE_MAX(rte_ring_get_capacity(to_control) / 2, 1u) :
					  UINT32_MAX;
}

/* A fresh TFO cookie for @p p into @p cookie; false if none can be made. */
static bool
syn_defence_tfo_cookie(struct tfo_worker *w, const struct tfo_pkt *p,
		       uint8_t cookie[TFO_COOKIE_LEN])
{
	struct tfo_cookie_req r = {
		.family = p->family, .client = &p->src, .server = &p->dst,
	};

	return w->cookies != NULL &&
	       tfo_cookie_gen_burst(w->cookies, &r, 1, (uint8_t (*)[TFO_COOKIE_LEN])cookie) == 0;
}

void
tfo_syn_summary_set_syn(struct rte_mbuf *m, const struct tfo_pkt *p,
			const struct tfo_tcpopts *o)
{
	struct tfo_syn_summary *s = tfo_syn_summary(m);

	s->mss = o->mss;
	s->wscale = o->wscale;
	s->flags = TFO_SYNSUM_SYN |
		   (o->has_mss ? TFO_SYNSUM_HAS_MSS : 0) |
		   (o->has_wscale ? TFO_SYNSUM_HAS_WS : 0) |
		   (o->sack_ok ? TFO_SYNSUM_SACK : 0) |
		   (o->has_ts ? TFO_SYNSUM_HAS_TS : 0) |
		   (o->malformed ? TFO_SYNSUM_MALFORMED : 0);
	s->form = o->form;
	s->cookie_state = o->cookie_state;
	s->tsval = o->tsval;
	syn_summary_set_pkt(s, p);
}

void
tfo_syn_defence_reply(struct tfo_worker *w, struct rte_mbuf *m,
		      const struct tfo_pkt *p, uint8_t port_idx,
		      const struct tfo_tcpopts *o, bool offer_cookie, uint64_t now_us)
{
	struct tfo_syn_defence *d = &w->syn_def;
	uint8_t cookie[TFO_COOKIE_LEN];
	uint8_t clen = 0;

	if (offer_cookie && syn_defence_tfo_cookie(w, p, cookie)) {
		clen = TFO_COOKIE_LEN;
		w->stats.c[TFO_STAT_syncookies_sent_tfo]++;
	}
	tfo_engine_syncookie_reply_cookie(w->engine, m, p, port_idx, o, o->form, clen,
					  clen != 0 ? cookie : NULL, now_us);
	w->stats.c[TFO_STAT_rx_delivered]++;
	d->issued = true;
	d->last_issued_us = now_us;
}

bool
tfo_syn_defence_ack(struct tfo_worker *w, struct rte_mbuf *m,
		    const struct tfo_pkt *p, uint64_t now_us)
{
	struct tfo_syncookie_ack a;

	if ((p->tcp_flags & (TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_RST)) != TFO_TCP_ACK)
		return false;
	if (tfo_engine_syncookie_ack_check(w->engine, m, p, now_us, &a) != 0) {
		w->stats.c[TFO_STAT_syncookie_ack_bad]++;
		return false;
	}
	w->stats.c[TFO_STAT_syncookie_ack_ok]++;
	tfo_syn_summary_from_ack(tfo_syn_summary(m), &a);
	syn_summary_set_pkt(tfo_syn_summary(m), p);
	return true;
}
