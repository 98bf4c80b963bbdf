#!/bin/bash
# tfo-bench pipeline's slow path, tiny and not timed (--no-huge): with 1 and
# 2 control lcores and syncookies auto and always, every transaction must
# end as tfo-bench checks it (each control's ring drained, accounting
# balanced, every mbuf back); a spoofed SYN under always reaches no control
# lcore; bad --controls/--syncookies arguments are refused.
#   bench_pipeline_slow.sh TFO_BENCH
set -u
TB=$1
. "$(dirname "$0")/tap/lib.sh"
TMP=$(mktemp -d /tmp/tfo-bps.XXXXXX)
trap 'rm -rf "$TMP"; rm -rf /var/run/dpdk/bps$$-* 2>/dev/null' EXIT
n=0
# tb ARGS...: one tfo-bench run of its own (output in $TMP/out)
tb() {
	n=$((n + 1))
	timeout 60 "$TB" -l 0 --no-pci --no-huge --no-shconf -m 512 --file-prefix "bps$$-$n" \
		--log-level=lib.*:warning -- pipeline "$@" >"$TMP/out" 2>&1
}

tb --plain --cookie-req --flood --controls 1,2 --syncookies auto,always --live 64 \
	--cksum offload --reps 1 --trans 256
rc=$?
check "pipeline --plain --cookie-req --flood --controls 1,2 --syncookies auto,always: exit 0 (got $rc)" \
	[ "$rc" = 0 ]
[ "$rc" = 0 ] || tail -n 20 "$TMP/out"
check "two control lcores: each has a share of the plain transactions" \
	grep -Eq '^\| offload \| plain \| auto \| 2 \| [0-9]+ \| [0-9.]+ \| [1-9][0-9]* / [1-9][0-9]* \|' "$TMP/out"
check "a spoofed SYN under syncookies = always: 0 frames to control, 1 worker SYN cookie" \
	grep -Eq '^\| 64 \| offload \| spoofed SYN \| always \| 1 \| .* \| 0\.00 \| 1\.00 \(1\.00\) \|' "$TMP/out"
for bad in "--plain --controls 0" "--plain --controls 5" "--plain --syncookies sometimes" \
	"--controls 2" "--syncookies always"; do
	# shellcheck disable=SC2086
	tb $bad
	rc=$?
	check "pipeline $bad: refused (exit $rc)" [ "$rc" != 0 ]
done
tfo_done
