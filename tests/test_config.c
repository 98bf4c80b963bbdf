/* SPDX-License-Identifier: BSD-3-Clause
 * Configuration parser: the embedded default, every kind of error (one line
 * naming the key and value), overrides, and dump/parse round trips.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfo/config.h"
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
	expect_error("[tcp]\nsyncookies = maybe\n", "expected yes or no");
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
	expect_error("[port net_tap0]\ncolor = red\n", "unknown key in a [port] section");
	expect_error("[port]\nmtu = 1500\n", "needs a device");
	expect_error("[service nosuch]\nport = 1\n", "no service named 'nosuch'");
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

	REQUIRE(parse("[port a]\nipv4 = 10.0.0.1\n[tfo]\ncookie_algo = md5\n") == 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "cookie_algo = \"md5\"") != NULL);

	REQUIRE(parse("[port a]\nipv4 = 10.0.0.1\n[tcp]\nrto_min_ms = 5000\nrto_max_ms = 1000\n") == 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "rto_max_ms") != NULL);

	REQUIRE(parse("[port a]\nipv4 = 10.0.0.1\n") == 0);
	CHECK_EQ(tfo_config_validate(&cfg, err, sizeof(err)), 0);
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

TFO_TEST_MAIN()
