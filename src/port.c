/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: port set-up.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include <rte_ethdev.h>

#include "tfo/log.h"
#include "tfo/port.h"

static int
tfo_port_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
tfo_port_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

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

int
tfo_port_setup(const struct tfo_cfg_port *cfg, uint16_t nb_rxq,
	       uint16_t nb_txq, struct rte_mempool *pool, uint8_t addr_base,
	       struct tfo_port_info *info, char *err, size_t errlen)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info dev;
	uint16_t port_id, nb_rxd = cfg->rx_desc, nb_txd = cfg->tx_desc;
	int socket, rc;

	memset(info, 0, sizeof(*info));
	if (rte_eth_dev_get_port_by_name(cfg->device, &port_id) != 0)
		return tfo_port_err(err, errlen,
				    "[port %s]: no such DPDK device (probed: %u ports; "
				    "a vdev needs 'vdev =' or --vdev, a NIC must be bound to vfio-pci)",
				    cfg->device, rte_eth_dev_count_avail());
	rc = rte_eth_dev_info_get(port_id, &dev);
	if (rc != 0)
		return tfo_port_err(err, errlen, "[port %s]: cannot read device info: %s",
				    cfg->device, strerror(-rc));
	if (nb_rxq > dev.max_rx_queues)
		return tfo_port_err(err, errlen,
				    "[port %s]: %u workers need %u RX queues, the device has %u "
				    "(use fewer lcores)",
				    cfg->device, nb_rxq, nb_rxq, dev.max_rx_queues);
	if (nb_txq > dev.max_tx_queues && nb_rxq <= dev.max_tx_queues) {
		/* no TX queue left for the control core: it relays through
		 * worker 0 (virtio and VFs with one queue pair per worker) */
		nb_txq = nb_rxq;
		info->ctrl_tx_relay = true;
	}
	if (nb_txq > dev.max_tx_queues)
		return tfo_port_err(err, errlen,
				    "[port %s]: %u workers need %u TX queues, the device has "
				    "%u (use fewer lcores)",
				    cfg->device, nb_rxq, nb_txq, dev.max_tx_queues);

	memset(&conf, 0, sizeof(conf));
	if (nb_rxq > 1) {
		uint64_t want = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP;

		/* the device's own hash functions only: asking for more fails */
		conf.rx_adv_conf.rss_conf.rss_hf = want & dev.flow_type_rss_offloads;
		if (conf.rx_adv_conf.rss_conf.rss_hf != 0)
			conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		else if (!cfg->rss_optional)
			return tfo_port_err(err, errlen,
					    "[port %s]: the device (%s) cannot do RSS "
					    "(flow_type_rss_offloads 0x%" PRIx64 "), so only one "
					    "worker can be used on it: %u configured; start with "
					    "2 lcores (-l 0-1: control + one worker)",
					    cfg->device, dev.driver_name,
					    dev.flow_type_rss_offloads, nb_rxq);
		if ((conf.rx_adv_conf.rss_conf.rss_hf & RTE_ETH_RSS_TCP) == 0 &&
		    conf.rxmode.mq_mode == RTE_ETH_MQ_RX_RSS)
			TFO_LOG(WARNING, "[port %s]: the device hashes IP addresses only, "
				"not TCP ports: all connections of one client land on one "
				"worker (correct, less balanced)", cfg->device);
		info->rss_hf = conf.rx_adv_conf.rss_conf.rss_hf;
	}
	if (cfg->offload == TFO_OFFLOAD_AUTO) {
		uint64_t rx = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_TCP_CKSUM;

		if ((dev.rx_offload_capa & rx) == rx) {
			conf.rxmode.offloads |= rx;
			info->rx_cksum_offload = true;
		}
		if (dev.tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) {
			conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
			info->tx_ip_cksum_offload = true;
		}
		if (dev.tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_CKSUM) {
			conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
			info->tx_tcp_cksum_offload = true;
		}
	}
	/* external buffers (zero-copy bodies) are chained behind a header mbuf */
	if (dev.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) {
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		info->tx_multiseg = true;
	}

	rc = tfo_port_configure_quiet(port_id, nb_rxq, nb_txq, &conf);
	if (rc != 0 && nb_txq > nb_rxq) {
		/* Some PMDs (net_tap) need as many TX as RX queues: then the
		 * control core relays its frames through worker 0's queue. */
		rc = rte_eth_dev_configure(port_id, nb_rxq, nb_rxq, &conf);
		if (rc == 0) {
			nb_txq = nb_rxq;
			info->ctrl_tx_relay = true;
		}
	}
	if (rc != 0)
		return tfo_port_err(err, errlen, "[port %s]: configure failed: %s",
				    cfg->device, strerror(-rc));
	rc = rte_eth_dev_set_mtu(port_id, cfg->mtu);
	if (rc != 0 && rc != -ENOTSUP)
		return tfo_port_err(err, errlen, "[port %s] mtu = %u: refused by the device: %s",
				    cfg->device, cfg->mtu, strerror(-rc));
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &nb_rxd, &nb_txd);
	if (rc != 0)
		return tfo_port_err(err, errlen,
				    "[port %s] rx_desc = %u / tx_desc = %u: refused: %s",
				    cfg->device, cfg->rx_desc, cfg->tx_desc, strerror(-rc));

	socket = rte_eth_dev_socket_id(port_id);
	if (socket < 0)
		socket = (int)rte_socket_id();
	for (uint16_t q = 0; q < nb_rxq; q++) {
		struct rte_eth_rxconf rxc = dev.default_rxconf;

		rxc.offloads = conf.rxmode.offloads;
		rc = rte_eth_rx_queue_setup(port_id, q, nb_rxd, (unsigned int)socket,
					    &rxc, pool);
		if (rc != 0)
			return tfo_port_err(err, errlen,
					    "[port %s]: RX queue %u set-up failed: %s",
					    cfg->device, q, strerror(-rc));
	}
	for (uint16_t q = 0; q < nb_txq; q++) {
		struct rte_eth_txconf txc = dev.default_txconf;

		txc.offloads = conf.txmode.offloads;
		rc = rte_eth_tx_queue_setup(port_id, q, nb_txd, (unsigned int)socket,
					    &txc);
		if (rc != 0)
			return tfo_port_err(err, errlen,
					    "[port %s]: TX queue %u set-up failed: %s",
					    cfg->device, q, strerror(-rc));
	}
	rc = rte_eth_dev_start(port_id);
	if (rc != 0)
		return tfo_port_err(err, errlen, "[port %s]: start failed: %s",
				    cfg->device, strerror(-rc));

	info->port_id = port_id;
	info->mtu = cfg->mtu;
	rc = rte_eth_macaddr_get(port_id, &info->mac);
	if (rc != 0)
		return tfo_port_err(err, errlen, "[port %s]: no MAC address: %s",
				    cfg->device, strerror(-rc));
	info->nb_addrs = cfg->nb_addrs;
	info->addr_base = addr_base;
	memcpy(info->addrs, cfg->addrs, sizeof(info->addrs));
	/* ND and ARP need multicast/broadcast; unicast filtering is ours */
	rte_eth_allmulticast_enable(port_id);
	return 0;
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
	if (dev.nb_rx_queues <= 1)
		rss = "";
	else if (info->rss_hf & RTE_ETH_RSS_TCP)
		rss = ", RSS on the TCP 4-tuple";
	else if (info->rss_hf != 0)
		rss = ", RSS on IP addresses only";
	else
		rss = ", no RSS (the peer steers flows to queues)";
	snprintf(buf, len,
		 "port %u (%s) mac %s mtu %u, %u rxq/%u txq%s%s, rx checksum %s, tx checksum %s",
		 info->port_id, dev.driver_name ? dev.driver_name : "?", mac,
		 info->mtu, dev.nb_rx_queues, dev.nb_tx_queues, rss,
		 info->ctrl_tx_relay ? " (control TX relayed by worker 0)" : "",
		 tfo_offload_word(info->rx_cksum_offload, (dev.rx_offload_capa & rx_ck) == rx_ck),
		 !tx_used && info->tx_tcp_cksum_offload ? "tcp offloaded, ip software" :
		 tfo_offload_word(tx_used, (dev.tx_offload_capa & tx_ck) == tx_ck));
}
