/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench's transaction benchmark, inside: the state its two files share
 * (bench_txn.c: the clients and the timed runs; bench_txn_srv.c: the
 * device-free server they talk to, its set-up and its end state).
 */
#ifndef TFO_BENCH_TXN_PRIV_H
#define TFO_BENCH_TXN_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "cookie/cookie.h"
#include "lcore/worker.h"
#include "server/server.h"

#include "bench_txn.h"

#define BT_POOL 16383
#define BT_STASH 2048		/* segments sent in one step, at most */
#define BT_SRV_IP ((198u << 24) | (18u << 16) | 2)

/** The server's primary key (the clients compute their cookies under it). */
extern const struct tfo_key bt_key;

/* What one transaction's client knows. */
struct bt_flow {
	uint32_t iss;
	uint32_t srv_isn;
	uint32_t srv_end;	/* after the last byte/FIN the server sent */
	uint32_t srv_tsval;
	uint32_t resp_bytes;
	uint16_t segs;
	uint32_t synack_ack;	/* the SYN-ACK's acknowledgment number */
	uint8_t flags;		/* TCP flags seen, ORed */
	bool synack;
	bool cookie;		/* the SYN-ACK carried a TFO cookie */
};

struct bt {
	struct bt_params p;
	struct tfo_server *srv_all;	/* owns the pool, the ring, the worker */
	struct rte_mempool *pool;
	struct rte_ring *ring;		/* the worker's, to the control core */
	struct tfo_port_info srv, cli;
	uint16_t svc_port;
	struct tfo_worker *w;
	struct tfo_control *c[BT_MAX_CONTROLS];
	unsigned int nc;		/* control lcores */
	uint8_t kind;			/* of the current burst (the live ones: TFO) */
	uint64_t opened_tfo;
	uint64_t last_wrk, last_ctl;	/* of the last step */
	uint64_t last_ctl_at[BT_MAX_CONTROLS];
	int id_to_control, id_syncookies;
	uint64_t tsc_per_us;
	uint32_t max_conns;
	uint32_t nb_bufs;
	uint32_t next_id;
	uint64_t opened;
	unsigned int errors;
	char why[160];
	/* the client cookie of the last address */
	uint32_t ck_ip;
	uint8_t ck[TFO_COOKIE_LEN];
	/* the current burst: ids base .. base + n - 1 */
	uint32_t base;
	unsigned int n;
	bool ackfin;		/* this burst's ACK carries the FIN */
	struct bt_flow f[BT_BURST_MAX];
	struct rte_mbuf *m[BT_BURST_MAX];
	/* what the flush took, freed after the step */
	unsigned int nstash;
	struct rte_mbuf *stash[BT_STASH];
	uint32_t resp_bytes, resp_segs;
	uint32_t slow_bytes, slow_segs;	/* the slow path's response */
};

/* One burst's figures, before they are added up. */
struct bt_burst_cyc {
	uint64_t syn, ack, fin, wrk, ctl;
	uint64_t ctl_at[BT_MAX_CONTROLS];
	uint32_t trans, pkts_in, pkts_out, to_ctl, syncookies, wrk_syncookies;
};

/** @p host_order as a tfo_addr (IPv4). */
void bt_addr(struct tfo_addr *a, uint32_t host_order);

/** The device's TX: the worker's queue, a control lcore's (tfo_tx flush). */
void bt_flush(struct tfo_tx *tx, uint8_t port_idx);
void bt_ctrl_flush(struct tfo_tx *tx, uint8_t port_idx);

/** What the clients learn from the segments of one step; then free them.
 *  @return the TSC ticks of the free (a PMD's TX completion). */
uint64_t bt_take_output(struct bt *b);

/** A burst of @p n fresh transactions, its figures added to @p c; without
 *  @p close the connections stay open (FIN_WAIT_2). */
void bt_burst(struct bt *b, unsigned int n, bool close, struct bt_burst_cyc *c);

#endif /* TFO_BENCH_TXN_PRIV_H */
