/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: control 0's link watcher.
 *
 * Once a second control 0 reads each port's link (rte_eth_link_get_nowait;
 * for a port on a kernel interface, net_tap's iface= or net_af_xdp's, also
 * the interface's IFF_UP and IFF_RUNNING: net_af_xdp reports the link it
 * set at start whatever the interface does). A change is logged once with
 * the port's name and counted (link_down_events, link_up_events): an
 * operator's `ip link set dev X down` must be visible, and the port must
 * serve again when the link returns, without a restart.
 */
#ifndef TFO_LINK_H
#define TFO_LINK_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

#include "ops/config.h"
#include "ops/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_port_info;

/** How often control 0 looks at the links. */
#define TFO_LINK_CHECK_US 1000000u

/** The watcher's state (control 0's struct tfo_control). */
struct tfo_link {
	uint64_t next_us;			/**< the next look */
	uint64_t down_us[TFO_MAX_PORTS];	/**< when it went down, 0: up */
	bool up[TFO_MAX_PORTS];			/**< what the last look saw */
	char kif[TFO_MAX_PORTS][IF_NAMESIZE];	/**< kernel interface, or "" */
	int sock;				/**< for SIOCGIFFLAGS, or -1 */
	uint16_t nb_ports;
	const struct tfo_port_info *ports;
};

/** Read every port's link once (no log unless one is down at start). */
void tfo_link_init(struct tfo_link *l, const struct tfo_config *cfg,
		   const struct tfo_port_info *ports, uint16_t nb_ports, uint64_t now_us);

/** Once TFO_LINK_CHECK_US is over: look, log and count each change. */
void tfo_link_tick(struct tfo_link *l, struct tfo_stats *st, uint64_t now_us);

/** Release what tfo_link_init took. */
void tfo_link_free(struct tfo_link *l);

#ifdef __cplusplus
}
#endif

#endif /* TFO_LINK_H */
