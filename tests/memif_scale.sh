#!/bin/bash
# "Many cores" without a NIC: tfo-server with 2 workers and 2 control lcores
# on one net_memif port (rss = peer), tfo-loadgen with 2 generator lcores
# (--rss-peer 2) sending each flow on the queue pair the server's hash names.
# TFO, plain, cookie requests and bad cookies, byte-exact; both workers and
# both control lcores carry traffic, each control lcore on its own TX queue
# (nothing relayed, nothing dropped); accounting balanced at exit. The
# lcores share the machine's CPUs: a functional test, not a figure.
#   memif_scale.sh TFO_SERVER TFO_LOADGEN
set -u
SRV=$1
LG=$2
. "$(dirname "$0")/tap/lib.sh"
. "$(dirname "$0")/../scripts/usertools/memif-pair.sh"

MP_LG=$LG
mp_need
mp_init "mscale$$"
TMP=$MP_TMP
trap 'rc=$?; mp_cleanup $rc; exit $rc' EXIT
trap 'exit 130' INT TERM
ncpu=$(nproc)
cpu() { echo $(( $1 % ncpu )); }

# lcore ROLE COUNTER: a counter of one lcore (e.g. worker1, control1)
lcore() {
	echo /tfo/stats | timeout 10 dpdk-telemetry.py -f "$MP_TAG-srv" 2>/dev/null |
		/usr/bin/python3 -c '
import json, re, sys
d = json.load(sys.stdin)["/tfo/stats"]
print(sum(v.get(sys.argv[2], 0) for k, v in d.items()
          if isinstance(v, dict) and re.fullmatch(r"lcore\d+_" + sys.argv[1], k)))' "$1" "$2"
}

echo "# 1. without rss = peer, a second worker on net_memif is refused, naming the key"
# the refusal comes before the device waits for its peer
cat >"$TMP/refused.ini" <<EOI
[port net_memif9]
vdev = net_memif9,role=server,socket=$TMP/ref.sock,socket-abstract=no
ipv4 = 198.18.0.2/16
EOI
timeout 60 "$SRV" --lcores "0@$(cpu 0),1@$(cpu 1),2@$(cpu 0)" --no-huge -m 256 --no-pci --file-prefix "$MP_TAG-ref" \
	--log-level=lib.eal:error -- --config "$TMP/refused.ini" >"$TMP/refused.log" 2>&1
check "tfo-server exits non-zero" gt "$?" 0
check "the message names the device's missing RSS and rss = peer" \
	grep -q "cannot do RSS.*rss = peer" "$TMP/refused.log"

echo "# 2. 2 workers + 2 control lcores, rss = peer"
MP_SRV_LCORES="--lcores 0@$(cpu 0),1@$(cpu 1),2@$(cpu 0),3@$(cpu 1)" MP_PORT_INI="rss = peer" \
	mp_server_start "$SRV" "control_lcores = 2"
check "the port line says the peer spreads flows, 2 RX / 4 TX queues" \
	grep -q "2 rxq/4 txq, RSS by the peer" "$TMP/server.log"
check "control 1 has a TX queue of its own (no relay)" \
	grep -q "control 1 on lcore 1: TX queue 3" "$TMP/server.log"
MP_LG_LCORES="--lcores 0@$(cpu 0),1@$(cpu 0),2@$(cpu 1)"
export MP_LG_LCORES

mp_loadgen tfo --stats-period 0 --rss-peer 2 --server 198.18.0.2 --server-port 7 \
	--client 198.18.1.1 --clients 16 --client-ports 10000-10511 \
	--request-size 100 --expect-echo --count 3000
check "tfo: loadgen exit code 0, no error" eq "$MP_LGRC/$(mp_jget tfo errors)" 0/0
check "tfo: 3000 TFO transactions, byte-exact echo" eq "$(mp_jget tfo tfo)" 3000
check "tfo: no fallback, no retransmission" eq "$(mp_jget tfo fallbacks)/$(mp_jget tfo retransmissions)" 0/0
w0=$(lcore worker0 TCPFastOpenPassive)
w1=$(lcore worker1 TCPFastOpenPassive)
check "tfo: both workers opened TFO connections ($w0 + $w1)" gt $(( w0 < w1 ? w0 : w1 )) 0
check "tfo: the workers' opens add up to the loadgen's TFO" eq $(( w0 + w1 )) 3000

mp_loadgen mix --stats-period 0 --rss-peer 2 --server 198.18.0.2 --server-port 80 \
	--client 198.18.1.1 --clients 16 --client-ports 10000-10511 \
	--expect-prefix 'HTTP/1.1 200 OK\r\n' --count 2000 --no-tfo 40 --bad-cookie 15 --cookie-req 15
check "mix: loadgen exit code 0, no error" eq "$MP_LGRC/$(mp_jget mix errors)" 0/0
check "mix: 2000 completed" eq "$(mp_jget mix transactions)" 2000
check "mix: plain, bad cookies and cookie requests all there" \
	gt $(( $(mp_jget mix txn_plain) * $(mp_jget mix txn_bad_cookie) * $(mp_jget mix txn_cookie_req) )) 0
check "mix: every bad cookie fell back, nothing else" \
	eq "$(mp_jget mix fallbacks_bad_cookie)/$(mp_jget mix fallbacks)" "$(mp_jget mix txn_bad_cookie)/0"
mp_loadgen mix6 --stats-period 0 --rss-peer 2 --server fd00:7f0::2 --server-port 7 \
	--client fd00:7f0::1:1 --clients 16 --client-ports 10000-10511 \
	--request-size 300 --expect-echo --count 1000 --no-tfo 50
check "mix6: loadgen exit code 0, no error (IPv6)" eq "$MP_LGRC/$(mp_jget mix6 errors)" 0/0
check "mix6: 1000 completed" eq "$(mp_jget mix6 transactions)" 1000
for c in control control1; do
	check "$c: handled slow-path frames" gt "$(lcore $c ctrl_rx)" 100
	check "$c: sent on its own TX queue" gt "$(lcore $c tx_pkts)" 100
done
check "nothing relayed, nothing dropped on TX" \
	eq "$(lcore 'control\d*' ctrl_relayed)/$(lcore '(worker|control)\d*' tx_drop_full)" 0/0

echo "# 3. tfo-server stops cleanly, every frame accounted for"
mp_server_stop
check "tfo-server exit code 0" eq "$?" 0
check "accounting: ok" grep -q "^accounting: ok" "$TMP/server.log"
tfo_done
