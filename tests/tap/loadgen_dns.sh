#!/bin/bash
# tfo-loadgen --dns-query against Knot DNS (knotd, Debian's knot) through
# net_tap, in a private network namespace (net.ipv4.tcp_fastopen=3 there):
# the mode the benchmark's DNS rows use (scripts/devtools/bench.sh, phase
# dns). Every answer is checked by the loadgen (length, ID, QR, opcode, TC,
# the question, RCODE, an answer record); each case asserts the counts of
# its JSON and, for TFO, the kernel's TCPFastOpenPassive. Two cases expect
# the check to fail (exit code 1 with the right err_dns_* counter), so a
# check that accepts anything fails here.
#   loadgen_dns.sh TFO_LOADGEN ZONE_FILE
set -u
LG=$1
ZONE=$2
if [ "$(id -u)" = 0 ] && ! command -v knotd >/dev/null 2>&1; then
	echo "SKIP: knotd is not installed (Debian package knot; scripts/setup.sh installs it)"
	exit 77
fi
# shellcheck source=tests/tap/loadgen_lib.sh
. "$(dirname "$0")/loadgen_lib.sh"
lgt_setup lgd ss

# knotd on every address of the namespace (the tap appears with the
# loadgen), port 53; server-side TFO is the kernel's (knotd sets
# TCP_FASTOPEN on its listeners; its own tcp-fastopen is the client side)
mkdir -p "$TMP/db"
cp "$ZONE" "$TMP/example.org.zone"
cat >"$TMP/knot.conf" <<EOF
server:
    rundir: "$TMP"
    listen: 0.0.0.0@53
    tcp-fastopen: on
    tcp-workers: 1
    udp-workers: 1
    background-workers: 1
database:
    storage: "$TMP/db"
log:
  - target: stderr
    any: warning
zone:
  - domain: example.org
    storage: "$TMP"
    file: "example.org.zone"
EOF
ip netns exec "$NS" knotd -c "$TMP/knot.conf" >"$TMP/knotd.log" 2>&1 &
KPIDS+=($!)
for _ in $(seq 1 50); do
	ns ss -ltn 2>/dev/null | grep -q ':53 ' && break
	sleep 0.1
done
ns ss -ltn | grep -q ':53 ' || { echo "FAIL: knotd did not listen on TCP 53"; exit 1; }

# every case: knotd's address, 16 clients; 8 connections in flight at most:
# knotd listens with a backlog of 10, and a SYN it drops when its accept
# queue is full (a loaded CI machine) would be an error of this test
SRV=(--server 198.18.0.1 --server-port 53 --client 198.18.0.100 --clients 16
	--concurrency 8 --retries 6)

echo "# 1. 2000 A queries, TFO (the query in the SYN), every answer checked"
P0=$(kstat TcpExtTCPFastOpenPassive)
lg tfo "${SRV[@]}" --dns-query www.example.org/A --count 2000
DP=$(($(kstat TcpExtTCPFastOpenPassive) - P0))
check "tfo: exit code 0" eq "$LGRC" 0
check "tfo: no error" eq "$(jget tfo errors)" 0
check "tfo: 2000 transactions" eq "$(jget tfo transactions)" 2000
# knotd's listener may take fewer TFO SYNs at a time than are in flight
# (its pending-TFO queue is short): the others fall back to a handshake
check "tfo: most of them TFO" gt "$(jget tfo tfo)" 1000
check "tfo: every answer validated (the warm-up's too)" eq "$(jget tfo responses_validated)" \
	$(($(jget tfo transactions) + $(jget tfo warmup_completed)))
# (the kernel counts a TFO SYN whose SYN-ACK the loadgen then missed as
# well: at least as many)
check "kernel: TCPFastOpenPassive >= loadgen's TFO" ge "$DP" "$(jget tfo tfo)"

echo "# 2. 1000 AAAA queries without TFO, mixed case (echoed in the answer)"
lg plain "${SRV[@]}" --dns-query wWw.ExAmple.org/AAAA --count 1000 --no-tfo 100
check "plain: exit code 0" eq "$LGRC" 0
check "plain: no error" eq "$(jget plain errors)" 0
check "plain: 1000 transactions, none TFO" eq "$(jget plain txn_plain)/$(jget plain transactions)" 1000/1000

echo "# 3. NXDOMAIN expected (--dns-rcode NXDOMAIN)"
lg nx "${SRV[@]}" --dns-query nope.example.org/A --dns-rcode NXDOMAIN --count 200 --warmup-timeout 0
check "nxdomain: exit code 0" eq "$LGRC" 0
check "nxdomain: 200 transactions, no error" eq "$(jget nx transactions)/$(jget nx errors)" 200/0

echo "# 4. The checks fail when they must: exit code 1"
lg wrong_rcode "${SRV[@]}" --dns-query nope.example.org/A --count 20 --warmup-timeout 0
check "wrong RCODE: exit code 1" eq "$LGRC" 1
check "wrong RCODE: err_dns_rcode counted" gt "$(jget wrong_rcode err_dns_rcode)" 0
# NODATA: NOERROR without an answer record (mail has no AAAA)
lg nodata "${SRV[@]}" --dns-query mail.example.org/AAAA --count 20 --warmup-timeout 0
check "NODATA: exit code 1" eq "$LGRC" 1
check "NODATA: err_dns_no_answer counted" gt "$(jget nodata err_dns_no_answer)" 0

echo "checks: $CHECKS, failed: $FAILS"
[ "$CHECKS" -gt 0 ] && [ "$FAILS" = 0 ]
