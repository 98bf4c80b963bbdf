/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the sd_notify module against a socket of its own, as
 * systemd's side would receive the datagrams: an abstract name ('@') and a
 * file path; the watchdog period and its pid; no socket at all.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lcore/sdnotify.h"
#include "test.h"

/* A datagram socket bound to @p name ('@': abstract), as systemd's. */
static int
listener(const char *name)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memcpy(a.sun_path, name, len);
	if (name[0] == '@')
		a.sun_path[0] = '\0';
	if (bind(fd, (struct sockaddr *)&a,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The next datagram on @p fd (waits up to a second), NUL-terminated. */
static ssize_t
receive(int fd, char *buf, size_t size)
{
	struct timeval tv = { .tv_sec = 1 };
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = recv(fd, buf, size - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static void
exchange(const char *name)
{
	struct tfo_sdnotify n;
	char buf[256];
	int fd = listener(name);

	CHECK_MSG(fd >= 0, "bind %s: %s", name, strerror(errno));
	if (fd < 0)
		return;
	CHECK_EQ(tfo_sdnotify_open(&n, name, NULL, NULL, getpid()), 1);
	CHECK_EQ(n.watchdog_us, 0);
	CHECK_EQ(tfo_sdnotify_send(&n, "READY=1\nSTATUS=serving"), 0);
	CHECK_EQ(receive(fd, buf, sizeof(buf)), 22);
	CHECK(strcmp(buf, "READY=1\nSTATUS=serving") == 0);
	CHECK_EQ(tfo_sdnotify_send(&n, "STOPPING=1"), 0);
	CHECK_EQ(receive(fd, buf, sizeof(buf)), 10);
	CHECK(strcmp(buf, "STOPPING=1") == 0);
	tfo_sdnotify_close(&n);
	CHECK_EQ(n.fd, -1);
	close(fd);
}

TFO_TEST(abstract_socket)
{
	char name[64];

	snprintf(name, sizeof(name), "@tfo-sdnotify-test-%d", (int)getpid());
	exchange(name);
}

TFO_TEST(path_socket)
{
	char name[64];

	snprintf(name, sizeof(name), "/tmp/tfo-sdnotify-test-%d.sock", (int)getpid());
	unlink(name);
	exchange(name);
	unlink(name);
}

TFO_TEST(watchdog_period_and_pid)
{
	struct tfo_sdnotify n;
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	CHECK_EQ(tfo_sdnotify_open(&n, NULL, "4000000", NULL, getpid()), 0);
	CHECK_EQ(n.watchdog_us, 4000000);
	CHECK_EQ(tfo_sdnotify_open(&n, "", "4000000", pid, getpid()), 0);
	CHECK_EQ(n.watchdog_us, 4000000);
	/* a watchdog meant for another process (we inherited its env) */
	CHECK_EQ(tfo_sdnotify_open(&n, NULL, "4000000", "1", getpid()), 0);
	CHECK_EQ(n.watchdog_us, 0);
	CHECK_EQ(tfo_sdnotify_open(&n, NULL, "4s", NULL, getpid()), 0);
	CHECK_EQ(n.watchdog_us, 0);
}

TFO_TEST(no_socket_is_a_no_op)
{
	struct tfo_sdnotify n;
	char longname[200];

	CHECK_EQ(tfo_sdnotify_open(&n, NULL, NULL, NULL, getpid()), 0);
	CHECK_EQ(n.fd, -1);
	CHECK_EQ(tfo_sdnotify_send(&n, "READY=1"), 0);
	tfo_sdnotify_close(&n);
	CHECK_EQ(tfo_sdnotify_open(&n, "relative/path", NULL, NULL, getpid()), -EINVAL);
	CHECK_EQ(n.fd, -1);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[0] = '/';
	longname[sizeof(longname) - 1] = '\0';
	CHECK_EQ(tfo_sdnotify_open(&n, longname, NULL, NULL, getpid()), -EINVAL);
	CHECK_EQ(tfo_sdnotify_send(&n, "READY=1"), 0);
}

TFO_TEST_MAIN()
