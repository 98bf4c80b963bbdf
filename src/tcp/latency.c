/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the server-side latency histograms (tcp/latency.h).
 */
#include <string.h>

#include "tcp/access_log.h"
#include "tcp/latency.h"

void
tfo_lat_init(struct tfo_lat *l, uint64_t tsc_hz)
{
	struct tfo_alog_src *alog = l->alog;

	memset(l, 0, sizeof(*l));
	l->alog = alog;
	/* us per tick in fixed point, rounded up: a whole number of
	 * microseconds' ticks gives that number, not one less; at most
	 * 0.01 % over from 1 GHz on */
	l->mul = tsc_hz != 0 ? ((UINT64_C(1000000) << TFO_LAT_MUL_SHIFT) + tsc_hz - 1) /
		 tsc_hz : 0;
}

void
tfo_lat_flush(struct tfo_lat *l, uint64_t now)
{
	uint64_t mul = l->mul, d = now - l->t_rx;
	unsigned int b = tfo_lat_bucket(d, mul);

	/* every request of the poll completed at t_rx: one delay for all */
	l->count[TFO_LAT_REQ][b] += l->npend;
	l->sum_tsc[TFO_LAT_REQ] += d * l->npend;
	l->count[TFO_LAT_SYN][b] += l->nsyn_now;
	l->sum_tsc[TFO_LAT_SYN] += d * l->nsyn_now;
	for (uint32_t i = 0; i < l->nold; i++) {
		uint64_t ds = d + l->old_age[i];

		l->count[TFO_LAT_SYN][tfo_lat_bucket(ds, mul)]++;
		l->sum_tsc[TFO_LAT_SYN] += ds;
	}
	if (l->alog != NULL && l->alog->nstage != 0)
		tfo_alog_src_flush(l->alog, l, now);
	l->npend = 0;
	l->nsyn_now = 0;
	l->nold = 0;
}

uint64_t
tfo_lat_quantile_us(const uint64_t counts[TFO_LAT_NB], double q)
{
	uint64_t n = 0, acc = 0;

	for (unsigned int b = 0; b < TFO_LAT_NB; b++)
		n += counts[b];
	if (n == 0)
		return 0;
	for (unsigned int b = 0; b < TFO_LAT_NB_LE; b++) {
		acc += counts[b];
		if ((double)acc >= q * (double)n)
			return tfo_lat_le_us(b);
	}
	return UINT64_MAX;
}

void
tfo_lat_accumulate(struct tfo_lat *dst, const struct tfo_lat *src)
{
	dst->mul = src->mul;
	for (unsigned int k = 0; k < TFO_LAT_KINDS; k++) {
		for (unsigned int b = 0; b < TFO_LAT_NB; b++)
			dst->count[k][b] += src->count[k][b];
		dst->sum_tsc[k] += src->sum_tsc[k];
	}
}

uint64_t
tfo_lat_samples(const struct tfo_lat *l, enum tfo_lat_kind k)
{
	uint64_t n = 0;

	for (unsigned int b = 0; b < TFO_LAT_NB; b++)
		n += l->count[k][b];
	return n;
}

const char *
tfo_lat_kind_name(enum tfo_lat_kind k)
{
	return k == TFO_LAT_SYN ? "syn_to_response" : "request_to_response";
}
