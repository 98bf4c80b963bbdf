#!/bin/bash
# Run one libFuzzer harness for TFO_FUZZ_SECONDS (default 30) from its seed
# corpus; new inputs go to a working corpus next to the binary, a crash to
# tests/fuzz/crashes/. Prints libFuzzer's last status line (executions,
# coverage, features) and a one-line result.
#   run-fuzz.sh HARNESS SEED_DIR
set -uo pipefail
exe=$1
seeds=$2
secs=${TFO_FUZZ_SECONDS:-30}
name=$(basename "$exe")
work="$(dirname "$exe")/corpus-$name"
crashes="$(cd "$(dirname "$0")" && pwd)/crashes"
mkdir -p "$work" "$crashes"
log=$(mktemp "/tmp/$name.XXXXXX.log")
trap 'rm -f "$log"' EXIT

# leaks are checked per input; UBSan stops at the first report
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
# libFuzzer's default error exit code, 77, is "skipped" to meson: a crash
# or a leak would pass as a skip
"$exe" -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
	-error_exitcode=1 -artifact_prefix="$crashes/$name-" "$work" "$seeds" >"$log" 2>&1
rc=$?
[ $rc -eq 77 ] && rc=1
# the last progress line carries cov/ft/corp/exec/s; the stats the runs
grep -E '^#[0-9]+' "$log" | tail -n 1
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log"
if [ $rc -ne 0 ]; then
	echo "---- $name failed (exit $rc); log tail ----"
	tail -n 60 "$log"
	ls -1 "$crashes" | grep "^$name-" | tail -n 3
fi
exit $rc
