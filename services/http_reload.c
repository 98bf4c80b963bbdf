/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: service "http", its life: create() (the first root),
 * reload (SIGHUP, /tfo/reload; tfo_service.reload): the same loading into
 * a new table on the reload's own thread, published with one pointer store
 * (http_impl.h, struct http_svc), a refusal leaving the old one serving;
 * reclaim() frees a replaced root once no engine sends from it; destroy().
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "tfo/log.h"
#include "tfo/service.h"

#include "http_impl.h"
#include "http_load.h"

/* A copy of @p str in rte_malloc memory, as the rest of the service's
 * state: what only DPDK memory points to is not a leak to LeakSanitizer,
 * which does not scan that memory. */
static char *
http_strdup(const char *str, int socket)
{
	size_t n = strlen(str) + 1;
	char *d = rte_malloc_socket("tfo_http_arg", n, 0, socket);

	if (d != NULL)
		memcpy(d, str, n);
	return d;
}

/* Keep create()'s arguments for reload(): the configuration they point
 * into belongs to the caller. */
static int
http_args_copy(struct http_svc *sv, const struct tfo_service_args *a)
{
	sv->args = *a;
	sv->kv = rte_zmalloc_socket("tfo_http_kv", (a->nb_kv + 1) * sizeof(*sv->kv), 0,
				    a->socket_id);
	sv->base_dir = a->base_dir != NULL ? http_strdup(a->base_dir, a->socket_id) : NULL;
	if (sv->kv == NULL || (a->base_dir != NULL && sv->base_dir == NULL))
		return -ENOMEM;
	for (unsigned int i = 0; i < a->nb_kv; i++) {
		sv->kv[i].key = http_strdup(a->kv[i].key, a->socket_id);
		sv->kv[i].value = http_strdup(a->kv[i].value, a->socket_id);
		if (sv->kv[i].key == NULL || sv->kv[i].value == NULL)
			return -ENOMEM;
	}
	sv->args.kv = sv->kv;
	sv->args.base_dir = sv->base_dir;
	return 0;
}

int
tfo_http_create(const struct tfo_service_args *a, void **state)
{
	char why[PATH_MAX + 256];
	struct http_svc *sv;
	struct http_state *st;
	uint64_t drain;
	int rc;

	sv = rte_zmalloc_socket("tfo_http_svc", sizeof(*sv), RTE_CACHE_LINE_SIZE,
				a->socket_id);
	if (sv == NULL)
		return -ENOMEM;
	rc = http_args_copy(sv, a);
	if (rc == 0)
		rc = http_table_load(&sv->args, &st, why, sizeof(why));
	if (rc != 0) {
		tfo_http_destroy(sv);
		return rc;
	}
	/* checked by http_conf_read */
	http_parse_seconds(tfo_service_arg(a, "reload_drain", HTTP_GRACE_DEFAULT), &drain, why,
			   sizeof(why));
	sv->drain_s = (uint32_t)drain;
	st->gen = 1;
	sv->cur = st;
	TFO_LOG(INFO, "http: port %u: %s", a->port, why);
	*state = sv;
	return 0;
}

int
tfo_http_reload(void *state, char *msg, size_t msglen)
{
	struct http_svc *sv = state;
	struct http_state *old = sv->cur, *st;
	char why[PATH_MAX + 256];
	int slot = svc_retire_slot(sv->retired, HTTP_RETIRED);
	int rc;

	if (slot < 0) {
		snprintf(msg, msglen, "http: new root refused, the old one serves: "
			 "%u earlier roots are still draining "
			 "(reload_drain = %u s, then until no connection sends "
			 "from them): retry later", HTTP_RETIRED, sv->drain_s);
		return -EBUSY;
	}
	rc = http_table_load(&sv->args, &st, why, sizeof(why));
	if (rc != 0) {
		snprintf(msg, msglen, "http: new root refused, the old one serves: %s",
			 why);
		return rc;
	}
	st->gen = old->gen + 1;
	svc_retire_put(&sv->retired[slot], old, sv->drain_s);
	/* from here on every new request is answered from st */
	__atomic_store_n(&sv->cur, st, __ATOMIC_RELEASE);
	snprintf(msg, msglen, "http: port %u: root generation %" PRIu64 " serves: %s; "
		 "generation %" PRIu64 " is freed in %u s or once no connection "
		 "sends from it", sv->args.port, st->gen, why,
		 old->gen, sv->drain_s);
	return 1;
}

/* A retired table nothing uses any more. */
static void
http_retired_free(void *state, void *ctx)
{
	const struct http_svc *sv = ctx;
	struct http_state *st = state;

	TFO_LOG(INFO, "http: port %u: root generation %" PRIu64 " freed",
		sv->args.port, st->gen);
	http_table_free(st);
}

/* Whether an engine still sends a body of @p state: every blob handle()
 * hands out is an objs[] or an errors[] entry's. */
static bool
http_table_sent(const void *state, tfo_svc_sends_from_fn sends_from, void *arg)
{
	const struct http_state *st = state;

	return sends_from(arg, st->objs, st->objs + st->nb_objs) ||
	       sends_from(arg, st->errors, st->errors + RTE_DIM(st->errors));
}

static void
http_retired_held(const void *state, void *ctx)
{
	const struct http_svc *sv = ctx;
	const struct http_state *st = state;

	/* once per table; rate-limited too, as every log line on the control
	 * lcore's loop (tests/log_audit.py) */
	TFO_LOG_RATELIMIT(WARNING, "http: port %u: root generation %" PRIu64
		" kept past reload_drain (%u s): connections still "
		"send from it (slow readers); freed once they are "
		"acknowledged or closed", sv->args.port, st->gen,
		sv->drain_s);
}

static const struct svc_retire_ops http_retire_ops = {
	.sent = http_table_sent,
	.free = http_retired_free,
	.held = http_retired_held,
};

/* A retired table is freed when its grace time is over and no engine
 * sends from it (svc_retire.h). */
unsigned int
tfo_http_reclaim(void *state, tfo_svc_sends_from_fn sends_from, void *arg)
{
	struct http_svc *sv = state;

	return svc_retire_reclaim(sv->retired, HTTP_RETIRED, &http_retire_ops, sv,
				  sends_from, arg);
}

void
tfo_http_destroy(void *state)
{
	struct http_svc *sv = state;

	if (sv == NULL)
		return;
	http_table_free(sv->cur);
	for (unsigned int i = 0; i < HTTP_RETIRED; i++)
		http_table_free(sv->retired[i].st);
	if (sv->kv != NULL)
		for (unsigned int i = 0; i < sv->args.nb_kv; i++) {
			rte_free((void *)(uintptr_t)sv->kv[i].key);
			rte_free((void *)(uintptr_t)sv->kv[i].value);
		}
	rte_free(sv->kv);
	rte_free(sv->base_dir);
	rte_free(sv);
}
