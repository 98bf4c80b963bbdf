#!/bin/bash
# The main job on a fresh machine: set up, start tfo-server on its embedded
# default configuration (net_tap, in a private network namespace), run a
# real client against it, then keep serving with a stats line every second
# until Ctrl-C (or for DEMO_SECONDS seconds when that is set).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
	echo "demo: run as root (it installs packages, creates a network namespace and a tap device)" >&2
	exit 1
fi
scripts/setup.sh build >/dev/null || { echo "demo: set-up failed (run scripts/setup.sh to see why)" >&2; exit 1; }

. tests/tap/lib.sh
tfo_start build/apps/tfo-server --stats-period 1
echo "demo: tfo-server runs in network namespace $TFO_NS (pid $TFO_PID); kernel side tfo0 = 198.18.0.1, fd00:7f0::1"
echo "demo: log: $TFO_LOG"
echo
echo "demo: ping 198.18.0.2 (ARP + ICMP answered by the control core)"
tfo_ns ping -c 3 -i 0.3 -W 2 198.18.0.2
echo
echo "demo: ping -6 fd00:7f0::2 (ND + ICMPv6 answered by the control core)"
tfo_ns ping -6 -c 3 -i 0.3 -W 2 fd00:7f0::2
echo
echo "demo: counters (/tfo/stats through dpdk-telemetry.py):"
tfo_telemetry /tfo/stats | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)["/tfo/stats"]
print("  " + ", ".join("%s=%s" % (k, v) for k, v in d.items() if isinstance(v, int) and v))'
echo
echo "demo: serving; stats line every second. Ctrl-C to stop."
tail -n 0 -f "$TFO_LOG" | grep --line-buffered "^stats:" &
TAIL=$!
end=$(( $(date +%s) + ${DEMO_SECONDS:-1000000000} ))
while kill -0 "$TFO_PID" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
	sleep 1
done
kill "$TAIL" 2>/dev/null
tfo_stop >/dev/null
sed -n '/^summary:/,$p' "$TFO_LOG" | head -n 30
