/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: reloading the created services while they serve (SIGHUP,
 * /tfo/reload), for the server and its control lcore. Not part of the
 * interface a service sees (tfo/service.h).
 *
 * The services' reload() callbacks run on one DPDK control thread (not an
 * lcore: rte_ctrl_thread_create, pinned off the lcores' CPUs), because a
 * reload may read many files for long and the control lcore must keep
 * answering SYNs meanwhile; the control lcore starts it and polls for the
 * outcome without blocking.
 */
#ifndef TFO_SERVICE_RELOAD_H
#define TFO_SERVICE_RELOAD_H

#include <stddef.h>

#include "tfo/service.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_svc_reloader;

/**
 * A reloader for the @p nb instances at @p insts (kept, not copied).
 * @return NULL when none of them has a reload() (nothing to do) or on no
 * memory (then reloads only re-read the key file).
 */
struct tfo_svc_reloader *tfo_svc_reloader_create(const struct tfo_service_inst *insts,
						 unsigned int nb);

/** Wait for a reload in progress, then free @p r (NULL: nothing). */
void tfo_svc_reloader_free(struct tfo_svc_reloader *r);

/**
 * Start reloading every instance that can, on a control thread.
 * @return 0 started, -EBUSY one is in progress, or another negative errno
 * (the thread could not start).
 */
int tfo_svc_reload_start(struct tfo_svc_reloader *r);

/**
 * Non-blocking. @return 1 when the reload started last has finished: its
 * outcome in @p rc (1 a new state serves, 0 nothing changed, negative
 * errno: refused, the old state serves) and one line in @p msg; 0 while it
 * runs or when none was started.
 */
int tfo_svc_reload_poll(struct tfo_svc_reloader *r, int *rc, char *msg, size_t msglen);

struct tfo_engine;

/**
 * The @p nb engines at @p engines (copied): every worker's and every
 * control lcore's, so that tfo_svc_reclaim() can tell the services what
 * their send queues still reference. Call once, when they all exist and
 * before the lcores start; until then the services are told that nothing
 * is referenced (tools and tests without engines).
 * @return 0, or -ENOMEM.
 */
int tfo_svc_reloader_set_engines(struct tfo_svc_reloader *r,
				 struct tfo_engine *const *engines, unsigned int nb);

/**
 * Let each service free what its reloads replaced and no engine sends
 * from any more (control lcore, every round: cheap unless a replaced state
 * waits, then one walk of every engine's connections per state per second).
 * @return how many replaced states passed their grace time in this call
 * but are kept for live references (the svc_reload_held counter).
 */
unsigned int tfo_svc_reclaim(struct tfo_svc_reloader *r);

#ifdef __cplusplus
}
#endif

#endif /* TFO_SERVICE_RELOAD_H */
