/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the http service's state, shared by its hot path (http.c:
 * request -> response) and its loader (http_load.c: files -> blobs at
 * create()). Private to the service.
 */
#ifndef TFO_HTTP_IMPL_H
#define TFO_HTTP_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_hash_crc.h>
#include <rte_memzone.h>

#include "tfo/service.h"

#include "http_parse.h"
#include "svc_retire.h"

/* Status line + Date + "Connection: keep-alive" fit in this. */
#define HTTP_MIN_BUF 128
#define HTTP_MAX_DEPTH 32
/* a Location of a %-encoded path of max_uri bytes fits */
#define HTTP_HDR_MAX (3 * TFO_HTTP_MAX_URI_LIMIT + 1024)
#define HTTP_BLOB_ALIGN 64
#define HTTP_VALUE_MAX 200

/* Errors (S400 and after) each have a prebuilt object in errors[]. */
enum http_status {
	S200, S204, S206, S301, S304,
	S400, S404, S405, S411, S413, S414, S416, S425, S505, S_MAX
};

/* Status lines and codes, by enum http_status (http.c). */
extern const struct http_status_line {
	const char *line;
	uint8_t len;
	uint16_t code;
	const char *reason;
} http_status_line[S_MAX];

/** One response: what follows the status line, in the blob memzone. */
struct http_obj {
	struct tfo_blob blob;
	uint32_t hdr_len;	/* blob[0, hdr_len): header section (HEAD) */
	uint32_t nm_off;	/* blob[nm_off, hdr_len): the 304's fields */
	uint32_t etag_off;	/* quoted ETag in the blob, 0 if none */
	uint16_t etag_len;
	uint16_t lm_off;	/* Last-Modified value (29 bytes), 0 if none */
	uint8_t status;		/* S200 (file, a path's fixed body), S204,
				 * S301 (redirect) or an error */
	uint8_t flags;		/* HTTP_OBJ_* */
	/* files: blob[cl_off, cl_end) is the Content-Length line, which a
	 * 206 replaces; cl_end 0: no ranges (not a file) */
	uint16_t cl_off;
	uint16_t cl_end;
	uint64_t size;		/* files: the body's length */
};

#define HTTP_OBJ_POST 1		/* POST answered as GET (path rule post = on) */
#define HTTP_OBJ_POST_SYN 2	/* ... also when it came as SYN data */

/* Virtual hosts, and OCSP responders (path rules with ocsp = DIR). */
#define HTTP_MAX_HOSTS 32	/* a key's first byte tells the host: 1..31 */
#define HTTP_MAX_NAMES 64	/* host names, aliases included */
#define HTTP_MAX_OCSP 8
#define HTTP_OCSP_TAG 0x80	/* key tag: 0x80 | responder, then the DER */
#define HTTP_OCSP_MAX_REQ 1024	/* a longer DER request is a miss */

struct http_vhost_name {
	char name[256];		/* lowercase, no port, no trailing dot */
	uint16_t len;
	uint8_t host;		/* 1..HTTP_MAX_HOSTS-1 */
};

/* An OCSP responder: POST to prefix (or prefix/), GET prefix/BASE64. */
struct http_ocsp {
	char prefix[256];	/* the path rule's path, no trailing '/' */
	uint16_t len;
	uint8_t tag;		/* HTTP_OCSP_TAG | index */
	bool post_in_syn;	/* POST as SYN data answered (idempotent) */
};

struct http_slot {
	uint32_t hash;
	uint32_t key_len;	/* 0: empty slot */
	const char *key;
	const struct http_obj *obj;
};

/* Written by one lcore only. */
struct http_date {
	uint64_t next_tsc;
	char str[TFO_HTTP_DATE_LEN];
} __rte_cache_aligned;

/* One loaded document root: what a request is answered from. Immutable
 * once published but for the per-lcore dates. */
struct http_state {
	uint64_t gen;			/* 1 at create(), +1 per reload */
	struct tfo_http_limits lim;
	bool date;
	uint8_t slash;			/* enum tfo_http_slash (encoded_slash) */
	uint32_t max_body;		/* POST bodies: min(max_body, max_request) */
	uint32_t max_request;		/* [tcp] max_request, 0: not given */
	uint8_t default_host;		/* key tag of an unknown Host (0: root) */
	uint8_t nb_names;
	uint8_t nb_ocsp;
	struct http_vhost_name names[HTTP_MAX_NAMES];
	struct http_ocsp ocsp[HTTP_MAX_OCSP];
	uint32_t mask;			/* slots - 1 */
	struct http_slot *slots;
	struct http_obj *objs;
	uint32_t nb_objs;
	uint32_t nb_files;
	char *keys;
	struct http_obj errors[S_MAX];
	const struct rte_memzone *mz;
	/* wall clock: sec0 + (tsc - tsc0 + frac0) / hz */
	uint64_t hz;
	uint64_t tsc0;
	uint64_t frac0;
	int64_t sec0;
	struct http_date *dates;	/* [RTE_MAX_LCORE], per-lcore writes */
};

/* Roots replaced by a reload and not freed yet (a fifth reload is refused). */
#define HTTP_RETIRED 4
/* reload_drain: a few seconds cover a handle() racing the swap and the
 * frames on their way to the NIC; the reference check does the rest */
#define HTTP_GRACE_DEFAULT "10"

/*
 * The service instance (create()'s state): the root it serves now, and
 * what a reload needs. handle() loads cur once per request; a reload
 * (tfo_service.reload, on its own thread) builds a new root and publishes
 * it with one release store. The old one is retired until its grace
 * time (reload_drain) is over and no engine sends from its blobs (objs[],
 * errors[]) any more: svc_retire.h.
 */
struct http_svc {
	struct http_state *cur;		/* atomic: release store, acquire load */
	uint32_t drain_s;		/* reload_drain: the grace time */
	struct svc_retired retired[HTTP_RETIRED];	/* struct http_state */
	/* create()'s arguments, copied for reload() */
	struct tfo_service_args args;
	struct tfo_service_kv *kv;
	char *base_dir;
};

/* The root a request is answered from (wait-free: one load). */
static inline const struct http_state *
http_cur(const void *state)
{
	const struct http_svc *sv = state;

	return __atomic_load_n(&sv->cur, __ATOMIC_ACQUIRE);
}

/* rte_hash_crc() loads unaligned words (UB); paths start anywhere */
static inline uint32_t
http_key_hash(const char *k, uint32_t len)
{
	uint32_t h = 0;
	uint64_t w;

	for (; len >= 8; len -= 8, k += 8) {
		memcpy(&w, k, 8);
		h = rte_hash_crc_8byte(w, h);
	}
	for (; len > 0; len--, k++)
		h = rte_hash_crc_1byte((uint8_t)*k, h);
	return h;
}

/* The service's create() and destroy(), and its configuration checks
 * (http_load.c; see struct tfo_service). */
int tfo_http_create(const struct tfo_service_args *a, void **state);
void tfo_http_destroy(void *state);
int tfo_http_check_key(const char *key, const char *value, char *why, size_t whylen);
int tfo_http_check(const struct tfo_service_args *a, char *why, size_t whylen);
int tfo_http_reload(void *state, char *msg, size_t msglen);
unsigned int tfo_http_reclaim(void *state, tfo_svc_sends_from_fn sends_from, void *arg);

#endif /* TFO_HTTP_IMPL_H */
