#!/bin/bash
# The memory plan (src/server/start_plan.c: --print-config, the hugepages
# setup-host.sh reserves, -m's floor) against what a start really takes:
# tfo-server over net_null with --no-huge in several shapes (lcores,
# controls, table sizes, [server] mbufs, TFO off) logs the EAL heap it
# holds once launched beside the plan ("memory taken at start").
# Each shape: the plan holds (no "over the plan" warning: taken <= the
# plan's total) and is not padded (its parts are at most 10% + 2 MiB over
# what was taken, the EAL's own allocations included in the taken figure).
set -u
SERVER=$1
fails=0
checks=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {
	local what=$1
	shift
	checks=$((checks + 1))
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}

# le A B: both numbers, A <= B
le() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -le "$2" ]; }

# shape NAME LCORES SERVER_KEYS EXTRA_SECTIONS
shape() {
	local name=$1 lcores=$2 keys=$3 extra=$4 log line taken total parts
	log=$tmp/$name.log
	printf '[eal]\nargs = --lcores %s --no-huge -m 2048 --no-pci --file-prefix tfopt%s --vdev net_null0\n[server]\nidle_policy = adaptive\n%b\n[port net_null0]\nvdev = net_null0\nipv4 = 198.18.0.2/24\n%b\n' \
		"$lcores" "$$" "$keys" "$extra" >"$tmp/$name.ini"
	# Ctrl-C ends it (no drain) once it logged the figure; 10 s covers a
	# start of 60,000 4 KiB pages on a busy machine
	"$SERVER" --config "$tmp/$name.ini" >"$log" 2>&1 &
	local pid=$! i
	for ((i = 0; i < 100; i++)); do
		grep -q "memory taken at start" "$log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	line=$(grep -m1 "memory taken at start on socket 0" "$log")
	check "$name: the start logs what it took" [ -n "$line" ]
	check "$name: the plan holds (no warning)" bash -c '! grep -q "over the plan" "$0"' "$log"
	taken=$(sed -n 's/.*socket 0: \([0-9]*\) MiB of the plan.s .*/\1/p' <<<"$line")
	total=$(sed -n 's/.* of the plan.s \([0-9]*\) MiB .*/\1/p' <<<"$line")
	parts=$(sed -n 's/.*(its parts \([0-9]*\) MiB .*/\1/p' <<<"$line")
	echo "     $name: taken ${taken:-?} MiB, plan ${total:-?} MiB, parts ${parts:-?} MiB"
	check "$name: taken <= plan" le "$taken" "$total"
	check "$name: parts <= taken x 1.1 + 2 MiB" \
		le "$((${parts:-1} * 10))" "$((${taken:-0} * 11 + 20))"
	rm -rf "/var/run/dpdk/tfopt$$"
}

shape default "0@0,1@1" "" ""
shape big-tables "0@0,1@1" "" "[tcp]\nmax_conns = 200000\ntime_wait_max = 200000"
shape two-controls "0@0,1@1,2@1,3@0" "control_lcores = 2" ""
shape three-workers "0@0,1@1,2@1,3@0" "" "[tcp]\nmax_conns = 50000"
shape no-tfo "0@0,1@1" "" "[tfo]\nenabled = no"
shape mbufs-60000 "0@0,1@1" "mbufs = 60000" ""

echo "plan_taken: $checks checks, $fails failed"
[ "$fails" = 0 ]
