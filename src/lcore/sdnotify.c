/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: sd_notify by hand (see sdnotify.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lcore/sdnotify.h"
#include "tfo/log.h"

int
tfo_sdnotify_open(struct tfo_sdnotify *n, const char *socket_path,
		  const char *watchdog_usec, const char *watchdog_pid, pid_t self)
{
	size_t len;

	memset(n, 0, sizeof(*n));
	n->fd = -1;
	if (watchdog_usec != NULL && watchdog_usec[0] != '\0') {
		char *end;
		unsigned long long us = strtoull(watchdog_usec, &end, 10);

		/* WATCHDOG_PID names the process the watchdog is for: a child
		 * that inherited the environment must not answer for us */
		if (*end == '\0' && (watchdog_pid == NULL || watchdog_pid[0] == '\0' ||
				     strtol(watchdog_pid, NULL, 10) == (long)self))
			n->watchdog_us = us;
	}
	if (socket_path == NULL || socket_path[0] == '\0')
		return 0;
	len = strlen(socket_path);
	if ((socket_path[0] != '/' && socket_path[0] != '@') ||
	    len >= sizeof(n->addr.sun_path))
		return -EINVAL;
	n->addr.sun_family = AF_UNIX;
	memcpy(n->addr.sun_path, socket_path, len);
	if (socket_path[0] == '@')
		n->addr.sun_path[0] = '\0';	/* abstract: no trailing NUL counted */
	n->addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
				  (socket_path[0] == '/' ? 1 : 0));
	n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (n->fd < 0) {
		int rc = -errno;

		TFO_LOG(ERR, "NOTIFY_SOCKET %s: socket: %s", socket_path, strerror(-rc));
		return rc;
	}
	return 1;
}

int
tfo_sdnotify_open_env(struct tfo_sdnotify *n)
{
	return tfo_sdnotify_open(n, getenv("NOTIFY_SOCKET"), getenv("WATCHDOG_USEC"),
				 getenv("WATCHDOG_PID"), getpid());
}

int
tfo_sdnotify_send(const struct tfo_sdnotify *n, const char *msg)
{
	if (n->fd < 0)
		return 0;
	if (sendto(n->fd, msg, strlen(msg), MSG_NOSIGNAL,
		   (const struct sockaddr *)&n->addr, n->addr_len) < 0) {
		int rc = -errno;

		TFO_LOG(WARNING, "sd_notify %.40s: %s", msg, strerror(-rc));
		return rc;
	}
	return 0;
}

void
tfo_sdnotify_close(struct tfo_sdnotify *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
}
