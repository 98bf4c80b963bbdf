/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench: a worker in memory (tfo_worker_burst/housekeeping, no device)
 * and the TFO clients that talk to it, for the pipeline and http benchmarks.
 *
 * One transaction, as the Linux TFO client makes it (IPv4, MSS, SACK-perm,
 * timestamps, window scale, an 8-byte cookie valid under the worker's
 * primary key):
 *   SYN + cookie + request -> parse, classify, batched cookie check,
 *                             engine open, service, SYN-ACK + response
 *                             (+ FIN when the service closes)
 *   ACK of all of it       -> lookup, engine (FIN_WAIT_2)
 *   FIN                    -> lookup, engine: ACK out, entry freed
 * (with ackfin: the ACK and the FIN in one segment, as tfo-loadgen sends
 * them). Each step is one burst of up to 64 segments of as many
 * transactions, followed by tfo_worker_housekeeping() (timers, TX flush),
 * exactly the worker's poll loop without rte_eth_rx_burst. The flush plays
 * the device: it notes what each segment tells the clients and frees it
 * (a PMD's TX completion frees too). Client frames are built and parsed
 * outside the timed regions.
 */
#ifndef TFO_BENCH_TXN_H
#define TFO_BENCH_TXN_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BT_BURST_MAX 64

/**
 * What the clients of a run do. TFO: the fast path above. The others go
 * to the control core the way they do in tfo-server (the worker's ring,
 * tfo_control_poll, its replies sent directly): SYN -> SYN-ACK, then ACK +
 * request -> response + FIN, then ACK + FIN -> ACK (tfo-loadgen's shape).
 *   PLAIN       no TFO option
 *   BAD_COOKIE  cookie with every bit flipped + request (the SYN-ACK acks
 *               only the SYN; the request goes again with the ACK)
 *   COOKIE_REQ  empty TFO option (the SYN-ACK carries a cookie)
 *   FLOOD       a plain SYN from a fresh address/port that never goes on:
 *               the SYN-ACK (or SYN cookie) is the whole transaction
 */
enum bt_kind {
	BT_KIND_TFO = 0,
	BT_KIND_PLAIN,
	BT_KIND_BAD_COOKIE,
	BT_KIND_COOKIE_REQ,
	BT_KIND_FLOOD,
};

struct bt_params {
	const char *service;	/**< "echo" or "http" */
	const char *http_root;	/**< document root for http */
	const uint8_t *req;	/**< request carried in the SYN */
	uint32_t req_len;	/**< at most 1400 */
	uint32_t live;		/**< other connections kept open (FIN_WAIT_2) */
	uint32_t burst;		/**< transactions per burst, 1..BT_BURST_MAX */
	uint32_t time_wait_ms;	/**< engine's TIME-WAIT (0: entry freed at once) */
	bool offload;		/**< RX checksum flags trusted, TX checksums offloaded */
	bool tx_multiseg;	/**< zero-copy bodies (external buffers) allowed */
	bool ackfin;		/**< the client's ACK and FIN in one segment */
	bool cold;		/**< client frames flushed from the caches */
	uint8_t kind;		/**< enum bt_kind; the live ones are TFO */
	/** Control lcores of the device-free server (0: 1). Slow-path
	 *  connections spread over them by tfo_ctrl_pick, as in tfo-server;
	 *  each is polled in turn after the worker and timed apart. */
	uint32_t nb_controls;
	/** [tcp] syncookies for the run ("auto", "always", "no"); NULL: the
	 *  default (auto). */
	const char *syncookies;
};

#define BT_MAX_CONTROLS 4

/**
 * TSC ticks, summed over the transactions of a run, per step. A burst whose
 * steps took more than BT_INTERRUPTED x the run's median burst was
 * interrupted (the OS ran something else on the core: this machine is
 * shared): it is left out of the sums and counted.
 */
struct bt_cycles {
	uint64_t syn;		/**< SYN burst + housekeeping */
	uint64_t ack;		/**< ACK (or ACK+FIN) burst + housekeeping */
	uint64_t fin;		/**< FIN burst + housekeeping (0 with ackfin) */
	uint64_t trans;		/**< transactions completed and counted */
	uint64_t pkts_in;	/**< client segments the worker took (counted) */
	uint64_t pkts_out;	/**< segments the worker sent (counted) */
	uint64_t wrk;		/**< of syn + ack + fin: the worker's burst + housekeeping */
	uint64_t ctl;		/**< of syn + ack + fin: tfo_control_poll, all controls */
	uint64_t ctl_at[BT_MAX_CONTROLS];	/**< of ctl: each control lcore's */
	uint64_t to_ctl;	/**< frames the worker passed to the control core */
	uint64_t syncookies;	/**< SYN-ACKs with a SYN cookie (worker + controls) */
	uint64_t wrk_syncookies;	/**< of syncookies: sent by the worker */
	uint64_t bursts;	/**< bursts run */
	uint64_t bursts_left_out;	/**< of which interrupted */
};

#define BT_INTERRUPTED 10

struct bt;

/** Medians over the repetitions of bt_measure(), TSC ticks per transaction. */
struct bt_result {
	double syn, ack, fin, total;
	double wrk, ctl;	/**< worker / control parts of total (ctl: all controls) */
	/** Each control lcore's part, and the largest of them (the busiest
	 *  control core: it bounds the control stage's rate). */
	double ctl_at[BT_MAX_CONTROLS], ctl_max;
	uint32_t nb_controls;
	double to_ctl;		/**< frames to the control core per transaction */
	double syncookies;	/**< SYN cookies sent per transaction */
	double wrk_syncookies;	/**< of which the worker sent */
	double lo, hi;		/**< smallest and largest total */
	double pkts;		/**< segments in + out per transaction */
	double zero_copy;	/**< segments with an external body, per transaction */
	uint64_t bursts, left_out;
	uint32_t resp, segs;	/**< bytes and segments of one response */
};

/**
 * bt_create(@p p), one warm-up run and @p reps runs of @p trans
 * transactions, bt_check_final(), bt_free(). @return 0 or a negative errno
 * (why on stderr).
 */
int bt_measure(const struct bt_params *p, unsigned int reps, unsigned int trans,
	       struct bt_result *res);

#define BT_MAX_REPS 99

/** Set up a worker, its engine, service and keys; open p->live connections.
 *  @return NULL (message on stderr) if it cannot. */
struct bt *bt_create(const struct bt_params *p);

/** Run @p n transactions (rounded up to bursts), adding to @p cyc.
 *  @return 0, or -EIO when a segment was not what a client expects. */
int bt_run(struct bt *b, unsigned int n, struct bt_cycles *cyc);

/**
 * End state after the runs: every run connection closed, the live ones
 * still open, each SYN served on the fast path, nothing for the control
 * core, the worker's accounting balanced. @return 0, or -EIO with the
 * reason on stderr.
 */
int bt_check_final(struct bt *b);

/** Bytes of one response (the first transaction's), segments per response. */
uint32_t bt_resp_bytes(const struct bt *b);
uint32_t bt_resp_segs(const struct bt *b);

/** The worker's counter @p name (tfo_stats_lookup), 0 if unknown. */
uint64_t bt_counter(const struct bt *b, const char *name);

void bt_free(struct bt *b);

/**
 * A document root in a fresh temporary directory with one file per entry
 * of @p sizes ("/o<size>", e.g. /o100, /o10240: bytes 'a'..'z'). The http
 * service reads files at create, so the directory can go right after.
 * @return 0 with the path in @p dir (at least 64 bytes), or -errno.
 */
int bt_make_docroot(char *dir, const uint32_t *sizes, unsigned int n);
void bt_remove_docroot(const char *dir, const uint32_t *sizes, unsigned int n);

#ifdef __cplusplus
}
#endif

#endif /* TFO_BENCH_TXN_H */
