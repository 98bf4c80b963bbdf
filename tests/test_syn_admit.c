/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests: the SYN admission verdict (tcp/syn_admit.h). A table of
 * facts and the verdict each must give; then the verdicts driven step by
 * step as the worker and the control lcore drive them (each NEED_* answered,
 * the cookie checked, the open refused), counting every counter a verdict
 * names: each SYN must end in one final verdict with its counters counted
 * once. No EAL: the verdict is a pure function.
 */
#include <errno.h>

#include "lcore/worker.h"
#include "net/tcpopt.h"
#include "tcp/syn_admit.h"
#include "test.h"

#define NO TFO_SYN_NO_STAT

/* a worker with TFO on, its options parsed */
#define WK .opts_ok = true, .tfo_on = true
/* ... and the listener looked up: served, SYN cookies not due */
#define LIS .listener_known = true, .served = true
/* the pending state: well under both limits, at the lcore's, at the source's */
#define UNDER .pending_known = true, .pend = { 3, 100, 1, 4 }
#define AT_CAP .pending_known = true, .pend = { 100, 100, 1, 4 }
#define AT_SRC .pending_known = true, .pend = { 3, 100, 4, 4 }
/* a cookie of valid length */
#define COOKIE .tfo_opt = TFO_COOKIE_PRESENT, .tfo_form = true
/* a control lcore (its listener always known); with TFO on, served */
#define CTL .at_control = true, .listener_known = true
#define CT CTL, .tfo_on = true, .served = true

struct row {
	const char *what;
	struct tfo_syn_facts f;
	uint8_t act;
	uint8_t path;		/* TO_CONTROL only */
	bool offer;		/* SYNCOOKIE and OPEN only */
	uint16_t stat;
};

static const struct row rows[] = {
	/* ---- a worker ---- */
	{ "draining: the listener is asked for first",
	  { WK, .draining = true }, TFO_SYN_NEED_LISTENER, 0, false, NO },
	{ "draining, served: refused",
	  { WK, LIS, COOKIE, UNDER, .draining = true }, TFO_SYN_REFUSE, 0, false,
	  TFO_STAT_drain_syn_refused },
	{ "draining, a port nothing serves: as usual",
	  { WK, .listener_known = true, .draining = true }, TFO_SYN_TO_CONTROL,
	  TFO_SYN_PATH_PLAIN, false, NO },
	{ "no TFO option: plain, the listener first",
	  { WK }, TFO_SYN_NEED_LISTENER, 0, false, NO },
	{ "no TFO option: plain",
	  { WK, LIS }, TFO_SYN_TO_CONTROL, TFO_SYN_PATH_PLAIN, false, NO },
	{ "no TFO option, SYN cookies due: a SYN cookie, no TFO cookie",
	  { WK, LIS, .syncookie_due = true }, TFO_SYN_SYNCOOKIE, 0, false, NO },
	{ "SYN cookies due but nothing serves the port: the control lcore",
	  { WK, .listener_known = true, .syncookie_due = true }, TFO_SYN_TO_CONTROL,
	  TFO_SYN_PATH_PLAIN, false, NO },
	{ "options malformed: plain whatever the cookie",
	  { .tfo_on = true, LIS, COOKIE, UNDER }, TFO_SYN_TO_CONTROL,
	  TFO_SYN_PATH_PLAIN, false, NO },
	{ "TFO off: plain whatever the cookie",
	  { .opts_ok = true, LIS, COOKIE }, TFO_SYN_TO_CONTROL, TFO_SYN_PATH_PLAIN,
	  false, NO },
	{ "a cookie request",
	  { WK, LIS, .tfo_opt = TFO_COOKIE_REQUEST, .tfo_form = true },
	  TFO_SYN_TO_CONTROL, TFO_SYN_PATH_COOKIE_REQ, false,
	  TFO_STAT_TCPFastOpenCookieReqd },
	{ "a cookie request under SYN cookies: a fresh TFO cookie with it",
	  { WK, LIS, .syncookie_due = true, .tfo_opt = TFO_COOKIE_REQUEST,
	    .tfo_form = true }, TFO_SYN_SYNCOOKIE, 0, true,
	  TFO_STAT_TCPFastOpenCookieReqd },
	{ "a cookie of bad length",
	  { WK, LIS, .tfo_opt = TFO_COOKIE_INVALID, .tfo_form = true },
	  TFO_SYN_TO_CONTROL, TFO_SYN_PATH_BAD_COOKIE, false,
	  TFO_STAT_TCPFastOpenPassiveFail },
	{ "a cookie: the pending state first",
	  { WK, COOKIE }, TFO_SYN_NEED_PENDING, 0, false, NO },
	{ "a cookie at the lcore's pending limit: no AES, the slow path",
	  { WK, LIS, COOKIE, AT_CAP }, TFO_SYN_TO_CONTROL, TFO_SYN_PATH_OVERFLOW,
	  false, TFO_STAT_TCPFastOpenListenOverflow },
	{ "a cookie at its source's pending cap",
	  { WK, LIS, COOKIE, AT_SRC }, TFO_SYN_TO_CONTROL, TFO_SYN_PATH_OVERFLOW,
	  false, TFO_STAT_tfo_pending_source_overflow },
	{ "over the limit under SYN cookies: a SYN cookie, no TFO cookie",
	  { WK, LIS, COOKIE, AT_CAP, .syncookie_due = true }, TFO_SYN_SYNCOOKIE, 0,
	  false, TFO_STAT_TCPFastOpenListenOverflow },
	{ "a cookie under the limits: checked in the burst's batch",
	  { WK, COOKIE, UNDER }, TFO_SYN_CHECK_COOKIE, 0, false, NO },
	{ "valid under the primary key: a TFO open",
	  { WK, COOKIE, UNDER, .cookie = TFO_SYN_COOKIE_PRIMARY }, TFO_SYN_ACCEPT, 0,
	  false, NO },
	{ "valid under the backup key: a TFO open, counted",
	  { WK, COOKIE, UNDER, .cookie = TFO_SYN_COOKIE_BACKUP }, TFO_SYN_ACCEPT, 0,
	  false, TFO_STAT_TCPFastOpenPassiveAltKey },
	{ "a cookie that failed",
	  { WK, LIS, COOKIE, UNDER, .cookie = TFO_SYN_COOKIE_BAD }, TFO_SYN_TO_CONTROL,
	  TFO_SYN_PATH_BAD_COOKIE, false, TFO_STAT_TCPFastOpenPassiveFail },
	{ "a cookie that failed under SYN cookies: a fresh one with it",
	  { WK, LIS, COOKIE, UNDER, .cookie = TFO_SYN_COOKIE_BAD, .syncookie_due = true },
	  TFO_SYN_SYNCOOKIE, 0, true, TFO_STAT_TCPFastOpenPassiveFail },
	{ "open refused at the pending limit (the engine counted)",
	  { WK, LIS, COOKIE, UNDER, .cookie = TFO_SYN_COOKIE_BACKUP,
	    .open = TFO_SYN_OPEN_OVER_PENDING }, TFO_SYN_TO_CONTROL,
	  TFO_SYN_PATH_OVERFLOW, false, NO },
	{ "open refused at the source's connection cap",
	  { WK, LIS, COOKIE, UNDER, .cookie = TFO_SYN_COOKIE_PRIMARY,
	    .open = TFO_SYN_OPEN_OVER_SOURCE }, TFO_SYN_TO_CONTROL,
	  TFO_SYN_PATH_OVERFLOW, false, NO },
	{ "open refused, the table full",
	  { WK, LIS, COOKIE, UNDER, .cookie = TFO_SYN_COOKIE_PRIMARY,
	    .open = TFO_SYN_OPEN_FULL }, TFO_SYN_TO_CONTROL, TFO_SYN_PATH_FULL, false,
	  NO },
	{ "open refused, the table full, SYN cookies due",
	  { WK, LIS, COOKIE, UNDER, .cookie = TFO_SYN_COOKIE_PRIMARY,
	    .open = TFO_SYN_OPEN_FULL, .syncookie_due = true }, TFO_SYN_SYNCOOKIE, 0,
	  false, NO },
	{ "open refused, nothing listens: the control lcore, no SYN cookie",
	  { WK, COOKIE, UNDER, .cookie = TFO_SYN_COOKIE_PRIMARY, .syncookie_due = true,
	    .open = TFO_SYN_OPEN_NO_SERVICE }, TFO_SYN_TO_CONTROL,
	  TFO_SYN_PATH_NO_SERVICE, false, NO },
	{ "cookie_not_required, data: the pending state",
	  { WK, .no_cookie = true, .has_data = true }, TFO_SYN_NEED_PENDING, 0, false,
	  NO },
	{ "cookie_not_required, data: a TFO open without a cookie",
	  { WK, .no_cookie = true, .has_data = true, UNDER }, TFO_SYN_ACCEPT, 0, false,
	  NO },
	{ "cookie_not_required, data, a cookie request: a TFO open",
	  { WK, .no_cookie = true, .has_data = true, UNDER,
	    .tfo_opt = TFO_COOKIE_REQUEST, .tfo_form = true }, TFO_SYN_ACCEPT, 0, false,
	  NO },
	{ "cookie_not_required, data, over the limit",
	  { WK, LIS, .no_cookie = true, .has_data = true, AT_CAP }, TFO_SYN_TO_CONTROL,
	  TFO_SYN_PATH_OVERFLOW, false, TFO_STAT_TCPFastOpenListenOverflow },
	{ "cookie_not_required, data, a cookie of bad length: still bad",
	  { WK, LIS, .no_cookie = true, .has_data = true, .tfo_opt = TFO_COOKIE_INVALID,
	    .tfo_form = true }, TFO_SYN_TO_CONTROL, TFO_SYN_PATH_BAD_COOKIE, false,
	  TFO_STAT_TCPFastOpenPassiveFail },
	{ "cookie_not_required, no data: plain",
	  { WK, LIS, .no_cookie = true }, TFO_SYN_TO_CONTROL, TFO_SYN_PATH_PLAIN, false,
	  NO },
	{ "cookie_not_required, open refused, table full",
	  { WK, LIS, .no_cookie = true, .has_data = true, UNDER,
	    .open = TFO_SYN_OPEN_FULL }, TFO_SYN_TO_CONTROL, TFO_SYN_PATH_FULL, false,
	  NO },

	/* ---- a control lcore ---- */
	{ "control, draining, served: refused",
	  { CT, .draining = true }, TFO_SYN_REFUSE, 0, false, TFO_STAT_drain_syn_refused },
	{ "control, draining, a port nothing serves: opened, then a RST",
	  { CTL, .tfo_on = true, .draining = true }, TFO_SYN_OPEN, 0, false, NO },
	{ "control, a plain SYN: opened",
	  { CT }, TFO_SYN_OPEN, 0, false, NO },
	{ "control, table at its reserve: a SYN cookie",
	  { CT, .syncookies = true, .syncookie_due = true }, TFO_SYN_SYNCOOKIE, 0, false,
	  NO },
	{ "control, table at its reserve, syncookies = no: opened",
	  { CT, .syncookie_due = true }, TFO_SYN_OPEN, 0, false, NO },
	{ "control, table at its reserve, nothing serves: opened (a RST)",
	  { CTL, .tfo_on = true, .syncookies = true, .syncookie_due = true },
	  TFO_SYN_OPEN, 0, false, NO },
	{ "control, a cookie request: opened, a fresh cookie",
	  { CT, .path = TFO_SYN_PATH_COOKIE_REQ, .tfo_form = true }, TFO_SYN_OPEN, 0,
	  true, NO },
	{ "control, a failed cookie: opened, a fresh cookie",
	  { CT, .path = TFO_SYN_PATH_BAD_COOKIE, .tfo_form = true }, TFO_SYN_OPEN, 0,
	  true, NO },
	{ "control, a failed cookie, TFO off: no cookie",
	  { CTL, .served = true, .path = TFO_SYN_PATH_BAD_COOKIE, .tfo_form = true },
	  TFO_SYN_OPEN, 0, false, NO },
	{ "control, an overflow: opened, no cookie (as Linux)",
	  { CT, .path = TFO_SYN_PATH_OVERFLOW, .tfo_form = true }, TFO_SYN_OPEN, 0,
	  false, NO },
	{ "control, open refused, table full, SYN cookies: one",
	  { CT, .syncookies = true, .open = TFO_SYN_OPEN_FULL }, TFO_SYN_SYNCOOKIE, 0,
	  false, NO },
	{ "control, open refused, table full, no SYN cookies: silence, counted",
	  { CT, .open = TFO_SYN_OPEN_FULL }, TFO_SYN_DROP, 0, false,
	  TFO_STAT_drop_syn_table_full },
	{ "control, a source at its cap, SYN cookies: one",
	  { CT, .syncookies = true, .open = TFO_SYN_OPEN_OVER_SOURCE }, TFO_SYN_SYNCOOKIE,
	  0, false, NO },
	{ "control, a source at its cap, no SYN cookies: silence (engine counted)",
	  { CT, .open = TFO_SYN_OPEN_OVER_SOURCE }, TFO_SYN_DROP, 0, false, NO },
	{ "control, nothing listens: a RST",
	  { CT, .syncookies = true, .open = TFO_SYN_OPEN_NO_SERVICE }, TFO_SYN_RST, 0,
	  false, NO },
};

TFO_TEST(verdict_table)
{
	for (unsigned int i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct tfo_syn_verdict v = tfo_syn_verdict(&r->f);

		CHECK_MSG(v.act == r->act, "%s: act %u, want %u", r->what, v.act, r->act);
		CHECK_MSG(v.stat == r->stat, "%s: stat %u, want %u", r->what, v.stat, r->stat);
		if (r->act == TFO_SYN_TO_CONTROL)
			CHECK_MSG(v.path == r->path, "%s: path %u, want %u", r->what, v.path,
				  r->path);
		if (r->act == TFO_SYN_SYNCOOKIE || r->act == TFO_SYN_OPEN)
			CHECK_MSG(v.offer_cookie == r->offer, "%s: offer %d", r->what,
				  v.offer_cookie);
		/* an open not tried yet: a valid cookie will be an ACCEPT */
		if (r->act == TFO_SYN_CHECK_COOKIE)
			CHECK_MSG(v.valid_opens, "%s: a valid cookie not an open", r->what);
	}
}

/* What the world answers when a verdict asks. */
struct world {
	bool served, due;
	struct tfo_syn_pending pend;
	uint8_t cookie;		/* the batched check's result */
	int open_rc;		/* the engine's; 0 opens */
	uint64_t counted[TFO_STAT_MAX];
	unsigned int steps;
};

/*
 * Drive @p f's verdicts as worker.c does until one is final; @return it.
 * @p short_cookie: as the worker does, after the cookie check a valid
 * cookie goes to the ACCEPT its CHECK_COOKIE verdict foretold
 * (tfo_syn_verdict_checked); else every step asks tfo_syn_verdict.
 */
static struct tfo_syn_verdict
drive_as(struct tfo_syn_facts *f, struct world *w, bool short_cookie)
{
	bool checked = false, valid_opens = false;

	for (w->steps = 1; w->steps < 16; w->steps++) {
		struct tfo_syn_verdict v;

		if (!checked || !tfo_syn_verdict_checked(f, valid_opens, &v))
			v = tfo_syn_verdict(f);
		checked = false;
		if (v.stat != TFO_SYN_NO_STAT)
			w->counted[v.stat]++;
		switch (v.act) {
		case TFO_SYN_NEED_LISTENER:
			f->listener_known = true;
			f->served = w->served;
			f->syncookie_due = w->due;
			continue;
		case TFO_SYN_NEED_PENDING:
			f->pending_known = true;
			f->pend = w->pend;
			continue;
		case TFO_SYN_CHECK_COOKIE:
			f->cookie = w->cookie;
			checked = short_cookie;
			valid_opens = v.valid_opens;
			continue;
		case TFO_SYN_ACCEPT:
		case TFO_SYN_OPEN:
			if (w->open_rc == 0)
				return v;
			f->open = tfo_syn_open_of(w->open_rc);
			continue;
		default:
			return v;
		}
	}
	CHECK_MSG(0, "no final verdict in 16 steps");
	return (struct tfo_syn_verdict){ .act = TFO_SYN_DROP };
}

static struct tfo_syn_verdict
drive(struct tfo_syn_facts *f, struct world *w)
{
	return drive_as(f, w, true);
}

static uint64_t
total(const struct world *w)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < TFO_STAT_MAX; i++)
		n += w->counted[i];
	return n;
}

TFO_TEST(worker_backup_key_open_refused_counts_once)
{
	struct tfo_syn_facts f = { WK, COOKIE };
	struct world w = { .served = true, .pend = { 0, 10, 0, 2 },
			   .cookie = TFO_SYN_COOKIE_BACKUP, .open_rc = -ENOSPC };
	struct tfo_syn_verdict v = drive(&f, &w);

	CHECK_EQ(v.act, TFO_SYN_TO_CONTROL);
	CHECK_EQ(v.path, TFO_SYN_PATH_FULL);
	/* AltKey at the open, once; the refusal is the engine's to count */
	CHECK_EQ(w.counted[TFO_STAT_TCPFastOpenPassiveAltKey], 1);
	CHECK_EQ(total(&w), 1);
	/* pending, cookie, the open, the listener, the slow path */
	CHECK_EQ(w.steps, 5);
}

TFO_TEST(worker_bad_cookie_under_syncookies)
{
	struct tfo_syn_facts f = { WK, COOKIE };
	struct world w = { .served = true, .due = true, .pend = { 0, 10, 0, 2 },
			   .cookie = TFO_SYN_COOKIE_BAD };
	struct tfo_syn_verdict v = drive(&f, &w);

	CHECK_EQ(v.act, TFO_SYN_SYNCOOKIE);
	CHECK(v.offer_cookie);
	CHECK_EQ(w.counted[TFO_STAT_TCPFastOpenPassiveFail], 1);
	CHECK_EQ(total(&w), 1);
}

TFO_TEST(worker_overflow_checks_no_cookie)
{
	struct tfo_syn_facts f = { WK, COOKIE };
	struct world w = { .served = true, .pend = { 0, 10, 2, 2 },
			   .cookie = TFO_SYN_COOKIE_PRIMARY };
	struct tfo_syn_verdict v = drive(&f, &w);

	CHECK_EQ(v.act, TFO_SYN_TO_CONTROL);
	CHECK_EQ(v.path, TFO_SYN_PATH_OVERFLOW);
	CHECK_EQ(f.cookie, TFO_SYN_COOKIE_UNCHECKED);	/* never asked */
	CHECK_EQ(w.counted[TFO_STAT_tfo_pending_source_overflow], 1);
	CHECK_EQ(total(&w), 1);
}

TFO_TEST(worker_tfo_open_asks_nothing_else)
{
	struct tfo_syn_facts f = { WK, COOKIE };
	struct world w = { .pend = { 0, 10, 0, 2 }, .cookie = TFO_SYN_COOKIE_PRIMARY };
	struct tfo_syn_verdict v = drive(&f, &w);

	CHECK_EQ(v.act, TFO_SYN_ACCEPT);
	CHECK(!f.listener_known);	/* the fast path never looks */
	CHECK_EQ(total(&w), 0);
	CHECK_EQ(w.steps, 3);
}

TFO_TEST(worker_draining_refuses_before_anything)
{
	struct tfo_syn_facts f = { WK, COOKIE, .draining = true };
	struct world w = { .served = true };
	struct tfo_syn_verdict v = drive(&f, &w);

	CHECK_EQ(v.act, TFO_SYN_REFUSE);
	CHECK(!f.pending_known);
	CHECK_EQ(w.counted[TFO_STAT_drain_syn_refused], 1);
	CHECK_EQ(total(&w), 1);
}

TFO_TEST(control_full_table_without_syncookies_is_a_counted_drop)
{
	struct tfo_syn_facts f = { CT, .path = TFO_SYN_PATH_COOKIE_REQ, .tfo_form = true };
	struct world w = { .open_rc = -ENOSPC };
	struct tfo_syn_verdict v = drive(&f, &w);

	CHECK_EQ(v.act, TFO_SYN_DROP);
	CHECK_EQ(w.counted[TFO_STAT_drop_syn_table_full], 1);
	CHECK_EQ(total(&w), 1);
	f = (struct tfo_syn_facts){ CT, .syncookies = true };
	memset(w.counted, 0, sizeof(w.counted));
	v = drive(&f, &w);
	CHECK_EQ(v.act, TFO_SYN_SYNCOOKIE);
	CHECK_EQ(total(&w), 0);
}

/* Worker facts number @p x of the 2^11 * 4 * 4 * 5 that the test below
 * tries (the cookie unchecked). */
static struct tfo_syn_facts
facts_nr(uint32_t x)
{
	static const struct tfo_syn_pending pends[] = {
		{ 3, 100, 1, 4 }, { 100, 100, 1, 4 }, { 3, 100, 4, 4 }, { 0, 10, 0, UINT32_MAX },
	};
	uint32_t bits = x & 0x7ff;

	x >>= 11;
	return (struct tfo_syn_facts){
		.opts_ok = bits & 1, .tfo_form = bits & 2, .has_data = bits & 4,
		.tfo_on = bits & 8, .no_cookie = bits & 16, .draining = bits & 32,
		.listener_known = bits & 64, .served = bits & 128,
		.syncookie_due = bits & 256, .pending_known = bits & 512,
		.syncookies = bits & 1024, .tfo_opt = (uint8_t)(x % 4),
		.pend = pends[(x / 4) % 4], .open = (uint8_t)(x / 16),
	};
}

/*
 * tfo_syn_verdict_checked is tfo_syn_verdict wherever it answers: every
 * worker's facts that give CHECK_COOKIE (every field tried; none changes
 * between the check and the next verdict), with each cookie result.
 */
TFO_TEST(checked_cookie_verdict_is_the_verdict)
{
	unsigned int asked = 0, answered = 0;

	for (uint32_t x = 0; x < (1u << 11) * 4 * 4 * (TFO_SYN_OPEN_NO_SERVICE + 1); x++) {
		struct tfo_syn_facts f = facts_nr(x);
		struct tfo_syn_verdict c = tfo_syn_verdict(&f);

		CHECK(c.act == TFO_SYN_CHECK_COOKIE || !c.valid_opens);
		if (c.act != TFO_SYN_CHECK_COOKIE)
			continue;
		asked++;
		for (uint8_t ck = TFO_SYN_COOKIE_UNCHECKED; ck <= TFO_SYN_COOKIE_BACKUP; ck++) {
			struct tfo_syn_verdict v, full;
			bool valid = ck == TFO_SYN_COOKIE_PRIMARY || ck == TFO_SYN_COOKIE_BACKUP;

			f.cookie = ck;
			full = tfo_syn_verdict(&f);
			if (!tfo_syn_verdict_checked(&f, c.valid_opens, &v)) {
				CHECK(!(c.valid_opens && valid));
				continue;
			}
			answered++;
			CHECK_MSG(v.act == full.act && v.stat == full.stat &&
				  v.path == full.path && v.offer_cookie == full.offer_cookie &&
				  v.valid_opens == full.valid_opens,
				  "facts %u, cookie %u: %u/%u, want %u/%u", x, ck, v.act, v.stat,
				  full.act, full.stat);
		}
	}
	CHECK(asked > 0);
	CHECK(answered > 0);
}

/* The worker's drive (a valid cookie not asked about twice) ends every SYN
 * as the verdict asked at every step does, with the same counters. */
TFO_TEST(worker_drive_is_the_verdict_drive)
{
	static const struct tfo_syn_pending pends[] = {
		{ 0, 10, 0, 2 }, { 10, 10, 0, 2 }, { 0, 10, 2, 2 },
	};
	static const int rcs[] = { 0, -EBUSY, -EDQUOT, -ENOSPC, -ENOENT };

	for (uint32_t x = 0; x < (1u << 6) * 4 * RTE_DIM(pends) * 3 * RTE_DIM(rcs); x++) {
		uint32_t bits = x & 0x3f, y = x >> 6;
		uint8_t opt = (uint8_t)(y % 4);
		struct tfo_syn_facts f0 = {
			.opts_ok = true, .tfo_on = bits & 1, .tfo_form = opt != 0,
			.has_data = bits & 2, .no_cookie = bits & 4, .draining = bits & 8,
			.tfo_opt = opt,
		}, f1 = f0;
		struct world w0 = {
			.served = bits & 16, .due = bits & 32, .pend = pends[(y / 4) % 3],
			.cookie = (uint8_t)(TFO_SYN_COOKIE_BAD + (y / 12) % 3),
			.open_rc = rcs[y / 36],
		}, w1 = w0;
		struct tfo_syn_verdict v0 = drive_as(&f0, &w0, false);
		struct tfo_syn_verdict v1 = drive_as(&f1, &w1, true);

		CHECK_MSG(v0.act == v1.act && v0.path == v1.path && v0.stat == v1.stat &&
			  v0.offer_cookie == v1.offer_cookie, "case %u: %u, want %u", x,
			  v1.act, v0.act);
		CHECK(memcmp(w0.counted, w1.counted, sizeof(w0.counted)) == 0);
		CHECK(f0.listener_known == f1.listener_known &&
		      f0.pending_known == f1.pending_known && f0.cookie == f1.cookie &&
		      f0.open == f1.open);
	}
}

TFO_TEST(pending_admit_limits)
{
	struct tfo_syn_pending s = { .pending = 9, .cap = 10, .src_pending = 1, .src_cap = 2 };

	CHECK_EQ(tfo_syn_pending_admit(&s), 0);
	s.pending = 10;
	CHECK_EQ(tfo_syn_pending_admit(&s), -EBUSY);
	s.src_pending = 2;		/* the lcore's limit is asked first */
	CHECK_EQ(tfo_syn_pending_admit(&s), -EBUSY);
	s.pending = 0;
	CHECK_EQ(tfo_syn_pending_admit(&s), -EDQUOT);
	s.src_cap = UINT32_MAX;		/* no per-source cap */
	CHECK_EQ(tfo_syn_pending_admit(&s), 0);
	s.cap = 0;			/* a limit of 0: no TFO open at all */
	CHECK_EQ(tfo_syn_pending_admit(&s), -EBUSY);
}

TFO_TEST(open_results_and_reasons)
{
	CHECK_EQ(tfo_syn_cookie_of(TFO_COOKIE_BAD), TFO_SYN_COOKIE_BAD);
	CHECK_EQ(tfo_syn_cookie_of(TFO_COOKIE_OK_PRIMARY), TFO_SYN_COOKIE_PRIMARY);
	CHECK_EQ(tfo_syn_cookie_of(TFO_COOKIE_OK_BACKUP), TFO_SYN_COOKIE_BACKUP);
	CHECK_EQ(tfo_syn_cookie_of(7), TFO_SYN_COOKIE_BAD);	/* fail closed */
	CHECK_EQ(tfo_syn_open_of(-EBUSY), TFO_SYN_OPEN_OVER_PENDING);
	CHECK_EQ(tfo_syn_open_of(-EDQUOT), TFO_SYN_OPEN_OVER_SOURCE);
	CHECK_EQ(tfo_syn_open_of(-ENOSPC), TFO_SYN_OPEN_FULL);
	CHECK_EQ(tfo_syn_open_of(-ENOENT), TFO_SYN_OPEN_NO_SERVICE);
	CHECK_EQ(tfo_ctrl_reason_of_path(TFO_SYN_PATH_PLAIN), TFO_CTRL_TCP_SYN);
	CHECK_EQ(tfo_ctrl_reason_of_path(TFO_SYN_PATH_COOKIE_REQ), TFO_CTRL_TCP_COOKIE_REQ);
	CHECK_EQ(tfo_ctrl_reason_of_path(TFO_SYN_PATH_BAD_COOKIE), TFO_CTRL_TCP_BAD_COOKIE);
	CHECK_EQ(tfo_ctrl_reason_of_path(TFO_SYN_PATH_OVERFLOW), TFO_CTRL_TCP_OVERFLOW);
	CHECK_EQ(tfo_ctrl_reason_of_path(TFO_SYN_PATH_FULL), TFO_CTRL_TCP_FULL);
	CHECK_EQ(tfo_ctrl_reason_of_path(TFO_SYN_PATH_NO_SERVICE), TFO_CTRL_TCP_NO_SERVICE);
	for (unsigned int p = TFO_SYN_PATH_PLAIN; p <= TFO_SYN_PATH_NO_SERVICE; p++)
		CHECK_EQ(tfo_syn_path_of_reason(tfo_ctrl_reason_of_path(p)), p);
	CHECK_EQ(tfo_syn_path_of_reason(TFO_CTRL_TCP_MISS), TFO_SYN_PATH_PLAIN);
}

TFO_TEST_MAIN()
