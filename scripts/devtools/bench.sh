#!/bin/bash
# The benchmark suite, in one run on this machine (a benchmark, not a test:
# nothing fails on a number):
#   sudo scripts/devtools/bench.sh [--quick] [--phases LIST]
# 1. the I/O ceiling: dpdk-testpmd macswap forwarding between two processes
#    over net_memif, fed by a second testpmd (flowgen: it generates like
#    txonly and also drains what comes back, so the forwarder's TX succeeds)
#    -- packets/s per forwarding core (from testpmd's busy cycles/packet);
# 2. tfo-server (1 worker, echo, 100-byte request and response) driven by
#    tfo-loadgen over the same net_memif pair -- transactions/s of the
#    machine, and per worker core from the worker's busy share (busy_tsc);
#    packets/s per worker core and its ratio to (1);
# 2c. the same server under each load type side by side (tfo-loadgen):
#    TFO, plain (--no-tfo 100), cookie requests without a warm-up
#    (--cookie-req 100), bad cookies (--bad-cookie 100) and a mix (10 % TFO,
#    20 % cookie requests, 70 % plain) -- transactions/s;
# 2d. a spoofed-SYN flood at the generator's top rate (--spoof-flood max)
#    beside good clients (TFO and plain at BENCH_FLOOD_GOOD_RATE, default
#    10000/s), the server at [tcp] syncookies = auto (the default): the
#    SYN-ACKs/s the server answered, the good clients served (%), their SYN
#    retransmissions and p50/p99, and where the flood went (the worker's
#    SYN cookies, ring and TX drops; the generator's spoof counters);
# 3. the Linux kernel's TFO server and client (bench/kernel_tfo_*) over
#    loopback in a private network namespace on the same 2 cores --
#    transactions/s of the machine, next to (2);
# 3b. side by side with the servers users run (scripts/devtools/bench_servers.sh,
#    phases dns and nginx): DNS over TCP queries/s, TFO and plain,
#    tfo-server's dns service (a "not built" row without it) against Knot
#    DNS and NSD serving bench/dns/example.org.zone; http transactions/s,
#    tfo-server against nginx (nginx-light, listen fastopen= reuseport)
#    serving the same file; one tfo-loadgen checking every answer for all
#    of them; per server core and the ratio to the 20x target;
# 3c. AF_XDP side by side (scripts/devtools/bench_afxdp.sh, phase afxdp):
#    on one veth pair between two namespaces, tfo-server's dns service (TCP
#    and `udp = on`) on net_af_xdp (`xdp = own`, one worker) and Knot DNS
#    (knotd: its XDP mode when its XDP program loads here, else kernel
#    sockets, and why) on the same address, the same zone, one generator
#    (kxdpgun when it runs here, else dnsperf) on BENCH_GEN_CPU: the share
#    answered at a fixed rate (TCP 20,000/s; UDP 100,000/s with kxdpgun,
#    50,000/s with dnsperf), the highest rate each holds at >= 99 % (the
#    rate doubled, at most BENCH_AFXDP_STEPS steps, default 3), and server
#    CPU per answer (tfo-server's busy_tsc, knotd's utime + stime);
# 3d. DNSSEC and RRL (scripts/devtools/bench_dnssec.sh, phase dnssec): on
#    (3c)'s veth, dnsperf over UDP with DO=1 (-D) on the signed zone
#    tests/dns/signed.example.zone, a query mix (answers, CNAME, NODATA,
#    NXDOMAIN, wildcard): tfo-server without RRL, with `rate_limit` too
#    high to limit (the cost of RRL per answer: busy_tsc per answer, the
#    two compared), knotd and NSD on kernel sockets; answered %, the
#    highest rate held, server CPU per answer; then one run at a real
#    limit (BENCH_DNSSEC_RRL_LIMIT, 1000/s): dns_rrl_* and bytes out/in;
# 3e. TFO over AF_XDP beside the kernel's (scripts/devtools/bench_afxdp_tfo.sh,
#    phase afxdp-tfo): on (3c)'s veth, tfo-server and tfo-loadgen on
#    net_af_xdp, the kernel's TFO server and client, at 1,000/s and at the
#    peak; the floor: testpmd macswap on net_af_xdp; the ratio per transaction;
# 4. tfo-bench pipeline, engine, cookie and http; the pipeline's slow path
#    (--plain --bad-cookie --cookie-req) next to its TFO figure, the same
#    with 1 and 2 control lcores (--controls 1,2), and the spoofed SYN
#    under syncookies = auto and always (the worker alone: --flood
#    --syncookies auto,always);
# 5. latency at every load, for each [server] idle_policy (adaptive, the
#    default; busy; sleep): tfo-server's TFO peak, then p50/p99/p999 of TFO
#    and plain (--no-tfo 100) transactions at 1,000, 10,000 and 100,000/s
#    and at half of adaptive's TFO peak (tfo-loadgen --rate), and the CPU
#    each of the server's threads uses in 10 s without traffic (/proc);
#    beside them the Linux kernel's TFO server (one thread on the DUT CPU,
#    its client on the generator's, bench/kernel_tfo_client -r) at the same
#    rates. The picture: latency against rate, bench/results/latency.png.
# 6. scaling with cores (scale): tfo-server with N workers on one net_memif
#    port (`[port] rss = peer`) driven by tfo-loadgen with N generator
#    lcores (--rss-peer), for each N of --workers: TFO transactions/s of the
#    machine, each worker's busy TSC per transaction (busy_tsc / its
#    TCPFastOpenPassive) and their spread, the generators' CPU share (/proc:
#    they poll without pause, so a share under 100 % means they waited for
#    a CPU), client errors; plain (--no-tfo 100) for each control lcore
#    count of --controls with BENCH_SCALE_PLAIN_WORKERS workers (default:
#    the largest of --workers, at most 4); plain at 90 % of the plain peak
#    (tfo-loadgen --rate) with its errors; beside every row the Linux
#    kernel's server on the CPUs tfo-server had and its client on the
#    generators' (TFO; plain with net.ipv4.tcp_fastopen = 1: no server
#    cookie). A row needs 2N + C + 1 CPUs (C control lcores; 2N + 2 for the
#    TFO rows): the script and the generator's main lcore on
#    BENCH_GEN_CPU, then the generators, then tfo-server's lcores, each on
#    a CPU of its own. A row with fewer CPUs runs with lcores sharing CPUs
#    and the report marks it "functional (lcores share CPUs), not a figure".
#    A full run includes this phase only with 6 CPUs or more (N = 2);
#    --phases scale runs it anywhere: --workers' default 1,2,4,7 keeps the N
#    that fit, and N = 2 on shared CPUs when none does. The picture:
#    transactions/s and worker TSC per transaction against workers, and
#    plain transactions/s against control lcores, bench/results/scaling.png.
# Medians of BENCH_REPS repetitions (default 5) of BENCH_SECONDS (default 5)
# with their spread ((max - min) / median). Prints a markdown report and
# writes it to bench/results/latest.md (the run before it kept as
# previous.md/previous.json, its figures beside the new ones with the
# change) and two pictures, bench/results/latest.png and latency.png
# (matplotlib: Debian's python3-matplotlib, installed with apt-get when
# missing; skipped, with the reason, when that fails); keeps the report
# under its date and CPU model (bench/results/runs/DATE-TIME-CPU.md) and
# puts its summary table into bench/results/summary.md (README.md links
# it and quotes a few figures of a dated run: it is not written here).
# --quick: 3 repetitions of 3 s (BENCH_REPS/BENCH_SECONDS still win).
# --phases LIST: only these phases (comma-separated): testpmd (1), peak (2),
# loads (2c), flood (2d), kernel (3), dns and nginx (3b), afxdp (3c), dnssec (3d),
# afxdp-tfo (3e),
# tfo-bench (all of 4) or tb-NAME (one
# tfo-bench run: tb-pipeline, tb-pipeline_ackfin, tb-pipeline_cold,
# tb-pipeline_slow, tb-pipeline_controls, tb-pipeline_flood, tb-engine,
# tb-cookie, tb-http), latency (5), scale (6).
# --workers LIST, --controls LIST: the worker counts of (6)'s TFO rows
# (default 1,2,4,7, those that fit) and the control lcore counts of its
# plain rows (default 1,2,4).
# A partial run writes bench/results/latest-partial.md (BENCH_OUT wins),
# beside the last full run's figures (latest.md, which it leaves alone, as
# latest.png, latency.png and scaling.png; its own latency and scaling
# pictures, with those phases, go beside its report:
# latest-partial-latency.png, latest-partial-scaling.png; its dated copy
# is runs/DATE-TIME-CPU-partial.md), and puts only its own rows into
# summary.md's table.
# Builds in BENCH_BUILD (default build-bench, release). BENCH_KEEP_RAW=1: keep
# the run's logs (/tmp/tfo-bench-run.*; bench_report.py RAW makes its report
# again), which a successful run removes.
# CPUs: the device under test (testpmd's forwarder, both of tfo-server's
# lcores -- control 0 and the worker share the CPU, as on a small VM --,
# the kernel's server in (5), tfo-bench) on BENCH_DUT_CPU (default 1), the
# traffic sources and the other processes' main lcores on BENCH_GEN_CPU
# (default 0).
# Hugepages: uses the free 2 MiB pages; when fewer than BENCH_HUGEPAGES
# (default 600) are free it reserves the missing ones and gives them back
# at the end (never lowers nr_hugepages below what it found).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)
B=${BENCH_BUILD:-build-bench}
QUICK=0
PHASES=""
ALL_PHASES="testpmd peak loads flood kernel dns nginx afxdp dnssec afxdp-tfo tfo-bench latency scale"
TB_NAMES="pipeline pipeline_ackfin pipeline_cold pipeline_slow pipeline_controls pipeline_flood
engine cookie http"
SCALE_WORKERS=""
SCALE_CONTROLS=1,2,4
usage() {
	echo "usage: $0 [--quick] [--phases ${ALL_PHASES// /,},tb-NAME...]" \
		"[--workers N,N...] [--controls N,N...]" >&2
	exit 2
}
# num_list OPTION VALUE MAX: VALUE is a comma-separated list of 1..MAX
num_list() {
	local n

	[ -n "$2" ] || usage
	for n in ${2//,/ }; do
		case $n in
		''|*[!0-9]*) n=0 ;;
		esac
		if [ "$n" -lt 1 ] || [ "$n" -gt "$3" ]; then
			echo "bench: $1 $2: want numbers 1..$3, comma-separated" >&2
			exit 2
		fi
	done
}
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ;;
	--phases)
		[ $# -ge 2 ] || usage
		PHASES=",$2,"
		for p in ${2//,/ }; do
			case " $ALL_PHASES " in *" $p "*) continue ;; esac
			case " ${TB_NAMES//$'\n'/ } " in *" ${p#tb-} "*) [ "${p:0:3}" = tb- ] && continue ;; esac
			echo "bench: unknown phase '$p' (want: $ALL_PHASES or tb-NAME, NAME one of: "\
				"${TB_NAMES//$'\n'/ })" >&2
			exit 2
		done
		shift ;;
	--workers|--controls)
		[ $# -ge 2 ] || usage
		# tfo-loadgen has 32 lcores at most (1 main + the generators);
		# tfo-server 16 control lcores
		if [ "$1" = --workers ]; then
			num_list "$1" "$2" 31
			SCALE_WORKERS=$2
		else
			num_list "$1" "$2" 16
			SCALE_CONTROLS=$2
		fi
		shift ;;
	*) usage ;;
	esac
	shift
done
# want PHASE: is PHASE (or, for tb-NAME, tfo-bench) part of this run?
want() {
	[ -z "$PHASES" ] && return 0
	case $PHASES in *",$1,"*) return 0 ;; esac
	[ "${1:0:3}" = tb- ] && case $PHASES in *",tfo-bench,"*) return 0 ;; esac
	return 1
}
if [ "$QUICK" = 1 ]; then
	REPS=${BENCH_REPS:-3}
	SECS=${BENCH_SECONDS:-3}
else
	REPS=${BENCH_REPS:-5}
	SECS=${BENCH_SECONDS:-5}
fi
FLOOD_GOOD=${BENCH_FLOOD_GOOD_RATE:-10000}
DUT=${BENCH_DUT_CPU:-1}
GEN=${BENCH_GEN_CPU:-0}
NEED_PAGES=${BENCH_HUGEPAGES:-600}
if [ -z "$PHASES" ]; then
	OUT=${BENCH_OUT:-$ROOT/bench/results/latest.md}
else
	OUT=${BENCH_OUT:-$ROOT/bench/results/latest-partial.md}
fi

# (6)'s plan: SCALE=1 when it runs; its rows' worker and control counts
NCPU=$(nproc --all)
SCALE=0
want scale && { [ -n "$PHASES" ] || [ "$NCPU" -ge 6 ]; } && SCALE=1
if [ -z "$SCALE_WORKERS" ]; then
	for n in 1 2 4 7; do
		[ $((2 * n + 2)) -le "$NCPU" ] && SCALE_WORKERS+="${SCALE_WORKERS:+,}$n"
	done
	# none fits: N = 2 on shared CPUs (functional)
	[ -n "$SCALE_WORKERS" ] || SCALE_WORKERS=2
fi
SCALE_PLAIN_W=${BENCH_SCALE_PLAIN_WORKERS:-0}
if [ "$SCALE_PLAIN_W" = 0 ]; then
	for n in ${SCALE_WORKERS//,/ }; do
		[ "$n" -gt "$SCALE_PLAIN_W" ] && [ "$n" -le 4 ] && SCALE_PLAIN_W=$n
	done
	[ "$SCALE_PLAIN_W" -gt 0 ] || SCALE_PLAIN_W=4
fi
# the CPUs in the order (6) hands them out: the generator's CPU first
CPU_ORDER=("$GEN")
for ((i = 0; i < NCPU; i++)); do
	[ "$i" = "$GEN" ] || CPU_ORDER+=("$i")
done
# memory of (6)'s processes (MB): tfo-server ~110 MB per lcore at
# max_conns 262144 (its table, TIME-WAIT records, buffers), tfo-loadgen
scale_srv_mb() { echo $((128 + 128 * $1)); }
SCALE_LG_MB=512
if [ "$SCALE" = 1 ]; then
	max_l=0
	for n in ${SCALE_WORKERS//,/ }; do
		[ $((n + 1)) -gt "$max_l" ] && max_l=$((n + 1))
	done
	for c in ${SCALE_CONTROLS//,/ }; do
		[ $((SCALE_PLAIN_W + c)) -gt "$max_l" ] && max_l=$((SCALE_PLAIN_W + c))
	done
	pages=$((($(scale_srv_mb "$max_l") + SCALE_LG_MB) / 2 + 64))
	[ "$pages" -gt "$NEED_PAGES" ] && NEED_PAGES=$pages
fi

RAW=$(mktemp -d /tmp/tfo-bench-run.XXXXXX)
TAG=tfob$$
NS=$TAG
# (3c)'s server and client namespaces (a veth pair between them)
AX_NS=("$TAG-bxds" "$TAG-bxdc")
SOCK=/run/$TAG-memif.sock
ADDED_PAGES=0
HUGE_DIR=/dev/hugepages
MOUNTED=0
PIDS=()

say() { printf '== %s\n' "$*" >&2; }
# stop PID (one this script started) and forget it
stop() {
	local keep=() p

	kill -INT "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	for p in "${PIDS[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	PIDS=("${keep[@]}")
}
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

cleanup() {
	local rc=$?

	for p in "${PIDS[@]}"; do
		kill -INT "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	for n in "$NS" "${AX_NS[@]}"; do
		ip netns del "$n" 2>/dev/null
	done
	rm -f "$SOCK"
	rm -rf /var/run/dpdk/"$TAG"-* 2>/dev/null
	rm -f "$HUGE_DIR"/"$TAG"-*map_* 2>/dev/null
	if [ "$ADDED_PAGES" -gt 0 ]; then
		local now
		now=$(cat /proc/sys/vm/nr_hugepages)
		echo $((now - ADDED_PAGES)) >/proc/sys/vm/nr_hugepages
		say "hugepages: gave back the $ADDED_PAGES pages reserved for the run"
	fi
	if [ "$MOUNTED" = 1 ]; then
		umount "$HUGE_DIR" && rmdir "$HUGE_DIR"
	fi
	if [ "$rc" != 0 ]; then
		echo "bench: failed; logs kept in $RAW" >&2
	elif [ "${BENCH_KEEP_RAW:-0}" = 1 ]; then
		echo "bench: logs kept in $RAW (BENCH_KEEP_RAW=1)" >&2
	else
		rm -rf "$RAW"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- set-up -----------------------------------------------------------------
[ "$(id -u)" = 0 ] || die "needs root (hugepages, network namespaces, memif sockets)"
[ "$(nproc --all)" -ge 2 ] || die "needs 2 CPUs"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

say "build: $B (release)"
if [ ! -f "$B/build.ninja" ] && command -v meson >/dev/null; then
	meson setup "$B" --buildtype=release -Dtests=false -Dwerror=true >/dev/null ||
		die "meson setup $B failed"
fi
scripts/setup.sh "$B" >"$RAW/setup.log" 2>&1 || { tail -n 20 "$RAW/setup.log"; die "set-up failed"; }
# (either failing is fatal: A && B || die is meant)
# shellcheck disable=SC2015
meson configure "$B" -Dbuildtype=release -Dtests=false >/dev/null &&
	ninja -C "$B" >"$RAW/build.log" 2>&1 || { tail -n 20 "$RAW/build.log"; die "build failed"; }
for t in dpdk-testpmd dpdk-telemetry.py ip timeout taskset; do
	command -v "$t" >/dev/null || die "missing tool: $t"
done
SRV=$B/apps/tfo-server
LG=$B/apps/tfo-loadgen
TB=$B/apps/tfo-bench
KS=$B/bench/kernel_tfo_server
KC=$B/bench/kernel_tfo_client

# hugepages: use the free ones, reserve what is missing, give it back after
if ! grep -q " $HUGE_DIR hugetlbfs " /proc/mounts; then
	HUGE_DIR=$(grep -m1 ' hugetlbfs ' /proc/mounts | awk '{print $2}')
	if [ -z "$HUGE_DIR" ]; then
		HUGE_DIR=/run/$TAG-huge
		# shellcheck disable=SC2015
		mkdir -p "$HUGE_DIR" && mount -t hugetlbfs nodev "$HUGE_DIR" || die "cannot mount hugetlbfs"
		MOUNTED=1
	fi
fi
free_pages=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
if [ "$free_pages" -lt "$NEED_PAGES" ]; then
	nr0=$(cat /proc/sys/vm/nr_hugepages)
	echo $((nr0 + NEED_PAGES - free_pages)) >/proc/sys/vm/nr_hugepages
	ADDED_PAGES=$(($(cat /proc/sys/vm/nr_hugepages) - nr0))	# what the kernel gave
	free_pages=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	say "hugepages: reserved $ADDED_PAGES more (free now $free_pages)"
	[ "$free_pages" -ge "$NEED_PAGES" ] || die "only $free_pages free hugepages; need $NEED_PAGES"
fi
EAL_COMMON=(--no-pci --huge-dir "$HUGE_DIR" --log-level=lib.eal:error)
# This script's own work (its forks for the bookkeeping, the telemetry
# client, the DPDK processes' control threads, which take the CPUs their
# lcores leave of the affinity they inherit) stays on the generator's CPU:
# on the device under test, it took the CPU from tfo-server's lcores, which
# yield it (idle_policy adaptive), and made the latency rows' p99 a
# measure of the script (1-3 ms, against ~0.1 ms without). What must use
# every CPU says so (phase 3: taskset -c "$ALL_CPUS").
ALL_CPUS=0-$(($(nproc --all) - 1))
taskset -pc "$GEN" $$ >/dev/null || die "cannot pin the script to CPU $GEN (taskset)"

{
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
	echo "cpus=$(nproc --all)"
	echo "flags=$(grep -m1 flags /proc/cpuinfo | grep -o -w -E 'aes|vaes|avx2|avx512f|gfni' | tr '\n' ' ')"
	echo "kernel=$(uname -r)"
	echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "dpdk=$(pkg-config --modversion libdpdk 2>/dev/null)"
	echo "commit=$(git rev-parse --short HEAD 2>/dev/null)"
	echo "reps=$REPS"
	echo "seconds=$SECS"
	echo "dut_cpu=$DUT"
	echo "gen_cpu=$GEN"
	echo "phases=$(echo "${PHASES:-,all,}" | sed 's/^,//; s/,$//')"
	echo "clk_tck=$(getconf CLK_TCK)"
	if [ "$SCALE" = 1 ]; then
		echo "scale_workers=$SCALE_WORKERS"
		echo "scale_controls=$SCALE_CONTROLS"
		echo "scale_plain_workers=$SCALE_PLAIN_W"
	elif want scale; then
		echo "scale_skipped=$NCPU CPUs: a full run scales only with 6 or more (2N + 2 for N = 2); --phases scale runs it on shared CPUs"
	fi
} >"$RAW/machine.txt"

# ticks PID...: TICKS = the CPU time (clock ticks, all threads) the
# processes used so far; "+PID": with its waited-for children's (this
# shell's, after a wait). machine_ticks: MB, MT = busy and total clock ticks
# of all CPUs so far. child PID: CHILD = the process timeout(1) runs.
# They run during the measured runs: bash builtins only, no fork and no
# $(...) (a subshell is a fork): a few ms of CPU taken from the generator
# or the server each time showed as the latency rows' p99.
ticks() {
	local p sum=0 line fld

	for p in "$@"; do
		line=""
		read -r line <"/proc/${p#+}/stat" 2>/dev/null
		# after the ")" of the command name: utime, stime, cutime, cstime
		# are the 12th to 15th fields
		read -r -a fld <<<"${line##*) }"
		sum=$((sum + ${fld[11]:-0} + ${fld[12]:-0}))
		[ "${p:0:1}" = + ] && sum=$((sum + ${fld[13]:-0} + ${fld[14]:-0}))
	done
	TICKS=$sum
}
machine_ticks() {
	local u n s i w q sq st

	read -r _ u n s i w q sq st _ </proc/stat
	MB=$((u + n + s + q + sq + st))
	MT=$((MB + i + w))
}
child() {
	CHILD=""
	read -r CHILD _ <"/proc/$1/task/$1/children" 2>/dev/null
}
# others_start PID... / others_end FILE PID...: the share of the machine
# that processes other than PID... used in between (this machine is shared:
# a repetition someone else disturbed is left out of the medians)
others_start() {
	machine_ticks
	MB0=$MB MT0=$MT
	ticks "$@"
	OT0=$TICKS
}
others_end() {
	local f=$1

	shift
	machine_ticks
	ticks "$@"
	echo "$((MB - MB0 - (TICKS - OT0))) $((MT - MT0))" >"$f"
}

# cpu_busy: the busy share (%) of cpu0 and cpu1 over one second
cpu_busy() {
	local a b
	a=$(grep -E '^cpu[01] ' /proc/stat)
	sleep 1
	b=$(grep -E '^cpu[01] ' /proc/stat)
	printf '%s\n%s\n' "$a" "$b" | awk '{
		tot = 0; for (i = 2; i <= 9; i++) tot += $i; idle = $5 + $6
		if ($1 in t) { d = tot - t[$1]; printf "%d ", (d > 0 ? 100 * (d - (idle - id[$1])) / d : 0) }
		t[$1] = tot; id[$1] = idle }'
}
# quiet PHASE: before a phase, wait up to BENCH_QUIET_WAIT seconds (default
# 60) until others' work leaves both CPUs under 15 % busy (nothing of this
# script runs between phases); go on anyway after that, and record what it
# saw for the report
quiet() {
	local phase=$1 deadline=$((SECONDS + ${BENCH_QUIET_WAIT:-60})) c0 c1

	while :; do
		read -r c0 c1 < <(cpu_busy)
		[ "$c0" -lt 15 ] && [ "$c1" -lt 15 ] && break
		[ "$SECONDS" -ge "$deadline" ] && {
			say "machine busy before $phase: CPUs $c0% / $c1% (noted in the report)"
			break
		}
		say "waiting for a quieter machine (CPUs $c0% / $c1% busy)"
		sleep 4
	done
	echo "busy_$phase=$c0% / $c1%" >>"$RAW/machine.txt"
}

# ---- 1. the I/O ceiling: testpmd macswap over net_memif ----------------------
want testpmd && {
quiet testpmd
say "1. testpmd macswap over net_memif (forwarder on CPU $DUT), $REPS x ${SECS}s"
for r in $(seq 1 "$REPS"); do
 for try in 1 2 3; do
	rm -f "$SOCK"
	# The feeder outlives the forwarder: memif resets the forwarder's
	# counters when its peer goes. (testpmd 22.11's memif server in
	# flowgen mode dies of SIGSEGV at exit once its peer has left: after
	# the measurement, recorded in its log only.)
	(timeout -s INT $((SECS + 8)) dpdk-testpmd --lcores="0@$GEN,1@$GEN" \
		--file-prefix "$TAG-gen" -m 256 "${EAL_COMMON[@]}" \
		--vdev "net_memif0,role=server,socket=$SOCK" -- \
		--forward-mode=flowgen --txpkts=128 --nb-cores=1 --stats-period 1 &
	 echo $! >"$RAW/tp_gen.pid"
	 wait $!
	 echo "feeder exit code $?") >"$RAW/tp_gen_$r.log" 2>&1 &
	# (memif's socket is an abstract one by default: nothing to wait for
	# in the file system)
	sleep 2
	gp=$(cat "$RAW/tp_gen.pid")
	timeout -s INT $((SECS + 30)) dpdk-testpmd --lcores="0@$GEN,1@$DUT" \
		--file-prefix "$TAG-fwd" -m 256 "${EAL_COMMON[@]}" \
		--vdev "net_memif0,role=client,socket=$SOCK" -- \
		--forward-mode=macswap --nb-cores=1 --stats-period 1 --record-core-cycles \
		>"$RAW/tp_fwd_$r.log" 2>&1 &
	fp=$!
	sleep 1
	child "$fp"
	fwd=$CHILD
	child "$gp"
	feeder=$CHILD
	others_start "$fwd" "$feeder"
	sleep $((SECS + 1))
	others_end "$RAW/others_tp_$r.txt" "$fwd" "$feeder"
	kill -INT "$fp"
	wait "$fp"
	kill -INT "$gp" 2>/dev/null
	wait
	grep -q 'CPU cycles/packet' "$RAW/tp_fwd_$r.log" && break
	grep -m1 -i 'fail' "$RAW/tp_fwd_$r.log" >&2
	# a benchmark does not fail on the ceiling alone: the report says n/a
	[ "$try" = 3 ] && { say "testpmd forwarder run $r gave no figures: left out"; break; }
	say "testpmd forwarder run $r gave no figures (the pair did not connect?): once again"
 done
done
rm -f "$SOCK"
}

# ---- 2. tfo-server driven by tfo-loadgen over net_memif ----------------------
mkdir -p "$RAW/srv"
cat >"$RAW/srv/tfo-server.ini" <<EOF
; tfo-server for scripts/devtools/bench.sh: one worker on a net_memif port (server
; role), echo on TCP 7. max_conns holds the loadgen's 65536 tuples in
; TIME-WAIT (time_wait_ms stays at its default, 1 s). idle_policy comes from
; the command line (--idle-policy); idle_sleep_us (sleep's nap) and
; idle_poll_us stay at their defaults, 100 and 2000.
[server]
stats_period = 0
[tcp]
max_conns = 262144
max_request = 2048
; the default, written out: the flood phase measures it (the workers answer
; with SYN cookies when the control lcore is under pressure)
syncookies = auto
[port net_memif0]
vdev = net_memif0,role=server,socket=$SOCK
ipv4 = 198.18.0.2/16
[service echo]
port = 7
EOF

# srv_start POLICY: tfo-server at [server] idle_policy POLICY, control 0
# and the worker both on DUT (a small VM's layout: there an lcore that
# keeps polling starves its neighbour), the generator alone on GEN.
# SRV_LCORES, SRV_MEM (MB), SRV_INI: another layout, memory, configuration
# (6). SRV_NS: the network namespace to run in, SRV_PREFIX: the EAL file
# prefix (tel_lcore's too) (3c). SRV_LOG: the log's name.
SRV_N=0
SRV_PREFIX=$TAG-srv
srv_start() {
	local log ns=()

	SRV_N=$((SRV_N + 1))
	SRV_LOG=srv_${SRV_N}_$1.log
	log=$RAW/$SRV_LOG
	rm -f "$SOCK"
	[ -n "${SRV_NS:-}" ] && ns=(ip netns exec "$SRV_NS")
	"${ns[@]}" "$SRV" --lcores="${SRV_LCORES:-0@$DUT,1@$DUT}" --file-prefix "$SRV_PREFIX" -m "${SRV_MEM:-512}" \
		"${EAL_COMMON[@]}" -- --config "${SRV_INI:-$RAW/srv/tfo-server.ini}" \
		--idle-policy "$1" >"$log" 2>&1 &
	SRV_PID=$!
	PIDS+=("$SRV_PID")
	for _ in $(seq 1 100); do
		grep -q 'running:' "$log" && return 0
		kill -0 "$SRV_PID" 2>/dev/null || break
		sleep 0.1
	done
	tail -n 20 "$log"
	die "tfo-server did not start"
}
srv_stop() {
	stop "$SRV_PID"
}
# tel_lcore FILE LCORE: telemetry snapshot of one lcore's counters (1: the
# worker) into FILE; "total": the server's total counters (tel FILE); ""
# (tel_all FILE): every lcore's, each under its key (lcore2_worker1)
tel_lcore() {
	echo "/tfo/stats${2:+,$2}" | timeout 10 dpdk-telemetry.py -f "$SRV_PREFIX" >"$1" 2>/dev/null ||
		die "telemetry of tfo-server failed"
}
tel() { tel_lcore "$1" total; }
tel_all() { tel_lcore "$1" ""; }
# task_snap PID FILE: the time (us) and "TID COMM TICKS" for each thread
# of PID, TICKS its CPU time so far (utime + stime); bash builtins only,
# as ticks: it runs during the measured runs
task_snap() {
	local t comm line fld out="now_us ${EPOCHREALTIME/./}"$'\n'

	for t in /proc/"$1"/task/*; do
		read -r comm <"$t/comm" 2>/dev/null || continue
		read -r line <"$t/stat" 2>/dev/null || continue
		read -r -a fld <<<"${line##*) }"
		out+="${t##*/} ${comm// /_} $((fld[11] + fld[12]))"$'\n'
	done
	printf '%s' "$out" >"$2"
}
# lg NAME ARGS...: one tfo-loadgen run (generator lcore on GEN; LG_LCORES:
# another layout; LG_TASKS=1: its threads' CPU time around the run,
# NAME.tasks_a and NAME.tasks_b)
lg() {
	local name=$1
	shift
	local lp gen rc try

	for try in 1 2 3; do
		timeout $((SECS + 60)) "$LG" --lcores="${LG_LCORES:-0@$GEN,1@$GEN}" --file-prefix "$TAG-lg" \
			-m 512 "${EAL_COMMON[@]}" --vdev "net_memif0,role=client,socket=$SOCK" -- \
			--server 198.18.0.2 --server-port 7 --client 198.18.1.1 --clients 256 \
			--request-size 100 --expect-echo --concurrency 128 --stats-period 0 \
			--duration "$SECS" --json "$RAW/$name.json" "$@" >"$RAW/$name.log" 2>&1 &
		lp=$!
		# the run starts some 0.3 s in (memif, ARP, warm-up) and lasts SECS
		sleep 0.5
		child "$lp"
		gen=$CHILD
		others_start "$SRV_PID" "$gen"
		[ "${LG_TASKS:-0}" = 1 ] && task_snap "$gen" "$RAW/$name.tasks_a"
		sleep $((SECS - 1)).7
		[ "${LG_TASKS:-0}" = 1 ] && task_snap "$gen" "$RAW/$name.tasks_b"
		others_end "$RAW/others_$name.txt" "$SRV_PID" "$gen"
		wait "$lp"
		rc=$?
		# a memif client refused at start (exit code 2; seen once in
		# ~300 back-to-back runs, right after the last client left):
		# the run again, a second later
		if [ "$rc" != 2 ] ||
		   ! grep -q "memif_connect_client(): Failed to connect" "$RAW/$name.log"; then
			break
		fi
		say "tfo-loadgen $name: memif did not connect (try $try); again"
		sleep 1
	done
	# LG_ERRORS_OK=1: errors are what is measured (exit code 1), not a failure
	[ "$rc" = 0 ] || { [ "$rc" = 1 ] && [ "${LG_ERRORS_OK:-0}" = 1 ]; } ||
		{ tail -n 30 "$RAW/$name.log"; die "tfo-loadgen $name: exit code $rc"; }
}
# median_rate NAME: the median txn_per_s of lg_NAME_1..REPS
median_rate() {
	"$PY" - "$RAW" "$REPS" "$1" <<'EOF'
import json, statistics, sys
raw, reps, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print(int(statistics.median(json.load(open(f"{raw}/lg_{name}_{r}.json"))["txn_per_s"]
                            for r in range(1, reps + 1))))
EOF
}

want peak || want loads || want flood && {
quiet tfo-server
srv_start adaptive
}
want peak && {
say "2. tfo-server (both lcores on CPU $DUT) + tfo-loadgen over net_memif, $REPS x ${SECS}s"
for r in $(seq 1 "$REPS"); do
	tel "$RAW/tel_peak_${r}_a.json"
	lg "lg_peak_$r"
	tel "$RAW/tel_peak_${r}_b.json"
done
}
want loads && {
say "2c. load types side by side: plain, cookie requests, bad cookies, mix; $REPS x ${SECS}s"
declare -A LOADS=(
	[plain]="--no-tfo 100"
	[cookie]="--cookie-req 100"
	[badck]="--bad-cookie 100"
	[mix]="--cookie-req 20 --no-tfo 70"
)
for r in $(seq 1 "$REPS"); do
	for l in plain cookie badck mix; do
		# shellcheck disable=SC2086
		lg "lg_${l}_$r" ${LOADS[$l]}
	done
done
}
want flood && {
say "2d. spoofed-SYN flood at the generator's top rate + good clients at $FLOOD_GOOD/s (TFO and plain)"
echo "$FLOOD_GOOD" >"$RAW/flood_good_rate.txt"
for r in $(seq 1 "$REPS"); do
	tel "$RAW/tel_flood_${r}_a.json"
	tel_lcore "$RAW/telw_flood_${r}_a.json" 1
	LG_ERRORS_OK=1 lg "lg_flood_$r" --no-tfo 50 --rate "$FLOOD_GOOD" \
		--spoof-flood max --spoof-src 198.19.0.0/16
	tel "$RAW/tel_flood_${r}_b.json"
	tel_lcore "$RAW/telw_flood_${r}_b.json" 1
done
}
want peak || want loads || want flood && srv_stop
rm -f "$SOCK"

# ---- 3. the Linux kernel's TFO server and client ----------------------------
# kns_up / kns_down: the private network namespace of the kernel's runs
# (loopback only, TFO client and server on); cleanup deletes it too
kns_up() {
	ip netns add "$NS" || die "ip netns add failed"
	ip netns exec "$NS" ip link set lo up
	ip netns exec "$NS" sysctl -qw net.ipv4.tcp_fastopen=3
}
kns_down() { ip netns del "$NS"; }
# ks_start LOG [CMD...]: kernel_tfo_server on TCP 7 in the namespace, run
# under CMD (e.g. taskset -c 1: then one thread, on that CPU); KS_OPTS: more
# of its options (-P: thread i pinned to the i-th CPU it may use)
KS_OPTS=()
ks_start() {
	local log=$1
	shift
	ip netns exec "$NS" "$@" "$KS" -p 7 "${KS_OPTS[@]}" >"$log" 2>&1 &
	KS_PID=$!
	PIDS+=("$KS_PID")
	for _ in $(seq 1 50); do
		grep -q listening "$log" && return 0
		sleep 0.1
	done
	die "kernel_tfo_server did not start"
}
want kernel && {
quiet kernel
say "3. Linux kernel TFO server + client over loopback (namespace $NS), $REPS x ${SECS}s"
kns_up
ks_start "$RAW/kserver.log" taskset -c "$ALL_CPUS"
for r in $(seq 1 "$REPS"); do
	ip netns exec "$NS" taskset -c "$ALL_CPUS" "$KC" -p 7 -t 4 -c 16 -n 100 -w 1 -d "$SECS" \
		>"$RAW/kernel_$r.log" 2>&1 ||
		{ cat "$RAW/kernel_$r.log"; die "kernel_tfo_client run $r failed"; }
done
stop "$KS_PID"
kns_down
}

# ---- the phases in files of their own, in the order they run -----------------
# Each file is a phase body (`want PHASE && { ... }`) that uses the helpers
# above. A new phase: its file beside these, a line here, its name in
# ALL_PHASES (the usage and --phases take it from there) and the header.
# 3b. side by side with Knot DNS, NSD and nginx
# shellcheck source=scripts/devtools/bench_servers.sh
. scripts/devtools/bench_servers.sh
# 3c. AF_XDP side by side with Knot DNS
# shellcheck source=scripts/devtools/bench_afxdp.sh
. scripts/devtools/bench_afxdp.sh
# 3d. DNSSEC (DO=1) and RRL on the same veth, with knotd and NSD
# shellcheck source=scripts/devtools/bench_dnssec.sh
. scripts/devtools/bench_dnssec.sh
# 3e. TFO over AF_XDP beside the kernel's, and the floor of that veth
# shellcheck source=scripts/devtools/bench_afxdp_tfo.sh
. scripts/devtools/bench_afxdp_tfo.sh
# 4. tfo-bench
# shellcheck source=scripts/devtools/bench_tfobench.sh
. scripts/devtools/bench_tfobench.sh
# 5. latency at every load
# shellcheck source=scripts/devtools/bench_latency.sh
. scripts/devtools/bench_latency.sh
# 6. scaling with cores
# shellcheck source=scripts/devtools/bench_scale.sh
. scripts/devtools/bench_scale.sh
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$RAW/machine.txt"

# ---- report -------------------------------------------------------------------
RES=$(dirname "$OUT")
mkdir -p "$RES"
# the run before this one: its figures go beside the new ones (a partial
# run: the last full run's, left where it is)
PREV=()
if [ -z "$PHASES" ]; then
	[ -f "$OUT" ] && cp "$OUT" "$RES/previous.md"
	[ -f "$RES/previous.md" ] && PREV=(--prev "$RES/previous.md")
else
	[ -f "$RES/latest.md" ] && PREV=(--prev "$RES/latest.md")
fi
# the pictures: latest.png, not for a partial run (it draws the load types
# and latencies of a full one); latency.png (latency against rate) whenever
# the latency phase ran -- a partial run's beside its own report, named
# after it, the last full run's left alone. The report links the one it has.
PNG=""
LAT_PNG=""
[ -z "$PHASES" ] && PNG=$RES/latest.png
if want latency; then
	if [ -z "$PHASES" ]; then
		LAT_PNG=$RES/latency.png
	else
		LAT_PNG=${OUT%.md}-latency.png
	fi
	echo "latency_png=$(basename "$LAT_PNG")" >>"$RAW/machine.txt"
fi
# scaling.png (6), the same way
SCALE_PNG=""
if [ -f "$RAW/scale_rows.txt" ]; then
	if [ -z "$PHASES" ]; then
		SCALE_PNG=$RES/scaling.png
	else
		SCALE_PNG=${OUT%.md}-scaling.png
	fi
	echo "scale_png=$(basename "$SCALE_PNG")" >>"$RAW/machine.txt"
fi
"$PY" scripts/devtools/bench_report.py "${PREV[@]}" "$RAW" >"$RAW/report.md" ||
	die "report failed"
# (bench_servers.sh makes $RAW/servers in any run; (3c) uses it too)
{ want dns || want nginx; } && { "$PY" scripts/devtools/bench_servers.py "$RAW" >>"$RAW/report.md" ||
	die "the servers' report (bench_servers.py) failed"; }
mv "$RAW/report.md" "$OUT"
# Debian's matplotlib (the PATH python may be another one)
if [ -z "$PNG$LAT_PNG$SCALE_PNG" ]; then
	say "picture: kept (a partial run)"
elif ! "$PY" -c 'import matplotlib' 2>/dev/null; then
	say "picture: installing python3-matplotlib (apt-get)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-matplotlib \
		>"$RAW/apt.log" 2>&1 || say "picture: apt-get failed (see below)"
fi
if [ -z "$PNG$LAT_PNG$SCALE_PNG" ]; then
	:
elif "$PY" -c 'import matplotlib' 2>/dev/null; then
	if [ -n "$SCALE_PNG" ]; then
		if "$PY" scripts/devtools/bench_report.py --plot-scaling "$RAW" "$SCALE_PNG"; then
			say "picture: $SCALE_PNG"
		else
			say "picture: bench_report.py --plot-scaling failed; no $(basename "$SCALE_PNG")"
		fi
	fi
	[ -n "$PNG" ] && { "$PY" scripts/devtools/bench_report.py --plot "$RAW" "$PNG" ||
		say "picture: bench_report.py --plot failed; no $(basename "$PNG")"; }
	if [ -n "$LAT_PNG" ]; then
		if "$PY" scripts/devtools/bench_report.py --plot-latency "$RAW" "$LAT_PNG"; then
			say "picture: $LAT_PNG"
		else
			say "picture: bench_report.py --plot-latency failed; no $(basename "$LAT_PNG")"
		fi
	fi
else
	say "picture skipped: python3-matplotlib is not installed and apt-get could not install it"
	tail -n 3 "$RAW/apt.log" >&2 2>/dev/null
fi
cat "$OUT"
# the report under its date and CPU model, and the summary table beside it
DATED=$RES/$("$PY" scripts/devtools/bench_report.py --dated "$RAW") || die "no dated name"
mkdir -p "$(dirname "$DATED")" && cp "$OUT" "$DATED" || die "cannot write $DATED"
"$PY" scripts/devtools/bench_report.py "${PREV[@]}" --table "$RAW" "$RES/summary.md" ||
	die "summary table update failed"
say "written: $OUT, $DATED, $RES/summary.md"
