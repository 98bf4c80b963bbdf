/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the worker choice for hardware-steered SYNs
 * (tfo_port_syn_worker): the NIC's reported hash through the redirection
 * table tfo_port_setup writes, and the software Toeplitz hash when the NIC
 * reports none, checked against the published RSS verification vectors
 * (Microsoft's "Verifying the RSS Hash Calculation", the key every NIC
 * ships as its default).
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "net/port.h"

#include "test.h"

static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d,
	0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b,
	0xbe, 0xac, 0x01, 0xfa,
};

/* reta_size 512 and 512 workers: the worker is the hash's low 9 bits, so
 * that a wrong hash cannot pass by chance */
static void
port_with(struct tfo_port_info *info, uint16_t workers, uint64_t rss_hf)
{
	memset(info, 0, sizeof(*info));
	info->syn_steering = true;
	info->syn_workers = workers;
	info->syn_queue = workers;
	info->reta_size = workers > 128 ? 512 : 128;
	info->rss_hf = rss_hf;
	info->rss_key_len = sizeof(ms_key);
	memcpy(info->rss_key, ms_key, sizeof(ms_key));
}

static void
pkt_with(struct tfo_pkt *p, int family, const char *src, uint16_t sport,
	 const char *dst, uint16_t dport)
{
	memset(p, 0, sizeof(*p));
	p->family = (uint8_t)family;
	inet_pton(family, src, p->src.b);
	inet_pton(family, dst, p->dst.b);
	p->sport = sport;
	p->dport = dport;
}

/* The worker the hardware's RSS gives a flow of hash @p h. */
static unsigned int
rss_worker(uint32_t h, unsigned int workers)
{
	return (h % (workers > 128 ? 512 : 128)) % workers;
}

TFO_TEST(nic_hash_through_the_table)
{
	struct tfo_port_info info;
	struct rte_mbuf m;

	memset(&m, 0, sizeof(m));
	m.ol_flags = RTE_MBUF_F_RX_RSS_HASH;
	for (uint16_t w = 1; w <= 5; w++) {
		unsigned int wrong = 0, seen = 0;

		port_with(&info, w, RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP);
		for (uint32_t h = 0; h < 4096; h++) {
			unsigned int got;

			m.hash.rss = h * 2654435761u;
			got = tfo_port_syn_worker(&info, &m, NULL);
			wrong += got != rss_worker(m.hash.rss, w);
			seen |= 1u << got;
		}
		CHECK_EQ(wrong, 0);
		CHECK_EQ(seen, (1u << w) - 1);	/* every worker gets flows */
	}
}

TFO_TEST(software_toeplitz_ipv4)
{
	/* Microsoft's vectors: IPv4 with TCP ports, and addresses only */
	static const struct {
		const char *dst, *src;
		uint16_t dport, sport;
		uint32_t l4, l3;
	} v[] = {
		{ "161.142.100.80", "66.9.149.187", 1766, 2794, 0x51ccc178, 0x323e8fc2 },
		{ "65.69.140.83", "199.92.111.2", 4739, 14230, 0xc626b0ea, 0xd718262a },
		{ "12.22.207.184", "24.19.198.95", 38024, 12898, 0x5c2b394a, 0xd2d0a5de },
		{ "209.142.163.6", "38.27.205.30", 2217, 48228, 0xafc7327f, 0x82989176 },
		{ "202.188.127.2", "153.39.163.191", 1303, 44251, 0x10e828a2, 0x5d1809c5 },
	};
	struct tfo_port_info info;
	struct tfo_pkt p;
	struct rte_mbuf m;

	memset(&m, 0, sizeof(m));	/* no hash from the NIC */
	for (unsigned int i = 0; i < RTE_DIM(v); i++) {
		pkt_with(&p, AF_INET, v[i].src, v[i].sport, v[i].dst, v[i].dport);
		for (uint16_t w = 3; w <= 512; w += 509) {
			port_with(&info, w, RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP);
			CHECK_EQ(tfo_port_syn_worker(&info, &m, &p), rss_worker(v[i].l4, w));
			port_with(&info, w, RTE_ETH_RSS_IP);
			CHECK_EQ(tfo_port_syn_worker(&info, &m, &p), rss_worker(v[i].l3, w));
		}
	}
}

TFO_TEST(software_toeplitz_ipv6)
{
	static const struct {
		const char *dst, *src;
		uint16_t dport, sport;
		uint32_t l4, l3;
	} v[] = {
		{ "3ffe:2501:200:3::1", "3ffe:2501:200:1fff::7", 1766, 2794,
		  0x40207d3d, 0x2cc18cd5 },
		{ "ff02::1", "3ffe:501:8::260:97ff:fe40:efab", 4739, 14230,
		  0xdde51bbf, 0x0f0c461c },
		{ "fe80::200:f8ff:fe21:67cf", "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 38024, 44251,
		  0x02d1feef, 0x4b61e985 },
	};
	struct tfo_port_info info;
	struct tfo_pkt p;
	struct rte_mbuf m;

	memset(&m, 0, sizeof(m));
	for (unsigned int i = 0; i < RTE_DIM(v); i++) {
		pkt_with(&p, AF_INET6, v[i].src, v[i].sport, v[i].dst, v[i].dport);
		port_with(&info, 512, RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP);
		CHECK_EQ(tfo_port_syn_worker(&info, &m, &p), rss_worker(v[i].l4, 512));
		port_with(&info, 512, RTE_ETH_RSS_IP);
		CHECK_EQ(tfo_port_syn_worker(&info, &m, &p), rss_worker(v[i].l3, 512));
	}
}

TFO_TEST(one_worker_or_nothing_to_hash)
{
	struct tfo_port_info info;
	struct tfo_pkt p;
	struct rte_mbuf m;

	memset(&m, 0, sizeof(m));
	pkt_with(&p, AF_INET, "10.0.0.1", 1000, "10.0.0.2", 80);
	port_with(&info, 1, RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP);
	CHECK_EQ(tfo_port_syn_worker(&info, &m, &p), 0);
	port_with(&info, 4, RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP);
	CHECK_EQ(tfo_port_syn_worker(&info, &m, NULL), 0);	/* unparsable: worker 0 drops it */
}

/*
 * Redirection tables of every size a device reports, 2048 (ice) and more
 * included: each entry to worker i % W, and the worker tfo_port_syn_worker
 * picks for a NIC hash is the table's entry for that hash. Sizes the
 * table cannot take are refused, not truncated.
 */
TFO_TEST(reta_any_size_the_device_reports)
{
	static struct rte_eth_rss_reta_entry64 reta[8192 / RTE_ETH_RETA_GROUP_SIZE];
	static const uint16_t sizes[] = { 64, 128, 512, 1024, 2048, 4096, 8192 };
	struct tfo_port_info info;
	struct rte_mbuf m;

	memset(&m, 0, sizeof(m));
	m.ol_flags = RTE_MBUF_F_RX_RSS_HASH;
	for (unsigned int k = 0; k < RTE_DIM(sizes); k++) {
		uint16_t n = sizes[k], w = (uint16_t)(3 + k);
		unsigned int wrong = 0, unmasked = 0, mismatch = 0;

		CHECK_EQ(tfo_port_reta_fill(n, w, reta, RTE_DIM(reta)),
			 n / RTE_ETH_RETA_GROUP_SIZE);
		for (unsigned int e = 0; e < n; e++) {
			wrong += reta[e / 64].reta[e % 64] != e % w;
			unmasked += reta[e / 64].mask != UINT64_MAX;
		}
		CHECK_EQ(wrong, 0);
		CHECK_EQ(unmasked, 0);
		port_with(&info, w, RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP);
		info.reta_size = n;
		for (uint32_t h = 0; h < 20000; h++) {
			uint32_t e;

			m.hash.rss = h * 2654435761u;
			e = m.hash.rss & (n - 1u);	/* the NIC: the hash's low bits */
			mismatch += tfo_port_syn_worker(&info, &m, NULL) !=
				    reta[e / 64].reta[e % 64];
		}
		CHECK_EQ(mismatch, 0);
	}
	/* no table, not whole groups, no worker, too small an array */
	CHECK_EQ(tfo_port_reta_fill(0, 2, reta, RTE_DIM(reta)), -ENOTSUP);
	CHECK_EQ(tfo_port_reta_fill(100, 2, reta, RTE_DIM(reta)), -ENOTSUP);
	CHECK_EQ(tfo_port_reta_fill(512, 0, reta, RTE_DIM(reta)), -ENOTSUP);
	CHECK_EQ(tfo_port_reta_fill(2048, 2, reta, 8), -ENOTSUP);
}

/* The refusal of a second worker without RSS blames the device; on
 * net_ice the cause is the missing DDP package (safe mode): named. */
TFO_TEST(no_rss_hint_names_the_ice_ddp_package)
{
	const char *ice = tfo_port_no_rss_hint("net_ice");
	const char *other = tfo_port_no_rss_hint("net_virtio");

	CHECK(strstr(ice, "DDP package") != NULL && strstr(ice, "safe mode") != NULL);
	CHECK(strstr(ice, "/lib/firmware/intel/ice/ddp/") != NULL);
	CHECK(strstr(other, "DDP") == NULL && strstr(other, "rss = peer") != NULL);
	CHECK(strstr(tfo_port_no_rss_hint(NULL), "-l 0-1") != NULL);
}

TFO_TEST_MAIN()

/* The owner of a flow a path-MTU error quotes: the same Toeplitz mapping
 * (the ICMP's own hash is of the router's address, never used), known only
 * when the table was written for as many workers as there are. */
TFO_TEST(flow_worker_for_path_mtu_errors)
{
	struct tfo_port_info info;
	struct tfo_pkt p;

	pkt_with(&p, AF_INET, "66.9.149.187", 2794, "161.142.100.80", 1766);
	port_with(&info, 3, RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP);
	info.syn_steering = false;	/* the table is written without steering too */
	CHECK_EQ(tfo_port_flow_worker(&info, 3, &p), rss_worker(0x51ccc178, 3));
	CHECK_EQ(tfo_port_flow_worker(&info, 1, &p), 0);
	/* a table for another worker count, or none (net_tap): unknown */
	CHECK_EQ(tfo_port_flow_worker(&info, 4, &p), TFO_PORT_WORKER_UNKNOWN);
	info.rss_key_len = 0;
	CHECK_EQ(tfo_port_flow_worker(&info, 3, &p), TFO_PORT_WORKER_UNKNOWN);
	memset(&info, 0, sizeof(info));
	CHECK_EQ(tfo_port_flow_worker(&info, 2, &p), TFO_PORT_WORKER_UNKNOWN);
	CHECK_EQ(tfo_port_flow_worker(&info, 1, &p), 0);
}
