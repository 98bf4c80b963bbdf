/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TCP sequence-number comparisons (RFC 9293 3.4), modulo
 * 2^32: a is before b when b - a, as a signed 32-bit number, is positive.
 * Also for timestamps (RFC 7323 PAWS compares TSvals the same way).
 */
#ifndef TFO_SEQ_H
#define TFO_SEQ_H

#include <stdbool.h>
#include <stdint.h>

static inline bool tfo_seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static inline bool tfo_seq_le(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }
static inline bool tfo_seq_gt(uint32_t a, uint32_t b) { return (int32_t)(a - b) > 0; }
static inline bool tfo_seq_ge(uint32_t a, uint32_t b) { return (int32_t)(a - b) >= 0; }

#endif /* TFO_SEQ_H */
