#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Soak: tfo-server under tfo-loadgen over a net_memif pair for a while, at a
# share of its peak, with a mix of TFO, plain, bad-cookie and a bounded SYN
# flood; a sample every SOAK_SAMPLE_S, then a check that everything drains
# back to the idle figures. For operators (before deploying a build: leaks
# show in minutes here rather than in days on the fleet) and developers.
#
#   soak.sh [options] [TFO_SERVER [TFO_LOADGEN]]     (default: build/apps/)
#     --minutes N     length of the soak (SOAK_MINUTES, default 10)
#     --seconds N     the same in seconds (SOAK_SECONDS; wins over minutes)
#     --rate N        transactions/s (SOAK_RATE); default: a ramp of
#                     SOAK_RAMP_S (5) seconds flat out finds the peak, and
#     --share PCT     the soak runs at PCT of it (SOAK_SHARE, default 50)
#     --sample S      seconds between samples (SOAK_SAMPLE_S, default 30)
#     --mix "ARGS"    tfo-loadgen mix (SOAK_MIX, default
#                     "--no-tfo 10 --bad-cookie 5 --syn-flood 0.02": a flood
#                     that loads the pending limit without taking all of it)
#   Bounds: SOAK_DRAIN_S (120) to drain after the load (connections the
#   loadgen left behind expire with idle_timeout_ms, retransmissions
#   with their backoff: about 60 s with the defaults), SOAK_RSS_KB (16384)
#   of RSS growth between the idle figure after the ramp and the end,
#   SOAK_IDLE_POLICY (adaptive: the server sleeps when idle, shared cores),
#   SOAK_SYNACK_RETRIES (the server's [tcp] synack_retries; default its own,
#   5: the flood's half-open connections retransmit for ~63 s, most of the
#   drain; the test suite sets 2, ~7 s).
#
# The verdict (exit 0: PASS, 1: FAIL, 2: set-up): no loadgen error, no
# server error counter (mbuf_alloc_fail, ring_drop_full, conn_pool_full,
# buf_pool_empty, svc_bad_response; tx_drop_full while the loadgen runs),
# and after the drain conns_active 0 (TIME-WAIT expired), tfo_pending 0,
# mbufs_in_use back to its idle figure, RSS grown by at most SOAK_RSS_KB,
# then a clean exit of tfo-server with its accounting balanced. Needs root.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
SECONDS_RUN=${SOAK_SECONDS:-$(( ${SOAK_MINUTES:-10} * 60 ))}
RATE=${SOAK_RATE:-0}
SHARE=${SOAK_SHARE:-50}
SAMPLE_S=${SOAK_SAMPLE_S:-30}
RAMP_S=${SOAK_RAMP_S:-5}
MIX=${SOAK_MIX:---no-tfo 10 --bad-cookie 5 --syn-flood 0.02}
DRAIN_S=${SOAK_DRAIN_S:-120}
RSS_KB=${SOAK_RSS_KB:-16384}
IDLE_POLICY=${SOAK_IDLE_POLICY:-adaptive}
SYNACK_RETRIES=${SOAK_SYNACK_RETRIES:-}

usage() {
	sed -n '3,30p' "$0" | sed 's/^# \{0,1\}//'
	exit "$1"
}
while [ $# -gt 0 ]; do
	case $1 in
	--minutes) SECONDS_RUN=$(( $2 * 60 )); shift 2 ;;
	--seconds) SECONDS_RUN=$2; shift 2 ;;
	--rate) RATE=$2; shift 2 ;;
	--share) SHARE=$2; shift 2 ;;
	--sample) SAMPLE_S=$2; shift 2 ;;
	--mix) MIX=$2; shift 2 ;;
	-h|--help) usage 0 ;;
	-*) echo "soak.sh: unknown option $1" >&2; usage 2 ;;
	*) break ;;
	esac
done
SRV=${1:-$HERE/../../build/apps/tfo-server}
MP_LG=${2:-$HERE/../../build/apps/tfo-loadgen}
for n in "$SECONDS_RUN" "$RATE" "$SHARE" "$SAMPLE_S" "$RAMP_S" "$DRAIN_S" "$RSS_KB" \
	"${SYNACK_RETRIES:-0}"; do
	case $n in ''|*[!0-9]*) echo "soak.sh: not a number: '$n'" >&2; exit 2 ;; esac
done
[ "$SAMPLE_S" -gt 0 ] && [ "$SECONDS_RUN" -gt 0 ] || { echo "soak.sh: zero length" >&2; exit 2; }
[ -x "$SRV" ] && [ -x "$MP_LG" ] || { echo "soak.sh: no $SRV / $MP_LG (build first)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "SKIP: soak.sh needs root"; exit 77; }

. "$HERE/memif-pair.sh"
mp_need
mp_init "soak$$"
FAILS=0
trap 'rc=$?; [ -n "${MP_LGPID:-}" ] && kill "$MP_LGPID" 2>/dev/null; mp_cleanup $rc; exit $rc' EXIT
trap 'exit 130' INT TERM
# 64k entries per lcore: a share of the peak times time_wait_ms (1 s) fits
MP_MAX_CONNS=65536
# shellcheck disable=SC2034 # read by memif-pair.sh
MP_TCP_INI=${SYNACK_RETRIES:+synack_retries = $SYNACK_RETRIES}
mp_server_start "$SRV" "idle_policy = $IDLE_POLICY"
CLK=$(getconf CLK_TCK)

# fig FILE KEY...: figures of a /tfo/stats snapshot, one a line
fig() {
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["/tfo/stats"]
errs = ("mbuf_alloc_fail", "ring_drop_full", "conn_pool_full", "buf_pool_empty",
        "svc_bad_response")
ext = {"srv_errors": sum(d[e] for e in errs) + d["tx_drop_full"],
       "srv_errors_gone": sum(d[e] for e in errs)}
for k in sys.argv[2:]:
    print(ext[k] if k in ext else d[k])' "$@"
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
jget() {
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d.get(sys.argv[2], d["counters"].get(sys.argv[2], "")))' "$MP_TMP/$1.json" "$2"
}
verdict() {
	if "${@:2}"; then
		printf '  ok    %s\n' "$1"
	else
		printf '  FAIL  %s\n' "$1"
		FAILS=$((FAILS + 1))
	fi
}
le() { [ "$1" -le "$2" ] || { echo "        ($1 > $2)"; return 1; }; }
eq() { [ "$1" = "$2" ] || { echo "        ($1 != $2)"; return 1; }; }

# drain: until no connection, nothing pending and the idle mbuf figure
drain() {
	local end=$((SECONDS + DRAIN_S))

	while :; do
		mp_snap "$MP_TMP/drain.json"
		read -r CONNS PEND MBUFS < <(fig "$MP_TMP/drain.json" conns_active tfo_pending \
			mbufs_in_use | xargs)
		[ "$CONNS" = 0 ] && [ "$PEND" = 0 ] && [ "$MBUFS" -le "$IDLE_MBUFS" ] && return 0
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 1
	done
}

mp_snap "$MP_TMP/idle.json"
IDLE_MBUFS=$(fig "$MP_TMP/idle.json" mbufs_in_use)
echo "# soak: tfo-server $SRV, pid $MP_SPID; idle: mbufs_in_use $IDLE_MBUFS, RSS $(rss_kb "$MP_SPID") kB"

# The loadgen spins one core flat out during the ramp only; the soak runs
# at a share of it (and the server, idle_policy adaptive, sleeps when idle).
if [ "$RATE" = 0 ]; then
	MP_LG_TIMEOUT=$((RAMP_S + 60)) mp_loadgen ramp --server 198.18.0.2 --server-port 80 \
		--client 198.18.1.1 --clients 64 --duration "$RAMP_S" --stats-period 0
	PEAK=$(jget ramp txn_per_s)
	PEAK=${PEAK%.*}
	[ "$MP_LGRC" = 0 ] && [ "${PEAK:-0}" -gt 0 ] || { echo "FAIL: the ramp failed (exit $MP_LGRC)"; exit 1; }
	RATE=$((PEAK * SHARE / 100))
	[ "$RATE" -gt 0 ] || RATE=1
	echo "# ramp: peak $PEAK txn/s over ${RAMP_S} s (HTTP, TFO only); soak at $SHARE%: $RATE txn/s"
else
	echo "# soak at --rate $RATE txn/s"
fi
drain || { echo "FAIL: the server did not drain after the ramp"; exit 1; }
# RSS after the first load: the pages the load touches once are in
sleep 1
RSS0=$(rss_kb "$MP_SPID")
echo "# ${SECONDS_RUN} s, mix: $MIX (the rest TFO); a sample every ${SAMPLE_S} s; RSS base $RSS0 kB"

# shellcheck disable=SC2086 # MIX is a list of options
MP_LG_TIMEOUT=$((SECONDS_RUN + 120)) mp_loadgen_bg soak --server 198.18.0.2 --server-port 80 \
	--client 198.18.1.1 --clients 64 --expect-prefix 'HTTP/1.1 200 OK\r\n' \
	--duration "$SECONDS_RUN" --rate "$RATE" --concurrency 512 --stats-period "$SAMPLE_S" $MIX
sleep 1
LGPID=$(cat "/proc/$MP_LGPID/task/$MP_LGPID/children" 2>/dev/null | awk '{ print $1 }')
LGPID=${LGPID:-0}
mp_snap "$MP_TMP/prev.json"
cp "$MP_TMP/prev.json" "$MP_TMP/live.json"
T0=$SECONDS
TP=$T0
SCPU=$(cpu_ticks "$MP_SPID")
LCPU=$(cpu_ticks "$LGPID")
MAXERR=0
printf '%6s %9s %7s %7s %7s %7s %7s %8s %6s %6s\n' t_s txn/s lg_err srv_err conns \
	pending mbufs rss_kB srv% lg%
while kill -0 "$MP_LGPID" 2>/dev/null; do
	sleep "$SAMPLE_S" &
	wait $!
	mp_snap "$MP_TMP/now.json" || continue
	# once the loadgen is gone, SYN-ACKs retransmitted to the flood
	# fill the memif ring: tx_drop_full counts only while it runs
	kill -0 "$LGPID" 2>/dev/null && cp "$MP_TMP/now.json" "$MP_TMP/live.json"
	NOW=$SECONDS
	DT=$((NOW - TP))
	[ "$DT" -gt 0 ] || DT=1
	read -r R0 < <(fig "$MP_TMP/prev.json" svc_responses)
	read -r R1 SE CONNS PEND MBUFS < <(fig "$MP_TMP/now.json" svc_responses srv_errors \
		conns_active tfo_pending mbufs_in_use | xargs)
	LE=$(grep -o 'errors [0-9]*' "$MP_TMP/soak.log" | tail -n 1 | awk '{ print $2 }')
	S1=$(cpu_ticks "$MP_SPID")
	L1=$(cpu_ticks "$LGPID")
	[ "$L1" -ge "$LCPU" ] || L1=$LCPU	# the loadgen has exited
	printf '%6d %9d %7d %7d %7d %7d %7d %8d %6d %6d\n' $((NOW - T0)) $(((R1 - R0) / DT)) \
		"${LE:-0}" "$SE" "$CONNS" "$PEND" "$MBUFS" "$(rss_kb "$MP_SPID")" \
		$(((S1 - SCPU) * 100 / (CLK * DT))) $(((L1 - LCPU) * 100 / (CLK * DT)))
	mv "$MP_TMP/now.json" "$MP_TMP/prev.json"
	TP=$NOW
	SCPU=$S1
	LCPU=$L1
	[ "${LE:-0}" -gt "$MAXERR" ] && MAXERR=${LE:-0}
done
wait "$MP_LGPID"
LGRC=$?
MP_LGPID=""
sed -n 's/^summary: /# loadgen: /p' "$MP_TMP/soak.log" | head -n 4

DRAIN_T0=$SECONDS
drain
DRAINED=$?
[ "$DRAINED" = 0 ] || echo /tfo/conns | timeout 10 dpdk-telemetry.py -f "$MP_TAG-srv"
RSS1=$(rss_kb "$MP_SPID")
mp_snap "$MP_TMP/end.json"
echo "# drained in $((SECONDS - DRAIN_T0)) s: conns_active $CONNS, tfo_pending $PEND," \
	"mbufs_in_use $MBUFS (idle $IDLE_MBUFS), RSS $RSS1 kB (base $RSS0)"
echo "# verdict"
verdict "loadgen exit code 0 and no error" eq "$LGRC/$(jget soak errors)" 0/0
verdict "some transactions (>= 50% of rate x length)" \
	le $((RATE * SECONDS_RUN / 2)) "$(jget soak transactions)"
verdict "no server error counter (tx_drop_full: while the loadgen ran)" \
	eq "$(fig "$MP_TMP/live.json" srv_errors)/$(fig "$MP_TMP/end.json" srv_errors_gone)" 0/0
verdict "drained: conns_active 0, tfo_pending 0, mbufs back to idle" eq "$DRAINED" 0
verdict "RSS grew by at most $RSS_KB kB" le $((RSS1 - RSS0)) "$RSS_KB"
mp_server_stop
verdict "tfo-server exit code 0" eq "$?" 0
verdict "tfo-server accounting: ok" grep -q "^accounting: ok" "$MP_TMP/server.log"
if [ "$FAILS" = 0 ]; then
	echo "soak: PASS"
	exit 0
fi
echo "soak: FAIL ($FAILS check(s))"
exit 1
