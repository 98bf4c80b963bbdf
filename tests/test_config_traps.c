/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: configuration without traps (issue 27):
 * decimal integers, known sections in overrides, host addresses, cross-key
 * rules that name the keys, one boolean grammar, comments, the access log,
 * service udp and repeat keys; parsing that loads no plugin (issue 38).
 */
#include "config_harness.h"
#include "ops/paths.h"

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

/*
 * Parsing (the ground floor) records a service section as written and
 * loads nothing: an unknown service, a plugin that is not there and a key
 * the service refuses all parse; tfo_config_services_load (the assembly)
 * refuses each in the parser's words, with the file's line, or a --set's.
 */
TFO_TEST(parsing_loads_no_plugin)
{
	static const char text[] = "[service nosuch]\nport = 1\n"
				   "[service plug]\nplugin = /nonexistent/plug.so\nport = 2\n";
	unsigned int line = 99;

	tfo_config_defaults(&cfg);
	REQUIRE(tfo_config_parse_string(&cfg, text, "t.ini", err, sizeof(err)) == 0);
	REQUIRE(cfg.nb_services == 2);
	CHECK(!cfg.services[0].loaded && !cfg.services[1].loaded);
	CHECK(strcmp(cfg.services[1].plugin, "/nonexistent/plug.so") == 0);
	CHECK_EQ(cfg.services[1].plugin_line, 4u);
	CHECK(tfo_service_find("nosuch") == NULL && tfo_service_find("plug") == NULL);
	/* not loaded: the whole-configuration check refuses, never skips */
	CHECK(tfo_config_validate(&cfg, err, sizeof(err)) < 0);
	CHECK_EQ(tfo_config_services_load(&cfg, &line, err, sizeof(err)), -EINVAL);
	CHECK_EQ(line, 2u);
	CHECK_MSG(strstr(err, "t.ini:2: [service nosuch] port = \"1\": no service named "
			 "'nosuch' (built in:") != NULL, "%s", err);
	/* the plugin: its line, its path as written, why it did not load */
	cfg.nb_services = 1;
	memmove(&cfg.services[0], &cfg.services[1], sizeof(cfg.services[0]));
	CHECK_EQ(tfo_config_services_load(&cfg, &line, err, sizeof(err)), -EINVAL);
	CHECK_EQ(line, 4u);
	CHECK_MSG(strstr(err, "t.ini:4: [service plug] plugin = \"/nonexistent/plug.so\": "
			 "/nonexistent/plug.so: No such file") != NULL, "%s", err);
	/* a --set's key: line 0, worded as tfo_config_set words a refusal */
	tfo_config_defaults(&cfg);
	REQUIRE(tfo_config_set(&cfg, "service echo", "port", "7", err, sizeof(err)) == 0);
	REQUIRE(tfo_config_set(&cfg, "service echo", "max_lin", "5", err, sizeof(err)) == 0);
	CHECK_EQ(tfo_config_services_load(&cfg, &line, err, sizeof(err)), -EINVAL);
	CHECK_EQ(line, 0u);
	CHECK_MSG(strcmp(err, "[service echo] max_lin = \"5\": unknown key for service "
			 "echo") == 0, "%s", err);
	/* loaded, a later key is checked by the next load: loaded again */
	cfg.services[0].nb_kv = 1;	/* drop the bad key: port only */
	CHECK_EQ(tfo_config_services_load(&cfg, &line, err, sizeof(err)), 0);
	CHECK(cfg.services[0].loaded && cfg.services[0].port == 7 &&
	      cfg.services[0].nb_kv == 0);
	REQUIRE(tfo_config_set(&cfg, "service echo", "max_line", "100", err, sizeof(err)) == 0);
	CHECK(!cfg.services[0].loaded);
	CHECK_EQ(tfo_config_services_load(&cfg, &line, err, sizeof(err)), 0);
	CHECK(cfg.services[0].loaded && cfg.services[0].nb_kv == 1 &&
	      strcmp(cfg.services[0].kv[0].value, "100") == 0);
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

