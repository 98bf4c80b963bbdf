/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the dns service's master file reader (RFC 1035 section 5).
 *
 * Entries are read as logical lines: parentheses join physical lines,
 * ';' starts a comment outside quotes. An entry that starts with blank
 * space repeats the previous owner. TTL and class may come in either
 * order before the type; a missing TTL is $TTL's, else the previous
 * record's (RFC 2308 section 4). Names are relative to $ORIGIN (first
 * the zone's name) unless they end with a dot; "@" is $ORIGIN.
 *
 * What the service cannot serve is refused with "file:line: reason":
 * $INCLUDE and other directives, classes other than IN, types other than
 * A NS CNAME SOA PTR HINFO MX TXT AAAA SRV CAA and the DNSSEC ones
 * (dns_zsec.c), owners outside the zone.
 * No DPDK here: the configuration check reads files with it too.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfo/log.h"

#include "dns_zparse.h"

#define ZP_MAX_TOK 1024
#define ZP_MAX_FILE (256u << 20)

#define zp_tok dns_ztok
#define zp_u32 dns_ztok_u32

struct zp {
	const char *fname;
	const char *s, *end;
	unsigned int line;
	uint8_t zone[DNS_NAME_MAX];	/* the zone's name */
	uint8_t origin[DNS_NAME_MAX];	/* $ORIGIN */
	uint8_t owner[DNS_NAME_MAX];	/* the previous owner */
	bool has_owner;
	uint32_t def_ttl, last_ttl;
	bool has_def_ttl, has_last_ttl;
	struct dns_recs *out;
	char *why;
	size_t whylen;
	struct zp_tok tok[ZP_MAX_TOK];
	unsigned int nb_tok;
	bool blank_start;	/* the entry starts with blank space */
	unsigned int entry_line;
};

/* ------------------------------------------------------------------ */
/* tokens                                                              */

/* "file:line: " then @p fmt with its one "%.*s" replaced by @p arg. */
static int
zp_err(struct zp *z, const char *fmt, const char *arg, size_t arglen)
{
	const char *at = strstr(fmt, "%.*s");
	size_t pre = at != NULL ? (size_t)(at - fmt) : strlen(fmt);

	if (arglen > 80)
		arglen = 80;
	return tfo_errmsg(z->why, z->whylen, "%s:%u: %.*s%.*s%s", z->fname, z->entry_line,
			  (int)pre, fmt, (int)arglen, arg, at != NULL ? at + 4 : "");
}

/* The next entry's tokens; @return 1, 0 at the end, or a negative errno. */
static int
zp_next_entry(struct zp *z)
{
	int paren = 0;
	bool at_line_start = true;

	z->nb_tok = 0;
	for (;;) {
		const char *s = z->s;

		if (s >= z->end) {
			if (paren > 0)
				return zp_err(z, "%.*sunbalanced '('", "", 0);
			return z->nb_tok > 0;
		}
		if (*s == '\n') {
			z->s++;
			z->line++;
			if (paren == 0 && z->nb_tok > 0)
				return 1;
			at_line_start = true;
			continue;
		}
		if (at_line_start && paren == 0 && z->nb_tok == 0) {
			z->blank_start = *s == ' ' || *s == '\t';
			z->entry_line = z->line;
		}
		at_line_start = false;
		if (*s == ' ' || *s == '\t' || *s == '\r') {
			z->s++;
			continue;
		}
		if (*s == ';') {
			while (z->s < z->end && *z->s != '\n')
				z->s++;
			continue;
		}
		if (*s == '(') {
			paren++;
			z->s++;
			continue;
		}
		if (*s == ')') {
			if (--paren < 0)
				return zp_err(z, "%.*sunbalanced ')'", "", 0);
			z->s++;
			continue;
		}
		if (z->nb_tok == ZP_MAX_TOK)
			return zp_err(z, "%.*stoo many fields", "", 0);
		if (*s == '"') {
			const char *p = ++s;

			while (p < z->end && *p != '"') {
				if (*p == '\\' && p + 1 < z->end)
					p++;
				if (*p == '\n')
					z->line++;
				p++;
			}
			if (p >= z->end)
				return zp_err(z, "%.*sunterminated quote", "", 0);
			z->tok[z->nb_tok++] = (struct zp_tok){ s, (size_t)(p - s), true };
			z->s = p + 1;
			continue;
		}
		{
			const char *p = s;

			while (p < z->end && !strchr(" \t\r\n;()\"", *p)) {
				if (*p == '\\' && p + 1 < z->end && p[1] != '\n')
					p++;
				p++;
			}
			z->tok[z->nb_tok++] = (struct zp_tok){ s, (size_t)(p - s), false };
			z->s = p;
		}
	}
}

static bool
zp_tok_is(const struct zp_tok *t, const char *w)
{
	return !t->quoted && t->len == strlen(w) && strncasecmp(t->p, w, t->len) == 0;
}

/* A TTL: seconds, or units (1w2d3h4m5s, any case). */
static int
zp_ttl(const struct zp_tok *t, uint32_t *v)
{
	uint64_t total = 0, cur = 0;
	bool digits = false, units = false;

	if (t->quoted || t->len == 0 || !isdigit((unsigned char)t->p[0]))
		return -EINVAL;
	for (size_t i = 0; i < t->len; i++) {
		char c = (char)tolower((unsigned char)t->p[i]);
		uint64_t mul;

		if (isdigit((unsigned char)c)) {
			cur = cur * 10 + (uint64_t)(c - '0');
			digits = true;
			if (cur > 0xffffffffull)
				return -EINVAL;
			continue;
		}
		switch (c) {
		case 's': mul = 1; break;
		case 'm': mul = 60; break;
		case 'h': mul = 3600; break;
		case 'd': mul = 86400; break;
		case 'w': mul = 604800; break;
		default: return -EINVAL;
		}
		if (!digits)
			return -EINVAL;
		total += cur * mul;
		cur = 0;
		digits = false;
		units = true;
	}
	if (digits && units)
		return -EINVAL;	/* "1h30": a number after a unit without one */
	total += cur;
	if (total > 0x7fffffffull)	/* RFC 2181 8 */
		return -EINVAL;
	*v = (uint32_t)total;
	return 0;
}

/* ------------------------------------------------------------------ */
/* rdata                                                               */

struct zp_rd {
	uint8_t b[65535];
	uint32_t len;
};

static int
zp_put(struct zp_rd *rd, const void *p, size_t n)
{
	if (rd->len + n > sizeof(rd->b))
		return -EINVAL;
	memcpy(rd->b + rd->len, p, n);
	rd->len += (uint32_t)n;
	return 0;
}

static int
zp_put16(struct zp_rd *rd, uint32_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	return zp_put(rd, b, 2);
}

static int
zp_put32(struct zp_rd *rd, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8),
			 (uint8_t)v };

	return zp_put(rd, b, 4);
}

static int
zp_put_name(struct zp *z, struct zp_rd *rd, const struct zp_tok *t)
{
	uint8_t n[DNS_NAME_MAX];
	int l;

	if (t->quoted)
		return zp_err(z, "a name cannot be quoted: \"%.*s\"", t->p, t->len);
	l = dns_name_from_text(t->p, t->len, z->origin, n);
	if (l < 0)
		return zp_err(z, "bad name: %.*s", t->p, t->len);
	return zp_put(rd, n, (size_t)l);
}

/* A <character-string> (RFC 1035 3.3), or its bytes only (CAA's value). */
static int
zp_put_cs(struct zp *z, struct zp_rd *rd, const struct zp_tok *t, bool prefix)
{
	uint8_t b[65535];
	size_t n = 0, i = 0;

	while (i < t->len) {
		uint8_t c;

		if (t->p[i] == '\\') {
			if (dns_text_unescape(t->p, t->len, &i, &c) < 0)
				return zp_err(z, "bad escape in %.*s", t->p, t->len);
		} else {
			c = (uint8_t)t->p[i++];
		}
		if (n == sizeof(b))
			return zp_err(z, "%.*sstring too long", "", 0);
		b[n++] = c;
	}
	if (prefix) {
		uint8_t l = (uint8_t)n;

		if (n > 255)
			return zp_err(z, "%.*sa string longer than 255 bytes", "", 0);
		if (zp_put(rd, &l, 1) < 0)
			return zp_err(z, "%.*srdata too long", "", 0);
	}
	if (zp_put(rd, b, n) < 0)
		return zp_err(z, "%.*srdata too long", "", 0);
	return 0;
}

struct zp_type {
	const char *name;
	uint16_t type;
	int nargs;		/* fields; -1: one or more strings; ZP_SEC:
				 * dns_zsec_rdata() counts them */
};

#define ZP_SEC (-2)

static const struct zp_type zp_types[] = {
	{ "A", DNS_T_A, 1 }, { "NS", DNS_T_NS, 1 }, { "CNAME", DNS_T_CNAME, 1 },
	{ "SOA", DNS_T_SOA, 7 }, { "PTR", DNS_T_PTR, 1 }, { "HINFO", DNS_T_HINFO, 2 },
	{ "MX", DNS_T_MX, 2 }, { "TXT", DNS_T_TXT, -1 }, { "AAAA", DNS_T_AAAA, 1 },
	{ "SRV", DNS_T_SRV, 4 }, { "CAA", DNS_T_CAA, 3 },
	/* DNSSEC (dns_zsec.c): served as they are, signed offline */
	{ "DS", DNS_T_DS, ZP_SEC }, { "RRSIG", DNS_T_RRSIG, ZP_SEC },
	{ "NSEC", DNS_T_NSEC, ZP_SEC }, { "DNSKEY", DNS_T_DNSKEY, ZP_SEC },
	{ "NSEC3", DNS_T_NSEC3, ZP_SEC }, { "NSEC3PARAM", DNS_T_NSEC3PARAM, ZP_SEC },
	{ "CDS", DNS_T_CDS, ZP_SEC }, { "CDNSKEY", DNS_T_CDNSKEY, ZP_SEC },
};

static const struct zp_type *
zp_type_find(const struct zp_tok *t)
{
	for (unsigned int i = 0; i < RTE_DIM(zp_types); i++)
		if (zp_tok_is(t, zp_types[i].name))
			return &zp_types[i];
	return NULL;
}

static int
zp_rdata(struct zp *z, const struct zp_type *ty, const struct zp_tok *a,
	 unsigned int n, struct zp_rd *rd)
{
	uint32_t v;
	char ip[64];
	uint8_t addr[16];

	if (ty->nargs == ZP_SEC) {
		char w[160];

		if (dns_zsec_rdata(ty->type, a, n, z->origin, rd->b, sizeof(rd->b), &rd->len,
				   w, sizeof(w)) < 0)
			return zp_err(z, "%.*s", w, strlen(w));
		return 0;
	}
	if ((ty->nargs >= 0 && n != (unsigned int)ty->nargs) || (ty->nargs < 0 && n == 0))
		return zp_err(z, "%.*s: wrong number of fields", ty->name, strlen(ty->name));
	switch (ty->type) {
	case DNS_T_A:
	case DNS_T_AAAA:
		if (a[0].len >= sizeof(ip) || a[0].quoted)
			return zp_err(z, "bad address %.*s", a[0].p, a[0].len);
		memcpy(ip, a[0].p, a[0].len);
		ip[a[0].len] = '\0';
		if (inet_pton(ty->type == DNS_T_A ? AF_INET : AF_INET6, ip, addr) != 1)
			return zp_err(z, "bad address %.*s", a[0].p, a[0].len);
		return zp_put(rd, addr, ty->type == DNS_T_A ? 4 : 16);
	case DNS_T_NS:
	case DNS_T_CNAME:
	case DNS_T_PTR:
		return zp_put_name(z, rd, &a[0]);
	case DNS_T_MX:
		if (zp_u32(&a[0], 65535, &v) < 0)
			return zp_err(z, "bad MX preference %.*s", a[0].p, a[0].len);
		zp_put16(rd, v);
		return zp_put_name(z, rd, &a[1]);
	case DNS_T_SRV:
		for (int i = 0; i < 3; i++) {
			if (zp_u32(&a[i], 65535, &v) < 0)
				return zp_err(z, "bad SRV number %.*s", a[i].p, a[i].len);
			zp_put16(rd, v);
		}
		return zp_put_name(z, rd, &a[3]);
	case DNS_T_SOA:
		if (zp_put_name(z, rd, &a[0]) < 0 || zp_put_name(z, rd, &a[1]) < 0)
			return -EINVAL;
		if (zp_u32(&a[2], 0xffffffffu, &v) < 0)
			return zp_err(z, "bad SOA serial %.*s", a[2].p, a[2].len);
		zp_put32(rd, v);
		for (int i = 3; i < 7; i++) {
			if (zp_ttl(&a[i], &v) < 0)
				return zp_err(z, "bad SOA time %.*s", a[i].p, a[i].len);
			zp_put32(rd, v);
		}
		return 0;
	case DNS_T_HINFO:
	case DNS_T_TXT:
		for (unsigned int i = 0; i < n; i++)
			if (zp_put_cs(z, rd, &a[i], true) < 0)
				return -EINVAL;
		return 0;
	case DNS_T_CAA:
		if (zp_u32(&a[0], 255, &v) < 0)
			return zp_err(z, "bad CAA flags %.*s", a[0].p, a[0].len);
		if (a[1].quoted || a[1].len == 0 || a[1].len > 255)
			return zp_err(z, "bad CAA tag %.*s", a[1].p, a[1].len);
		for (size_t i = 0; i < a[1].len; i++)
			if (!isalnum((unsigned char)a[1].p[i]))
				return zp_err(z, "bad CAA tag %.*s", a[1].p, a[1].len);
		{
			uint8_t hb[2] = { (uint8_t)v, (uint8_t)a[1].len };

			zp_put(rd, hb, 2);
		}
		zp_put(rd, a[1].p, a[1].len);
		return zp_put_cs(z, rd, &a[2], false);
	default:
		return -EINVAL;
	}
}

/* ------------------------------------------------------------------ */
/* entries                                                             */

static int
zp_add(struct zp *z, const uint8_t *owner, uint16_t type, uint32_t ttl,
       const struct zp_rd *rd)
{
	const struct dns_rec r = {
		.owner = (uint8_t *)(uintptr_t)owner,	/* copied, not kept */
		.type = type,
		.ttl = ttl,
		.rdlen = (uint16_t)rd->len,
		.rdata = (uint8_t *)(uintptr_t)rd->b,
		.line = z->entry_line,
	};

	if (dns_recs_push(z->out, &r) < 0)
		return tfo_errmsg(z->why, z->whylen, "out of memory");
	return 0;
}

static int
zp_directive(struct zp *z)
{
	const struct zp_tok *t = z->tok;
	uint8_t n[DNS_NAME_MAX];
	int l;

	if (zp_tok_is(t, "$ORIGIN") && z->nb_tok == 2) {
		l = dns_name_from_text(t[1].p, t[1].len, z->origin, n);
		if (l < 0 || t[1].quoted)
			return zp_err(z, "bad $ORIGIN %.*s", t[1].p, t[1].len);
		dns_name_lower(z->origin, n);
		return 0;
	}
	if (zp_tok_is(t, "$TTL") && z->nb_tok == 2) {
		if (zp_ttl(&t[1], &z->def_ttl) < 0)
			return zp_err(z, "bad $TTL %.*s", t[1].p, t[1].len);
		z->has_def_ttl = true;
		return 0;
	}
	return zp_err(z, "directive not supported here: %.*s", t->p, t->len);
}

static int
zp_entry(struct zp *z, struct zp_rd *rd)
{
	const struct zp_tok *t = z->tok;
	unsigned int i = 0;
	const struct zp_type *ty = NULL;
	uint32_t ttl = 0;
	bool has_ttl = false, has_class = false;
	uint8_t owner[DNS_NAME_MAX], low[DNS_NAME_MAX];
	int l;

	if (!z->blank_start && t[0].len > 0 && t[0].p[0] == '$' && !t[0].quoted)
		return zp_directive(z);
	if (z->blank_start) {
		if (!z->has_owner)
			return zp_err(z, "%.*sno owner yet for a line that starts with a blank",
				      "", 0);
		memcpy(owner, z->owner, dns_name_len(z->owner));
	} else {
		l = t[0].quoted ? -EINVAL :
			dns_name_from_text(t[0].p, t[0].len, z->origin, owner);
		if (l < 0)
			return zp_err(z, "bad owner name %.*s", t[0].p, t[0].len);
		i = 1;
	}
	for (; i < z->nb_tok && ty == NULL; i++) {
		if (!has_ttl && !t[i].quoted && isdigit((unsigned char)t[i].p[0])) {
			if (zp_ttl(&t[i], &ttl) < 0)
				return zp_err(z, "bad TTL %.*s", t[i].p, t[i].len);
			has_ttl = true;
		} else if (!has_class && zp_tok_is(&t[i], "IN")) {
			has_class = true;
		} else if (zp_tok_is(&t[i], "CH") || zp_tok_is(&t[i], "HS") ||
			   zp_tok_is(&t[i], "CS") ||
			   (t[i].len > 5 && strncasecmp(t[i].p, "CLASS", 5) == 0)) {
			return zp_err(z, "class %.*s not served (IN only)", t[i].p, t[i].len);
		} else {
			ty = zp_type_find(&t[i]);
			if (ty == NULL)
				return zp_err(z, "type %.*s not served (A NS CNAME SOA PTR HINFO "
					      "MX TXT AAAA SRV CAA DS RRSIG NSEC DNSKEY NSEC3 "
					      "NSEC3PARAM CDS CDNSKEY)", t[i].p, t[i].len);
		}
	}
	if (ty == NULL)
		return zp_err(z, "%.*sno type", "", 0);
	dns_name_lower(low, owner);
	if (!dns_name_under(low, z->zone)) {
		char s[DNS_NAME_MAX * 4];

		dns_name_str(owner, s, sizeof(s));
		return zp_err(z, "owner %.*s is outside the zone", s, strlen(s));
	}
	memcpy(z->owner, owner, dns_name_len(owner));
	z->has_owner = true;
	rd->len = 0;
	if (zp_rdata(z, ty, &t[i], z->nb_tok - i, rd) < 0)
		return -EINVAL;
	if (!has_ttl) {
		if (z->has_def_ttl)
			ttl = z->def_ttl;
		else if (z->has_last_ttl)
			ttl = z->last_ttl;
		else if (ty->type == DNS_T_SOA)	/* RFC 1035: the SOA minimum */
			ttl = ((uint32_t)rd->b[rd->len - 4] << 24) |
			      ((uint32_t)rd->b[rd->len - 3] << 16) |
			      ((uint32_t)rd->b[rd->len - 2] << 8) | rd->b[rd->len - 1];
		else
			return zp_err(z, "%.*sno TTL and no $TTL before", "", 0);
	}
	z->last_ttl = ttl;
	z->has_last_ttl = true;
	return zp_add(z, owner, ty->type, ttl, rd);
}

int
dns_zparse_text(const char *text, size_t len, const char *fname,
		const uint8_t *origin, struct dns_recs *out, char *why,
		size_t whylen)
{
	struct zp *z = calloc(1, sizeof(*z));
	struct zp_rd *rd = malloc(sizeof(*rd));
	int rc = 0;

	if (z == NULL || rd == NULL) {
		free(z);
		free(rd);
		return tfo_errmsg(why, whylen, "out of memory");
	}
	z->fname = fname;
	z->s = text;
	z->end = text + len;
	z->line = 1;
	dns_name_lower(z->zone, origin);
	memcpy(z->origin, z->zone, dns_name_len(z->zone));
	z->out = out;
	z->why = why;
	z->whylen = whylen;
	for (;;) {
		rc = zp_next_entry(z);
		if (rc <= 0)
			break;
		rc = zp_entry(z, rd);
		if (rc < 0)
			break;
	}
	free(rd);
	free(z);
	return rc < 0 ? -EINVAL : 0;
}

int
dns_zparse_file(const char *path, const uint8_t *origin, struct dns_recs *out,
		char *why, size_t whylen)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long n;
	size_t got;
	int rc;

	if (f == NULL)
		return tfo_errmsg(why, whylen, "%s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    (unsigned long)n > ZP_MAX_FILE || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return tfo_errmsg(why, whylen, "%s: cannot read (or larger than %u MiB)",
				  path, ZP_MAX_FILE >> 20);
	}
	text = malloc((size_t)n + 1);
	if (text == NULL) {
		fclose(f);
		return tfo_errmsg(why, whylen, "out of memory");
	}
	got = fread(text, 1, (size_t)n, f);
	fclose(f);
	if (got != (size_t)n) {
		free(text);
		return tfo_errmsg(why, whylen, "%s: short read", path);
	}
	rc = dns_zparse_text(text, got, path, origin, out, why, whylen);
	free(text);
	return rc;
}

int
dns_recs_push(struct dns_recs *rs, const struct dns_rec *r)
{
	struct dns_rec *d;
	unsigned int ol = dns_name_len(r->owner);

	if (rs->n == rs->cap) {
		unsigned int cap = rs->cap ? 2 * rs->cap : 64;
		struct dns_rec *nr = realloc(rs->r, cap * sizeof(*nr));

		if (nr == NULL)
			return -ENOMEM;
		rs->r = nr;
		rs->cap = cap;
	}
	d = &rs->r[rs->n];
	*d = *r;
	d->owner = malloc(ol);
	d->rdata = malloc(r->rdlen ? r->rdlen : 1);
	if (d->owner == NULL || d->rdata == NULL) {
		free(d->owner);
		free(d->rdata);
		return -ENOMEM;
	}
	memcpy(d->owner, r->owner, ol);
	memcpy(d->rdata, r->rdata, r->rdlen);
	rs->n++;
	return 0;
}

int
dns_recs_copy(struct dns_recs *out, const struct dns_recs *in)
{
	for (unsigned int i = 0; i < in->n; i++)
		if (dns_recs_push(out, &in->r[i]) < 0) {
			dns_recs_free(out);
			return -ENOMEM;
		}
	return 0;
}

void
dns_recs_free(struct dns_recs *rs)
{
	for (unsigned int i = 0; i < rs->n; i++) {
		free(rs->r[i].owner);
		free(rs->r[i].rdata);
	}
	free(rs->r);
	rs->r = NULL;
	rs->n = rs->cap = 0;
}
