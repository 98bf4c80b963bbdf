/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the harness of the http service's unit tests (test_http_*.c,
 * one program, "http"): create() with key/value pairs, handle() on a private
 * copy of exactly the request's length (ASan catches any read past it) with
 * the response flattened into out[], and scratch trees under /tmp for the
 * loading and rules cases.
 */
#ifndef TFO_TEST_HTTP_HARNESS_H
#define TFO_TEST_HTTP_HARNESS_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_log.h>

#include "tfo/service.h"

#include "../services/http_parse.h"
#include "test.h"

/* a buffer the size of the service's minimum (http_impl.h) */
#define HTTP_MIN_BUF_TEST 128
#define WWW TFO_CONFIG_DIR "/../tests/www"

extern const struct tfo_service *svc;
/* what the engine tells handle() of a plain TCP request */
extern const struct tfo_svc_ctx tcp_ctx;
/* what ask_n() tells handle(): tcp_ctx, or a test's */
extern const struct tfo_svc_ctx *cur_ctx;
extern void *www;		/* tests/www, date = no */
/* the service's counters (tcp_ctx.counters) */
extern uint64_t http_ctrs[TFO_SVC_MAX_COUNTERS];
extern uint8_t scratch[4096];
extern uint8_t out[(1 << 20) + 8192];
extern size_t out_len;

/* create() with key, value pairs (NULL-terminated); rc in *rc */
void *
mk(int *rc, const char *root, ...);

/* handle() on a private copy of exactly @p len bytes; flattens into out */
enum tfo_svc_status
ask_n(const void *st, const void *req, size_t len, struct tfo_svc_resp *r);

enum tfo_svc_status
ask(const void *st, const char *req, struct tfo_svc_resp *r);

/* Status code of the flattened response, or 0. */
int
code(void);

int
has(const char *s);

/* The response body: what follows the empty line. */
const char *
body(size_t *len);

/* Value of header @p name into @p v (no CRLF), "" when absent. */
void
hdr(const char *name, char *v, size_t cap);

/* Counter @p name of those http declares (the test fails on a name it
 * does not declare). */
uint64_t
stat_of(const char *name);

char *
read_all(const char *path, size_t *len);

/* ---- loading: a scratch tree per case --------------------------------- */

extern char tmp_root[256];

void
tmp_make(void);

void
tmp_file(const char *rel, size_t size, uint8_t fill);

void
tmp_clean(void);

/* create() with the log captured into @p log */
void *
mk_logged(int *rc, char *log, size_t cap, ...);

/* Write @p text to tmp_root/@p rel. */
void
tmp_text(const char *rel, const char *text);

void
tmp_dir(const char *rel);

/* check() of root = tmp_root/www with rules = tmp_root/rules.ini: 0 or the
 * error, into @p why */
int
check_rules(const char *rules, char *why, size_t cap);

extern const char http_rules_ok[];

/* A tree: www/ (root: ca.crl, page.txt), www-a/, www-b/, ocsp/ with one
 * response for the "request" bytes 30 03 02 01 07 (base64url MAMCAQc). */
void *
rules_tree(int *rc);

#endif /* TFO_TEST_HTTP_HARNESS_H */
