/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the cookie tests' harness (cookie_harness.h).
 */
#include "cookie_harness.h"

void
need_eal(void)
{
	static int done;

	if (!done) {
		tfo_test_eal_init("test_cookie", 128, NULL);
		/* key installs log at INFO: thousands in the rotation test */
		rte_log_set_level(tfo_logtype, RTE_LOG_WARNING);
		done = 1;
	}
}

/* A key ring and a checker on it (the ring comes back in @p kr). */
struct tfo_cookie_ctx *
make_ctx(enum tfo_cookie_algo algo, const struct tfo_key *primary,
	 const struct tfo_key *backup, struct tfo_keyring **kr)
{
	*kr = tfo_keyring_create(algo, primary, backup, SOCKET_ID_ANY);
	return *kr == NULL ? NULL : tfo_cookie_ctx_create(*kr, SOCKET_ID_ANY);
}

void
free_ctx(struct tfo_cookie_ctx *c, struct tfo_keyring *kr)
{
	tfo_cookie_ctx_free(c);
	tfo_keyring_free(kr);
}

uint64_t rng_state = 0x243f6a8885a308d3ull;

uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}
