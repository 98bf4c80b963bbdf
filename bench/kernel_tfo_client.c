/* SPDX-License-Identifier: BSD-3-Clause
 * The Linux kernel's TCP Fast Open client as a load: threads, each keeping
 * C transactions in flight on non-blocking sockets with one epoll set. A
 * transaction: socket, sendto(MSG_FASTOPEN) of a REQ-byte line (the SYN
 * carries it once the address has a cookie), read the echo until the
 * server's FIN, check it byte for byte, close.
 *
 *   kernel_tfo_client [-s ADDR] [-p PORT] [-t THREADS] [-c CONC] [-d SEC]
 *                     [-n REQ] [-w SEC] [-S FIRST_SRC] [-P]
 *
 * Thread i binds its sockets to FIRST_SRC + i (default 127.0.1.1 + i) so
 * that the threads do not share ephemeral ports. -w: warm-up seconds (not
 * counted; the first connections learn the cookies). -P pins thread i to
 * the i-th allowed CPU. Output, one line each:
 *   transactions N seconds S rate R/s errors E syn_no_cookie K
 *   latency_us p50 A p99 B
 * and TcpExt TCPFastOpenActive / TCPFastOpenPassive deltas of this network
 * namespace (read from /proc/net/netstat) as tfo_active N tfo_passive M.
 * Exit code 0 when no transaction went wrong.
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
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define KC_MAX_THREADS 64
#define KC_MAX_CONC 1024
#define KC_REQ_MAX 1400
#define KC_LAT_BUCKETS 4096	/* latency histogram: 10 us buckets, 41 ms */

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
	uint64_t lat[KC_LAT_BUCKETS];
	struct kc_slot slot[KC_MAX_CONC];
	char rbuf[KC_REQ_MAX + 1];
};

static struct {
	struct sockaddr_in dst;
	int nthreads, conc;
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

	close(s->fd);
	s->fd = -1;
	if (!counting)
		return;
	if (!ok) {
		t->errors++;
		return;
	}
	t->done++;
	t->lat[(kc_now_ns() - s->t0) / 10000 < KC_LAT_BUCKETS ?
	       (kc_now_ns() - s->t0) / 10000 : KC_LAT_BUCKETS - 1]++;
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

static void *
kc_thread_main(void *arg)
{
	struct kc_thread *t = arg;
	struct epoll_event evs[256];

	if (t->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	t->ep = epoll_create1(0);
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

static double
kc_percentile(const uint64_t *h, uint64_t total, double q)
{
	uint64_t want = (uint64_t)(q * (double)total), acc = 0;

	for (int i = 0; i < KC_LAT_BUCKETS; i++) {
		acc += h[i];
		if (acc > want)
			return (i + 0.5) * 10.0;
	}
	return KC_LAT_BUCKETS * 10.0;
}

static int
kc_usage(void)
{
	fprintf(stderr, "usage: kernel_tfo_client [-s ADDR] [-p PORT] [-t THREADS] "
		"[-c CONC] [-d SEC] [-n REQ] [-w SEC] [-S FIRST_SRC] [-P]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	int cpus[KC_MAX_THREADS], ncpu = 0, pin = 0, opt;
	unsigned long done = 0, errors = 0, no_cookie = 0;
	struct in_addr src0;
	uint64_t t0, t1, *lat;
	long act0, pas0;
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
	while ((opt = getopt(argc, argv, "s:p:t:c:d:n:w:S:P")) != -1) {
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
	lat = calloc(KC_LAT_BUCKETS, sizeof(*lat));
	for (int i = 0; i < C.nthreads; i++) {
		pthread_join(C.th[i].tid, NULL);
		done += C.th[i].done;
		errors += C.th[i].errors;
		no_cookie += C.th[i].no_cookie;
		for (int b = 0; lat != NULL && b < KC_LAT_BUCKETS; b++)
			lat[b] += C.th[i].lat[b];
	}
	printf("transactions %lu seconds %.3f rate %.0f/s errors %lu syn_no_cookie %lu\n",
	       done, (double)(t1 - t0) / 1e9, (double)done * 1e9 / (double)(t1 - t0),
	       errors, no_cookie);
	if (lat != NULL)
		printf("latency_us p50 %.0f p99 %.0f\n", kc_percentile(lat, done, 0.5),
		       kc_percentile(lat, done, 0.99));
	printf("tfo_active %ld tfo_passive %ld\n",
	       kc_tcpext("TCPFastOpenActive") - act0, kc_tcpext("TCPFastOpenPassive") - pas0);
	free(lat);
	free(C.th);
	return errors == 0 ? 0 : 1;
}
