#!/bin/bash
# "Never wedge, never crash": tfo-server's net_memif peer comes and goes.
# DPDK 22.11's net_memif unmaps a departed peer's rings on the EAL
# interrupt thread while an lcore may be inside eth_memif_rx on them
# (src/lcore/qs.h); tfo-server's munmap waits until every polling lcore
# is between bursts. Both lcores on one CPU (where it crashed before:
# about 4 in 170 departures with idle_policy busy), the loadgen on another.
# For idle_policy busy, then adaptive, CHURN_ROUNDS (default 50: 100
# departures in all, 2.5-4.5 s each, mostly the loadgen's EAL start; at
# most 300 s per policy, and at least 40 rounds each must fit)
# rounds in a row of one tfo-loadgen that starts, sends for 0.2-1 s and
# exits, or is killed with SIGKILL while it sends (every other round).
# Asserted:
# the server never dies, the runs that exit complete transactions, a last
# run from fresh clients is served without an error, the server stops
# with exit code 0 and its accounting balanced; with busy the unmaps did
# wait for the lcores (unmap_waits), and none gave up (unmap_kept).
#   memif_churn.sh TFO_SERVER TFO_LOADGEN
set -u
SRV=$1
LG=$2
ROUNDS=${CHURN_ROUNDS:-50}
. "$(dirname "$0")/tap/lib.sh"
. "$(dirname "$0")/../scripts/usertools/memif-pair.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (DPDK --no-huge with two processes, a memif socket)"
	exit 77
fi
for t in timeout dpdk-telemetry.py /usr/bin/python3; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "SKIP: required tool '$t' is missing (run scripts/setup.sh)"
		exit 77
	fi
done
if [ "$(nproc --all)" -lt 2 ]; then
	echo "SKIP: needs 2 CPUs (the server's lcores on CPU 1, the loadgen on CPU 0)"
	exit 77
fi
MP_LG=$LG
mp_init "${CHURN_TAG:-mchurn}$$"
TMP=$MP_TMP
LGPID=""
cleanup() {
	local rc=$1

	[ -n "$LGPID" ] && kill -KILL "$LGPID" 2>/dev/null && wait "$LGPID" 2>/dev/null
	mp_cleanup "$rc"
}
trap 'rc=$?; cleanup $rc; exit $rc' EXIT
trap 'exit 130' INT TERM
MP_SRV_LCORES="--lcores 0@1,1@1"
MP_LG_LCORES="--lcores 0@0,1@0"

# srvsum NAME: the server's counter summed over its lcores (exit summary)
srvsum() { awk -v n="$1" '/\(lcore [0-9]+\)/ && $3 == n { s += $4 } END { print s + 0 }' "$TMP/server.log"; }

# lg_start NAME SECONDS CLIENT: one loadgen in the background ($LGPID is
# the loadgen itself, for SIGKILL), echo at 2,000/s from 8 addresses
lg_start() {
	MP_LG_TIMEOUT=0 mp_loadgen_bg "$1" --stats-period 0 --server 198.18.0.2 --server-port 7 \
		--client "$3" --clients 8 --request-size 100 --expect-echo --rate 2000 \
		--concurrency 32 --duration "$2"
	LGPID=$MP_LGPID
}

# secs MS: "0.437"
secs() { awk -v m="$1" 'BEGIN { printf "%.3f", m / 1000 }'; }

# lg_wait SECONDS: the loadgen's exit code, SIGKILL past SECONDS
lg_wait() {
	local i rc

	for i in $(seq 1 $(( $1 * 10 ))); do
		kill -0 "$LGPID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$LGPID" 2>/dev/null
	# (braces: no "Killed" line from bash for the ones killed on purpose)
	{ wait "$LGPID"; } 2>/dev/null
	rc=$?
	LGPID=""
	return "$rc"
}

for policy in busy adaptive; do
	echo "# idle_policy $policy: $ROUNDS peers come and go (server lcores on CPU 1)"
	mp_server_start "$SRV" "idle_policy = $policy"
	t0=$(date +%s)
	alive=1 exited=0 served=0 killed=0
	for i in $(seq 1 "$ROUNDS"); do
		# 0.2 to 1 s of traffic; a client block of its own per round, so
		# that no round meets the half-open connections a killed one left
		ms=$(( 200 + (i * 137) % 801 ))
		client="198.18.$(( 10 + i % 200 )).1"
		if [ $(( i % 2 )) = 0 ]; then
			lg_start "$policy-$i" 30 "$client"
			# kill it while it sends: once the server has answered it
			# (or after 5 s), plus the round's share of a second
			for _ in $(seq 1 50); do
				grep -q -- "-> run after" "$TMP/$policy-$i.log" 2>/dev/null && break
				sleep 0.1
			done
			sleep "$(secs "$ms")"
			kill -KILL "$LGPID" 2>/dev/null
			lg_wait 5
			killed=$((killed + 1))
		else
			lg_start "$policy-$i" "$(secs "$ms")" "$client"
			lg_wait 30 && [ "$(mp_jget "$policy-$i" txn_completed)" -gt 0 ] 2>/dev/null &&
				served=$((served + 1))
			exited=$((exited + 1))
		fi
		rm -rf /var/run/dpdk/"$MP_TAG-lg$MP_RUN"	# (a killed one's)
		if ! kill -0 "$MP_SPID" 2>/dev/null; then
			alive=0
			echo "     the server died in round $i"
			break
		fi
		# a bound on the whole: 5 minutes per policy (a round took
		# 2.6 s with adaptive, 4.5 s with busy on the 2-CPU host: the
		# loadgen's EAL start shares CPU 0, the spinning lcores CPU 1)
		if [ $(( $(date +%s) - t0 )) -gt 300 ]; then
			echo "     stopped after $i rounds: 300 s are over"
			break
		fi
	done
	echo "     $policy: $i rounds in $(( $(date +%s) - t0 )) s: $exited exited ($served of them" \
		"completed transactions), $killed killed with SIGKILL"
	check "$policy: the server lived through every departure" eq "$alive" 1
	# (a slow host may run out of time first: 40 departures at least)
	check "$policy: at least 40 rounds ran (or all of them)" \
		ge "$i" $(( ROUNDS < 40 ? ROUNDS : 40 ))
	check "$policy: every peer that exited completed transactions" eq "$served" "$exited"
	[ "$alive" = 1 ] || exit 1

	echo "# $policy: a last peer, fresh clients, is served"
	mp_loadgen "$policy-last" --stats-period 0 --server 198.18.0.2 --server-port 7 \
		--client 198.18.250.1 --clients 16 --request-size 100 --expect-echo --count 2000
	check "$policy-last: loadgen exit code 0, no error" \
		eq "$MP_LGRC/$(mp_jget "$policy-last" errors)" 0/0
	check "$policy-last: 2000 transactions" eq "$(mp_jget "$policy-last" transactions)" 2000

	mp_server_stop
	check "$policy: tfo-server exit code 0" eq "$?" 0
	check "$policy: accounting: ok" grep -q "^accounting: ok" "$TMP/server.log"
	check "$policy: no unmap gave up on an lcore (unmap_kept)" eq "$(srvsum unmap_kept)" 0
	if [ "$policy" = busy ]; then
		# busy lcores are always online: each departure's unmap waited
		check "busy: the unmaps waited for the lcores (unmap_waits)" \
			gt "$(srvsum unmap_waits)" 0
	fi
	echo "     $policy: unmap_waits $(srvsum unmap_waits), unmap_kept $(srvsum unmap_kept)"
	mv "$TMP/server.log" "$TMP/server-$policy.log"
	rm -f "$TMP"/"$policy"-*.json "$TMP"/"$policy"-*.log
done
tfo_done
