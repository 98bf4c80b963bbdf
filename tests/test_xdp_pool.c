/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests: AF_XDP mbuf pools (src/net/xdp_pool.c) against the UMEM
 * arithmetic of DPDK 22.11's net_af_xdp, with the EAL on 4 KiB pages
 * (--no-huge), where the AF_XDP wedge was found.
 */
#include <unistd.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "net/xdp_pool.h"
#include "test.h"

static void
eal_once(void)
{
	static int done;

	if (!done) {
		tfo_test_eal_init("test_xdp_pool", 128, NULL);
		done = 1;
	}
}

struct span {
	uintptr_t lo, hi;
	unsigned int cross;	/* objects that cross a 4 KiB page */
};

static void
span_obj(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx __rte_unused)
{
	struct span *s = arg;
	uintptr_t lo = (uintptr_t)obj - mp->header_size;
	uintptr_t hi = (uintptr_t)obj + mp->elt_size + mp->trailer_size;

	s->lo = RTE_MIN(s->lo, lo);
	s->hi = RTE_MAX(s->hi, hi);
	if (lo / 4096 != (hi - 1) / 4096)
		s->cross++;
}

/* The regression itself: rte_pktmbuf_pool_create's layout leaves mbufs
 * outside the UMEM net_af_xdp makes of it (the fill ring then starved for
 * good), and the check says how many. */
TFO_TEST(dpdk_default_pool_has_mbufs_outside_the_umem)
{
	struct rte_mempool *mp;
	char err[256] = "";

	eal_once();
	mp = rte_pktmbuf_pool_create("xp_default", 2048, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	REQUIRE(mp != NULL);
	CHECK_EQ(tfo_xdp_pool_check(mp, err, sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "lie outside the UMEM") != NULL, "%s", err);
	rte_mempool_free(mp);
}

/* Ours: every object one page, back to back from a page boundary, all in
 * the UMEM; mbufs usable; the pool frees its zone. */
TFO_TEST(xdp_pool_tiles_pages_and_fits_the_umem)
{
	struct span s = { .lo = UINTPTR_MAX };
	struct rte_mbuf *m[8];
	struct rte_mempool *mp;
	char err[256] = "";

	eal_once();
	mp = tfo_xdp_pool_create("xp_ours", 3000, 32, SOCKET_ID_ANY, err, sizeof(err));
	CHECK_MSG(mp != NULL, "%s", err);
	REQUIRE(mp != NULL);
	CHECK_EQ(mp->populated_size, 3000u);
	CHECK_EQ(tfo_xdp_pool_check(mp, err, sizeof(err)), 0);
	rte_mempool_obj_iter(mp, span_obj, &s);
	CHECK_EQ(s.lo % 4096, 0u);
	CHECK_EQ(s.hi - s.lo, (uintptr_t)3000 * TFO_XDP_POOL_OBJ);
	CHECK_EQ(s.cross, 0u);
	CHECK_EQ(rte_pktmbuf_data_room_size(mp), tfo_xdp_pool_data_room());
	CHECK(tfo_xdp_pool_data_room() >= RTE_PKTMBUF_HEADROOM + 1518 + 4);
	REQUIRE(rte_pktmbuf_alloc_bulk(mp, m, RTE_DIM(m)) == 0);
	for (unsigned int i = 0; i < RTE_DIM(m); i++) {
		CHECK_EQ(m[i]->pool, mp);
		CHECK_EQ(m[i]->data_off, RTE_PKTMBUF_HEADROOM);
		CHECK(rte_pktmbuf_tailroom(m[i]) >= 1518);
	}
	rte_pktmbuf_free_bulk(m, RTE_DIM(m));
	rte_mempool_free(mp);
	/* the zone went with it: the same name can be made again */
	mp = tfo_xdp_pool_create("xp_ours", 64, 0, SOCKET_ID_ANY, err, sizeof(err));
	CHECK_MSG(mp != NULL, "%s", err);
	rte_mempool_free(mp);
}

TFO_TEST_MAIN()
