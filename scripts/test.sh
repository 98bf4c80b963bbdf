#!/bin/bash
# Run the whole test suite on a fresh machine (set-up included):
#   scripts/test.sh                         everything (what CI runs)
#   scripts/test.sh [meson test args...]    only those, e.g. --suite unit
# Everything is: every suite of the main build (unit, root, tap, hostile,
# lint); the unit, root and hostile suites again in a second tree built
# with ASan+UBSan (gcc; any report fails the test; DPDK needs no extra EAL
# flag for it); each libFuzzer harness for TFO_FUZZ_SECONDS (default 20)
# when clang's libFuzzer can be installed (scripts/devtools/fuzz.sh).
# TFO_SANITIZE=0 / TFO_FUZZ_SECONDS=0 leave a pass out.
# Ends with one line over all of it: "tests: N passed, N failed, N skipped"
# (scripts/devtools/test-summary.py: a test that passed with skipped cases,
# e.g. a SIMD engine this CPU lacks, adds each of them to N skipped).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ASAN_BUILD=${ASAN_BUILD:-$BUILD-asan}
FUZZ_BUILD=${FUZZ_BUILD:-$BUILD-fuzz}
FUZZ_SECONDS=${TFO_FUZZ_SECONDS:-20}
logs=()
extra=()

scripts/setup.sh "$BUILD" || { echo "tests: 0 passed, 1 failed, 0 skipped"; exit 1; }
meson test -C "$BUILD" --print-errorlogs --num-processes 1 "$@"
logs+=("$BUILD/meson-logs/testlog.json")

if [ $# -eq 0 ] && [ "${TFO_SANITIZE:-1}" != 0 ]; then
	echo "== unit, root and hostile tests under ASan+UBSan ($ASAN_BUILD)"
	# halt on the first report: a sanitizer finding is a failed test
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=1:print_summary=1}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1:print_summary=1}
	rm -f "$ASAN_BUILD/meson-logs/testlog.json"
	if { [ -f "$ASAN_BUILD/build.ninja" ] ||
	     meson setup "$ASAN_BUILD" -Dwerror=true -Db_sanitize=address,undefined \
		-Db_lundef=false >/dev/null; } && ninja -C "$ASAN_BUILD" >/dev/null; then
		# without suite timing: tests of time and CPU, which ASan distorts
		meson test -C "$ASAN_BUILD" --suite unit --suite root --suite hostile \
			--no-suite timing --print-errorlogs --num-processes 1
		logs+=("$ASAN_BUILD/meson-logs/testlog.json")
	else
		ninja -C "$ASAN_BUILD" 2>&1 | tail -n 20
		extra+=(--failed "$ASAN_BUILD (build)")
	fi
fi

if [ $# -eq 0 ] && [ "$FUZZ_SECONDS" != 0 ]; then
	echo "== libFuzzer harnesses, ${FUZZ_SECONDS} s each ($FUZZ_BUILD)"
	rm -f "$FUZZ_BUILD/meson-logs/testlog.json"
	FUZZ_BUILD=$FUZZ_BUILD scripts/devtools/fuzz.sh "$FUZZ_SECONDS"
	frc=$?
	if [ -f "$FUZZ_BUILD/meson-logs/testlog.json" ]; then
		logs+=("$FUZZ_BUILD/meson-logs/testlog.json")
	elif [ $frc = 77 ]; then
		extra+=(--skipped "fuzz (no clang libFuzzer)")
	else
		extra+=(--failed "fuzz (build)")
	fi
fi

python3 scripts/devtools/test-summary.py "${extra[@]}" "${logs[@]}"
