#!/bin/bash
# The forced window of DPDK 22.11's net_memif (src/lcore/qs.h): gdb holds a
# worker inside eth_memif_rx, after its one look at the connected flag and
# at its first read of the peer's ring, and the peer is killed (SIGKILL)
# meanwhile: memif_disconnect on the EAL interrupt thread clears the flag
# and unmaps the ring. Without tfo-server's munmap the worker faults on
# its release (seen: SIGSEGV, every time); with it, the unmap waits for
# the worker (unmap_waits), the server lives, serves the next peer, and
# stops with its accounting balanced. Hold HOLD_S (1 s, within the 5 s
# the unmap waits at most).
# The breakpoint's offset in eth_memif_rx is that of Debian's 22.11.11
# build of the PMD: on another build (another build ID) this test skips.
#   memif_forced_window.sh TFO_SERVER TFO_LOADGEN
set -u
SRV=$1
LG=$2
HOLD_S=${HOLD_S:-1}
. "$(dirname "$0")/tap/lib.sh"
. "$(dirname "$0")/../scripts/usertools/memif-pair.sh"

PMD=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0/librte_net_memif.so.23.0
# Debian 12's librte-net-memif23 22.11.11-0+deb12u1: eth_memif_rx + 0xa7 is
# `testb $0x1,0x4(%r9)`, ring->flags, the first read of the ring after the
# flag's test at +0x94 (objdump -d; rte_eth_memif.c:311 and :322)
BUILD_ID=bfa5f325bc9886ddb4f8b12abccfeca8b26f4a9c
BP_OFF=0xa7

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (DPDK --no-huge with two processes, ptrace)"
	exit 77
fi
for t in gdb readelf timeout dpdk-telemetry.py /usr/bin/python3; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "SKIP: required tool '$t' is missing (Debian packages gdb, binutils)"
		exit 77
	fi
done
if ! readelf -n "$PMD" 2>/dev/null | grep -q "Build ID: $BUILD_ID"; then
	echo "SKIP: $PMD is not the build whose eth_memif_rx offset this test knows ($BUILD_ID)"
	exit 77
fi
MP_LG=$LG
mp_init "${WINDOW_TAG:-mwindow}$$"
TMP=$MP_TMP
LGPID=""
trap 'rc=$?; [ -n "$LGPID" ] && kill -KILL "$LGPID" 2>/dev/null; mp_cleanup $rc; exit $rc' EXIT
trap 'exit 130' INT TERM
# two lcores on one CPU, busy: as where it crashed by itself
MP_SRV_LCORES="--lcores 0@1,1@1"
MP_LG_LCORES="--lcores 0@0,1@0"
srvsum() { awk -v n="$1" '/\(lcore [0-9]+\)/ && $3 == n { s += $4 } END { print s + 0 }' "$TMP/server.log"; }

mp_server_start "$SRV" "idle_policy = busy"
MP_LG_TIMEOUT=0 mp_loadgen_bg peer --stats-period 0 --server 198.18.0.2 --server-port 7 \
	--client 198.18.20.1 --clients 8 --request-size 100 --expect-echo --rate 2000 \
	--concurrency 32 --duration 30
LGPID=$MP_LGPID
for _ in $(seq 1 100); do
	grep -q -- "-> run after" "$TMP/peer.log" && break
	sleep 0.1
done
check "the peer sends" grep -q -- "-> run after" "$TMP/peer.log"

# non-stop: only the worker that hits the breakpoint stops; the EAL
# interrupt thread goes on and handles the peer's departure
cat >"$TMP/hold.gdb" <<EOG
set pagination off
set confirm off
set non-stop on
attach $MP_SPID
set \$rx = *(long *)&rte_eth_fp_ops
break *(\$rx + $BP_OFF)
python
import gdb
bp = int(gdb.parse_and_eval("\$rx")) + $BP_OFF
held = None
for _ in range(50):
    gdb.execute("continue -a", to_string=True)
    for t in gdb.selected_inferior().threads():
        if t.is_stopped():
            t.switch()
            if int(gdb.parse_and_eval("\$pc")) == bp:
                held = t
                break
    if held:
        break
print("held: %s at eth_memif_rx+$BP_OFF" % (held.name if held else "nothing"))
gdb.execute("delete")
gdb.execute("shell kill -KILL $LGPID")
gdb.execute("shell sleep $HOLD_S")
if held:
    held.switch()
    gdb.execute("continue &")
print("released")
end
detach
EOG
timeout 120 gdb -batch -x "$TMP/hold.gdb" >"$TMP/gdb.log" 2>&1
wait "$LGPID" 2>/dev/null
LGPID=""
check "gdb held a worker inside eth_memif_rx while the peer was killed" \
	grep -q "^held: rte-worker" "$TMP/gdb.log"
check "gdb released it" grep -q "^released" "$TMP/gdb.log"
sleep 2
check "the server lives on after the worker's release" kill -0 "$MP_SPID"
kill -0 "$MP_SPID" 2>/dev/null || { MP_SPID=""; tail -20 "$TMP/gdb.log"; exit 1; }

mp_loadgen next --stats-period 0 --server 198.18.0.2 --server-port 7 \
	--client 198.18.30.1 --clients 8 --request-size 100 --expect-echo --count 1000
check "the next peer is served: exit code 0, no error" \
	eq "$MP_LGRC/$(mp_jget next errors)" 0/0
check "the next peer: 1000 transactions" eq "$(mp_jget next transactions)" 1000
mp_server_stop
check "tfo-server exit code 0" eq "$?" 0
check "accounting: ok" grep -q "^accounting: ok" "$TMP/server.log"
check "the unmap waited for the held worker (unmap_waits)" ge "$(srvsum unmap_waits)" 1
check "and did not give up on it (unmap_kept)" eq "$(srvsum unmap_kept)" 0
tfo_done
