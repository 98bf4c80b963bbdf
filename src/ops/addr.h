/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: an address of ours, as the configuration names it and a frame
 * carries it (net/pkt.h), and how many a server has. The ground floor's:
 * the configuration, the parser and the counters all read it.
 */
#ifndef TFO_ADDR_H
#define TFO_ADDR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most local addresses one port can have (IPv4 and IPv6 together). */
#define TFO_MAX_PORT_ADDRS 8
/** Most ports (NICs / vdevs) one tfo-server drives. */
#define TFO_MAX_PORTS 8

/** IPv4 is kept in the first 4 bytes, the remaining 12 are zero. */
struct tfo_addr {
	uint8_t b[16];
};

/** One local address of a port. */
struct tfo_local_addr {
	uint8_t family;		/**< AF_INET or AF_INET6 */
	uint8_t prefix_len;
	struct tfo_addr addr;
};

#ifdef __cplusplus
}
#endif

#endif /* TFO_ADDR_H */
