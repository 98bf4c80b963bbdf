/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: what rte_eal_init reports badly, checked before it runs.
 * Without privileges the EAL goes on and a PMD fails deep in its probe
 * (net_tap's TUNSETIFF "Operation not permitted", then "no such DPDK
 * device"); with no free hugepages it says "Permission denied"; with a
 * --file-prefix a live process holds it says "Success". Each is one line
 * here, naming the fix, before the EAL creates anything (no run
 * directory left behind). Start-up only.
 */
#ifndef TFO_EAL_CHECK_H
#define TFO_EAL_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What the start needs beyond the EAL arguments themselves. */
struct tfo_eal_needs {
	bool net_admin;		/**< a net_tap or net_af_xdp port: CAP_NET_ADMIN */
	uint32_t pages;		/**< 2 MiB hugepages the plan needs (tfo_mem_plan) */
};

/**
 * Check EAL arguments @p argv[1..argc-1] against this process and host:
 * CAP_NET_ADMIN when @p n->net_admin; without --no-huge, a hugetlbfs mount
 * we may write and free hugepages; unless --no-shconf, --in-memory or
 * --proc-type secondary/auto, no live process holding the --file-prefix's
 * config lock (its PID named).
 * @p proc is "/proc" and @p sys "/sys" (other roots for tests).
 *
 * @return 0, or a negative errno with one line in @p err naming the fix:
 *   -EPERM (privileges), -ENOMEM (hugepages), -EBUSY (prefix in use).
 */
int tfo_eal_check(int argc, char *const argv[], const struct tfo_eal_needs *n,
		  const char *proc, const char *sys, char *err, size_t errlen);

/** A hint for an rte_eal_init failure the check did not foresee. */
const char *tfo_eal_fail_hint(int rte_err);

#ifdef __cplusplus
}
#endif

#endif /* TFO_EAL_CHECK_H */
