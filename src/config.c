/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: configuration keys: parsing, defaults, dump, help. Reading
 * a file and the whole-configuration checks are config_file.c's.
 *
 * One table (tfo_keys) describes every scalar key: where it lives, its
 * range, default and help. Parsing, --set overrides, --help-config and the
 * dump all read it, so they cannot disagree.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_common.h>
#include <rte_debug.h>

#include "tfo/config.h"
#include "tfo/ctrl_pick.h"
#include "tfo/idle.h"
#include "tfo/keyring.h"
#include "tfo/log.h"
#include "tfo/service.h"
#include "tfo/tcpopt.h"

#ifndef TFO_CONFIG_DIR
#define TFO_CONFIG_DIR "."
#endif

enum tfo_key_type {
	KT_U32,
	KT_U16,
	KT_U8,
	KT_BOOL,
	KT_STR,
	KT_ENUM,	/* uint8_t, the index of its value in names[] */
};

struct tfo_key_desc {
	const char *section;
	const char *key;
	enum tfo_key_type type;
	size_t off;
	size_t size;		/* KT_STR: buffer size */
	uint64_t min;
	uint64_t max;
	const char *def;
	const char *help;
	const char *const *names;	/* KT_ENUM: the values, NULL-terminated */
};

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
static const char *const tfo_syncookies_names[] = { "no", "auto", "always", NULL };

static const struct tfo_key_desc tfo_keys[] = {
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

static const char *
tfo_key_zero(const struct tfo_key_desc *k)
{
	for (unsigned int i = 0; i < RTE_DIM(tfo_keys_zero); i++)
		if (strcmp(tfo_keys_zero[i].section, k->section) == 0 &&
		    strcmp(tfo_keys_zero[i].key, k->key) == 0)
			return tfo_keys_zero[i].meaning;
	return NULL;
}

/* The accepted values of an integer key, for messages and --help-config. */
static void
tfo_key_range(const struct tfo_key_desc *k, char *buf, size_t len)
{
	const char *zero = tfo_key_zero(k);

	if (zero != NULL)
		snprintf(buf, len, "0 (%s) or %" PRIu64 "..%" PRIu64, zero, k->min,
			 k->max);
	else
		snprintf(buf, len, "%" PRIu64 "..%" PRIu64, k->min, k->max);
}

/* String keys with a fixed set of values, checked as they are read. */
static int
tfo_key_check_str(const struct tfo_key_desc *k, const char *value, char *why,
		  size_t whylen)
{
	if (strcmp(k->section, "tfo") == 0 && strcmp(k->key, "cookie_algo") == 0 &&
	    strcasecmp(value, "aes128") != 0 && strcasecmp(value, "siphash-linux") != 0)
		return tfo_errmsg(why, whylen, "expected aes128 or siphash-linux");
	return 0;
}

/*
 * A decimal integer in [min, max]: digits only, no sign, no leading zero.
 * C's base detection read "010" as 8 and "0x10" as 16; both are refused
 * rather than read as decimal, so that a file written for the old reading
 * cannot change meaning without a word.
 */
static int
tfo_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	for (const char *d = s; *d != '\0'; d++)
		if (!isdigit((unsigned char)*d))
			return -EINVAL;
	if (*s == '\0' || (s[0] == '0' && s[1] != '\0'))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Why @p s was refused when it looks like C's octal or hex, else "". */
static const char *
tfo_int_hint(const char *s)
{
	return s[0] == '0' && s[1] != '\0' ? " (decimal, without leading zeros)" : "";
}

/* The one boolean grammar of every boolean key, for messages. */
#define TFO_BOOL_EXPECTED "expected yes or no (or on/off, true/false, 1/0; any case)"

/* Every boolean key: yes/no, on/off, true/false, 1/0, in any case. */
static int
tfo_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (unsigned int i = 0; i < RTE_DIM(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

int
tfo_parse_addr(const char *s, struct tfo_local_addr *a)
{
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash;
	uint64_t prefix;
	int max;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash++ = '\0';
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, buf, a->addr.b) == 1) {
		a->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, a->addr.b) == 1) {
		a->family = AF_INET6;
		max = 128;
	} else {
		return -EINVAL;
	}
	if (slash == NULL) {
		a->prefix_len = (uint8_t)max;
		return 0;
	}
	if (tfo_parse_u64(slash, 0, (uint64_t)max, &prefix) < 0)
		return -EINVAL;
	a->prefix_len = (uint8_t)prefix;
	return 0;
}

/*
 * Why @p a cannot be one of our addresses, or NULL: the unspecified
 * address (0.0.0.0/0 would be every address), loopback, multicast, the
 * limited broadcast, and the network or broadcast address of its own
 * prefix (IPv6: the subnet-router anycast address, RFC 4291 2.6.1).
 */
static const char *
tfo_addr_not_host(const struct tfo_local_addr *a)
{
	static const uint8_t zero[16];
	static const uint8_t loop6[16] = { [15] = 1 };
	unsigned int bits = a->family == AF_INET ? 32 : 128;
	bool host_zero = true, host_ones = true;

	if (memcmp(a->addr.b, zero, bits / 8) == 0)
		return "the unspecified address, not one of ours";
	if (a->family == AF_INET) {
		if (a->addr.b[0] == 127)
			return "a loopback address";
		if (a->addr.b[0] >= 224 && a->addr.b[0] <= 239)
			return "a multicast address";
		if (memcmp(a->addr.b, "\xff\xff\xff\xff", 4) == 0)
			return "the broadcast address";
	} else {
		if (memcmp(a->addr.b, loop6, 16) == 0)
			return "a loopback address";
		if (a->addr.b[0] == 0xff)
			return "a multicast address";
	}
	/* /31 and /32 (IPv6: /127, /128) have no network or broadcast address */
	if (a->prefix_len + 1u >= bits)
		return NULL;
	for (unsigned int i = a->prefix_len; i < bits; i++) {
		bool one = (a->addr.b[i / 8] >> (7 - i % 8)) & 1;

		host_zero = host_zero && !one;
		host_ones = host_ones && one;
	}
	if (host_zero)
		return a->family == AF_INET ? "the network address of its prefix, not a host's" :
		       "the subnet-router anycast address of its prefix, not a host's";
	if (host_ones && a->family == AF_INET)
		return "the broadcast address of its prefix, not a host's";
	return NULL;
}

const char *
tfo_addr_str(int family, const struct tfo_addr *a, char *buf, size_t len)
{
	if (inet_ntop(family, a->b, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

/* Keys renamed since a release: a clear error that names the new key. */
static const struct {
	const char *section, *old, *now;
} tfo_renamed_keys[] = {
	{ "tcp", "wscale", "wscale_max" },
	{ "tcp", "rcv_wnd", "rcv_wnd_max" },
};

static const char *
tfo_key_renamed(const char *section, const char *key)
{
	for (unsigned int i = 0; i < RTE_DIM(tfo_renamed_keys); i++)
		if (strcmp(tfo_renamed_keys[i].section, section) == 0 &&
		    strcmp(tfo_renamed_keys[i].old, key) == 0)
			return tfo_renamed_keys[i].now;
	return NULL;
}

static const struct tfo_key_desc *
tfo_key_find(const char *section, const char *key)
{
	for (unsigned int i = 0; i < RTE_DIM(tfo_keys); i++)
		if (strcmp(tfo_keys[i].section, section) == 0 &&
		    strcmp(tfo_keys[i].key, key) == 0)
			return &tfo_keys[i];
	return NULL;
}


/* "expected a, b or c" for an enum key, then @p tail. */
static int
tfo_enum_expected(const char *const *names, const char *tail, char *why, size_t whylen)
{
	char list[160] = "";
	size_t len = 0;
	unsigned int n = 0;

	while (names[n] != NULL)
		n++;
	for (unsigned int i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
	return tfo_errmsg(why, whylen, "expected %s%s", list, tail);
}

static int
tfo_key_apply(struct tfo_config *c, const struct tfo_key_desc *k,
	      const char *value, char *why, size_t whylen)
{
	uint8_t *field = (uint8_t *)c + k->off;
	uint64_t v;
	bool b;

	switch (k->type) {
	case KT_U32:
	case KT_U16:
	case KT_U8:
		if (tfo_parse_u64(value, k->min, k->max, &v) < 0 &&
		    (tfo_key_zero(k) == NULL || tfo_parse_u64(value, 0, 0, &v) < 0)) {
			char range[96];

			tfo_key_range(k, range, sizeof(range));
			return tfo_errmsg(why, whylen, "expected %s%s%s",
					  tfo_key_zero(k) ? "" : "an integer in ", range,
					  tfo_int_hint(value));
		}
		if (k->type == KT_U32) {
			uint32_t v32 = (uint32_t)v;

			memcpy(field, &v32, sizeof(v32));
		} else if (k->type == KT_U16) {
			uint16_t v16 = (uint16_t)v;

			memcpy(field, &v16, sizeof(v16));
		} else {
			*field = (uint8_t)v;
		}
		return 0;
	case KT_BOOL:
		if (tfo_parse_bool(value, &b) < 0)
			return tfo_errmsg(why, whylen, TFO_BOOL_EXPECTED);
		memcpy(field, &b, sizeof(b));
		return 0;
	case KT_ENUM:
		for (unsigned int i = 0; k->names[i] != NULL; i++)
			if (strcasecmp(value, k->names[i]) == 0) {
				*field = (uint8_t)i;
				return 0;
			}
		/* the boolean of older configurations: yes was "when the
		 * control core is full", which auto now covers */
		if (tfo_parse_bool(value, &b) == 0 && k->names == tfo_syncookies_names) {
			*field = b ? TFO_SYNCOOKIES_AUTO : TFO_SYNCOOKIES_NO;
			return 0;
		}
		return tfo_enum_expected(k->names, k->names == tfo_syncookies_names ?
					 " (yes = auto)" : "", why, whylen);
	case KT_STR:
		if (strlen(value) >= k->size)
			return tfo_errmsg(why, whylen, "longer than %zu characters",
				       k->size - 1);
		if (tfo_key_check_str(k, value, why, whylen) < 0)
			return -EINVAL;
		strcpy((char *)field, value);
		/* an enum in all but its type: stored as its name is spelt */
		if (strcmp(k->key, "cookie_algo") == 0)
			for (char *ch = (char *)field; *ch != '\0'; ch++)
				*ch = (char)tolower((unsigned char)*ch);
		return 0;
	}
	return tfo_errmsg(why, whylen, "internal: bad key type");
}

void
tfo_config_defaults(struct tfo_config *c)
{
	char why[64];

	memset(c, 0, sizeof(*c));
	snprintf(c->source, sizeof(c->source), "(defaults)");
	snprintf(c->base_dir, sizeof(c->base_dir), "%s", TFO_CONFIG_DIR);
	for (unsigned int i = 0; i < RTE_DIM(tfo_keys); i++)
		if (tfo_key_apply(c, &tfo_keys[i], tfo_keys[i].def, why,
				  sizeof(why)) < 0)
			rte_panic("config: default of %s.%s: %s\n",
				  tfo_keys[i].section, tfo_keys[i].key, why);
}

static struct tfo_cfg_port *
tfo_port_get(struct tfo_config *c, const char *device, char *why, size_t whylen)
{
	struct tfo_cfg_port *p;

	for (unsigned int i = 0; i < c->nb_ports; i++)
		if (strcmp(c->ports[i].device, device) == 0)
			return &c->ports[i];
	if (c->nb_ports == TFO_MAX_PORTS) {
		tfo_errmsg(why, whylen, "more than %d ports", TFO_MAX_PORTS);
		return NULL;
	}
	if (*device == '\0' || strlen(device) >= sizeof(p->device) ||
	    strpbrk(device, " \t") != NULL) {
		tfo_errmsg(why, whylen, "bad device name (one word, at most %zu characters)",
			   sizeof(p->device) - 1);
		return NULL;
	}
	p = &c->ports[c->nb_ports++];
	memset(p, 0, sizeof(*p));
	strcpy(p->device, device);
	p->mtu = 1500;
	p->rx_desc = 1024;
	p->exception_pps = 10000;
	p->tx_desc = 1024;
	p->offload = TFO_OFFLOAD_AUTO;
	return p;
}

static int
tfo_port_set(struct tfo_cfg_port *p, const char *key, const char *value,
	     char *why, size_t whylen)
{
	uint64_t v;

	if (strcmp(key, "vdev") == 0) {
		if (strlen(value) >= sizeof(p->vdev))
			return tfo_errmsg(why, whylen, "too long");
		strcpy(p->vdev, value);
		return 0;
	}
	if (strcmp(key, "ipv4") == 0 || strcmp(key, "ipv6") == 0) {
		struct tfo_local_addr a;
		int fam = key[3] == '4' ? AF_INET : AF_INET6;
		const char *not_host;

		if (tfo_parse_addr(value, &a) < 0 || a.family != fam)
			return tfo_errmsg(why, whylen, "not an %s address[/prefix]",
				       fam == AF_INET ? "IPv4" : "IPv6");
		not_host = tfo_addr_not_host(&a);
		if (not_host != NULL)
			return tfo_errmsg(why, whylen, "%s", not_host);
		if (p->nb_addrs == TFO_MAX_PORT_ADDRS)
			return tfo_errmsg(why, whylen, "more than %d addresses on a port",
				       TFO_MAX_PORT_ADDRS);
		for (unsigned int i = 0; i < p->nb_addrs; i++)
			if (p->addrs[i].family == a.family &&
			    memcmp(&p->addrs[i].addr, &a.addr, sizeof(a.addr)) == 0)
				return tfo_errmsg(why, whylen, "address given twice");
		p->addrs[p->nb_addrs++] = a;
		return 0;
	}
	if (strcmp(key, "mtu") == 0) {
		if (tfo_parse_u64(value, 68, 9198, &v) < 0)
			return tfo_errmsg(why, whylen, "expected an integer in 68..9198%s",
					  tfo_int_hint(value));
		p->mtu = (uint16_t)v;
		return 0;
	}
	if (strcmp(key, "rx_desc") == 0 || strcmp(key, "tx_desc") == 0) {
		if (tfo_parse_u64(value, 32, 32768, &v) < 0)
			return tfo_errmsg(why, whylen, "expected an integer in 32..32768%s",
					  tfo_int_hint(value));
		if (key[0] == 'r')
			p->rx_desc = (uint16_t)v;
		else
			p->tx_desc = (uint16_t)v;
		return 0;
	}
	if (strcmp(key, "syn_steering") == 0 || strcmp(key, "exception") == 0 ||
	    strcmp(key, "isolate") == 0) {
		bool *flag = key[0] == 's' ? &p->syn_steering :
			     key[0] == 'e' ? &p->exception : &p->isolate;

		if (tfo_parse_bool(value, flag) < 0)
			return tfo_errmsg(why, whylen, TFO_BOOL_EXPECTED);
		return 0;
	}
	if (strcmp(key, "exception_iface") == 0) {
		if (strlen(value) >= sizeof(p->exception_iface) ||
		    strpbrk(value, " ,=/") != NULL)
			return tfo_errmsg(why, whylen, "an interface name of at most %zu "
				       "characters, without space , = /",
				       sizeof(p->exception_iface) - 1);
		snprintf(p->exception_iface, sizeof(p->exception_iface), "%s", value);
		return 0;
	}
	if (strcmp(key, "exception_pps") == 0) {
		if (tfo_parse_u64(value, 1, 10000000, &v) < 0)
			return tfo_errmsg(why, whylen, "expected an integer in 1..10000000%s",
					  tfo_int_hint(value));
		p->exception_pps = (uint32_t)v;
		return 0;
	}
	if (strcmp(key, "xdp") == 0) {
		if (strcasecmp(value, "auto") == 0)
			p->xdp = TFO_XDP_AUTO;
		else if (strcasecmp(value, "own") == 0)
			p->xdp = TFO_XDP_OWN;
		else if (strcasecmp(value, "off") == 0)
			p->xdp = TFO_XDP_OFF;
		else
			return tfo_errmsg(why, whylen, "expected own, off or auto");
		return 0;
	}
	if (strcmp(key, "rss") == 0) {
		if (strcasecmp(value, "device") == 0)
			p->rss = TFO_RSS_DEVICE;
		else if (strcasecmp(value, "peer") == 0)
			p->rss = TFO_RSS_PEER;
		else
			return tfo_errmsg(why, whylen, "expected device or peer");
		return 0;
	}
	if (strcmp(key, "offload") == 0) {
		if (strcasecmp(value, "auto") == 0)
			p->offload = TFO_OFFLOAD_AUTO;
		else if (strcasecmp(value, "off") == 0)
			p->offload = TFO_OFFLOAD_OFF;
		else
			return tfo_errmsg(why, whylen, "expected auto or off");
		return 0;
	}
	return tfo_errmsg(why, whylen, "unknown key in a [port] section");
}

static struct tfo_cfg_service *
tfo_service_get(struct tfo_config *c, const char *name, char *why, size_t whylen)
{
	struct tfo_cfg_service *s;

	for (unsigned int i = 0; i < c->nb_services; i++)
		if (strcmp(c->services[i].name, name) == 0)
			return &c->services[i];
	if (c->nb_services == TFO_MAX_SERVICES) {
		tfo_errmsg(why, whylen, "more than %d services", TFO_MAX_SERVICES);
		return NULL;
	}
	if (*name == '\0' || strlen(name) >= sizeof(s->name)) {
		tfo_errmsg(why, whylen, "bad service name");
		return NULL;
	}
	if (tfo_service_find(name) == NULL) {
		char known[128] = "";

		for (const struct tfo_service *r = tfo_service_first(); r != NULL;
		     r = r->next) {
			strncat(known, " ", sizeof(known) - strlen(known) - 1);
			strncat(known, r->name, sizeof(known) - strlen(known) - 1);
		}
		tfo_errmsg(why, whylen, "no service named '%s' (built in:%s; one built "
			   "out of tree needs `plugin = PATH.so` first in its section)",
			   name, known[0] ? known : " none");
		return NULL;
	}
	s = &c->services[c->nb_services++];
	memset(s, 0, sizeof(*s));
	strcpy(s->name, name);
	return s;
}

static int
tfo_service_set(struct tfo_cfg_service *s, const char *key, const char *value,
		char *why, size_t whylen)
{
	const struct tfo_service *svc = tfo_service_find(s->name);
	uint64_t v;

	if (strcmp(key, "port") == 0) {
		if (tfo_parse_u64(value, 1, 65535, &v) < 0)
			return tfo_errmsg(why, whylen, "expected a TCP port 1..65535%s",
					  tfo_int_hint(value));
		s->port = (uint16_t)v;
		return 0;
	}
	if (svc == NULL || !tfo_service_key_ok(svc, key))
		return tfo_errmsg(why, whylen, "unknown key for service %s", s->name);
	if (svc->check_key != NULL && svc->check_key(key, value, why, whylen) < 0)
		return -EINVAL;
	if (strlen(key) >= sizeof(s->kv[0].key) ||
	    strlen(value) >= sizeof(s->kv[0].value))
		return tfo_errmsg(why, whylen, "key or value too long");
	for (unsigned int i = 0; i < s->nb_kv; i++)
		if (strcmp(s->kv[i].key, key) == 0) {
			strcpy(s->kv[i].value, value);
			return 0;
		}
	if (s->nb_kv == TFO_SERVICE_MAX_KV)
		return tfo_errmsg(why, whylen, "more than %d keys", TFO_SERVICE_MAX_KV);
	strcpy(s->kv[s->nb_kv].key, key);
	strcpy(s->kv[s->nb_kv].value, value);
	s->nb_kv++;
	return 0;
}

/*
 * `plugin = PATH.so` (relative: from the configuration's directory): load
 * it now, so that the section's other keys are checked by the service it
 * registers. Hence it comes first in the section.
 */
static int
tfo_service_plugin_set(struct tfo_config *c, const char *name, const char *value,
		       char *why, size_t whylen)
{
	struct tfo_cfg_service *s;
	char path[PATH_MAX];
	int n;

	for (unsigned int i = 0; i < c->nb_services; i++)
		if (strcmp(c->services[i].name, name) == 0 &&
		    strcmp(c->services[i].plugin, value) != 0)
			return tfo_errmsg(why, whylen, c->services[i].plugin[0] ?
					  "one plugin per section" :
					  "the section has keys already (or its service "
					  "is built in): plugin must come first");
	if (value[0] == '/' || c->base_dir[0] == '\0')
		n = snprintf(path, sizeof(path), "%s", value);
	else
		n = snprintf(path, sizeof(path), "%s/%s", c->base_dir, value);
	if (n < 0 || (size_t)n >= sizeof(path) || strlen(value) >= sizeof(s->plugin))
		return tfo_errmsg(why, whylen, "path too long");
	if (tfo_service_plugin_load(path, name, why, whylen) < 0)
		return -EINVAL;
	s = tfo_service_get(c, name, why, whylen);
	if (s == NULL)
		return -EINVAL;
	/* the real path, so that --print-config's output loads from anywhere */
	if (realpath(path, s->plugin) == NULL)
		snprintf(s->plugin, sizeof(s->plugin), "%s", value);
	return 0;
}

/* Split "port net_tap0" into kind "port" and name "net_tap0". */
static int
tfo_section_split(const char *section, char *kind, size_t klen,
		  const char **name)
{
	const char *sp = strchr(section, ' ');
	size_t n = sp ? (size_t)(sp - section) : strlen(section);

	if (n >= klen)
		return -EINVAL;
	memcpy(kind, section, n);
	kind[n] = '\0';
	*name = sp ? sp + 1 : NULL;
	while (*name != NULL && **name == ' ')
		(*name)++;
	return 0;
}

static int
tfo_config_set_why(struct tfo_config *c, const char *section, const char *key,
		   const char *value, char *why, size_t whylen)
{
	char kind[16];
	const char *name;

	if (tfo_section_split(section, kind, sizeof(kind), &name) < 0)
		return tfo_errmsg(why, whylen, "unknown section");
	if (strcmp(kind, "port") == 0) {
		struct tfo_cfg_port *p;

		if (name == NULL || *name == '\0')
			return tfo_errmsg(why, whylen,
				       "a port section needs a device: [port NAME]");
		p = tfo_port_get(c, name, why, whylen);
		return p == NULL ? -EINVAL : tfo_port_set(p, key, value, why, whylen);
	}
	if (strcmp(kind, "service") == 0) {
		struct tfo_cfg_service *s;

		if (name == NULL || *name == '\0')
			return tfo_errmsg(why, whylen,
				       "a service section needs a name: [service NAME]");
		if (strcmp(key, "plugin") == 0)
			return tfo_service_plugin_set(c, name, value, why, whylen);
		s = tfo_service_get(c, name, why, whylen);
		return s == NULL ? -EINVAL : tfo_service_set(s, key, value, why, whylen);
	}
	if (name != NULL)
		return tfo_errmsg(why, whylen, "unknown section");
	{
		const struct tfo_key_desc *k = tfo_key_find(kind, key);

		if (k == NULL) {
			const char *now = tfo_key_renamed(kind, key);
			bool known_section = false;

			if (now != NULL)
				return tfo_errmsg(why, whylen, "renamed %s (it is a bound: "
						  "see --help-config)", now);

			for (unsigned int i = 0; i < RTE_DIM(tfo_keys); i++)
				if (strcmp(tfo_keys[i].section, kind) == 0)
					known_section = true;
			return tfo_errmsg(why, whylen, known_section ? "unknown key" :
				       "unknown section");
		}
		return tfo_key_apply(c, k, value, why, whylen);
	}
}

static char *
tfo_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Section "[service  http ]" -> "service http". */
static void
tfo_section_normalize(char *s)
{
	char *out = s;
	bool space = false;

	for (char *in = s; *in; in++) {
		if (isspace((unsigned char)*in)) {
			space = out != s;
			continue;
		}
		if (space)
			*out++ = ' ';
		space = false;
		*out++ = *in;
	}
	*out = '\0';
}

/*
 * @p in for an error message, with bytes that do not show (controls,
 * anything outside ASCII: a stray byte order mark, a no-break space) as
 * \xNN, so that the message shows what is wrong with the line.
 */
static const char *
tfo_visible(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in != '\0' && o + 5 < len; in++) {
		unsigned char ch = (unsigned char)*in;

		if (ch < 0x20 || ch >= 0x7f)
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", ch);
		else
			out[o++] = (char)ch;
	}
	out[o] = '\0';
	return out;
}

/*
 * @p section, @p key and @p value as the file reads them: white space
 * trimmed, the section's words separated by one space ("port net_tap0 "
 * is "port net_tap0", not a device named with a trailing space).
 */
static int
tfo_config_words(const char *section, const char *key, const char *value,
		 char sec[96], char k[64], char v[TFO_CFG_STR * 4])
{
	if (strlen(section) >= 96 || strlen(key) >= 64 || strlen(value) >= TFO_CFG_STR * 4)
		return -EINVAL;
	strcpy(sec, section);
	tfo_section_normalize(sec);
	strcpy(k, key);
	memmove(k, tfo_trim(k), strlen(tfo_trim(k)) + 1);
	strcpy(v, value);
	memmove(v, tfo_trim(v), strlen(tfo_trim(v)) + 1);
	return 0;
}

int
tfo_config_set(struct tfo_config *c, const char *section, const char *key,
	       const char *value, char *err, size_t errlen)
{
	char why[160], sec[96], k[64], v[TFO_CFG_STR * 4];

	if (tfo_config_words(section, key, value, sec, k, v) < 0)
		return tfo_errmsg(err, errlen, "[%.64s] %.64s: section, key or value too long",
				  section, key);
	if (tfo_config_set_why(c, sec, k, v, why, sizeof(why)) < 0)
		return tfo_errmsg(err, errlen, "[%s] %s = \"%s\": %s", sec, k, v, why);
	return 0;
}

/* "net_tap0, 0000:01:00.0" (ports) or "echo, http" (services) into @p buf. */
static const char *
tfo_config_names(const struct tfo_config *c, bool ports, char *buf, size_t len)
{
	unsigned int n = ports ? c->nb_ports : c->nb_services;
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "",
				      ports ? c->ports[i].device : c->services[i].name);
	if (n == 0)
		snprintf(buf, len, "none");
	return buf;
}

int
tfo_config_override(struct tfo_config *c, const char *section, const char *key,
		    const char *value, char *err, size_t errlen)
{
	char sec[96], k[64], v[TFO_CFG_STR * 4], kind[16], names[256];
	const char *name;
	bool port, found = false;

	if (tfo_config_words(section, key, value, sec, k, v) < 0 ||
	    tfo_section_split(sec, kind, sizeof(kind), &name) < 0 || name == NULL ||
	    (strcmp(kind, "port") != 0 && strcmp(kind, "service") != 0))
		return tfo_config_set(c, section, key, value, err, errlen);
	port = kind[0] == 'p';
	for (unsigned int i = 0; i < (port ? c->nb_ports : c->nb_services); i++)
		if (strcmp(port ? c->ports[i].device : c->services[i].name, name) == 0)
			found = true;
	/*
	 * A section the configuration does not have is a typo unless the key
	 * is the one that starts a section: a port's vdev (empty for a PCI
	 * device), a service's port or plugin. A configuration without any
	 * port gets its first one from any key (tests, --print-config).
	 */
	if (!found && !(port && c->nb_ports == 0) &&
	    !(port ? strcmp(k, "vdev") == 0 :
	      strcmp(k, "port") == 0 || strcmp(k, "plugin") == 0))
		return tfo_errmsg(err, errlen, "[%s] %s = \"%s\": the configuration has no "
				  "[%s]; its %s: %s (a new one starts with %s)", sec, k, v,
				  sec, port ? "ports" : "services",
				  tfo_config_names(c, port, names, sizeof(names)),
				  port ? "its vdev, empty for a PCI device" :
				  "its port = N, or plugin = PATH.so");
	return tfo_config_set(c, sec, k, v, err, errlen);
}

int
tfo_config_parse_string(struct tfo_config *c, const char *text,
			const char *source, char *err, size_t errlen)
{
	char section[96] = "";
	char line[1280];
	unsigned int lineno = 0;
	const char *p = tfo_skip_bom(text);

	snprintf(c->source, sizeof(c->source), "%s", source);
	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *s, *eq, *key, *value, *cmt;
		char why[160], vis[256];

		lineno++;
		if (n >= sizeof(line))
			return tfo_errmsg(err, errlen, "%s:%u: line too long", source,
				       lineno);
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (nl ? 1 : 0);

		/* comments: ';' or '#' at the start of a line or after white
		 * space, to the end of the line; one inside a word ("a;b",
		 * devargs, paths) is part of the value */
		for (cmt = line; (cmt = strpbrk(cmt, ";#")) != NULL; cmt++)
			if (cmt == line || isspace((unsigned char)cmt[-1])) {
				*cmt = '\0';
				break;
			}
		s = tfo_trim(line);
		if (*s == '\0')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']');

			if (end == NULL || tfo_trim(end + 1)[0] != '\0')
				return tfo_errmsg(err, errlen, "%s:%u: bad section header '%s'",
					       source, lineno, tfo_visible(s, vis, sizeof(vis)));
			*end = '\0';
			if (strlen(s + 1) >= sizeof(section))
				return tfo_errmsg(err, errlen, "%s:%u: section name too long",
					       source, lineno);
			strcpy(section, s + 1);
			tfo_section_normalize(section);
			continue;
		}
		eq = strchr(s, '=');
		if (eq == NULL)
			return tfo_errmsg(err, errlen, "%s:%u: expected 'key = value', got '%s'",
				       source, lineno, tfo_visible(s, vis, sizeof(vis)));
		*eq = '\0';
		key = tfo_trim(s);
		value = tfo_trim(eq + 1);
		if (section[0] == '\0')
			return tfo_errmsg(err, errlen, "%s:%u: key '%s' before any [section]",
				       source, lineno, tfo_visible(key, vis, sizeof(vis)));
		if (tfo_config_set_why(c, section, key, value, why, sizeof(why)) < 0) {
			char vsec[sizeof(section) * 4], vkey[128];

			return tfo_errmsg(err, errlen, "%s:%u: [%s] %s = \"%s\": %s",
				       source, lineno, tfo_visible(section, vsec, sizeof(vsec)),
				       tfo_visible(key, vkey, sizeof(vkey)),
				       tfo_visible(value, vis, sizeof(vis)), why);
		}
	}
	return 0;
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
	for (unsigned int i = 0; i < RTE_DIM(tfo_keys); i++) {
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
	}
	for (unsigned int i = 0; i < c->nb_services; i++) {
		const struct tfo_cfg_service *s = &c->services[i];

		fprintf(f, "\n[service %s]\n", s->name);
		if (s->plugin[0] != '\0')
			fprintf(f, "plugin = %s\n", s->plugin);
		fprintf(f, "port = %u\n", s->port);
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
	for (unsigned int i = 0; i < RTE_DIM(tfo_keys); i++) {
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
	for (const struct tfo_service *s = tfo_service_first(); s != NULL;
	     s = s->next) {
		fprintf(f, "  %s: %s\n    keys: port", s->name, s->help ? s->help : "");
		for (const char *const *k = s->keys; k != NULL && *k != NULL; k++)
			fprintf(f, ", %s", *k);
		fputc('\n', f);
	}
}

extern const char tfo_embedded_config_text[];

const char *
tfo_config_embedded(void)
{
	return tfo_embedded_config_text;
}
