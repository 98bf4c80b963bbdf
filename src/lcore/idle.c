/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: idle lcores and their doorbells (see idle.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "lcore/idle.h"
#include "lcore/qs.h"
#include "net/port.h"
#include "tfo/log.h"

int
tfo_idle_init(struct tfo_idle *id, const struct tfo_idle_params *p)
{
	if (p->policy > TFO_IDLE_SLEEP)
		return -EINVAL;
	memset(id, 0, sizeof(*id));
	id->bell.fd = -1;
	id->policy = p->policy;
	id->sleep_us = p->sleep_us;
	id->shared_cpu = p->shared_cpu;
	id->yield_period_tsc = (uint64_t)TFO_IDLE_YIELD_US * id->tsc_per_us;
	id->wakeable = true;
	id->tsc_per_us = RTE_MAX(rte_get_tsc_hz() / 1000000, (uint64_t)1);
	id->poll_tsc = (uint64_t)p->poll_us * id->tsc_per_us;
	if (p->policy != TFO_IDLE_ADAPTIVE)
		return 0;
	id->bell.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (id->bell.fd < 0)
		return -errno;
	id->fds[0].fd = id->bell.fd;
	id->fds[0].events = POLLIN;
	id->nb_fds = 1;
	return 0;
}

void
tfo_idle_close(struct tfo_idle *id)
{
	if (id->bell.fd >= 0)
		close(id->bell.fd);
	id->bell.fd = -1;
	id->nb_fds = 0;
}

int
tfo_idle_watch_ring(struct tfo_idle *id, struct rte_ring *r)
{
	if (r == NULL)
		return 0;
	if (id->nb_rings == TFO_IDLE_MAX_RINGS)
		return -ENOSPC;
	id->rings[id->nb_rings++] = r;
	return 0;
}

/* net_tap's interrupt fd is the queue's own tun fd (readable while frames
 * wait: never read here); a NIC's is an eventfd (vfio, uio) to be read. */
static bool
tfo_idle_fd_is_eventfd(int fd)
{
	char path[32], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	return strcmp(link, "anon_inode:[eventfd]") == 0;
}

int
tfo_idle_watch_rxq(struct tfo_idle *id, uint16_t port_id, uint16_t queue)
{
	struct tfo_idle_rxq *q;
	int fd, rc;

	if (id->policy != TFO_IDLE_ADAPTIVE)
		return 0;
	if (id->nb_rxq == TFO_IDLE_MAX_RXQ)
		return -ENOSPC;
	/* XXX DPDK 22.11's net_memif, net_af_xdp, net_ring and net_null have
	 * no RX interrupt: an lcore polling one naps instead of sleeping (a
	 * sixteenth of the silence, 8 us to 1 ms: latency added, CPU spent) */
	fd = tfo_port_rx_intr_fd(port_id, queue);
	if (fd < 0) {
		id->wakeable = false;
		return 0;
	}
	/* NICs unmask the queue's interrupt on enable (armed before each
	 * wait, as l3fwd-power does); net_tap has nothing to arm */
	rc = rte_eth_dev_rx_intr_enable(port_id, queue);
	if (rc != 0 && rc != -ENOTSUP) {
		TFO_LOG(WARNING, "port %u queue %u: RX interrupt cannot be enabled (%s): "
			"its lcore naps instead", port_id, queue, strerror(-rc));
		id->wakeable = false;
		return 0;
	}
	if (rc == 0)
		rte_eth_dev_rx_intr_disable(port_id, queue);
	q = &id->rxq[id->nb_rxq++];
	q->port_id = port_id;
	q->queue = queue;
	q->arm = rc == 0;
	q->drain = tfo_idle_fd_is_eventfd(fd);
	id->fds[id->nb_fds].fd = fd;
	id->fds[id->nb_fds].events = POLLIN;
	id->nb_fds++;
	return 1;
}

void
tfo_idle_enter(struct tfo_idle *id, const char *what)
{
	static const char *const names[] = { "adaptive", "busy", "sleep" };

	if (id->policy == TFO_IDLE_SLEEP) {
		TFO_LOG(INFO, "%s on lcore %u: idle_policy sleep: naps %u us after every "
			"empty poll", what, rte_lcore_id(), id->sleep_us);
		return;
	}
	if (id->policy == TFO_IDLE_BUSY) {
		TFO_LOG(INFO, "%s on lcore %u: idle_policy busy: polls without a pause",
			what, rte_lcore_id());
		return;
	}
	/* the kernel's default slack (50 us) would be most of a short nap */
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) != 0)
		TFO_LOG(WARNING, "%s: cannot lower the timer slack: %s", what, strerror(errno));
	TFO_LOG(INFO, "%s on lcore %u: idle_policy %s: polls %" PRIu64 " us after work%s, "
		"then %s", what, rte_lcore_id(), names[id->policy],
		id->poll_tsc / id->tsc_per_us,
		id->shared_cpu ? " (yielding at every empty poll: its CPU is another lcore's too)" :
		" (yielding every 10 us)",
		id->wakeable ? "waits for a doorbell or an RX interrupt (up to 1 ms with "
		"timers armed, 100 ms without)" :
		"naps (a queue it polls has no RX interrupt; a doorbell ends a nap)");
}

/* After asleep = 1: anything that arrived since the last poll? */
static bool
tfo_idle_pending(const struct tfo_idle *id)
{
	for (unsigned int i = 0; i < id->nb_rings; i++)
		if (!rte_ring_empty(id->rings[i]))
			return true;
	for (unsigned int i = 0; i < id->nb_rxq; i++)
		if (id->rxq[i].arm && rte_eth_rx_queue_count(id->rxq[i].port_id,
							      id->rxq[i].queue) > 0)
			return true;
	return false;
}

static void
tfo_idle_arm(const struct tfo_idle *id, bool on)
{
	for (unsigned int i = 0; i < id->nb_rxq; i++) {
		if (!id->rxq[i].arm)
			continue;
		if (on)
			rte_eth_dev_rx_intr_enable(id->rxq[i].port_id, id->rxq[i].queue);
		else
			rte_eth_dev_rx_intr_disable(id->rxq[i].port_id, id->rxq[i].queue);
	}
}

/* After a wake-up: read the eventfds that fired. @return whether an RX
 * queue's fd did. */
static bool
tfo_idle_drain(struct tfo_idle *id)
{
	bool rx = false;
	uint64_t v;

	/* a failed read is an empty eventfd: nothing to drain */
	if (id->fds[0].revents & POLLIN)
		(void)!read(id->fds[0].fd, &v, sizeof(v));
	for (unsigned int i = 0; i < id->nb_rxq; i++) {
		if (!(id->fds[1 + i].revents & POLLIN))
			continue;
		rx = true;
		if (id->rxq[i].drain)
			(void)!read(id->fds[1 + i].fd, &v, sizeof(v));
	}
	return rx;
}

uint32_t
tfo_idle_wait_us(const struct tfo_idle *id, uint64_t now_tsc, uint32_t wait_max_us)
{
	uint64_t quiet_tsc = now_tsc - id->last_work_tsc;
	uint64_t quiet_us = quiet_tsc > id->poll_tsc ?
			    (quiet_tsc - id->poll_tsc) / id->tsc_per_us : 0;

	if (id->wakeable)
		return wait_max_us;
	/* a nap: the latency it adds follows the gap between arrivals (the
	 * silence past the polling window: no cliff where polling ends) */
	return (uint32_t)RTE_MIN(RTE_MAX(quiet_us >> TFO_IDLE_NAP_SHIFT,
					 (uint64_t)TFO_IDLE_NAP_MIN_US),
				 (uint64_t)RTE_MIN(wait_max_us, TFO_IDLE_WAIT_MAX_US));
}

void
tfo_idle_sleep(struct tfo_idle *id, uint64_t now_tsc, uint32_t wait_max_us,
	       struct tfo_stats *st)
{
	uint64_t quiet = now_tsc - id->last_work_tsc;
	struct timespec ts;
	uint32_t wait_us;
	int n;

	if (id->policy == TFO_IDLE_SLEEP) {
		if (id->sleep_us != 0) {
			tfo_qs_offline();
			tfo_nap_us(id->sleep_us);
			tfo_qs_online();
		}
		return;
	}
	if (quiet < id->poll_tsc) {
		/* still polling: let whoever the kernel woke here run */
		id->yield_tsc = now_tsc + id->yield_period_tsc;
		sched_yield();
		return;
	}
	wait_us = tfo_idle_wait_us(id, now_tsc, wait_max_us);
	tfo_idle_arm(id, true);
	__atomic_store_n(&id->bell.asleep, 1, __ATOMIC_RELAXED);
	/* asleep before the last look at the rings; producers do the mirror
	 * image (enqueue, fence, look at asleep) */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (tfo_idle_pending(id)) {
		__atomic_store_n(&id->bell.asleep, 0, __ATOMIC_RELAXED);
		tfo_idle_arm(id, false);
		return;
	}
	ts.tv_sec = (time_t)(wait_us / 1000000);
	ts.tv_nsec = (long)(wait_us % 1000000) * 1000;
	/* asleep, an unmap need not wait for this lcore (qs.h) */
	tfo_qs_offline();
	n = ppoll(id->fds, id->nb_fds, &ts, NULL);
	tfo_qs_online();
	__atomic_store_n(&id->bell.asleep, 0, __ATOMIC_RELAXED);
	tfo_idle_arm(id, false);
	st->c[TFO_STAT_idle_waits]++;
	if (n != 0) {
		st->c[TFO_STAT_idle_wakeups]++;
		/* A doorbell, an RX interrupt, or a signal (EINTR: net_tap's
		 * SIGIO, a stop). A frame came: poll for the window. net_tap's
		 * queue is readable before the PMD will read it (its rx_burst
		 * waits for its SIGIO handler, which the kernel runs on the
		 * main thread, control 0): ppoll again would spin on a readable
		 * fd. That signal (EINTR) means traffic too: control 0 polls
		 * on, and the frames the worker will hand it need no wake-up. */
		if ((n > 0 && tfo_idle_drain(id)) || (n < 0 && errno == EINTR))
			tfo_idle_work(id, rte_get_tsc_cycles());
	}
}

void
tfo_doorbell_wake(struct tfo_doorbell *db, struct tfo_stats *st)
{
	const uint64_t one = 1;

	if (db->fd < 0)
		return;
	if (write(db->fd, &one, sizeof(one)) == (ssize_t)sizeof(one) && st != NULL)
		st->c[TFO_STAT_doorbell_rings]++;
}
