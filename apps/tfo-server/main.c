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
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pdump.h>
#include <rte_ring.h>
#include <rte_version.h>

#include "tfo/config.h"
#include "tfo/cookie.h"
#include "tfo/engine.h"
#include "tfo/control.h"
#include "tfo/log.h"
#include "tfo/port.h"
#include "tfo/stats.h"
#include "tfo/tx.h"
#include "tfo/worker.h"

#define TFO_MAX_EAL_ARGS 128

static volatile bool force_quit;
static volatile int *reload_flag;	/* SIGHUP: the control core re-reads the key file */
static bool eal_started;
static char eal_runtime_dir[PATH_MAX];

struct app {
	struct tfo_config cfg;
	bool print_config;
	unsigned int nb_workers;
	unsigned int nb_ports;
	struct rte_mempool *pool;
	struct tfo_port_info ports[TFO_MAX_PORTS];
	struct tfo_worker **workers;
	struct rte_ring **rings;
	struct tfo_control control;
	struct tfo_keyring *keys;
	char key_path[PATH_MAX * 2];	/**< resolved [tfo] key_file, or "" */
	unsigned int nb_services;
	struct tfo_service_inst services[TFO_MAX_SERVICES];
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
		"arguments are options. The first lcore is the control core, every\n"
		"other lcore a worker with one RX/TX queue on every port.\n"
		"\n"
		"options:\n"
		"  --config FILE         configuration file (default: the embedded one)\n"
		"  --set SEC.KEY=VALUE   override one key, e.g. --set tfo.pending_limit=64,\n"
		"                        --set \"port net_tap0.mtu=9000\" (repeatable)\n"
		"  --stats-period SEC    print a stats line every SEC seconds (server.stats_period)\n"
		"  --pending-limit N     pending TFO connections per worker (tfo.pending_limit)\n"
		"  --cookie-algo ALGO    aes128 | siphash-linux (tfo.cookie_algo)\n"
		"  --key-file FILE       TFO key file, Linux format (tfo.key_file)\n"
		"  --no-tfo              plain TCP only (tfo.enabled=no)\n"
		"  --max-conns N         connection table size per lcore (tcp.max_conns)\n"
		"  --burst N             RX burst size (server.burst)\n"
		"  --idle-sleep-us N     sleep after an empty poll, 0 = spin (server.idle_sleep_us)\n"
		"  --www DIR             document root of the http service (service http.root)\n"
		"  --print-config        print the effective configuration and exit\n"
		"  --help-config         list every configuration key and exit\n"
		"  --help-counters       list every counter and what it counts (a Markdown\n"
		"                        table, as in docs/runbook.md) and exit\n"
		"  --version             print the version and exit\n"
		"  -h, --help            this text\n"
		"\n"
		"Counters: a stats line every --stats-period, a summary at exit, and the\n"
		"telemetry command /tfo/stats (dpdk-telemetry.py -f PREFIX).\n"
		"SIGINT/SIGTERM stop the server cleanly (exit code 0). SIGHUP (or\n"
		"/tfo/reload) re-reads the key file: KEY promotes KEY to primary (the\n"
		"old primary becomes the backup), PRIMARY,BACKUP installs both; a bad\n"
		"file is refused and the running keys stay.\n",
		prog);
}

/* EAL leaves its (empty) runtime directory behind; remove it too. */
static void
eal_stop(void)
{
	rte_eal_cleanup();
	if (eal_runtime_dir[0] != '\0')
		rmdir(eal_runtime_dir);
}

static void
die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tfo-server: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (eal_started)
		eal_stop();
	exit(1);
}

/* --set "SECTION.KEY=VALUE"; the section may contain spaces and dots
 * ("port 0000:01:00.0.mtu=9000"), so split at the last dot before '='. */
static void
apply_set(struct tfo_config *cfg, const char *arg)
{
	char buf[1024], err[TFO_CFG_ERR];
	char *eq, *dot;

	if (strlen(arg) >= sizeof(buf))
		die("--set %s: too long", arg);
	strcpy(buf, arg);
	eq = strchr(buf, '=');
	if (eq == NULL)
		die("--set %s: expected SECTION.KEY=VALUE", arg);
	*eq = '\0';
	dot = strrchr(buf, '.');
	if (dot == NULL)
		die("--set %s: expected SECTION.KEY=VALUE", arg);
	*dot = '\0';
	if (tfo_config_set(cfg, buf, dot + 1, eq + 1, err, sizeof(err)) < 0)
		die("--set: %s", err);
}

static void
apply_key(struct tfo_config *cfg, const char *opt, const char *section,
	  const char *key, const char *value)
{
	char err[TFO_CFG_ERR];

	if (tfo_config_set(cfg, section, key, value, err, sizeof(err)) < 0)
		die("%s %s: %s", opt, value, err);
}

enum {
	OPT_CONFIG = 256, OPT_SET, OPT_STATS_PERIOD, OPT_PENDING_LIMIT,
	OPT_COOKIE_ALGO, OPT_KEY_FILE, OPT_NO_TFO, OPT_MAX_CONNS, OPT_BURST,
	OPT_IDLE_SLEEP, OPT_PRINT_CONFIG, OPT_HELP_CONFIG, OPT_VERSION, OPT_WWW,
	OPT_HELP_COUNTERS,
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
			exit(0);
		case OPT_HELP_COUNTERS:
			help_counters(stdout);
			exit(0);
		case OPT_VERSION:
			printf("tfo-server %s (%s)\n", TFO_VERSION, rte_version());
			exit(0);
		case '?':
			if (optopt != 0)
				die("option -%c: unknown or missing its argument (see --help)",
				    optopt);
			die("option %s: unknown or missing its argument (see --help)",
			    argv[optind - 1]);
		default:
			break;
		}
	}
	if (optind < argc)
		die("unexpected argument '%s' (EAL arguments go before \"--\")",
		    argv[optind]);

	tfo_config_defaults(&a->cfg);
	if (config_file != NULL) {
		if (tfo_config_parse_file(&a->cfg, config_file, err, sizeof(err)) < 0)
			die("config %s", err);
	} else if (tfo_config_parse_string(&a->cfg, tfo_config_embedded(),
					   "(embedded config/tfo-server.ini)", err,
					   sizeof(err)) < 0) {
		die("config %s", err);
	}

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
			break;
		case OPT_WWW:
			/* relative to the current directory, as a command-line path */
			if (optarg[0] != '/') {
				char cwd[PATH_MAX], path[PATH_MAX * 2];

				if (getcwd(cwd, sizeof(cwd)) == NULL)
					die("--www %s: cannot read the current directory", optarg);
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
	if (tfo_config_validate(&a->cfg, err, sizeof(err)) < 0)
		die("config: %s", err);
}

/* Create every configured service once; all lcores share them read-only. */
static void
setup_services(struct app *a, int socket)
{
	for (unsigned int i = 0; i < a->cfg.nb_services; i++) {
		const struct tfo_cfg_service *cs = &a->cfg.services[i];
		struct tfo_service_kv kv[TFO_SERVICE_MAX_KV];
		struct tfo_service_args args = {
			.port = cs->port,
			.nb_kv = cs->nb_kv,
			.kv = kv,
			.base_dir = a->cfg.base_dir,
			.socket_id = socket,
		};
		struct tfo_service_inst *si = &a->services[a->nb_services];
		int rc;

		for (unsigned int k = 0; k < cs->nb_kv; k++) {
			kv[k].key = cs->kv[k].key;
			kv[k].value = cs->kv[k].value;
		}
		si->svc = tfo_service_find(cs->name);
		si->port = cs->port;
		rc = si->svc->create(&args, &si->state);
		if (rc < 0)
			die("[service %s]: cannot start: %s (see the log line above)",
			    cs->name, strerror(-rc));
		a->nb_services++;
		TFO_LOG(INFO, "service %s on TCP port %u", cs->name, cs->port);
	}
}

/* MSS for IPv4: configured, or the smallest port MTU - 40. */
static uint16_t
engine_mss(const struct tfo_config *cfg)
{
	uint16_t mss = UINT16_MAX;

	if (cfg->mss != 0)
		return cfg->mss;
	for (unsigned int i = 0; i < cfg->nb_ports; i++)
		mss = (uint16_t)RTE_MIN(mss, cfg->ports[i].mtu - 40);
	return mss;
}

static struct tfo_engine *
setup_engine(struct app *a, const char *name, int socket, struct tfo_stats *stats,
	     struct tfo_tx *tx, bool control)
{
	const struct tfo_config *c = &a->cfg;
	struct tfo_engine_params p = {
		.name = name,
		.socket_id = socket,
		.max_conns = c->max_conns,
		.max_request = c->max_request,
		.mss = engine_mss(c),
		.wscale = c->wscale,
		.rcv_wnd = c->rcv_wnd,
		.rto_init_ms = c->rto_init_ms,
		.rto_min_ms = c->rto_min_ms,
		.rto_max_ms = c->rto_max_ms,
		.max_retries = (uint8_t)c->retries,
		.synack_retries = (uint8_t)c->synack_retries,
		.idle_timeout_ms = c->idle_timeout_ms,
		.time_wait_ms = c->time_wait_ms,
		.tfo_pending_limit = control ? 0 : c->pending_limit,
		.tfo_pending_hold_ms = c->pending_hold_ms,
		.syncookies = control && c->syncookies,
		.pool = a->pool,
		.ports = a->ports,
		.nb_ports = (uint16_t)a->nb_ports,
		.services = a->services,
		.nb_services = a->nb_services,
		.stats = stats,
		.tx = tx,
	};
	struct tfo_engine *e = tfo_engine_create(&p);

	if (e == NULL)
		die("%s: cannot create the TCP engine (%u conns, %u-byte requests): %s "
		    "(see the log line above; lower [tcp] max_conns or raise -m)",
		    name, c->max_conns, c->max_request, rte_strerror(rte_errno));
	return e;
}

/* The key ring: from the key file, or random keys. */
static void
setup_keys(struct app *a, int socket)
{
	enum tfo_cookie_algo algo;

	if (tfo_cookie_algo_parse(a->cfg.cookie_algo, &algo) < 0)
		die("[tfo] cookie_algo = %s: expected aes128 or siphash-linux",
		    a->cfg.cookie_algo);
	a->keys = tfo_keyring_create(algo, NULL, NULL, socket);
	if (a->keys == NULL)
		die("cannot create the TFO key ring: %s", rte_strerror(rte_errno));
	if (a->cfg.key_file[0] != '\0') {
		char *path = a->key_path;
		int rc;

		if (a->cfg.key_file[0] == '/')
			snprintf(path, sizeof(a->key_path), "%s", a->cfg.key_file);
		else
			snprintf(path, sizeof(a->key_path), "%s/%s", a->cfg.base_dir,
				 a->cfg.key_file);
		rc = tfo_keyring_load_file(a->keys, path);
		if (rc < 0)
			die("[tfo] key_file = %s: %s (expected Linux's tcp_fastopen_key "
			    "format: xxxxxxxx-xxxxxxxx-xxxxxxxx-xxxxxxxx[,backup])",
			    path, strerror(-rc));
	}
}

static struct tfo_cookie_ctx *
setup_cookie_ctx(struct app *a, int socket)
{
	struct tfo_cookie_ctx *cc = tfo_cookie_ctx_create(a->keys, socket);

	if (cc == NULL)
		die("cannot create a TFO cookie checker: %s", rte_strerror(rte_errno));
	return cc;
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

/* Build the EAL argv: the user's, or the configuration's, plus the vdevs. */
static int
build_eal_args(struct app *a, int user_argc, char **user_argv, char **eal)
{
	static char words[2048];
	char pid[16];
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
	for (unsigned int i = 0; i < a->cfg.nb_ports; i++) {
		const struct tfo_cfg_port *p = &a->cfg.ports[i];

		if (p->vdev[0] == '\0' || eal_has_vdev(eal, n, p->device))
			continue;
		if (strncmp(p->vdev, p->device, strlen(p->device)) != 0)
			die("[port %s] vdev = %s: must start with the device name",
			    p->device, p->vdev);
		eal[n++] = (char *)(uintptr_t)"--vdev";
		eal[n++] = (char *)(uintptr_t)p->vdev;
	}
	eal[n] = NULL;
	return n;
}

static void
signal_handler(int sig)
{
	if (sig == SIGINT || sig == SIGTERM)
		force_quit = true;
	else if (sig == SIGHUP && reload_flag != NULL)
		*reload_flag = 1;
}

/*
 * mbufs: every RX and TX descriptor full, every ring full, every lcore's
 * cache and TX buffers full, and room for the frames in flight.
 */
static uint32_t
pool_need(const struct app *a, unsigned int nb_lcores)
{
	const struct tfo_config *c = &a->cfg;
	uint64_t need = 1024;

	for (unsigned int i = 0; i < c->nb_ports; i++)
		need += (uint64_t)(a->nb_workers + c->ports[i].syn_steering) *
			c->ports[i].rx_desc +
			(uint64_t)(a->nb_workers + 1) * c->ports[i].tx_desc;
	need += (uint64_t)a->nb_workers * c->ring_size + 1024 * c->nb_ports;
	for (unsigned int i = 0; i < c->nb_ports; i++)
		if (c->ports[i].syn_steering) {	/* the workers' SYN inboxes */
			need += (uint64_t)a->nb_workers * c->ring_size;
			break;
		}
	need += (uint64_t)nb_lcores * (c->mbuf_cache * 3 / 2 + c->burst +
				       TFO_TX_BUF * c->nb_ports);
	return (uint32_t)RTE_MIN(need, (uint64_t)UINT32_MAX);
}

/* A ring per worker for the SYNs the control core takes from the SYN
 * queues, when a port steers SYNs in hardware. */
static void
setup_syn_inboxes(struct app *a)
{
	bool steer = false;

	for (unsigned int i = 0; i < a->nb_ports; i++)
		steer |= a->ports[i].syn_steering;
	for (unsigned int wi = 0; steer && wi < a->nb_workers; wi++) {
		char name[RTE_RING_NAMESIZE];
		struct rte_ring *r;

		snprintf(name, sizeof(name), "tfo_syn%u", wi);
		r = rte_ring_create(name, a->cfg.ring_size,
				    (int)rte_lcore_to_socket_id(a->workers[wi]->lcore_id),
				    RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
		if (r == NULL)
			die("[server] ring_size = %u: cannot create ring %s: %s",
			    a->cfg.ring_size, name, rte_strerror(rte_errno));
		a->workers[wi]->syn_inbox = r;
	}
}

static void
setup(struct app *a)
{
	char err[TFO_CFG_ERR], desc[256];
	unsigned int nb_lcores = rte_lcore_count(), wi = 0, lcore;
	uint32_t need = 0, nb_mbufs;
	uint16_t data_room = RTE_MBUF_DEFAULT_BUF_SIZE;
	uint8_t addr_base = 0;
	int socket = (int)rte_socket_id();

	if (nb_lcores < 2)
		die("need at least 2 lcores (control + one worker); EAL gave %u "
		    "(use -l 0-1 or more)", nb_lcores);
	a->nb_workers = nb_lcores - 1;
	a->nb_ports = a->cfg.nb_ports;

	if (tfo_ctrl_reason_register() < 0)
		die("cannot register the mbuf dynamic field");

	need = pool_need(a, nb_lcores);
	nb_mbufs = a->cfg.mbufs ? a->cfg.mbufs : need;
	if (nb_mbufs < need)
		die("[server] mbufs = %u: too small for %u workers, %u ports and their "
		    "queues/rings; need at least %u (or 0 = computed)",
		    a->cfg.mbufs, a->nb_workers, a->nb_ports, need);
	for (unsigned int i = 0; i < a->cfg.nb_ports; i++)
		data_room = (uint16_t)RTE_MAX(data_room,
					      a->cfg.ports[i].mtu + RTE_ETHER_HDR_LEN + 4 +
					      RTE_PKTMBUF_HEADROOM);
	a->pool = rte_pktmbuf_pool_create("tfo_mbufs", nb_mbufs, a->cfg.mbuf_cache,
					  0, data_room, socket);
	if (a->pool == NULL)
		die("cannot create a pool of %u mbufs of %u bytes: %s (raise -m, or "
		    "lower [server] mbufs / ring_size / [port] rx_desc, tx_desc)",
		    nb_mbufs, data_room, rte_strerror(rte_errno));

	for (unsigned int i = 0; i < a->nb_ports; i++) {
		if (tfo_port_setup(&a->cfg.ports[i], (uint16_t)a->nb_workers,
				   (uint16_t)(a->nb_workers + 1), a->pool, addr_base,
				   &a->ports[i], err, sizeof(err)) < 0)
			die("%s", err);
		addr_base = (uint8_t)(addr_base + a->cfg.ports[i].nb_addrs);
		tfo_port_describe(&a->ports[i], desc, sizeof(desc));
		TFO_LOG(INFO, "%s", desc);
	}

	setup_services(a, socket);
	if (a->cfg.tfo_enabled)
		setup_keys(a, socket);

	a->workers = rte_zmalloc("tfo_workers", sizeof(*a->workers) * a->nb_workers, 0);
	a->rings = rte_zmalloc("tfo_rings", sizeof(*a->rings) * a->nb_workers, 0);
	if (a->workers == NULL || a->rings == NULL)
		die("out of memory for %u workers", a->nb_workers);
	RTE_LCORE_FOREACH_WORKER(lcore) {
		char name[RTE_RING_NAMESIZE];
		int wsock = (int)rte_lcore_to_socket_id(lcore);
		struct tfo_worker *w;

		snprintf(name, sizeof(name), "tfo_ctl%u", wi);
		a->rings[wi] = rte_ring_create(name, a->cfg.ring_size, wsock,
					       RING_F_SP_ENQ | RING_F_SC_DEQ |
					       RING_F_EXACT_SZ);
		if (a->rings[wi] == NULL)
			die("[server] ring_size = %u: cannot create ring %s: %s",
			    a->cfg.ring_size, name, rte_strerror(rte_errno));
		w = rte_zmalloc_socket("tfo_worker", sizeof(*w), RTE_CACHE_LINE_SIZE,
				       wsock);
		if (w == NULL)
			die("out of memory for worker %u", wi);
		if (tfo_worker_init(w, (uint16_t)wi, a->ports, (uint16_t)a->nb_ports,
				    a->rings[wi], a->cfg.burst, a->cfg.idle_sleep_us,
				    &force_quit) < 0)
			die("worker %u: bad parameters", wi);
		w->lcore_id = lcore;
		snprintf(name, sizeof(name), "worker%u", wi);
		w->engine = setup_engine(a, name, wsock, &w->stats, &w->tx, false);
		if (a->keys != NULL) {
			w->cookies = setup_cookie_ctx(a, wsock);
			w->cookie_not_required = a->cfg.cookie_not_required;
		}
		a->workers[wi++] = w;
	}
	if (tfo_control_init(&a->control, &a->cfg, a->ports, (uint16_t)a->nb_ports,
			     a->workers, a->nb_workers, &force_quit) < 0)
		die("control core: bad parameters");
	a->control.engine = setup_engine(a, "control", socket, &a->control.stats,
					 &a->control.tx, true);
	if (a->keys != NULL) {
		a->control.keys = a->keys;
		if (a->key_path[0] != '\0')
			a->control.key_file = a->key_path;
		a->control.cookies = setup_cookie_ctx(a, socket);
		if (a->cfg.rotate_period_s)
			a->control.next_rotate_us = rte_rdtsc() / a->control.tsc_per_us +
						    (uint64_t)a->cfg.rotate_period_s * 1000000;
	}
	if (a->cfg.cookie_not_required)
		TFO_LOG(WARNING, "*** [tfo] cookie_not_required = yes: SYN data is accepted "
			"WITHOUT a cookie; any spoofed SYN makes the server work. Only for "
			"trusted networks. ***");
	for (unsigned int i = 0; i < a->nb_ports; i++) {
		char name[RTE_RING_NAMESIZE];
		struct rte_ring *r;

		if (!a->ports[i].ctrl_tx_relay)
			continue;
		snprintf(name, sizeof(name), "tfo_relay%u", i);
		r = rte_ring_create(name, 1024, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (r == NULL)
			die("cannot create ring %s: %s", name, rte_strerror(rte_errno));
		a->control.relay[i] = r;
		a->workers[0]->relay[i] = r;
	}
	setup_syn_inboxes(a);
	tfo_control_telemetry_register(&a->control);
	reload_flag = &a->control.reload_requested;
}

int
main(int argc, char **argv)
{
	static struct app app;
	char *eal[TFO_MAX_EAL_ARGS];
	int sep = -1, eal_argc, rc;
	unsigned int lcore, wi = 0;
	const char *prog = argv[0];

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			sep = i;
			break;
		}
	if (sep < 0) {
		parse_app_args(&app, argc, argv, prog);
		sep = 1;	/* no EAL arguments */
	} else {
		argv[sep] = argv[0];
		parse_app_args(&app, argc - sep, argv + sep, prog);
		argv[sep] = (char *)(uintptr_t)"--";
	}
	if (app.print_config) {
		tfo_config_dump(stdout, &app.cfg);
		return 0;
	}

	eal_argc = build_eal_args(&app, sep, argv, eal);
	rc = rte_eal_init(eal_argc, eal);
	if (rc < 0)
		die("EAL init failed: %s (EAL arguments:%s)", rte_strerror(rte_errno),
		    sep > 1 ? " from the command line" : " from [eal] args");

	eal_started = true;
	snprintf(eal_runtime_dir, sizeof(eal_runtime_dir), "%s", rte_eal_get_runtime_dir());
	signal(SIGINT, signal_handler);
	signal(SIGTERM, signal_handler);
	signal(SIGHUP, signal_handler);

	TFO_LOG(INFO, "tfo-server %s, configuration %s", TFO_VERSION, app.cfg.source);
	setup(&app);

	rc = rte_pdump_init();
	if (rc < 0)
		TFO_LOG(WARNING, "packet capture (dpdk-dumpcap) unavailable: %s "
			"(needs hugepages and a shared config)",
			rte_strerror(rte_errno));

	RTE_LCORE_FOREACH_WORKER(lcore) {
		rc = rte_eal_remote_launch(tfo_worker_main, app.workers[wi++], lcore);
		if (rc != 0)
			die("cannot launch worker on lcore %u: %s", lcore, strerror(-rc));
	}
	printf("tfo-server: running: control on lcore %u, %u worker(s), %u port(s); "
	       "Ctrl-C to stop\n", rte_get_main_lcore(), app.nb_workers, app.nb_ports);
	fflush(stdout);

	tfo_control_main(&app.control);

	rte_eal_mp_wait_lcore();
	printf("tfo-server: stopping\n");
	tfo_control_summary(&app.control, stdout);
	for (unsigned int i = 0; i < app.nb_ports; i++)
		tfo_port_close(&app.ports[i]);
	rte_pdump_uninit();
	eal_stop();
	return 0;
}
