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

/* The section's keys as the loader uses them. */
struct http_conf {
	char root[PATH_MAX];	/* realpath of the document root */
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

/* Load the document root of @p a into a new table (*out); any thread.
 * 0 and a summary in @p why, or a negative errno and the reason. */
int http_table_load(const struct tfo_service_args *a, struct http_state **out,
		    char *why, size_t whylen);

/* A table and its memory (NULL: nothing). */
void http_table_free(struct http_state *st);

#endif /* TFO_HTTP_LOAD_H */
