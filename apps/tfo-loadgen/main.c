/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-loadgen: a DPDK load generator playing many TCP Fast Open clients.
 *
 *   tfo-loadgen [EAL args] -- --server ADDR --client ADDR [options]
 *
 * The main lcore sequences the phases and reports; every other lcore
 * generates (lg_lcore_main) on its own queue pair of every port.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "net/port.h"
#include "net/xdp_pool.h"
#include "tfo/log.h"

#include "app.h"
#include "lg.h"

#define LG_HANDOFF_RING 1024
#define LG_MBUF_CACHE 256

static volatile int signals_seen;

struct app {
	struct lg_opts o;
	struct lg_shared *sh;
	struct lg_lcore *lcs[LG_MAX_LCORES];
	unsigned int nb_gen;
	struct rte_mempool *pool;
	double tsc_per_us;
};

static void
signal_handler(int sig)
{
	if (sig == SIGINT || sig == SIGTERM)
		signals_seen++;
}

static uint32_t
pool_need(const struct app *a)
{
	const struct lg_opts *o = &a->o;
	uint64_t L = a->nb_gen, P = a->sh->nb_ports, need = 4096;

	need += P * L * (o->rx_desc + o->tx_desc);
	need += P * (o->rss_peer ? o->peer_controls : 0) * o->rx_desc;
	need += L * (LG_MBUF_CACHE * 3 / 2 + o->burst + TFO_TX_BUF * P);
	need += L * (L - 1) * LG_HANDOFF_RING;
	/* a transaction holds no mbuf between bursts; room for what is in
	 * the devices' hands meanwhile */
	need += L * RTE_MIN((uint64_t)o->concurrency * 2, (uint64_t)65536);
	return (uint32_t)RTE_MIN(need, (uint64_t)UINT32_MAX);
}

/* Is any probed port a net_af_xdp one? Then the one pool of every port
 * takes the AF_XDP layout (net/xdp_pool.h). */
static bool
lg_has_af_xdp(const struct lg_shared *sh)
{
	for (uint16_t i = 0; i < sh->nb_ports; i++) {
		struct rte_eth_dev_info dev;

		if (rte_eth_dev_info_get(sh->ports[i].info.port_id, &dev) == 0 &&
		    dev.driver_name != NULL && strcmp(dev.driver_name, "net_af_xdp") == 0)
			return true;
	}
	return false;
}

static void
setup_ports(struct app *a)
{
	struct lg_opts *o = &a->o;
	struct lg_shared *sh = a->sh;
	char err[TFO_CFG_ERR], desc[256];
	uint16_t port_id, n = 0;
	uint16_t data_room = (uint16_t)RTE_MAX(RTE_MBUF_DEFAULT_BUF_SIZE,
					       o->mtu + RTE_ETHER_HDR_LEN + 4 +
					       RTE_PKTMBUF_HEADROOM);

	RTE_ETH_FOREACH_DEV(port_id) {
		if (n == TFO_MAX_PORTS)
			app_die("more than %d ports probed; give EAL fewer (--vdev / -a)",
			    TFO_MAX_PORTS);
		sh->ports[n++].info.port_id = port_id;
	}
	if (n == 0)
		app_die("no ports: give EAL one (--vdev net_tap0,iface=lg0, --vdev "
		    "net_memif0,..., or a NIC bound to vfio-pci)");
	sh->nb_ports = n;
	if (o->nb_clients < a->nb_gen * n)
		app_die("--clients %u: want at least one address per generator lcore and "
		    "port (%u lcores x %u ports)", o->nb_clients, a->nb_gen, n);

	if (lg_has_af_xdp(sh)) {
		/* net_af_xdp makes the RX queue's pool its UMEM, and the one
		 * rte_pktmbuf_pool_create makes leaves mbufs outside it: the
		 * kernel drops those from the fill ring for good, and RX
		 * starves after a few thousand frames (net/xdp_pool.h) */
		if (data_room > tfo_xdp_pool_data_room())
			app_die("--mtu %u: an AF_XDP port's mbufs hold %u bytes (one 4 KiB "
			    "page), the MTU wants %u; lower --mtu", o->mtu,
			    tfo_xdp_pool_data_room(), data_room);
		a->pool = tfo_xdp_pool_create("lg_mbufs", pool_need(a), LG_MBUF_CACHE,
					      (int)rte_socket_id(), err, sizeof(err));
		if (a->pool == NULL)
			app_die("%s (raise -m, or lower --rxd/--txd/--concurrency)", err);
	} else {
		a->pool = rte_pktmbuf_pool_create("lg_mbufs", pool_need(a), LG_MBUF_CACHE, 0,
						  data_room, (int)rte_socket_id());
		if (a->pool == NULL)
			app_die("cannot create a pool of %u mbufs: %s (raise -m, or lower "
			    "--rxd/--txd/--concurrency)", pool_need(a), rte_strerror(rte_errno));
	}

	for (uint16_t i = 0; i < n; i++) {
		struct tfo_cfg_port cfg;
		struct lg_port *p = &sh->ports[i];

		memset(&cfg, 0, sizeof(cfg));
		port_id = p->info.port_id;
		if (rte_eth_dev_get_name_by_port(port_id, cfg.device) != 0)
			app_die("port %u: no name", port_id);
		cfg.mtu = o->mtu;
		cfg.rx_desc = o->rx_desc;
		cfg.tx_desc = o->tx_desc;
		cfg.offload = TFO_OFFLOAD_AUTO;
		/* a segment at the wrong queue is handed to its lcore, so a
		 * device without RSS (memif queue pairs) is fine */
		cfg.rss_optional = true;
		/* --rss-peer: one more RX queue per control lcore of the
		 * server, whose TX queues they are on net_memif */
		if (tfo_port_setup(&cfg, (uint16_t)(a->nb_gen + (o->rss_peer ? o->peer_controls : 0)),
				   (uint16_t)a->nb_gen, &a->pool, 1, 0, &p->info, err,
				   sizeof(err)) < 0)
			app_die("%s", err);
		p->peer = p->info;
		tfo_port_rss_peer(&p->peer, (uint16_t)a->nb_gen);
		sh->port_idx_of[port_id] = i;
		/* address p * L: lcore 0's local address p, on port p */
		p->first_client = (uint16_t)(i * a->nb_gen);
		if (o->server_mac_set) {
			p->server_mac = o->server_mac;
			p->resolved = 1;
		}
		tfo_port_describe(&p->info, desc, sizeof(desc));
		TFO_LOG(INFO, "%s", desc);
	}
}

static void
setup_lcores(struct app *a)
{
	struct lg_shared *sh = a->sh;
	char err[256];
	unsigned int lcore, i = 0;

	for (unsigned int s = 0; s < a->nb_gen && a->nb_gen > 1; s++)
		for (unsigned int d = 0; d < a->nb_gen; d++) {
			char name[RTE_RING_NAMESIZE];

			if (s == d)
				continue;
			snprintf(name, sizeof(name), "lg_h%u_%u", s, d);
			sh->handoff[s][d] = rte_ring_create(name, LG_HANDOFF_RING,
							    (int)rte_socket_id(),
							    RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (sh->handoff[s][d] == NULL)
				app_die("cannot create ring %s: %s", name, rte_strerror(rte_errno));
		}
	RTE_LCORE_FOREACH_WORKER(lcore) {
		int socket = (int)rte_lcore_to_socket_id(lcore);
		struct lg_lcore *lc = rte_zmalloc_socket("lg_lcore", sizeof(*lc),
							 RTE_CACHE_LINE_SIZE, socket);

		if (lc == NULL)
			app_die("out of memory for generator lcore %u", lcore);
		if (lg_lcore_init(lc, i, &a->o, sh, a->pool, socket, err, sizeof(err)) < 0)
			app_die("%s", err);
		lc->lcore_id = lcore;
		a->lcs[i++] = lc;
	}
}

/*
 * net_tap raises a real-time signal for every frame it receives (its RX
 * trigger). A thread sleeping in rte_delay_us_sleep() restarts its
 * nanosleep with the remaining time after each one and, under a storm,
 * never gets to the end. The main lcore blocks those signals (the other
 * threads take them) and sleeps once per loop, the clock deciding.
 */
static void
lg_block_rx_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(&set, sig);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void
lg_nap_10ms(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);	/* EINTR: the loop looks at the clock anyway */
}

static const char *
phase_name(int phase)
{
	static const char *const names[] = { "arp/nd", "warmup", "run", "drain", "done" };

	return phase >= 0 && phase <= LG_PHASE_DONE ? names[phase] : "?";
}

static bool
all_lcores(const struct app *a, size_t flag_off)
{
	for (unsigned int i = 0; i < a->nb_gen; i++)
		if (*((const volatile uint8_t *)a->lcs[i] + flag_off) == 0)
			return false;
	return true;
}

/*
 * The main lcore: move through the phases, print the progress line.
 * @return false if the server's MAC could not be learned.
 */
static bool
run_phases(struct app *a)
{
	static struct lg_report cur, prev;
	const struct lg_opts *o = &a->o;
	struct lg_shared *sh = a->sh;
	uint64_t hz = rte_get_tsc_hz(), t0 = rte_rdtsc(), phase_t0 = t0;
	uint64_t period = (uint64_t)o->stats_period_s * hz, next_report = t0 + period;
	uint64_t last_report = t0;
	int seen = 0;

	memset(&prev, 0, sizeof(prev));
	for (;;) {
		uint64_t now = rte_rdtsc();
		double in_phase = (double)(now - phase_t0) / (double)hz;
		int phase = sh->phase, next = phase;

		if (signals_seen != seen) {
			seen = signals_seen;
			if (seen >= 2 || phase < LG_PHASE_RUN)
				next = LG_PHASE_DONE;
			else if (phase == LG_PHASE_RUN)
				next = LG_PHASE_DRAIN;
			printf("tfo-loadgen: signal: %s\n", next == LG_PHASE_DONE ?
			       "stopping now" : "draining (again to stop now)");
		}
		switch (next == phase ? phase : -1) {
		case LG_PHASE_RESOLVE: {
			bool ok = true;

			for (uint16_t i = 0; i < sh->nb_ports; i++)
				ok = ok && sh->ports[i].resolved;
			if (ok)
				next = o->warmup_timeout_s > 0 ? LG_PHASE_WARMUP : LG_PHASE_RUN;
			else if (in_phase > o->resolve_timeout_s)
				return false;
			break;
		}
		case LG_PHASE_WARMUP:
			if (all_lcores(a, offsetof(struct lg_lcore, warm_done)) ||
			    in_phase > o->warmup_timeout_s)
				next = LG_PHASE_RUN;
			break;
		case LG_PHASE_RUN:
			if ((o->duration_s > 0 && in_phase >= o->duration_s) ||
			    all_lcores(a, offsetof(struct lg_lcore, run_done)))
				next = LG_PHASE_DRAIN;
			break;
		case LG_PHASE_DRAIN:
			if (all_lcores(a, offsetof(struct lg_lcore, drained)))
				next = LG_PHASE_DONE;
			break;
		default:
			break;
		}
		if (period != 0 && now >= next_report && phase >= LG_PHASE_WARMUP) {
			lg_report_collect(&cur, a->lcs, a->nb_gen);
			lg_report_progress(stdout, phase_name(phase), (double)(now - t0) / (double)hz,
					   (double)(now - last_report) / (double)hz, &cur, &prev,
					   a->tsc_per_us);
			prev = cur;
			last_report = now;
			next_report = now + period;
		}
		if (next != phase) {
			if (next == LG_PHASE_DONE && phase == LG_PHASE_RESOLVE)
				return false;
			printf("tfo-loadgen: %s -> %s after %.2f s\n", phase_name(phase),
			       phase_name(next), in_phase);
			fflush(stdout);
			sh->phase = next;
			phase_t0 = now;
			if (next == LG_PHASE_DONE)
				return true;
			continue;
		}
		lg_nap_10ms();
	}
}

/* The run's report: the summary (and --json), then what the devices lost on
 * their own. @return the errors of the run (every err_* counter). */
static uint64_t
report(struct app *a)
{
	struct lg_report *rep;
	uint64_t errors;
	int rc;

	/* cache-line aligned type: the compiler uses aligned vector loads on
	 * it, and calloc() only gives 16 bytes (a GP fault at -O3) */
	rep = rte_zmalloc("lg_report", sizeof(*rep), RTE_CACHE_LINE_SIZE);
	if (rep == NULL)
		app_die("out of memory");
	lg_report_collect(rep, a->lcs, a->nb_gen);
	lg_report_summary(stdout, rep, &a->o, a->tsc_per_us);
	if (a->o.json_path != NULL) {
		rc = lg_report_json(a->o.json_path, rep, &a->o, a->tsc_per_us);
		if (rc < 0)
			app_die("--json %s: %s", a->o.json_path, strerror(-rc));
	}
	errors = lg_stats_errors(&rep->total);
	rte_free(rep);
	/* what the devices lost on their own (an AF_XDP socket's full RX ring
	 * or empty fill ring: imissed), which no counter of ours sees */
	for (uint16_t p = 0; p < a->sh->nb_ports; p++) {
		struct rte_eth_stats es;

		if (rte_eth_stats_get(a->sh->ports[p].info.port_id, &es) == 0)
			printf("summary: port%u ipackets %" PRIu64 " opackets %" PRIu64
			       " imissed %" PRIu64 " ierrors %" PRIu64 " oerrors %" PRIu64
			       " rx_nombuf %" PRIu64 "\n", a->sh->ports[p].info.port_id,
			       es.ipackets, es.opackets, es.imissed, es.ierrors, es.oerrors,
			       es.rx_nombuf);
	}
	return errors;
}

int
main(int argc, char **argv)
{
	static struct app app;
	char err[512];
	int sep, rc, eal_argc;
	unsigned int lcore, i = 0;
	uint64_t errors;

	app_init("tfo-loadgen", 2);	/* bad arguments or set-up: exit code 2 */
	sep = app_find_sep(argc, argv);
	if (sep < 0) {
		rc = lg_parse_args(&app.o, argc, argv, err, sizeof(err));
		eal_argc = 1;
	} else {
		char *saved = argv[sep];

		argv[sep] = argv[0];
		rc = lg_parse_args(&app.o, argc - sep, argv + sep, err, sizeof(err));
		argv[sep] = saved;
		eal_argc = sep;
	}
	if (rc == 1)
		return 0;
	if (rc < 0)
		app_die("%s", err);

	if (app_eal_init(eal_argc, argv) < 0)
		app_die("EAL init failed: %s", rte_strerror(rte_errno));
	signal(SIGINT, signal_handler);
	signal(SIGTERM, signal_handler);
	lg_block_rx_signals();

	if (rte_lcore_count() < 2)
		app_die("need at least 2 lcores (-l 0-1): the first reports, the others generate");
	app.nb_gen = rte_lcore_count() - 1;
	if (app.nb_gen > LG_MAX_LCORES)
		app_die("%u generator lcores: at most %d", app.nb_gen, LG_MAX_LCORES);
	app.sh = rte_zmalloc("lg_shared", sizeof(*app.sh), RTE_CACHE_LINE_SIZE);
	if (app.sh == NULL)
		app_die("out of memory");
	app.sh->nb_lcores = app.nb_gen;
	app.tsc_per_us = (double)rte_get_tsc_hz() / 1e6;
	setup_ports(&app);
	setup_lcores(&app);

	RTE_LCORE_FOREACH_WORKER(lcore) {
		rc = rte_eal_remote_launch(lg_lcore_main, app.lcs[i++], lcore);
		if (rc != 0)
			app_die("cannot launch lcore %u: %s", lcore, strerror(-rc));
	}
	printf("tfo-loadgen: %u generator lcore(s), %u port(s), %u client address(es), "
	       "concurrency %u per lcore\n", app.nb_gen, app.sh->nb_ports, app.o.nb_clients,
	       app.o.concurrency);
	fflush(stdout);

	if (!run_phases(&app)) {
		char ip[64];

		app.sh->phase = LG_PHASE_DONE;
		rte_eal_mp_wait_lcore();
		app_die("the server %s did not answer ARP/ND within %.1f s (or stopped by a "
		    "signal)", tfo_addr_str(app.o.family, &app.o.server, ip, sizeof(ip)),
		    app.o.resolve_timeout_s);
	}
	rte_eal_mp_wait_lcore();

	errors = report(&app);

	for (uint16_t p = 0; p < app.sh->nb_ports; p++)
		tfo_port_close(&app.sh->ports[p].info);
	for (i = 0; i < app.nb_gen; i++) {
		lg_lcore_free(app.lcs[i]);
		rte_free(app.lcs[i]);
	}
	lg_opts_free(&app.o);
	app_eal_stop();
	return errors ? 1 : 0;
}
