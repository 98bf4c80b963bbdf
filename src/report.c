/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the control core's reports: the periodic stats line, the
 * exit summary and the accounting check (tfo/report.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "tfo/control.h"
#include "tfo/report.h"

void
tfo_control_aggregate(const struct tfo_control *c, struct tfo_stats *total)
{
	memset(total, 0, sizeof(*total));
	for (unsigned int k = 0; k < tfo_control_nb_peers(c); k++)
		tfo_stats_accumulate(total, &tfo_control_peer(c, k)->stats);
	for (unsigned int i = 0; i < c->nb_workers; i++)
		tfo_stats_accumulate(total, &c->workers[i]->stats);
}

static uint64_t
tfo_drops(const struct tfo_stats *s)
{
	/* frames, not the engine's segment-level drop_* (those were answered) */
	uint64_t d = s->c[TFO_STAT_tx_drop_full];

	for (unsigned int i = 0; i < TFO_STAT_MAX; i++)
		if (tfo_stats_is_frame_drop(i))
			d += s->c[i];
	return d;
}

/* With several control lcores, one more line: what each one took and holds
 * (cumulative), so that an uneven or saturated one shows. */
static void
tfo_control_stats_line_peers(const struct tfo_control *c)
{
	if (tfo_control_nb_peers(c) <= 1)
		return;
	fprintf(c->out, "stats: controls");
	for (unsigned int k = 0; k < tfo_control_nb_peers(c); k++) {
		const struct tfo_control *p = tfo_control_peer(c, k);

		fprintf(c->out, " | %u(lcore %u) ctrl_rx %" PRIu64 " conns %" PRIu64
			" busy_tsc %" PRIu64, k, p->lcore_id, p->stats.c[TFO_STAT_ctrl_rx],
			p->stats.c[TFO_STAT_conns_active], p->stats.c[TFO_STAT_busy_tsc]);
	}
	fprintf(c->out, "\n");
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

void
tfo_control_stats_line(struct tfo_control *c, uint64_t now_us)
{
	struct tfo_stats total;
	double secs = (double)(now_us - c->last_stats_us) / 1e6;
	const uint64_t *t, *l;

	tfo_control_aggregate(c, &total);
	t = total.c;
	l = c->last_total.c;
	fprintf(c->out,
		"stats: rx %.0f pps tx %.0f pps | rx %" PRIu64 " tx %" PRIu64
		" drops %" PRIu64 " to_control %" PRIu64 " | conns %" PRIu64
		" pending %" PRIu64
		" | TFO passive %" PRIu64 " fail %" PRIu64 " overflow %" PRIu64
		" cookiereq %" PRIu64 " altkey %" PRIu64 "\n",
		(double)(t[TFO_STAT_rx_pkts] - l[TFO_STAT_rx_pkts]) / secs,
		(double)(t[TFO_STAT_tx_pkts] - l[TFO_STAT_tx_pkts]) / secs,
		t[TFO_STAT_rx_pkts], t[TFO_STAT_tx_pkts], tfo_drops(&total),
		t[TFO_STAT_to_control], t[TFO_STAT_conns_active], t[TFO_STAT_tfo_pending],
		t[TFO_STAT_TCPFastOpenPassive], t[TFO_STAT_TCPFastOpenPassiveFail],
		t[TFO_STAT_TCPFastOpenListenOverflow], t[TFO_STAT_TCPFastOpenCookieReqd],
		t[TFO_STAT_TCPFastOpenPassiveAltKey]);
	tfo_control_stats_line_peers(c);
	fflush(c->out);
	c->last_total = total;
	c->last_stats_us = now_us;
}

static void
tfo_summary_lcore(FILE *f, const char *who, const struct tfo_stats *s)
{
	char prefix[48];

	snprintf(prefix, sizeof(prefix), "  %s ", who);
	tfo_stats_dump(f, prefix, s);
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
	tfo_summary_lcore(f, "total", &total);
	for (unsigned int k = 0; k < tfo_control_nb_peers(c); k++) {
		tfo_control_who(c, k, who, sizeof(who));
		tfo_summary_lcore(f, who, &tfo_control_peer(c, k)->stats);
	}
	for (unsigned int i = 0; i < c->nb_workers; i++) {
		snprintf(who, sizeof(who), "worker%u(lcore %u)", i,
			 c->workers[i]->lcore_id);
		tfo_summary_lcore(f, who, &c->workers[i]->stats);
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
