/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the http service's loader, shared by its configuration
 * (http_conf.c: keys -> struct http_conf), its loading (http_load.c:
 * files -> a table of blobs) and its life (http_reload.c: create, reload,
 * reclaim, destroy). Private to the service; no hot-path code here.
 */
#ifndef TFO_HTTP_LOAD_H
#define TFO_HTTP_LOAD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tfo/service.h"

#include "http_impl.h"

#define HTTP_MAX_RULES 64
#define HTTP_MAX_EXTRA 8	/* header = lines of one rule */

/* One [path P] section of the rules file (http_rules.c). */
struct http_rule {
	char path[256];		/* exact path, or an fnmatch(3) pattern */
	bool pattern;		/* path holds '*', '?' or '[' */
	bool has_cc;		/* cache_control given ("" = no header) */
	int8_t post;		/* -1: not said, 0, 1 */
	int8_t post_in_syn;	/* -1: not said, 0, 1 */
	uint16_t status;	/* 0, 200 or 204: a fixed answer */
	unsigned int line;	/* of its [path], for messages */
	unsigned int nb_extra;
	char cache_control[HTTP_VALUE_MAX + 1];
	char ctype[HTTP_VALUE_MAX + 1];	/* "": by extension */
	char body[HTTP_VALUE_MAX + 1];
	char extra[HTTP_MAX_EXTRA * (HTTP_VALUE_MAX + 3) + 1];	/* CRLF lines */
	char ocsp[PATH_MAX];	/* ocsp = DIR, resolved; "" if none */
};

/* One [host NAME...] section: a document root of its own. */
struct http_host {
	char root[PATH_MAX];	/* realpath */
	unsigned int line;
};

/* One extension of mime.types (or of the built-in table). */
struct http_mime {
	char *ext;
	char *type;
};

/* The rules file and mime.types, read with the keys (no DPDK). */
struct http_rules {
	char file[PATH_MAX];	/* "": no rules = key */
	unsigned int nb_rules;
	struct http_rule rules[HTTP_MAX_RULES];
	unsigned int nb_hosts;	/* [1, nb_hosts) used: 0 is the root */
	struct http_host hosts[HTTP_MAX_HOSTS];
	unsigned int nb_names;
	struct http_vhost_name names[HTTP_MAX_NAMES];
	uint8_t default_host;	/* 0: the service's root */
	struct http_mime *mime;	/* sorted by ext; NULL: built-in only */
	unsigned int nb_mime;
	char *mime_buf;		/* the strings of mime[] */
};

/* The section's keys as the loader uses them. */
struct http_conf {
	char root[PATH_MAX];	/* realpath of the document root */
	struct http_rules *rules;	/* malloc'd; http_conf_free() */
	uint8_t slash;		/* enum tfo_http_slash */
	uint32_t max_body;
	const char *index;
	const char *cache_control;
	const char *server;
	uint32_t max_key;	/* a longer path cannot be asked for */
	uint64_t max_file;
	uint64_t max_total;
	uint64_t max_files;
	char *why;		/* the last error, for a reload's answer */
	size_t whylen;
};

/* What goes into a table, collected before it is built (http_walk.c). */
enum http_kind {
	HTTP_FILE,		/* a file of a root */
	HTTP_FIXED,		/* a path rule's fixed answer (status =) */
	HTTP_OCSP,		/* a prepared OCSP response */
};

struct http_file {
	char *key;		/* the table's key: [tag] "/dir/name" (what a
				 * request path decodes to), or the OCSP tag
				 * and DER request */
	uint32_t key_len;
	uint8_t tag_len;	/* 1: key[0] is a virtual host's tag */
	uint8_t kind;		/* enum http_kind */
	uint8_t flags;		/* HTTP_OBJ_* */
	char *fs;		/* path on disk (HTTP_FIXED: NULL) */
	uint64_t size;
	int64_t mtime;
	const char *ctype;
	const char *cc;		/* Cache-Control value, "" for none */
	const struct http_rule *fixed;	/* HTTP_FIXED: its rule */
	uint32_t hdr_len;
	uint32_t dir_len;	/* index files: key[0, dir_len) is "/dir/" */
};

struct http_load {
	const struct http_conf *cf;
	uint8_t tag;		/* the virtual host being walked (0: root) */
	struct http_file *files;
	uint32_t nb_files;
	uint32_t cap;
	uint64_t total;
};

/* The entries of @p cf's root, virtual hosts, fixed answers and OCSP
 * responses into @p L, and into @p st what handle() reads of the rules
 * (host names, OCSP paths, encoded_slash, max_body). 0, or a negative
 * errno, logged with the file named (http_load_err). */
int http_collect(struct http_load *L, struct http_conf *cf, struct http_state *st);

/* Log one loading error and keep it in cf->why (a reload answers with it). */
void __attribute__((format(printf, 2, 3)))
http_load_err(const struct http_conf *cf, const char *fmt, ...);

/* A size: bytes, or with K, M, G (powers of 1024). 0 or a negative errno
 * and the reason in @p why. */
int http_parse_size(const char *v, uint64_t *out, char *why, size_t whylen);

/* Seconds in 1..86400. 0 or a negative errno and the reason in @p why. */
int http_parse_seconds(const char *v, uint64_t *out, char *why, size_t whylen);

/* The section's keys into @p cf, @p lim and @p date, checked; the root
 * must be a readable directory. No DPDK. 0, or a negative errno and the
 * reason (naming the key) in @p why. */
int http_conf_read(const struct tfo_service_args *a, struct http_conf *cf,
		   struct tfo_http_limits *lim, bool *date, char *why, size_t whylen);

/* What http_conf_read() allocated (cf->rules). */
void http_conf_free(struct http_conf *cf);

/* Read the rules file @p file (resolved) into @p ru, each error as
 * "rules = FILE:LINE: reason" in @p why; relative paths in it resolve
 * from its directory. No DPDK. */
int http_rules_read(const char *file, struct http_rules *ru, char *why,
		    size_t whylen);

/* Whether rule @p r applies to the path @p p ("/dir/name" from its root):
 * an exact path, or fnmatch(3) on the path (a pattern with '/') or on the
 * file name (one without). */
bool http_rule_matches(const struct http_rule *r, const char *p);

/* Read mime.types at @p path into @p ru (absent: the built-in table);
 * @p must: an error if it cannot be read. */
int http_mime_read(const char *path, bool must, struct http_rules *ru,
		   char *why, size_t whylen);
void http_mime_free(struct http_rules *ru);

/* The Content-Type of file name @p name: the built-in table (text types
 * with charset=utf-8; the PKIX and OCSP types), then mime.types, then
 * application/octet-stream. */
const char *http_content_type(const struct http_rules *ru, const char *name);

/* Room for the header lines the rules add to one file. */
#define HTTP_EXTRA_MAX 4096

/* The header lines of the rules of @p ru that match path @p p into
 * @p extra (HTTP_EXTRA_MAX bytes); -1 if they do not fit. */
int http_rules_extra(const struct http_rules *ru, const char *p, char *extra);

/* What the rules of @p ru that match path @p p say: Cache-Control (from
 * @p cc0 on), Content-Type (left alone if none says), the POST flags
 * (HTTP_OBJ_*); later rules win. */
void http_apply_rules(const struct http_rules *ru, const char *cc0, const char *p,
		      const char **cc, const char **ctype, uint8_t *flags);

/* Resolve @p p from @p base (when relative) into @p out (realpath).
 * 0, or -errno. */
int http_resolve(const char *base, const char *p, char *out);

/* Load the document root of @p a into a new table (*out); any thread.
 * 0 and a summary in @p why, or a negative errno and the reason. */
int http_table_load(const struct tfo_service_args *a, struct http_state **out,
		    char *why, size_t whylen);

/* A table and its memory (NULL: nothing). */
void http_table_free(struct http_state *st);

#endif /* TFO_HTTP_LOAD_H */
