/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tfo-fastpath: what the XDP program (tfo_xdp.c, BPF) and tfo-server
 * (src/net/xdp.c) share: the key and value of the tfo_served map and the
 * counters.
 */
#ifndef TFO_XDP_SHARED_H
#define TFO_XDP_SHARED_H

#include <linux/types.h>

#define TFO_XDP_MAX_QUEUES	1024	/* xsks_map: RX queue index -> socket */
#define TFO_XDP_MAX_SERVED	4096	/* (address, port) pairs */

enum {
	TFO_XDP_V4 = 4,
	TFO_XDP_V6 = 6,
};

/** One served (address, port); IPv4 in addr[0..3], the rest zero. */
struct tfo_xdp_key {
	__u8 family;		/**< TFO_XDP_V4 or TFO_XDP_V6 */
	__u8 pad;
	__be16 port;		/**< network order */
	__u8 addr[16];		/**< network order */
};

/**
 * tfo_served values: the protocols served at (address, port), a bit each.
 * The key has no protocol so that one look-up per frame answers for
 * both, and the value stays compatible: before UDP it was 1 (TCP), what
 * TFO_XDP_SERVE_TCP still is; a program that only tests for a value
 * reads a TCP | UDP pair as served TCP, as before.
 */
enum {
	TFO_XDP_SERVE_TCP = 1u << 0,	/**< TCP: every service */
	TFO_XDP_SERVE_UDP = 1u << 1,	/**< UDP datagrams too: udp = on */
};

/** tfo_xdp_stats indices */
enum {
	TFO_XDP_REDIRECTED = 0,	/**< to an AF_XDP socket (or XDP_PASS if none) */
	TFO_XDP_PASSED,		/**< left to the kernel */
	TFO_XDP_NB_COUNTERS,
};

#endif
