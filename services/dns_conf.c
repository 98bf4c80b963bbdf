/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's configuration: the keys of
 * [service dns] (dns.c's header lists them), each checked as it is read
 * (check_key), the section read whole (create, reload) and checked with
 * its zone files and cookie key file before the EAL starts (check). No
 * DPDK: the configuration check runs it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "tfo/log.h"
#include "tfo/service.h"

#include "dns_svc.h"

const char *const dns_keys[] = {
	"zone", "idle_timeout", "edns_size", "reload_drain", "nsid", "identity",
	"version", "rate_limit", "rate_limit_burst", "slip", "rate_limit_table",
	"rate_limit_exempt", "cookies", "cookie_secret_file", "secondary", NULL
};

const char *const dns_repeat_keys[] = { "zone", "secondary", NULL };

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

int
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

int
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

int
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
