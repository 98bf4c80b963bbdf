/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the whole server, assembled from a configuration (see
 * server.h). Every step writes its own one-line reason into err.
 */
#include "server/server_priv.h"

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
	rc = tfo_srv_pools(s, err, errlen);
	if (rc == 0)
		rc = tfo_srv_ports(s, err, errlen);
	if (rc == 0)
		rc = tfo_srv_services(s, socket, err, errlen);
	if (rc == 0 && s->cfg.tfo_enabled)
		rc = tfo_srv_keys(s, socket, err, errlen);
	if (rc == 0)
		rc = tfo_srv_workers(s, err, errlen);
	if (rc == 0)
		rc = tfo_srv_controls(s, err, errlen);
	if (rc == 0)
		rc = tfo_srv_access_log(s, err, errlen);
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
	/* a configuration built with tfo_config_set (tfo-bench, the tests)
	 * has its plugins loaded and service keys checked here; the CLI's
	 * has them already (nothing to do) */
	if (tfo_config_services_load(&s->cfg, NULL, err, errlen) < 0 ||
	    srv_check(s, p, err, errlen) < 0 || srv_build(s, err, errlen) < 0) {
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
	/* before any lcore polls: each registers as a reader (qs.h) */
	rc = tfo_qs_init();
	if (rc < 0) {
		TFO_LOG(ERR, "quiescent states: %s", strerror(-rc));
		return rc;
	}
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
	tfo_qs_stats(&s->control.stats);	/* the unmaps' counters, to the end */
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
