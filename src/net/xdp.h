/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tfo-fastpath: AF_XDP mode (src/net/xdp.c). A net_af_xdp port with
 * [port] xdp = own runs tfo-server's XDP program (src/net/bpf/tfo_xdp.c,
 * embedded in the binary): only TCP to the served (address, port) pairs,
 * UDP to those of services with udp = on, and the ICMP errors about our
 * segments, reach the AF_XDP sockets; the kernel keeps the interface's
 * address, ARP, ND, ping, IP fragments and everything else.
 *
 * Order: tfo_xdp_check (configuration), tfo_xdp_prepare (before the EAL
 * creates the vdev: the program in a memfd, named by xdp_prog=), the port's
 * set-up (net_af_xdp loads and attaches the program, fills xsks_map),
 * tfo_xdp_attach (finds the program on the interface, fills tfo_served),
 * and tfo_xdp_detach after the port's close.
 */
#ifndef TFO_XDP_H
#define TFO_XDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops/config.h"

/** Whether this build carries the XDP program (clang's BPF target and
 *  libbpf were there at build time); if not, @p why says what was missing. */
bool tfo_xdp_built(const char **why);

/** Does @p vdev create a net_af_xdp device ("net_af_xdp0,iface=eth0")? */
bool tfo_xdp_is_af_xdp(const char *vdev);

/** Does a port of @p c run on net_af_xdp? Then every pool takes the AF_XDP
 *  layout (net/xdp_pool.h): the start plan and the start ask the same. */
bool tfo_xdp_any_port(const struct tfo_config *c);

/** Does port @p p run tfo-server's XDP program (xdp = own, or auto on a
 *  net_af_xdp vdev)? */
bool tfo_xdp_own(const struct tfo_cfg_port *p);

/**
 * The value of devarg @p key ("iface", "queue_count") of @p vdev into
 * @p buf. @return its length, -ENOENT if absent, -ENOSPC if too long.
 */
int tfo_xdp_devarg(const char *vdev, const char *key, char *buf, size_t len);

/**
 * Configuration checks of port @p p (no system state): xdp = own only on a
 * net_af_xdp vdev with iface=, in a build with the program, without
 * exception, syn_steering, rss = peer or a vdev xdp_prog=. @return 0, or
 * -EINVAL with the reason in @p err.
 */
int tfo_xdp_check(const struct tfo_cfg_port *p, char *err, size_t errlen);

/** tfo_xdp_check for every port of @p c, and no two xdp = own ports on one
 *  interface. @return 0, or -EINVAL with the reason in @p err. */
int tfo_xdp_check_ports(const struct tfo_config *c, char *err, size_t errlen);

/**
 * A net_af_xdp port with xdp = off and the vdev's own xdp_prog=: a start-up
 * warning that what reaches tfo-server is that program's choice (the
 * services' TCP ports, and UDP ports of those with udp = on, must be
 * among what it redirects). Nothing for any other port.
 */
void tfo_xdp_warn_foreign(const struct tfo_config *c, const struct tfo_cfg_port *p);

/**
 * Before the EAL: checks the interface (exists here; an XDP program of a
 * tfo-server that died is removed; one a live process holds, or anybody
 * else's, is refused), puts the
 * program in a memfd and writes into @p vdev (@p len bytes) the port's
 * vdev with xdp_prog= naming it. The memfd stays open for the process.
 * @return 0, or a negative errno with the reason in @p err.
 */
int tfo_xdp_prepare(const struct tfo_cfg_port *p, char *vdev, size_t len, char *err,
		    size_t errlen);

/**
 * One interface queue per worker: the vdev's queue_count (1 by default)
 * must equal @p nb_workers, before the port's set-up. @return 0, or
 * -EINVAL with the reason in @p err.
 */
int tfo_xdp_check_workers(const struct tfo_cfg_port *p, unsigned int nb_workers, char *err,
			  size_t errlen);

/** What tfo_xdp_attach found, for tfo_xdp_detach and the counters; all
 *  zero for a port without the program. */
struct tfo_xdp {
	int ifindex;		/**< 0: nothing attached by us */
	uint32_t prog_id;
	uint32_t attach_flags;	/**< XDP_FLAGS_*_MODE it runs in */
	int stats_fd;		/**< tfo_xdp_stats map, -1 if none */
	unsigned int nb_served;	/**< (address, port) pairs in tfo_served */
	unsigned int nb_served_udp;	/**< of those, served over UDP too */
};

/**
 * After the port's set-up: finds our program on the interface (net_af_xdp
 * attached it), refuses one that is not ours, and fills its tfo_served map
 * with every (address of port @p p, port of a service of @p c): TCP, and
 * UDP too for a service with udp = on; warns
 * when the interface has RX queues beyond the vdev's (their served TCP
 * reaches the kernel). @p nb_workers: for the log line.
 * @return 0, or a negative errno with the reason in @p err.
 */
int tfo_xdp_attach(const struct tfo_config *c, const struct tfo_cfg_port *p,
		   unsigned int nb_workers, struct tfo_xdp *x, char *err, size_t errlen);

/** The program's counters (frames to the sockets, frames to the kernel),
 *  summed over CPUs. @return 0, or a negative errno. */
int tfo_xdp_counters(const struct tfo_xdp *x, uint64_t *redirected, uint64_t *passed);

/** After the port's close: removes the program if it is still attached
 *  (net_af_xdp 22.11 removes it itself on close; this covers the rest).
 *  A zeroed @p x (no program) is left alone. */
void tfo_xdp_detach(struct tfo_xdp *x);

#endif
