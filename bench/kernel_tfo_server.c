/* SPDX-License-Identifier: BSD-3-Clause
 * The Linux kernel's TCP Fast Open server, for the benchmark: the same work
 * as tfo-server's echo service (read one line, answer it byte for byte,
 * close first), as fast as the kernel lets it go on this machine: one
 * thread per CPU, each with its own SO_REUSEPORT listener (TCP_FASTOPEN
 * on it) and its own epoll set, non-blocking sockets, no allocation per
 * connection.
 *
 *   kernel_tfo_server [-a ADDR] [-p PORT] [-t THREADS] [-q TFO_QLEN]
 *                     [-b BACKLOG] [-P]
 *
 * -t: threads (default: the CPUs this process may run on); -P pins
 * thread i to the i-th of those CPUs. Prints "listening" when every
 * thread listens; on SIGTERM/SIGINT prints "served N errors E" and exits 0.
 * Needs net.ipv4.tcp_fastopen with bit 2 (server) set, e.g. 3.
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
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define KS_MAX_FD 65536
#define KS_REQ_MAX 2048
#define KS_MAX_THREADS 64

/* A connection's request so far; indexed by fd (one thread owns an fd). */
struct ks_conn {
	uint32_t len;
	char buf[KS_REQ_MAX];
};

struct ks_thread {
	pthread_t tid;
	int idx;
	int cpu;		/* -1: not pinned */
	int lfd;
	int ep;
	unsigned long served;
	unsigned long errors;
};

static struct {
	struct sockaddr_in addr;
	int qlen;
	int backlog;
	int nthreads;
	atomic_int ready;
	struct ks_conn *conns;
	struct ks_thread th[KS_MAX_THREADS];
} K;

static volatile sig_atomic_t ks_stop;

static void
ks_on_signal(int sig)
{
	(void)sig;
	ks_stop = 1;
}

static int
ks_listener(void)
{
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0 ||
	    bind(fd, (const struct sockaddr *)&K.addr, sizeof(K.addr)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN, &K.qlen, sizeof(K.qlen)) < 0 ||
	    listen(fd, K.backlog) < 0) {
		perror("kernel_tfo_server: listener");
		close(fd);
		return -1;
	}
	return fd;
}

/* Read what is there; a complete line is answered and the socket closed.
 * @return 1 when done with @p fd (closed), 0 to wait for more. */
static int
ks_serve(struct ks_thread *t, int fd)
{
	struct ks_conn *c = &K.conns[fd];

	for (;;) {
		ssize_t n = recv(fd, c->buf + c->len, KS_REQ_MAX - c->len, 0);
		char *nl;

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			t->errors++;
			break;
		}
		nl = memchr(c->buf + c->len, '\n', (size_t)n);
		c->len += (uint32_t)n;
		if (nl != NULL) {
			size_t len = (size_t)(nl - c->buf) + 1;

			/* 100 bytes always fit the empty send buffer */
			if (send(fd, c->buf, len, MSG_NOSIGNAL) == (ssize_t)len)
				t->served++;
			else
				t->errors++;
			break;
		}
		if (c->len == KS_REQ_MAX) {
			t->errors++;
			break;
		}
	}
	c->len = 0;
	close(fd);	/* the epoll registration goes with the last reference */
	return 1;
}

static void *
ks_thread_main(void *arg)
{
	struct ks_thread *t = arg;
	struct epoll_event evs[256], ev = { .events = EPOLLIN };

	if (t->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	ev.data.fd = t->lfd;
	epoll_ctl(t->ep, EPOLL_CTL_ADD, t->lfd, &ev);
	atomic_fetch_add(&K.ready, 1);
	while (!ks_stop) {
		int n = epoll_wait(t->ep, evs, 256, 100);

		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd != t->lfd) {
				ks_serve(t, fd);
				continue;
			}
			for (;;) {	/* accept all that wait */
				int cfd = accept4(t->lfd, NULL, NULL, SOCK_NONBLOCK);

				if (cfd < 0)
					break;
				if (cfd >= KS_MAX_FD) {
					close(cfd);
					t->errors++;
					continue;
				}
				/* TFO: the request came with the SYN */
				if (ks_serve(t, cfd) == 0) {
					struct epoll_event cev = { .events = EPOLLIN,
								   .data.fd = cfd };

					epoll_ctl(t->ep, EPOLL_CTL_ADD, cfd, &cev);
				}
			}
		}
	}
	return NULL;
}

static int
ks_usage(void)
{
	fprintf(stderr, "usage: kernel_tfo_server [-a ADDR] [-p PORT] [-t THREADS] "
		"[-q TFO_QLEN] [-b BACKLOG] [-P]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	unsigned long served = 0, errors = 0;
	int cpus[KS_MAX_THREADS], ncpu = 0, pin = 0, opt;
	struct sigaction sa;
	cpu_set_t set;

	K.addr.sin_family = AF_INET;
	K.addr.sin_port = htons(7);
	K.addr.sin_addr.s_addr = htonl(INADDR_ANY);
	K.qlen = 4096;
	K.backlog = 4096;
	sched_getaffinity(0, sizeof(set), &set);
	for (int c = 0; c < CPU_SETSIZE && ncpu < KS_MAX_THREADS; c++)
		if (CPU_ISSET(c, &set))
			cpus[ncpu++] = c;
	K.nthreads = ncpu;
	while ((opt = getopt(argc, argv, "a:p:t:q:b:P")) != -1) {
		switch (opt) {
		case 'a':
			if (inet_pton(AF_INET, optarg, &K.addr.sin_addr) != 1)
				return ks_usage();
			break;
		case 'p':
			K.addr.sin_port = htons((uint16_t)atoi(optarg));
			break;
		case 't':
			K.nthreads = atoi(optarg);
			break;
		case 'q':
			K.qlen = atoi(optarg);
			break;
		case 'b':
			K.backlog = atoi(optarg);
			break;
		case 'P':
			pin = 1;
			break;
		default:
			return ks_usage();
		}
	}
	if (K.nthreads < 1 || K.nthreads > KS_MAX_THREADS)
		return ks_usage();
	K.conns = calloc(KS_MAX_FD, sizeof(*K.conns));
	if (K.conns == NULL) {
		perror("kernel_tfo_server: calloc");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ks_on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	for (int i = 0; i < K.nthreads; i++) {
		struct ks_thread *t = &K.th[i];

		t->idx = i;
		t->cpu = pin ? cpus[i % ncpu] : -1;
		t->lfd = ks_listener();
		t->ep = epoll_create1(0);
		if (t->lfd < 0 || t->ep < 0 ||
		    pthread_create(&t->tid, NULL, ks_thread_main, t) != 0) {
			fprintf(stderr, "kernel_tfo_server: thread %d failed\n", i);
			return 1;
		}
	}
	while (atomic_load(&K.ready) < K.nthreads)
		usleep(1000);
	printf("listening on port %u, %d threads\n", ntohs(K.addr.sin_port), K.nthreads);
	fflush(stdout);
	for (int i = 0; i < K.nthreads; i++) {
		pthread_join(K.th[i].tid, NULL);
		served += K.th[i].served;
		errors += K.th[i].errors;
	}
	printf("served %lu errors %lu\n", served, errors);
	return 0;
}
