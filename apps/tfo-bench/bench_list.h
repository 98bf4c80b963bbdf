/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench: "N,N,..." option values (the table sizes of a benchmark).
 */
#ifndef TFO_BENCH_LIST_H
#define TFO_BENCH_LIST_H

#include <stdint.h>
#include <stdlib.h>

/** Parse up to @p max comma-separated numbers of @p s into @p out.
 *  @return how many, 0 when @p s is not such a list. */
static inline unsigned int
tfo_bench_u32_list(const char *s, uint32_t *out, unsigned int max)
{
	unsigned int n = 0;

	while (*s != '\0' && n < max) {
		char *end;

		out[n] = (uint32_t)strtoul(s, &end, 0);
		if (end == s)
			return 0;
		n++;
		if (*end == '\0')
			break;
		if (*end != ',')
			return 0;
		s = end + 1;
	}
	return n;
}

#endif /* TFO_BENCH_LIST_H */
