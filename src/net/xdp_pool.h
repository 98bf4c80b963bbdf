/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tfo-fastpath: mbuf pools that net_af_xdp can use as its UMEM
 * (src/net/xdp_pool.c).
 *
 * DPDK 22.11's net_af_xdp registers the RX queue's mempool as the UMEM of
 * its XDP socket (zero copy between UMEM and mbuf): it takes the first
 * memory chunk's page and assumes the pool's objects follow each other
 * with no gap, so the UMEM is populated_size * object size bytes long
 * (xdp_umem_configure). A pool made by rte_pktmbuf_pool_create does not
 * keep that promise: an object never crosses a page, so on 4 KiB pages
 * (--no-huge) each 2,368-byte object takes a page of its own, and on 2 MiB
 * pages every page ends in a gap. Every object past the UMEM's end is a
 * frame the kernel refuses: put in the fill ring it is dropped and never
 * comes back (the fill ring starves, rx_fill_ring_empty_descs, imissed,
 * and the port receives nothing ever again), sent it is an invalid TX
 * descriptor whose mbuf never completes. This module makes pools whose
 * objects are exactly one 4 KiB page each, tiling one memory zone, so the
 * UMEM covers all of them, no frame crosses a page (what the kernel wants
 * of zero-copy drivers too), and checks any pool against that promise.
 */
#ifndef TFO_XDP_POOL_H
#define TFO_XDP_POOL_H

#include <stddef.h>
#include <stdint.h>

struct rte_mempool;

/** Bytes of one object of an AF_XDP pool: its mempool header, the mbuf
 *  and its data room (one 4 KiB page). */
#define TFO_XDP_POOL_OBJ 4096u

/** The data room (headroom included) of an AF_XDP pool's mbufs. */
uint16_t tfo_xdp_pool_data_room(void);

/**
 * An mbuf pool of @p n objects of TFO_XDP_POOL_OBJ bytes tiling one memory
 * zone on @p socket (objects on page boundaries, one after the other),
 * with a per-lcore cache of @p cache. Its mbufs have
 * tfo_xdp_pool_data_room() bytes. Freed with rte_mempool_free (which
 * frees the zone). @return the pool, or NULL with the reason in @p err.
 */
struct rte_mempool *tfo_xdp_pool_create(const char *name, uint32_t n, uint32_t cache,
					int socket, char *err, size_t errlen);

/**
 * Does the UMEM that net_af_xdp (DPDK 22.11) derives from @p mp cover every
 * object of it? @return 0, or -EINVAL with the count of objects outside
 * and what to do in @p err.
 */
int tfo_xdp_pool_check(const struct rte_mempool *mp, char *err, size_t errlen);

#endif /* TFO_XDP_POOL_H */
