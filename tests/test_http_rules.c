/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: unit tests of the http service's rules (issue
 * 26): fixed answers by path, POST and SYN data, OCSP, virtual hosts,
 * errors and the default host, MIME keys, reloading the rules; the
 * counters, and teardown (last).
 */
#include "http_harness.h"

TFO_TEST(path_rules_fixed_answers)
{
	struct tfo_svc_resp r;
	uint64_t n204 = stat_of("http_204");
	char v[64];
	size_t bl;
	void *st;
	int rc;

	st = rules_tree(&rc);
	CHECK_EQ(rc, 0);
	REQUIRE(st != NULL);
	CHECK_EQ(ask(st, "GET /generate_204 HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK_EQ(code(), 204);
	CHECK_MSG(!has("Content-Length") && has("Cache-Control: no-store\r\n") &&
		  out_len > 4 && memcmp(out + out_len - 4, "\r\n\r\n", 4) == 0, "%s|%zu|%u",
		  out, out_len, r.body ? r.body->len : 0);
	CHECK_EQ(r.status, 204);
	CHECK_EQ(stat_of("http_204"), n204 + 1);
	CHECK(!r.close);
	ask(st, "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	CHECK(has("Content-Type: text/plain\r\n") && has("X-Check: 1#not a comment\r\n") &&
	      has("Content-Length: 8\r\n"));
	CHECK(strcmp(body(&bl), "hi there") == 0);
	/* the default Cache-Control where no rule says */
	CHECK(has("Cache-Control: no-cache\r\n"));
	/* a pattern: headers and Cache-Control on a file; the PKIX type */
	ask(st, "GET /ca.crl HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	CHECK(has("Content-Type: application/pkix-crl\r\n"));
	CHECK(has("Cache-Control: max-age=3600\r\n") && has("X-A: a\r\nX-B: b\r\n"));
	hdr("Content-Length", v, sizeof(v));
	CHECK(strcmp(v, "3") == 0 && strcmp(body(&bl), "CRL") == 0);
	/* every host answers the fixed paths */
	ask(st, "GET /generate_204 HTTP/1.1\r\nHost: b.example\r\n\r\n", &r);
	CHECK_EQ(code(), 204);
	svc->destroy(st);
	tmp_clean();
}

TFO_TEST(post_rules_and_syn_data)
{
	struct tfo_svc_ctx syn = tcp_ctx;
	struct tfo_svc_resp r;
	uint64_t n425 = stat_of("http_425"), n405 = stat_of("http_405");
	uint64_t n411 = stat_of("http_411"), n413 = stat_of("http_413");
	const char *p3 = "POST /beacon HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
	char v[64];
	void *st;
	int rc;

	st = rules_tree(&rc);
	REQUIRE(st != NULL);
	/* allowed: answered as GET, the body consumed */
	CHECK_EQ(ask(st, p3, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 204);
	CHECK_EQ(r.consumed, strlen(p3));
	CHECK(!r.close);
	/* the body not all here yet */
	CHECK_EQ(ask_n(st, p3, strlen(p3) - 1, &r), TFO_SVC_NEED_MORE);
	/* POST as TFO SYN data: 425 unless post_in_syn */
	syn.in_syn = 1;
	cur_ctx = &syn;
	CHECK_EQ(ask(st, p3, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 425);
	CHECK_EQ(r.consumed, strlen(p3));
	CHECK(!r.close);
	CHECK_EQ(stat_of("http_425"), n425 + 1);
	ask(st, "POST /idem HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", &r);
	CHECK_EQ(code(), 204);
	/* GET in the SYN is fine */
	ask(st, "GET /beacon HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 204);
	cur_ctx = &tcp_ctx;
	/* elsewhere: 405 with Allow, the connection closed */
	ask(st, "POST /page.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", &r);
	CHECK_EQ(code(), 405);
	hdr("Allow", v, sizeof(v));
	CHECK(strcmp(v, "GET, HEAD") == 0 && r.close);
	ask(st, "POST /nosuch HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", &r);
	CHECK_EQ(code(), 405);
	CHECK_EQ(stat_of("http_405"), n405 + 2);
	/* framing: no length, chunked, too long (max_body = 64) */
	ask(st, "POST /beacon HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK(code() == 411 && r.close);
	ask(st, "POST /beacon HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", &r);
	CHECK(code() == 411 && r.close);
	CHECK_EQ(stat_of("http_411"), n411 + 2);
	ask(st, "POST /beacon HTTP/1.1\r\nHost: x\r\nContent-Length: 65\r\n\r\n", &r);
	CHECK(code() == 413 && r.close);
	CHECK_EQ(stat_of("http_413"), n413 + 1);
	/* a GET with a body is still a 400 */
	ask(st, "GET /beacon HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx", &r);
	CHECK_EQ(code(), 400);
	svc->destroy(st);
	tmp_clean();
}

TFO_TEST(ocsp_get_and_post)
{
	/* the DER "request" 30 03 02 01 07: base64 MAMCAQc= */
	static const char post[] = "POST /ocsp HTTP/1.1\r\nHost: x\r\n"
		"Content-Type: application/ocsp-request\r\nContent-Length: 5\r\n\r\n"
		"\x30\x03\x02\x01\x07";
	struct tfo_svc_ctx syn = tcp_ctx;
	struct tfo_svc_resp r;
	uint64_t hit = stat_of("http_ocsp_hit"), miss = stat_of("http_ocsp_miss");
	size_t bl;
	void *st;
	int rc;

	st = rules_tree(&rc);
	REQUIRE(st != NULL);
	CHECK_EQ(ask_n(st, post, sizeof(post) - 1, &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 200);
	CHECK(has("Content-Type: application/ocsp-response\r\n"));
	CHECK(strcmp(body(&bl), "RESPONSE") == 0);
	CHECK_EQ(r.consumed, sizeof(post) - 1);
	/* in the SYN too: post_in_syn = yes (OCSP is idempotent) */
	syn.in_syn = 1;
	cur_ctx = &syn;
	ask_n(st, post, sizeof(post) - 1, &r);
	CHECK_EQ(code(), 200);
	cur_ctx = &tcp_ctx;
	/* GET: base64 in the path, standard or url alphabet, %-encoded or not */
	ask(st, "GET /ocsp/MAMCAQc%3D HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "RESPONSE") == 0);
	ask(st, "GET /ocsp/MAMCAQc= HTTP/1.1\r\nHost: a.example\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	CHECK_EQ(stat_of("http_ocsp_hit"), hit + 4);
	/* unknown request, not base64 */
	ask(st, "GET /ocsp/MAMCAQg HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 404);
	ask(st, "GET /ocsp/**** HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 404);
	CHECK_EQ(stat_of("http_ocsp_miss"), miss + 2);
	svc->destroy(st);
	tmp_clean();
}

TFO_TEST(virtual_hosts)
{
	struct tfo_svc_resp r;
	size_t bl;
	void *st;
	int rc;

	/* any case, a port, a trailing dot, an alias; any other host (an
	 * address, IPv6 too, none in 1.0): the service's root */
	static const struct {
		const char *host, *want;
	} hosts[] = {
		{ "Host: a.example\r\n", "host a page" },
		{ "Host: A2.EXAMPLE.:8080\r\n", "host a page" },
		{ "Host: B.example\r\n", "host b page" },
		{ "Host: 198.18.0.1\r\n", "root page" },
		{ "Host: [fd00::1]:80\r\n", "root page" },
		{ NULL, "root page" },
	};
	char q[256];

	st = rules_tree(&rc);
	REQUIRE(st != NULL);
	for (unsigned int i = 0; i < RTE_DIM(hosts); i++) {
		snprintf(q, sizeof(q), "GET /page.txt HTTP/1.%c\r\n%s\r\n",
			 hosts[i].host ? '1' : '0', hosts[i].host ? hosts[i].host : "");
		ask(st, q, &r);
		CHECK_MSG(code() == 200 && strcmp(body(&bl), hosts[i].want) == 0,
			  "%s: %s", q, out);
	}
	/* a host's directory: the redirect names the path, not the host's tag */
	ask(st, "GET /sub HTTP/1.1\r\nHost: a.example\r\n\r\n", &r);
	CHECK_MSG(code() == 301 && has("Location: /sub/\r\n"), "%s", out);
	ask(st, "GET /sub/ HTTP/1.1\r\nHost: a.example\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "a index") == 0);
	ask(st, "GET /sub/ HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 404);
	/* a host's files only: the root's ca.crl is not a.example's */
	ask(st, "GET /ca.crl HTTP/1.1\r\nHost: a.example\r\n\r\n", &r);
	CHECK_EQ(code(), 404);
	svc->destroy(st);
	tmp_clean();
}

TFO_TEST(rules_default_host_and_errors)
{
	char why[1024], rules[2048];
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "[path /x]\nstatus = 302\n", "rules.ini:2: status = 302: expected 200 or 204" },
		{ "[path *.x]\nstatus = 204\n", "rules.ini:2: status: on an exact path only" },
		{ "status = 204\n", "rules.ini:1: status outside a [path] or [host]" },
		{ "[path x]\n", "rules.ini:1: [path x]: an exact path starts with '/'" },
		{ "[dir /x]\n", "rules.ini:1: unknown section [dir /x]" },
		{ "[path /x]\nheader = Content-Length: 5\n", "rules.ini:2: header = " },
		{ "[path /x]\nheader = no colon\n", "rules.ini:2: header = no colon" },
		{ "[path /x]\npost = maybe\n", "rules.ini:2: post = maybe: expected yes or no" },
		{ "[path /x]\nfoo = 1\n", "rules.ini:2: unknown key foo in [path]" },
		{ "[path /x]\nbody = hi\n", "rules.ini:1: [path /x]: body needs status = 200" },
		{ "[path /x]\npost_in_syn = yes\n", "rules.ini:1: [path /x]: post_in_syn = yes needs" },
		{ "[path /o]\nocsp = nosuchdir\n", "rules.ini:2: ocsp = nosuchdir: No such file" },
		{ "[path /o]\nocsp = ocsp\nstatus = 204\n", "rules.ini:1: [path /o]: ocsp answers" },
		{ "[path /x]\nstatus = 204\n[path /x]\nstatus = 200\n",
		  "rules.ini:3: [path /x]: a second answer for the path of line 1" },
		{ "[host a.example]\n", "rules.ini:1: [host]: no root = DIR" },
		{ "[host a.example:80]\nroot = www-a\n", "rules.ini:1: [host NAME...]: \"a.example:80\"" },
		{ "[host a.example]\nroot = www-a\n[host A.example]\nroot = www-b\n",
		  "rules.ini:3: host a.example named twice" },
		{ "[host a]\nroot = www-a\ndefault = yes\n[host b]\nroot = www-b\ndefault = yes\n",
		  "rules.ini:6: default = yes: host of line 1 is the default already" },
		{ "[path /x]\nstatus 204\n", "rules.ini:2: expected key = value" },
	};
	struct tfo_svc_resp r;
	size_t bl;
	void *st;
	int rc;

	st = rules_tree(&rc);
	REQUIRE(st != NULL);
	svc->destroy(st);
	CHECK_EQ(check_rules(http_rules_ok, why, sizeof(why)), 0);
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		CHECK_MSG(check_rules(bad[i].text, why, sizeof(why)) < 0 &&
			  strstr(why, bad[i].want) != NULL, "case %u: %s", i, why);
	}
	/* config/http-rules.ini, the example, is a good rules file */
	{
		struct tfo_service_kv kv[2] = {
			{ "root", WWW }, { "rules", TFO_CONFIG_DIR "/http-rules.ini" },
		};
		struct tfo_service_args a = { .port = 80, .kv = kv, .nb_kv = 2 };

		CHECK_MSG(svc->check(&a, why, sizeof(why)) == 0, "%s", why);
	}
	/* an empty rules file is fine, a missing one is named */
	CHECK_EQ(check_rules("", why, sizeof(why)), 0);
	{
		struct tfo_service_kv kv[2] = {
			{ "root", WWW }, { "rules", "/nonexistent/rules.ini" },
		};
		struct tfo_service_args a = { .port = 80, .kv = kv, .nb_kv = 2 };

		CHECK_MSG(svc->check(&a, why, sizeof(why)) < 0 &&
			  strstr(why, "rules = /nonexistent/rules.ini: No such file") != NULL,
			  "%s", why);
	}
	/* a fixed answer and a file for one path: the load says so */
	tmp_text("www/generate_204", "a file");
	tmp_text("rules.ini", http_rules_ok);
	{
		char log[2048], root[512], file[512];

		snprintf(root, sizeof(root), "%s/www", tmp_root);
		snprintf(file, sizeof(file), "%s/rules.ini", tmp_root);
		st = mk_logged(&rc, log, sizeof(log), "root", root, "rules", file, NULL);
		CHECK(st == NULL && rc == -EEXIST);
		CHECK_MSG(strstr(log, "/generate_204: two answers for one path") != NULL,
			  "log: %s", log);
	}
	/* default = yes: an unknown Host gets that host's files */
	snprintf(rules, sizeof(rules), "[host b.example]\nroot = www-b\ndefault = yes\n");
	tmp_text("rules.ini", rules);
	{
		char root[512], file[512];

		snprintf(root, sizeof(root), "%s/www", tmp_root);
		snprintf(file, sizeof(file), "%s/rules.ini", tmp_root);
		st = mk(&rc, root, "date", "no", "rules", file, NULL);
	}
	REQUIRE(st != NULL);
	ask(st, "GET /page.txt HTTP/1.1\r\nHost: unknown.example\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "host b page") == 0);
	svc->destroy(st);
	tmp_clean();
}

TFO_TEST(encoded_slash_and_mime_keys)
{
	struct tfo_svc_resp r;
	char why[512], mt[512];
	size_t bl;
	void *st;
	int rc;

	CHECK(svc->check_key("encoded_slash", "decode", why, sizeof(why)) == 0);
	CHECK(svc->check_key("encoded_slash", "keep", why, sizeof(why)) == 0);
	CHECK(svc->check_key("encoded_slash", "drop", why, sizeof(why)) < 0 &&
	      strstr(why, "expected 404, decode or keep") != NULL);
	CHECK(svc->check_key("max_body", "2M", why, sizeof(why)) < 0);
	CHECK(svc->check_key("max_body", "0", why, sizeof(why)) == 0);
	CHECK(svc->check_key("rules", "", why, sizeof(why)) < 0);
	tmp_make();
	REQUIRE(tmp_root[0] != '\0');
	tmp_dir("d");
	tmp_text("d/f.foo", "in d");
	tmp_text("a%2Fb", "named with %2F");
	tmp_text("types", "# comment\napplication/x-foo\tfoo fooo\n");
	snprintf(mt, sizeof(mt), "%s/types", tmp_root);
	st = mk(&rc, tmp_root, "date", "no", "encoded_slash", "decode", "mime_types", mt,
		NULL);
	REQUIRE(st != NULL);
	ask(st, "GET /d%2Ff.foo HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "in d") == 0);
	CHECK(has("Content-Type: application/x-foo\r\n"));
	svc->destroy(st);
	st = mk(&rc, tmp_root, "date", "no", "encoded_slash", "keep", NULL);
	REQUIRE(st != NULL);
	ask(st, "GET /a%2fb HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "named with %2F") == 0);
	ask(st, "GET /d%2Ff.foo HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 404);
	svc->destroy(st);
	/* a mime_types that cannot be read is refused, naming it */
	st = mk(&rc, tmp_root, "mime_types", "/nonexistent/mime.types", NULL);
	CHECK(st == NULL && rc < 0);
	tmp_clean();
}

TFO_TEST(reload_reads_the_rules_again)
{
	struct tfo_svc_resp r;
	char msg[512];
	size_t bl;
	void *st;
	int rc;

	st = rules_tree(&rc);
	REQUIRE(st != NULL && svc->reload != NULL);
	ask(st, "GET /generate_204 HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 204);
	/* the rules change: the next generation answers from them */
	tmp_text("rules.ini", "[path /generate_204]\nstatus = 200\nbody = now 200\n"
		 "[path /ocsp]\nocsp = ocsp\n");
	CHECK_EQ(svc->reload(st, msg, sizeof(msg)), 1);
	ask(st, "GET /generate_204 HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "now 200") == 0);
	/* the host is gone: its files with it */
	ask(st, "GET /page.txt HTTP/1.1\r\nHost: a.example\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "root page") == 0);
	/* a new OCSP response is served after a reload */
	tmp_text("ocsp/MAMCAQg", "SECOND");
	CHECK_EQ(svc->reload(st, msg, sizeof(msg)), 1);
	ask(st, "GET /ocsp/MAMCAQg HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK(code() == 200 && strcmp(body(&bl), "SECOND") == 0);
	/* a bad rules file is refused, FILE:LINE, the old generation serves */
	tmp_text("rules.ini", "[path /x]\nstatus = 500\n");
	CHECK(svc->reload(st, msg, sizeof(msg)) < 0);
	CHECK_MSG(strstr(msg, "the old one serves") != NULL &&
		  strstr(msg, "rules.ini:2: status = 500") != NULL, "%s", msg);
	ask(st, "GET /ocsp/MAMCAQg HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(code(), 200);
	/* a file in the OCSP directory that is not a request's base64 */
	tmp_text("rules.ini", "[path /ocsp]\nocsp = ocsp\n");
	tmp_text("ocsp/not*base64", "x");
	CHECK(svc->reload(st, msg, sizeof(msg)) < 0);
	CHECK_MSG(strstr(msg, "not*base64: a name must be the base64url") != NULL, "%s", msg);
	svc->destroy(st);
	tmp_clean();
}

/* http counts through the service API (ctx->counters), under the names
 * the stats line, tfo-prom and the runbook have always used. */
TFO_TEST(counters)
{
	static const char *const names[] = {
		"http_200", "http_204", "http_206", "http_301", "http_304", "http_404",
		"http_405", "http_411", "http_413", "http_414", "http_416", "http_425",
		"http_505", "http_400_syntax", "http_400_too_big", "http_400_host",
		"http_400_body", "http_400_path", "http_reject_small_buf",
		"http_range_ignored", "http_ocsp_hit", "http_ocsp_miss",
	};
	struct tfo_svc_resp r;
	uint64_t b404 = stat_of("http_404");
	uint64_t b301 = stat_of("http_301");
	char why[160] = "";
	unsigned int i;

	ask(www, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	ask(www, "GET /docs HTTP/1.1\r\nHost: x\r\n\r\n", &r);
	CHECK_EQ(stat_of("http_404"), b404 + 1);
	CHECK_EQ(stat_of("http_301"), b301 + 1);
	CHECK_MSG(tfo_service_counters_check(svc, why, sizeof(why)) == (int)RTE_DIM(names),
		  "%s", why);
	for (i = 0; i < RTE_DIM(names) && svc->counters[i].name != NULL; i++)
		CHECK_MSG(strcmp(svc->counters[i].name, names[i]) == 0 &&
			  svc->counters[i].help != NULL, "%u: %s", i, svc->counters[i].name);
	CHECK_EQ(i, RTE_DIM(names));
}

TFO_TEST(teardown)
{
	svc->destroy(www);
	www = NULL;
	CHECK(www == NULL);
}
