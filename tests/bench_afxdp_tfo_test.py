#!/usr/bin/env python3
"""scripts/devtools/bench_afxdp_tfo.py (the report of bench.sh's phase
afxdp-tfo) on the raw files of a made-up run whose figures are known: the
per-connection costs, the frames, the floor and the ratios come out as
computed by hand; a skipped phase says why; a run without the phase prints
nothing; bench_report.py's report carries the section.

    bench_afxdp_tfo_test.py SOURCE_ROOT
"""
import json
import os
import sys
import tempfile

MACHINE = '''date=2026-12-06 01:00 UTC
cpu=Test CPU
cpus=2
flags=aes avx2
dpdk=22.11.11
phases=afxdp-tfo
kernel=6.18
load_before=9.00 8.00 7.00
load_after=9.50 8.50 7.50
commit=abc1234
reps=1
seconds=5
dut_cpu=1
gen_cpu=0
clk_tck=100
busy_afxdp-tfo=90% / 80%
'''
HZ = 2_000_000_000


def put(d, name, text):
    with open(os.path.join(d, name), 'w') as f:
        f.write(text if isinstance(text, str) else json.dumps(text))


def tel(**kw):
    return {'/tfo/stats': dict({'tsc_hz': HZ}, **kw)}


def kern(rx, tx, passive, tfo):
    return f'{rx}\n{tx}\nTcp: PassiveOpens\nTcp: {passive}\nTcpExt: TCPFastOpenPassive\nTcpExt: {tfo}\n'


def fixture(d):
    """One run of each row and of the floor. tfo-server: 1,000 connections
    (900 TFO), 10,000,000 busy TSC, 50 ms of CPU, 2,000 frames each way;
    the kernel: 2,000 connections (1,990 TFO), 100 ms, 8,000 frames each
    way; the floor: 2,000 busy TSC per frame, 1 s of CPU for 1,000,000
    frames (2,000 TSC each). TSC 2 GHz."""
    put(d, 'plan.txt', '1000 128\n')
    for load in ('rate', 'peak'):
        n = f'tfo_{load}_1'
        put(d, n + '.log', 'summary: 990 transactions\n')
        put(d, n + '.json', {'txn_per_s': 990.0, 'errors': 0,
                             'latency_us': {'p50': 31.0, 'p99': 87.0}})
        put(d, n + '.a.tel', tel(conns_opened_tfo=5, conns_opened_plain=5, busy_tsc=7,
                                 rx_pkts=1, tx_pkts=1))
        put(d, n + '.b.tel', tel(conns_opened_tfo=905, conns_opened_plain=105,
                                 busy_tsc=10_000_007, rx_pkts=2001, tx_pkts=2001))
        put(d, n + '.a.cpu', '1000 0\n')
        put(d, n + '.b.cpu', '50001000 5000000\n')
        n = f'kernel_{load}_1'
        put(d, n + '.log', 'transactions 4950 seconds 5.000 rate 990/s errors 0 syn_no_cookie 0\n'
            'latency_us p50 41 p99 93 p999 120 samples 4950\n')
        put(d, n + '.a.kern', kern(10, 20, 30, 40))
        put(d, n + '.b.kern', kern(8010, 8020, 2030, 2030))
        put(d, n + '.a.cpu', '0 0\n')
        put(d, n + '.b.cpu', '100000000 5000000\n')
    put(d, 'tp_fwd_1.log', 'Rx-pps: 0\nRx-pps: 90000\nRx-pps: 100000\nRx-pps: 100000\n'
        'Rx-pps: 100000\nRx-pps: 5000\nCPU cycles/packet=2000.00 (total cycles=1 / total '
        'macswap packets=1) at 2000 MHz Clock\n')
    put(d, 'tp_gen_1.log', 'Tx-pps: 0\nTx-pps: 1\nTx-pps: 200000\nTx-pps: 200000\nTx-pps: 3\n')
    put(d, 'tp_1.a.cpu', '0 0\n')
    put(d, 'tp_1.b.cpu', '1000000000 5000000\n')
    put(d, 'tp_1.a.eth', {'/ethdev/stats': {'ipackets': 0}})
    put(d, 'tp_1.b.eth', {'/ethdev/stats': {'ipackets': 1_000_000}})
    # perf report's lines (by object; by object and symbol) for one profile
    put(d, 'tfo_peak_1.dso', '    50.00%  [kernel.kallsyms]\n    30.00%  tfo-server\n'
        '    10.00%  libc.so.6\n     6.00%  librte_net_af_xdp.so.23.0\n'
        '     4.00%  libIPSec_MB.so.1.3.0\n')
    put(d, 'tfo_peak_1.sym', '    20.00%  [kernel.kallsyms]  [k] __pi_memcpy\n'
        '     9.00%  tfo-server  [.] tfo_pkt_parse\n')


def main():
    root = sys.argv[1]
    sys.path.insert(0, os.path.join(root, 'scripts', 'devtools'))
    import bench_afxdp_tfo
    import bench_report
    fails = 0

    def check(what, ok):
        nonlocal fails
        print(f"{'ok' if ok else 'FAIL'}: {what}")
        fails += not ok

    with tempfile.TemporaryDirectory() as raw:
        put(raw, 'machine.txt', MACHINE)
        m = bench_report.machine(raw)
        check('no phase directory: no section', bench_afxdp_tfo.section(raw, m) == '')
        d = os.path.join(raw, 'afxdp_tfo')
        os.mkdir(d)
        put(d, 'skipped.txt', 'dpdk-testpmd is missing\n')
        s = bench_afxdp_tfo.section(raw, m)
        check('a skipped phase says why', 'Not run: dpdk-testpmd is missing.' in s)
        os.remove(os.path.join(d, 'skipped.txt'))
        fixture(d)
        s = bench_afxdp_tfo.section(raw, m)
        print(s)
        tfo = [x for x in s.splitlines() if x.startswith('| tfo-server on')]
        ker = [x for x in s.splitlines() if x.startswith('| Linux TFO')]
        check('two rows each (the rate and the peak), twice', len(tfo) == 4 and len(ker) == 4)
        check('the machine and "one run on shared CPUs" said',
              '**Test CPU**' in s and 'One run on shared CPUs' in s and '9.00 8.00 7.00' in s)
        check('tfo-server: 990/s, p50 31, p99 87 (the loadgen\'s JSON)',
              '| 1,000/s | 990 | 31 | 87 | 0 |' in tfo[0])
        check('tfo-server: 90 % of connections TFO, 10,000 busy TSC and 100,000 TSC of CPU '
              'per connection, 2 + 2 frames',
              '| 90.0 % | 10,000 | 100,000 | 2.00 + 2.00 |' in tfo[0])
        check('kernel: 99.5 % TFO, no busy count, 100,000 TSC per connection, 4 + 4 frames',
              '| 99.5 % | (no busy count) | 100,000 | 4.00 + 4.00 |' in ker[0])
        check('the floor: 2,000 busy TSC per frame, 1.00 M frames/s per CPU',
              '**2,000 busy TSC per forwarded frame**' in s and '1.00 M frames/s per CPU' in s)
        check('the floor: 2,000 TSC of CPU time per frame received',
              '**2,000 TSC of its process\'s CPU time per frame**' in s)
        check('the floor: 0.100 Mpps forwarded of 0.200 sent (samples without the start '
              'and the end)', 'It forwarded 0.100 Mpps of the 0.200 Mpps' in s)
        check('tfo-server\'s ratio: 10,000 / (2 x 2,000) busy = 2.5x, 100,000 / 4,000 = 25.0x',
              '| 4.00 | 4,000 / 4,000 | 10,000 / 100,000 | **2.5x** / **25.0x** |' in tfo[2])
        check('the kernel\'s ratio: n/a busy, 100,000 / (4 x 2,000) = 12.5x',
              '| 8.00 | 8,000 / 8,000 | n/a / 100,000 | **n/a** / **12.5x** |' in ker[2])
        prof = [x for x in s.splitlines() if x.startswith('| tfo-server at its peak')]
        check('the profile: kernel, own code, libc, net_af_xdp, other; the top symbols',
              prof and prof[0] == '| tfo-server at its peak | 50.0 % | 30.0 % | 10.0 % | '
              '6.0 % | 4.0 % | 20.00% __pi_memcpy; 9.00% tfo_pkt_parse |')
        check('no profile of the kernel server or the floor: no row',
              '| the kernel\'s server at' not in s and '| testpmd macswap' not in s)
        check('bench_report.py\'s report carries the section',
              bench_afxdp_tfo.TITLE in bench_report.report(raw))
    print(f"{'FAIL' if fails else 'PASS'}: {fails} check(s) failed")
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
