/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the server's shared resources: services, engines, keys,
 * rings, pools and ports (see server_priv.h). Every step writes
 * its own one-line reason into err.
 */
#include "net/xdp_pool.h"
#include "net/xsk.h"
#include "server/server_priv.h"

int
tfo_srv_services(struct tfo_server *s, int socket, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < s->cfg.nb_services; i++) {
		const struct tfo_cfg_service *cs = &s->cfg.services[i];
		struct tfo_service_kv kv[TFO_SERVICE_MAX_KV];
		struct tfo_service_args args;
		struct tfo_service_inst *si = &s->services[s->nb_services];
		char why[160];
		int rc;

		/* the same arguments the configuration check gave check() */
		tfo_config_service_args(&s->cfg, cs, socket, kv, &args);
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
	 * the non-zero built-in counters, ~16 fields of its own (accounting,
	 * latency), every service counter, and then the built-in counters at 0
	 * while there is room (telemetry.c). Only a server whose services
	 * declare more than the dict holds beside its own fields loses some.
	 */
	if (16 + s->svc_ctrs.nb > RTE_TEL_MAX_DICT_ENTRIES / 2)
		TFO_LOG(WARNING, "%u service counters: /tfo/stats (one telemetry dict of %d "
			"entries) may leave some out when many built-in counters are non-zero",
			s->svc_ctrs.nb, RTE_TEL_MAX_DICT_ENTRIES);
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

struct tfo_engine *
tfo_srv_engine(struct tfo_server *s, const char *name, int socket,
	       struct tfo_stats *stats, struct tfo_tx *tx, struct tfo_lat *lat,
	       bool control, char *err, size_t errlen)
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
int
tfo_srv_keys(struct tfo_server *s, int socket, char *err, size_t errlen)
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

struct tfo_cookie_ctx *
tfo_srv_cookie_ctx(struct tfo_server *s, int socket, char *err, size_t errlen)
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

struct rte_ring *
tfo_srv_ring(struct tfo_server *s, const char *kind, unsigned int i, uint32_t size,
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

unsigned int
tfo_srv_inbox_size(const struct tfo_server *s)
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
		.inbox_size = tfo_srv_inbox_size(s),
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
int
tfo_srv_pools(struct tfo_server *s, char *err, size_t errlen)
{
	int port_socket[TFO_MAX_PORTS];
	struct tfo_pool_plan_in in = srv_plan_in(s, port_socket);
	/* net_af_xdp makes the RX queues' pool its UMEM: every pool takes the
	 * AF_XDP layout (a frame from another pool would only be copied) */
	bool xdp_pools = s->devices && tfo_xdp_any_port(&s->cfg);
	uint16_t data_room = xdp_pools ? tfo_xdp_pool_data_room() : srv_data_room(s);
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
		if (xdp_pools) {
			s->pools[so] = tfo_xdp_pool_create(name, plan.mbufs[so],
							   s->cfg.mbuf_cache, so, err, errlen);
			if (s->pools[so] == NULL)
				return -ENOMEM;
		} else {
			s->pools[so] = rte_pktmbuf_pool_create(name, plan.mbufs[so],
							       s->cfg.mbuf_cache, 0, data_room,
							       so);
		}
		if (s->pools[so] == NULL)
			return tfo_errmsg(err, errlen, "cannot create a pool of %u mbufs of %u "
				       "bytes on socket %d: %s (reserve hugepages on node %d, "
				       "raise -m / --socket-mem, or lower [server] mbufs / "
				       "ring_size / [port] rx_desc, tx_desc)", plan.mbufs[so],
				       data_room, so, rte_strerror(rte_errno), so);
		if (s->devices)	/* not for every benchmark run or fuzzer start */
			TFO_LOG(INFO, "mbuf pool on socket %d: %u mbufs of %u bytes%s (the "
				"queues, rings and caches of its lcores hold %u)", so,
				plan.mbufs[so], data_room,
				xdp_pools ? ", one 4 KiB page each for net_af_xdp's UMEM" : "",
				plan.need[so]);
	}
	return 0;
}

/*
 * A net_af_xdp port's sockets, for the kernel's counters of them (fill ring
 * empty, RX ring full: net/xsk.h): those its set-up created, beyond the
 * @p nb_before of @p before. Without them the port still runs, with only
 * the PMD's imissed to tell.
 */
static void
srv_port_xsk(const struct tfo_cfg_port *cfg, const int *before, int nb_before,
	     struct tfo_port_info *info)
{
	int n = nb_before < 0 ? nb_before :
		tfo_xsk_find(before, (unsigned int)nb_before, info->xsk_fd, TFO_XSK_MAX);

	if (n <= 0) {
		TFO_LOG(WARNING, "[port %s] its AF_XDP sockets not found (%s): the fill "
			"ring and RX ring counters (xsk_*) stay 0", cfg->device,
			n < 0 ? strerror(-n) : "none");
		return;
	}
	info->nb_xsk = (uint8_t)n;
}

/* The devices, or the given ports. */
int
tfo_srv_ports(struct tfo_server *s, char *err, size_t errlen)
{
	struct tfo_pool_plan_in in = srv_plan_in(s, NULL);
	struct rte_mempool *rxq_pool[RTE_MAX_LCORE + 1];
	uint16_t svc_ports[TFO_MAX_SERVICES];
	bool svc_udp[TFO_MAX_SERVICES];
	char desc[256];
	uint8_t addr_base = 0;

	if (!s->devices) {
		memcpy(s->ports, s->p.ports, sizeof(s->ports[0]) * s->nb_ports);
		return 0;
	}
	for (unsigned int k = 0; k < s->cfg.nb_services; k++) {
		svc_ports[k] = s->cfg.services[k].port;
		svc_udp[k] = s->cfg.services[k].udp;
	}
	/* RX queue q: worker q's socket's pool; the SYN queue, control 0's */
	for (unsigned int q = 0; q <= s->nb_workers; q++)
		rxq_pool[q] = s->pools[tfo_pool_plan_rxq_socket(&in, q)];
	for (unsigned int i = 0; i < s->nb_ports; i++) {
		bool xdp_own = tfo_xdp_own(&s->cfg.ports[i]);
		bool af_xdp = tfo_xdp_is_af_xdp(s->cfg.ports[i].vdev);
		int xsk_before[TFO_XSK_MAX * TFO_MAX_PORTS], nb_xsk = 0;

		s->cfg.ports[i].rx_intr = s->cfg.idle_policy == TFO_IDLE_ADAPTIVE;
		/* the kernel's NIC driver spreads flows over the interface's
		 * queues (its RSS), one AF_XDP socket per queue */
		s->cfg.ports[i].rss_optional |= xdp_own;
		if (xdp_own && tfo_xdp_check_workers(&s->cfg.ports[i], s->nb_workers, err,
						      errlen) < 0)
			return -EINVAL;
		if (af_xdp)	/* the sockets before: the port's are the new ones */
			nb_xsk = tfo_xsk_find(NULL, 0, xsk_before, RTE_DIM(xsk_before));
		if (tfo_port_setup(&s->cfg.ports[i], (uint16_t)s->nb_workers,
				   (uint16_t)(s->nb_workers + s->nb_controls), rxq_pool,
				   (uint16_t)(s->nb_workers + 1), addr_base, &s->ports[i], err,
				   errlen) < 0)
			return -EINVAL;
		s->nb_ports_up++;
		if (af_xdp)
			srv_port_xsk(&s->cfg.ports[i], xsk_before, nb_xsk, &s->ports[i]);
		if (s->cfg.ports[i].isolate) {
			s->flows[i] = tfo_port_flow_setup(&s->cfg.ports[i], &s->ports[i],
							  (uint16_t)s->nb_workers, svc_ports,
							  svc_udp, s->cfg.nb_services, err,
							  errlen);
			if (s->flows[i] == NULL)
				return -EINVAL;
		}
		if (xdp_own) {
			if (tfo_xdp_attach(&s->cfg, &s->cfg.ports[i], s->nb_workers,
					   &s->xdp[i], err, errlen) < 0)
				return -EINVAL;
			/* the kernel answers ARP, ND and echo (tfo_control_handle) */
			s->ports[i].kernel_neigh = true;
		} else {
			tfo_xdp_warn_foreign(&s->cfg, &s->cfg.ports[i]);
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
