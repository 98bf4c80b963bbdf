/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's hot path, handle(): one message
 * answered per call (dns.c's header says what and why): the TCP framing
 * or the UDP datagram, the query parsed, the cookie judged, the early
 * answers (FORMERR, BADCOOKIE, NOTIFY, NOTIMP, BADVERS, TSIG's NOTAUTH,
 * CHAOS, REFUSED, SERVFAIL), else the prebuilt block or an answer
 * composed, then RRL's verdict, TC, the OPT and its options, the
 * response's fields and the counters. Allocates nothing, takes no lock,
 * makes no system call (clock_gettime is a vDSO read).
 */
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "tfo/service.h"

#include "dns_answer.h"
#include "dns_query.h"
#include "dns_svc.h"
#include "dns_write.h"

/* ------------------------------------------------------------------ */
/* hot path                                                            */

static inline void
dns_count(const struct tfo_svc_ctx *ctx, enum dns_ctr c)
{
	if (ctx->counters != NULL)
		ctx->counters[c]++;
}

static enum dns_ctr
dns_qtype_ctr(uint16_t t)
{
	switch (t) {
	case DNS_T_A: return C_QTYPE_A;
	case DNS_T_AAAA: return C_QTYPE_AAAA;
	case DNS_T_NS: return C_QTYPE_NS;
	case DNS_T_CNAME: return C_QTYPE_CNAME;
	case DNS_T_SOA: return C_QTYPE_SOA;
	case DNS_T_PTR: return C_QTYPE_PTR;
	case DNS_T_MX: return C_QTYPE_MX;
	case DNS_T_TXT: return C_QTYPE_TXT;
	case DNS_T_SRV: return C_QTYPE_SRV;
	case DNS_T_CAA: return C_QTYPE_CAA;
	case DNS_T_ANY: return C_QTYPE_ANY;
	case DNS_T_AXFR: return C_QTYPE_AXFR;
	case DNS_T_IXFR: return C_QTYPE_IXFR;
	default: return C_QTYPE_OTHER;
	}
}

static enum dns_ctr
dns_rcode_ctr(unsigned int rcode)
{
	switch (rcode) {
	case DNS_R_NOERROR: return C_RCODE_NOERROR;
	case DNS_R_FORMERR: return C_RCODE_FORMERR;
	case DNS_R_NXDOMAIN: return C_RCODE_NXDOMAIN;
	case DNS_R_NOTIMP: return C_RCODE_NOTIMP;
	case DNS_R_REFUSED: return C_RCODE_REFUSED;
	case DNS_R_BADVERS: return C_RCODE_BADVERS;
	case DNS_R_NOTAUTH: return C_RCODE_NOTAUTH;
	case DNS_R_BADCOOKIE: return C_RCODE_BADCOOKIE;
	default: return C_RCODE_SERVFAIL;
	}
}

/*
 * The COOKIE option of @p q judged and counted; @p sc: the server cookie
 * to answer with. Sets q->has_valid_server_cookie, which response rate
 * limiting reads. Wall-clock seconds: RFC 9018's timestamps are compared
 * across a fleet (clock_gettime is a vDSO read, no system call).
 */
static enum dns_cookie_verdict
dns_cookie_hook(const struct tfo_svc_ctx *ctx, const struct dns_set *s,
		struct dns_query *q, uint8_t sc[DNS_COOKIE_SERVER])
{
	static const enum dns_ctr ctr[] = {
		[DNS_CK_FORMERR] = C_COOKIE_FORMERR,
		[DNS_CK_CLIENT_ONLY] = C_COOKIE_CLIENT_ONLY,
		[DNS_CK_VALID] = C_COOKIE_VALID,
		[DNS_CK_BAD] = C_COOKIE_BAD,
	};
	enum dns_cookie_verdict v;
	struct timespec ts;

	if (!s->cookie.on)
		return DNS_CK_NONE;
	clock_gettime(CLOCK_REALTIME, &ts);
	v = dns_cookie_check(&s->cookie, q, ctx->src_addr,
			     ctx->family == AF_INET6 ? 16 : 4, (uint32_t)ts.tv_sec, sc);
	q->has_valid_server_cookie = v == DNS_CK_VALID;
	if (v != DNS_CK_NONE)
		dns_count(ctx, ctr[v]);
	return v;
}

/* What a request is answered within. */
struct dns_out {
	struct dns_writer w;
	uint32_t lim;		/* the whole message's largest size */
	uint32_t head;		/* header + question */
	uint16_t an, ns, ar;
	bool tc;
	uint16_t rcode;
	const struct dns_block *zc;	/* sent after buf without a copy */
	bool opt_in_zc;		/* with the plain OPT that follows it */
	int32_t ede;		/* RFC 8914 info code, or -1 */
	uint32_t zc_len;
};

/*
 * Answer from a prebuilt block: without a copy when it is large and the
 * plain OPT that follows it in the blob will do, or when it does not fit
 * the buffer (then a keepalive option or DO echo is dropped: both are
 * optional); copied otherwise; without its additional section, then truncated, when it
 * exceeds the limit.
 */
static void
dns_from_block(struct dns_out *o, const struct dns_block *b, uint32_t opt_len,
	       bool plain_opt)
{
	o->rcode = b->rcode;
	if (o->head + b->len + opt_len <= o->lim) {
		/* XXX: past the buffer the block leaves with its plain OPT, so
		 * a server cookie is left out too (the client keeps its old
		 * one or asks again; runbook "The dns service") */
		if ((b->len >= DNS_ZC_MIN && plain_opt) || o->head + b->len > o->w.cap) {
			o->zc = b;
			o->zc_len = b->len + (opt_len ? DNS_OPT_LEN : 0);
			o->opt_in_zc = opt_len != 0;
		} else {
			memcpy(o->w.buf + o->w.len, b->blob.data, b->len);
			o->w.len += b->len;
		}
		o->an = b->an;
		o->ns = b->ns;
		o->ar = b->ar;
		return;
	}
	/* RFC 2181 9: the additional section may go without TC */
	if (o->head + b->len_noadd + opt_len <= o->lim &&
	    o->head + b->len_noadd <= o->w.cap) {
		memcpy(o->w.buf + o->w.len, b->blob.data, b->len_noadd);
		o->w.len += b->len_noadd;
		o->an = b->an;
		o->ns = b->ns;
		return;
	}
	o->tc = true;
}

/*
 * A TCP message longer than the engine holds (2 + @p mlen > [tcp]
 * max_request): FORMERR, header only, once the header is in, then FIN;
 * the engine discards the rest. Better than the reset the engine would
 * send (req_too_big): the client learns why.
 */
static enum tfo_svc_status
dns_too_long(const struct tfo_svc_ctx *ctx, const uint8_t *req, uint32_t len,
	     struct tfo_svc_resp *resp)
{
	uint8_t *h = resp->buf + 2;

	if (len < 2 + DNS_HDR)
		return TFO_SVC_NEED_MORE;
	if ((req[4] & 0x80) != 0 || resp->buf_cap < DNS_MIN_BUF) {
		dns_count(ctx, C_REJECT);
		return TFO_SVC_REJECT;
	}
	memset(h, 0, DNS_HDR);
	h[0] = req[2];
	h[1] = req[3];
	h[2] = (uint8_t)(0x80 | (req[4] & 0x79));	/* QR, the opcode, RD */
	h[3] = DNS_R_FORMERR;
	resp->buf[0] = 0;
	resp->buf[1] = DNS_HDR;
	resp->buf_len = 2 + DNS_HDR;
	resp->body = NULL;
	resp->body_off = 0;
	resp->body_len = 0;
	resp->consumed = len;
	resp->close = true;
	resp->idle_ms = 0;
	resp->status = DNS_R_FORMERR;
	dns_count(ctx, C_TCP_TOO_LONG);
	dns_count(ctx, C_RCODE_FORMERR);
	return TFO_SVC_RESPOND;
}

/* The CHAOS TXT string for @p q (its lower-case name), or NULL. */
static const char *
dns_chaos_txt(const struct dns_conf *c, const struct dns_query *q)
{
	const char *v = NULL;

	if (q->qtype != DNS_T_TXT)
		return NULL;	/* as knotd: REFUSED */
	if (memcmp(q->lname, "\2id\6server", 11) == 0 ||
	    memcmp(q->lname, "\10hostname\4bind", 15) == 0)
		v = c->identity;
	else if (memcmp(q->lname, "\7version\6server", 16) == 0 ||
		 memcmp(q->lname, "\7version\4bind", 14) == 0)
		v = c->version;
	return v != NULL && v[0] != '\0' ? v : NULL;
}

/* One TXT in class CH, TTL 0, owned by the question (a pointer to it). */
static void
dns_chaos_answer(struct dns_out *o, const char *txt)
{
	size_t n = strlen(txt);
	uint8_t rr[12] = { 0xc0, DNS_HDR, 0, DNS_T_TXT, 0, DNS_CLASS_CH, 0, 0, 0, 0,
			   0, (uint8_t)(n + 1) };
	uint8_t l = (uint8_t)n;

	if (o->w.len + sizeof(rr) + 1 + n > o->w.cap) {
		o->tc = true;
		return;
	}
	memcpy(o->w.buf + o->w.len, rr, sizeof(rr));
	memcpy(o->w.buf + o->w.len + sizeof(rr), &l, 1);
	memcpy(o->w.buf + o->w.len + sizeof(rr) + 1, txt, n);
	o->w.len += (uint32_t)(sizeof(rr) + 1 + n);
	o->an = 1;
}

/* The answer's RRL class, from what was written (before any TC). */
static enum dns_rrl_class
dns_rrl_class_of(const struct dns_out *o)
{
	if (o->rcode == DNS_R_NXDOMAIN)
		return DNS_RRL_NXDOMAIN;
	if (o->rcode != DNS_R_NOERROR)
		return DNS_RRL_ERROR;
	if (o->an != 0 || o->tc)
		return DNS_RRL_ANSWER;
	/* no answer: AA says NODATA, its absence a delegation */
	return (o->w.buf[2] & 0x04) != 0 ? DNS_RRL_NODATA : DNS_RRL_REFERRAL;
}

/*
 * RRL's verdict on a UDP answer (dns_rrl.h): the calling lcore's table,
 * the TSC as its clock. An lcore without a table (not an EAL lcore) is
 * not limited.
 */
static enum dns_rrl_verdict
dns_rrl_judge(const struct dns_svc *sv, const struct tfo_svc_ctx *ctx,
	      const struct dns_out *o)
{
	unsigned int lc = rte_lcore_id();
	struct dns_rrl_table *t;
	enum dns_rrl_verdict v;
	uint64_t ev;

	if (unlikely(lc >= RTE_MAX_LCORE || sv->rrl[lc] == NULL))
		return DNS_RRL_PASS;
	if (unlikely(sv->conf.rrl.nb_exempt != 0) &&
	    dns_rrl_exempt(&sv->conf.rrl, ctx->family, ctx->src_addr)) {
		dns_count(ctx, C_RRL_EXEMPT);
		return DNS_RRL_PASS;
	}
	t = sv->rrl[lc];
	ev = t->evicted;
	v = dns_rrl_check(t, ctx->family, ctx->src_addr, dns_rrl_class_of(o), rte_rdtsc());
	if (unlikely(t->evicted != ev))
		dns_count(ctx, C_RRL_EVICTED);
	if (v != DNS_RRL_PASS) {
		dns_count(ctx, C_RRL_LIMITED);
		dns_count(ctx, v == DNS_RRL_SLIP ? C_RRL_SLIPPED : C_RRL_DROPPED);
	}
	return v;
}

/* One request being answered: what handle()'s steps share. */
struct dns_req {
	const struct dns_svc *sv;
	const struct dns_set *s;	/* one set for the whole query */
	const struct tfo_svc_ctx *ctx;
	bool tcp;
	uint32_t pre;		/* TCP's length prefix: 2, else 0 */
	uint32_t mlen;		/* the message's length */
	uint32_t opt_len;	/* our OPT's size, 0: no EDNS */
	uint32_t nsid_res;	/* room kept for our NSID, 0: none */
	enum dns_cookie_verdict cv;
	uint8_t sc[DNS_COOKIE_SERVER];	/* the server cookie to answer with */
	const char *chaos;	/* the CHAOS TXT to answer, or NULL */
	bool notify;		/* a NOTIFY answered */
	bool slipped;		/* RRL slipped it: TC=1, not counted truncated */
	struct dns_query q;
	struct dns_out o;
};

/* The writer, the limits and the cookie's verdict for @p r's query. */
static void
dns_req_init(struct dns_req *r, const struct tfo_svc_resp *resp)
{
	const struct dns_query *q = &r->q;
	struct dns_out *o = &r->o;

	/* room for our NSID only when it will be sent */
	r->nsid_res = 0;
	if (q->edns && q->nsid && r->sv->conf.nsid_len != 0)
		r->nsid_res = 4u + r->sv->conf.nsid_len;
	dns_w_init(&o->w, resp->buf + r->pre,
		   resp->buf_cap - r->pre - DNS_OPT_RESERVE - r->nsid_res);
	o->an = o->ns = o->ar = 0;
	o->tc = false;
	o->zc = NULL;
	o->opt_in_zc = false;
	o->ede = -1;
	o->rcode = DNS_R_NOERROR;
	if (r->tcp) {
		o->lim = DNS_MSG_MAX;
	} else {
		o->lim = q->edns ? RTE_MIN(RTE_MAX(q->payload, 512u), r->s->edns_size) : 512u;
		if (r->ctx->udp_max != 0)
			o->lim = RTE_MIN(o->lim, r->ctx->udp_max);
	}
	r->cv = DNS_CK_NONE;
	if (unlikely(q->cookie != NULL) && q->edns)
		r->cv = dns_cookie_hook(r->ctx, r->s, &r->q, r->sc);
	r->opt_len = 0;
	if (q->edns)
		r->opt_len = DNS_OPT_LEN + (r->tcp && q->keepalive ? 6 : 0) +
			     (r->cv >= DNS_CK_CLIENT_ONLY ? DNS_COOKIE_OPT_LEN : 0);
	r->chaos = NULL;
	r->notify = false;
	r->slipped = false;
}

/* The answers decided before any zone is read: o.rcode, notify, chaos. */
static void
dns_early(struct dns_req *r, enum dns_qerr qe)
{
	const struct dns_svc *sv = r->sv;
	const struct dns_query *q = &r->q;
	struct dns_out *o = &r->o;

	if (qe == DNS_Q_FORMERR || r->cv == DNS_CK_FORMERR) {
		o->rcode = DNS_R_FORMERR;
	} else if (r->cv == DNS_CK_BAD && !r->tcp) {
		/* as knotd: the client retries with the fresh cookie */
		o->rcode = DNS_R_BADCOOKIE;
	} else if (qe == DNS_Q_NOTIMP && q->opcode == DNS_OP_NOTIFY && q->has_q) {
		/* RFC 1996 3.7: NOERROR with AA from a secondary zone's primary,
		 * and the refresh thread asks it for the new version */
		r->notify = true;
		if (sv->sec != NULL && q->qclass == DNS_CLASS_IN && q->qtype == DNS_T_SOA &&
		    dns_secondary_notify(sv->sec, q->lname, r->ctx->family, r->ctx->src_addr)) {
			dns_count(r->ctx, C_XFR_NOTIFY);
		} else {
			o->rcode = DNS_R_REFUSED;
			dns_count(r->ctx, C_XFR_NOTIFY_REFUSED);
		}
	} else if (qe == DNS_Q_NOTIMP) {
		o->rcode = DNS_R_NOTIMP;
	} else if (q->edns && q->edns_version > 0) {
		o->rcode = DNS_R_BADVERS;	/* RFC 6891 6.1.3 */
	} else if (q->tsig_key != NULL) {
		o->rcode = DNS_R_NOTAUTH;	/* RFC 8945 5.2: BADKEY */
	} else if (q->qclass == DNS_CLASS_CH) {
		r->chaos = dns_chaos_txt(&sv->conf, q);
		if (r->chaos == NULL)
			o->rcode = DNS_R_REFUSED;
	} else if (q->qclass != DNS_CLASS_IN || q->qtype == DNS_T_AXFR ||
		   q->qtype == DNS_T_IXFR) {
		o->rcode = DNS_R_REFUSED;
	} else if (unlikely(sv->sec != NULL) && dns_secondary_down(sv->sec, q->lname)) {
		o->rcode = DNS_R_SERVFAIL;	/* RFC 1034 4.3.5: not loaded, expired */
	}
}

/* An answer composed per request after the question: what does not fit
 * loses its additional section, else is a SERVFAIL over TCP, a TC=1 over
 * UDP. */
static void
dns_composed(struct dns_req *r, int zone)
{
	struct dns_out *o = &r->o;
	struct dns_sections sec;

	dns_compose(&o->w, r->s, r->q.lname, r->q.qtype, r->q.edns && r->q.edns_do, &sec);
	o->rcode = sec.rcode;
	/* as Knot DNS: say why (RFC 8914 4.21) */
	if (zone < 0)
		o->ede = DNS_EDE_NOT_AUTH;
	o->w.buf[2] = (uint8_t)((o->w.buf[2] & ~0x04) | (sec.aa ? 0x04 : 0));
	o->an = sec.an;
	o->ns = sec.ns;
	o->ar = sec.ar;
	if (o->w.overflow || o->w.len + r->opt_len > o->lim) {
		if (!o->w.overflow && sec.add_off + r->opt_len <= o->lim) {
			o->w.len = sec.add_off;
			o->ar = 0;
		} else if (r->tcp) {
			o->rcode = DNS_R_SERVFAIL;
			o->an = o->ns = o->ar = 0;
			o->w.len = o->head;
		} else {
			o->tc = true;
		}
		o->w.overflow = false;
	}
}

/* The header, the question and the sections from the zones: the
 * prebuilt block, or an answer composed. */
static void
dns_from_zones(struct dns_req *r)
{
	const struct dns_query *q = &r->q;
	struct dns_out *o = &r->o;
	int zone = dns_set_zone_for(r->s, q->lname, q->qtype);
	const struct dns_block *b = NULL;
	bool signed_zone = false;
	struct dns_lookup lk;

	if (zone >= 0) {
		dns_set_lookup(r->s, zone, q->lname, q->qtype, &lk);
		b = dns_set_block(r->s, &lk, q->qtype, q->edns && q->edns_do);
		signed_zone = r->s->zones[zone].sec != 0;
	}
	dns_w_head(&o->w, q, 0, b != NULL ? b->aa : true);
	o->head = o->w.len;
	if (b != NULL)
		/* the block's OPT has DO set when it is a DO=1 one */
		dns_from_block(o, b, r->opt_len, (!q->edns_do || signed_zone) &&
			       r->opt_len <= DNS_OPT_LEN && r->nsid_res == 0);
	else
		dns_composed(r, zone);
	o->w.buf[3] = (uint8_t)((o->w.buf[3] & 0xf0) | (o->rcode & 0x0f));
}

/* The message up to its OPT: an early answer's header and question, a
 * CHAOS TXT, or the zones' answer. */
static void
dns_body(struct dns_req *r)
{
	struct dns_out *o = &r->o;

	if (o->rcode != DNS_R_NOERROR || r->notify) {
		dns_w_head(&o->w, &r->q, (uint8_t)o->rcode, r->notify && o->rcode == DNS_R_NOERROR);
		o->head = o->w.len;
	} else if (r->chaos != NULL) {
		dns_w_head(&o->w, &r->q, 0, true);
		o->head = o->w.len;
		dns_chaos_answer(o, r->chaos);
		if (o->w.len + r->opt_len > o->lim)
			o->tc = true;
		else
			dns_count(r->ctx, C_CHAOS);
	} else {
		dns_from_zones(r);
	}
}

/* RRL over UDP: @return true when the answer is dropped; a slip leaves
 * the header, the question and the OPT with TC=1, as Knot does. */
static bool
dns_rrl_apply(struct dns_req *r)
{
	enum dns_rrl_verdict v = dns_rrl_judge(r->sv, r->ctx, &r->o);

	if (v == DNS_RRL_DROP)
		return true;	/* UDP: dropped, no answer */
	if (v == DNS_RRL_SLIP) {
		r->slipped = true;
		r->o.tc = true;
		r->o.zc = NULL;
		r->o.opt_in_zc = false;
		r->o.ede = -1;
	}
	return false;
}

/* TC=1 (sections dropped), then the OPT with its keepalive, EDE, NSID and
 * cookie, unless the zero-copy block carries the plain one. */
static void
dns_put_opt(struct dns_req *r)
{
	const struct dns_svc *sv = r->sv;
	const struct dns_query *q = &r->q;
	struct dns_out *o = &r->o;
	uint32_t opt;

	if (o->tc) {
		if (!r->slipped)
			dns_count(r->ctx, C_TRUNCATED);
		o->w.buf[2] |= 0x02;
		o->an = o->ns = o->ar = 0;
		o->w.len = o->head;
	}
	if (!q->edns)
		return;
	o->ar++;
	if (o->opt_in_zc)
		return;
	opt = o->w.len;
	o->w.cap += DNS_OPT_RESERVE;
	dns_w_opt(&o->w, r->s->edns_size, (uint8_t)(o->rcode >> 4), q->edns_do,
		  r->tcp && q->keepalive ? (int32_t)RTE_MIN(sv->idle_ms / 100, 65535u) : -1,
		  o->ede);
	/* optional (RFC 5001 2.3): never the cause of a TC */
	if (r->nsid_res != 0 && o->w.len + r->nsid_res <= o->lim) {
		o->w.cap += r->nsid_res;
		dns_w_opt_add(&o->w, opt, DNS_OPT_NSID, sv->conf.nsid, sv->conf.nsid_len);
		dns_count(r->ctx, C_NSID);
	}
	if (r->cv >= DNS_CK_CLIENT_ONLY)
		dns_cookie_put(&o->w, opt, q->cookie, r->sc);
}

/* NOTAUTH's unsigned TSIG of error BADKEY, last: TC when too long. */
static void
dns_put_tsig(struct dns_req *r, const struct tfo_svc_resp *resp)
{
	struct dns_out *o = &r->o;
	uint32_t at = o->w.len;

	/* the whole buffer: nothing else follows */
	o->w.cap = resp->buf_cap - r->pre;
	dns_w_tsig_error(&o->w, &r->q, DNS_TSIG_BADKEY);
	if (o->w.overflow || o->w.len > o->lim) {
		/* too long for the client: TC, it retries over TCP */
		o->w.overflow = false;
		o->w.len = at;
		o->w.buf[2] |= 0x02;
		dns_count(r->ctx, C_TRUNCATED);
	} else {
		o->ar++;
	}
	dns_count(r->ctx, C_TSIG_BADKEY);
}

/* The response's fields from @p r's message (@p len: the request's). */
static enum tfo_svc_status
dns_respond(struct dns_req *r, struct tfo_svc_resp *resp, uint32_t len)
{
	struct dns_out *o = &r->o;

	dns_w_counts(&o->w, o->an, o->ns, o->ar);
	resp->buf_len = r->pre + o->w.len;
	resp->body = NULL;
	resp->body_off = 0;
	resp->body_len = 0;
	if (o->zc != NULL) {
		resp->body = &o->zc->blob;
		resp->body_len = o->zc_len;
		dns_count(r->ctx, C_ZERO_COPY);
	}
	if (r->tcp) {
		uint32_t total = o->w.len + resp->body_len;

		resp->buf[0] = (uint8_t)(total >> 8);
		resp->buf[1] = (uint8_t)total;
		resp->consumed = 2 + r->mlen;
		resp->idle_ms = r->sv->idle_ms;
	} else {
		resp->consumed = len;
		resp->idle_ms = 0;
	}
	resp->close = false;
	resp->status = o->rcode;
	dns_count(r->ctx, dns_rcode_ctr(o->rcode));
	return TFO_SVC_RESPOND;
}

enum tfo_svc_status
dns_handle(const void *state, const struct tfo_svc_ctx *ctx, const uint8_t *req,
	   uint32_t len, struct tfo_svc_resp *resp)
{
	const struct dns_svc *sv = state;
	const uint8_t *m = req;
	struct dns_req r;
	enum dns_qerr qe;

	r.sv = sv;
	r.ctx = ctx;
	/* one zone set for the whole query, even if a reload publishes another */
	r.s = __atomic_load_n(&sv->cur, __ATOMIC_ACQUIRE);
	r.tcp = ctx->transport != TFO_SVC_UDP;
	r.pre = r.tcp ? 2 : 0;
	if (r.tcp) {
		if (len < 2)
			return TFO_SVC_NEED_MORE;
		r.mlen = ((uint32_t)req[0] << 8) | req[1];
		if (unlikely(sv->max_request != 0 && 2 + r.mlen > sv->max_request))
			return dns_too_long(ctx, req, len, resp);
		if (len < 2 + r.mlen)
			return TFO_SVC_NEED_MORE;
		m = req + 2;
	} else {
		r.mlen = len;
	}
	qe = dns_query_parse(m, r.mlen, &r.q);
	if (unlikely(qe == DNS_Q_SHORT || qe == DNS_Q_RESPONSE ||
		     resp->buf_cap < DNS_MIN_BUF)) {
		dns_count(ctx, C_REJECT);
		return TFO_SVC_REJECT;
	}
	if (unlikely(sv->sec != NULL) && ctx->counters != NULL)
		dns_secondary_fold(sv->sec, ctx->counters + C_XFR_FIRST);
	dns_req_init(&r, resp);
	if (r.q.has_q)
		dns_count(ctx, dns_qtype_ctr(r.q.qtype));
	dns_early(&r, qe);
	dns_body(&r);
	/* TCP needs a handshake (no spoofed source) and a valid server
	 * cookie proves the source too (RFC 7873): neither is limited */
	if (!r.tcp && sv->conf.rrl.rate != 0 && !r.q.has_valid_server_cookie &&
	    dns_rrl_apply(&r))
		return TFO_SVC_REJECT;
	dns_put_opt(&r);
	if (r.o.rcode == DNS_R_NOTAUTH)
		dns_put_tsig(&r, resp);
	return dns_respond(&r, resp, len);
}
