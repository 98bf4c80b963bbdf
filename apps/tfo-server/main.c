/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-server: the TCP Fast Open server fast path.
 *
 *   tfo-server [EAL args] -- [options]
 *
 * The first lcore is the control core, every other lcore a worker. With no
 * EAL arguments the [eal] args of the configuration are used; with no
 * --config, the configuration compiled into the binary.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_pdump.h>
#include <rte_version.h>

#include "ops/config.h"
#include "lcore/control.h"
#include "tfo/log.h"
#include "ops/stats.h"
#include "server/config_check.h"
#include "server/config_services.h"
#include "server/server.h"
#include "server/start_plan.h"
#include "server/eal_check.h"
#include "net/dev_owner.h"
#include "net/xdp.h"

#include "app.h"

#define TFO_MAX_EAL_ARGS 128

/* SIGTERM drains it (a second one stops it), SIGINT stops it at once,
 * SIGHUP reloads the key file, the services' files and the access log. */
static struct tfo_server *volatile server;
static volatile sig_atomic_t stop_early;	/* one came before the server */

struct app {
	struct tfo_config cfg;
	bool print_config;
};

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL args] -- [options]\n"
		"\n"
		"TCP Fast Open (RFC 7413) server on DPDK. Without EAL arguments the\n"
		"[eal] args of the configuration are used (the embedded default: one\n"
		"net_tap port, kernel interface tfo0, --no-huge). Without \"--\", all\n"
		"arguments are options. The first lcore is the control core (the\n"
		"first N with server.control_lcores = N: the slow path spread over\n"
		"them), every other lcore a worker with one RX/TX queue on every port.\n"
		"\n"
		"options:\n"
		"  --config FILE         configuration file (default: the embedded one)\n"
		"  --set SEC.KEY=VALUE   override one key, e.g. --set tfo.pending_limit=64,\n"
		"                        --set \"port net_tap0.mtu=9000\" (repeatable); a port\n"
		"                        or service the configuration lacks is refused,\n"
		"                        unless the key starts one (port: vdev; service:\n"
		"                        port or plugin)\n"
		"  --stats-period SEC    print a stats line of rates every SEC seconds (server.stats_period)\n"
		"  --pending-limit N     pending TFO connections per worker (tfo.pending_limit;\n"
		"                        tfo.pending_per_source is lowered to N if above)\n"
		"  --cookie-algo ALGO    aes128 | siphash-linux (tfo.cookie_algo)\n"
		"  --key-file FILE       TFO key file, Linux format (tfo.key_file)\n"
		"  --no-tfo              plain TCP only (tfo.enabled=no)\n"
		"  --max-conns N         connection table size per lcore (tcp.max_conns)\n"
		"  --burst N             RX burst size (server.burst)\n"
		"  --idle-policy P       adaptive | busy | sleep: what an idle lcore does\n"
		"                        (server.idle_policy; --help-config says what each costs)\n"
		"  --idle-sleep-us N     nap N us after every empty poll: idle_policy sleep\n"
		"                        (N = 0: busy), as before idle_policy existed\n"
		"  --www DIR             document root of the http service (service http.root)\n"
		"  --print-config        check the configuration as a start would (lcores from\n"
		"                        the EAL arguments included), print it and the memory\n"
		"                        (hugepages) it needs per socket, and exit\n"
		"  --help-config         list every configuration key and exit (a service\n"
		"                        that serves UDP takes udp = on: echo, dns)\n"
		"  --help-counters       list every counter and what it counts (a Markdown\n"
		"                        table, as in docs/runbook.md; the built-in services'\n"
		"                        own counters last) and exit\n"
		"  --version             print the version and exit\n"
		"  -h, --help            this text\n"
		"\n"
		"Counters (the configured services' own too): a stats line every\n"
		"--stats-period, a summary at exit, and the telemetry command /tfo/stats\n"
		"(dpdk-telemetry.py -f PREFIX).\n"
		"SIGTERM (or /tfo/drain) drains the server: new SYNs are refused with a\n"
		"RST (clients try their next address), the connections in flight are\n"
		"served to their end or until server.drain_timeout (30 s), then it\n"
		"exits 0; a second SIGTERM, or SIGINT, stops it at once (exit code 0).\n"
		"Under systemd (Type=notify) it sends READY=1 once every lcore polls,\n"
		"STOPPING=1 when a drain starts, WATCHDOG=1 with WatchdogSec. SIGHUP (or\n"
		"/tfo/reload) reloads what comes from files, each part on its own: the\n"
		"key file (KEY promotes KEY to primary, the old primary becomes the\n"
		"backup; PRIMARY,BACKUP installs both; none configured: nothing to do),\n"
		"every service's reload (dns: zones and cookie secret; http: root and\n"
		"rules) and the access log (reopened). A part that fails is refused\n"
		"with its reason and keeps serving its old state.\n",
		prog);
}

/* --set "SECTION.KEY=VALUE"; the section may contain spaces and dots
 * ("port 0000:01:00.0.mtu=9000"), so split at the last dot before '='. */
static void
apply_set(struct tfo_config *cfg, const char *arg)
{
	char buf[1024], err[TFO_CFG_ERR];
	char *eq, *dot;

	if (strlen(arg) >= sizeof(buf))
		app_die("--set %s: too long", arg);
	strcpy(buf, arg);
	eq = strchr(buf, '=');
	if (eq == NULL)
		app_die("--set %s: expected SECTION.KEY=VALUE", arg);
	*eq = '\0';
	dot = strrchr(buf, '.');
	if (dot == NULL)
		app_die("--set %s: expected SECTION.KEY=VALUE", arg);
	*dot = '\0';
	if (tfo_config_override(cfg, buf, dot + 1, eq + 1, err, sizeof(err)) < 0)
		app_die("--set: %s", err);
}

static void
apply_key(struct tfo_config *cfg, const char *opt, const char *section,
	  const char *key, const char *value)
{
	char err[TFO_CFG_ERR];

	if (tfo_config_set(cfg, section, key, value, err, sizeof(err)) < 0)
		app_die("%s %s: %s", opt, value, err);
}

enum {
	OPT_CONFIG = 256, OPT_SET, OPT_STATS_PERIOD, OPT_PENDING_LIMIT,
	OPT_COOKIE_ALGO, OPT_KEY_FILE, OPT_NO_TFO, OPT_MAX_CONNS, OPT_BURST,
	OPT_IDLE_SLEEP, OPT_PRINT_CONFIG, OPT_HELP_CONFIG, OPT_VERSION, OPT_WWW,
	OPT_HELP_COUNTERS, OPT_IDLE_POLICY,
};

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "set", required_argument, NULL, OPT_SET },
	{ "stats-period", required_argument, NULL, OPT_STATS_PERIOD },
	{ "pending-limit", required_argument, NULL, OPT_PENDING_LIMIT },
	{ "cookie-algo", required_argument, NULL, OPT_COOKIE_ALGO },
	{ "key-file", required_argument, NULL, OPT_KEY_FILE },
	{ "no-tfo", no_argument, NULL, OPT_NO_TFO },
	{ "max-conns", required_argument, NULL, OPT_MAX_CONNS },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "idle-sleep-us", required_argument, NULL, OPT_IDLE_SLEEP },
	{ "idle-policy", required_argument, NULL, OPT_IDLE_POLICY },
	{ "www", required_argument, NULL, OPT_WWW },
	{ "print-config", no_argument, NULL, OPT_PRINT_CONFIG },
	{ "help-config", no_argument, NULL, OPT_HELP_CONFIG },
	{ "help-counters", no_argument, NULL, OPT_HELP_COUNTERS },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * Every counter with its kind and help string, as a Markdown table: the
 * runbook's table is this output (a test compares them), so that it cannot
 * go stale when a counter is added.
 */
static void
help_counters(FILE *f)
{
	fprintf(f, "| counter | kind | what it counts |\n|---|---|---|\n");
	for (unsigned int i = 0; i < TFO_STAT_MAX; i++) {
		if (i == TFO_STAT_PKT_DROP_BASE)
			continue;
		fprintf(f, "| `%s` | %s | ", tfo_stats_name(i),
			tfo_stats_is_gauge(i) ? "gauge" : "counter");
		for (const char *h = tfo_stats_help(i); *h != '\0'; h++) {
			if (*h == '|' || *h == '<' || *h == '>')
				fputc('\\', f);	/* Markdown would read a column or a tag */
			fputc(*h, f);
		}
		fprintf(f, " |\n");
	}
	/* the built-in services' own counters, whether configured or not */
	for (const struct tfo_service *s = tfo_service_first(); s != NULL; s = s->next)
		for (const struct tfo_svc_counter *k = s->counters; k != NULL && k->name != NULL;
		     k++)
			fprintf(f, "| `%s` | counter | service %s: %s |\n", k->name, s->name,
				k->help != NULL ? k->help : "");
}

/*
 * After the file and the overrides: the plugins load, each service checks
 * its keys (one of the file's refused as the parser refuses one, a --set's
 * as --set), then the configuration as a whole.
 */
static void
config_ready(struct tfo_config *cfg)
{
	char err[TFO_CFG_ERR];
	unsigned int line = 0;

	if (tfo_config_services_load(cfg, &line, err, sizeof(err)) < 0) {
		if (line != 0)
			app_die("config %s", err);
		app_die("--set: %s", err);
	}
	if (tfo_config_validate(cfg, err, sizeof(err)) < 0)
		app_die("config: %s", err);
}

/* The second pass: every override, in command-line order. */
static void
apply_overrides(struct app *a, int argc, char **argv)
{
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		switch (opt) {
		case OPT_SET:
			apply_set(&a->cfg, optarg);
			break;
		case OPT_STATS_PERIOD:
			apply_key(&a->cfg, "--stats-period", "server", "stats_period", optarg);
			break;
		case OPT_PENDING_LIMIT:
			apply_key(&a->cfg, "--pending-limit", "tfo", "pending_limit", optarg);
			/* the per-source cap may not exceed the limit: the short
			 * option lowers it with the limit (0: no TFO pending) */
			if (a->cfg.pending_per_source > a->cfg.pending_limit)
				a->cfg.pending_per_source = a->cfg.pending_limit;
			break;
		case OPT_COOKIE_ALGO:
			apply_key(&a->cfg, "--cookie-algo", "tfo", "cookie_algo", optarg);
			break;
		case OPT_KEY_FILE:
			apply_key(&a->cfg, "--key-file", "tfo", "key_file", optarg);
			break;
		case OPT_NO_TFO:
			apply_key(&a->cfg, "--no-tfo", "tfo", "enabled", "no");
			break;
		case OPT_MAX_CONNS:
			apply_key(&a->cfg, "--max-conns", "tcp", "max_conns", optarg);
			break;
		case OPT_BURST:
			apply_key(&a->cfg, "--burst", "server", "burst", optarg);
			break;
		case OPT_IDLE_SLEEP:
			apply_key(&a->cfg, "--idle-sleep-us", "server", "idle_sleep_us", optarg);
			apply_key(&a->cfg, "--idle-sleep-us", "server", "idle_policy",
				  a->cfg.idle_sleep_us != 0 ? "sleep" : "busy");
			break;
		case OPT_IDLE_POLICY:
			apply_key(&a->cfg, "--idle-policy", "server", "idle_policy", optarg);
			break;
		case OPT_WWW:
			/* relative to the current directory, as a command-line path */
			if (optarg[0] != '/') {
				char cwd[PATH_MAX], path[PATH_MAX * 2];

				if (getcwd(cwd, sizeof(cwd)) == NULL)
					app_die("--www %s: cannot read the current directory", optarg);
				snprintf(path, sizeof(path), "%s/%s", cwd, optarg);
				apply_key(&a->cfg, "--www", "service http", "root", path);
			} else {
				apply_key(&a->cfg, "--www", "service http", "root", optarg);
			}
			break;
		case OPT_PRINT_CONFIG:
			a->print_config = true;
			break;
		default:
			break;
		}
	}
}

/*
 * Options are applied in two passes: --config first (it replaces the
 * embedded file), then every override in command-line order.
 */
static void
parse_app_args(struct app *a, int argc, char **argv, const char *prog)
{
	char err[TFO_CFG_ERR];
	const char *config_file = NULL;
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		switch (opt) {
		case OPT_CONFIG:
			config_file = optarg;
			break;
		case 'h':
			usage(stdout, prog);
			exit(0);
		case OPT_HELP_CONFIG:
			tfo_config_help(stdout);
			tfo_config_help_services(stdout);
			exit(0);
		case OPT_HELP_COUNTERS:
			help_counters(stdout);
			exit(0);
		case OPT_VERSION:
			printf("tfo-server %s (%s)\n", TFO_VERSION, rte_version());
			exit(0);
		case '?':
			if (optopt != 0)
				app_die("option -%c: unknown or missing its argument (see --help)",
				    optopt);
			app_die("option %s: unknown or missing its argument (see --help)",
			    argv[optind - 1]);
		default:
			break;
		}
	}
	if (optind < argc)
		app_die("unexpected argument '%s' (EAL arguments go before \"--\")",
		    argv[optind]);

	tfo_config_defaults(&a->cfg);
	if (config_file != NULL) {
		if (tfo_config_parse_file(&a->cfg, config_file, err, sizeof(err)) < 0)
			app_die("config %s", err);
	} else if (tfo_config_parse_string(&a->cfg, tfo_config_embedded(),
					   "(embedded config/tfo-server.ini)", err,
					   sizeof(err)) < 0) {
		app_die("config %s", err);
	}

	apply_overrides(a, argc, argv);
	config_ready(&a->cfg);
}

/* Is a --vdev for @device already among the EAL arguments? */
static bool
eal_has_vdev(char **eal, int n, const char *device)
{
	size_t len = strlen(device);

	for (int i = 0; i < n; i++) {
		const char *v = NULL;

		if (strcmp(eal[i], "--vdev") == 0 && i + 1 < n)
			v = eal[i + 1];
		else if (strncmp(eal[i], "--vdev=", 7) == 0)
			v = eal[i] + 7;
		if (v != NULL && strncmp(v, device, len) == 0 &&
		    (v[len] == '\0' || v[len] == ','))
			return true;
	}
	return false;
}

/* Build the EAL argv: the user's, or the configuration's, plus the vdevs
 * (not for --print-config, @p vdevs false: an AF_XDP port's program is
 * prepared only for a start, on an interface that exists by then). */
static int
build_eal_args(struct app *a, int user_argc, char **user_argv, char **eal, bool vdevs_too)
{
	static char words[2048];
	static char vdevs[TFO_MAX_PORTS][TFO_CFG_STR + 64];
	char pid[16], err[TFO_CFG_ERR];
	int n = 0;

	eal[n++] = user_argv[0];
	if (user_argc > 1) {
		for (int i = 1; i < user_argc && n < TFO_MAX_EAL_ARGS - 16; i++)
			eal[n++] = user_argv[i];
	} else {
		/* split [eal] args on white space; %p -> pid */
		char *out = words, *tok, *save = NULL;
		const char *s = a->cfg.eal_args;

		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		while (*s != '\0' && out < words + sizeof(words) - 16) {
			if (s[0] == '%' && s[1] == 'p') {
				out += snprintf(out, (size_t)(words + sizeof(words) - out),
						"%s", pid);
				s += 2;
			} else {
				*out++ = *s++;
			}
		}
		*out = '\0';
		for (tok = strtok_r(words, " \t", &save);
		     tok != NULL && n < TFO_MAX_EAL_ARGS - 16;
		     tok = strtok_r(NULL, " \t", &save))
			eal[n++] = tok;
	}
	for (unsigned int i = 0; i < a->cfg.nb_ports && vdevs_too; i++) {
		const struct tfo_cfg_port *p = &a->cfg.ports[i];

		if (p->vdev[0] == '\0' || eal_has_vdev(eal, n, p->device))
			continue;
		if (strncmp(p->vdev, p->device, strlen(p->device)) != 0)
			app_die("[port %s] vdev = %s: must start with the device name",
			    p->device, p->vdev);
		eal[n++] = (char *)(uintptr_t)"--vdev";
		if (tfo_xdp_own(p)) {
			/* net_af_xdp loads our program (xdp_prog=) */
			if (tfo_xdp_prepare(p, vdevs[i], sizeof(vdevs[i]), err,
					    sizeof(err)) < 0)
				app_die("%s", err);
			eal[n++] = vdevs[i];
		} else {
			eal[n++] = (char *)(uintptr_t)p->vdev;
		}
	}
	eal[n] = NULL;
	return n;
}

/* Refuse @p vdev if another process holds its device, or its tap is not
 * what @p tap asks; with @p say, what net_tap does, in one line. */
static void
check_owner(const char *vdev, enum tfo_tap_mode tap, bool say)
{
	char what[160], err[TFO_CFG_ERR];

	if (tfo_dev_owner_check(vdev, tap, what, sizeof(what), err, sizeof(err)) < 0)
		app_die("config: %s", err);
	if (say && what[0] != '\0')
		TFO_LOG(INFO, "[port %.*s] %s", (int)strcspn(vdev, ","), vdev, what);
}

/* [port] tap of the configuration's port for --vdev @p vdev (auto if none) */
static enum tfo_tap_mode
vdev_tap_mode(const struct app *a, const char *vdev)
{
	size_t n = strcspn(vdev, ",");

	for (unsigned int i = 0; i < a->cfg.nb_ports; i++)
		if (strlen(a->cfg.ports[i].device) == n &&
		    strncmp(a->cfg.ports[i].device, vdev, n) == 0)
			return (enum tfo_tap_mode)a->cfg.ports[i].tap;
	return TFO_TAP_AUTO;
}

/*
 * One server per device (net/dev_owner.h), before the EAL probes any: every
 * --vdev of @p eal, and the configuration's that --print-config leaves out
 * of it. A second tfo-server on a tap would take the first's traffic over
 * and leave the interface down at its exit.
 */
static void
check_owners(const struct app *a, int n, char **eal, bool say)
{
	for (int i = 0; i < n; i++) {
		const char *v = NULL;

		if (strcmp(eal[i], "--vdev") == 0 && i + 1 < n)
			v = eal[++i];
		else if (strncmp(eal[i], "--vdev=", 7) == 0)
			v = eal[i] + 7;
		if (v != NULL)
			check_owner(v, vdev_tap_mode(a, v), say);
	}
	for (unsigned int i = 0; i < a->cfg.nb_ports; i++) {
		const struct tfo_cfg_port *p = &a->cfg.ports[i];
		char iface[32], err[TFO_CFG_ERR];

		if (p->vdev[0] != '\0' && !eal_has_vdev(eal, n, p->device))
			check_owner(p->vdev, (enum tfo_tap_mode)p->tap, say);
		if (!p->exception)
			continue;
		/* its name as tfo_exc_setup makes it */
		if (p->exception_iface[0] != '\0')
			snprintf(iface, sizeof(iface), "%s", p->exception_iface);
		else
			snprintf(iface, sizeof(iface), "tfoexc%u", i);
		if (tfo_dev_owner_exception(p->device, iface, err, sizeof(err)) < 0)
			app_die("config: %s", err);
	}
}

/*
 * --print-config: the start's checks that need the lcores (from the EAL
 * arguments, not the EAL), then the configuration and the memory it needs
 * per socket (start_plan.h).
 */
static void
print_config(struct app *a, int eal_argc, char **eal)
{
	struct tfo_eal_layout *l = calloc(1, sizeof(*l));
	struct tfo_mem_plan plan;
	char err[TFO_CFG_ERR], msg[256];

	if (l == NULL)
		app_die("out of memory");
	if (tfo_eal_layout_parse(eal_argc, eal, l, err, sizeof(err)) < 0)
		app_die("config: %s", err);
	tfo_eal_layout_sockets(l, "/sys");
	if (tfo_mem_plan(&a->cfg, l, &plan, err, sizeof(err)) < 0)
		app_die("config: %s", err);
	tfo_config_dump(stdout, &a->cfg);
	tfo_mem_plan_print(stdout, l, &plan);
	if (tfo_mem_plan_short(l, &plan, msg, sizeof(msg)))
		fprintf(stderr, "tfo-server: warning: %s\n", msg);
	free(l);
}

/* Is vdev string @p v a PMD that needs CAP_NET_ADMIN (net_tap's
 * TUNSETIFF, af_xdp's XDP program and socket)? */
static bool
vdev_needs_net_admin(const char *v)
{
	return strncmp(v, "net_tap", 7) == 0 || strncmp(v, "net_af_xdp", 10) == 0;
}

/*
 * A start's checks of what rte_eal_init reports badly (server/eal_check.h):
 * one line naming the fix and exit 1, before the EAL creates its run
 * directory. The hugepages named are the plan's (--print-config's).
 */
static void
check_eal(const struct app *a, int n, char **eal)
{
	struct tfo_eal_layout *l = calloc(1, sizeof(*l));
	struct tfo_eal_needs needs = { .net_admin = false };
	struct tfo_mem_plan plan;
	char err[TFO_CFG_ERR];

	for (int i = 0; i < n; i++) {
		if (strcmp(eal[i], "--vdev") == 0 && i + 1 < n)
			needs.net_admin |= vdev_needs_net_admin(eal[++i]);
		else if (strncmp(eal[i], "--vdev=", 7) == 0)
			needs.net_admin |= vdev_needs_net_admin(eal[i] + 7);
	}
	for (unsigned int i = 0; i < a->cfg.nb_ports; i++)
		needs.net_admin |= vdev_needs_net_admin(a->cfg.ports[i].vdev) ||
				   a->cfg.ports[i].exception;
	if (l != NULL && tfo_eal_layout_parse(n, eal, l, err, sizeof(err)) == 0) {
		tfo_eal_layout_sockets(l, "/sys");
		if (tfo_mem_plan(&a->cfg, l, &plan, err, sizeof(err)) == 0)
			needs.pages = plan.pages;
	}
	free(l);
	if (tfo_eal_check(n, eal, &needs, "/proc", "/sys", err, sizeof(err)) < 0)
		app_die("%s", err);
}

/* What --print-config would say about memory, for the lcores the EAL
 * gave: in the journal beside a failure to allocate. @return false when
 * there is no plan (@p plan not filled). */
static bool
log_mem_plan(struct app *a, struct tfo_mem_plan *plan)
{
	struct tfo_eal_layout *l = calloc(1, sizeof(*l));
	char err[TFO_CFG_ERR];
	bool ok = false;

	if (l == NULL)
		return false;
	tfo_eal_layout_from_eal(l);
	/* a refusal is the start's to report, in its own words */
	if (tfo_mem_plan(&a->cfg, l, plan, err, sizeof(err)) == 0) {
		tfo_mem_plan_log(l, plan);
		ok = true;
	}
	free(l);
	return ok;
}

static void
signal_handler(int sig)
{
	struct tfo_server *s = server;

	if (sig == SIGTERM && s != NULL && !tfo_server_draining(s)) {
		tfo_server_drain(s);	/* control 0 logs and ends it */
	} else if (sig == SIGINT || sig == SIGTERM) {
		/* Ctrl-C, a second SIGTERM, or one before the server exists */
		stop_early = 1;
		if (s != NULL)
			tfo_server_stop(s);
	} else if (sig == SIGHUP && s != NULL) {
		tfo_server_reload(s);
	}
}

int
main(int argc, char **argv)
{
	static struct app app;
	const struct tfo_server_params params = { .telemetry = true };
	char *eal[TFO_MAX_EAL_ARGS], err[TFO_CFG_ERR];
	int sep, eal_argc, rc;
	const char *prog = argv[0];
	struct tfo_mem_plan plan;
	struct tfo_server *s;
	bool planned;

	app_init("tfo-server", 1);
	sep = app_find_sep(argc, argv);
	if (sep < 0) {
		parse_app_args(&app, argc, argv, prog);
		sep = 1;	/* no EAL arguments */
	} else {
		argv[sep] = argv[0];
		parse_app_args(&app, argc - sep, argv + sep, prog);
		argv[sep] = (char *)(uintptr_t)"--";
	}
	if (app.print_config) {
		eal_argc = build_eal_args(&app, sep, argv, eal, false);
		check_owners(&app, eal_argc, eal, false);
		print_config(&app, eal_argc, eal);
		return 0;
	}
	eal_argc = build_eal_args(&app, sep, argv, eal, true);
	check_owners(&app, eal_argc, eal, true);
	check_eal(&app, eal_argc, eal);

	if (app_eal_init(eal_argc, eal) < 0) {
		/* rte_eal_init leaves rte_errno at 0 on some paths (a locked
		 * --file-prefix): "Success" would be a lie */
		rc = rte_errno;
		app_die("EAL init failed: %s (EAL arguments:%s); %s",
			rc != 0 ? rte_strerror(rc) : "no reason given, see the EAL's lines above",
			sep > 1 ? " from the command line" : " from [eal] args",
			tfo_eal_fail_hint(rc));
	}
	signal(SIGINT, signal_handler);
	signal(SIGTERM, signal_handler);
	signal(SIGHUP, signal_handler);

	TFO_LOG(INFO, "tfo-server %s, configuration %s", TFO_VERSION, app.cfg.source);
	planned = log_mem_plan(&app, &plan);
	s = tfo_server_create(&app.cfg, &params, err, sizeof(err));
	if (s == NULL)
		app_die("%s", err);
	server = s;
	if (stop_early)		/* a stop signal during the set-up */
		tfo_server_stop(s);

	rc = rte_pdump_init();
	if (rc < 0)
		TFO_LOG(WARNING, "packet capture (dpdk-dumpcap) unavailable: %s "
			"(needs hugepages and a shared config)",
			rte_strerror(rte_errno));

	rc = tfo_server_launch(s);
	if (rc != 0)
		app_die("cannot launch the workers: %s", strerror(-rc));
	if (planned)
		tfo_mem_plan_log_taken(&plan);
	if (tfo_server_nb_controls(s) > 1)
		printf("tfo-server: running: %u control lcores (control 0 on lcore %u), "
		       "%u worker(s), %u port(s); Ctrl-C to stop\n", tfo_server_nb_controls(s),
		       rte_get_main_lcore(), tfo_server_nb_workers(s), tfo_server_nb_ports(s));
	else
		printf("tfo-server: running: control on lcore %u, %u worker(s), %u port(s); "
		       "Ctrl-C to stop\n", rte_get_main_lcore(), tfo_server_nb_workers(s),
		       tfo_server_nb_ports(s));
	fflush(stdout);

	tfo_server_run(s);
	printf("tfo-server: stopping\n");
	tfo_control_summary(tfo_server_control(s), stdout);
	server = NULL;
	tfo_server_free(s);
	rte_pdump_uninit();
	app_eal_stop();
	return 0;
}
