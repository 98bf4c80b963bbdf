/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the supervisor of the whole server: what is server-wide,
 * as opposed to what each control lcore does (lcore/control.h).
 *
 * It rotates and reloads the TFO keys (the single writer of their
 * schedule) with the services' reloads (and frees what they replaced),
 * reopens and fills the access log, prints the periodic stats line
 * (lcore/report.h), looks at the ports' links (lcore/link.h), speaks to
 * the service manager and runs the drain (lcore/drain.h, sdnotify.h). The
 * telemetry commands (lcore/telemetry.h) are handed it.
 *
 * It runs on control 0's lcore: tfo_supervisor_main is that lcore's loop,
 * chosen once at start, which runs control 0's round (tfo_control_round)
 * and then the supervisor's step. Its counters (key_rotations,
 * svc_reloads, link_down_events, ...) are counted in control 0's struct
 * tfo_stats: the lcore that runs it stays their one writer. Requests from
 * other threads (SIGHUP, SIGTERM, telemetry) are one store each and
 * control 0's doorbell; the work is done in its loop.
 */
#ifndef TFO_SUPERVISOR_H
#define TFO_SUPERVISOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lcore/control.h"
#include "lcore/drain.h"
#include "lcore/lcores.h"
#include "lcore/link.h"
#include "lcore/report.h"
#include "ops/config.h"
#include "tcp/access_log.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tfo_keyring;
struct tfo_svc_reloader;	/* tcp/service_reload.h */

struct tfo_supervisor {
	/** The control lcore whose loop runs it (control 0): its doorbell
	 *  wakes the supervisor, its counters count the supervisor's. */
	struct tfo_control *ctl;
	/** Every lcore it reports over, the drain sums, telemetry reads. */
	struct tfo_lcores lcores;
	const struct tfo_config *cfg;
	/** Readiness, watchdog, the drain (lcore/drain.h). */
	struct tfo_lifecycle life;
	/** The ports' links, looked at once a second (lcore/link.h). */
	struct tfo_link link;
	struct tfo_keyring *keys;	/**< rotated here; NULL: TFO off */
	uint64_t next_rotate_us;	/**< automatic rotation, 0 = never */
	volatile int rotate_requested;	/**< set by telemetry, done here */
	/** Key file re-read on SIGHUP or /tfo/reload (tfo_keyring_reload_file);
	 *  NULL: random keys, nothing to reload. */
	const char *key_file;
	volatile int reload_requested;	/**< set by SIGHUP / telemetry, done here */
	uint64_t reload_seq;		/**< reloads done; then the result below */
	int reload_rc;			/**< of the last reload: 1, 0 or -errno */
	char reload_msg[1536];		/**< its one-line outcome (keys; services) */
	/** Services reloaded with the key file (http: document root), on a
	 *  control thread; NULL: none can. */
	struct tfo_svc_reloader *svc_reload;
	bool svc_reload_wait;		/**< keys done, services still loading */
	/** The access log's file and every lcore's ring of records
	 *  (tcp/access_log.h); NULL: no access log. */
	struct tfo_alog *alog;
	/* the stats line: its period (0: none), when the last line was due,
	 * and the snapshot it was computed to (the next one's start) */
	uint32_t stats_period_s;
	uint64_t last_stats_us;
	struct tfo_report_snap last_snap;
	struct tfo_report_snap next_snap;	/**< the one being taken */
	FILE *out;			/**< stats line stream */
};

/** What the supervisor is given. */
struct tfo_supervisor_params {
	const struct tfo_config *cfg;
	/** Control 0, which runs it (tfo_control_init done). */
	struct tfo_control *ctl;
	/** Every lcore: read from the first step on. */
	struct tfo_lcores lcores;
	/** The server's drain flag, which the lcores read; NULL: none. */
	volatile bool *drain;
	/** The service manager's socket (lcore/sdnotify.h); NULL: none. */
	struct tfo_sdnotify *notify;
	/** Rotated every cfg->rotate_period_s (0: never) and reloaded here;
	 *  NULL: TFO off. */
	struct tfo_keyring *keys;
	const char *key_file;		/**< NULL: random keys, no reload */
	struct tfo_svc_reloader *svc_reload;	/**< NULL: no service reloads */
};

/**
 * Fill @p s from @p p: the stats line every cfg->stats_period to stdout,
 * the first automatic key rotation one period from now, the drain's
 * timeout from cfg. What @p p leaves NULL is off; the access log is set
 * afterwards (s->alog).
 */
void tfo_supervisor_init(struct tfo_supervisor *s, const struct tfo_supervisor_params *p);

/** Release what its loop took (the link watcher's socket); nothing if
 *  @p s is all zero (never initialised). */
void tfo_supervisor_close(struct tfo_supervisor *s);

/**
 * One step, after a round of control 0 at TSC @p t0: keys rotated or
 * reloaded when due or asked (and the services' reload followed), the
 * access log polled, the quiescent states' counters, the lifecycle and
 * drain (tfo_drain_tick), the links. *@p over: the drain is over.
 * @return the access-log records taken (work done).
 */
unsigned int tfo_supervisor_step(struct tfo_supervisor *s, uint64_t now_us, uint64_t t0,
				 bool *over);

/**
 * Control 0's lcore loop: control 0's round then the supervisor's step,
 * until *quit or the end of a drain (the caller then stops the other
 * lcores); the stats line every stats_period_s.
 */
int tfo_supervisor_main(struct tfo_supervisor *s);

/** Ask for a key rotation now (telemetry); done in its loop. */
void tfo_supervisor_rotate(struct tfo_supervisor *s);

/** Ask for a reload of the key file and the services (SIGHUP,
 *  /tfo/reload): async-signal-safe, one store and the doorbell. */
void tfo_supervisor_reload(struct tfo_supervisor *s);

/** Start a drain (SIGTERM, /tfo/drain): async-signal-safe, one store and
 *  the doorbell; its loop does the rest (lcore/drain.h). */
void tfo_supervisor_drain(struct tfo_supervisor *s);

#ifdef __cplusplus
}
#endif

#endif /* TFO_SUPERVISOR_H */
