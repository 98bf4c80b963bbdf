# shellcheck shell=bash
# scripts/devtools/bench.sh's phase afxdp (bash; sourced by bench.sh after
# bench_servers.sh, with their helpers: want, quiet, say, die, ticks,
# srv_start, srv_stop, tel, sv_prepare, sv_kernel, sv_kernel_stop): DNS
# on one veth pair between two namespaces, the same zone
# (bench/dns/example.org.zone) and the same generator for both servers:
# - tfo-server's dns service, TCP and `udp = on`, on net_af_xdp (`xdp =
#   own`, one worker; both lcores on BENCH_DUT_CPU, as srv_start does);
# - Knot DNS (knotd, one UDP and one TCP worker, on BENCH_DUT_CPU) on the
#   same address: in its XDP mode when its XDP program loads here, else on
#   kernel sockets; which one and why go to the report (Linux 6.18's
#   verifier refuses knotd 3.2's program: "cannot use helper
#   bpf_xdp_adjust_meta");
# - the generator in the client namespace on BENCH_GEN_CPU: kxdpgun when
#   it runs here (the same program: it fails the same way), TCP 20,000/s
#   and UDP 100,000/s; else dnsperf, TCP 20,000/s over 20 connections and
#   UDP 50,000/s from 4 sockets (one dnsperf process on a shared CPU: the
#   rate tests/tap/afxdp_load.py found it holds with the server here).
#   BENCH_AFXDP_TCP_RATE, BENCH_AFXDP_UDP_RATE: other fixed rates.
# Per server and transport: REPS x SECS at the fixed rate, then a short
# search up from it: the rate doubled, one run of SECS per step, at most
# BENCH_AFXDP_STEPS steps (default 3), while the runs hold (>= 99 % of the
# queries sent answered NOERROR, and the generator sent >= 95 % of the
# rate). Server CPU: tfo-server's busy_tsc (/tfo/stats, the sum over its
# lcores) around each run, knotd's utime + stime (/proc/PID/stat). UDP to
# tfo-server runs only when one kdig query over UDP is answered (UDP in
# AF_XDP mode is new). Raw files in RAW/afxdp (bench_report.py's
# afxdp_section reads them); nothing fails on a number.

AX_DIR=$RAW/afxdp
AX_SIF=bxd$$s
AX_CIF=bxd$$c
AX_ADDR=198.18.0.1
AX_STEPS=${BENCH_AFXDP_STEPS:-3}
# the helpers below serve the phase dnssec too (bench_dnssec.sh): it sets
# AX_DIR and AX_PHASE (the log's prefix) in its own scope, AX_DNSPERF
# (dnsperf's extra arguments, e.g. -D) and AX_RCODES (the response codes
# that count as answered: its query mix expects NXDOMAIN too)
AX_PHASE=afxdp
AX_DNSPERF=()
AX_RCODES="NOERROR"

# ax_bed: the veth pair, its server end in AX_NS[0], its client end in
# AX_NS[1]; the client's kernel fills in its checksums (a veth hands TCP
# over with the checksum left to the receiver, which tfo-server drops)
ax_bed() {
	local sns=${AX_NS[0]} cns=${AX_NS[1]}

	# (any of the three failing is fatal)
	# shellcheck disable=SC2015
	ip netns add "$sns" && ip netns add "$cns" &&
		ip link add "$AX_SIF" netns "$sns" type veth peer name "$AX_CIF" netns "$cns" ||
		die "$AX_PHASE: cannot make the veth pair"
	ip -n "$sns" addr add "$AX_ADDR/24" dev "$AX_SIF"
	ip -n "$cns" addr add 198.18.0.2/24 dev "$AX_CIF"
	for n in "$sns:$AX_SIF" "$cns:$AX_CIF"; do
		ip -n "${n%%:*}" link set lo up
		ip -n "${n%%:*}" link set "${n#*:}" up
	done
	ip netns exec "$cns" ethtool -K "$AX_CIF" tx off >/dev/null ||
		die "$AX_PHASE: ethtool -K $AX_CIF tx off failed"
}

# ax_unbed: the bed away (an XDP program knotd left on the veth first)
ax_unbed() {
	local n

	ip -n "${AX_NS[0]}" link set dev "$AX_SIF" xdp off 2>/dev/null
	for n in "${AX_NS[@]}"; do
		ip netns del "$n"
	done
}

# ax_xdp_ini FILE LINE...: tfo-server's configuration for the bed into
# FILE: net_af_xdp on the server end (`xdp = own`), then the LINEs (its
# services); 1 (the phase skipped, and why) when this tfo-server has no XDP
# program
ax_xdp_ini() {
	local f=$1

	shift
	{
		cat <<EOF
[server]
stats_period = 0
[port net_af_xdp0]
vdev = net_af_xdp0,iface=$AX_SIF
ipv4 = $AX_ADDR/24
xdp = own
EOF
		printf '%s\n' "$@"
	} >"$f"
	if "$SRV" -- --config "$f" --print-config 2>&1 | grep -q 'built without its XDP program'; then
		ax_skip "this tfo-server is built without its XDP program (clang, libbpf-dev)"
		return 1
	fi
	return 0
}

# ax_ini FILE ZONE [LINE...]: ax_xdp_ini with [service dns] on port 53, `udp
# = on`, `zone = ZONE`, the LINEs added to the service
ax_ini() {
	local f=$1 zone=$2

	shift 2
	ax_xdp_ini "$f" '[service dns]' 'port = 53' 'udp = on' "zone = $zone" "$@"
}

# ax_gen OUT PROTO RATE: one generator run of SECS from the client
# namespace on GEN, its output into OUT
ax_gen() {
	local cmd

	if [ "$AX_GEN" = kxdpgun ]; then
		cmd=(kxdpgun -t "$SECS" -Q "$3" -i "$AX_DIR/queries.txt" -I "$AX_CIF")
		[ "$2" = tcp ] && cmd+=(-T)
		cmd+=("$AX_ADDR")
	elif [ "$2" = tcp ]; then
		cmd=(dnsperf -s "$AX_ADDR" -d "$AX_DIR/queries.txt" -l "$SECS" -Q "$3" -t 2 -m tcp -c 20 "${AX_DNSPERF[@]}")
	else
		cmd=(dnsperf -s "$AX_ADDR" -d "$AX_DIR/queries.txt" -l "$SECS" -Q "$3" -t 2 -m udp -c 4 "${AX_DNSPERF[@]}")
	fi
	ip netns exec "${AX_NS[1]}" timeout $((SECS + 30)) taskset -c "$GEN" "${cmd[@]}" \
		>"$1" 2>&1
}

# ax_run SERVER PROTO NAME RATE [PID...]: one run at RATE, the server's CPU
# around it (tfo-server's counters -- SERVER tfo-server*, any variant --
# or the CPU time of PIDs); NAME.run: what was sent and answered (one of
# AX_RCODES); AX_HELD=1 when the run held the rate
ax_run() {
	local srv=$1 proto=$2 f=$AX_DIR/$3 rate=$4 tk=0 sent ans=0 rc n
	shift 4

	if [ "${srv#tfo-server}" != "$srv" ]; then tel "$f.tel_a"; else ticks "$@"; tk=$TICKS; fi
	ax_gen "$f.out" "$proto" "$rate"
	if [ "${srv#tfo-server}" != "$srv" ]; then tel "$f.tel_b"; else ticks "$@"; tk=$((TICKS - tk)); fi
	if [ "$AX_GEN" = kxdpgun ]; then
		sent=$(sed -n 's/.*total queries *\([0-9]*\).*/\1/p' "$f.out" | tail -n 1)
		ans=$(sed -n 's/.*total replies *\([0-9]*\).*/\1/p' "$f.out" | tail -n 1)
	else
		sent=$(sed -n 's/^ *Queries sent: *\([0-9]*\).*/\1/p' "$f.out")
		for rc in $AX_RCODES; do
			n=$(sed -n "s/^ *Response codes:.*$rc \\([0-9]*\\).*/\\1/p" "$f.out")
			ans=$((ans + ${n:-0}))
		done
	fi
	sent=${sent:-0} ans=${ans:-0}
	echo "server $srv proto $proto rate $rate secs $SECS sent $sent answered $ans" \
		"ticks $tk" >"$f.run"
	AX_HELD=0
	[ "$sent" -gt 0 ] && [ $((ans * 100)) -ge $((sent * 99)) ] &&
		[ $((sent * 100)) -ge $((rate * SECS * 95)) ] && AX_HELD=1
	say "$AX_PHASE: $srv $proto at $rate/s: $sent sent, $ans answered"
}

# ax_rows SERVER PROTO RATE [PID...]: REPS runs at RATE, then the search up
# while at least half of them held
ax_rows() {
	local srv=$1 proto=$2 rate=$3 r held=0 step
	shift 3

	for r in $(seq 1 "$REPS"); do
		ax_run "$srv" "$proto" "${srv}_${proto}_fixed_$r" "$rate" "$@"
		held=$((held + AX_HELD))
	done
	[ $((held * 2)) -ge "$REPS" ] || return 0
	for step in $(seq 1 "$AX_STEPS"); do
		rate=$((rate * 2))
		ax_run "$srv" "$proto" "${srv}_${proto}_step_$step" "$rate" "$@"
		[ "$AX_HELD" = 1 ] || break
	done
}

# ax_kdig PROTO: is one query answered within 1 s?
ax_kdig() {
	ip netns exec "${AX_NS[1]}" kdig @"$AX_ADDR" www.example.org A +short +timeout=1 \
		+retry=0 ${1:++tcp} 2>/dev/null | grep -q '^198\.18\.10\.'
}

# ax_knotd: knotd on the server end, in its XDP mode if it starts so (its
# listen sockets too), else on kernel sockets; knotd_mode.txt says which
# and why (the XDP try's log)
ax_knotd() {
	local why

	{ cat "$SV_DIR/knot.conf"; printf 'xdp:\n    listen: %s@53\n    tcp: on\n' "$AX_SIF"; } \
		>"$AX_DIR/knot-xdp.conf"
	if sv_kernel knotd-xdp 53 knotd -c "$AX_DIR/knot-xdp.conf"; then
		echo "xdp" >"$AX_DIR/knotd_mode.txt"
		return 0
	fi
	why=$(grep -h -m 2 -e 'cannot use helper' -e 'failed to initialize XDP' \
		"$SV_DIR/knotd-xdp.server.log" | tr '\n' ' ')
	echo "sockets ${why:-its XDP mode did not start (see its log)}" >"$AX_DIR/knotd_mode.txt"
	ip -n "${AX_NS[0]}" link set dev "$AX_SIF" xdp off 2>/dev/null
	sv_kernel knotd 53 knotd -c "$SV_DIR/knot.conf"
}

# ax_skip WHY: the phase cannot run; the report says why
ax_skip() {
	say "$AX_PHASE: $1: phase skipped"
	echo "$1" >"$AX_DIR/skipped.txt"
}

ax_phase() {
	# srv_start, tel and sv_kernel's namespace and file prefix (bash's
	# dynamic scope)
	# shellcheck disable=SC2034
	local SRV_NS=${AX_NS[0]} SRV_PREFIX=$TAG-bxd NS=${AX_NS[0]} why t

	mkdir -p "$AX_DIR"
	for t in ethtool kdig dnsperf knotd; do
		command -v "$t" >/dev/null ||
			{ ax_skip "$t is missing (scripts/setup.sh installs it)"; return 0; }
	done
	quiet afxdp
	sv_prepare
	printf 'www.example.org A\n%.0s' $(seq 1 100) >"$AX_DIR/queries.txt"
	ax_bed
	ax_ini "$AX_DIR/tfo-server.ini" "example.org:$SV_DIR/example.org.zone" || return 0
	SRV_INI=$AX_DIR/tfo-server.ini srv_start adaptive
	grep -m 1 'xdp = own' "$RAW/$SRV_LOG" >"$AX_DIR/tfo-server_xdp.txt"
	# the generator: kxdpgun if its XDP program loads (it exits 0 when its
	# threads fail: its output tells)
	AX_GEN=dnsperf AX_TCP=${BENCH_AFXDP_TCP_RATE:-20000} AX_UDP=${BENCH_AFXDP_UDP_RATE:-50000}
	why="not installed (Debian package knot-dnsutils)"
	if command -v kxdpgun >/dev/null; then
		ip netns exec "${AX_NS[1]}" timeout 30 kxdpgun -t 1 -Q 10 -i "$AX_DIR/queries.txt" \
			-I "$AX_CIF" "$AX_ADDR" >"$AX_DIR/kxdpgun_probe.out" 2>&1
		why=$(grep -m 2 -e 'cannot use helper' -e '^error' "$AX_DIR/kxdpgun_probe.out" |
			tr '\n' ' ')
		grep -q 'total queries' "$AX_DIR/kxdpgun_probe.out" || why=${why:-no summary}
	fi
	if [ -z "$why" ]; then
		AX_GEN=kxdpgun AX_UDP=${BENCH_AFXDP_UDP_RATE:-100000}
	fi
	echo "$AX_GEN $AX_TCP $AX_UDP ${why:-}" >"$AX_DIR/generator.txt"
	say "afxdp: DNS over TCP at $AX_TCP/s and UDP at $AX_UDP/s ($AX_GEN), $REPS x ${SECS}s," \
		"then up to $AX_STEPS steps up: tfo-server on net_af_xdp (CPU $DUT)"
	ax_rows tfo-server tcp "$AX_TCP"
	if ax_kdig "" || ax_kdig ""; then
		ax_rows tfo-server udp "$AX_UDP"
	else
		echo "tfo-server udp not_reached" >>"$AX_DIR/missing.txt"
		say "afxdp: tfo-server did not answer a UDP query on net_af_xdp: its UDP rows say so"
	fi
	srv_stop
	if ax_knotd; then
		say "afxdp: the same for knotd ($(cut -d' ' -f1 "$AX_DIR/knotd_mode.txt"), CPU $DUT)"
		ax_rows knotd tcp "$AX_TCP" "${SV_PIDS[@]}"
		ax_rows knotd udp "$AX_UDP" "${SV_PIDS[@]}"
		sv_kernel_stop
	else
		printf 'knotd tcp\nknotd udp\n' >>"$AX_DIR/missing.txt"
	fi
	ax_unbed
}
want afxdp && ax_phase
