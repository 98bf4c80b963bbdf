/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: per-instance connection table and entry pool.
 *
 * One table per engine instance (one lcore): a fixed array of entries
 * (struct tfo_conn, two cache lines each) sized at create, a LIFO free list
 * (a freed entry is reused first, while it is still in cache), and an index
 * from the 4-tuple to the entry. Single writer, no locks, no allocation
 * after create.
 *
 * The index is an open-addressing table of our own rather than rte_hash:
 * buckets of one cache line hold 8 slots (16-bit tag from the hash + 32-bit
 * entry index); a key that finds its home bucket full goes to the next one
 * (linear probing over buckets) and raises the home bucket's overflow count,
 * so a lookup stops at the first bucket that nothing overflowed from
 * (F14-style, no tombstones: deletes leave the table as clean as inserts).
 * Bucket count: a power of two with at most 6 live entries per bucket on
 * average at max_conns (<= 75% slots used, usually < 50%). The key is
 * compared in the entry, which the engine reads next anyway, so a hit costs
 * the bucket line plus the entry lines. Measured against rte_hash (single
 * writer, CRC32, the same slots per entry) with `tfo-bench conntable`, TSC
 * cycles per key at 1k / 64k / 1M live: bulk-32 hit + entry read 17 / 54 /
 * 120 (rte_hash 27 / 70 / 163), single hit 20 / 67 / 240 (57 / 120 / 430),
 * bulk miss 15 / 16 / 34 (19 / 19 / 31), remove + insert 50 / 60 / 68
 * (165 / 200 / 455); index memory at 1M: 20 MiB (rte_hash about 76 MiB).
 * Ours wins because a hit is one bucket line + the entry (rte_hash reads
 * its key store, then we read the entry) and deletes are cheap.
 *
 * The hash is keyed (random 256-bit key per table, multiply-fold mixing)
 * so that a client choosing its source ports cannot aim at one bucket.
 */
#ifndef TFO_CONN_H
#define TFO_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "net/pkt.h"
#include "tcp/timer.h"

#ifdef __cplusplus
extern "C" {
#endif

/** No entry / no buffer. */
#define TFO_CONN_NONE UINT32_MAX

/* struct tfo_conn_key, the 4-tuple: net/pkt.h (a parsed segment carries it). */

static inline void
tfo_conn_key_from_pkt(struct tfo_conn_key *k, const struct tfo_pkt *p)
{
	k->peer = p->src;
	k->peer_port = p->sport;
	k->local_port = p->dport;
	k->local_idx = p->local_idx;
	k->family = p->family;
	k->pad = 0;
}

/* Word @p i (0..2) of key @p k: a scalar load each, where a memcpy of
 * the three into an array went through the stack (callgrind). */
static inline uint64_t
tfo_conn_key_word(const struct tfo_conn_key *k, unsigned int i)
{
	uint64_t w;

	memcpy(&w, (const uint8_t *)k + 8 * i, sizeof(w));
	return w;
}

static inline bool
tfo_conn_key_eq(const struct tfo_conn_key *a, const struct tfo_conn_key *b)
{
	return ((tfo_conn_key_word(a, 0) ^ tfo_conn_key_word(b, 0)) |
		(tfo_conn_key_word(a, 1) ^ tfo_conn_key_word(b, 1)) |
		(tfo_conn_key_word(a, 2) ^ tfo_conn_key_word(b, 2))) == 0;
}

/* tfo_conn.flags */
#define TFO_CF_PEER_TS		0x0001	/**< peer sent timestamps: we send them */
#define TFO_CF_PEER_WS		0x0002	/**< peer sent window scale: both scale */
#define TFO_CF_PEER_SACK	0x0004	/**< peer sent SACK-permitted: echoed, blocks used */
#define TFO_CF_TFO		0x0008	/**< opened with the SYN's data accepted */
#define TFO_CF_TFO_PENDING	0x0010	/**< counted in the pending-TFO gauge */
#define TFO_CF_SYN_TFO_OPT	0x0020	/**< the SYN carried a TFO option */
#define TFO_CF_FIN_QUEUED	0x0040	/**< our FIN follows the send queue */
#define TFO_CF_PEER_FIN		0x0080	/**< the peer's FIN was received */
#define TFO_CF_RTT_VALID	0x0100	/**< srtt/rttvar hold a sample */
#define TFO_CF_RTT_TIMING	0x0200	/**< rtt_seq/rtt_start time a segment */
#define TFO_CF_RECOVERY		0x0400	/**< in fast recovery (NewReno) */
#define TFO_CF_VLAN		0x0800	/**< frames carry vlan_tci */
#define TFO_CF_SYNACK_DATA	0x1000	/**< our first SYN-ACK carried data */
#define TFO_CF_SYNCOOKIE	0x2000	/**< created from a SYN-cookie ACK */
#define TFO_CF_FIN_ACKED	0x4000	/**< our FIN is acknowledged */
#define TFO_CF_OOW_STAMP	0x8000	/**< oow_ms holds when a duplicate SYN
					 *   was last answered (SYN_RCVD) */

/* tfo_conn.flags2 */
#define TFO_CF2_KEEPALIVE	0x01	/**< answered a request, kept for the next
					 *   (a drain closes it while it waits) */
#define TFO_CF2_SYN_STAMP	0x02	/**< recover holds the SYN's arrival
					 *   (tfo_lat.t_rx >> TFO_LAT_STAMP_SHIFT)
					 *   until the first response: recover is
					 *   read only in recovery, which cannot
					 *   begin before data is sent, and entering
					 *   it clears this flag */
#define TFO_CF2_SVC_IDLE	0x04	/**< idle_code replaces [tcp] idle_timeout_ms */

/** What the entry's single timer is armed for. */
enum tfo_conn_timer_kind {
	TFO_CT_NONE = 0,
	TFO_CT_RTO,		/**< SYN-ACK/data/FIN retransmission */
	TFO_CT_PERSIST,		/**< zero-window probe */
	TFO_CT_IDLE,		/**< keep-alive idle, FIN_WAIT_2 limit */
	TFO_CT_TIME_WAIT,
};

/**
 * One connection: 128 bytes, two cache lines. The first line has what
 * lookup and most segments touch (key, state, sequence space, windows);
 * the second the timer, RTT estimator and route. Sequence numbers are
 * host order. Layout is the TCP engine's business; only the key and the
 * timer node are used by this module and timer.c.
 */
struct tfo_conn {
	/* cache line 0 */
	struct tfo_conn_key key;
	uint8_t state;		/**< enum tfo_conn_state (engine.h) */
	uint8_t tkind;		/**< enum tfo_conn_timer_kind */
	uint16_t flags;		/**< TFO_CF_* */
	uint32_t snd_una;
	uint32_t snd_nxt;	/**< next new or retransmitted byte to send */
	uint32_t snd_max;	/**< highest sequence sent + 1 */
	uint32_t rcv_nxt;
	uint32_t snd_wnd;	/**< peer's window, scaled, in bytes */
	uint32_t cwnd;		/**< bytes */
	uint32_t ts_recent;	/**< peer's TSval to echo */
	uint16_t mss;		/**< min(peer MSS, ours): data + options */
	uint16_t req_len;	/**< request bytes held in rbuf */
	uint32_t sbuf;		/**< send buffer index, or TFO_CONN_NONE */
	/* cache line 1 */
	struct tfo_timer timer;
	uint32_t rbuf;		/**< request buffer index, or TFO_CONN_NONE */
	uint32_t ssthresh;
	uint32_t wl1;		/**< seq of the last window update; the peer's
				 *   ISN while in SYN_RCVD */
	uint32_t recover;	/**< NewReno: snd_max when recovery began */
	uint32_t rtt_seq;	/**< RTT timing without timestamps (Karn) */
	uint32_t rtt_start;	/**< ms */
	uint32_t ts_off;	/**< per-connection TSval offset (RFC 7323 5.4) */
	uint16_t srtt8;		/**< smoothed RTT, ms << 3 */
	uint16_t rttvar4;	/**< RTT variation, ms << 2 */
	uint8_t peer_ws;	/**< peer's window shift */
	uint8_t retries;	/**< consecutive RTOs or window probes */
	uint8_t dupacks;
	uint8_t port_idx;
	struct rte_ether_addr peer_mac;
	uint16_t vlan_tci;
	uint16_t adv_wnd;	/**< last window we advertised, unscaled
				 *   bytes >> our shift, for window updates */
	uint8_t svc;		/**< index of the service (engine's list) */
	uint8_t flags2;		/**< TFO_CF2_* (flags is full) */
	union {
		uint16_t oow_ms;	/**< SYN_RCVD: when a duplicate SYN
					 *   was last answered, ms (mod 2^16),
					 *   valid with TFO_CF_OOW_STAMP (the
					 *   rate limit of Linux's
					 *   last_oow_ack_time) */
		uint16_t idle_code;	/**< after SYN_RCVD: the idle timeout
					 *   the last response asked for
					 *   (tfo_svc_resp.idle_ms, packed),
					 *   valid with TFO_CF2_SVC_IDLE */
	};
	uint16_t req_start;	/**< when the held request began, in
				 *   TFO_REQ_TICK_MS ticks (mod 2^16);
				 *   while req_len == 0: since when the
				 *   connection waits for a request */
} __rte_cache_aligned;

/**
 * A connection in TIME-WAIT, as Linux's timewait sockets: what answering
 * its segments needs and nothing more, one cache line, so that the last
 * ACK frees the 128-byte entry at once. The table keeps these records in
 * a ring in the order they were made (TIME-WAIT has one duration, so the
 * oldest is the first due) and indexes them with the entries.
 */
struct tfo_tw {
	struct tfo_conn_key key;
	uint32_t snd_nxt;	/**< our next sequence number (all acked) */
	uint32_t rcv_nxt;
	uint32_t ts_recent;	/**< peer's TSval to echo */
	uint32_t ts_off;	/**< our TSval offset */
	uint32_t expire_ms;	/**< deadline, the engine's ms clock (mod 2^32) */
	uint16_t flags;		/**< the entry's TFO_CF_* */
	uint8_t peer_ws;
	uint8_t port_idx;
	struct rte_ether_addr peer_mac;
	uint16_t vlan_tci;
	uint8_t live;		/**< 0: removed, the slot waits for the ring's head */
	uint8_t restarted;	/**< expire_ms moved on: requeue when oldest */
	uint8_t pad[6];
} __rte_cache_aligned;

/* ---- the table --------------------------------------------------------- */

struct tfo_conn_table;

/**
 * A table of @p max_conns entries (at most 2^31) on @p socket_id, with a
 * fresh random hash key. @return NULL with rte_errno set on failure.
 */
struct tfo_conn_table *tfo_conn_table_create(const char *name,
					     uint32_t max_conns,
					     int socket_id);
/**
 * The same with room for @p max_tw TIME-WAIT records (0: none), indexed
 * with the entries (the index is sized for both).
 */
struct tfo_conn_table *tfo_conn_table_create_tw(const char *name,
						uint32_t max_conns,
						uint32_t max_tw,
						int socket_id);
void tfo_conn_table_free(struct tfo_conn_table *t);

/** The entry of @p k, or NULL (also when @p k is in TIME-WAIT). */
struct tfo_conn *tfo_conn_lookup(const struct tfo_conn_table *t,
				 const struct tfo_conn_key *k);

/**
 * Look up @p n keys (any n) in a pipelined pass: hash all, prefetch the
 * buckets, match the tags, prefetch the entries, compare the keys. A key
 * in TIME-WAIT gives tfo_conn_tw_mark(): an entry in state 0 that matches
 * no key, so that a caller treating it as a stale entry looks again.
 */
void tfo_conn_lookup_bulk(const struct tfo_conn_table *t,
			  const struct tfo_conn_key *const *keys,
			  unsigned int n, struct tfo_conn **out);

/**
 * tfo_conn_lookup_bulk() of the keys @p n TCP segments carry (tfo_pkt.key,
 * as tfo_pkt_classify() left it): no key is copied.
 */
void tfo_conn_lookup_bulk_pkt(const struct tfo_conn_table *t,
			      const struct tfo_pkt *const *pkts,
			      unsigned int n, struct tfo_conn **out);

/** The marker entry tfo_conn_lookup_bulk() gives for a TIME-WAIT key. */
struct tfo_conn *tfo_conn_tw_mark(struct tfo_conn_table *t);

/**
 * Take a free entry for @p k and index it. The entry's key and timer node
 * are set, everything else is garbage (the engine initialises it).
 *
 * @return the new entry; NULL with *exists set to the entry that already
 *   has @p k (tfo_conn_tw_mark() when it is in TIME-WAIT); NULL with
 *   *exists NULL when the pool is full.
 */
struct tfo_conn *tfo_conn_insert(struct tfo_conn_table *t,
				 const struct tfo_conn_key *k,
				 struct tfo_conn **exists);

/** Remove @p c from the index and return it to the pool. */
void tfo_conn_remove(struct tfo_conn_table *t, struct tfo_conn *c);

/* ---- TIME-WAIT records ---------------------------------------------- */

/** The TIME-WAIT record of @p k, or NULL. */
struct tfo_tw *tfo_conn_tw_lookup(const struct tfo_conn_table *t,
				  const struct tfo_conn_key *k);

/**
 * Index a copy of @p rec (its key must be in no entry or record) as the
 * newest record. @return it, or NULL when the ring is full
 * (tfo_conn_tw_full(): end the oldest first).
 */
struct tfo_tw *tfo_conn_tw_add(struct tfo_conn_table *t, const struct tfo_tw *rec);

/**
 * The slot the next record goes to (its fields are the caller's to fill
 * but key, live, restarted), or NULL when the ring is full.
 */
struct tfo_tw *tfo_conn_tw_next(struct tfo_conn_table *t);

/**
 * Entry @p c becomes the record @p w (from tfo_conn_tw_next()): the key's
 * index slot names @p w, @p c goes back to the pool. One index walk, where
 * remove + add take two.
 */
void tfo_conn_tw_replace(struct tfo_conn_table *t, struct tfo_conn *c,
			 struct tfo_tw *w);

/** Remove @p w from the index; its slot is reused once it is the oldest. */
void tfo_conn_tw_remove(struct tfo_conn_table *t, struct tfo_tw *w);

/** The oldest live record (slots of removed ones are dropped), or NULL. */
struct tfo_tw *tfo_conn_tw_oldest(struct tfo_conn_table *t);

/** Make the oldest live record the newest (its deadline moved). */
struct tfo_tw *tfo_conn_tw_requeue(struct tfo_conn_table *t);

/** No slot left for tfo_conn_tw_add() (dropping removed ones first). */
bool tfo_conn_tw_full(struct tfo_conn_table *t);

/** TIME-WAIT records live now / at most. */
uint32_t tfo_conn_tw_count(const struct tfo_conn_table *t);
uint32_t tfo_conn_tw_max(const struct tfo_conn_table *t);

/** Entries in use / free. */
uint32_t tfo_conn_count(const struct tfo_conn_table *t);
uint32_t tfo_conn_free_count(const struct tfo_conn_table *t);

/** Index of @p c in the entry array (the timer wheel's node index). */
uint32_t tfo_conn_index(const struct tfo_conn_table *t,
			const struct tfo_conn *c);
/** Entry number @p idx. */
struct tfo_conn *tfo_conn_at(const struct tfo_conn_table *t, uint32_t idx);

/** Base of the entry array (for tfo_timer_wheel_create). */
struct tfo_conn *tfo_conn_array(const struct tfo_conn_table *t);

/** Bytes of memory the table uses (entries + index + free list +
 *  TIME-WAIT records). */
size_t tfo_conn_table_memory(const struct tfo_conn_table *t);

/** Bytes tfo_conn_table_create_tw(@p max_conns, @p max_tw) allocates
 *  (what tfo_conn_table_memory then reports), without allocating. */
size_t tfo_conn_table_plan(uint32_t max_conns, uint32_t max_tw);

/** Call @p fn on every entry in use (teardown, tests). */
void tfo_conn_foreach(struct tfo_conn_table *t,
		      void (*fn)(struct tfo_conn *c, void *arg), void *arg);

/** Longest probe of any entry, in buckets (1: all in their home bucket). */
uint32_t tfo_conn_table_max_probe(const struct tfo_conn_table *t);

#ifdef __cplusplus
}
#endif

#endif /* TFO_CONN_H */
