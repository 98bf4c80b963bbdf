/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-loadgen: counters by name, the latency histogram, the progress line,
 * the summary and its JSON twin.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "lg.h"

struct lg_stat_desc {
	const char *name;
	const char *help;
};

#define LG_X_DESC(name_, help_) [LG_STAT_##name_] = { #name_, help_ },
#define LG_X_DROP(name_, help_) \
	[LG_STAT_PKT_DROP_BASE + TFO_PKT_DROP_##name_] = { "drop_" #name_, help_ },

static const struct lg_stat_desc lg_stat_descs[LG_STAT_MAX] = {
	LG_STATS_ALL(LG_X_DESC)
	[LG_STAT_PKT_DROP_BASE] = { "drop_none", "unused" },
	TFO_PKT_DROP_REASONS(LG_X_DROP)
};

const char *
lg_stat_name(unsigned int id)
{
	return id < LG_STAT_MAX ? lg_stat_descs[id].name : "?";
}

const char *
lg_stat_help(unsigned int id)
{
	return id < LG_STAT_MAX ? lg_stat_descs[id].help : "?";
}

void
lg_stats_accumulate(struct lg_stats *dst, const struct lg_stats *src)
{
	for (unsigned int i = 0; i < LG_STAT_MAX; i++)
		dst->c[i] += src->c[i];
}

uint64_t
lg_stats_errors(const struct lg_stats *s)
{
	uint64_t n = 0;

	for (unsigned int i = LG_STAT_ERR_FIRST; i <= LG_STAT_ERR_LAST; i++)
		n += s->c[i];
	return n;
}

/* ---- histogram ----------------------------------------------------------- */

uint64_t
lg_hist_bucket_low(unsigned int i)
{
	unsigned int e = i >> LG_HIST_SUB, sub = i & ((1u << LG_HIST_SUB) - 1);

	if (e == 0)
		return sub;
	/* bucket e covers [2^(e+SUB-1), 2^(e+SUB)) in 2^SUB steps */
	return ((uint64_t)(sub | (1u << LG_HIST_SUB))) << (e - 1);
}

uint64_t
lg_hist_quantile(const struct lg_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (h->count == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank == 0)
		rank = 1;
	for (unsigned int i = 0; i < LG_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			uint64_t lo = lg_hist_bucket_low(i);
			uint64_t hi = i + 1 < LG_HIST_BUCKETS ? lg_hist_bucket_low(i + 1) : lo;
			uint64_t v = lo + (hi - lo) / 2;

			return RTE_MAX(RTE_MIN(v, h->max), h->min);
		}
	}
	return h->max;
}

void
lg_hist_merge(struct lg_hist *dst, const struct lg_hist *src)
{
	if (src->count == 0)
		return;
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	for (unsigned int i = 0; i < LG_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

void
lg_hist_diff(struct lg_hist *dst, const struct lg_hist *a, const struct lg_hist *b)
{
	dst->count = a->count - b->count;
	dst->sum = a->sum - b->sum;
	dst->min = a->min;
	dst->max = a->max;
	for (unsigned int i = 0; i < LG_HIST_BUCKETS; i++)
		dst->b[i] = a->b[i] - b->b[i];
}

/* ---- reports -------------------------------------------------------------- */

static const char *
lg_kind_name(unsigned int k)
{
	static const char *const names[LG_KIND_MAX] = {
		[LG_KIND_COOKIE_REQ] = "cookie_req",
		[LG_KIND_TFO] = "tfo",
		[LG_KIND_BAD_COOKIE] = "bad_cookie",
		[LG_KIND_PLAIN] = "plain",
	};

	return k < LG_KIND_MAX ? names[k] : "?";
}


void
lg_report_collect(struct lg_report *r, struct lg_lcore *const *lcs, unsigned int n)
{
	uint64_t first = 0, last = 0;

	memset(r, 0, sizeof(*r));
	for (unsigned int i = 0; i < n; i++) {
		const struct lg_lcore *lc = lcs[i];

		/* another lcore writes these: a torn histogram only makes a
		 * progress line a bucket off; the summary is read after the end */
		lg_stats_accumulate(&r->total, &lc->stats);
		lg_hist_merge(&r->hist, &lc->hist);
		for (unsigned int k = 0; k < LG_KIND_MAX; k++)
			lg_hist_merge(&r->hist_kind[k], &lc->hist_kind[k]);
		r->inflight += lc->inflight;
		if (lc->run_start_tsc != 0 && (first == 0 || lc->run_start_tsc < first))
			first = lc->run_start_tsc;
		if (lc->last_done_tsc > last)
			last = lc->last_done_tsc;
	}
	if (first != 0 && last > first)
		r->run_s = (double)(last - first) / (double)rte_get_tsc_hz();
}

static double
lg_us(uint64_t tsc, double tsc_per_us)
{
	return (double)tsc / tsc_per_us;
}

static uint64_t
lg_retransmits(const struct lg_stats *s)
{
	return s->c[LG_STAT_syn_retransmits] + s->c[LG_STAT_data_retransmits] +
	       s->c[LG_STAT_fin_retransmits];
}

void
lg_report_progress(FILE *f, const char *phase, double t_s, double dt_s,
		   const struct lg_report *cur, const struct lg_report *prev,
		   double tsc_per_us)
{
	static struct lg_hist h;	/* too big for the stack of a report */
	const uint64_t *c = cur->total.c, *p = prev->total.c;
	uint64_t done = c[LG_STAT_txn_completed] - p[LG_STAT_txn_completed];

	lg_hist_diff(&h, &cur->hist, &prev->hist);
	fprintf(f, "[%-6s %6.1fs] txn/s %9.0f  done %" PRIu64 "  warm-up %" PRIu64
		"  tfo %" PRIu64 "  fallbacks %" PRIu64 "  retrans %" PRIu64
		"  errors %" PRIu64 "  in flight %" PRIu64
		"  p50 %.1fus p99 %.1fus  rx %.0f/s tx %.0f/s\n",
		phase, t_s, dt_s > 0 ? (double)done / dt_s : 0.0,
		c[LG_STAT_txn_completed], c[LG_STAT_warmup_completed],
		c[LG_STAT_txn_tfo],
		c[LG_STAT_fallbacks] + c[LG_STAT_fallbacks_bad_cookie],
		lg_retransmits(&cur->total), lg_stats_errors(&cur->total), cur->inflight,
		lg_us(lg_hist_quantile(&h, 0.5), tsc_per_us),
		lg_us(lg_hist_quantile(&h, 0.99), tsc_per_us),
		dt_s > 0 ? (double)(c[LG_STAT_rx_pkts] - p[LG_STAT_rx_pkts]) / dt_s : 0.0,
		dt_s > 0 ? (double)(c[LG_STAT_tx_pkts] - p[LG_STAT_tx_pkts]) / dt_s : 0.0);
	if (c[LG_STAT_spoof_syn_tx] != 0)
		fprintf(f, "[%-6s %6.1fs]   spoof: syn/s %9.0f  syn-ack/s %9.0f  syn %" PRIu64
			"  syn-ack %" PRIu64 "\n", phase, t_s,
			dt_s > 0 ? (double)(c[LG_STAT_spoof_syn_tx] - p[LG_STAT_spoof_syn_tx]) /
				   dt_s : 0.0,
			dt_s > 0 ? (double)(c[LG_STAT_spoof_synack_rx] -
					    p[LG_STAT_spoof_synack_rx]) / dt_s : 0.0,
			c[LG_STAT_spoof_syn_tx], c[LG_STAT_spoof_synack_rx]);
	fflush(f);
}

void
lg_report_summary(FILE *f, const struct lg_report *r, const struct lg_opts *o,
		  double tsc_per_us)
{
	const uint64_t *c = r->total.c;
	const struct lg_hist *h = &r->hist;
	uint64_t errors = lg_stats_errors(&r->total);

	fprintf(f, "summary: %" PRIu64 " transactions in %.3f s: %.0f txn/s\n",
		c[LG_STAT_txn_completed], r->run_s,
		r->run_s > 0 ? (double)c[LG_STAT_txn_completed] / r->run_s : 0.0);
	fprintf(f, "summary: responses validated %" PRIu64 ", TFO %" PRIu64
		", fallbacks %" PRIu64 " (+%" PRIu64 " with a bad cookie), retransmissions %"
		PRIu64 " (syn %" PRIu64 ", data %" PRIu64 ", fin %" PRIu64 ")\n",
		c[LG_STAT_responses_validated], c[LG_STAT_txn_tfo], c[LG_STAT_fallbacks],
		c[LG_STAT_fallbacks_bad_cookie], lg_retransmits(&r->total),
		c[LG_STAT_syn_retransmits], c[LG_STAT_data_retransmits],
		c[LG_STAT_fin_retransmits]);
	fprintf(f, "summary: latency (SYN sent -> response validated) p50 %.1f us, "
		"p99 %.1f us, p999 %.1f us, min %.1f, max %.1f, mean %.1f (%" PRIu64
		" samples)\n",
		lg_us(lg_hist_quantile(h, 0.5), tsc_per_us),
		lg_us(lg_hist_quantile(h, 0.99), tsc_per_us),
		lg_us(lg_hist_quantile(h, 0.999), tsc_per_us),
		lg_us(h->min, tsc_per_us), lg_us(h->max, tsc_per_us),
		h->count ? lg_us(h->sum / h->count, tsc_per_us) : 0.0, h->count);
	for (unsigned int k = 0; k < LG_KIND_MAX; k++) {
		const struct lg_hist *hk = &r->hist_kind[k];

		if (hk->count == 0)
			continue;
		fprintf(f, "summary: %-10s %" PRIu64 " completed, p50 %.1f us, p99 %.1f us\n",
			lg_kind_name(k), c[lg_kind_done(k)],
			lg_us(lg_hist_quantile(hk, 0.5), tsc_per_us),
			lg_us(lg_hist_quantile(hk, 0.99), tsc_per_us));
	}
	if (o->spoof)
		fprintf(f, "summary: spoofed SYNs %" PRIu64 " (%.0f/s; %" PRIu64 " more refused by "
			"a full TX queue), SYN-ACKs to spoofed sources %" PRIu64 " (%.0f/s), "
			"other segments to them %" PRIu64 "\n",
			c[LG_STAT_spoof_syn_tx],
			r->run_s > 0 ? (double)c[LG_STAT_spoof_syn_tx] / r->run_s : 0.0,
			c[LG_STAT_spoof_tx_drop],
			c[LG_STAT_spoof_synack_rx],
			r->run_s > 0 ? (double)c[LG_STAT_spoof_synack_rx] / r->run_s : 0.0,
			c[LG_STAT_spoof_rx_other]);
	fprintf(f, "summary: errors %" PRIu64 "%s\n", errors,
		errors ? " (exit code 1)" : "");
	for (unsigned int i = 0; i < LG_STAT_MAX; i++)
		if (c[i] != 0)
			fprintf(f, "summary:   %-24s %12" PRIu64 "%s\n", lg_stat_name(i), c[i],
				i >= LG_STAT_ERR_FIRST && i <= LG_STAT_ERR_LAST ?
				"  <- error" : "");
	fflush(f);
}

int
lg_report_json(const char *path, const struct lg_report *r, const struct lg_opts *o,
	       double tsc_per_us)
{
	const uint64_t *c = r->total.c;
	const struct lg_hist *h = &r->hist;
	FILE *f = fopen(path, "w");
	bool first = true;

	if (f == NULL)
		return -errno;
	fprintf(f, "{\n  \"tool\": \"tfo-loadgen\",\n  \"version\": \"%s\",\n", TFO_VERSION);
	fprintf(f, "  \"clients\": %u,\n  \"concurrency_per_lcore\": %u,\n"
		"  \"rate\": %" PRIu64 ",\n  \"request_len\": %u,\n",
		o->nb_clients, o->concurrency, o->rate, o->request_len);
	fprintf(f, "  \"run_s\": %.6f,\n  \"transactions\": %" PRIu64 ",\n"
		"  \"txn_per_s\": %.1f,\n",
		r->run_s, c[LG_STAT_txn_completed],
		r->run_s > 0 ? (double)c[LG_STAT_txn_completed] / r->run_s : 0.0);
	fprintf(f, "  \"responses_validated\": %" PRIu64 ",\n  \"tfo\": %" PRIu64 ",\n"
		"  \"fallbacks\": %" PRIu64 ",\n  \"fallbacks_bad_cookie\": %" PRIu64 ",\n"
		"  \"retransmissions\": %" PRIu64 ",\n  \"errors\": %" PRIu64 ",\n",
		c[LG_STAT_responses_validated], c[LG_STAT_txn_tfo], c[LG_STAT_fallbacks],
		c[LG_STAT_fallbacks_bad_cookie], lg_retransmits(&r->total),
		lg_stats_errors(&r->total));
	fprintf(f, "  \"latency_us\": {\"samples\": %" PRIu64 ", \"p50\": %.2f, "
		"\"p99\": %.2f, \"p999\": %.2f, \"min\": %.2f, \"max\": %.2f, "
		"\"mean\": %.2f},\n",
		h->count, lg_us(lg_hist_quantile(h, 0.5), tsc_per_us),
		lg_us(lg_hist_quantile(h, 0.99), tsc_per_us),
		lg_us(lg_hist_quantile(h, 0.999), tsc_per_us),
		lg_us(h->min, tsc_per_us), lg_us(h->max, tsc_per_us),
		h->count ? lg_us(h->sum / h->count, tsc_per_us) : 0.0);
	fprintf(f, "  \"by_kind\": {");
	for (unsigned int k = 0; k < LG_KIND_MAX; k++) {
		const struct lg_hist *hk = &r->hist_kind[k];

		fprintf(f, "%s\n    \"%s\": {\"completed\": %" PRIu64 ", \"p50_us\": %.2f, "
			"\"p99_us\": %.2f}", k ? "," : "", lg_kind_name(k),
			c[lg_kind_done(k)],
			lg_us(lg_hist_quantile(hk, 0.5), tsc_per_us),
			lg_us(lg_hist_quantile(hk, 0.99), tsc_per_us));
	}
	fprintf(f, "\n  },\n");
	/* spoof_* counters are in "counters" too; run-rate figures here */
	fprintf(f, "  \"spoof\": {\"enabled\": %s, \"rate\": %" PRIu64 ", \"syn\": %" PRIu64
		", \"tx_drop\": %" PRIu64 ", \"synack\": %" PRIu64 ", \"syn_per_s\": %.1f, "
		"\"synack_per_s\": %.1f},\n",
		o->spoof ? "true" : "false", o->spoof_rate, c[LG_STAT_spoof_syn_tx],
		c[LG_STAT_spoof_tx_drop],
		c[LG_STAT_spoof_synack_rx],
		r->run_s > 0 ? (double)c[LG_STAT_spoof_syn_tx] / r->run_s : 0.0,
		r->run_s > 0 ? (double)c[LG_STAT_spoof_synack_rx] / r->run_s : 0.0);
	/* the latency histogram: [lowest value of the bucket in us, count] */
	fprintf(f, "  \"latency_hist_us\": [");
	first = true;
	for (unsigned int i = 0; i < LG_HIST_BUCKETS; i++) {
		if (h->b[i] == 0)
			continue;
		fprintf(f, "%s[%.3f, %" PRIu64 "]", first ? "" : ", ",
			lg_us(lg_hist_bucket_low(i), tsc_per_us), h->b[i]);
		first = false;
	}
	fprintf(f, "],\n");
	first = true;
	fprintf(f, "  \"counters\": {");
	for (unsigned int i = 0; i < LG_STAT_MAX; i++) {
		if (i == LG_STAT_PKT_DROP_BASE)
			continue;
		fprintf(f, "%s\n    \"%s\": %" PRIu64, first ? "" : ",", lg_stat_name(i), c[i]);
		first = false;
	}
	fprintf(f, "\n  }\n}\n");
	if (fclose(f) != 0)
		return -errno;
	return 0;
}
