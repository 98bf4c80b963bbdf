#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where the instructions of a TFO transaction go, stage by stage.

Runs `tfo-bench pipeline` (echo, 1000 live, checksums offload: the row of
issue 37's "fast path itself" target) under callgrind, counting only the
functions the benchmark times (tfo_worker_burst, tfo_worker_housekeeping,
tfo_lat_flush, and the TX free), and prints a Markdown table of
instructions (Ir) per transaction by stage. Instruction counts do not
depend on what else the machine runs, unlike the TSC figure, which on a
shared machine is noise; they are not cycles either (see
bench/results/pipeline-stages.md for both).

Each callee's inclusive cost and calls are summed over its call sites and
scaled to the calls one transaction makes (3 frames in, 1 SYN, 2 later
segments); what no stage names (the burst loop, dispatch, inlined code)
is the remainder of the total. Valgrind hides AVX-512, so the SIMD
SipHash and ipsec-mb run their AVX2 paths here.

  scripts/devtools/pipeline_stages.py BUILD_DIR [OUT.callgrind]
  scripts/devtools/pipeline_stages.py --file OUT.callgrind
"""
import os
import re
import subprocess
import sys
import tempfile

TRANS = 8192		# per run
NTRANS = 2 * TRANS	# timed: the warm-up run and the measured run
TIMED = ("tfo_worker_burst", "tfo_worker_housekeeping", "tfo_lat_flush",
         "rte_pktmbuf_free_bulk")


def run(build, out):
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out]
    cmd += ["--toggle-collect=" + f for f in TIMED]
    cmd += [os.path.join(build, "apps", "tfo-bench"), "-l", "0",
            "--file-prefix", "pstages%d" % os.getpid(), "--no-huge", "-m", "1024",
            "--no-shconf", "--no-pci", "--log-level=lib.eal:error",
            "--log-level=lib.*:warning", "--", "pipeline", "--live", "1000",
            "--service", "echo", "--cksum", "offload", "--reps", "1",
            "--trans", str(TRANS)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("tfo-bench under callgrind failed:\n" + r.stderr[-2000:])


def annotate(path, *args):
    return subprocess.run(["callgrind_annotate", "--threshold=100", *args, path],
                          capture_output=True, text=True, check=True).stdout


def num(s):
    return int(s.replace(",", ""))


def stages(path):
    cost, calls, incl, inl = {}, {}, {}, 0
    for line in annotate(path, "--inclusive=yes", "--tree=calling").splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+=>\s+\S+:(\S+) \(([\d,]+)x\)", line)
        if m:
            f = m.group(2)
            cost[f] = cost.get(f, 0) + num(m.group(1))
            calls[f] = calls.get(f, 0) + num(m.group(3))
            continue
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+\*\s+\S+:(\S+)", line)
        if m:
            incl[m.group(2)] = num(m.group(1))
    for line in annotate(path).splitlines():
        # tfo_pkt_classify's code inlined into the burst loop (pkt.h's lines)
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+\S*/src/net/pkt.h:tfo_worker_burst", line)
        if m:
            inl += num(m.group(1))

    def per(f, n=1):
        return cost.get(f, 0) / max(calls.get(f, 1), 1) * n

    total = incl["bt_run"] / NTRANS
    # every frame calls tfo_pkt_classify_fast; tfo_pkt_parse and the
    # match only the frames it leaves to them
    frames = calls.get("tfo_pkt_classify_fast") or calls["tfo_pkt_parse"]
    syns = calls["tfo_tcpopt_parse"]
    t = []
    t.append(("RX parse + address match (3 frames)",
              sum(cost.get(f, 0) for f in ("tfo_pkt_classify_fast", "tfo_pkt_parse",
                                           "tfo_pkt_match_local"))
              / frames * 3 + inl / frames * 3))
    t.append(("connection lookup, bulk (3 frames)",
              cost["tfo_engine_lookup_bulk"] / frames * 3))
    t.append(("SYN options parse", per("tfo_tcpopt_parse")))
    t.append(("cookie check (batched)", cost["tfo_cookie_check_burst"] / syns))
    t.append(("ISN/TSval SipHash (batched)", cost["tfo_engine_conn_hash_burst"] / syns))
    svc, syn, new = per("tfo_tcp_deliver"), per("tfo_tcp_send_synack"), per("tfo_tcp_conn_new")
    t.append(("engine open: conn alloc + hash insert", new))
    t.append(("engine open: the rest (admission, state)",
              per("tfo_engine_open") - svc - syn - new - per("tfo_tcp_update_timer")))
    t.append(("service call (deliver, echo)", svc))
    t.append(("SYN-ACK + response + FIN build", syn))
    # the FIN's ACK: built in the FIN's mbuf (tfo_tcp_ack_in_place) or,
    # when that does not apply, by tfo_tcp_xmit
    acks = calls.get("tfo_tcp_xmit", 0) + calls.get("tfo_tcp_ack_in_place", 0)
    xm = (cost.get("tfo_tcp_xmit", 0) + cost.get("tfo_tcp_ack_in_place", 0)) / max(acks, 1)
    tw = per("tfo_tcp_time_wait")
    t.append(("ACK + FIN input (2 segments)",
              per("tfo_engine_input", 2) - xm - tw - per("tfo_tcp_update_timer")))
    t.append(("ACK of the FIN: build", xm))
    t.append(("close (conn free / TIME-WAIT)", tw))
    t.append(("timers (2 updates + wheel run)",
              per("tfo_tcp_update_timer", 2) + cost.get("tfo_engine_timers", 0) / NTRANS))
    hk = cost.get("tfo_worker_housekeeping", incl.get("tfo_worker_housekeeping", 0))
    t.append(("TX flush + free of sent mbufs",
              (hk - cost.get("tfo_engine_timers", 0) + incl.get("rte_pktmbuf_free_bulk", 0))
              / NTRANS))
    t.append(("worker glue (burst loop, dispatch)", total - sum(v for _, v in t)))
    t.append(("**total** (the timed functions / transactions)", total))
    return t


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--file":
        path = sys.argv[2]
    elif len(sys.argv) in (2, 3):
        path = sys.argv[2] if len(sys.argv) == 3 else \
            tempfile.mkstemp(prefix="pipeline-stages.", suffix=".callgrind")[1]
        run(sys.argv[1], path)
    else:
        sys.exit(__doc__)
    print("| stage | Ir per transaction |")
    print("|---|---:|")
    for name, v in stages(path):
        print("| %s | %.0f |" % (name, v))


if __name__ == "__main__":
    main()
