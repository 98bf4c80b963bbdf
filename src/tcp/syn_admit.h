/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: SYN admission, one verdict for the worker and the control
 * lcores.
 *
 * Every question a new SYN raises (draining? TFO on? which TFO option? the
 * pending-TFO limits, the cookie, the open's outcome, SYN cookies due?) is
 * answered here, in one flat function, as Linux's tcp_try_fastopen
 * (net/ipv4/tcp_fastopen.c) answers them for a listener. The function is
 * pure: its inputs are the facts in struct tfo_syn_facts, filled by the
 * lcore that asks, and it touches nothing. Facts that cost something to
 * learn (the pending-TFO counts, the listener and the SYN-cookie pressure,
 * the batched cookie check, the open itself) are looked up only when the
 * verdict asks for them: a NEED_* or CHECK_COOKIE verdict says which; the
 * caller fills it in and asks again. Each final verdict names at most one
 * counter for the caller to add one to (the engine counts what it refuses
 * itself), so that every drop keeps its reason counter.
 *
 * The worker asks on a SYN's arrival, after the burst's cookie check and
 * after an open the engine refused; a control lcore asks for the SYNs the
 * worker passed on (struct tfo_syn_facts.at_control, with the worker's
 * reason as tfo_syn_facts.path).
 */
#ifndef TFO_SYN_ADMIT_H
#define TFO_SYN_ADMIT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "cookie/cookie.h"
#include "net/tcpopt.h"
#include "ops/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The pending-TFO state a new TFO open from one source would join
 *  (tfo_engine_tfo_pending_get). */
struct tfo_syn_pending {
	uint32_t pending;	/**< pending TFO opens on the lcore (holds too) */
	uint32_t cap;		/**< [tcp] tfo_pending_limit */
	uint32_t src_pending;	/**< of them, the source's (IPv4, IPv6 /64) */
	uint32_t src_cap;	/**< per source; UINT32_MAX: no cap */
};

/** What a pending state says of one more TFO open: 0, -EBUSY (the lcore's
 *  limit: TCPFastOpenListenOverflow) or -EDQUOT (the source's cap:
 *  tfo_pending_source_overflow). Linux's tcp_fastopen_queue_check. */
static inline int
tfo_syn_pending_admit(const struct tfo_syn_pending *s)
{
	if (s->pending >= s->cap)
		return -EBUSY;
	return s->src_pending >= s->src_cap ? -EDQUOT : 0;
}

/** Why a SYN goes the slow path (tfo_ctrl_reason's SYN reasons, in order). */
enum tfo_syn_path {
	TFO_SYN_PATH_PLAIN = 0,		/**< no TFO option, TFO off, bad options */
	TFO_SYN_PATH_COOKIE_REQ,	/**< asks for a cookie */
	TFO_SYN_PATH_BAD_COOKIE,	/**< a cookie that failed (or bad length) */
	TFO_SYN_PATH_OVERFLOW,		/**< over a pending-TFO limit */
	TFO_SYN_PATH_FULL,		/**< the worker's table is full */
	TFO_SYN_PATH_NO_SERVICE,	/**< nothing listens there (the worker's
					 *   engine said so at open) */
};

/** The cookie check's result as far as it is known. */
enum tfo_syn_cookie {
	TFO_SYN_COOKIE_UNCHECKED = 0,
	TFO_SYN_COOKIE_BAD,
	TFO_SYN_COOKIE_PRIMARY,		/**< valid under the primary key */
	TFO_SYN_COOKIE_BACKUP,		/**< valid under the backup key */
};

/** tfo_engine_open's result, when it was tried and refused. */
enum tfo_syn_open {
	TFO_SYN_OPEN_UNTRIED = 0,
	TFO_SYN_OPEN_OVER_PENDING,	/**< -EBUSY (counted by the engine) */
	TFO_SYN_OPEN_OVER_SOURCE,	/**< -EDQUOT (counted by the engine) */
	TFO_SYN_OPEN_FULL,		/**< -ENOSPC (conn_pool_full) */
	TFO_SYN_OPEN_NO_SERVICE,	/**< -ENOENT (svc_no_service) */
};

/** A cookie check's enum tfo_cookie_verdict (cookie/cookie.h) as an enum
 *  tfo_syn_cookie: the same order, one up. */
static inline uint8_t
tfo_syn_cookie_of(uint8_t check)
{
	RTE_BUILD_BUG_ON(TFO_COOKIE_BAD + 1 != TFO_SYN_COOKIE_BAD ||
			 TFO_COOKIE_OK_PRIMARY + 1 != TFO_SYN_COOKIE_PRIMARY ||
			 TFO_COOKIE_OK_BACKUP + 1 != TFO_SYN_COOKIE_BACKUP);
	return check <= TFO_COOKIE_OK_BACKUP ? (uint8_t)(check + 1) : TFO_SYN_COOKIE_BAD;
}

/** tfo_engine_open's negative errno as an enum tfo_syn_open. */
static inline uint8_t
tfo_syn_open_of(int rc)
{
	switch (rc) {
	case -EBUSY:
		return TFO_SYN_OPEN_OVER_PENDING;
	case -EDQUOT:
		return TFO_SYN_OPEN_OVER_SOURCE;
	case -ENOSPC:
		return TFO_SYN_OPEN_FULL;
	default:	/* -ENOENT */
		return TFO_SYN_OPEN_NO_SERVICE;
	}
}

/** Everything a verdict depends on. Zero is "no / not known" throughout,
 *  so a caller starts from {0} and sets what it knows. */
struct tfo_syn_facts {
	/* the SYN, as tfo_tcpopt_parse left it */
	bool opts_ok;		/**< its options parsed */
	uint8_t tfo_opt;	/**< enum tfo_opt_cookie */
	bool tfo_form;		/**< it carried a TFO option (either kind) */
	bool has_data;		/**< payload in the SYN */
	/* the lcore that asks */
	bool at_control;	/**< a control lcore (else a worker) */
	uint8_t path;		/**< at_control: the worker's enum tfo_syn_path */
	bool tfo_on;		/**< it has a cookie context (TFO enabled) */
	bool no_cookie;		/**< [tcp] cookie_not_required */
	bool draining;		/**< its drain began (lcore/drain.h) */
	bool syncookies;	/**< at_control: [tcp] syncookies is not no */
	/* looked up when a verdict asks (NEED_LISTENER) */
	bool listener_known;
	bool served;		/**< a service listens on the SYN's port */
	bool syncookie_due;	/**< worker: tfo_syn_defence_due; control: its
				 *   table down to its SYN reserve */
	/* looked up when a verdict asks (NEED_PENDING) */
	bool pending_known;
	struct tfo_syn_pending pend;
	uint8_t cookie;		/**< enum tfo_syn_cookie (CHECK_COOKIE) */
	uint8_t open;		/**< enum tfo_syn_open, after a refused open */
};

/** What to do with the SYN. */
enum tfo_syn_act {
	TFO_SYN_NEED_LISTENER = 0,	/**< fill served and syncookie_due, ask again */
	TFO_SYN_NEED_PENDING,		/**< fill pend (tfo_engine_tfo_pending_get) */
	TFO_SYN_CHECK_COOKIE,		/**< worker: into the burst's batched check,
					 *   then fill cookie and ask again */
	TFO_SYN_ACCEPT,			/**< worker: a TFO open, the SYN's data to
					 *   the service (pend admitted it) */
	TFO_SYN_OPEN,			/**< control: a handshake in its engine, the
					 *   SYN's data not acked */
	TFO_SYN_SYNCOOKIE,		/**< a SYN-cookie SYN-ACK, no state kept */
	TFO_SYN_TO_CONTROL,		/**< worker: the slow path, for .path */
	TFO_SYN_REFUSE,			/**< draining: a RST, as a closed listener */
	TFO_SYN_RST,			/**< control: nothing listens: a RST */
	TFO_SYN_DROP,			/**< silence: the client retransmits */
};

/** No counter with this verdict (the engine counted, or nothing to count). */
#define TFO_SYN_NO_STAT UINT16_MAX

struct tfo_syn_verdict {
	uint8_t act;		/**< enum tfo_syn_act */
	uint8_t path;		/**< TO_CONTROL: enum tfo_syn_path */
	bool offer_cookie;	/**< OPEN, SYNCOOKIE: a fresh TFO cookie in the
				 *   SYN-ACK, in the SYN's option form */
	bool valid_opens;	/**< CHECK_COOKIE: a valid cookie is an ACCEPT
				 *   (tfo_syn_verdict_checked need not ask) */
	uint16_t stat;		/**< enum tfo_stat_id to add one to, or
				 *   TFO_SYN_NO_STAT */
};

/* ---- the verdict's parts (tfo_syn_v_*: for tfo_syn_verdict only) ---- */

static __rte_always_inline struct tfo_syn_verdict
tfo_syn_v_act(uint8_t a, uint16_t stat)
{
	return (struct tfo_syn_verdict){ .act = a, .stat = stat };
}

/* The pending-TFO limits' refusal as a verdict's counter. */
static inline uint16_t
tfo_syn_v_over_stat(int rc)
{
	return rc == -EBUSY ? TFO_STAT_TCPFastOpenListenOverflow :
			      TFO_STAT_tfo_pending_source_overflow;
}

/*
 * A worker's slow path for @p path: a SYN cookie from here when they are
 * due and a service listens (syn_defence.h), a fresh TFO cookie with it
 * for a client that asked for one or sent a bad one; else to the control
 * lcore. @p stat: the counter this SYN earned on its way here.
 */
static __rte_always_inline struct tfo_syn_verdict
tfo_syn_v_slow(const struct tfo_syn_facts *f, uint8_t path, uint16_t stat)
{
	struct tfo_syn_verdict v = tfo_syn_v_act(TFO_SYN_TO_CONTROL, stat);

	if (!f->listener_known)
		return tfo_syn_v_act(TFO_SYN_NEED_LISTENER, TFO_SYN_NO_STAT);
	v.path = path;
	if (f->syncookie_due && f->served) {
		v.act = TFO_SYN_SYNCOOKIE;
		v.offer_cookie = f->tfo_on && f->tfo_form &&
				 (path == TFO_SYN_PATH_COOKIE_REQ ||
				  path == TFO_SYN_PATH_BAD_COOKIE);
	}
	return v;
}

/* A worker's TFO open the engine refused: the slow path by its reason;
 * the engine counted it. */
static __rte_always_inline struct tfo_syn_verdict
tfo_syn_v_refused_open(const struct tfo_syn_facts *f)
{
	switch (f->open) {
	case TFO_SYN_OPEN_OVER_PENDING:
	case TFO_SYN_OPEN_OVER_SOURCE:
		return tfo_syn_v_slow(f, TFO_SYN_PATH_OVERFLOW, TFO_SYN_NO_STAT);
	case TFO_SYN_OPEN_FULL:
		return tfo_syn_v_slow(f, TFO_SYN_PATH_FULL, TFO_SYN_NO_STAT);
	default:	/* nothing listens: the control lcore answers, no SYN cookie */
		return (struct tfo_syn_verdict){ .act = TFO_SYN_TO_CONTROL,
						 .path = TFO_SYN_PATH_NO_SERVICE,
						 .stat = TFO_SYN_NO_STAT };
	}
}

/* The TFO open of a cookie valid under the primary or backup key: the
 * backup key's is counted. */
static __rte_always_inline struct tfo_syn_verdict
tfo_syn_v_accept(uint8_t cookie)
{
	return tfo_syn_v_act(TFO_SYN_ACCEPT, cookie == TFO_SYN_COOKIE_BACKUP ?
			     TFO_STAT_TCPFastOpenPassiveAltKey : TFO_SYN_NO_STAT);
}

/* A worker's candidate for a TFO open (a cookie to check, or none needed):
 * the pending limits first, then the cookie, then the open. */
static __rte_always_inline struct tfo_syn_verdict
tfo_syn_v_candidate(const struct tfo_syn_facts *f, bool cookie_needed)
{
	int rc;

	if (!f->pending_known)
		return tfo_syn_v_act(TFO_SYN_NEED_PENDING, TFO_SYN_NO_STAT);
	rc = tfo_syn_pending_admit(&f->pend);
	if (rc != 0)
		return tfo_syn_v_slow(f, TFO_SYN_PATH_OVERFLOW, tfo_syn_v_over_stat(rc));
	if (cookie_needed) {
		switch (f->cookie) {
		case TFO_SYN_COOKIE_UNCHECKED: {
			struct tfo_syn_verdict v =
				tfo_syn_v_act(TFO_SYN_CHECK_COOKIE, TFO_SYN_NO_STAT);

			/* what a valid cookie will mean, said now: these
			 * facts ask nothing more before the open */
			v.valid_opens = f->open == TFO_SYN_OPEN_UNTRIED;
			return v;
		}
		case TFO_SYN_COOKIE_PRIMARY:
		case TFO_SYN_COOKIE_BACKUP:
			break;
		default:
			return tfo_syn_v_slow(f, TFO_SYN_PATH_BAD_COOKIE,
					 TFO_STAT_TCPFastOpenPassiveFail);
		}
	}
	if (f->open != TFO_SYN_OPEN_UNTRIED)
		return tfo_syn_v_refused_open(f);
	return tfo_syn_v_accept(f->cookie);
}

/* A control lcore: the SYNs its workers passed on. */
static __rte_always_inline struct tfo_syn_verdict
tfo_syn_v_control(const struct tfo_syn_facts *f)
{
	struct tfo_syn_verdict v = tfo_syn_v_act(TFO_SYN_OPEN, TFO_SYN_NO_STAT);

	/* table down to its reserve: the entries stay for the clients that
	 * complete a handshake (RFC 4987 section 3.6) */
	if (f->syncookies && f->syncookie_due && f->served)
		return tfo_syn_v_act(TFO_SYN_SYNCOOKIE, TFO_SYN_NO_STAT);
	switch (f->open) {
	case TFO_SYN_OPEN_UNTRIED:
		/* a cookie request or a failed cookie gets a fresh one, its
		 * data dropped: the client re-sends it at once */
		v.offer_cookie = f->tfo_on && f->tfo_form &&
				 (f->path == TFO_SYN_PATH_COOKIE_REQ ||
				  f->path == TFO_SYN_PATH_BAD_COOKIE);
		return v;
	case TFO_SYN_OPEN_FULL:
	case TFO_SYN_OPEN_OVER_SOURCE:
		/* a source at max_conns_per_source is answered as a full
		 * table (counted by the engine): its cookie ACK is held to
		 * the limit too */
		if (f->syncookies)
			return tfo_syn_v_act(TFO_SYN_SYNCOOKIE, TFO_SYN_NO_STAT);
		/* no room and no SYN cookies: silence, as Linux; the client
		 * retransmits its SYN (a RST would make it give up) */
		return tfo_syn_v_act(TFO_SYN_DROP, f->open == TFO_SYN_OPEN_FULL ?
			   TFO_STAT_drop_syn_table_full : TFO_SYN_NO_STAT);
	default:	/* a closed port */
		return tfo_syn_v_act(TFO_SYN_RST, TFO_SYN_NO_STAT);
	}
}

/**
 * The verdict on a SYN that matched no connection, from @p f alone.
 *
 * Order (Linux's where it has one): a draining lcore refuses a served
 * port's SYNs first; on a worker, a SYN whose options did not parse, or any
 * SYN with TFO off, is plain; with cookie_not_required a SYN with data (and
 * no bad cookie) is a TFO open without a cookie; a cookie request and a
 * cookie of bad length go the slow path; a cookie is held to the pending
 * limits before it is checked (an overflowing SYN costs no AES), then
 * checked; a refused open goes the slow path by the engine's reason. Every
 * slow path of a worker is answered there with a SYN cookie when they are
 * due and a service listens. On a control lcore: SYN cookies when its table
 * is down to its reserve, else an open (a fresh cookie for a cookie request
 * or a failed cookie); a full table or a source at its cap then gets a SYN
 * cookie, or silence without them; a port nothing serves a RST.
 *
 * Inline: the worker asks once or twice per TFO SYN (its CHECK_COOKIE
 * verdict says what a valid cookie means: tfo_syn_verdict_checked), and
 * the calls cost more than the questions (callgrind,
 * bench/results/pipeline-stages.md).
 */
static __rte_always_inline struct tfo_syn_verdict
tfo_syn_verdict(const struct tfo_syn_facts *f)
{
	/* draining: refused as by a listener that closed, whoever asks; the
	 * client's connect() fails at once and it tries its next address */
	if (f->draining) {
		if (!f->listener_known)
			return tfo_syn_v_act(TFO_SYN_NEED_LISTENER, TFO_SYN_NO_STAT);
		if (f->served)
			return tfo_syn_v_act(TFO_SYN_REFUSE, TFO_STAT_drain_syn_refused);
	}
	if (f->at_control)
		return tfo_syn_v_control(f);
	if (!f->opts_ok || !f->tfo_on)	/* malformed: plain, with what parsed */
		return tfo_syn_v_slow(f, TFO_SYN_PATH_PLAIN, TFO_SYN_NO_STAT);
	if (f->no_cookie && f->has_data && f->tfo_opt != TFO_COOKIE_INVALID)
		return tfo_syn_v_candidate(f, false);
	switch (f->tfo_opt) {
	case TFO_COOKIE_REQUEST:
		return tfo_syn_v_slow(f, TFO_SYN_PATH_COOKIE_REQ, TFO_STAT_TCPFastOpenCookieReqd);
	case TFO_COOKIE_INVALID:
		return tfo_syn_v_slow(f, TFO_SYN_PATH_BAD_COOKIE, TFO_STAT_TCPFastOpenPassiveFail);
	case TFO_COOKIE_PRESENT:
		return tfo_syn_v_candidate(f, true);
	default:
		return tfo_syn_v_slow(f, TFO_SYN_PATH_PLAIN, TFO_SYN_NO_STAT);
	}
}

/**
 * After a CHECK_COOKIE verdict (@p valid_opens, its valid_opens) and the
 * batched check that filled @p f->cookie, nothing else in @p f changed:
 * true when the cookie is valid, with in @p v the ACCEPT that
 * tfo_syn_verdict(@p f) would give, without asking it again. False (a bad
 * cookie): ask tfo_syn_verdict.
 */
static __rte_always_inline bool
tfo_syn_verdict_checked(const struct tfo_syn_facts *f, bool valid_opens,
			struct tfo_syn_verdict *v)
{
	if (!valid_opens || (f->cookie != TFO_SYN_COOKIE_PRIMARY &&
			     f->cookie != TFO_SYN_COOKIE_BACKUP))
		return false;
	*v = tfo_syn_v_accept(f->cookie);
	return true;
}

#ifdef __cplusplus
}
#endif

#endif /* TFO_SYN_ADMIT_H */
