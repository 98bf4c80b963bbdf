/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: TFO cookies (RFC 7413 section 4.1); SYN cookies are in
 * syncookie.h.
 *
 * A per-lcore checker that validates or generates the cookies of a whole
 * burst in one call (one multi-buffer ECB pass of ipsec-mb per key), with
 * the keys of a key ring (cookie/keyring.h), and the SYN cookie codec.
 */
#ifndef TFO_COOKIE_H
#define TFO_COOKIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cookie/keyring.h"
#include "net/pkt.h"
#include "net/tcpopt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest burst one tfo_cookie_check_burst() call accepts. */
#define TFO_COOKIE_BURST_MAX 64

/* ---- per-lcore checker ------------------------------------------------- */

struct tfo_cookie_ctx;

/** Bytes one checker (tfo_cookie_ctx_create) allocates: the checker and
 *  its ipsec-mb manager. */
size_t tfo_cookie_ctx_memory(void);

/**
 * A checker for one lcore: its own ipsec-mb manager and expanded keys on
 * @p socket_id. Not thread-safe: one lcore uses it.
 */
struct tfo_cookie_ctx *tfo_cookie_ctx_create(struct tfo_keyring *kr,
					     int socket_id);
void tfo_cookie_ctx_free(struct tfo_cookie_ctx *c);

/**
 * One cookie of a batch. The addresses are struct tfo_addr as tfo_pkt
 * holds them (IPv4 in the first 4 bytes); all pointers stay valid for the
 * call; @p cookie is read only when cookie_len is TFO_COOKIE_LEN.
 */
struct tfo_cookie_req {
	uint8_t family;			/**< AF_INET / AF_INET6 */
	uint8_t cookie_len;		/**< length of @p cookie (check only) */
	const struct tfo_addr *client;	/**< the SYN's source */
	const struct tfo_addr *server;	/**< the SYN's destination */
	const uint8_t *cookie;		/**< the cookie the client sent */
};

enum tfo_cookie_verdict {
	TFO_COOKIE_BAD = 0,
	TFO_COOKIE_OK_PRIMARY = 1,
	TFO_COOKIE_OK_BACKUP = 2,	/**< count TCPFastOpenPassiveAltKey */
};

/**
 * Check @p n (<= TFO_COOKIE_BURST_MAX) cookies: one batched pass with the
 * primary key, a second one with the backup key over the misses only.
 * A cookie whose length is not TFO_COOKIE_LEN, or a family other than
 * AF_INET/AF_INET6, is BAD. Comparison is constant-time. Picks up a key
 * change at its start (if the control core is in the middle of writing
 * one, this burst uses the previous keys).
 *
 * aes128: the blocks of all requests (IPv4 blocks and the first CBC-MAC
 * block of IPv6) go to ONE ipsec-mb ECB job, the second IPv6 blocks to a
 * second; the same for the backup key over the misses. (A job of 1 or 2
 * blocks is done with AES-NI instead: cheaper than the job's fixed cost.) siphash-linux: the
 * IPv4 and IPv6 requests run in SIMD lanes (AVX-512 8 lanes, AVX2 4 lanes,
 * or scalar, by CPU; see tfo_cookie_ctx_set_simd).
 *
 * @return 0 (verdicts in @p out[i]), -EINVAL for bad arguments, or -EIO if
 *         ipsec-mb failed a job (all verdicts BAD: fail closed).
 */
int tfo_cookie_check_burst(struct tfo_cookie_ctx *c,
			   const struct tfo_cookie_req *reqs, unsigned int n,
			   uint8_t *out);

/**
 * Generate the primary-key cookies (TFO_COOKIE_LEN bytes each) of @p n
 * (<= TFO_COOKIE_BURST_MAX) requests in one pass (cookie/cookie_len of the
 * requests are ignored). @return 0, -EINVAL or -EIO as check_burst.
 */
int tfo_cookie_gen_burst(struct tfo_cookie_ctx *c,
			 const struct tfo_cookie_req *reqs, unsigned int n,
			 uint8_t (*out)[TFO_COOKIE_LEN]);

/**
 * One cookie under an explicit key, no batching: the reference the batch
 * is tested against, and what tfo-keytool prints. Needs no EAL and no
 * ipsec-mb (AES-NI / scalar SipHash).
 * @return 0, -EINVAL (family, algo), or -ENOTSUP (aes128 on a CPU without
 *         AES-NI).
 */
int tfo_cookie_compute(enum tfo_cookie_algo algo, const struct tfo_key *k,
		       int family, const struct tfo_addr *client,
		       const struct tfo_addr *server,
		       uint8_t out[TFO_COOKIE_LEN]);

/* ---- one at a time, and diagnostics (control core, tests, tfo-bench) ---- */

/**
 * Check one cookie with @p c's keys, without ipsec-mb (AES-NI, scalar
 * SipHash): cheaper than a batch of one on the control core. Same rules as
 * tfo_cookie_check_burst. @return an enum tfo_cookie_verdict.
 */
int tfo_cookie_check_one(struct tfo_cookie_ctx *c,
			 const struct tfo_cookie_req *r);

/** SIMD engine of the siphash-linux batch (the aes128 batch is ipsec-mb). */
enum tfo_cookie_simd {
	TFO_COOKIE_SIMD_AUTO = 0,	/**< best the CPU has (the default) */
	TFO_COOKIE_SIMD_SCALAR,
	TFO_COOKIE_SIMD_AVX2,		/**< 4 lanes per ymm */
	TFO_COOKIE_SIMD_AVX512,		/**< 8 lanes per zmm */
};

/** Force an engine (tests, benchmarks). @return 0 or -ENOTSUP. */
int tfo_cookie_ctx_set_simd(struct tfo_cookie_ctx *c, enum tfo_cookie_simd s);

/** What the batch of @p c runs on, e.g. "ipsec-mb 1.3.0 avx512", "siphash avx512". */
const char *tfo_cookie_ctx_engine(const struct tfo_cookie_ctx *c);

/** Generation of the keys @p c used in its last call. */
uint64_t tfo_cookie_ctx_generation(const struct tfo_cookie_ctx *c);

/**
 * Encrypt @p n (1..2*TFO_COOKIE_BURST_MAX) 16-byte blocks with AES-128
 * under @p k in ONE ipsec-mb ECB job of @p c's manager: the function the
 * batch uses, exposed for the AES known-answer tests and the raw-ECB
 * benchmark. @p in and @p out: 16-byte aligned, may be equal.
 * @return 0, -EINVAL, or -EIO.
 */
int tfo_cookie_ecb(struct tfo_cookie_ctx *c, const struct tfo_key *k,
		   const uint8_t *in, uint8_t *out, unsigned int n);

#ifdef __cplusplus
}
#endif

#endif /* TFO_COOKIE_H */
