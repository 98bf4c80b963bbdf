# shellcheck shell=bash
# tfo-server and tfo-loadgen over a net_memif pair (bash; sourced by
# scripts/usertools/soak.sh and tests/loadgen_memif.sh).
#
# Two processes, no kernel in between, --no-huge: runs anywhere root can run
# DPDK, with no NIC and no hugepages. The caller owns the traps: it calls
# mp_cleanup from its EXIT trap.
#   mp_init TAG                    temporary directory, socket, prefixes
#   mp_server_start SERVER [INI]   tfo-server; INI lines go to [server]
#   mp_snap FILE                   /tfo/stats (totals) as JSON
#   mp_jget NAME KEY               a figure or counter of run NAME's JSON
#   mp_loadgen NAME ARGS...        one tfo-loadgen run (NAME.json, NAME.log)
#   mp_loadgen_bg NAME ARGS...     the same in the background (MP_LGPID)
#   mp_server_stop                 SIGINT, wait; its exit code
#   mp_cleanup RC                  stop what runs, show the logs when RC != 0
# MP_SRV_LCORES / MP_LG_LCORES: the EAL lcore option of either side
# (default "-l 0-1"), e.g. "--lcores 0@1,1@1" for two lcores on one CPU.
# MP_PORT_INI: lines for the server's [port] section (e.g. "rss = peer").

MP_WWW=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../tests/www" 2>/dev/null && pwd)
MP_SPID=""
MP_RUN=0

mp_need() {
	local t

	for t in timeout dpdk-telemetry.py /usr/bin/python3 "$@"; do
		command -v "$t" >/dev/null 2>&1 || { echo "FAIL: required tool '$t' is missing"; exit 1; }
	done
}

mp_init() {
	MP_TAG=$1
	MP_TMP=$(mktemp -d "/tmp/$1.XXXXXX")
	MP_SOCK="$MP_TMP/memif.sock"
}

mp_cleanup() {
	local rc=$1

	if [ -n "$MP_SPID" ]; then
		kill -INT "$MP_SPID" 2>/dev/null	# at once: SIGTERM drains
		wait "$MP_SPID" 2>/dev/null
		MP_SPID=""
	fi
	# tail names each file ("==> FILE <==")
	[ "$rc" = 0 ] || tail -n 30 "$MP_TMP"/*.log 2>/dev/null
	rm -rf "$MP_TMP" /var/run/dpdk/"$MP_TAG"-* 2>/dev/null
}

# mp_server_start SERVER [INI_LINES]: echo on 7, http on 80 (tests/www);
# INI_LINES go to [server], MP_TCP_INI's to [tcp]
mp_server_start() {
	cat >"$MP_TMP/server.ini" <<EOF
[server]
stats_period = 0
${2:-}
[tcp]
max_conns = ${MP_MAX_CONNS:-8192}
max_request = 2048
${MP_TCP_INI:-}
[port net_memif0]
vdev = net_memif0,role=server,socket=$MP_SOCK,socket-abstract=no
ipv4 = 198.18.0.2/16
ipv6 = fd00:7f0::2/64
${MP_PORT_INI:-}
[service echo]
port = 7
[service http]
port = 80
root = $MP_WWW
; a request head fits in max_request (else it is reset, never answered 400)
max_header = 2K
max_uri = 1K
EOF
	# the program itself in the background: $! is tfo-server
	# shellcheck disable=SC2086
	"$1" ${MP_SRV_LCORES:--l 0-1} --no-huge -m 256 --no-pci --file-prefix "$MP_TAG-srv" \
		--log-level=lib.eal:error -- --config "$MP_TMP/server.ini" \
		>"$MP_TMP/server.log" 2>&1 &
	MP_SPID=$!
	for _ in $(seq 1 100); do
		grep -q "tfo-server: running" "$MP_TMP/server.log" && break
		kill -0 "$MP_SPID" 2>/dev/null || break
		sleep 0.2
	done
	grep -q "tfo-server: running" "$MP_TMP/server.log" || { echo "FAIL: tfo-server did not start"; exit 1; }
}

# mp_jget NAME KEY: a top-level figure, a counter or a latency figure of
# run NAME's JSON (tfo-loadgen --json)
mp_jget() {
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
k = sys.argv[2]
v = d.get(k, d["counters"].get(k, d.get("latency_us", {}).get(k, "")))
print(int(v) if isinstance(v, float) else v)' "$MP_TMP/$1.json" "$2"
}

mp_snap() {
	echo /tfo/stats,total | timeout 10 dpdk-telemetry.py -f "$MP_TAG-srv" >"$1" 2>/dev/null
}

# mp_loadgen_bg NAME ARGS...: tfo-loadgen ($MP_LG) against the server in
# the background, bounded by $MP_LG_TIMEOUT (default 120 s); MP_LGPID is
# that of timeout(1), the loadgen is its child. MP_LG_TIMEOUT=0: no
# timeout(1), MP_LGPID is the loadgen's own (a peer to SIGKILL; the caller
# bounds it)
mp_loadgen_bg() {
	local name=$1 bound=()

	shift
	MP_RUN=$((MP_RUN + 1))
	[ "${MP_LG_TIMEOUT:-120}" = 0 ] || bound=(timeout "${MP_LG_TIMEOUT:-120}")
	# shellcheck disable=SC2086
	"${bound[@]}" "$MP_LG" ${MP_LG_LCORES:--l 0-1} --no-huge -m 256 --no-pci \
		--file-prefix "$MP_TAG-lg$MP_RUN" --log-level=lib.eal:error \
		--vdev "net_memif0,role=client,socket=$MP_SOCK,socket-abstract=no" \
		-- --json "$MP_TMP/$name.json" --resolve-timeout 10 --warmup-timeout 10 \
		--timeout-ms 10000 --rto-ms 200 "$@" >"$MP_TMP/$name.log" 2>&1 &
	MP_LGPID=$!
}

# mp_loadgen NAME ARGS...: the same in the foreground; its exit code in MP_LGRC
mp_loadgen() {
	mp_loadgen_bg "$@"
	wait "$MP_LGPID"
	MP_LGRC=$?
}

mp_server_stop() {
	local rc

	kill -INT "$MP_SPID"
	wait "$MP_SPID"
	rc=$?
	MP_SPID=""
	return "$rc"
}
