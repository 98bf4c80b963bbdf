/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the whole server, assembled from a configuration (see
 * server.h). Every step writes its own one-line reason into err.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_telemetry.h>

#include "lcore/drain.h"
#include "lcore/sdnotify.h"
#include "net/port.h"
#include "net/port_flow.h"
#include "net/xdp.h"
#include "ops/pool_plan.h"
#include "ops/server.h"
#include "ops/start_plan.h"
#include "tcp/service_reload.h"
#include "tfo/log.h"
#include "tfo/service.h"

struct tfo_server {
	struct tfo_config cfg;		/* the control core keeps a pointer */
	struct tfo_server_params p;
	char name[16];			/* prefix of pool and ring names */
	/* every lcore reads both once per poll: one cache line, which only a
	 * signal handler or a telemetry command writes */
	volatile bool quit __rte_cache_aligned;
	volatile bool drain;
	struct tfo_sdnotify notify;	/* the service manager's socket, or fd -1 */
	bool devices;			/* ports are rte_eth devices we set up */
	bool numa;			/* lcores on their own sockets (srv_lcores) */
	unsigned int nb_controls;	/* control lcores: the first ones */
	unsigned int nb_workers;
	unsigned int nb_ports;
	unsigned int nb_ports_up;	/* devices set up, closed by free */
	/* by socket id: one per socket with lcores (pool_plan.h), else NULL */
	struct rte_mempool *pools[TFO_PLAN_SOCKETS];
	unsigned int wrk_lcore[RTE_MAX_LCORE];
	int wrk_socket[RTE_MAX_LCORE];	/* where worker i's memory and rings are */
	int ctl_socket[TFO_MAX_CONTROLS];	/* control k's; [0]: the main lcore's */
	struct tfo_port_info ports[TFO_MAX_PORTS];
	struct tfo_worker **workers;
	/* worker i -> control k: rings[k * nb_workers + i] */
	struct rte_ring **rings;
	struct rte_ring **neigh;	/* worker i -> control 0: ARP and ND */
	struct rte_ring **from_ctl;	/* control -> worker i: SYNs, path-MTU errors */
	/* control k -> worker k % nb_workers, per port (ctrl_tx_relay) */
	struct rte_ring *relay[TFO_MAX_PORTS][TFO_MAX_CONTROLS];
	struct tfo_control control;	/* control 0 (the main lcore) */
	/* controls[0] = &control; 1..nb_controls-1 allocated */
	struct tfo_control *controls[TFO_MAX_CONTROLS];
	unsigned int ctl_lcore[TFO_MAX_CONTROLS];
	struct rte_ring *ctl_inbox[TFO_MAX_CONTROLS];	/* control 0 -> k: PTB */
	struct tfo_exc exc[TFO_MAX_PORTS];	/* exception paths (control 0's) */
	struct tfo_port_flow_set *flows[TFO_MAX_PORTS];	/* isolate = on: its rules */
	struct tfo_xdp xdp[TFO_MAX_PORTS];	/* our XDP programs (xdp = own) */
	struct tfo_keyring *keys;
	struct tfo_cookie_ctx *ctl_cookies[TFO_MAX_CONTROLS];
	char key_path[PATH_MAX * 2];	/* resolved [tfo] key_file, or "" */
	unsigned int nb_services;
	struct tfo_service_inst services[TFO_MAX_SERVICES];
	struct tfo_svc_ctr_map svc_ctrs;	/* their counters' names */
	struct tfo_svc_reloader *svc_reload;	/* NULL: no service reloads */
	struct tfo_alog *alog;		/* [server] access_log, or NULL */
};

/* Create every configured service once; all lcores share them read-only. */
static int
srv_services(struct tfo_server *s, int socket, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < s->cfg.nb_services; i++) {
		const struct tfo_cfg_service *cs = &s->cfg.services[i];
		struct tfo_service_kv kv[TFO_SERVICE_MAX_KV];
		struct tfo_service_args args = {
			.port = cs->port,
			.udp = cs->udp,
			.nb_kv = cs->nb_kv,
			.kv = kv,
			.base_dir = s->cfg.base_dir,
			.socket_id = socket,
		};
		struct tfo_service_inst *si = &s->services[s->nb_services];
		char why[160];
		int rc;

		for (unsigned int k = 0; k < cs->nb_kv; k++) {
			kv[k].key = cs->kv[k].key;
			kv[k].value = cs->kv[k].value;
		}
		si->svc = tfo_service_find(cs->name);
		si->port = cs->port;
		si->udp = cs->udp;
		if (si->svc != NULL &&
		    tfo_svc_ctr_map_add(&s->svc_ctrs, si, why, sizeof(why)) < 0)
			return tfo_errmsg(err, errlen, "[service %s]: %s", cs->name, why);
		rc = si->svc == NULL ? -ENOENT : si->svc->create(&args, &si->state);
		if (rc < 0)
			return tfo_errmsg(err, errlen,
				       "[service %s]: cannot start: %s (see the log line above)",
				       cs->name, strerror(-rc));
		s->nb_services++;
		if (s->devices)	/* not for every benchmark run or fuzzer start */
			TFO_LOG(INFO, "service %s on TCP port %u%s", cs->name, cs->port,
				cs->udp ? " and UDP" : "");
	}
	/*
	 * /tfo/stats,total is one telemetry dict of RTE_TEL_MAX_DICT_ENTRIES:
	 * the built-in counters, ~16 fields of its own (accounting, latency),
	 * then the services' counters; those that do not fit are left out of
	 * it (the stats line and the exit summary still have them).
	 */
	if (TFO_STAT_MAX + 16 + s->svc_ctrs.nb > RTE_TEL_MAX_DICT_ENTRIES)
		TFO_LOG(WARNING, "%u service counters: /tfo/stats (one telemetry dict of %d "
			"entries, %d built in) leaves the last of them out", s->svc_ctrs.nb,
			RTE_TEL_MAX_DICT_ENTRIES, (int)TFO_STAT_MAX);
	/* SIGHUP reloads them too (NULL: none can; no memory: keys only) */
	s->svc_reload = tfo_svc_reloader_create(s->services, s->nb_services);
	return 0;
}

/* MSS for IPv4: configured, or the smallest port MTU - 40. */
static uint16_t
srv_mss(const struct tfo_server *s)
{
	uint16_t mss = UINT16_MAX;

	if (s->cfg.mss != 0)
		return s->cfg.mss;
	for (unsigned int i = 0; i < s->nb_ports; i++)
		mss = (uint16_t)RTE_MIN(mss, s->ports[i].mtu - 40);
	return mss;
}

/*
 * What a worker's configuration holds, once at start: new connections/s
 * with a full TIME-WAIT, and at 1 ms from SYN to last ACK what the entries
 * and the pending-TFO limit hold (the runbook, "Sizing").
 */
static void
srv_log_capacity(const struct tfo_engine *e, const char *name,
		 const struct tfo_config *c)
{
	uint64_t tw, ent, tfo;

	tfo_engine_capacity(e, 1000, &tw, &ent, &tfo);
	if (tw == UINT64_MAX)
		TFO_LOG(INFO, "%s: holds %" PRIu64 " new connections/s at 1 ms RTT "
			"(%u entries; no TIME-WAIT), %" PRIu64 " TFO opens/s (pending_limit %u)",
			name, ent, c->max_conns, tfo, c->pending_limit);
	else
		TFO_LOG(INFO, "%s: holds %" PRIu64 " new connections/s with a full "
			"%u ms TIME-WAIT (%u records; beyond, the oldest end early), "
			"at 1 ms RTT %" PRIu64 "/s in %u entries and %" PRIu64
			" TFO opens/s (pending_limit %u, a reset open held %u ms)",
			name, tw, c->time_wait_ms, tfo_engine_time_wait_max(e), ent,
			c->max_conns, tfo, c->pending_limit, c->pending_hold_ms);
}

static struct tfo_engine *
srv_engine(struct tfo_server *s, const char *name, int socket, struct tfo_stats *stats,
	   struct tfo_tx *tx, struct tfo_lat *lat, bool control, char *err, size_t errlen)
{
	const struct tfo_config *c = &s->cfg;
	struct tfo_engine_params p;
	struct tfo_engine *e;

	/* the sizes as --print-config's memory plan counts them */
	tfo_engine_params_from_config(c, control, &p);
	p.name = name;
	p.socket_id = socket;
	p.mss = srv_mss(s);
	p.pool = s->pools[socket];	/* what it sends: from its own socket */
	p.ports = s->ports;
	p.nb_ports = (uint16_t)s->nb_ports;
	p.services = s->services;
	p.nb_services = s->nb_services;
	p.stats = stats;
	p.tx = tx;
	p.lat = lat;

	if (s->p.engine_tune != NULL)
		s->p.engine_tune(&p, control, s->p.arg);
	e = tfo_engine_create(&p);
	/* only a lack of memory is helped by fewer entries or more memory */
	if (e == NULL)
		tfo_errmsg(err, errlen, "%s: cannot create the TCP engine (%u conns, %u-byte "
			"requests, mss %u): %s (see the log line above; %s)", name,
			p.max_conns, p.max_request, p.mss, rte_strerror(rte_errno),
			rte_errno == ENOMEM ? "lower [tcp] max_conns or raise -m" :
			"a [tcp] value out of the engine's range");
	else if (!control)
		srv_log_capacity(e, name, c);
	return e;
}

/* The key ring: the given keys, the key file, or random keys. */
static int
srv_keys(struct tfo_server *s, int socket, char *err, size_t errlen)
{
	enum tfo_cookie_algo algo;
	char *path = s->key_path;
	int rc;

	if (tfo_cookie_algo_parse(s->cfg.cookie_algo, &algo) < 0)
		return tfo_errmsg(err, errlen, "[tfo] cookie_algo = %s: expected aes128 or "
			       "siphash-linux", s->cfg.cookie_algo);
	s->keys = tfo_keyring_create(algo, s->p.key, s->p.backup, socket);
	if (s->keys == NULL)
		return tfo_errmsg(err, errlen, "cannot create the TFO key ring: %s",
			       rte_strerror(rte_errno));
	if (s->p.key != NULL || s->cfg.key_file[0] == '\0')
		return 0;
	if (s->cfg.key_file[0] == '/')
		snprintf(path, sizeof(s->key_path), "%s", s->cfg.key_file);
	else
		snprintf(path, sizeof(s->key_path), "%s/%s", s->cfg.base_dir,
			 s->cfg.key_file);
	rc = tfo_keyring_load_file(s->keys, path);
	if (rc < 0)
		return tfo_errmsg(err, errlen, "[tfo] key_file = %s: %s (expected Linux's "
			       "tcp_fastopen_key format: "
			       "xxxxxxxx-xxxxxxxx-xxxxxxxx-xxxxxxxx[,backup])",
			       path, strerror(-rc));
	return 0;
}

static struct tfo_cookie_ctx *
srv_cookie_ctx(struct tfo_server *s, int socket, char *err, size_t errlen)
{
	struct tfo_cookie_ctx *cc;

	if (s->keys == NULL)
		return NULL;
	cc = tfo_cookie_ctx_create(s->keys, socket);
	if (cc == NULL)
		tfo_errmsg(err, errlen, "cannot create a TFO cookie checker: %s",
			rte_strerror(rte_errno));
	return cc;
}

static struct rte_ring *
srv_ring(struct tfo_server *s, const char *kind, unsigned int i, uint32_t size,
	 int socket, unsigned int flags, char *err, size_t errlen)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	if (snprintf(name, sizeof(name), "%s_%s%u", s->name, kind, i) >= (int)sizeof(name)) {
		/* a truncated name could collide with another server's ring */
		tfo_errmsg(err, errlen, "ring name %s_%s%u: longer than %u characters",
			   s->name, kind, i, (unsigned int)(RTE_RING_NAMESIZE - 1));
		return NULL;
	}
	r = rte_ring_create(name, size, socket, RING_F_SP_ENQ | RING_F_SC_DEQ | flags);
	if (r == NULL && (flags & RING_F_EXACT_SZ))	/* the [server] ring_size ones */
		tfo_errmsg(err, errlen, "[server] ring_size = %u: cannot create ring %s: %s",
			size, name, rte_strerror(rte_errno));
	else if (r == NULL)
		tfo_errmsg(err, errlen, "cannot create ring %s: %s", name,
			rte_strerror(rte_errno));
	return r;
}

static unsigned int
srv_inbox_size(const struct tfo_server *s)
{
	return tfo_pool_plan_inbox_size(&s->cfg);
}

/* Room for the largest frame of any port. */
static uint16_t
srv_data_room(const struct tfo_server *s)
{
	uint16_t mtu = 0;

	for (unsigned int i = 0; i < s->nb_ports; i++)
		mtu = RTE_MAX(mtu, s->devices ? s->cfg.ports[i].mtu : s->p.ports[i].mtu);
	return tfo_pool_plan_data_room(mtu);
}

/* Port @p i's socket for the pool plan; -1 (control 0's) when unknown,
 * and when every lcore counts as the main one's (s->numa false). */
static int
srv_port_socket(const struct tfo_server *s, unsigned int i)
{
	uint16_t port_id;

	if (!s->numa || rte_eth_dev_get_port_by_name(s->cfg.ports[i].device, &port_id) != 0)
		return -1;	/* no device: tfo_port_setup says so */
	return rte_eth_dev_socket_id(port_id);
}

/* What the pool plan is made of; also which pool each RX queue takes. */
static struct tfo_pool_plan_in
srv_plan_in(const struct tfo_server *s, const int *port_socket)
{
	struct tfo_pool_plan_in in = {
		.cfg = &s->cfg,
		.nb_workers = s->nb_workers,
		.nb_controls = s->nb_controls,
		.worker_socket = s->wrk_socket,
		.control_socket = s->ctl_socket,
		.port_socket = port_socket,
		.inbox_size = srv_inbox_size(s),
		.ctl_inbox_size = TFO_POOL_PLAN_CTL_INBOX,
		.mbufs = s->p.nb_mbufs ? s->p.nb_mbufs : s->cfg.mbufs,
		.exact = s->p.nb_mbufs != 0,
	};

	return in;
}

/*
 * One mbuf pool per socket with lcores, each as big as what its lcores'
 * queues, rings and caches hold (tfo_pool_plan), so that no frame's
 * buffer is on another socket than the lcore that touches it most.
 */
static int
srv_pools(struct tfo_server *s, char *err, size_t errlen)
{
	int port_socket[TFO_MAX_PORTS];
	struct tfo_pool_plan_in in = srv_plan_in(s, port_socket);
	uint16_t data_room = srv_data_room(s);
	struct tfo_pool_plan plan;
	char name[RTE_MEMPOOL_NAMESIZE];
	int rc;

	for (unsigned int i = 0; i < s->cfg.nb_ports; i++)
		port_socket[i] = srv_port_socket(s, i);
	rc = tfo_pool_plan(&in, &plan, err, errlen);
	if (rc < 0)
		return rc;
	for (unsigned int i = 0; i < s->cfg.nb_ports; i++)
		if (plan.ports_alone & (1u << i))
			TFO_LOG(WARNING, "[port %s] is on socket %d, where no lcore runs: each "
				"of its frames crosses sockets (give it lcores of its node: "
				"docs/runbook.md, section 2)", s->cfg.ports[i].device,
				port_socket[i]);
	for (int so = 0; so < TFO_PLAN_SOCKETS; so++) {
		if (plan.mbufs[so] == 0)
			continue;
		/* the name prefix keeps two servers of one process apart */
		snprintf(name, sizeof(name), "%s_mbufs%d", s->name, so);
		s->pools[so] = rte_pktmbuf_pool_create(name, plan.mbufs[so], s->cfg.mbuf_cache,
						       0, data_room, so);
		if (s->pools[so] == NULL)
			return tfo_errmsg(err, errlen, "cannot create a pool of %u mbufs of %u "
				       "bytes on socket %d: %s (reserve hugepages on node %d, "
				       "raise -m / --socket-mem, or lower [server] mbufs / "
				       "ring_size / [port] rx_desc, tx_desc)", plan.mbufs[so],
				       data_room, so, rte_strerror(rte_errno), so);
		if (s->devices)	/* not for every benchmark run or fuzzer start */
			TFO_LOG(INFO, "mbuf pool on socket %d: %u mbufs of %u bytes (the "
				"queues, rings and caches of its lcores hold %u)", so,
				plan.mbufs[so], data_room, plan.need[so]);
	}
	return 0;
}

/* The devices, or the given ports. */
static int
srv_ports(struct tfo_server *s, char *err, size_t errlen)
{
	struct tfo_pool_plan_in in = srv_plan_in(s, NULL);
	struct rte_mempool *rxq_pool[RTE_MAX_LCORE + 1];
	uint16_t svc_ports[TFO_MAX_SERVICES];
	char desc[256];
	uint8_t addr_base = 0;

	if (!s->devices) {
		memcpy(s->ports, s->p.ports, sizeof(s->ports[0]) * s->nb_ports);
		return 0;
	}
	for (unsigned int k = 0; k < s->cfg.nb_services; k++)
		svc_ports[k] = s->cfg.services[k].port;
	/* RX queue q: worker q's socket's pool; the SYN queue, control 0's */
	for (unsigned int q = 0; q <= s->nb_workers; q++)
		rxq_pool[q] = s->pools[tfo_pool_plan_rxq_socket(&in, q)];
	for (unsigned int i = 0; i < s->nb_ports; i++) {
		bool xdp_own = tfo_xdp_own(&s->cfg.ports[i]);

		s->cfg.ports[i].rx_intr = s->cfg.idle_policy == TFO_IDLE_ADAPTIVE;
		/* the kernel's NIC driver spreads flows over the interface's
		 * queues (its RSS), one AF_XDP socket per queue */
		s->cfg.ports[i].rss_optional |= xdp_own;
		if (xdp_own && tfo_xdp_check_workers(&s->cfg.ports[i], s->nb_workers, err,
						      errlen) < 0)
			return -EINVAL;
		if (tfo_port_setup(&s->cfg.ports[i], (uint16_t)s->nb_workers,
				   (uint16_t)(s->nb_workers + s->nb_controls), rxq_pool,
				   (uint16_t)(s->nb_workers + 1), addr_base, &s->ports[i], err,
				   errlen) < 0)
			return -EINVAL;
		s->nb_ports_up++;
		if (s->cfg.ports[i].isolate) {
			s->flows[i] = tfo_port_flow_setup(&s->cfg.ports[i], &s->ports[i],
							  (uint16_t)s->nb_workers, svc_ports,
							  s->cfg.nb_services, err, errlen);
			if (s->flows[i] == NULL)
				return -EINVAL;
		}
		if (xdp_own) {
			if (tfo_xdp_attach(&s->cfg, &s->cfg.ports[i], s->nb_workers,
					   &s->xdp[i], err, errlen) < 0)
				return -EINVAL;
			/* the kernel answers ARP, ND and echo (tfo_control_handle) */
			s->ports[i].kernel_neigh = true;
		}
		/* the kernel's frames are control 0's to handle */
		if (tfo_exc_setup(&s->cfg.ports[i], (uint8_t)i, &s->ports[i],
				  s->pools[s->ctl_socket[0]], &s->exc[i], err, errlen) < 0)
			return -EINVAL;
		addr_base = (uint8_t)(addr_base + s->cfg.ports[i].nb_addrs);
		tfo_port_describe(&s->ports[i], desc, sizeof(desc));
		TFO_LOG(INFO, "%s", desc);
	}
	return 0;
}

/* Another lcore is pinned to one of @p lcore's CPUs (e.g. --lcores
 * 0@1,1@1 on a small VM): there, an lcore that spins starves its
 * neighbour, so its empty polls yield. */
static bool
srv_cpu_shared(unsigned int lcore)
{
	rte_cpuset_t mine = rte_lcore_cpuset(lcore);
	unsigned int other;

	RTE_LCORE_FOREACH(other) {
		rte_cpuset_t theirs = rte_lcore_cpuset(other), both;

		if (other == lcore)
			continue;
		CPU_AND(&both, &mine, &theirs);
		if (CPU_COUNT(&both) != 0)
			return true;
	}
	return false;
}

/* What the lcore does when a poll finds nothing; a device-free server's
 * lcores never run a loop of their own (no doorbell, nothing to wake). */
static struct tfo_idle_params
srv_idle_params(const struct tfo_server *s, unsigned int lcore)
{
	struct tfo_idle_params ip = {
		.policy = s->devices ? s->cfg.idle_policy : TFO_IDLE_BUSY,
		.sleep_us = s->cfg.idle_sleep_us,
		.poll_us = s->cfg.idle_poll_us,
		.shared_cpu = s->devices && srv_cpu_shared(lcore),
	};

	return ip;
}

/* Worker @p wi on @p lcore: its ring to each control lcore, its inbox
 * (steered SYNs, path-MTU errors), its cookie checker, its engine. */
static int
srv_worker(struct tfo_server *s, unsigned int wi, unsigned int lcore, char *err,
	   size_t errlen)
{
	int wsock = s->wrk_socket[wi];
	struct tfo_worker_params wp = {
		.queue = (uint16_t)wi,
		.lcore_id = lcore,
		.ports = s->ports,
		.nb_ports = (uint16_t)s->nb_ports,
		.burst = s->cfg.burst,
		.idle = srv_idle_params(s, lcore),
		.quit = &s->quit,
		.drain = &s->drain,
		.cookie_not_required = s->keys != NULL && s->cfg.cookie_not_required,
		.syncookies = s->cfg.syncookies,
	};
	char name[32];
	struct tfo_worker *w;
	int rc;

	/* ring i = k * nb_workers + wi: control 0's keep their names; on
	 * the socket of the control lcore that polls it */
	for (unsigned int k = 0; k < s->nb_controls; k++) {
		unsigned int i = k * s->nb_workers + wi;

		s->rings[i] = srv_ring(s, "ctl", i, s->cfg.ring_size, s->ctl_socket[k],
				       RING_F_EXACT_SZ, err, errlen);
		if (s->rings[i] == NULL)
			return -ENOMEM;
		wp.to_controls[k] = s->rings[i];
	}
	wp.nb_controls = s->nb_controls;
	/* apart from the rest, small: ARP and ND are a few frames a second */
	s->neigh[wi] = srv_ring(s, "nbr", wi, TFO_POOL_PLAN_NEIGH, s->ctl_socket[0], 0,
				err, errlen);
	if (s->neigh[wi] == NULL)
		return -ENOMEM;
	wp.to_neigh = s->neigh[wi];
	s->from_ctl[wi] = srv_ring(s, "syn", wi, srv_inbox_size(s), wsock,
				    RING_F_EXACT_SZ, err, errlen);
	if (s->from_ctl[wi] == NULL)
		return -ENOMEM;
	wp.from_ctl = s->from_ctl[wi];
	wp.cookies = srv_cookie_ctx(s, wsock, err, errlen);
	if (s->keys != NULL && wp.cookies == NULL)
		return -ENOMEM;
	/* what the run-time dispatch picked on this CPU (a portable build
	 * runs the widest units the CPU has) */
	if (wi == 0 && wp.cookies != NULL && s->devices)
		TFO_LOG(INFO, "cookie batches: %s", tfo_cookie_ctx_engine(wp.cookies));
	w = rte_zmalloc_socket("tfo_worker", sizeof(*w), RTE_CACHE_LINE_SIZE, wsock);
	if (w == NULL) {
		tfo_cookie_ctx_free(wp.cookies);
		return tfo_errmsg(err, errlen, "out of memory for worker %u", wi);
	}
	s->workers[wi] = w;
	rc = tfo_worker_init(w, &wp);
	if (rc < 0) {
		tfo_cookie_ctx_free(wp.cookies);
		w->cookies = NULL;
		return tfo_errmsg(err, errlen, "worker %u: %s", wi,
				  rc == -EINVAL ? "bad parameters" : strerror(-rc));
	}
	snprintf(name, sizeof(name), "%sworker%u", s->p.name ? s->p.name : "", wi);
	w->engine = srv_engine(s, name, wsock, &w->stats, &w->tx, &w->lat, false, err,
			       errlen);
	return w->engine == NULL ? -ENOMEM : 0;
}

static int
srv_workers(struct tfo_server *s, char *err, size_t errlen)
{
	int rc;

	s->workers = rte_zmalloc("tfo_workers", sizeof(*s->workers) * s->nb_workers, 0);
	s->rings = rte_zmalloc("tfo_rings",
			       sizeof(*s->rings) * s->nb_workers * s->nb_controls, 0);
	s->from_ctl = rte_zmalloc("tfo_syn", sizeof(*s->from_ctl) * s->nb_workers, 0);
	s->neigh = rte_zmalloc("tfo_nbr", sizeof(*s->neigh) * s->nb_workers, 0);
	if (s->workers == NULL || s->rings == NULL || s->from_ctl == NULL ||
	    s->neigh == NULL)
		return tfo_errmsg(err, errlen, "out of memory for %u workers", s->nb_workers);
	for (unsigned int wi = 0; wi < s->nb_workers; wi++) {
		rc = srv_worker(s, wi, s->wrk_lcore[wi], err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Control lcore @p k: its engine, its cookie generator, (control 0) the
 * keys, its relay ring on each port that gave control lcores no TX queue
 * (to worker k % workers, which sends for it); (k > 0) its inbox for
 * control 0's path-MTU hand-overs.
 */
static int
srv_control(struct tfo_server *s, unsigned int k, char *err, size_t errlen)
{
	int socket = s->ctl_socket[k];
	struct tfo_control *c = k == 0 ? &s->control :
				rte_zmalloc_socket("tfo_control", sizeof(*c),
						   RTE_CACHE_LINE_SIZE, socket);
	struct tfo_control_params cp = {
		.cfg = &s->cfg,
		.ports = s->ports,
		.nb_ports = (uint16_t)s->nb_ports,
		.workers = s->workers,
		.nb_workers = s->nb_workers,
		.quit = &s->quit,
		.drain = &s->drain,
		.notify = k == 0 ? &s->notify : NULL,
		.idx = k,
		.nb_controls = s->nb_controls,
		.peers = s->controls,
		.svc_reload = k == 0 ? s->svc_reload : NULL,
		.svc_ctrs = &s->svc_ctrs,
		.idle = srv_idle_params(s, s->ctl_lcore[k]),
	};
	char name[32];
	int rc = -ENOMEM;

	if (c == NULL)
		return tfo_errmsg(err, errlen, "out of memory for control lcore %u", k);
	s->controls[k] = c;
	if (k == 0)
		snprintf(name, sizeof(name), "%scontrol", s->p.name ? s->p.name : "");
	else
		snprintf(name, sizeof(name), "%scontrol%u", s->p.name ? s->p.name : "", k);
	/* the engine counts in c->stats and sends by c->tx, which
	 * tfo_control_init zeroes in place */
	cp.engine = srv_engine(s, name, socket, &c->stats, &c->tx, &c->lat, true, err,
			       errlen);
	if (cp.engine == NULL)
		return -ENOMEM;
	if (s->keys != NULL) {
		if (k == 0) {
			cp.keys = s->keys;
			if (s->key_path[0] != '\0')
				cp.key_file = s->key_path;
		}
		s->ctl_cookies[k] = srv_cookie_ctx(s, socket, err, errlen);
		if (s->ctl_cookies[k] == NULL)
			goto fail;
		cp.cookies = s->ctl_cookies[k];
	}
	if (k > 0) {
		s->ctl_inbox[k] = srv_ring(s, "cin", k, TFO_POOL_PLAN_CTL_INBOX, socket, RING_F_EXACT_SZ,
					   err, errlen);
		if (s->ctl_inbox[k] == NULL)
			goto fail;
		cp.inbox = s->ctl_inbox[k];
	}
	for (unsigned int i = 0; i < s->nb_ports && s->nb_workers > 0; i++) {
		struct tfo_worker *rw = s->workers[k % s->nb_workers];

		if (!s->ports[i].ctrl_tx_relay)
			continue;
		/* on the socket of the worker that empties it */
		s->relay[i][k] = srv_ring(s, "relay", i * TFO_MAX_CONTROLS + k,
					  TFO_POOL_PLAN_RELAY, s->wrk_socket[k % s->nb_workers], 0,
					  err, errlen);
		if (s->relay[i][k] == NULL)
			goto fail;
		rw->relay[i][k / s->nb_workers] = s->relay[i][k];
		rw->nb_relays = RTE_MAX(rw->nb_relays, k / s->nb_workers + 1);
		cp.relay[i] = s->relay[i][k];
	}
	cp.exc = k == 0 ? s->exc : NULL;
	rc = tfo_control_init(c, &cp);
	if (rc == 0) {
		c->lcore_id = s->ctl_lcore[k];
		/* one ISN/TSval and SYN-cookie secret for every engine: a
		 * worker's SYN cookie is opened on control k, and auto reads
		 * control k's flag */
		if (k > 0)
			tfo_engine_share_secrets(cp.engine, s->controls[0]->engine);
		for (unsigned int wi = 0; wi < s->nb_workers; wi++) {
			if (k == 0)
				tfo_engine_share_secrets(s->workers[wi]->engine, cp.engine);
			s->workers[wi]->syn_def.ctrl_pressure[k] = &c->syn_pressure;
			s->workers[wi]->ctl_bell[k] = &c->idle.bell;
		}
		return 0;
	}
	rc = tfo_errmsg(err, errlen, "control lcore %u: %s", k,
			rc == -EINVAL ? "bad parameters" : strerror(-rc));
fail:
	/* not yet c->engine, which tfo_server_destroy frees */
	tfo_engine_free(cp.engine);
	return rc;
}

/* One producer (and ring) of access-log records per lcore. */
static int
srv_alog_src(struct tfo_server *s, struct tfo_lat *lat, struct tfo_stats *st, int socket,
	     char *err, size_t errlen)
{
	struct tfo_alog *a = s->alog;
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "%s_alog%u", s->name, a->nb_src);
	a->src[a->nb_src] = tfo_alog_src_create(name, socket, s->cfg.access_log_sample, st);
	if (a->src[a->nb_src] == NULL)
		return tfo_errmsg(err, errlen, "access_log: no memory for the ring %s: %s",
				  name, rte_strerror(rte_errno));
	lat->alog = a->src[a->nb_src++];
	return 0;
}

/* [server] access_log: control 0 writes what every lcore samples. */
static int
srv_access_log(struct tfo_server *s, char *err, size_t errlen)
{
	struct tfo_alog *a;
	int rc = 0;

	if (s->cfg.access_log[0] == '\0')
		return 0;
	a = rte_zmalloc_socket("tfo_alog", sizeof(*a), RTE_CACHE_LINE_SIZE, s->ctl_socket[0]);
	if (a == NULL)
		return tfo_errmsg(err, errlen, "access_log: out of memory");
	s->alog = a;
	if ((s->cfg.access_log[0] == '/' ?
	     snprintf(a->path, sizeof(a->path), "%.*s", (int)sizeof(a->path) - 1,
		      s->cfg.access_log) :
	     snprintf(a->path, sizeof(a->path), "%.*s/%.*s", (int)sizeof(a->path) / 2 - 1,
		      s->cfg.base_dir, (int)sizeof(a->path) / 2 - 1, s->cfg.access_log)) >=
	    (int)sizeof(a->path) - 1)
		return tfo_errmsg(err, errlen, "[server] access_log = %s: path too long",
				  s->cfg.access_log);
	a->st = &s->control.stats;
	a->tsc_hz = rte_get_tsc_hz();
	for (unsigned int i = 0; i < s->nb_services; i++)
		a->svc_name[i] = s->services[i].svc->name;
	for (unsigned int k = 0; k < s->nb_controls && rc == 0; k++)
		rc = srv_alog_src(s, &s->controls[k]->lat, &s->controls[k]->stats,
				  s->ctl_socket[k], err, errlen);
	for (unsigned int wi = 0; wi < s->nb_workers && rc == 0; wi++)
		rc = srv_alog_src(s, &s->workers[wi]->lat, &s->workers[wi]->stats,
				  s->wrk_socket[wi], err, errlen);
	if (rc < 0)
		return rc;
	rc = tfo_alog_open(a);
	if (rc < 0)
		return tfo_errmsg(err, errlen, "[server] access_log = %s: %s", a->path,
				  strerror(-rc));
	s->control.alog = a;
	TFO_LOG(INFO, "access_log %s: 1 in %u transactions", a->path,
		s->cfg.access_log_sample);
	return 0;
}

static int
srv_controls(struct tfo_server *s, char *err, size_t errlen)
{
	for (unsigned int k = 0; k < s->nb_controls; k++) {
		int rc = srv_control(s, k, err, errlen);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
srv_check(struct tfo_server *s, const struct tfo_server_params *p, char *err,
	  size_t errlen)
{
	unsigned int nb_lcores = rte_lcore_count();

	if (p->ports == NULL && (p->nb_workers != 0 || p->nb_controls != 0))
		return tfo_errmsg(err, errlen, "nb_workers and nb_controls are only for a server "
			       "without devices");
	s->nb_controls = p->nb_controls != 0 ? p->nb_controls : s->cfg.control_lcores;
	if (s->nb_controls == 0)
		s->nb_controls = 1;
	if (s->nb_controls > TFO_MAX_CONTROLS)
		return tfo_errmsg(err, errlen, "[server] control_lcores = %u: at most %d",
			       s->nb_controls, TFO_MAX_CONTROLS);
	if (p->ports != NULL) {
		if (p->nb_workers == 0 || p->nb_ports == 0 || p->nb_ports > TFO_MAX_PORTS)
			return tfo_errmsg(err, errlen, "a server without devices needs workers "
				       "and 1..%d ports", TFO_MAX_PORTS);
		if (p->nb_workers > RTE_MAX_LCORE)
			return tfo_errmsg(err, errlen, "nb_workers = %u: at most %d",
				       p->nb_workers, RTE_MAX_LCORE);
		s->nb_workers = p->nb_workers;
		s->nb_ports = p->nb_ports;
		return 0;
	}
	if (s->nb_controls == 1 && nb_lcores < 2)
		return tfo_errmsg(err, errlen, "need at least 2 lcores (control + one worker); "
			       "EAL gave %u (use -l 0-1 or more)", nb_lcores);
	if (nb_lcores < s->nb_controls + 1)
		return tfo_errmsg(err, errlen, "[server] control_lcores = %u needs at least %u "
			       "lcores, EAL gave %u (use -l/--lcores)", s->nb_controls,
			       s->nb_controls + 1, nb_lcores);
	s->devices = true;
	s->nb_workers = nb_lcores - s->nb_controls;
	s->nb_ports = s->cfg.nb_ports;
	return 0;
}

/* The socket of @p lcore, or @p main_socket when the EAL knows none in
 * range (an lcore whose CPUs span sockets: --lcores 1@(0,8)). */
static int
srv_lcore_socket(unsigned int lcore, int main_socket)
{
	unsigned int so = rte_lcore_to_socket_id(lcore);

	return so < TFO_PLAN_SOCKETS ? (int)so : main_socket;
}

/*
 * Which lcore each control lcore and worker is, and its socket: the main
 * lcore is control 0, the next nb_controls - 1 EAL lcores controls
 * 1..N-1, the rest workers (tfo_server_launch starts them so). Without
 * devices nothing is launched: all on the caller's socket. Without
 * hugepages too: --no-huge memory is one socket's.
 */
static void
srv_lcores(struct tfo_server *s)
{
	/* a main lcore on CPUs of several sockets has none (SOCKET_ID_ANY):
	 * socket 0, which always has memory (--no-huge's is there) */
	int main_socket = srv_lcore_socket(rte_get_main_lcore(), 0);
	unsigned int wi = 0, ci = 1, lcore;

	s->numa = s->devices && rte_eal_has_hugepages();
	for (unsigned int k = 0; k < s->nb_controls; k++)
		s->ctl_socket[k] = main_socket;
	for (wi = 0; wi < s->nb_workers; wi++)
		s->wrk_socket[wi] = main_socket;
	if (!s->devices)
		return;
	s->ctl_lcore[0] = rte_get_main_lcore();
	wi = 0;
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (ci < s->nb_controls)
			s->ctl_lcore[ci++] = lcore;
		else
			s->wrk_lcore[wi++] = lcore;
	}
	if (!s->numa)
		return;
	for (unsigned int k = 0; k < s->nb_controls; k++)
		s->ctl_socket[k] = srv_lcore_socket(s->ctl_lcore[k], main_socket);
	for (wi = 0; wi < s->nb_workers; wi++)
		s->wrk_socket[wi] = srv_lcore_socket(s->wrk_lcore[wi], main_socket);
}

/* What each lcore checks before it sleeps, and what can wake it. */
static int
srv_idle_watch(struct tfo_server *s, char *err, size_t errlen)
{
	int rc = 0;

	if (!s->devices || s->cfg.idle_policy != TFO_IDLE_ADAPTIVE)
		return 0;
	for (unsigned int wi = 0; wi < s->nb_workers && rc == 0; wi++)
		rc = tfo_worker_idle_watch(s->workers[wi]);
	for (unsigned int k = 0; k < s->nb_controls && rc == 0; k++)
		rc = tfo_control_idle_watch(s->controls[k]);
	if (rc < 0)
		return tfo_errmsg(err, errlen, "idle_policy adaptive: %s", strerror(-rc));
	return 0;
}

/*
 * Tell the service reloader every engine (workers', control lcores'), so
 * that a replaced document root is freed only when no send queue points
 * into it any more (tfo_service.reclaim).
 */
static int
srv_reload_engines(struct tfo_server *s, char *err, size_t errlen)
{
	struct tfo_engine *e[RTE_MAX_LCORE];
	unsigned int n = 0;

	if (s->svc_reload == NULL)
		return 0;
	for (unsigned int wi = 0; wi < s->nb_workers && n < RTE_DIM(e); wi++)
		e[n++] = s->workers[wi]->engine;
	for (unsigned int k = 0; k < s->nb_controls && n < RTE_DIM(e); k++)
		e[n++] = s->controls[k]->engine;
	if (tfo_svc_reloader_set_engines(s->svc_reload, e, n) < 0)
		return tfo_errmsg(err, errlen, "out of memory for the service reloader");
	return 0;
}

/* Each step leaves what it made in @p s, for tfo_server_free on failure. */
static int
srv_build(struct tfo_server *s, char *err, size_t errlen)
{
	int socket;	/* the main lcore's: what every lcore shares */
	int rc;

	if (tfo_ctrl_reason_register() < 0)
		return tfo_errmsg(err, errlen, "cannot register the mbuf dynamic field");
	/* READY=1, STOPPING=1 and WATCHDOG=1 go there (drain.h) */
	if (s->devices) {
		rc = tfo_sdnotify_open_env(&s->notify);
		if (rc < 0)
			return tfo_errmsg(err, errlen, "NOTIFY_SOCKET: %s", strerror(-rc));
		if (rc > 0)
			TFO_LOG(INFO, "service manager: notify socket %s%s", getenv("NOTIFY_SOCKET"),
				s->notify.watchdog_us != 0 ? ", watchdog on" : "");
	}
	srv_lcores(s);
	socket = s->ctl_socket[0];
	rc = srv_pools(s, err, errlen);
	if (rc == 0)
		rc = srv_ports(s, err, errlen);
	if (rc == 0)
		rc = srv_services(s, socket, err, errlen);
	if (rc == 0 && s->cfg.tfo_enabled)
		rc = srv_keys(s, socket, err, errlen);
	if (rc == 0)
		rc = srv_workers(s, err, errlen);
	if (rc == 0)
		rc = srv_controls(s, err, errlen);
	if (rc == 0)
		rc = srv_access_log(s, err, errlen);
	if (rc == 0)
		rc = srv_reload_engines(s, err, errlen);
	if (rc == 0)
		rc = srv_idle_watch(s, err, errlen);
	return rc;
}

struct tfo_server *
tfo_server_create(const struct tfo_config *cfg, const struct tfo_server_params *params,
		  char *err, size_t errlen)
{
	static const struct tfo_server_params none;
	const struct tfo_server_params *p = params != NULL ? params : &none;
	struct tfo_server *s = rte_zmalloc("tfo_server", sizeof(*s), RTE_CACHE_LINE_SIZE);

	if (s == NULL) {
		tfo_errmsg(err, errlen, "out of memory for the server");
		return NULL;
	}
	s->cfg = *cfg;
	s->p = *p;
	s->notify.fd = -1;
	snprintf(s->name, sizeof(s->name), "%s", p->name != NULL ? p->name : "tfo");
	if (srv_check(s, p, err, errlen) < 0 || srv_build(s, err, errlen) < 0) {
		s->p.telemetry = false;	/* nothing registered yet: free it all */
		tfo_server_free(s);
		return NULL;
	}
	if (s->cfg.cookie_not_required)
		TFO_LOG(WARNING, "*** [tfo] cookie_not_required = yes: SYN data is accepted "
			"WITHOUT a cookie; any spoofed SYN makes the server work. Only for "
			"trusted networks. ***");
	if (p->telemetry)
		tfo_control_telemetry_register(&s->control);
	return s;
}

static void
srv_ring_free(struct rte_ring *r)
{
	struct rte_mbuf *m;

	while (r != NULL && rte_ring_sc_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(r);
}

static void
srv_worker_free(struct tfo_server *s, unsigned int wi)
{
	struct tfo_worker *w = s->workers != NULL ? s->workers[wi] : NULL;

	if (w != NULL) {
		tfo_engine_free(w->engine);
		tfo_cookie_ctx_free(w->cookies);
		tfo_worker_close(w);
		rte_free(w);
	}
	for (unsigned int k = 0; s->rings != NULL && k < s->nb_controls; k++)
		srv_ring_free(s->rings[k * s->nb_workers + wi]);
	if (s->from_ctl != NULL)
		srv_ring_free(s->from_ctl[wi]);
	if (s->neigh != NULL)
		srv_ring_free(s->neigh[wi]);
}

void
tfo_server_free(struct tfo_server *s)
{
	if (s == NULL)
		return;
	for (unsigned int i = 0; i < s->nb_ports_up; i++) {
		uint64_t to_us, to_kernel;

		/* what the program decided, beside the summary's port lines */
		if (s->xdp[i].ifindex != 0 &&
		    tfo_xdp_counters(&s->xdp[i], &to_us, &to_kernel) == 0)
			TFO_LOG(INFO, "[port %s] XDP program: %" PRIu64 " frames to tfo-server, "
				"%" PRIu64 " left to the kernel", s->cfg.ports[i].device, to_us,
				to_kernel);
		tfo_exc_close(&s->exc[i]);
		tfo_port_flow_free(s->flows[i]);	/* before the port stops */
		s->flows[i] = NULL;
		tfo_port_close(&s->ports[i]);
		tfo_xdp_detach(&s->xdp[i]);
	}
	tfo_sdnotify_close(&s->notify);
	if (s->p.telemetry)
		return;	/* the telemetry thread may still read it all (server.h) */
	if (s->alog != NULL) {
		tfo_alog_close(s->alog);
		for (unsigned int i = 0; i < s->alog->nb_src; i++)
			tfo_alog_src_free(s->alog->src[i]);
		rte_free(s->alog);
	}
	for (unsigned int k = 0; k < s->nb_controls; k++) {
		if (s->controls[k] != NULL) {
			tfo_engine_free(s->controls[k]->engine);
			tfo_control_close(s->controls[k]);
		}
		tfo_cookie_ctx_free(s->ctl_cookies[k]);
		srv_ring_free(s->ctl_inbox[k]);
		if (k > 0)
			rte_free(s->controls[k]);
	}
	for (unsigned int i = 0; i < TFO_MAX_PORTS; i++)
		for (unsigned int k = 0; k < TFO_MAX_CONTROLS; k++)
			srv_ring_free(s->relay[i][k]);
	for (unsigned int wi = 0; wi < s->nb_workers; wi++)
		srv_worker_free(s, wi);
	rte_free(s->workers);
	rte_free(s->rings);
	rte_free(s->from_ctl);
	rte_free(s->neigh);
	tfo_keyring_free(s->keys);
	tfo_svc_reloader_free(s->svc_reload);	/* before what it reloads */
	for (unsigned int i = 0; i < s->nb_services; i++)
		if (s->services[i].svc->destroy != NULL)
			s->services[i].svc->destroy(s->services[i].state);
	for (int so = 0; so < TFO_PLAN_SOCKETS; so++)
		rte_mempool_free(s->pools[so]);
	rte_free(s);
}

int
tfo_server_launch(struct tfo_server *s)
{
	int rc;

	if (!s->devices)
		return -ENOTSUP;
	/* on the lcores srv_lcores chose (and their sockets' memory) */
	for (unsigned int k = 1; k < s->nb_controls; k++) {
		rc = rte_eal_remote_launch(tfo_control_lcore_main, s->controls[k],
					   s->ctl_lcore[k]);
		if (rc != 0)
			return rc;
	}
	for (unsigned int wi = 0; wi < s->nb_workers; wi++) {
		rc = rte_eal_remote_launch(tfo_worker_main, s->workers[wi], s->wrk_lcore[wi]);
		if (rc != 0)
			return rc;
	}
	return 0;
}

void
tfo_server_run(struct tfo_server *s)
{
	/* returns at quit, or when control 0 ends a drain: stop the rest */
	tfo_control_main(&s->control);
	tfo_server_stop(s);
	rte_eal_mp_wait_lcore();
	if (s->alog != NULL) {
		/* every lcore stopped: their last samples, then the file */
		for (unsigned int wi = 0; wi < s->nb_workers; wi++)
			if (s->workers[wi]->lat.npend != 0)
				tfo_lat_flush(&s->workers[wi]->lat, rte_rdtsc());
		for (unsigned int k = 0; k < s->nb_controls; k++)
			if (s->controls[k]->lat.npend != 0)
				tfo_lat_flush(&s->controls[k]->lat, rte_rdtsc());
		s->control.alog = NULL;
		tfo_alog_close(s->alog);
	}
}

void
tfo_server_drain(struct tfo_server *s)
{
	tfo_drain_request(&s->control);
}

bool
tfo_server_draining(const struct tfo_server *s)
{
	return s->drain;
}

void
tfo_server_stop(struct tfo_server *s)
{
	s->quit = true;
	/* a sleeping lcore sees quit at once (write(2) is async-signal-safe) */
	for (unsigned int wi = 0; s->workers != NULL && wi < s->nb_workers; wi++)
		if (s->workers[wi] != NULL)
			tfo_doorbell_wake(&s->workers[wi]->idle.bell, NULL);
	for (unsigned int k = 0; k < s->nb_controls; k++)
		if (s->controls[k] != NULL)
			tfo_doorbell_wake(&s->controls[k]->idle.bell, NULL);
}

void
tfo_server_reload(struct tfo_server *s)
{
	s->control.reload_requested = 1;
	tfo_doorbell_wake(&s->control.idle.bell, NULL);
}

unsigned int
tfo_server_nb_workers(const struct tfo_server *s)
{
	return s->nb_workers;
}

unsigned int
tfo_server_nb_ports(const struct tfo_server *s)
{
	return s->nb_ports;
}

struct tfo_worker *
tfo_server_worker(struct tfo_server *s, unsigned int i)
{
	return i < s->nb_workers ? s->workers[i] : NULL;
}

struct tfo_control *
tfo_server_control(struct tfo_server *s)
{
	return &s->control;
}

unsigned int
tfo_server_nb_controls(const struct tfo_server *s)
{
	return s->nb_controls;
}

struct tfo_control *
tfo_server_control_at(struct tfo_server *s, unsigned int i)
{
	return i < s->nb_controls ? s->controls[i] : NULL;
}

struct rte_mempool *
tfo_server_pool(struct tfo_server *s)
{
	return s->pools[s->ctl_socket[0]];
}
