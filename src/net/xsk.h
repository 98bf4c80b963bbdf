/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tfo-fastpath: the kernel's counters of a net_af_xdp port's AF_XDP
 * sockets (src/net/xsk.c). net_af_xdp keeps its sockets private and its
 * imissed is only the kernel's rx_dropped: it says neither that the fill
 * ring ran empty (no buffer to receive into: the pool, or a leak) nor that
 * the RX ring was full (no worker took the frames in time), nor that the
 * kernel refused a TX descriptor. A port's sockets are the AF_XDP sockets
 * its set-up created (tfo_xsk_find), read
 * with getsockopt(XDP_STATISTICS) on a control lcore, once a stats line.
 */
#ifndef TFO_XSK_H
#define TFO_XSK_H

#include <stdint.h>

/** AF_XDP sockets remembered per port (one per queue). */
#define TFO_XSK_MAX 64

/** The kernel's struct xdp_statistics, summed over a port's sockets. */
struct tfo_xsk_stats {
	uint64_t rx_dropped;		/**< dropped for want of a buffer, or other */
	uint64_t rx_invalid;		/**< invalid RX descriptors */
	uint64_t tx_invalid;		/**< TX descriptors the kernel refused */
	uint64_t rx_ring_full;		/**< dropped: the RX ring was full */
	uint64_t rx_fill_empty;		/**< a frame found the fill ring empty */
	uint64_t tx_ring_empty;		/**< the kernel found nothing to send */
};

/**
 * This process's AF_XDP sockets (SO_DOMAIN) that are not among the
 * @p nb_known fds of @p known, into @p fds (at most @p max), in the order
 * /proc/self/fd lists them. An AF_XDP socket tells neither its interface
 * nor its queue (no getsockname), so a port's are the ones that its
 * set-up created: list them before (known = NULL: all), then the new
 * ones after. Start-up only (a directory walk). @return how many, or a
 * negative errno.
 */
int tfo_xsk_find(const int *known, unsigned int nb_known, int *fds, unsigned int max);

/**
 * Sum of XDP_STATISTICS over @p n sockets @p fds into @p out (zeroed
 * first). One system call per socket: a control lcore's, never a worker's.
 * @return 0, or a negative errno (@p out holds what was read).
 */
int tfo_xsk_stats(const int *fds, unsigned int n, struct tfo_xsk_stats *out);

#endif /* TFO_XSK_H */
