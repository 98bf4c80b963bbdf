/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: opening connections: a SYN (plain or TFO), SYN cookies
 * (reply and ACK), and segments of no connection.
 */
#include "tcp/engine_priv.h"

/* The tuple's SipHash-2-4 under the engine's secret: the RFC 6528 ISN
 * function F (low 32 bits) and the RFC 7323 TSval offset (high 32 bits).
 * The key is whole words: tfo_siphash()'s value without its byte loop.
 * Out of line: inlined, its twelve rounds' registers cost the opening
 * path more spills than the call (callgrind). */
static __rte_noinline uint64_t
conn_secret_hash(const struct tfo_engine *e, const struct tfo_conn_key *k)
{
	uint64_t w[sizeof(*k) / 8];

	RTE_BUILD_BUG_ON(sizeof(*k) % 8 != 0);
	memcpy(w, k, sizeof(w));
	for (unsigned int i = 0; i < RTE_DIM(w); i++)
		w[i] = rte_le_to_cpu_64(w[i]);
	return tfo_siphash24_words(&e->isn_key, w, RTE_DIM(w));
}

void
tfo_engine_conn_hash_burst(const struct tfo_engine *e,
			   const struct tfo_pkt *const *p, unsigned int n,
			   uint64_t *out)
{
	enum { WORDS = sizeof(struct tfo_conn_key) / 8, STRIDE = TFO_TX_BUF };
	uint64_t m[WORDS * STRIDE];
	unsigned int i, pad = RTE_ALIGN_CEIL(n, 8u);

	RTE_BUILD_BUG_ON(STRIDE % TFO_SIPHASH_LANE_PAD != 0);
	RTE_ASSERT(n <= STRIDE);
	for (i = 0; i < n; i++) {
		struct tfo_conn_key k;
		uint64_t w[WORDS];

		tfo_conn_key_from_pkt(&k, p[i]);
		memcpy(w, &k, sizeof(w));
		for (unsigned int j = 0; j < WORDS; j++)
			m[j * STRIDE + i] = rte_le_to_cpu_64(w[j]);
	}
	/* a vector kernel computes its idle lanes too: on defined words */
	for (; i < pad; i++)
		for (unsigned int j = 0; j < WORDS; j++)
			m[j * STRIDE + i] = 0;
	/* for 1 or 2 tuples the scalar kernel is cheaper (as cookie.c) */
	tfo_siphash_lanes(n < 3 ? TFO_SIMD_SCALAR : e->isn_simd, &e->isn_key,
			  m, WORDS, STRIDE, n, out);
}

/* ---- opening ----------------------------------------------------------- */

/* Fields every new entry needs, from the frame that created it. */
static void
conn_init(struct tfo_engine *e, struct tfo_conn *c, const struct rte_mbuf *m,
	  const struct tfo_pkt *p, uint8_t port_idx, unsigned int svc,
	  uint16_t peer_mss, enum tfo_conn_state state)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	uint16_t ours = p->family == AF_INET ? e->mss4[port_idx] : e->mss6[port_idx];

	/* no tfo_timer_init(): the wheel starts every node unarmed and
	 * tfo_tcp_conn_release() cancels it before an entry is freed */
	c->state = (uint8_t)state;
	e->nstate[state]++;
	tfo_stats_inc(e->st, TFO_STAT_conns_active);
	c->tkind = TFO_CT_NONE;
	c->flags = p->has_vlan ? TFO_CF_VLAN : 0;
	c->flags2 = 0;
	c->mss = RTE_MAX(RTE_MIN(peer_mss, ours), (uint16_t)TFO_MIN_MSS);
	c->req_len = 0;
	req_begin(e, c);
	c->sbuf = TFO_CONN_NONE;
	c->rbuf = TFO_CONN_NONE;
	c->ts_recent = 0;
	c->peer_ws = 0;
	c->retries = 0;
	c->dupacks = 0;
	c->srtt8 = 0;
	c->rttvar4 = 0;
	c->port_idx = port_idx;
	c->peer_mac = eh->src_addr;
	c->vlan_tci = p->vlan_tci;
	c->adv_wnd = 0;
	c->svc = (uint8_t)svc;
	c->ssthresh = TFO_CWND_MAX;
}

/* What a SYN tells of the peer (options, ISN, window) and our ISN. */
static void
syn_conn(struct tfo_engine *e, struct tfo_conn *c, const struct tfo_pkt *p,
	 const struct tfo_tcpopts *o, uint64_t h, uint64_t now_us)
{
	if (o->has_ts) {
		c->flags |= TFO_CF_PEER_TS;
		c->ts_recent = o->tsval;
	}
	if (o->has_wscale) {
		c->flags |= TFO_CF_PEER_WS;
		c->peer_ws = o->wscale;
	}
	if (o->sack_ok)
		c->flags |= TFO_CF_PEER_SACK;
	if (o->form != TFO_FORM_NONE)
		c->flags |= TFO_CF_SYN_TFO_OPT;
	/* RFC 6528: F(tuple, secret) (@p h) + a 4 us clock */
	c->snd_una = (uint32_t)h + (uint32_t)(now_us >> 2);
	c->snd_nxt = c->snd_una;
	c->snd_max = c->snd_una;
	c->recover = c->snd_una;
	c->ts_off = (uint32_t)(h >> 32);
	c->rcv_nxt = p->seq + 1;
	c->wl1 = p->seq;	/* the peer's ISN while in SYN_RCVD */
	c->snd_wnd = p->window;	/* a SYN's window is never scaled */
	c->cwnd = iw_bytes(seg_max(c));
	c->flags |= TFO_CF_RTT_TIMING;
	c->rtt_seq = c->snd_una;
	c->rtt_start = now_ms(e);
	if (e->lat != NULL) {	/* syn_to_response starts (tcp/latency.h) */
		c->recover = (uint32_t)(e->lat->t_rx >> TFO_LAT_STAMP_SHIFT);
		c->flags2 |= TFO_CF2_SYN_STAMP;
	}
}

/* A TFO SYN accepted with its data: pending until the handshake ACK, and
 * its bytes to the service. @return the bytes accepted, or TFO_TCP_CONN_GONE. */
static int
fastopen_data(struct tfo_engine *e, struct tfo_conn *c, struct rte_mbuf *m,
	     const struct tfo_pkt *p, uint64_t src)
{
	int acc = 0;

	c->flags |= TFO_CF_TFO;
	tfo_tcp_pending_add(e, c, src);
	tfo_tcp_stat_inc(e, TFO_STAT_TCPFastOpenPassive);
	tfo_tcp_stat_inc(e, TFO_STAT_conns_opened_tfo);
	if (p->payload_len > 0) {
		acc = tfo_tcp_deliver(e, c, m, p->payload_off, p->payload_len, true);
		if (acc == TFO_TCP_CONN_GONE)
			return TFO_TCP_CONN_GONE;
		c->rcv_nxt += (uint32_t)acc;
	}
	return acc;
}

int
tfo_engine_open(struct tfo_engine *e, struct rte_mbuf *m,
		const struct tfo_pkt *p, uint8_t port_idx,
		const struct tfo_open_params *op, uint64_t now_us)
{
	const struct tfo_tcpopts *o = op->opts;
	struct tfo_conn *c, *exists;
	struct tfo_conn_key key;
	unsigned int svc;
	int acc = 0, rc;
	uint64_t src = 0;

	engine_clock(e, now_us);
	if (unlikely((p->tcp_flags & (TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_RST |
				      TFO_TCP_FIN)) != TFO_TCP_SYN)) {
		tfo_tcp_stat_inc(e, TFO_STAT_drop_syn_bad);
		rte_pktmbuf_free(m);
		return 0;
	}
	if (find_service(e, p->dport, &svc) == NULL) {
		tfo_tcp_stat_inc(e, TFO_STAT_svc_no_service);
		return -ENOENT;
	}
	if (op->accept_data) {
		/* once: admission and the pending entry count the same source */
		src = tfo_tcp_src_key(&p->src, p->family);
		rc = op->admitted ? 0 : tfo_tcp_pending_admit(e, src);
		if (rc != 0)	/* counted by the admission */
			return rc;
	}
	tfo_conn_key_from_pkt(&key, p);
	c = tfo_tcp_conn_new(e, &key, &exists, &rc);
	if (c == NULL && exists != NULL) {
		/* the same tuple twice in one burst: a duplicate (or a reuse) */
		if (tfo_engine_input(e, exists, m, p, now_us) !=
		    TFO_INPUT_REOPEN)
			return 0;
		c = tfo_tcp_conn_new(e, &key, &exists, &rc);
	}
	if (c == NULL) {
		if (rc == -ENOSPC)
			tfo_tcp_stat_inc(e, TFO_STAT_conn_pool_full);
		return rc;
	}
	conn_init(e, c, m, p, port_idx, svc,
		  o->has_mss ? o->mss : (p->family == AF_INET ? TFO_DEFAULT_MSS_V4 :
					 TFO_DEFAULT_MSS_V6), TFO_CONN_SYN_RCVD);
	syn_conn(e, c, p, o, op->has_conn_hash ? op->conn_hash :
			     conn_secret_hash(e, &c->key), now_us);
	if (op->accept_data) {
		acc = fastopen_data(e, c, m, p, src);
		if (acc == TFO_TCP_CONN_GONE) {
			rte_pktmbuf_free(m);
			return 0;
		}
	} else {
		tfo_tcp_stat_inc(e, TFO_STAT_conns_opened_plain);
	}
	if ((uint32_t)acc < p->payload_len)
		tfo_tcp_stat_inc(e, TFO_STAT_syn_data_dropped);
	release_input(e, m);
	/* data in a SYN-ACK only for a SYN with a TFO option: a plain
	 * client (cookie-less mode) drops it; it gets the response right
	 * behind instead */
	tfo_tcp_send_synack(e, c, op->accept_data && o->form != TFO_FORM_NONE,
			    op->cookie_form, op->cookie_len, op->cookie);
	if (c->snd_nxt == c->snd_una)
		c->snd_nxt = c->snd_max = c->snd_una + 1;	/* SYN-ACK not sent: the RTO resends it */
	tfo_tcp_output(e, c);
	tfo_tcp_update_timer(e, c);
	tfo_tcp_spare_free(e);
	return 0;
}



/* ---- SYN cookies and unknown segments ---------------------------------- */

void
tfo_engine_syncookie_reply_cookie(struct tfo_engine *e, struct rte_mbuf *m,
				  const struct tfo_pkt *p, uint8_t port_idx,
				  const struct tfo_tcpopts *o, uint8_t cookie_form,
				  uint8_t cookie_len, const uint8_t *cookie,
				  uint64_t now_us)
{
	struct tfo_syncookie_info info;
	uint8_t opts[TFO_TCPOPT_MAX_LEN];
	struct tfo_synack_opts so;
	struct tfo_conn_key key;
	struct tfo_tcp_out t;
	struct tfo_route r;
	uint32_t tv;

	engine_clock(e, now_us);
	if ((p->tcp_flags & (TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_RST |
			     TFO_TCP_FIN)) != TFO_TCP_SYN) {
		tfo_tcp_stat_inc(e, TFO_STAT_drop_syn_bad);
		rte_pktmbuf_free(m);
		return;
	}
	tfo_conn_key_from_pkt(&key, p);
	info.mss = o->has_mss ? o->mss : (p->family == AF_INET ?
					  TFO_DEFAULT_MSS_V4 : TFO_DEFAULT_MSS_V6);
	/* XXX without timestamps nothing carries WS/SACK: offer neither (Linux);
	 * such a connection recovers with NewReno and an unscaled window */
	info.wscale = o->has_ts && o->has_wscale ? o->wscale : TFO_WSCALE_NONE;
	info.sack_ok = o->has_ts && o->sack_ok;
	tv = now_ms(e) + (uint32_t)(conn_secret_hash(e, &key) >> 32);

	memset(&so, 0, sizeof(so));
	so.mss = p->family == AF_INET ? e->mss4[port_idx] : e->mss6[port_idx];
	so.wscale = e->our_ws;
	so.peer_wscale = info.wscale != TFO_WSCALE_NONE;
	so.sack_ok = info.sack_ok;	/* kept in the TSval bits */
	so.ts = o->has_ts;
	so.tsecr = o->tsval;
	/* a fresh TFO cookie rides along (cookie request, bad cookie): the
	 * client's next SYN is a fast-path one */
	so.form = cookie_len > 0 ? cookie_form : TFO_FORM_NONE;
	so.cookie_len = so.form != TFO_FORM_NONE ? cookie_len : 0;
	so.cookie = cookie;
	memset(&t, 0, sizeof(t));
	t.seq = tfo_syncookie_make(&e->sc_secret, p, (uint32_t)(now_us / 1000000),
				   &info, o->has_ts, &tv);
	so.tsval = tv;
	t.opt_len = (uint8_t)tfo_tcpopt_write_synack(opts, &so);
	t.opts = opts;
	t.sport = p->dport;
	t.dport = p->sport;
	/* XXX stateless, so the SYN's data (a bad cookie's request) is not
	 * acked and the client re-sends it after the handshake, and a lost
	 * SYN-ACK is not retransmitted: the client's SYN retransmission
	 * recovers it (RFC 4987) */
	t.ack = p->seq + 1;
	t.window = (uint16_t)RTE_MIN(e->rcv_wnd_max, 65535u);
	t.flags = TFO_TCP_SYN | TFO_TCP_ACK;
	tfo_route_from_pkt(&r, m, p, port_idx);
	release_input(e, m);
	m = tfo_tcp_out_mbuf(e, 0);
	if (m != NULL && tfo_tcp_push_frame(e, m, port_idx, &r, &t) == 0)
		tfo_tcp_stat_inc(e, TFO_STAT_syncookies_sent);
	tfo_tcp_spare_free(e);
}

void
tfo_engine_syncookie_reply(struct tfo_engine *e, struct rte_mbuf *m,
			   const struct tfo_pkt *p, uint8_t port_idx,
			   const struct tfo_tcpopts *o, uint64_t now_us)
{
	tfo_engine_syncookie_reply_cookie(e, m, p, port_idx, o, TFO_FORM_NONE, 0,
					  NULL, now_us);
}

/* A valid SYN-cookie ACK: the connection, ESTABLISHED. */
static struct tfo_conn *
syncookie_conn(struct tfo_engine *e, const struct rte_mbuf *m,
	       const struct tfo_pkt *p, uint8_t port_idx,
	       const struct tfo_syncookie_info *info, bool has_ts, uint32_t tv)
{
	struct tfo_conn *c, *exists;
	struct tfo_conn_key key;
	unsigned int svc;
	int rc;

	if (find_service(e, p->dport, &svc) == NULL) {
		tfo_tcp_stat_inc(e, TFO_STAT_svc_no_service);
		return NULL;
	}
	tfo_conn_key_from_pkt(&key, p);
	c = tfo_tcp_conn_new(e, &key, &exists, &rc);
	if (c == NULL) {
		if (rc == -ENOSPC)
			tfo_tcp_stat_inc(e, TFO_STAT_conn_pool_full);
		return NULL;
	}
	conn_init(e, c, m, p, port_idx, svc, info->mss, TFO_CONN_ESTABLISHED);
	c->flags |= TFO_CF_SYNCOOKIE;
	if (info->wscale != TFO_WSCALE_NONE) {
		c->flags |= TFO_CF_PEER_WS;
		c->peer_ws = RTE_MIN(info->wscale, (uint8_t)TFO_WSCALE_MAX);
	}
	if (info->sack_ok)
		c->flags |= TFO_CF_PEER_SACK;
	if (has_ts) {
		c->flags |= TFO_CF_PEER_TS;
		c->ts_recent = tv;
	}
	c->ts_off = (uint32_t)(conn_secret_hash(e, &key) >> 32);
	c->snd_una = p->ack;
	c->snd_nxt = p->ack;
	c->snd_max = p->ack;
	c->recover = p->ack;
	c->rcv_nxt = p->seq;
	c->wl1 = p->seq;
	c->snd_wnd = (uint32_t)p->window << c->peer_ws;
	c->cwnd = iw_bytes(seg_max(c));
	tfo_tcp_stat_inc(e, TFO_STAT_conns_opened_syncookie);
	return c;
}

int
tfo_engine_syncookie_ack_check(struct tfo_engine *e, const struct rte_mbuf *m,
			       const struct tfo_pkt *p, uint64_t now_us,
			       struct tfo_syncookie_ack *a)
{
	uint32_t te = 0;

	if ((p->tcp_flags & (TFO_TCP_SYN | TFO_TCP_ACK | TFO_TCP_RST)) != TFO_TCP_ACK)
		return -EINVAL;
	a->tsval = 0;
	a->has_ts = seg_ts(m, p, &a->tsval, &te);
	return tfo_syncookie_check(&e->sc_secret, p, (uint32_t)(now_us / 1000000),
				   a->has_ts, te, &a->info);
}

int
tfo_engine_syncookie_open(struct tfo_engine *e, struct rte_mbuf *m,
			  const struct tfo_pkt *p, uint8_t port_idx,
			  const struct tfo_syncookie_ack *a, uint64_t now_us)
{
	struct tfo_conn *c;

	engine_clock(e, now_us);
	c = syncookie_conn(e, m, p, port_idx, &a->info, a->has_ts, a->tsval);
	if (c == NULL) {
		tfo_tcp_send_rst_nomatch(e, m, p, port_idx);
		tfo_tcp_spare_free(e);
		return -ENOSPC;
	}
	tfo_tcp_conn_input(e, c, m, p);
	tfo_tcp_spare_free(e);
	return 0;
}

bool
tfo_engine_syncookie_supersedes(struct tfo_engine *e, struct tfo_conn *c,
				const struct tfo_pkt *p)
{
	/* our SYN-ACK's ISN is snd_una in SYN_RCVD: its ACK is snd_una + 1
	 * (or more, with the SYN-ACK's data) */
	if (c->state != TFO_CONN_SYN_RCVD ||
	    (tfo_seq_gt(p->ack, c->snd_una) && tfo_seq_le(p->ack, c->snd_max)))
		return false;
	tfo_tcp_conn_free(e, c, TFO_STAT_conns_closed_syncookie_won);
	return true;
}

void
tfo_engine_input_nomatch(struct tfo_engine *e, struct rte_mbuf *m,
			 const struct tfo_pkt *p, uint8_t port_idx,
			 uint64_t now_us)
{
	uint8_t fl = p->tcp_flags;

	engine_clock(e, now_us);
	if (fl & TFO_TCP_RST) {
		tfo_tcp_stat_inc(e, TFO_STAT_drop_rst_ignored);	/* never answer a RST */
		rte_pktmbuf_free(m);
		return;
	}
	if (e->p.syncookies && (fl & (TFO_TCP_SYN | TFO_TCP_ACK)) == TFO_TCP_ACK) {
		struct tfo_syncookie_ack a;

		if (tfo_engine_syncookie_ack_check(e, m, p, now_us, &a) == 0) {
			tfo_tcp_stat_inc(e, TFO_STAT_syncookies_ok);
			tfo_engine_syncookie_open(e, m, p, port_idx, &a, now_us);
			return;
		}
		tfo_tcp_stat_inc(e, TFO_STAT_syncookies_bad);
	}
	tfo_tcp_send_rst_nomatch(e, m, p, port_idx);
	tfo_tcp_spare_free(e);
}
