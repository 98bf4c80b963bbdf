#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/devtools/bench_report.py on a synthetic raw directory of every
phase bench.sh runs (no benchmark runs here): the report has each phase's
rows and sections, --prev puts the previous figure beside each row,
--table writes the summary table and a partial run replaces only its rows
in it, --dated names the run's copy, and the pictures are PNG files when
matplotlib is there.

    bench_report_test.py SOURCE_ROOT
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FAILS = []


def check(what, ok, detail=''):
    print(('ok   ' if ok else 'FAIL ') + what + ('' if ok else f': {detail}'))
    if not ok:
        FAILS.append(what)


def write(raw, name, text):
    path = os.path.join(raw, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def tel(raw, name, counters):
    write(raw, name, json.dumps({'/tfo/stats': counters}))


def loadgen(rate, **more):
    """A tfo-loadgen --json document at @p rate transactions/s."""
    d = {'errors': 0, 'tfo': 1000, 'fallbacks': 0, 'txn_per_s': rate, 'run_s': 5.0,
         'rate': rate, 'transactions': rate * 5, 'retransmissions': 0,
         'latency_us': {'p50': 8, 'p99': 20, 'p999': 40},
         'counters': {'start_no_slot': 0, 'txn_started': rate * 5, 'syn_retransmits': 0},
         'latency_hist_us': [[2, 10], [8, 80], [32, 10]]}
    d.update(more)
    return json.dumps(d)


def lg(raw, name, rate, **more):
    """lg_NAME.json and others_lg_NAME.txt (others' share of the machine: 0.01 %)."""
    write(raw, f'lg_{name}.json', loadgen(rate, **more))
    write(raw, f'others_lg_{name}.txt', '1 10000\n')


PIPELINE = '''# tfo-bench pipeline, TSC 2.450 GHz, lcore 1, CPU AMD EPYC
| live | service | cksum | response | syn | ack | fin | total | spread | ticks/pkt | pkts | Mtrans/s/core | left out |
|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
| 1000 | echo | offload | 100 B/1 seg | 200 | 100 | 90 | 390 | 5.7% | 78 | 5 | 6.28 | 0.0% |
| 1000 | echo | sw | 100 B/1 seg | 250 | 110 | 100 | 460 | 7.3% | 92 | 5 | 5.33 | 0.0% |
'''
SLOW = '''| live | cksum | load | syncookies | controls | worker | control | busiest control | total | spread | x TFO | to control/txn | SYN cookies/txn (worker) | pkts | Mtrans/s/core | left out |
|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
| 1000 | offload | TFO | - | - | 400 | 0 | 0 | 420 | 2.0% | 1.00 | 0.00 | 0.00 (0.00) | 4.0 | 5.83 | 0.0% |
| 1000 | offload | plain | auto | 1 | 300 | 500 | 500 | 820 | 1.3% | 1.95 | 3.00 | 0.00 (0.00) | 6.0 | 2.99 | 0.0% |
| 1000 | offload | spoofed SYN | always | 1 | 300 | 6 | 6 | 320 | 3.7% | 0.76 | 0.00 | 1.00 (1.00) | 2.0 | 7.66 | 0.0% |
'''
CONTROLS = '''| cksum | load | syncookies | controls | control (sum) | x N=1 | per control | busiest | Mtrans/s (control stage) | speed-up | speed-up / N |
|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|
| offload | plain | auto | 1 | 500 | 1.00 | 500 | 500 | 4.90 | 1.00 | 1.00 |
| offload | plain | auto | 2 | 510 | 1.02 | 260 / 250 | 260 | 9.42 | 1.92 | 0.96 |
'''
ENGINE = '''      live     open      ack      fin   timers     total  Mtrans/s      B/conn    B/TW  bufs MiB   all MiB
      1000      576      251      366        3      1196      2.05       120.0       -       5.1       5.9
'''
COOKIE = '''batch size                               1       4       8      16      32      64
(a) batch API, aes128                 63.8    44.2    30.0    23.3    10.0    18.8
(c) raw ipsec-mb ECB                  40.0    20.0    12.0     9.0     8.0     6.8
'''


def full_raw(raw, phases='all'):
    """Every raw file bench_report.py reads, three repetitions of each."""
    write(raw, 'machine.txt', '\n'.join([
        'date=2026-12-04 15:50 UTC', 'cpu=AMD EPYC 9B45 128-Core Processor', 'cpus=2',
        'flags=aes avx2 ', 'kernel=6.18', 'load_before=1.0 1.0 1.0', 'dpdk=22.11.11',
        'commit=abc1234', 'reps=3', 'seconds=5', 'dut_cpu=1', 'gen_cpu=0',
        'phases=' + phases, 'clk_tck=100', 'busy_peak=3% / 4%', 'tb_others_pipeline=0%',
        'latency_png=latency.png', 'scale_png=scaling.png', 'load_after=1.0 1.0 1.0']) + '\n')
    for n in (1, 2, 3):
        write(raw, f'tp_fwd_{n}.log', 'at 2450 MHz Clock\n' +
              ''.join(f'  Rx-pps:  {10_000_000 + n}\n' for _ in range(6)) +
              'CPU cycles/packet=50.00\n')
        lg(raw, f'peak_{n}', 1_000_000, tfo=5_000_000)
        tel(raw, f'tel_peak_{n}_a.json', {'busy_tsc': 0, 'rx_pkts': 0, 'tx_pkts': 0,
                                          'TCPFastOpenPassive': 0})
        tel(raw, f'tel_peak_{n}_b.json', {'busy_tsc': 2_450_000_000, 'rx_pkts': 10_000_000,
                                          'tx_pkts': 10_000_000,
                                          'TCPFastOpenPassive': 5_000_000})
        write(raw, f'kernel_{n}.log', 'transactions 100000 seconds 5.0 rate 20000/s errors 0\n'
              'tfo_active 100000\nlatency_us p50 50 p99 150\n')
        for name in ('plain', 'cookie', 'badck', 'mix'):
            lg(raw, f'{name}_{n}', 600_000)
        write(raw, f'others_tp_{n}.txt', '1 10000\n')
        lg(raw, f'flood_{n}', 10000, spoof={'syn_per_s': 2e6, 'synack_per_s': 2e6, 'tx_drop': 0, 'syn': 10**7},
            by_kind={'tfo': {'completed': 25000, 'p50_us': 9, 'p99_us': 40},
                     'plain': {'completed': 25000, 'p50_us': 19, 'p99_us': 80}})
        for side, v in (('a', 0), ('b', 1000)):
            tel(raw, f'tel_flood_{n}_{side}.json', {'syncookies_sent': v, 'to_control': 0})
            tel(raw, f'telw_flood_{n}_{side}.json', {'syncookies_sent': v, 'to_control': 0})
    write(raw, 'flood_good_rate.txt', '10000\n')
    for name, text in (('pipeline', PIPELINE), ('pipeline_ackfin', PIPELINE),
                       ('pipeline_cold', PIPELINE), ('pipeline_slow', SLOW),
                       ('pipeline_controls', SLOW + '\n' + CONTROLS), ('engine', ENGINE),
                       ('cookie', COOKIE)):
        write(raw, f'tb_{name}.txt', text)
    latency_raw(raw)
    scale_raw(raw)
    dns_raw(raw)


def latency_raw(raw):
    write(raw, 'lat_half_rate.txt', '500000\n')
    for pol in ('adaptive', 'busy', 'sleep'):
        for n in (1, 2, 3):
            lg(raw, f'lpeak_{pol}_{n}', 1_000_000)
            for kind in ('tfo', 'plain'):
                for rt in ('1000', '10000', '100000', 'half'):
                    rate = 500_000 if rt == 'half' else int(rt)
                    lg(raw, f'lat_{pol}_{kind}_{rt}_{n}', rate)
        write(raw, f'idle_{pol}_time.txt', 'pid 100 window_us 10000000 tel_us 10000000 '
              'clk_tck 100\n')
        write(raw, f'idle_{pol}_a.txt', '100 tfo-server 10\n101 rte-worker-1 10\n')
        write(raw, f'idle_{pol}_b.txt', '100 tfo-server 20\n101 rte-worker-1 30\n')
        for lc in (0, 1):
            tel(raw, f'idle_{pol}_tel{lc}_a.json', {'idle_waits': 0})
            tel(raw, f'idle_{pol}_tel{lc}_b.json', {'idle_waits': 1000})
    for rt in ('1000', '10000', '100000', 'half'):
        rate = 500_000 if rt == 'half' else int(rt)
        for n in (1, 2, 3):
            write(raw, f'klat_{rt}_{n}.log', f'transactions {rate * 5} seconds 5.0 rate '
                  f'{rate}/s errors 0\nlatency_us p50 40 p99 120 p999 400 samples 100\n'
                  f'rate_target {rate} started {rate * 5} late 0 no_slot 0\n'
                  f'tfo_active {rate * 5}\n')


def scale_raw(raw):
    write(raw, 'scale_tsc.txt', 'TSC 2.450 GHz\n')
    rows = (('tfo', 1, 1, 'sc_tfo_1'), ('plain', 1, 1, 'sc_plain_1'), ('p90', 1, 1, 'sc_p90'))
    lines = []
    for kind, w, c, name in rows:
        lines.append(f'kind={kind} workers={w} controls={c} name={name} shared=0 srv=0@2,1@3 '
                     f'lg=0@0,1@1 srv_set=2,3 lg_set=0,1 log={name}.log args=')
        write(raw, f'{name}.log', 'accounting: ok\n')
        for n in (1, 2, 3):
            lg(raw, f'{name}_{n}', 400_000)
            tel(raw, f'tel_sc_{name}_{n}_a.json', {'lcore1_worker': {'busy_tsc': 0},
                                                   'lcore0_control': {'busy_tsc': 0}})
            tel(raw, f'tel_sc_{name}_{n}_b.json', {
                'lcore1_worker': {'busy_tsc': 1_000_000, 'TCPFastOpenPassive': 1000},
                'lcore0_control': {'busy_tsc': 500_000, 'conns_opened_plain': 1000}})
        if kind != 'p90':
            for n in (1, 2, 3):
                write(raw, f'kscale_{kind}_1_{n}.log', 'transactions 100000 seconds 5.0 '
                      'rate 20000/s errors 0\ntfo_active 100000\n')
    write(raw, 'scale_rows.txt', '\n'.join(lines) + '\n')


def dns_raw(raw):
    """The afxdp and dnssec phases: one fixed run and one step a server."""
    write(raw, 'afxdp/generator.txt', 'dnsperf 20000 50000 kxdpgun did not start\n')
    write(raw, 'afxdp/knotd_mode.txt', 'sockets the verifier refused its program\n')
    write(raw, 'dnssec/generator.txt', 'dnsperf 0 20000\n')
    write(raw, 'dnssec/mix.txt', '100 answers\n')
    runs = [('afxdp', s, p) for s in ('tfo-server', 'knotd') for p in ('tcp', 'udp')]
    runs += [('dnssec', s, 'udp') for s in ('tfo-server', 'tfo-server-rrl', 'knotd', 'nsd')]
    for phase, srv, proto in runs:
        for kind in ('fixed', 'step'):
            base = f'{phase}/{srv}_{proto}_{kind}_1'
            write(raw, base + '.run', f'server {srv} proto {proto} rate 20000 secs 5 '
                  'sent 100000 answered 100000 ticks 50\n')
            tel(raw, base + '.tel_a', {'busy_tsc': 0, 'tsc_hz': 2_450_000_000})
            tel(raw, base + '.tel_b', {'busy_tsc': 245_000_000, 'tsc_hz': 2_450_000_000})
        write(raw, f'{phase}/{srv}.probe', 'www.signed.example. 300 IN RRSIG A 13 3 300\n')


def run(script, *args, py=sys.executable):
    p = subprocess.run([py, script] + list(args), capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def rows(text):
    """The summary table's rows: (group, measure, the rest)."""
    return [c for c in ([x.strip() for x in line.strip().strip('|').split('|')]
                        for line in text.split('\n') if line.startswith('| ') and
                        not line.startswith('| # |')) if len(c) >= 4]


def report_checks(script, raw):
    rc, out, err = run(script, raw)
    check('the report of a full run: exit 0', rc == 0, err[-500:])
    groups = {r[0] for r in rows(out.split('\n## ')[0])}
    want = {'1', '2', '2/1', '3', '2/3', 'lat', '4', '4s', '4c', '5', '6', 'sc'}
    check('the summary table has a row of every phase', want <= groups,
          f'missing {sorted(want - groups)}')
    check('row 2: the loadgen\'s rate; per worker core, the opens and packets over its '
          'busy seconds', '| **1,000,000**/s |' in out and
          '**5,000,000 transactions/s per worker core**, **10.00 Mpps in per worker core** '
          '(4.0 packets in+out per transaction)' in out, out[:2000])
    for title in ('## Latency at every load', '## Scaling with cores', '## AF_XDP side by side',
                  '## DNSSEC (DO=1)', '### tfo-bench pipeline (a worker without a device)',
                  '### tfo-bench cookie'):
        check(f'the report has "{title}"', title in out)
    check('the pipeline target row: 390 cycles, met', re.search(
        r'\| 4 \| tfo-bench pipeline: echo, 1000 live, checksums offload: [^|]*\| \*\*390\*\* '
        r'\|[^\n]*<= 400: met \|', out) is not None)
    check('no "nan" in the report', 'nan' not in out.lower().replace('nanosecond', ''))
    return out


def prev_checks(script, raw, tmp, out):
    prev = os.path.join(tmp, 'previous.md')
    write(tmp, 'previous.md', out)
    rc, again, err = run(script, '--prev', prev, raw)
    table = [r for r in rows(again.split('\n## ')[0])]
    check('--prev: exit 0', rc == 0, err[-500:])
    same = [r for r in table if r[-1].replace(' (+0.0%)', '') == r[2].replace('**', '')]
    check('--prev: every row has the previous figure beside, unchanged (+0.0% or 0)',
          table and len(same) == len(table),
          [r[1][:60] + ' -> ' + r[-1] for r in table if r not in same][:3])


def table_checks(script, raw, partial, tmp):
    path = os.path.join(tmp, 'summary.md')
    rc, _, err = run(script, '--table', raw, path)
    text = open(path).read() if os.path.exists(path) else ''
    check('--table: a new summary.md between its markers', rc == 0 and
          text.startswith('# tfo-fastpath benchmark: the summary table') and
          '<!-- bench: begin' in text and '<!-- bench: end -->' in text, err[-500:])
    before = rows(text)
    rc, _, err = run(script, '--table', partial, path)
    after = rows(open(path).read())
    check('--table of a partial run: exit 0', rc == 0, err[-500:])
    changed = [a for a, b in zip(before, after) if a != b]
    check('a partial run (phases latency) changes only its lat rows, and keeps the count',
          len(before) == len(after) and changed and all(r[0] == 'lat' for r in changed),
          [r[:2] for r in changed if r[0] != 'lat'][:3])
    check('the partial run is named under the table',
          'Rows of the partial run 2026-12-04 15:50 UTC (`bench.sh --phases latency`' in
          open(path).read())
    fresh = os.path.join(tmp, 'fresh.md')
    rc, _, err = run(script, '--table', partial, fresh)
    check('--table of a partial run without a full one refuses', rc != 0 and
          'needs the table of a full one' in err, err[-300:])


def picture_checks(script, raw, tmp):
    py = next((p for p in (sys.executable, '/usr/bin/python3') if os.path.exists(p) and
               subprocess.run([p, '-c', 'import matplotlib'], capture_output=True).returncode
               == 0), None)
    if py is None:
        print('SKIP the pictures: no python with matplotlib (apt-get install '
              'python3-matplotlib)')
        return
    for opt in ('--plot', '--plot-latency', '--plot-scaling'):
        png = os.path.join(tmp, opt[2:] + '.png')
        rc, _, err = run(script, opt, raw, png, py=py)
        ok = rc == 0 and os.path.exists(png) and open(png, 'rb').read(8) == b'\x89PNG\r\n\x1a\n'
        check(f'{opt}: a PNG', ok, err[-300:])


def main():
    root = sys.argv[1]
    script = os.path.join(root, 'scripts', 'devtools', 'bench_report.py')
    tmp = tempfile.mkdtemp(prefix='bench-report-test.')
    try:
        raw, partial = os.path.join(tmp, 'raw'), os.path.join(tmp, 'raw-partial')
        full_raw(raw)
        shutil.copytree(raw, partial)
        write(partial, 'machine.txt', open(os.path.join(raw, 'machine.txt')).read()
              .replace('phases=all', 'phases=latency'))
        for n in (1, 2, 3):	# the partial run's latency differs: its rows change
            lg(partial, f'lat_adaptive_tfo_1000_{n}', 1000,
               latency_us={'p50': 6, 'p99': 15, 'p999': 30})
            write(partial, f'klat_1000_{n}.log', 'transactions 5000 seconds 5.0 rate 1000/s '
                  'errors 0\nlatency_us p50 45 p99 130 p999 400 samples 100\ntfo_active 5000\n')
        out = report_checks(script, raw)
        prev_checks(script, raw, tmp, out)
        table_checks(script, raw, partial, tmp)
        rc, name, _ = run(script, '--dated', raw)
        check('--dated: runs/DATE-TIME-CPU.md',
              name.strip() == 'runs/2026-12-04-1550-amd-epyc-9b45-128-core-processor.md', name)
        rc, name, _ = run(script, '--dated', partial)
        check('--dated of a partial run: -partial.md', name.strip().endswith('-partial.md'), name)
        picture_checks(script, raw, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f'{len(FAILS)} failed' if FAILS else 'all passed')
    return 1 if FAILS else 0


if __name__ == '__main__':
    sys.exit(main())
