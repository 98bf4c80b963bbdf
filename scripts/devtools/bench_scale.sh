# shellcheck shell=bash
# scripts/devtools/bench.sh's phase scale, (6) (bash; sourced by bench.sh,
# with its helpers: want, quiet, say, srv_start, srv_stop, tel_all, lg,
# median_rate, kns_up, kns_down, ks_start, stop, and its plan: SCALE,
# SCALE_WORKERS, SCALE_CONTROLS, SCALE_PLAIN_W, CPU_ORDER, scale_srv_mb):
# TFO with N workers, plain with C control lcores, plain at 90 % of its
# peak, and the Linux kernel on the same CPUs. Raw files: scale_rows.txt,
# lg_sc_*, tel_sc_*, kscale_* (bench_report.py's benchreport/scale.py).

# scale_cpus N C: the layout of a row with N workers (N generators) and C
# control lcores. SC_LG: tfo-loadgen's --lcores (its main lcore on GEN,
# generator i on the i-th CPU after it); SC_SRV: tfo-server's (its C
# control lcores, then its N workers, on the CPUs after the generators');
# SC_LG_SET / SC_SRV_SET: the CPUs either uses (for taskset); SC_SHARED=1
# with fewer than 2N + C + 1 CPUs: lcores share CPUs (round robin)
scale_cpus() {
	local n=$1 c=$2 i cpu

	SC_LG="" SC_SRV="" SC_LG_SET="" SC_SRV_SET="" SC_SHARED=0
	[ $((2 * n + c + 1)) -le "$NCPU" ] || SC_SHARED=1
	for ((i = 0; i <= n; i++)); do
		cpu=${CPU_ORDER[i % NCPU]}
		SC_LG+="${SC_LG:+,}$i@$cpu"
		case ",$SC_LG_SET," in *",$cpu,"*) ;; *) SC_LG_SET+="${SC_LG_SET:+,}$cpu" ;; esac
	done
	for ((i = 0; i < n + c; i++)); do
		cpu=${CPU_ORDER[(n + 1 + i) % NCPU]}
		SC_SRV+="${SC_SRV:+,}$i@$cpu"
		case ",$SC_SRV_SET," in *",$cpu,"*) ;; *) SC_SRV_SET+="${SC_SRV_SET:+,}$cpu" ;; esac
	done
}
# scale_srv N C: tfo-server with N workers and C control lcores on one
# memif port (rss = peer), laid out by scale_cpus
scale_srv() {
	scale_cpus "$1" "$2"
	sed -e "/^\[server\]/a control_lcores = $2" -e "/^ipv4 = /a rss = peer" \
		"$RAW/srv/tfo-server.ini" >"$RAW/srv/scale_c$2.ini"
	SRV_LCORES=$SC_SRV SRV_MEM=$(scale_srv_mb $(($1 + $2))) SRV_INI=$RAW/srv/scale_c$2.ini \
		srv_start adaptive
}
# scale_runs KIND N C NAME [ARGS...]: REPS tfo-loadgen runs lg_NAME_R with
# N generators (--rss-peer C) against the running server, every lcore's
# counters before and after each (tel_sc_NAME_R_{a,b}.json); the row goes
# into scale_rows.txt. Errors are a figure of these rows, not a failure.
scale_runs() {
	local kind=$1 n=$2 c=$3 name=$4 r
	shift 4

	local args="$*"

	echo "kind=$kind workers=$n controls=$c name=$name shared=$SC_SHARED srv=$SC_SRV" \
		"lg=$SC_LG srv_set=$SC_SRV_SET lg_set=$SC_LG_SET log=$SRV_LOG args=${args// /_}" \
		>>"$RAW/scale_rows.txt"
	for r in $(seq 1 "$REPS"); do
		tel_all "$RAW/tel_sc_${name}_${r}_a.json"
		LG_LCORES=$SC_LG LG_TASKS=1 LG_ERRORS_OK=1 lg "lg_${name}_$r" --rss-peer "$c" "$@"
		tel_all "$RAW/tel_sc_${name}_${r}_b.json"
	done
}
# kscale NAME SRV_CPUS CLIENT_CPUS: the Linux kernel's server, a thread
# pinned on each of SRV_CPUS, and its client, two threads per CPU of
# CLIENT_CPUS x 16 in flight, REPS x SECS (kscale_NAME_R.log); TFO as the
# namespace's net.ipv4.tcp_fastopen says
kscale() {
	local name=$1 r nc

	nc=$(echo "$3" | tr ',' '\n' | wc -l)
	KS_OPTS=(-P)
	ks_start "$RAW/kserver_$name.log" taskset -c "$2"
	# bench.sh's ks_start reads it
	# shellcheck disable=SC2034
	KS_OPTS=()
	for r in $(seq 1 "$REPS"); do
		ip netns exec "$NS" taskset -c "$3" "$KC" -p 7 -t $((2 * nc)) -c 16 -n 100 -w 1 \
			-d "$SECS" -P >"$RAW/kscale_${name}_$r.log" 2>&1
		grep -q '^transactions ' "$RAW/kscale_${name}_$r.log" ||
			{ cat "$RAW/kscale_${name}_$r.log"; die "kernel_tfo_client $name, run $r failed"; }
	done
	stop "$KS_PID"
}
[ "$SCALE" = 1 ] && {
quiet scale
# the TSC frequency of the report (tfo-bench prints it; a run of a
# fraction of a second)
"$TB" -l "$GEN" --file-prefix "$TAG-tsc" -m 128 --no-huge --no-shconf --no-pci \
	--log-level=lib.eal:error -- cookie --reps 1 --cookies 64 >"$RAW/scale_tsc.txt" 2>&1 ||
	say "6. tfo-bench gave no TSC frequency (the report says n/a)"
for n in ${SCALE_WORKERS//,/ }; do
	scale_srv "$n" 1
	say "6. TFO, $n worker(s), 1 control lcore: tfo-server --lcores $SC_SRV, tfo-loadgen" \
		"--lcores $SC_LG$([ "$SC_SHARED" = 1 ] && echo ' (lcores share CPUs: functional)'), $REPS x ${SECS}s"
	scale_runs tfo "$n" 1 "sc_tfo_$n"
	srv_stop
done
w=$SCALE_PLAIN_W
peak=0 peak_c=1
for c in ${SCALE_CONTROLS//,/ }; do
	scale_srv "$w" "$c"
	say "6. plain (--no-tfo 100), $w worker(s), $c control lcore(s): tfo-server --lcores $SC_SRV," \
		"tfo-loadgen --lcores $SC_LG$([ "$SC_SHARED" = 1 ] && echo ' (shared CPUs: functional)'), $REPS x ${SECS}s"
	scale_runs plain "$w" "$c" "sc_plain_$c" --no-tfo 100
	srv_stop
	rate=$(median_rate "sc_plain_$c")
	[ "${rate:-0}" -gt "$peak" ] && peak=$rate peak_c=$c
done
p90=$((peak * 9 / 10))
if [ "$p90" -gt 0 ]; then
	scale_srv "$w" "$peak_c"
	say "6. plain at 90 % of the plain peak ($peak/s with $peak_c control lcore(s)): $p90/s," \
		"$REPS x ${SECS}s"
	scale_runs p90 "$w" "$peak_c" sc_p90 --no-tfo 100 --rate "$p90"
	srv_stop
else
	say "6. no plain peak: no row at 90 % of it"
fi
rm -f "$SOCK"
say "6. the Linux kernel's server on tfo-server's CPUs, its client on the generators', $REPS x ${SECS}s a row"
kns_up
for n in ${SCALE_WORKERS//,/ }; do
	scale_cpus "$n" 1
	kscale "tfo_$n" "$SC_SRV_SET" "$SC_LG_SET"
done
# plain: the server offers no cookie (tcp_fastopen 1: client only)
ip netns exec "$NS" sysctl -qw net.ipv4.tcp_fastopen=1
for c in ${SCALE_CONTROLS//,/ }; do
	scale_cpus "$w" "$c"
	kscale "plain_$c" "$SC_SRV_SET" "$SC_LG_SET"
done
kns_down
}
