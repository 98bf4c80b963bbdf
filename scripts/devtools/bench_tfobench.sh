# shellcheck shell=bash
# scripts/devtools/bench.sh's phase tfo-bench, (4) (bash; sourced by
# bench.sh, with its helpers: want, quiet, say, die, others_start,
# others_end): each tfo-bench benchmark NAME of TB_NAMES that --phases asks
# for (tfo-bench or tb-NAME), on BENCH_DUT_CPU, its output in
# RAW/tb_NAME.txt (bench_report.py's code blocks and rows 4, 4s, 4c, 4f
# read them) and others' share of the machine in machine.txt.

TB_EAL=(-l "$DUT" --file-prefix "$TAG-tb" -m 1024 "${EAL_COMMON[@]}" --log-level=lib.*:warning)
# name: arguments (the pipeline again in tfo-loadgen's shape, ACK and FIN
# in one segment, as in (2); and with the client frames out of the caches)
declare -A TB_RUNS=(
	[pipeline]="pipeline"
	[pipeline_ackfin]="pipeline --ackfin --live 1000 --service echo"
	[pipeline_cold]="pipeline --cold --live 1000 --service echo --cksum offload"
	[pipeline_slow]="pipeline --plain --bad-cookie --cookie-req --live 1000"
	[pipeline_controls]="pipeline --plain --bad-cookie --cookie-req --controls 1,2 --live 1000 --cksum offload"
	[pipeline_flood]="pipeline --flood --syncookies auto,always --live 1000"
	[engine]="engine"
	[cookie]="cookie"
	[http]="http"
)
# A run during which others used more than 3 % of the machine is run again
# (twice at most); the least disturbed one is kept, and its share reported.
for b in $TB_NAMES; do
	want "tb-$b" || continue
	best=""
	for _ in 1 2 3; do
		quiet "tfo-bench-$b"
		say "4. tfo-bench ${TB_RUNS[$b]} (CPU $DUT)${best:+, again: others used ${best}% of the machine}"
		others_start "+$$"
		# shellcheck disable=SC2086
		"$TB" "${TB_EAL[@]}" -- ${TB_RUNS[$b]} >"$RAW/tb_try.txt" 2>&1 &
		tp=$!
		wait "$tp" || { tail -n 20 "$RAW/tb_try.txt"; die "tfo-bench $b failed"; }
		others_end "$RAW/tb_try.others" "+$$"
		read -r ob ot <"$RAW/tb_try.others"
		pct=$(( ot > 0 ? (ob > 0 ? ob : 0) * 100 / ot : 0 ))
		if [ -z "$best" ] || [ "$pct" -lt "$best" ]; then
			best=$pct
			mv "$RAW/tb_try.txt" "$RAW/tb_$b.txt"
		fi
		[ "$best" -lt 3 ] && break
	done
	echo "tb_others_$b=$best%" >>"$RAW/machine.txt"
done
