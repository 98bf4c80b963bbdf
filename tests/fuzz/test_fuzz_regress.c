/* SPDX-License-Identifier: BSD-3-Clause
 * Scenario regressions on the fuzz corpus: conversations of
 * tests/fuzz/corpus/worker run through the whole-worker harness (which
 * checks its own invariants: accounting, leaks, drain), with the clock
 * 25.5 days in, then the counters they must have moved, exactly. And the
 * inputs that found bugs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/stats.h"
#include "tfo/service.h"

#include "../../services/http_parse.h"
#include "../test.h"
#include "fuzz_common.h"

#define CORPUS TFO_CONFIG_DIR "/../tests/fuzz/corpus"

static struct tfo_stats before_w, before_c;

static uint8_t *
slurp(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	uint8_t *b;
	long n;

	snprintf(path, sizeof(path), "%s/%s", CORPUS, name);
	f = fopen(path, "rb");
	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "  cannot read %s\n", path);
		exit(1);
	}
	b = malloc((size_t)n + 1);
	if (b == NULL || fread(b, 1, (size_t)n, f) != (size_t)n)
		exit(1);
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Run one worker conversation; counters are then read as deltas. */
static void
run(const char *name)
{
	static bool init;
	size_t len;
	uint8_t *b;

	if (!init) {
		int argc = 1;
		char *args[] = { (char *)(uintptr_t)"test_fuzz_regress", NULL };
		char **argv = args;

		/* 2^31 timer ticks (25.5 days of TSC uptime) in: the engines'
		 * timers never fired there (the wheel started at 0) */
		setenv("TFO_FUZZ_CLOCK_US", "2199023255552", 0);
		LLVMFuzzerInitialize(&argc, &argv);
		init = true;
	}
	b = slurp(name, &len);
	before_w = *fz_worker_stats(false);
	before_c = *fz_worker_stats(true);
	LLVMFuzzerTestOneInput(b, len);
	free(b);
}

/* Counter @p name of @p now since @p before: a built-in one or a service's
 * (http_200); UINT64_MAX for no such counter. */
static uint64_t
delta(const struct tfo_stats *now, const struct tfo_stats *before, const char *name)
{
	const struct tfo_svc_ctr_map *map = fz_svc_ctrs();
	int id = tfo_stats_lookup(name);

	if (id >= 0)
		return now->c[id] - before->c[id];
	for (unsigned int i = 0; map != NULL && i < map->nb; i++)
		if (strcmp(map->name[i], name) == 0)
			return now->svc[i] - before->svc[i];
	return UINT64_MAX;
}

static uint64_t
dw(const char *name)
{
	return delta(fz_worker_stats(false), &before_w, name);
}

static uint64_t
dc(const char *name)
{
	return delta(fz_worker_stats(true), &before_c, name);
}

/* ARP, ICMP, ND, ICMPv6 answered from frames in external buffers, which
 * come back to their owner (the control core once freed them as direct). */
TFO_TEST(control_core_replies)
{
	run("worker/control");
	CHECK_EQ(dw("to_control"), 4);
	CHECK_EQ(dc("arp_reply_tx"), 1);
	CHECK_EQ(dc("icmp_echo_tx"), 1);
	CHECK_EQ(dc("nd_na_tx"), 1);
	CHECK_EQ(dc("icmp6_echo_tx"), 1);
	CHECK_EQ(dw("tx_relay_in"), 4);
	CHECK_EQ(fz_ext_live, 0);
}

/* IPv6 extension headers: the TFO SYN behind them opens on the worker and
 * the echo behind a Destination Options header is answered (the harness
 * checks that neither answer carries them); MLD ignored, not dropped; the
 * fragment dropped. */
TFO_TEST(ipv6_ext_headers)
{
	run("worker/ipv6_ext");
	CHECK_EQ(dw("TCPFastOpenPassive"), 1);
	CHECK_EQ(dw("conns_opened_tfo"), 1);
	CHECK_EQ(dc("icmp6_echo_tx"), 1);
	CHECK_EQ(dw("rx_mld_ignored"), 1);
	CHECK_EQ(dw("drop_ipv6_frag"), 1);
	CHECK_EQ(dw("drop_ipv6_ext"), 0);
	CHECK_EQ(dc("drop_icmp6_other"), 0);
	CHECK_EQ(dw("to_control"), 1);
	CHECK_EQ(fz_ext_live, 0);
}

/* 12 plain SYNs against a control table of 8: 6 entries, then SYN cookies
 * (2 entries kept), and the handshake completed from a SYN cookie is served
 * (it got a RST when the half-open entries had filled the table). */
TFO_TEST(syn_flood_syncookies_reserve)
{
	run("worker/syn_flood");
	CHECK_EQ(dc("conns_opened_plain"), 6);
	CHECK_EQ(dc("syncookies_sent"), 6);
	CHECK_EQ(dc("syncookies_ok"), 1);
	CHECK_EQ(dc("conns_opened_syncookie"), 1);
	CHECK_EQ(dc("svc_calls"), 1);
	CHECK_EQ(dc("conn_pool_full"), 0);
	CHECK_EQ(dw("conns_opened_tfo") + dw("conns_opened_plain"), 0);
}

/* syncookies = always: the worker answers the plain SYN and the cookie
 * request itself (the latter with a TFO cookie, and the TFO SYN that follows
 * opens on the worker); the SYN cookie's ACK is checked there and handed
 * over, the control core creates one connection that serves the request
 * (the request segment is handed over too, and finds it); a forged ACK
 * creates nothing. Nothing of the handshakes took a control-core entry. */
TFO_TEST(worker_syncookies_always)
{
	run("worker/wsyn_always");
	CHECK_EQ(dw("syncookies_sent"), 2);
	CHECK_EQ(dw("syncookies_sent_tfo"), 1);
	CHECK_EQ(dw("syncookie_ack_ok"), 2);
	CHECK_EQ(dw("syncookie_ack_bad"), 1);
	CHECK_EQ(dw("conns_opened_tfo"), 1);
	CHECK_EQ(dw("to_control"), 3);
	CHECK_EQ(dw("ring_drop_full"), 0);
	CHECK_EQ(dc("conns_opened_syncookie"), 1);
	CHECK_EQ(dc("conns_opened_plain"), 0);
	CHECK_EQ(dc("syncookies_sent"), 0);
	CHECK_EQ(dc("syncookies_ok"), 0);	/* not checked again there */
	CHECK_EQ(dc("syncookies_bad"), 1);	/* the forged ACK: a RST */
	CHECK_EQ(dc("svc_calls"), 1);
	CHECK_EQ(dc("http_200"), 1);
	CHECK_EQ(fz_ext_live, 0);
}

/* syncookies = auto: 8 SYNs take the control core's table down to its
 * reserve (6 entries, 2 SYN cookies of its own); the 4 SYNs after that are
 * answered on the worker, and never reach the ring; once the half-open
 * entries expired, a SYN goes to the control core again. */
TFO_TEST(worker_syncookies_auto)
{
	run("worker/wsyn_auto");
	CHECK_EQ(dc("conns_opened_plain"), 7);
	CHECK_EQ(dc("syncookies_sent"), 2);
	CHECK_EQ(dw("syncookies_sent"), 4);
	CHECK_EQ(dw("to_control"), 9);
	CHECK_EQ(dw("ring_drop_full"), 0);
	CHECK_EQ(fz_ext_live, 0);
}

/* syncookies = auto: the control core holds a handshake in SYN_RCVD; the
 * SYN retransmitted once the workers' SYN cookies are on gets one from the
 * worker, and the client's ACK of it replaces the half-open entry (no RST
 * for an ACK of the "wrong" ISN: the worker could not see that entry). */
TFO_TEST(worker_syncookie_supersedes_synrcvd)
{
	run("worker/wsyn_supersede");
	CHECK_EQ(dw("syncookies_sent"), 1);
	CHECK_EQ(dw("syncookie_ack_ok"), 1);
	CHECK_EQ(dc("conns_closed_syncookie_won"), 1);
	CHECK_EQ(dc("conns_opened_syncookie"), 1);
	CHECK_EQ(dc("drop_synrcvd_bad_ack"), 0);
	CHECK_EQ(fz_ext_live, 0);
}

/* One valid cookie from 8 ports: the pending limit (4) holds exactly, the
 * rest fall back and their data never reaches the service. */
TFO_TEST(stolen_cookie_pending_limit)
{
	run("worker/stolen_cookie");
	CHECK_EQ(dw("TCPFastOpenPassive"), 4);
	CHECK_EQ(dw("TCPFastOpenListenOverflow"), 4);
	CHECK_EQ(dw("svc_calls"), 4);
	CHECK_EQ(dc("svc_calls"), 0);
	CHECK_EQ(dc("conns_opened_plain"), 4);
	CHECK_EQ(dc("syn_data_dropped"), 4);
	CHECK_EQ(dw("conns_closed_synack_timeout"), 4);
}

/* The same SYN+data three times (twice in one burst): one service call. */
TFO_TEST(duplicate_syn_one_service_call)
{
	run("worker/dup_syn");
	CHECK_EQ(dw("TCPFastOpenPassive"), 1);
	CHECK_EQ(dw("dup_syn"), 2);
	CHECK_EQ(dw("svc_calls"), 1);
}

/* A backup-key cookie is accepted (a fresh cookie offered); a retired
 * key's falls back to the control core. */
TFO_TEST(rotation_backup_and_retired)
{
	run("worker/rotate");
	CHECK_EQ(dw("TCPFastOpenPassiveAltKey"), 1);
	CHECK_EQ(dw("TCPFastOpenPassive"), 1);
	CHECK_EQ(dw("TCPFastOpenPassiveFail"), 1);
	CHECK_EQ(dc("svc_calls"), 0);
}

/* RSTs: out of the window ignored, in the window a challenge ACK, exact
 * sequence closes (RFC 5961). */
TFO_TEST(rst_rfc5961)
{
	run("worker/rst");
	CHECK_EQ(dw("drop_rst_ignored"), 1);
	CHECK_EQ(dw("challenge_acks"), 1);
	CHECK_EQ(dw("conns_closed_rst_rx"), 1);
}

/* Truncated at every layer, a fragment, data offsets < 5 and past the
 * segment: each dropped for its reason, the two good SYNs answered. */
TFO_TEST(malformed_frames)
{
	run("worker/malformed");
	CHECK_EQ(dw("drop_l2_short"), 1);
	CHECK_EQ(dw("drop_ipv4_short"), 3);
	CHECK_EQ(dw("drop_ipv4_frag"), 1);
	CHECK_EQ(dw("drop_tcp_short"), 2);
	CHECK_EQ(dw("to_control"), 2);
	CHECK_EQ(dc("conns_opened_plain"), 2);
}

/* A head longer than max_header is TOO_BIG whatever follows it (it was
 * SYNTAX when a bad byte came after the limit). */
TFO_TEST(http_too_big_then_syntax)
{
	struct tfo_http_limits lim = { .max_header = 64, .max_uri = 16 };
	struct tfo_http_req r;
	size_t len;
	uint8_t *b = slurp("http/regress-too-big-then-syntax", &len);

	CHECK_EQ(tfo_http_parse(b + 1, (uint32_t)len - 1, &lim, &r), TFO_HTTP_E_TOO_BIG);
	CHECK_EQ(tfo_http_parse(b + 1, 65, &lim, &r), TFO_HTTP_E_TOO_BIG);
	free(b);
}

/* The accounting identity itself: what counts as a frame drop, and that a
 * frame counted nowhere (or twice) is seen. */
TFO_TEST(accounting_identity)
{
	struct tfo_stats st;
	struct tfo_acct a;

	memset(&st, 0, sizeof(st));
	st.c[TFO_STAT_rx_pkts] = 10;
	st.c[TFO_STAT_rx_delivered] = 5;
	st.c[TFO_STAT_PKT_DROP_BASE + TFO_PKT_DROP_tcp_cksum] = 2;
	st.c[TFO_STAT_to_control] = 2;
	st.c[TFO_STAT_drop_seq_window] = 7;	/* a delivered segment's fate */
	CHECK(!tfo_stats_account(&st, &a));
	CHECK_EQ(a.rx_unaccounted, 1);
	CHECK_EQ(a.dropped, 2);
	st.c[TFO_STAT_ring_drop_full] = 1;
	CHECK(tfo_stats_account(&st, &a));
	st.c[TFO_STAT_ctrl_rx] = 1;		/* a control-core frame... */
	st.c[TFO_STAT_drop_nd_bad] = 2;		/* ...counted twice */
	CHECK(!tfo_stats_account(&st, &a));
	CHECK_EQ(a.rx_unaccounted, -1);
	st.c[TFO_STAT_drop_nd_bad] = 1;
	st.c[TFO_STAT_tx_queued] = 4;
	st.c[TFO_STAT_tx_relay_in] = 1;
	st.c[TFO_STAT_tx_pkts] = 3;
	st.c[TFO_STAT_tx_drop_full] = 1;
	CHECK(!tfo_stats_account(&st, &a));
	CHECK_EQ(a.tx_unaccounted, 1);
	st.c[TFO_STAT_ctrl_relayed] = 1;
	CHECK(tfo_stats_account(&st, &a));
	CHECK(tfo_stats_is_frame_drop(TFO_STAT_PKT_DROP_BASE + TFO_PKT_DROP_multiseg));
	CHECK(!tfo_stats_is_frame_drop(TFO_STAT_PKT_DROP_BASE));
	CHECK(!tfo_stats_is_frame_drop(TFO_STAT_drop_rst_ignored));
	CHECK(tfo_stats_is_frame_drop(TFO_STAT_drop_arp_other));
}

TFO_TEST_MAIN()
