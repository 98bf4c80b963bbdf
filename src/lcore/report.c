/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the control core's reports: the periodic stats line, the
 * exit summary and the accounting check (tfo/report.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "lcore/control.h"
#include "lcore/report.h"

void
tfo_control_aggregate(const struct tfo_control *c, struct tfo_stats *total)
{
	memset(total, 0, sizeof(*total));
	for (unsigned int k = 0; k < tfo_control_nb_peers(c); k++)
		tfo_stats_accumulate(total, &tfo_control_peer(c, k)->stats);
	for (unsigned int i = 0; i < c->nb_workers; i++)
		tfo_stats_accumulate(total, &c->workers[i]->stats);
}

void
tfo_report_snap_take(const struct tfo_control *c, struct tfo_report_snap *s)
{
	s->tsc = rte_rdtsc();
	s->svc = c->svc_ctrs;
	tfo_control_aggregate(c, &s->total);
	s->nb_workers = RTE_MIN(c->nb_workers, (unsigned int)TFO_REPORT_MAX_WORKERS);
	for (unsigned int i = 0; i < s->nb_workers; i++)
		s->worker_busy[i] = c->workers[i]->stats.c[TFO_STAT_busy_tsc];
	s->nb_controls = RTE_MIN(tfo_control_nb_peers(c), (unsigned int)TFO_MAX_CONTROLS);
	for (unsigned int k = 0; k < s->nb_controls; k++)
		s->control_busy[k] = tfo_control_peer(c, k)->stats.c[TFO_STAT_busy_tsc];
	/*
	 * The ports' own counters: a control-path call, made here on control
	 * 0 only, once a line. The PMDs used here (net_tap, net_memif,
	 * net_af_xdp, virtio, net_ring/null/pcap) sum per-queue counters the
	 * workers write, or ask the kernel: safe beside the workers' bursts,
	 * as DPDK's own /ethdev/stats is, from the telemetry thread.
	 */
	s->nb_ports = RTE_MIN(c->nb_ports, (uint16_t)TFO_MAX_PORTS);
	s->ports_ok = 0;
	for (uint16_t i = 0; i < s->nb_ports; i++) {
		struct rte_eth_stats es;

		s->imissed[i] = 0;
		s->nombuf[i] = 0;
		memset(&s->xsk[i], 0, sizeof(s->xsk[i]));
		if (rte_eth_stats_get(c->ports[i].port_id, &es) != 0)
			continue;
		/* net_af_xdp's sockets: one getsockopt each (net/xsk.h) */
		if (c->ports[i].nb_xsk != 0)
			tfo_xsk_stats(c->ports[i].xsk_fd, c->ports[i].nb_xsk, &s->xsk[i]);
		s->imissed[i] = es.imissed + s->xsk[i].rx_ring_full;
		s->nombuf[i] = es.rx_nombuf;
		s->ports_ok |= UINT32_C(1) << i;
	}
}

/* cur - prev of a counter; 0 if it went down (a port's reset) */
static uint64_t
tfo_delta(uint64_t prev, uint64_t cur)
{
	return cur >= prev ? cur - prev : 0;
}

static uint64_t
tfo_stat_delta(const struct tfo_report_snap *prev, const struct tfo_report_snap *cur,
	       enum tfo_stat_id id)
{
	return tfo_delta(prev->total.c[id], cur->total.c[id]);
}

/* Frames dropped: the accounting's frame-drop reasons and the TX side's
 * (tx_drop_full, relay_drop_full); not the engine's segment-level drop_*
 * (those segments were answered). */
static int
tfo_report_is_drop(unsigned int id)
{
	return tfo_stats_is_frame_drop(id) || id == TFO_STAT_tx_drop_full ||
	       id == TFO_STAT_relay_drop_full;
}

/* Append to @p out (@p len) at *o, snprintf's way: *o grows by what it
 * would write, so that the total tells a truncation. */
static void __rte_format_printf(4, 5)
tfo_report_put(char *out, size_t len, size_t *o, const char *fmt, ...)
{
	size_t at = RTE_MIN(*o, len);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out + at, len - at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*o += (size_t)n;
}

/* " key=R": 0, two significant digits below 10, whole above (a rate) */
static void
tfo_report_rate(char *out, size_t len, size_t *o, const char *key, uint64_t n,
		double secs)
{
	double r = (double)n / secs;

	if (n == 0)
		tfo_report_put(out, len, o, " %s=0", key);
	else if (r < 10.0)
		tfo_report_put(out, len, o, " %s=%.2g", key, r);
	else
		tfo_report_put(out, len, o, " %s=%.0f", key, r);
}

/* " key=R" only when @p n moved: a key that is 0 at rest (a part of a sum
 * the line already shows, a trouble sign) appears in the second it matters */
static void
tfo_report_rate_nz(char *out, size_t len, size_t *o, const char *key, uint64_t n,
		   double secs)
{
	if (n != 0)
		tfo_report_rate(out, len, o, key, n, secs);
}

/* The busiest of @p n lcores: its share of @p elapsed in percent and its
 * index into @p idx ("-" with none). */
static double
tfo_report_busiest(const uint64_t *prev, const uint64_t *cur, unsigned int n,
		   uint64_t elapsed, char *idx, size_t len)
{
	uint64_t max = 0;
	unsigned int at = 0;

	snprintf(idx, len, "-");
	for (unsigned int i = 0; i < n; i++) {
		uint64_t d = tfo_delta(prev[i], cur[i]);

		if (i == 0 || d > max) {
			max = d;
			at = i;
		}
	}
	if (n == 0)
		return 0.0;
	snprintf(idx, len, "%u", at);
	/* a poll that straddles two snapshots can count past the interval */
	return RTE_MIN((double)max * 100.0 / (double)elapsed, 100.0);
}

/*
 * The services' status counters (tfo/service.h: "http_404",
 * "http_400_host") summed by class, " http_2xx=R" ... " http_5xx=R", each
 * only when it moved: a service's counters are consecutive in the map.
 */
static void
tfo_report_status_classes(char *out, size_t len, size_t *o,
			  const struct tfo_report_snap *prev,
			  const struct tfo_report_snap *cur, double secs)
{
	const struct tfo_svc_ctr_map *m = cur->svc;
	char key[80];

	for (unsigned int i = 0, j; m != NULL && i < m->nb; i = j) {
		uint64_t cls[6] = { 0 };

		for (j = i; j < m->nb && m->service[j] == m->service[i]; j++)
			if (m->status[j] != 0)
				cls[m->status[j] / 100] +=
					tfo_delta(prev->total.svc[j], cur->total.svc[j]);
		for (unsigned int k = 1; k < RTE_DIM(cls); k++) {
			if (cls[k] == 0)
				continue;
			snprintf(key, sizeof(key), "%s_%uxx", m->service[i], k);
			tfo_report_rate(out, len, o, key, cls[k], secs);
		}
	}
}

int
tfo_report_rates_line(const struct tfo_report_snap *prev,
		      const struct tfo_report_snap *cur, uint64_t tsc_hz,
		      char *out, size_t len)
{
	uint64_t elapsed, drops = 0, top = 0, imissed = 0, nombuf, fill_empty = 0, req, bad;
	uint64_t over;
	unsigned int top_id = 0, nw, nc;
	char wk[16], ck[16];
	double secs, wbusy, cbusy;
	size_t o = 0;

	if (prev == NULL || cur == NULL || out == NULL || tsc_hz == 0 ||
	    cur->tsc <= prev->tsc)
		return -EINVAL;
	elapsed = cur->tsc - prev->tsc;
	secs = (double)elapsed / (double)tsc_hz;
	for (unsigned int i = 0; i < TFO_STAT_MAX; i++) {
		uint64_t d;

		if (!tfo_report_is_drop(i))
			continue;
		d = tfo_stat_delta(prev, cur, (enum tfo_stat_id)i);
		drops += d;
		if (d > top) {
			top = d;
			top_id = i;
		}
	}
	/* a frame not received or not sent for want of an mbuf: ours, and
	 * the PMDs' that count it */
	nombuf = tfo_stat_delta(prev, cur, TFO_STAT_mbuf_alloc_fail);
	for (uint16_t i = 0; i < RTE_MIN(prev->nb_ports, cur->nb_ports); i++)
		if ((prev->ports_ok & cur->ports_ok) & (UINT32_C(1) << i)) {
			imissed += tfo_delta(prev->imissed[i], cur->imissed[i]);
			nombuf += tfo_delta(prev->nombuf[i], cur->nombuf[i]);
			fill_empty += tfo_delta(prev->xsk[i].rx_fill_empty,
						cur->xsk[i].rx_fill_empty);
		}
	nw = RTE_MIN(RTE_MIN(prev->nb_workers, cur->nb_workers),
		     (unsigned int)TFO_REPORT_MAX_WORKERS);
	nc = RTE_MIN(RTE_MIN(prev->nb_controls, cur->nb_controls),
		     (unsigned int)TFO_MAX_CONTROLS);
	wbusy = tfo_report_busiest(prev->worker_busy, cur->worker_busy, nw, elapsed,
				   wk, sizeof(wk));
	cbusy = tfo_report_busiest(prev->control_busy, cur->control_busy, nc, elapsed,
				   ck, sizeof(ck));
	req = tfo_stat_delta(prev, cur, TFO_STAT_TCPFastOpenCookieReqd);
	bad = tfo_stat_delta(prev, cur, TFO_STAT_TCPFastOpenPassiveFail);
	over = tfo_stat_delta(prev, cur, TFO_STAT_TCPFastOpenListenOverflow) +
	       tfo_stat_delta(prev, cur, TFO_STAT_tfo_pending_source_overflow);

	/*
	 * The order documented in report.h and the runbook: keep it. The
	 * keys an operator reads every second are always there; the parts of
	 * fallback, the top drop reason, the http classes, nombuf and
	 * fill_empty only when they moved: at rest the line is ~150
	 * characters, not 268 (issue 36). Every counter stays in /tfo/stats
	 * and tfo-prom.
	 */
	tfo_report_put(out, len, &o, "stats:");
	tfo_report_rate(out, len, &o, "txn",
			tfo_stat_delta(prev, cur, TFO_STAT_svc_responses), secs);
	tfo_report_rate(out, len, &o, "tfo",
			tfo_stat_delta(prev, cur, TFO_STAT_TCPFastOpenPassive), secs);
	tfo_report_rate(out, len, &o, "fallback", req + bad + over, secs);
	tfo_report_rate_nz(out, len, &o, "cookie_req", req, secs);
	tfo_report_rate_nz(out, len, &o, "bad_cookie", bad, secs);
	tfo_report_rate_nz(out, len, &o, "over_limit", over, secs);
	tfo_report_rate(out, len, &o, "drops", drops, secs);
	if (top != 0)
		tfo_report_put(out, len, &o, " drop_top=%s", tfo_stats_name(top_id));
	tfo_report_rate(out, len, &o, "imissed", imissed, secs);
	tfo_report_rate(out, len, &o, "rx", tfo_stat_delta(prev, cur, TFO_STAT_rx_pkts), secs);
	tfo_report_rate(out, len, &o, "tx", tfo_stat_delta(prev, cur, TFO_STAT_tx_pkts), secs);
	tfo_report_put(out, len, &o, " worker_busy_pct=%.1f worker_busiest=%s"
		       " control_busy_pct=%.1f control_busiest=%s", wbusy, wk, cbusy, ck);
	tfo_report_status_classes(out, len, &o, prev, cur, secs);
	tfo_report_put(out, len, &o, " conns=%" PRIu64 " pending=%" PRIu64,
		       cur->total.c[TFO_STAT_conns_active], cur->total.c[TFO_STAT_tfo_pending]);
	tfo_report_rate_nz(out, len, &o, "nombuf", nombuf, secs);
	tfo_report_rate_nz(out, len, &o, "fill_empty", fill_empty, secs);
	/*
	 * The configured services' own counters, last, in their order, and
	 * only those that moved in the interval: dns alone declares some 30
	 * (one per query type), mostly 0, and a line of 55 keys was ~700
	 * characters a second that nobody read. A service counter is always
	 * in /tfo/stats and tfo-prom.
	 */
	for (unsigned int i = 0; cur->svc != NULL && i < cur->svc->nb; i++) {
		uint64_t d = tfo_delta(prev->total.svc[i], cur->total.svc[i]);

		if (d != 0 && cur->svc->status[i] == 0)
			tfo_report_rate(out, len, &o, cur->svc->name[i], d, secs);
	}
	tfo_report_put(out, len, &o, "\n");
	return o > INT_MAX ? INT_MAX : (int)o;
}

void
tfo_control_stats_line(struct tfo_control *c, uint64_t now_us)
{
	struct tfo_report_snap *cur;
	char line[4096];	/* the services' counters come last */

	/* the snapshot (~3 KiB) lives with the control lcore, not the stack */
	cur = &c->next_snap;
	tfo_report_snap_take(c, cur);
	if (tfo_report_rates_line(&c->last_snap, cur, rte_get_tsc_hz(), line,
				  sizeof(line)) > 0)
		fputs(line, c->out);
	fflush(c->out);
	c->last_snap = *cur;
	c->last_stats_us = now_us;
}

/* "control(lcore L)" for control 0 (as with one), "controlK(lcore L)". */
static void
tfo_control_who(const struct tfo_control *c, unsigned int k, char *who, size_t len)
{
	const struct tfo_control *p = tfo_control_peer(c, k);

	if (k == 0)
		snprintf(who, len, "control(lcore %u)", rte_get_main_lcore());
	else
		snprintf(who, len, "control%u(lcore %u)", k, p->lcore_id);
}

static void
tfo_summary_lcore(FILE *f, const char *who, const struct tfo_stats *s,
		  const struct tfo_svc_ctr_map *map)
{
	char prefix[48];

	snprintf(prefix, sizeof(prefix), "  %s ", who);
	tfo_stats_dump(f, prefix, s);
	tfo_stats_dump_svc(f, prefix, s, map != NULL ? map->name : NULL,
			   map != NULL ? map->nb : 0);
}

/*
 * Frames waiting in the rings between the lcores: to the control core
 * (sum of the workers' to_control - ctrl_rx; the neighbour rings included) and on the relay (ctrl_relayed
 * - tx_relay_in). From the counters and from the rings themselves: the two
 * agree when every lcore is stopped (at exit).
 */
static void
tfo_ring_backlog(const struct tfo_control *c, const struct tfo_stats *total,
		 int64_t *counted, uint64_t *in_rings)
{
	*counted = (int64_t)(total->c[TFO_STAT_to_control] - total->c[TFO_STAT_ctrl_rx]) +
		   (int64_t)(total->c[TFO_STAT_ctrl_relayed] - total->c[TFO_STAT_tx_relay_in]);
	*in_rings = 0;
	for (unsigned int i = 0; i < c->nb_workers; i++) {
		for (unsigned int k = 0; k < tfo_control_nb_peers(c); k++)
			if (c->workers[i]->to_ctl[k] != NULL)
				*in_rings += rte_ring_count(c->workers[i]->to_ctl[k]);
		/* ARP and ND: to_control too */
		if (c->workers[i]->to_neigh != NULL)
			*in_rings += rte_ring_count(c->workers[i]->to_neigh);
	}
	for (unsigned int k = 0; k < tfo_control_nb_peers(c); k++)
		for (uint16_t i = 0; i < c->nb_ports; i++)
			if (tfo_control_peer(c, k)->relay[i] != NULL)
				*in_rings += rte_ring_count(tfo_control_peer(c, k)->relay[i]);
}

static bool
tfo_summary_acct(FILE *f, const char *who, const struct tfo_stats *s)
{
	struct tfo_acct a;
	char line[320];
	bool ok = tfo_stats_account(s, &a);

	if (f != NULL) {
		tfo_acct_format(&a, line, sizeof(line));
		fprintf(f, "  %s %s: %s\n", who, ok ? "ok" : "UNBALANCED", line);
	}
	return ok;
}

bool
tfo_control_accounting(const struct tfo_control *c, FILE *f)
{
	struct tfo_stats total;
	uint64_t in_rings;
	int64_t counted;
	char who[40];
	bool ok;

	tfo_control_aggregate(c, &total);
	tfo_ring_backlog(c, &total, &counted, &in_rings);
	if (f != NULL)
		fprintf(f, "summary: accounting (every frame counted exactly once)\n");
	ok = true;
	for (unsigned int k = 0; k < tfo_control_nb_peers(c); k++) {
		tfo_control_who(c, k, who, sizeof(who));
		ok &= tfo_summary_acct(f, who, &tfo_control_peer(c, k)->stats);
	}
	for (unsigned int i = 0; i < c->nb_workers; i++) {
		snprintf(who, sizeof(who), "worker%u(lcore %u)", i, c->workers[i]->lcore_id);
		ok &= tfo_summary_acct(f, who, &c->workers[i]->stats);
	}
	ok &= tfo_summary_acct(f, "total", &total);
	ok &= counted == (int64_t)in_rings;
	if (f != NULL) {
		fprintf(f, "  rings: %" PRId64 " frames by the counters, %" PRIu64
			" in the rings\n", counted, in_rings);
		fprintf(f, "accounting: %s\n", ok ? "ok" : "UNBALANCED");
	}
	return ok;
}

/* A bucket bound for the summary: "+Inf" past the last finite one. */
static void
tfo_lat_bound(char *buf, size_t len, uint64_t us)
{
	if (us == UINT64_MAX)
		snprintf(buf, len, "+Inf");
	else
		snprintf(buf, len, "%" PRIu64, us);
}

/* The exit summary's lines of @p l: "  latency WHO KIND: n= mean= p50<=
 * p90<= p99<= max<=" (bucket bounds; nothing without samples). */
static void
tfo_lat_summary(FILE *f, const char *who, const struct tfo_lat *l)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 1.0 };

	for (unsigned int k = 0; k < TFO_LAT_KINDS; k++) {
		uint64_t n = tfo_lat_samples(l, (enum tfo_lat_kind)k);
		char q[RTE_DIM(qs)][24];

		if (n == 0)
			continue;
		for (unsigned int i = 0; i < RTE_DIM(qs); i++)
			tfo_lat_bound(q[i], sizeof(q[i]), tfo_lat_quantile_us(l->count[k], qs[i]));
		fprintf(f, "  latency %s %s: n=%" PRIu64 " mean=%" PRIu64 "us p50<=%sus "
			"p90<=%sus p99<=%sus max<=%sus\n", who,
			tfo_lat_kind_name((enum tfo_lat_kind)k), n,
			tfo_lat_ticks_us(l, l->sum_tsc[k]) / n, q[0], q[1], q[2], q[3]);
	}
}

/* The latency histograms' quantiles (tfo/latency.h): the total, then
 * each lcore with samples. */
static void
tfo_control_latency(const struct tfo_control *c, FILE *f)
{
	struct tfo_lat total;
	char who[40];

	memset(&total, 0, sizeof(total));
	for (unsigned int k = 0; k < tfo_control_nb_peers(c); k++)
		tfo_lat_accumulate(&total, &tfo_control_peer(c, k)->lat);
	for (unsigned int i = 0; i < c->nb_workers; i++)
		tfo_lat_accumulate(&total, &c->workers[i]->lat);
	fprintf(f, "summary: server-side latency (bucket bounds, us; /tfo/latency)\n");
	tfo_lat_summary(f, "total", &total);
	for (unsigned int k = 0; k < tfo_control_nb_peers(c); k++) {
		tfo_control_who(c, k, who, sizeof(who));
		tfo_lat_summary(f, who, &tfo_control_peer(c, k)->lat);
	}
	for (unsigned int i = 0; i < c->nb_workers; i++) {
		snprintf(who, sizeof(who), "worker%u(lcore %u)", i, c->workers[i]->lcore_id);
		tfo_lat_summary(f, who, &c->workers[i]->lat);
	}
}

void
tfo_control_summary(const struct tfo_control *c, FILE *f)
{
	struct tfo_stats total;
	char who[32];

	tfo_control_aggregate(c, &total);
	fprintf(f, "summary: counters (all lcores)\n");
	tfo_summary_lcore(f, "total", &total, c->svc_ctrs);
	for (unsigned int k = 0; k < tfo_control_nb_peers(c); k++) {
		tfo_control_who(c, k, who, sizeof(who));
		tfo_summary_lcore(f, who, &tfo_control_peer(c, k)->stats, c->svc_ctrs);
	}
	for (unsigned int i = 0; i < c->nb_workers; i++) {
		snprintf(who, sizeof(who), "worker%u(lcore %u)", i,
			 c->workers[i]->lcore_id);
		tfo_summary_lcore(f, who, &c->workers[i]->stats, c->svc_ctrs);
	}
	tfo_control_latency(c, f);
	tfo_control_accounting(c, f);
	for (uint16_t i = 0; i < c->nb_ports; i++) {
		struct rte_eth_stats es;

		if (rte_eth_stats_get(c->ports[i].port_id, &es) != 0)
			continue;
		fprintf(f, "  port%u ipackets %" PRIu64 " opackets %" PRIu64
			" imissed %" PRIu64 " ierrors %" PRIu64 " oerrors %" PRIu64
			" rx_nombuf %" PRIu64 "\n", c->ports[i].port_id,
			es.ipackets, es.opackets, es.imissed, es.ierrors,
			es.oerrors, es.rx_nombuf);
	}
	fflush(f);
}
