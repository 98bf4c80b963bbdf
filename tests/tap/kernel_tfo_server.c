/* SPDX-License-Identifier: BSD-3-Clause
 * A small Linux kernel TFO server for the loadgen tests: one thread,
 * epoll, TCP_FASTOPEN on the listener; reads one request, writes the
 * response, closes (the server closes first, as an HTTP/1.0-style server).
 *
 *   kernel_tfo_server [-p PORT] [-m echo|http] [-n LEN] [-q QLEN] [-4]
 *
 * echo: the request is a line; the response is that line.
 * http: the request ends with an empty line; the response is LEN bytes
 *       (an HTTP/1.1 200 with a body of '.' up to LEN).
 * Prints "listening" when ready; on SIGTERM/SIGINT "served N" and exits 0.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_REQ 65536
#define MAX_FD 65536

struct conn {
	char *buf;
	size_t len;		/* request bytes held */
	size_t out_off;		/* response bytes written */
	size_t out_len;		/* 0 until the request is complete */
};

static volatile sig_atomic_t stop;
static struct conn *conns[MAX_FD];
static char *http_resp;
static size_t http_len = 100;
static int mode_http;
static unsigned long served;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
drop(int ep, int fd)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
	close(fd);
	if (conns[fd] != NULL) {
		free(conns[fd]->buf);
		free(conns[fd]);
		conns[fd] = NULL;
	}
}

/* Write what is left of the response; close when it is all out. */
static void
flush_out(int ep, int fd)
{
	struct conn *c = conns[fd];
	const char *src = mode_http ? http_resp : c->buf;

	while (c->out_off < c->out_len) {
		ssize_t n = write(fd, src + c->out_off, c->out_len - c->out_off);

		if (n < 0) {
			if (errno == EAGAIN) {
				struct epoll_event ev = { .events = EPOLLOUT, .data.fd = fd };

				epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
				return;
			}
			drop(ep, fd);
			return;
		}
		c->out_off += (size_t)n;
	}
	served++;
	drop(ep, fd);
}

static void
on_readable(int ep, int fd)
{
	struct conn *c = conns[fd];

	for (;;) {
		ssize_t n;

		if (c->len == MAX_REQ) {
			drop(ep, fd);
			return;
		}
		n = read(fd, c->buf + c->len, MAX_REQ - c->len);
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			drop(ep, fd);
			return;
		}
		c->len += (size_t)n;
		if (mode_http) {
			if (c->len >= 4 && memmem(c->buf, c->len, "\r\n\r\n", 4) != NULL) {
				c->out_len = http_len;
				break;
			}
		} else {
			char *nl = memchr(c->buf, '\n', c->len);

			if (nl != NULL) {
				c->out_len = (size_t)(nl - c->buf) + 1;
				break;
			}
		}
	}
	flush_out(ep, fd);
}

int
main(int argc, char **argv)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct epoll_event evs[256];
	int port = 7, qlen = 1024, v4only = 0, one = 1, opt, lfd, ep;

	while ((opt = getopt(argc, argv, "p:m:n:q:4")) != -1) {
		switch (opt) {
		case 'p':
			port = atoi(optarg);
			break;
		case 'm':
			mode_http = strcmp(optarg, "http") == 0;
			if (!mode_http && strcmp(optarg, "echo") != 0) {
				fprintf(stderr, "kernel_tfo_server: -m echo|http\n");
				return 2;
			}
			break;
		case 'n':
			http_len = (size_t)atol(optarg);
			break;
		case 'q':
			qlen = atoi(optarg);
			break;
		case '4':
			v4only = 1;
			break;
		default:
			fprintf(stderr, "usage: kernel_tfo_server [-p PORT] [-m echo|http] "
				"[-n LEN] [-q QLEN] [-4]\n");
			return 2;
		}
	}
	if (mode_http) {
		static const char head[] = "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
					   "Connection: close\r\n\r\n";
		char h[128];
		int hl = snprintf(h, sizeof(h), head, (size_t)0);

		if (http_len < (size_t)hl + 8)
			http_len = (size_t)hl + 8;
		http_resp = malloc(http_len);
		/* the Content-Length digits change the head's length: fix up */
		for (size_t body = http_len - (size_t)hl;; body--) {
			hl = snprintf(h, sizeof(h), head, body);
			if ((size_t)hl + body == http_len)
				break;
		}
		memcpy(http_resp, h, (size_t)hl);
		memset(http_resp + hl, '.', http_len - (size_t)hl);
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGPIPE, SIG_IGN);

	lfd = socket(v4only ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (lfd < 0) {
		perror("socket");
		return 1;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (v4only) {
		a4.sin_port = htons((uint16_t)port);
		if (bind(lfd, (struct sockaddr *)&a4, sizeof(a4)) < 0) {
			perror("bind");
			return 1;
		}
	} else {
		int zero = 0;

		setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		a6.sin6_port = htons((uint16_t)port);
		if (bind(lfd, (struct sockaddr *)&a6, sizeof(a6)) < 0) {
			perror("bind");
			return 1;
		}
	}
	/* the TFO queue length is the pending-TFO limit */
	if (setsockopt(lfd, IPPROTO_TCP, TCP_FASTOPEN, &qlen, sizeof(qlen)) < 0) {
		perror("setsockopt TCP_FASTOPEN");
		return 1;
	}
	if (listen(lfd, 4096) < 0) {
		perror("listen");
		return 1;
	}
	ep = epoll_create1(0);
	{
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = lfd };

		epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	}
	printf("listening on port %d (%s, tfo qlen %d)\n", port,
	       mode_http ? "http" : "echo", qlen);
	fflush(stdout);

	while (!stop) {
		int n = epoll_wait(ep, evs, 256, 200);

		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == lfd) {
				int cfd;

				while ((cfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
					struct epoll_event ev = { .events = EPOLLIN, .data.fd = cfd };

					if (cfd >= MAX_FD) {
						close(cfd);
						continue;
					}
					conns[cfd] = calloc(1, sizeof(struct conn));
					conns[cfd]->buf = malloc(MAX_REQ);
					epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ev);
					/* with TFO the request may be there already */
					on_readable(ep, cfd);
				}
			} else if (conns[fd] != NULL) {
				if (conns[fd]->out_len != 0)
					flush_out(ep, fd);
				else
					on_readable(ep, fd);
			}
		}
	}
	printf("served %lu\n", served);
	return 0;
}
