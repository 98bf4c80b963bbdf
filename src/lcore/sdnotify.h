/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the service manager's notification protocol (systemd's
 * sd_notify, written by hand: no libsystemd).
 *
 * With Type=notify, systemd passes the path of a datagram socket in
 * $NOTIFY_SOCKET (a file path, or an abstract name when it starts with
 * '@') and, with WatchdogSec=, the period in $WATCHDOG_USEC (for the
 * process $WATCHDOG_PID, when set). A message is one datagram of
 * newline-separated KEY=VALUE lines: READY=1, STOPPING=1, WATCHDOG=1,
 * STATUS=... . Without $NOTIFY_SOCKET every call here is a no-op, so the
 * same binary runs under any supervisor or none.
 */
#ifndef TFO_SDNOTIFY_H
#define TFO_SDNOTIFY_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_sdnotify {
	int fd;				/**< -1: no service manager listens */
	socklen_t addr_len;
	struct sockaddr_un addr;
	/** The watchdog period in microseconds (WATCHDOG_USEC), 0: none:
	 *  send WATCHDOG=1 at least every half of it. */
	uint64_t watchdog_us;
};

/**
 * Open the notification socket for @p socket_path (NOTIFY_SOCKET's value;
 * NULL or "": none) and read the watchdog period from @p watchdog_usec and
 * @p watchdog_pid (WATCHDOG_USEC, WATCHDOG_PID; NULL: unset; a pid other
 * than @p self means the watchdog is another process's). @p n is always
 * usable afterwards (fd -1 when there is no socket).
 * @return 1 with a socket, 0 without, -EINVAL for a path that is neither
 * absolute nor abstract or does not fit sockaddr_un, or the -errno of
 * socket(2).
 */
int tfo_sdnotify_open(struct tfo_sdnotify *n, const char *socket_path,
		      const char *watchdog_usec, const char *watchdog_pid, pid_t self);

/** tfo_sdnotify_open from the environment (NOTIFY_SOCKET, WATCHDOG_USEC,
 *  WATCHDOG_PID) for this process. */
int tfo_sdnotify_open_env(struct tfo_sdnotify *n);

/**
 * Send @p msg (e.g. "READY=1", "STOPPING=1\nSTATUS=draining") as one
 * datagram; one non-blocking sendto(2), so call it from the control lcore,
 * never from the hot path. No socket: nothing, 0.
 * @return 0, or the -errno of sendto (logged, rate-limited by the caller's
 * own period).
 */
int tfo_sdnotify_send(const struct tfo_sdnotify *n, const char *msg);

/** Close the socket (fd -1 again). */
void tfo_sdnotify_close(struct tfo_sdnotify *n);

#ifdef __cplusplus
}
#endif

#endif /* TFO_SDNOTIFY_H */
