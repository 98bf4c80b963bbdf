/* SPDX-License-Identifier: BSD-3-Clause
 * The Linux kernel's TCP Fast Open client as a load: threads, each keeping
 * C transactions in flight on non-blocking sockets with one epoll set. A
 * transaction: socket, sendto(MSG_FASTOPEN) of a REQ-byte line (the SYN
 * carries it once the address has a cookie), read the echo until the
 * server's FIN, check it byte for byte, close.
 *
 *   kernel_tfo_client [-s ADDR] [-p PORT] [-t THREADS] [-c CONC] [-d SEC]
 *                     [-n REQ] [-w SEC] [-S FIRST_SRC] [-P] [-r RATE]
 *
 * Thread i binds its sockets to FIRST_SRC + i (default 127.0.1.1 + i) so
 * that the threads do not share ephemeral ports. -w: warm-up seconds (not
 * counted; the first connections learn the cookies). -P pins thread i to
 * the i-th allowed CPU.
 *
 * Without -r the load is a closed loop: a transaction ends, the next one
 * starts in its slot, so the rate is what the server lets through. -r: an
 * open loop at a fixed rate, for latency at the same load on two servers:
 * RATE transactions/s started over all threads (RATE/THREADS each), evenly
 * spaced on CLOCK_MONOTONIC whatever the answers do. CONC then bounds the
 * transactions in flight per thread: a start that finds no free slot is
 * skipped and counted (no_slot), not queued; a thread more than 10 ms
 * behind its schedule (preempted, starts slower than the rate) skips the
 * starts it missed and counts them (late) rather than sending them in a
 * burst. Between starts a thread sleeps in epoll_pwait2.
 *
 * Latency: from the sendto that carries the request (in the SYN once the
 * address has a cookie) to the server's FIN after the whole echo. It is
 * kept in microseconds rounded to the nearest, one bucket each below 1 ms
 * (so p50 23 means the sample at that rank took 22.5 to 23.5 us), then
 * buckets at most 1 % of their values wide up to 10 s; a percentile above
 * 1 ms is the middle of its bucket. p999 needs 1000 samples to mean more
 * than the largest.
 *
 * Output, one line each (integers where a script reads them):
 *   transactions N seconds S rate R/s errors E syn_no_cookie K
 *   latency_us p50 A p99 B p999 C samples N
 *   rate_target R started S late L no_slot K	(with -r only)
 * and TcpExt TCPFastOpenActive / TCPFastOpenPassive deltas of this network
 * namespace (read from /proc/net/netstat) as tfo_active N tfo_passive M.
 * rate is the transactions completed in the measured seconds; started,
 * late and no_slot count the starts due in them (a start that fails is an
 * error instead). Exit code 0 when no transaction went wrong (late and
 * no_slot starts are not transactions).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define KC_MAX_THREADS 64
#define KC_MAX_CONC 1024
#define KC_REQ_MAX 1400
#define KC_LATE_NS 10000000ull	/* -r: this far behind, skip rather than burst */
#define KC_WAIT_MAX_NS 100000000ull	/* look at the stop flag this often */

/*
 * Latency histogram over microseconds (rounded to the nearest): one bucket
 * per microsecond below KC_LAT_FINE, then KC_LAT_DECADES decades of 900
 * buckets each (10 us wide from 1 ms, 100 us from 10 ms, 1 ms from 100 ms,
 * 10 ms from 1 s: at most 1 % of the value) and a last bucket for the rest
 * (10 s and more). 37 KB a thread; an add is a compare or a short loop.
 */
#define KC_LAT_FINE 1000
#define KC_LAT_DECADES 4
#define KC_LAT_PER_DECADE 900
#define KC_LAT_BUCKETS (KC_LAT_FINE + KC_LAT_DECADES * KC_LAT_PER_DECADE + 1)

struct kc_hist {
	uint64_t count;
	uint64_t min_us, max_us;
	uint64_t b[KC_LAT_BUCKETS];
};

struct kc_slot {
	int fd;
	uint32_t got;		/* response bytes so far */
	int need_send;		/* no cookie yet: send after the handshake */
	uint64_t t0;
};

struct kc_thread {
	pthread_t tid;
	int idx;
	int cpu;
	struct in_addr src;
	int ep;
	unsigned long done, errors, no_cookie;
	unsigned long started, late, no_slot;	/* -r, in the measured seconds */
	struct kc_hist lat;
	int nfree;			/* -r: slots without a transaction */
	uint16_t free_slot[KC_MAX_CONC];
	struct kc_slot slot[KC_MAX_CONC];
	char rbuf[KC_REQ_MAX + 1];
};

static struct {
	struct sockaddr_in dst;
	int nthreads, conc;
	unsigned long rate;	/* -r: transactions/s over all threads; 0: closed loop */
	double seconds, warmup;
	uint32_t req_len;
	char req[KC_REQ_MAX];
	atomic_int counting;	/* 0 warm-up, 1 counting, 2 stop */
	struct kc_thread *th;
} C;

static uint64_t
kc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static unsigned int
kc_lat_bucket(uint64_t us)
{
	uint64_t lo = KC_LAT_FINE, w = 10;

	if (us < KC_LAT_FINE)
		return (unsigned int)us;
	for (unsigned int d = 0; d < KC_LAT_DECADES; d++, lo *= 10, w *= 10)
		if (us < lo * 10)
			return KC_LAT_FINE + d * KC_LAT_PER_DECADE +
			       (unsigned int)((us - lo) / w);
	return KC_LAT_BUCKETS - 1;
}

static void
kc_lat_add(struct kc_hist *h, uint64_t ns)
{
	uint64_t us = (ns + 500) / 1000;

	h->b[kc_lat_bucket(us)]++;
	if (h->count == 0 || us < h->min_us)
		h->min_us = us;
	if (us > h->max_us)
		h->max_us = us;
	h->count++;
}

/*
 * The value (us) at quantile @p permille / 1000: the sample of rank
 * ceil(q * count), as tfo-loadgen ranks them, so that the two tools' figures
 * compare. Below 1 ms that is the sample itself (rounded to the
 * microsecond); above, the middle of its bucket, kept within [min, max].
 * 0 without samples.
 */
static uint64_t
kc_lat_quantile(const struct kc_hist *h, unsigned int permille)
{
	uint64_t rank = (h->count * permille + 999) / 1000, seen = 0;
	uint64_t lo = KC_LAT_FINE, w = 10, v;
	unsigned int j;

	if (h->count == 0)
		return 0;
	if (rank == 0)
		rank = 1;
	for (unsigned int i = 0; i < KC_LAT_BUCKETS; i++) {
		seen += h->b[i];
		if (seen < rank)
			continue;
		if (i < KC_LAT_FINE)
			return i;
		if (i == KC_LAT_BUCKETS - 1)
			return h->max_us;
		for (j = i - KC_LAT_FINE; j >= KC_LAT_PER_DECADE; j -= KC_LAT_PER_DECADE)
			lo *= 10, w *= 10;
		v = lo + j * w + w / 2;
		return v < h->min_us ? h->min_us : v > h->max_us ? h->max_us : v;
	}
	return h->max_us;
}

/* Start a transaction in slot @p s. @return 0, or -1 (counted). */
static int
kc_start(struct kc_thread *t, struct kc_slot *s)
{
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr = t->src };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = s };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	ssize_t n;

	if (fd < 0)
		goto fail;
	setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0)
		goto fail;
	s->fd = fd;
	s->got = 0;
	s->need_send = 0;
	s->t0 = kc_now_ns();
	n = sendto(fd, C.req, C.req_len, MSG_FASTOPEN | MSG_NOSIGNAL,
		   (struct sockaddr *)&C.dst, sizeof(C.dst));
	if (n < 0 && errno == EINPROGRESS) {
		/* no cookie: a cookie request SYN went out, data after */
		s->need_send = 1;
		ev.events = EPOLLOUT;
	} else if (n != (ssize_t)C.req_len) {
		goto fail;
	}
	if (epoll_ctl(t->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		goto fail;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	s->fd = -1;
	t->errors++;
	return -1;
}

static void
kc_finish(struct kc_thread *t, struct kc_slot *s, int ok)
{
	int counting = atomic_load_explicit(&C.counting, memory_order_relaxed) == 1;
	uint64_t now = kc_now_ns();

	close(s->fd);
	s->fd = -1;
	if (!counting)
		return;
	if (!ok) {
		t->errors++;
		return;
	}
	t->done++;
	kc_lat_add(&t->lat, now - s->t0);
}

/* Readiness of slot @p s. */
static void
kc_event(struct kc_thread *t, struct kc_slot *s, uint32_t events)
{
	if (s->need_send) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = s };

		if (events & (EPOLLERR | EPOLLHUP) ||
		    send(s->fd, C.req, C.req_len, MSG_NOSIGNAL) != (ssize_t)C.req_len) {
			kc_finish(t, s, 0);
			return;
		}
		s->need_send = 0;
		if (atomic_load_explicit(&C.counting, memory_order_relaxed) == 1)
			t->no_cookie++;
		epoll_ctl(t->ep, EPOLL_CTL_MOD, s->fd, &ev);
		return;
	}
	for (;;) {
		ssize_t n = recv(s->fd, t->rbuf + s->got, sizeof(t->rbuf) - s->got, 0);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0) {
			kc_finish(t, s, 0);
			return;
		}
		if (n == 0) {	/* the server's FIN: the whole echo must be here */
			kc_finish(t, s, s->got == C.req_len &&
				  memcmp(t->rbuf, C.req, C.req_len) == 0);
			return;
		}
		s->got += (uint32_t)n;
		if (s->got > C.req_len) {
			kc_finish(t, s, 0);
			return;
		}
	}
}

/* Without -r: every slot busy all the time. */
static void
kc_closed_loop(struct kc_thread *t)
{
	struct epoll_event evs[256];

	for (int i = 0; i < C.conc; i++)
		kc_start(t, &t->slot[i]);
	while (atomic_load_explicit(&C.counting, memory_order_relaxed) < 2) {
		int n = epoll_wait(t->ep, evs, 256, 100);

		for (int i = 0; i < n; i++) {
			struct kc_slot *s = evs[i].data.ptr;

			kc_event(t, s, evs[i].events);
			if (s->fd < 0)
				kc_start(t, s);
		}
		/* slots whose start failed (ports, memory): try again */
		for (int i = 0; n == 0 && i < C.conc; i++)
			if (t->slot[i].fd < 0)
				kc_start(t, &t->slot[i]);
	}
}

/* -r: one start that is due, in a free slot (there is one). */
static void
kc_paced_start(struct kc_thread *t, int counting)
{
	uint16_t i = t->free_slot[--t->nfree];

	if (kc_start(t, &t->slot[i]) < 0) {	/* counted as an error */
		t->free_slot[t->nfree++] = i;
		return;
	}
	if (counting)
		t->started++;
}

/*
 * -r: wait for events at most @p ns. epoll_pwait2 rather than a timerfd in
 * the epoll set: its timeout is a timespec, so one system call sleeps to
 * the next start to the microsecond, where a timerfd costs a settime and a
 * read besides the wait, and epoll_wait's milliseconds are coarser than the
 * 10 us between starts at 100,000/s. Should the kernel lack it (before
 * 5.11, or a seccomp filter), epoll_wait with the timeout rounded up: the
 * starts then go out in bursts of up to a millisecond's worth.
 */
static int
kc_wait(struct kc_thread *t, struct epoll_event *evs, int max, uint64_t ns)
{
	static atomic_int no_pwait2;
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};
	int n;

	if (!atomic_load_explicit(&no_pwait2, memory_order_relaxed)) {
		n = epoll_pwait2(t->ep, evs, max, &ts, NULL);
		if (n >= 0 || errno != ENOSYS)
			return n;
		atomic_store(&no_pwait2, 1);
	}
	return epoll_wait(t->ep, evs, max, (int)((ns + 999999) / 1000000));
}

/*
 * -r: starts at begin + k * interval for k = 0, 1, ... whatever the
 * answers do (open loop); the k-th time is computed afresh, not summed, so
 * that an interval of a fraction of a nanosecond does not drift.
 */
static void
kc_open_loop(struct kc_thread *t)
{
	struct epoll_event evs[256];
	double interval = 1e9 * C.nthreads / (double)C.rate;	/* ns */
	uint64_t begin = kc_now_ns(), next = begin, k = 0;

	/* the default 50 us slack would make every wake-up that late */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	for (int i = C.conc - 1; i >= 0; i--) {
		t->slot[i].fd = -1;
		t->free_slot[t->nfree++] = (uint16_t)i;
	}
	while (atomic_load_explicit(&C.counting, memory_order_relaxed) < 2) {
		int counting = atomic_load_explicit(&C.counting, memory_order_relaxed) == 1;
		uint64_t now = kc_now_ns(), wait;
		int n;

		if (now > next + KC_LATE_NS) {
			/* skip to the first start after now: no burst */
			uint64_t k2 = (uint64_t)((double)(now - begin) / interval) + 1;

			if (counting)
				t->late += k2 - k;
			k = k2;
			next = begin + (uint64_t)((double)k * interval);
		}
		while (next <= now) {
			if (t->nfree == 0) {
				/* no answer is read before the wait: every start
				 * due until now finds all CONC slots busy too */
				uint64_t k2 = (uint64_t)((double)(now - begin) / interval) + 1;

				if (k2 <= k)
					k2 = k + 1;
				if (counting)
					t->no_slot += k2 - k;
				k = k2;
			} else {
				kc_paced_start(t, counting);
				k++;
			}
			next = begin + (uint64_t)((double)k * interval);
		}
		now = kc_now_ns();
		wait = next > now ? next - now : 0;
		n = kc_wait(t, evs, 256, wait < KC_WAIT_MAX_NS ? wait : KC_WAIT_MAX_NS);
		for (int i = 0; i < n; i++) {
			struct kc_slot *s = evs[i].data.ptr;

			kc_event(t, s, evs[i].events);
			if (s->fd < 0)
				t->free_slot[t->nfree++] = (uint16_t)(s - t->slot);
		}
	}
}

static void *
kc_thread_main(void *arg)
{
	struct kc_thread *t = arg;

	if (t->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	t->ep = epoll_create1(0);
	if (C.rate != 0)
		kc_open_loop(t);
	else
		kc_closed_loop(t);
	for (int i = 0; i < C.conc; i++)
		if (t->slot[i].fd >= 0)
			close(t->slot[i].fd);
	close(t->ep);
	return NULL;
}

/* A TcpExt counter of this network namespace, -1 if not found. */
static long
kc_tcpext(const char *name)
{
	FILE *f = fopen("/proc/net/netstat", "r");
	char names[4096], vals[4096];
	long v = -1;

	if (f == NULL)
		return -1;
	while (fgets(names, sizeof(names), f) != NULL &&
	       fgets(vals, sizeof(vals), f) != NULL) {
		char *sn, *sv, *n, *x;

		if (strncmp(names, "TcpExt:", 7) != 0)
			continue;
		n = strtok_r(names, " \n", &sn);
		x = strtok_r(vals, " \n", &sv);
		while (n != NULL && x != NULL) {
			if (strcmp(n, name) == 0) {
				v = atol(x);
				break;
			}
			n = strtok_r(NULL, " \n", &sn);
			x = strtok_r(NULL, " \n", &sv);
		}
	}
	fclose(f);
	return v;
}

static int
kc_usage(void)
{
	fprintf(stderr, "usage: kernel_tfo_client [-s ADDR] [-p PORT] [-t THREADS] "
		"[-c CONC] [-d SEC] [-n REQ] [-w SEC] [-S FIRST_SRC] [-P] [-r RATE]\n"
		"  -r RATE  open loop: RATE transactions/s over all threads, evenly spaced;\n"
		"           -c then bounds the transactions in flight per thread\n");
	return 2;
}

int
main(int argc, char **argv)
{
	int cpus[KC_MAX_THREADS], ncpu = 0, pin = 0, opt;
	unsigned long done = 0, errors = 0, no_cookie = 0;
	unsigned long started = 0, late = 0, no_slot = 0;
	struct in_addr src0;
	struct kc_hist *lat;
	uint64_t t0, t1;
	long act0, pas0;
	char *end;
	cpu_set_t set;

	C.dst.sin_family = AF_INET;
	C.dst.sin_port = htons(7);
	inet_pton(AF_INET, "127.0.0.1", &C.dst.sin_addr);
	inet_pton(AF_INET, "127.0.1.1", &src0);
	C.conc = 32;
	C.seconds = 5;
	C.warmup = 1;
	C.req_len = 100;
	sched_getaffinity(0, sizeof(set), &set);
	for (int c = 0; c < CPU_SETSIZE && ncpu < KC_MAX_THREADS; c++)
		if (CPU_ISSET(c, &set))
			cpus[ncpu++] = c;
	C.nthreads = ncpu;
	while ((opt = getopt(argc, argv, "s:p:t:c:d:n:w:S:Pr:")) != -1) {
		switch (opt) {
		case 's':
			if (inet_pton(AF_INET, optarg, &C.dst.sin_addr) != 1)
				return kc_usage();
			break;
		case 'p':
			C.dst.sin_port = htons((uint16_t)atoi(optarg));
			break;
		case 't':
			C.nthreads = atoi(optarg);
			break;
		case 'c':
			C.conc = atoi(optarg);
			break;
		case 'd':
			C.seconds = atof(optarg);
			break;
		case 'n':
			C.req_len = (uint32_t)atoi(optarg);
			break;
		case 'w':
			C.warmup = atof(optarg);
			break;
		case 'S':
			if (inet_pton(AF_INET, optarg, &src0) != 1)
				return kc_usage();
			break;
		case 'P':
			pin = 1;
			break;
		case 'r':
			errno = 0;
			C.rate = strtoul(optarg, &end, 10);
			/* at most tfo-loadgen's 10^9/s: the schedule's step
			 * counts then stay far inside 64 bits */
			if (errno != 0 || end == optarg || *end != '\0' ||
			    C.rate == 0 || C.rate > 1000000000ul || optarg[0] == '-')
				return kc_usage();
			break;
		default:
			return kc_usage();
		}
	}
	if (C.nthreads < 1 || C.nthreads > KC_MAX_THREADS || C.conc < 1 ||
	    C.conc > KC_MAX_CONC || C.req_len < 2 || C.req_len > KC_REQ_MAX ||
	    C.seconds <= 0)
		return kc_usage();
	for (uint32_t i = 0; i < C.req_len - 1; i++)
		C.req[i] = (char)('a' + i % 26);
	C.req[C.req_len - 1] = '\n';
	C.th = calloc((size_t)C.nthreads, sizeof(*C.th));
	if (C.th == NULL)
		return 1;
	for (int i = 0; i < C.nthreads; i++) {
		struct kc_thread *t = &C.th[i];

		t->idx = i;
		t->cpu = pin ? cpus[i % ncpu] : -1;
		t->src.s_addr = htonl(ntohl(src0.s_addr) + (uint32_t)i);
		if (pthread_create(&t->tid, NULL, kc_thread_main, t) != 0) {
			fprintf(stderr, "kernel_tfo_client: thread %d failed\n", i);
			return 1;
		}
	}
	usleep((useconds_t)(C.warmup * 1e6));
	act0 = kc_tcpext("TCPFastOpenActive");
	pas0 = kc_tcpext("TCPFastOpenPassive");
	t0 = kc_now_ns();
	atomic_store(&C.counting, 1);
	usleep((useconds_t)(C.seconds * 1e6));
	atomic_store(&C.counting, 2);
	t1 = kc_now_ns();
	lat = calloc(1, sizeof(*lat));
	for (int i = 0; i < C.nthreads; i++) {
		const struct kc_hist *h = &C.th[i].lat;

		pthread_join(C.th[i].tid, NULL);
		done += C.th[i].done;
		errors += C.th[i].errors;
		no_cookie += C.th[i].no_cookie;
		started += C.th[i].started;
		late += C.th[i].late;
		no_slot += C.th[i].no_slot;
		if (lat == NULL || h->count == 0)
			continue;
		for (int b = 0; b < KC_LAT_BUCKETS; b++)
			lat->b[b] += h->b[b];
		if (lat->count == 0 || h->min_us < lat->min_us)
			lat->min_us = h->min_us;
		if (h->max_us > lat->max_us)
			lat->max_us = h->max_us;
		lat->count += h->count;
	}
	printf("transactions %lu seconds %.3f rate %.0f/s errors %lu syn_no_cookie %lu\n",
	       done, (double)(t1 - t0) / 1e9, (double)done * 1e9 / (double)(t1 - t0),
	       errors, no_cookie);
	/* integers: scripts/devtools/bench_report.py reads them as such */
	if (lat != NULL)
		printf("latency_us p50 %llu p99 %llu p999 %llu samples %llu\n",
		       (unsigned long long)kc_lat_quantile(lat, 500),
		       (unsigned long long)kc_lat_quantile(lat, 990),
		       (unsigned long long)kc_lat_quantile(lat, 999),
		       (unsigned long long)lat->count);
	if (C.rate != 0)
		printf("rate_target %lu started %lu late %lu no_slot %lu\n",
		       C.rate, started, late, no_slot);
	printf("tfo_active %ld tfo_passive %ld\n",
	       kc_tcpext("TCPFastOpenActive") - act0, kc_tcpext("TCPFastOpenPassive") - pas0);
	free(lat);
	free(C.th);
	return errors == 0 ? 0 : 1;
}
