# Common helpers for the net_tap interop tests (bash; sourced).
#
# Every test runs tfo-server in a private network namespace, where net_tap
# creates the kernel interface tfo0; the kernel client runs in the same
# namespace, so its TFO cookie cache and counters start clean, and deleting
# the namespace removes everything. cleanup runs on every exit path.

set -u

TFO_NS=""
TFO_PID=""
TFO_LOG=""
TFO_FAILS=0
TFO_CHECKS=0

tfo_need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: needs root (net_tap, network namespaces)"
		exit 77
	fi
	for t in ip "$@"; do
		if ! command -v "$t" >/dev/null 2>&1; then
			echo "FAIL: required tool '$t' is missing (run scripts/setup.sh)"
			exit 1
		fi
	done
}

tfo_cleanup() {
	local rc=$?
	if [ -n "$TFO_PID" ] && kill -0 "$TFO_PID" 2>/dev/null; then
		kill -INT "$TFO_PID" 2>/dev/null	# at once: SIGTERM would drain
		for _ in $(seq 1 50); do
			kill -0 "$TFO_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$TFO_PID" 2>/dev/null
	fi
	[ -n "$TFO_NS" ] && ip netns del "$TFO_NS" 2>/dev/null
	[ -n "$TFO_PID" ] && rmdir "/var/run/dpdk/tfo$TFO_PID" 2>/dev/null
	if [ "$rc" != 0 ] && [ -n "$TFO_LOG" ] && [ -f "$TFO_LOG" ]; then
		echo "---- tfo-server log ($TFO_LOG) ----"
		tail -n 60 "$TFO_LOG"
	fi
	[ -n "$TFO_LOG" ] && rm -f "$TFO_LOG"
	exit "$rc"
}

# tfo_start SERVER [tfo-server options...]: namespace, server, tap addresses.
tfo_start() {
	local server=$1
	shift
	TFO_NS="tfotest$$"
	TFO_LOG=$(mktemp /tmp/tfo-server.XXXXXX.log)
	trap tfo_cleanup EXIT
	trap 'exit 130' INT TERM
	ip netns add "$TFO_NS" || { echo "FAIL: ip netns add"; exit 1; }
	ip netns exec "$TFO_NS" ip link set lo up
	# ip netns exec execs the server: $! is the server's pid
	ip netns exec "$TFO_NS" "$server" -- "$@" >"$TFO_LOG" 2>&1 &
	TFO_PID=$!
	for _ in $(seq 1 100); do
		if grep -q "tfo-server: running" "$TFO_LOG" 2>/dev/null; then
			break
		fi
		if ! kill -0 "$TFO_PID" 2>/dev/null; then
			echo "FAIL: tfo-server exited during start-up"
			exit 1
		fi
		sleep 0.2
	done
	grep -q "tfo-server: running" "$TFO_LOG" || { echo "FAIL: tfo-server did not start in 20 s"; exit 1; }
	ip netns exec "$TFO_NS" ip addr add 198.18.0.1/24 dev tfo0
	ip netns exec "$TFO_NS" ip -6 addr add fd00:7f0::1/64 dev tfo0 nodad
	ip netns exec "$TFO_NS" ip link set tfo0 up
}

# tfo_ns CMD...: run a command in the test namespace.
tfo_ns() {
	ip netns exec "$TFO_NS" "$@"
}

# tfo_telemetry CMD: print the JSON answer of a telemetry command.
tfo_telemetry() {
	echo "$1" | ip netns exec "$TFO_NS" timeout 10 dpdk-telemetry.py -f "tfo$TFO_PID" 2>/dev/null
}

# tfo_stat NAME: a counter's total from /tfo/stats (empty if missing).
tfo_stat() {
	tfo_telemetry /tfo/stats | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)["/tfo/stats"]
print(d.get(sys.argv[1], ""))' "$1"
}

check() {
	# check DESCRIPTION COMMAND...: one assertion
	local what=$1
	shift
	TFO_CHECKS=$((TFO_CHECKS + 1))
	if "$@"; then
		echo "ok   $what"
	else
		echo "FAIL $what"
		TFO_FAILS=$((TFO_FAILS + 1))
	fi
}

# comparisons for check: each says what it saw when it fails
eq() { [ "$1" = "$2" ] || { echo "     ($1 != $2)"; return 1; }; }
lt() { [ -n "$1" ] && [ "$1" -lt "$2" ] || { echo "     ($1 >= $2)"; return 1; }; }
le() { [ -n "$1" ] && [ "$1" -le "$2" ] || { echo "     ($1 > $2)"; return 1; }; }
ge() { [ -n "$1" ] && [ "$1" -ge "$2" ] || { echo "     ($1 < $2)"; return 1; }; }
gt() { [ -n "$1" ] && [ "$1" -gt "$2" ] || { echo "     ($1 <= $2)"; return 1; }; }

# tfo_stop: SIGINT, wait, and check the exit code and the summary.
tfo_stop() {
	local rc
	kill -INT "$TFO_PID"
	for _ in $(seq 1 100); do
		kill -0 "$TFO_PID" 2>/dev/null || break
		sleep 0.1
	done
	wait "$TFO_PID"
	rc=$?
	check "SIGINT: tfo-server exits with code 0 (got $rc)" [ "$rc" = 0 ]
	check "SIGINT: exit summary printed" grep -q "^summary:" "$TFO_LOG"
	TFO_PID_DONE=$TFO_PID
	TFO_PID=""
	# TFO_PREFIX: the server's --file-prefix, when not tfo-server's own
	rmdir "/var/run/dpdk/${TFO_PREFIX:-tfo$TFO_PID_DONE}" 2>/dev/null
	check "EAL runtime directory removed" [ ! -d "/var/run/dpdk/${TFO_PREFIX:-tfo$TFO_PID_DONE}" ]
}

tfo_done() {
	echo "checks: $TFO_CHECKS, failed: $TFO_FAILS"
	[ "$TFO_CHECKS" -gt 0 ] && [ "$TFO_FAILS" = 0 ]
}
