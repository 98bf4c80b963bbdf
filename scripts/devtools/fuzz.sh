#!/bin/bash
# Run every libFuzzer harness (tests/fuzz) for SECONDS each (default 60):
#   scripts/devtools/fuzz.sh [SECONDS]
# Builds them first in build-fuzz (FUZZ_BUILD) with clang, -Dfuzz=true;
# installs clang's libFuzzer runtime from Debian when it is missing (root).
# Each harness prints its executions, coverage (cov: edges, ft: features)
# and corpus; a crash is kept in tests/fuzz/crashes/ and fails the run.
# Exit 77 (skip) when clang or libFuzzer cannot be had.
set -uo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:-60}
BUILD=${FUZZ_BUILD:-build-fuzz}

probe() {
	printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return d == 0 && n; }\n' |
		clang -x c - -fsanitize=fuzzer,address,undefined -o /dev/null >/dev/null 2>&1
}

if ! command -v clang >/dev/null 2>&1 || ! probe; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "fuzz: installing clang and its libFuzzer runtime (Debian)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			clang libclang-rt-dev >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
				--no-install-recommends clang libclang-rt-dev >/dev/null 2>&1; }
	fi
	if ! command -v clang >/dev/null 2>&1 || ! probe; then
		echo "SKIP: clang with libFuzzer (-fsanitize=fuzzer) is not available"
		exit 77
	fi
fi

if [ ! -f "$BUILD/build.ninja" ]; then
	CC=clang meson setup "$BUILD" -Dfuzz=true -Dwerror=true >/dev/null ||
		{ echo "fuzz: meson setup $BUILD failed"; exit 1; }
fi
# only the harnesses (and their instrumented library), not the whole tree
targets=(tests/fuzz/fuzz_pkt tests/fuzz/fuzz_http tests/fuzz/fuzz_dns tests/fuzz/fuzz_worker
	tests/fuzz/fuzz_xfr)
ninja -C "$BUILD" "${targets[@]}" >/dev/null ||
	{ ninja -C "$BUILD" "${targets[@]}" | tail -n 30; exit 1; }
TFO_FUZZ_SECONDS=$SECS meson test -C "$BUILD" --suite fuzz --no-rebuild --num-processes 1 \
	--verbose --print-errorlogs
