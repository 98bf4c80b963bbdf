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
 * (dns_zone.c), sent without a copy when it is large and the plain OPT
 * suffices; the rest (wildcards, CNAME chains, referrals, NXDOMAIN) is
 * composed per request into the engine's buffer (dns_write.c): zones
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
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "tfo/log.h"
#include "tfo/service.h"

#include "dns.h"
#include "dns_rrl.h"
#include "dns_xfr.h"
#include "svc_retire.h"

#define DNS_MAX_ZONES 64
#define DNS_RETIRED 4
#define DNS_ZC_MIN 512		/* smaller blocks are copied */
/* OPT with keepalive, EDE and a cookie */
#define DNS_OPT_RESERVE (DNS_OPT_LEN + 12 + DNS_COOKIE_OPT_LEN)
#define DNS_MIN_BUF (2 + DNS_HDR + DNS_NAME_MAX + 4 + DNS_OPT_RESERVE)

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

/* The service instance: the zone set serving now and the replaced ones. */
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
/* configuration                                                       */

static const char *const dns_keys[] = {
	"zone", "idle_timeout", "edns_size", "reload_drain", "nsid", "identity",
	"version", "rate_limit", "rate_limit_burst", "slip", "rate_limit_table",
	"rate_limit_exempt", "cookies", "cookie_secret_file", "secondary", NULL
};

static const char *const dns_repeat_keys[] = { "zone", "secondary", NULL };

int
dns_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 10);
	if (!isdigit((unsigned char)v[0]) || errno != 0 || *end != '\0' || x < lo || x > hi)
		return -EINVAL;
	*out = (uint32_t)x;
	return 0;
}

/* "origin:path[ origin:path...]" into @p c's zones (appended). */
static int
dns_zone_value(const char *key, const char *value, const char *base_dir,
	       struct dns_conf *c, char *why, size_t whylen)
{
	const char *p = value;

	for (;;) {
		const char *e, *colon;
		struct dns_zone_src *z;
		uint8_t n[DNS_NAME_MAX];
		size_t len;
		int l;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '\0')
			return 0;
		for (e = p; *e != '\0' && *e != ' ' && *e != '\t' && *e != ','; e++)
			;
		colon = memchr(p, ':', (size_t)(e - p));
		if (colon == NULL || colon == p || colon + 1 == e)
			return tfo_errmsg(why, whylen, "%s = %s: expected ORIGIN:FILE "
					  "(example.org:/etc/tfo/example.org.zone)", key, value);
		l = dns_name_from_text(p, (size_t)(colon - p), (const uint8_t *)"", n);
		if (l < 0)
			return tfo_errmsg(why, whylen, "%s: bad zone name %.*s", key,
					  (int)(colon - p), p);
		if (c == NULL) {	/* check_key: the syntax only */
			p = e;
			continue;
		}
		if (c->nb_zones == DNS_MAX_ZONES)
			return tfo_errmsg(why, whylen, "more than %d zones", DNS_MAX_ZONES);
		z = &c->zones[c->nb_zones];
		dns_name_lower(z->origin, n);
		for (unsigned int i = 0; i < c->nb_zones; i++)
			if (dns_name_len(c->zones[i].origin) == dns_name_len(z->origin) &&
			    memcmp(c->zones[i].origin, z->origin, dns_name_len(z->origin)) == 0)
				return tfo_errmsg(why, whylen, "%s: zone %.*s given twice", key,
						  (int)(colon - p), p);
		len = (size_t)(e - colon - 1);
		if (colon[1] == '/' || base_dir == NULL)
			l = snprintf(z->path, sizeof(z->path), "%.*s", (int)len, colon + 1);
		else
			l = snprintf(z->path, sizeof(z->path), "%s/%.*s", base_dir, (int)len,
				     colon + 1);
		if (l < 0 || (size_t)l >= sizeof(z->path))
			return tfo_errmsg(why, whylen, "%s: path too long", key);
		c->nb_zones++;
		p = e;
	}
}

/* "0xHEX" (bytes, as Knot DNS's) or the string itself into @p out;
 * @return its length, or -1. */
static int
dns_nsid_value(const char *v, uint8_t *out)
{
	size_t n = strlen(v);

	if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		if (n % 2 != 0 || (n - 2) / 2 > DNS_NSID_MAX)
			return -1;
		for (size_t i = 2; i < n; i += 2) {
			char h[3] = { v[i], v[i + 1], '\0' };

			if (!isxdigit((unsigned char)h[0]) || !isxdigit((unsigned char)h[1]))
				return -1;
			out[(i - 2) / 2] = (uint8_t)strtoul(h, NULL, 16);
		}
		return (int)(n - 2) / 2;
	}
	if (n == 0 || n > DNS_NSID_MAX)
		return -1;
	memcpy(out, v, n);
	return (int)n;
}

static int
dns_check_key(const char *key, const char *value, char *why, size_t whylen)
{
	uint32_t v;
	int rc;

	if (strcmp(key, "zone") == 0)
		return dns_zone_value(key, value, NULL, NULL, why, whylen);
	if (strcmp(key, "secondary") == 0)
		return dns_secondary_value(value, NULL, NULL, 0, why, whylen);
	rc = dns_rrl_conf_key(key, value, NULL, why, whylen);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	if (strcmp(key, "idle_timeout") == 0 && dns_u32(value, 1, 6553, &v) < 0)
		return tfo_errmsg(why, whylen, "expected seconds in 1..6553");
	if (strcmp(key, "edns_size") == 0 && dns_u32(value, 512, 4096, &v) < 0)
		return tfo_errmsg(why, whylen, "expected an integer in 512..4096");
	if (strcmp(key, "reload_drain") == 0 && dns_u32(value, 1, 86400, &v) < 0)
		return tfo_errmsg(why, whylen, "expected seconds in 1..86400");
	if (strcmp(key, "nsid") == 0) {
		uint8_t b[DNS_NSID_MAX];

		if (dns_nsid_value(value, b) < 0)
			return tfo_errmsg(why, whylen, "expected a string or 0xHEX of "
					  "1..%d bytes", DNS_NSID_MAX);
	}
	/* one TXT character-string */
	if ((strcmp(key, "identity") == 0 || strcmp(key, "version") == 0) &&
	    (value[0] == '\0' || strlen(value) > 255))
		return tfo_errmsg(why, whylen, "expected a string of 1..255 bytes");
	if (strcmp(key, "cookies") == 0 && strcmp(value, "on") != 0 &&
	    strcmp(value, "off") != 0)
		return tfo_errmsg(why, whylen, "expected on or off");
	return 0;
}

/* cookies and cookie_secret_file into @p c; the file is read (and its
 * syntax checked) by dns_cookie_file_read at check, create and reload. */
static int
dns_conf_cookies(const struct tfo_service_args *a, struct dns_conf *c, char *why,
		 size_t whylen)
{
	const char *v = tfo_service_arg(a, "cookies", "off");
	const char *f = tfo_service_arg(a, "cookie_secret_file", NULL);
	int l;

	if (dns_check_key("cookies", v, why, whylen) < 0)
		return -EINVAL;
	c->cookies = strcmp(v, "on") == 0;
	if (!c->cookies)
		return 0;
	/* no default secret: a fleet must share one, and a random one
	 * would make members reject each other's cookies unseen */
	if (f == NULL || f[0] == '\0')
		return tfo_errmsg(why, whylen, "cookies = on needs cookie_secret_file "
				  "(the fleet's key file; [tfo] key_file will do)");
	if (f[0] == '/' || a->base_dir == NULL)
		l = snprintf(c->cookie_file, sizeof(c->cookie_file), "%s", f);
	else
		l = snprintf(c->cookie_file, sizeof(c->cookie_file), "%s/%s", a->base_dir, f);
	if (l < 0 || (size_t)l >= sizeof(c->cookie_file))
		return tfo_errmsg(why, whylen, "cookie_secret_file: path too long");
	return 0;
}

/* The section into @p c (no DPDK: the configuration check runs it). */
static int
dns_conf_read(const struct tfo_service_args *a, struct dns_conf *c, char *why,
	      size_t whylen)
{
	static const char *const num[] = { "idle_timeout", "edns_size", "reload_drain" };
	static const char *const def[] = { "10", "1232", "10" };
	uint32_t *dst[] = { &c->idle_s, &c->edns_size, &c->drain_s };
	char r[160];

	memset(c, 0, sizeof(*c));
	for (unsigned int i = 0; i < RTE_DIM(num); i++) {
		const char *v = tfo_service_arg(a, num[i], def[i]);

		if (dns_check_key(num[i], v, r, sizeof(r)) < 0)
			return tfo_errmsg(why, whylen, "%s = %s: %s", num[i], v, r);
		dns_u32(v, 0, UINT32_MAX, dst[i]);
	}
	for (unsigned int i = 0; i < a->nb_kv; i++) {
		const char *k = a->kv[i].key, *v = a->kv[i].value;

		if (strcmp(k, "nsid") != 0 && strcmp(k, "identity") != 0 &&
		    strcmp(k, "version") != 0)
			continue;
		if (dns_check_key(k, v, r, sizeof(r)) < 0)
			return tfo_errmsg(why, whylen, "%s = %s: %s", k, v, r);
		if (k[0] == 'n')
			c->nsid_len = (uint16_t)dns_nsid_value(v, c->nsid);
		else
			snprintf(k[0] == 'i' ? c->identity : c->version, 256, "%s", v);
	}
	c->zones = calloc(DNS_MAX_ZONES, sizeof(*c->zones));
	if (c->zones == NULL)
		return tfo_errmsg(why, whylen, "out of memory");
	/* every occurrence of the repeat key, in the file's order */
	for (unsigned int i = 0; i < a->nb_kv; i++)
		if (strcmp(a->kv[i].key, "zone") == 0 &&
		    dns_zone_value("zone", a->kv[i].value, a->base_dir, c, why,
				   whylen) < 0)
			return -EINVAL;
	c->sec = calloc(DNS_SECONDARY_MAX, sizeof(*c->sec));
	if (c->sec == NULL)
		return tfo_errmsg(why, whylen, "out of memory");
	for (unsigned int i = 0; i < a->nb_kv; i++)
		if (strcmp(a->kv[i].key, "secondary") == 0 &&
		    dns_secondary_value(a->kv[i].value, c->sec, &c->nb_sec, DNS_SECONDARY_MAX, r,
				  sizeof(r)) < 0)
			return tfo_errmsg(why, whylen, "secondary = %s: %s", a->kv[i].value, r);
	for (unsigned int i = 0; i < c->nb_sec; i++)
		for (unsigned int j = 0; j < c->nb_zones; j++)
			if (dns_name_len(c->sec[i].origin) == dns_name_len(c->zones[j].origin) &&
			    memcmp(c->sec[i].origin, c->zones[j].origin,
				   dns_name_len(c->zones[j].origin)) == 0)
				return tfo_errmsg(why, whylen, "secondary: zone of %s is also "
						  "a zone = ... file: keep one", c->sec[i].text);
	if (c->nb_zones == 0 && c->nb_sec == 0)
		return tfo_errmsg(why, whylen, "no zone: zone = ORIGIN:FILE or "
				  "secondary = ORIGIN:ADDRESS is required");
	dns_rrl_conf_init(&c->rrl);
	for (unsigned int i = 0; i < a->nb_kv; i++)
		if (dns_rrl_conf_key(a->kv[i].key, a->kv[i].value, &c->rrl, r,
				     sizeof(r)) < 0)
			return tfo_errmsg(why, whylen, "%s = %s: %s", a->kv[i].key,
					  a->kv[i].value, r);
	return dns_conf_cookies(a, c, why, whylen);
}

static int
dns_check(const struct tfo_service_args *a, char *why, size_t whylen)
{
	struct dns_conf c;
	int rc = dns_conf_read(a, &c, why, whylen);
	struct dns_cookie_keys ck;

	if (rc == 0 && c.cookies)
		rc = dns_cookie_file_read(c.cookie_file, NULL, &ck, why, whylen);

	/* the files' syntax; the zone checks need the built set (create) */
	for (unsigned int i = 0; rc == 0 && i < c.nb_zones; i++) {
		struct dns_recs recs = { 0 };

		rc = dns_zparse_file(c.zones[i].path, c.zones[i].origin, &recs, why, whylen);
		dns_recs_free(&recs);
	}
	free(c.zones);
	free(c.sec);
	return rc < 0 ? -EINVAL : 0;
}

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
	sv = rte_zmalloc_socket("tfo_dns_svc", sizeof(*sv), RTE_CACHE_LINE_SIZE, a->socket_id);
	if (sv == NULL) {
		free(c.zones);
		free(c.sec);
		return -ENOMEM;
	}
	sv->conf = c;
	/* in DPDK memory like the rest of the state (LeakSanitizer does not
	 * scan it), for reload() */
	sv->conf.zones = rte_malloc_socket("tfo_dns_conf", (c.nb_zones + 1u) * sizeof(*c.zones),
					   0, a->socket_id);
	if (sv->conf.zones == NULL) {
		free(c.zones);
		free(c.sec);
		rte_free(sv);
		return -ENOMEM;
	}
	memcpy(sv->conf.zones, c.zones, c.nb_zones * sizeof(*c.zones));
	free(c.zones);
	sv->conf.sec = rte_malloc_socket("tfo_dns_conf", (c.nb_sec + 1u) * sizeof(*c.sec), 0,
					 a->socket_id);
	if (sv->conf.sec == NULL) {
		free(c.sec);
		dns_destroy(sv);
		return -ENOMEM;
	}
	memcpy(sv->conf.sec, c.sec, c.nb_sec * sizeof(*c.sec));
	free(c.sec);
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

/* ------------------------------------------------------------------ */
/* hot path                                                            */

static inline void
dns_count(const struct tfo_svc_ctx *ctx, enum dns_ctr c)
{
	if (ctx->counters != NULL)
		ctx->counters[c]++;
}

static enum dns_ctr
dns_qtype_ctr(uint16_t t)
{
	switch (t) {
	case DNS_T_A: return C_QTYPE_A;
	case DNS_T_AAAA: return C_QTYPE_AAAA;
	case DNS_T_NS: return C_QTYPE_NS;
	case DNS_T_CNAME: return C_QTYPE_CNAME;
	case DNS_T_SOA: return C_QTYPE_SOA;
	case DNS_T_PTR: return C_QTYPE_PTR;
	case DNS_T_MX: return C_QTYPE_MX;
	case DNS_T_TXT: return C_QTYPE_TXT;
	case DNS_T_SRV: return C_QTYPE_SRV;
	case DNS_T_CAA: return C_QTYPE_CAA;
	case DNS_T_ANY: return C_QTYPE_ANY;
	case DNS_T_AXFR: return C_QTYPE_AXFR;
	case DNS_T_IXFR: return C_QTYPE_IXFR;
	default: return C_QTYPE_OTHER;
	}
}

static enum dns_ctr
dns_rcode_ctr(unsigned int rcode)
{
	switch (rcode) {
	case DNS_R_NOERROR: return C_RCODE_NOERROR;
	case DNS_R_FORMERR: return C_RCODE_FORMERR;
	case DNS_R_NXDOMAIN: return C_RCODE_NXDOMAIN;
	case DNS_R_NOTIMP: return C_RCODE_NOTIMP;
	case DNS_R_REFUSED: return C_RCODE_REFUSED;
	case DNS_R_BADVERS: return C_RCODE_BADVERS;
	case DNS_R_NOTAUTH: return C_RCODE_NOTAUTH;
	case DNS_R_BADCOOKIE: return C_RCODE_BADCOOKIE;
	default: return C_RCODE_SERVFAIL;
	}
}

/*
 * The COOKIE option of @p q judged and counted; @p sc: the server cookie
 * to answer with. Sets q->has_valid_server_cookie, which response rate
 * limiting reads. Wall-clock seconds: RFC 9018's timestamps are compared
 * across a fleet (clock_gettime is a vDSO read, no system call).
 */
static enum dns_cookie_verdict
dns_cookie_hook(const struct tfo_svc_ctx *ctx, const struct dns_set *s,
		struct dns_query *q, uint8_t sc[DNS_COOKIE_SERVER])
{
	static const enum dns_ctr ctr[] = {
		[DNS_CK_FORMERR] = C_COOKIE_FORMERR,
		[DNS_CK_CLIENT_ONLY] = C_COOKIE_CLIENT_ONLY,
		[DNS_CK_VALID] = C_COOKIE_VALID,
		[DNS_CK_BAD] = C_COOKIE_BAD,
	};
	enum dns_cookie_verdict v;
	struct timespec ts;

	if (!s->cookie.on)
		return DNS_CK_NONE;
	clock_gettime(CLOCK_REALTIME, &ts);
	v = dns_cookie_check(&s->cookie, q, ctx->src_addr,
			     ctx->family == AF_INET6 ? 16 : 4, (uint32_t)ts.tv_sec, sc);
	q->has_valid_server_cookie = v == DNS_CK_VALID;
	if (v != DNS_CK_NONE)
		dns_count(ctx, ctr[v]);
	return v;
}

/* What a request is answered within. */
struct dns_out {
	struct dns_writer w;
	uint32_t lim;		/* the whole message's largest size */
	uint32_t head;		/* header + question */
	uint16_t an, ns, ar;
	bool tc;
	uint16_t rcode;
	const struct dns_block *zc;	/* sent after buf without a copy */
	bool opt_in_zc;		/* with the plain OPT that follows it */
	int32_t ede;		/* RFC 8914 info code, or -1 */
	uint32_t zc_len;
};

/*
 * Answer from a prebuilt block: without a copy when it is large and the
 * plain OPT that follows it in the blob will do, or when it does not fit
 * the buffer (then a keepalive option or DO echo is dropped: both are
 * optional); copied otherwise; without its additional section, then truncated, when it
 * exceeds the limit.
 */
static void
dns_from_block(struct dns_out *o, const struct dns_block *b, uint32_t opt_len,
	       bool plain_opt)
{
	o->rcode = b->rcode;
	if (o->head + b->len + opt_len <= o->lim) {
		/* XXX: past the buffer the block leaves with its plain OPT, so
		 * a server cookie is left out too (the client keeps its old
		 * one or asks again; runbook "The dns service") */
		if ((b->len >= DNS_ZC_MIN && plain_opt) || o->head + b->len > o->w.cap) {
			o->zc = b;
			o->zc_len = b->len + (opt_len ? DNS_OPT_LEN : 0);
			o->opt_in_zc = opt_len != 0;
		} else {
			memcpy(o->w.buf + o->w.len, b->blob.data, b->len);
			o->w.len += b->len;
		}
		o->an = b->an;
		o->ns = b->ns;
		o->ar = b->ar;
		return;
	}
	/* RFC 2181 9: the additional section may go without TC */
	if (o->head + b->len_noadd + opt_len <= o->lim &&
	    o->head + b->len_noadd <= o->w.cap) {
		memcpy(o->w.buf + o->w.len, b->blob.data, b->len_noadd);
		o->w.len += b->len_noadd;
		o->an = b->an;
		o->ns = b->ns;
		return;
	}
	o->tc = true;
}

/*
 * A TCP message longer than the engine holds (2 + @p mlen > [tcp]
 * max_request): FORMERR, header only, once the header is in, then FIN;
 * the engine discards the rest. Better than the reset the engine would
 * send (req_too_big): the client learns why.
 */
static enum tfo_svc_status
dns_too_long(const struct tfo_svc_ctx *ctx, const uint8_t *req, uint32_t len,
	     struct tfo_svc_resp *resp)
{
	uint8_t *h = resp->buf + 2;

	if (len < 2 + DNS_HDR)
		return TFO_SVC_NEED_MORE;
	if ((req[4] & 0x80) != 0 || resp->buf_cap < DNS_MIN_BUF) {
		dns_count(ctx, C_REJECT);
		return TFO_SVC_REJECT;
	}
	memset(h, 0, DNS_HDR);
	h[0] = req[2];
	h[1] = req[3];
	h[2] = (uint8_t)(0x80 | (req[4] & 0x79));	/* QR, the opcode, RD */
	h[3] = DNS_R_FORMERR;
	resp->buf[0] = 0;
	resp->buf[1] = DNS_HDR;
	resp->buf_len = 2 + DNS_HDR;
	resp->body = NULL;
	resp->body_off = 0;
	resp->body_len = 0;
	resp->consumed = len;
	resp->close = true;
	resp->idle_ms = 0;
	resp->status = DNS_R_FORMERR;
	dns_count(ctx, C_TCP_TOO_LONG);
	dns_count(ctx, C_RCODE_FORMERR);
	return TFO_SVC_RESPOND;
}

/* The CHAOS TXT string for @p q (its lower-case name), or NULL. */
static const char *
dns_chaos_txt(const struct dns_conf *c, const struct dns_query *q)
{
	const char *v = NULL;

	if (q->qtype != DNS_T_TXT)
		return NULL;	/* as knotd: REFUSED */
	if (memcmp(q->lname, "\2id\6server", 11) == 0 ||
	    memcmp(q->lname, "\10hostname\4bind", 15) == 0)
		v = c->identity;
	else if (memcmp(q->lname, "\7version\6server", 16) == 0 ||
		 memcmp(q->lname, "\7version\4bind", 14) == 0)
		v = c->version;
	return v != NULL && v[0] != '\0' ? v : NULL;
}

/* One TXT in class CH, TTL 0, owned by the question (a pointer to it). */
static void
dns_chaos_answer(struct dns_out *o, const char *txt)
{
	size_t n = strlen(txt);
	uint8_t rr[12] = { 0xc0, DNS_HDR, 0, DNS_T_TXT, 0, DNS_CLASS_CH, 0, 0, 0, 0,
			   0, (uint8_t)(n + 1) };
	uint8_t l = (uint8_t)n;

	if (o->w.len + sizeof(rr) + 1 + n > o->w.cap) {
		o->tc = true;
		return;
	}
	memcpy(o->w.buf + o->w.len, rr, sizeof(rr));
	memcpy(o->w.buf + o->w.len + sizeof(rr), &l, 1);
	memcpy(o->w.buf + o->w.len + sizeof(rr) + 1, txt, n);
	o->w.len += (uint32_t)(sizeof(rr) + 1 + n);
	o->an = 1;
}

/* The answer's RRL class, from what was written (before any TC). */
static enum dns_rrl_class
dns_rrl_class_of(const struct dns_out *o)
{
	if (o->rcode == DNS_R_NXDOMAIN)
		return DNS_RRL_NXDOMAIN;
	if (o->rcode != DNS_R_NOERROR)
		return DNS_RRL_ERROR;
	if (o->an != 0 || o->tc)
		return DNS_RRL_ANSWER;
	/* no answer: AA says NODATA, its absence a delegation */
	return (o->w.buf[2] & 0x04) != 0 ? DNS_RRL_NODATA : DNS_RRL_REFERRAL;
}

/*
 * RRL's verdict on a UDP answer (dns_rrl.h): the calling lcore's table,
 * the TSC as its clock. An lcore without a table (not an EAL lcore) is
 * not limited.
 */
static enum dns_rrl_verdict
dns_rrl_judge(const struct dns_svc *sv, const struct tfo_svc_ctx *ctx,
	      const struct dns_out *o)
{
	unsigned int lc = rte_lcore_id();
	struct dns_rrl_table *t;
	enum dns_rrl_verdict v;
	uint64_t ev;

	if (unlikely(lc >= RTE_MAX_LCORE || sv->rrl[lc] == NULL))
		return DNS_RRL_PASS;
	if (unlikely(sv->conf.rrl.nb_exempt != 0) &&
	    dns_rrl_exempt(&sv->conf.rrl, ctx->family, ctx->src_addr)) {
		dns_count(ctx, C_RRL_EXEMPT);
		return DNS_RRL_PASS;
	}
	t = sv->rrl[lc];
	ev = t->evicted;
	v = dns_rrl_check(t, ctx->family, ctx->src_addr, dns_rrl_class_of(o), rte_rdtsc());
	if (unlikely(t->evicted != ev))
		dns_count(ctx, C_RRL_EVICTED);
	if (v != DNS_RRL_PASS) {
		dns_count(ctx, C_RRL_LIMITED);
		dns_count(ctx, v == DNS_RRL_SLIP ? C_RRL_SLIPPED : C_RRL_DROPPED);
	}
	return v;
}

static enum tfo_svc_status
dns_handle(const void *state, const struct tfo_svc_ctx *ctx, const uint8_t *req,
	   uint32_t len, struct tfo_svc_resp *resp)
{
	const struct dns_svc *sv = state;
	/* one zone set for the whole query, even if a reload publishes another */
	const struct dns_set *s = __atomic_load_n(&sv->cur, __ATOMIC_ACQUIRE);
	bool tcp = ctx->transport != TFO_SVC_UDP;
	uint32_t pre = tcp ? 2 : 0, mlen, opt_len = 0;
	const uint8_t *m = req;
	enum dns_cookie_verdict cv = DNS_CK_NONE;
	uint8_t sc[DNS_COOKIE_SERVER];
	struct dns_query q;
	struct dns_out o;
	enum dns_qerr qe;
	const char *chaos = NULL;
	uint32_t nsid_res = 0;
	bool slipped = false, notify = false;

	if (tcp) {
		if (len < 2)
			return TFO_SVC_NEED_MORE;
		mlen = ((uint32_t)req[0] << 8) | req[1];
		if (unlikely(sv->max_request != 0 && 2 + mlen > sv->max_request))
			return dns_too_long(ctx, req, len, resp);
		if (len < 2 + mlen)
			return TFO_SVC_NEED_MORE;
		m = req + 2;
	} else {
		mlen = len;
	}
	qe = dns_query_parse(m, mlen, &q);
	if (unlikely(qe == DNS_Q_SHORT || qe == DNS_Q_RESPONSE ||
		     resp->buf_cap < DNS_MIN_BUF)) {
		dns_count(ctx, C_REJECT);
		return TFO_SVC_REJECT;
	}
	if (unlikely(sv->sec != NULL) && ctx->counters != NULL)
		dns_secondary_fold(sv->sec, ctx->counters + C_XFR_FIRST);
	/* room for our NSID only when it will be sent */
	if (q.edns && q.nsid && sv->conf.nsid_len != 0)
		nsid_res = 4u + sv->conf.nsid_len;
	dns_w_init(&o.w, resp->buf + pre, resp->buf_cap - pre - DNS_OPT_RESERVE - nsid_res);
	o.an = o.ns = o.ar = 0;
	o.tc = false;
	o.zc = NULL;
	o.opt_in_zc = false;
	o.ede = -1;
	o.rcode = DNS_R_NOERROR;
	if (tcp) {
		o.lim = DNS_MSG_MAX;
	} else {
		o.lim = q.edns ? RTE_MIN(RTE_MAX(q.payload, 512u), s->edns_size) : 512u;
		if (ctx->udp_max != 0)
			o.lim = RTE_MIN(o.lim, ctx->udp_max);
	}
	if (unlikely(q.cookie != NULL) && q.edns)
		cv = dns_cookie_hook(ctx, s, &q, sc);
	if (q.edns)
		opt_len = DNS_OPT_LEN + (tcp && q.keepalive ? 6 : 0) +
			  (cv >= DNS_CK_CLIENT_ONLY ? DNS_COOKIE_OPT_LEN : 0);
	if (q.has_q)
		dns_count(ctx, dns_qtype_ctr(q.qtype));

	if (qe == DNS_Q_FORMERR || cv == DNS_CK_FORMERR) {
		o.rcode = DNS_R_FORMERR;
	} else if (cv == DNS_CK_BAD && !tcp) {
		/* as knotd: the client retries with the fresh cookie */
		o.rcode = DNS_R_BADCOOKIE;
	} else if (qe == DNS_Q_NOTIMP && q.opcode == DNS_OP_NOTIFY && q.has_q) {
		/* RFC 1996 3.7: NOERROR with AA from a secondary zone's primary,
		 * and the refresh thread asks it for the new version */
		notify = true;
		if (sv->sec != NULL && q.qclass == DNS_CLASS_IN && q.qtype == DNS_T_SOA &&
		    dns_secondary_notify(sv->sec, q.lname, ctx->family, ctx->src_addr)) {
			dns_count(ctx, C_XFR_NOTIFY);
		} else {
			o.rcode = DNS_R_REFUSED;
			dns_count(ctx, C_XFR_NOTIFY_REFUSED);
		}
	} else if (qe == DNS_Q_NOTIMP) {
		o.rcode = DNS_R_NOTIMP;
	} else if (q.edns && q.edns_version > 0) {
		o.rcode = DNS_R_BADVERS;	/* RFC 6891 6.1.3 */
	} else if (q.tsig_key != NULL) {
		o.rcode = DNS_R_NOTAUTH;	/* RFC 8945 5.2: BADKEY */
	} else if (q.qclass == DNS_CLASS_CH) {
		chaos = dns_chaos_txt(&sv->conf, &q);
		if (chaos == NULL)
			o.rcode = DNS_R_REFUSED;
	} else if (q.qclass != DNS_CLASS_IN || q.qtype == DNS_T_AXFR ||
		   q.qtype == DNS_T_IXFR) {
		o.rcode = DNS_R_REFUSED;
	} else if (unlikely(sv->sec != NULL) && dns_secondary_down(sv->sec, q.lname)) {
		o.rcode = DNS_R_SERVFAIL;	/* RFC 1034 4.3.5: not loaded, expired */
	}
	if (o.rcode != DNS_R_NOERROR || notify) {
		dns_w_head(&o.w, &q, (uint8_t)o.rcode, notify && o.rcode == DNS_R_NOERROR);
		o.head = o.w.len;
	} else if (chaos != NULL) {
		dns_w_head(&o.w, &q, 0, true);
		o.head = o.w.len;
		dns_chaos_answer(&o, chaos);
		if (o.w.len + opt_len > o.lim)
			o.tc = true;
		else
			dns_count(ctx, C_CHAOS);
	} else {
		int zone = dns_set_zone_for(s, q.lname, q.qtype);
		const struct dns_block *b = NULL;
		bool signed_zone = false;
		struct dns_lookup lk;

		if (zone >= 0) {
			dns_set_lookup(s, zone, q.lname, q.qtype, &lk);
			b = dns_set_block(s, &lk, q.qtype, q.edns && q.edns_do);
			signed_zone = s->zones[zone].sec != 0;
		}
		dns_w_head(&o.w, &q, 0, b != NULL ? b->aa : true);
		o.head = o.w.len;
		if (b != NULL) {
			/* the block's OPT has DO set when it is a DO=1 one */
			dns_from_block(&o, b, opt_len, (!q.edns_do || signed_zone) &&
				       opt_len <= DNS_OPT_LEN && nsid_res == 0);
		} else {
			struct dns_sections sec;

			dns_compose(&o.w, s, q.lname, q.qtype, q.edns && q.edns_do, &sec);
			o.rcode = sec.rcode;
			/* as Knot DNS: say why (RFC 8914 4.21) */
			if (zone < 0)
				o.ede = DNS_EDE_NOT_AUTH;
			o.w.buf[2] = (uint8_t)((o.w.buf[2] & ~0x04) | (sec.aa ? 0x04 : 0));
			o.an = sec.an;
			o.ns = sec.ns;
			o.ar = sec.ar;
			if (o.w.overflow || o.w.len + opt_len > o.lim) {
				if (!o.w.overflow && sec.add_off + opt_len <= o.lim) {
					o.w.len = sec.add_off;
					o.ar = 0;
				} else if (tcp) {
					o.rcode = DNS_R_SERVFAIL;
					o.an = o.ns = o.ar = 0;
					o.w.len = o.head;
				} else {
					o.tc = true;
				}
				o.w.overflow = false;
			}
		}
		o.w.buf[3] = (uint8_t)((o.w.buf[3] & 0xf0) | (o.rcode & 0x0f));
	}
	/* TCP needs a handshake (no spoofed source) and a valid server
	 * cookie proves the source too (RFC 7873): neither is limited */
	if (!tcp && sv->conf.rrl.rate != 0 && !q.has_valid_server_cookie) {
		enum dns_rrl_verdict v = dns_rrl_judge(sv, ctx, &o);

		if (v == DNS_RRL_DROP)
			return TFO_SVC_REJECT;	/* UDP: dropped, no answer */
		if (v == DNS_RRL_SLIP) {
			/* as Knot: header and question, TC=1, the OPT kept */
			slipped = true;
			o.tc = true;
			o.zc = NULL;
			o.opt_in_zc = false;
			o.ede = -1;
		}
	}
	if (o.tc) {
		if (!slipped)
			dns_count(ctx, C_TRUNCATED);
		o.w.buf[2] |= 0x02;
		o.an = o.ns = o.ar = 0;
		o.w.len = o.head;
	}
	if (q.edns) {
		o.ar++;
		if (!o.opt_in_zc) {
			uint32_t opt = o.w.len;

			o.w.cap += DNS_OPT_RESERVE;
			dns_w_opt(&o.w, s->edns_size, (uint8_t)(o.rcode >> 4), q.edns_do,
				  tcp && q.keepalive ?
				  (int32_t)RTE_MIN(sv->idle_ms / 100, 65535u) : -1, o.ede);
			/* optional (RFC 5001 2.3): never the cause of a TC */
			if (nsid_res != 0 && o.w.len + nsid_res <= o.lim) {
				o.w.cap += nsid_res;
				dns_w_opt_add(&o.w, opt, DNS_OPT_NSID, sv->conf.nsid,
					      sv->conf.nsid_len);
				dns_count(ctx, C_NSID);
			}
			if (cv >= DNS_CK_CLIENT_ONLY)
				dns_cookie_put(&o.w, opt, q.cookie, sc);
		}
	}
	if (o.rcode == DNS_R_NOTAUTH) {
		uint32_t at = o.w.len;

		/* the whole buffer: nothing else follows */
		o.w.cap = resp->buf_cap - pre;
		dns_w_tsig_error(&o.w, &q, DNS_TSIG_BADKEY);
		if (o.w.overflow || o.w.len > o.lim) {
			/* too long for the client: TC, it retries over TCP */
			o.w.overflow = false;
			o.w.len = at;
			o.w.buf[2] |= 0x02;
			dns_count(ctx, C_TRUNCATED);
		} else {
			o.ar++;
		}
		dns_count(ctx, C_TSIG_BADKEY);
	}
	dns_w_counts(&o.w, o.an, o.ns, o.ar);
	resp->buf_len = pre + o.w.len;
	resp->body = NULL;
	resp->body_off = 0;
	resp->body_len = 0;
	if (o.zc != NULL) {
		resp->body = &o.zc->blob;
		resp->body_len = o.zc_len;
		dns_count(ctx, C_ZERO_COPY);
	}
	if (tcp) {
		uint32_t total = o.w.len + resp->body_len;

		resp->buf[0] = (uint8_t)(total >> 8);
		resp->buf[1] = (uint8_t)total;
		resp->consumed = 2 + mlen;
		resp->idle_ms = sv->idle_ms;
	} else {
		resp->consumed = len;
		resp->idle_ms = 0;
	}
	resp->close = false;
	resp->status = o.rcode;
	dns_count(ctx, dns_rcode_ctr(o.rcode));
	return TFO_SVC_RESPOND;
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
