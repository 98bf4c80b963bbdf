/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests: idle policies and doorbells (idle.c). The doorbell must
 * never lose a wake-up: a consumer that goes to sleep just as a producer
 * enqueues still wakes, with one producer and with many. A lost wake-up
 * shows as a wait that ran to its time-out (2 s) although frames were
 * waiting: idle_waits - idle_wakeups counts them.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ring.h>

#include "lcore/idle.h"
#include "test.h"

/* long enough that a lost wake-up cannot hide behind a time-out */
#define LOST_WAKEUP_US 2000000u

static void
eal_once(void)
{
	static int done;

	if (!done) {
		tfo_test_eal_init("test_idle", 128, NULL);
		done = 1;
	}
}

static struct tfo_idle_params
adaptive(uint32_t poll_us)
{
	struct tfo_idle_params p = { .policy = TFO_IDLE_ADAPTIVE, .poll_us = poll_us };

	return p;
}

TFO_TEST(idle_init_policies)
{
	struct tfo_idle_params p = adaptive(100);
	struct tfo_idle id;

	eal_once();
	CHECK_EQ(tfo_idle_init(&id, &p), 0);
	CHECK(id.bell.fd >= 0);		/* adaptive: a doorbell */
	CHECK(id.wakeable);		/* no RX queue yet: doorbells cover all */
	CHECK_EQ(id.nb_fds, 1);
	tfo_idle_close(&id);
	CHECK_EQ(id.bell.fd, -1);
	tfo_idle_close(&id);		/* idempotent */
	p.policy = TFO_IDLE_BUSY;
	CHECK_EQ(tfo_idle_init(&id, &p), 0);
	CHECK_EQ(id.bell.fd, -1);	/* busy and sleep never sleep on a bell */
	/* a watched queue of another policy changes nothing */
	CHECK_EQ(tfo_idle_watch_rxq(&id, 0, 0), 0);
	CHECK(id.wakeable);
	p.policy = TFO_IDLE_SLEEP;
	CHECK_EQ(tfo_idle_init(&id, &p), 0);
	CHECK_EQ(id.bell.fd, -1);
	p.policy = 3;
	CHECK_EQ(tfo_idle_init(&id, &p), -EINVAL);
}

TFO_TEST(idle_nap_follows_silence)
{
	struct tfo_idle_params p = adaptive(0);
	struct tfo_idle id;
	uint64_t us;

	eal_once();
	CHECK_EQ(tfo_idle_init(&id, &p), 0);
	us = id.tsc_per_us;
	id.last_work_tsc = 1000 * us;
	/* wakeable: up to the caller's deadline */
	CHECK_EQ(tfo_idle_wait_us(&id, 1000 * us, 1000), 1000);
	CHECK_EQ(tfo_idle_wait_us(&id, 1000 * us, TFO_IDLE_QUIET_US), TFO_IDLE_QUIET_US);
	/* a device that cannot wake it: a sixteenth of the silence, 8 us to
	 * a timer tick, never past the deadline (no polling window here) */
	id.wakeable = false;
	CHECK_EQ(tfo_idle_wait_us(&id, 1000 * us, TFO_IDLE_QUIET_US), TFO_IDLE_NAP_MIN_US);
	CHECK_EQ(tfo_idle_wait_us(&id, (1000 + 100) * us, TFO_IDLE_QUIET_US),
		 TFO_IDLE_NAP_MIN_US);
	CHECK_EQ(tfo_idle_wait_us(&id, (1000 + 1600) * us, TFO_IDLE_QUIET_US), 100);
	CHECK_EQ(tfo_idle_wait_us(&id, (1000 + 8000) * us, TFO_IDLE_QUIET_US), 500);
	CHECK_EQ(tfo_idle_wait_us(&id, (1000 + 100000) * us, TFO_IDLE_QUIET_US),
		 TFO_IDLE_WAIT_MAX_US);
	CHECK_EQ(tfo_idle_wait_us(&id, (1000 + 100000) * us, 300), 300);
	/* the silence counts from the end of the polling window */
	id.poll_tsc = 2000 * us;
	CHECK_EQ(tfo_idle_wait_us(&id, (1000 + 2100) * us, TFO_IDLE_QUIET_US),
		 TFO_IDLE_NAP_MIN_US);
	CHECK_EQ(tfo_idle_wait_us(&id, (1000 + 2000 + 1600) * us, TFO_IDLE_QUIET_US), 100);
	tfo_idle_close(&id);
}

TFO_TEST(idle_nap_times_out)
{
	struct tfo_idle_params p = adaptive(0);
	struct tfo_stats st;
	struct tfo_idle id;
	uint64_t t0, took_us;

	eal_once();
	memset(&st, 0, sizeof(st));
	CHECK_EQ(tfo_idle_init(&id, &p), 0);
	t0 = rte_get_tsc_cycles();
	tfo_idle_sleep(&id, t0, 2000, &st);	/* nothing comes: its time-out */
	took_us = (rte_get_tsc_cycles() - t0) / id.tsc_per_us;
	CHECK_MSG(took_us >= 1900, "slept %" PRIu64 " us of 2000", took_us);
	CHECK_EQ(st.c[TFO_STAT_idle_waits], 1);
	CHECK_EQ(st.c[TFO_STAT_idle_wakeups], 0);
	CHECK_EQ(id.bell.asleep, 0);
	/* a doorbell rung before the wait (a stale write) ends it at once */
	tfo_doorbell_wake(&id.bell, &st);
	CHECK_EQ(st.c[TFO_STAT_doorbell_rings], 1);
	t0 = rte_get_tsc_cycles();
	tfo_idle_sleep(&id, t0, LOST_WAKEUP_US, &st);
	took_us = (rte_get_tsc_cycles() - t0) / id.tsc_per_us;
	CHECK_MSG(took_us < LOST_WAKEUP_US / 2, "slept %" PRIu64 " us", took_us);
	CHECK_EQ(st.c[TFO_STAT_idle_wakeups], 1);
	/* within the polling window a shared CPU yields and does not wait */
	id.shared_cpu = true;
	id.poll_tsc = 1000000 * id.tsc_per_us;
	id.last_work_tsc = rte_get_tsc_cycles();
	tfo_idle_wait(&id, id.last_work_tsc, LOST_WAKEUP_US, &st);
	CHECK_EQ(st.c[TFO_STAT_idle_waits], 2);
	tfo_idle_close(&id);
}

/*
 * The doorbell tests: producers hand a consumer 1-3 items, ring, and wait
 * (at most LATE_US) until it took them, then again after a random pause
 * of 0-30 us, so the enqueue falls at every moment of the consumer's way
 * to sleep: its empty poll, the window before it announces the sleep, the
 * announcement, ppoll. Nothing else comes meanwhile, so a lost wake-up
 * leaves the items in the ring until the consumer's time-out (2 s): a
 * round slower than LATE_US.
 */
#define LATE_US 200000u
#define MAX_PRODUCERS 4

struct consumer {
	struct tfo_idle id;
	struct tfo_stats st;
	struct rte_ring *r;
	unsigned long want;
	unsigned long got[MAX_PRODUCERS];	/* per producer, written here */
	uint64_t deadline_tsc;
	/* between an empty poll and the wait: a window for producers to
	 * enqueue in (the check after announcing the sleep must see it) */
	unsigned int window_us;
};

static void *
consume(void *arg)
{
	struct consumer *c = arg;
	unsigned long total = 0;

	while (total < c->want && rte_get_tsc_cycles() < c->deadline_tsc) {
		void *obj[64];
		unsigned int n = rte_ring_sc_dequeue_burst(c->r, obj, 64, NULL);

		if (n != 0) {
			for (unsigned int i = 0; i < n; i++) {
				unsigned int who = (unsigned int)(uintptr_t)obj[i] - 1;

				__atomic_store_n(&c->got[who], c->got[who] + 1, __ATOMIC_RELEASE);
			}
			total += n;
			tfo_idle_work(&c->id, rte_get_tsc_cycles());
			continue;
		}
		if (c->window_us != 0)
			rte_delay_us_block(c->window_us);
		tfo_idle_wait(&c->id, rte_get_tsc_cycles(), LOST_WAKEUP_US, &c->st);
	}
	return NULL;
}

struct producer {
	struct consumer *c;
	unsigned int who;
	unsigned int seed;
	unsigned long rounds, sent, late;
	struct tfo_stats st;
};

static void *
produce(void *arg)
{
	struct producer *p = arg;
	uint64_t hz = rte_get_tsc_hz();

	for (unsigned long r = 0; r < p->rounds; r++) {
		void *obj[4] = { 0 };
		unsigned int n = 1 + rand_r(&p->seed) % 3;
		uint64_t end;

		rte_delay_us_block(rand_r(&p->seed) % 31);
		for (unsigned int i = 0; i < n; i++)
			obj[i] = (void *)(uintptr_t)(p->who + 1);
		n = rte_ring_mp_enqueue_burst(p->c->r, obj, n, NULL);
		tfo_doorbell_ring(&p->c->id.bell, &p->st);
		p->sent += n;
		end = rte_get_tsc_cycles() + hz * LATE_US / 1000000;
		while (__atomic_load_n(&p->c->got[p->who], __ATOMIC_ACQUIRE) < p->sent &&
		       rte_get_tsc_cycles() < end)
			rte_pause();
		if (__atomic_load_n(&p->c->got[p->who], __ATOMIC_ACQUIRE) < p->sent) {
			p->late++;
			/* let the rest arrive before the next round */
			while (__atomic_load_n(&p->c->got[p->who], __ATOMIC_ACQUIRE) < p->sent &&
			       rte_get_tsc_cycles() < p->c->deadline_tsc)
				rte_pause();
		}
	}
	return NULL;
}

/* EAL pinned this thread to one CPU, and threads inherit it: the
 * producers and the consumer must run side by side to race at all. */
static void
thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	long nb_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_attr_t attr;
	cpu_set_t all;

	CPU_ZERO(&all);
	for (long i = 0; i < nb_cpus && i < CPU_SETSIZE; i++)
		CPU_SET(i, &all);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(all), &all);
	pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
}

/* @p nb producers of @p rounds rounds against one consumer whose way to
 * sleep has a @p window_us window. */
static void
doorbell_run(const char *name, unsigned int nb, unsigned long rounds, unsigned int window_us)
{
	struct tfo_idle_params ip = adaptive(0);	/* sleep at the first empty poll */
	struct producer pr[MAX_PRODUCERS];
	pthread_t pt[MAX_PRODUCERS], t;
	unsigned long sent = 0, got = 0, late = 0;
	uint64_t rings = 0;
	struct consumer c;

	memset(&c, 0, sizeof(c));
	c.r = rte_ring_create(name, 4096, SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (c.r == NULL || tfo_idle_init(&c.id, &ip) != 0 ||
	    tfo_idle_watch_ring(&c.id, c.r) != 0) {
		CHECK_MSG(0, "cannot set up the consumer");
		return;
	}
	c.want = ULONG_MAX;	/* until the producers are done */
	c.window_us = window_us;
	c.deadline_tsc = rte_get_tsc_cycles() + 120 * rte_get_tsc_hz();
	thread_start(&t, consume, &c);
	for (unsigned int i = 0; i < nb; i++) {
		memset(&pr[i], 0, sizeof(pr[i]));
		pr[i].c = &c;
		pr[i].who = i;
		pr[i].seed = 7919u * (i + 1);
		pr[i].rounds = rounds;
		thread_start(&pt[i], produce, &pr[i]);
	}
	for (unsigned int i = 0; i < nb; i++) {
		pthread_join(pt[i], NULL);
		sent += pr[i].sent;
		late += pr[i].late;
		rings += pr[i].st.c[TFO_STAT_doorbell_rings];
		got += __atomic_load_n(&c.got[i], __ATOMIC_ACQUIRE);
	}
	c.deadline_tsc = 0;		/* the consumer's next look ends it */
	tfo_doorbell_wake(&c.id.bell, NULL);
	pthread_join(t, NULL);
	CHECK_EQ(got, sent);
	CHECK(sent >= nb * rounds);
	CHECK_MSG(late == 0, "%lu of %lu rounds waited more than %u us: lost wake-ups",
		  late, nb * rounds, LATE_US);
	/* the consumer did sleep, and was woken by the producers' writes */
	CHECK(c.st.c[TFO_STAT_idle_waits] > 0);
	CHECK(rings > 0);
	tfo_idle_close(&c.id);
	rte_ring_free(c.r);
}

/* One producer, one consumer (the worker's rings to a control lcore). */
TFO_TEST(doorbell_no_lost_wakeup)
{
	eal_once();
	doorbell_run("idle_r1", 1, 4000, 0);
	doorbell_run("idle_r1w", 1, 2000, 20);
}

/* Many producers, one consumer (the relay rings and the inboxes, which
 * every control lcore fills). */
TFO_TEST(doorbell_many_producers)
{
	eal_once();
	doorbell_run("idle_r2", MAX_PRODUCERS, 1000, 20);
}

TFO_TEST_MAIN()
