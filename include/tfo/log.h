/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: logging through one registered rte_log type (user.tfo).
 *
 * Raise its level with the EAL option --log-level=user.tfo:debug.
 * Hot paths log only through TFO_LOG_RATELIMIT.
 */
#ifndef TFO_LOG_H
#define TFO_LOG_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_log.h>

#ifdef __cplusplus
extern "C" {
#endif

extern int tfo_logtype;

#define TFO_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, tfo_logtype, "tfo: " fmt "\n", ##__VA_ARGS__)

/**
 * At most one line per second from this call site (per thread). Lines
 * suppressed meanwhile are counted in the next one.
 */
#define TFO_LOG_RATELIMIT(level, fmt, ...) do { \
	static __thread uint64_t tfo_rl_next_; \
	static __thread uint64_t tfo_rl_missed_; \
	uint64_t tfo_rl_now_ = rte_get_tsc_cycles(); \
	if (tfo_rl_now_ >= tfo_rl_next_) { \
		TFO_LOG(level, fmt " (%" PRIu64 " similar suppressed)", \
			##__VA_ARGS__, tfo_rl_missed_); \
		tfo_rl_missed_ = 0; \
		tfo_rl_next_ = tfo_rl_now_ + rte_get_tsc_hz(); \
	} else { \
		tfo_rl_missed_++; \
	} \
} while (0)

/**
 * The set-up functions' way to say why they failed: format one line into
 * @p err (nothing if NULL). @return -EINVAL, so that a caller can
 * `return tfo_errmsg(err, errlen, ...)`.
 */
int tfo_errmsg(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif /* TFO_LOG_H */
