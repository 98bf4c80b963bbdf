/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: service "http", what a table holds: the files of the
 * document root and of each virtual host's (keys tagged with the host),
 * the path rules' fixed answers and the prepared OCSP responses, each
 * checked against the limits (max_files, max_file_size, max_total_size).
 * http_load.c then builds the table from this list.
 *
 * Choices:
 *  - Symlinks are followed when they resolve inside the root; a symlink
 *    that leaves the root, dangles, or a special file (FIFO, socket,
 *    device) fails create() with the file named. Dot files are served:
 *    everything under the root is public.
 *  - An OCSP directory holds only responses, each named by the base64url
 *    of its DER request (padding optional); any other name fails the load.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_common.h>

#include "tfo/log.h"

#include "http_impl.h"
#include "http_load.h"

/*
 * One entry of the table to be: limits (files, sizes), then a copy of
 * @p key (@p key_len bytes, binary for OCSP) and @p fs. @p label names it
 * in messages. The caller fills ctype, cc, extra and the rest.
 */
static struct http_file *
http_add_entry(struct http_load *L, const char *fs, const char *key,
	       uint32_t key_len, uint64_t size, const char *label, int *rc)
{
	const struct http_conf *cf = L->cf;
	struct http_file *f;

	*rc = -EFBIG;
	if (L->nb_files >= cf->max_files) {
		http_load_err(cf, "%s: %s: more than max_files %" PRIu64
			" files", cf->root, label, cf->max_files);
		return NULL;
	}
	if (size > cf->max_file) {
		http_load_err(cf, "%s: %s is %" PRIu64
			" bytes, over max_file_size %" PRIu64, cf->root, label,
			size, cf->max_file);
		return NULL;
	}
	if (L->total + size > cf->max_total) {
		http_load_err(cf, "%s: %s (%" PRIu64 " bytes) would bring the "
			"total to %" PRIu64 " bytes, over max_total_size %"
			PRIu64 " (%u files loaded before it)", cf->root, label,
			size, L->total + size, cf->max_total, L->nb_files);
		return NULL;
	}
	*rc = -ENOMEM;
	if (L->nb_files == L->cap) {
		uint32_t ncap = L->cap ? 2 * L->cap : 64;
		struct http_file *nf = realloc(L->files, ncap * sizeof(*nf));

		if (nf == NULL)
			return NULL;
		L->files = nf;
		L->cap = ncap;
	}
	f = &L->files[L->nb_files];
	memset(f, 0, sizeof(*f));
	f->key = malloc(key_len + 1);
	f->fs = fs != NULL ? strdup(fs) : NULL;
	if (f->key == NULL || (fs != NULL && f->fs == NULL)) {
		free(f->key);
		free(f->fs);
		return NULL;
	}
	memcpy(f->key, key, key_len);
	f->key[key_len] = '\0';
	f->key_len = key_len;
	f->size = size;
	L->nb_files++;
	L->total += size;
	*rc = 0;
	return f;
}

/* A file of a root: key [tag] "/dir/name". */
static int
http_add_file(struct http_load *L, const char *fs, const char *key,
	      const struct stat *sb)
{
	const struct http_conf *cf = L->cf;
	uint8_t tl = L->tag != 0;
	struct http_file *f;
	char extra[HTTP_EXTRA_MAX];
	int rc;

	if (strlen(key) - tl > cf->max_key) {
		TFO_LOG(WARNING, "http: %s: %s skipped: its path is longer than "
			"max_uri %u, no request can name it", cf->root, key + tl,
			cf->max_key);
		return 0;
	}
	f = http_add_entry(L, fs, key, (uint32_t)strlen(key), (uint64_t)sb->st_size,
			   key + tl, &rc);
	if (f == NULL)
		return rc;
	f->tag_len = tl;
	f->kind = HTTP_FILE;
	f->mtime = (int64_t)sb->st_mtime;
	f->ctype = http_content_type(cf->rules, strrchr(key, '/') + 1);
	http_apply_rules(cf->rules, cf->cache_control, key + tl, &f->cc, &f->ctype,
			 &f->flags);
	if (http_rules_extra(cf->rules, key + tl, extra) < 0) {
		http_load_err(cf, "%s: %s: the header lines of its rules exceed %d "
			"bytes", cf->root, key + tl, HTTP_EXTRA_MAX);
		return -E2BIG;
	}
	return 0;
}

static int
http_walk(struct http_load *L, const char *dir, const char *dkey,
	  unsigned int depth)
{
	const struct http_conf *cf = L->cf;
	size_t rootlen = strlen(cf->root);
	char fs[PATH_MAX], key[PATH_MAX], real[PATH_MAX];
	struct dirent **ents = NULL;
	int n, rc = 0;
	struct stat sb;

	if (depth > HTTP_MAX_DEPTH) {
		http_load_err(cf, "%s: %s: directories nested deeper than %d "
			"(a symlink loop?)", cf->root, dkey, HTTP_MAX_DEPTH);
		return -ELOOP;
	}
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		rc = -errno;
		http_load_err(cf, "%s: cannot read directory %s: %s", cf->root,
			dir, strerror(errno));
		return rc;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (rc != 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		if ((size_t)snprintf(fs, sizeof(fs), "%s/%s", dir, name) >=
		    sizeof(fs) ||
		    (size_t)snprintf(key, sizeof(key), "%s%s", dkey, name) >=
		    sizeof(key)) {
			http_load_err(cf, "%s: path too long: %s/%s", cf->root,
				dir, name);
			rc = -ENAMETOOLONG;
			continue;
		}
		if (lstat(fs, &sb) < 0) {
			rc = -errno;
			http_load_err(cf, "%s: %s: %s", cf->root, fs,
				strerror(errno));
			continue;
		}
		if (S_ISLNK(sb.st_mode)) {
			if (realpath(fs, real) == NULL || stat(real, &sb) < 0) {
				rc = -errno;
				http_load_err(cf, "%s: symlink %s: %s",
					cf->root, key, strerror(errno));
				continue;
			}
			if (strncmp(real, cf->root, rootlen) != 0 ||
			    (real[rootlen] != '/' && real[rootlen] != '\0')) {
				http_load_err(cf, "%s: symlink %s points "
					"outside the root, to %s", cf->root,
					key, real);
				rc = -EPERM;
				continue;
			}
		}
		if (S_ISDIR(sb.st_mode)) {
			if (strlen(key) + 2 > sizeof(key)) {
				rc = -ENAMETOOLONG;
				continue;
			}
			strcat(key, "/");
			rc = http_walk(L, fs, key, depth + 1);
		} else if (S_ISREG(sb.st_mode)) {
			rc = http_add_file(L, fs, key, &sb);
		} else {
			http_load_err(cf, "%s: %s is not a regular file or a "
				"directory", cf->root, key);
			rc = -EINVAL;
		}
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return rc;
}


/* Each path rule's fixed answer, for the root and every virtual host. */
static int
http_add_fixed(struct http_load *L, const struct http_rules *ru)
{
	char key[1 + 256];
	int rc = 0;

	for (unsigned int i = 0; i < ru->nb_rules && rc == 0; i++) {
		const struct http_rule *r = &ru->rules[i];

		for (unsigned int h = 0; r->status != 0 && h < RTE_MAX(ru->nb_hosts, 1U) &&
		     rc == 0; h++) {
			struct http_file *f;
			uint8_t tl = h != 0;

			key[0] = (char)h;
			memcpy(key + tl, r->path, strlen(r->path) + 1);
			f = http_add_entry(L, NULL, key, (uint32_t)(strlen(r->path) + tl),
					   strlen(r->body), r->path, &rc);
			if (f == NULL)
				break;
			f->tag_len = tl;
			f->kind = HTTP_FIXED;
			f->fixed = r;
			f->ctype = r->ctype[0] != '\0' ? r->ctype :
				   "text/plain; charset=utf-8";
			http_apply_rules(ru, L->cf->cache_control, r->path, &f->cc, &f->ctype,
					 &f->flags);
		}
	}
	return rc;
}

/* The prepared responses of OCSP path rule @p r (responder @p idx): each
 * file of its directory, named by the base64url of the DER request. */
static int
http_add_ocsp(struct http_load *L, const struct http_rule *r, unsigned int idx)
{
	const struct http_conf *cf = L->cf;
	uint8_t key[1 + HTTP_OCSP_MAX_REQ];
	char fs[PATH_MAX];
	struct dirent **ents = NULL;
	struct http_file *f;
	struct stat sb;
	int n, len, rc = 0;

	n = scandir(r->ocsp, &ents, NULL, alphasort);
	if (n < 0) {
		rc = -errno;
		http_load_err(cf, "ocsp = %s: %s", r->ocsp, strerror(errno));
		return rc;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (rc != 0 || name[0] == '.')
			continue;
		if ((size_t)snprintf(fs, sizeof(fs), "%s/%s", r->ocsp, name) >= sizeof(fs) ||
		    stat(fs, &sb) < 0 || !S_ISREG(sb.st_mode)) {
			http_load_err(cf, "ocsp = %s: %s is not a regular file",
				r->ocsp, name);
			rc = -EINVAL;
			continue;
		}
		key[0] = (uint8_t)(HTTP_OCSP_TAG | idx);
		len = tfo_http_b64_decode((const uint8_t *)name, (uint32_t)strlen(name),
					  false, key + 1, HTTP_OCSP_MAX_REQ);
		if (len <= 0) {
			http_load_err(cf, "ocsp = %s: %s: a name must be the base64url "
				"of a DER OCSP request (at most %d bytes)", r->ocsp,
				name, HTTP_OCSP_MAX_REQ);
			rc = -EINVAL;
			continue;
		}
		f = http_add_entry(L, fs, (const char *)key, (uint32_t)len + 1,
				   (uint64_t)sb.st_size, fs, &rc);
		if (f == NULL)
			continue;
		f->kind = HTTP_OCSP;
		f->fixed = r;
		f->mtime = (int64_t)sb.st_mtime;
		f->ctype = "application/ocsp-response";
		f->cc = r->has_cc ? r->cache_control : cf->cache_control;
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return rc;
}

/*
 * Every entry: the root's files, each virtual host's (keys tagged with
 * the host), the fixed answers, the OCSP responses; and the state's copy
 * of what handle() reads of the rules (hosts, OCSP paths).
 */
int
http_collect(struct http_load *L, struct http_conf *cf, struct http_state *st)
{
	struct http_rules *ru = cf->rules;
	char dkey[3] = "/";
	int rc;

	rc = http_walk(L, cf->root, dkey, 0);
	for (unsigned int h = 1; h < ru->nb_hosts && rc == 0; h++) {
		memcpy(cf->root, ru->hosts[h].root, sizeof(cf->root));
		L->tag = (uint8_t)h;
		dkey[0] = (char)h;
		dkey[1] = '/';
		rc = http_walk(L, cf->root, dkey, 0);
	}
	L->tag = 0;
	if (rc == 0)
		rc = http_add_fixed(L, ru);
	for (unsigned int i = 0; i < ru->nb_rules && rc == 0; i++) {
		const struct http_rule *r = &ru->rules[i];
		struct http_ocsp *oc;

		if (r->ocsp[0] == '\0')
			continue;
		oc = &st->ocsp[st->nb_ocsp];
		oc->len = (uint16_t)strlen(r->path);
		while (oc->len > 1 && r->path[oc->len - 1] == '/')
			oc->len--;
		memcpy(oc->prefix, r->path, oc->len);
		oc->tag = (uint8_t)(HTTP_OCSP_TAG | st->nb_ocsp);
		oc->post_in_syn = r->post_in_syn == 1;
		rc = http_add_ocsp(L, r, st->nb_ocsp++);
	}
	memcpy(st->names, ru->names, sizeof(st->names));
	st->nb_names = (uint8_t)ru->nb_names;
	st->default_host = ru->default_host;
	st->slash = cf->slash;
	st->max_body = cf->max_body;
	return rc;
}
