/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: control 0's link watcher (see lcore/link.h). One look a
 * second: a few system calls per port, never per packet.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <rte_ethdev.h>

#include "lcore/link.h"
#include "net/port.h"
#include "net/xdp.h"
#include "tfo/log.h"

/* The kernel interface @p kif: up and running (carrier), or not. */
static bool
link_kif_up(const struct tfo_link *l, const char *kif)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", kif);
	if (l->sock < 0 || ioctl(l->sock, SIOCGIFFLAGS, &ifr) < 0)
		return true;	/* cannot tell (gone?): the device's word only */
	return (ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) == (IFF_UP | IFF_RUNNING);
}

/* The kernel interface's flags when there is one (net_tap's link_update
 * reads the same; net_af_xdp's keeps what it set at start), else the
 * device's word. */
static bool
link_read(const struct tfo_link *l, uint16_t pi)
{
	struct rte_eth_link link;

	if (l->kif[pi][0] != '\0')
		return link_kif_up(l, l->kif[pi]);
	memset(&link, 0, sizeof(link));
	return rte_eth_link_get_nowait(l->ports[pi].port_id, &link) != 0 ||
	       link.link_status == RTE_ETH_LINK_UP;
}

static void
link_name(const struct tfo_link *l, uint16_t pi, char *name, size_t len)
{
	if (rte_eth_dev_get_name_by_port(l->ports[pi].port_id, name) != 0)
		snprintf(name, len, "port %u", l->ports[pi].port_id);
}

void
tfo_link_init(struct tfo_link *l, const struct tfo_config *cfg,
	      const struct tfo_port_info *ports, uint16_t nb_ports, uint64_t now_us)
{
	char name[RTE_ETH_NAME_MAX_LEN];

	memset(l, 0, sizeof(*l));
	l->ports = ports;
	l->nb_ports = RTE_MIN(nb_ports, (uint16_t)TFO_MAX_PORTS);
	l->next_us = now_us + TFO_LINK_CHECK_US;
	l->sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	for (uint16_t pi = 0; pi < l->nb_ports; pi++) {
		/* net_tap's and net_af_xdp's kernel side (a vdev of the
		 * configuration; one from --vdev has only the device's word) */
		if (cfg != NULL && pi < cfg->nb_ports &&
		    (strncmp(cfg->ports[pi].vdev, "net_tap", 7) == 0 ||
		     tfo_xdp_is_af_xdp(cfg->ports[pi].vdev)) &&
		    tfo_xdp_devarg(cfg->ports[pi].vdev, "iface", l->kif[pi],
				   sizeof(l->kif[pi])) <= 0)
			l->kif[pi][0] = '\0';
		l->up[pi] = link_read(l, pi);
		if (!l->up[pi]) {
			link_name(l, pi, name, sizeof(name));
			l->down_us[pi] = now_us;
			TFO_LOG(INFO, "[port %s] link down at start%s%s: nothing arrives "
				"until it comes up", name, l->kif[pi][0] ? " on " : "",
				l->kif[pi]);
		}
	}
}

void
tfo_link_tick(struct tfo_link *l, struct tfo_stats *st, uint64_t now_us)
{
	char name[RTE_ETH_NAME_MAX_LEN];

	if (now_us < l->next_us)
		return;
	l->next_us = now_us + TFO_LINK_CHECK_US;
	for (uint16_t pi = 0; pi < l->nb_ports; pi++) {
		bool up = link_read(l, pi);

		if (up == l->up[pi])
			continue;
		l->up[pi] = up;
		link_name(l, pi, name, sizeof(name));
		if (!up) {
			l->down_us[pi] = now_us;
			st->c[TFO_STAT_link_down_events]++;
			TFO_LOG(WARNING, "[port %s] link down%s%s: frames neither arrive nor "
				"leave until it returns (link_down_events)", name,
				l->kif[pi][0] ? " on " : "", l->kif[pi]);
		} else {
			st->c[TFO_STAT_link_up_events]++;
			TFO_LOG(INFO, "[port %s] link up%s%s after %.1f s down: serving "
				"again (link_up_events)", name, l->kif[pi][0] ? " on " : "",
				l->kif[pi], (double)(now_us - l->down_us[pi]) / 1e6);
			l->down_us[pi] = 0;
		}
	}
}

void
tfo_link_free(struct tfo_link *l)
{
	if (l->sock >= 0)
		close(l->sock);
	l->sock = -1;
}
