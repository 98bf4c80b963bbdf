/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-loadgen: command line.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <rte_version.h>

#include "ops/config.h"
#include "tfo/log.h"

#include "lg.h"

#define LG_DEFAULT_REQUEST "GET / HTTP/1.1\\r\\nHost: tfo-loadgen\\r\\nConnection: close\\r\\n\\r\\n"

/* The usage's second half: from the spoofed-SYN flood on, and the example. */
static void
lg_usage_options(FILE *f, const char *prog)
{
	fprintf(f,
		"spoofed-SYN flood (beside the transactions of the run, during the run):\n"
		"  --spoof-flood RATE|max  plain SYNs/s (all lcores) from random addresses of\n"
		"                          --spoof-src and ports of --spoof-ports, never\n"
		"                          completed: the SYN-ACKs are counted (spoof_synack_rx),\n"
		"                          never answered nor reset; max: as fast as it can\n"
		"  --spoof-src ADDR/LEN    the spoofed sources (required with --spoof-flood;\n"
		"                          must not overlap --client's range nor hold --server)\n"
		"  --spoof-ports LO-HI     spoofed source ports (default 1024-65535)\n"
		"request and response:\n"
		"  --request STR           request bytes; \\r \\n \\t \\\\ \\xHH escapes (default\n"
		"                          an HTTP/1.1 GET / with Connection: close)\n"
		"  --request-size N        request of N bytes (1..65535): a pattern ending in\n"
		"                          '\\n'; from 16 bytes on, the first 16 are the\n"
		"                          transaction's id in hex (echoes are checked per\n"
		"                          transaction)\n"
		"  --expect-echo           the response must be the request\n"
		"  --expect-len N          the response must be N bytes\n"
		"  --expect-prefix STR     the response must start with STR (escapes as above)\n"
		"                          Without --expect-echo/--expect-len a response ends\n"
		"                          with the server's FIN. Every mismatch is an error.\n"
		"  --dns-query NAME/TYPE   the request is a DNS query over TCP (2-byte length,\n"
		"                          class IN, RD clear, no EDNS; TYPE A, AAAA, MX,\n"
		"                          TXT, NS, SOA..., TYPEnnn), a new ID per transaction;\n"
		"                          every answer is checked: its length, ID, QR,\n"
		"                          opcode, TC clear, the question echoed, the RCODE,\n"
		"                          and for NOERROR at least one answer record\n"
		"  --dns-rcode RCODE       the RCODE expected (NOERROR, NXDOMAIN, REFUSED...\n"
		"                          or 0..15; default NOERROR)\n"
		"TCP:\n"
		"  --rto-ms N              first retransmission timeout (default 1000; doubles)\n"
		"  --retries N             retransmissions before giving up (default 3)\n"
		"  --timeout-ms N          limit of one transaction (default 20000)\n"
		"  --mtu N                 port MTU (default 1500)\n"
		"  --mss N                 our MSS (default MTU - 40, IPv6 MTU - 60)\n"
		"other:\n"
		"  --burst N               RX burst (1..64, default 32)\n"
		"  --rxd N / --txd N       descriptors per queue (default 1024)\n"
		"  --idle yield|busy       after a poll that found no frame: yield (default:\n"
		"                          sched_yield, so a server polling on the same CPU\n"
		"                          runs at once, not after the scheduler's time\n"
		"                          slice) or busy (spin on: a CPU of its own)\n"
		"  --rss-peer N            the peer of a tfo-server port with rss = peer and N\n"
		"                          control lcores (net_memif): as many generator lcores\n"
		"                          as the server has workers, each flow sent on the\n"
		"                          queue pair the server's hash gives it, and N more RX\n"
		"                          queues for the control lcores' frames\n"
		"  --stats-period SEC      progress line period (default 1; 0: none)\n"
		"  --json FILE             write the summary as JSON\n"
		"  --version               print the version and exit\n"
		"  -h, --help              this text\n"
		"\n"
		"Exit code: 0 no error, 1 errors during the run (every err_* counter of\n"
		"the summary is one), 2 bad arguments or set-up failure.\n"
		"Example (a kernel TFO server behind net_tap, in a network namespace):\n"
		"  ip netns exec NS %s -l 0-1 --no-pci --vdev net_tap0,iface=lg0 -- \\\n"
		"     --server 198.18.0.1 --server-port 7 --client 198.18.0.100 --clients 16 \\\n"
		"     --request-size 100 --expect-echo --count 10000\n",
		prog);
}

void
lg_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL args] -- --server ADDR --client ADDR [options]\n"
		"\n"
		"Plays many TCP Fast Open (RFC 7413) clients against a server, through\n"
		"every port EAL probed (--vdev net_tap0 / net_memif / a NIC). The first\n"
		"lcore reports; every other lcore generates, with one RX/TX queue pair on\n"
		"every port. Phases: resolve the server's MAC (ARP/ND), warm-up (one\n"
		"cookie request per client address, until each has a cookie), run (TFO\n"
		"transactions: SYN + cookie + request, SYN-ACK, response, ACK+FIN), drain.\n"
		"\n"
		"addresses:\n"
		"  --server ADDR           server address, IPv4 or IPv6 (required)\n"
		"  --server-port N         server TCP port (default 80)\n"
		"  --server-mac MAC        do not resolve the server's MAC with ARP/ND\n"
		"  --client ADDR           first client address (required; same family)\n"
		"  --clients N             client addresses from --client on, 1..65536\n"
		"                          (default 16); ARP/ND for them are answered\n"
		"  --client-ports LO-HI    client source ports (default 10000-10255)\n"
		"  --alias ADDR            also answer ARP/ND for ADDR (a next hop the\n"
		"                          server may route the client range through)\n"
		"load:\n"
		"  --concurrency N         transactions in flight per generator lcore\n"
		"                          (1..65534, default 64)\n"
		"  --rate N                transactions/s started, all lcores (default 0:\n"
		"                          as fast as the slots free up)\n"
		"  --duration SEC          length of the run (default 10 when no --count)\n"
		"  --count N               transactions to start in the run (with\n"
		"                          --duration: whichever ends first)\n"
		"  --warmup-timeout SEC    warm-up limit (default 10; 0: no warm-up, the\n"
		"                          first transaction of each address asks for a cookie)\n"
		"  --resolve-timeout SEC   ARP/ND limit (default 10)\n"
		"mix (percent of the starts, decimals allowed; the rest is TFO):\n"
		"  --bad-cookie PCT        SYN + data with a corrupted cookie (fallback expected)\n"
		"  --no-tfo PCT            plain SYN, request after the handshake\n"
		"  --cookie-req PCT        SYN with an empty TFO option (a cookie request\n"
		"                          even when the address holds a cookie), request\n"
		"                          after the handshake; with --no-tfo only, or\n"
		"                          --cookie-req only, there is no warm-up\n"
		"  --syn-flood PCT         SYN + valid cookie + data from --flood-ports that\n"
		"                          never completes (loads the server's pending limit)\n"
		"  --flood-ports LO-HI     source ports of the flood (default 40000-40999)\n"
		"  --cookie-form rfc|exp   option of our cookie requests: kind 34 or 254/0xF989\n"
		"                          (default rfc; a cached cookie is sent in the form\n"
		"                          the server answered with)\n",
		prog);
	lg_usage_options(f, prog);
}

static int
lg_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (*s == '\0' || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || x < lo || x > hi)
		return -EINVAL;
	*v = x;
	return 0;
}

static int
lg_seconds(const char *s, double *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(x >= 0) || x > 1e7)
		return -EINVAL;
	*v = x;
	return 0;
}

/* "12.5" -> 1250 basis points */
static int
lg_percent(const char *s, uint32_t *bp)
{
	double x;

	if (lg_seconds(s, &x) < 0 || x > 100)
		return -EINVAL;
	*bp = (uint32_t)llround(x * 100);
	return 0;
}

static int
lg_range(const char *s, uint16_t *lo, uint16_t *hi)
{
	char buf[32], *dash;
	uint64_t a, b;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (dash == NULL)
		return -EINVAL;
	*dash = '\0';
	if (lg_u64(buf, 1, 65535, &a) < 0 || lg_u64(dash + 1, 1, 65535, &b) < 0 || a > b)
		return -EINVAL;
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
	return 0;
}

static int
lg_addr(const char *s, int *family, struct tfo_addr *a)
{
	struct tfo_local_addr la;

	if (strchr(s, '/') != NULL || tfo_parse_addr(s, &la) < 0)
		return -EINVAL;
	*family = la.family;
	*a = la.addr;
	return 0;
}

/* Decode \r \n \t \\ \xHH into a fresh buffer. */
static int
lg_unescape(const char *s, uint8_t **out, uint32_t *len)
{
	size_t n = strlen(s);
	uint8_t *b = malloc(n + 1);
	uint32_t k = 0;

	if (b == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			b[k++] = (uint8_t)s[i];
			continue;
		}
		switch (s[++i]) {
		case 'r':
			b[k++] = '\r';
			break;
		case 'n':
			b[k++] = '\n';
			break;
		case 't':
			b[k++] = '\t';
			break;
		case '\\':
			b[k++] = '\\';
			break;
		case 'x': {
			char hx[3] = { s[i + 1], 0, 0 };

			if (hx[0] != '\0')
				hx[1] = s[i + 2];
			if (!isxdigit((unsigned char)hx[0]) || !isxdigit((unsigned char)hx[1])) {
				free(b);
				return -EINVAL;
			}
			b[k++] = (uint8_t)strtoul(hx, NULL, 16);
			i += 2;
			break;
		}
		default:
			free(b);
			return -EINVAL;
		}
	}
	*out = b;
	*len = k;
	return 0;
}

enum {
	OPT_SERVER = 256, OPT_SERVER_PORT, OPT_SERVER_MAC, OPT_CLIENT, OPT_CLIENTS,
	OPT_CLIENT_PORTS, OPT_ALIAS, OPT_CONCURRENCY, OPT_RATE, OPT_DURATION,
	OPT_COUNT, OPT_WARMUP_TIMEOUT, OPT_RESOLVE_TIMEOUT, OPT_BAD_COOKIE,
	OPT_NO_TFO, OPT_SYN_FLOOD, OPT_FLOOD_PORTS, OPT_COOKIE_FORM, OPT_REQUEST,
	OPT_REQUEST_SIZE, OPT_EXPECT_ECHO, OPT_EXPECT_LEN, OPT_EXPECT_PREFIX,
	OPT_RTO_MS, OPT_RETRIES, OPT_TIMEOUT_MS, OPT_MTU, OPT_MSS, OPT_BURST,
	OPT_RXD, OPT_TXD, OPT_STATS_PERIOD, OPT_JSON, OPT_VERSION, OPT_COOKIE_REQ,
	OPT_SPOOF_FLOOD, OPT_SPOOF_SRC, OPT_SPOOF_PORTS, OPT_RSS_PEER,
	OPT_DNS_QUERY, OPT_DNS_RCODE, OPT_IDLE,
};

static const struct option lg_long_opts[] = {
	{ "server", required_argument, NULL, OPT_SERVER },
	{ "server-port", required_argument, NULL, OPT_SERVER_PORT },
	{ "server-mac", required_argument, NULL, OPT_SERVER_MAC },
	{ "client", required_argument, NULL, OPT_CLIENT },
	{ "clients", required_argument, NULL, OPT_CLIENTS },
	{ "client-ports", required_argument, NULL, OPT_CLIENT_PORTS },
	{ "alias", required_argument, NULL, OPT_ALIAS },
	{ "concurrency", required_argument, NULL, OPT_CONCURRENCY },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "warmup-timeout", required_argument, NULL, OPT_WARMUP_TIMEOUT },
	{ "resolve-timeout", required_argument, NULL, OPT_RESOLVE_TIMEOUT },
	{ "bad-cookie", required_argument, NULL, OPT_BAD_COOKIE },
	{ "no-tfo", required_argument, NULL, OPT_NO_TFO },
	{ "syn-flood", required_argument, NULL, OPT_SYN_FLOOD },
	{ "flood-ports", required_argument, NULL, OPT_FLOOD_PORTS },
	{ "cookie-req", required_argument, NULL, OPT_COOKIE_REQ },
	{ "spoof-flood", required_argument, NULL, OPT_SPOOF_FLOOD },
	{ "spoof-src", required_argument, NULL, OPT_SPOOF_SRC },
	{ "spoof-ports", required_argument, NULL, OPT_SPOOF_PORTS },
	{ "cookie-form", required_argument, NULL, OPT_COOKIE_FORM },
	{ "request", required_argument, NULL, OPT_REQUEST },
	{ "request-size", required_argument, NULL, OPT_REQUEST_SIZE },
	{ "expect-echo", no_argument, NULL, OPT_EXPECT_ECHO },
	{ "expect-len", required_argument, NULL, OPT_EXPECT_LEN },
	{ "expect-prefix", required_argument, NULL, OPT_EXPECT_PREFIX },
	{ "dns-query", required_argument, NULL, OPT_DNS_QUERY },
	{ "dns-rcode", required_argument, NULL, OPT_DNS_RCODE },
	{ "rto-ms", required_argument, NULL, OPT_RTO_MS },
	{ "retries", required_argument, NULL, OPT_RETRIES },
	{ "timeout-ms", required_argument, NULL, OPT_TIMEOUT_MS },
	{ "mtu", required_argument, NULL, OPT_MTU },
	{ "mss", required_argument, NULL, OPT_MSS },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "rxd", required_argument, NULL, OPT_RXD },
	{ "txd", required_argument, NULL, OPT_TXD },
	{ "rss-peer", required_argument, NULL, OPT_RSS_PEER },
	{ "stats-period", required_argument, NULL, OPT_STATS_PERIOD },
	{ "idle", required_argument, NULL, OPT_IDLE },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void
lg_defaults(struct lg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->server_port = 80;
	o->nb_clients = 16;
	o->port_lo = 10000;
	o->port_hi = 10255;
	o->flood_lo = 40000;
	o->flood_hi = 40999;
	o->spoof_port_lo = 1024;
	o->spoof_port_hi = 65535;
	o->concurrency = 64;
	o->warmup_timeout_s = 10;
	o->resolve_timeout_s = 10;
	o->cookie_form = TFO_FORM_RFC;
	o->rto_ms = 1000;
	o->retries = 3;
	o->timeout_ms = 20000;
	o->mtu = 1500;
	o->burst = 32;
	o->rx_desc = 1024;
	o->tx_desc = 1024;
	o->stats_period_s = 1;
	o->expect_len = -1;
	o->idle_yield = true;
}

/* The --request-size pattern: printable, one '\n' at the end. */
static int
lg_pattern(struct lg_opts *o, uint32_t n)
{
	static const char alnum[] = "0123456789abcdefghijklmnopqrstuvwxyz";

	o->request = malloc(n);
	if (o->request == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		o->request[i] = (uint8_t)alnum[i % (sizeof(alnum) - 1)];
	o->request[n - 1] = '\n';
	o->request_len = n;
	o->tag = n >= LG_TAG_LEN;
	return 0;
}

/* The spoofed range: a network, apart from the clients and the server. */
static int
lg_check_spoof(struct lg_opts *o, int family, bool have_src, char *err, size_t errlen)
{
	unsigned int alen = o->family == AF_INET ? 4 : 16;
	struct tfo_addr first, last, bcast;

	memset(&bcast, 0, sizeof(bcast));

	if (!have_src)
		return tfo_errmsg(err, errlen, "--spoof-flood needs --spoof-src ADDR/LEN");
	if (family != o->family)
		return tfo_errmsg(err, errlen, "--spoof-src: not of --server's family");
	if (o->spoof_prefix < (o->family == AF_INET ? 8 : 64))
		return tfo_errmsg(err, errlen, "--spoof-src: prefix /%u; want /%u or longer",
			      o->spoof_prefix, o->family == AF_INET ? 8 : 64);
	for (unsigned int i = 0; i < alen; i++) {
		unsigned int bits = o->spoof_prefix > i * 8 ? o->spoof_prefix - i * 8 : 0;
		uint8_t mask = bits >= 8 ? 0xff : (uint8_t)(0xff00 >> bits);

		o->spoof_src.b[i] &= mask;	/* the network */
		bcast.b[i] = (uint8_t)(o->spoof_src.b[i] | ~mask);
	}
	if (lg_spoof_match(o, o->family, &o->server))
		return tfo_errmsg(err, errlen, "--spoof-src holds --server");
	/* the client range is contiguous: its ends, and the prefix inside it */
	lg_addr_make(o, 0, &first);
	lg_addr_make(o, o->nb_clients - 1, &last);
	if (lg_spoof_match(o, o->family, &first) || lg_spoof_match(o, o->family, &last) ||
	    lg_addr_index(o, o->family, &o->spoof_src) >= 0 ||
	    lg_addr_index(o, o->family, &bcast) >= 0)
		return tfo_errmsg(err, errlen, "--spoof-src overlaps the --client range");
	if (o->alias_set && lg_spoof_match(o, o->family, &o->alias))
		return tfo_errmsg(err, errlen, "--spoof-src holds --alias");
	return 0;
}

static int
lg_check(struct lg_opts *o, bool have_server, bool have_client, int client_family,
	 int spoof_family, bool have_spoof_src, char *err, size_t errlen)
{
	unsigned int off = o->family == AF_INET ? 0 : 12;
	uint32_t base;

	if (!have_server)
		return tfo_errmsg(err, errlen, "--server ADDR is required (see --help)");
	if (!have_client)
		return tfo_errmsg(err, errlen, "--client ADDR is required (see --help)");
	if (client_family != o->family)
		return tfo_errmsg(err, errlen, "--client and --server must be of the same family");
	memcpy(&base, o->client.b + off, 4);
	if ((uint64_t)rte_be_to_cpu_32(base) + o->nb_clients - 1 > UINT32_MAX)
		return tfo_errmsg(err, errlen, "--clients %u: the range from --client wraps around",
			      o->nb_clients);
	if (lg_addr_index(o, o->family, &o->server) >= 0)
		return tfo_errmsg(err, errlen, "--server is inside the client range");
	if (o->alias_set && lg_addr_index(o, o->family, &o->alias) >= 0)
		return tfo_errmsg(err, errlen, "--alias is inside the client range");
	if (o->bp_flood != 0 && o->flood_lo <= o->port_hi && o->port_lo <= o->flood_hi)
		return tfo_errmsg(err, errlen, "--flood-ports %u-%u overlap --client-ports %u-%u",
			      o->flood_lo, o->flood_hi, o->port_lo, o->port_hi);
	if ((uint64_t)o->nb_clients * (o->port_hi - o->port_lo + 1u) > LG_MAX_TUPLES)
		return tfo_errmsg(err, errlen, "--clients %u x --client-ports %u-%u: more than "
			      "%u tuples", o->nb_clients, o->port_lo, o->port_hi, LG_MAX_TUPLES);
	if (o->bp_bad_cookie + o->bp_no_tfo + o->bp_flood + o->bp_cookie_req > 10000)
		return tfo_errmsg(err, errlen, "--bad-cookie + --no-tfo + --cookie-req + "
			      "--syn-flood exceed 100%%");
	if (o->spoof) {
		int rc = lg_check_spoof(o, spoof_family, have_spoof_src, err, errlen);

		if (rc < 0)
			return rc;
	}
	if (o->request == NULL) {
		int rc = lg_unescape(LG_DEFAULT_REQUEST, &o->request, &o->request_len);

		if (rc < 0)
			return tfo_errmsg(err, errlen, "out of memory");
	}
	if (o->request_len == 0 || o->request_len > LG_MAX_REQUEST)
		return tfo_errmsg(err, errlen, "--request: %u bytes; want 1..%u", o->request_len,
			      LG_MAX_REQUEST);
	if (o->expect_echo) {
		if (o->expect_len >= 0 && o->expect_len != o->request_len)
			return tfo_errmsg(err, errlen, "--expect-len %" PRId64 " contradicts "
				      "--expect-echo of a %u-byte request", o->expect_len,
				      o->request_len);
		o->expect_len = o->request_len;
	}
	if (o->expect_len >= 0 && o->expect_prefix_len > o->expect_len)
		return tfo_errmsg(err, errlen, "--expect-prefix is longer than --expect-len");
	{
		uint16_t max = (uint16_t)(o->mtu - (o->family == AF_INET ? 40 : 60));

		if (o->mss == 0)
			o->mss = max;
		if (o->mss > max || o->mss < 88)
			return tfo_errmsg(err, errlen, "--mss %u: want 88..%u (MTU %u)", o->mss,
				      max, o->mtu);
	}
	if (o->duration_s == 0 && o->count == 0)
		o->duration_s = 10;
	if (o->bp_no_tfo + o->bp_cookie_req == 10000)
		o->warmup_timeout_s = 0;	/* nobody needs a cookie */
	if ((uint64_t)o->rto_ms * ((1u << RTE_MIN(o->retries, 6u)) * 2 - 1) > o->timeout_ms)
		fprintf(stderr, "tfo-loadgen: note: --timeout-ms %u ends transactions before "
			"--retries %u retransmissions from --rto-ms %u are done\n",
			o->timeout_ms, o->retries, o->rto_ms);
	return 0;
}

/* What lg_parse_args saw, for the checks after the last option. */
struct lg_seen {
	bool server, client, spoof_src, request;
	int client_family, alias_family, spoof_family;
};

#define LG_OPT_OTHER 1	/* lg_opt_*: not an option of this group */

/* The server, the clients and their addresses and ports. @return 0, a negative errno (why in @p err), or
 * LG_OPT_OTHER: not an option of this group. */
static int
lg_opt_addrs(struct lg_opts *o, int opt, const char *a, struct lg_seen *seen,
	       char *err, size_t errlen)
{
	uint64_t v;

	switch (opt) {
	case OPT_SERVER:
		if (lg_addr(a, &o->family, &o->server) < 0)
			return tfo_errmsg(err, errlen, "--server %s: not an IPv4/IPv6 address", a);
		seen->server = true;
		break;
	case OPT_SERVER_PORT:
		if (lg_u64(a, 1, 65535, &v) < 0)
			return tfo_errmsg(err, errlen, "--server-port %s: want 1..65535", a);
		o->server_port = (uint16_t)v;
		break;
	case OPT_SERVER_MAC:
		if (rte_ether_unformat_addr(a, &o->server_mac) < 0 ||
		    !rte_is_unicast_ether_addr(&o->server_mac) ||
		    rte_is_zero_ether_addr(&o->server_mac))
			return tfo_errmsg(err, errlen, "--server-mac %s: not a unicast MAC", a);
		o->server_mac_set = true;
		break;
	case OPT_CLIENT:
		if (lg_addr(a, &seen->client_family, &o->client) < 0)
			return tfo_errmsg(err, errlen, "--client %s: not an IPv4/IPv6 address", a);
		seen->client = true;
		break;
	case OPT_CLIENTS:
		if (lg_u64(a, 1, LG_MAX_CLIENTS, &v) < 0)
			return tfo_errmsg(err, errlen, "--clients %s: want 1..%u", a, LG_MAX_CLIENTS);
		o->nb_clients = (uint32_t)v;
		break;
	case OPT_CLIENT_PORTS:
		if (lg_range(a, &o->port_lo, &o->port_hi) < 0)
			return tfo_errmsg(err, errlen, "--client-ports %s: want LO-HI in 1..65535", a);
		break;
	case OPT_ALIAS:
		if (lg_addr(a, &seen->alias_family, &o->alias) < 0)
			return tfo_errmsg(err, errlen, "--alias %s: not an IPv4/IPv6 address", a);
		o->alias_set = true;
		break;
	default:
		return LG_OPT_OTHER;
	}
	return 0;
}

/* The load: how much, how long, the mix of kinds, the spoofed-SYN flood. @return 0, a negative errno (why in @p err), or
 * LG_OPT_OTHER: not an option of this group. */
static int
lg_opt_load(struct lg_opts *o, int opt, const char *a, struct lg_seen *seen,
	      char *err, size_t errlen)
{
	uint64_t v;
	struct tfo_local_addr la;

	switch (opt) {
	case OPT_FLOOD_PORTS:
		if (lg_range(a, &o->flood_lo, &o->flood_hi) < 0)
			return tfo_errmsg(err, errlen, "--flood-ports %s: want LO-HI in 1..65535", a);
		break;
	case OPT_CONCURRENCY:
		if (lg_u64(a, 1, LG_MAX_CONCURRENCY, &v) < 0)
			return tfo_errmsg(err, errlen, "--concurrency %s: want 1..%u", a,
				      LG_MAX_CONCURRENCY);
		o->concurrency = (uint32_t)v;
		break;
	case OPT_RATE:
		if (lg_u64(a, 0, 1000000000, &v) < 0)
			return tfo_errmsg(err, errlen, "--rate %s: want 0..1000000000", a);
		o->rate = v;
		break;
	case OPT_DURATION:
		if (lg_seconds(a, &o->duration_s) < 0)
			return tfo_errmsg(err, errlen, "--duration %s: want seconds >= 0", a);
		break;
	case OPT_COUNT:
		if (lg_u64(a, 0, UINT64_MAX / 2, &v) < 0)
			return tfo_errmsg(err, errlen, "--count %s: want an integer >= 0", a);
		o->count = v;
		break;
	case OPT_WARMUP_TIMEOUT:
		if (lg_seconds(a, &o->warmup_timeout_s) < 0)
			return tfo_errmsg(err, errlen, "--warmup-timeout %s: want seconds >= 0", a);
		break;
	case OPT_RESOLVE_TIMEOUT:
		if (lg_seconds(a, &o->resolve_timeout_s) < 0 || o->resolve_timeout_s == 0)
			return tfo_errmsg(err, errlen, "--resolve-timeout %s: want seconds > 0", a);
		break;
	case OPT_BAD_COOKIE:
		if (lg_percent(a, &o->bp_bad_cookie) < 0)
			return tfo_errmsg(err, errlen, "--bad-cookie %s: want a percentage 0..100", a);
		break;
	case OPT_NO_TFO:
		if (lg_percent(a, &o->bp_no_tfo) < 0)
			return tfo_errmsg(err, errlen, "--no-tfo %s: want a percentage 0..100", a);
		break;
	case OPT_SYN_FLOOD:
		if (lg_percent(a, &o->bp_flood) < 0)
			return tfo_errmsg(err, errlen, "--syn-flood %s: want a percentage 0..100", a);
		break;
	case OPT_COOKIE_REQ:
		if (lg_percent(a, &o->bp_cookie_req) < 0)
			return tfo_errmsg(err, errlen, "--cookie-req %s: want a percentage 0..100", a);
		break;
	case OPT_SPOOF_FLOOD:
		if (strcmp(a, "max") == 0)
			o->spoof_rate = 0;
		else if (lg_u64(a, 1, 1000000000, &v) < 0)
			return tfo_errmsg(err, errlen, "--spoof-flood %s: want SYNs/s "
				      "1..1000000000 or max", a);
		else
			o->spoof_rate = v;
		o->spoof = true;
		break;
	case OPT_SPOOF_SRC:
		if (strchr(a, '/') == NULL || tfo_parse_addr(a, &la) < 0)
			return tfo_errmsg(err, errlen, "--spoof-src %s: want ADDR/LEN", a);
		seen->spoof_family = la.family;
		o->spoof_src = la.addr;
		o->spoof_prefix = la.prefix_len;
		seen->spoof_src = true;
		break;
	case OPT_SPOOF_PORTS:
		if (lg_range(a, &o->spoof_port_lo, &o->spoof_port_hi) < 0)
			return tfo_errmsg(err, errlen, "--spoof-ports %s: want LO-HI in 1..65535", a);
		break;
	case OPT_COOKIE_FORM:
		if (strcmp(a, "rfc") == 0)
			o->cookie_form = TFO_FORM_RFC;
		else if (strcmp(a, "exp") == 0)
			o->cookie_form = TFO_FORM_EXP;
		else
			return tfo_errmsg(err, errlen, "--cookie-form %s: want rfc or exp", a);
		break;
	default:
		return LG_OPT_OTHER;
	}
	return 0;
}

/* The request sent and the response expected (or the DNS query). @return 0, a negative errno (why in @p err), or
 * LG_OPT_OTHER: not an option of this group. */
static int
lg_opt_request(struct lg_opts *o, int opt, const char *a, struct lg_seen *seen,
	         char *err, size_t errlen)
{
	uint64_t v;
	int rc;

	switch (opt) {
	case OPT_REQUEST:
		free(o->request);
		o->request = NULL;
		rc = lg_unescape(a, &o->request, &o->request_len);
		if (rc < 0)
			return tfo_errmsg(err, errlen, "--request: bad escape (\\r \\n \\t \\\\ "
				      "\\xHH)");
		o->tag = false;
		seen->request = true;
		break;
	case OPT_REQUEST_SIZE:
		if (lg_u64(a, 1, LG_MAX_REQUEST, &v) < 0)
			return tfo_errmsg(err, errlen, "--request-size %s: want 1..%u", a,
				      LG_MAX_REQUEST);
		free(o->request);
		if (lg_pattern(o, (uint32_t)v) < 0)
			return tfo_errmsg(err, errlen, "out of memory");
		seen->request = true;
		break;
	case OPT_DNS_QUERY:
		rc = lg_dns_query(o, a, err, errlen);
		if (rc < 0)
			return rc;
		break;
	case OPT_DNS_RCODE:
		rc = lg_dns_rcode(a);
		if (rc < 0)
			return tfo_errmsg(err, errlen, "--dns-rcode %s: want NOERROR, FORMERR, "
				      "SERVFAIL, NXDOMAIN, NOTIMP, REFUSED or 0..15", a);
		o->dns_rcode = (uint8_t)rc;
		break;
	case OPT_EXPECT_ECHO:
		o->expect_echo = true;
		break;
	case OPT_EXPECT_LEN:
		if (lg_u64(a, 0, UINT32_MAX, &v) < 0)
			return tfo_errmsg(err, errlen, "--expect-len %s: want bytes >= 0", a);
		o->expect_len = (int64_t)v;
		break;
	case OPT_EXPECT_PREFIX:
		free(o->expect_prefix);
		o->expect_prefix = NULL;
		if (lg_unescape(a, &o->expect_prefix, &o->expect_prefix_len) < 0)
			return tfo_errmsg(err, errlen, "--expect-prefix: bad escape (\\r \\n \\t "
				      "\\\\ \\xHH)");
		break;
	default:
		return LG_OPT_OTHER;
	}
	return 0;
}

/* TCP, the ports' queues, the generator lcores' idling, the output. @return 0, a negative errno (why in @p err), or
 * LG_OPT_OTHER: not an option of this group. */
static int
lg_opt_transport(struct lg_opts *o, int opt, const char *a, struct lg_seen *seen,
	           char *err, size_t errlen)
{
	uint64_t v;

	switch (opt) {
	case OPT_RTO_MS:
		if (lg_u64(a, 1, 600000, &v) < 0)
			return tfo_errmsg(err, errlen, "--rto-ms %s: want 1..600000", a);
		o->rto_ms = (uint32_t)v;
		break;
	case OPT_RETRIES:
		if (lg_u64(a, 0, 20, &v) < 0)
			return tfo_errmsg(err, errlen, "--retries %s: want 0..20", a);
		o->retries = (uint32_t)v;
		break;
	case OPT_TIMEOUT_MS:
		if (lg_u64(a, 1, 3600000, &v) < 0)
			return tfo_errmsg(err, errlen, "--timeout-ms %s: want 1..3600000", a);
		o->timeout_ms = (uint32_t)v;
		break;
	case OPT_MTU:
		if (lg_u64(a, 128, 9198, &v) < 0)
			return tfo_errmsg(err, errlen, "--mtu %s: want 128..9198", a);
		o->mtu = (uint16_t)v;
		break;
	case OPT_MSS:
		if (lg_u64(a, 88, 9158, &v) < 0)
			return tfo_errmsg(err, errlen, "--mss %s: want 88..9158", a);
		o->mss = (uint16_t)v;
		break;
	case OPT_BURST:
		if (lg_u64(a, 1, TFO_TX_BUF, &v) < 0)
			return tfo_errmsg(err, errlen, "--burst %s: want 1..%d", a, TFO_TX_BUF);
		o->burst = (uint32_t)v;
		break;
	case OPT_RSS_PEER:
		if (lg_u64(a, 1, LG_MAX_PEER_CONTROLS, &v) < 0)
			return tfo_errmsg(err, errlen, "--rss-peer %s: want the server's "
				      "control lcores, 1..%d", a, LG_MAX_PEER_CONTROLS);
		o->rss_peer = true;
		o->peer_controls = (uint16_t)v;
		break;
	case OPT_RXD:
	case OPT_TXD:
		if (lg_u64(a, 32, 32768, &v) < 0)
			return tfo_errmsg(err, errlen, "--%s %s: want 32..32768",
				      opt == OPT_RXD ? "rxd" : "txd", a);
		if (opt == OPT_RXD)
			o->rx_desc = (uint16_t)v;
		else
			o->tx_desc = (uint16_t)v;
		break;
	case OPT_STATS_PERIOD:
		if (lg_u64(a, 0, 3600, &v) < 0)
			return tfo_errmsg(err, errlen, "--stats-period %s: want 0..3600", a);
		o->stats_period_s = (uint32_t)v;
		break;
	case OPT_JSON:
		o->json_path = a;
		break;
	case OPT_IDLE:
		if (strcmp(a, "yield") != 0 && strcmp(a, "busy") != 0)
			return tfo_errmsg(err, errlen, "--idle %s: want yield or busy", a);
		o->idle_yield = strcmp(a, "yield") == 0;
		break;
	default:
		return LG_OPT_OTHER;
	}
	return 0;
}

int
lg_parse_args(struct lg_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	struct lg_seen seen = { 0 };
	int opt, rc;

	lg_defaults(o);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lg_long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			lg_usage(stdout, argv[0]);
			return 1;
		case OPT_VERSION:
			printf("tfo-loadgen %s (%s)\n", TFO_VERSION, rte_version());
			return 1;
		default:
			break;
		}
		rc = lg_opt_addrs(o, opt, optarg, &seen, err, errlen);
		if (rc == LG_OPT_OTHER)
			rc = lg_opt_load(o, opt, optarg, &seen, err, errlen);
		if (rc == LG_OPT_OTHER)
			rc = lg_opt_request(o, opt, optarg, &seen, err, errlen);
		if (rc == LG_OPT_OTHER)
			rc = lg_opt_transport(o, opt, optarg, &seen, err, errlen);
		if (rc == LG_OPT_OTHER) {
			if (optopt != 0 && optopt < 256)
				return tfo_errmsg(err, errlen, "option -%c: unknown or missing its "
					      "argument (see --help)", optopt);
			return tfo_errmsg(err, errlen, "option %s: unknown or missing its argument "
				      "(see --help)", argv[optind - 1]);
		}
		if (rc < 0)
			return rc;
	}
	if (optind < argc)
		return tfo_errmsg(err, errlen, "unexpected argument '%s' (EAL arguments go "
			      "before \"--\")", argv[optind]);
	if (o->alias_set && seen.server && seen.alias_family != o->family)
		return tfo_errmsg(err, errlen, "--alias: not of --server's family");
	if (seen.spoof_src && !o->spoof)
		return tfo_errmsg(err, errlen, "--spoof-src without --spoof-flood");
	if (o->dns && (seen.request || o->expect_echo || o->expect_len >= 0 ||
		       o->expect_prefix != NULL))
		return tfo_errmsg(err, errlen, "--dns-query builds the request and checks the "
			      "answer: not with --request, --request-size or --expect-*");
	if (!o->dns && o->dns_rcode != 0)
		return tfo_errmsg(err, errlen, "--dns-rcode without --dns-query");
	return lg_check(o, seen.server, seen.client, seen.client_family, seen.spoof_family,
			seen.spoof_src, err, errlen);
}

void
lg_opts_free(struct lg_opts *o)
{
	free(o->request);
	free(o->expect_prefix);
	o->request = NULL;
	o->expect_prefix = NULL;
}
