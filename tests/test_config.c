/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the configuration parser: the embedded default,
 * every kind of error (one line naming the key and value), overrides, and
 * dump/parse round trips. The "config" program is this file,
 * test_config_plan.c and test_config_traps.c (tests/meson.build) on
 * config_harness.c.
 */
#include "config_harness.h"

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

TFO_TEST_MAIN()
