/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-bench pipeline: a worker's whole poll-loop work per TFO transaction,
 * without a device: tfo_worker_burst() (parse, classify, batched cookie
 * check, engine, service, SYN-ACK + response built, TX buffer) and
 * tfo_worker_housekeeping() (timers, TX flush) on pre-built bursts of
 * client segments, then the clients' ACK and FIN bursts; the mbufs sent are
 * freed (as on TX completion) inside the timed region. See bench_txn.h.
 *
 *   tfo-bench pipeline [--reps R] [--trans N] [--live N[,N...]]
 *                      [--service echo|http|both] [--cksum offload|sw|both]
 *                      [--burst B] [--request-size N] [--ackfin] [--cold]
 *                      [--plain] [--bad-cookie] [--cookie-req] [--flood]
 *                      [--controls N[,N...]] [--syncookies MODE[,MODE...]]
 *
 * echo: a 100-byte line, answered with itself and FIN. http: GET of a
 * 100-byte file with Connection: close (the response is the header section
 * and the body, zero-copy). offload: RX checksum flags trusted and TX
 * checksums left to the device (pseudo-header sum only); sw: verified and
 * computed in software (net_memif, net_ring, net_null). After the runs the
 * end state is checked (every connection closed but the live ones, each SYN
 * served on the fast path, accounting balanced, every mbuf back).
 * Figures: TSC ticks, median of R runs of N transactions (after one warm-up
 * run), spread = (max - min) / median of the totals; left out: bursts the
 * OS interrupted (over BT_INTERRUPTED x the median burst), not counted.
 *
 * --plain, --bad-cookie, --cookie-req, --flood: the slow path instead (echo
 * only; see enum bt_kind): per transaction the worker's burst +
 * housekeeping and the control core's tfo_control_poll (its ring, engine
 * and replies, without a device), each printed next to the TFO
 * transaction of the same shape (ACK and FIN in one segment). --flood: one
 * spoofed SYN per transaction, with the frames it sent to the control
 * core and the SYN cookies it got: the figure names the path it took.
 * --syncookies auto,always,no: each slow-path row under each [tcp]
 * syncookies mode (default auto; always: the worker answers every
 * slow-path SYN with a SYN cookie, so a spoofed SYN costs the worker alone).
 * --controls 1,2: each row with N control lcores (connections spread by
 * tfo_ctrl_pick, every control lcore polled and timed apart), then a table
 * of the control cost summed and per control lcore next to the first N's,
 * with the control stage's rate = TSC Hz / the busiest control's TSC per
 * transaction (each control lcore on its own core).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "bench.h"
#include "bench_txn.h"

static const char bp_http_req[] =
	"GET /o100 HTTP/1.1\r\n"
	"Host: 198.18.0.2\r\n"
	"User-Agent: curl/7.88.1\r\n"
	"Accept: */*\r\n"
	"Connection: close\r\n"
	"\r\n";

static const char *const bp_kind_names[] = {
	[BT_KIND_TFO] = "TFO",
	[BT_KIND_PLAIN] = "plain",
	[BT_KIND_BAD_COOKIE] = "bad cookie",
	[BT_KIND_COOKIE_REQ] = "cookie request",
	[BT_KIND_FLOOD] = "spoofed SYN",
};

/* What the slow-path table runs: kinds x [tcp] syncookies x control lcores. */
struct bp_slow_set {
	uint8_t kinds[5];
	unsigned int nkinds;
	const char *modes[3];
	unsigned int nmodes;
	uint32_t controls[BT_MAX_CONTROLS];
	unsigned int ncontrols;
};

/* One kind's rows for N = controls[0..]: cost per transaction summed over
 * the control lcores, per control lcore, and the busiest one's rate next to
 * N = 1's (the first of the list). */
static void
bp_controls_row(const struct bt_result *one, const struct bt_result *row, double hz,
		const char *ck, const char *kind, const char *mode)
{
	char per[96] = "";
	size_t off = 0;

	for (unsigned int i = 0; i < row->nb_controls && off < sizeof(per); i++)
		off += (size_t)snprintf(per + off, sizeof(per) - off, "%s%.0f", i ? " / " : "",
					row->ctl_at[i]);
	printf("| %s | %s | %s | %u | %.0f | %.2f | %s | %.0f | %.2f | %.2f | %.2f |\n", ck, kind,
	       mode, row->nb_controls, row->ctl, row->ctl / one->ctl, per, row->ctl_max,
	       hz / row->ctl_max / 1e6, one->ctl_max / row->ctl_max,
	       one->ctl_max / row->ctl_max / row->nb_controls * one->nb_controls);
}

/* The slow-path table's header: what a transaction is, what the columns say. */
static void
bp_slow_header(const struct bt_params *p, uint32_t req_len, unsigned int reps,
	       unsigned int trans)
{
	printf("# the slow path (worker -> ring -> control lcore(s), replies sent by the "
	       "control lcore), echo %u B, bursts of %u, median of %u x %u; CPU %s\n",
	       req_len, p->burst, reps, trans, tfo_bench_cpu_model());
	printf("# a transaction: TFO: SYN+cookie+request, ACK+FIN; plain / bad cookie / "
	       "cookie request: SYN, ACK+request, ACK+FIN; spoofed SYN: the SYN alone\n");
	printf("# TSC ticks per transaction: worker (burst + housekeeping), control "
	       "(tfo_control_poll of every control lcore, summed), busiest control (the "
	       "largest one control lcore's share), total (+ TX free); x TFO = total / "
	       "TFO's total; SYN cookies/txn: all (of which the worker's)\n");
	printf("| live | cksum | load | syncookies | controls | worker | control | "
	       "busiest control | total | spread | x TFO | to control/txn | "
	       "SYN cookies/txn (worker) | pkts | Mtrans/s/core | left out |\n");
	printf("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
}

/* The kinds' rows of one live count and checksum mode (p->live, p->offload)
 * next to the TFO transaction (@p tfo_total), each kept in @p rows for the
 * side-by-side table. */
static int
bp_slow_kinds(struct bt_params *p, const struct bp_slow_set *set, unsigned int reps,
	      unsigned int trans, double tfo_total, struct bt_result rows[3][5][BT_MAX_CONTROLS])
{
	const char *ck = p->offload ? "offload" : "sw";
	double hz = (double)tfo_bench_tsc_hz();
	struct bt_result row;
	int rc = 0;

	for (unsigned int mi = 0; mi < set->nmodes && rc == 0; mi++)
	for (unsigned int k = 0; k < set->nkinds && rc == 0; k++)
	for (unsigned int ni = 0; ni < set->ncontrols && rc == 0; ni++) {
		uint8_t kind = set->kinds[k];

		p->kind = kind;
		p->syncookies = set->modes[mi];
		p->nb_controls = set->controls[ni];
		rc = bt_measure(p, reps, trans, &row);
		if (rc != 0) {
			fprintf(stderr, "pipeline: %s, syncookies %s, %u controls, "
				"live %u %s: failed\n", bp_kind_names[kind],
				set->modes[mi], set->controls[ni], p->live, ck);
			break;
		}
		rows[mi][k][ni] = row;
		printf("| %u | %s | %s | %s | %u | %.0f | %.0f | %.0f | %.0f | "
		       "%.1f%% | %.2f | %.2f | %.2f (%.2f) | %.1f | %.2f | %.1f%% |\n",
		       p->live, ck, bp_kind_names[kind],
		       set->modes[mi], row.nb_controls, row.wrk, row.ctl,
		       row.ctl_max, row.total,
		       100.0 * (row.hi - row.lo) / row.total,
		       row.total / tfo_total, row.to_ctl, row.syncookies,
		       row.wrk_syncookies, row.pkts, hz / row.total / 1e6,
		       100.0 * (double)row.left_out / (double)row.bursts);
		fflush(stdout);
	}
	return rc;
}

/* The control lcores side by side, from bp_slow_kinds' @p rows. */
static void
bp_controls_table(const struct bp_slow_set *set, uint32_t live, const char *ck,
		  struct bt_result rows[3][5][BT_MAX_CONTROLS])
{
	double hz = (double)tfo_bench_tsc_hz();

	printf("\n# control lcores side by side (live %u, %s): control TSC per "
	       "transaction summed over the N control lcores (x N=%u: that sum / "
	       "N=%u's; nothing shared: ~1.00) and each one's share; the control "
	       "stage's rate with N control lcores, each on its own core, is "
	       "transactions / the busiest control's busy TSC: Mtrans/s = TSC Hz / "
	       "busiest; speed-up = N=%u's busiest / N's busiest (the target compares "
	       "it with 1.7 for N = 2); speed-up / N: per control core (1.00: "
	       "perfectly spread); spoofed SYNs left out (no control work)\n",
	       live, ck, set->controls[0], set->controls[0], set->controls[0]);
	printf("| cksum | load | syncookies | controls | control (sum) | x N=%u | "
	       "per control | busiest | Mtrans/s (control stage) | speed-up | "
	       "speed-up / N |\n", set->controls[0]);
	printf("|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|\n");
	for (unsigned int mi = 0; mi < set->nmodes; mi++)
		for (unsigned int k = 0; k < set->nkinds; k++)
			for (unsigned int ni = 0;
			     set->kinds[k] != BT_KIND_FLOOD && ni < set->ncontrols; ni++)
				bp_controls_row(&rows[mi][k][0], &rows[mi][k][ni], hz, ck,
						bp_kind_names[set->kinds[k]], set->modes[mi]);
	printf("\n");
}

/* The slow-path table: each kind next to the TFO transaction. */
static int
bp_slow(struct bt_params *p, const struct bp_slow_set *set,
	const uint32_t *lives, unsigned int nlives, const bool *cks, unsigned int ncks,
	const uint8_t *req, uint32_t req_len, unsigned int reps, unsigned int trans)
{
	static struct bt_result ctl_rows[3][5][BT_MAX_CONTROLS];
	double hz = (double)tfo_bench_tsc_hz();
	int rc = 0;

	p->service = "echo";
	p->req = req;
	p->req_len = req_len;
	p->ackfin = true;
	bp_slow_header(p, req_len, reps, trans);
	for (unsigned int li = 0; li < nlives && rc == 0; li++)
		for (unsigned int ci = 0; ci < ncks && rc == 0; ci++) {
			struct bt_result row;

			p->live = lives[li];
			p->offload = cks[ci];
			p->kind = BT_KIND_TFO;
			p->nb_controls = 1;
			p->syncookies = NULL;
			rc = bt_measure(p, reps, trans, &row);
			if (rc != 0) {
				fprintf(stderr, "pipeline: TFO, live %u: failed\n", lives[li]);
				break;
			}
			printf("| %u | %s | TFO | - | - | %.0f | 0 | 0 | %.0f | %.1f%% | 1.00 | "
			       "0.00 | 0.00 (0.00) | %.1f | %.2f | %.1f%% |\n", lives[li],
			       cks[ci] ? "offload" : "sw", row.wrk, row.total,
			       100.0 * (row.hi - row.lo) / row.total, row.pkts, hz / row.total / 1e6,
			       100.0 * (double)row.left_out / (double)row.bursts);
			rc = bp_slow_kinds(p, set, reps, trans, row.total, ctl_rows);
			if (rc == 0 && set->ncontrols >= 2)
				bp_controls_table(set, lives[li], cks[ci] ? "offload" : "sw",
						  ctl_rows);
		}
	printf("# targets (issue 14, reported, not enforced): plain >= 0.5x the TFO rate "
	       "(x TFO <= 2); control cost per transaction not growing with N; 2 control "
	       "lcores >= 1.7x one (speed-up); >= 5 M spoofed SYNs/s answered per worker core "
	       "(syncookies = always: the worker alone)\n");
	return rc;
}

/* "a,b,c" of @p names into @p out (at most @p max). @return how many, 0 on
 * a name not in @p names. */
static unsigned int
bp_names(char *arg, const char *const *names, unsigned int nnames, const char **out,
	 unsigned int max)
{
	unsigned int n = 0;

	for (char *t = strtok(arg, ","); t != NULL; t = strtok(NULL, ",")) {
		unsigned int k = 0;

		while (k < nnames && strcmp(t, names[k]) != 0)
			k++;
		if (k == nnames || n == max)
			return 0;
		out[n++] = names[k];
	}
	return n;
}

/* The TFO table: each live count x service x checksum mode, one row each. */
static int
bp_fast(struct bt_params *p, const uint32_t *lives, unsigned int nlives,
	const char *const *svcs, unsigned int nsvc, const bool *cks, unsigned int ncks,
	const uint8_t *echo_req, uint32_t echo_len, unsigned int reps, unsigned int trans)
{
	double hz = (double)tfo_bench_tsc_hz();
	int rc = 0;

	printf("# one TFO transaction: SYN+cookie+request -> SYN-ACK+response+FIN; "
	       "ACK%s; bursts of %u, %s client frames; median of %u x %u "
	       "transactions\n", p->ackfin ? "+FIN -> ACK" : "; FIN -> ACK",
	       p->burst, p->cold ? "cold (clflush)" : "warm", reps, trans);
	printf("# TSC ticks per transaction by step (burst + housekeeping + TX "
	       "free); Mtrans/s = TSC Hz / total\n");
	printf("| live | service | cksum | response | syn | ack | fin | total | "
	       "spread | ticks/pkt | pkts | Mtrans/s/core | left out |\n");
	printf("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (unsigned int li = 0; li < nlives && rc == 0; li++)
		for (unsigned int si = 0; si < nsvc && rc == 0; si++)
			for (unsigned int ci = 0; ci < ncks && rc == 0; ci++) {
				struct bt_result row;
				bool http = strcmp(svcs[si], "http") == 0;

				p->live = lives[li];
				p->service = svcs[si];
				p->offload = cks[ci];
				p->req = http ? (const uint8_t *)bp_http_req : echo_req;
				p->req_len = http ? (uint32_t)strlen(bp_http_req) : echo_len;
				rc = bt_measure(p, reps, trans, &row);
				if (rc != 0) {
					fprintf(stderr, "pipeline: live %u %s %s: failed\n",
						lives[li], svcs[si],
						cks[ci] ? "offload" : "sw");
					break;
				}
				printf("| %u | %s | %s | %u B/%u seg | %.0f | %.0f | %.0f | "
				       "%.0f | %.1f%% | %.0f | %.0f | %.2f | %.1f%% |\n",
				       lives[li], svcs[si], cks[ci] ? "offload" : "sw",
				       row.resp, row.segs, row.syn, row.ack, row.fin,
				       row.total, 100.0 * (row.hi - row.lo) / row.total,
				       row.total / row.pkts, row.pkts,
				       hz / row.total / 1e6,
				       100.0 * (double)row.left_out / (double)row.bursts);
				fflush(stdout);
			}
	return rc;
}

/* --service and --cksum ("both" or one of them; NULL: both): the services
 * and checksum modes the TFO table runs, into @p svcs and @p cks. */
static int
bp_which(const char *svc_s, const char *cks_s, const char **svcs, unsigned int *nsvc,
	 bool *cks, unsigned int *ncks)
{
	if (svc_s != NULL && strcmp(svc_s, "both") != 0) {
		if (strcmp(svc_s, "echo") != 0 && strcmp(svc_s, "http") != 0)
			return -EINVAL;
		svcs[0] = svc_s;
		*nsvc = 1;
	}
	if (cks_s != NULL && strcmp(cks_s, "both") != 0) {
		if (strcmp(cks_s, "offload") != 0 && strcmp(cks_s, "sw") != 0)
			return -EINVAL;
		cks[0] = strcmp(cks_s, "offload") == 0;
		*ncks = 1;
	}
	return 0;
}

static int
bench_pipeline(int argc, char **argv)
{
	static const char *const modes[] = { "auto", "always", "no" };
	struct bp_slow_set set = { .modes = { "auto" }, .nmodes = 1,
				   .controls = { 1 }, .ncontrols = 1 };
	static const uint32_t sizes[] = { 100 };
	uint32_t lives[8] = { 1000, 65536 }, nlives = 2;
	unsigned int reps = 7, trans = 32768, nsvc = 2, ncks = 2;
	const char *svcs[2] = { "echo", "http" };
	char *svc_s = NULL, *cks_s = NULL, *modes_s = NULL;
	bool cks[2] = { true, false };
	uint8_t echo_req[1400];
	uint32_t echo_len;
	char root[64];
	struct bt_params p = { .burst = 32, .req_len = 100, .tx_multiseg = true };
	const struct tfo_bench_opt opts[] = {
		{ "reps", TFO_BENCH_OPT_U32, &reps, NULL, 0, 0 },
		{ "trans", TFO_BENCH_OPT_U32, &trans, NULL, 0, 0 },
		{ "live", TFO_BENCH_OPT_LIST, lives, &nlives, RTE_DIM(lives), 0 },
		{ "service", TFO_BENCH_OPT_STR, &svc_s, NULL, 0, 0 },
		{ "cksum", TFO_BENCH_OPT_STR, &cks_s, NULL, 0, 0 },
		{ "burst", TFO_BENCH_OPT_U32, &p.burst, NULL, 0, 0 },
		{ "request-size", TFO_BENCH_OPT_U32, &p.req_len, NULL, 0, 0 },
		{ "ackfin", TFO_BENCH_OPT_FLAG, &p.ackfin, NULL, 0, 0 },
		{ "cold", TFO_BENCH_OPT_FLAG, &p.cold, NULL, 0, 0 },
		{ "plain", TFO_BENCH_OPT_PUSH, set.kinds, &set.nkinds, RTE_DIM(set.kinds),
		  BT_KIND_PLAIN },
		{ "bad-cookie", TFO_BENCH_OPT_PUSH, set.kinds, &set.nkinds, RTE_DIM(set.kinds),
		  BT_KIND_BAD_COOKIE },
		{ "cookie-req", TFO_BENCH_OPT_PUSH, set.kinds, &set.nkinds, RTE_DIM(set.kinds),
		  BT_KIND_COOKIE_REQ },
		{ "flood", TFO_BENCH_OPT_PUSH, set.kinds, &set.nkinds, RTE_DIM(set.kinds),
		  BT_KIND_FLOOD },
		{ "controls", TFO_BENCH_OPT_LIST, set.controls, &set.ncontrols,
		  RTE_DIM(set.controls), 0 },
		{ "syncookies", TFO_BENCH_OPT_STR, &modes_s, NULL, 0, 0 },
	};
	int rc = 0;

	if (tfo_bench_getopt(argc, argv, opts, RTE_DIM(opts),
			     "usage: tfo-bench pipeline [--reps R] [--trans N] "
			     "[--live N,...] [--service echo|http|both] "
			     "[--cksum offload|sw|both] [--burst B] [--request-size N] "
			     "[--ackfin] [--cold] [--plain] [--bad-cookie] [--cookie-req] "
			     "[--flood] [--controls N[,N...]] "
			     "[--syncookies auto|always|no[,...]]") < 0)
		return -EINVAL;
	if (bp_which(svc_s, cks_s, svcs, &nsvc, cks, &ncks) < 0)
		return -EINVAL;
	for (unsigned int i = 0; i < set.ncontrols; i++)
		if (set.controls[i] == 0 || set.controls[i] > BT_MAX_CONTROLS)
			return -EINVAL;
	if (modes_s != NULL) {
		set.nmodes = bp_names(modes_s, modes, RTE_DIM(modes), set.modes,
				      RTE_DIM(set.modes));
		if (set.nmodes == 0)
			return -EINVAL;
	}
	if (set.nkinds == 0 && (set.ncontrols > 1 || set.controls[0] != 1 || set.nmodes > 1 ||
				strcmp(set.modes[0], "auto") != 0)) {
		fprintf(stderr, "pipeline: --controls and --syncookies are for the slow path "
			"(--plain, --bad-cookie, --cookie-req, --flood)\n");
		return -EINVAL;
	}
	if (reps == 0 || reps > BT_MAX_REPS || trans == 0 || p.burst == 0 ||
	    p.burst > BT_BURST_MAX || p.req_len < 2 || p.req_len > sizeof(echo_req))
		return -EINVAL;
	for (uint32_t i = 0; i < p.req_len - 1; i++)
		echo_req[i] = (uint8_t)('a' + i % 26);
	echo_req[p.req_len - 1] = '\n';
	echo_len = p.req_len;
	if (bt_make_docroot(root, sizes, RTE_DIM(sizes)) != 0) {
		fprintf(stderr, "pipeline: cannot write a document root in /tmp\n");
		return -EIO;
	}
	p.http_root = root;
	if (set.nkinds > 0) {
		if (nlives == 2 && lives[1] == 65536)
			nlives = 1;	/* default: 1000 live only */
		rc = bp_slow(&p, &set, lives, nlives, cks, ncks, echo_req, echo_len, reps, trans);
		bt_remove_docroot(root, sizes, RTE_DIM(sizes));
		return rc;
	}

	rc = bp_fast(&p, lives, nlives, svcs, nsvc, cks, ncks, echo_req, echo_len, reps, trans);
	bt_remove_docroot(root, sizes, RTE_DIM(sizes));
	printf("# targets (reported, not enforced): per complete TFO transaction on "
	       "one core, echo <= 400 cycles with offloaded checksums, <= 480 "
	       "software, http <= 600, --cold <= 700\n");
	return rc;
}

TFO_BENCH(bench_pipeline_reg, "pipeline",
	  "a worker's whole poll-loop work per TFO transaction, no device",
	  bench_pipeline);
