/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of flow isolation ([port] isolate = on, port_flow.c): the
 * rule arrays tfo_port_flow_build hands to rte_flow, read back item by
 * item (TCP, UDP for udp = on, path-MTU errors); the configuration checks; and a device without rte_flow (net_null)
 * refusing isolated mode and the first rule with messages that name them.
 * The rules themselves on a device are the tap suite's (tap-isolate).
 */
#include <string.h>
#include <arpa/inet.h>

#include <rte_ethdev.h>
#include <rte_flow.h>

#include "net/port_flow.h"
#include "server/config_check.h"
#include "server/config_services.h"

#include "test.h"

static struct tfo_port_flow_set set;	/* large: not on the stack */

static void
port_cfg(struct tfo_cfg_port *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->device, sizeof(p->device), "mlx5_test");
	p->isolate = true;
	p->nb_addrs = 2;
	p->addrs[0].family = AF_INET;
	p->addrs[0].prefix_len = 24;
	inet_pton(AF_INET, "198.18.0.2", p->addrs[0].addr.b);
	p->addrs[1].family = AF_INET6;
	p->addrs[1].prefix_len = 64;
	inet_pton(AF_INET6, "fd00:7f0::2", p->addrs[1].addr.b);
}

static const uint16_t svc[] = { 7, 80 };

/* Rule @p r matches @p kind (TCP or UDP) to @p addr (family @p fam) port
 * @p port, exactly. */
static void
check_l4_rule(const struct tfo_port_flow_rule *r, int kind, int fam, const char *addr,
	      uint16_t port)
{
	uint8_t a[16];

	inet_pton(fam, addr, a);
	CHECK_EQ(r->kind, kind);
	CHECK(!r->optional);
	CHECK_EQ(r->attr.ingress, 1);
	CHECK_EQ(r->attr.egress, 0);
	CHECK_EQ(r->attr.group, 0);
	CHECK_EQ(r->pattern[0].type, RTE_FLOW_ITEM_TYPE_ETH);
	CHECK(r->pattern[0].spec == NULL);	/* any MAC: the kernel's too */
	CHECK_EQ(r->pattern[3].type, RTE_FLOW_ITEM_TYPE_END);
	if (fam == AF_INET) {
		const struct rte_flow_item_ipv4 *s = r->pattern[1].spec, *m = r->pattern[1].mask;

		CHECK_EQ(r->pattern[1].type, RTE_FLOW_ITEM_TYPE_IPV4);
		CHECK(memcmp(&s->hdr.dst_addr, a, 4) == 0);
		CHECK_EQ(m->hdr.dst_addr, UINT32_MAX);
		CHECK_EQ(m->hdr.src_addr, 0);
		CHECK_EQ(m->hdr.next_proto_id, 0);	/* the L4 item says it */
	} else {
		const struct rte_flow_item_ipv6 *s = r->pattern[1].spec, *m = r->pattern[1].mask;
		static const uint8_t ones[16] = {
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
		static const uint8_t zeros[16];

		CHECK_EQ(r->pattern[1].type, RTE_FLOW_ITEM_TYPE_IPV6);
		CHECK(memcmp(s->hdr.dst_addr, a, 16) == 0);
		CHECK(memcmp(m->hdr.dst_addr, ones, 16) == 0);
		CHECK(memcmp(m->hdr.src_addr, zeros, 16) == 0);
	}
	if (kind == TFO_PORT_FLOW_TCP) {
		const struct rte_flow_item_tcp *s = r->pattern[2].spec, *m = r->pattern[2].mask;

		CHECK_EQ(r->pattern[2].type, RTE_FLOW_ITEM_TYPE_TCP);
		CHECK_EQ(rte_be_to_cpu_16(s->hdr.dst_port), port);
		CHECK_EQ(m->hdr.dst_port, UINT16_MAX);
		CHECK_EQ(m->hdr.src_port, 0);
		CHECK_EQ(m->hdr.tcp_flags, 0);	/* every segment, not only SYNs */
	} else {
		const struct rte_flow_item_udp *s = r->pattern[2].spec, *m = r->pattern[2].mask;

		CHECK_EQ(r->pattern[2].type, RTE_FLOW_ITEM_TYPE_UDP);
		CHECK_EQ(rte_be_to_cpu_16(s->hdr.dst_port), port);
		CHECK_EQ(m->hdr.dst_port, UINT16_MAX);
		CHECK_EQ(m->hdr.src_port, 0);
		CHECK_EQ(m->hdr.dgram_len, 0);
		CHECK_EQ(m->hdr.dgram_cksum, 0);
	}
	CHECK(r->pattern[1].last == NULL && r->pattern[2].last == NULL);
	CHECK_EQ(r->actions[1].type, RTE_FLOW_ACTION_TYPE_END);
}

static void
check_tcp_rule(const struct tfo_port_flow_rule *r, int fam, const char *addr,
	       uint16_t port)
{
	check_l4_rule(r, TFO_PORT_FLOW_TCP, fam, addr, port);
}

TFO_TEST(one_worker_queue_zero)
{
	struct tfo_cfg_port p;
	struct tfo_port_flow_in in = { .cfg = &p, .svc_ports = svc, .nb_svc_ports = 2,
				       .nb_workers = 1 };
	char err[256] = "";
	int n;

	port_cfg(&p);
	n = tfo_port_flow_build(&set, 3, &in, err, sizeof(err));
	/* 2 addresses x 2 services, then one path-MTU rule per address */
	CHECK_EQ(n, 6);
	CHECK_EQ(set.port_id, 3);
	check_tcp_rule(&set.rules[0], AF_INET, "198.18.0.2", 7);
	check_tcp_rule(&set.rules[1], AF_INET, "198.18.0.2", 80);
	check_tcp_rule(&set.rules[2], AF_INET6, "fd00:7f0::2", 7);
	check_tcp_rule(&set.rules[3], AF_INET6, "fd00:7f0::2", 80);
	for (int i = 0; i < 6; i++) {
		const struct rte_flow_action_queue *q = set.rules[i].actions[0].conf;

		CHECK_EQ(set.rules[i].actions[0].type, RTE_FLOW_ACTION_TYPE_QUEUE);
		CHECK(q != NULL && q->index == 0);
	}
	CHECK(strcmp(set.rules[0].name, "TCP to 198.18.0.2 port 7") == 0);
	CHECK(strcmp(set.rules[3].name, "TCP to fd00:7f0::2 port 80") == 0);
}

/* udp = on on the second service: its UDP rule right after its TCP rule,
 * per address, with the same spread; not optional. The other service,
 * and every service with svc_udp NULL, has none. */
TFO_TEST(udp_rules_for_udp_on)
{
	static const bool udp[] = { false, true };
	struct tfo_cfg_port p;
	struct tfo_port_flow_in in = { .cfg = &p, .svc_ports = svc, .svc_udp = udp,
				       .nb_svc_ports = 2, .nb_workers = 1 };
	char err[256] = "";
	unsigned int nb_udp = 0;

	port_cfg(&p);
	/* 2 addresses x (2 TCP + 1 UDP), then one path-MTU rule per address */
	CHECK_EQ(tfo_port_flow_build(&set, 0, &in, err, sizeof(err)), 8);
	check_tcp_rule(&set.rules[0], AF_INET, "198.18.0.2", 7);
	check_tcp_rule(&set.rules[1], AF_INET, "198.18.0.2", 80);
	check_l4_rule(&set.rules[2], TFO_PORT_FLOW_UDP, AF_INET, "198.18.0.2", 80);
	check_tcp_rule(&set.rules[3], AF_INET6, "fd00:7f0::2", 7);
	check_tcp_rule(&set.rules[4], AF_INET6, "fd00:7f0::2", 80);
	check_l4_rule(&set.rules[5], TFO_PORT_FLOW_UDP, AF_INET6, "fd00:7f0::2", 80);
	CHECK(set.rules[6].kind == TFO_PORT_FLOW_PTB && set.rules[7].kind == TFO_PORT_FLOW_PTB);
	for (int i = 0; i < 6; i++) {
		const struct rte_flow_action_queue *q = set.rules[i].actions[0].conf;

		CHECK_EQ(set.rules[i].actions[0].type, RTE_FLOW_ACTION_TYPE_QUEUE);
		CHECK(q != NULL && q->index == 0);
		nb_udp += set.rules[i].kind == TFO_PORT_FLOW_UDP;
	}
	CHECK_EQ(nb_udp, 2);
	CHECK(strcmp(set.rules[2].name, "UDP to 198.18.0.2 port 80") == 0);
	CHECK(strcmp(set.rules[5].name, "UDP to fd00:7f0::2 port 80") == 0);

	/* several workers: the UDP rules spread as the TCP ones do */
	in.nb_workers = 3;
	in.rss_hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP;
	CHECK_EQ(tfo_port_flow_build(&set, 0, &in, err, sizeof(err)), 8);
	CHECK_EQ(set.rules[2].actions[0].type, RTE_FLOW_ACTION_TYPE_RSS);
	CHECK(set.rules[2].actions[0].conf == &set.rss && set.rss.queue_num == 3);

	/* no svc_udp: TCP only, as before udp = on */
	in.svc_udp = NULL;
	CHECK_EQ(tfo_port_flow_build(&set, 0, &in, err, sizeof(err)), 6);
	for (int i = 0; i < 6; i++)
		CHECK(set.rules[i].kind != TFO_PORT_FLOW_UDP);
}

/* The largest configuration fits the set: every address x every service
 * with udp = on, plus the path-MTU rules. */
TFO_TEST(udp_rules_fit_the_set)
{
	static bool udp[TFO_MAX_SERVICES];
	static uint16_t ports[TFO_MAX_SERVICES];
	struct tfo_cfg_port p;
	struct tfo_port_flow_in in = { .cfg = &p, .svc_ports = ports, .svc_udp = udp,
				       .nb_svc_ports = TFO_MAX_SERVICES, .nb_workers = 1 };
	char err[256] = "";

	port_cfg(&p);
	p.nb_addrs = TFO_MAX_PORT_ADDRS;
	for (unsigned int i = 2; i < TFO_MAX_PORT_ADDRS; i++) {
		p.addrs[i] = p.addrs[0];
		p.addrs[i].addr.b[3] = (uint8_t)(10 + i);
	}
	for (unsigned int s = 0; s < TFO_MAX_SERVICES; s++) {
		ports[s] = (uint16_t)(1000 + s);
		udp[s] = true;
	}
	CHECK_EQ(tfo_port_flow_build(&set, 0, &in, err, sizeof(err)), TFO_PORT_FLOW_MAX_RULES);
	CHECK_EQ(set.rules[TFO_PORT_FLOW_MAX_RULES - 1].kind, TFO_PORT_FLOW_PTB);
}

TFO_TEST(path_mtu_rules_optional)
{
	struct tfo_cfg_port p;
	struct tfo_port_flow_in in = { .cfg = &p, .svc_ports = svc, .nb_svc_ports = 1,
				       .nb_workers = 4, .rss_hf = RTE_ETH_RSS_IP };
	char err[256] = "";
	const struct tfo_port_flow_rule *r4, *r6;
	uint8_t a[16];

	port_cfg(&p);
	CHECK_EQ(tfo_port_flow_build(&set, 0, &in, err, sizeof(err)), 4);
	r4 = &set.rules[2];
	r6 = &set.rules[3];
	CHECK(r4->optional && r6->optional);
	CHECK(r4->kind == TFO_PORT_FLOW_PTB && r6->kind == TFO_PORT_FLOW_PTB);
	CHECK_EQ(r4->pattern[1].type, RTE_FLOW_ITEM_TYPE_IPV4);
	inet_pton(AF_INET, "198.18.0.2", a);
	CHECK(memcmp(&((const struct rte_flow_item_ipv4 *)r4->pattern[1].spec)->hdr.dst_addr,
		     a, 4) == 0);
	CHECK_EQ(r4->pattern[2].type, RTE_FLOW_ITEM_TYPE_ICMP);
	{
		const struct rte_flow_item_icmp *s = r4->pattern[2].spec, *m = r4->pattern[2].mask;

		CHECK_EQ(s->hdr.icmp_type, 3);
		CHECK_EQ(s->hdr.icmp_code, 4);
		CHECK_EQ(m->hdr.icmp_type, 0xff);
		CHECK_EQ(m->hdr.icmp_code, 0xff);
	}
	CHECK_EQ(r6->pattern[1].type, RTE_FLOW_ITEM_TYPE_IPV6);
	CHECK_EQ(r6->pattern[2].type, RTE_FLOW_ITEM_TYPE_ICMP6);
	{
		const struct rte_flow_item_icmp6 *s = r6->pattern[2].spec, *m = r6->pattern[2].mask;

		CHECK_EQ(s->type, 2);
		CHECK_EQ(m->type, 0xff);
		CHECK_EQ(m->code, 0);
	}
	/* to worker 0's queue, not spread: it hands them on */
	CHECK_EQ(r4->actions[0].type, RTE_FLOW_ACTION_TYPE_QUEUE);
	CHECK_EQ(((const struct rte_flow_action_queue *)r6->actions[0].conf)->index, 0);
	CHECK_EQ(r4->pattern[3].type, RTE_FLOW_ITEM_TYPE_END);
	CHECK(strcmp(r6->name, "ICMPv6 packet too big to fd00:7f0::2") == 0);
}

TFO_TEST(workers_rss_with_the_port_hash)
{
	static const uint8_t key[40] = { 0x6d, 0x5a, 0x56, 0xda, 1, 2, 3, 4 };
	struct tfo_cfg_port p;
	struct tfo_port_flow_in in = { .cfg = &p, .svc_ports = svc, .nb_svc_ports = 2,
				       .nb_workers = 5,
				       .rss_hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP,
				       .rss_key = key, .rss_key_len = sizeof(key) };
	char err[256] = "";
	const struct rte_flow_action_rss *rss;

	port_cfg(&p);
	p.nb_addrs = 1;
	CHECK_EQ(tfo_port_flow_build(&set, 1, &in, err, sizeof(err)), 3);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(set.rules[i].actions[0].type, RTE_FLOW_ACTION_TYPE_RSS);
		CHECK(set.rules[i].actions[0].conf == &set.rss);
	}
	rss = &set.rss;
	CHECK_EQ(rss->queue_num, 5);
	for (unsigned int q = 0; q < 5; q++)
		CHECK_EQ(rss->queue[q], q);
	CHECK_EQ(rss->types, RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP);
	CHECK_EQ(rss->level, 0);
	CHECK_EQ(rss->func, RTE_ETH_HASH_FUNCTION_DEFAULT);
	CHECK_EQ(rss->key_len, 40);
	CHECK(rss->key != NULL && memcmp(rss->key, key, 40) == 0);

	/* no key read back: the device's default (key_len 0) */
	in.rss_key = NULL;
	in.rss_key_len = 0;
	CHECK_EQ(tfo_port_flow_build(&set, 1, &in, err, sizeof(err)), 3);
	CHECK(set.rss.key == NULL && set.rss.key_len == 0);
}

TFO_TEST(build_refuses_what_cannot_be_served)
{
	struct tfo_cfg_port p;
	struct tfo_port_flow_in in = { .cfg = &p, .svc_ports = svc, .nb_svc_ports = 0,
				       .nb_workers = 1 };
	char err[256] = "";

	port_cfg(&p);
	CHECK(tfo_port_flow_build(&set, 0, &in, err, sizeof(err)) < 0);
	CHECK_MSG(strstr(err, "service ports") != NULL, "%s", err);
	in.nb_svc_ports = 1;
	in.nb_workers = 0;
	CHECK(tfo_port_flow_build(&set, 0, &in, err, sizeof(err)) < 0);
	CHECK_MSG(strstr(err, "0 workers") != NULL, "%s", err);
}

TFO_TEST(config_refuses_exception_and_syn_steering)
{
	struct tfo_cfg_port p;
	char err[256] = "";

	port_cfg(&p);
	CHECK_EQ(tfo_port_flow_check(&p, err, sizeof(err)), 0);
	p.exception = true;
	CHECK(tfo_port_flow_check(&p, err, sizeof(err)) < 0);
	CHECK_MSG(strstr(err, "exception") != NULL && strstr(err, "mlx5_test") != NULL,
		  "%s", err);
	p.exception = false;
	p.syn_steering = true;
	CHECK(tfo_port_flow_check(&p, err, sizeof(err)) < 0);
	CHECK_MSG(strstr(err, "syn_steering") != NULL, "%s", err);
	p.isolate = false;	/* without isolation, none of this matters here */
	p.exception = true;
	CHECK_EQ(tfo_port_flow_check(&p, err, sizeof(err)), 0);
}

/* The key as a file says it, through the start's own checks. */
TFO_TEST(config_file_key)
{
	static struct tfo_config c;	/* large: not on the stack */
	char err[512] = "";

	tfo_config_defaults(&c);
	CHECK_EQ(tfo_config_parse_string(&c, "[port net_null0]\nipv4 = 198.18.0.2/24\n"
					 "isolate = on\n[service echo]\nport = 7\n", "t.ini",
					 err, sizeof(err)), 0);
	CHECK_EQ(tfo_config_services_load(&c, NULL, err, sizeof(err)), 0);
	CHECK(c.nb_ports == 1 && c.ports[0].isolate);
	CHECK_MSG(tfo_config_validate(&c, err, sizeof(err)) == 0, "%s", err);
	CHECK(tfo_config_set(&c, "port net_null0", "isolate", "maybe", err, sizeof(err)) < 0);
	CHECK(tfo_config_set(&c, "port net_null0", "exception", "on", err, sizeof(err)) == 0);
	CHECK(tfo_config_validate(&c, err, sizeof(err)) < 0);
	CHECK_MSG(strstr(err, "[port net_null0] isolate = on with exception = on") != NULL,
		  "%s", err);
	CHECK(tfo_config_set(&c, "port net_null0", "isolate", "off", err, sizeof(err)) == 0);
	CHECK_MSG(tfo_config_validate(&c, err, sizeof(err)) == 0, "%s", err);
}

/* net_null has no rte_flow: isolated mode and the first TCP rule are
 * refused, each with a line naming the device, the rule and why. */
TFO_TEST(device_without_rte_flow_refuses_by_name)
{
	struct tfo_cfg_port p;
	struct tfo_port_flow_in in = { .cfg = &p, .svc_ports = svc, .nb_svc_ports = 2,
				       .nb_workers = 1 };
	char err[256] = "";
	uint16_t port_id;

	if (rte_eth_dev_get_port_by_name("net_null0", &port_id) != 0) {
		SKIP("no net_null0 (the EAL did not create it)");
	}
	port_cfg(&p);
	snprintf(p.device, sizeof(p.device), "net_null0");
	CHECK(tfo_port_flow_isolate(port_id, p.device, err, sizeof(err)) < 0);
	CHECK_MSG(strstr(err, "[port net_null0] isolate = on") != NULL &&
		  strstr(err, "net_null") != NULL && strstr(err, "isolated mode") != NULL,
		  "%s", err);
	CHECK_EQ(tfo_port_flow_build(&set, port_id, &in, err, sizeof(err)), 6);
	CHECK(tfo_port_flow_install(&set, p.device, err, sizeof(err)) < 0);
	CHECK_MSG(strstr(err, "rule \"TCP to 198.18.0.2 port 7\" refused by the device "
			 "(net_null)") != NULL, "%s", err);
	CHECK_EQ(set.nb_installed, 0);
	tfo_port_flow_remove(&set);	/* nothing to destroy: no crash */
	CHECK_EQ(set.nb_installed, 0);

	/* the server's one call: the same refusal, and no set to free */
	{
		struct tfo_port_info info = { .port_id = port_id };

		err[0] = '\0';
		CHECK(tfo_port_flow_setup(&p, &info, 1, svc, NULL, 2, err, sizeof(err)) == NULL);
		CHECK_MSG(strstr(err, "rule \"TCP to 198.18.0.2 port 7\"") != NULL, "%s", err);
		tfo_port_flow_free(NULL);
	}
}

int
main(int argc, char **argv)
{
	tfo_test_eal_init(argv[0], 64, "--vdev", "net_null0", NULL);
	return tfo_test_run_all(argc, argv);
}
