#!/bin/bash
# tfo-loadgen against the Linux kernel's own TFO server, through net_tap:
# "the same tool can drive any TFO server". Everything runs in a private
# network namespace (tcp_fastopen=3 there; its nstat counters start at 0);
# tfo-loadgen creates the tap lg0 in it. Each case asserts zero errors and
# the same counts on both sides: the loadgen's JSON and the kernel's nstat.
#   loadgen_kernel.sh TFO_LOADGEN KERNEL_TFO_SERVER (bench/kernel_tfo_server.c)
set -u
LG=$1
KS=$2
# shellcheck source=tests/tap/loadgen_lib.sh
. "$(dirname "$0")/loadgen_lib.sh"
lgt_setup lgk

# kserver PORT ARGS...: a kernel TFO server in the namespace
kserver() {
	local port=$1
	shift
	# ip netns exec execs the server: $! is the server's pid
	ip netns exec "$NS" "$KS" -p "$port" "$@" >"$TMP/kserver$port.log" 2>&1 &
	KPIDS+=($!)
	for _ in $(seq 1 50); do
		grep -q listening "$TMP/kserver$port.log" && return 0
		sleep 0.1
	done
	echo "FAIL: kernel_tfo_server on port $port did not start"
	exit 1
}
# -6: IPv4 and IPv6 on one listener; -t 1: one listener, so -q is the
# whole pending-TFO limit (case 4)
kserver 7 -6 -t 1 -m echo -q 1024
kserver 80 -6 -t 1 -m http -n 100 -q 1024
kserver 9 -6 -t 1 -m echo -q 4


# before/after deltas of the kernel's TFO counters
snap() {
	P0=$(kstat TcpExtTCPFastOpenPassive)
	F0=$(kstat TcpExtTCPFastOpenPassiveFail)
	C0=$(kstat TcpExtTCPFastOpenCookieReqd)
	O0=$(kstat TcpExtTCPFastOpenListenOverflow)
}
delta() {
	DP=$(($(kstat TcpExtTCPFastOpenPassive) - P0))
	DF=$(($(kstat TcpExtTCPFastOpenPassiveFail) - F0))
	DC=$(($(kstat TcpExtTCPFastOpenCookieReqd) - C0))
	DO=$(($(kstat TcpExtTCPFastOpenListenOverflow) - O0))
}

echo "# 1. IPv4 echo: 3000 TFO transactions, 16 client addresses"
snap
lg v4echo --server 198.18.0.1 --server-port 7 --client 198.18.0.100 --clients 16 \
	--request-size 100 --expect-echo --count 3000
delta
check "v4 echo: exit code 0" eq "$LGRC" 0
check "v4 echo: no error" eq "$(jget v4echo errors)" 0
check "v4 echo: 3000 transactions" eq "$(jget v4echo transactions)" 3000
check "v4 echo: all 3000 TFO (SYN data acked)" eq "$(jget v4echo tfo)" 3000
check "v4 echo: 3016 responses validated (16 warm-up)" eq "$(jget v4echo responses_validated)" 3016
check "v4 echo: no fallback" eq "$(jget v4echo fallbacks)" 0
check "v4 echo: 16 cookies learned" eq "$(jget v4echo cookies_learned)" 16
check "kernel: TCPFastOpenPassive +3000" eq "$DP" 3000
check "kernel: TCPFastOpenCookieReqd +16" eq "$DC" 16
check "kernel: TCPFastOpenPassiveFail +0" eq "$DF" 0

echo "# 2. IPv4 HTTP-like, mix: 10% bad cookies, 10% without TFO"
snap
lg v4mix --server 198.18.0.1 --server-port 80 --client 198.18.0.100 --clients 16 \
	--expect-prefix 'HTTP/1.1 200 OK\r\n' --expect-len 100 --count 2000 \
	--bad-cookie 10 --no-tfo 10
delta
check "mix: exit code 0" eq "$LGRC" 0
check "mix: no error" eq "$(jget v4mix errors)" 0
check "mix: 2000 transactions" eq "$(jget v4mix transactions)" 2000
check "mix: some bad cookies sent" gt "$(jget v4mix txn_bad_cookie)" 0
check "mix: some plain connections" gt "$(jget v4mix txn_plain)" 0
check "mix: every bad cookie fell back" eq "$(jget v4mix fallbacks_bad_cookie)" "$(jget v4mix txn_bad_cookie)"
check "mix: no other fallback" eq "$(jget v4mix fallbacks)" 0
check "kernel: TCPFastOpenPassive == loadgen's TFO" eq "$DP" "$(jget v4mix tfo)"
check "kernel: TCPFastOpenPassiveFail == loadgen's bad-cookie fallbacks" eq "$DF" "$(jget v4mix fallbacks_bad_cookie)"
check "mix: TFO + bad + plain == 2000" eq $(( $(jget v4mix tfo) + $(jget v4mix txn_bad_cookie) + $(jget v4mix txn_plain) )) 2000

echo "# 3. IPv6 echo, 3000-byte requests (more than the SYN's 1400-byte budget)"
snap
lg v6big --server fd00:7f0::1 --server-port 7 --client fd00:7f0::100 --clients 8 \
	--request-size 3000 --expect-echo --count 1000
delta
check "v6: exit code 0" eq "$LGRC" 0
check "v6: no error" eq "$(jget v6big errors)" 0
check "v6: 1000 transactions, all TFO" eq "$(jget v6big tfo)/$(jget v6big transactions)" 1000/1000
check "v6: 3 MB of responses checked" eq "$(jget v6big response_bytes)" $((1008 * 3000))
check "v6: ND answered for the clients" gt "$(jget v6big nd_na_tx)" 0
check "kernel: TCPFastOpenPassive +1000" eq "$DP" 1000

echo "# 4. SYN flood (5%) against a pending-TFO limit of 4"
snap
lg flood --server 198.18.0.1 --server-port 9 --client 198.18.0.100 --clients 16 \
	--request-size 64 --expect-echo --count 2000 --syn-flood 5
delta
check "flood: exit code 0" eq "$LGRC" 0
check "flood: no error" eq "$(jget flood errors)" 0
check "flood: flood SYNs sent" gt "$(jget flood flood_syn_tx)" 0
check "flood: fallbacks seen" gt "$(jget flood fallbacks)" 0
check "kernel: TCPFastOpenListenOverflow >= loadgen's fallbacks" ge "$DO" "$(jget flood fallbacks)"
check "kernel: TCPFastOpenPassive >= loadgen's TFO" ge "$DP" "$(jget flood tfo)"
check "flood: every transaction completed" eq "$(jget flood transactions)" \
	$(( $(jget flood tfo) + $(jget flood fallbacks) ))

echo "# 5. A response mismatch is an error: exit code 1"
lg wrong --server 198.18.0.1 --server-port 7 --client 198.18.0.100 --clients 4 \
	--request-size 20 --expect-prefix 'nope' --count 20 --warmup-timeout 0
check "mismatch: exit code 1" eq "$LGRC" 1
check "mismatch: counted" gt "$(jget wrong err_response_mismatch)" 0
check "mismatch: summary names the error" grep -q "err_response_mismatch.*<- error" "$TMP/wrong.log"

echo "checks: $CHECKS, failed: $FAILS"
[ "$CHECKS" -gt 0 ] && [ "$FAILS" = 0 ]
