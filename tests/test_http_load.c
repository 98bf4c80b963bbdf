/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-fastpath: unit tests of the http service's loading of its
 * tree: limits (1 MiB), reload, symbolic links and ETags, each in a scratch
 * tree of its own.
 */
#include "http_harness.h"

TFO_TEST(load_1mib)
{
	struct tfo_svc_resp r;
	char path[512], log[2048];
	size_t flen, blen;
	char *file;
	const char *b;
	void *st;
	int rc;

	tmp_make();
	REQUIRE(tmp_root[0] != '\0');
	tmp_file("big.bin", 1 << 20, 0);
	snprintf(path, sizeof(path), "%s/big.bin", tmp_root);
	file = read_all(path, &flen);
	REQUIRE(file != NULL && flen == 1 << 20);
	st = mk_logged(&rc, log, sizeof(log), "date", "no", NULL);
	CHECK_EQ(rc, 0);
	if (st != NULL) {
		CHECK_EQ(ask(st, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n", &r),
			 TFO_SVC_RESPOND);
		CHECK(has("Content-Length: 1048576\r\n"));
		CHECK(has("Content-Type: application/octet-stream\r\n"));
		b = body(&blen);
		CHECK_EQ(blen, flen);
		CHECK_MEM(b, file, flen);
		svc->destroy(st);
	}
	/* per-file limit: create() fails, naming the file and the limit */
	st = mk_logged(&rc, log, sizeof(log), "max_file_size", "512K", NULL);
	CHECK(st == NULL);
	CHECK_EQ(rc, -EFBIG);
	CHECK_MSG(strstr(log, "/big.bin is 1048576 bytes, over max_file_size "
			 "524288") != NULL, "log: %s", log);
	/* exactly at the limit is fine */
	st = mk_logged(&rc, log, sizeof(log), "max_file_size", "1M",
		       "max_total_size", "1M", NULL);
	CHECK(st != NULL);
	if (st != NULL)
		svc->destroy(st);
	/* total limit */
	tmp_file("more.bin", 1000, 'x');
	st = mk_logged(&rc, log, sizeof(log), "max_total_size", "1M", NULL);
	CHECK(st == NULL);
	CHECK_EQ(rc, -EFBIG);
	CHECK_MSG(strstr(log, "over max_total_size 1048576") != NULL &&
		  strstr(log, "/more.bin") != NULL, "log: %s", log);
	/* count limit */
	st = mk_logged(&rc, log, sizeof(log), "max_files", "1", NULL);
	CHECK(st == NULL);
	CHECK_MSG(strstr(log, "max_files 1") != NULL, "log: %s", log);
	free(file);
	tmp_clean();
}

/* Stands for the engines in reclaim(): a send queue holds @p blob while
 * @p live; @p seen: which of blob, other lay in a range it was asked. */
struct fake_sndq {
	const struct tfo_blob *blob, *other;
	bool live;
	unsigned int asked, seen;
};

static bool
fake_sends_from(void *arg, const void *lo, const void *hi)
{
	struct fake_sndq *f = arg;
	const void *b = f->blob, *o = f->other;

	f->asked++;
	if (o >= lo && o < hi)
		f->seen |= 2;
	if (b < lo || b >= hi)
		return false;
	f->seen |= 1;
	return f->live;
}

/* reclaim() with the log captured into @p log */
static unsigned int
reclaim_logged(void *st, struct fake_sndq *f, char *log, size_t cap)
{
	FILE *mem = fmemopen(log, cap, "w");
	FILE *old = rte_log_get_stream();
	unsigned int held;

	memset(log, 0, cap);
	rte_openlog_stream(mem);
	held = svc->reclaim(st, fake_sends_from, f);
	fflush(mem);
	rte_openlog_stream(old);
	fclose(mem);
	return held;
}

/* reload(): a new root serves, a bad one is refused and the old one
 * serves, bodies already handed out stay readable until reclaim() frees
 * them: after the grace time (reload_drain) and once no send queue
 * references them, however long that takes. */
TFO_TEST(reload)
{
	struct tfo_svc_resp r;
	const struct tfo_blob *old, *old404;
	struct fake_sndq f = { 0 };
	char msg[512], want[32], log[1024];
	size_t blen;
	void *st;
	int rc;

	tmp_make();
	REQUIRE(tmp_root[0] != '\0');
	REQUIRE(svc->reload != NULL && svc->reclaim != NULL);
	tmp_file("a.txt", 10, 'a');
	st = mk(&rc, tmp_root, "date", "no", "max_file_size", "64",
		"reload_drain", "1", NULL);
	REQUIRE(st != NULL);
	CHECK_EQ(ask(st, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r), TFO_SVC_RESPOND);
	old = r.body;
	CHECK_MEM(body(&blen), "aaaaaaaaaa", 10);
	CHECK_EQ(ask(st, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 404);
	old404 = r.body;

	tmp_file("a.txt", 20, 'b');
	CHECK_EQ(svc->reload(st, msg, sizeof(msg)), 1);
	CHECK_MSG(strstr(msg, "generation 2 serves") != NULL, "%s", msg);
	CHECK_EQ(ask(st, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r), TFO_SVC_RESPOND);
	memset(want, 'b', 20);
	CHECK_MEM(body(&blen), want, 20);
	CHECK_EQ(blen, 20);
	/* a response queued before the reload still reads the old table */
	CHECK(old->data[old->len - 1] == 'a');

	tmp_file("big.bin", 100, 'x');
	rc = svc->reload(st, msg, sizeof(msg));
	CHECK_EQ(rc, -EFBIG);
	CHECK_MSG(strstr(msg, "the old one serves") != NULL &&
		  strstr(msg, "/big.bin is 100 bytes, over max_file_size 64") != NULL,
		  "%s", msg);
	CHECK_EQ(ask(st, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r), TFO_SVC_RESPOND);
	CHECK_MEM(body(&blen), want, 20);
	/* a slow reader: a send queue still holds the old 404 body */
	f.blob = old404;
	f.other = old;
	f.live = true;
	CHECK_EQ(svc->reclaim(st, fake_sends_from, &f), 0);
	CHECK_EQ(f.asked, 0);	/* too early: not even asked */
	CHECK(old->data[old->len - 1] == 'a');
	usleep(1100 * 1000);
	/* reload_drain = 1 s is over, but referenced: kept, logged, counted once */
	CHECK_EQ(reclaim_logged(st, &f, log, sizeof(log)), 1);
	CHECK_MSG(strstr(log, "root generation 1 kept past reload_drain") != NULL,
		  "log: %s", log);
	CHECK_EQ(f.seen, 3);	/* both objs[] and errors[] were asked about */
	CHECK(old->data[old->len - 1] == 'a' && old404->len > 0);
	f.asked = 0;
	CHECK_EQ(svc->reclaim(st, fake_sends_from, &f), 0);
	CHECK_EQ(f.asked, 0);	/* at most once a second */
	usleep(1100 * 1000);
	CHECK_EQ(reclaim_logged(st, &f, log, sizeof(log)), 0);	/* still held: */
	CHECK_MSG(strstr(log, "kept past") == NULL, "logged once: %s", log);
	CHECK(f.asked > 0);
	/* the client ACKed: freed at the next check */
	f.live = false;
	usleep(1100 * 1000);
	CHECK_EQ(reclaim_logged(st, &f, log, sizeof(log)), 0);
	CHECK_MSG(strstr(log, "root generation 1 freed") != NULL, "log: %s", log);
	svc->destroy(st);

	/* at most HTTP_RETIRED (4) roots drain at once */
	unlink(strcat(strcpy(msg, tmp_root), "/big.bin"));
	st = mk(&rc, tmp_root, "date", "no", NULL);
	REQUIRE(st != NULL);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(svc->reload(st, msg, sizeof(msg)), 1);
	CHECK_EQ(svc->reload(st, msg, sizeof(msg)), -EBUSY);
	CHECK_MSG(strstr(msg, "still draining") != NULL, "%s", msg);
	svc->reclaim(st, NULL, NULL);	/* reload_drain = 300: nothing freed yet */
	CHECK_EQ(ask(st, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r), TFO_SVC_RESPOND);
	CHECK_EQ(code(), 200);
	svc->destroy(st);	/* frees the current and the 4 retired */
	tmp_clean();
}

TFO_TEST(load_symlinks_and_etag)
{
	struct tfo_svc_resp r;
	char path[512], target[512], log[2048], e1[64], e2[64], e3[64], lm[64];
	struct timeval tv[2] = { { 784111777, 0 }, { 784111777, 0 } };
	void *st;
	int rc;

	tmp_make();
	REQUIRE(tmp_root[0] != '\0');
	snprintf(path, sizeof(path), "%s/sub", tmp_root);
	CHECK_EQ(mkdir(path, 0755), 0);
	tmp_file("a.txt", 100, 'a');
	tmp_file("b.txt", 100, 'a');	/* same content */
	tmp_file("c.txt", 100, 'c');
	tmp_file("sub/d.txt", 10, 'd');
	snprintf(path, sizeof(path), "%s/a.txt", tmp_root);
	CHECK_EQ(utimes(path, tv), 0);
	/* a symlink inside the root is served under its own name */
	snprintf(path, sizeof(path), "%s/link.txt", tmp_root);
	CHECK_EQ(symlink("sub/d.txt", path), 0);
	st = mk_logged(&rc, log, sizeof(log), "date", "no", NULL);
	CHECK_EQ(rc, 0);
	REQUIRE(st != NULL);
	CHECK_EQ(ask(st, "GET /link.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK(code() == 200 && has("\r\n\r\ndddddddddd"));
	CHECK_EQ(ask(st, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	hdr("ETag", e1, sizeof(e1));
	hdr("Last-Modified", lm, sizeof(lm));
	CHECK(strcmp(lm, "Sun, 06 Nov 1994 08:49:37 GMT") == 0);
	CHECK_EQ(ask(st, "GET /b.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	hdr("ETag", e2, sizeof(e2));
	CHECK_EQ(ask(st, "GET /c.txt HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	hdr("ETag", e3, sizeof(e3));
	CHECK(strcmp(e1, e2) == 0);	/* from the content */
	CHECK(strcmp(e1, e3) != 0);
	/* no directory index: /sub/ is a 404, not a listing */
	CHECK_EQ(ask(st, "GET /sub/ HTTP/1.1\r\nHost: x\r\n\r\n", &r),
		 TFO_SVC_RESPOND);
	CHECK_EQ(code(), 404);
	svc->destroy(st);

	/* a symlink that leaves the root is refused, naming it */
	snprintf(path, sizeof(path), "%s/sub/escape", tmp_root);
	CHECK_EQ(symlink("/etc/hostname", path), 0);
	st = mk_logged(&rc, log, sizeof(log), NULL);
	CHECK(st == NULL);
	CHECK_EQ(rc, -EPERM);
	CHECK_MSG(strstr(log, "symlink /sub/escape points outside the root") !=
		  NULL, "log: %s", log);
	unlink(path);
	CHECK_EQ(symlink("../../", path), 0);
	st = mk_logged(&rc, log, sizeof(log), NULL);
	CHECK(st == NULL);
	CHECK(strstr(log, "outside the root") != NULL);
	unlink(path);
	/* dangling */
	CHECK_EQ(symlink("nowhere", path), 0);
	st = mk_logged(&rc, log, sizeof(log), NULL);
	CHECK(st == NULL);
	CHECK_MSG(strstr(log, "symlink /sub/escape") != NULL, "log: %s", log);
	unlink(path);
	/* a loop inside the root ends at the depth limit */
	snprintf(target, sizeof(target), "%s/sub", tmp_root);
	CHECK_EQ(symlink(target, path), 0);
	st = mk_logged(&rc, log, sizeof(log), NULL);
	CHECK(st == NULL);
	CHECK_EQ(rc, -ELOOP);
	unlink(path);
	/* a FIFO is not a file to serve */
	CHECK_EQ(mkfifo(path, 0644), 0);
	st = mk_logged(&rc, log, sizeof(log), NULL);
	CHECK(st == NULL);
	CHECK_MSG(strstr(log, "not a regular file") != NULL, "log: %s", log);
	unlink(path);
	/* and without them, it loads */
	st = mk_logged(&rc, log, sizeof(log), NULL);
	CHECK(st != NULL);
	if (st != NULL)
		svc->destroy(st);
	tmp_clean();
}
