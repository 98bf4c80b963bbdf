/* SPDX-License-Identifier: BSD-3-Clause
 * The Linux kernel's TCP Fast Open server, the peer next to tfo-server in
 * the benchmark (scripts/devtools/bench.sh) and the server tfo-loadgen
 * drives in the tap test (tests/tap/loadgen_kernel.sh). The same work as
 * tfo-server's services (read one request, answer it, close first), as fast
 * as the kernel lets it go on this machine: one thread per CPU, each with
 * its own SO_REUSEPORT listener (TCP_FASTOPEN on it) and its own epoll set,
 * non-blocking sockets, no allocation per connection.
 *
 *   kernel_tfo_server [-a ADDR] [-p PORT] [-t THREADS] [-q TFO_QLEN]
 *                     [-b BACKLOG] [-P] [-6] [-m echo|http] [-n LEN]
 *
 * -m echo (default): the request is a line; the response is that line.
 * -m http: the request ends with an empty line; the response is LEN bytes
 *    (-n, default 100): an HTTP/1.1 200 with a body of '.'.
 * -6: IPv6 listeners that take IPv4 too (v4-mapped); -a is then an IPv6
 *    address. -t: threads (default: the CPUs this process may run on; each
 *    listener has its own TFO queue of TFO_QLEN); -P pins thread i to the
 *    i-th of those CPUs. Prints "listening" when every thread listens; on
 *    SIGTERM/SIGINT prints "served N errors E" and exits 0.
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define KS_MAX_FD 65536
#define KS_REQ_MAX 4096		/* the tap test echoes 3000-byte requests */
#define KS_MAX_THREADS 64
#define KS_HTTP_MAX (1u << 20)

/* A connection's request and response so far; indexed by fd (one thread
 * owns an fd). */
struct ks_conn {
	uint32_t len;		/* request bytes held */
	uint32_t out_len;	/* response length; 0 while reading */
	uint32_t out_off;	/* response bytes sent */
	uint32_t events;	/* registered epoll events; 0: not registered */
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
	struct sockaddr_storage addr;
	socklen_t addr_len;
	int qlen;
	int backlog;
	int nthreads;
	int http;		/* -m http */
	char *http_resp;	/* the response of -m http */
	uint32_t http_len;
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
	int one = 1, zero = 0;
	int fd = socket(K.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -1;
	if ((K.addr.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) < 0) ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0 ||
	    bind(fd, (const struct sockaddr *)&K.addr, K.addr_len) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN, &K.qlen, sizeof(K.qlen)) < 0 ||
	    listen(fd, K.backlog) < 0) {
		perror("kernel_tfo_server: listener");
		close(fd);
		return -1;
	}
	return fd;
}

static void
ks_close(int fd, struct ks_conn *c)
{
	c->len = c->out_len = c->out_off = c->events = 0;
	close(fd);	/* the epoll registration goes with the last reference */
}

/* Wait for what @p c needs next on @p fd: registered on the first wait
 * (most TFO requests are answered at accept, without one). */
static void
ks_arm(struct ks_thread *t, int fd, struct ks_conn *c)
{
	uint32_t want = c->out_len != 0 ? EPOLLOUT : EPOLLIN;
	struct epoll_event ev = { .events = want, .data.fd = fd };

	if (c->events == want)
		return;
	if (epoll_ctl(t->ep, c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev) < 0) {
		t->errors++;
		ks_close(fd, c);
		return;
	}
	c->events = want;
}

/* The response length once @p c holds a whole request (its last @p n bytes
 * are new), else 0. */
static uint32_t
ks_request_end(const struct ks_conn *c, uint32_t n)
{
	uint32_t from;
	const char *end;

	if (!K.http) {
		end = memchr(c->buf + c->len - n, '\n', n);
		return end != NULL ? (uint32_t)(end - c->buf) + 1 : 0;
	}
	from = c->len - n >= 3 ? c->len - n - 3 : 0;
	end = memmem(c->buf + from, c->len - from, "\r\n\r\n", 4);
	return end != NULL ? K.http_len : 0;
}

/* Read what is there; a complete request is answered and the socket
 * closed, else it waits (ks_arm). */
static void
ks_serve(struct ks_thread *t, int fd)
{
	struct ks_conn *c = &K.conns[fd];
	const char *src;

	while (c->out_len == 0) {
		ssize_t n = recv(fd, c->buf + c->len, KS_REQ_MAX - c->len, 0);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			ks_arm(t, fd, c);
			return;
		}
		if (n <= 0) {
			t->errors++;
			ks_close(fd, c);
			return;
		}
		c->len += (uint32_t)n;
		c->out_len = ks_request_end(c, (uint32_t)n);
		if (c->out_len == 0 && c->len == KS_REQ_MAX) {
			t->errors++;
			ks_close(fd, c);
			return;
		}
	}
	src = K.http ? K.http_resp : c->buf;
	while (c->out_off < c->out_len) {
		/* a small response always fits the empty send buffer */
		ssize_t n = send(fd, src + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			ks_arm(t, fd, c);
			return;
		}
		if (n <= 0) {
			t->errors++;
			ks_close(fd, c);
			return;
		}
		c->out_off += (uint32_t)n;
	}
	t->served++;
	ks_close(fd, c);
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
				ks_serve(t, cfd);
			}
		}
	}
	return NULL;
}

/* -m http's response: a head and '.' up to @p len bytes in all. */
static int
ks_http_response(uint32_t len)
{
	static const char head[] = "HTTP/1.1 200 OK\r\nContent-Length: %u\r\n"
				   "Connection: close\r\n\r\n";
	char h[128];
	int hl = snprintf(h, sizeof(h), head, 0u);

	if (len < (uint32_t)hl + 8)
		len = (uint32_t)hl + 8;
	K.http_resp = malloc(len);
	if (K.http_resp == NULL)
		return -1;
	/* the Content-Length digits change the head's length: fix up */
	for (uint32_t body = len - (uint32_t)hl;; body--) {
		hl = snprintf(h, sizeof(h), head, body);
		if ((uint32_t)hl + body == len)
			break;
	}
	memcpy(K.http_resp, h, (size_t)hl);
	memset(K.http_resp + hl, '.', len - (uint32_t)hl);
	K.http_len = len;
	return 0;
}

/* ADDR (or the wildcard when NULL) and PORT into K.addr. */
static int
ks_set_addr(int family, const char *addr, int port)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&K.addr;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&K.addr;

	memset(&K.addr, 0, sizeof(K.addr));
	if (family == AF_INET6) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		a6->sin6_addr = in6addr_any;
		K.addr_len = sizeof(*a6);
		return addr == NULL || inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1 ? 0 : -1;
	}
	a4->sin_family = AF_INET;
	a4->sin_port = htons((uint16_t)port);
	a4->sin_addr.s_addr = htonl(INADDR_ANY);
	K.addr_len = sizeof(*a4);
	return addr == NULL || inet_pton(AF_INET, addr, &a4->sin_addr) == 1 ? 0 : -1;
}

static int
ks_usage(void)
{
	fprintf(stderr, "usage: kernel_tfo_server [-a ADDR] [-p PORT] [-t THREADS] "
		"[-q TFO_QLEN] [-b BACKLOG] [-P] [-6] [-m echo|http] [-n LEN]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	unsigned long served = 0, errors = 0;
	int cpus[KS_MAX_THREADS], ncpu = 0, pin = 0, opt, port = 7, family = AF_INET;
	const char *addr = NULL;
	long http_len = 100;
	struct sigaction sa;
	cpu_set_t set;

	K.qlen = 4096;
	K.backlog = 4096;
	sched_getaffinity(0, sizeof(set), &set);
	for (int c = 0; c < CPU_SETSIZE && ncpu < KS_MAX_THREADS; c++)
		if (CPU_ISSET(c, &set))
			cpus[ncpu++] = c;
	K.nthreads = ncpu;
	while ((opt = getopt(argc, argv, "a:p:t:q:b:P6m:n:")) != -1) {
		switch (opt) {
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
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
		case '6':
			family = AF_INET6;
			break;
		case 'm':
			if (strcmp(optarg, "http") != 0 && strcmp(optarg, "echo") != 0)
				return ks_usage();
			K.http = strcmp(optarg, "http") == 0;
			break;
		case 'n':
			http_len = atol(optarg);
			break;
		default:
			return ks_usage();
		}
	}
	if (K.nthreads < 1 || K.nthreads > KS_MAX_THREADS || port < 0 || port > 65535 ||
	    http_len < 0 || http_len > KS_HTTP_MAX || ks_set_addr(family, addr, port) < 0)
		return ks_usage();
	K.conns = calloc(KS_MAX_FD, sizeof(*K.conns));
	if (K.conns == NULL || (K.http && ks_http_response((uint32_t)http_len) < 0)) {
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
	printf("listening on port %d (%s, %s, %d threads, tfo qlen %d)\n", port,
	       family == AF_INET6 ? "IPv6+IPv4" : "IPv4", K.http ? "http" : "echo",
	       K.nthreads, K.qlen);
	fflush(stdout);
	for (int i = 0; i < K.nthreads; i++) {
		pthread_join(K.th[i].tid, NULL);
		served += K.th[i].served;
		errors += K.th[i].errors;
	}
	printf("served %lu errors %lu\n", served, errors);
	return 0;
}
