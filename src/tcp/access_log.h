/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the access log (`[server] access_log`, off by default).
 *
 * One line per sampled transaction (1 in `access_log_sample`), written
 * off the hot path: an lcore's engine fills a fixed-size binary record
 * (struct tfo_alog_rec) when it queues a sampled response; the poll's
 * latency flush (tfo_lat_flush) stamps it with the TX time and the
 * latency and puts the poll's records on the lcore's own SP/SC ring (one
 * ring enqueue per poll; a full ring drops them: access_log_drop_full).
 * Control 0 takes every ring's records in its loop, formats them into a
 * buffered FILE (flushed once a second and at exit; never on a worker) and
 * reopens the file when asked (SIGHUP, /tfo/reload: logrotate's
 * postrotate).
 *
 * Line: TIME CLIENT PORT tfo|plain SERVICE "REQUEST-LINE" STATUS BYTES US
 *   2026-12-05T01:30:00.123Z 198.18.0.2 41234 tfo http "GET / HTTP/1.1" 200 1234 5
 * TIME: when the response left, ISO 8601 UTC with milliseconds; REQUEST-LINE:
 * the request's first line, at most TFO_ALOG_REQ_MAX bytes, bytes outside
 * printable ASCII (and `"`, `\`) as \xHH; STATUS: the service's (http: the
 * HTTP status; 0: the service gives none); BYTES: the response's bytes;
 * US: request_to_response in microseconds (tcp/latency.h).
 */
#ifndef TFO_ACCESS_LOG_H
#define TFO_ACCESS_LOG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>

#include "net/pkt.h"
#include "ops/stats.h"
#include "tcp/latency.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of the request line a record keeps. */
#define TFO_ALOG_REQ_MAX 84
/** Records each lcore's ring holds (a power of two). */
#define TFO_ALOG_RING 4096
/** Lcores (producers) at most: workers and control lcores. */
#define TFO_ALOG_MAX_SRC RTE_MAX_LCORE

#define TFO_ALOG_F_TFO	0x01	/**< the connection opened with TFO */

/** One transaction, as a worker hands it over: 128 bytes. */
struct tfo_alog_rec {
	uint64_t tsc;		/**< when the response left (its TX flush) */
	struct tfo_addr peer;	/**< the client */
	uint32_t bytes;		/**< response bytes */
	uint32_t lat_us;	/**< request_to_response */
	uint16_t peer_port;
	uint16_t local_port;
	uint16_t status;	/**< tfo_svc_resp.status */
	uint8_t family;		/**< AF_INET or AF_INET6 */
	uint8_t flags;		/**< TFO_ALOG_F_* */
	uint8_t svc;		/**< the engine's service index */
	uint8_t req_len;	/**< bytes in req */
	uint8_t pad[2];
	char req[TFO_ALOG_REQ_MAX];	/**< the request line, not terminated */
};

/** An lcore's producer side: its ring and the records of this poll. */
struct tfo_alog_src {
	struct rte_ring *ring;		/**< SP/SC, struct tfo_alog_rec slots */
	struct tfo_stats *st;		/**< the lcore's counters */
	uint32_t sample;		/**< 1 in sample transactions */
	uint32_t skip;			/**< transactions before the next one */
	uint32_t nstage;
	struct tfo_alog_rec stage[TFO_LAT_PEND];
} __rte_cache_aligned;

/**
 * Whether this transaction is sampled (one decrement); if so the caller
 * fills stage[nstage++] but tsc and lat_us, after flushing first when
 * nstage == TFO_LAT_PEND.
 */
static inline bool
tfo_alog_sampled(struct tfo_alog_src *a)
{
	if (--a->skip != 0)
		return false;
	a->skip = a->sample;
	return true;
}

/**
 * Stamp the staged records with @p now and the poll's latency (from
 * @p l's t_rx), and put them on the ring (the rest:
 * access_log_drop_full). Called by tfo_lat_flush.
 */
void tfo_alog_src_flush(struct tfo_alog_src *a, const struct tfo_lat *l, uint64_t now);

/**
 * A producer on @p socket with a ring named @p name, sampling 1 in
 * @p sample (>= 1), counting in @p st. @return NULL with rte_errno set.
 */
struct tfo_alog_src *tfo_alog_src_create(const char *name, int socket,
					 uint32_t sample, struct tfo_stats *st);
void tfo_alog_src_free(struct tfo_alog_src *a);

/** Control 0's side: the file and every lcore's ring. */
struct tfo_alog {
	char path[PATH_MAX];
	FILE *f;			/**< NULL: not open (counted, retried) */
	volatile int reopen;		/**< set by SIGHUP / /tfo/reload */
	unsigned int nb_src;
	struct tfo_alog_src *src[TFO_ALOG_MAX_SRC];
	struct tfo_stats *st;		/**< control 0's counters */
	uint64_t tsc_hz;
	uint64_t base_tsc;		/**< a TSC ... */
	int64_t base_ns;		/**< ... and the UTC time then */
	uint64_t next_flush_tsc;
	const char *svc_name[256];	/**< by service index */
};

/**
 * Open @p a->path for appending (created 0640) and make it the file, the
 * one open before closed. @return 0, or -errno (the caller logs it): the
 * file open before (if any) stays in use.
 */
int tfo_alog_open(struct tfo_alog *a);

/**
 * Control 0, once per loop: reopen if asked, take every ring's records
 * and write their lines, flush the file once a second.
 * @return the records taken.
 */
unsigned int tfo_alog_poll(struct tfo_alog *a, uint64_t now_tsc);

/** Take what is left, write it, close the file. */
void tfo_alog_close(struct tfo_alog *a);

/** The line of @p r (with its newline) into @p buf. @return its length. */
int tfo_alog_format(const struct tfo_alog *a, const struct tfo_alog_rec *r,
		    char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TFO_ACCESS_LOG_H */
