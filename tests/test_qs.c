/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests: the polling lcores' quiescent states (qs.c), as tfo-server's
 * munmap uses them. A reader thread plays a worker polling a PMD that
 * looks at its connected flag once and then reads the peer's memory; the
 * writer plays memif_disconnect: flag cleared, tfo_qs_wait, "unmap". No
 * burst may ever see the memory gone, over many disconnects. And the
 * writer's other cases: a reader asleep (offline) or the writer's own
 * thread never make it wait, a reader stuck in a burst makes it give up
 * after TFO_QS_WAIT_MAX_MS (unmap_kept).
 */
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "lcore/qs.h"
#include "test.h"

static void
eal_once(void)
{
	static int done;

	if (!done) {
		tfo_test_eal_init("test_qs", 64, NULL);
		CHECK(tfo_qs_init() == 0);
		CHECK(tfo_qs_init() == 0);	/* once per process */
		done = 1;
	}
}

/* The PMD's state as the reader sees it: a plain flag, as net_memif's. */
static struct {
	volatile int connected;
	volatile int mapped;
	volatile int stop;
	volatile int offline;	/* the reader: sleep offline now */
	volatile int stuck;	/* the reader: stay inside a "burst" */
	volatile int in_loop;
	uint64_t bursts;
	uint64_t faults;	/* reads of the memory after its "unmap" */
} pmd;

static void *
reader(void *arg)
{
	(void)arg;
	if (rte_thread_register() != 0 || tfo_qs_reader_enter() != 0)
		return NULL;
	pmd.in_loop = 1;
	while (!pmd.stop) {
		tfo_qs_report();
		if (pmd.offline) {
			tfo_qs_offline();
			while (pmd.offline && !pmd.stop)
				usleep(1000);
			tfo_qs_online();
			continue;
		}
		if (!pmd.connected)
			continue;
		/* a burst: the flag looked at once, then the memory, a while */
		pmd.bursts++;
		for (int i = 0; i < 64 || pmd.stuck; i++) {
			if (!pmd.mapped)
				pmd.faults++;
			rte_pause();
		}
	}
	tfo_qs_reader_leave();
	rte_thread_unregister();
	pmd.in_loop = 0;
	return NULL;
}

static int
reader_start(pthread_t *t)
{
	pmd.stop = 0;
	pmd.in_loop = 0;
	if (pthread_create(t, NULL, reader, NULL) != 0)
		return -1;
	for (int i = 0; i < 2000 && !pmd.in_loop; i++)
		usleep(1000);
	return pmd.in_loop ? 0 : -1;
}

static void
reader_stop(pthread_t t)
{
	pmd.stop = 1;
	pmd.stuck = 0;
	pthread_join(t, NULL);
}

static uint64_t
ms_since(uint64_t t0)
{
	return (rte_get_tsc_cycles() - t0) * 1000 / rte_get_tsc_hz();
}

/* 2,000 disconnects while the reader polls: no burst reads the memory
 * after the writer's wait, each wait short. */
TFO_TEST(qs_no_burst_sees_the_unmap)
{
	uint64_t longest = 0;
	int waited = 0;
	pthread_t t;

	eal_once();
	pmd.mapped = 1;
	pmd.connected = 1;
	if (reader_start(&t) != 0) {
		CHECK(!"reader thread started");
		return;
	}
	for (int i = 0; i < 2000; i++) {
		uint64_t t0;
		int rc;

		usleep(50);			/* let it run some bursts */
		pmd.connected = 0;		/* memif_disconnect's plain store */
		t0 = rte_get_tsc_cycles();
		rc = tfo_qs_wait();		/* in tfo-server's munmap */
		longest = RTE_MAX(longest, ms_since(t0));
		waited += rc == 1;
		CHECK(rc >= 0);
		pmd.mapped = 0;			/* the unmap */
		usleep(20);
		pmd.mapped = 1;			/* a new peer: mmap, then the flag */
		pmd.connected = 1;
	}
	reader_stop(t);
	printf("  %" PRIu64 " bursts, %d of 2000 unmaps waited, the longest %" PRIu64 " ms\n",
	       pmd.bursts, waited, longest);
	CHECK(pmd.bursts > 0);
	CHECK(waited > 0);
	CHECK(pmd.faults == 0);
	CHECK(longest < 1000);
}

/* A reader asleep (offline) is not waited for; the writer's wait on the
 * reader's own thread neither (a reader never waits for itself). */
TFO_TEST(qs_offline_reader_not_waited_for)
{
	pthread_t t;
	uint64_t t0;

	eal_once();
	pmd.connected = 0;
	if (reader_start(&t) != 0) {
		CHECK(!"reader thread started");
		return;
	}
	pmd.offline = 1;
	usleep(20000);
	t0 = rte_get_tsc_cycles();
	CHECK(tfo_qs_wait() == 0);
	CHECK(ms_since(t0) < 100);
	pmd.offline = 0;
	reader_stop(t);
	/* no reader left: nothing to wait for */
	CHECK(tfo_qs_wait() == 0);
}

static void *
reader_waits(void *arg)
{
	int *rc = arg;

	if (rte_thread_register() != 0 || tfo_qs_reader_enter() != 0)
		return NULL;
	*rc = tfo_qs_wait();
	tfo_qs_reader_leave();
	rte_thread_unregister();
	return NULL;
}

TFO_TEST(qs_reader_never_waits_for_itself)
{
	pthread_t t;
	int rc = -1;

	eal_once();
	CHECK(pthread_create(&t, NULL, reader_waits, &rc) == 0);
	pthread_join(t, NULL);
	CHECK(rc == 0);
}

/* A reader stuck in a burst: the writer gives up after
 * TFO_QS_WAIT_MAX_MS and says so (-ETIMEDOUT, unmap_kept), rather than
 * wait for ever; the burst never saw the memory go (the caller keeps it). */
TFO_TEST(qs_stuck_reader_gives_up)
{
	struct tfo_stats st;
	pthread_t t;
	uint64_t t0, ms;

	eal_once();
	memset(&st, 0, sizeof(st));
	tfo_qs_stats(&st);
	pmd.mapped = 1;
	pmd.connected = 1;
	pmd.stuck = 1;
	if (reader_start(&t) != 0) {
		CHECK(!"reader thread started");
		return;
	}
	usleep(10000);
	pmd.connected = 0;
	t0 = rte_get_tsc_cycles();
	CHECK(tfo_qs_wait() == -ETIMEDOUT);
	ms = ms_since(t0);
	CHECK(ms >= TFO_QS_WAIT_MAX_MS && ms < TFO_QS_WAIT_MAX_MS + 2000);
	CHECK(st.c[TFO_STAT_unmap_kept] == 0);
	tfo_qs_stats(&st);
	CHECK(st.c[TFO_STAT_unmap_kept] == 1);
	reader_stop(t);
	CHECK(pmd.faults == 0);
}

TFO_TEST_MAIN()
