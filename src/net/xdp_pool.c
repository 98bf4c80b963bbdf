/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tfo-fastpath: mbuf pools net_af_xdp can take as its UMEM (see
 * net/xdp_pool.h for why rte_pktmbuf_pool_create's are not). Start-up
 * only.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_memzone.h>
#include <rte_mempool.h>

#include "net/xdp_pool.h"
#include "tfo/log.h"

/* What the mempool puts before each mbuf (its object header) */
static uint32_t
pool_header_size(void)
{
	struct rte_mempool_objsz sz;

	rte_mempool_calc_obj_size(0, RTE_MEMPOOL_F_NO_SPREAD, &sz);
	return sz.header_size;
}

uint16_t
tfo_xdp_pool_data_room(void)
{
	return (uint16_t)(TFO_XDP_POOL_OBJ - pool_header_size() - sizeof(struct rte_mbuf));
}

static void
pool_zone_free(struct rte_mempool_memhdr *memhdr __rte_unused, void *opaque)
{
	rte_memzone_free(opaque);
}

static void
pool_free_fail(struct rte_mempool *mp, const struct rte_memzone *mz)
{
	rte_mempool_free(mp);		/* frees mz once populated */
	if (mz != NULL && rte_memzone_lookup(mz->name) == mz)
		rte_memzone_free(mz);
}

struct rte_mempool *
tfo_xdp_pool_create(const char *name, uint32_t n, uint32_t cache, int socket, char *err,
		    size_t errlen)
{
	struct rte_pktmbuf_pool_private priv = {
		.mbuf_data_room_size = tfo_xdp_pool_data_room(),
		.mbuf_priv_size = 0,
	};
	uint32_t elt = (uint32_t)sizeof(struct rte_mbuf) + priv.mbuf_data_room_size;
	const struct rte_memzone *mz = NULL;
	char mz_name[RTE_MEMZONE_NAMESIZE];
	size_t len = (size_t)n * TFO_XDP_POOL_OBJ;
	struct rte_mempool *mp;
	int rc;

	/* no spreading over memory channels: that pads objects past a page */
	if (rte_mempool_calc_obj_size(elt, RTE_MEMPOOL_F_NO_SPREAD, NULL) != TFO_XDP_POOL_OBJ) {
		tfo_errmsg(err, errlen, "AF_XDP mbuf pool: objects of %u bytes are not one "
			   "page (this DPDK's mempool header is %u bytes)",
			   rte_mempool_calc_obj_size(elt, RTE_MEMPOOL_F_NO_SPREAD, NULL),
			   pool_header_size());
		return NULL;
	}
	mp = rte_mempool_create_empty(name, n, elt, cache, sizeof(priv), socket,
				      RTE_MEMPOOL_F_NO_SPREAD);
	if (mp == NULL)
		goto fail;
	rc = rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL);
	if (rc < 0) {
		rte_errno = -rc;
		goto fail;
	}
	rte_pktmbuf_pool_init(mp, &priv);
	/* one zone, page-aligned, objects back to back: the UMEM the PMD
	 * derives from the first one covers them all */
	snprintf(mz_name, sizeof(mz_name), "XDP_%s", name);
	mz = rte_memzone_reserve_aligned(mz_name, len, socket, 0, TFO_XDP_POOL_OBJ);
	if (mz == NULL)
		goto fail;
	rc = rte_mempool_populate_virt(mp, mz->addr, len, TFO_XDP_POOL_OBJ, pool_zone_free,
				       (void *)(uintptr_t)mz);
	if (rc < 0 || (uint32_t)rc != n) {
		rte_errno = rc < 0 ? -rc : ENOSPC;
		goto fail;
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	if (tfo_xdp_pool_check(mp, err, errlen) < 0) {
		rte_mempool_free(mp);
		return NULL;
	}
	return mp;
fail:
	tfo_errmsg(err, errlen, "cannot create an AF_XDP pool of %u mbufs of %u bytes (%zu "
		   "bytes in one zone) on socket %d: %s", n, TFO_XDP_POOL_OBJ, len, socket,
		   rte_strerror(rte_errno));
	if (mp != NULL)
		pool_free_fail(mp, mz);
	return NULL;
}

struct umem_span {
	uintptr_t start, end;	/* what the PMD registers */
	uint32_t outside;	/* objects not all inside it */
};

static void
span_obj(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx __rte_unused)
{
	struct umem_span *u = arg;
	uintptr_t lo = (uintptr_t)obj - mp->header_size;
	uintptr_t hi = (uintptr_t)obj + mp->elt_size + mp->trailer_size;

	if (lo < u->start || hi > u->end)
		u->outside++;
}

int
tfo_xdp_pool_check(const struct rte_mempool *mp, char *err, size_t errlen)
{
	struct rte_mempool *m = (struct rte_mempool *)(uintptr_t)mp;
	const struct rte_mempool_memhdr *first = STAILQ_FIRST(&mp->mem_list);
	uintptr_t page = (uintptr_t)getpagesize();
	struct umem_span u = { 0 };
	uint32_t obj;

	if (first == NULL)
		return tfo_errmsg(err, errlen, "mbuf pool %s has no memory", mp->name);
	/* as net_af_xdp's xdp_umem_configure and get_base_addr compute it */
	obj = rte_mempool_calc_obj_size(mp->elt_size, mp->flags, NULL);
	u.start = (uintptr_t)first->addr & ~(page - 1);
	u.end = u.start + (uintptr_t)mp->populated_size * obj +
		((uintptr_t)first->addr - u.start);
	rte_mempool_obj_iter(m, span_obj, &u);
	if (u.outside != 0)
		return tfo_errmsg(err, errlen, "mbuf pool %s: %u of its %u mbufs lie outside "
				  "the UMEM net_af_xdp makes of it (the kernel would drop "
				  "them from the fill ring: the port would stop receiving); "
				  "an AF_XDP port needs tfo-server's own pool layout",
				  mp->name, u.outside, mp->populated_size);
	return 0;
}
