/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the /tfo/... telemetry commands (lcore/telemetry.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "cookie/keyring.h"
#include "lcore/control.h"
#include "lcore/supervisor.h"
#include "lcore/telemetry.h"
#include "lcore/worker.h"
#include "tfo/log.h"

/*
 * The supervisor the commands answer for, handed in by tfo_telemetry_init:
 * DPDK 22.11's telemetry callbacks take no argument of ours
 * (rte_telemetry_register_cmd_arg came in 23.11), so this one pointer is
 * how they reach it. Nothing else in this file is kept between calls.
 */
static struct tfo_supervisor *tfo_tel_sup;

static void
tfo_tel_add_stats(struct rte_tel_data *d, const struct tfo_stats *s, bool all)
{
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < TFO_STAT_MAX; i++) {
		if (i == TFO_STAT_PKT_DROP_BASE)
			continue;
		if (all || s->c[i] != 0)
			rte_tel_data_add_dict_u64(d, tfo_stats_name(i), s->c[i]);
	}
}

/*
 * The built-in counters at 0, after everything else of a dict that has
 * them all: a dict holds RTE_TEL_MAX_DICT_ENTRIES (256) fields, the
 * built-in counters are over 210 and the services may declare 64 each, so
 * not all fit. What does not fit is a counter at 0 (absent reads as 0);
 * every non-zero counter, the accounting and every service counter are
 * always there.
 */
static void
tfo_tel_add_zeros(struct rte_tel_data *d, const struct tfo_stats *s)
{
	for (unsigned int i = 0; i < TFO_STAT_MAX; i++) {
		if (i == TFO_STAT_PKT_DROP_BASE || s->c[i] != 0)
			continue;
		if (rte_tel_data_add_dict_u64(d, tfo_stats_name(i), 0) != 0)
			break;	/* full */
	}
}

/* The configured services' counters, like the built-in ones; after the
 * dict's own fields, so that a dict too full (RTE_TEL_MAX_DICT_ENTRIES)
 * loses these rather than the accounting. */
static void
tfo_tel_add_svc(struct rte_tel_data *d, const struct tfo_stats *s, bool all,
		const struct tfo_svc_ctr_map *map)
{
	for (unsigned int i = 0; map != NULL && i < map->nb; i++)
		if (all || s->svc[i] != 0)
			rte_tel_data_add_dict_u64(d, map->name[i], s->svc[i]);
}

/* The accounting fields of one lcore (or the total) in its dict. */
static void
tfo_tel_add_acct(struct rte_tel_data *d, const struct tfo_stats *s)
{
	struct tfo_acct a;
	bool ok = tfo_stats_account(s, &a);

	rte_tel_data_add_dict_u64(d, "rx_dropped", a.dropped);
	rte_tel_data_add_dict_int(d, "rx_unaccounted",
				  (int)RTE_MAX(RTE_MIN(a.rx_unaccounted, (int64_t)INT32_MAX),
					       (int64_t)INT32_MIN));
	rte_tel_data_add_dict_int(d, "tx_unaccounted",
				  (int)RTE_MAX(RTE_MIN(a.tx_unaccounted, (int64_t)INT32_MAX),
					       (int64_t)INT32_MIN));
	rte_tel_data_add_dict_u64(d, "accounting_ok", ok);
}

static void
tfo_tel_pool_in_use(struct rte_mempool *mp, void *arg)
{
	*(uint64_t *)arg += rte_mempool_in_use_count(mp);
}

/* Snapshot entries: the control lcores, then the workers. */
static unsigned int
tfo_tel_nb_lcores(const struct tfo_lcores *c)
{
	return c->nb_controls + c->nb_workers;
}

static const struct tfo_stats *
tfo_tel_lcore_stats(const struct tfo_lcores *c, unsigned int i)
{
	unsigned int nc = c->nb_controls;

	return i < nc ? &c->controls[i]->stats : &c->workers[i - nc]->stats;
}

/*
 * Copy every lcore's counters (control lcores first) into @p snap. A busy lcore
 * may be in the middle of a burst, so that its copy does not balance: copy
 * again a few times, 1 ms apart, until all balance (an idle server always
 * does; a busy one shows what it shows).
 */
static void
tfo_tel_snapshot(const struct tfo_lcores *c, struct tfo_stats *snap)
{
	for (int attempt = 0; attempt < 5; attempt++) {
		struct tfo_acct a;
		bool ok;

		ok = true;
		for (unsigned int i = 0; i < tfo_tel_nb_lcores(c); i++) {
			snap[i] = *tfo_tel_lcore_stats(c, i);
			ok &= tfo_stats_account(&snap[i], &a);
		}
		if (ok)
			return;
		tfo_nap_us(1000);
	}
}

/* Name and lcore id of snapshot entry @p i: control 0 "lcoreL_control"
 * (as with one), control K "lcoreL_controlK", worker W "lcoreL_workerW". */
static unsigned int
tfo_tel_lcore_name(const struct tfo_lcores *c, unsigned int i, char *name, size_t len)
{
	unsigned int nc = c->nb_controls, lc;

	if (i == 0) {
		snprintf(name, len, "lcore%u_control", rte_get_main_lcore());
		return rte_get_main_lcore();
	}
	if (i < nc) {
		lc = c->controls[i]->lcore_id;
		snprintf(name, len, "lcore%u_control%u", lc, i);
		return lc;
	}
	lc = c->workers[i - nc]->lcore_id;
	snprintf(name, len, "lcore%u_worker%u", lc, i - nc);
	return lc;
}

static const struct tfo_lat *tfo_tel_lcore_lat(const struct tfo_lcores *c,
					       unsigned int i);

/* The totals of the latency histograms, flat: latency_KIND_count, _sum_us,
 * _p50_us, _p99_us (bucket bounds; /tfo/latency has the buckets). */
static void
tfo_tel_add_latency(struct rte_tel_data *d, const struct tfo_lcores *c)
{
	static const char *const q_name[] = { "p50_us", "p99_us" };
	static const double q[] = { 0.5, 0.99 };
	struct tfo_lat total;
	char key[64];

	memset(&total, 0, sizeof(total));
	for (unsigned int i = 0; i < tfo_tel_nb_lcores(c); i++)
		tfo_lat_accumulate(&total, tfo_tel_lcore_lat(c, i));
	for (unsigned int k = 0; k < TFO_LAT_KINDS; k++) {
		const char *kn = tfo_lat_kind_name((enum tfo_lat_kind)k);

		snprintf(key, sizeof(key), "latency_%s_count", kn);
		rte_tel_data_add_dict_u64(d, key, tfo_lat_samples(&total, (enum tfo_lat_kind)k));
		snprintf(key, sizeof(key), "latency_%s_sum_us", kn);
		rte_tel_data_add_dict_u64(d, key, tfo_lat_ticks_us(&total, total.sum_tsc[k]));
		for (unsigned int i = 0; i < RTE_DIM(q); i++) {
			uint64_t us = tfo_lat_quantile_us(total.count[k], q[i]);

			snprintf(key, sizeof(key), "latency_%s_%s", kn, q_name[i]);
			/* +Inf as the largest finite bound doubled */
			rte_tel_data_add_dict_u64(d, key, us != UINT64_MAX ? us :
						  tfo_lat_le_us(TFO_LAT_NB_LE));
		}
	}
}

/*
 * /tfo/stats: the totals (every counter), then each lcore's non-zero ones.
 * With many workers that outgrows the telemetry answer (16 KiB), so a
 * parameter narrows it: "total", "lcores" (name -> lcore id), or an lcore
 * id (all of that lcore's counters); tfo-prom asks lcore by lcore.
 */
static int
tfo_tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct tfo_lcores *c = tfo_tel_sup != NULL ? &tfo_tel_sup->lcores : NULL;
	struct tfo_stats total, *snap;
	struct rte_tel_data *sub;
	char name[32];
	bool one = false, total_only = false, list = false;
	unsigned long want = 0;
	uint64_t in_use = 0;
	int rc = 0;

	RTE_SET_USED(cmd);
	if (c == NULL)
		return -ENODEV;
	if (params != NULL && params[0] != '\0') {
		char *end;

		if (strcmp(params, "total") == 0) {
			total_only = true;
		} else if (strcmp(params, "lcores") == 0) {
			list = true;
		} else {
			want = strtoul(params, &end, 10);
			if (*end != '\0' || end == params)
				return -EINVAL;
			one = true;
		}
	}
	if (list) {
		rte_tel_data_start_dict(d);
		for (unsigned int i = 0; i < tfo_tel_nb_lcores(c); i++) {
			unsigned int lc = tfo_tel_lcore_name(c, i, name, sizeof(name));

			rte_tel_data_add_dict_u64(d, name, lc);
		}
		return 0;
	}
	snap = malloc(sizeof(*snap) * tfo_tel_nb_lcores(c));
	if (snap == NULL)
		return -ENOMEM;
	tfo_tel_snapshot(c, snap);
	if (one) {
		rc = -EINVAL;
		for (unsigned int i = 0; i < tfo_tel_nb_lcores(c); i++) {
			if (tfo_tel_lcore_name(c, i, name, sizeof(name)) != want)
				continue;
			tfo_tel_add_stats(d, &snap[i], false);
			tfo_tel_add_acct(d, &snap[i]);
			tfo_tel_add_svc(d, &snap[i], true, c->svc_ctrs);
			tfo_tel_add_zeros(d, &snap[i]);
			rc = 0;
		}
		free(snap);
		return rc;
	}
	memset(&total, 0, sizeof(total));
	for (unsigned int i = 0; i < tfo_tel_nb_lcores(c); i++)
		tfo_stats_accumulate(&total, &snap[i]);
	tfo_tel_add_stats(d, &total, false);
	tfo_tel_add_acct(d, &total);
	/* A gauge of the process, not of an lcore: a leak shows as a figure
	 * that does not come back to its idle value (scripts/usertools/soak.sh).
	 * Read racily from the lcore caches: exact only when idle. */
	rte_mempool_walk(tfo_tel_pool_in_use, &in_use);
	rte_tel_data_add_dict_u64(d, "mbufs_in_use", in_use);
	/* busy_tsc's unit: tfo-prom turns it into seconds */
	rte_tel_data_add_dict_u64(d, "tsc_hz", rte_get_tsc_hz());
	tfo_tel_add_latency(d, c);
	tfo_tel_add_svc(d, &total, true, c->svc_ctrs);
	for (unsigned int i = 0; i < tfo_tel_nb_lcores(c) && !total_only; i++) {
		sub = rte_tel_data_alloc();
		if (sub == NULL) {
			rc = -ENOMEM;
			break;
		}
		tfo_tel_add_stats(sub, &snap[i], false);
		tfo_tel_add_acct(sub, &snap[i]);
		tfo_tel_add_svc(sub, &snap[i], false, c->svc_ctrs);
		tfo_tel_lcore_name(c, i, name, sizeof(name));
		rte_tel_data_add_dict_container(d, name, sub, 0);
	}
	tfo_tel_add_zeros(d, &total);
	free(snap);
	return rc;
}

/* The histograms of snapshot entry @p i (tfo_tel_lcore_stats's order). */
static const struct tfo_lat *
tfo_tel_lcore_lat(const struct tfo_lcores *c, unsigned int i)
{
	unsigned int nc = c->nb_controls;

	return i < nc ? &c->controls[i]->lat : &c->workers[i - nc]->lat;
}

/* One histogram of one lcore: {"role", "counts": [...], "sum_us"}. */
static struct rte_tel_data *
tfo_tel_lat_hist(const struct tfo_lat *l, enum tfo_lat_kind k, bool worker)
{
	struct rte_tel_data *h = rte_tel_data_alloc(), *counts = rte_tel_data_alloc();

	if (h == NULL || counts == NULL) {
		rte_tel_data_free(h);
		rte_tel_data_free(counts);
		return NULL;
	}
	rte_tel_data_start_dict(h);
	rte_tel_data_add_dict_string(h, "role", worker ? "worker" : "control");
	rte_tel_data_start_array(counts, RTE_TEL_U64_VAL);
	for (unsigned int b = 0; b < TFO_LAT_NB; b++)
		rte_tel_data_add_array_u64(counts, l->count[k][b]);
	rte_tel_data_add_dict_container(h, "counts", counts, 0);
	/* whole microseconds: DPDK 22.11 telemetry has no floats */
	rte_tel_data_add_dict_u64(h, "sum_us", tfo_lat_ticks_us(l, l->sum_tsc[k]));
	return h;
}

/*
 * /tfo/latency: the server-side latency histograms (tcp/latency.h) of
 * every lcore, keyed by lcore id, in Prometheus's cumulative-free form:
 * counts per bucket (le_us, then +Inf), sum in us. tfo-prom exports them.
 */
static int
tfo_tel_latency(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const char *const kname[TFO_LAT_KINDS] = {
		[TFO_LAT_SYN] = "syn_to_response",
		[TFO_LAT_REQ] = "request_to_response",
	};
	const struct tfo_lcores *c = tfo_tel_sup != NULL ? &tfo_tel_sup->lcores : NULL;
	struct rte_tel_data *le;
	char name[32], id[16];

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (c == NULL)
		return -ENODEV;
	le = rte_tel_data_alloc();
	if (le == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "tsc_hz", rte_get_tsc_hz());
	rte_tel_data_start_array(le, RTE_TEL_U64_VAL);
	for (unsigned int b = 0; b < TFO_LAT_NB_LE; b++)
		rte_tel_data_add_array_u64(le, tfo_lat_le_us(b));
	rte_tel_data_add_dict_container(d, "le_us", le, 0);
	for (unsigned int k = 0; k < TFO_LAT_KINDS; k++) {
		struct rte_tel_data *per = rte_tel_data_alloc();

		if (per == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(per);
		for (unsigned int i = 0; i < tfo_tel_nb_lcores(c); i++) {
			unsigned int lc = tfo_tel_lcore_name(c, i, name, sizeof(name));
			struct rte_tel_data *h = tfo_tel_lat_hist(tfo_tel_lcore_lat(c, i),
								  (enum tfo_lat_kind)k,
								  i >= c->nb_controls);

			if (h == NULL) {
				rte_tel_data_free(per);
				return -ENOMEM;
			}
			snprintf(id, sizeof(id), "%u", lc);
			rte_tel_data_add_dict_container(per, id, h, 0);
		}
		rte_tel_data_add_dict_container(d, kname[k], per, 0);
	}
	return 0;
}

/*
 * /tfo/ports: per port id, the kernel's counters of a net_af_xdp port's
 * sockets (net/xsk.h), which rte_eth_stats leaves out: frames that found
 * the fill ring empty (no buffer: the pool), frames dropped for a full RX
 * ring (no worker in time), TX descriptors refused. A control-path read
 * (one getsockopt per socket) on the telemetry thread, as /ethdev/stats.
 */
static int
tfo_tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct tfo_lcores *c = tfo_tel_sup != NULL ? &tfo_tel_sup->lcores : NULL;
	char id[16];

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (c == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	for (uint16_t i = 0; i < c->nb_ports; i++) {
		const struct tfo_port_info *p = &c->ports[i];
		struct rte_tel_data *pd = rte_tel_data_alloc();
		struct tfo_xsk_stats xs;

		if (pd == NULL)
			return -ENOMEM;
		tfo_xsk_stats(p->xsk_fd, p->nb_xsk, &xs);
		rte_tel_data_start_dict(pd);
		rte_tel_data_add_dict_u64(pd, "xsk_sockets", p->nb_xsk);
		rte_tel_data_add_dict_u64(pd, "xsk_fill_empty", xs.rx_fill_empty);
		rte_tel_data_add_dict_u64(pd, "xsk_rx_ring_full", xs.rx_ring_full);
		rte_tel_data_add_dict_u64(pd, "xsk_rx_dropped", xs.rx_dropped);
		rte_tel_data_add_dict_u64(pd, "xsk_rx_invalid", xs.rx_invalid);
		rte_tel_data_add_dict_u64(pd, "xsk_tx_invalid", xs.tx_invalid);
		snprintf(id, sizeof(id), "%u", p->port_id);
		rte_tel_data_add_dict_container(d, id, pd, 0);
	}
	return 0;
}

/*
 * /tfo/counters[,FROM]: what every counter means, as "counter: help" or
 * "gauge: help", TFO_TEL_COUNTERS_PAGE at a time from id FROM (the whole
 * list does not fit one telemetry answer); "next" is where the next page
 * starts, 0 after the last. The configured services' counters follow the
 * built-in ones (ids from TFO_STAT_MAX on), each also named with its
 * service in the page's "services" dict ({"echo_lines": "echo"}).
 */
#define TFO_TEL_COUNTERS_PAGE 64

static int
tfo_tel_counters(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct tfo_svc_ctr_map *map = tfo_tel_sup->lcores.svc_ctrs;
	unsigned int i, n = 0, last = TFO_STAT_MAX + (map != NULL ? map->nb : 0);
	struct rte_tel_data *sub, *svc = NULL;
	unsigned long from = 0;

	RTE_SET_USED(cmd);
	if (params != NULL && params[0] != '\0') {
		char *end;

		from = strtoul(params, &end, 10);
		if (*end != '\0')
			return -EINVAL;
	}
	sub = rte_tel_data_alloc();
	if (sub == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(sub);
	for (i = (unsigned int)RTE_MIN(from, (unsigned long)last);
	     i < last && n < TFO_TEL_COUNTERS_PAGE; i++) {
		char text[RTE_TEL_MAX_STRING_LEN];
		unsigned int j = i - TFO_STAT_MAX;

		if (i == TFO_STAT_PKT_DROP_BASE)
			continue;
		if (i < TFO_STAT_MAX) {
			snprintf(text, sizeof(text), "%s: %s",
				 tfo_stats_is_gauge(i) ? "gauge" : "counter", tfo_stats_help(i));
			rte_tel_data_add_dict_string(sub, tfo_stats_name(i), text);
			n++;
			continue;
		}
		/* a service's counter (ids past the built-in ones): its
		 * service in "services", for tfo-prom's service label */
		if (svc == NULL) {
			svc = rte_tel_data_alloc();
			if (svc == NULL) {
				rte_tel_data_free(sub);
				return -ENOMEM;
			}
			rte_tel_data_start_dict(svc);
		}
		snprintf(text, sizeof(text), "counter: %s", map->help[j]);
		rte_tel_data_add_dict_string(sub, map->name[j], text);
		rte_tel_data_add_dict_string(svc, map->name[j], map->service[j]);
		n++;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "next", i < last ? i : 0);
	rte_tel_data_add_dict_container(d, "counters", sub, 0);
	if (svc != NULL)
		rte_tel_data_add_dict_container(d, "services", svc, 0);
	return 0;
}

static int
tfo_tel_keys(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct tfo_supervisor *c = tfo_tel_sup;
	char prim[17], backup[17];

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (c == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	if (c->keys == NULL) {
		rte_tel_data_add_dict_string(d, "tfo", "disabled");
		return 0;
	}
	tfo_keyring_fingerprints(c->keys, prim, backup);
	rte_tel_data_add_dict_string(d, "algo",
				     tfo_cookie_algo_name(tfo_keyring_algo(c->keys)));
	rte_tel_data_add_dict_string(d, "primary", prim);
	rte_tel_data_add_dict_string(d, "backup", backup);
	rte_tel_data_add_dict_u64(d, "generation", tfo_keyring_generation(c->keys));
	rte_tel_data_add_dict_u64(d, "rotate_period_s", c->cfg->rotate_period_s);
	return 0;
}

/* Rotation is requested here and done by the control core, the single
 * writer of the key ring's schedule; the answer shows the new keys. */
static int
tfo_tel_rotate(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tfo_supervisor *c = tfo_tel_sup;
	uint64_t gen;

	if (c == NULL)
		return -ENODEV;
	if (c->keys == NULL)
		return tfo_tel_keys(cmd, params, d);
	gen = tfo_keyring_generation(c->keys);
	tfo_supervisor_rotate(c);
	for (uint64_t end = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();
	     tfo_keyring_generation(c->keys) == gen && rte_get_tsc_cycles() < end;)
		tfo_nap_us(1000);
	return tfo_tel_keys(cmd, params, d);
}

/*
 * Start a drain, as SIGTERM (drain.h): the answer is the state now; a
 * second call changes nothing (stop at once with SIGINT). The tfo-drain
 * script reads `in_flight` and `drain_syn_refused` to follow it.
 */
static int
tfo_tel_drain(const char *cmd __rte_unused, const char *params __rte_unused,
	      struct rte_tel_data *d)
{
	struct tfo_supervisor *c = tfo_tel_sup;
	uint64_t w, k;

	if (c == NULL || c->life.drain == NULL)
		return -ENODEV;
	tfo_supervisor_drain(c);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "draining", 1);
	rte_tel_data_add_dict_u64(d, "drain_timeout", c->life.drain_timeout_s);
	rte_tel_data_add_dict_u64(d, "in_flight", tfo_drain_in_flight(&c->lcores, &w, &k));
	rte_tel_data_add_dict_u64(d, "in_flight_workers", w);
	rte_tel_data_add_dict_u64(d, "in_flight_controls", k);
	return 0;
}

/*
 * The reload's outcome, one entry per part (keys, then each service's).
 * A telemetry string is cut at RTE_TEL_MAX_STRING_LEN (128) bytes and a
 * zone's refusal is often longer: a longer part continues in the next
 * entries, each continuation starting with "+ ", so nothing is lost.
 */
static void
tfo_tel_reload_parts(struct rte_tel_data *d, const char *msg)
{
	struct rte_tel_data *a = rte_tel_data_alloc();
	char piece[RTE_TEL_MAX_STRING_LEN];
	const size_t room = sizeof(piece) - 3;	/* "+ " and the NUL */

	if (a == NULL)
		return;
	rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	while (*msg != '\0') {
		const char *end = strstr(msg, "; ");
		size_t len = end != NULL ? (size_t)(end - msg) : strlen(msg);
		bool first = true;

		while (len > 0) {
			size_t n = RTE_MIN(len, first ? sizeof(piece) - 1 : room);

			snprintf(piece, sizeof(piece), "%s%.*s", first ? "" : "+ ",
				 (int)n, msg);
			rte_tel_data_add_array_string(a, piece);
			msg += n;
			len -= n;
			first = false;
		}
		if (end != NULL)
			msg = end + 2;
	}
	if (rte_tel_data_add_dict_container(d, "parts", a, 0) != 0)
		rte_tel_data_free(a);
}

/* Key file reload, done by the control core; the answer says what happened. */
static int
tfo_tel_reload(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tfo_supervisor *c = tfo_tel_sup;
	uint64_t seq;
	int done = 0;

	if (c == NULL)
		return -ENODEV;
	seq = __atomic_load_n(&c->reload_seq, __ATOMIC_ACQUIRE);
	tfo_supervisor_reload(c);
	for (uint64_t end = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();
	     !done && rte_get_tsc_cycles() < end;) {
		tfo_nap_us(1000);
		done = __atomic_load_n(&c->reload_seq, __ATOMIC_ACQUIRE) != seq;
	}
	if (!done) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "result", "error");
		rte_tel_data_add_dict_string(d, "error", "the control core did not answer in 2 s");
		return 0;
	}
	tfo_tel_keys(cmd, params, d);
	if (c->key_file != NULL)
		rte_tel_data_add_dict_string(d, "key_file", c->key_file);
	rte_tel_data_add_dict_string(d, "result", c->reload_rc > 0 ? "changed" :
				     c->reload_rc == 0 ? "unchanged" : "error");
	rte_tel_data_add_dict_string(d, c->reload_rc < 0 ? "error" : "message",
				     c->reload_msg);
	tfo_tel_reload_parts(d, c->reload_msg);
	return 0;
}

static void
tfo_tel_add_conns(struct rte_tel_data *d, const struct tfo_engine *e)
{
	uint32_t n[TFO_CONN_NB_STATES];

	rte_tel_data_start_dict(d);
	tfo_engine_conn_counts(e, n);
	for (unsigned int s = 1; s < TFO_CONN_NB_STATES; s++)
		rte_tel_data_add_dict_u64(d, tfo_conn_state_name((enum tfo_conn_state)s),
					  n[s]);
	rte_tel_data_add_dict_u64(d, "free", tfo_engine_free_conns(e));
	rte_tel_data_add_dict_u64(d, "tfo_pending", tfo_engine_tfo_pending(e));
}

static int
tfo_tel_conns(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct tfo_lcores *c = tfo_tel_sup != NULL ? &tfo_tel_sup->lcores : NULL;
	char name[32];

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (c == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < tfo_tel_nb_lcores(c); i++) {
		unsigned int nc = c->nb_controls;
		const struct tfo_engine *e = i < nc ? c->controls[i]->engine :
					     c->workers[i - nc]->engine;
		struct rte_tel_data *sub;

		if (e == NULL)
			continue;
		sub = rte_tel_data_alloc();
		if (sub == NULL)
			return -ENOMEM;
		tfo_tel_add_conns(sub, e);
		tfo_tel_lcore_name(c, i, name, sizeof(name));
		rte_tel_data_add_dict_container(d, name, sub, 0);
	}
	return 0;
}

/*
 * The effective configuration, as "section.key = value" strings (telemetry
 * dict names may not hold the spaces, dots and colons of section names,
 * and a port may repeat ipv4/ipv6).
 */
static int
tfo_tel_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct tfo_supervisor *c = tfo_tel_sup;
	char *text = NULL, *line, *save = NULL, section[96] = "";
	size_t len = 0;
	FILE *f;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (c == NULL)
		return -ENODEV;
	f = open_memstream(&text, &len);
	if (f == NULL)
		return -ENOMEM;
	tfo_config_dump(f, c->cfg);
	fclose(f);
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char entry[RTE_TEL_MAX_STRING_LEN];

		if (line[0] == '[') {
			snprintf(section, sizeof(section), "%.*s", (int)strcspn(line + 1, "]"),
				 line + 1);
			continue;
		}
		if (line[0] == ';' || strstr(line, " = ") == NULL)
			continue;
		snprintf(entry, sizeof(entry), "%s.%s", section, line);
		rte_tel_data_add_array_string(d, entry);
	}
	free(text);
	return 0;
}

int
tfo_telemetry_init(struct tfo_supervisor *sup)
{
	static const struct {
		const char *name;
		telemetry_cb cb;
		const char *help;
	} cmds[] = {
		{ "/tfo/stats", tfo_tel_stats,
		  "counters: totals, then per lcore (non-zero); ,total ,lcores or ,LCORE_ID (all)" },
		{ "/tfo/counters", tfo_tel_counters,
		  "what each counter means (counter or gauge: help), 64 from ,FROM" },
		{ "/tfo/keys", tfo_tel_keys,
		  "TFO key fingerprints (never the keys), algorithm, generation" },
		{ "/tfo/rotate", tfo_tel_rotate,
		  "rotate the TFO key now (new primary, old primary becomes backup)" },
		{ "/tfo/reload", tfo_tel_reload,
		  "re-read the TFO key file, as SIGHUP (a bad file changes nothing)" },
		{ "/tfo/conns", tfo_tel_conns, "connections by state, per lcore" },
		{ "/tfo/ports", tfo_tel_ports,
		  "per port id: the kernel's counters of a net_af_xdp port's sockets "
		  "(xsk_fill_empty, xsk_rx_ring_full, xsk_tx_invalid, ...)" },
		{ "/tfo/latency", tfo_tel_latency,
		  "server-side latency histograms per lcore: syn_to_response, "
		  "request_to_response (le_us bounds, counts, sum_us)" },
		{ "/tfo/drain", tfo_tel_drain,
		  "start a drain, as SIGTERM: new SYNs get a RST, the connections in flight "
		  "are served, then exit (server.drain_timeout)" },
		{ "/tfo/config", tfo_tel_config,
		  "the effective configuration, as section.key = value lines" },
	};
	int rc = 0;

	tfo_tel_sup = sup;
	for (unsigned int i = 0; i < RTE_DIM(cmds); i++) {
		int r = rte_telemetry_register_cmd(cmds[i].name, cmds[i].cb, cmds[i].help);

		if (r != 0) {
			TFO_LOG(ERR, "telemetry %s: %s", cmds[i].name, strerror(-r));
			rc = r;
		}
	}
	return rc;
}
