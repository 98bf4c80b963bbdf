#!/bin/bash
# Run the whole test suite on a fresh machine (set-up included):
#   scripts/test.sh [meson test args...]    e.g. --suite unit
# Ends with one line: "tests: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}

scripts/setup.sh "$BUILD" || { echo "tests: 0 passed, 1 failed, 0 skipped"; exit 1; }
meson test -C "$BUILD" --print-errorlogs --num-processes 1 "$@"
rc=$?
python3 scripts/test-summary.py "$BUILD/meson-logs/testlog.json" || rc=1
exit $rc
