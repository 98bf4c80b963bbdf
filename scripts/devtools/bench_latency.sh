# shellcheck shell=bash
# scripts/devtools/bench.sh's phase latency, (5) (bash; sourced by
# bench.sh, with its helpers: want, quiet, say, die, srv_start, srv_stop,
# tel_lcore, lg, median_rate, others_start, others_end, kns_up, kns_down,
# ks_start, stop): tfo-server per idle_policy at fixed rates and at half
# its peak, its threads' CPU at zero load, and the Linux kernel's TFO
# server at the same rates. Raw files: lg_lpeak_*, lg_lat_*, idle_*,
# klat_* (bench_report.py's benchreport/latency.py reads them).

# The rates of the latency table: three fixed ones and "half", half of
# adaptive's TFO peak as measured here (the same rate for every policy and
# the kernel, so that the rows compare). IDLE_SECS: the zero-load window.
LAT_RATES="1000 10000 100000 half"
IDLE_SECS=10
# task_ticks PID: "TID COMM TICKS" for each thread of PID, TICKS its CPU
# time so far (utime + stime: the 12th and 13th fields after the ")")
task_ticks() {
	local t

	for t in /proc/"$1"/task/*; do
		echo "${t##*/} $(tr ' ' _ <"$t/comm") $(sed 's/.*) //' "$t/stat" |
			awk '{print $12 + $13}')"
	done
}
# idle_cpu POLICY: the CPU each thread of the running server uses in
# IDLE_SECS without traffic (the generator gone, its memif peer with it),
# and the lcores' idle counters around that window
idle_cpu() {
	local f=$RAW/idle_$1 t0 t1 ta tb

	# the last run's TIME-WAIT records (1 s) end first: the lcores have
	# no timer left and reach their longest waits
	sleep 2
	ta=$(date +%s%N)
	tel_lcore "${f}_tel0_a.json" 0
	tel_lcore "${f}_tel1_a.json" 1
	others_start "$SRV_PID"
	t0=$(date +%s%N)
	task_ticks "$SRV_PID" >"${f}_a.txt"
	sleep "$IDLE_SECS"
	task_ticks "$SRV_PID" >"${f}_b.txt"
	t1=$(date +%s%N)
	others_end "$RAW/others_idle_${1}_1.txt" "$SRV_PID"
	tel_lcore "${f}_tel0_b.json" 0
	tel_lcore "${f}_tel1_b.json" 1
	tb=$(date +%s%N)
	echo "pid $SRV_PID window_us $(((t1 - t0) / 1000)) tel_us $(((tb - ta) / 1000))" \
		"clk_tck $(getconf CLK_TCK)" >"${f}_time.txt"
}
want latency && {
quiet latency
say "5. latency at every load: tfo-server (both lcores on CPU $DUT) per idle_policy, generator on CPU $GEN"
lat_half=""
for pol in adaptive busy sleep; do
	srv_start "$pol"
	# busy with both lcores on one CPU: the control lcore runs only when
	# the scheduler takes the CPU from the spinning worker, so plain
	# transactions take milliseconds and may time out -- a figure of
	# these rows (the report counts the errors), not a failure
	eok=0
	[ "$pol" = busy ] && eok=1
	say "5. idle_policy $pol: the TFO peak, $REPS x ${SECS}s"
	for r in $(seq 1 "$REPS"); do
		LG_ERRORS_OK=$eok lg "lg_lpeak_${pol}_$r"
	done
	if [ "$pol" = adaptive ]; then
		lat_half=$(($(median_rate "lpeak_$pol") / 2))
		echo "$lat_half" >"$RAW/lat_half_rate.txt"
	fi
	say "5. idle_policy $pol: TFO and plain at ${LAT_RATES/half/$lat_half} /s, $REPS x ${SECS}s each"
	# the repetitions outermost: a disturbance of a few seconds spoils one
	# repetition of several rows, not every repetition of one row
	for r in $(seq 1 "$REPS"); do
		for rt in $LAT_RATES; do
			rate=$rt
			[ "$rt" = half ] && rate=$lat_half
			LG_ERRORS_OK=$eok lg "lg_lat_${pol}_tfo_${rt}_$r" --rate "$rate"
			LG_ERRORS_OK=$eok lg "lg_lat_${pol}_plain_${rt}_$r" --no-tfo 100 --rate "$rate"
		done
	done
	say "5. idle_policy $pol: the CPU of each thread in ${IDLE_SECS}s without traffic"
	idle_cpu "$pol"
	srv_stop
done
rm -f "$SOCK"
# The kernel's TFO server with one thread on DUT and its client (one
# thread: the CPUs it may use) on GEN, the layout of tfo-server's rows; a
# 100-byte echo as tfo-loadgen's, 128 in flight at most as its concurrency.
# The client is open loop: at a rate the kernel cannot reach, the starts
# it could not make are counted (late, no_slot), not queued.
say "5. Linux kernel TFO server (CPU $DUT) + client (CPU $GEN) at the same rates, $REPS x ${SECS}s each"
kns_up
ks_start "$RAW/kserver_lat.log" taskset -c "$DUT"
for r in $(seq 1 "$REPS"); do
	for rt in $LAT_RATES; do
		rate=$rt
		[ "$rt" = half ] && rate=$lat_half
		# this shell's waited-for children: the client once it is done
		others_start "+$$" "$KS_PID"
		ip netns exec "$NS" taskset -c "$GEN" "$KC" -p 7 -c 128 -n 100 -w 1 -d "$SECS" \
			-r "$rate" >"$RAW/klat_${rt}_$r.log" 2>&1
		rc=$?
		others_end "$RAW/others_klat_${rt}_$r.txt" "+$$" "$KS_PID"
		# errors (exit code 1) are a figure of the row; no figures at all
		# is a failure
		grep -q '^latency_us ' "$RAW/klat_${rt}_$r.log" ||
			{ cat "$RAW/klat_${rt}_$r.log"; die "kernel_tfo_client at $rate/s, run $r: exit code $rc"; }
	done
done
stop "$KS_PID"
kns_down
}
