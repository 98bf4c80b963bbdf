# shellcheck shell=bash disable=SC2015,SC2034
# Common helpers of the tests that drive a kernel server with tfo-loadgen
# through net_tap (bash; sourced by loadgen_kernel.sh and loadgen_dns.sh).
# Everything runs in a private network namespace (tcp_fastopen=3 there; its
# nstat counters start at 0); tfo-loadgen creates the tap lg0 in it, and
# deleting the namespace removes everything. cleanup runs on every exit
# path; KPIDS holds the servers the test started.
set -u
NS=""
TMP=""
KPIDS=()
FAILS=0
CHECKS=0
RUN=0

# lgt_setup NAME TOOL...: root, the tools, the namespace NAME<pid>, the
# traps; skips (77) without root
lgt_setup() {
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: needs root (net_tap, network namespaces)"
		exit 77
	fi
	for t in ip nstat timeout /usr/bin/python3 "${@:2}"; do
		command -v "$t" >/dev/null 2>&1 || { echo "FAIL: required tool '$t' is missing"; exit 1; }
	done
	NS="$1$$"
	TMP=$(mktemp -d "/tmp/$1.XXXXXX")
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	ip netns add "$NS" || { echo "FAIL: ip netns add"; exit 1; }
	ns ip link set lo up
	ns sysctl -qw net.ipv4.tcp_fastopen=3
}

cleanup() {
	local rc=$?
	for p in "${KPIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	# whatever else still runs in the namespace was started here (SIGINT:
	# tfo-server would drain on SIGTERM)
	for p in $(ip netns pids "$NS" 2>/dev/null); do
		kill -INT "$p" 2>/dev/null
	done
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf /var/run/dpdk/"$NS"-* 2>/dev/null
	if [ "$rc" != 0 ]; then
		for f in "$TMP"/*.log; do
			[ -f "$f" ] || continue
			echo "---- $f ----"
			tail -n 25 "$f"
		done
	fi
	rm -rf "$TMP"
	exit "$rc"
}

check() {
	local what=$1
	shift
	CHECKS=$((CHECKS + 1))
	if "$@"; then
		echo "ok   $what"
	else
		echo "FAIL $what"
		FAILS=$((FAILS + 1))
	fi
}
eq() { [ "$1" = "$2" ] || { echo "     ($1 != $2)"; return 1; }; }
gt() { [ -n "$1" ] && [ "$1" -gt "$2" ] || { echo "     ($1 <= $2)"; return 1; }; }
ge() { [ -n "$1" ] && [ "$1" -ge "$2" ] || { echo "     ($1 < $2)"; return 1; }; }

ns() { ip netns exec "$NS" "$@"; }
kstat() { ns nstat -saz "$1" | awk -v n="$1" '$1 == n { print $2 }'; }
# jget CASE KEY: a top-level figure or a counter of the loadgen's JSON
jget() {
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d.get(sys.argv[2], d["counters"].get(sys.argv[2], "")))' "$TMP/$1.json" "$2"
}

# lg CASE ARGS...: run tfo-loadgen ($LG, bounded), address the tap once it
# exists (198.18.0.1/24, fd00:7f0::1/64: the server's side); the exit code
# is left in LGRC, the figures in $TMP/CASE.json
lg() {
	local name=$1
	shift
	RUN=$((RUN + 1))
	ip netns exec "$NS" timeout 60 "$LG" -l 0-1 --no-huge -m 256 --no-shconf --no-pci \
		--file-prefix "$NS-$RUN" --log-level=lib.eal:error \
		--vdev net_tap0,iface=lg0 -- --json "$TMP/$name.json" \
		--resolve-timeout 10 --warmup-timeout 5 --timeout-ms 5000 \
		--rto-ms 200 --stats-period 0 "$@" >"$TMP/$name.log" 2>&1 &
	local pid=$!
	for _ in $(seq 1 100); do
		ns ip link show lg0 >/dev/null 2>&1 && break
		sleep 0.1
	done
	ns ip addr add 198.18.0.1/24 dev lg0
	ns ip -6 addr add fd00:7f0::1/64 dev lg0 nodad
	ns ip link set lg0 up
	wait "$pid"
	LGRC=$?
}
