/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: port set-up.
 */
#include <errno.h>
#include <netinet/in.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_log.h>
#include <rte_thash.h>

#include "net/port.h"
#include "net/port_flow.h"
#include "net/xdp.h"
#include "net/xdp_pool.h"
#include "tfo/log.h"

/*
 * The first configure attempt with one TX queue more than RX queues fails on
 * some PMDs by design (net_tap); keep their error lines out of the log (the
 * retry reports its own failures, and tfo_port_describe says what happened).
 */
static int
tfo_port_configure_quiet(uint16_t port_id, uint16_t nb_rxq, uint16_t nb_txq,
			 const struct rte_eth_conf *conf)
{
	uint32_t level = rte_log_get_global_level();
	int rc;

	if (nb_txq > nb_rxq)
		rte_log_set_global_level(RTE_LOG_CRIT);
	rc = rte_eth_dev_configure(port_id, nb_rxq, nb_txq, conf);
	rte_log_set_global_level(level);
	return rc;
}

/*
 * How many TX queues the device gives (@p nb_txq in: what we want, out:
 * what to ask for). With none left for the control core, it relays through
 * a worker (info->ctrl_tx_relay).
 */
static int
tfo_port_tx_queues(const struct tfo_cfg_port *cfg, const struct rte_eth_dev_info *dev,
		   uint16_t nb_rxq, uint16_t nb_dev_rxq, uint16_t *nb_txq,
		   struct tfo_port_info *info, char *err, size_t errlen)
{
	if (nb_dev_rxq > dev->max_rx_queues)
		return tfo_errmsg(err, errlen,
				    "[port %s]: %u workers need %u RX queues, the device has %u "
				    "(use fewer lcores)",
				    cfg->device, nb_rxq, nb_dev_rxq, dev->max_rx_queues);
	if (*nb_txq > dev->max_tx_queues && nb_rxq <= dev->max_tx_queues) {
		/* no TX queue left for the control core: it relays through
		 * worker 0 (virtio and VFs with one queue pair per worker) */
		*nb_txq = nb_rxq;
		info->ctrl_tx_relay = true;
	}
	if (*nb_txq > nb_rxq && dev->driver_name != NULL &&
	    strcmp(dev->driver_name, "net_memif") == 0 && cfg->rss != TFO_RSS_PEER) {
		/* the peer's queues decide how many memif rings exist: a TX
		 * queue past its RX queues has no ring (every frame refused),
		 * so the control core relays; a peer of rss = peer serves one
		 * RX queue per control lcore too */
		*nb_txq = nb_rxq;
		info->ctrl_tx_relay = true;
	}
	if (*nb_txq > dev->max_tx_queues)
		return tfo_errmsg(err, errlen,
				    "[port %s]: %u workers need %u TX queues, the device has "
				    "%u (use fewer lcores)",
				    cfg->device, nb_rxq, *nb_txq, dev->max_tx_queues);
	return 0;
}

const char *
tfo_port_no_rss_hint(const char *driver_name)
{
	/* ice: safe mode, the DDP package was not found at probe */
	if (driver_name != NULL && strcmp(driver_name, "net_ice") == 0)
		return "net_ice without its DDP package runs in safe mode, with no RSS: "
		       "install ice.pkg in /lib/firmware/intel/ice/ddp/ and start again "
		       "(docs/runbook.md, section 1, \"Intel E810\"), or start with 2 "
		       "lcores (-l 0-1: control + one worker)";
	return "start with 2 lcores (-l 0-1: control + one worker), or set rss = peer "
	       "when the peer puts each flow on its queue (net_memif with tfo-loadgen "
	       "--rss-peer)";
}

/* RSS over @p nb_rxq worker queues, checksum offloads, multi-segment TX:
 * what the device can do, into @p conf and @p info. */
static int
tfo_port_offloads(const struct tfo_cfg_port *cfg, const struct rte_eth_dev_info *dev,
		  uint16_t nb_rxq, struct rte_eth_conf *conf, struct tfo_port_info *info,
		  char *err, size_t errlen)
{
	if (nb_rxq > 1 && cfg->rss == TFO_RSS_PEER) {
		/* the peer's hash, not the device's (tfo_port_rss_peer) */
	} else if (nb_rxq > 1) {
		uint64_t want = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP;

		/* the device's own hash functions only: asking for more fails */
		conf->rx_adv_conf.rss_conf.rss_hf = want & dev->flow_type_rss_offloads;
		if (conf->rx_adv_conf.rss_conf.rss_hf != 0)
			conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		else if (!cfg->rss_optional)
			return tfo_errmsg(err, errlen,
					    "[port %s]: the device (%s) cannot do RSS "
					    "(flow_type_rss_offloads 0x%" PRIx64 "), so only one "
					    "worker can be used on it: %u configured; %s",
					    cfg->device, dev->driver_name,
					    dev->flow_type_rss_offloads, nb_rxq,
					    tfo_port_no_rss_hint(dev->driver_name));
		if ((conf->rx_adv_conf.rss_conf.rss_hf & RTE_ETH_RSS_TCP) == 0 &&
		    conf->rxmode.mq_mode == RTE_ETH_MQ_RX_RSS)
			TFO_LOG(WARNING, "[port %s]: the device hashes IP addresses only, "
				"not TCP ports: all connections of one client land on one "
				"worker (correct, less balanced)", cfg->device);
		info->rss_hf = conf->rx_adv_conf.rss_conf.rss_hf;
	}
	if (cfg->offload == TFO_OFFLOAD_AUTO) {
		uint64_t rx = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_TCP_CKSUM;

		if ((dev->rx_offload_capa & rx) == rx) {
			conf->rxmode.offloads |= rx;
			info->rx_cksum_offload = true;
		}
		if (dev->tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) {
			conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
			info->tx_ip_cksum_offload = true;
		}
		if (dev->tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_CKSUM) {
			conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
			info->tx_tcp_cksum_offload = true;
		}
		/* UDP answers (`udp = on`); asked for whether or not a
		 * service serves UDP: it costs nothing unused */
		if (dev->tx_offload_capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) {
			conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
			info->tx_udp_cksum_offload = true;
		}
	}
	/* external buffers (zero-copy bodies) are chained behind a header mbuf */
	if (dev->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) {
		conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		info->tx_multiseg = true;
	}
	return 0;
}

/* Descriptor counts, then every RX and TX queue of a configured device;
 * RX queue q's buffers from pools[q], or the one pool (tfo_port_setup). */
static int
tfo_port_queues_setup(const struct tfo_cfg_port *cfg, uint16_t port_id,
		      const struct rte_eth_dev_info *dev, const struct rte_eth_conf *conf,
		      uint16_t nb_dev_rxq, uint16_t nb_txq, struct rte_mempool *const pools[],
		      uint16_t nb_pools, char *err, size_t errlen)
{
	uint16_t nb_rxd = cfg->rx_desc, nb_txd = cfg->tx_desc;
	int socket, rc;

	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &nb_rxd, &nb_txd);
	if (rc != 0)
		return tfo_errmsg(err, errlen,
				    "[port %s] rx_desc = %u / tx_desc = %u: refused: %s",
				    cfg->device, cfg->rx_desc, cfg->tx_desc, strerror(-rc));
	socket = rte_eth_dev_socket_id(port_id);
	if (socket < 0)
		socket = (int)rte_socket_id();
	for (uint16_t q = 0; q < nb_dev_rxq; q++) {
		struct rte_eth_rxconf rxc = dev->default_rxconf;

		rxc.offloads = conf->rxmode.offloads;
		/* net_af_xdp makes the pool its UMEM: every mbuf must lie in it
		 * (by driver too: tfo-loadgen's vdevs come from EAL's --vdev) */
		if ((tfo_xdp_is_af_xdp(cfg->vdev) ||
		     (dev->driver_name != NULL && strcmp(dev->driver_name, "net_af_xdp") == 0)) &&
		    tfo_xdp_pool_check(pools[RTE_MIN(q, nb_pools - 1)], err, errlen) < 0)
			return -EINVAL;
		rc = rte_eth_rx_queue_setup(port_id, q, nb_rxd, (unsigned int)socket,
					    &rxc, pools[RTE_MIN(q, nb_pools - 1)]);
		if (rc != 0)
			return tfo_errmsg(err, errlen,
					    "[port %s]: RX queue %u set-up failed: %s",
					    cfg->device, q, strerror(-rc));
	}
	for (uint16_t q = 0; q < nb_txq; q++) {
		struct rte_eth_txconf txc = dev->default_txconf;

		txc.offloads = conf->txmode.offloads;
		rc = rte_eth_tx_queue_setup(port_id, q, nb_txd, (unsigned int)socket,
					    &txc);
		if (rc != 0)
			return tfo_errmsg(err, errlen,
					    "[port %s]: TX queue %u set-up failed: %s",
					    cfg->device, q, strerror(-rc));
	}
	return 0;
}

int
tfo_port_rx_intr_fd(uint16_t port_id, uint16_t queue)
{
	uint32_t level = rte_log_get_global_level();
	int fd;

	/* configured with them is not having them (net_memif): ethdev logs
	 * an error line for each queue without */
	rte_log_set_global_level(RTE_LOG_CRIT);
	fd = rte_eth_dev_rx_intr_ctl_q_get_fd(port_id, queue);
	rte_log_set_global_level(level);
	return fd;
}

/*
 * Configure the device as @p conf says, set up its queues and start it:
 * @p nb_txq TX queues, or as many as RX queues when the PMD wants that
 * (info->ctrl_tx_relay when fewer than @p want_txq).
 */
static int
tfo_port_start(const struct tfo_cfg_port *cfg, uint16_t port_id,
	       const struct rte_eth_dev_info *dev, const struct rte_eth_conf *conf,
	       uint16_t nb_dev_rxq, uint16_t nb_txq, uint16_t want_txq,
	       struct rte_mempool *const pools[], uint16_t nb_pools,
	       struct tfo_port_info *info, char *err, size_t errlen)
{
	int rc = tfo_port_configure_quiet(port_id, nb_dev_rxq, nb_txq, conf);

	if (rc != 0 && nb_txq > nb_dev_rxq) {
		/* Some PMDs (net_tap) need as many TX as RX queues: then the
		 * control lcores relay their frames through the workers' queues
		 * (all of them, unless each has a queue: the SYN queue's TX
		 * twin is enough for one control lcore). */
		rc = rte_eth_dev_configure(port_id, nb_dev_rxq, nb_dev_rxq, conf);
		if (rc == 0) {
			nb_txq = nb_dev_rxq;
			info->ctrl_tx_relay = nb_txq < want_txq;
		}
	}
	if (rc != 0)
		return tfo_errmsg(err, errlen, "[port %s]: configure failed: %s",
				    cfg->device, strerror(-rc));
	rc = rte_eth_dev_set_mtu(port_id, cfg->mtu);
	/* past the device's own ceiling, named with the fix: net_af_xdp's is
	 * ~3,500 (a frame is one 4 KiB page with the mbuf and both
	 * headrooms), below the 9198 the configuration allows */
	if (rc == -EINVAL && cfg->mtu > dev->max_mtu)
		return tfo_errmsg(err, errlen, "[port %s] mtu = %u: %s takes at most %u; "
				    "set mtu = %u or less", cfg->device, cfg->mtu, dev->driver_name,
				    dev->max_mtu, dev->max_mtu);
	if (rc != 0 && rc != -ENOTSUP)
		return tfo_errmsg(err, errlen, "[port %s] mtu = %u: refused by the device: %s",
				    cfg->device, cfg->mtu, strerror(-rc));
	rc = tfo_port_queues_setup(cfg, port_id, dev, conf, nb_dev_rxq, nb_txq, pools,
				   nb_pools, err, errlen);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_start(port_id);
	if (rc != 0)
		return tfo_errmsg(err, errlen, "[port %s]: start failed: %s",
				    cfg->device, strerror(-rc));
	return 0;
}

/*
 * Configure and start the device: @p nb_rxq worker queues (+ one SYN queue
 * for the control core when @p syn_queue), @p nb_txq TX queues.
 */
static int
tfo_port_bring_up(const struct tfo_cfg_port *cfg, uint16_t nb_rxq,
		  uint16_t nb_txq, bool syn_queue, struct rte_mempool *const pools[],
		  uint16_t nb_pools, uint8_t addr_base, struct tfo_port_info *info,
		  char *err, size_t errlen)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info dev;
	uint16_t port_id;
	uint16_t nb_dev_rxq = (uint16_t)(nb_rxq + (syn_queue ? 1 : 0));
	uint16_t want_txq = nb_txq;	/* workers + control lcores */
	int rc;

	memset(info, 0, sizeof(*info));
	if (rte_eth_dev_get_port_by_name(cfg->device, &port_id) != 0)
		return tfo_errmsg(err, errlen,
				    "[port %s]: no such DPDK device (probed: %u ports; "
				    "a vdev needs 'vdev =' or --vdev, a NIC must be bound to vfio-pci)",
				    cfg->device, rte_eth_dev_count_avail());
	rc = rte_eth_dev_info_get(port_id, &dev);
	if (rc != 0)
		return tfo_errmsg(err, errlen, "[port %s]: cannot read device info: %s",
				    cfg->device, strerror(-rc));
	rc = tfo_port_tx_queues(cfg, &dev, nb_rxq, nb_dev_rxq, &nb_txq, info, err, errlen);
	if (rc != 0)
		return rc;
	info->reta_size = dev.reta_size;
	memset(&conf, 0, sizeof(conf));
	rc = tfo_port_offloads(cfg, &dev, nb_rxq, &conf, info, err, errlen);
	if (rc != 0)
		return rc;

	/* isolated mode before configure: most PMDs (mlx5) refuse it after;
	 * the rules come once the port runs (tfo_port_flow_setup) */
	if (cfg->isolate) {
		rc = tfo_port_flow_isolate(port_id, cfg->device, err, errlen);
		if (rc != 0)
			return rc;
	}
	/* RX interrupts wake idle workers (idle_policy adaptive); a device
	 * that refuses them is started without, and its lcores nap */
	conf.intr_conf.rxq = cfg->rx_intr;
	rc = tfo_port_start(cfg, port_id, &dev, &conf, nb_dev_rxq, nb_txq, want_txq, pools,
			    nb_pools, info, err, errlen);
	if (rc != 0 && conf.intr_conf.rxq) {
		TFO_LOG(INFO, "[port %s]: not with RX interrupts (%s): again without; its "
			"idle lcores nap instead of waiting for frames", cfg->device, err);
		rte_eth_dev_stop(port_id);
		conf.intr_conf.rxq = 0;
		rc = tfo_port_start(cfg, port_id, &dev, &conf, nb_dev_rxq, nb_txq, want_txq,
				    pools, nb_pools, info, err, errlen);
	}
	if (rc != 0)
		return rc;
	info->rx_intr = conf.intr_conf.rxq && tfo_port_rx_intr_fd(port_id, 0) >= 0;

	info->port_id = port_id;
	info->mtu = cfg->mtu;
	rc = rte_eth_macaddr_get(port_id, &info->mac);
	if (rc != 0)
		return tfo_errmsg(err, errlen, "[port %s]: no MAC address: %s",
				    cfg->device, strerror(-rc));
	info->nb_addrs = cfg->nb_addrs;
	info->addr_base = addr_base;
	memcpy(info->addrs, cfg->addrs, sizeof(info->addrs));
	/* ND and ARP need multicast/broadcast; unicast filtering is ours */
	rte_eth_allmulticast_enable(port_id);
	return 0;
}

/*
 * Every RSS redirection table entry to a worker queue (entry i -> i % W),
 * so that the SYN queue gets nothing by RSS and the control core can tell
 * a steered SYN's worker from its hash.
 */
int
tfo_port_reta_fill(uint16_t reta_size, uint16_t nb_workers,
		   struct rte_eth_rss_reta_entry64 *reta, size_t nb_groups)
{
	size_t groups = reta_size / RTE_ETH_RETA_GROUP_SIZE;

	if (reta_size == 0 || reta_size % RTE_ETH_RETA_GROUP_SIZE != 0 ||
	    nb_workers == 0 || groups > nb_groups)
		return -ENOTSUP;
	memset(reta, 0, groups * sizeof(*reta));
	for (unsigned int i = 0; i < reta_size; i++) {
		reta[i / RTE_ETH_RETA_GROUP_SIZE].mask = UINT64_MAX;
		reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] =
			(uint16_t)(i % nb_workers);
	}
	return (int)groups;
}

static int
tfo_port_reta_workers(const struct tfo_port_info *info, uint16_t nb_workers,
		      char *why, size_t whylen)
{
	/* any size the device reports (ice: 2048), at start only */
	size_t groups = info->reta_size / RTE_ETH_RETA_GROUP_SIZE;
	struct rte_eth_rss_reta_entry64 *reta = calloc(groups ? groups : 1, sizeof(*reta));
	struct rte_eth_rss_conf rc = {
		.rss_key = (uint8_t *)(uintptr_t)info->rss_key,
		.rss_key_len = sizeof(info->rss_key),
	};
	int r;

	if (reta == NULL) {
		snprintf(why, whylen, "no memory for a redirection table of %u entries",
			 info->reta_size);
		return -ENOMEM;
	}
	if (tfo_port_reta_fill(info->reta_size, nb_workers, reta, groups) < 0) {
		free(reta);
		snprintf(why, whylen, "no usable RSS redirection table (size %u)", info->reta_size);
		return -ENOTSUP;
	}
	r = rte_eth_dev_rss_reta_update(info->port_id, reta, info->reta_size);
	free(reta);
	if (r != 0) {
		snprintf(why, whylen, "RSS redirection table update refused: %s", strerror(-r));
		return r;
	}
	r = rte_eth_dev_rss_hash_conf_get(info->port_id, &rc);
	if (r != 0 || rc.rss_key_len == 0 || rc.rss_key_len > sizeof(info->rss_key)) {
		snprintf(why, whylen, "the RSS key cannot be read back (%s)", strerror(-r));
		return r != 0 ? r : -ENOTSUP;
	}
	return rc.rss_key_len;
}

/* rte_flow rules: TCP segments with SYN set (one per address family of
 * the port) to the SYN queue. The mask holds SYN only: the form the
 * ixgbe/igb SYN filter takes; a SYN-ACK to us is answered with a RST by
 * the control core either way. */
static int
tfo_port_syn_rules(const struct tfo_cfg_port *cfg, struct tfo_port_info *info,
		   uint16_t queue, char *why, size_t whylen)
{
	static const struct rte_flow_item_tcp tcp_spec = {
		.hdr.tcp_flags = RTE_TCP_SYN_FLAG };
	static const struct rte_flow_item_tcp tcp_mask = {
		.hdr.tcp_flags = RTE_TCP_SYN_FLAG };
	const struct rte_flow_attr attr = { .ingress = 1 };
	const struct rte_flow_action_queue q = { .index = queue };
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	bool fam[2] = { false, false };

	for (unsigned int i = 0; i < cfg->nb_addrs; i++)
		fam[cfg->addrs[i].family == AF_INET6] = true;
	for (int f = 0; f < 2; f++) {
		const struct rte_flow_item pattern[] = {
			{ .type = RTE_FLOW_ITEM_TYPE_ETH },
			{ .type = f ? RTE_FLOW_ITEM_TYPE_IPV6 : RTE_FLOW_ITEM_TYPE_IPV4 },
			{ .type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &tcp_spec, .mask = &tcp_mask },
			{ .type = RTE_FLOW_ITEM_TYPE_END },
		};
		struct rte_flow_error fe = { .message = NULL };

		if (!fam[f])
			continue;
		if (rte_flow_validate(info->port_id, &attr, pattern, actions, &fe) != 0 ||
		    rte_flow_create(info->port_id, &attr, pattern, actions, &fe) == NULL) {
			snprintf(why, whylen, "rte_flow %s rule refused: %s (%s)",
				 f ? "IPv6" : "IPv4", fe.message ? fe.message : "no reason given",
				 rte_strerror(rte_errno));
			return -ENOTSUP;
		}
	}
	return 0;
}

/* Turn SYN steering on for a port brought up with a SYN queue. */
static int
tfo_port_syn_steer(const struct tfo_cfg_port *cfg, struct tfo_port_info *info,
		   uint16_t nb_workers, char *why, size_t whylen)
{
	int r;

	if (nb_workers > 1) {
		r = tfo_port_reta_workers(info, nb_workers, why, whylen);
		if (r < 0)
			return r;
		info->rss_key_len = (uint8_t)r;
	}
	r = tfo_port_syn_rules(cfg, info, nb_workers, why, whylen);
	if (r < 0)
		return r;
	info->syn_steering = true;
	info->syn_queue = nb_workers;
	info->syn_workers = nb_workers;
	return 0;
}

/*
 * Without SYN steering, write the redirection table all the same so that
 * the control core knows which worker RSS gives a flow: a path-MTU error
 * (ICMP, hashed on other addresses) must reach the worker of the
 * connection it quotes. A device that refuses leaves the mapping unknown:
 * such errors then go to every worker (docs/architecture.md).
 */
static void
tfo_port_rss_known(const struct tfo_cfg_port *cfg, struct tfo_port_info *info,
		   uint16_t nb_workers)
{
	char why[TFO_CFG_ERR];
	int r;

	if (cfg->rss == TFO_RSS_PEER) {
		tfo_port_rss_peer(info, nb_workers);
		return;
	}
	if (nb_workers <= 1)
		return;
	if (info->rss_hf == 0) {
		snprintf(why, sizeof(why), "no RSS: the device spreads flows itself");
		r = -ENOTSUP;
	} else {
		r = tfo_port_reta_workers(info, nb_workers, why, sizeof(why));
	}
	if (r < 0) {
		TFO_LOG(INFO, "[port %s] RSS mapping unknown (%s): path-MTU errors go to "
			"every worker", cfg->device, why);
		return;
	}
	info->rss_key_len = (uint8_t)r;
	info->syn_workers = nb_workers;
}

/*
 * The RSS key and table size in one line at start, so that an operator
 * can compute which worker a flow lands on (or compare members of a
 * fleet); read from the device when the table was not written.
 */
static void
tfo_port_log_rss_key(const struct tfo_cfg_port *cfg, const struct tfo_port_info *info)
{
	uint8_t key[sizeof(info->rss_key)];
	struct rte_eth_rss_conf rc = { .rss_key = key, .rss_key_len = sizeof(key) };
	char hex[2 * sizeof(key) + 1];

	if (info->rss_key_len != 0) {
		memcpy(key, info->rss_key, info->rss_key_len);
		rc.rss_key_len = info->rss_key_len;
	} else if (info->rss_hf == 0 || cfg->rss == TFO_RSS_PEER ||
		   rte_eth_dev_rss_hash_conf_get(info->port_id, &rc) != 0 ||
		   rc.rss_key_len == 0 || rc.rss_key_len > sizeof(key)) {
		return;	/* no RSS, or the device will not say */
	}
	for (unsigned int i = 0; i < rc.rss_key_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	TFO_LOG(INFO, "[port %s] RSS key (%u bytes, redirection table of %u entries): %s",
		cfg->device, (unsigned int)rc.rss_key_len, info->reta_size, hex);
}

int
tfo_port_setup(const struct tfo_cfg_port *cfg, uint16_t nb_rxq,
	       uint16_t nb_txq, struct rte_mempool *const pools[], uint16_t nb_pools,
	       uint8_t addr_base, struct tfo_port_info *info, char *err, size_t errlen)
{
	char why[TFO_CFG_ERR];
	int rc;

	/* fewer pools than queues would give a queue another socket's */
	if (pools == NULL || nb_pools == 0 ||
	    (nb_pools > 1 && nb_pools < nb_rxq + (cfg->syn_steering ? 1 : 0)))
		return tfo_errmsg(err, errlen, "[port %s]: %u mbuf pools for %u RX queues%s: "
				  "want one, or one per queue", cfg->device, nb_pools, nb_rxq,
				  cfg->syn_steering ? " and the SYN queue" : "");
	if (cfg->syn_steering) {
		rc = tfo_port_bring_up(cfg, nb_rxq, nb_txq, true, pools, nb_pools, addr_base,
				       info, why, sizeof(why));
		if (rc == 0 && tfo_port_syn_steer(cfg, info, nb_rxq, why, sizeof(why)) == 0) {
			TFO_LOG(INFO, "[port %s] syn_steering = on: the NIC steers SYNs to RX "
				"queue %u; the control core hands each to its worker",
				cfg->device, nb_rxq);
			tfo_port_log_rss_key(cfg, info);
			return 0;
		}
		TFO_LOG(WARNING, "[port %s] syn_steering = on, but the device cannot: %s; SYNs "
			"are classified in software (correct, only without the hardware's "
			"help)", cfg->device, why);
		if (rc == 0) {
			rte_flow_flush(info->port_id, NULL);
			rte_eth_dev_stop(info->port_id);
		}
	}
	rc = tfo_port_bring_up(cfg, nb_rxq, nb_txq, false, pools, nb_pools, addr_base,
			       info, err, errlen);
	/* isolated, the rules' RSS action has its own table: the mapping
	 * stays unknown (path-MTU errors go to every worker) */
	if (rc == 0 && !cfg->isolate)
		tfo_port_rss_known(cfg, info, nb_rxq);
	if (rc == 0)
		tfo_port_log_rss_key(cfg, info);
	return rc;
}

void
tfo_port_rss_peer(struct tfo_port_info *info, uint16_t nb_workers)
{
	/* the default key of Microsoft's RSS specification: what most NICs
	 * start with, so a capture hashes the same on one */
	static const uint8_t key[40] = {
		0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
		0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
		0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
		0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
		0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
	};

	memset(info->rss_key, 0, sizeof(info->rss_key));
	memcpy(info->rss_key, key, sizeof(key));
	info->rss_key_len = sizeof(key);
	info->rss_hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP;
	info->reta_size = TFO_PORT_PEER_RETA;
	info->syn_workers = RTE_MAX(nb_workers, (uint16_t)1);
	info->rss_peer = true;
}

/* The Toeplitz hash of @p p's flow through the redirection table. */
static unsigned int
tfo_port_soft_rss_worker(const struct tfo_port_info *info, const struct tfo_pkt *p)
{
	bool l4 = (info->rss_hf & RTE_ETH_RSS_TCP) != 0;
	union rte_thash_tuple t;
	uint32_t hash, len;

	memset(&t, 0, sizeof(t));
	if (p->family == AF_INET) {
		t.v4.src_addr = rte_be_to_cpu_32(*(const uint32_t *)(const void *)p->src.b);
		t.v4.dst_addr = rte_be_to_cpu_32(*(const uint32_t *)(const void *)p->dst.b);
		t.v4.sport = p->sport;
		t.v4.dport = p->dport;
		len = l4 ? RTE_THASH_V4_L4_LEN : RTE_THASH_V4_L3_LEN;
	} else {
		for (int i = 0; i < 4; i++) {
			uint32_t s, d;

			memcpy(&s, p->src.b + 4 * i, 4);
			memcpy(&d, p->dst.b + 4 * i, 4);
			((uint32_t *)(void *)t.v6.src_addr)[i] = rte_be_to_cpu_32(s);
			((uint32_t *)(void *)t.v6.dst_addr)[i] = rte_be_to_cpu_32(d);
		}
		t.v6.sport = p->sport;
		t.v6.dport = p->dport;
		len = l4 ? RTE_THASH_V6_L4_LEN : RTE_THASH_V6_L3_LEN;
	}
	hash = rte_softrss((uint32_t *)(void *)&t, len, info->rss_key);
	return (hash % info->reta_size) % info->syn_workers;
}

unsigned int
tfo_port_flow_worker(const struct tfo_port_info *info, unsigned int nb_workers,
		     const struct tfo_pkt *p)
{
	if (nb_workers <= 1)
		return 0;
	if (info->syn_workers != nb_workers || info->rss_key_len == 0)
		return TFO_PORT_WORKER_UNKNOWN;
	return tfo_port_soft_rss_worker(info, p);
}

unsigned int
tfo_port_syn_worker(const struct tfo_port_info *info, const struct rte_mbuf *m,
		    const struct tfo_pkt *p)
{
	if (info->syn_workers <= 1)
		return 0;
	if (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)
		return (m->hash.rss % info->reta_size) % info->syn_workers;
	if (p == NULL || info->rss_key_len == 0)
		return 0;
	return tfo_port_soft_rss_worker(info, p);
}

void
tfo_port_close(const struct tfo_port_info *info)
{
	rte_eth_dev_stop(info->port_id);
	rte_eth_dev_close(info->port_id);
}

/* "offloaded", or why not: the configuration, or the device. */
static const char *
tfo_offload_word(bool used, bool offered)
{
	return used ? "offloaded" : offered ? "software (offload = off)" :
	       "software (the device has none)";
}

void
tfo_port_describe(const struct tfo_port_info *info, char *buf, size_t len)
{
	const uint64_t rx_ck = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_TCP_CKSUM;
	const uint64_t tx_ck = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
	struct rte_eth_dev_info dev;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	const char *rss;
	bool tx_used = info->tx_ip_cksum_offload && info->tx_tcp_cksum_offload;

	rte_ether_format_addr(mac, sizeof(mac), &info->mac);
	if (rte_eth_dev_info_get(info->port_id, &dev) != 0)
		memset(&dev, 0, sizeof(dev));
	if (info->rss_peer)
		rss = ", RSS by the peer (rss = peer)";
	else if (dev.nb_rx_queues <= 1)
		rss = "";
	else if (info->rss_hf & RTE_ETH_RSS_TCP)
		rss = ", RSS on the TCP 4-tuple";
	else if (info->rss_hf != 0)
		rss = ", RSS on IP addresses only";
	else
		rss = ", no RSS (the peer steers flows to queues)";
	snprintf(buf, len,
		 "port %u (%s) mac %s mtu %u, %u rxq/%u txq%s%s%s, rx checksum %s, tx checksum %s",
		 info->port_id, dev.driver_name ? dev.driver_name : "?", mac,
		 info->mtu, dev.nb_rx_queues, dev.nb_tx_queues, rss,
		 info->ctrl_tx_relay ? " (control TX relayed by workers)" : "",
		 info->rx_intr ? ", RX interrupts (wake idle workers)" : "",
		 tfo_offload_word(info->rx_cksum_offload, (dev.rx_offload_capa & rx_ck) == rx_ck),
		 !tx_used && info->tx_tcp_cksum_offload ? "tcp offloaded, ip software" :
		 tfo_offload_word(tx_used, (dev.tx_offload_capa & tx_ck) == tx_ck));
}
