/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the checks of a configuration as a whole that a start and
 * --print-config share, with no device and no EAL: the keys that depend
 * on each other, what each layer makes of its keys (port flows, AF_XDP,
 * the pool plan, the key file) and each service's own check. Parsing,
 * the ground floor's (ops/config.c), checks each key alone.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "cookie/keyring.h"
#include "net/port_flow.h"
#include "net/xdp.h"
#include "ops/config.h"
#include "server/config_check.h"
#include "server/config_services.h"
#include "server/pool_plan.h"
#include "tfo/log.h"
#include "tfo/service.h"

/*
 * What a start reads besides the configuration file, checked the way the
 * start will, with no DPDK: the key file, and each service's own check
 * (the http root must be a readable directory). So --print-config refuses
 * what a start would, and a start refuses it before the EAL's log lines.
 */
static int
tfo_config_check_inputs(const struct tfo_config *c, char *err, size_t errlen)
{
	char why[PATH_MAX + 160];

	if (c->key_file[0] != '\0') {
		char path[PATH_MAX * 2];

		if (c->key_file[0] == '/')
			snprintf(path, sizeof(path), "%s", c->key_file);
		else
			snprintf(path, sizeof(path), "%s/%s", c->base_dir, c->key_file);
		if (tfo_keyfile_check(path, why, sizeof(why)) < 0)
			return tfo_errmsg(err, errlen, "[tfo] key_file = %s: %s", path, why);
	}
	for (unsigned int i = 0; i < c->nb_services; i++) {
		const struct tfo_cfg_service *cs = &c->services[i];
		const struct tfo_service *svc = tfo_service_find(cs->name);
		struct tfo_service_kv kv[TFO_SERVICE_MAX_KV];
		struct tfo_service_args args;

		if (!cs->loaded || svc == NULL)
			return tfo_errmsg(err, errlen, "[service %s]: not loaded (its plugin and "
					  "keys: tfo_config_services_load, first)", cs->name);
		if (tfo_service_counters_check(svc, why, sizeof(why)) < 0)
			return tfo_errmsg(err, errlen, "[service %s] %s", cs->name, why);
		if (svc->check == NULL)
			continue;
		tfo_config_service_args(c, cs, -1, kv, &args);
		if (svc->check(&args, why, sizeof(why)) < 0)
			return tfo_errmsg(err, errlen, "[service %s] %s", cs->name, why);
	}
	return 0;
}

/* Is @p a one of the addresses of port @p p? */
static bool
tfo_addr_on(const struct tfo_cfg_port *p, const struct tfo_local_addr *a)
{
	for (unsigned int k = 0; k < p->nb_addrs; k++)
		if (p->addrs[k].family == a->family &&
		    memcmp(&p->addrs[k].addr, &a->addr, sizeof(a->addr)) == 0)
			return true;
	return false;
}

/*
 * The port keys that depend on each other or on another port: one address
 * on one port only (which port answers its ARP/ND, and its flows, would be
 * a guess), and IPv6 needs an MTU of 1280 at least (RFC 8200 section 5).
 */
static int
tfo_config_check_ports(const struct tfo_config *c, char *err, size_t errlen)
{
	char buf[INET6_ADDRSTRLEN];

	for (unsigned int i = 0; i < c->nb_ports; i++) {
		const struct tfo_cfg_port *p = &c->ports[i];

		for (unsigned int k = 0; k < p->nb_addrs; k++) {
			const struct tfo_local_addr *a = &p->addrs[k];

			if (a->family == AF_INET6 && p->mtu < 1280)
				return tfo_errmsg(err, errlen, "[port %s] mtu = %u with ipv6 = %s: "
						  "IPv6 needs an MTU of 1280 at least", p->device,
						  p->mtu, tfo_addr_str(AF_INET6, &a->addr, buf,
								       sizeof(buf)));
			for (unsigned int j = 0; j < i; j++)
				if (tfo_addr_on(&c->ports[j], a))
					return tfo_errmsg(err, errlen, "[port %s] %s = %s: already "
							  "an address of [port %s]", p->device,
							  a->family == AF_INET ? "ipv4" : "ipv6",
							  tfo_addr_str(a->family, &a->addr, buf,
								       sizeof(buf)),
							  c->ports[j].device);
		}
	}
	return 0;
}

/*
 * [server] mbufs below what the smallest start of this configuration
 * needs (control_lcores and one worker, one socket) can never start: the
 * start's own check (pool_plan.c) says so only once the EAL runs, and
 * --print-config only for the lcores it is given.
 */
static int
tfo_config_check_mbufs(const struct tfo_config *c, char *err, size_t errlen)
{
	int sockets[TFO_MAX_CONTROLS] = { 0 };
	struct tfo_pool_plan_in in = {
		.cfg = c,
		.nb_workers = 1,
		.nb_controls = RTE_MAX(c->control_lcores, 1u),
		.worker_socket = sockets,
		.control_socket = sockets,
		.inbox_size = tfo_pool_plan_inbox_size(c),
		.ctl_inbox_size = TFO_POOL_PLAN_CTL_INBOX,
		.mbufs = 0,
	};
	struct tfo_pool_plan pp;

	if (c->mbufs == 0 || in.nb_controls > TFO_MAX_CONTROLS)
		return 0;
	if (tfo_pool_plan(&in, &pp, err, errlen) < 0)
		return -EINVAL;
	if (c->mbufs < pp.need_all)
		return tfo_errmsg(err, errlen, "[server] mbufs = %u: too small for any start "
				  "(%u control lcore%s, one worker, %u port%s and their "
				  "queues/rings); need at least %u (or 0 = computed)",
				  c->mbufs, in.nb_controls, in.nb_controls > 1 ? "s" : "",
				  c->nb_ports, c->nb_ports > 1 ? "s" : "", pp.need_all);
	return 0;
}

int
tfo_config_validate(const struct tfo_config *c, char *err, size_t errlen)
{
	unsigned int nb_addrs = 0;

	if (c->nb_ports == 0)
		return tfo_errmsg(err, errlen, "%s: no [port DEVICE] section: nothing to serve",
			       c->source);
	for (unsigned int i = 0; i < c->nb_ports; i++) {
		const struct tfo_cfg_port *p = &c->ports[i];

		if (p->nb_addrs == 0)
			return tfo_errmsg(err, errlen,
				       "[port %s]: no ipv4/ipv6 address configured",
				       p->device);
		nb_addrs += p->nb_addrs;
		if (tfo_port_flow_check(p, err, errlen) < 0)
			return -EINVAL;
		if (p->tap != TFO_TAP_AUTO &&
		    (strncmp(p->vdev, "net_tap", 7) != 0 || strstr(p->vdev, ",iface=") == NULL))
			return tfo_errmsg(err, errlen, "[port %s] tap = %s: only for a net_tap vdev "
					  "with iface=NAME (vdev = net_tap0,iface=NAME)",
					  p->device, p->tap == TFO_TAP_CREATE ? "create" : "attach");
		if (c->mss != 0 && c->mss > p->mtu - 40)
			return tfo_errmsg(err, errlen,
				       "[tcp] mss = %u: larger than [port %s] mtu %u - 40",
				       c->mss, p->device, p->mtu);
	}
	if (nb_addrs > 255)
		return tfo_errmsg(err, errlen, "more than 255 local addresses in all");
	if (tfo_config_check_ports(c, err, errlen) < 0)
		return -EINVAL;
	if (c->pending_per_source > c->pending_limit)
		return tfo_errmsg(err, errlen,
				  "[tfo] pending_per_source = %u above [tfo] pending_limit = %u: "
				  "a cap that never binds; lower it (0 = no cap)",
				  c->pending_per_source, c->pending_limit);
	if (tfo_config_check_mbufs(c, err, errlen) < 0)
		return -EINVAL;
	if (tfo_xdp_check_ports(c, err, errlen) < 0)
		return -EINVAL;
	/* before idle_policy, "idle_sleep_us = 0" meant busy polling: a
	 * configuration that still says so must not silently mean adaptive */
	if (c->idle_policy == TFO_IDLE_ADAPTIVE && c->idle_sleep_us != TFO_IDLE_SLEEP_US_DEFAULT)
		return tfo_errmsg(err, errlen,
			       "[server] idle_sleep_us = %u is the nap of idle_policy = sleep, "
			       "not in use (idle_policy = adaptive): remove it, or set "
			       "idle_policy = sleep (a nap after every empty poll) or busy (what "
			       "idle_sleep_us = 0 meant)", c->idle_sleep_us);
	if (c->idle_policy == TFO_IDLE_BUSY && c->idle_sleep_us != TFO_IDLE_SLEEP_US_DEFAULT &&
	    c->idle_sleep_us != 0)
		return tfo_errmsg(err, errlen,
			       "[server] idle_sleep_us = %u: idle_policy = busy never naps; "
			       "remove it, or set idle_policy = sleep", c->idle_sleep_us);
	if (strcmp(c->cookie_algo, "aes128") != 0 &&
	    strcmp(c->cookie_algo, "siphash-linux") != 0)
		return tfo_errmsg(err, errlen,
			       "[tfo] cookie_algo = \"%s\": expected aes128 or siphash-linux",
			       c->cookie_algo);
	if (c->rto_min_ms > c->rto_max_ms || c->rto_init_ms > c->rto_max_ms)
		return tfo_errmsg(err, errlen,
			       "[tcp] rto_min_ms %u / rto_init_ms %u must not exceed rto_max_ms %u",
			       c->rto_min_ms, c->rto_init_ms, c->rto_max_ms);
	for (unsigned int i = 0; i < c->nb_services; i++) {
		const struct tfo_cfg_service *s = &c->services[i];

		if (s->port == 0)
			return tfo_errmsg(err, errlen, "[service %s]: no port = N", s->name);
		for (unsigned int j = 0; j < i; j++)
			if (c->services[j].port == s->port)
				return tfo_errmsg(err, errlen,
					       "[service %s] port = %u: already used by [service %s]",
					       s->name, s->port, c->services[j].name);
	}
	return tfo_config_check_inputs(c, err, errlen);
}
