/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the service registry (filled by constructors before main,
 * and by plugins as the configuration names them), and service reloads.
 */
#include <assert.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include <rte_malloc.h>

#include "ops/stats.h"
#include "tcp/engine.h"
#include "tcp/service_reload.h"
#include "tfo/log.h"
#include "tfo/service.h"

/* a plugin built for another layout is refused by its ABI version */
static_assert(sizeof(struct tfo_svc_resp) == 56 || sizeof(void *) != 8,
	      "struct tfo_svc_resp changed size: bump TFO_SERVICE_ABI_VERSION");

static struct tfo_service *tfo_services;

void
tfo_service_register(struct tfo_service *s)
{
	s->next = tfo_services;
	tfo_services = s;
}

const struct tfo_service *
tfo_service_first(void)
{
	return tfo_services;
}

const struct tfo_service *
tfo_service_find(const char *name)
{
	for (const struct tfo_service *s = tfo_services; s != NULL; s = s->next)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

/* 1 if @p key is in the NULL-terminated @p list (which may be NULL). */
static int
tfo_key_listed(const char *const *list, const char *key)
{
	for (const char *const *k = list; k != NULL && *k != NULL; k++)
		if (strcmp(*k, key) == 0)
			return 1;
	return 0;
}

int
tfo_service_key_ok(const struct tfo_service *s, const char *key)
{
	if (strcmp(key, "port") == 0 || (s->udp_ok && strcmp(key, "udp") == 0))
		return 1;
	return tfo_key_listed(s->keys, key);
}

/* letters, digits and '_': a name that greps, and a Prometheus label */
static bool
tfo_svc_ctr_name_ok(const char *n)
{
	for (; *n != '\0'; n++)
		if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') ||
		      (*n >= '0' && *n <= '9') || *n == '_'))
			return false;
	return true;
}

int
tfo_service_counters_check(const struct tfo_service *s, char *why, size_t whylen)
{
	size_t nl = strlen(s->name);
	unsigned int n = 0;

	for (const struct tfo_svc_counter *c = s->counters; c != NULL && c->name != NULL;
	     c++, n++) {
		if (n == TFO_SVC_MAX_COUNTERS)
			return tfo_errmsg(why, whylen, "service %s declares more than %d counters",
					  s->name, TFO_SVC_MAX_COUNTERS);
		if (strncmp(c->name, s->name, nl) != 0 || c->name[nl] != '_' ||
		    c->name[nl + 1] == '\0' || !tfo_svc_ctr_name_ok(c->name) ||
		    strlen(c->name) >= 64)
			return tfo_errmsg(why, whylen, "service %s: counter \"%s\" must be "
					  "named %s_<what> (letters, digits, '_'; under 64)",
					  s->name, c->name, s->name);
		if (tfo_stats_lookup(c->name) >= 0)
			return tfo_errmsg(why, whylen, "service %s: counter %s is a built-in "
					  "counter's name", s->name, c->name);
		for (const struct tfo_svc_counter *d = s->counters; d != c; d++)
			if (strcmp(d->name, c->name) == 0)
				return tfo_errmsg(why, whylen, "service %s: counter %s declared "
						  "twice", s->name, c->name);
	}
	return (int)n;
}

/* The status "<service>_<NNN>[_<reason>]" counts (struct tfo_svc_counter),
 * or 0. */
static uint16_t
tfo_svc_ctr_status(const char *service, const char *name)
{
	const char *d = name + strlen(service) + 1;

	if (d[0] < '1' || d[0] > '5' || d[1] < '0' || d[1] > '9' ||
	    d[2] < '0' || d[2] > '9' || (d[3] != '\0' && d[3] != '_'))
		return 0;
	return (uint16_t)((d[0] - '0') * 100 + (d[1] - '0') * 10 + (d[2] - '0'));
}

int
tfo_svc_ctr_map_add(struct tfo_svc_ctr_map *map, struct tfo_service_inst *si,
		    char *why, size_t whylen)
{
	int n = tfo_service_counters_check(si->svc, why, whylen);

	if (n < 0)
		return n;
	if (map->nb + (unsigned int)n > TFO_SVC_STATS_MAX)
		return tfo_errmsg(why, whylen, "service %s: more than %d service counters "
				  "in all", si->svc->name, TFO_SVC_STATS_MAX);
	si->ctr_base = (uint16_t)map->nb;
	si->nb_ctr = (uint16_t)n;
	for (int i = 0; i < n; i++) {
		const struct tfo_svc_counter *c = &si->svc->counters[i];

		for (unsigned int j = 0; j < map->nb; j++)
			if (strcmp(map->name[j], c->name) == 0)
				return tfo_errmsg(why, whylen, "service %s: counter %s is "
						  "service %s's too", si->svc->name, c->name,
						  map->service[j]);
		map->name[map->nb] = c->name;
		map->help[map->nb] = c->help != NULL ? c->help : "";
		map->service[map->nb] = si->svc->name;
		map->status[map->nb] = tfo_svc_ctr_status(si->svc->name, c->name);
		map->nb++;
	}
	return 0;
}

int
tfo_service_key_repeats(const struct tfo_service *s, const char *key)
{
	return tfo_key_listed(s->repeat_keys, key);
}

const char *
tfo_service_arg(const struct tfo_service_args *a, const char *key,
		const char *def)
{
	/* the last occurrence wins, as in the INI file */
	const char *v = def;

	for (unsigned int i = 0; i < a->nb_kv; i++)
		if (strcmp(a->kv[i].key, key) == 0)
			v = a->kv[i].value;
	return v;
}

/* Plugins loaded so far: a configuration read twice (--print-config, then
 * the start; the unit tests) names the same file again. */
static struct {
	const struct tfo_service *svc;
	char path[PATH_MAX];
} tfo_plugins[16];
static unsigned int tfo_nb_plugins;

int
tfo_service_plugin_load(const char *path, const char *name, char *why,
			size_t whylen)
{
	const uint32_t *abi;
	struct tfo_service *const *svcp;
	struct tfo_service *s;
	char real[PATH_MAX];
	const char *e;
	void *h;

	if (realpath(path, real) == NULL)
		return tfo_errmsg(why, whylen, "%s: %s", path, strerror(errno));
	for (unsigned int i = 0; i < tfo_nb_plugins; i++)
		if (strcmp(tfo_plugins[i].path, real) == 0) {
			if (strcmp(tfo_plugins[i].svc->name, name) != 0)
				return tfo_errmsg(why, whylen, "%s: defines service '%s', not '%s'",
						  real, tfo_plugins[i].svc->name, name);
			return 0;
		}
	if (tfo_service_find(name) != NULL)
		return tfo_errmsg(why, whylen, "a service named '%s' exists already "
				  "(built in or another plugin)", name);
	if (tfo_nb_plugins == RTE_DIM(tfo_plugins))
		return tfo_errmsg(why, whylen, "more than %u plugins",
				  (unsigned int)RTE_DIM(tfo_plugins));
	/* RTLD_NOW: an unresolved symbol is an error here, not a crash on a
	 * worker later; RTLD_LOCAL: two plugins cannot clash */
	h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		e = dlerror();
		return tfo_errmsg(why, whylen, "cannot load: %s", e ? e : real);
	}
	abi = dlsym(h, "tfo_service_plugin_abi");
	svcp = dlsym(h, "tfo_service_plugin");
	if (abi == NULL || svcp == NULL) {
		dlclose(h);
		return tfo_errmsg(why, whylen, "%s: not a tfo-fastpath service plugin "
				  "(no tfo_service_plugin_abi: build it with "
				  "TFO_SERVICE_REGISTER and `pkg-config --cflags tfo-service`)",
				  real);
	}
	if (*abi != TFO_SERVICE_ABI_VERSION) {
		unsigned int v = *abi;

		dlclose(h);
		return tfo_errmsg(why, whylen, "%s: built for service ABI %u, this "
				  "tfo-server has ABI %u: rebuild it against its headers",
				  real, v, TFO_SERVICE_ABI_VERSION);
	}
	s = *svcp;
	if (s == NULL || s->name == NULL || strcmp(s->name, name) != 0 ||
	    s->create == NULL || s->handle == NULL) {
		/* the message reads the plugin's strings: before dlclose() */
		if (s == NULL || s->name == NULL || strcmp(s->name, name) != 0)
			tfo_errmsg(why, whylen, "%s: defines service '%s', not '%s'",
				   real, s && s->name ? s->name : "(none)", name);
		else
			tfo_errmsg(why, whylen, "%s: service '%s' has no create() or handle()",
				   real, name);
		dlclose(h);
		return -EINVAL;
	}
	if (tfo_service_counters_check(s, why, whylen) < 0) {
		/* the message was built from the plugin's strings already */
		dlclose(h);
		return -EINVAL;
	}
	/* never dlclose()d: its functions run until exit */
	tfo_plugins[tfo_nb_plugins].svc = s;
	snprintf(tfo_plugins[tfo_nb_plugins].path, sizeof(tfo_plugins[0].path),
		 "%s", real);
	tfo_nb_plugins++;
	tfo_service_register(s);
	return 0;
}

/* ---- reloading (tcp/service_reload.h) ---------------------------------- */

struct tfo_svc_reloader {
	const struct tfo_service_inst *insts;
	unsigned int nb;
	struct tfo_engine **engines;	/* every lcore's, or NULL */
	unsigned int nb_engines;
	bool running;		/* a thread was started and not joined */
	int done;		/* atomic: the thread has finished */
	int rc;
	char msg[1024];	/* every service's outcome, "; " between */
	pthread_t thread;
};

struct tfo_svc_reloader *
tfo_svc_reloader_create(const struct tfo_service_inst *insts, unsigned int nb)
{
	struct tfo_svc_reloader *r;
	bool any = false;

	for (unsigned int i = 0; i < nb; i++)
		any |= insts[i].svc->reload != NULL;
	if (!any)
		return NULL;
	/* DPDK memory, as the server that points to it (LeakSanitizer does
	 * not scan it) */
	r = rte_zmalloc("tfo_svc_reloader", sizeof(*r), 0);
	if (r == NULL)
		return NULL;
	r->insts = insts;
	r->nb = nb;
	return r;
}

static void *
tfo_svc_reload_thread(void *arg)
{
	struct tfo_svc_reloader *r = arg;
	size_t used = 0;
	int rc = 0;

	r->msg[0] = '\0';
	for (unsigned int i = 0; i < r->nb; i++) {
		const struct tfo_service_inst *si = &r->insts[i];
		char m[400] = "";
		int one;

		if (si->svc->reload == NULL)
			continue;
		one = si->svc->reload(si->state, m, sizeof(m));
		/* a refusal wins: the operator must see it */
		if (one < 0 ? (rc >= 0 || one < rc) : (rc >= 0 && one > rc))
			rc = one;
		if (used < sizeof(r->msg))
			used += (size_t)snprintf(r->msg + used, sizeof(r->msg) - used,
						 "%s%s", used ? "; " : "", m);
	}
	r->rc = rc;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int
tfo_svc_reload_start(struct tfo_svc_reloader *r)
{
	int rc;

	if (r->running)
		return -EBUSY;
	r->done = 0;
	/* a control thread: pinned to the CPUs no lcore runs on */
	rc = rte_ctrl_thread_create(&r->thread, "tfo-reload", NULL,
				    tfo_svc_reload_thread, r);
	if (rc != 0)
		return -rc;
	r->running = true;
	return 0;
}

int
tfo_svc_reload_poll(struct tfo_svc_reloader *r, int *rc, char *msg, size_t msglen)
{
	if (!r->running || !__atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
		return 0;
	pthread_join(r->thread, NULL);	/* it has returned: no wait */
	r->running = false;
	*rc = r->rc;
	snprintf(msg, msglen, "%s", r->msg);
	return 1;
}

int
tfo_svc_reloader_set_engines(struct tfo_svc_reloader *r,
			     struct tfo_engine *const *engines, unsigned int nb)
{
	struct tfo_engine **e = rte_zmalloc("tfo_svc_engines", (nb ? nb : 1) * sizeof(*e), 0);

	if (e == NULL)
		return -ENOMEM;
	memcpy(e, engines, nb * sizeof(*e));
	rte_free(r->engines);
	r->engines = e;
	r->nb_engines = nb;
	return 0;
}

/*
 * tfo_svc_sends_from_fn over every engine, from the control lcore while
 * the others run: why reading their send queues is safe is in
 * tfo_engine_sends_from (a stale read only delays a free).
 */
static bool
tfo_svc_sends_from(void *arg, const void *lo, const void *hi)
{
	const struct tfo_svc_reloader *r = arg;

	for (unsigned int i = 0; i < r->nb_engines; i++)
		if (tfo_engine_sends_from(r->engines[i], lo, hi))
			return true;
	return false;
}

unsigned int
tfo_svc_reclaim(struct tfo_svc_reloader *r)
{
	tfo_svc_sends_from_fn fn = r->engines != NULL ? tfo_svc_sends_from : NULL;
	unsigned int held = 0;

	for (unsigned int i = 0; i < r->nb; i++)
		if (r->insts[i].svc->reclaim != NULL)
			held += r->insts[i].svc->reclaim(r->insts[i].state, fn, r);
	return held;
}

void
tfo_svc_reloader_free(struct tfo_svc_reloader *r)
{
	if (r == NULL)
		return;
	if (r->running)
		pthread_join(r->thread, NULL);
	rte_free(r->engines);
	rte_free(r);
}
