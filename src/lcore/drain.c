/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: readiness, the watchdog and the drain, the supervisor's
 * (see drain.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "lcore/control.h"
#include "lcore/drain.h"
#include "lcore/worker.h"
#include "tfo/log.h"

uint64_t
tfo_drain_in_flight(const struct tfo_lcores *l, uint64_t *workers, uint64_t *controls)
{
	uint64_t w = 0, k = 0;

	for (unsigned int i = 0; i < l->nb_workers; i++)
		w += l->workers[i]->stats.c[TFO_STAT_conns_active];
	for (unsigned int i = 0; i < l->nb_controls; i++)
		k += l->controls[i]->stats.c[TFO_STAT_conns_active];
	if (workers != NULL)
		*workers = w;
	if (controls != NULL)
		*controls = k;
	return w + k;
}

/* Every lcore has entered its poll loop. */
static bool
drain_all_polling(const struct tfo_lcores *l)
{
	for (unsigned int i = 0; i < l->nb_workers; i++)
		if (!l->workers[i]->polling)
			return false;
	for (unsigned int i = 0; i < l->nb_controls; i++)
		if (!l->controls[i]->polling)
			return false;
	return true;
}

static uint64_t
drain_refused(const struct tfo_lcores *l)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < l->nb_workers; i++)
		n += l->workers[i]->stats.c[TFO_STAT_drain_syn_refused];
	for (unsigned int i = 0; i < l->nb_controls; i++)
		n += l->controls[i]->stats.c[TFO_STAT_drain_syn_refused];
	return n;
}

/* What a timed-out drain cuts, by state (read while the lcores run: a
 * log line, not an invariant). */
static void
drain_log_cut(const struct tfo_lifecycle *life, const struct tfo_lcores *lc, uint64_t n,
	      uint64_t w, uint64_t k)
{
	uint32_t sum[TFO_CONN_NB_STATES] = { 0 }, one[TFO_CONN_NB_STATES];
	char states[256];
	size_t len = 0;

	for (unsigned int i = 0; i < lc->nb_workers + lc->nb_controls; i++) {
		const struct tfo_engine *e = i < lc->nb_workers ? lc->workers[i]->engine :
			lc->controls[i - lc->nb_workers]->engine;

		if (e == NULL)
			continue;
		tfo_engine_conn_counts(e, one);
		for (unsigned int s = 0; s < TFO_CONN_NB_STATES; s++)
			sum[s] += one[s];
	}
	states[0] = '\0';
	for (unsigned int s = 1; s < TFO_CONN_NB_STATES && len < sizeof(states) - 1; s++) {
		if (sum[s] == 0 || s == TFO_CONN_TIME_WAIT)
			continue;
		len += (size_t)snprintf(states + len, sizeof(states) - len, "%s%s %u",
					len != 0 ? ", " : "", tfo_conn_state_name(s), sum[s]);
	}
	TFO_LOG(WARNING, "drain: drain_timeout %u s over: cutting %" PRIu64
		" connection(s) in flight (workers %" PRIu64 ", control lcores %" PRIu64
		"; %s)", life->drain_timeout_s, n, w, k, len != 0 ? states : "states changing");
}

/* XXX behind a plain ECMP router a member leaving rehashes flows: the
 * connections moved to another member are reset there (rst_tx_nomatch);
 * there is no hand-off between members (runbook, "Drain and rolling
 * restarts"). */
/* The drain, once started: @return true when it is over. */
static bool
drain_step(struct tfo_lifecycle *l, const struct tfo_lcores *lc, uint64_t now_us)
{
	uint64_t w, k, n;

	if (!l->draining) {
		l->draining = true;
		l->drain_start_us = now_us;
		l->next_check_us = now_us;
		l->next_log_us = now_us + TFO_DRAIN_LOG_US;
		n = tfo_drain_in_flight(lc, &w, &k);
		TFO_LOG(NOTICE, "drain: started: new SYNs refused with a RST, %" PRIu64
			" connection(s) in flight (workers %" PRIu64 ", control lcores %"
			PRIu64 "), drain_timeout %u s", n, w, k, l->drain_timeout_s);
		if (l->notify != NULL)
			tfo_sdnotify_send(l->notify, "STOPPING=1\nSTATUS=draining");
	}
	if (now_us < l->next_check_us)
		return false;
	l->next_check_us = now_us + TFO_DRAIN_CHECK_US;
	n = tfo_drain_in_flight(lc, &w, &k);
	if (n == 0) {
		TFO_LOG(NOTICE, "drain: done in %.1f s: no connection in flight, %" PRIu64
			" new SYN(s) refused", (double)(now_us - l->drain_start_us) / 1e6,
			drain_refused(lc));
		return true;
	}
	if (now_us - l->drain_start_us >= (uint64_t)l->drain_timeout_s * 1000000) {
		drain_log_cut(l, lc, n, w, k);
		return true;
	}
	if (now_us >= l->next_log_us) {
		l->next_log_us = now_us + TFO_DRAIN_LOG_US;
		if (l->notify != NULL) {	/* what `systemctl status` shows */
			char st[80];

			snprintf(st, sizeof(st), "STATUS=draining: %" PRIu64
				 " connection(s) in flight", n);
			tfo_sdnotify_send(l->notify, st);
		}
		TFO_LOG(NOTICE, "drain: %" PRIu64 " connection(s) in flight (workers %" PRIu64
			", control lcores %" PRIu64 ") after %" PRIu64 " of %u s, %" PRIu64
			" new SYN(s) refused", n, w, k,
			(now_us - l->drain_start_us) / 1000000, l->drain_timeout_s,
			drain_refused(lc));
	}
	return false;
}

bool
tfo_drain_tick(struct tfo_lifecycle *l, const struct tfo_lcores *lc, uint64_t now_us)
{
	/* a drain asked for during the start-up: never READY=1 after STOPPING=1 */
	if (!l->ready && !l->draining && drain_all_polling(lc)) {
		l->ready = true;
		TFO_LOG(INFO, "ready: every port started, %u worker(s) and %u control lcore(s) "
			"polling", lc->nb_workers, lc->nb_controls);
		if (l->notify != NULL)
			tfo_sdnotify_send(l->notify, "READY=1\nSTATUS=serving");
	}
	if (l->notify != NULL && l->notify->watchdog_us != 0 && now_us >= l->next_watchdog_us) {
		tfo_sdnotify_send(l->notify, "WATCHDOG=1");
		l->next_watchdog_us = now_us + l->notify->watchdog_us / 2;
	}
	if (l->drain == NULL || !*l->drain)
		return false;
	return drain_step(l, lc, now_us);
}
