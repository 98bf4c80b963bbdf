/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: service "http", the files its configuration names besides
 * the roots: the rules file (`rules = FILE`: per-path answers, headers,
 * POST, OCSP responders; virtual hosts) and mime.types. Read with the keys
 * (http_conf_read: no DPDK, so --print-config refuses what a start would),
 * every error as "FILE:LINE: reason".
 *
 * The rules file is INI like the configuration ("key = value"; ';' or '#'
 * at the start of a line or after white space starts a comment), with two
 * kinds of sections:
 *
 *   [path /generate_204]       an exact path, or an fnmatch(3) pattern
 *   status = 204               (with '*', '?' or '['; without a '/' it is
 *                              matched against the file name: *.crl)
 *
 *   [host example.org www.example.org]   names, any case, no port
 *   root = www-example                   its own document root
 *   default = yes                        for any other Host
 *
 * [path] keys: status = 200 | 204 (exact paths only: a fixed answer, the
 * same for every host, in place of a file), body = TEXT (with 200),
 * content_type = TYPE, cache_control = VALUE ("" drops the header),
 * header = Name: value (up to 8; several lines), post = yes|no (POST is
 * answered as GET is; default no: 405), post_in_syn = yes|no (also when
 * the POST came as TFO SYN data; default no: 425, RFC 7413 6.3.1),
 * ocsp = DIR (exact path only: an OCSP responder, RFC 6960 appendix A:
 * POST to the path with the DER request as body, or GET path/BASE64, is
 * answered with the file of DIR named by the request's base64url, padding
 * optional; the file is the DER response, prepared by e.g. `openssl ocsp
 * -respout`). Every rule whose path matches a file applies to it, in file
 * order (later ones win; header lines add up). Relative paths resolve from
 * the rules file's directory.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>

#include "tfo/log.h"

#include "http_impl.h"
#include "http_load.h"

static const struct {
	const char *ext;
	const char *type;
} http_mime_builtin[] = {
	{ "html", "text/html; charset=utf-8" },
	{ "htm", "text/html; charset=utf-8" },
	{ "css", "text/css; charset=utf-8" },
	{ "js", "text/javascript; charset=utf-8" },
	{ "mjs", "text/javascript; charset=utf-8" },
	{ "json", "application/json" },
	{ "map", "application/json" },
	{ "txt", "text/plain; charset=utf-8" },
	{ "md", "text/markdown; charset=utf-8" },
	{ "csv", "text/csv; charset=utf-8" },
	{ "xml", "application/xml" },
	{ "svg", "image/svg+xml" },
	{ "png", "image/png" },
	{ "jpg", "image/jpeg" },
	{ "jpeg", "image/jpeg" },
	{ "gif", "image/gif" },
	{ "webp", "image/webp" },
	{ "avif", "image/avif" },
	{ "ico", "image/vnd.microsoft.icon" },
	{ "woff", "font/woff" },
	{ "woff2", "font/woff2" },
	{ "ttf", "font/ttf" },
	{ "otf", "font/otf" },
	{ "pdf", "application/pdf" },
	{ "wasm", "application/wasm" },
	{ "zip", "application/zip" },
	{ "gz", "application/gzip" },
	{ "tar", "application/x-tar" },
	{ "mp4", "video/mp4" },
	{ "webm", "video/webm" },
	{ "mp3", "audio/mpeg" },
	{ "ogg", "audio/ogg" },
	/* PKI: OCSP responses, certificates, CRLs (RFC 6960, RFC 2585) */
	{ "ors", "application/ocsp-response" },
	{ "orq", "application/ocsp-request" },
	{ "cer", "application/pkix-cert" },
	{ "crl", "application/pkix-crl" },
};

static int
http_mime_cmp(const void *a, const void *b)
{
	return strcasecmp(((const struct http_mime *)a)->ext,
			  ((const struct http_mime *)b)->ext);
}

/* The built-in table first: its text types carry charset=utf-8, which
 * mime.types does not say, and the common types stay what they were;
 * mime.types adds the ~1,000 others. A rule's content_type overrides both. */
const char *
http_content_type(const struct http_rules *ru, const char *name)
{
	const char *dot = strrchr(name, '.');
	struct http_mime k, *m;

	if (dot == NULL || dot == name)
		return "application/octet-stream";
	for (unsigned int i = 0; i < RTE_DIM(http_mime_builtin); i++)
		if (strcasecmp(dot + 1, http_mime_builtin[i].ext) == 0)
			return http_mime_builtin[i].type;
	k.ext = (char *)(uintptr_t)(dot + 1);
	if (ru != NULL && ru->mime != NULL) {
		m = bsearch(&k, ru->mime, ru->nb_mime, sizeof(*m), http_mime_cmp);
		if (m != NULL)
			return m->type;
	}
	return "application/octet-stream";
}

void
http_mime_free(struct http_rules *ru)
{
	free(ru->mime);
	free(ru->mime_buf);
	ru->mime = NULL;
	ru->mime_buf = NULL;
	ru->nb_mime = 0;
}

/* One "type ext ext..." line of mime.types into ru (strings in *buf). */
static int
http_mime_line(char *line, struct http_rules *ru, unsigned int *cap)
{
	char *save = NULL, *type = strtok_r(line, " \t\r\n", &save), *ext;

	if (type == NULL || type[0] == '#' || strchr(type, '/') == NULL)
		return 0;
	while ((ext = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
		if (ru->nb_mime == *cap) {
			unsigned int nc = *cap ? 2 * *cap : 1024;
			struct http_mime *nm = realloc(ru->mime, nc * sizeof(*nm));

			if (nm == NULL)
				return -ENOMEM;
			ru->mime = nm;
			*cap = nc;
		}
		/* offsets into mime_buf until it stops moving */
		ru->mime[ru->nb_mime].ext = (char *)(uintptr_t)(ext - ru->mime_buf);
		ru->mime[ru->nb_mime].type = (char *)(uintptr_t)(type - ru->mime_buf);
		ru->nb_mime++;
	}
	return 0;
}

int
http_mime_read(const char *path, bool must, struct http_rules *ru, char *why,
	       size_t whylen)
{
	unsigned int cap = 0;
	size_t n = 0, got;
	char *p, *nl;
	FILE *f;
	int rc = 0;

	if (path[0] == '\0')
		return 0;
	f = fopen(path, "re");
	if (f == NULL) {
		if (!must)
			return 0;
		return tfo_errmsg(why, whylen, "mime_types = %s: %s", path,
				  strerror(errno));
	}
	/* the whole file, its lines split in place */
	for (;;) {
		char *nb = realloc(ru->mime_buf, n + 65536 + 1);

		if (nb == NULL) {
			rc = -ENOMEM;
			break;
		}
		ru->mime_buf = nb;
		got = fread(nb + n, 1, 65536, f);
		n += got;
		if (got < 65536 || n > (16u << 20))
			break;
	}
	fclose(f);
	if (rc != 0)
		return tfo_errmsg(why, whylen, "mime_types = %s: out of memory", path);
	ru->mime_buf[n] = '\0';
	for (p = ru->mime_buf; p != NULL && *p != '\0' && rc == 0; p = nl) {
		nl = strchr(p, '\n');
		if (nl != NULL)
			*nl++ = '\0';
		rc = http_mime_line(p, ru, &cap);
	}
	if (rc != 0)
		return tfo_errmsg(why, whylen, "mime_types = %s: out of memory", path);
	for (unsigned int i = 0; i < ru->nb_mime; i++) {
		ru->mime[i].ext = ru->mime_buf + (uintptr_t)ru->mime[i].ext;
		ru->mime[i].type = ru->mime_buf + (uintptr_t)ru->mime[i].type;
	}
	qsort(ru->mime, ru->nb_mime, sizeof(*ru->mime), http_mime_cmp);
	return 0;
}

int
http_resolve(const char *base, const char *p, char *out)
{
	char path[PATH_MAX];
	int n;

	if (p[0] == '/' || base == NULL || base[0] == '\0')
		n = snprintf(path, sizeof(path), "%s", p);
	else
		n = snprintf(path, sizeof(path), "%s/%s", base, p);
	if ((size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	if (realpath(path, out) == NULL)
		return -errno;
	return 0;
}

static int
http_yes_no(const char *v, int8_t *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "on") || !strcasecmp(v, "true") ||
	    !strcmp(v, "1"))
		*out = 1;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "off") ||
		 !strcasecmp(v, "false") || !strcmp(v, "0"))
		*out = 0;
	else
		return -EINVAL;
	return 0;
}

/* A value sent verbatim in a header: printable ASCII, bounded. */
static bool
http_printable(const char *v, bool allow_empty)
{
	size_t n = strlen(v);

	if (n > HTTP_VALUE_MAX || (n == 0 && !allow_empty))
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i] < 0x20 || v[i] > 0x7e)
			return false;
	return true;
}

/* "Name: value": a token, a colon, a printable value. */
static bool
http_header_line(const char *v)
{
	static const char tchar[] = "!#$%&'*+-.^_`|~";
	const char *c = strchr(v, ':');

	if (c == NULL || c == v || !http_printable(v, false))
		return false;
	for (const char *p = v; p < c; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr(tchar, *p)))
			return false;
	/* what the service writes itself */
	return strncasecmp(v, "content-length:", 15) != 0 &&
	       strncasecmp(v, "transfer-encoding:", 18) != 0 &&
	       strncasecmp(v, "connection:", 11) != 0 &&
	       strncasecmp(v, "date:", 5) != 0;
}

struct http_rules_rd {
	const char *file;
	char dir[PATH_MAX];
	unsigned int line;
	struct http_rules *ru;
	struct http_rule *rule;		/* the [path] being read, or NULL */
	int host;			/* the [host] being read, or -1 */
	char *why;
	size_t whylen;
};

/* "FILE:LINE: reason". */
static int __attribute__((format(printf, 2, 3)))
http_rules_err(struct http_rules_rd *rd, const char *fmt, ...)
{
	char r[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r, sizeof(r), fmt, ap);
	va_end(ap);
	return tfo_errmsg(rd->why, rd->whylen, "rules = %s:%u: %s", rd->file,
			  rd->line, r);
}

static int
http_rules_section(struct http_rules_rd *rd, char *sec)
{
	struct http_rules *ru = rd->ru;
	char *save = NULL, *w;

	rd->rule = NULL;
	rd->host = -1;
	if (strncmp(sec, "path ", 5) == 0) {
		struct http_rule *r;
		const char *p = sec + 5;

		while (*p == ' ')
			p++;
		if (ru->nb_rules == HTTP_MAX_RULES)
			return http_rules_err(rd, "more than %d [path] sections",
					      HTTP_MAX_RULES);
		if (p[0] == '\0' || strlen(p) >= sizeof(r->path) ||
		    !http_printable(p, false) || strchr(p, ' ') != NULL)
			return http_rules_err(rd, "[path P]: expected a path (\"/x\") or "
					      "a pattern (\"*.crl\"), no spaces, under 256 bytes");
		r = &ru->rules[ru->nb_rules++];
		memset(r, 0, sizeof(*r));
		snprintf(r->path, sizeof(r->path), "%s", p);
		r->pattern = strpbrk(p, "*?[") != NULL;
		if (!r->pattern && p[0] != '/')
			return http_rules_err(rd, "[path %s]: an exact path starts with '/'", p);
		r->post = -1;
		r->post_in_syn = -1;
		r->line = rd->line;
		rd->rule = r;
		return 0;
	}
	if (strncmp(sec, "host ", 5) == 0) {
		if (ru->nb_hosts == 0)
			ru->nb_hosts = 1;
		if (ru->nb_hosts == HTTP_MAX_HOSTS)
			return http_rules_err(rd, "more than %d [host] sections",
					      HTTP_MAX_HOSTS - 1);
		rd->host = (int)ru->nb_hosts++;
		ru->hosts[rd->host].line = rd->line;
		for (w = strtok_r(sec + 5, " ", &save); w != NULL;
		     w = strtok_r(NULL, " ", &save)) {
			struct http_vhost_name *nm;
			size_t n = strlen(w);

			if (ru->nb_names == HTTP_MAX_NAMES)
				return http_rules_err(rd, "more than %d host names",
						      HTTP_MAX_NAMES);
			while (n > 0 && w[n - 1] == '.')
				w[--n] = '\0';
			if (n == 0 || n >= sizeof(nm->name) || strchr(w, ':') != NULL ||
			    !http_printable(w, false))
				return http_rules_err(rd, "[host NAME...]: \"%s\" is not a "
						      "host name (no port, under 256 bytes)", w);
			for (size_t i = 0; i < n; i++)
				w[i] = (char)(w[i] >= 'A' && w[i] <= 'Z' ? w[i] | 0x20 : w[i]);
			for (unsigned int i = 0; i < ru->nb_names; i++)
				if (strcmp(ru->names[i].name, w) == 0)
					return http_rules_err(rd, "host %s named twice", w);
			nm = &ru->names[ru->nb_names++];
			memcpy(nm->name, w, n + 1);
			nm->len = (uint16_t)n;
			nm->host = (uint8_t)rd->host;
		}
		if (ru->nb_names == 0 || ru->names[ru->nb_names - 1].host != rd->host)
			return http_rules_err(rd, "[host NAME...]: no name");
		return 0;
	}
	return http_rules_err(rd, "unknown section [%s]: expected [path P] or "
			      "[host NAME...]", sec);
}

static int
http_rules_host_key(struct http_rules_rd *rd, const char *k, const char *v)
{
	struct http_rules *ru = rd->ru;
	struct http_host *h = &ru->hosts[rd->host];
	int8_t b;
	int rc;

	if (strcmp(k, "root") == 0) {
		rc = http_resolve(rd->dir, v, h->root);
		if (rc == 0 && access(h->root, R_OK | X_OK) != 0)
			rc = -errno;
		if (rc != 0)
			return http_rules_err(rd, "root = %s: %s", v, strerror(-rc));
		return 0;
	}
	if (strcmp(k, "default") == 0) {
		if (http_yes_no(v, &b) < 0)
			return http_rules_err(rd, "default = %s: expected yes or no", v);
		if (b && ru->default_host != 0)
			return http_rules_err(rd, "default = yes: host of line %u is "
					      "the default already",
					      ru->hosts[ru->default_host].line);
		if (b)
			ru->default_host = (uint8_t)rd->host;
		return 0;
	}
	return http_rules_err(rd, "unknown key %s in [host]: expected root, default", k);
}

static int
http_rules_path_key(struct http_rules_rd *rd, const char *k, const char *v)
{
	struct http_rule *r = rd->rule;
	int rc;

	if (strcmp(k, "status") == 0) {
		if (strcmp(v, "200") != 0 && strcmp(v, "204") != 0)
			return http_rules_err(rd, "status = %s: expected 200 or 204", v);
		if (r->pattern)
			return http_rules_err(rd, "status: on an exact path only (a "
					      "fixed answer), not on a pattern");
		r->status = (uint16_t)atoi(v);
	} else if (strcmp(k, "body") == 0 || strcmp(k, "content_type") == 0 ||
		   strcmp(k, "cache_control") == 0) {
		bool cc = k[0] == 'c' && k[1] == 'a';

		if (!http_printable(v, cc || k[0] == 'b'))
			return http_rules_err(rd, "%s = %s: expected at most %d printable "
					      "ASCII characters", k, v, HTTP_VALUE_MAX);
		snprintf(k[0] == 'b' ? r->body : cc ? r->cache_control : r->ctype,
			 HTTP_VALUE_MAX + 1, "%s", v);
		r->has_cc |= cc;
	} else if (strcmp(k, "header") == 0) {
		if (r->nb_extra == HTTP_MAX_EXTRA || !http_header_line(v))
			return http_rules_err(rd, "header = %s: expected \"Name: value\" "
					      "(printable, at most %d per path; not "
					      "Content-Length, Transfer-Encoding, "
					      "Connection, Date)", v, HTTP_MAX_EXTRA);
		r->nb_extra++;
		strcat(r->extra, v);
		strcat(r->extra, "\r\n");
	} else if (strcmp(k, "post") == 0 || strcmp(k, "post_in_syn") == 0) {
		if (http_yes_no(v, k[4] == '\0' ? &r->post : &r->post_in_syn) < 0)
			return http_rules_err(rd, "%s = %s: expected yes or no", k, v);
	} else if (strcmp(k, "ocsp") == 0) {
		if (r->pattern || strcmp(r->path, "/") == 0)
			return http_rules_err(rd, "ocsp: on an exact path other than / "
					      "only (its prefix: POST path, GET path/BASE64)");
		rc = http_resolve(rd->dir, v, r->ocsp);
		if (rc == 0 && access(r->ocsp, R_OK | X_OK) != 0)
			rc = -errno;
		if (rc != 0)
			return http_rules_err(rd, "ocsp = %s: %s", v, strerror(-rc));
	} else {
		return http_rules_err(rd, "unknown key %s in [path]: expected status, "
				      "body, content_type, cache_control, header, post, "
				      "post_in_syn, ocsp", k);
	}
	return 0;
}

/* One line: a section, "key = value", a comment or nothing. */
static int
http_rules_line(struct http_rules_rd *rd, char *s)
{
	char *e, *k, *v;

	while (*s == ' ' || *s == '\t')
		s++;
	/* as in the configuration: ';' or '#' after white space starts a
	 * comment (inside a word it is part of the value) */
	for (e = s; *e != '\0'; e++)
		if ((*e == ';' || *e == '#') && e > s && (e[-1] == ' ' || e[-1] == '\t')) {
			*e = '\0';
			break;
		}
	e = s + strlen(s);
	while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	if (*s == '\0' || *s == '#' || *s == ';')
		return 0;
	if (*s == '[') {
		if (e[-1] != ']')
			return http_rules_err(rd, "a section ends with ']'");
		e[-1] = '\0';
		return http_rules_section(rd, s + 1);
	}
	v = strchr(s, '=');
	if (v == NULL)
		return http_rules_err(rd, "expected key = value");
	k = s;
	for (e = v; e > k && (e[-1] == ' ' || e[-1] == '\t'); )
		*--e = '\0';
	*v++ = '\0';
	while (*v == ' ' || *v == '\t')
		v++;
	if (rd->rule != NULL)
		return http_rules_path_key(rd, k, v);
	if (rd->host >= 0)
		return http_rules_host_key(rd, k, v);
	return http_rules_err(rd, "%s outside a [path] or [host] section", k);
}

/* Cross-section rules: a host has a root, an ocsp path says nothing else. */
static int
http_rules_done(struct http_rules_rd *rd)
{
	struct http_rules *ru = rd->ru;
	unsigned int nb_ocsp = 0;

	for (unsigned int i = 1; i < ru->nb_hosts; i++)
		if (ru->hosts[i].root[0] == '\0') {
			rd->line = ru->hosts[i].line;
			return http_rules_err(rd, "[host]: no root = DIR");
		}
	for (unsigned int i = 0; i < ru->nb_rules; i++) {
		struct http_rule *r = &ru->rules[i];

		rd->line = r->line;
		if (r->ocsp[0] != '\0' && (r->status != 0 || r->post == 0))
			return http_rules_err(rd, "[path %s]: ocsp answers GET and POST "
					      "itself: no status, no post = no", r->path);
		if (r->ocsp[0] != '\0' && ++nb_ocsp > HTTP_MAX_OCSP)
			return http_rules_err(rd, "more than %d ocsp paths", HTTP_MAX_OCSP);
		if (r->body[0] != '\0' && r->status != 200)
			return http_rules_err(rd, "[path %s]: body needs status = 200",
					      r->path);
		if (r->post_in_syn == 1 && r->post != 1 && r->ocsp[0] == '\0')
			return http_rules_err(rd, "[path %s]: post_in_syn = yes needs "
					      "post = yes (or ocsp)", r->path);
		for (unsigned int j = 0; j < i; j++)
			if ((r->status != 0 || r->ocsp[0] != '\0') &&
			    (ru->rules[j].status != 0 || ru->rules[j].ocsp[0] != '\0') &&
			    strcmp(ru->rules[j].path, r->path) == 0)
				return http_rules_err(rd, "[path %s]: a second answer for "
						      "the path of line %u", r->path,
						      ru->rules[j].line);
	}
	return 0;
}

int
http_rules_read(const char *file, struct http_rules *ru, char *why, size_t whylen)
{
	struct http_rules_rd rd = { .file = file, .ru = ru, .host = -1,
				    .why = why, .whylen = whylen };
	char line[1024], *slash;
	int rc = 0;
	FILE *f;

	snprintf(rd.dir, sizeof(rd.dir), "%s", file);
	slash = strrchr(rd.dir, '/');
	if (slash != NULL)
		*slash = '\0';
	else
		snprintf(rd.dir, sizeof(rd.dir), ".");
	f = fopen(file, "re");
	if (f == NULL)
		return tfo_errmsg(why, whylen, "rules = %s: %s", file, strerror(errno));
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		rd.line++;
		if (strchr(line, '\n') == NULL && !feof(f))
			rc = http_rules_err(&rd, "line longer than %zu bytes",
					    sizeof(line) - 2);
		else
			rc = http_rules_line(&rd, line);
	}
	fclose(f);
	if (rc == 0)
		rc = http_rules_done(&rd);
	return rc < 0 ? -EINVAL : 0;
}

/* Whether rule @p r applies to the path @p p (a file's, from its root). */
bool
http_rule_matches(const struct http_rule *r, const char *p)
{
	const char *base;

	if (!r->pattern)
		return strcmp(r->path, p) == 0;
	if (strchr(r->path, '/') != NULL)
		return fnmatch(r->path, p, 0) == 0;
	base = strrchr(p, '/');
	return fnmatch(r->path, base != NULL ? base + 1 : p, 0) == 0;
}

int
http_rules_extra(const struct http_rules *ru, const char *p, char *extra)
{
	size_t n = 0, m;

	extra[0] = '\0';
	for (unsigned int i = 0; ru != NULL && i < ru->nb_rules; i++) {
		if (ru->rules[i].extra[0] == '\0' ||
		    !http_rule_matches(&ru->rules[i], p))
			continue;
		m = strlen(ru->rules[i].extra);
		if (n + m >= HTTP_EXTRA_MAX)
			return -1;
		memcpy(extra + n, ru->rules[i].extra, m + 1);
		n += m;
	}
	return 0;
}

void
http_apply_rules(const struct http_rules *ru, const char *cc0, const char *p,
		 const char **cc, const char **ctype, uint8_t *flags)
{
	*cc = cc0;
	for (unsigned int i = 0; ru != NULL && i < ru->nb_rules; i++) {
		const struct http_rule *r = &ru->rules[i];

		if (!http_rule_matches(r, p))
			continue;
		if (r->has_cc)
			*cc = r->cache_control;
		if (r->ctype[0] != '\0')
			*ctype = r->ctype;
		if (r->post >= 0)
			*flags = (uint8_t)((*flags & ~HTTP_OBJ_POST) |
					   (r->post ? HTTP_OBJ_POST : 0));
		if (r->post_in_syn >= 0)
			*flags = (uint8_t)((*flags & ~HTTP_OBJ_POST_SYN) |
					   (r->post_in_syn ? HTTP_OBJ_POST_SYN : 0));
	}
}
