#!/bin/bash
# tfo-server's control and worker lcores on ONE CPU (--lcores 0@1,1@1),
# tfo-loadgen on another, over a net_memif pair (--no-huge, two processes):
# a small VM is a real deployment. At 1,000 transactions/s for 3 s, TFO and
# plain (--no-tfo 100; every plain transaction crosses from the worker to
# the control lcore and back several times):
#   idle_policy adaptive (the default): every transaction completes, no
#     retransmission, the median well under a millisecond (tens of us on
#     an idle machine; the bound leaves room for a busy CI host), the lcores slept
#     when idle (idle_waits) and say they yield their shared CPU, the
#     accounting balances at exit;
#   idle_policy busy: the same traffic completes too, but each plain
#     crossing waits for the scheduler to preempt a spinning lcore
#     (milliseconds): the test bed does share the CPU, so adaptive's figures
#     are the policy's, not luck.
#   idle_shared_cpu.sh TFO_SERVER TFO_LOADGEN
set -u
SRV=$1
LG=$2
. "$(dirname "$0")/tap/lib.sh"
. "$(dirname "$0")/../scripts/usertools/memif-pair.sh"

if [ "$(nproc --all)" -lt 2 ]; then
	echo "SKIP: needs 2 CPUs (the server's lcores on CPU 1, the loadgen on CPU 0)"
	exit 77
fi
MP_LG=$LG
mp_need
mp_init "idl$$"
TMP=$MP_TMP
trap 'rc=$?; mp_cleanup $rc; exit $rc' EXIT
trap 'exit 130' INT TERM
MP_SRV_LCORES="--lcores 0@1,1@1"
MP_LG_LCORES="--lcores 0@0,1@0"

# srvsum NAME: the server's counter summed over its lcores (exit summary)
srvsum() { awk -v n="$1" '/\(lcore [0-9]+\)/ && $3 == n { s += $4 } END { print s + 0 }' "$TMP/server.log"; }

# run POLICY LOAD ARGS...: 3 s at 1,000/s, 64 client addresses
run() {
	local name=$1-$2

	shift 2
	mp_loadgen "$name" --server 198.18.0.2 --server-port 7 --client 198.18.1.1 \
		--clients 64 --request-size 100 --expect-echo --rate 1000 --duration 3 \
		--concurrency 64 --stats-period 0 "$@"
	LGRC=$MP_LGRC
}
retx() { echo $(( $(mp_jget "$1" syn_retransmits) + $(mp_jget "$1" data_retransmits) + $(mp_jget "$1" fin_retransmits) )); }

for policy in adaptive busy; do
	echo "# idle_policy $policy, control and worker on CPU 1"
	mp_server_start "$SRV" "idle_policy = $policy"
	run "$policy" tfo
	run "$policy" plain --no-tfo 100
	for load in tfo plain; do
		c=$policy-$load
		check "$c: loadgen exit code 0, no error" eq "$LGRC/$(mp_jget "$c" errors)" 0/0
		# (a generator whose CPU is taken skips starts more than 10 ms
		# late: on a busy host fewer than 3,000 start)
		check "$c: every transaction started completed (3,000 at most)" \
			bash -c '[ "$1" = "$2" ] && [ "$1" -ge 1500 ] ||
				{ echo "     (completed $1, started $2)"; false; }' _ \
			"$(mp_jget "$c" txn_completed)" "$(mp_jget "$c" txn_started)"
		check "$c: no retransmission" eq "$(retx "$c")" 0
		echo "     $c: p50 $(mp_jget "$c" p50) us, p99 $(mp_jget "$c" p99) us"
	done
	mp_server_stop
	check "$policy: tfo-server exit code 0" eq "$?" 0
	check "$policy: accounting: ok" grep -q "^accounting: ok" "$TMP/server.log"
	if [ "$policy" = adaptive ]; then
		check "adaptive: TFO answered within 1 ms (p50)" lt "$(mp_jget adaptive-tfo p50)" 1000
		check "adaptive: plain answered within 1 ms (p50)" lt "$(mp_jget adaptive-plain p50)" 1000
		check "adaptive: the lcores know they share a CPU (they yield it)" \
			bash -c '[ "$(grep -c "its CPU is another lcore.s too" "$1")" = 2 ]' _ \
			"$TMP/server.log"
		check "adaptive: the lcores slept when idle" gt "$(srvsum idle_waits)" 0
	else
		check "busy: plain waits for the scheduler: p50 over 10x adaptive's" \
			gt "$(mp_jget busy-plain p50)" $(( 10 * $(mp_jget adaptive-plain p50) ))
		check "busy: the lcores never slept" eq "$(srvsum idle_waits)" 0
	fi
	mv "$TMP/server.log" "$TMP/server-$policy.log"
done
tfo_done
