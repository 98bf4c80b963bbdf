/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: one server per device. Before the EAL probes a vdev, find
 * out whether another process already holds what it would take: a
 * net_tap's kernel interface (its /dev/net/tun file carries the name), a
 * net_memif server's listening socket. net_tap happily attaches a second
 * process as another queue of the same tap and takes it over; net_memif
 * fails obscurely. Start-up only: a walk of /proc, nothing per packet.
 * A tap or memif socket that no process holds yet is then claimed for this
 * process (an abstract unix socket named for it, kept until exit), so two
 * servers that start at the same instant cannot both pass.
 */
#ifndef TFO_DEV_OWNER_H
#define TFO_DEV_OWNER_H

#include <stdbool.h>
#include <stddef.h>

#include "ops/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Does fd @p fd of process @p pid match? @p link is its /proc/PID/fd
 *  symlink's target ("/dev/net/tun", "socket:[123]", "anon_inode:bpf-prog"). */
typedef bool (*tfo_dev_owner_match_t)(int pid, int fd, const char *link, const void *arg);

/**
 * The first process of /proc (this PID namespace; not this one) with an fd
 * that @p match accepts: it tells who holds a device, a socket or a
 * program. Start-up only (a walk of every process's fds).
 *
 * @return its pid, 0 if none, or a negative errno (/proc unreadable).
 */
int tfo_dev_owner_scan(tfo_dev_owner_match_t match, const void *arg);

/**
 * Check vdev string @p vdev ("net_tap0,iface=tfo0", "net_memif0,socket=...";
 * any other kind passes) against the other processes of this machine, and
 * a net_tap's iface= against @p tap ([port] tap, enum tfo_tap_mode).
 *
 * @return 0 when the device is free (@p what, if not NULL, then says in
 *   a few words what the PMD will do: "creates tap X" / "attaches to the
 *   existing tap X"; empty for other kinds), -EBUSY when another process
 *   holds it, -ENODEV when the name is another kind of interface or
 *   none with tap = attach, -EEXIST when it exists with tap = create:
 *   @p err is then one line naming the interface or socket, the holder's
 *   PID and what to do. A free tap or memif server socket is claimed for
 *   the life of this process.
 */
int tfo_dev_owner_check(const char *vdev, enum tfo_tap_mode tap, char *what,
			size_t whatlen, char *err, size_t errlen);

/**
 * Claim interface @p iface (of port @p dev; @p what names its kind in the
 * message: "tap", "interface") for the life of this process, so that two
 * servers started at the same instant in one network namespace cannot
 * both take it. tfo_dev_owner_check and tfo_dev_owner_exception claim a
 * tap themselves; AF_XDP mode claims its interface in tfo_xdp_prepare.
 *
 * @return 0 (claimed: the claim is released only by the process's exit),
 *   -EBUSY when another process holds the claim (@p err: one line naming
 *   its PID and @p key, the setting to change), or another negative errno.
 */
int tfo_dev_owner_claim(const char *dev, const char *what, const char *iface, const char *key,
			char *err, size_t errlen);

/**
 * The exception path's tap @p iface of port @p dev (exception = on; net_tap
 * created at start, lcore/exception.c): -EBUSY and one line in @p err when
 * another process holds it (two servers with the default tfoexc0), else 0.
 */
int tfo_dev_owner_exception(const char *dev, const char *iface, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* TFO_DEV_OWNER_H */
