#!/usr/bin/env python3
"""The report of scripts/devtools/bench.sh, from the logs of one run.

    bench_report.py RAW                 markdown report on stdout
    bench_report.py --readme RAW FILE   put the summary table into FILE's
                                        "## Performance" section (between
                                        its markers; the section is added at
                                        the end when missing)

RAW holds what bench.sh wrote: machine.txt, tp_fwd_N.log (testpmd
forwarder), lg_*.json (tfo-loadgen), tel_peak_N_{a,b}.json (tfo-server's
counters before/after a run), kernel_N.log (kernel client), tb_*.txt
(tfo-bench). Medians over the repetitions; spread = (max - min) / median.
"""
import glob
import json
import os
import re
import statistics
import sys

BEGIN = '<!-- bench: begin (scripts/devtools/bench.sh writes this table) -->'
END = '<!-- bench: end -->'


def med(v):
    return statistics.median(v) if v else float('nan')


def spread(v):
    m = med(v)
    return (max(v) - min(v)) / m * 100 if v and m else float('nan')


def reps(raw, pattern):
    """Files raw/pattern with N = 1, 2, ... in repetition order."""
    out = []
    n = 1
    while os.path.exists(os.path.join(raw, pattern.format(n))):
        out.append(os.path.join(raw, pattern.format(n)))
        n += 1
    return out


CLEAN = 3.0	# % of the machine others may use during a repetition


def clean_reps(raw, name, n):
    """Repetitions 1..n of a phase during which other processes used under
    CLEAN % of the machine's CPU time (bench.sh's others_*.txt); all of
    them when fewer than half are clean. Returns (indexes, note)."""
    others = []
    for r in range(1, n + 1):
        try:
            busy, total = (int(x) for x in
                           open(os.path.join(raw, f'others_{name}_{r}.txt')).read().split())
            others.append((r, max(busy, 0) / total * 100))
        except (OSError, ValueError, ZeroDivisionError):
            others.append((r, float('nan')))
    ok = [r for r, o in others if o < CLEAN]
    worst = max((o for _, o in others if o == o), default=float('nan'))
    if ok and len(ok) * 2 >= n:
        return ok, f'{len(ok)} of {n} repetitions undisturbed' + (
            '' if len(ok) == n else f' (others took up to {worst:.0f}% of the machine in the rest)')
    return list(range(1, n + 1)), (f'DISTURBED: other processes took up to {worst:.0f}% of the '
                                   f'machine in {n - len(ok)} of {n} repetitions')


def machine(raw):
    m = {}
    for line in open(os.path.join(raw, 'machine.txt')):
        k, _, v = line.rstrip('\n').partition('=')
        m[k] = v
    return m


def tsc_hz(raw):
    for f in glob.glob(os.path.join(raw, 'tb_*.txt')):
        g = re.search(r'TSC ([0-9.]+) GHz', open(f).read())
        if g:
            return float(g.group(1)) * 1e9
    for f in reps(raw, 'tp_fwd_{}.log'):
        g = re.search(r'at (\d+) MHz Clock', open(f).read())
        if g:
            return float(g.group(1)) * 1e6
    raise SystemExit('bench_report: TSC frequency not found')


def testpmd(raw, hz):
    """Per repetition: forwarded Mpps (median of the 1 s samples but the
    first two and the last) and the forwarder's busy cycles per packet."""
    mpps, cyc = [], []
    files = reps(raw, 'tp_fwd_{}.log')
    use, note = clean_reps(raw, 'tp', len(files))
    for n, f in enumerate(files, 1):
        if n not in use:
            continue
        text = open(f).read()
        pps = [int(x) for x in re.findall(r'Rx-pps:\s+(\d+)', text)]
        pps = pps[2:-1] if len(pps) > 3 else pps
        g = re.search(r'CPU cycles/packet=([0-9.]+)', text)
        if not pps or not g:
            continue
        mpps.append(med(pps) / 1e6)
        cyc.append(float(g.group(1)))
    core = [hz / c / 1e6 for c in cyc]
    return {'mpps': mpps, 'cycles': cyc, 'core_mpps': core, 'note': note}


def counters(path):
    return json.load(open(path))['/tfo/stats']


def tfo_server(raw, hz):
    r = {k: [] for k in ('txn', 'share', 'core_txn', 'core_rx_mpps', 'pkts_per_txn',
                         'errors', 'p50', 'p99')}
    files = reps(raw, 'lg_peak_{}.json')
    use, r['note'] = clean_reps(raw, 'lg_peak', len(files))
    r['all_agree'] = True
    for n, f in enumerate(files, 1):
        lg = json.load(open(f))
        a = counters(os.path.join(raw, f'tel_peak_{n}_a.json'))
        b = counters(os.path.join(raw, f'tel_peak_{n}_b.json'))
        r['errors'].append(lg['errors'])
        r['all_agree'] &= (b['TCPFastOpenPassive'] - a['TCPFastOpenPassive'] == lg['tfo'] and
                           lg['fallbacks'] == 0)
        if n not in use:
            continue
        a = counters(os.path.join(raw, f'tel_peak_{n}_a.json'))
        b = counters(os.path.join(raw, f'tel_peak_{n}_b.json'))
        d = {k: b[k] - a[k] for k in ('busy_tsc', 'rx_pkts', 'tx_pkts', 'TCPFastOpenPassive')}
        busy_s = d['busy_tsc'] / hz
        r['txn'].append(lg['txn_per_s'])
        r['share'].append(busy_s / lg['run_s'] * 100)
        r['core_txn'].append(d['TCPFastOpenPassive'] / busy_s)
        r['core_rx_mpps'].append(d['rx_pkts'] / busy_s / 1e6)
        r['pkts_per_txn'].append((d['rx_pkts'] + d['tx_pkts']) / max(d['TCPFastOpenPassive'], 1))
        r['p50'].append(lg['latency_us']['p50'])
        r['p99'].append(lg['latency_us']['p99'])
    return r


def latency(raw, name):
    r = {k: [] for k in ('rate', 'p50', 'p99', 'p999', 'errors')}
    files = reps(raw, 'lg_' + name + '_{}.json')
    use, r['note'] = clean_reps(raw, 'lg_' + name, len(files))
    for n, f in enumerate(files, 1):
        lg = json.load(open(f))
        r['errors'].append(lg['errors'])
        if n not in use:
            continue
        r['rate'].append(lg['txn_per_s'])
        for q in ('p50', 'p99', 'p999'):
            r[q].append(lg['latency_us'][q])
    r['ratio'] = [b / a for a, b in zip(r['p50'], r['p99']) if a > 0]
    return r


def kernel(raw):
    r = {'rate': [], 'errors': [], 'tfo_share': [], 'p50': [], 'p99': []}
    for f in reps(raw, 'kernel_{}.log'):
        text = open(f).read()
        g = re.search(r'transactions (\d+) seconds ([0-9.]+) rate (\d+)/s errors (\d+)', text)
        t = re.search(r'tfo_active (-?\d+)', text)
        lat = re.search(r'latency_us p50 (\d+) p99 (\d+)', text)
        if not g:
            continue
        r['rate'].append(int(g.group(3)))
        r['errors'].append(int(g.group(4)))
        if t and int(g.group(1)):
            r['tfo_share'].append(min(int(t.group(1)) / int(g.group(1)), 1.0) * 100)
        if lat:
            r['p50'].append(int(lat.group(1)))
            r['p99'].append(int(lat.group(2)))
    return r


def pipeline_rows(raw, name='tb_pipeline.txt'):
    """(live, service, cksum) -> total ticks, from tfo-bench pipeline's table."""
    rows = {}
    path = os.path.join(raw, name)
    for line in open(path) if os.path.exists(path) else []:
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        if len(c) >= 12 and c[0].isdigit():
            rows[(int(c[0]), c[1], c[2])] = (float(c[7]), c[8], float(c[11]))
    return rows


def fmt(v, f='{:,.0f}'):
    return f.format(v) if v == v else 'n/a'


def summary(raw):
    m = machine(raw)
    hz = tsc_hz(raw)
    tp = testpmd(raw, hz)
    ts = tfo_server(raw, hz)
    k = kernel(raw)
    l100 = latency(raw, 'half100')
    l10 = latency(raw, 'half10')
    pl = pipeline_rows(raw)
    ratio_io = med(ts['core_rx_mpps']) / med(tp['core_mpps']) if tp['core_mpps'] else float('nan')
    ratio_k = med(ts['txn']) / med(k['rate']) if k['rate'] else float('nan')
    half = open(os.path.join(raw, 'half_rate.txt')).read().strip()
    errs = sum(ts['errors']) + sum(l100['errors']) + sum(l10['errors']) + sum(k['errors'])
    lines = []
    a = lines.append
    a(f"Run {m['date']} on {m['cpu']} ({m['cpus']} CPUs; {m['flags'].strip()}; TSC "
      f"{hz / 1e9:.2f} GHz), kernel {m['kernel']}, DPDK {m['dpdk']}, commit {m['commit']}; "
      f"device under test on CPU {m['dut_cpu']}, traffic sources on CPU {m['gen_cpu']}; "
      f"medians of {m['reps']} x {m['seconds']} s, spread = (max - min) / median; load average "
      f"before/after: {m['load_before']} / {m.get('load_after', '?')} (a shared machine).")
    busy = [f"{k[5:]} {v}" for k, v in m.items() if k.startswith('busy_')]
    if busy:
        a('')
        a("Others' work on CPU 0 / CPU 1 in the second before each phase (the script waits up "
          "to a minute for both under 15 %): " + '; '.join(busy) + '.')
    tb = [f"{k[10:]} {v}" for k, v in m.items() if k.startswith('tb_others_')]
    if tb:
        a("Others' share of the machine during each tfo-bench run (a run over 3 % is done "
          "again, twice at most, and the least disturbed kept): " + '; '.join(tb) + '.')
    a('')
    a('| # | measure | median | spread | derived | target |')
    a('|---|---|---:|---:|---|---|')
    a(f"| 1 | testpmd macswap, net_memif, 128-byte frames: forwarded (feeder-bound) | "
      f"{fmt(med(tp['mpps']), '{:.2f}')} Mpps | {fmt(spread(tp['mpps']), '{:.1f}')}% | "
      f"{fmt(med(tp['cycles']), '{:.0f}')} busy TSC cycles/packet = **{fmt(med(tp['core_mpps']), '{:.1f}')} "
      f"Mpps per forwarding core** (spread {fmt(spread(tp['core_mpps']), '{:.1f}')}%); "
      f"{tp['note']} | I/O ceiling |")
    a(f"| 2 | tfo-server, 1 worker, echo 100 B, driven by tfo-loadgen over net_memif: "
      f"TFO transactions/s of the machine (loadgen-bound) | **{fmt(med(ts['txn']))}**/s | "
      f"{fmt(spread(ts['txn']), '{:.1f}')}% | worker busy {fmt(med(ts['share']), '{:.0f}')}%: "
      f"**{fmt(med(ts['core_txn']))} transactions/s per worker core**, "
      f"**{fmt(med(ts['core_rx_mpps']), '{:.2f}')} Mpps in per worker core** "
      f"({fmt(med(ts['pkts_per_txn']), '{:.1f}')} packets in+out per transaction); "
      f"{ts['note']} | |")
    a(f"| 2/1 | packets/s per worker core vs the macswap ceiling per core | "
      f"**{fmt(ratio_io, '{:.2f}')}x** | | | >= 0.5x: {'met' if ratio_io >= 0.5 else 'not met'} |")
    a(f"| 3 | Linux kernel TFO server + client (bench/kernel_tfo_*), loopback, both CPUs: "
      f"transactions/s of the machine | **{fmt(med(k['rate']))}**/s | "
      f"{fmt(spread(k['rate']), '{:.1f}')}% | {fmt(med(k['tfo_share']), '{:.0f}')}% of them TFO; "
      f"{fmt(2 * hz / med(k['rate']) / 1e3 if k['rate'] else float('nan'), '{:.0f}')}k TSC cycles "
      f"of the machine per transaction | |")
    a(f"| 2/3 | tfo-server (+ its load generator) vs the kernel, transactions/s of the same "
      f"2 CPUs | **{fmt(ratio_k, '{:.1f}')}x** | | | >= 50x: {'met' if ratio_k >= 50 else 'not met'} |")
    for name, l in (('100 (default)', l100), ('10', l10)):
        a(f"| lat | latency at 50% of the peak ({half}/s; got {fmt(med(l['rate']))}/s), "
          f"idle_sleep_us = {name}: p50 / p99 / p999 | {fmt(med(l['p50']), '{:.0f}')} / "
          f"{fmt(med(l['p99']), '{:.0f}')} / {fmt(med(l['p999']), '{:.0f}')} us | "
          f"p99 {fmt(spread(l['p99']), '{:.0f}')}% | p99 = {fmt(med(l['ratio']), '{:.2f}')}x p50; "
          f"{l['note']} | "
          f"p99 <= 2x p50: {'met' if med(l['ratio']) <= 2 else 'not met'} |")
    for key in ((1000, 'echo', 'offload'), (65536, 'echo', 'offload'), (1000, 'echo', 'sw'),
                (1000, 'http', 'offload')):
        if key in pl:
            t, sp, mt = pl[key]
            a(f"| 4 | tfo-bench pipeline: {key[1]}, {key[0]} live, checksums {key[2]}: "
              f"TSC cycles per complete TFO transaction | **{t:.0f}** | {sp} | "
              f"{mt:.2f} M transactions/s per core | <= 1000: {'met' if t <= 1000 else 'not met'} |")
    af = pipeline_rows(raw, 'tb_pipeline_ackfin.txt').get((1000, 'echo', 'sw'))
    if af:
        per_txn = hz / med(ts['core_txn']) if ts['core_txn'] else float('nan')
        a(f"| 4 | the same in tfo-loadgen's shape (ACK and FIN in one segment), software "
          f"checksums: the worker's work in (2) without memif | **{af[0]:.0f}** | {af[1]} | "
          f"(2)'s worker: {fmt(per_txn)} busy TSC cycles per transaction | |")
    a('')
    a(f"Errors in all runs: {errs} (tfo-loadgen validated every response); tfo-server's "
      f"TCPFastOpenPassive = the loadgen's TFO count, no fallback: "
      f"{'yes' if ts['all_agree'] else 'NO'} in every run.")
    return '\n'.join(lines)


def code_block(raw, name, title):
    path = os.path.join(raw, name)
    if not os.path.exists(path):
        return ''
    keep = [x.rstrip() for x in open(path)
            if not x.startswith(('tfo:', 'TELEMETRY', 'EAL:')) and x.strip()]
    table = [x for x in keep if x.startswith('|')]
    rest = [x for x in keep if not x.startswith('|')]
    out = [f'### {title}', '', '```'] + rest + ['```']
    if table:
        out += [''] + table
    return '\n'.join(out) + '\n'


def report(raw):
    parts = ['# tfo-fastpath benchmark (scripts/devtools/bench.sh)', '', summary(raw), '']
    parts.append('''How it is measured: (1) the forwarder is `dpdk-testpmd --forward-mode=macswap
--record-core-cycles` on the device-under-test CPU, fed over net_memif by a second testpmd in
flowgen mode (it generates like txonly and drains the return ring; with txonly the forwarder's
TX into memif fails once the ring is full and it measures receive + drop, not forwarding); per
core = TSC Hz / busy cycles per packet. (2) tfo-server's worker counts busy_tsc, the TSC ticks
of polls that found frames: per core = what it did / the seconds it was busy. The load generator
needs a core of its own, so (2)'s rate of the machine is the generator's limit, not the
server's; the per-core figures are the server's. (3) the kernel runs its server (one epoll
thread per CPU, SO_REUSEPORT listeners) and its client (4 threads x 16 in flight) on the same 2
CPUs. Latency: tfo-loadgen's SYN sent -> response validated, paced at half the peak; the worker
naps idle_sleep_us after an empty poll (the Linux timer slack of ~50 us comes on top). The
pipeline figures exclude the device (see tfo-bench pipeline). On this shared machine, a
repetition during which other processes used more than 3% of the machine's CPU time (/proc/stat
minus the benchmark's own processes) is left out of the medians of (1), (2) and the latency rows
when at least half of them remain (each row says so); the kernel row is not filtered (its
softirq work is not told apart), and tfo-bench leaves out the bursts the OS interrupted itself.
''')
    parts.append(code_block(raw, 'tb_pipeline.txt', 'tfo-bench pipeline (a worker without a device)'))
    parts.append(code_block(raw, 'tb_pipeline_ackfin.txt',
                            "tfo-bench pipeline --ackfin (tfo-loadgen's shape: ACK and FIN in one "
                            "segment, as in (2))"))
    parts.append(code_block(raw, 'tb_pipeline_cold.txt',
                            'tfo-bench pipeline --cold (client frames flushed from the caches, as '
                            'if DMA had just written them to memory)'))
    parts.append(code_block(raw, 'tb_engine.txt', 'tfo-bench engine (the TCP engine alone)'))
    parts.append(code_block(raw, 'tb_cookie.txt', 'tfo-bench cookie'))
    parts.append(code_block(raw, 'tb_http.txt', 'tfo-bench http'))
    return '\n'.join(parts)


def readme(raw, path):
    text = open(path).read()
    body = (f"{BEGIN}\n{summary(raw)}\n\nThe whole report, with the tfo-bench tables: "
            f"[bench/results/latest.md](bench/results/latest.md).\n{END}")
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + body + rest.split(END, 1)[1]
    elif '## Performance' in text:
        head, rest = text.split('## Performance', 1)
        title, _, after = rest.partition('\n')
        text = head + '## Performance' + title + '\n\n' + body + '\n' + after
    else:
        text = text.rstrip('\n') + '\n\n## Performance\n\n`sudo scripts/devtools/bench.sh` builds ' \
            '(release) and runs the benchmark suite on this machine in one go.\n\n' + body + '\n'
    with open(path, 'w') as f:
        f.write(text)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == '--readme':
        readme(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2:
        print(report(sys.argv[1]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
