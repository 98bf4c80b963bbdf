/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: service "dns", an authoritative DNS server over TCP
 * (RFC 7766) and UDP, from RFC 1035 master files loaded in memory.
 *
 *   [service dns]
 *   port = 53
 *   udp = on                 ; answer UDP on the port too
 *   zone = example.org:/etc/tfo/example.org.zone
 *   zone = example.net:example.net.zone    ; once per zone
 *   idle_timeout = 10        ; s: TCP idle timeout, announced by
 *                            ; edns-tcp-keepalive (RFC 7828); 1..6553
 *   edns_size = 1232         ; our EDNS UDP payload size; 512..4096
 *   reload_drain = 10        ; s a replaced zone set is kept at least
 *   nsid = fra-1             ; RFC 5001 NSID, to who asks; 0xHEX for bytes
 *   identity = fra-1         ; CH TXT id.server. and hostname.bind.
 *   version = tfo 1.0        ; CH TXT version.server. and version.bind.
 *   rate_limit = 0           ; UDP answers/s per source prefix and answer
 *                            ; class (response rate limiting, dns_rrl.h);
 *                            ; 0 = off
 *   rate_limit_burst = 0     ; answers at once; 0 = rate_limit
 *   slip = 2                 ; every Nth limited answer is a TC=1 one;
 *                            ; 0 = drop them all, 1 = slip them all
 *   rate_limit_table = 4096  ; buckets per lcore
 *   rate_limit_exempt = 198.51.100.0/24,2001:db8::/48   ; never limited
 *   cookies = off            ; on: DNS COOKIEs (RFC 7873, RFC 9018)
 *   cookie_secret_file = /etc/tfo/tfo.key   ; their secret's key file
 *                            ; (PRIMARY[,BACKUP]; may be [tfo] key_file)
 *
 *   secondary = example.com:192.0.2.1       ; a zone transferred from its
 *   secondary = example.net:2001:db8::1@5300 ; primary (AXFR, IXFR) and
 *                            ; refreshed on its SOA timers and on NOTIFY
 *
 * `zone` may be given once per zone (a repeat key: every occurrence is
 * kept); one value may also list several "origin:file" separated by blanks.
 *
 * Each handle() call answers one message: over TCP the first complete
 * one of the stream (2-byte length, consumed = its framed length, so
 * several queries in a segment and pipelined ones are answered in order);
 * over UDP the datagram, within the client's EDNS payload size (512
 * without EDNS, our edns_size and the engine's udp_max at most): when the
 * answer does not fit, the additional section goes first, then TC=1 with
 * an empty answer (the client retries over TCP).
 *
 * A response is the header and the question written per request (the
 * question's case echoed) followed by the node's prebuilt block
 * (dns_load.c), sent without a copy when it is large and the plain OPT
 * suffices; the rest (wildcards, CNAME chains, referrals, NXDOMAIN) is
 * composed per request into the engine's buffer (dns_answer.c): zones
 * whose composed answers cannot fit it over TCP are refused at load
 * (dns_fits_tcp); one larger still (a CNAME chain) is a SERVFAIL over
 * TCP and a TC=1 over UDP. Pre-signed DNSSEC (dns_sec.c): with the DO
 * bit, signed zones' answers carry their RRSIGs and NSEC/NSEC3 proofs.
 *
 * Choices: NOTIMP for every opcode but QUERY and NOTIFY (UPDATE
 * included: this server takes no updates); NOTIFY (RFC 1996) for a
 * `secondary` zone from its primary's address is NOERROR with AA and
 * starts a refresh (dns_secondary.c), any other NOTIFY is REFUSED;
 * names of a secondary zone not transferred yet, or expired, SERVFAIL;
 * REFUSED for AXFR/IXFR, for classes other than IN and for names outside
 * the zones; FORMERR for malformed queries; a message shorter than a
 * header or with QR set gets no answer (UDP: dropped; TCP: reset).
 * CHAOS: TXT id.server./hostname.bind. (identity) and version.server./
 * version.bind. (version) when the key is set, REFUSED otherwise, as
 * knotd with the option empty. A TSIG record gets NOTAUTH with an
 * unsigned TSIG of error BADKEY (RFC 8945 5.2): we know no key. A TCP
 * message longer than the engine's [tcp] max_request would be a reset
 * (req_too_big): it is answered FORMERR (header only) as soon as its
 * header is in, and the connection closed (the engine has no limit per
 * service, and max_request cannot hold 65,535 bytes and their prefix).
 *
 * Cookies (dns_cookie.c): with `cookies = on` a query's COOKIE option
 * of a bad length is a FORMERR; a client cookie alone or with a server
 * cookie gets our server cookie back. A server cookie that does not
 * verify (or is out of time) is, as knotd's mod-cookies does it, a
 * BADCOOKIE with a fresh cookie over UDP (the client retries with it)
 * and a normal answer with a fresh cookie over TCP (the handshake
 * already proved the address). Queries without a cookie are answered as
 * before: nothing requires one.
 *
 * This file: the counters and the life cycle (create, reload, reclaim,
 * destroy). dns_conf.c reads the keys, dns_handle.c is handle(), and
 * dns_wire.h lists the service's headers, one per noun.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "tfo/log.h"
#include "tfo/service.h"

#include "dns_svc.h"

static const struct tfo_svc_counter dns_counters[C_MAX + 1] = {
	[C_RCODE_NOERROR] = { "dns_rcode_noerror", "answers NOERROR (NODATA and referrals included)" },
	[C_RCODE_FORMERR] = { "dns_rcode_formerr", "answers FORMERR (malformed query)" },
	[C_RCODE_SERVFAIL] = { "dns_rcode_servfail", "answers SERVFAIL (a composed answer larger than the engine's buffer)" },
	[C_RCODE_NXDOMAIN] = { "dns_rcode_nxdomain", "answers NXDOMAIN" },
	[C_RCODE_NOTIMP] = { "dns_rcode_notimp", "answers NOTIMP (opcode other than QUERY)" },
	[C_RCODE_REFUSED] = { "dns_rcode_refused", "answers REFUSED (outside the zones, AXFR/IXFR, class not IN)" },
	[C_RCODE_BADVERS] = { "dns_rcode_badvers", "answers BADVERS (EDNS version above 0)" },
	[C_RCODE_BADCOOKIE] = { "dns_rcode_badcookie", "answers BADCOOKIE (UDP, a server cookie that does not verify, with a fresh one)" },
	[C_QTYPE_A] = { "dns_qtype_a", "queries of type A" },
	[C_QTYPE_AAAA] = { "dns_qtype_aaaa", "queries of type AAAA" },
	[C_QTYPE_NS] = { "dns_qtype_ns", "queries of type NS" },
	[C_QTYPE_CNAME] = { "dns_qtype_cname", "queries of type CNAME" },
	[C_QTYPE_SOA] = { "dns_qtype_soa", "queries of type SOA" },
	[C_QTYPE_PTR] = { "dns_qtype_ptr", "queries of type PTR" },
	[C_QTYPE_MX] = { "dns_qtype_mx", "queries of type MX" },
	[C_QTYPE_TXT] = { "dns_qtype_txt", "queries of type TXT" },
	[C_QTYPE_SRV] = { "dns_qtype_srv", "queries of type SRV" },
	[C_QTYPE_CAA] = { "dns_qtype_caa", "queries of type CAA" },
	[C_QTYPE_ANY] = { "dns_qtype_any", "queries of type ANY (one RRset, RFC 8482)" },
	[C_QTYPE_AXFR] = { "dns_qtype_axfr", "AXFR queries (refused)" },
	[C_QTYPE_IXFR] = { "dns_qtype_ixfr", "IXFR queries (refused)" },
	[C_QTYPE_OTHER] = { "dns_qtype_other", "queries of another type" },
	[C_TRUNCATED] = { "dns_truncated", "UDP answers sent with TC=1 (larger than the client's payload size)" },
	[C_ZERO_COPY] = { "dns_zero_copy", "answers whose prebuilt block left without a copy" },
	[C_REJECT] = { "dns_reject", "messages not answered (shorter than a header, or a response)" },
	[C_RCODE_NOTAUTH] = { "dns_rcode_notauth", "answers NOTAUTH (a TSIG with a key we do not know)" },
	[C_NSID] = { "dns_nsid", "answers with our NSID option (asked, and the room for it)" },
	[C_CHAOS] = { "dns_chaos", "CH TXT id.server., hostname.bind., version.server., version.bind. answered" },
	[C_TSIG_BADKEY] = { "dns_tsig_badkey", "TSIG queries answered NOTAUTH with TSIG error BADKEY" },
	[C_TCP_TOO_LONG] = { "dns_tcp_too_long", "TCP messages longer than [tcp] max_request: FORMERR, then the connection closed" },
	[C_RRL_LIMITED] = { "dns_rrl_limited", "UDP answers over rate_limit (slipped or dropped)" },
	[C_RRL_SLIPPED] = { "dns_rrl_slipped", "limited answers sent as a minimal TC=1 answer (slip)" },
	[C_RRL_DROPPED] = { "dns_rrl_dropped", "limited answers not sent" },
	[C_RRL_EVICTED] = { "dns_rrl_evicted", "live rate-limit buckets replaced: rate_limit_table full" },
	[C_RRL_EXEMPT] = { "dns_rrl_exempt", "UDP answers to rate_limit_exempt sources (never limited)" },
	[C_COOKIE_CLIENT_ONLY] = { "dns_cookie_client_only", "queries with a client cookie alone (cookies = on): given a server cookie" },
	[C_COOKIE_VALID] = { "dns_cookie_valid", "queries with a valid server cookie of ours (cookies = on)" },
	[C_COOKIE_BAD] = { "dns_cookie_bad", "queries with a server cookie that does not verify or is out of time (cookies = on): given a fresh one" },
	[C_COOKIE_FORMERR] = { "dns_cookie_formerr", "queries with a COOKIE option of a bad length (cookies = on): FORMERR" },
	[C_XFR_NOTIFY] = { "dns_xfr_notify", "NOTIFY from a secondary zone's primary: NOERROR, a refresh started" },
	[C_XFR_NOTIFY_REFUSED] = { "dns_xfr_notify_refused", "NOTIFY REFUSED: not a secondary zone here, or not from its primary" },
	[C_XFR_FIRST + DNS_XC_OK] = { "dns_xfr_ok", "secondary zones transferred and served (AXFR or IXFR)" },
	[C_XFR_FIRST + DNS_XC_IXFR] = { "dns_xfr_ixfr", "... of them by IXFR diffs (RFC 1995)" },
	[C_XFR_FIRST + DNS_XC_UPTODATE] = { "dns_xfr_uptodate", "refreshes that found the primary's serial the one served" },
	[C_XFR_FIRST + DNS_XC_FAILED_CONNECT] = { "dns_xfr_failed_connect", "transfers failed: no TCP connection to the primary (the old zone serves)" },
	[C_XFR_FIRST + DNS_XC_FAILED_TRUNCATED] = { "dns_xfr_failed_truncated", "transfers failed: the stream ended or stalled before the closing SOA" },
	[C_XFR_FIRST + DNS_XC_FAILED_MESSAGE] = { "dns_xfr_failed_message", "transfers failed: a malformed message, another ID, a record outside the zone" },
	[C_XFR_FIRST + DNS_XC_FAILED_RCODE] = { "dns_xfr_failed_rcode", "transfers failed: the primary answered an error (REFUSED, NOTAUTH...)" },
	[C_XFR_FIRST + DNS_XC_FAILED_ZONE] = { "dns_xfr_failed_zone", "transfers failed: the records make no zone this server serves" },
	[C_XFR_FIRST + DNS_XC_FAILED_SERIAL] = { "dns_xfr_failed_serial", "transfers failed: the primary's serial is older than the one served" },
	[C_XFR_FIRST + DNS_XC_EXPIRED] = { "dns_xfr_expired", "secondary zones past their SOA expire: answered SERVFAIL" },
	[C_MAX] = { NULL, NULL },
};

/* ------------------------------------------------------------------ */
/* life cycle                                                          */

static void
dns_destroy(void *state)
{
	struct dns_svc *sv = state;

	if (sv == NULL)
		return;
	/* the refresh thread publishes: stopped first */
	dns_secondary_destroy(sv->sec);
	dns_set_free(sv->cur);
	for (unsigned int i = 0; i < DNS_RETIRED; i++)
		dns_set_free(sv->retired[i].st);
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		rte_free(sv->rrl[i]);
	rte_free(sv->conf.zones);
	rte_free(sv->conf.sec);
	rte_free(sv);
}

/*
 * RRL's tables, one per EAL lcore (handle() runs on the workers and the
 * control lcore), sized now and never grown: the memory is bounded by
 * rate_limit_table and the hot path allocates nothing.
 */
static int
dns_rrl_create(struct dns_svc *sv, const struct tfo_service_args *a)
{
	const struct dns_rrl_conf *c = &sv->conf.rrl;
	size_t sz = dns_rrl_table_size(c->table);
	unsigned int lc;

	if (c->rate == 0 || !a->udp)
		return 0;
	RTE_LCORE_FOREACH(lc) {
		sv->rrl[lc] = rte_zmalloc_socket("tfo_dns_rrl", sz, RTE_CACHE_LINE_SIZE,
						 (int)rte_lcore_to_socket_id(lc));
		if (sv->rrl[lc] == NULL) {
			TFO_LOG(ERR, "dns: rate_limit_table = %u: no memory for lcore %u's "
				"%zu bytes", c->table, lc, sz);
			return -ENOMEM;
		}
		/* the seed keeps the sets from being chosen by the sender */
		dns_rrl_table_init(sv->rrl[lc], c, rte_get_tsc_hz(), rte_rand(), c->table);
	}
	TFO_LOG(INFO, "dns: port %u: UDP rate_limit %u/s, burst %u, slip %u per /24 "
		"and /56, %u buckets per lcore, %u exempt prefixes", a->port, c->rate,
		c->burst != 0 ? c->burst : c->rate, c->slip,
		(sv->rrl[rte_get_main_lcore()]->mask + 1) * DNS_RRL_WAYS, c->nb_exempt);
	return 0;
}

static int dns_publish(void *state, char *msg, size_t msglen);

/*
 * The engine's TCP response buffer (the larger of 2048 and [tcp]
 * max_request: tcp/engine.c) must hold every answer composed per query,
 * or it would leave as a SERVFAIL: refused at start and reload, with the
 * size to set. Unknown max_request (0: plugins' hosts): not checked.
 */
static int
dns_fits_tcp(const struct dns_svc *sv, const struct dns_set *s, char *why, size_t whylen)
{
	uint32_t cap = RTE_MAX(2048u, sv->max_request);
	uint32_t need = 2 + DNS_HDR + DNS_NAME_MAX + 4 + s->max_composed + DNS_OPT_RESERVE +
			4 + sv->conf.nsid_len;

	if (sv->max_request == 0 || need <= cap)
		return 0;
	tfo_errmsg(why, whylen, "a referral, wildcard or denial of these zones (DO=1 "
		   "included) can take %u bytes over TCP, more than the engine's response "
		   "buffer of %u (the larger of 2048 and [tcp] max_request): set [tcp] "
		   "max_request = %u", need, cap, need);
	return -E2BIG;
}

/*
 * The instance on @p a's socket with configuration @p c, whose malloc'ed
 * zones and secondaries move to DPDK memory like the rest of the state
 * (LeakSanitizer does not scan it; reload() reads them). @p c's arrays
 * are freed either way. @return NULL: no memory.
 */
static struct dns_svc *
dns_svc_alloc(const struct tfo_service_args *a, struct dns_conf *c)
{
	struct dns_svc *sv = rte_zmalloc_socket("tfo_dns_svc", sizeof(*sv), RTE_CACHE_LINE_SIZE,
						a->socket_id);

	if (sv != NULL) {
		sv->conf = *c;
		sv->conf.zones = rte_malloc_socket("tfo_dns_conf", (c->nb_zones + 1u) *
						   sizeof(*c->zones), 0, a->socket_id);
		sv->conf.sec = rte_malloc_socket("tfo_dns_conf", (c->nb_sec + 1u) *
						 sizeof(*c->sec), 0, a->socket_id);
		if (sv->conf.zones == NULL || sv->conf.sec == NULL) {
			dns_destroy(sv);
			sv = NULL;
		}
	}
	if (sv != NULL) {
		memcpy(sv->conf.zones, c->zones, c->nb_zones * sizeof(*c->zones));
		memcpy(sv->conf.sec, c->sec, c->nb_sec * sizeof(*c->sec));
	}
	free(c->zones);
	free(c->sec);
	return sv;
}

static int
dns_create(const struct tfo_service_args *a, void **state)
{
	char why[PATH_MAX + 256] = "";
	struct dns_conf c;
	struct dns_svc *sv;
	int rc;

	rc = dns_conf_read(a, &c, why, sizeof(why));
	if (rc < 0) {
		TFO_LOG(ERR, "dns: %s", why);
		free(c.zones);
		free(c.sec);
		return -EINVAL;
	}
	sv = dns_svc_alloc(a, &c);
	if (sv == NULL)
		return -ENOMEM;
	sv->socket = a->socket_id;
	sv->port = a->port;
	sv->max_request = a->max_request;
	sv->idle_ms = c.idle_s * 1000;
	if (c.nb_sec != 0) {
		sv->sec = dns_secondary_create(sv->conf.sec, c.nb_sec, dns_publish, sv);
		if (sv->sec == NULL) {
			dns_destroy(sv);
			return -ENOMEM;
		}
	}
	/* the secondary zones join once transferred (SERVFAIL until then) */
	rc = dns_secondary_build(sv->sec, sv->conf.zones, c.nb_zones, a->socket_id,
			   (uint16_t)c.edns_size, &sv->cur, why, sizeof(why));
	if (rc == 0)
		rc = dns_fits_tcp(sv, sv->cur, why, sizeof(why));
	if (rc == 0 && c.cookies)
		rc = dns_cookie_file_read(c.cookie_file, NULL, &sv->cur->cookie, why,
					  sizeof(why));
	if (rc < 0) {
		TFO_LOG(ERR, "dns: %s", why);
		dns_destroy(sv);
		return rc;
	}
	sv->cur->gen = 1;
	TFO_LOG(INFO, "dns: port %u: %u zones, %u records, %u names, %u prebuilt answers",
		a->port, sv->cur->nb_zones, sv->cur->nb_records, sv->cur->nb_nodes,
		sv->cur->nb_blocks);
	rc = dns_rrl_create(sv, a);
	if (rc < 0) {
		dns_destroy(sv);
		return rc;
	}
	if (c.cookies) {
		char fp[17];

		/* the fleet's check: the same fingerprint on every member */
		dns_cookie_fingerprint(&sv->cur->cookie, fp);
		TFO_LOG(INFO, "dns: port %u: cookies on, made with key %s of %s%s", a->port,
			fp, c.cookie_file, sv->cur->cookie.has_prev ?
			" (its previous key accepted too)" : "");
	}
	if (sv->sec != NULL) {
		rc = dns_secondary_start(sv->sec);
		if (rc < 0) {
			TFO_LOG(ERR, "dns: port %u: no refresh thread for the secondary "
				"zones: %s", a->port, strerror(-rc));
			dns_destroy(sv);
			return rc;
		}
		TFO_LOG(INFO, "dns: port %u: %u secondary zones, transferred from their "
			"primaries now (SERVFAIL until then)", a->port, c.nb_sec);
	}
	*state = sv;
	return 0;
}

/* A new zone set from the files and the secondary zones held, published
 * as the current one (reload(), and the refresh thread after a transfer);
 * the secondaries' lock is held. */
static int
dns_publish(void *state, char *msg, size_t msglen)
{
	struct dns_svc *sv = state;
	struct dns_set *old = sv->cur, *st = NULL;
	char why[PATH_MAX + 256] = "";
	int slot = svc_retire_slot(sv->retired, DNS_RETIRED);
	char fp[17];
	int rc;

	if (slot < 0) {
		snprintf(msg, msglen, "dns: new zones refused, the old ones serve: %u "
			 "earlier sets are still draining (reload_drain = %u s): retry later",
			 DNS_RETIRED, sv->conf.drain_s);
		return -EBUSY;
	}
	rc = dns_secondary_build(sv->sec, sv->conf.zones, sv->conf.nb_zones, sv->socket,
			   (uint16_t)sv->conf.edns_size, &st, why, sizeof(why));
	if (rc == 0 && (rc = dns_fits_tcp(sv, st, why, sizeof(why))) < 0)
		dns_set_free(st);
	/* the cookie secrets are read again with the zones: a rotated key
	 * file (runbook section 6) takes effect on the same reload */
	if (rc == 0 && sv->conf.cookies) {
		rc = dns_cookie_file_read(sv->conf.cookie_file, &old->cookie, &st->cookie,
					  why, sizeof(why));
		if (rc < 0)
			dns_set_free(st);
	}
	if (rc < 0) {
		snprintf(msg, msglen, "dns: new zones refused, the old ones serve: %s", why);
		return rc;
	}
	st->gen = old->gen + 1;
	svc_retire_put(&sv->retired[slot], old, sv->conf.drain_s);
	/* from here on every new query is answered from st */
	__atomic_store_n(&sv->cur, st, __ATOMIC_RELEASE);
	fp[0] = '\0';
	if (sv->conf.cookies)
		dns_cookie_fingerprint(&st->cookie, fp);
	snprintf(msg, msglen, "dns: port %u: zone set generation %" PRIu64 " serves "
		 "(%u zones, %u records%s%s); generation %" PRIu64 " is freed in %u s or "
		 "once no connection sends from it", sv->port, st->gen, st->nb_zones,
		 st->nb_records, fp[0] ? ", cookies made with key " : "", fp, old->gen,
		 sv->conf.drain_s);
	return 1;
}

static int
dns_reload(void *state, char *msg, size_t msglen)
{
	struct dns_svc *sv = state;
	int rc;

	dns_secondary_lock(sv->sec);
	rc = dns_publish(sv, msg, msglen);
	dns_secondary_unlock(sv->sec);
	return rc;
}

static bool
dns_set_sent(const void *state, tfo_svc_sends_from_fn sends_from, void *arg)
{
	const struct dns_set *st = state;

	return sends_from(arg, st->blocks, st->blocks + st->nb_blocks);
}

/* on the control lcore's loop: rate-limited as every line there
 * (tests/log_audit.py) */
static void
dns_retired_free(void *state, void *ctx)
{
	const struct dns_svc *sv = ctx;
	struct dns_set *st = state;

	TFO_LOG_RATELIMIT(INFO, "dns: port %u: zone set generation %" PRIu64
			  " freed", sv->port, st->gen);
	dns_set_free(st);
}

static void
dns_retired_held(const void *state, void *ctx)
{
	const struct dns_svc *sv = ctx;
	const struct dns_set *st = state;

	TFO_LOG_RATELIMIT(WARNING, "dns: port %u: zone set generation %" PRIu64
		" kept past reload_drain (%u s): connections still send "
		"from it", sv->port, st->gen, sv->conf.drain_s);
}

static const struct svc_retire_ops dns_retire_ops = {
	.sent = dns_set_sent,
	.free = dns_retired_free,
	.held = dns_retired_held,
};

/* A replaced set is freed once its grace time is over and no engine sends
 * from its blocks, as http's roots (svc_retire.h). */
static unsigned int
dns_reclaim(void *state, tfo_svc_sends_from_fn sends_from, void *arg)
{
	struct dns_svc *sv = state;

	return svc_retire_reclaim(sv->retired, DNS_RETIRED, &dns_retire_ops, sv,
				  sends_from, arg);
}

static struct tfo_service dns_service = {
	.name = "dns",
	.help = "authoritative DNS over TCP and UDP from master files and "
		"primaries (zone = ORIGIN:FILE, secondary = ORIGIN:ADDRESS, udp = on, "
		"cookies = on)",
	.keys = dns_keys,
	.repeat_keys = dns_repeat_keys,
	.counters = dns_counters,
	.udp_ok = true,
	.create = dns_create,
	.destroy = dns_destroy,
	.handle = dns_handle,
	.check_key = dns_check_key,
	.check = dns_check,
	.reload = dns_reload,
	.reclaim = dns_reclaim,
};

TFO_SERVICE_REGISTER(dns_service);
