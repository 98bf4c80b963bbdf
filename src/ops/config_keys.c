/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the table of configuration keys (tfo_keys: where each
 * scalar key lives, its range, default and help) and what reads only it:
 * --print-config (tfo_config_dump) and --help-config (tfo_config_help).
 * The grammar and parsing are config.c's; the services' own keys are
 * their business (server/config_services.c prints them).
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "ops/config.h"

#include "ops/config_priv.h"

#define K_U32(sec, name, field, lo, hi, d, h) \
	{ sec, name, KT_U32, offsetof(struct tfo_config, field), 0, lo, hi, d, h, NULL }
#define K_U16(sec, name, field, lo, hi, d, h) \
	{ sec, name, KT_U16, offsetof(struct tfo_config, field), 0, lo, hi, d, h, NULL }
#define K_U8(sec, name, field, lo, hi, d, h) \
	{ sec, name, KT_U8, offsetof(struct tfo_config, field), 0, lo, hi, d, h, NULL }
#define K_BOOL(sec, name, field, d, h) \
	{ sec, name, KT_BOOL, offsetof(struct tfo_config, field), 0, 0, 1, d, h, NULL }
#define K_STR(sec, name, field, d, h) \
	{ sec, name, KT_STR, offsetof(struct tfo_config, field), \
	  sizeof(((struct tfo_config *)0)->field), 0, 0, d, h, NULL }

#define K_ENUM(sec, name, field, names, d, h) \
	{ sec, name, KT_ENUM, offsetof(struct tfo_config, field), 0, 0, 0, d, h, names }

/* by enum tfo_idle_policy */
static const char *const tfo_idle_names[] = { "adaptive", "busy", "sleep", NULL };

/* by enum tfo_syncookies_mode */
const char *const tfo_syncookies_names[] = { "no", "auto", "always", NULL };

const struct tfo_key_desc tfo_keys[] = {
	K_STR("eal", "args", eal_args,
	      "-l 0-1 --no-huge -m 512 --no-shconf --no-pci --file-prefix tfo%p",
	      "EAL arguments when the command line has none (%p = pid)"),

	K_U32("server", "stats_period", stats_period, 0, 86400, "0",
	      "seconds between stats lines, 0 = none"),
	K_U32("server", "burst", burst, 1, 64, "32", "RX burst size"),
	K_U32("server", "ring_size", ring_size, 64, 1u << 20, "1024",
	      "slots of each worker's ring to the control core"),
	/* Linux's icmp_msgs_per_sec and icmp_msgs_burst (which Linux does
	 * not apply to echo replies by default): a ping flood must not
	 * crowd ARP, ND and the slow path out of the control lcore's TX */
	K_U32("server", "icmp_echo_per_s", icmp_echo_per_s, 0, 10000000, "1000",
	      "ICMP and ICMPv6 echo replies per second per control lcore (burst 50), 0 = no limit"),
	K_U32("server", "mbufs", mbufs, 0, 1u << 24, "0",
	      "mbufs in all, 0 = computed; with lcores on several NUMA sockets, split over "
	      "their pools (one per socket) in proportion to what each one's lcores hold"),
	K_U32("server", "mbuf_cache", mbuf_cache, 0, 512, "256",
	      "per-lcore mempool cache"),
	K_ENUM("server", "idle_policy", idle_policy, tfo_idle_names, "adaptive",
	       "adaptive | busy | sleep: what an lcore does when a poll finds nothing. "
	       "adaptive: polls idle_poll_us after its last work, then sleeps until "
	       "another lcore or an RX interrupt wakes it (devices without RX "
	       "interrupts: naps of 1/16 of the silence past that, 8 us to 1 ms); ~0 % CPU idle, "
	       "polling latency under load. busy: polls always (100 % CPU per lcore, "
	       "dedicated cores). sleep: naps idle_sleep_us after every empty poll "
	       "(the old default; adds ~idle_sleep_us + 50 us per lcore crossed)"),
	K_U32("server", "idle_poll_us", idle_poll_us, 0, 1000000, "2000",
	      "idle_policy adaptive: how long an lcore keeps polling after its last work"),
	K_U32("server", "idle_sleep_us", idle_sleep_us, 0, 100000,
	      RTE_STR(TFO_IDLE_SLEEP_US_DEFAULT),
	      "idle_policy sleep: the nap after an empty poll, 0 = spin"),
	K_U32("server", "control_lcores", control_lcores, 1, TFO_MAX_CONTROLS, "1",
	      "the first N lcores run the slow path (connections spread by 4-tuple); the rest are workers"),
	K_U32("server", "drain_timeout", drain_timeout, 0, 86400, "30",
	      "seconds a drain (SIGTERM, /tfo/drain) waits for the connections in flight "
	      "before it cuts them and exits; 0 = no wait. New SYNs get a RST meanwhile "
	      "(drain_syn_refused). Keep the unit's TimeoutStopSec above it"),
	K_STR("server", "access_log", access_log, "",
	      "file of one line per sampled transaction (time, client, port, tfo|plain, "
	      "service, request line, status, bytes, us), written by control 0, reopened on "
	      "SIGHUP; relative to the configuration's directory; empty = none"),
	K_U32("server", "access_log_sample", access_log_sample, 1, 1000000, "1",
	      "access_log: 1 in N transactions, per lcore"),

	K_U32("tcp", "max_conns", max_conns, 1, 1u << 24, "16384",
	      "connection table size per lcore"),
	/* nginx's limit_conn for the slow path: 1024 is max_conns / 16 at
	 * the default max_conns, so 16 addresses are needed to fill it (and
	 * eviction serves new clients before that); a NAT address carries
	 * hundreds of clients, none of which holds an entry for long */
	K_U32("tcp", "max_conns_per_source", max_conns_per_source, 0, 1u << 24, "1024",
	      "control core's connection entries per source address (IPv6: /64), 0 = no limit"),
	K_U32("tcp", "max_request", max_request, 64, 65535, "8192",
	      "bytes of one request, at most (not below the http service's max_header)"),
	K_U16("tcp", "mss", mss, 536, 9000, "0",
	      "advertised MSS, 0 = from the MTU"),
	/* "_max": the window we advertise is the request buffer's free room,
	 * min(rcv_wnd_max, max_request) - what it holds, and the shift the
	 * smallest that window needs (0 while max_request <= 65535): a
	 * request/response server never needs more, and a window it could
	 * not buffer would be a promise it breaks */
	K_U8("tcp", "wscale_max", wscale, 0, TFO_WSCALE_MAX, "7",
	     "largest window scale shift offered (the window needs 0 while max_request <= 65535)"),
	K_U32("tcp", "rcv_wnd_max", rcv_wnd, 1024, 1u << 30, "65535",
	      "receive window at most, bytes (advertised: min(this, max_request) - request bytes held)"),
	K_U32("tcp", "rto_init_ms", rto_init_ms, 10, 60000, "1000",
	      "initial retransmission timeout"),
	K_U32("tcp", "rto_min_ms", rto_min_ms, 1, 60000, "200",
	      "retransmission timeout floor"),
	K_U32("tcp", "rto_max_ms", rto_max_ms, 100, 600000, "60000",
	      "retransmission timeout ceiling"),
	K_U32("tcp", "retries", retries, 1, 30, "8",
	      "data retransmissions before reset"),
	K_U32("tcp", "synack_retries", synack_retries, 0, 30, "5",
	      "SYN-ACK retransmissions before the entry is dropped"),
	K_U32("tcp", "idle_timeout_ms", idle_timeout_ms, 100, 86400000, "30000",
	      "idle keep-alive connections are closed after this"),
	K_U32("tcp", "request_timeout_ms", request_timeout_ms, 0, 3600000, "10000",
	      "a request must complete this long after its first byte (reset), 0 = none"),
	K_U32("tcp", "time_wait_ms", time_wait_ms, 0, 240000, "1000",
	      "TIME-WAIT hold after our close, 0 = none"),
	/* a 64-byte record each (Linux: tcp_max_tw_buckets); full, the
	 * oldest ends early: never a refused connection, a shorter TIME-WAIT
	 * beyond time_wait_max / time_wait_ms connections per second */
	K_U32("tcp", "time_wait_max", time_wait_max, 1, 1u << 28, "262144",
	      "TIME-WAIT records per worker (64 B each); beyond, the oldest end early"),
	K_ENUM("tcp", "syncookies", syncookies, tfo_syncookies_names, "auto",
	       "auto | always | no: a worker answers slow-path SYNs with SYN cookies "
	       "when the control core is under pressure (auto), always, or never "
	       "(yes = auto, as before)"),

	K_BOOL("tfo", "enabled", tfo_enabled, "yes", "TCP Fast Open server"),
	K_STR("tfo", "cookie_algo", cookie_algo, "aes128",
	      "aes128 | siphash-linux"),
	K_STR("tfo", "key_file", key_file, "",
	      "Linux tcp_fastopen_key file, empty = random keys"),
	K_U32("tfo", "rotate_period_s", rotate_period_s, 0, 1u << 30, "0",
	      "seconds between key rotations, 0 = never"),
	/* a worker at 2.3 M TFO opens/s has ~2,300 pending at 1 ms RTT */
	K_U32("tfo", "pending_limit", pending_limit, 0, 1u << 24, "4096",
	      "pending TFO connections per worker"),
	K_U32("tfo", "pending_hold_ms", pending_hold_ms, 0, 600000, "60000",
	      "reset pending TFO connections stay counted this long"),
	K_U32("tfo", "pending_per_source", pending_per_source, 0, 1u << 24, "512",
	      "pending TFO connections per worker from one address (IPv6: /64), 0 = no cap; "
	      "at most pending_limit"),
	K_BOOL("tfo", "cookie_not_required", cookie_not_required, "no",
	       "accept SYN data without a cookie (trusted networks only)"),
};

const unsigned int tfo_nb_keys = RTE_DIM(tfo_keys);

/* Port keys are parsed by hand (addresses accumulate); listed for help. */
static const struct {
	const char *key, *def, *help;
} tfo_port_keys[] = {
	{ "vdev", "", "--vdev argument creating the device, empty for PCI" },
	{ "ipv4", "", "an IPv4 host address/prefix of ours (repeatable; one port each)" },
	{ "ipv6", "", "an IPv6 host address/prefix of ours (repeatable; one port each; "
	  "mtu >= 1280)" },
	{ "mtu", "1500", "MTU (68..9198)" },
	{ "rx_desc", "1024", "RX descriptors per queue (32..32768)" },
	{ "tx_desc", "1024", "TX descriptors per queue (32..32768)" },
	{ "offload", "auto", "checksum offloads: auto | off" },
	{ "syn_steering", "off", "SYNs to the control core by an rte_flow rule: a boolean" },
	{ "rss", "device", "who spreads flows over the workers' queues: device | peer "
	  "(net_memif: the peer sends each flow on the queue our hash names, "
	  "tfo-loadgen --rss-peer)" },
	{ "exception", "off", "frames we do not serve to a kernel interface (net_tap): a boolean" },
	{ "exception_iface", "", "that interface's name (15 chars), empty = tfoexc<port index>" },
	{ "exception_pps", "10000", "frames/s to and from the kernel, each way (1..10000000)" },
	{ "tap", "auto", "a net_tap port's iface=: create (a new tap; refused when the name "
	  "exists) | attach (an existing persistent tap; refused when none) | auto "
	  "(either, said at start)" },
	{ "isolate", "off", "rte_flow isolation (mlx5): only TCP to our addresses and "
	  "services reaches us, the kernel keeps the rest: a boolean" },
	{ "xdp", "auto", "a net_af_xdp port's XDP program: own (only our TCP to the sockets, "
	  "the rest to the kernel) | off (the PMD's: every frame to us) | auto (own on "
	  "net_af_xdp)" },
};

/*
 * Integer keys whose 0 means "off" or "computed" although their range
 * starts higher ([tcp] mss: 0 is the MTU's; 1..535 is a typo that the
 * engine would refuse only once the EAL runs).
 */
static const struct {
	const char *section, *key, *meaning;
} tfo_keys_zero[] = {
	{ "tcp", "mss", "from the MTU" },
};

const char *
tfo_key_zero(const struct tfo_key_desc *k)
{
	for (unsigned int i = 0; i < RTE_DIM(tfo_keys_zero); i++)
		if (strcmp(tfo_keys_zero[i].section, k->section) == 0 &&
		    strcmp(tfo_keys_zero[i].key, k->key) == 0)
			return tfo_keys_zero[i].meaning;
	return NULL;
}

void
tfo_key_range(const struct tfo_key_desc *k, char *buf, size_t len)
{
	const char *zero = tfo_key_zero(k);

	if (zero != NULL)
		snprintf(buf, len, "0 (%s) or %" PRIu64 "..%" PRIu64, zero, k->min,
			 k->max);
	else
		snprintf(buf, len, "%" PRIu64 "..%" PRIu64, k->min, k->max);
}

static void
tfo_key_print(FILE *f, const struct tfo_config *c, const struct tfo_key_desc *k)
{
	const uint8_t *field = (const uint8_t *)c + k->off;
	uint32_t v32;
	uint16_t v16;
	bool b;

	switch (k->type) {
	case KT_U32:
		memcpy(&v32, field, sizeof(v32));
		fprintf(f, "%s = %" PRIu32 "\n", k->key, v32);
		break;
	case KT_U16:
		memcpy(&v16, field, sizeof(v16));
		fprintf(f, "%s = %" PRIu16 "\n", k->key, v16);
		break;
	case KT_U8:
		fprintf(f, "%s = %u\n", k->key, *field);
		break;
	case KT_BOOL:
		memcpy(&b, field, sizeof(b));
		fprintf(f, "%s = %s\n", k->key, b ? "yes" : "no");
		break;
	case KT_STR:
		fprintf(f, "%s = %s\n", k->key, (const char *)field);
		break;
	case KT_ENUM:
		fprintf(f, "%s = %s\n", k->key, k->names[*field]);
		break;
	}
}

void
tfo_config_dump(FILE *f, const struct tfo_config *c)
{
	const char *sec = "";
	char buf[INET6_ADDRSTRLEN];

	fprintf(f, "; effective configuration, from %s\n", c->source);
	/* which tree a relative path reads: the build's or the installed one */
	fprintf(f, "; relative paths resolve from %s\n", c->base_dir);
	for (unsigned int i = 0; i < tfo_nb_keys; i++) {
		if (strcmp(sec, tfo_keys[i].section) != 0) {
			sec = tfo_keys[i].section;
			fprintf(f, "\n[%s]\n", sec);
		}
		tfo_key_print(f, c, &tfo_keys[i]);
	}
	for (unsigned int i = 0; i < c->nb_ports; i++) {
		const struct tfo_cfg_port *p = &c->ports[i];

		fprintf(f, "\n[port %s]\nvdev = %s\n", p->device, p->vdev);
		for (unsigned int j = 0; j < p->nb_addrs; j++)
			fprintf(f, "%s = %s/%u\n",
				p->addrs[j].family == AF_INET ? "ipv4" : "ipv6",
				tfo_addr_str(p->addrs[j].family, &p->addrs[j].addr,
					     buf, sizeof(buf)),
				p->addrs[j].prefix_len);
		fprintf(f, "mtu = %u\nrx_desc = %u\ntx_desc = %u\noffload = %s\n"
			"syn_steering = %s\nrss = %s\n", p->mtu, p->rx_desc, p->tx_desc,
			p->offload == TFO_OFFLOAD_OFF ? "off" : "auto",
			p->syn_steering ? "on" : "off",
			p->rss == TFO_RSS_PEER ? "peer" : "device");
		fprintf(f, "exception = %s\nexception_iface = %s\nexception_pps = %u\n"
			"isolate = %s\n", p->exception ? "on" : "off", p->exception_iface,
			p->exception_pps, p->isolate ? "on" : "off");
		fprintf(f, "xdp = %s\n", p->xdp == TFO_XDP_OWN ? "own" :
			p->xdp == TFO_XDP_OFF ? "off" : "auto");
		fprintf(f, "tap = %s\n", p->tap == TFO_TAP_CREATE ? "create" :
			p->tap == TFO_TAP_ATTACH ? "attach" : "auto");
	}
	for (unsigned int i = 0; i < c->nb_services; i++) {
		const struct tfo_cfg_service *s = &c->services[i];

		fprintf(f, "\n[service %s]\n", s->name);
		if (s->plugin[0] != '\0')
			fprintf(f, "plugin = %s\n", s->plugin);
		fprintf(f, "port = %u\n", s->port);
		if (s->udp)
			fprintf(f, "udp = on\n");
		for (unsigned int j = 0; j < s->nb_kv; j++)
			fprintf(f, "%s = %s\n", s->kv[j].key, s->kv[j].value);
	}
}

void
tfo_config_help(FILE *f)
{
	const char *sec = "";

	fprintf(f, "Configuration keys (default, description):\n"
		"  Grammar: [section], then key = value; ';' or '#' at the start of a line\n"
		"  or after white space starts a comment (inside a word: part of the value).\n"
		"  Integers are decimal (no sign, 0x or leading zero); booleans: yes/no,\n"
		"  on/off, true/false, 1/0, and values from a list, in any case.\n"
		"  --set SECTION.KEY=VALUE: a [port]/[service] the configuration lacks is\n"
		"  refused unless the key starts one (port: vdev; service: port, plugin).\n");
	for (unsigned int i = 0; i < tfo_nb_keys; i++) {
		const struct tfo_key_desc *k = &tfo_keys[i];

		if (strcmp(sec, k->section) != 0) {
			sec = k->section;
			fprintf(f, "[%s]\n", sec);
		}
		fprintf(f, "  %-20s %-10s %s", k->key,
			strlen(k->def) > 10 ? "(see file)" : k->def, k->help);
		if (k->type == KT_U32 || k->type == KT_U16 || k->type == KT_U8) {
			char range[96];

			tfo_key_range(k, range, sizeof(range));
			fprintf(f, " [%s]", range);
		}
		fputc('\n', f);
	}
	fprintf(f, "[port DEVICE]   (one per port)\n");
	for (unsigned int i = 0; i < RTE_DIM(tfo_port_keys); i++)
		fprintf(f, "  %-20s %-10s %s\n", tfo_port_keys[i].key,
			tfo_port_keys[i].def, tfo_port_keys[i].help);
	fprintf(f, "[service NAME]   (one per service; port = N, plus:)\n");
	fprintf(f, "  plugin = PATH.so: a service built out of tree (first key of its section)\n");
}

extern const char tfo_embedded_config_text[];

const char *
tfo_config_embedded(void)
{
	return tfo_embedded_config_text;
}
