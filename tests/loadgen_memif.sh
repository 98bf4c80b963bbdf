#!/bin/bash
# tfo-server driven by tfo-loadgen over a net_memif pair (two processes, no
# kernel in between, --no-huge): a few thousand TFO transactions, not timed.
# Each case asserts zero errors and the same counts on both sides: the
# loadgen's JSON and tfo-server's /tfo/stats (telemetry), then a clean
# exit with its accounting balanced.
#   loadgen_memif.sh TFO_SERVER TFO_LOADGEN
set -u
SRV=$1
LG=$2
# check/tfo_done of the interop tests
. "$(dirname "$0")/tap/lib.sh"

TAG="lgm$$"
TMP=$(mktemp -d /tmp/lgm.XXXXXX)
SOCK="$TMP/memif.sock"
SPID=""
RUN=0

for t in timeout dpdk-telemetry.py /usr/bin/python3; do
	command -v "$t" >/dev/null 2>&1 || { echo "FAIL: required tool '$t' is missing"; exit 1; }
done

cleanup() {
	local rc=$?

	if [ -n "$SPID" ]; then
		kill -TERM "$SPID" 2>/dev/null
		wait "$SPID" 2>/dev/null
	fi
	if [ "$rc" != 0 ]; then
		for f in "$TMP"/*.log; do
			[ -f "$f" ] || continue
			echo "---- $f ----"
			tail -n 30 "$f"
		done
	fi
	rm -rf "$TMP" /var/run/dpdk/"$TAG"-* 2>/dev/null
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$TMP/server.ini" <<EOF
[server]
stats_period = 0
[tcp]
max_conns = 8192
max_request = 2048
[port net_memif0]
vdev = net_memif0,role=server,socket=$SOCK,socket-abstract=no
ipv4 = 198.18.0.2/16
ipv6 = fd00:7f0::2/64
[service echo]
port = 7
[service http]
port = 80
root = $(cd "$(dirname "$0")" && pwd)/www
EOF

"$SRV" -l 0-1 --no-huge -m 256 --no-pci --file-prefix "$TAG-srv" --log-level=lib.eal:error \
	-- --config "$TMP/server.ini" >"$TMP/server.log" 2>&1 &
SPID=$!
for _ in $(seq 1 100); do
	grep -q "tfo-server: running" "$TMP/server.log" && break
	kill -0 "$SPID" 2>/dev/null || break
	sleep 0.2
done
grep -q "tfo-server: running" "$TMP/server.log" || { echo "FAIL: tfo-server did not start"; exit 1; }

# snap FILE: tfo-server's total counters
snap() {
	echo /tfo/stats | timeout 10 dpdk-telemetry.py -f "$TAG-srv" >"$1" 2>/dev/null
}
# delta NAME: a counter's increase over the last case (server side)
delta() {
	/usr/bin/python3 -c '
import json, sys
a, b = (json.load(open(f))["/tfo/stats"] for f in sys.argv[1:3])
print(b[sys.argv[3]] - a[sys.argv[3]])' "$TMP/before.json" "$TMP/after.json" "$1"
}
# jget CASE KEY: a top-level figure or a counter of the loadgen's JSON
jget() {
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d.get(sys.argv[2], d["counters"].get(sys.argv[2], "")))' "$TMP/$1.json" "$2"
}
eq() { [ "$1" = "$2" ] || { echo "     ($1 != $2)"; return 1; }; }
gt() { [ -n "$1" ] && [ "$1" -gt "$2" ] || { echo "     ($1 <= $2)"; return 1; }; }

# lg CASE ARGS...: one bounded loadgen run between two snapshots
lg() {
	local name=$1
	shift
	RUN=$((RUN + 1))
	snap "$TMP/before.json"
	timeout 120 "$LG" -l 0-1 --no-huge -m 256 --no-pci --file-prefix "$TAG-lg$RUN" \
		--log-level=lib.eal:error --vdev "net_memif0,role=client,socket=$SOCK,socket-abstract=no" \
		-- --json "$TMP/$name.json" --resolve-timeout 10 --warmup-timeout 10 \
		--timeout-ms 10000 --rto-ms 200 --stats-period 0 "$@" >"$TMP/$name.log" 2>&1
	LGRC=$?
	snap "$TMP/after.json"
}

echo "# 1. IPv4 echo: 3000 TFO transactions from 16 client addresses"
lg echo --server 198.18.0.2 --server-port 7 --client 198.18.1.1 --clients 16 \
	--request-size 100 --expect-echo --count 3000
check "echo: loadgen exit code 0" eq "$LGRC" 0
check "echo: no error" eq "$(jget echo errors)" 0
check "echo: 3000 transactions, all TFO" eq "$(jget echo transactions)/$(jget echo tfo)" 3000/3000
check "echo: 3016 responses validated (16 in the warm-up)" eq "$(jget echo responses_validated)" 3016
check "echo: no fallback, no retransmission" eq "$(jget echo fallbacks)/$(jget echo retransmissions)" 0/0
check "echo: 16 cookies learned" eq "$(jget echo cookies_learned)" 16
check "server: TCPFastOpenPassive +3000" eq "$(delta TCPFastOpenPassive)" 3000
check "server: conns_opened_tfo +3000" eq "$(delta conns_opened_tfo)" 3000
check "server: TCPFastOpenCookieReqd +16" eq "$(delta TCPFastOpenCookieReqd)" 16
check "server: TCPFastOpenPassiveFail, ListenOverflow +0" \
	eq "$(delta TCPFastOpenPassiveFail)/$(delta TCPFastOpenListenOverflow)" 0/0
check "server: 3016 responses (svc_responses)" eq "$(delta svc_responses)" 3016
check "server: every frame received was sent by the loadgen" \
	eq "$(delta rx_pkts)" "$(jget echo tx_pkts)"
check "server: every frame sent reached the loadgen" eq "$(delta tx_pkts)" "$(jget echo rx_pkts)"

echo "# 2. HTTP over IPv4 and IPv6, 10% bad cookies, 10% without TFO"
lg http4 --server 198.18.0.2 --server-port 80 --client 198.18.1.1 --clients 16 \
	--expect-prefix 'HTTP/1.1 200 OK\r\n' --count 1000 --bad-cookie 10 --no-tfo 10
check "http4: loadgen exit code 0" eq "$LGRC" 0
check "http4: no error" eq "$(jget http4 errors)" 0
check "http4: 1000 transactions = TFO + bad cookie + plain" \
	eq $(( $(jget http4 tfo) + $(jget http4 txn_bad_cookie) + $(jget http4 txn_plain) )) 1000
check "http4: some bad cookies and plain connections" \
	gt $(( $(jget http4 txn_bad_cookie) * $(jget http4 txn_plain) )) 0
check "http4: every bad cookie fell back, nothing else" \
	eq "$(jget http4 fallbacks_bad_cookie)/$(jget http4 fallbacks)" "$(jget http4 txn_bad_cookie)/0"
check "server: TCPFastOpenPassive == the loadgen's TFO" eq "$(delta TCPFastOpenPassive)" "$(jget http4 tfo)"
check "server: TCPFastOpenPassiveFail == the loadgen's bad cookies" \
	eq "$(delta TCPFastOpenPassiveFail)" "$(jget http4 txn_bad_cookie)"
check "server: HTTP 200 for every response (1016)" eq "$(delta http_200)" 1016
lg http6 --server fd00:7f0::2 --server-port 80 --client fd00:7f0::1:1 --clients 8 \
	--expect-prefix 'HTTP/1.1 200 OK\r\n' --count 1000
check "http6: loadgen exit code 0, no error" eq "$LGRC/$(jget http6 errors)" 0/0
check "http6: 1000 TFO transactions" eq "$(jget http6 tfo)" 1000
check "server: TCPFastOpenPassive +1000 (IPv6)" eq "$(delta TCPFastOpenPassive)" 1000
check "server: ND answered" gt "$(delta nd_na_tx)" 0

echo "# 3. tfo-server stops cleanly, every frame accounted for"
kill -INT "$SPID"
wait "$SPID"
SRC=$?
SPID=""
check "tfo-server exit code 0" eq "$SRC" 0
check "accounting: ok" grep -q "^accounting: ok" "$TMP/server.log"
check "no frame dropped by the server" eq "$(grep -c 'tx_drop_full\|ring_drop_full\|mbuf_alloc_fail' "$TMP/server.log")" 0
tfo_done
