/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the workers' stateless SYN defence (RFC 4987 SYN cookies).
 *
 * A SYN bound for the slow path (plain, cookie request, bad cookie, over
 * the pending limit, worker table full) is answered by the worker that
 * received it with a SYN-cookie SYN-ACK when SYN cookies are due
 * ([tcp] syncookies: always; auto: the worker's ring to the control core
 * is half full or the control core publishes that its table is down to its
 * reserve; no: never): tfo_syn_defence_due is the fact the SYN's verdict
 * (tcp/syn_admit.h) asks for, tfo_syn_defence_reply the answer. Spoofed SYNs then reach no ring, no table and no
 * control core. The ACK that returns a valid SYN cookie arrives at the same
 * worker (RSS) as a miss: the worker checks it (only within the cookies'
 * validity after it issued one) and hands it to the control core as
 * TFO_CTRL_TCP_SYNCOOKIE_ACK, what the cookie encoded in the frame's
 * summary (an mbuf dynamic field); the control core creates the connection
 * without checking it again (tfo_engine_syncookie_open). Workers and the
 * control core share their engines' secrets (tfo_engine_share_secrets).
 *
 * The summary also carries what a worker parsed of any slow-path SYN (its
 * offsets and options), so that the control core does not parse it again.
 *
 * Per worker, no shared writes: the control core's pressure flag is only
 * read (a plain load of a line the control core writes when it changes).
 */
#ifndef TFO_SYN_DEFENCE_H
#define TFO_SYN_DEFENCE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "lcore/ctrl_pick.h"
#include "net/pkt.h"
#include "net/tcpopt.h"
#include "ops/config.h"
#include "tcp/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How long after its last SYN cookie a worker checks miss ACKs for one:
 *  a cookie is valid in the minute it was made and the next (syncookie.c). */
#define TFO_SYN_DEFENCE_WINDOW_US (120ull * 1000000)

struct tfo_syn_defence {
	uint8_t mode;			/**< enum tfo_syncookies_mode */
	bool issued;			/**< a SYN cookie was sent ... */
	uint64_t last_issued_us;	/**< ... last at this time */
	uint32_t ring_hi;		/**< auto: ring entries that mean pressure */
	/** auto: each control lcore's flag (tfo_control.syn_pressure),
	 *  non-zero while its table is down to its SYN reserve; NULL: none.
	 *  A SYN reads the flag of the control lcore tfo_ctrl_pick() gives it. */
	const volatile uint8_t *ctrl_pressure[TFO_MAX_CONTROLS];
};

/** What a worker knew of a frame it handed over (an mbuf dynamic field,
 *  valid only with the reasons that set it: the SYN reasons but
 *  TCP_NO_SERVICE, and TCP_SYNCOOKIE_ACK). 20 bytes: the dynfield area is
 *  36 bytes for everyone. */
struct tfo_syn_summary {
	uint32_t tsval;			/**< the segment's TSval (HAS_TS) */
	uint16_t mss;			/**< SYN: its MSS (HAS_MSS); ACK: the cookie's */
	uint8_t wscale;			/**< SYN: its (HAS_WS); ACK: the cookie's */
	uint8_t flags;			/**< TFO_SYNSUM_* */
	uint8_t form;			/**< SYN: enum tfo_opt_form */
	uint8_t cookie_state;		/**< SYN: enum tfo_opt_cookie */
	uint8_t local_idx;		/**< tfo_pkt fields the parse found */
	uint8_t l2_len;
	uint16_t l3_len;
	uint16_t l4_len;
	uint16_t payload_len;
};

#define TFO_SYNSUM_HAS_MSS	0x01
#define TFO_SYNSUM_HAS_WS	0x02
#define TFO_SYNSUM_SACK		0x04
#define TFO_SYNSUM_HAS_TS	0x08
#define TFO_SYNSUM_MALFORMED	0x10
#define TFO_SYNSUM_SYN		0x20	/**< a SYN's options are here */
#define TFO_SYNSUM_PKT		0x40	/**< the parse's offsets are here */
#define TFO_SYNSUM_V6		0x80	/**< IPv6 (else IPv4) */

extern int tfo_syn_summary_offset;

/** Register the summary's mbuf field. Once, at start (tfo_ctrl_reason_register
 *  does it). @return 0 or a negative errno. */
int tfo_syn_summary_register(void);

static inline struct tfo_syn_summary *
tfo_syn_summary(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, tfo_syn_summary_offset, struct tfo_syn_summary *);
}

/** The summary of a SYN-cookie ACK (@p a) into @p s, and back. */
void tfo_syn_summary_from_ack(struct tfo_syn_summary *s, const struct tfo_syncookie_ack *a);
void tfo_syn_summary_to_ack(const struct tfo_syn_summary *s, struct tfo_syncookie_ack *a);

/**
 * The control core's side: @p m came with @p reason (enum tfo_ctrl_reason);
 * if its worker left a summary, fill @p p from it and the headers at the
 * offsets it gives (no checksum, no option walk: the worker did both).
 * @return true if @p p is filled (then a TCP segment to one of our
 * addresses), false: parse it.
 */
bool tfo_syn_summary_pkt(struct rte_mbuf *m, int reason, struct tfo_pkt *p);

/** The SYN options of @p m's summary into @p o (no cookie bytes: the
 *  control core only offers fresh ones). @return false when there are none
 *  (@p reason not a SYN one): parse them. */
bool tfo_syn_summary_opts(struct rte_mbuf *m, int reason, struct tfo_tcpopts *o);

/** Set @p d up for mode @p mode (enum tfo_syncookies_mode), pressure at
 *  half of @p to_control's capacity (NULL: no ring check). */
void tfo_syn_defence_init(struct tfo_syn_defence *d, uint8_t mode,
			  const struct rte_ring *to_control);

/** Are SYN cookies due now for a slow-path SYN bound for control lcore
 *  @p ci over ring @p to_control? Two ring indices and one flag read; no
 *  atomics. */
static inline bool
tfo_syn_defence_due(const struct tfo_syn_defence *d, unsigned int ci,
		    const struct rte_ring *to_control)
{
	if (d->mode != TFO_SYNCOOKIES_AUTO)
		return d->mode == TFO_SYNCOOKIES_ALWAYS;
	return (d->ctrl_pressure[ci] != NULL && *d->ctrl_pressure[ci] != 0) ||
	       (to_control != NULL && rte_ring_count(to_control) >= d->ring_hi);
}

/** Within the validity of the last SYN cookie this worker issued? (Only
 *  then is a miss ACK worth a check.) */
static inline bool
tfo_syn_defence_armed(const struct tfo_syn_defence *d, uint64_t now_us)
{
	return d->issued && now_us - d->last_issued_us < TFO_SYN_DEFENCE_WINDOW_US;
}

struct tfo_worker;

/** What a worker parsed of a slow-path SYN @p m/@p p (options @p o) into
 *  its summary for the control lcore (TFO_SYNSUM_SYN | TFO_SYNSUM_PKT). */
void tfo_syn_summary_set_syn(struct rte_mbuf *m, const struct tfo_pkt *p,
			     const struct tfo_tcpopts *o);

/**
 * Answer the SYN @p m/@p p (options @p o) that worker @p w received on
 * port @p port_idx with a SYN-cookie SYN-ACK (the verdict TFO_SYN_SYNCOOKIE
 * of tcp/syn_admit.h), a fresh TFO cookie in it with @p offer_cookie when
 * one can be made (syncookies_sent_tfo); counted rx_delivered, and miss
 * ACKs checked for a SYN cookie from now on (tfo_syn_defence_armed).
 * Consumes @p m.
 */
void tfo_syn_defence_reply(struct tfo_worker *w, struct rte_mbuf *m,
			   const struct tfo_pkt *p, uint8_t port_idx,
			   const struct tfo_tcpopts *o, bool offer_cookie, uint64_t now_us);

/**
 * A non-SYN miss @p m/@p p on worker @p w, within the validity of its last
 * SYN cookie: is it the ACK of a valid one? Then its summary carries what
 * the cookie encoded (syncookie_ack_ok) and it goes to the control core as
 * TFO_CTRL_TCP_SYNCOOKIE_ACK; else (syncookie_ack_bad for a pure ACK) it
 * goes on as a miss. @return true for a valid SYN-cookie ACK.
 */
bool tfo_syn_defence_ack(struct tfo_worker *w, struct rte_mbuf *m,
			 const struct tfo_pkt *p, uint64_t now_us);

#ifdef __cplusplus
}
#endif

#endif /* TFO_SYN_DEFENCE_H */
