# shellcheck shell=bash
# scripts/devtools/bench.sh's phases dns and nginx (bash; sourced by
# bench.sh after its phase 3, with its helpers: want, quiet, say, die,
# child, srv_start, srv_stop, tel_all, kns_up, kns_down): tfo-server
# side by side with the servers users run today (issue 26 section 5),
# every answer checked by one load generator, tfo-loadgen, for both sides.
#  dns:   DNS over TCP, one query per connection (www.example.org/A of
#         bench/dns/example.org.zone), TFO (the query in the SYN) and plain
#         (--no-tfo 100): tfo-server's [service dns] when the binary has it
#         (else one "not built" row), Knot DNS (knotd) and NSD;
#  nginx: an HTTP GET of the same 512-byte file, Connection: close, TFO and
#         plain: tfo-server's http service against nginx (nginx-light,
#         `listen 80 fastopen=4096 reuseport`).
# The kernel's servers run in the namespace of phase 3 (net.ipv4.tcp_fastopen
# = 3; NSD's Debian build has no TCP_FASTOPEN of its own, so its TFO rows
# add 0x400, TFO on every listener without the socket option), one worker
# each on BENCH_DUT_CPU; tfo-loadgen reaches them through net_tap, on
# BENCH_GEN_CPU. tfo-server is phase 2's (both lcores on the DUT CPU, over
# net_memif). Per server core: tfo-server's transactions per busy second
# (busy_tsc of every lcore, /tfo/stats before and after); a kernel
# server's transactions per second of its processes' CPU time (utime +
# /proc/PID/task/*/schedstat) -- which leaves out the kernel's receive work done
# on the generator's CPU (net_tap's writes), so it flatters the kernel --
# and the DUT CPU's busy share beside it. Medians of REPS x SECS; errors
# and a missing service are figures of the report, never a failure.

SV_ZONE=$ROOT/bench/dns/example.org.zone
SV_QUERY=www.example.org/A
SV_FILE_BYTES=512
SV_TAP_ADDR=198.18.0.1
SV_DIR=$RAW/servers
# both sides' client TCP: a SYN a listener dropped (knotd listens with a
# backlog of 10) is sent again after 200 ms, not Linux's 1 s, so that a
# drop costs the row less time than it costs the server nothing
SV_LG_TCP=(--rto-ms 200)
# BENCH_SERVERS_SRV: the tfo-server binary of these rows (default the
# build's), e.g. a branch's build with a service this one lacks
SV_SRV=${BENCH_SERVERS_SRV:-$SRV}
mkdir -p "$SV_DIR"

# sv_dut_ticks: DB, DT = busy and total clock ticks of the DUT CPU so far
# (bash builtins only: it runs during the measured runs)
sv_dut_ticks() {
	local line cols

	DB=0 DT=0
	while read -r line; do
		case $line in "cpu$DUT "*) ;; *) continue ;; esac
		read -r -a cols <<<"$line"
		DB=$((cols[1] + cols[2] + cols[3] + cols[6] + cols[7] + cols[8]))
		DT=$((DB + cols[4] + cols[5]))
		return
	done </proc/stat
}

# sv_run_ns PID...: RUN_NS = the CPU time (ns) every thread of the
# processes ran so far: the scheduler's own sum (/proc/PID/task/*/schedstat),
# exact where /proc/PID/stat's utime + stime are ticks sampled -- a server
# that answers in short bursts between the ticks shows 0 there
sv_run_ns() {
	local p t ns

	RUN_NS=0
	for p in "$@"; do
		for t in /proc/"$p"/task/*/schedstat; do
			read -r ns _ <"$t" 2>/dev/null || continue
			RUN_NS=$((RUN_NS + ns))
		done
	done
}

# sv_window NAME PID PIDS...: the CPU of PIDS (the server) and of the DUT
# CPU over the run of tfo-loadgen PID (from 0.5 s in to 0.3 s before its
# end, as bench.sh's lg), into NAME.cpu; waits for PID, its exit code in SV_RC
sv_window() {
	local name=$1 pid=$2 t0 db0 dt0 gen
	shift 2

	sleep 0.5
	child "$pid"
	gen=$CHILD
	sv_run_ns "$@"
	t0=${EPOCHREALTIME/./} k0=$RUN_NS
	sv_dut_ticks
	db0=$DB dt0=$DT
	sleep $((SECS - 1)).7
	sv_run_ns "$@"
	sv_dut_ticks
	echo "window_us $((${EPOCHREALTIME/./} - t0)) server_ns $((RUN_NS - k0))" \
		"dut_busy $((DB - db0)) dut_total $((DT - dt0)) clk_tck $(getconf CLK_TCK)" \
		"gen_pid ${gen:-0}" >"$SV_DIR/$name.cpu"
	wait "$pid"
	SV_RC=$?
}

# sv_lg_tap NAME PIDS -- ARGS...: one tfo-loadgen run against a kernel
# server in the namespace (net_tap lg0, the server's address on it: a /16,
# which holds the 256 clients from 198.18.0.100),
# REPS x SECS at most; PIDS: the server's processes
sv_lg_tap() {
	local name=$1 pids=() lp
	shift
	while [ "$1" != -- ]; do
		pids+=("$1")
		shift
	done
	shift
	ip netns exec "$NS" timeout $((SECS + 60)) "$LG" --lcores="0@$GEN,1@$GEN" \
		--file-prefix "$TAG-svlg" --no-huge -m 512 --no-shconf --no-pci \
		--log-level=lib.eal:error --vdev net_tap0,iface=lg0 -- \
		--server "$SV_TAP_ADDR" --client 198.18.0.100 --clients 256 --concurrency 128 \
		--stats-period 0 --duration "$SECS" --resolve-timeout 10 --warmup-timeout 10 \
		--timeout-ms 5000 "${SV_LG_TCP[@]}" --json "$SV_DIR/$name.json" "$@" \
		>"$SV_DIR/$name.log" 2>&1 &
	lp=$!
	for _ in $(seq 1 100); do
		ip netns exec "$NS" ip link show lg0 >/dev/null 2>&1 && break
		sleep 0.05
	done
	ip netns exec "$NS" ip addr add "$SV_TAP_ADDR/16" dev lg0
	ip netns exec "$NS" ip link set lg0 up
	sv_window "$name" "$lp" "${pids[@]}"
	sv_check "$name"
}

# sv_check NAME: exit codes 0 and 1 (errors: a figure) go on, others are
# recorded as a failed row
sv_check() {
	if [ "$SV_RC" != 0 ] && [ "$SV_RC" != 1 ]; then
		say "tfo-loadgen $1: exit code $SV_RC (the row says so)"
		tail -n 5 "$SV_DIR/$1.log" >&2
	fi
	echo "rc $SV_RC" >>"$SV_DIR/$1.cpu"
}

# sv_lg_memif NAME ARGS...: one tfo-loadgen run against tfo-server over
# net_memif (phase 2's layout), every lcore's counters before and after
sv_lg_memif() {
	local name=$1 lp
	shift
	tel_all "$SV_DIR/$name.tel_a"
	timeout $((SECS + 60)) "$LG" --lcores="0@$GEN,1@$GEN" --file-prefix "$TAG-lg" -m 512 \
		"${EAL_COMMON[@]}" --vdev "net_memif0,role=client,socket=$SOCK" -- \
		--server 198.18.0.2 --client 198.18.1.1 --clients 256 --concurrency 128 \
		--stats-period 0 --duration "$SECS" --timeout-ms 5000 "${SV_LG_TCP[@]}" \
		--json "$SV_DIR/$name.json" "$@" >"$SV_DIR/$name.log" 2>&1 &
	lp=$!
	sv_window "$name" "$lp" "$SRV_PID"
	sv_check "$name"
	tel_all "$SV_DIR/$name.tel_b"
}

# the zone's and the document root's copies, the servers' configurations
sv_prepare() {
	mkdir -p "$SV_DIR/www" "$SV_DIR/knot-db" "$SV_DIR/nsd"
	cp "$SV_ZONE" "$SV_DIR/example.org.zone"
	head -c "$SV_FILE_BYTES" /dev/zero | tr '\0' x >"$SV_DIR/www/f.html"
	cat >"$SV_DIR/knot.conf" <<EOF
server:
    rundir: "$SV_DIR"
    listen: 0.0.0.0@53
    # client side only (outgoing transfers); a listener's TFO is the
    # kernel's: knotd sets TCP_FASTOPEN on its TCP sockets itself
    tcp-fastopen: on
    tcp-workers: 1
    udp-workers: 1
    background-workers: 1
database:
    storage: "$SV_DIR/knot-db"
log:
  - target: stderr
    any: warning
zone:
  - domain: example.org
    storage: "$SV_DIR"
    file: "example.org.zone"
EOF
	cat >"$SV_DIR/nsd.conf" <<EOF
server:
    server-count: 1
    ip-address: 0.0.0.0@53
    username: ""
    chroot: ""
    zonesdir: "$SV_DIR"
    pidfile: "$SV_DIR/nsd/nsd.pid"
    database: ""
    zonelistfile: "$SV_DIR/nsd/zone.list"
    xfrdfile: "$SV_DIR/nsd/xfrd.state"
    xfrdir: "$SV_DIR/nsd"
    tcp-count: 1024
    verbosity: 0
remote-control:
    control-enable: no
zone:
    name: example.org
    zonefile: example.org.zone
EOF
	cat >"$SV_DIR/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $SV_DIR/nginx.pid;
error_log stderr warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $SV_DIR/nginx-tmp;
    default_type text/html;
    sendfile on;
    server {
        listen 80 fastopen=4096 reuseport backlog=4096;
        root $SV_DIR/www;
    }
}
EOF
}

# sv_kernel NAME READY_PORT CMD...: a kernel server in the namespace on the
# DUT CPU; SV_PIDS: its processes once it listens
sv_kernel() {
	local name=$1 port=$2 pid
	shift 2

	ip netns exec "$NS" taskset -c "$DUT" "$@" >"$SV_DIR/$name.server.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	SV_PIDS=()
	for _ in $(seq 1 100); do
		ip netns exec "$NS" ss -ltn 2>/dev/null | grep -q ":$port " && break
		kill -0 "$pid" 2>/dev/null || break	# it gave up (its log says why)
		sleep 0.1
	done
	if ! ip netns exec "$NS" ss -ltn | grep -q ":$port "; then
		say "$name did not listen on TCP $port (the row says so)"
		tail -n 5 "$SV_DIR/$name.server.log" >&2
		stop "$pid"
		return 1
	fi
	sleep 0.5	# NSD forks its server and xfrd
	SV_MAIN=$pid
	sv_pids
	echo "$name ${SV_PIDS[*]}" >>"$SV_DIR/pids.txt"
}

# sv_pids: SV_PIDS = the server's processes, every one in the namespace
# (between runs nothing else runs there); read before each run, as NSD
# replaces its server process when it (re)loads the zone
sv_pids() {
	read -r -a SV_PIDS <<<"$(ip netns pids "$NS" | tr '\n' ' ')"
}

# sv_kernel_rows ROW PORT LOADGEN-ARGS...: REPS x (TFO, plain) runs of
# one kernel server started by sv_kernel
sv_kernel_rows() {
	local row=$1 port=$2 r
	shift 2

	for r in $(seq 1 "$REPS"); do
		sv_pids
		sv_lg_tap "${row}_tfo_$r" "${SV_PIDS[@]}" -- --server-port "$port" "$@"
		sv_pids
		sv_lg_tap "${row}_plain_$r" "${SV_PIDS[@]}" -- --server-port "$port" --no-tfo 100 "$@"
	done
	sv_kernel_stop
}

# sv_kernel_stop: SIGTERM to the server's processes (NSD's main, server and
# xfrd alike: the one started may be any of them), then reap the one started
sv_kernel_stop() {
	local p

	for p in "${SV_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for _ in $(seq 1 50); do
		[ -z "$(ip netns pids "$NS" 2>/dev/null)" ] && break
		sleep 0.1
	done
	stop "$SV_MAIN"
}

# sv_has_service NAME: whether this tfo-server has the service (its help
# lists the services)
sv_has_service() {
	{ "$SRV" --help; "$SRV" --help-config; } 2>/dev/null | grep -qE "^ +$1:"
}

# sv_tfo_server_rows ROW SERVICE PORT LOADGEN-ARGS...: tfo-server with the
# service, REPS x (TFO, plain)
sv_tfo_server_rows() {
	local row=$1 svc=$2 port=$3 r
	shift 3

	local SRV=$SV_SRV	# srv_start's binary (bash: dynamic scope)

	if ! sv_has_service "$svc"; then
		say "tfo-server has no $svc service (not built): its row says so"
		echo "$row not_built $svc" >>"$SV_DIR/missing.txt"
		return 0
	fi
	case $svc in
	dns) printf '[service dns]\nport = %s\nzone = example.org:%s\n' "$port" \
		"$SV_DIR/example.org.zone" ;;
	http) printf '[service http]\nport = %s\nroot = %s\nmax_header = 1024\nmax_uri = 512\n' "$port" "$SV_DIR/www" ;;
	esac | cat "$RAW/srv/tfo-server.ini" - >"$SV_DIR/tfo-server-$svc.ini"
	SRV_INI=$SV_DIR/tfo-server-$svc.ini srv_start adaptive
	for r in $(seq 1 "$REPS"); do
		sv_lg_memif "${row}_tfo_$r" --server-port "$port" "$@"
		sv_lg_memif "${row}_plain_$r" --server-port "$port" --no-tfo 100 "$@"
	done
	srv_stop
	rm -f "$SOCK"
}

# sv_http_len: the response length (headers and body) of nginx's and
# tfo-server's answers differs; each row checks its own, learned from a
# calibration run of 20 (every later answer must be exactly that long)
sv_http_len() {
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = d["counters"].get("responses_validated", 0)
print(d["counters"].get("response_bytes", 0) // n if n else 0)' "$SV_DIR/$1.json"
}

SV_HTTP_REQ='GET /f.html HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n'
SV_HTTP_OK='HTTP/1.1 200 OK\r\n'

sv_phase() {
	local tsc_ok=1 len

	command -v ss >/dev/null || die "missing tool: ss (iproute2)"
	sv_prepare
	# the TSC frequency for tfo-server's busy_tsc (as phase 6)
	"$TB" -l "$GEN" --file-prefix "$TAG-tsc" -m 128 --no-huge --no-shconf --no-pci \
		--log-level=lib.eal:error -- cookie --reps 1 --cookies 64 >"$SV_DIR/tsc.txt" 2>&1 ||
		tsc_ok=0
	[ "$tsc_ok" = 1 ] || say "servers: tfo-bench gave no TSC frequency (per core: n/a)"
	if want dns; then
		quiet servers-dns
		say "dns: DNS over TCP ($SV_QUERY), TFO and plain, $REPS x ${SECS}s a row:" \
			"tfo-server, Knot DNS, NSD (servers on CPU $DUT, tfo-loadgen on CPU $GEN)"
		sv_tfo_server_rows dns_tfo-server dns 53 --dns-query "$SV_QUERY"
		kns_up
		if command -v knotd >/dev/null; then
			sv_kernel knotd 53 knotd -c "$SV_DIR/knot.conf" &&
				sv_kernel_rows dns_knotd 53 --dns-query "$SV_QUERY"
		else
			echo "dns_knotd not_installed knot" >>"$SV_DIR/missing.txt"
		fi
		if command -v nsd >/dev/null; then
			# Debian's NSD is built without --enable-tcp-fastopen: 0x400
			# turns TFO on for every listener (the kernel's qlen: the
			# listen backlog)
			ip netns exec "$NS" sysctl -qw net.ipv4.tcp_fastopen=$((0x403))
			sv_kernel nsd 53 nsd -d -c "$SV_DIR/nsd.conf" &&
				sv_kernel_rows dns_nsd 53 --dns-query "$SV_QUERY"
			ip netns exec "$NS" sysctl -qw net.ipv4.tcp_fastopen=3
		else
			echo "dns_nsd not_installed nsd" >>"$SV_DIR/missing.txt"
		fi
		kns_down
	fi
	if want nginx; then
		quiet servers-nginx
		say "nginx: HTTP GET of a ${SV_FILE_BYTES}-byte file, TFO and plain, $REPS x ${SECS}s a row:" \
			"tfo-server, nginx (servers on CPU $DUT, tfo-loadgen on CPU $GEN)"
		local SRV=$SV_SRV

		if sv_has_service http; then
			printf '[service http]\nport = 80\nroot = %s\nmax_header = 1024\nmax_uri = 512\n' "$SV_DIR/www" |
				cat "$RAW/srv/tfo-server.ini" - >"$SV_DIR/tfo-server-http.ini"
			SRV_INI=$SV_DIR/tfo-server-http.ini srv_start adaptive
			sv_lg_memif http_cal_tfo-server --server-port 80 --count 20 --duration 0 \
				--request "$SV_HTTP_REQ" --expect-prefix "$SV_HTTP_OK"
			srv_stop
			rm -f "$SOCK"
			len=$(sv_http_len http_cal_tfo-server)
			sv_tfo_server_rows http_tfo-server http 80 --request "$SV_HTTP_REQ" \
				--expect-prefix "$SV_HTTP_OK" --expect-len "$len"
		else
			echo "http_tfo-server not_built http" >>"$SV_DIR/missing.txt"
		fi
		kns_up
		if command -v nginx >/dev/null; then
			mkdir -p "$SV_DIR/nginx-tmp"
			if sv_kernel nginx 80 nginx -e stderr -p "$SV_DIR" -c "$SV_DIR/nginx.conf"; then
				sv_lg_tap http_cal_nginx "${SV_PIDS[@]}" -- --server-port 80 --count 20 \
					--duration 0 --request "$SV_HTTP_REQ" --expect-prefix "$SV_HTTP_OK"
				len=$(sv_http_len http_cal_nginx)
				sv_kernel_rows http_nginx 80 --request "$SV_HTTP_REQ" \
					--expect-prefix "$SV_HTTP_OK" --expect-len "$len"
			fi
		else
			echo "http_nginx not_installed nginx-light" >>"$SV_DIR/missing.txt"
		fi
		kns_down
	fi
}
{ want dns || want nginx; } && sv_phase
