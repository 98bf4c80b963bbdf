/* SPDX-License-Identifier: BSD-3-Clause
 * Configuration parser: the embedded default, every kind of error (one line
 * naming the key and value), overrides, and dump/parse round trips.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>

#include "ops/config.h"
#include "ops/paths.h"
#include "lcore/idle.h"
#include "ops/start_plan.h"
#include "net/xdp.h"
#include "test.h"

static struct tfo_config cfg;
static char err[TFO_CFG_ERR];

static int
parse(const char *text)
{
	tfo_config_defaults(&cfg);
	err[0] = '\0';
	return tfo_config_parse_string(&cfg, text, "t.ini", err, sizeof(err));
}

/* [tcp] syncookies: auto | always | no; the boolean of older files still
 * reads (yes = auto, no = no). */
TFO_TEST(syncookies_modes)
{
	static const struct {
		const char *v;
		uint8_t mode;
	} t[] = {
		{ "auto", TFO_SYNCOOKIES_AUTO }, { "always", TFO_SYNCOOKIES_ALWAYS },
		{ "no", TFO_SYNCOOKIES_NO }, { "yes", TFO_SYNCOOKIES_AUTO },
		{ "off", TFO_SYNCOOKIES_NO }, { "ALWAYS", TFO_SYNCOOKIES_ALWAYS },
	};
	char text[64];

	tfo_config_defaults(&cfg);
	CHECK_EQ(cfg.syncookies, TFO_SYNCOOKIES_AUTO);
	for (unsigned int i = 0; i < RTE_DIM(t); i++) {
		snprintf(text, sizeof(text), "[tcp]\nsyncookies = %s\n", t[i].v);
		CHECK_EQ(parse(text), 0);
		CHECK_EQ(cfg.syncookies, t[i].mode);
	}
}

static void expect_error(const char *text, const char *needle);

/* idle_policy by name; idle_sleep_us only beside the policy that uses it:
 * "idle_sleep_us = 0" of an older configuration meant busy polling, and
 * must not quietly become adaptive. */
TFO_TEST(idle_policy_keys)
{
	static const struct {
		const char *v;
		uint8_t policy;
	} t[] = {
		{ "adaptive", TFO_IDLE_ADAPTIVE }, { "busy", TFO_IDLE_BUSY },
		{ "sleep", TFO_IDLE_SLEEP }, { "BUSY", TFO_IDLE_BUSY },
	};
	char text[256];
	const char *port = "[port net_null0]\nipv4 = 198.18.0.2/24\n";

	tfo_config_defaults(&cfg);
	CHECK_EQ(cfg.idle_policy, TFO_IDLE_ADAPTIVE);
	CHECK_EQ(cfg.idle_sleep_us, TFO_IDLE_SLEEP_US_DEFAULT);
	for (unsigned int i = 0; i < RTE_DIM(t); i++) {
		snprintf(text, sizeof(text), "[server]\nidle_policy = %s\n", t[i].v);
		CHECK_EQ(parse(text), 0);
		CHECK_EQ(cfg.idle_policy, t[i].policy);
	}
	expect_error("[server]\nidle_policy = spin\n", "expected adaptive, busy or sleep");
	snprintf(text, sizeof(text), "%s[server]\nidle_sleep_us = 0\n", port);
	REQUIRE(parse(text) == 0);
	CHECK(tfo_config_validate(&cfg, err, sizeof(err)) < 0);
	CHECK_MSG(strstr(err, "idle_sleep_us = 0 is the nap of idle_policy = sleep") != NULL &&
		  strstr(err, "busy (what idle_sleep_us = 0 meant)") != NULL, "%s", err);
	snprintf(text, sizeof(text), "%s[server]\nidle_policy = sleep\nidle_sleep_us = 20\n",
		 port);
	REQUIRE(parse(text) == 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), 0);
	snprintf(text, sizeof(text), "%s[server]\nidle_policy = busy\nidle_sleep_us = 20\n",
		 port);
	REQUIRE(parse(text) == 0);
	CHECK(tfo_config_validate(&cfg, err, sizeof(err)) < 0);
	CHECK_MSG(strstr(err, "idle_policy = busy never naps") != NULL, "%s", err);
	/* busy with 0: what the old "idle_sleep_us = 0" said, in both words */
	snprintf(text, sizeof(text), "%s[server]\nidle_policy = busy\nidle_sleep_us = 0\n",
		 port);
	REQUIRE(parse(text) == 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), 0);
}

TFO_TEST(embedded_default_is_valid)
{
	const struct tfo_cfg_port *p;
	char buf[64];

	REQUIRE(parse(tfo_config_embedded()) == 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), 0);
	CHECK_EQ(cfg.nb_ports, 1);
	p = &cfg.ports[0];
	CHECK(strcmp(p->device, "net_tap0") == 0);
	CHECK(strcmp(p->vdev, "net_tap0,iface=tfo0") == 0);
	REQUIRE(p->nb_addrs == 2);
	CHECK_EQ(p->addrs[0].family, AF_INET);
	CHECK(strcmp(tfo_addr_str(AF_INET, &p->addrs[0].addr, buf, sizeof(buf)),
		     "198.18.0.2") == 0);
	CHECK_EQ(p->addrs[0].prefix_len, 24);
	CHECK_EQ(p->addrs[1].family, AF_INET6);
	CHECK(strcmp(tfo_addr_str(AF_INET6, &p->addrs[1].addr, buf, sizeof(buf)),
		     "fd00:7f0::2") == 0);
	CHECK_EQ(p->addrs[1].prefix_len, 64);
	CHECK(strstr(cfg.eal_args, "--no-huge") != NULL);
	CHECK(strstr(cfg.eal_args, "%p") != NULL);
}

TFO_TEST(defaults_match_the_embedded_file)
{
	/* the file documents the defaults: the scalar keys must agree */
	struct tfo_config d;

	tfo_config_defaults(&d);
	REQUIRE(parse(tfo_config_embedded()) == 0);
	CHECK_EQ(d.burst, cfg.burst);
	CHECK_EQ(d.max_conns, cfg.max_conns);
	CHECK_EQ(d.pending_limit, cfg.pending_limit);
	CHECK_EQ(d.pending_hold_ms, cfg.pending_hold_ms);
	CHECK_EQ(d.rto_init_ms, cfg.rto_init_ms);
	CHECK_EQ(d.time_wait_ms, cfg.time_wait_ms);
	CHECK_EQ(d.idle_sleep_us, cfg.idle_sleep_us);
	CHECK_EQ(d.idle_policy, cfg.idle_policy);
	CHECK_EQ(d.idle_poll_us, cfg.idle_poll_us);
	CHECK(strcmp(d.cookie_algo, cfg.cookie_algo) == 0);
	CHECK(strcmp(d.eal_args, cfg.eal_args) == 0);
}

static void
expect_error(const char *text, const char *needle)
{
	int rc = parse(text);

	CHECK_MSG(rc == -EINVAL, "accepted: %s", text);
	CHECK_MSG(strstr(err, needle) != NULL, "error '%s' lacks '%s'", err, needle);
	CHECK_MSG(strchr(err, '\n') == NULL, "error is not one line: %s", err);
}

TFO_TEST(errors_name_key_and_value)
{
	expect_error("[tfo]\npending_limit = abc\n", "t.ini:2: [tfo] pending_limit = \"abc\"");
	expect_error("[tfo]\npending_limit = -1\n", "pending_limit");
	expect_error("[server]\nburst = 65\n", "expected an integer in 1..64");
	expect_error("[server]\nburst = 0\n", "burst");
	expect_error("[tcp]\nwscale_max = 15\n", "wscale_max");
	/* the keys that promised a window the server never advertises */
	expect_error("[tcp]\nwscale = 7\n", "renamed wscale_max");
	expect_error("[tcp]\nrcv_wnd = 65535\n", "renamed rcv_wnd_max");
	expect_error("[tcp]\nsyncookies = maybe\n", "expected no, auto or always (yes = auto)");
	expect_error("[tfo]\nbogus = 1\n", "unknown key");
	expect_error("[nosuch]\nx = 1\n", "unknown section");
	expect_error("x = 1\n", "before any [section]");
	expect_error("[tfo\n", "bad section header");
	expect_error("[tfo]\njust words\n", "expected 'key = value'");
	expect_error("[port net_tap0]\nipv4 = 1.2.3\n", "not an IPv4 address");
	expect_error("[port net_tap0]\nipv4 = fd00::1\n", "not an IPv4 address");
	expect_error("[port net_tap0]\nipv6 = 10.0.0.1/8\n", "not an IPv6 address");
	expect_error("[port net_tap0]\nipv4 = 10.0.0.1/33\n", "ipv4 = \"10.0.0.1/33\"");
	expect_error("[port net_tap0]\nipv4 = 10.0.0.1\nipv4 = 10.0.0.1\n", "address given twice");
	expect_error("[port net_tap0]\nmtu = 20\n", "mtu");
	expect_error("[port net_tap0]\noffload = sometimes\n", "expected auto or off");
	expect_error("[port net_memif0]\nrss = hash\n", "expected device or peer");
	expect_error("[port net_tap0]\ncolor = red\n", "unknown key in a [port] section");
	expect_error("[port]\nmtu = 1500\n", "needs a device");
	expect_error("[service nosuch]\nport = 1\n", "no service named 'nosuch'");
	expect_error("[tfo]\ncookie_algo = md5\n",
		     "cookie_algo = \"md5\": expected aes128 or siphash-linux");
	expect_error("[tfo]\ncookie_algo = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
		     "longer than 31 characters");
	{
		static char text[3000];

		memset(text, 'x', sizeof(text) - 1);
		memcpy(text, "[tfo]\n", 6);
		expect_error(text, "t.ini:2: line too long");
	}
}

TFO_TEST(too_many_addresses_and_ports)
{
	char text[4096];
	size_t n = 0;

	n += (size_t)snprintf(text + n, sizeof(text) - n, "[port p]\n");
	for (int i = 0; i <= TFO_MAX_PORT_ADDRS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "ipv4 = 10.0.0.%d\n", i + 1);
	expect_error(text, "more than");
	n = 0;
	for (int i = 0; i <= TFO_MAX_PORTS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "[port p%d]\nipv4 = 10.0.%d.1\n", i, i);
	expect_error(text, "more than");
}

TFO_TEST(comments_and_whitespace)
{
	REQUIRE(parse("; a comment\n# another\n\n[ tfo ]\n  pending_limit =  77 ; inline\n"
		      "[port   net_null0]\nipv4=10.1.0.1/16\n") == 0);
	CHECK_EQ(cfg.pending_limit, 77);
	REQUIRE(cfg.nb_ports == 1);
	CHECK(strcmp(cfg.ports[0].device, "net_null0") == 0);
	CHECK_EQ(cfg.ports[0].addrs[0].prefix_len, 16);
	/* an address without prefix is a host address */
	REQUIRE(parse("[port x]\nipv6 = fd00::5\n") == 0);
	CHECK_EQ(cfg.ports[0].addrs[0].prefix_len, 128);
	CHECK_EQ(cfg.ports[0].rss, TFO_RSS_DEVICE);
	REQUIRE(parse("[port x]\nipv6 = fd00::5\nrss = peer\n") == 0);
	CHECK_EQ(cfg.ports[0].rss, TFO_RSS_PEER);
	/* a value may contain ';' when it is not preceded by a space */
	REQUIRE(parse("[eal]\nargs = -l 0-1;x\n") == 0);
	CHECK(strcmp(cfg.eal_args, "-l 0-1;x") == 0);
}

TFO_TEST(validate_cross_key_rules)
{
	REQUIRE(parse("[tfo]\npending_limit = 1\n") == 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "no [port DEVICE] section") != NULL);

	REQUIRE(parse("[port a]\nmtu = 1500\n") == 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "no ipv4/ipv6 address") != NULL);

	REQUIRE(parse("[port a]\nipv4 = 10.0.0.1\n[tcp]\nmss = 1461\n") == 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "mss = 1461") != NULL);

	REQUIRE(parse("[port a]\nipv4 = 10.0.0.1\n[tcp]\nrto_min_ms = 5000\nrto_max_ms = 1000\n") == 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "rto_max_ms") != NULL);

	REQUIRE(parse("[port a]\nipv4 = 10.0.0.1\n") == 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), 0);
}

/* [port] tap: auto by default; create/attach only on a net_tap vdev that
 * names its interface (what the tap is, is checked at start: dev_owner.c) */
TFO_TEST(tap_mode_keys)
{
	const char *tap = "[port net_tap0]\nvdev = net_tap0,iface=t0\nipv4 = 198.18.0.2\n";
	char text[256];

	REQUIRE(parse(tap) == 0);
	CHECK_EQ(cfg.ports[0].tap, TFO_TAP_AUTO);
	snprintf(text, sizeof(text), "%stap = attach\n", tap);
	REQUIRE(parse(text) == 0);
	CHECK_EQ(cfg.ports[0].tap, TFO_TAP_ATTACH);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), 0);
	snprintf(text, sizeof(text), "%stap = Create\n", tap);
	REQUIRE(parse(text) == 0);
	CHECK_EQ(cfg.ports[0].tap, TFO_TAP_CREATE);
	expect_error("[port net_tap0]\ntap = maybe\n", "expected auto, create or attach");
	REQUIRE(parse("[port net_tap0]\nvdev = net_tap0\nipv4 = 198.18.0.2\ntap = attach\n")
		== 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "tap = attach: only for a net_tap vdev with iface=") != NULL);
	REQUIRE(parse("[port net_null0]\nvdev = net_null0\nipv4 = 198.18.0.2\ntap = create\n")
		== 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), -EINVAL);
}

/* [port] xdp: auto resolves by the vdev; own is refused where it cannot
 * work, and beside keys that contradict it (checked without a device). */
TFO_TEST(xdp_mode_keys)
{
	static const struct {
		const char *extra, *needle;
	} bad[] = {
		{ "exception = on\n", "exception = on with xdp = own" },
		{ "syn_steering = on\n", "syn_steering = on with xdp = own" },
		{ "rss = peer\n", "rss = peer with xdp = own" },
	};
	const char *af = "[port net_af_xdp0]\nvdev = net_af_xdp0,iface=eth0,queue_count=2\n"
			 "ipv4 = 198.18.0.2/24\n";
	char text[512], v[32];

	REQUIRE(parse(af) == 0);
	CHECK_EQ(cfg.ports[0].xdp, TFO_XDP_AUTO);
	CHECK(tfo_xdp_own(&cfg.ports[0]));
	CHECK_EQ(tfo_xdp_devarg(cfg.ports[0].vdev, "iface", v, sizeof(v)), 4);
	CHECK(strcmp(v, "eth0") == 0);
	CHECK_EQ(tfo_xdp_devarg(cfg.ports[0].vdev, "queue_count", v, sizeof(v)), 1);
	CHECK(strcmp(v, "2") == 0);
	CHECK_EQ(tfo_xdp_devarg(cfg.ports[0].vdev, "start_queue", v, sizeof(v)), -ENOENT);
	CHECK_EQ(tfo_xdp_devarg(cfg.ports[0].vdev, "iface", v, 4), -ENOSPC);
	CHECK_EQ(tfo_xdp_check_workers(&cfg.ports[0], 1, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "queue_count = 2, but 1 worker") != NULL);
	if (tfo_xdp_built(NULL)) {
		CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), 0);
		CHECK_EQ(tfo_xdp_check_workers(&cfg.ports[0], 2, err, sizeof(err)), 0);
	} else {
		CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), -EINVAL);
		CHECK(strstr(err, "built without its XDP program") != NULL);
	}
	for (unsigned int i = 0; i < RTE_DIM(bad) && tfo_xdp_built(NULL); i++) {
		snprintf(text, sizeof(text), "%s%s", af, bad[i].extra);
		REQUIRE(parse(text) == 0);
		CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), -EINVAL);
		CHECK(strstr(err, bad[i].needle) != NULL);
	}
	/* xdp = off: net_af_xdp's own program, the checks do not apply */
	snprintf(text, sizeof(text), "%sxdp = off\nexception = on\n", af);
	REQUIRE(parse(text) == 0);
	CHECK(!tfo_xdp_own(&cfg.ports[0]));
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), 0);
	/* not on another device; auto is off there */
	REQUIRE(parse("[port net_tap0]\nvdev = net_tap0,iface=t\nipv4 = 198.18.0.2\n"
		      "xdp = own\n") == 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "only for a net_af_xdp vdev") != NULL);
	REQUIRE(parse("[port net_tap0]\nvdev = net_tap0,iface=t\nipv4 = 198.18.0.2\n") == 0);
	CHECK(!tfo_xdp_own(&cfg.ports[0]));
	REQUIRE(parse("[port net_af_xdp0]\nvdev = net_af_xdp0\nipv4 = 198.18.0.2\n") == 0);
	if (tfo_xdp_built(NULL)) {
		CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), -EINVAL);
		CHECK(strstr(err, "no iface=IF") != NULL);
	}
	if (tfo_xdp_built(NULL)) {
		REQUIRE(parse("[port net_af_xdp0]\nvdev = net_af_xdp0,iface=eth0\n"
			      "ipv4 = 198.18.0.2\n[port net_af_xdp1]\n"
			      "vdev = net_af_xdp1,iface=eth0,start_queue=1\n"
			      "ipv4 = 198.18.0.3\n") == 0);
		CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), -EINVAL);
		CHECK(strstr(err, "share interface eth0") != NULL);
	}
	CHECK(parse("[port a]\nxdp = maybe\n") < 0);
	CHECK(strstr(err, "expected own, off or auto") != NULL);
}

TFO_TEST(overrides)
{
	REQUIRE(parse(tfo_config_embedded()) == 0);
	CHECK_EQ(tfo_config_set(&cfg, "tfo", "pending_limit", "3", err, sizeof(err)), 0);
	CHECK_EQ(cfg.pending_limit, 3);
	CHECK_EQ(tfo_config_set(&cfg, "port net_tap0", "mtu", "9000", err, sizeof(err)), 0);
	CHECK_EQ(cfg.ports[0].mtu, 9000);
	CHECK_EQ(tfo_config_set(&cfg, "port net_tap0", "ipv4", "198.18.0.3/24", err,
				sizeof(err)), 0);
	CHECK_EQ(cfg.ports[0].nb_addrs, 3);
	CHECK_EQ(tfo_config_set(&cfg, "tfo", "enabled", "off", err, sizeof(err)), 0);
	CHECK(!cfg.tfo_enabled);
	CHECK_EQ(tfo_config_set(&cfg, "tcp", "max_conns", "0", err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "[tcp] max_conns = \"0\"") != NULL);
}

TFO_TEST(dump_parses_back_identically)
{
	struct tfo_config a;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE(parse(tfo_config_embedded()) == 0);
	CHECK_EQ(tfo_config_set(&cfg, "tcp", "wscale_max", "3", err, sizeof(err)), 0);
	a = cfg;
	f = open_memstream(&text, &len);
	REQUIRE(f != NULL);
	tfo_config_dump(f, &a);
	fclose(f);
	REQUIRE(parse(text) == 0);
	free(text);
	/* source differs by design; compare everything after it */
	CHECK_MEM((const char *)&a + offsetof(struct tfo_config, eal_args),
		  (const char *)&cfg + offsetof(struct tfo_config, eal_args),
		  sizeof(a) - offsetof(struct tfo_config, eal_args));
}

TFO_TEST(help_lists_every_section)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	REQUIRE(f != NULL);
	tfo_config_help(f);
	fclose(f);
	CHECK(strstr(text, "[eal]") != NULL);
	CHECK(strstr(text, "[server]") != NULL);
	CHECK(strstr(text, "[tcp]") != NULL);
	CHECK(strstr(text, "[tfo]") != NULL);
	CHECK(strstr(text, "[port DEVICE]") != NULL);
	CHECK(strstr(text, "pending_limit") != NULL);
	free(text);
}

/* Every key's range is checked as it is read, and the error says it. */
TFO_TEST(ranges_at_parse_time)
{
	expect_error("[tcp]\nmss = 1\n", "mss = \"1\": expected 0 (from the MTU) or 536..9000");
	expect_error("[tcp]\nmss = 535\n", "536..9000");
	expect_error("[tcp]\nmss = 9001\n", "536..9000");
	REQUIRE(parse("[tcp]\nmss = 0\n") == 0);
	REQUIRE(parse("[tcp]\nmss = 536\n") == 0);
	CHECK_EQ(cfg.mss, 536);
	/* service keys: the service checks its own (echo.c, http_load.c) */
	expect_error("[service echo]\nmax_line = -1\n",
		     "t.ini:2: [service echo] max_line = \"-1\": expected an integer in 1..65535");
	expect_error("[service echo]\nmax_line = 0\n", "1..65535");
	expect_error("[service echo]\nmax_line = 65536\n", "1..65535");
	expect_error("[service echo]\nclose = maybe\n", "expected yes or no");
	expect_error("[service http]\nmax_uri = 8\n", "max_uri = \"8\": expected a size in 16..8192");
	expect_error("[service http]\nmax_header = 1G\n", "65536");
	expect_error("[service http]\nindex = a/b\n", "expected a file name");
	expect_error("[service http]\ndate = often\n", "expected yes or no");
	REQUIRE(parse("[service echo]\nmax_line = 65535\n[service http]\nmax_uri = 2K\n") == 0);
}

static int
validate(const char *text)
{
	if (parse(text) != 0)
		return -1000;	/* not what any CHECK_EQ expects */
	err[0] = '\0';
	return tfo_config_validate(&cfg, err, sizeof(err));
}

/* What a start would refuse, validate (--print-config) refuses too. */
TFO_TEST(validate_checks_what_a_start_reads)
{
	char dir[] = "/tmp/tfo_test_config_XXXXXX", path[128], text[512];
	FILE *f;

	REQUIRE(mkdtemp(dir) != NULL);
	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1\n[service http]\nport = 80\n"
			  "root = /nonexistent\n"), -EINVAL);
	CHECK_MSG(strstr(err, "[service http] root = /nonexistent: No such file") != NULL,
		  "%s", err);
	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1\n[service http]\nport = 80\n"
			  "root = /etc/passwd\n"), -EINVAL);
	CHECK_MSG(strstr(err, "root = /etc/passwd: Not a directory") != NULL, "%s", err);
	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1\n[service http]\nport = 80\n"
			  "max_uri = 8K\nmax_header = 8K\n"), -EINVAL);
	CHECK_MSG(strstr(err, "max_uri + 64 <= max_header") != NULL, "%s", err);
	snprintf(text, sizeof(text), "[port a]\nipv4 = 10.0.0.1\n[service http]\n"
		 "port = 80\nroot = %s\n", dir);
	CHECK_EQ(validate(text), 0);

	/* the key file: missing, bad, a FIFO, a directory, good with a BOM */
	snprintf(path, sizeof(path), "%s/key", dir);
	snprintf(text, sizeof(text), "[port a]\nipv4 = 10.0.0.1\n[tfo]\nkey_file = %s\n", path);
	CHECK_EQ(validate(text), -EINVAL);
	CHECK_MSG(strstr(err, "No such file") != NULL, "%s", err);
	f = fopen(path, "w");
	REQUIRE(f != NULL);
	fputs("00000001-00000002-0000003\n", f);
	fclose(f);
	CHECK_EQ(validate(text), -EINVAL);
	CHECK_MSG(strstr(err, "not in tcp_fastopen_key format") != NULL, "%s", err);
	CHECK_MSG(strstr(err, "00000001") == NULL, "the key leaks: %s", err);
	f = fopen(path, "w");
	REQUIRE(f != NULL);
	fputs("\xef\xbb\xbf" "00000001-00000002-00000003-00000004\n", f);
	fclose(f);
	CHECK_EQ(validate(text), 0);
	unlink(path);
	REQUIRE(mkfifo(path, 0600) == 0);
	alarm(10);	/* a FIFO with no writer must not hang the check */
	CHECK_EQ(validate(text), -EINVAL);
	alarm(0);
	CHECK_MSG(strstr(err, "a FIFO, not a regular file") != NULL, "%s", err);
	unlink(path);
	snprintf(text, sizeof(text), "[port a]\nipv4 = 10.0.0.1\n[tfo]\nkey_file = %s\n", dir);
	CHECK_EQ(validate(text), -EINVAL);
	CHECK_MSG(strstr(err, "a directory, not a regular file") != NULL, "%s", err);
	rmdir(dir);
}

/* A byte order mark is not content; a FIFO is not a configuration file. */
TFO_TEST(files_bom_and_fifo)
{
	char dir[] = "/tmp/tfo_test_config_XXXXXX", path[128];
	FILE *f;

	REQUIRE(parse("\xef\xbb\xbf[tfo]\npending_limit = 5\n") == 0);
	/* bytes that do not show are shown in the message */
	expect_error("[tfo]\n\xc2\xa0pending_limit = 5\n", "[tfo] \\xc2\\xa0pending_limit = \"5\"");
	expect_error("[tfo]\npending_limit = 5\n\xef\xbb\xbf[tcp]\n",
		     "expected 'key = value', got '\\xef\\xbb\\xbf[tcp]'");
	CHECK_EQ(cfg.pending_limit, 5);
	REQUIRE(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/bom.ini", dir);
	f = fopen(path, "w");
	REQUIRE(f != NULL);
	fputs("\xef\xbb\xbf[tfo]\r\npending_limit = 6\r\n", f);
	fclose(f);
	tfo_config_defaults(&cfg);
	CHECK_EQ(tfo_config_parse_file(&cfg, path, err, sizeof(err)), 0);
	CHECK_EQ(cfg.pending_limit, 6);
	unlink(path);
	REQUIRE(mkfifo(path, 0600) == 0);
	alarm(10);
	CHECK_EQ(tfo_config_parse_file(&cfg, path, err, sizeof(err)), -EINVAL);
	alarm(0);
	CHECK_MSG(strstr(err, "a FIFO, not a regular file") != NULL, "%s", err);
	unlink(path);
	CHECK_EQ(tfo_config_parse_file(&cfg, dir, err, sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "a directory") != NULL, "%s", err);
	rmdir(dir);
}

/* ---- the start plan (--print-config): lcores and memory ---------------- */

static int
layout(struct tfo_eal_layout *l, const char *args)
{
	char buf[256], *argv[32], *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", args);
	argv[argc++] = (char *)(uintptr_t)"tfo-server";
	for (char *t = strtok_r(buf, " ", &save); t != NULL && argc < 31;
	     t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	err[0] = '\0';
	return tfo_eal_layout_parse(argc, argv, l, err, sizeof(err));
}

/* The lcores the EAL would take, in the order the server uses them. */
TFO_TEST(eal_layout_reads_lcores_as_the_eal)
{
	static struct tfo_eal_layout l;

	REQUIRE(layout(&l, "-l 0-1 --no-huge -m 512") == 0);
	CHECK_EQ(l.nb_lcores, 2);
	CHECK(l.no_huge);
	CHECK_EQ(l.mem_mb, 512);
	REQUIRE(layout(&l, "-l1,3,5-6 --main-lcore 3") == 0);
	CHECK_EQ(l.nb_lcores, 4);
	CHECK_EQ(l.lcore[0], 3);	/* the main lcore is control 0 */
	CHECK_EQ(l.lcore[1], 1);
	CHECK_EQ(l.lcore[3], 6);
	REQUIRE(layout(&l, "-c 0x1e") == 0);
	CHECK_EQ(l.nb_lcores, 4);
	CHECK_EQ(l.lcore[0], 1);
	REQUIRE(layout(&l, "--lcores 0@1,(1-3)@(4-5) --socket-mem 100,200") == 0);
	CHECK_EQ(l.nb_lcores, 4);
	CHECK_EQ(l.cpu[0], 1);
	CHECK_EQ(l.cpu[2], 4);
	CHECK(l.has_socket_mem);
	CHECK_EQ(l.socket_mem_mb[1], 200);
	/* the last lcore option wins, as in the EAL */
	REQUIRE(layout(&l, "-l 0-7 -l 2-3") == 0);
	CHECK_EQ(l.nb_lcores, 2);
	CHECK(layout(&l, "-l 3-1") == -EINVAL);
	CHECK(strstr(err, "-l") != NULL);
	CHECK(layout(&l, "-l 0-1 --main-lcore 5") == -EINVAL);
	CHECK(strstr(err, "--main-lcore 5") != NULL);
	/* none given: every CPU the process may use (at least one) */
	REQUIRE(layout(&l, "--no-pci") == 0);
	CHECK(l.nb_lcores >= 1);
}

/* Each lcore's node from sysfs (cpuN/nodeK), 0 where there is none. */
TFO_TEST(eal_layout_sockets_from_sysfs)
{
	static struct tfo_eal_layout l;
	char root[] = "/tmp/tfo-sysfs.XXXXXX", path[256];

	REQUIRE(mkdtemp(root) != NULL);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu5/node1", root);
	for (char *p = path + strlen(root) + 1; *p != '\0'; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0700);
			*p = '/';
		}
	REQUIRE(mkdir(path, 0700) == 0);
	REQUIRE(layout(&l, "--lcores 0@4,1@5,2@6") == 0);
	tfo_eal_layout_sockets(&l, root);
	CHECK_EQ(l.socket[0], 0);	/* cpu4: no directory */
	CHECK_EQ(l.socket[1], 1);
	CHECK_EQ(l.socket[2], 0);
	rmdir(path);
	for (int up = 0; up < 4; up++) {
		*strrchr(path, '/') = '\0';
		rmdir(path);
	}
	CHECK(rmdir(root) == 0);
}

/* control_lcores = 16 with -l 0-1 passed --print-config and failed at
 * start: now refused before, naming both numbers. */
TFO_TEST(mem_plan_refuses_more_controls_than_lcores)
{
	static struct tfo_eal_layout l;
	static struct tfo_mem_plan p;

	REQUIRE(parse(tfo_config_embedded()) == 0);
	REQUIRE(layout(&l, "-l 0-1") == 0);
	cfg.control_lcores = 16;
	CHECK(tfo_mem_plan(&cfg, &l, &p, err, sizeof(err)) == -EINVAL);
	CHECK_MSG(strstr(err, "control_lcores = 16") != NULL && strstr(err, "17") != NULL &&
		  strstr(err, "gives 2") != NULL, "%s", err);
	cfg.control_lcores = 1;
	CHECK(tfo_mem_plan(&cfg, &l, &p, err, sizeof(err)) == 0);
	CHECK_EQ(p.nb_workers, 1);
}

/* The memory per socket: grows with the tables, pages cover the total,
 * and a two-socket layout gets a share on each socket with lcores. */
TFO_TEST(mem_plan_sizes_each_socket)
{
	static struct tfo_eal_layout l;
	static struct tfo_mem_plan p, big;
	char msg[256];

	REQUIRE(parse(tfo_config_embedded()) == 0);
	REQUIRE(layout(&l, "-l 0-3") == 0);
	REQUIRE(tfo_mem_plan(&cfg, &l, &p, err, sizeof(err)) == 0);
	CHECK_EQ(p.nb_workers, 3);
	CHECK(p.s[0].mbufs > 0 && p.s[0].pool > (uint64_t)p.s[0].mbufs * p.data_room);
	CHECK(p.s[0].tables > 4ull * cfg.max_conns * 128);
	CHECK_EQ(p.s[0].eal, (uint64_t)TFO_PLAN_EAL_MB << 20);
	CHECK(p.s[0].total >= p.s[0].pool + p.s[0].tables + p.s[0].bufs + p.s[0].other +
	      p.s[0].eal);
	CHECK_EQ(p.s[0].pages, (p.s[0].total + (2u << 20) - 1) >> 21);
	CHECK_EQ(p.s[1].total, 0);
	cfg.max_conns *= 4;
	REQUIRE(tfo_mem_plan(&cfg, &l, &big, err, sizeof(err)) == 0);
	/* 4 engines, 3 x the old max_conns more entries of 128 bytes each */
	CHECK(big.s[0].tables - p.s[0].tables >= 4ull * 3 * (cfg.max_conns / 4) * 128);
	/* lcores 2, 3 on socket 1: their engines and pool there */
	l.socket[2] = l.socket[3] = 1;
	REQUIRE(tfo_mem_plan(&cfg, &l, &big, err, sizeof(err)) == 0);
	CHECK(big.s[1].mbufs > 0 && big.s[1].tables > 0);
	/* two workers' against a worker's and the control's (TIME-WAIT
	 * capped at its entries) */
	CHECK(big.s[1].tables > big.s[0].tables);
	CHECK_EQ(big.pages, big.s[0].pages + big.s[1].pages);
	/* --no-huge: all of it on socket 0, and -m below it is said */
	REQUIRE(layout(&l, "-l 0-1 --no-huge -m 64") == 0);
	REQUIRE(tfo_mem_plan(&cfg, &l, &p, err, sizeof(err)) == 0);
	CHECK(tfo_mem_plan_short(&l, &p, msg, sizeof(msg)));
	CHECK(strstr(msg, "-m 64") != NULL);
	l.mem_mb = 1u << 20;
	CHECK(!tfo_mem_plan_short(&l, &p, msg, sizeof(msg)));
}

/* ---- configuration without traps (issue 27) ---------------------------- */

/* parse() must accept @p text; else the error, and the case stops. */
#define REQUIRE_PARSES(text) do { \
	int rc_ = parse(text); \
	CHECK_MSG(rc_ == 0, "%s", err); \
	REQUIRE(rc_ == 0); \
} while (0)

/* Integers are decimal: no C base detection ("010" was 8, "0x10" 16,
 * "08" refused), no sign, no leading zero; the message says why. */
TFO_TEST(integers_decimal_only)
{
	static const char *const bad[] = { "010", "0x10", "08", "+5", "00", "1e3",
					    "1 0", "0010" };
	char text[128];

	REQUIRE(parse("[server]\nidle_policy = sleep\nidle_sleep_us = 10\n") == 0);
	CHECK_EQ(cfg.idle_sleep_us, 10);
	REQUIRE(parse("[server]\nidle_policy = sleep\nidle_sleep_us = 0\n") == 0);
	CHECK_EQ(cfg.idle_sleep_us, 0);
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		snprintf(text, sizeof(text), "[server]\nidle_sleep_us = %s\n", bad[i]);
		expect_error(text, "expected an integer in 0..100000");
	}
	expect_error("[server]\nidle_sleep_us = 010\n", "(decimal, without leading zeros)");
	expect_error("[port a]\nmtu = 01500\n", "mtu = \"01500\": expected an integer in "
		     "68..9198 (decimal");
	expect_error("[port a]\nexception_pps = 0x10\n", "exception_pps");
	expect_error("[service echo]\nport = 07\n", "expected a TCP port 1..65535 (decimal");
	expect_error("[port a]\nipv4 = 10.0.0.1/08\n", "not an IPv4 address");
	REQUIRE(parse("[port a]\nipv4 = 10.0.0.1/8\n") == 0);
	CHECK_EQ(cfg.ports[0].addrs[0].prefix_len, 8);
}

/* A --set to a [port]/[service] the configuration lacks is a typo, refused
 * with the ones it has, unless its key starts one; section names are
 * trimmed as in the file (no device "net_tap0 "). */
TFO_TEST(overrides_name_known_sections)
{
	REQUIRE(parse(tfo_config_embedded()) == 0);
	REQUIRE(cfg.nb_ports == 1 && cfg.nb_services == 2);
	CHECK_EQ(tfo_config_override(&cfg, "port eth0", "ipv4", "198.18.0.9/24", err,
				     sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "[port eth0] ipv4 = \"198.18.0.9/24\": the configuration has "
			 "no [port eth0]; its ports: net_tap0 (a new one starts with its vdev")
		  != NULL, "%s", err);
	CHECK_EQ(cfg.nb_ports, 1);
	CHECK_EQ(tfo_config_override(&cfg, "port net_tap0 ", "ipv4", "198.18.0.9/24", err,
				     sizeof(err)), 0);
	CHECK_EQ(tfo_config_override(&cfg, " port  net_tap0", " mtu ", " 9000 ", err,
				     sizeof(err)), 0);
	CHECK_EQ(tfo_config_set(&cfg, "port net_tap0\t", "mtu", "1400", err, sizeof(err)), 0);
	REQUIRE(cfg.nb_ports == 1);
	CHECK_EQ(cfg.ports[0].nb_addrs, 3);
	CHECK_EQ(cfg.ports[0].mtu, 1400);
	/* its vdev starts a new port (empty for a PCI device) */
	CHECK_EQ(tfo_config_override(&cfg, "port net_null1", "vdev", "net_null1", err,
				     sizeof(err)), 0);
	CHECK_EQ(tfo_config_override(&cfg, "port 0000:01:00.0", "vdev", "", err,
				     sizeof(err)), 0);
	CHECK_EQ(tfo_config_override(&cfg, "port net_null1", "ipv4", "198.18.1.2/24", err,
				     sizeof(err)), 0);
	CHECK_EQ(cfg.nb_ports, 3);
	/* a device name is one word */
	CHECK_EQ(tfo_config_set(&cfg, "port net tap", "mtu", "1500", err, sizeof(err)),
		 -EINVAL);
	CHECK_MSG(strstr(err, "bad device name") != NULL, "%s", err);
	/* services: a known one by name, a new one by its port or plugin */
	REQUIRE(parse("[port a]\nipv4 = 10.0.0.1\n[service http]\nport = 80\n") == 0);
	CHECK_EQ(tfo_config_override(&cfg, "service echo", "max_line", "10", err,
				     sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "no [service echo]; its services: http (a new one starts "
			 "with its port = N, or plugin = PATH.so)") != NULL, "%s", err);
	CHECK_EQ(tfo_config_override(&cfg, "service echo", "port", "7", err, sizeof(err)), 0);
	CHECK_EQ(tfo_config_override(&cfg, "service  echo", "max_line", "10", err,
				     sizeof(err)), 0);
	CHECK_EQ(cfg.nb_services, 2);
	/* no port at all: the first comes from any key */
	REQUIRE(parse("[tfo]\npending_limit = 8\n") == 0);
	CHECK_EQ(tfo_config_override(&cfg, "port net_tap0", "ipv4", "198.18.0.2/24", err,
				     sizeof(err)), 0);
	CHECK_EQ(tfo_config_override(&cfg, "tfo", "pending_limit", "9", err, sizeof(err)), 0);
	CHECK_EQ(cfg.pending_limit, 9);
}

/* Our addresses are host addresses. */
TFO_TEST(addresses_are_hosts)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
		{ "ipv4 = 0.0.0.0/0", "unspecified" }, { "ipv4 = 0.0.0.0", "unspecified" },
		{ "ipv6 = ::/0", "unspecified" }, { "ipv6 = ::", "unspecified" },
		{ "ipv4 = 127.0.0.1/8", "loopback" }, { "ipv6 = ::1", "loopback" },
		{ "ipv4 = 224.0.0.1", "multicast" }, { "ipv6 = ff02::1", "multicast" },
		{ "ipv4 = 255.255.255.255", "the broadcast address" },
		{ "ipv4 = 198.18.0.0/24", "network address of its prefix" },
		{ "ipv4 = 198.18.0.255/24", "broadcast address of its prefix" },
		{ "ipv6 = fd00::/64", "subnet-router anycast" },
	};
	static const char *const good[] = {
		"ipv4 = 198.18.0.2/24", "ipv4 = 198.18.0.0/31", "ipv4 = 198.18.0.255/32",
		"ipv4 = 198.18.0.255/23", "ipv6 = fd00::/127", "ipv6 = fd00::ffff/64",
		"ipv6 = fe80::2/64",
	};
	char text[128];

	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		snprintf(text, sizeof(text), "[port a]\n%s\n", bad[i].line);
		expect_error(text, bad[i].why);
	}
	for (unsigned int i = 0; i < RTE_DIM(good); i++) {
		snprintf(text, sizeof(text), "[port a]\n%s\n", good[i]);
		CHECK_MSG(parse(text) == 0, "%s: %s", good[i], err);
	}
}

/* Keys that depend on each other, checked before a start with both
 * named: one address on one port, IPv6's MTU, the http head within
 * max_request, the per-source cap within the limit, the least mbufs. */
TFO_TEST(cross_key_rules_name_the_keys)
{
	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1/24\n[port b]\nipv4 = 10.0.0.1/16\n"),
		 -EINVAL);
	CHECK_MSG(strstr(err, "[port b] ipv4 = 10.0.0.1: already an address of [port a]")
		  != NULL, "%s", err);
	CHECK_EQ(validate("[port a]\nipv6 = fd00::1/64\n[port b]\nipv6 = fd00::1\n"),
		 -EINVAL);
	CHECK_MSG(strstr(err, "[port b] ipv6 = fd00::1: already an address of [port a]")
		  != NULL, "%s", err);
	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1/24\n[port b]\nipv4 = 10.0.0.2/24\n"), 0);

	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1\nipv6 = fd00::1/64\nmtu = 1000\n"),
		 -EINVAL);
	CHECK_MSG(strstr(err, "[port a] mtu = 1000 with ipv6 = fd00::1: IPv6 needs an MTU "
			 "of 1280") != NULL, "%s", err);
	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1\nmtu = 1000\n"), 0);
	CHECK_EQ(validate("[port a]\nipv6 = fd00::1/64\nmtu = 1280\n"), 0);

	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1\n[tcp]\nmax_request = 2048\n"
			  "[service http]\nport = 80\nroot = /\n"), -EINVAL);
	CHECK_MSG(strstr(err, "[service http] max_header = 8192 above [tcp] max_request = "
			 "2048") != NULL, "%s", err);
	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1\n[tcp]\nmax_request = 2048\n"
			  "[service http]\nport = 80\nroot = /\nmax_header = 2K\n"
			  "max_uri = 1K\n"), 0);

	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1\n[tfo]\npending_limit = 64\n"
			  "pending_per_source = 65\n"), -EINVAL);
	CHECK_MSG(strstr(err, "[tfo] pending_per_source = 65 above [tfo] pending_limit = 64")
		  != NULL, "%s", err);
	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1\n[tfo]\npending_limit = 64\n"
			  "pending_per_source = 64\n"), 0);
	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1\n[tfo]\npending_limit = 0\n"
			  "pending_per_source = 0\n"), 0);

	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1\n[server]\nmbufs = 1\n"), -EINVAL);
	CHECK_MSG(strstr(err, "[server] mbufs = 1: too small for any start") != NULL &&
		  strstr(err, "need at least ") != NULL, "%s", err);
	CHECK_EQ(validate("[port a]\nipv4 = 10.0.0.1\n[server]\nmbufs = 1000000\n"), 0);
}

/* One boolean grammar for every boolean key; enum values in any case. */
TFO_TEST(one_boolean_grammar)
{
	static const char *const yes[] = { "yes", "YES", "true", "True", "on", "ON", "1" };
	static const char *const no[] = { "no", "No", "false", "FALSE", "off", "Off", "0" };
	char text[256];

	for (unsigned int i = 0; i < RTE_DIM(yes); i++) {
		snprintf(text, sizeof(text), "[tfo]\nenabled = %s\ncookie_not_required = %s\n"
			 "[port a]\nsyn_steering = %s\nexception = %s\nisolate = %s\n",
			 no[i], yes[i], yes[i], yes[i], yes[i]);
		REQUIRE_PARSES(text);
		CHECK(!cfg.tfo_enabled && cfg.cookie_not_required);
		CHECK(cfg.ports[0].syn_steering && cfg.ports[0].exception &&
		      cfg.ports[0].isolate);
		snprintf(text, sizeof(text), "[tfo]\nenabled = %s\ncookie_not_required = %s\n"
			 "[port a]\nsyn_steering = %s\nexception = %s\nisolate = %s\n",
			 yes[i], no[i], no[i], no[i], no[i]);
		REQUIRE_PARSES(text);
		CHECK(cfg.tfo_enabled && !cfg.cookie_not_required);
		CHECK(!cfg.ports[0].syn_steering && !cfg.ports[0].exception &&
		      !cfg.ports[0].isolate);
	}
	expect_error("[tfo]\nenabled = y\n", "expected yes or no (or on/off, true/false, 1/0");
	expect_error("[port a]\nexception = enabled\n", "expected yes or no (or on/off");
	REQUIRE(parse("[port a]\noffload = OFF\nrss = Peer\nxdp = Own\n"
		      "[tfo]\ncookie_algo = SipHash-Linux\n") == 0);
	CHECK_EQ(cfg.ports[0].offload, TFO_OFFLOAD_OFF);
	CHECK_EQ(cfg.ports[0].rss, TFO_RSS_PEER);
	CHECK_EQ(cfg.ports[0].xdp, TFO_XDP_OWN);
	CHECK(strcmp(cfg.cookie_algo, "siphash-linux") == 0);
}

/* Comments with ';' or '#', at the start of a line or after white space;
 * one inside a word is part of the value. */
TFO_TEST(comments_after_white_space)
{
	REQUIRE_PARSES("[port a] # the tap\nipv4 = 10.0.0.1 ; ours\nmtu = 9000 # jumbo\n"
		       "rx_desc = 512\t;tabs\n  # indented\n\t; indented\n");
	CHECK_EQ(cfg.ports[0].mtu, 9000);
	CHECK_EQ(cfg.ports[0].rx_desc, 512);
	REQUIRE_PARSES("[port net_pcap0]\nvdev = net_pcap0,rx_pcap=/tmp/a#1;b.pcap\n"
		       "[eal]\nargs = -l 0-1 --file-prefix x#y;z\n");
	CHECK(strcmp(cfg.ports[0].vdev, "net_pcap0,rx_pcap=/tmp/a#1;b.pcap") == 0);
	CHECK(strcmp(cfg.eal_args, "-l 0-1 --file-prefix x#y;z") == 0);
	expect_error("[port a]\nmtu = 9000#jumbo\n", "mtu = \"9000#jumbo\"");
	expect_error("[port a]\nmtu = 9000;jumbo\n", "mtu = \"9000;jumbo\"");
	REQUIRE(parse("[tfo]\nkey_file = # none\n") == 0);
	CHECK_EQ(cfg.key_file[0], '\0');
}

/* [server] access_log: off by default, a path; access_log_sample >= 1. */
TFO_TEST(access_log_keys)
{
	tfo_config_defaults(&cfg);
	CHECK_EQ(cfg.access_log[0], '\0');
	CHECK_EQ(cfg.access_log_sample, 1u);
	REQUIRE(parse("[server]\naccess_log = /var/log/tfo/access.log\n"
		      "access_log_sample = 100\n") == 0);
	CHECK(strcmp(cfg.access_log, "/var/log/tfo/access.log") == 0);
	CHECK_EQ(cfg.access_log_sample, 100u);
	expect_error("[server]\naccess_log_sample = 0\n", "access_log_sample");
	expect_error("[server]\naccess_log_sample = 1000001\n", "access_log_sample");
}

/* [service NAME] udp: a boolean, only for services that serve UDP
 * (udp_ok: echo); printed by --print-config and read back. */
TFO_TEST(service_udp_key)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE(parse("[service echo]\nport = 7\nudp = on\n") == 0);
	REQUIRE(cfg.nb_services == 1);
	CHECK(cfg.services[0].udp);
	CHECK_EQ(cfg.services[0].nb_kv, 0u);	/* not one of echo's own keys */
	f = open_memstream(&text, &len);
	REQUIRE(f != NULL);
	tfo_config_dump(f, &cfg);
	fclose(f);
	CHECK(strstr(text, "[service echo]\nport = 7\nudp = on\n") != NULL);
	REQUIRE(parse(text) == 0);
	CHECK(cfg.services[0].udp);
	free(text);
	REQUIRE(parse("[service echo]\nport = 7\nudp = off\n") == 0);
	CHECK(!cfg.services[0].udp);
	expect_error("[service echo]\nport = 7\nudp = maybe\n", "expected a boolean");
	expect_error("[service http]\nport = 80\nudp = on\n",
		     "service http does not serve UDP");
	/* off is harmless for any service */
	REQUIRE(parse("[service http]\nport = 80\nudp = off\n") == 0);
	CHECK(!cfg.services[0].udp);
}

/* A repeat key keeps every occurrence in order; another key's last wins. */
TFO_TEST(service_repeat_key)
{
	const struct tfo_cfg_service *s;

	REQUIRE(parse("[service dns]\nport = 53\nzone = a.example:a.zone\n"
		      "edns_size = 512\nzone = b.example:b.zone\nedns_size = 1232\n") == 0);
	REQUIRE(cfg.nb_services == 1);
	s = &cfg.services[0];
	REQUIRE(s->nb_kv == 3);
	CHECK(strcmp(s->kv[0].key, "zone") == 0);
	CHECK(strcmp(s->kv[0].value, "a.example:a.zone") == 0);
	CHECK(strcmp(s->kv[1].key, "edns_size") == 0);
	CHECK(strcmp(s->kv[1].value, "1232") == 0);
	CHECK(strcmp(s->kv[2].key, "zone") == 0);
	CHECK(strcmp(s->kv[2].value, "b.example:b.zone") == 0);
	CHECK(tfo_service_key_repeats(tfo_service_find("dns"), "zone"));
	CHECK(!tfo_service_key_repeats(tfo_service_find("dns"), "edns_size"));
	CHECK(!tfo_service_key_repeats(tfo_service_find("http"), "root"));
}

/* Write @p text to @p path (a file made for a test). */
static int
put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/*
 * The base directory of the embedded configuration (ops/paths.h): a binary
 * in a meson build root with the mark reads the source tree's config/; one
 * without meson-private/ beside the mark, one too deep, or one elsewhere
 * reads the installed datadir. This test binary itself is in the build tree.
 */
TFO_TEST(base_dir_build_tree_or_installed)
{
	char root[] = "/tmp/tfo-paths-XXXXXX", p[512], cfgdir[512], exe[512], dir[4096];

	REQUIRE(mkdtemp(root) != NULL);
	snprintf(cfgdir, sizeof(cfgdir), "%s/src-config", root);
	REQUIRE(mkdir(cfgdir, 0700) == 0);
	snprintf(p, sizeof(p), "%s/build", root);
	REQUIRE(mkdir(p, 0700) == 0);
	snprintf(p, sizeof(p), "%s/build/apps", root);
	REQUIRE(mkdir(p, 0700) == 0);
	snprintf(p, sizeof(p), "%s/build/" TFO_PATHS_MARKER, root);
	snprintf(dir, sizeof(dir), "%s\n", cfgdir);
	REQUIRE(put_file(p, dir) == 0);
	snprintf(exe, sizeof(exe), "%s/build/apps/tfo-server", root);
	REQUIRE(put_file(exe, "") == 0);

	/* the mark without meson-private/: not a build root */
	CHECK(!tfo_paths_base_dir(exe, dir, sizeof(dir)));
	CHECK(strcmp(dir, tfo_paths_datadir()) == 0);
	snprintf(p, sizeof(p), "%s/build/meson-private", root);
	REQUIRE(mkdir(p, 0700) == 0);
	CHECK(tfo_paths_base_dir(exe, dir, sizeof(dir)));
	CHECK(strcmp(dir, cfgdir) == 0);
	/* a path that does not exist is not followed */
	CHECK(!tfo_paths_base_dir("/nonexistent/bin/tfo-server", dir, sizeof(dir)));
	CHECK(strcmp(dir, tfo_paths_datadir()) == 0);
	/* this test binary runs from the build tree: the source's config/ */
	CHECK(tfo_paths_base_dir(NULL, dir, sizeof(dir)));
	CHECK(strcmp(dir, TFO_CONFIG_DIR) == 0);
	tfo_config_defaults(&cfg);
	CHECK(strcmp(cfg.base_dir, TFO_CONFIG_DIR) == 0);
	CHECK(strncmp(tfo_paths_sysconfdir(), "/", 1) == 0);

	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	CHECK_EQ(system(p), 0);
}

TFO_TEST_MAIN()
