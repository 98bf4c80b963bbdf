/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: the http tests' harness (http_harness.h).
 */
#include "http_harness.h"

const struct tfo_service *svc;
/* what the engine tells handle() of a plain TCP request */
uint64_t http_ctrs[TFO_SVC_MAX_COUNTERS];
const struct tfo_svc_ctx tcp_ctx = {
	.family = AF_INET, .transport = TFO_SVC_TCP, .dst_port = 80,
	.counters = http_ctrs,
};
/* what ask_n() tells handle(): tcp_ctx, or a test's */
const struct tfo_svc_ctx *cur_ctx = &tcp_ctx;
void *www;		/* tests/www, date = no */
uint8_t scratch[4096];
uint8_t out[(1 << 20) + 8192];
size_t out_len;

/* create() with key, value pairs (NULL-terminated); rc in *rc */
void *
mk(int *rc, const char *root, ...)
{
	struct tfo_service_kv kv[16];
	struct tfo_service_args a = { .port = 80, .kv = kv, .socket_id = 0,
				      .base_dir = NULL };
	const char *k;
	void *st = NULL;
	va_list ap;

	kv[a.nb_kv].key = "root";
	kv[a.nb_kv++].value = root;
	va_start(ap, root);
	while ((k = va_arg(ap, const char *)) != NULL && a.nb_kv < 16) {
		kv[a.nb_kv].key = k;
		kv[a.nb_kv++].value = va_arg(ap, const char *);
	}
	va_end(ap);
	*rc = svc->create(&a, &st);
	return *rc == 0 ? st : NULL;
}

/* handle() on a private copy of exactly @p len bytes; flattens into out */
enum tfo_svc_status
ask_n(const void *st, const void *req, size_t len, struct tfo_svc_resp *r)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum tfo_svc_status s;

	memcpy(copy, req, len);
	memset(r, 0, sizeof(*r));
	r->buf = scratch;
	r->buf_cap = sizeof(scratch);
	s = svc->handle(st, cur_ctx, copy, (uint32_t)len, r);
	out_len = 0;
	if (s == TFO_SVC_RESPOND) {
		memcpy(out, r->buf, r->buf_len);
		out_len = r->buf_len;
		if (r->body != NULL) {
			memcpy(out + out_len, r->body->data + r->body_off,
			       r->body_len);
			out_len += r->body_len;
		}
	}
	out[out_len] = '\0';
	free(copy);
	return s;
}

enum tfo_svc_status
ask(const void *st, const char *req, struct tfo_svc_resp *r)
{
	return ask_n(st, req, strlen(req), r);
}

/* Status code of the flattened response, or 0. */
int
code(void)
{
	if (out_len < 12 || memcmp(out, "HTTP/1.1 ", 9) != 0)
		return 0;
	return atoi((const char *)out + 9);
}

int
has(const char *s)
{
	return strstr((const char *)out, s) != NULL;
}

/* The response body: what follows the empty line. */
const char *
body(size_t *len)
{
	const char *e = strstr((const char *)out, "\r\n\r\n");

	if (e == NULL) {
		*len = 0;
		return "";
	}
	*len = out_len - (size_t)(e + 4 - (const char *)out);
	return e + 4;
}

/* Value of header @p name into @p v (no CRLF), "" when absent. */
void
hdr(const char *name, char *v, size_t cap)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof(pat), "\r\n%s: ", name);
	v[0] = '\0';
	p = strstr((const char *)out, pat);
	if (p == NULL)
		return;
	p += strlen(pat);
	e = strstr(p, "\r\n");
	if (e == NULL || (size_t)(e - p) >= cap)
		return;
	memcpy(v, p, (size_t)(e - p));
	v[e - p] = '\0';
}

uint64_t
stat_of(const char *name)
{
	for (unsigned int i = 0; svc->counters[i].name != NULL; i++)
		if (strcmp(svc->counters[i].name, name) == 0)
			return http_ctrs[i];
	CHECK_MSG(false, "http declares no counter %s", name);
	return UINT64_MAX;
}

char *
read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	*len = fread(b, 1, (size_t)n, f);
	fclose(f);
	return b;
}

/* ---- loading: a scratch tree per case --------------------------------- */

char tmp_root[256];

void
tmp_make(void)
{
	snprintf(tmp_root, sizeof(tmp_root), "/tmp/tfo_http_test.XXXXXX");
	if (mkdtemp(tmp_root) == NULL)
		tmp_root[0] = '\0';
}

void
tmp_file(const char *rel, size_t size, uint8_t fill)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmp_root, rel);
	f = fopen(p, "wb");
	if (f == NULL)
		return;
	for (size_t i = 0; i < size; i++)
		fputc(fill ? fill : (int)(i * 131 % 251), f);
	fclose(f);
}

void
tmp_clean(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp_root);
}

/* create() with the log captured into @p log */
void *
mk_logged(int *rc, char *log, size_t cap, ...)
{
	FILE *mem = fmemopen(log, cap, "w");
	FILE *old = rte_log_get_stream();
	const char *k[8] = { 0 }, *v[8] = { 0 };
	unsigned int n = 0;
	va_list ap;
	void *st;

	memset(log, 0, cap);
	va_start(ap, cap);
	while (n < 8 && (k[n] = va_arg(ap, const char *)) != NULL) {
		v[n] = va_arg(ap, const char *);
		n++;
	}
	va_end(ap);
	rte_openlog_stream(mem);
	st = mk(rc, tmp_root, k[0], v[0], k[1], v[1], k[2], v[2], NULL);
	fflush(mem);
	rte_openlog_stream(old);
	fclose(mem);
	return st;
}

/* Write @p text to tmp_root/@p rel. */
void
tmp_text(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmp_root, rel);
	f = fopen(p, "w");
	if (f == NULL)
		return;
	fputs(text, f);
	fclose(f);
}

void
tmp_dir(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", tmp_root, rel);
	mkdir(p, 0755);
}

/* check() of root = tmp_root/www with rules = tmp_root/rules.ini: 0 or the
 * error, into @p why */
int
check_rules(const char *rules, char *why, size_t cap)
{
	char root[512], file[512];
	struct tfo_service_kv kv[2];
	struct tfo_service_args a = { .port = 80, .kv = kv, .nb_kv = 2 };

	tmp_text("rules.ini", rules);
	snprintf(root, sizeof(root), "%s/www", tmp_root);
	snprintf(file, sizeof(file), "%s/rules.ini", tmp_root);
	kv[0].key = "root";
	kv[0].value = root;
	kv[1].key = "rules";
	kv[1].value = file;
	why[0] = '\0';
	return svc->check(&a, why, cap);
}

const char http_rules_ok[] =
	"# connectivity check, a fixed body, PKI files, a beacon, OCSP\n"
	"[path /generate_204]   ; comments after white space\n"
	"status = 204\t# as in the configuration\n"
	"cache_control = no-store\n"
	"[path /hello]\n"
	"status = 200\n"
	"body = hi there\n"
	"content_type = text/plain\n"
	"header = X-Check: 1#not a comment\n"
	"[path *.crl]\n"
	"cache_control = max-age=3600\n"
	"header = X-A: a\n"
	"header = X-B: b\n"
	"[path /beacon]\n"
	"status = 204\n"
	"post = yes\n"
	"[path /idem]\n"
	"status = 204\n"
	"post = yes\n"
	"post_in_syn = yes\n"
	"[path /ocsp]\n"
	"ocsp = ocsp\n"
	"post_in_syn = yes\n"
	"[host a.example A2.Example.]\n"
	"root = www-a\n"
	"[host b.example]\n"
	"root = www-b\n";

/* A tree: www/ (root: ca.crl, page.txt), www-a/, www-b/, ocsp/ with one
 * response for the "request" bytes 30 03 02 01 07 (base64url MAMCAQc). */
void *
rules_tree(int *rc)
{
	char root[512], file[512];

	tmp_make();
	if (tmp_root[0] == '\0')
		return NULL;
	tmp_dir("www");
	tmp_dir("www-a");
	tmp_dir("www-b");
	tmp_dir("ocsp");
	tmp_text("www/ca.crl", "CRL");
	tmp_text("www/page.txt", "root page");
	tmp_text("www-a/page.txt", "host a page");
	tmp_dir("www-a/sub");
	tmp_text("www-a/sub/index.html", "a index");
	tmp_text("www-b/page.txt", "host b page");
	tmp_text("ocsp/MAMCAQc", "RESPONSE");
	tmp_text("rules.ini", http_rules_ok);
	snprintf(root, sizeof(root), "%s/www", tmp_root);
	snprintf(file, sizeof(file), "%s/rules.ini", tmp_root);
	return mk(rc, root, "date", "no", "rules", file, "max_body", "64", NULL);
}
