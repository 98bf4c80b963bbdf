/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the harness of the cookie unit tests (test_cookie_*.c, one
 * program, "cookie"): EAL, a key ring with its checker, a seeded PRNG.
 */
#ifndef TFO_TEST_COOKIE_HARNESS_H
#define TFO_TEST_COOKIE_HARNESS_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_memory.h>

#include "cookie/cookie.h"
#include "cookie/syncookie.h"
#include "tfo/log.h"

#include "cookie/siphash.h"
#include "test.h"

/* EAL started once (128 MB, --no-huge), the key logs quieted to WARNING. */
void
need_eal(void);

/* A key ring and a checker on it (the ring comes back in @p kr). */
struct tfo_cookie_ctx *
make_ctx(enum tfo_cookie_algo algo, const struct tfo_key *primary,
	 const struct tfo_key *backup, struct tfo_keyring **kr);

/* Free what make_ctx() made. */
void
free_ctx(struct tfo_cookie_ctx *c, struct tfo_keyring *kr);

/* xorshift64, one fixed seed for the whole program: the batch, key ring
 * and SYN cookie cases draw from it in that order. */
extern uint64_t rng_state;

uint64_t
rng(void);

#endif /* TFO_TEST_COOKIE_HARNESS_H */
