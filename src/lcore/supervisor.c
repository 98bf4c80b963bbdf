/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the supervisor: keys, reloads, the access log, the stats
 * line, the links and the server's life, on control 0's lcore (see
 * supervisor.h).
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "cookie/keyring.h"
#include "lcore/qs.h"
#include "lcore/supervisor.h"
#include "tcp/service_reload.h"
#include "tfo/log.h"

void
tfo_supervisor_init(struct tfo_supervisor *s, const struct tfo_supervisor_params *p)
{
	const struct tfo_config *cfg = p->cfg;

	memset(s, 0, sizeof(*s));
	s->ctl = p->ctl;
	s->lcores = p->lcores;
	s->cfg = cfg;
	s->life.notify = p->notify;
	s->life.drain = p->drain;
	s->life.drain_timeout_s = cfg->drain_timeout;
	s->link.sock = -1;	/* tfo_link_init opens it, on the lcore */
	s->stats_period_s = cfg->stats_period;
	s->out = stdout;
	s->keys = p->keys;
	if (p->keys != NULL) {
		s->key_file = p->key_file;
		/* XXX a random new primary suits a single server only: a fleet
		 * rotates through its shared key file (runbook section 6) */
		if (cfg->rotate_period_s)
			s->next_rotate_us = rte_rdtsc() / p->ctl->tsc_per_us +
					    (uint64_t)cfg->rotate_period_s * 1000000;
	}
	/* whatever the keys: services reload without TFO too */
	s->svc_reload = p->svc_reload;
}

void
tfo_supervisor_close(struct tfo_supervisor *s)
{
	/* all zero (a start that failed before it): its link.sock 0 is
	 * not the watcher's */
	if (s->ctl != NULL)
		tfo_link_free(&s->link);
}

/* ---- keys and reloads --------------------------------------------------- */

static void
sup_keys(struct tfo_supervisor *s, uint64_t now_us)
{
	bool due = s->next_rotate_us != 0 && now_us >= s->next_rotate_us;

	if (s->keys == NULL || (!due && !s->rotate_requested))
		return;
	if (due)
		s->next_rotate_us = now_us + (uint64_t)s->cfg->rotate_period_s * 1000000;
	s->rotate_requested = 0;
	if (tfo_keyring_rotate(s->keys, NULL) == 0)
		s->ctl->stats.c[TFO_STAT_key_rotations]++;
}

/*
 * The services' part of a reload (http: the document root), started with
 * the key file's and built on a control thread: when it is done, count it
 * and publish both outcomes in one answer (the keys' first, "keys: none
 * configured" with random keys or TFO off). Also frees what earlier
 * reloads replaced, once the services say it is unused.
 */
static void
sup_reload_services(struct tfo_supervisor *s)
{
	char smsg[sizeof(s->reload_msg)];
	int krc = s->reload_rc, src;
	size_t n;

	s->ctl->stats.c[TFO_STAT_svc_reload_held] += tfo_svc_reclaim(s->svc_reload);
	if (!s->svc_reload_wait ||
	    tfo_svc_reload_poll(s->svc_reload, &src, smsg, sizeof(smsg)) == 0)
		return;
	s->svc_reload_wait = false;
	if (src < 0) {
		s->ctl->stats.c[TFO_STAT_svc_reload_errors]++;
		TFO_LOG(ERR, "reload refused: %s", smsg);
	} else {
		if (src > 0)
			s->ctl->stats.c[TFO_STAT_svc_reloads]++;
		TFO_LOG(INFO, "reloaded: %s", smsg);
	}
	n = strlen(s->reload_msg);
	snprintf(s->reload_msg + n, sizeof(s->reload_msg) - n, "; %s", smsg);
	s->reload_rc = krc < 0 ? krc : src < 0 ? src : RTE_MAX(krc, src);
	__atomic_store_n(&s->reload_seq, s->reload_seq + 1, __ATOMIC_RELEASE);
}

/*
 * Re-read the key file (SIGHUP, /tfo/reload). Done here, not in the
 * telemetry thread, so that the counters keep one writer; the outcome is
 * published with reload_seq for whoever asked (after the services').
 */
static void
sup_reload(struct tfo_supervisor *s)
{
	char msg[sizeof(s->reload_msg)];
	int rc;

	if (s->svc_reload != NULL)
		sup_reload_services(s);
	if (!s->reload_requested || s->svc_reload_wait)
		return;
	s->reload_requested = 0;
	if (s->alog != NULL)	/* logrotate's postrotate: a new file */
		s->alog->reopen = 1;
	if (s->keys == NULL || s->key_file == NULL) {
		/*
		 * TFO off, or random keys: nothing was asked of the keys, so
		 * nothing was refused. A SIGHUP meant for the services (or
		 * logrotate's) must not count key_reload_errors nor log a
		 * refusal.
		 */
		rc = 0;
		snprintf(msg, sizeof(msg), "keys: none configured%s",
			 s->keys == NULL ? " (TFO is disabled)" : "");
	} else {
		rc = tfo_keyring_reload_file(s->keys, s->key_file, msg, sizeof(msg));
	}
	if (rc < 0) {
		s->ctl->stats.c[TFO_STAT_key_reload_errors]++;
		TFO_LOG(ERR, "key reload refused: %s", msg);
	} else {
		if (rc > 0)
			s->ctl->stats.c[TFO_STAT_key_reloads]++;
		if (s->key_file != NULL)
			TFO_LOG(INFO, "key file %s re-read: %s", s->key_file, msg);
	}
	s->reload_rc = rc;
	snprintf(s->reload_msg, sizeof(s->reload_msg), "%s", msg);
	if (s->svc_reload != NULL && tfo_svc_reload_start(s->svc_reload) == 0) {
		s->svc_reload_wait = true;	/* published when they are done */
		return;
	}
	__atomic_store_n(&s->reload_seq, s->reload_seq + 1, __ATOMIC_RELEASE);
}

/* ---- the loop ---------------------------------------------------------- */

unsigned int
tfo_supervisor_step(struct tfo_supervisor *s, uint64_t now_us, uint64_t t0, bool *over)
{
	unsigned int n = 0;

	sup_keys(s, now_us);
	sup_reload(s);
	if (s->alog != NULL)
		n += tfo_alog_poll(s->alog, t0);
	tfo_qs_stats(&s->ctl->stats);
	*over = tfo_drain_tick(&s->life, &s->lcores, now_us);
	if (!*over)
		tfo_link_tick(&s->link, &s->ctl->stats, now_us);
	return n;
}

/*
 * Print one stats line to s->out: the rates since the last line
 * (tfo_report_rates_line between s->last_snap and a fresh snapshot, which
 * then replaces it).
 */
static void
sup_stats_line(struct tfo_supervisor *s, uint64_t now_us)
{
	struct tfo_report_snap *cur;
	char line[4096];	/* the services' counters come last */

	/* the snapshot (~3 KiB) lives with the supervisor, not the stack */
	cur = &s->next_snap;
	tfo_report_snap_take(&s->lcores, cur);
	if (tfo_report_rates_line(&s->last_snap, cur, rte_get_tsc_hz(), line,
				  sizeof(line)) > 0)
		fputs(line, s->out);
	fflush(s->out);
	s->last_snap = *cur;
	s->last_stats_us = now_us;
}

/* How long control 0's lcore may sleep: as control 0 may, and a timer
 * tick while a service reload is waited for; else until the next stats
 * line, key rotation, WATCHDOG=1, drain look or look at the links. */
static uint32_t
sup_wait_max(const struct tfo_supervisor *s, uint64_t now_us)
{
	uint64_t max = tfo_control_wait_max(s->ctl);

	if (s->svc_reload_wait)
		return TFO_IDLE_WAIT_MAX_US;
	if (s->stats_period_s != 0) {
		uint64_t due = s->last_stats_us + (uint64_t)s->stats_period_s * 1000000;

		max = RTE_MIN(max, due > now_us ? due - now_us : 0);
	}
	if (s->next_rotate_us != 0)
		max = RTE_MIN(max, s->next_rotate_us > now_us ? s->next_rotate_us - now_us : 0);
	if (s->life.notify != NULL && s->life.notify->watchdog_us != 0)
		max = RTE_MIN(max, s->life.next_watchdog_us > now_us ?
			      s->life.next_watchdog_us - now_us : 0);
	if (s->life.draining)
		max = RTE_MIN(max, (uint64_t)TFO_DRAIN_CHECK_US);
	max = RTE_MIN(max, s->link.next_us > now_us ? s->link.next_us - now_us : 0);
	return (uint32_t)RTE_MAX(max, (uint64_t)TFO_IDLE_WAIT_MAX_US);
}

int
tfo_supervisor_main(struct tfo_supervisor *s)
{
	struct tfo_control *c = s->ctl;
	uint64_t now_us = rte_rdtsc() / c->tsc_per_us;

	s->last_stats_us = now_us;
	if (s->stats_period_s != 0)	/* the first line's start */
		tfo_report_snap_take(&s->lcores, &s->last_snap);
	tfo_link_init(&s->link, s->cfg, s->lcores.ports, s->lcores.nb_ports, now_us);
	if (tfo_control_enter(c) < 0)
		return -EINVAL;
	while (!*c->quit) {
		uint64_t t0 = rte_rdtsc();
		unsigned int n = tfo_control_round(c, t0);
		bool over;

		now_us = t0 / c->tsc_per_us;
		n += tfo_supervisor_step(s, now_us, t0, &over);
		if (over)
			break;
		tfo_control_busy(c, n, t0);
		if (s->stats_period_s &&
		    now_us - s->last_stats_us >= (uint64_t)s->stats_period_s * 1000000)
			sup_stats_line(s, now_us);
		if (n == 0)
			tfo_idle_wait(&c->idle, t0, sup_wait_max(s, now_us), &c->stats);
	}
	tfo_control_leave(c);
	return 0;
}

/* ---- requests from other threads ---------------------------------------- */

void
tfo_supervisor_rotate(struct tfo_supervisor *s)
{
	s->rotate_requested = 1;
	tfo_doorbell_wake(&s->ctl->idle.bell, NULL);
}

void
tfo_supervisor_reload(struct tfo_supervisor *s)
{
	s->reload_requested = 1;
	tfo_doorbell_wake(&s->ctl->idle.bell, NULL);
}

void
tfo_supervisor_drain(struct tfo_supervisor *s)
{
	if (s->life.drain == NULL)
		return;
	*s->life.drain = true;
	tfo_doorbell_wake(&s->ctl->idle.bell, NULL);
}
