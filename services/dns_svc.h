/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service itself, private to its three files: its
 * configuration (dns_conf.c: the keys of [service dns], read with no
 * DPDK), its state (dns.c: create, reload, reclaim, destroy) and its hot
 * path (dns_handle.c: handle()), and the counters they share. The top of
 * the service: it reads every other dns header, none reads it.
 */
#ifndef TFO_DNS_SVC_H
#define TFO_DNS_SVC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_lcore.h>

#include "tfo/service.h"

#include "dns_cookie.h"
#include "dns_load.h"
#include "dns_rrl.h"
#include "dns_wire.h"
#include "dns_xfr.h"
#include "dns_zone.h"
#include "svc_retire.h"

#define DNS_MAX_ZONES 64
#define DNS_RETIRED 4
#define DNS_ZC_MIN 512		/* smaller blocks are copied */
/* OPT with keepalive, EDE and a cookie */
#define DNS_OPT_RESERVE (DNS_OPT_LEN + 12 + DNS_COOKIE_OPT_LEN)
#define DNS_MIN_BUF (2 + DNS_HDR + DNS_NAME_MAX + 4 + DNS_OPT_RESERVE)

/** The service's counters: dns_counters[] (dns.c) names each. */
enum dns_ctr {
	C_RCODE_NOERROR, C_RCODE_FORMERR, C_RCODE_SERVFAIL, C_RCODE_NXDOMAIN,
	C_RCODE_NOTIMP, C_RCODE_REFUSED, C_RCODE_BADVERS, C_RCODE_BADCOOKIE,
	C_QTYPE_A, C_QTYPE_AAAA, C_QTYPE_NS, C_QTYPE_CNAME, C_QTYPE_SOA,
	C_QTYPE_PTR, C_QTYPE_MX, C_QTYPE_TXT, C_QTYPE_SRV, C_QTYPE_CAA,
	C_QTYPE_ANY, C_QTYPE_AXFR, C_QTYPE_IXFR, C_QTYPE_OTHER,
	C_TRUNCATED, C_ZERO_COPY, C_REJECT,
	C_RCODE_NOTAUTH, C_NSID, C_CHAOS, C_TSIG_BADKEY, C_TCP_TOO_LONG,
	C_RRL_LIMITED, C_RRL_SLIPPED, C_RRL_DROPPED, C_RRL_EVICTED, C_RRL_EXEMPT,
	C_COOKIE_CLIENT_ONLY, C_COOKIE_VALID, C_COOKIE_BAD, C_COOKIE_FORMERR,
	C_XFR_NOTIFY, C_XFR_NOTIFY_REFUSED,
	C_XFR_FIRST,		/* the refresh thread's, enum dns_xfr_ctr */
	C_MAX = C_XFR_FIRST + DNS_XC_MAX
};

/** What [service dns] says (dns_conf_read). */
struct dns_conf {
	struct dns_zone_src *zones;	/* malloc'ed, nb_zones */
	unsigned int nb_zones;
	uint32_t idle_s;
	uint32_t edns_size;
	uint32_t drain_s;
	uint8_t nsid[DNS_NSID_MAX];	/* nsid_len 0: none */
	uint16_t nsid_len;
	char identity[256];		/* "": REFUSED */
	char version[256];
	struct dns_rrl_conf rrl;
	bool cookies;
	char cookie_file[4096];	/* resolved against base_dir */
	struct dns_secondary_src *sec;	/* nb_sec: `secondary`; malloc'ed, in
					 * rte_malloc once created (as zones) */
	unsigned int nb_sec;
};

/** The service instance: the zone set serving now and the replaced ones. */
struct dns_svc {
	struct dns_set *cur;		/* atomic: release store, acquire load */
	struct dns_secondary *sec;		/* secondary zones, or NULL: none */
	uint32_t idle_ms;
	uint16_t port;
	uint32_t max_request;		/* [tcp] max_request, 0: unknown */
	struct dns_conf conf;		/* for reload(); zones in rte_malloc */
	int socket;
	struct svc_retired retired[DNS_RETIRED];	/* struct dns_set */
	/* RRL: each lcore's own buckets (NULL: off, or not an EAL lcore),
	 * written by that lcore only */
	struct dns_rrl_table *rrl[RTE_MAX_LCORE];
};

/* ------------------------------------------------------------------ */
/* configuration (dns_conf.c; no DPDK)                                 */

/** The service's keys and its repeat keys (every occurrence kept). */
extern const char *const dns_keys[];
extern const char *const dns_repeat_keys[];

/** check_key(): @p value of @p key is valid (its syntax only: zone files
 *  and key files are read by dns_check). @return 0 or -EINVAL and why. */
int dns_check_key(const char *key, const char *value, char *why, size_t whylen);
/** The section @p a into @p c (zones and secondaries malloc'ed: the
 *  caller frees them, also on failure). @return 0 or -EINVAL and why. */
int dns_conf_read(const struct tfo_service_args *a, struct dns_conf *c, char *why,
		  size_t whylen);
/** check(): the section, its zone files' and key file's syntax, before
 *  the EAL starts. @return 0 or -EINVAL and why. */
int dns_check(const struct tfo_service_args *a, char *why, size_t whylen);

/* ------------------------------------------------------------------ */
/* the hot path (dns_handle.c)                                         */

/** handle(): one message answered (the service API's contract,
 *  tfo/service.h); allocates nothing, takes no lock, logs nothing. */
enum tfo_svc_status dns_handle(const void *state, const struct tfo_svc_ctx *ctx,
			       const uint8_t *req, uint32_t len,
			       struct tfo_svc_resp *resp);

#endif /* TFO_DNS_SVC_H */
