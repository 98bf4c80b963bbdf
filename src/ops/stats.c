/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: counter names and aggregation.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "ops/stats.h"

struct tfo_stat_desc {
	const char *name;
	const char *help;
	int gauge;
};

#define TFO_KIND_C 0
#define TFO_KIND_G 1
#define TFO_X_DESC(name_, kind_, help_) \
	[TFO_STAT_##name_] = { #name_, help_, TFO_KIND_##kind_ },
#define TFO_X_DROP(name_, help_) \
	[TFO_STAT_PKT_DROP_BASE + TFO_PKT_DROP_##name_] = { "drop_" #name_, help_, 0 },

static const struct tfo_stat_desc tfo_stat_descs[TFO_STAT_MAX] = {
	TFO_STATS_ALL(TFO_X_DESC)
	[TFO_STAT_PKT_DROP_BASE] = { "drop_none", "unused", 0 },
	TFO_PKT_DROP_REASONS(TFO_X_DROP)
};

const char *
tfo_stats_name(unsigned int id)
{
	return id < TFO_STAT_MAX ? tfo_stat_descs[id].name : "?";
}

const char *
tfo_stats_help(unsigned int id)
{
	return id < TFO_STAT_MAX ? tfo_stat_descs[id].help : "?";
}

int
tfo_stats_is_gauge(unsigned int id)
{
	return id < TFO_STAT_MAX ? tfo_stat_descs[id].gauge : 0;
}

int
tfo_stats_lookup(const char *name)
{
	for (unsigned int i = 0; i < TFO_STAT_MAX; i++)
		if (strcmp(tfo_stat_descs[i].name, name) == 0)
			return (int)i;
	return -ENOENT;
}

void
tfo_stats_accumulate(struct tfo_stats *dst, const struct tfo_stats *src)
{
	for (unsigned int i = 0; i < TFO_STAT_MAX; i++)
		dst->c[i] += src->c[i];
	for (unsigned int i = 0; i < TFO_SVC_STATS_MAX; i++)
		dst->svc[i] += src->svc[i];
}

void
tfo_stats_dump(FILE *f, const char *prefix, const struct tfo_stats *s)
{
	for (unsigned int i = 0; i < TFO_STAT_MAX; i++)
		if (s->c[i] != 0)
			fprintf(f, "%s%s %" PRIu64 "\n", prefix,
				tfo_stat_descs[i].name, s->c[i]);
}

void
tfo_stats_dump_svc(FILE *f, const char *prefix, const struct tfo_stats *s,
		   const char *const *names, unsigned int nb)
{
	for (unsigned int i = 0; i < nb && i < TFO_SVC_STATS_MAX; i++)
		if (s->svc[i] != 0)
			fprintf(f, "%s%s %" PRIu64 "\n", prefix, names[i], s->svc[i]);
}

/* ---- accounting (stats.h) ---------------------------------------------- */

int
tfo_stats_is_frame_drop(unsigned int id)
{
	switch (id) {
#define TFO_X_CASE(name_) case TFO_STAT_##name_:
	TFO_STATS_FRAME_DROPS(TFO_X_CASE)
#undef TFO_X_CASE
		return 1;
	default:
		return id > TFO_STAT_PKT_DROP_BASE && id < TFO_STAT_MAX;
	}
}

bool
tfo_stats_account(const struct tfo_stats *s, struct tfo_acct *a)
{
	const uint64_t *c = s->c;

	memset(a, 0, sizeof(*a));
	a->rx = c[TFO_STAT_rx_pkts] + c[TFO_STAT_ctrl_rx];
	a->delivered = c[TFO_STAT_rx_delivered];
	for (unsigned int i = 0; i < TFO_STAT_MAX; i++)
		if (tfo_stats_is_frame_drop(i))
			a->dropped += c[i];
	a->to_control = c[TFO_STAT_to_control];
	a->rx_unaccounted = (int64_t)(a->rx - a->delivered - a->dropped - a->to_control);
	a->tx = c[TFO_STAT_tx_queued] + c[TFO_STAT_tx_relay_in];
	a->tx_sent = c[TFO_STAT_tx_pkts];
	a->tx_dropped = c[TFO_STAT_tx_drop_full] + c[TFO_STAT_relay_drop_full];
	a->tx_relayed = c[TFO_STAT_ctrl_relayed];
	a->tx_unaccounted = (int64_t)(a->tx - a->tx_sent - a->tx_dropped - a->tx_relayed);
	return a->rx_unaccounted == 0 && a->tx_unaccounted == 0;
}

void
tfo_acct_format(const struct tfo_acct *a, char *buf, size_t len)
{
	snprintf(buf, len,
		 "rx %" PRIu64 " = delivered %" PRIu64 " + dropped %" PRIu64
		 " + to_control %" PRIu64 " (unaccounted %" PRId64 "), tx %" PRIu64
		 " = sent %" PRIu64 " + dropped %" PRIu64 " + relayed %" PRIu64
		 " (unaccounted %" PRId64 ")",
		 a->rx, a->delivered, a->dropped, a->to_control, a->rx_unaccounted,
		 a->tx, a->tx_sent, a->tx_dropped, a->tx_relayed, a->tx_unaccounted);
}
