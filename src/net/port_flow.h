/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: flow isolation ([port] isolate = on) for bifurcated NICs.
 *
 * On a port shared with the kernel (mlx5: the kernel's netdev and DPDK on
 * one function), rte_flow_isolate() makes the device deliver to DPDK only
 * what an rte_flow rule matches; everything else (ARP, ND, ping, SSH,
 * BGP, the host's own DNS...) stays with the kernel, which keeps the
 * address. This module builds those rules: TCP to each served address and
 * service port, and UDP to those of services with udp = on, spread over
 * the workers' queues (RSS, or QUEUE 0 with one worker), and
 * the ICMP errors a connection of ours needs (IPv4 fragmentation needed,
 * IPv6 packet too big) to worker 0, which hands them on as it does without
 * isolation. The rule arrays are built without a device, so that a unit
 * test can read them; validating, creating and destroying them needs one.
 */
#ifndef TFO_PORT_FLOW_H
#define TFO_PORT_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_flow.h>

#include "net/pkt.h"
#include "ops/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** At most: a TCP and a UDP rule per address and service, an ICMP rule
 *  per address. */
#define TFO_PORT_FLOW_MAX_RULES (TFO_MAX_PORT_ADDRS * (2 * TFO_MAX_SERVICES + 1))

/** What the rules of one port carry (tfo_port_flow_build). */
enum tfo_port_flow_kind {
	TFO_PORT_FLOW_TCP = 0,	/**< TCP to an address and service port */
	TFO_PORT_FLOW_PTB,	/**< ICMP frag. needed / ICMPv6 packet too big */
	TFO_PORT_FLOW_UDP,	/**< UDP to an address and port (udp = on) */
};

/** One rule: the arrays rte_flow reads, the specs they point to. */
struct tfo_port_flow_rule {
	char name[80];		/**< "TCP to 198.18.0.2 port 7", for messages */
	uint8_t kind;		/**< enum tfo_port_flow_kind */
	/** PTB rules are optional: a device that cannot match ICMP types
	 *  leaves them to the kernel (warning); TCP and UDP rules are not. */
	bool optional;
	bool skipped;		/**< refused by rte_flow_validate, optional */
	struct rte_flow_attr attr;
	struct rte_flow_item pattern[4];	/**< ETH, IPV4|IPV6, TCP|UDP|ICMP|ICMP6, END */
	struct rte_flow_action actions[2];	/**< RSS|QUEUE, END */
	union {
		struct rte_flow_item_ipv4 v4;
		struct rte_flow_item_ipv6 v6;
	} l3_spec, l3_mask;
	union {
		struct rte_flow_item_tcp tcp;
		struct rte_flow_item_udp udp;
		struct rte_flow_item_icmp icmp;
		struct rte_flow_item_icmp6 icmp6;
	} l4_spec, l4_mask;
	struct rte_flow *flow;	/**< once created, until destroyed */
};

/** What the rules are built from. */
struct tfo_port_flow_in {
	const struct tfo_cfg_port *cfg;	/**< device name, addresses */
	const uint16_t *svc_ports;	/**< the services' TCP ports */
	/** per port of svc_ports: UDP too (udp = on); NULL: TCP only */
	const bool *svc_udp;
	unsigned int nb_svc_ports;
	uint16_t nb_workers;		/**< RX queues 0..nb_workers-1 */
	uint64_t rss_hf;		/**< the port's RSS hash functions */
	const uint8_t *rss_key;		/**< its key, NULL: the device's default */
	uint8_t rss_key_len;
};

/**
 * The rules of one port. The rules point into the set (specs, queue list,
 * key): build it where it stays, and do not copy it afterwards.
 */
struct tfo_port_flow_set {
	uint16_t port_id;
	unsigned int nb_rules;
	unsigned int nb_installed;	/**< created and not destroyed */
	struct rte_flow_action_rss rss;
	struct rte_flow_action_queue queue;	/**< worker 0 */
	uint8_t rss_key[52];
	uint16_t queues[RTE_MAX_LCORE];
	struct tfo_port_flow_rule rules[TFO_PORT_FLOW_MAX_RULES];
};

/**
 * The cross-key checks of isolate = on on port @p p, with no device:
 * exception = on is refused (the kernel already has every frame the rules
 * do not take: an exception path would receive nothing), and so is
 * syn_steering = on (its rule takes every TCP SYN of the port, the
 * kernel's SSH and BGP too). @return 0, or -EINVAL with one line in @p err.
 */
int tfo_port_flow_check(const struct tfo_cfg_port *p, char *err, size_t errlen);

/**
 * Fill @p set with the rules of @p in for device @p port_id: for each
 * address A of the port and each service port P, "ETH / IPV4|IPV6 dst A /
 * TCP dst P", followed by "ETH / IPV4|IPV6 dst A / UDP dst P" when
 * in->svc_udp says so, to RSS over queues 0..nb_workers-1 (types:
 * in->rss_hf, key: in->rss_key) or, with one worker, QUEUE 0; then for
 * each address "ETH /
 * IPV4 dst A / ICMP type 3 code 4" or "ETH / IPV6 dst A / ICMP6 type 2"
 * to QUEUE 0, marked optional. Ingress, group 0, priority 0; exact
 * matches (full masks). No device is touched.
 * @return the number of rules, or -EINVAL with @p err (no address, no
 *   service port, nb_workers 0, more workers than RTE_MAX_LCORE).
 */
int tfo_port_flow_build(struct tfo_port_flow_set *set, uint16_t port_id,
			const struct tfo_port_flow_in *in, char *err, size_t errlen);

/**
 * rte_flow_isolate(@p port_id, 1): call it before rte_eth_dev_configure
 * (most PMDs, mlx5 among them, refuse it on a configured port).
 * @return 0, or a negative errno with one line naming @p device, the
 *   driver and the PMD's message in @p err.
 */
int tfo_port_flow_isolate(uint16_t port_id, const char *device, char *err, size_t errlen);

/**
 * Validate every rule of @p set (rte_flow_validate), then create them on
 * the started port. A refused TCP or UDP rule is an error (the start-up
 * line would claim what the port cannot deliver); a refused optional
 * rule (PTB) is logged as a warning and skipped. On error, the rules
 * created so far are destroyed.
 * @return the number of rules created, or a negative errno with one line
 *   in @p err naming the device, the rule and the PMD's message.
 */
int tfo_port_flow_install(struct tfo_port_flow_set *set, const char *device, char *err,
			  size_t errlen);

/** Destroy the rules of @p set that exist (before the port stops). */
void tfo_port_flow_remove(struct tfo_port_flow_set *set);

/**
 * The whole of isolate = on after the port started (tfo_port_setup set
 * isolated mode before configuring it): a set on the port's socket, the
 * rules built from @p cfg, @p info's RSS functions and the device's key
 * (read back; the device's default when it cannot be read), for
 * @p nb_workers worker queues and the @p nb_svc_ports ports of the
 * services (@p svc_udp: which of them serve UDP too, NULL: none),
 * installed; one log line says how many.
 * @return the set (free it with tfo_port_flow_free before the port stops),
 *   or NULL with one line in @p err.
 */
struct tfo_port_flow_set *tfo_port_flow_setup(const struct tfo_cfg_port *cfg,
					      const struct tfo_port_info *info,
					      uint16_t nb_workers, const uint16_t *svc_ports,
					      const bool *svc_udp, unsigned int nb_svc_ports,
					      char *err, size_t errlen);

/** Destroy the rules of @p set and free it (NULL: nothing). */
void tfo_port_flow_free(struct tfo_port_flow_set *set);

#ifdef __cplusplus
}
#endif

#endif /* TFO_PORT_FLOW_H */
