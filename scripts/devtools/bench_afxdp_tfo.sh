# shellcheck shell=bash
# scripts/devtools/bench.sh's phase afxdp-tfo (bash; sourced by bench.sh
# after bench_afxdp.sh, whose veth bed it uses: ax_bed, ax_unbed,
# ax_xdp_ini, ax_skip, AX_SIF, AX_CIF, AX_ADDR; and bench.sh's srv_start,
# srv_stop, tel, ks_start, stop, child, quiet, say):
# TCP Fast Open over AF_XDP with a real client beside the Linux kernel's TFO
# on the same wire, and the I/O floor of that wire (issue 37). On one veth
# pair, one queue each end:
# - tfo-server's echo service (TCP 7) on net_af_xdp (`xdp = own`; control 0
#   and its one worker on BENCH_DUT_CPU, idle_policy adaptive) driven by
#   tfo-loadgen on net_af_xdp on the client end (its lcores on
#   BENCH_GEN_CPU; 100-byte requests, every answer checked): at
#   BENCH_AFXDP_TFO_RATE (default 1,000/s, --rate) and at its peak (closed
#   loop, 128 in flight);
# - the Linux kernel's TFO server (bench/kernel_tfo_server, one thread on
#   BENCH_DUT_CPU) and client (bench/kernel_tfo_client, one thread on
#   BENCH_GEN_CPU, 128 in flight, the same 100-byte echo) on the same veth's
#   kernel ends, at the same rate and at its peak;
# - the floor: dpdk-testpmd --forward-mode=macswap on net_af_xdp on the
#   server end (its forwarding lcore on BENCH_DUT_CPU, --record-core-cycles:
#   busy TSC per forwarded frame), fed by a second testpmd in flowgen mode
#   (128-byte frames; it also drains what comes back) on net_af_xdp on the
#   client end (BENCH_GEN_CPU).
# REPS x SECS each. The server's figures per connection it served, from its
# counters before and after each client run: tfo-server's /tfo/stats
# (busy_tsc, rx_pkts, tx_pkts, conns_opened_*, TCPFastOpenPassive); the
# kernel server's namespace's Tcp PassiveOpens and TcpExt TCPFastOpenPassive
# and the server end's frame counters (sysfs); for both the server
# process's CPU time (/proc/PID/task/*/schedstat: ns on a CPU, its idle
# polls and the softirqs run in its context included); where the CPU time
# of each server's first peak run and of the first floor run goes (perf
# cpu-clock samples, when perf is installed). Raw files in RAW/afxdp_tfo,
# read by scripts/devtools/bench_afxdp_tfo.py (bench_report.py prints its
# section); nothing fails on a number.

AT_DIR=$RAW/afxdp_tfo
AT_RATE=${BENCH_AFXDP_TFO_RATE:-1000}
AT_CONC=128

# at_cpu PID FILE: "NS WALL_US" into FILE, NS the ns PID's threads have run
# so far; bash builtins only (it runs inside the measured window)
at_cpu() {
	local t s sum=0

	for t in /proc/"$1"/task/*; do
		read -r s _ <"$t/schedstat" 2>/dev/null || continue
		sum=$((sum + s))
	done
	echo "$sum ${EPOCHREALTIME/./}" >"$2"
}

# at_snap KIND PID FILE: the server's counters now: tfo-server's /tfo/stats
# (KIND tfo) or the server end's frames and its namespace's Tcp and TcpExt
# lines (kernel)
at_snap() {
	at_cpu "$2" "$3.cpu"
	if [ "$1" = tfo ]; then
		tel "$3.tel"
	else
		ip netns exec "${AX_NS[0]}" sh -c "cat /sys/class/net/$AX_SIF/statistics/rx_packets \
			/sys/class/net/$AX_SIF/statistics/tx_packets; grep -h '^Tcp' /proc/net/snmp \
			/proc/net/netstat" >"$3.kern"
	fi
}

# at_perf PID NAME DELAY: where PID's CPU time goes: perf's cpu-clock
# samples (999/s, no call graph: a few hundred kB) over SECS - 1 seconds
# from DELAY seconds on, in the background; at_perf_done NAME then writes
# NAME.dso and NAME.sym (perf report by object and the top symbols). Nothing
# without perf.
at_perf() {
	AT_PERF_PID=""
	command -v perf >/dev/null || return 0
	(sleep "$3" && exec perf record -q -e cpu-clock -F 999 -p "$1" -o "$AT_DIR/$2.perf" \
		-- sleep $((SECS > 2 ? SECS - 1 : 1))) >/dev/null 2>&1 &
	AT_PERF_PID=$!
}
at_perf_done() {
	[ -n "${AT_PERF_PID:-}" ] || return 0
	wait "$AT_PERF_PID"
	perf report -i "$AT_DIR/$1.perf" --no-children -g none --sort dso -q \
		>"$AT_DIR/$1.dso" 2>/dev/null
	perf report -i "$AT_DIR/$1.perf" --no-children -g none --sort dso,sym -q 2>/dev/null |
		head -n 12 >"$AT_DIR/$1.sym"
	rm -f "$AT_DIR/$1.perf"
	AT_PERF_PID=""
}

# at_run KIND PID NAME CMD...: one client run (CMD in the client namespace,
# its output in NAME.log, its exit code in NAME.rc) between two snapshots of
# the server's counters (NAME.{a,b}.*): the whole run, its start and warm-up
# included (figures per connection served: a window inside the run missed
# it when a telemetry snapshot took a second on the busy machine)
at_run() {
	local kind=$1 pid=$2 f=$AT_DIR/$3

	shift 3
	at_snap "$kind" "$pid" "$f.a"
	# the first peak run of each server: its profile too, past the warm-up
	case $f in */*_peak_1) at_perf "$pid" "${f##*/}" 2 ;; esac
	ip netns exec "${AX_NS[1]}" "$@" >"$f.log" 2>&1
	echo "$?" >"$f.rc"
	at_snap "$kind" "$pid" "$f.b"
	at_perf_done "${f##*/}"
}

# at_lg NAME ARGS...: one tfo-loadgen run on the client end against the
# running tfo-server
at_lg() {
	local name=$1

	shift
	at_run tfo "$SRV_PID" "$name" timeout $((SECS + 60)) "$LG" --lcores="0@$GEN,1@$GEN" \
		--file-prefix "$TAG-axtlg" -m 512 "${EAL_COMMON[@]}" \
		--vdev "net_af_xdp0,iface=$AX_CIF" -- --server "$AX_ADDR" --server-port 7 \
		--client 198.18.0.16 --clients 224 --request-size 100 --expect-echo \
		--concurrency "$AT_CONC" --stats-period 0 --warmup-timeout 5 --duration "$SECS" \
		--json "$AT_DIR/$name.json" "$@"
	say "afxdp-tfo: $name: $(grep -m 1 '^summary: [0-9]* transactions' "$AT_DIR/$name.log")"
}

# at_kc NAME ARGS...: one kernel_tfo_client run in the client namespace
# against the kernel's server on the server end
at_kc() {
	local name=$1

	shift
	at_run kernel "$KS_PID" "$name" timeout $((SECS + 30)) taskset -c "$GEN" "$KC" \
		-s "$AX_ADDR" -p 7 -S 198.18.0.2 -t 1 -c "$AT_CONC" -n 100 -w 1 -d "$SECS" "$@"
	say "afxdp-tfo: $name: $(grep -m 1 '^transactions' "$AT_DIR/$name.log")"
}

# at_eth PID FILE: the forwarder's CPU time (FILE.cpu) and its port's
# counters (FILE.eth: /ethdev/stats,0 of its telemetry)
at_eth() {
	at_cpu "$1" "$2.cpu"
	echo /ethdev/stats,0 | timeout 10 dpdk-telemetry.py -f "$TAG-axtfwd" >"$2.eth" 2>/dev/null
}

# at_floor R: testpmd macswap on the server end fed by testpmd flowgen on
# the client end (tp_fwd_R.log, tp_gen_R.log); the forwarder's CPU time and
# frames over SECS once frames come (tp_R.{a,b}.{cpu,eth}): its busy cycles
# on a busy machine count the time the scheduler took inside a busy poll,
# its CPU time does not (it polls without pause: all of it is work while
# frames wait)
at_floor() {
	local fp gp fwd

	ip netns exec "${AX_NS[0]}" timeout -s INT $((SECS + 30)) dpdk-testpmd \
		--lcores="0@$GEN,1@$DUT" --file-prefix "$TAG-axtfwd" -m 256 "${EAL_COMMON[@]}" \
		--vdev "net_af_xdp0,iface=$AX_SIF" -- --forward-mode=macswap --nb-cores=1 \
		--total-num-mbufs=16384 --stats-period 1 --record-core-cycles \
		>"$AT_DIR/tp_fwd_$1.log" 2>&1 &
	fp=$!
	PIDS+=("$fp")
	sleep 2
	child "$fp"
	fwd=$CHILD
	ip netns exec "${AX_NS[1]}" timeout -s INT $((SECS + 30)) dpdk-testpmd \
		--lcores="0@$GEN,1@$GEN" --file-prefix "$TAG-axtgen" -m 256 "${EAL_COMMON[@]}" \
		--vdev "net_af_xdp0,iface=$AX_CIF" -- --forward-mode=flowgen --txpkts=128 \
		--nb-cores=1 --total-num-mbufs=16384 --stats-period 1 \
		>"$AT_DIR/tp_gen_$1.log" 2>&1 &
	gp=$!
	PIDS+=("$gp")
	# SECS from the first frames forwarded (a start takes seconds on a busy
	# machine)
	for _ in $(seq 1 300); do
		grep -q 'Rx-pps: *[1-9]' "$AT_DIR/tp_fwd_$1.log" && break
		kill -0 "$gp" 2>/dev/null || break
		sleep 0.1
	done
	at_eth "$fwd" "$AT_DIR/tp_$1.a"
	[ "$1" = 1 ] && at_perf "$fwd" tp_1 0
	sleep "$SECS"
	at_eth "$fwd" "$AT_DIR/tp_$1.b"
	at_perf_done "tp_$1"
	# the forwarder first: its exit statistics hold the cycles per frame
	stop "$fp"
	stop "$gp"
	grep -q 'CPU cycles/packet' "$AT_DIR/tp_fwd_$1.log" ||
		say "afxdp-tfo: testpmd forwarder run $1 gave no figures (see its log)"
}

at_phase() {
	# srv_start's, tel's and ks_start's namespace and file prefix, ax_skip's
	# directory and log prefix (bash's dynamic scope)
	# shellcheck disable=SC2034
	local SRV_NS=${AX_NS[0]} SRV_PREFIX=$TAG-bxt NS=${AX_NS[0]} AX_DIR=$AT_DIR \
		AX_PHASE=afxdp-tfo t r n

	mkdir -p "$AT_DIR"
	for t in ethtool dpdk-testpmd; do
		command -v "$t" >/dev/null ||
			{ ax_skip "$t is missing (scripts/setup.sh installs it)"; return 0; }
	done
	ax_xdp_ini "$AT_DIR/tfo-server.ini" '[tcp]' 'max_conns = 262144' 'max_request = 2048' \
		'[service echo]' 'port = 7' || return 0
	quiet afxdp-tfo
	ax_bed
	# one queue each end: the veth's XDP wants as many RX queues as its
	# peer has TX queues, and every program here serves queue 0
	for n in "${AX_NS[0]}:$AX_SIF" "${AX_NS[1]}:$AX_CIF"; do
		ip netns exec "${n%%:*}" ethtool -L "${n#*:}" rx 1 tx 1 >/dev/null 2>&1
		ip netns exec "${n%%:*}" sysctl -qw net.ipv4.tcp_fastopen=3
	done
	echo "$AT_RATE $AT_CONC" >"$AT_DIR/plan.txt"
	say "afxdp-tfo: TFO echo over AF_XDP (tfo-server and tfo-loadgen on net_af_xdp) at" \
		"$AT_RATE/s and at the peak, $REPS x ${SECS}s, server on CPU $DUT, client on CPU $GEN"
	SRV_INI=$AT_DIR/tfo-server.ini srv_start adaptive
	for r in $(seq 1 "$REPS"); do
		at_lg "tfo_rate_$r" --rate "$AT_RATE"
		at_lg "tfo_peak_$r"
	done
	srv_stop
	say "afxdp-tfo: the Linux kernel's TFO server and client on the same veth, same rates"
	ks_start "$AT_DIR/kserver.log" taskset -c "$DUT"
	for r in $(seq 1 "$REPS"); do
		at_kc "kernel_rate_$r" -r "$AT_RATE"
		at_kc "kernel_peak_$r"
	done
	stop "$KS_PID"
	say "afxdp-tfo: the floor: testpmd macswap on net_af_xdp (CPU $DUT), fed by testpmd" \
		"flowgen (CPU $GEN), $REPS x ${SECS}s"
	for r in $(seq 1 "$REPS"); do
		at_floor "$r"
	done
	ax_unbed
}
want afxdp-tfo && at_phase
