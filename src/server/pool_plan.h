/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: how many mbufs each NUMA socket's pool needs.
 *
 * A server has one mbuf pool per socket where its lcores run: a worker's
 * RX queues take their buffers from its own socket's pool (as l3fwd does),
 * the SYN queue of syn_steering from control 0's, and every engine builds
 * what it sends from its lcore's. This is the arithmetic of that, with no
 * device and no EAL call, so that a two-socket layout can be checked on a
 * one-socket machine (tests/test_pool_plan.c).
 */
#ifndef TFO_POOL_PLAN_H
#define TFO_POOL_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_config.h>

#include "ops/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Socket ids a plan knows: 0..TFO_PLAN_SOCKETS-1. */
#define TFO_PLAN_SOCKETS RTE_MAX_NUMA_NODES

/** Slots of each relay ring (control lcore k -> worker k % W, per port). */
#define TFO_POOL_PLAN_RELAY 1024u

/** Slots of each worker's neighbour ring (ARP and ND to control 0). */
#define TFO_POOL_PLAN_NEIGH 256u

/** mbufs net_af_xdp (DPDK 22.11) puts in each socket's fill ring at its
 *  set-up, whatever rx_desc says (ETH_AF_XDP_DFLT_NUM_DESCS). */
#define TFO_POOL_PLAN_XSK_FILL 2048u

/** Sent frames net_af_xdp may hold per socket until it pulls them from the
 *  completion ring (its size). */
#define TFO_POOL_PLAN_XSK_COMP 2048u

/** Slots of the inbox of a control lcore > 0 (path-MTU errors only). */
#define TFO_POOL_PLAN_CTL_INBOX 256u

/** Slots of a worker's inbox: the SYNs of hardware steering need
 *  [server] ring_size; without, it carries only path-MTU errors. */
uint32_t tfo_pool_plan_inbox_size(const struct tfo_config *c);

/** Data room of the mbufs for frames of @p max_mtu bytes at most. */
uint16_t tfo_pool_plan_data_room(uint16_t max_mtu);

/** Where a server's lcores and ports are, and what it asks for. */
struct tfo_pool_plan_in {
	/** rx_desc, tx_desc and syn_steering of cfg->nb_ports ports,
	 *  ring_size, mbuf_cache, burst. */
	const struct tfo_config *cfg;
	unsigned int nb_workers;	/**< >= 1 */
	unsigned int nb_controls;	/**< >= 1; control 0 is the main lcore */
	const int *worker_socket;	/**< [nb_workers]: each worker lcore's socket */
	const int *control_socket;	/**< [nb_controls]: each control lcore's */
	/** [cfg->nb_ports]: each port's (rte_eth_dev_socket_id); a negative
	 *  one (SOCKET_ID_ANY: a vdev) is control 0's. NULL: all control 0's. */
	const int *port_socket;
	uint32_t inbox_size;		/**< slots of a worker's inbox */
	uint32_t ctl_inbox_size;	/**< slots of the inbox of a control > 0 */
	/** mbufs in all ([server] mbufs); 0: each socket's need. */
	uint32_t mbufs;
	/** Take @p mbufs as given even below the need (benchmarks). */
	bool exact;
};

/** The parts of a socket's need, for --print-config. */
enum tfo_pool_part {
	TFO_POOL_RXQ,		/**< RX descriptors (and the SYN queue) */
	TFO_POOL_XSK,		/**< net_af_xdp's fill and completion rings */
	TFO_POOL_TXQ,		/**< TX descriptors */
	TFO_POOL_RINGS,		/**< control, relay, neighbour rings, inboxes */
	TFO_POOL_LCORES,	/**< per-lcore caches (x1.5), a burst, TX buffers */
	TFO_POOL_SLACK,		/**< 1024 frames in flight */
	TFO_POOL_NB_PARTS
};

/** One pool per socket with lcores; a socket whose need is 0 has none. */
struct tfo_pool_plan {
	/** need[s] by part (they add up to it) */
	uint64_t part[TFO_PLAN_SOCKETS][TFO_POOL_NB_PARTS];
	/** What the lcores of each socket can hold at once: their RX and TX
	 *  descriptors (net_af_xdp: its fill and completion rings instead of
	 *  the RX descriptors), the rings their frames wait in, their caches
	 *  and TX buffers, and 1024 more for the frames in flight. Connections
	 *  hold no mbuf (a send queue is bytes, re-sent segments are built
	 *  anew). 0: no lcore. */
	uint32_t need[TFO_PLAN_SOCKETS];
	/** mbufs of each socket's pool (0: none): its need, or its share of
	 *  @p in->mbufs, in proportion to its need (the rest of the division
	 *  to control 0's socket). */
	uint32_t mbufs[TFO_PLAN_SOCKETS];
	uint32_t need_all;		/**< the sum of need[], at most UINT32_MAX */
	unsigned int nb_pools;		/**< sockets with a pool, >= 1 */
	/** Bit i: port i is on a socket where no lcore runs (each of its
	 *  frames crosses the interconnect: worth a warning). */
	uint32_t ports_alone;
};

/**
 * The socket whose pool RX queue @p q of every port takes its buffers
 * from: worker q's for q < in->nb_workers, else (the SYN queue of
 * syn_steering) control 0's.
 */
static inline int
tfo_pool_plan_rxq_socket(const struct tfo_pool_plan_in *in, unsigned int q)
{
	return q < in->nb_workers ? in->worker_socket[q] : in->control_socket[0];
}

/**
 * The pool of each socket for the layout in @p in, into @p out.
 *
 * @return 0; -EINVAL with one line in @p err when a count is 0 or a socket
 *   is out of 0..TFO_PLAN_SOCKETS-1; -ENOSPC when a socket's share of
 *   in->mbufs is below its need (the line names [server] mbufs, the socket
 *   and the total that is enough).
 */
int tfo_pool_plan(const struct tfo_pool_plan_in *in, struct tfo_pool_plan *out,
		  char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* TFO_POOL_PLAN_H */
