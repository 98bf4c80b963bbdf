#!/bin/bash
# tfo-server's command line: --help tells the truth, bad configuration gives
# one clear error line naming the key and value and a non-zero exit before
# any lcore starts.
set -u
SERVER=$1
fails=0
checks=0
check() {
	local what=$1
	shift
	checks=$((checks + 1))
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
# run ARGS...: sets rc, out (stdout), err (stderr)
run() {
	local o e
	o=$(mktemp) e=$(mktemp)
	timeout 60 "$SERVER" "$@" >"$o" 2>"$e"
	rc=$?
	out=$(cat "$o") err=$(cat "$e")
	rm -f "$o" "$e"
}
one_line() { [ "$(printf '%s\n' "$err" | grep -c '^tfo-server:')" = 1 ]; }

run --help
check "--help exits 0" [ "$rc" = 0 ]
for opt in --config --set --stats-period --pending-limit --cookie-algo --key-file --no-tfo \
	   --max-conns --burst --idle-policy --idle-sleep-us --www --print-config --help-config \
	   --version; do
	check "--help documents $opt" grep -q -- "$opt" <<<"$out"
done
run --version
check "--version prints the version" grep -q "^tfo-server [0-9]" <<<"$out"
run --help-config
check "--help-config lists [tfo] pending_limit" grep -q "pending_limit" <<<"$out"
check "--help-config lists the services" grep -q "http:" <<<"$out"
run --print-config
check "--print-config prints the embedded default" grep -q "^ipv4 = 198.18.0.2/24" <<<"$out"

run -- --set tfo.pending_limit=lots
check "bad value: exit 1" [ "$rc" = 1 ]
check "bad value: one line naming key and value" \
	grep -q 'tfo-server: --set: \[tfo\] pending_limit = "lots": expected an integer' <<<"$err"
check "bad value: one line only" one_line
run -- --set tfo.pending_limt=3
check "unknown key: exit 1 and named" bash -c '[ '"$rc"' = 1 ] && grep -q "pending_limt.*unknown key" <<<"$0"' "$err"
run -- --set "port net_tap0.ipv4=198.18.0.300/24"
check "bad address: exit 1 and named" bash -c '[ '"$rc"' = 1 ] && grep -q "ipv4 = \"198.18.0.300/24\": not an IPv4" <<<"$0"' "$err"
run -- --cookie-algo md5
check "bad cookie algorithm: exit 1 and named" bash -c '[ '"$rc"' = 1 ] && grep -q "cookie_algo = \"md5\"" <<<"$0"' "$err"
run -- --frobnicate
check "unknown option: exit 1" bash -c '[ '"$rc"' = 1 ] && grep -q "frobnicate" <<<"$0"' "$err"
cfg=$(mktemp)
printf '[tfo]\npending_limit = 5\nbogus = 1\n' >"$cfg"
run -- --config "$cfg"
check "config file error names file:line, key and value" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "'"$cfg"':3: \[tfo\] bogus = \"1\": unknown key" <<<"$0"' "$err"
printf '[port net_null0]\nvdev = net_null0\nipv4 = 198.18.0.2/24\n[server]\nmbufs = 100\n' >"$cfg"
run -l 0-1 --no-huge -m 256 --no-shconf --no-pci --file-prefix tfocli$$ -- --config "$cfg"
check "pool too small: exit 1, names mbufs and the need" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "\[server\] mbufs = 100: too small.*need at least" <<<"$0"' "$err"
run -l 0 --no-huge -m 256 --no-shconf --no-pci --file-prefix tfocli$$ -- --config "$cfg" --set server.mbufs=0
check "one lcore: exit 1, says a worker is needed" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "need at least 2 lcores" <<<"$0"' "$err"
# The EAL's log lines reach stderr once, not syslog too (under systemd both
# are the journal: every line twice); --syslog still adds syslog. Seen as
# the process's use of /dev/log (a connect per line when no daemon
# listens, a send per line when one does; openlog's one connect aside).
if command -v strace >/dev/null; then
	syslog_uses() {
		local t
		t=$(mktemp)
		strace -f -qq -e trace=connect,sendto,sendmsg -o "$t" timeout 60 "$SERVER" "$@" \
			>/dev/null 2>&1
		grep -c 'connect(.*/dev/log\|sendto(.*"<[0-9]*>' "$t"
		rm -f "$t"
	}
	eal=(-l 0 --no-huge -m 256 --no-shconf --no-pci --file-prefix "tfocli$$")
	n=$(syslog_uses "${eal[@]}" -- --config "$cfg" --set server.mbufs=0)
	check "EAL log lines not copied to syslog ($n uses of /dev/log)" [ "$n" -le 1 ]
	n=$(syslog_uses "${eal[@]}" --syslog daemon -- --config "$cfg" --set server.mbufs=0)
	check "--syslog: the EAL's lines go to syslog too ($n uses of /dev/log)" [ "$n" -ge 2 ]
else
	# a skipped case: scripts/devtools/test-summary.py counts SKIP lines
	echo "SKIP the one-copy log check: strace is not installed"
fi
printf '[port net_null7]\nipv4 = 198.18.0.2/24\n' >"$cfg"
run -l 0-1 --no-huge -m 256 --no-shconf --no-pci --file-prefix tfocli$$ -- --config "$cfg"
check "missing device: exit 1, names the port" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "\[port net_null7\]: no such DPDK device" <<<"$0"' "$err"
check "no EAL runtime directory left behind by a refused start" [ ! -d "/var/run/dpdk/tfocli$$" ]

# Configuration input: what a start would refuse, --print-config refuses,
# with the range or the reason, before the EAL starts.
no_eal() { ! grep -q "EAL" <<<"$out$err"; }
run -- --set tcp.mss=1 --print-config
check "--print-config refuses mss = 1, with the range" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "mss = \"1\": expected 0 (from the MTU) or 536..9000" <<<"$0"' "$err"
for v in -1 0; do
	run -- --set "service echo.max_line=$v" --print-config
	check "--print-config refuses echo max_line = $v, with the range" \
		bash -c '[ '"$rc"' = 1 ] && grep -q "max_line = \"'"$v"'\": expected an integer in 1..65535" <<<"$0"' "$err"
done
run -- --set server.idle_sleep_us=0 --print-config
check "--print-config refuses idle_sleep_us without idle_policy sleep, says what to set" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "idle_sleep_us = 0 is the nap of idle_policy = sleep.*or busy" <<<"$0"' "$err"
run -- --idle-sleep-us 0 --print-config
check "--idle-sleep-us 0 is idle_policy busy (as it was: spin)" \
	bash -c '[ '"$rc"' = 0 ] && grep -q "^idle_policy = busy" <<<"$0"' "$out"
run -- --idle-sleep-us 50 --print-config
check "--idle-sleep-us 50 is idle_policy sleep, 50 us" \
	bash -c '[ '"$rc"' = 0 ] && grep -q "^idle_policy = sleep" <<<"$0" && grep -q "^idle_sleep_us = 50" <<<"$0"' "$out"
run -- --idle-policy spin --print-config
check "--idle-policy spin: exit 1, the values named" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "idle_policy = \"spin\": expected adaptive, busy or sleep" <<<"$0"' "$err"
# The lcores a start needs, from the EAL arguments (no EAL): refused with
# both numbers; the memory per socket and the hugepages it makes.
run -- --set server.control_lcores=16 --print-config
check "--print-config refuses control_lcores = 16 with -l 0-1, naming 17 and 2" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "control_lcores = 16 needs at least 17 lcores.*-l 0-1 gives 2" <<<"$0"' "$err"
check "the lcore refusal: one line" one_line
check "the lcore refusal: before the EAL" no_eal
run -l 0-2 -- --set server.control_lcores=2 --print-config
check "command-line EAL lcores count: control_lcores = 2 with -l 0-2 passes" [ "$rc" = 0 ]
run -- --print-config
check "--print-config prints the memory per socket" \
	grep -q "^;   socket 0: [0-9]* MiB = mbuf pool [0-9]* ([0-9]* mbufs) + connection tables" <<<"$out"
check "--print-config: --no-huge names the -m it needs" grep -q "^; --no-huge: -m [0-9]* at least" <<<"$out"
mem=$(sed -n 's/^; tfo-plan: hugepages-2M total=\([0-9]*\) node0=[0-9]* mib=\([0-9]*\)$/\1 \2/p' <<<"$out")
check "--print-config: the tfo-plan line, pages = MiB / 2 rounded up ($mem)" \
	bash -c 'set -- $0; [ -n "$1" ] && [ "$1" = $((($2 + 1) / 2)) ]' "$mem"
run -- --set tcp.max_conns=262144 --print-config
mem2=$(sed -n 's/^; tfo-plan: hugepages-2M total=\([0-9]*\) .*/\1/p' <<<"$out")
check "--print-config: more connections, more hugepages ($mem2 > ${mem%% *})" \
	[ "${mem2:-0}" -gt "${mem%% *}" ]
run -- --set tcp.max_conns=1048576 --print-config
check "--print-config: -m 512 below the need is said on stderr, still exit 0" \
	[ "$rc" = 0 ]
check "--print-config: -m 512 below the need is said on stderr" \
	grep -q "warning: -m 512 is below the [0-9]* MiB" <<<"$err"
run -- --set "service http.root=/nonexistent" --print-config
check "--print-config refuses a missing http root" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "\[service http\] root = /nonexistent: No such file" <<<"$0"' "$err"
key=$(mktemp)
echo "00000001-00000002-0000003" >"$key"
run -- --key-file "$key" --print-config
check "--print-config refuses a bad key file" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "key_file = .*: not in tcp_fastopen_key format" <<<"$0"' "$err"
printf '[port net_null0]\nvdev = net_null0\nipv4 = 198.18.0.2/24\n' >"$cfg"
run -l 0-1 --no-huge -m 256 --no-shconf --no-pci --file-prefix tfocli$$ -- --config "$cfg" --key-file "$key"
check "a bad key file: exit 1, before the EAL starts (no EAL line)" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "not in tcp_fastopen_key format" <<<"$0"' "$err"
check "a bad key file: one line only" one_line
check "a bad key file: no EAL output" no_eal
# Configuration without traps: each of these was accepted with no word.
# refused PATTERN: exit 1, stderr matches PATTERN
refused() { [ "$rc" = 1 ] && grep -q -- "$1" <<<"$err"; }
# refuses WHAT PATTERN ARGS...: --print-config with ARGS is refused so
refuses() {
	local what=$1 pat=$2
	shift 2
	run -- "$@" --print-config
	check "$what" refused "$pat"
}
# Integers are decimal (C's base detection read 010 as 8, 0x10 as 16).
refuses "idle_sleep_us = 010 refused: decimal, without leading zeros" \
	"idle_sleep_us = \"010\": expected an integer in 0..100000 (decimal, without leading zeros)" \
	--set server.idle_sleep_us=010
refuses "max_conns = 0x10 refused" \
	"max_conns = \"0x10\": expected an integer" \
	--set tcp.max_conns=0x10
# --set to a port the configuration lacks: a typo, not a second port.
refuses "--set to an unknown port refused, the known ones named" \
	"\[port eth0\] ipv4 = \"198.18.0.9/24\": the configuration has no \[port eth0\]; its ports: net_tap0 (a new one starts with its vdev" \
	--set "port eth0.ipv4=198.18.0.9/24"
run -- --set "port net_tap0 .ipv4=198.18.0.9/24" --print-config
check "--set \"port net_tap0 .ipv4\": the section trimmed, one port" \
	bash -c '[ '"$rc"' = 0 ] && [ "$(grep -c "^\[port " <<<"$0")" = 1 ] && grep -q "^ipv4 = 198.18.0.9/24" <<<"$0"' "$out"
run -- --set "port net_null1.vdev=net_null1" --set "port net_null1.ipv4=198.18.1.2/24" --print-config
check "--set of a new port's vdev adds it" \
	bash -c '[ '"$rc"' = 0 ] && grep -q "^\[port net_null1\]" <<<"$0"' "$out"
refuses "--set to an unknown service key still names the key" \
	"max_lin" \
	--set "service echo.max_lin=5"
printf '[port net_null0]\nvdev = net_null0\nipv4 = 198.18.0.2/24\n[service http]\nport = 80\nroot = /\n' >"$cfg"
refuses "--set to a service the file lacks refused, its services named" \
	"no \[service echo\]; its services: http" \
	--config "$cfg" --set "service echo.max_line=100"
# Our addresses are host addresses, each on one port.
for a in 0.0.0.0/0 198.18.0.0/24 224.0.0.1 127.0.0.1; do
	run -- --set "port net_tap0.ipv4=$a" --print-config
	check "ipv4 = $a refused" \
		refused "ipv4 = \"$a\": .*\(unspecified\|network address\|multicast\|loopback\)"
done
run -- --set "port net_tap0.ipv6=::/0" --print-config
check "ipv6 = ::/0 refused" refused "ipv6 = \"::/0\": the unspecified address"
printf '[port net_null0]\nvdev = net_null0\nipv4 = 198.18.0.2/24\n[port net_null1]\nvdev = net_null1\nipv4 = 198.18.0.2/24\n' >"$cfg"
refuses "one address on two ports refused, both named" \
	"\[port net_null1\] ipv4 = 198.18.0.2: already an address of \[port net_null0\]" \
	--config "$cfg"
refuses "mtu = 1000 on a port with IPv6 refused" \
	"\[port net_tap0\] mtu = 1000 with ipv6 = fd00:7f0::2: IPv6 needs an MTU of 1280" \
	--set "port net_tap0.mtu=1000"
refuses "max_request below the http head limit refused, both keys named" \
	"\[service http\] max_header = 8192 above \[tcp\] max_request = 2048" \
	--set tcp.max_request=2048
refuses "pending_per_source above pending_limit refused, both named" \
	"\[tfo\] pending_per_source = 512 above \[tfo\] pending_limit = 64" \
	--set tfo.pending_limit=64
run -- --pending-limit 64 --print-config
check "--pending-limit 64 lowers pending_per_source with it" \
	bash -c '[ '"$rc"' = 0 ] && grep -q "^pending_per_source = 64" <<<"$0"' "$out"
# One boolean grammar, enum values in any case.
run -- --set tfo.enabled=Off --set "port net_tap0.syn_steering=TRUE" \
	--set "port net_tap0.exception=1" --set "port net_tap0.offload=OFF" --print-config
check "booleans and enums in any spelling and case" \
	bash -c '[ '"$rc"' = 0 ] && grep -q "^enabled = no" <<<"$0" && grep -q "^syn_steering = on" <<<"$0" && grep -q "^exception = on" <<<"$0" && grep -q "^offload = off" <<<"$0"' "$out"
refuses "a bad boolean names the grammar" \
	"isolate = \"maybe\": expected yes or no (or on/off, true/false, 1/0; any case)" \
	--set "port net_tap0.isolate=maybe"
# Comments: ';' or '#' after white space; inside a word, part of the value.
printf '[port net_null0] # the port\nvdev = net_null0,x=a#b;c\nipv4 = 198.18.0.2/24 ; ours\nmtu = 9000 # jumbo\n' >"$cfg"
run -- --config "$cfg" --print-config
check "comments after white space with ; and #, not inside a word" \
	bash -c '[ '"$rc"' = 0 ] && grep -q "^mtu = 9000$" <<<"$0" && grep -q "^vdev = net_null0,x=a#b;c$" <<<"$0"' "$out"
printf '[port net_null0]\nvdev = net_null0\nipv4 = 198.18.0.2/24\nmtu = 9000;jumbo\n' >"$cfg"
refuses "a ';' inside a value is not a comment: the value is refused whole" \
	"mtu = \"9000;jumbo\"" \
	--config "$cfg"
# mbufs no start can use: refused by the configuration check, before the EAL.
refuses "--print-config refuses mbufs = 1, names the key and the least" \
	"\[server\] mbufs = 1: too small for any start.*need at least [0-9]" \
	--set server.mbufs=1
check "mbufs = 1: before the EAL" no_eal
fifo=$(mktemp -u)
mkfifo "$fifo"
start=$SECONDS
o=$(timeout 10 "$SERVER" -- --config "$fifo" 2>&1)
rc=$?
check "a FIFO config (no writer) is refused at once" \
	bash -c '[ '"$rc"' = 1 ] && [ $(('"$SECONDS - $start"')) -lt 5 ] && grep -q "a FIFO, not a regular file" <<<"$0"' "$o"
o=$(timeout 10 "$SERVER" -- --key-file "$fifo" --print-config 2>&1)
rc=$?
check "a FIFO key file is refused at once" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "key_file = .*: a FIFO, not a regular file" <<<"$0"' "$o"
rm -f "$fifo"
printf '\xef\xbb\xbf[port net_null0]\nvdev = net_null0\nipv4 = 198.18.0.2/24\n' >"$cfg"
printf '\xef\xbb\xbf00000001-00000002-00000003-00000004\n' >"$key"
run -- --config "$cfg" --key-file "$key" --print-config
check "a config file and a key file with a UTF-8 BOM are accepted" \
	bash -c '[ '"$rc"' = 0 ] && grep -q "^\[port net_null0\]" <<<"$0"' "$out"

# A clean exit (SIGINT, rc 0) removes the EAL runtime directory.
prefix=tfocli$$run
log=$(mktemp)
"$SERVER" -l 0-1 --no-huge -m 256 --no-shconf --no-pci --file-prefix $prefix -- \
	--config "$cfg" >"$log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "running" "$log" && break; sleep 0.2; done
check "net_null server runs, with its runtime directory" [ -d /var/run/dpdk/$prefix ]
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: exit 0" [ "$rc" = 0 ]
check "no EAL runtime directory left after a clean exit" [ ! -d /var/run/dpdk/$prefix ]
rmdir /var/run/dpdk/$prefix 2>/dev/null

# What the EAL reports badly, refused before it runs: one line naming the
# fix, exit 1, no run directory (server/eal_check.c).
gone() { [ ! -e "/var/run/dpdk/$1" ] && [ ! -e "/tmp/dpdk/$1" ]; }
chmod 644 "$cfg"
if command -v setpriv >/dev/null; then
	o=$(timeout 60 setpriv --reuid=nobody --regid=nogroup --clear-groups "$SERVER" \
		-l 0-1 --no-huge -m 256 --no-shconf --no-pci --file-prefix tfoerrcli$$ -- 2>&1)
	rc=$?
	check "not root, a net_tap port: exit 1" [ "$rc" = 1 ]
	check "not root: one line naming CAP_NET_ADMIN, no EAL line" \
		bash -c '[ "$(grep -c "^tfo-server:" <<<"$0")" = 1 ] && grep -q "^tfo-server: not root and no CAP_NET_ADMIN: .*run as root" <<<"$0" && ! grep -q EAL <<<"$0"' "$o"
	check "not root: nothing left behind" gone tfoerrcli$$
else
	echo "SKIP the not-root case: setpriv is not installed"
fi
if [ "$(cat /proc/sys/vm/nr_hugepages)" = 0 ]; then
	run -l 0-1 -m 256 --no-pci --file-prefix tfoerrcli$$ -- --config "$cfg"
	check "no hugepages: exit 1, names the pages and --no-huge" \
		bash -c '[ '"$rc"' = 1 ] && grep -q "^tfo-server: no \(hugetlbfs mounted\|free hugepages\): reserve [1-9][0-9]* (setup-host.sh --pages [1-9][0-9]*) or --no-huge$" <<<"$0"' "$err"
	check "no hugepages: one line" one_line
	check "no hugepages: nothing left behind" gone tfoerrcli$$
else
	echo "SKIP the no-hugepages case: vm.nr_hugepages is $(cat /proc/sys/vm/nr_hugepages), not 0"
fi
# The same --file-prefix as a live server with a shared config: its PID.
log=$(mktemp)
"$SERVER" -l 0-1 --no-huge -m 256 --no-pci --file-prefix tfoerrcli$$ -- \
	--config "$cfg" >"$log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "running" "$log" && break; sleep 0.2; done
run -l 0-1 --no-huge -m 256 --no-pci --file-prefix tfoerrcli$$ -- --config "$cfg"
check "--file-prefix in use: exit 1, names the holder's PID" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "^tfo-server: --file-prefix tfoerrcli'"$$"' is in use by process '"$pid"' .*another --file-prefix$" <<<"$0"' "$err"
check "--file-prefix in use: one line, no EAL line" bash -c 'one() { [ "$(grep -c "^tfo-server:" <<<"$0")" = 1 ]; }; one && ! grep -q EAL <<<"$0"' "$err"
kill -INT $pid
wait $pid
check "--file-prefix in use: the first server still exits 0" [ "$?" = 0 ]
# a shared config's files (DPDK's, for secondaries) go with a clean exit
check "a clean exit with a shared config: no runtime directory left" gone tfoerrcli$$
rm -rf "/var/run/dpdk/tfoerrcli$$"
rm -f "$log"

# net_tap on a kernel without sch_multiq: one line of ours, not the PMD's
# four ERR lines (apps/common/app.c's log filter). Root and a netns only.
if [ "$(id -u)" = 0 ] && [ -c /dev/net/tun ] && ip netns add "tfoerrcli$$" 2>/dev/null; then
	log=$(mktemp)
	ip netns exec "tfoerrcli$$" "$SERVER" -l 0-1 --no-huge -m 256 --no-shconf --no-pci \
		--file-prefix "tfoerrcli$$" -- >"$log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do grep -q "running" "$log" && break; sleep 0.2; done
	# a second start on the same tap: one line naming the first's PID,
	# exit 1, nothing left behind (src/net/dev_owner.c)
	o=$(timeout 60 ip netns exec "tfoerrcli$$" "$SERVER" -l 0-1 --no-huge -m 256 \
		--no-shconf --no-pci --file-prefix "tfoerrcli$$"b -- 2>&1)
	rc=$?
	check "a second start on the same tap: exit 1" [ "$rc" = 1 ]
	check "a second start: one line naming the tap and the first's PID, no EAL line" \
		bash -c '[ "$(wc -l <<<"$0")" = 1 ] && grep -q "^tfo-server: config: \[port net_tap0\] tap tfo0 is held by process '"$pid"' .*Stop process '"$pid"' first, or give this one another iface=$" <<<"$0" && ! grep -q EAL <<<"$0"' "$o"
	check "a second start: nothing left behind" gone "tfoerrcli$$"b
	check "a second start: the first still runs" kill -0 $pid
	kill -INT $pid
	wait $pid
	check "net_tap start: no qdisc noise from the PMD" \
		bash -c '! grep -q "qdisc kind is unknown\|multiq qdisc (\|Disabling rte flow" "$0"' "$log"
	if grep -q "no multiq qdisc" "$log"; then
		check "net_tap start: the multiq lines folded into one" \
			[ "$(grep -c "^tfo: net_tap: this kernel has no multiq qdisc: rte_flow on the tap is off; packet I/O is fine$" "$log")" = 1 ]
	else
		echo "SKIP the multiq fold check: this kernel has the multiq qdisc"
	fi
	ip netns del "tfoerrcli$$"
	rm -f "$log"
else
	echo "SKIP the net_tap log check: needs root, /dev/net/tun and a netns"
fi

# tfo-prom on a port in use: one line naming the port and the cause, no
# Python traceback, non-zero exit.
prom=$(dirname "$0")/../scripts/usertools/tfo-prom
if [ -x /usr/bin/python3 ]; then
	exec {hold}< <(exec /usr/bin/python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
print(s.getsockname()[1], flush=True)
time.sleep(30)
')
	holder=$!
	read -r -t 10 port <&$hold
	o=$(timeout 20 "$prom" --listen "$port" 2>&1)
	rc=$?
	check "tfo-prom on a busy port: exit 1" [ "$rc" = 1 ]
	check "tfo-prom on a busy port: one line, the port and the cause" \
		bash -c '[ "$(wc -l <<<"$0")" = 1 ] && grep -q "^tfo-prom: cannot listen on :'"$port"': Address already in use (another tfo-prom? --listen)$" <<<"$0"' "$o"
	exec {hold}<&-
	kill "$holder" 2>/dev/null
fi
rm -f "$cfg" "$key" "$log"
echo "checks: $checks, failed: $fails"
[ "$fails" = 0 ]
