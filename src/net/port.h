/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: port (NIC or vdev) set-up from a [port] section.
 *
 * Every worker gets one RX and one TX queue on every port; the control core
 * one more TX queue (and, with syn_steering, one RX queue for the SYNs an
 * rte_flow rule steers to it). RSS on the TCP/IP 4-tuple when there is more than one
 * RX queue; checksum offloads when the device has them and the section
 * allows them. All checks happen here, before any lcore starts.
 */
#ifndef TFO_PORT_H
#define TFO_PORT_H

#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "net/pkt.h"
#include "ops/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Configure and start the device named in @p cfg with @p nb_rxq RX queues
 * (one per worker) and @p nb_txq TX queues (one per worker + one per
 * control lcore). RX queue q takes its buffers from pools[q] (worker q's
 * socket's pool; pools[nb_rxq]: the SYN queue's, with cfg->syn_steering),
 * or every queue from pools[0] when @p nb_pools is 1; the descriptor rings
 * are on the device's socket. A device that needs as many TX as RX
 * queues (net_tap), or has no TX queue left for the control core (net_pcap
 * with one tx_pcap, virtio/VFs with a queue pair per worker), gets @p nb_rxq
 * of each and info->ctrl_tx_relay set. Fill @p info (port id, MAC, MTU,
 * addresses numbered from @p addr_base, offload flags, RSS functions).
 *
 * @return 0, or a negative errno with one line naming the key and value
 *   in @p err (device not found, more workers than queues, MTU refused,
 *   @p nb_pools neither 1 nor one per RX queue...).
 */
int tfo_port_setup(const struct tfo_cfg_port *cfg, uint16_t nb_rxq,
		   uint16_t nb_txq, struct rte_mempool *const pools[], uint16_t nb_pools,
		   uint8_t addr_base, struct tfo_port_info *info, char *err,
		   size_t errlen);

/**
 * The worker (0..syn_workers-1) whose RX queue RSS gives the flow of @p m,
 * a SYN the NIC steered to the SYN queue (info->syn_steering): from the
 * hash the NIC reported, or, when it reported none, from the Toeplitz hash
 * of @p p's addresses and ports under the port's RSS key. Both go through
 * the redirection table tfo_port_setup wrote (entry i -> worker i % W).
 */
unsigned int tfo_port_syn_worker(const struct tfo_port_info *info,
				 const struct rte_mbuf *m, const struct tfo_pkt *p);

/** The redirection table size of rss = peer (entry i -> worker i % W). */
#define TFO_PORT_PEER_RETA 128

/**
 * Set @p info up for a peer that spreads flows itself ([port] rss =
 * peer): the Toeplitz hash on the TCP 4-tuple under the well-known
 * 40-byte key of Microsoft's RSS specification, through a table of
 * TFO_PORT_PEER_RETA entries, entry i -> worker i % @p nb_workers.
 * tfo-server calls it on such a port; its peer (tfo-loadgen --rss-peer)
 * on a copy of its own port's info, to send each flow on the queue pair
 * tfo_port_flow_worker(info, nb_workers, flow) names.
 */
void tfo_port_rss_peer(struct tfo_port_info *info, uint16_t nb_workers);

/** tfo_port_flow_worker(): the redirection table is not known. */
#define TFO_PORT_WORKER_UNKNOWN UINT32_MAX

/**
 * The worker (0..@p nb_workers-1) whose RX queue RSS gives the flow @p p
 * (as the peer sends it: src = the peer), from the Toeplitz hash of its
 * addresses and ports under the port's RSS key: 0 with one worker,
 * TFO_PORT_WORKER_UNKNOWN when the device did not let tfo_port_setup write
 * its redirection table for @p nb_workers (or read its key back), or
 * spreads flows without RSS (net_tap's queues).
 */
unsigned int tfo_port_flow_worker(const struct tfo_port_info *info,
				  unsigned int nb_workers, const struct tfo_pkt *p);

/**
 * The interrupt file descriptor of RX queue @p queue of a started port
 * (configured with intr_conf.rxq), or a negative value when the device
 * gives none (net_memif, net_af_xdp, ...): not an error, nothing logged.
 */
int tfo_port_rx_intr_fd(uint16_t port_id, uint16_t queue);

/** Stop and close the port. */
void tfo_port_close(const struct tfo_port_info *info);

/** One line describing the port's set-up (offloads, RSS, queues) for the log. */
void tfo_port_describe(const struct tfo_port_info *info, char *buf, size_t len);

/**
 * What to do when a device cannot spread flows over several workers (no
 * RSS): for net_ice, the DDP package (without it the E810 runs in safe
 * mode); otherwise fewer lcores, or rss = peer. Ends the refusal line.
 */
const char *tfo_port_no_rss_hint(const char *driver_name);

/**
 * The redirection table tfo_port_setup writes: entry i to worker queue
 * i % @p nb_workers, so that the SYN queue gets nothing by RSS and the
 * worker of a hash is (hash % reta_size) % nb_workers. Any size the
 * device reports that is a multiple of RTE_ETH_RETA_GROUP_SIZE (64..512
 * on most NICs, 2048 on ice), into @p reta of @p nb_groups groups.
 * @return the groups used, or -ENOTSUP (size 0 or not a multiple of 64,
 *   no worker, or more groups than @p nb_groups).
 */
int tfo_port_reta_fill(uint16_t reta_size, uint16_t nb_workers,
		       struct rte_eth_rss_reta_entry64 *reta, size_t nb_groups);

#ifdef __cplusplus
}
#endif

#endif /* TFO_PORT_H */
