/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: flow isolation rules (the contract is in net/port_flow.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_malloc.h>

#include "net/port_flow.h"
#include "tfo/log.h"

int
tfo_port_flow_check(const struct tfo_cfg_port *p, char *err, size_t errlen)
{
	if (!p->isolate)
		return 0;
	if (p->exception)
		return tfo_errmsg(err, errlen,
				  "[port %s] isolate = on with exception = on: with isolation "
				  "the kernel keeps every frame the rules do not take, so an "
				  "exception path would receive nothing; remove exception",
				  p->device);
	if (p->syn_steering)
		return tfo_errmsg(err, errlen,
				  "[port %s] isolate = on with syn_steering = on: the SYN rule "
				  "takes every TCP SYN of the port, the kernel's (SSH, BGP) "
				  "too; remove syn_steering", p->device);
	return 0;
}

/* The spec and a full mask of the destination address of @p a. */
static void
tfo_port_flow_l3(struct tfo_port_flow_rule *r, const struct tfo_local_addr *a)
{
	if (a->family == AF_INET) {
		memcpy(&r->l3_spec.v4.hdr.dst_addr, a->addr.b, 4);
		r->l3_mask.v4.hdr.dst_addr = UINT32_MAX;
		r->pattern[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	} else {
		memcpy(r->l3_spec.v6.hdr.dst_addr, a->addr.b, 16);
		memset(r->l3_mask.v6.hdr.dst_addr, 0xff, 16);
		r->pattern[1].type = RTE_FLOW_ITEM_TYPE_IPV6;
	}
	r->pattern[1].spec = &r->l3_spec;
	r->pattern[1].mask = &r->l3_mask;
}

/* A rule's common part: ingress, Ethernet, END items and actions. */
static struct tfo_port_flow_rule *
tfo_port_flow_new(struct tfo_port_flow_set *set, const struct tfo_local_addr *a,
		  const struct rte_flow_action *action)
{
	struct tfo_port_flow_rule *r = &set->rules[set->nb_rules++];

	memset(r, 0, sizeof(*r));
	r->attr.ingress = 1;
	r->pattern[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	tfo_port_flow_l3(r, a);
	r->pattern[3].type = RTE_FLOW_ITEM_TYPE_END;
	r->actions[0] = *action;
	r->actions[1].type = RTE_FLOW_ACTION_TYPE_END;
	return r;
}

/* The rule "ETH / IPV4|IPV6 dst @p a / TCP|UDP dst @p port" (@p kind)
 * to @p spread; @p addr: @p a as text, for its name. */
static void
tfo_port_flow_l4(struct tfo_port_flow_set *set, const struct tfo_local_addr *a,
		 const struct rte_flow_action *spread, enum tfo_port_flow_kind kind,
		 uint16_t port, const char *addr)
{
	struct tfo_port_flow_rule *r = tfo_port_flow_new(set, a, spread);
	bool tcp = kind == TFO_PORT_FLOW_TCP;

	r->kind = kind;
	if (tcp) {
		r->l4_spec.tcp.hdr.dst_port = rte_cpu_to_be_16(port);
		r->l4_mask.tcp.hdr.dst_port = UINT16_MAX;
	} else {
		r->l4_spec.udp.hdr.dst_port = rte_cpu_to_be_16(port);
		r->l4_mask.udp.hdr.dst_port = UINT16_MAX;
	}
	r->pattern[2].type = tcp ? RTE_FLOW_ITEM_TYPE_TCP : RTE_FLOW_ITEM_TYPE_UDP;
	r->pattern[2].spec = &r->l4_spec;
	r->pattern[2].mask = &r->l4_mask;
	snprintf(r->name, sizeof(r->name), "%s to %s port %u", tcp ? "TCP" : "UDP", addr,
		 port);
}

int
tfo_port_flow_build(struct tfo_port_flow_set *set, uint16_t port_id,
		    const struct tfo_port_flow_in *in, char *err, size_t errlen)
{
	const struct tfo_cfg_port *cfg = in->cfg;
	struct rte_flow_action spread = { .type = RTE_FLOW_ACTION_TYPE_QUEUE };
	struct rte_flow_action to0 = { .type = RTE_FLOW_ACTION_TYPE_QUEUE };
	char addr[INET6_ADDRSTRLEN];

	memset(set, 0, sizeof(*set));
	set->port_id = port_id;
	if (cfg->nb_addrs == 0 || cfg->nb_addrs > TFO_MAX_PORT_ADDRS ||
	    in->nb_svc_ports == 0 || in->nb_svc_ports > TFO_MAX_SERVICES)
		return tfo_errmsg(err, errlen, "[port %s] isolate = on: %u addresses and %u "
				  "service ports: the rules need 1..%d of each", cfg->device,
				  cfg->nb_addrs, in->nb_svc_ports, TFO_MAX_PORT_ADDRS);
	if (in->nb_workers == 0 || in->nb_workers > RTE_DIM(set->queues))
		return tfo_errmsg(err, errlen, "[port %s] isolate = on: %u workers: the "
				  "rules spread over 1..%zu queues", cfg->device,
				  in->nb_workers, RTE_DIM(set->queues));
	set->queue.index = 0;
	to0.conf = &set->queue;
	spread.conf = &set->queue;
	if (in->nb_workers > 1) {
		/* the port's own hash (and key, when it could be read): every
		 * segment of one connection on one worker's queue */
		for (uint16_t q = 0; q < in->nb_workers; q++)
			set->queues[q] = q;
		set->rss.func = RTE_ETH_HASH_FUNCTION_DEFAULT;
		set->rss.level = 0;
		set->rss.types = in->rss_hf;
		set->rss.queue_num = in->nb_workers;
		set->rss.queue = set->queues;
		if (in->rss_key != NULL && in->rss_key_len > 0 &&
		    in->rss_key_len <= sizeof(set->rss_key)) {
			memcpy(set->rss_key, in->rss_key, in->rss_key_len);
			set->rss.key = set->rss_key;
			set->rss.key_len = in->rss_key_len;
		}
		spread.type = RTE_FLOW_ACTION_TYPE_RSS;
		spread.conf = &set->rss;
	}
	for (unsigned int i = 0; i < cfg->nb_addrs; i++) {
		const struct tfo_local_addr *a = &cfg->addrs[i];

		tfo_addr_str(a->family, &a->addr, addr, sizeof(addr));
		for (unsigned int s = 0; s < in->nb_svc_ports; s++) {
			tfo_port_flow_l4(set, a, &spread, TFO_PORT_FLOW_TCP, in->svc_ports[s],
					 addr);
			/* udp = on: without it the kernel keeps the datagrams
			 * and has no socket there. The same spread: a datagram
			 * holds no state, any worker answers it. */
			if (in->svc_udp != NULL && in->svc_udp[s])
				tfo_port_flow_l4(set, a, &spread, TFO_PORT_FLOW_UDP,
						 in->svc_ports[s], addr);
		}
	}
	/* path-MTU errors about our segments: worker 0 hands each to the
	 * control core, which finds the connection's worker. XXX the kernel
	 * no longer sees them: its own connections from our addresses (SSH,
	 * BGP) do not learn a smaller path MTU from them */
	for (unsigned int i = 0; i < cfg->nb_addrs; i++) {
		const struct tfo_local_addr *a = &cfg->addrs[i];
		struct tfo_port_flow_rule *r = tfo_port_flow_new(set, a, &to0);

		tfo_addr_str(a->family, &a->addr, addr, sizeof(addr));
		r->kind = TFO_PORT_FLOW_PTB;
		r->optional = true;
		if (a->family == AF_INET) {
			r->l4_spec.icmp.hdr.icmp_type = 3;	/* destination unreachable */
			r->l4_spec.icmp.hdr.icmp_code = 4;	/* fragmentation needed */
			r->l4_mask.icmp.hdr.icmp_type = UINT8_MAX;
			r->l4_mask.icmp.hdr.icmp_code = UINT8_MAX;
			r->pattern[2].type = RTE_FLOW_ITEM_TYPE_ICMP;
			snprintf(r->name, sizeof(r->name),
				 "ICMP fragmentation needed to %s", addr);
		} else {
			r->l4_spec.icmp6.type = 2;	/* packet too big */
			r->l4_mask.icmp6.type = UINT8_MAX;
			r->pattern[2].type = RTE_FLOW_ITEM_TYPE_ICMP6;
			snprintf(r->name, sizeof(r->name), "ICMPv6 packet too big to %s",
				 addr);
		}
		r->pattern[2].spec = &r->l4_spec;
		r->pattern[2].mask = &r->l4_mask;
	}
	return (int)set->nb_rules;
}

/* The driver's name, for messages. */
static const char *
tfo_port_flow_driver(uint16_t port_id)
{
	struct rte_eth_dev_info dev;

	if (rte_eth_dev_info_get(port_id, &dev) != 0 || dev.driver_name == NULL)
		return "?";
	return dev.driver_name;
}

/* The PMD's message for a refusal, or the errno's. */
static const char *
tfo_port_flow_why(const struct rte_flow_error *fe, int rc)
{
	if (fe->message != NULL && fe->message[0] != '\0')
		return fe->message;
	return rte_strerror(rc < 0 ? -rc : rte_errno);
}

int
tfo_port_flow_isolate(uint16_t port_id, const char *device, char *err, size_t errlen)
{
	struct rte_flow_error fe = { .message = NULL };
	int rc = rte_flow_isolate(port_id, 1, &fe);

	if (rc == 0)
		return 0;
	tfo_errmsg(err, errlen, "[port %s] isolate = on: the device (%s) refuses isolated "
		   "mode: %s (%s)", device, tfo_port_flow_driver(port_id),
		   tfo_port_flow_why(&fe, rc), rte_strerror(rc < 0 ? -rc : rte_errno));
	return rc < 0 ? rc : -EIO;
}

int
tfo_port_flow_install(struct tfo_port_flow_set *set, const char *device, char *err,
		      size_t errlen)
{
	const char *drv = tfo_port_flow_driver(set->port_id);
	int rc;

	/* every rule first, so that a refusal names its rule before any
	 * frame changes hands */
	for (unsigned int i = 0; i < set->nb_rules; i++) {
		struct tfo_port_flow_rule *r = &set->rules[i];
		struct rte_flow_error fe = { .message = NULL };

		r->skipped = false;
		rc = rte_flow_validate(set->port_id, &r->attr, r->pattern, r->actions, &fe);
		if (rc == 0)
			continue;
		if (!r->optional) {
			tfo_errmsg(err, errlen, "[port %s] isolate = on: rule \"%s\" refused "
				   "by the device (%s): %s (%s)", device, r->name, drv,
				   tfo_port_flow_why(&fe, rc), rte_strerror(-rc));
			return rc < 0 ? rc : -EINVAL;
		}
		r->skipped = true;
		TFO_LOG(WARNING, "[port %s] isolate = on: rule \"%s\" refused by the device "
			"(%s): %s; those errors go to the kernel, and our connections "
			"do not learn a smaller path MTU from them", device, r->name, drv,
			tfo_port_flow_why(&fe, rc));
	}
	for (unsigned int i = 0; i < set->nb_rules; i++) {
		struct tfo_port_flow_rule *r = &set->rules[i];
		struct rte_flow_error fe = { .message = NULL };

		if (r->skipped)
			continue;
		r->flow = rte_flow_create(set->port_id, &r->attr, r->pattern, r->actions, &fe);
		if (r->flow == NULL) {
			rc = -rte_errno;
			tfo_port_flow_remove(set);
			tfo_errmsg(err, errlen, "[port %s] isolate = on: rule \"%s\" validated "
				   "but not created by the device (%s): %s (%s)", device, r->name,
				   drv, tfo_port_flow_why(&fe, rc), rte_strerror(-rc));
			return rc < 0 ? rc : -EIO;
		}
		set->nb_installed++;
	}
	return (int)set->nb_installed;
}

void
tfo_port_flow_remove(struct tfo_port_flow_set *set)
{
	for (unsigned int i = set->nb_rules; i-- > 0;) {
		struct tfo_port_flow_rule *r = &set->rules[i];
		struct rte_flow_error fe = { .message = NULL };

		if (r->flow == NULL)
			continue;
		if (rte_flow_destroy(set->port_id, r->flow, &fe) != 0)
			TFO_LOG(WARNING, "port %u: rule \"%s\" not destroyed: %s", set->port_id,
				r->name, tfo_port_flow_why(&fe, -rte_errno));
		r->flow = NULL;
		set->nb_installed--;
	}
}

/*
 * net_tap takes isolation set before its queues exist (as port.c sets
 * it) as a mere flag: its TC isolation rule, which drops what no rule
 * matches, is only installed when the mode changes once the queues exist
 * (DPDK 22.11; with strace, no TC message at rte_flow_isolate or start).
 * So on net_tap the mode is left and entered again once the port runs;
 * net_tap allows that on a started port. Not for other PMDs: mlx5
 * refuses mode changes on a started port and needs none.
 */
static int
tfo_port_flow_tap_isolate(uint16_t port_id, const char *device, char *err, size_t errlen)
{
	struct rte_flow_error fe = { .message = NULL };
	int rc;

	if (strcmp(tfo_port_flow_driver(port_id), "net_tap") != 0)
		return 0;
	rc = rte_flow_isolate(port_id, 0, &fe);
	if (rc == 0)
		return tfo_port_flow_isolate(port_id, device, err, errlen);
	tfo_errmsg(err, errlen, "[port %s] isolate = on: the device (net_tap) refuses "
		   "isolated mode once started: %s (%s)", device, tfo_port_flow_why(&fe, rc),
		   rte_strerror(rc < 0 ? -rc : rte_errno));
	return rc < 0 ? rc : -EIO;
}

struct tfo_port_flow_set *
tfo_port_flow_setup(const struct tfo_cfg_port *cfg, const struct tfo_port_info *info,
		    uint16_t nb_workers, const uint16_t *svc_ports, const bool *svc_udp,
		    unsigned int nb_svc_ports, char *err, size_t errlen)
{
	uint8_t key[sizeof(((struct tfo_port_flow_set *)NULL)->rss_key)];
	struct rte_eth_rss_conf rc = { .rss_key = key, .rss_key_len = sizeof(key) };
	struct tfo_port_flow_in in = {
		.cfg = cfg,
		.svc_ports = svc_ports,
		.svc_udp = svc_udp,
		.nb_svc_ports = nb_svc_ports,
		.nb_workers = nb_workers,
		.rss_hf = info->rss_hf,
	};
	struct tfo_port_flow_set *set;
	unsigned int ptb = 0, udp = 0, skipped = 0;
	int socket = rte_eth_dev_socket_id(info->port_id);
	int n;

	set = rte_zmalloc_socket("tfo_port_flow", sizeof(*set), 0,
				 socket < 0 ? SOCKET_ID_ANY : socket);
	if (set == NULL) {
		tfo_errmsg(err, errlen, "[port %s] isolate = on: no memory for the rules",
			   cfg->device);
		return NULL;
	}
	if (nb_workers > 1 && rte_eth_dev_rss_hash_conf_get(info->port_id, &rc) == 0 &&
	    rc.rss_key_len > 0 && rc.rss_key_len <= sizeof(key)) {
		in.rss_key = key;
		in.rss_key_len = rc.rss_key_len;
	}
	if (tfo_port_flow_build(set, info->port_id, &in, err, errlen) < 0)
		goto fail;
	n = tfo_port_flow_install(set, cfg->device, err, errlen);
	if (n < 0)
		goto fail;
	if (tfo_port_flow_tap_isolate(info->port_id, cfg->device, err, errlen) < 0) {
		tfo_port_flow_remove(set);
		goto fail;
	}
	for (unsigned int i = 0; i < set->nb_rules; i++) {
		ptb += set->rules[i].kind == TFO_PORT_FLOW_PTB && !set->rules[i].skipped;
		udp += set->rules[i].kind == TFO_PORT_FLOW_UDP;
		skipped += set->rules[i].skipped;
	}
	TFO_LOG(INFO, "[port %s] isolate = on: %d flow rules installed (%u TCP to %u "
		"addresses x %u services and %u UDP (udp = on), %s; %u path-MTU error%s, "
		"%u refused by the device); the kernel keeps the port's other traffic "
		"(ARP, ND, ping, SSH...)", cfg->device, n, n - ptb - udp, cfg->nb_addrs,
		nb_svc_ports, udp,
		nb_workers > 1 ? "RSS over the workers' queues" : "to the worker's queue",
		ptb, ptb == 1 ? "" : "s", skipped);
	return set;
fail:
	rte_free(set);
	return NULL;
}

void
tfo_port_flow_free(struct tfo_port_flow_set *set)
{
	if (set == NULL)
		return;
	tfo_port_flow_remove(set);
	rte_free(set);
}
