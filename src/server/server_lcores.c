/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the server's lcores: workers, control lcores and the access
 * log's sources (see server_priv.h). Every step writes its own
 * one-line reason into err.
 */
#include "server/server_priv.h"

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

		s->rings[i] = tfo_srv_ring(s, "ctl", i, s->cfg.ring_size, s->ctl_socket[k],
				       RING_F_EXACT_SZ, err, errlen);
		if (s->rings[i] == NULL)
			return -ENOMEM;
		wp.to_controls[k] = s->rings[i];
	}
	wp.nb_controls = s->nb_controls;
	/* apart from the rest, small: ARP and ND are a few frames a second */
	s->neigh[wi] = tfo_srv_ring(s, "nbr", wi, TFO_POOL_PLAN_NEIGH, s->ctl_socket[0], 0,
				err, errlen);
	if (s->neigh[wi] == NULL)
		return -ENOMEM;
	wp.to_neigh = s->neigh[wi];
	s->from_ctl[wi] = tfo_srv_ring(s, "syn", wi, tfo_srv_inbox_size(s), wsock,
				    RING_F_EXACT_SZ, err, errlen);
	if (s->from_ctl[wi] == NULL)
		return -ENOMEM;
	wp.from_ctl = s->from_ctl[wi];
	wp.cookies = tfo_srv_cookie_ctx(s, wsock, err, errlen);
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
	w->engine = tfo_srv_engine(s, name, wsock, &w->stats, &w->tx, &w->lat, false, err,
			       errlen);
	return w->engine == NULL ? -ENOMEM : 0;
}

int
tfo_srv_workers(struct tfo_server *s, char *err, size_t errlen)
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
	cp.engine = tfo_srv_engine(s, name, socket, &c->stats, &c->tx, &c->lat, true, err,
			       errlen);
	if (cp.engine == NULL)
		return -ENOMEM;
	if (s->keys != NULL) {
		if (k == 0) {
			cp.keys = s->keys;
			if (s->key_path[0] != '\0')
				cp.key_file = s->key_path;
		}
		s->ctl_cookies[k] = tfo_srv_cookie_ctx(s, socket, err, errlen);
		if (s->ctl_cookies[k] == NULL)
			goto fail;
		cp.cookies = s->ctl_cookies[k];
	}
	if (k > 0) {
		s->ctl_inbox[k] = tfo_srv_ring(s, "cin", k, TFO_POOL_PLAN_CTL_INBOX, socket, RING_F_EXACT_SZ,
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
		s->relay[i][k] = tfo_srv_ring(s, "relay", i * TFO_MAX_CONTROLS + k,
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
int
tfo_srv_access_log(struct tfo_server *s, char *err, size_t errlen)
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

int
tfo_srv_controls(struct tfo_server *s, char *err, size_t errlen)
{
	for (unsigned int k = 0; k < s->nb_controls; k++) {
		int rc = srv_control(s, k, err, errlen);

		if (rc < 0)
			return rc;
	}
	return 0;
}
