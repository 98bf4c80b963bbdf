/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: per-lcore counters.
 *
 * Every lcore owns one struct tfo_stats and is the only writer of it (plain
 * increments, no atomics); the control core reads all of them to aggregate
 * (aligned 64-bit loads do not tear on the CPUs DPDK supports). Every
 * counter has a stable, greppable name: the same name in the stats line,
 * the exit summary, /tfo/stats and the source.
 *
 * Names follow Linux's where the meaning is the same (TCPFastOpen*, and
 * TCPACKSkippedSynRecv among the engine's).
 * Kinds: C = counter (only grows), G = gauge (goes up and down).
 */
#ifndef TFO_STATS_H
#define TFO_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>

#include "ops/drops.h"	/* the parser's drop reasons, one counter each */
#include "tfo/service.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, kind, help) */
#define TFO_STATS_IO(X) \
	X(rx_pkts,		C, "frames received from the ports (workers)") \
	X(rx_bytes,		C, "bytes received") \
	X(tx_pkts,		C, "frames handed to the port and accepted") \
	X(tx_bytes,		C, "bytes accepted by the port") \
	X(tx_drop_full,		C, "frames the port's TX queue did not accept (freed)") \
	X(tx_drop_resend,	C, "of tx_drop_full and relay_drop_full, re-sent SYN-ACKs (answers to duplicate SYNs, the timer's retransmissions), queued behind fresh frames so that they are dropped first; a relay ring 3/4 full takes none of them") \
	X(mbuf_alloc_fail,	C, "mbuf allocations that failed (reply not sent)") \
	X(to_control,		C, "frames a worker passed to the control core") \
	X(ring_drop_full,	C, "frames dropped because the control ring was full") \
	X(ctrl_rx,		C, "frames the control core took from the workers' rings") \
	X(ctrl_relayed,		C, "control-lcore frames handed to a worker to send: control k's to worker k % workers, on ports that give control lcores no TX queue (net_tap, virtio, VFs)") \
	X(relay_drop_full,	C, "control-lcore frames dropped: the relay ring to the worker that sends them was full (that port's TX queue refused more for a while)") \
	X(rx_delivered,		C, "frames consumed by the TCP engine or the control core (and MLD, rx_mld_ignored)") \
	X(rx_mld_ignored,	C, "MLD queries/reports/done (ICMPv6 130-132, 143) a worker ignored: a host's business only when it joins groups; counted in rx_delivered, not a drop") \
	X(tx_queued,		C, "frames this lcore built or took to send (into its TX buffer)") \
	X(tx_relay_in,		C, "control-lcore frames a worker took from a relay ring and sent") \
	X(relay_tx_busy,	C, "times a worker's TX queue took only part of a relay ring's frames: the rest wait in the ring (back-pressure, not a drop)") \
	X(drop_ctrl_no_port,	C, "frames at the control core from a port it does not drive") \
	X(syn_steered,		C, "SYNs the NIC steered to the control core, handed to their worker (syn_steering)") \
	X(syn_steer_drop,	C, "steered SYNs dropped: their worker's SYN ring was full") \
	X(busy_tsc,		C, "TSC ticks a worker or control lcore spent in polls that found frames (busy share = its increase / TSC Hz per second)") \
	X(idle_waits,		C, "times an idle lcore slept (idle_policy adaptive): on its doorbell and RX interrupts, or a nap") \
	X(idle_wakeups,		C, "of idle_waits, those a doorbell, an RX interrupt or a signal ended before their time") \
	X(doorbell_rings,	C, "wake-ups this lcore sent to a sleeping lcore after handing it frames (a write to its doorbell)") \
	X(unmap_waits,		C, "munmaps by a thread that is not a polling lcore (net_memif's disconnect on the EAL interrupt thread) that waited first until every polling lcore was between two bursts (process-wide, on control 0)") \
	X(unmap_kept,		C, "munmaps not done: a polling lcore passed no quiescent state within 5 s (stuck in a burst, or stopped in a debugger); the memory stays mapped, a leak rather than an unmap under the lcore (process-wide, on control 0)")

/* Control core: ARP, ICMP, ND. */
#define TFO_STATS_CONTROL(X) \
	X(arp_request_rx,	C, "ARP requests for one of our addresses") \
	X(arp_reply_tx,		C, "ARP replies sent") \
	X(drop_arp_other,	C, "ARP not asking for us (other target, replies, gratuitous)") \
	X(drop_kernel_neigh,	C, "ARP, ND or ICMP (not a path-MTU error) on a port whose kernel answers them (xdp = own: its XDP program keeps them in the kernel)") \
	X(icmp_echo_rx,		C, "ICMPv4 echo requests") \
	X(icmp_echo_tx,		C, "ICMPv4 echo replies sent") \
	X(drop_icmp_other,	C, "ICMPv4 other than echo request") \
	X(drop_icmp_echo_rate,	C, "ICMP and ICMPv6 echo requests not answered: over icmp_echo_per_s of this control lcore (burst 50)") \
	X(to_control_neigh,	C, "of to_control, ARP and ND frames a worker handed to control 0's neighbour ring (drained first, apart from slow-path TCP and pings)") \
	X(icmp6_echo_rx,	C, "ICMPv6 echo requests") \
	X(icmp6_echo_tx,	C, "ICMPv6 echo replies sent") \
	X(nd_ns_rx,		C, "IPv6 neighbor solicitations for one of our addresses") \
	X(nd_na_tx,		C, "IPv6 neighbor advertisements sent") \
	X(drop_nd_bad,		C, "ND messages failing RFC 4861 checks (hop limit, code, length, target)") \
	X(drop_icmp6_other,	C, "ICMPv6 not handled (RS/RA, NS for others, errors; MLD is rx_mld_ignored)") \
	X(drop_tcp_nohandler,	C, "TCP segments with nothing to handle them") \
	X(link_down_events,	C, "times a port's link went down (control 0 looks once a second; net_tap and net_af_xdp: the kernel interface's IFF_UP and IFF_RUNNING), each logged once with the port's name") \
	X(link_up_events,	C, "times a port's link came back up after link_down_events: the port serves again, logged once") \
	X(key_rotations,	C, "TFO key rotations (timer or /tfo/rotate)") \
	X(drop_syn_table_full,	C, "SYNs dropped: control core's table full and syncookies = no") \
	X(key_reloads,		C, "key file reloads that changed the keys (SIGHUP or /tfo/reload)") \
	X(key_reload_errors,	C, "key file reloads refused (unreadable or malformed file; keys kept)") \
	X(svc_reloads,		C, "service reloads that now serve new content (http: document root; SIGHUP or /tfo/reload)") \
	X(svc_reload_errors,	C, "service reloads refused (http: root unreadable or over a limit; the old one keeps serving)") \
	X(svc_reload_held,	C, "replaced service states (http: document roots) kept past their grace time because a connection still sends from them (slow readers)") \
	X(pmtu_handoff,		C, "path-MTU errors (ICMP frag needed, ICMPv6 packet too big) the control core handed to the worker owning the flow (counted in rx_delivered; on a control lcore > 0, of those control 0 forwarded it)") \
	X(drop_pmtu_bad_quote,	C, "path-MTU errors whose quote is truncated or not a TCP segment we sent") \
	X(drop_pmtu_inbox_full,	C, "path-MTU errors dropped: the owning worker's (or control lcore's) inbox was full") \
	X(pmtu_ctrl_handoff,	C, "path-MTU errors control 0 forwarded to the control lcore that owns the flow's slow path (control_lcores > 1; counted in rx_delivered)") \
	X(pmtu_handoff_lost,	C, "path-MTU errors forwarded by control 0 that this control lcore could not hand on to a worker (its inbox full)") \
	X(exc_to_kernel,	C, "frames we do not serve handed to the port's kernel interface (exception = on; counted in rx_delivered)") \
	X(drop_exc_rate,	C, "frames for the kernel interface over exception_pps") \
	X(drop_exc_full,	C, "frames for the kernel interface it did not take (its queue full)") \
	X(exc_from_kernel,	C, "frames the kernel sent on a port's exception interface, queued to the port") \
	X(exc_from_kernel_drop,	C, "frames the kernel sent over exception_pps, dropped")

/* TFO, with Linux's names (see nstat's TcpExt). */
#define TFO_STATS_TFO(X) \
	X(TCPFastOpenPassive,		C, "TFO SYNs with a valid cookie whose data was accepted") \
	X(TCPFastOpenPassiveFail,	C, "TFO SYNs with an invalid cookie (fell back)") \
	X(TCPFastOpenListenOverflow,	C, "valid-cookie SYNs over the pending-TFO limit (fell back)") \
	X(tfo_pending_source_overflow,	C, "valid-cookie SYNs over the per-source pending-TFO cap (fell back)") \
	X(TCPFastOpenCookieReqd,	C, "SYNs asking for a cookie") \
	X(TCPFastOpenPassiveAltKey,	C, "TFO SYNs accepted with the backup key")

/* The TCP engine (src/tcp/engine.c, src/tcp/tcp_*.c; each instance counts
 * into its lcore's stats). */
#define TFO_STATS_ENGINE(X) \
	X(conns_active,		G, "connections in the table now") \
	X(tfo_pending,		G, "pending TFO opens now (SYN-ACK not yet acked, plus reset ones held)") \
	X(conns_opened_tfo,	C, "connections opened with the SYN's data accepted (TFO)") \
	X(conns_opened_plain,	C, "connections opened by a SYN whose data (if any) was not accepted") \
	X(conns_opened_syncookie, C, "connections created from a valid SYN-cookie ACK") \
	X(conns_closed_normal,	C, "connections closed by the FIN exchange (LAST_ACK acked, TIME-WAIT over)") \
	X(conns_closed_rst_rx,	C, "connections reset by the peer (RST at the exact sequence)") \
	X(conns_closed_rst_tx,	C, "connections we reset (too big, service reject, retry limits)") \
	X(conns_closed_synack_timeout, C, "SYN_RCVD connections freed after synack_retries") \
	X(conns_closed_rto_timeout, C, "connections reset after max_retries retransmission timeouts") \
	X(conns_closed_persist_timeout, C, "connections reset after max_retries unanswered zero-window probes") \
	X(conns_closed_fin_wait2_timeout, C, "FIN_WAIT_2 connections freed after idle_timeout_ms") \
	X(conns_closed_reopen,	C, "TIME-WAIT entries replaced by a new SYN (higher ISN or newer TSval)") \
	X(conns_closed_syncookie_won, C, "SYN_RCVD handshakes dropped silently: the client took a worker's SYN-cookie SYN-ACK to its retransmitted SYN instead") \
	X(conns_idle_timeout,	C, "idle connections we closed with a FIN after idle_timeout_ms") \
	X(request_timeouts,	C, "connections reset: a request still incomplete after request_timeout_ms") \
	X(time_wait_entered,	C, "connections that entered TIME-WAIT") \
	X(time_wait_recycled,	C, "TIME-WAIT records ended early to make room for a new one (time_wait_max live)") \
	X(conn_pool_full,	C, "SYNs and SYN-cookie ACKs refused: connection pool full") \
	X(conn_source_limit,	C, "SYNs and SYN-cookie ACKs refused: the source holds max_conns_per_source entries") \
	X(conn_evicted_idle,	C, "idle keep-alive connections reset to make room (table under pressure)") \
	X(conn_evicted_slow,	C, "connections with the oldest incomplete request reset to make room") \
	X(buf_pool_empty,	C, "segments whose data was not accepted: no request/response buffer free") \
	X(req_too_big,		C, "requests over max_request: connection reset") \
	X(svc_no_service,	C, "SYNs for a TCP port without a service") \
	X(svc_calls,		C, "service handle() calls") \
	X(svc_responses,	C, "responses queued") \
	X(svc_reject,		C, "requests the service rejected: connection reset") \
	X(svc_bad_response,	C, "responses outside the service contract: connection reset") \
	X(svc_udp_rx,		C, "UDP datagrams to a port served with udp = on, handed to its service") \
	X(svc_udp_tx,		C, "UDP responses queued (one per answered datagram)") \
	X(svc_udp_too_big,	C, "UDP datagrams dropped: the response did not fit one unfragmented datagram (tfo_svc_ctx.udp_max)") \
	X(svc_udp_need_more,	C, "UDP datagrams dropped: the service found the request incomplete (NEED_MORE)") \
	X(svc_udp_reject,	C, "UDP datagrams dropped: the service rejected them, or answered outside its contract") \
	X(svc_udp_multiseg,	C, "UDP datagrams dropped: the payload was not in the frame's first segment") \
	X(syn_data_dropped,	C, "SYNs whose payload was not accepted (acked only the SYN)") \
	X(dup_syn,		C, "retransmitted SYNs of a SYN_RCVD connection: first flight re-sent, at most once per 500 ms (else TCPACKSkippedSynRecv)") \
	X(TCPACKSkippedSynRecv,	C, "of dup_syn, those not answered: the entry answered one less than 500 ms before (Linux's tcp_invalid_ratelimit, same name)") \
	X(synack_retransmits,	C, "SYN-ACKs re-sent by the timer (no data, no TFO option)") \
	X(synack_data_resend,	C, "handshake ACKs acking only the SYN: SYN-ACK data re-sent at once") \
	X(rto_expired,		C, "retransmission timeouts of data or FIN") \
	X(retransmit_segs,	C, "data/FIN segments sent again (RTO, fast retransmit, go-back-N)") \
	X(fast_retransmits,	C, "fast retransmits on the third duplicate ACK") \
	X(dup_acks_rx,		C, "duplicate ACKs received") \
	X(sack_blocks_rx,	C, "SACK blocks received and put on the scoreboard") \
	X(sack_blocks_ignored,	C, "SACK blocks not used: D-SACK, outside [snd_una, snd_max], empty") \
	X(sack_recovery_episodes, C, "fast recoveries driven by SACK (RFC 6675) instead of NewReno") \
	X(sack_retransmit_segs,	C, "holes resent during SACK recovery (also in retransmit_segs)") \
	X(persist_probes,	C, "zero-window probes sent") \
	X(zero_copy_segs,	C, "segments whose body went out as an external buffer") \
	X(challenge_acks,	C, "challenge ACKs sent (RFC 5961: in-window RST/SYN, old ACK)") \
	X(challenge_acks_limited, C, "challenge ACKs suppressed by the rate limit (1000/s)") \
	X(rst_tx,		C, "RSTs sent (connections and unknown segments)") \
	X(rst_tx_nomatch,	C, "RSTs sent to segments of unknown connections") \
	X(drain_keepalive_closed, C, "keep-alive connections a drain closed with a FIN while they waited for their next request (as nginx's graceful shutdown)") \
	X(drain_syn_refused,	C, "new SYNs answered with a RST during a drain (the client gets ECONNREFUSED at once and tries its next address; also in rst_tx_nomatch)") \
	X(syncookies_sent,	C, "SYN-ACKs with a SYN cookie sent") \
	X(syncookies_ok,	C, "ACKs with a valid SYN cookie") \
	X(syncookies_bad,	C, "ACKs for unknown connections whose SYN cookie failed (RST)") \
	X(syncookies_sent_tfo,	C, "worker SYN-cookie SYN-ACKs that carried a fresh TFO cookie (cookie request, bad cookie)") \
	X(syncookie_ack_ok,	C, "worker: miss ACKs with a valid SYN cookie, handed to the control core to create (TCP_SYNCOOKIE_ACK)") \
	X(syncookie_ack_bad,	C, "worker: miss ACKs checked (SYN cookies issued in the last 2 min) without a valid SYN cookie: forged, or a control-core connection's later ACKs; go on as misses") \
	X(rx_ooo_drop,		C, "out-of-order segments dropped (answered with a duplicate ACK)") \
	X(rx_dup_data,		C, "segments with only already-received data (answered with an ACK)") \
	X(rx_trimmed,		C, "segments trimmed to our receive window") \
	X(rx_after_close,	C, "segments with data after our FIN was queued (acked, discarded)") \
	X(drop_seq_window,	C, "segments outside the receive window (answered with an ACK)") \
	X(drop_paws,		C, "segments with an old timestamp (PAWS, answered with an ACK)") \
	X(drop_no_ack,		C, "segments without the ACK flag on a connection") \
	X(drop_ack_unsent,	C, "segments acking data never sent (answered with an ACK)") \
	X(drop_old_ack,		C, "segments acking below snd_una - max window (challenge ACK)") \
	X(drop_syn_bad,		C, "SYNs with RST or FIN, or in-window SYNs (challenge ACK)") \
	X(drop_rst_ignored,	C, "RSTs ignored (outside the window, or in TIME-WAIT)") \
	X(drop_synrcvd_bad_ack,	C, "SYN_RCVD segments with an unacceptable ACK (answered with RST)") \
	X(input_stale_conn,	C, "segments whose looked-up entry was freed meanwhile (returned as a miss)") \
	X(pmtu_accepted,	C, "path-MTU errors that lowered a connection's MSS (what was in flight re-sent at once)") \
	X(pmtu_rejected_seq,	C, "path-MTU errors quoting a sequence number outside [snd_una, snd_max) (RFC 5927: ignored)") \
	X(pmtu_ignored,		C, "path-MTU errors reporting an MTU not below the connection's path (nothing to do)") \
	X(pmtu_no_conn,		C, "path-MTU errors about a flow with no connection here (closed meanwhile, or forged; not counted when a port's RSS table is unknown and every worker got a copy)")

/* The access log (access_log.h): records per lcore, lines by control 0. */
#define TFO_STATS_ALOG(X) \
	X(access_log_records,	C, "access-log records an lcore put on its ring to control 0 (sampled transactions, access_log_sample)") \
	X(access_log_drop_full,	C, "access-log records dropped: the lcore's ring to control 0 was full (control 0 writes slower than transactions come)") \
	X(access_log_written,	C, "access-log lines control 0 wrote to the file") \
	X(access_log_write_error, C, "access-log lines lost: writing them to the file failed (disk full, I/O error)")

#define TFO_STATS_ALL(X) \
	TFO_STATS_IO(X) \
	TFO_STATS_CONTROL(X) \
	TFO_STATS_TFO(X) \
	TFO_STATS_ENGINE(X) \
	TFO_STATS_ALOG(X)

enum tfo_stat_id {
#define TFO_X_ENUM(name, kind, help) TFO_STAT_##name,
	TFO_STATS_ALL(TFO_X_ENUM)
#undef TFO_X_ENUM
	/* Then the packet parser's drop reasons, "drop_<reason>" (pkt.h), one
	 * per enum tfo_pkt_drop; index 0 (NONE) is unused. */
	TFO_STAT_PKT_DROP_BASE,
	TFO_STAT_MAX = TFO_STAT_PKT_DROP_BASE + TFO_PKT_DROP_MAX
};

/** One lcore's counters; written by that lcore only. */
struct tfo_stats {
	uint64_t c[TFO_STAT_MAX];
	/** the services' own counters (tfo_svc_ctx.counters), named by the
	 *  server's struct tfo_svc_ctr_map: slots past its nb stay 0 */
	uint64_t svc[TFO_SVC_STATS_MAX];
} __rte_cache_aligned;

static inline void
tfo_stats_add(struct tfo_stats *s, enum tfo_stat_id id, uint64_t v)
{
	s->c[id] += v;
}

static inline void
tfo_stats_inc(struct tfo_stats *s, enum tfo_stat_id id)
{
	s->c[id]++;
}

static inline void
tfo_stats_dec(struct tfo_stats *s, enum tfo_stat_id id)
{
	s->c[id]--;
}

static inline void
tfo_stats_drop(struct tfo_stats *s, enum tfo_pkt_drop r)
{
	s->c[TFO_STAT_PKT_DROP_BASE + r]++;
}

/** Name of counter @p id ("rx_pkts", "drop_ipv4_cksum", ...). */
const char *tfo_stats_name(unsigned int id);
/** One-line description of counter @p id. */
const char *tfo_stats_help(unsigned int id);
/** 1 if @p id is a gauge. */
int tfo_stats_is_gauge(unsigned int id);
/** Counter id by name, or -ENOENT. */
int tfo_stats_lookup(const char *name);

/** @p dst += @p src, counter by counter (the services' too). */
void tfo_stats_accumulate(struct tfo_stats *dst, const struct tfo_stats *src);

/**
 * Print "name value" for every non-zero counter of @p s, one per line,
 * each prefixed by @p prefix.
 */
void tfo_stats_dump(FILE *f, const char *prefix, const struct tfo_stats *s);

/** The same for the first @p nb services' counters of @p s, named by
 *  @p names (the server's struct tfo_svc_ctr_map: its name and nb). */
void tfo_stats_dump_svc(FILE *f, const char *prefix, const struct tfo_stats *s,
			const char *const *names, unsigned int nb);

/* ---- accounting ---------------------------------------------------------
 *
 * Every frame an lcore takes in leaves it exactly once: delivered to a
 * handler (the TCP engine; ARP, ICMP, ND answered; MLD, which is ignored
 * by design and counted as rx_mld_ignored too), dropped with a reason,
 * or handed to the control core; every frame it queues for sending is sent,
 * refused by the full TX queue or relay ring, or relayed to a worker:
 *
 *   rx_pkts + ctrl_rx         = rx_delivered + dropped + to_control
 *   tx_queued + tx_relay_in   = tx_pkts + tx_drop_full + relay_drop_full + ctrl_relayed
 *
 * (a worker has no ctrl_rx, the control core no rx_pkts), where dropped is
 * the sum of the frame-drop reasons: every parser reason (drop_<reason> of
 * pkt.h) and TFO_STATS_FRAME_DROPS. The TCP engine's own drop_* counters
 * describe segments it was delivered and are not part of the sum. Both
 * sides balance exactly whenever the lcore is between two bursts with its
 * TX buffer flushed (idle, or stopped); a reader racing a busy lcore may
 * see up to one burst in flight. The sums hold for the totals of all
 * lcores too; there, to_control - ctrl_rx is what waits in the rings.
 */
#define TFO_STATS_FRAME_DROPS(X) \
	X(ring_drop_full) X(drop_tcp_nohandler) X(drop_ctrl_no_port) \
	X(drop_arp_other) X(drop_kernel_neigh) X(drop_icmp_other) X(drop_icmp6_other) X(drop_nd_bad) \
	X(drop_icmp_echo_rate) \
	X(syn_steer_drop) X(drop_syn_table_full) X(drop_pmtu_bad_quote) \
	X(drop_pmtu_inbox_full) X(drop_exc_rate) X(drop_exc_full) \
	X(svc_udp_too_big) X(svc_udp_need_more) X(svc_udp_reject) X(svc_udp_multiseg)

/** One lcore's (or the total's) balance; see above. */
struct tfo_acct {
	uint64_t rx;		/**< rx_pkts + ctrl_rx */
	uint64_t delivered;	/**< rx_delivered */
	uint64_t dropped;	/**< sum of the frame-drop reasons */
	uint64_t to_control;
	int64_t rx_unaccounted;	/**< rx - delivered - dropped - to_control */
	uint64_t tx;		/**< tx_queued + tx_relay_in */
	uint64_t tx_sent;	/**< tx_pkts */
	uint64_t tx_dropped;	/**< tx_drop_full */
	uint64_t tx_relayed;	/**< ctrl_relayed */
	int64_t tx_unaccounted;	/**< tx - sent - dropped - relayed */
};

/** Fill @p a from @p s. @return true if both sides balance. */
bool tfo_stats_account(const struct tfo_stats *s, struct tfo_acct *a);

/** 1 if counter @p id is a frame-drop reason (part of "dropped" above). */
int tfo_stats_is_frame_drop(unsigned int id);

/** One line: "rx N = delivered N + dropped N + to_control N (unaccounted N),
 *  tx N = sent N + dropped N + relayed N (unaccounted N)". */
void tfo_acct_format(const struct tfo_acct *a, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TFO_STATS_H */
