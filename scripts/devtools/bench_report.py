#!/usr/bin/env python3
"""The report of scripts/devtools/bench.sh, from the logs of one run.

    bench_report.py [--prev MD] RAW             markdown report on stdout
    bench_report.py [--prev MD] --table RAW FILE
                                        put the summary table into FILE
                                        (bench/results/summary.md: between
                                        its markers, written whole when
                                        missing; a partial run replaces or
                                        adds only its rows)
    bench_report.py --dated RAW         the name of the run's dated copy:
                                        runs/YYYY-MM-DD-HHMM-CPU[-partial].md
    bench_report.py --plot RAW PNG      the picture (matplotlib): transactions/s
                                        per load type side by side, and the
                                        latency distribution at idle_policy
                                        adaptive
    bench_report.py --plot-latency RAW PNG
                                        latency against rate (log-log): p50
                                        and p99 per idle_policy, TFO and
                                        plain, beside the Linux kernel's TFO
    bench_report.py --plot-scaling RAW PNG
                                        the scaling phase: transactions/s and
                                        worker TSC per transaction against
                                        workers, plain transactions/s
                                        against control lcores, beside the
                                        kernel's

--prev MD: the report of the run before (bench.sh keeps it as
bench/results/previous.md); every row of the summary table gets that run's
figure beside the new one, with the change, matched by the row's measure
(its text without the parenthesised figures).

RAW holds what bench.sh wrote: machine.txt, tp_fwd_N.log (testpmd
forwarder), lg_*.json (tfo-loadgen: peak, plain, cookie, badck, mix, flood;
the latency phase's lpeak_POLICY and lat_POLICY_{tfo,plain}_RATE),
tel_{peak,flood}_N_{a,b}.json (tfo-server's counters before/after a run),
kernel_N.log (kernel client, closed loop) and klat_RATE_N.log (at a fixed
rate), idle_POLICY_{a,b,time}.txt and idle_POLICY_tel{0,1}_{a,b}.json (the
server's threads' CPU time and its lcores' counters around the zero-load
window), lat_half_rate.txt, others_*.txt (others' share of the machine
during a run), tb_*.txt (tfo-bench); the scaling phase's scale_rows.txt
(one line per row: its kind, workers, control lcores, name, layout),
lg_NAME_N.json with lg_NAME_N.tasks_{a,b} (the loadgen threads' CPU time),
tel_sc_NAME_N_{a,b}.json (every lcore's counters), kscale_KIND_N.log (the
kernel beside it) and scale_tsc.txt (the TSC frequency); the phase afxdp's
afxdp/ (scripts/devtools/bench_afxdp.sh): generator.txt (the generator, its
TCP and UDP rates, why kxdpgun did not run), knotd_mode.txt (xdp, or
sockets and why), missing.txt, and per run SERVER_PROTO_{fixed_N,step_N}.run
(rate, sent, answered, knotd's CPU ticks) with tfo-server's .tel_{a,b};
the phase dnssec's dnssec/ (scripts/devtools/bench_dnssec.sh): the same
runs for SERVER tfo-server, tfo-server-rrl, knotd, nsd (UDP only) and
tfo-server-limit_udp_fixed_1 (the real limit, limit.txt), SERVER.probe
(kdig +dnssec), mix.txt, missing.txt.
Medians over the repetitions; spread = (max - min) / median.
"""
# The command; the work is in benchreport/, a module per job: raw (the raw
# files and their statistics), phases (phases 1-4's files), summary (the
# summary table), latency and scale (phases 5 and 6), dns (afxdp, dnssec),
# md (markdown and the table across runs), plot (the pictures).
import os
import re
import sys

import bench_afxdp_tfo
from benchreport.dns import afxdp_section, dnssec_section
from benchreport.latency import lat_section
from benchreport.md import code_block, merge_rows
from benchreport.plot import plot, plot_latency, plot_scaling
from benchreport.raw import machine
from benchreport.scale import scale_section
from benchreport.summary import summary

BEGIN = '<!-- bench: begin (scripts/devtools/bench.sh writes this table) -->'
TABLE_TITLE = ('# tfo-fastpath benchmark: the summary table (scripts/devtools/bench.sh)\n\n'
               'The last full run\'s rows, with the rows of partial runs since; the figures '
               'depend on the machine: each run names its CPU. Every run\'s whole report: '
               '[runs/](runs/).\n\n')
END = '<!-- bench: end -->'


def report(raw, prev_md=None):
    parts = ['# tfo-fastpath benchmark (scripts/devtools/bench.sh)', '', summary(raw, prev_md),
             '', 'The picture: [latest.png](latest.png) (transactions/s per load type side by '
             'side; the latency distribution at idle_policy adaptive).', '']
    lat = lat_section(raw)
    if lat:
        parts += [lat]
    sc = scale_section(raw)
    if sc:
        parts += [sc]
    ax = afxdp_section(raw)
    if ax:
        parts += [ax]
    dn = dnssec_section(raw)
    if dn:
        parts += [dn]
    parts += [x for x in [bench_afxdp_tfo.section(raw, machine(raw))] if x]
    parts.append('''How it is measured: (1) the forwarder is `dpdk-testpmd --forward-mode=macswap
--record-core-cycles` on the device-under-test CPU, fed over net_memif by a second testpmd in
flowgen mode (it generates like txonly and drains the return ring; with txonly the forwarder's
TX into memif fails once the ring is full and it measures receive + drop, not forwarding); per
core = TSC Hz / busy cycles per packet. (2) tfo-server's worker counts busy_tsc, the TSC ticks
of polls that found frames: per core = what it did / the seconds it was busy. The load generator
needs a core of its own, so (2)'s rate of the machine is the generator's limit, not the
server's; the per-core figures are the server's. (3) the kernel runs its server (one epoll
thread per CPU, SO_REUSEPORT listeners) and its client (4 threads x 16 in flight) on the same 2
CPUs. tfo-server's control 0 and its worker share the device-under-test CPU at idle_policy
adaptive, the default; latency per idle policy and rate: "Latency at every load". The
pipeline figures exclude the device (see tfo-bench pipeline). On this shared machine, a
repetition during which other processes used more than 3% of the machine's CPU time (/proc/stat
minus the benchmark's own processes) is left out of the medians of (1), (2) and the latency rows
when at least half of them remain (each row says so); the kernel rows are not filtered (its
softirq work is not told apart), and tfo-bench leaves out the bursts the OS interrupted itself.
''')
    parts.append(code_block(raw, 'tb_pipeline.txt', 'tfo-bench pipeline (a worker without a device)'))
    parts.append(code_block(raw, 'tb_pipeline_ackfin.txt',
                            "tfo-bench pipeline --ackfin (tfo-loadgen's shape: ACK and FIN in one "
                            "segment, as in (2))"))
    parts.append(code_block(raw, 'tb_pipeline_cold.txt',
                            'tfo-bench pipeline --cold (client frames flushed from the caches, as '
                            'if DMA had just written them to memory)'))
    parts.append(code_block(raw, 'tb_pipeline_slow.txt',
                            'tfo-bench pipeline --plain --bad-cookie --cookie-req (the '
                            'slow path: worker + control core, in memory)'))
    parts.append(code_block(raw, 'tb_pipeline_controls.txt',
                            'tfo-bench pipeline --plain --bad-cookie --cookie-req --controls 1,2 '
                            '(the slow path with 1 and 2 control lcores, in memory)'))
    parts.append(code_block(raw, 'tb_pipeline_flood.txt',
                            'tfo-bench pipeline --flood --syncookies auto,always (a spoofed SYN: '
                            'syncookies = always, the worker answers alone)'))
    parts.append(code_block(raw, 'tb_engine.txt', 'tfo-bench engine (the TCP engine alone)'))
    parts.append(code_block(raw, 'tb_cookie.txt', 'tfo-bench cookie'))
    parts.append(code_block(raw, 'tb_http.txt', 'tfo-bench http'))
    return '\n'.join(parts)


def dated(raw):
    """runs/YYYY-MM-DD-HHMM-CPU[-partial].md: where a run's report is kept
    under its date and CPU model (bench/results/runs/)."""
    m = machine(raw)
    when = re.sub(r'[^0-9]', '', m.get('date', ''))[:12]
    # "Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz" -> intel-xeon-platinum-8481c
    cpu = re.sub(r'\((r|tm)\)|\bcpu\b|@.*', '', m.get('cpu', '').lower())
    cpu = re.sub(r'[^a-z0-9]+', '-', cpu).strip('-')[:40].strip('-') or 'cpu'
    part = '' if m.get('phases', 'all') == 'all' else '-partial'
    if len(when) == 12:
        when = '%s-%s-%s-%s' % (when[:4], when[4:6], when[6:8], when[8:12])
    return 'runs/%s-%s%s.md' % (when or 'undated', cpu, part)


def table(raw, path, prev_md=None):
    """The summary table into @p path (bench/results/summary.md); its links
    are to files beside it."""
    text = open(path).read() if os.path.exists(path) else ''
    m = machine(raw)
    if m.get('phases', 'all') != 'all':
        # a partial run: only its rows change, the rest is the last full run's
        if BEGIN not in text or END not in text:
            raise SystemExit('bench_report: a partial run needs the table of a full one in '
                             f'{path}')
        head, rest = text.split(BEGIN, 1)
        body, tail = rest.split(END, 1)
        body = '\n'.join(x for x in body.split('\n') if not x.startswith('Rows of the '
                                                                     'partial run'))
        body = re.sub(r'\n{3,}', '\n\n', body)
        note = (f"Rows of the partial run {m['date']} (`bench.sh --phases {m['phases']}`, "
                f"commit {m['commit']}, load average {m['load_before']} / "
                f"{m.get('load_after', '?')}) replace or join the rows above: "
                f"[latest-partial.md](latest-partial.md).")
        merged = merge_rows(body, summary(raw, prev_md), note)
        if merged is None:
            raise SystemExit(f'bench_report: no table between the markers of {path}')
        with open(path, 'w') as f:
            f.write(head + BEGIN + merged.rstrip('\n') + '\n' + END + tail)
        return
    lat_png = m.get('latency_png')
    lat_pic = (f"\n\n![latency against rate, per idle_policy, beside the Linux kernel's TFO "
               f"server]({lat_png})" if lat_png else '')
    body = (f"{BEGIN}\n{summary(raw, prev_md)}\n\n![transactions/s per load type; latency at "
            f"idle_policy adaptive](latest.png){lat_pic}\n\nThe pictures: "
            f"[latest.png](latest.png)"
            + (f", [{lat_png}]({lat_png})" if lat_png else '') +
            f". The whole report, with the latency table per idle_policy and the "
            f"tfo-bench tables: [latest.md](latest.md), kept as [{dated(raw)}]({dated(raw)}) "
            f"(the run before: [previous.md](previous.md)).\n{END}")
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + body + rest.split(END, 1)[1]
    else:
        text = TABLE_TITLE + body + '\n'
    with open(path, 'w') as f:
        f.write(text)


def main():
    args = sys.argv[1:]
    prev_md = None
    if len(args) >= 2 and args[0] == '--prev':
        prev_md = args[1]
        args = args[2:]
    if len(args) == 3 and args[0] == '--table':
        table(args[1], args[2], prev_md)
    elif len(args) == 2 and args[0] == '--dated':
        print(dated(args[1]))
    elif len(args) == 3 and args[0] == '--plot':
        plot(args[1], args[2])
    elif len(args) == 3 and args[0] == '--plot-latency':
        plot_latency(args[1], args[2])
    elif len(args) == 3 and args[0] == '--plot-scaling':
        plot_scaling(args[1], args[2])
    elif len(args) == 1:
        print(report(args[0], prev_md))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
