/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: service "http", loading: from the configuration and the
 * entries http_walk.c collects, one new table: every response blob (the
 * layout and the rules are in http.c's header) in one IOVA-contiguous
 * memzone, the hash slots, the per-lcore dates; http_table_free() frees it.
 *
 * Keys of [service http] and their checks: http_conf.c. Reload
 * (SIGHUP, /tfo/reload) and the retired roots: http_reload.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

#include "tfo/log.h"
#include "tfo/service.h"

#include "http_impl.h"
#include "http_load.h"

/* Log one loading error and keep it for the caller (reload answers with it). */
void
http_load_err(const struct http_conf *cf, const char *fmt, ...)
{
	char line[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	TFO_LOG(ERR, "http: %s", line);
	if (cf->why != NULL)
		snprintf(cf->why, cf->whylen, "%s", line);
}

/* Not cryptographic: an ETag only has to change when the content does. */
static uint64_t
http_content_hash(const uint8_t *p, uint64_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	uint64_t h = 0xcbf29ce484222325ULL ^ (n * k), w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, p, n);
	h = (h ^ w) * k;
	/* murmur3 finalizer */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* Header section of a file's 200 (offsets into it through @p o). */
static uint32_t
http_file_hdr(char *out, const struct http_conf *cf, const struct http_file *f,
	      uint64_t hash, struct http_obj *o)
{
	char lm[TFO_HTTP_DATE_LEN + 1], extra[HTTP_EXTRA_MAX];
	int n, m;

	/* checked at http_add_file: fits */
	if (f->kind == HTTP_OCSP)
		snprintf(extra, sizeof(extra), "%s", f->fixed->extra);
	else if (http_rules_extra(cf->rules, f->key + f->tag_len, extra) < 0)
		extra[0] = '\0';
	tfo_http_fmt_date(lm, f->mtime < 0 ? 0 : f->mtime);
	lm[TFO_HTTP_DATE_LEN] = '\0';
	n = snprintf(out, HTTP_HDR_MAX, "Content-Type: %s\r\n", f->ctype);
	o->cl_off = (uint16_t)n;
	n += snprintf(out + n, HTTP_HDR_MAX - n, "Content-Length: %" PRIu64 "\r\n",
		      f->size);
	o->cl_end = (uint16_t)n;
	o->size = f->size;
	n += snprintf(out + n, HTTP_HDR_MAX - n, "Last-Modified: ");
	o->lm_off = (uint16_t)n;
	n += snprintf(out + n, HTTP_HDR_MAX - n, "%s\r\n", lm);
	o->nm_off = (uint32_t)n;
	if (cf->server[0] != '\0')
		n += snprintf(out + n, HTTP_HDR_MAX - n, "Server: %s\r\n",
			      cf->server);
	m = snprintf(out + n, HTTP_HDR_MAX - n, "ETag: ");
	o->etag_off = (uint32_t)(n + m);
	o->etag_len = 18;
	n += m;
	n += snprintf(out + n, HTTP_HDR_MAX - n, "\"%016" PRIx64 "\"\r\n", hash);
	if (f->cc[0] != '\0')
		n += snprintf(out + n, HTTP_HDR_MAX - n, "Cache-Control: %s\r\n",
			      f->cc);
	n += snprintf(out + n, HTTP_HDR_MAX - n, "%s\r\n", extra);
	o->hdr_len = (uint32_t)n;
	o->flags = f->flags;
	return (uint32_t)n;
}

/*
 * Header section and body of a path rule's fixed answer (status = 200 with
 * its body, or 204 without one: RFC 9110 15.3.5, no Content-Length).
 */
static uint32_t
http_fixed_obj(char *out, const struct http_conf *cf, const struct http_file *f,
	       struct http_obj *o)
{
	const struct http_rule *r = f->fixed;
	size_t bl = strlen(r->body);
	int n = 0;

	/* o->blob is set already (http_fill) */
	o->nm_off = 0;
	o->etag_off = 0;
	o->etag_len = 0;
	o->lm_off = 0;
	o->cl_off = 0;
	o->cl_end = 0;
	if (r->status == 200)
		n += snprintf(out + n, HTTP_HDR_MAX - n, "Content-Type: %s\r\n"
			      "Content-Length: %zu\r\n", f->ctype, bl);
	if (cf->server[0] != '\0')
		n += snprintf(out + n, HTTP_HDR_MAX - n, "Server: %s\r\n",
			      cf->server);
	if (f->cc[0] != '\0')
		n += snprintf(out + n, HTTP_HDR_MAX - n, "Cache-Control: %s\r\n",
			      f->cc);
	n += snprintf(out + n, HTTP_HDR_MAX - n, "%s\r\n", r->extra);
	o->hdr_len = (uint32_t)n;
	o->status = r->status == 204 ? S204 : S200;
	o->flags = f->flags;
	memcpy(out + n, r->body, bl);
	return (uint32_t)(n + bl);
}

/* Percent-encode what may not appear raw in a Location path. */
static size_t
http_uri_encode(char *out, size_t cap, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (n + 4 > cap)
			break;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~/!$&'()*+,;=:@", c)) {
			out[n++] = (char)c;
		} else {
			out[n++] = '%';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		}
	}
	out[n] = '\0';
	return n;
}

/*
 * Header section and body of an error (status @p s) or, with @p location,
 * a redirect there. @p out: HTTP_HDR_MAX bytes. @return the length.
 */
static uint32_t
http_small_obj(char *out, const struct http_conf *cf, enum http_status s,
	       const char *location, struct http_obj *o)
{
	char body[64];
	int n = 0, bl;

	bl = snprintf(body, sizeof(body), "%u %s\n", http_status_line[s].code,
		      http_status_line[s].reason);
	if (cf->server[0] != '\0')
		n += snprintf(out + n, HTTP_HDR_MAX - n, "Server: %s\r\n",
			      cf->server);
	if (s == S405)
		n += snprintf(out + n, HTTP_HDR_MAX - n, "Allow: GET, HEAD\r\n");
	if (location != NULL)
		n += snprintf(out + n, HTTP_HDR_MAX - n, "Location: %s\r\n",
			      location);
	n += snprintf(out + n, HTTP_HDR_MAX - n,
		      "Content-Type: text/plain; charset=utf-8\r\n"
		      "Content-Length: %d\r\n\r\n", bl);
	o->hdr_len = (uint32_t)n;
	o->nm_off = 0;
	o->etag_off = 0;
	o->etag_len = 0;
	o->lm_off = 0;
	o->cl_off = 0;
	o->cl_end = 0;	/* no ranges */
	o->flags = 0;
	o->status = (uint8_t)s;
	memcpy(out + n, body, (size_t)bl);
	return (uint32_t)(n + bl);
}

/* Read @p f into @p dst (f->size bytes): the file must not have changed. */
static int
http_read_file(const struct http_conf *cf, const struct http_file *f,
	       uint8_t *dst)
{
	uint64_t got = 0;
	uint8_t extra;
	ssize_t r;
	int fd, rc = 0;

	fd = open(f->fs, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		rc = -errno;
		http_load_err(cf, "%s: cannot open %s: %s", cf->root, f->fs,
			strerror(errno));
		return rc;
	}
	while (got < f->size) {
		r = read(fd, dst + got, f->size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (uint64_t)r;
	}
	if (got != f->size || read(fd, &extra, 1) != 0) {
		http_load_err(cf, "%s: %s changed size while loading (or read "
			"error)", cf->root, f->fs);
		rc = -EIO;
	}
	close(fd);
	return rc;
}


static int
http_table_add(struct http_state *st, const char *key, uint32_t len,
	       const struct http_obj *o)
{
	uint32_t h = http_key_hash(key, len), i = h & st->mask;

	while (st->slots[i].key_len != 0) {
		if (st->slots[i].key_len == len &&
		    memcmp(st->slots[i].key, key, len) == 0)
			return -EEXIST;
		i = (i + 1) & st->mask;
	}
	st->slots[i].hash = h;
	st->slots[i].key_len = len;
	st->slots[i].key = key;
	st->slots[i].obj = o;
	return 0;
}


/* Point @p o at the next @p len bytes of the blob zone, from *off on. */
static uint8_t *
http_blob_take(struct http_state *st, struct http_obj *o, uint64_t *off,
	       uint32_t len)
{
	uint8_t *base = (uint8_t *)st->mz->addr + *off;

	o->blob.data = base;
	o->blob.len = len;
	o->blob.iova = st->mz->iova == RTE_BAD_IOVA ? RTE_BAD_IOVA :
		       st->mz->iova + *off;
	*off += RTE_ALIGN_CEIL(len, HTTP_BLOB_ALIGN);
	return base;
}

/* A small object (error, redirect) built in @p hdr, copied to the zone. */
static void
http_blob_small(struct http_state *st, struct http_obj *o, uint64_t *off,
		char *hdr, const struct http_conf *cf, enum http_status s,
		const char *location)
{
	uint32_t n = http_small_obj(hdr, cf, s, location, o);

	memcpy(http_blob_take(st, o, off, n), hdr, n);
}

/* Whether @p f is an index file ("/dir/index.html"): its dir_len. */
static uint32_t
http_index_len(const struct http_conf *cf, const struct http_file *f)
{
	size_t ilen = strlen(cf->index), kl = f->key_len;

	if (f->kind != HTTP_FILE || kl <= ilen + f->tag_len ||
	    strcmp(f->key + kl - ilen, cf->index) != 0 || f->key[kl - ilen - 1] != '/')
		return 0;
	return (uint32_t)(kl - ilen);
}

/* The "/dir" -> "/dir/" redirect of index file @p f into @p hdr. */
static uint32_t
http_redirect_obj(char *hdr, char *loc, const struct http_conf *cf,
		  const struct http_file *f, struct http_obj *o)
{
	http_uri_encode(loc, HTTP_HDR_MAX, f->key + f->tag_len,
			f->dir_len - f->tag_len);
	return http_small_obj(hdr, cf, S301, loc, o);
}

/*
 * Read the files into the blob zone behind their headers, and key them:
 * "/dir/name"; an index file also as "/dir/", plus "/dir" -> 301.
 */
static int
http_fill(struct http_state *st, const struct http_conf *cf,
	  const struct http_load *L, char *hdr, char *loc)
{
	uint64_t off = 0, keys_len = 0;
	uint32_t o_i = 0, kl;
	int rc = 0;

	for (uint32_t i = 0; i < L->nb_files && rc == 0; i++) {
		const struct http_file *f = &L->files[i];
		struct http_obj *o = &st->objs[o_i++];
		char *key = st->keys + keys_len;
		uint8_t *base = http_blob_take(st, o, &off,
					       (uint32_t)(f->hdr_len + f->size));

		if (f->kind == HTTP_FIXED) {
			if (http_fixed_obj(hdr, cf, f, o) != f->hdr_len + f->size)
				return -EIO;
			memcpy(base, hdr, f->hdr_len + f->size);
		} else {
			rc = http_read_file(cf, f, base + f->hdr_len);
			if (rc != 0)
				return rc;
			if (http_file_hdr(hdr, cf, f, http_content_hash(base +
					  f->hdr_len, f->size), o) != f->hdr_len)
				return -EIO;
			memcpy(base, hdr, f->hdr_len);
			o->status = S200;
		}
		kl = f->key_len;
		memcpy(key, f->key, kl + 1);
		keys_len += kl + 1;
		rc = http_table_add(st, key, kl, o);
		if (rc == 0 && f->dir_len != 0)
			rc = http_table_add(st, key, f->dir_len, o);
		if (rc == 0 && f->dir_len > f->tag_len + 1U) {
			struct http_obj *r = &st->objs[o_i++];
			uint32_t n = http_redirect_obj(hdr, loc, cf, f, r);

			memcpy(http_blob_take(st, r, &off, n), hdr, n);
			rc = http_table_add(st, key, f->dir_len - 1, r);
		}
		if (rc != 0)
			http_load_err(cf, "%s: %s: two answers for one path (a file "
				"and a path rule's status, or an OCSP request twice)",
				cf->root, f->kind == HTTP_OCSP ? f->fs : f->key + f->tag_len);
	}
	for (int s = S400; s < S_MAX && rc == 0; s++)
		http_blob_small(st, &st->errors[s], &off, hdr, cf, s, NULL);
	return rc;
}

/* What the blobs and tables of a document root take. */
struct http_sizes {
	uint64_t arena;		/* blob bytes, each blob aligned */
	uint64_t keys_len;	/* the paths, NUL-terminated */
	uint32_t nb_dirs;	/* directories with an index file */
	uint32_t nb_redirects;	/* "/dir" -> "/dir/" (all but the root) */
};

/* Sizes: files, then one redirect per directory with an index, then the errors. */
static void
http_measure(struct http_load *L, const struct http_conf *cf, char *hdr, char *loc,
	     struct http_sizes *sz)
{
	memset(sz, 0, sizeof(*sz));
	for (uint32_t i = 0; i < L->nb_files; i++) {
		struct http_file *f = &L->files[i];
		struct http_obj tmp;

		if (f->kind == HTTP_FIXED) {
			f->size = strlen(f->fixed->body);
			f->hdr_len = http_fixed_obj(hdr, cf, f, &tmp) - (uint32_t)f->size;
		} else {
			f->hdr_len = http_file_hdr(hdr, cf, f, 0, &tmp);
		}
		sz->arena += RTE_ALIGN_CEIL(f->hdr_len + f->size, HTTP_BLOB_ALIGN);
		sz->keys_len += f->key_len + 1;
		f->dir_len = http_index_len(cf, f);
		if (f->dir_len == 0)
			continue;
		sz->nb_dirs++;
		if (f->dir_len > f->tag_len + 1U) {
			sz->arena += RTE_ALIGN_CEIL(http_redirect_obj(hdr, loc, cf, f,
						    &tmp), HTTP_BLOB_ALIGN);
			sz->nb_redirects++;
		}
	}
	for (int s = S400; s < S_MAX; s++) {
		struct http_obj tmp;

		sz->arena += RTE_ALIGN_CEIL(http_small_obj(hdr, cf, s, NULL, &tmp),
					    HTTP_BLOB_ALIGN);
	}
}

/* The blob memzone, objects, hash slots, paths and per-lcore dates. */
static int
http_setup_memory(struct http_state *st, const struct tfo_service_args *a,
	   const struct http_conf *cf, const struct http_load *L,
	   const struct http_sizes *sz)
{
	static unsigned int instance;
	char mzname[RTE_MEMZONE_NAMESIZE];
	uint64_t nslots;

	/* the blobs: one IOVA-contiguous zone, so blob.iova + off is valid */
	snprintf(mzname, sizeof(mzname), "tfo_http_%u",
		 __atomic_fetch_add(&instance, 1, __ATOMIC_RELAXED));
	st->mz = rte_memzone_reserve_aligned(mzname, sz->arena, a->socket_id,
					     RTE_MEMZONE_IOVA_CONTIG,
					     RTE_CACHE_LINE_SIZE);
	st->nb_objs = L->nb_files + sz->nb_redirects;
	st->nb_files = L->nb_files;
	nslots = rte_align64pow2(2 * (uint64_t)(L->nb_files + sz->nb_dirs +
						 sz->nb_redirects) + 16);
	st->objs = rte_zmalloc_socket("tfo_http_objs",
				      (st->nb_objs + 1) * sizeof(*st->objs),
				      RTE_CACHE_LINE_SIZE, a->socket_id);
	st->slots = rte_zmalloc_socket("tfo_http_slots",
				       nslots * sizeof(*st->slots),
				       RTE_CACHE_LINE_SIZE, a->socket_id);
	st->keys = rte_malloc_socket("tfo_http_keys", sz->keys_len + 1, 0,
				     a->socket_id);
	st->dates = rte_zmalloc_socket("tfo_http_dates",
				       RTE_MAX_LCORE * sizeof(*st->dates),
				       RTE_CACHE_LINE_SIZE, a->socket_id);
	if (st->mz == NULL || st->objs == NULL || st->slots == NULL ||
	    st->keys == NULL || st->dates == NULL) {
		http_load_err(cf, "%s: cannot allocate %" PRIu64 " bytes of "
			"IOVA-contiguous memory for %u files (%" PRIu64
			" bytes of content) on socket %d: give EAL more memory "
			"(-m) or lower max_total_size", cf->root, sz->arena,
			L->nb_files, L->total, a->socket_id);
		return -ENOMEM;
	}
	st->mask = (uint32_t)nslots - 1;
	return 0;
}

/* A table and its memory (NULL: nothing). */
void
http_table_free(struct http_state *st)
{
	if (st == NULL)
		return;
	rte_memzone_free(st->mz);
	rte_free(st->objs);
	rte_free(st->slots);
	rte_free(st->keys);
	rte_free(st->dates);
	rte_free(st);
}

/* The clock for Date: wall clock now, then the TSC (see http.c). */
static void
http_clock_init(struct http_state *st)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	st->tsc0 = rte_rdtsc();
	st->hz = rte_get_tsc_hz();
	st->sec0 = ts.tv_sec;
	st->frac0 = (uint64_t)ts.tv_nsec * st->hz / 1000000000ULL;
}

/*
 * Load the document root of section @p a into a new table: on create(),
 * and on a reload's own thread (no lcore: only DPDK memory calls that any
 * thread may make). @p why: the reason it failed (also logged).
 */
int
http_table_load(const struct tfo_service_args *a, struct http_state **out,
		 char *why, size_t whylen)
{
	char hdr[HTTP_HDR_MAX], loc[HTTP_HDR_MAX];
	struct http_load L = { 0 };
	struct http_sizes sz;
	struct http_conf cf;
	struct http_state *st;
	int rc;

	snprintf(why, whylen, "out of memory");
	st = rte_zmalloc_socket("tfo_http", sizeof(*st), RTE_CACHE_LINE_SIZE,
				a->socket_id);
	if (st == NULL)
		return -ENOMEM;
	rc = http_conf_read(a, &cf, &st->lim, &st->date, why, whylen);
	if (rc != 0) {
		TFO_LOG(ERR, "http: %s", why);
		goto fail;
	}
	cf.why = why;
	cf.whylen = whylen;
	L.cf = &cf;
	rc = http_collect(&L, &cf, st);
	if (rc != 0)
		goto fail;
	st->max_request = a->max_request;
	http_measure(&L, &cf, hdr, loc, &sz);
	rc = http_setup_memory(st, a, &cf, &L, &sz);
	if (rc != 0)
		goto fail;
	rc = http_fill(st, &cf, &L, hdr, loc);
	if (rc != 0)
		goto fail;
	http_clock_init(st);

	snprintf(why, whylen, "%u files, %" PRIu64 " bytes from %s%s "
		 "(%" PRIu64 " KiB with headers, %u directory indexes)",
		 L.nb_files, L.total, tfo_service_arg(a, "root", "www"),
		 cf.rules->nb_hosts > 1 ? " and the virtual hosts' roots" : "",
		 sz.arena >> 10, sz.nb_dirs);
	*out = st;
	st = NULL;
fail:
	http_conf_free(&cf);
	for (uint32_t i = 0; i < L.nb_files; i++) {
		free(L.files[i].key);
		free(L.files[i].fs);
	}
	free(L.files);
	if (st != NULL)
		http_table_free(st);
	return rc;
}
