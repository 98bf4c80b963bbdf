/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-loadgen: counters and the latency histogram.
 *
 * Same conventions as src/ops/stats.h (X-macro lists, one writer per
 * lcore, greppable names), but a list of its own: these are a client's
 * counters, they have no place in the server's per-lcore struct.
 */
#ifndef LG_STATS_H
#define LG_STATS_H

#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>

#include "net/pkt.h"

/* X(name, help) */
#define LG_STATS_IO(X) \
	X(rx_pkts,		"frames received from the ports") \
	X(rx_bytes,		"bytes received") \
	X(tx_pkts,		"frames the ports accepted") \
	X(tx_bytes,		"bytes the ports accepted") \
	X(tx_drop_full,		"frames a TX queue did not accept (freed; retransmitted later)") \
	X(mbuf_alloc_fail,	"mbuf allocations that failed (segment not sent)") \
	X(rx_handoff,		"segments received by one generator lcore for another's address (passed on)") \
	X(rx_handoff_drop,	"segments dropped because the hand-off ring was full") \
	X(rx_not_ours,		"frames for no client address (multicast, other hosts)") \
	X(rx_other,		"frames to a client address that are neither TCP, ARP nor ND (ICMP...)") \
	X(idle_yields,		"polls that found no frame and yielded the CPU (--idle yield)")

#define LG_STATS_NEIGH(X) \
	X(arp_request_tx,	"ARP requests sent for the server's address") \
	X(arp_request_rx,	"ARP requests for a client (or alias) address") \
	X(arp_reply_tx,		"ARP replies sent for client addresses") \
	X(nd_ns_tx,		"neighbor solicitations sent for the server's address") \
	X(nd_ns_rx,		"neighbor solicitations for a client (or alias) address") \
	X(nd_na_tx,		"neighbor advertisements sent for client addresses") \
	X(server_mac_learned,	"ARP/ND answers that gave the server's MAC address") \
	X(neigh_ignored,	"ARP/ND messages not for us or not understood")

#define LG_STATS_TXN(X) \
	X(warmup_started,	"cookie requests of the warm-up (handshake with an empty TFO option)") \
	X(warmup_completed,	"warm-up transactions closed cleanly with a validated response") \
	X(txn_started,		"run transactions started (flood SYNs excluded)") \
	X(txn_completed,	"run transactions closed cleanly with a validated response") \
	X(txn_tfo,		"run transactions whose SYN data the SYN-ACK acknowledged") \
	X(txn_cookie_req,	"run transactions sent as cookie requests (--cookie-req, or the address had no cookie)") \
	X(txn_bad_cookie,	"run transactions sent with a deliberately invalid cookie (--bad-cookie)") \
	X(txn_plain,		"run transactions without a TFO option (--no-tfo)") \
	X(flood_syn_tx,		"SYNs of the --syn-flood share (never completed)") \
	X(flood_rx,		"segments the server sent to flood ports (ignored)") \
	X(done_tfo,		"run transactions completed that started as TFO (cookie + data)") \
	X(done_cookie_req,	"run transactions completed that started as cookie requests") \
	X(done_bad_cookie,	"run transactions completed that started with a bad cookie") \
	X(done_plain,		"run transactions completed that started without a TFO option") \
	X(spoof_syn_tx,		"spoofed SYNs a port took (--spoof-flood; never answered, never reset)") \
	X(spoof_tx_drop,	"spoofed SYNs a full TX queue refused (also in tx_drop_full)") \
	X(spoof_synack_rx,	"SYN-ACKs the server sent to spoofed sources (retransmissions included)") \
	X(spoof_rx_other,	"other segments the server sent to spoofed sources (RST...)") \
	X(responses_validated,	"responses received complete and as expected") \
	X(response_bytes,	"response bytes received in order") \
	X(synack_data,		"SYN-ACKs carrying response data (answered in the server's first packet)") \
	X(synack_fin,		"SYN-ACKs carrying the server's FIN") \
	X(fallbacks,		"SYN-ACKs acking only the SYN of a SYN with data and a cookie we held valid") \
	X(fallbacks_bad_cookie,	"SYN-ACKs acking only the SYN of a SYN with a deliberately invalid cookie") \
	X(cookies_learned,	"cookies cached for an address that had none") \
	X(cookies_replaced,	"cached cookies replaced by a different one from a SYN-ACK") \
	X(cookie_not_offered,	"SYN-ACKs to a cookie request or a bad cookie without a cookie") \
	X(cookie_bad_len,	"SYN-ACK TFO options with a cookie length outside 4..16 even (ignored)") \
	X(syn_retransmits,	"SYNs sent again after a timeout (without data)") \
	X(data_retransmits,	"request segments sent again after a timeout") \
	X(fin_retransmits,	"FINs sent again after a timeout") \
	X(rx_dup_synack,	"SYN-ACKs received after the handshake (answered with an ACK)") \
	X(rx_dup_data,		"segments carrying only data already received (answered with an ACK)") \
	X(rx_ooo,		"out-of-order segments dropped (answered with a duplicate ACK)") \
	X(rst_tx_synsent,	"RSTs sent to an ACK answering no SYN of ours (e.g. a server's TIME-WAIT)") \
	X(rx_no_conn,		"segments for a tuple with no transaction in flight (ignored)") \
	X(start_no_slot,	"starts the --rate allowed that found no free slot (raise --concurrency)")

/* Every one of these is an error: the exit code is 1 if any is non-zero. */
#define LG_STATS_ERRORS(X) \
	X(err_synack_ack,	"SYN-ACKs acking neither the SYN nor the SYN and all its data") \
	X(err_synack_tsecr,	"SYN-ACKs whose TSecr is not the TSval of one of our SYNs") \
	X(err_synack_data_plain, "SYN-ACKs with data answering a SYN without a TFO option (Linux drops it)") \
	X(err_bad_cookie_accepted, "SYN data sent with a deliberately invalid cookie and acknowledged") \
	X(err_rst_rx,		"transactions reset by the server") \
	X(err_ack_unsent,	"segments acknowledging data we never sent") \
	X(err_response_mismatch, "responses whose bytes differ from the expected ones") \
	X(err_response_short,	"responses ended by the server's FIN before the expected length") \
	X(err_response_long,	"responses longer than the expected length") \
	X(err_timeout_syn,	"SYNs unanswered after --retries retransmissions") \
	X(err_timeout_data,	"request data unacknowledged after --retries retransmissions") \
	X(err_timeout_fin,	"FINs unacknowledged after --retries retransmissions") \
	X(err_timeout_txn,	"transactions not closed within --timeout-ms") \
	X(err_dns_id,		"--dns-query: answers whose ID is not the query's") \
	X(err_dns_header,	"--dns-query: answers that are no response to a QUERY (QR, opcode), truncated (TC) or shorter than a header") \
	X(err_dns_question,	"--dns-query: answers whose question section is not the query's") \
	X(err_dns_rcode,	"--dns-query: answers with another RCODE than --dns-rcode") \
	X(err_dns_no_answer,	"--dns-query: NOERROR answers without an answer record") \
	X(err_warmup_no_cookie,	"client addresses still without a cookie when the warm-up ended")

#define LG_STATS_ALL(X) \
	LG_STATS_IO(X) \
	LG_STATS_NEIGH(X) \
	LG_STATS_TXN(X) \
	LG_STATS_ERRORS(X)

enum lg_stat_id {
#define LG_X_ENUM(name, help) LG_STAT_##name,
	LG_STATS_ALL(LG_X_ENUM)
#undef LG_X_ENUM
	/* the packet parser's drop reasons, "drop_<reason>" (pkt.h) */
	LG_STAT_PKT_DROP_BASE,
	LG_STAT_MAX = LG_STAT_PKT_DROP_BASE + TFO_PKT_DROP_MAX
};

#define LG_STAT_ERR_FIRST LG_STAT_err_synack_ack
#define LG_STAT_ERR_LAST LG_STAT_err_warmup_no_cookie

struct lg_stats {
	uint64_t c[LG_STAT_MAX];
} __rte_cache_aligned;

#define LG_INC(s, name) ((s)->c[LG_STAT_##name]++)
#define LG_ADD(s, name, v) ((s)->c[LG_STAT_##name] += (v))

const char *lg_stat_name(unsigned int id);
const char *lg_stat_help(unsigned int id);
void lg_stats_accumulate(struct lg_stats *dst, const struct lg_stats *src);
/** Sum of the err_* counters. */
uint64_t lg_stats_errors(const struct lg_stats *s);

/* ---- latency histogram ------------------------------------------------- */

/*
 * Log-linear (HDR-style): values below 2^LG_HIST_SUB land in their own
 * bucket; above, each power of two is split into 2^LG_HIST_SUB buckets, so
 * a bucket is at most 1/32 (3 %) wide relative to its values. Fixed size,
 * one add is a few instructions, nothing allocated.
 */
#define LG_HIST_SUB 5
#define LG_HIST_BUCKETS ((64 - LG_HIST_SUB + 1) << LG_HIST_SUB)

struct lg_hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t b[LG_HIST_BUCKETS];
};

static inline unsigned int
lg_hist_bucket(uint64_t v)
{
	unsigned int msb;

	if (v < (1u << LG_HIST_SUB))
		return (unsigned int)v;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	return ((msb - LG_HIST_SUB + 1) << LG_HIST_SUB) +
	       (unsigned int)((v >> (msb - LG_HIST_SUB)) & ((1u << LG_HIST_SUB) - 1));
}

static inline void
lg_hist_add(struct lg_hist *h, uint64_t v)
{
	h->b[lg_hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min || h->count == 1)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/** Smallest value of bucket @p i. */
uint64_t lg_hist_bucket_low(unsigned int i);
/**
 * Value at quantile @p q (0..1): the middle of the bucket holding it,
 * clamped to [min, max]. 0 for an empty histogram.
 */
uint64_t lg_hist_quantile(const struct lg_hist *h, double q);
/** @p dst += @p src. */
void lg_hist_merge(struct lg_hist *dst, const struct lg_hist *src);
/** @p dst = @p a - @p b, bucket by bucket (min/max from @p a). */
void lg_hist_diff(struct lg_hist *dst, const struct lg_hist *a, const struct lg_hist *b);

#endif /* LG_STATS_H */
