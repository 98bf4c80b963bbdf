/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: service "http", its configuration: the keys of
 * [service http], checked one by one as the configuration is read
 * (tfo_http_check_key) and as a whole before the EAL starts
 * (tfo_http_check); http_load.c reads them again at create() and reload.
 *
 * Keys of [service http], with their defaults:
 *   root = www              document root (relative: from the config dir)
 *   index = index.html      file that "/dir/" serves
 *   max_file_size = 16M     per file; K, M, G suffixes (powers of 1024)
 *   max_total_size = 128M   sum of the file sizes
 *   max_files = 100000
 *   cache_control = no-cache  Cache-Control value ("" = no header)
 *   server_header = tfo-fastpath  Server value ("" = no header)
 *   date = yes              send Date
 *   max_header = 8K         request head, request line included (400); 80..64K
 *   max_uri = 4K            request-target (414); 16..8K, max_uri + 64 <= max_header
 *   reload_drain = 10       grace time: seconds a root replaced by a reload is
 *                           kept at least (then until no connection sends
 *                           from it: tfo_http_reclaim); 1..86400
 *   rules = (none)          the rules file: per-path answers, headers, POST,
 *                           OCSP; virtual hosts (grammar: http_rules.c)
 *   encoded_slash = 404     %2F in a path: 404 (no file name holds a slash),
 *                           decode (a '/'), keep (the key holds "%2F")
 *   mime_types = /etc/mime.types  Content-Type by extension, with the
 *                           built-in table for what it lacks ("" = built-in
 *                           only); a missing default file is the built-in
 *   max_body = 16K          a POST's body, at most (413); 0..1M
 * tfo_http_check_key() checks each value as the configuration is read,
 * tfo_http_check() the whole section (and the root) before the EAL starts.
 * Going over a limit at load fails create() with the file and the limit
 * named. Keep [tcp] max_request >= max_header so that the 400 is sent
 * before the engine resets the connection.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>

#include "tfo/log.h"
#include "tfo/service.h"

#include "http_impl.h"
#include "http_load.h"

int
http_parse_size(const char *v, uint64_t *out, char *why, size_t whylen)
{
	char *end;
	unsigned long long x;
	unsigned int shift = 0;

	errno = 0;
	x = strtoull(v, &end, 10);
	if (end == v || v[0] == '-' || errno != 0)
		goto bad;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		end++;
		break;
	case 'm': case 'M':
		shift = 20;
		end++;
		break;
	case 'g': case 'G':
		shift = 30;
		end++;
		break;
	default:
		break;
	}
	if (shift != 0 && strcmp(end, "iB") == 0)
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end != '\0' || x > (UINT64_MAX >> shift))
		goto bad;
	*out = (uint64_t)x << shift;
	return 0;
bad:
	return tfo_errmsg(why, whylen, "expected a size (bytes, or with K, M, G)");
}

static int
http_parse_bool(const char *v, bool *out, char *why, size_t whylen)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
	    !strcasecmp(v, "on") || !strcmp(v, "1")) {
		*out = true;
		return 0;
	}
	if (!strcasecmp(v, "no") || !strcasecmp(v, "false") ||
	    !strcasecmp(v, "off") || !strcmp(v, "0")) {
		*out = false;
		return 0;
	}
	return tfo_errmsg(why, whylen, "expected yes or no");
}

/* A header field value we emit verbatim: printable ASCII, bounded. */
static int
http_check_value(const char *v, char *why, size_t whylen)
{
	size_t n = strlen(v);

	if (n > HTTP_VALUE_MAX)
		goto bad;
	for (size_t i = 0; i < n; i++)
		if (v[i] < 0x20 || v[i] > 0x7e)
			goto bad;
	if (n > 0 && (v[0] == ' ' || v[n - 1] == ' '))
		goto bad;
	return 0;
bad:
	return tfo_errmsg(why, whylen, "expected at most %d printable ASCII characters "
			  "without leading or trailing spaces", HTTP_VALUE_MAX);
}

/* A size key within [lo, hi]. */
static int
http_parse_range(const char *v, uint64_t lo, uint64_t hi, uint64_t *out,
		 char *why, size_t whylen)
{
	if (http_parse_size(v, out, why, whylen) < 0 || *out < lo || *out > hi)
		return tfo_errmsg(why, whylen, "expected a size in %" PRIu64 "..%" PRIu64
				  " (bytes, or with K, M, G)", lo, hi);
	return 0;
}

/* Seconds, 1..86400 (0 would free a table a request may be reading). */
int
http_parse_seconds(const char *v, uint64_t *out, char *why, size_t whylen)
{
	char *end;

	errno = 0;
	*out = strtoull(v, &end, 10);
	if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 || *out < 1 ||
	    *out > 86400)
		return tfo_errmsg(why, whylen, "expected seconds in 1..86400");
	return 0;
}

void
http_conf_free(struct http_conf *cf)
{
	if (cf->rules == NULL)
		return;
	http_mime_free(cf->rules);
	free(cf->rules);
	cf->rules = NULL;
}

/* The files the keys name besides the root: mime.types, the rules. */
static int
http_conf_files(const struct tfo_service_args *a, struct http_conf *cf,
		char *why, size_t whylen)
{
	const char *mt = tfo_service_arg(a, "mime_types", NULL);
	const char *rules = tfo_service_arg(a, "rules", NULL);
	struct http_rules *ru;
	int rc;

	ru = calloc(1, sizeof(*ru));
	if (ru == NULL)
		return tfo_errmsg(why, whylen, "out of memory");
	cf->rules = ru;
	/* the default may be absent (the built-in table); a named one not */
	rc = http_mime_read(mt != NULL ? mt : "/etc/mime.types", mt != NULL, ru,
			    why, whylen);
	if (rc != 0 || rules == NULL)
		return rc;
	rc = http_resolve(a->base_dir, rules, ru->file);
	if (rc != 0)
		return tfo_errmsg(why, whylen, "rules = %s: %s", rules, strerror(-rc));
	return http_rules_read(ru->file, ru, why, whylen);
}

/* One key's value on its own: syntax and range (the configuration parser
 * calls it as it reads the key; http_conf_read for every key). */
int
tfo_http_check_key(const char *key, const char *v, char *why, size_t whylen)
{
	uint64_t x;
	bool b;

	if (strcmp(key, "root") == 0)
		return v[0] == '\0' ? tfo_errmsg(why, whylen, "expected a directory") : 0;
	if (strcmp(key, "index") == 0)
		return v[0] == '\0' || strchr(v, '/') != NULL ?
		       tfo_errmsg(why, whylen, "expected a file name (no '/')") : 0;
	if (strcmp(key, "max_file_size") == 0 || strcmp(key, "max_total_size") == 0 ||
	    strcmp(key, "max_files") == 0)
		return http_parse_size(v, &x, why, whylen);
	if (strcmp(key, "max_uri") == 0)
		return http_parse_range(v, 16, TFO_HTTP_MAX_URI_LIMIT, &x, why, whylen);
	if (strcmp(key, "max_header") == 0)
		return http_parse_range(v, 16 + 64, TFO_HTTP_MAX_HEADER_LIMIT, &x, why,
					whylen);
	if (strcmp(key, "date") == 0)
		return http_parse_bool(v, &b, why, whylen);
	if (strcmp(key, "cache_control") == 0 || strcmp(key, "server_header") == 0)
		return http_check_value(v, why, whylen);
	if (strcmp(key, "reload_drain") == 0)
		return http_parse_seconds(v, &x, why, whylen);
	if (strcmp(key, "rules") == 0)
		return v[0] == '\0' ? tfo_errmsg(why, whylen, "expected a file") : 0;
	if (strcmp(key, "encoded_slash") == 0)
		return strcmp(v, "404") && strcmp(v, "decode") && strcmp(v, "keep") ?
		       tfo_errmsg(why, whylen, "expected 404, decode or keep") : 0;
	if (strcmp(key, "max_body") == 0)
		return http_parse_range(v, 0, 1 << 20, &x, why, whylen);
	return 0;
}

/* The section's keys into @p cf, @p lim and @p date, checked; the root
 * must be a readable directory. No DPDK: the configuration check calls it
 * (tfo_http_check) before the EAL starts. */
int
http_conf_read(const struct tfo_service_args *a, struct http_conf *cf,
	       struct tfo_http_limits *lim, bool *date, char *why, size_t whylen)
{
	static const struct { const char *key, *def; } keys[] = {
		{ "root", "www" }, { "index", "index.html" },
		{ "cache_control", "no-cache" }, { "server_header", "tfo-fastpath" },
		{ "max_file_size", "16M" }, { "max_total_size", "128M" },
		{ "max_files", "100000" }, { "max_header", "8K" }, { "max_uri", "4K" },
		{ "date", "yes" }, { "reload_drain", HTTP_GRACE_DEFAULT },
		{ "encoded_slash", "404" }, { "max_body", "16K" },
	};
	const char *root = tfo_service_arg(a, "root", "www"), *sl;
	uint64_t mh, mu, mb;
	char path[PATH_MAX], r[160];
	struct stat sb;
	int rc;

	cf->rules = NULL;
	for (unsigned int i = 0; i < RTE_DIM(keys); i++) {
		const char *v = tfo_service_arg(a, keys[i].key, keys[i].def);

		if (tfo_http_check_key(keys[i].key, v, r, sizeof(r)) < 0)
			return tfo_errmsg(why, whylen, "%s = %s: %s", keys[i].key, v, r);
	}
	cf->index = tfo_service_arg(a, "index", "index.html");
	cf->cache_control = tfo_service_arg(a, "cache_control", "no-cache");
	cf->server = tfo_service_arg(a, "server_header", "tfo-fastpath");
	/* checked above: these parse */
	http_parse_size(tfo_service_arg(a, "max_file_size", "16M"), &cf->max_file, r,
			sizeof(r));
	http_parse_size(tfo_service_arg(a, "max_total_size", "128M"), &cf->max_total, r,
			sizeof(r));
	http_parse_size(tfo_service_arg(a, "max_files", "100000"), &cf->max_files, r,
			sizeof(r));
	http_parse_size(tfo_service_arg(a, "max_header", "8K"), &mh, r, sizeof(r));
	http_parse_size(tfo_service_arg(a, "max_uri", "4K"), &mu, r, sizeof(r));
	http_parse_bool(tfo_service_arg(a, "date", "yes"), date, r, sizeof(r));
	if (mh < mu + 64)
		return tfo_errmsg(why, whylen, "max_uri = %" PRIu64 ", max_header = %" PRIu64
				  ": need max_uri + 64 <= max_header", mu, mh);
	lim->max_header = (uint32_t)mh;
	lim->max_uri = (uint32_t)mu;
	cf->max_key = (uint32_t)mu;
	http_parse_size(tfo_service_arg(a, "max_body", "16K"), &mb, r, sizeof(r));
	cf->max_body = (uint32_t)mb;
	sl = tfo_service_arg(a, "encoded_slash", "404");
	cf->slash = sl[0] == 'd' ? TFO_HTTP_SLASH_DECODE : sl[0] == 'k' ?
		    TFO_HTTP_SLASH_KEEP : TFO_HTTP_SLASH_404;
	rc = http_conf_files(a, cf, why, whylen);
	if (rc != 0)
		return rc;
	if (root[0] == '/' || a->base_dir == NULL || a->base_dir[0] == '\0')
		rc = snprintf(path, sizeof(path), "%s", root);
	else
		rc = snprintf(path, sizeof(path), "%s/%s", a->base_dir, root);
	if ((size_t)rc >= sizeof(path))
		return tfo_errmsg(why, whylen, "root = %s: path too long", root);
	/* a relative root is named with the directory it was resolved from */
	if (strcmp(path, root) == 0)
		path[0] = '\0';
	if (realpath(path[0] ? path : root, cf->root) == NULL || stat(cf->root, &sb) < 0)
		goto no_root;
	if (!S_ISDIR(sb.st_mode))
		errno = ENOTDIR;
	else if (access(cf->root, R_OK | X_OK) == 0)
		return 0;
no_root:
	tfo_errmsg(why, whylen, "root = %s%s%s: %s", root, path[0] ? " = " : "", path,
		   strerror(errno));
	return -ENOENT;	/* create()'s contract for an unusable root */
}

int
tfo_http_check(const struct tfo_service_args *a, char *why, size_t whylen)
{
	struct tfo_http_limits lim;
	struct http_conf cf;
	bool date;
	int rc;

	cf.rules = NULL;
	rc = http_conf_read(a, &cf, &lim, &date, why, whylen);
	http_conf_free(&cf);
	if (rc < 0)
		return -EINVAL;
	/* a head the engine resets before it is whole never gets its 400 */
	if (a->max_request != 0 && a->max_request < lim.max_header)
		return tfo_errmsg(why, whylen, "max_header = %u above [tcp] max_request = %u: "
				  "a request head that long is reset, never answered 400; "
				  "lower max_header (and max_uri, max_header - 64 at most) "
				  "or raise max_request", lim.max_header, a->max_request);
	return 0;
}
