/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the exception path (see exception.h): a port's kernel
 * interface, driven by the control core.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_icmp.h>
#include <rte_lcore.h>

#include "lcore/exception.h"
#include "net/neigh.h"
#include "tfo/log.h"

#define EXC_DESC 256		/* descriptors of the interface's queues */
#define EXC_TOKEN 1000000u	/* one frame, in bucket units (pps per µs) */

static void
exc_vdev_name(const struct tfo_exc *x, char *buf, size_t len)
{
	snprintf(buf, len, "net_tap_%s", x->iface);
}

int
tfo_exc_setup(const struct tfo_cfg_port *cfg, uint8_t port_idx,
	      struct tfo_port_info *info, struct rte_mempool *pool,
	      struct tfo_exc *x, char *err, size_t errlen)
{
	struct rte_eth_conf conf;
	char name[48], args[96], mac[RTE_ETHER_ADDR_FMT_SIZE];
	int socket, rc;

	memset(x, 0, sizeof(*x));
	info->exception = false;
	if (!cfg->exception)
		return 0;
	if (cfg->exception_iface[0] != '\0')
		snprintf(x->iface, sizeof(x->iface), "%s", cfg->exception_iface);
	else
		snprintf(x->iface, sizeof(x->iface), "tfoexc%u", port_idx);
	exc_vdev_name(x, name, sizeof(name));
	/* the kernel side answers and sends with the port's own MAC: to the
	 * link it is one host */
	rte_ether_format_addr(mac, sizeof(mac), &info->mac);
	snprintf(args, sizeof(args), "iface=%s,mac=%s", x->iface, mac);
	rc = rte_eal_hotplug_add("vdev", name, args);
	if (rc == 0)
		rc = rte_eth_dev_get_port_by_name(name, &x->tap_id);
	if (rc != 0) {
		snprintf(err, errlen, "[port %s] exception = on: cannot create %s (%s): %s",
			 cfg->device, name, args, rte_strerror(rc < 0 ? -rc : rc));
		return rc < 0 ? rc : -rc;
	}
	memset(&conf, 0, sizeof(conf));
	/* the kernel's frames wake an idle control core (net_tap's queue fd) */
	conf.intr_conf.rxq = cfg->rx_intr;
	socket = rte_eth_dev_socket_id(x->tap_id);
	if (socket < 0)
		socket = (int)rte_socket_id();
	rc = rte_eth_dev_configure(x->tap_id, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(x->tap_id, 0, EXC_DESC, (unsigned int)socket,
					    NULL, pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(x->tap_id, 0, EXC_DESC, (unsigned int)socket, NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(x->tap_id);
	if (rc != 0) {
		snprintf(err, errlen, "[port %s] exception = on: cannot start %s: %s",
			 cfg->device, name, rte_strerror(-rc));
		rte_eal_hotplug_remove("vdev", name);
		return rc;
	}
	x->on = true;
	x->pps = cfg->exception_pps;
	/* a tenth of a second of traffic at once, at least a burst */
	x->cap = (uint64_t)RTE_MAX(x->pps / 10, (uint32_t)TFO_TX_BUF) * EXC_TOKEN;
	x->tok_to = x->cap;
	x->tok_from = x->cap;
	info->exception = true;
	TFO_LOG(INFO, "port %u: exception path on kernel interface %s (%u frames/s each way)",
		port_idx, x->iface, x->pps);
	return 0;
}

bool
tfo_exc_wants(const struct tfo_port_info *port, const struct tfo_engine *e,
	      const struct rte_mbuf *m, const struct tfo_pkt *p)
{
	struct tfo_addr tip;

	switch (p->cls) {
	case TFO_PKT_DROP:
		return tfo_exc_wants_drop(port, p);
	case TFO_PKT_TCP:
		return e == NULL || !tfo_engine_serves(e, p->dport);
	case TFO_PKT_ARP:
		/* ours to answer: requests for our addresses; the kernel
		 * resolves its own neighbours (their replies come here) */
		return !tfo_arp_request_target(m, p, &tip) ||
		       tfo_port_addr_lookup(port, AF_INET, &tip) < 0;
	case TFO_PKT_ICMP: {
		/* ours: echo requests, and "fragmentation needed" (it may be
		 * about our flows); the rest (replies to the host's pings, its
		 * errors) is the kernel's */
		const uint8_t *ih = rte_pktmbuf_mtod_offset(m, const uint8_t *,
							     p->l2_len + p->l3_len);

		return ih[0] != RTE_IP_ICMP_ECHO_REQUEST &&
		       !(ih[0] == 3 && ih[1] == 4);	/* dest unreach, frag needed */
	}
	case TFO_PKT_ICMP6: {
		/* the same for IPv6: NS for our addresses, echo requests and
		 * packet too big (type 2) are ours; NAs answering the host's
		 * NS, its echo replies, RAs and errors are the kernel's */
		const uint8_t *ih = rte_pktmbuf_mtod_offset(m, const uint8_t *,
							     p->payload_off);

		if (ih[0] == TFO_ND_NEIGHBOR_SOLICIT)
			return tfo_nd_ns_target(m, p, &tip) == 0 &&
			       tfo_port_addr_lookup(port, AF_INET6, &tip) < 0;
		return ih[0] != TFO_ICMP6_ECHO_REQUEST && ih[0] != 2;
	}
	default:
		return false;
	}
}

/* Refill @p tok at exception_pps since the last call, up to the cap. */
static void
exc_refill(struct tfo_exc *x, uint64_t now_us)
{
	uint64_t add;

	if (now_us <= x->last_us)
		return;
	add = (now_us - x->last_us) * x->pps;
	x->last_us = now_us;
	x->tok_to = RTE_MIN(x->tok_to + add, x->cap);
	x->tok_from = RTE_MIN(x->tok_from + add, x->cap);
}

bool
tfo_exc_to_kernel(struct tfo_exc *x, struct tfo_stats *st, struct rte_mbuf *m,
		  uint64_t now_us)
{
	exc_refill(x, now_us);
	if (x->tok_to < EXC_TOKEN) {
		st->c[TFO_STAT_drop_exc_rate]++;
		return false;
	}
	x->tok_to -= EXC_TOKEN;
	/* the kernel checks what it receives: no offload flags to honour */
	m->ol_flags &= ~RTE_MBUF_F_TX_OFFLOAD_MASK;
	if (rte_eth_tx_burst(x->tap_id, 0, &m, 1) != 1) {
		st->c[TFO_STAT_drop_exc_full]++;
		return false;
	}
	st->c[TFO_STAT_exc_to_kernel]++;
	return true;
}

unsigned int
tfo_exc_poll(struct tfo_exc *x, struct tfo_tx *tx, uint8_t port_idx,
	     struct tfo_stats *st, uint64_t now_us, unsigned int burst)
{
	struct rte_mbuf *pkts[TFO_TX_BUF];
	uint16_t n;

	if (!x->on)
		return 0;
	n = rte_eth_rx_burst(x->tap_id, 0, pkts, (uint16_t)RTE_MIN(burst, TFO_TX_BUF));
	if (n == 0)
		return 0;
	exc_refill(x, now_us);
	for (uint16_t i = 0; i < n; i++) {
		if (x->tok_from < EXC_TOKEN) {
			st->c[TFO_STAT_exc_from_kernel_drop]++;
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		x->tok_from -= EXC_TOKEN;
		/* whole frames with their checksums (the tap has no offloads):
		 * nothing for the port to compute */
		pkts[i]->ol_flags = 0;
		st->c[TFO_STAT_exc_from_kernel]++;
		tfo_tx_push(tx, port_idx, pkts[i]);
	}
	return n;
}

void
tfo_exc_close(struct tfo_exc *x)
{
	char name[48];

	if (!x->on)
		return;
	/* the driver's remove stops and closes it */
	exc_vdev_name(x, name, sizeof(name));
	rte_eal_hotplug_remove("vdev", name);
	x->on = false;
}
