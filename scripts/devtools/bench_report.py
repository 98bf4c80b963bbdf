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
import glob
import json
import os
import re
import statistics
import sys

import bench_afxdp_tfo

BEGIN = '<!-- bench: begin (scripts/devtools/bench.sh writes this table) -->'
TABLE_TITLE = ('# tfo-fastpath benchmark: the summary table (scripts/devtools/bench.sh)\n\n'
               'The last full run\'s rows, with the rows of partial runs since; the figures '
               'depend on the machine: each run names its CPU. Every run\'s whole report: '
               '[runs/](runs/).\n\n')
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
    for f in glob.glob(os.path.join(raw, 'tb_*.txt')) + [os.path.join(raw, 'scale_tsc.txt')]:
        if not os.path.exists(f):
            continue
        g = re.search(r'TSC ([0-9.]+) GHz', open(f).read())
        if g:
            return float(g.group(1)) * 1e9
    for f in reps(raw, 'tp_fwd_{}.log'):
        g = re.search(r'at (\d+) MHz Clock', open(f).read())
        if g:
            return float(g.group(1)) * 1e6
    return float('nan')	# a partial run without tfo-bench or testpmd


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
    r = {k: [] for k in ('rate', 'p50', 'p99', 'p999', 'errors', 'no_slot')}
    files = reps(raw, 'lg_' + name + '_{}.json')
    use, r['note'] = clean_reps(raw, 'lg_' + name, len(files))
    r['disturbed'] = r['note'].startswith('DISTURBED')
    for n, f in enumerate(files, 1):
        lg = json.load(open(f))
        r['errors'].append(lg['errors'])
        if n not in use:
            continue
        r['rate'].append(lg['txn_per_s'])
        r['no_slot'].append(lg.get('counters', {}).get('start_no_slot', 0))
        for q in ('p50', 'p99', 'p999'):
            r[q].append(lg['latency_us'][q])
    r['ratio'] = [b / a for a, b in zip(r['p50'], r['p99']) if a > 0]
    return r


def kernel(raw, pattern='kernel_{}.log'):
    r = {'rate': [], 'errors': [], 'tfo_share': [], 'p50': [], 'p99': []}
    for f in reps(raw, pattern):
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


# bench.sh's latency phase (5): the idle policies, the rates (half: half of
# adaptive's TFO peak, lat_half_rate.txt), the loads
LAT_POLICIES = ('adaptive', 'busy', 'sleep')
LAT_RATES = ('1000', '10000', '100000', 'half')
LAT_KINDS = (('tfo', 'TFO'), ('plain', 'plain'))
# the issue's targets ("Microseconds at every load"), idle_policy adaptive
LAT_P50_MAX = {'tfo': 10, 'plain': 20}	# us, at every fixed rate
LAT_P99_X = 3				# p99 <= 3x p50
IDLE_CPU_MAX = 5			# % of a CPU per lcore at zero load
PEAK_VS_BUSY = 0.95			# adaptive's peak / busy's


def lat_half(raw):
    try:
        return int(open(os.path.join(raw, 'lat_half_rate.txt')).read())
    except (OSError, ValueError):
        return None


def lat_target(raw, rt):
    """The rate (transactions/s) a latency row asked for."""
    return lat_half(raw) if rt == 'half' else int(rt)


def lat_label(raw, rt):
    """A rate as the rows name it: 1,000/s; half the peak (N/s)."""
    h = lat_half(raw)
    return f"half the peak ({h:,}/s)" if rt == 'half' else f"{int(rt):,}/s"


def lat_server(raw):
    """(policy, kind, rate) -> latency() of the tfo-server rows that ran."""
    out = {}
    for pol in LAT_POLICIES:
        for kind, _ in LAT_KINDS:
            for rt in LAT_RATES:
                x = latency(raw, f'lat_{pol}_{kind}_{rt}')
                if x['rate'] or x['errors']:
                    out[(pol, kind, rt)] = x
    return out


def others_share(raw, name):
    """Others' share (%) of the machine during the run others_NAME.txt."""
    try:
        busy, total = (int(x) for x in open(os.path.join(raw, f'others_{name}.txt')).read().split())
        return max(busy, 0) / total * 100
    except (OSError, ValueError, ZeroDivisionError):
        return float('nan')


def lat_kernel(raw):
    """rate -> the kernel client's fixed-rate runs (klat_RATE_N.log); not
    filtered by others' share: its softirq work (loopback) is not told
    apart from others', the share is only reported."""
    out = {}
    for rt in LAT_RATES:
        r = {k: [] for k in ('rate', 'errors', 'p50', 'p99', 'p999', 'samples', 'started',
                             'late', 'no_slot', 'tfo_share', 'others')}
        for n, f in enumerate(reps(raw, 'klat_' + rt + '_{}.log'), 1):
            text = open(f).read()
            g = re.search(r'transactions (\d+) seconds ([0-9.]+) rate (\d+)/s errors (\d+)', text)
            lat = re.search(r'latency_us p50 (\d+) p99 (\d+) p999 (\d+) samples (\d+)', text)
            sl = re.search(r'rate_target \d+ started (\d+) late (\d+) no_slot (\d+)', text)
            t = re.search(r'tfo_active (-?\d+)', text)
            if not g or not lat:
                continue
            r['rate'].append(int(g.group(3)))
            r['errors'].append(int(g.group(4)))
            for i, q in enumerate(('p50', 'p99', 'p999', 'samples'), 1):
                r[q].append(int(lat.group(i)))
            if sl:
                for i, q in enumerate(('started', 'late', 'no_slot'), 1):
                    r[q].append(int(sl.group(i)))
            if t and int(g.group(1)):
                r['tfo_share'].append(min(int(t.group(1)) / int(g.group(1)), 1.0) * 100)
            r['others'].append(others_share(raw, f'klat_{rt}_{n}'))
        r['ratio'] = [b / a for a, b in zip(r['p50'], r['p99']) if a > 0]
        if r['rate']:
            out[rt] = r
    return out


def lat_peaks(raw):
    """policy -> the TFO peak runs of the latency phase (lpeak_POLICY)."""
    out = {}
    for pol in LAT_POLICIES:
        x = latency(raw, 'lpeak_' + pol)
        if x['rate']:
            out[pol] = x
    return out


def idle_cpu(raw, pol):
    """The zero-load window of a policy: {'threads': [(label, % of one CPU)]
    with control 0 (the main thread) and the workers first, 'others' (the
    other threads: EAL interrupts, multi-process, telemetry), 'lcores':
    {lcore: {counter: per second}}, 'window_s', 'share' (others' share of
    the machine)}, or None."""
    base = os.path.join(raw, f'idle_{pol}')
    try:
        t = open(base + '_time.txt').read().split()
        info = dict(zip(t[::2], (int(x) for x in t[1::2])))
        a = {x.split()[0]: x.split() for x in open(base + '_a.txt') if x.strip()}
        b = {x.split()[0]: x.split() for x in open(base + '_b.txt') if x.strip()}
    except (OSError, ValueError, IndexError):
        return None
    window = info['window_us'] / 1e6
    per_tick = 100 / info['clk_tck'] / window	# % of one CPU per tick
    threads, other = [], 0.0
    for tid, (_, comm, t1) in sorted(b.items(), key=lambda x: int(x[0])):
        pct = (int(t1) - int(a[tid][2] if tid in a else 0)) * per_tick
        w = re.fullmatch(r'(?:rte|lcore)-worker-(\d+)', comm)
        if int(tid) == info['pid']:
            threads.insert(0, ('control 0 (lcore 0, the main thread)', pct))
        elif w:
            threads.append((f'worker (lcore {w.group(1)})', pct))
        else:
            other += pct
    lcores = {}
    for lc in (0, 1):
        try:
            ca = counters(f'{base}_tel{lc}_a.json')
            cb = counters(f'{base}_tel{lc}_b.json')
        except (OSError, KeyError, ValueError):
            continue
        # per second of the span of the four telemetry calls (tel_us): a
        # little longer than each lcore's own, so a rate a little low
        span = info.get('tel_us', info['window_us']) / 1e6
        lcores[lc] = {k: (cb.get(k, 0) - ca.get(k, 0)) / span
                      for k in ('idle_waits', 'idle_wakeups', 'doorbell_rings')}
    return {'threads': threads, 'others': other, 'lcores': lcores, 'window_s': window,
            'share': others_share(raw, f'idle_{pol}_1')}


def pipeline_rows(raw, name='tb_pipeline.txt'):
    """(live, service, cksum) -> total ticks, from tfo-bench pipeline's table."""
    rows = {}
    path = os.path.join(raw, name)
    for line in open(path) if os.path.exists(path) else []:
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        if len(c) >= 12 and c[0].isdigit():
            rows[(int(c[0]), c[1], c[2])] = (float(c[7]), c[8], float(c[11]))
    return rows


def engine_mem(raw):
    """live -> B/conn, from tfo-bench engine's table."""
    rows = {}
    path = os.path.join(raw, 'tb_engine.txt')
    for line in open(path) if os.path.exists(path) else []:
        c = line.split()
        if len(c) >= 11 and c[0].isdigit():
            try:
                rows[int(c[0])] = float(c[7])
            except ValueError:
                pass
    return rows


def cookie_ratio(raw, batch=32):
    """(a) batch API / (c) raw ECB at @batch, from tfo-bench cookie's table."""
    path = os.path.join(raw, 'tb_cookie.txt')
    cols = None
    a = c = None
    for line in open(path) if os.path.exists(path) else []:
        if line.startswith('batch size'):
            cols = line.split()[2:]
        elif cols and str(batch) in cols:
            i = cols.index(str(batch)) - len(cols)
            v = line.split()
            # the IPv4 row: its label is followed by the figures at once
            if re.match(r'\(a\) batch API, aes128\s+[\d.]', line) and len(v) >= len(cols):
                a = float(v[i])
            elif line.startswith('(c) raw ipsec-mb ECB') and len(v) >= len(cols):
                c = float(v[i])
    return (a, c) if a and c else None


# load types of bench.sh's 2c, in the order of the table and the picture
LOADS = (('peak', 'TFO', ''), ('plain', 'plain', '--no-tfo 100'),
         ('cookie', 'cookie requests, no warm-up', '--cookie-req 100'),
         ('badck', 'bad cookies', '--bad-cookie 100'),
         ('mix', 'mix: 10 % TFO, 20 % cookie requests, 70 % plain',
          '--cookie-req 20 --no-tfo 70'))


def flood(raw):
    """The spoofed-SYN flood runs: the flood, the good clients, the server."""
    r = {k: [] for k in ('syn', 'synack', 'started', 'served', 'tfo', 'plain', 'tfo_p50',
                         'tfo_p99', 'plain_p50', 'plain_p99', 'syn_rexmit', 'errors',
                         'syncookies', 'to_control', 'drops', 'no_slot', 'offered',
                         'syn_drop', 'w_syncookies', 'w_to_control', 'ring_drop',
                         'tx_drop', 'spoof_other', 'spoof_sent', 'good_tx_drop')}
    for n, f in enumerate(reps(raw, 'lg_flood_{}.json'), 1):
        lg = json.load(open(f))
        c, k = lg['counters'], lg.get('by_kind', {})
        r['syn'].append(lg['spoof']['syn_per_s'])
        r['synack'].append(lg['spoof']['synack_per_s'])
        r['started'].append(c['txn_started'])
        r['served'].append(lg['transactions'])
        r['tfo'].append(k.get('tfo', {}).get('completed', 0))
        r['plain'].append(k.get('plain', {}).get('completed', 0))
        for kind in ('tfo', 'plain'):
            r[kind + '_p50'].append(k.get(kind, {}).get('p50_us', float('nan')))
            r[kind + '_p99'].append(k.get(kind, {}).get('p99_us', float('nan')))
        r['syn_rexmit'].append(c['syn_retransmits'])
        r['no_slot'].append(c['start_no_slot'])
        r['offered'].append(lg['rate'] * lg['run_s'])
        r['syn_drop'].append(lg['spoof'].get('tx_drop', 0))
        r['spoof_sent'].append(lg['spoof'].get('syn', 0))
        r['spoof_other'].append(c.get('spoof_rx_other', 0))
        # the good clients' frames its own full TX queue refused (the flood
        # fills the queue they share)
        r['good_tx_drop'].append(c.get('tx_drop_full', 0) - c.get('spoof_tx_drop', 0))
        r['errors'].append(lg['errors'])
        try:
            a = counters(os.path.join(raw, f'tel_flood_{n}_a.json'))
            b = counters(os.path.join(raw, f'tel_flood_{n}_b.json'))
            d = {x: b.get(x, 0) - a.get(x, 0) for x in b}
            r['syncookies'].append(d.get('syncookies_sent', 0))
            r['to_control'].append(d.get('to_control', 0))
            r['drops'].append(sum(v for x, v in d.items()
                                  if x.startswith('ring_drop') or x.startswith('drop_syn')))
            r['ring_drop'].append(d.get('ring_drop_full', 0))
            r['tx_drop'].append(d.get('tx_drop_full', 0))
        except (OSError, KeyError, ValueError):
            pass
        try:	# the worker's own counters (lcore 1)
            a = counters(os.path.join(raw, f'telw_flood_{n}_a.json'))
            b = counters(os.path.join(raw, f'telw_flood_{n}_b.json'))
            r['w_syncookies'].append(b.get('syncookies_sent', 0) - a.get('syncookies_sent', 0))
            r['w_to_control'].append(b.get('to_control', 0) - a.get('to_control', 0))
        except (OSError, KeyError, ValueError):
            pass
    return r


def slow_rows(raw, name='tb_pipeline_slow.txt'):
    """(cksum, load, syncookies, controls) -> dict, from tfo-bench pipeline
    --plain ... --flood [--syncookies ...] [--controls ...]."""
    rows = {}
    path = os.path.join(raw, name)
    for line in open(path) if os.path.exists(path) else []:
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        if len(c) >= 16 and c[0].isdigit() and c[4].isdigit():
            sc = c[12].split()
            rows[(c[1], c[2], c[3], int(c[4]))] = {
                'worker': float(c[5]), 'control': float(c[6]), 'busiest': float(c[7]),
                'total': float(c[8]), 'spread': c[9], 'x_tfo': float(c[10]),
                'to_ctl': float(c[11]), 'syncookies': float(sc[0]),
                'w_syncookies': float(sc[1].strip('()')) if len(sc) > 1 else float('nan'),
                'mtps': float(c[14])}
    return rows


def controls_rows(raw, name='tb_pipeline_controls.txt'):
    """(cksum, load, syncookies, controls) -> dict, from the side-by-side
    table of tfo-bench pipeline --controls."""
    rows = {}
    path = os.path.join(raw, name)
    for line in open(path) if os.path.exists(path) else []:
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        if len(c) == 11 and c[3].isdigit() and c[0] in ('offload', 'sw'):
            rows[(c[0], c[1], c[2], int(c[3]))] = {
                'sum': float(c[4]), 'x1': float(c[5]), 'per': c[6], 'busiest': float(c[7]),
                'mtps': float(c[8]), 'speedup': float(c[9]), 'per_n': float(c[10])}
    return rows


def row_key(measure):
    """A summary row's identity across runs: its measure without the
    parenthesised figures, markup or spacing."""
    m = re.sub(r'\([^()]*\)', '', measure.replace('**', '').replace('`', ''))
    return re.sub(r'\s+', ' ', m).strip(' :;,')


def first_number(text):
    g = re.search(r'-?[0-9][0-9,]*(?:\.[0-9]+)?', text.replace('**', ''))
    return float(g.group(0).replace(',', '')) if g else float('nan')


def previous(path):
    """row_key -> the median cell of the previous report's summary table."""
    prev = {}
    if not path or not os.path.exists(path):
        return prev
    for line in open(path):
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        if len(c) >= 4 and line.startswith('|') and c[0] not in ('#', '---') and \
                not c[0].startswith('-'):
            prev.setdefault(row_key(c[1]), c[2].replace('**', ''))
    return prev


def with_previous(lines, prev):
    """Add the previous run's figure and the change to the summary table."""
    out = []
    for line in lines:
        if line.startswith('| # |'):
            out.append(line + ' previous run (change) |')
        elif line.startswith('|---'):
            out.append(line + '---|')
        elif line.startswith('| '):
            c = [x.strip() for x in line.strip().strip('|').split('|')]
            old = prev.get(row_key(c[1])) if len(c) > 2 else None
            if old is None:
                cell = 'new'
            else:
                a, b = first_number(old), first_number(c[2])
                cell = old + (f' ({(b - a) / a * 100:+.1f}%)' if a == a and b == b and a else '')
            out.append(line + f' {cell} |')
        else:
            out.append(line)
    return out


def fmt(v, f='{:,.0f}'):
    return f.format(v) if v == v else 'n/a'


def us(v):
    """A latency in microseconds: a decimal below 10 us."""
    if v != v:
        return 'n/a'
    return f'{v:.1f}' if v < 10 else f'{v:,.0f}'


def off_target(got, target):
    """The rate achieved differs from the target by more than 2 %."""
    return target and got == got and abs(got - target) > 0.02 * target


def lat_all(raw):
    """Everything of the latency phase, or None when it did not run."""
    srv = lat_server(raw)
    if not srv:
        return None
    return {'srv': srv, 'ker': lat_kernel(raw), 'peaks': lat_peaks(raw),
            'idle': {p: idle_cpu(raw, p) for p in LAT_POLICIES}, 'half': lat_half(raw)}


def verdict(ok, have):
    return ('met' if ok else 'not met') if have else 'n/a (not measured)'


def lat_targets(raw, L):
    """The issue's targets, idle_policy adaptive (the default): a list of
    (what, verdict, the figures behind it)."""
    srv, ker, out = L['srv'], L['ker'], []
    fixed = [rt for rt in LAT_RATES if rt != 'half']
    for kind, label in LAT_KINDS:
        got = [(rt, med(srv[('adaptive', kind, rt)]['p50'])) for rt in fixed
               if ('adaptive', kind, rt) in srv]
        out.append((f"{label} p50 <= {LAT_P50_MAX[kind]} us at every rate up to 100,000/s",
                    verdict(all(v <= LAT_P50_MAX[kind] for _, v in got), len(got) == len(fixed)),
                    ', '.join(f"{us(v)} us at {lat_label(raw, rt)}" for rt, v in got)))
    got, bad = 0, []
    for kind, label in LAT_KINDS:
        for rt in fixed:
            x = srv.get(('adaptive', kind, rt))
            if not x:
                continue
            got += 1
            r = med(x['p99']) / med(x['p50']) if med(x['p50']) else float('nan')
            if not r <= LAT_P99_X:
                bad.append(f"{label} at {lat_label(raw, rt)}: {us(med(x['p99']))} us = {r:.1f}x")
    out.append((f"p99 <= {LAT_P99_X}x p50 (TFO and plain, every rate up to 100,000/s)",
                verdict(not bad, got == 2 * len(fixed)),
                '; '.join(bad) if bad else 'every row'))
    got, bad = [], []
    for rt in LAT_RATES:
        x, kr = srv.get(('adaptive', 'tfo', rt)), ker.get(rt)
        if not x or not kr:
            continue
        got.append(rt)
        for q in ('p50', 'p99'):
            if not med(x[q]) < med(kr[q]):
                bad.append(f"{q} at {lat_label(raw, rt)}: {us(med(x[q]))} vs the kernel's "
                           f"{us(med(kr[q]))} us")
    out.append(("below the kernel's TFO server at every rate (TFO p50 and p99)",
                verdict(not bad, len(got) == len(LAT_RATES)),
                '; '.join(bad) if bad else
                ', '.join(f"p50 {us(med(srv[('adaptive', 'tfo', rt)]['p50']))} vs "
                          f"{us(med(ker[rt]['p50']))} us at {lat_label(raw, rt)}"
                          for rt in got)))
    ic = L['idle'].get('adaptive')
    th = ic['threads'] if ic else []
    out.append((f"at zero load each lcore uses <= {IDLE_CPU_MAX} % of a CPU",
                verdict(all(p <= IDLE_CPU_MAX for _, p in th), bool(th)),
                ', '.join(f"{n} {p:.1f} %" for n, p in th)))
    pk = L['peaks']
    r = med(pk['adaptive']['rate']) / med(pk['busy']['rate']) \
        if 'adaptive' in pk and 'busy' in pk else float('nan')
    out.append((f"adaptive's peak within 5 % of busy's (>= {PEAK_VS_BUSY}x busy's)",
                verdict(r >= PEAK_VS_BUSY, r == r),
                f"{r:.3f}x" + (": above busy's, whose spinning lcores take turns on the CPU"
                               if r > 1 / PEAK_VS_BUSY else '') if r == r else ''))
    return out


def lat_cell(x, target):
    """p50 / p99 / p999 of a latency row, and what qualifies it."""
    if not x['rate']:
        return f"errors {sum(x['errors'])}, no transaction" if x['errors'] else 'n/a'
    c = f"{us(med(x['p50']))} / {us(med(x['p99']))} / {us(med(x['p999']))}"
    more = []
    if off_target(med(x['rate']), target):
        more.append(f"got {fmt(med(x['rate']))}/s")
    if med(x['no_slot']) > 0:	# polls that found a start due and 128 in flight
        more.append(f"in flight full in {fmt(med(x['no_slot']))} polls")
    if sum(x['errors']):
        more.append(f"**errors {sum(x['errors'])}**")
    return c + (f" ({'; '.join(more)})" if more else '') + (' *' if x['disturbed'] else '')


def kstarts(kr):
    """What became of the kernel client's starts due (started + late +
    no_slot: a late one was skipped, more than 10 ms behind its schedule;
    one without a free slot found 128 in flight)."""
    due = [s + la + n for s, la, n in zip(kr['started'], kr['late'], kr['no_slot'])]
    return (f"of {fmt(med(due))} starts due, {fmt(med(kr['late']))} skipped late, "
            f"{fmt(med(kr['no_slot']))} without a free slot")


def lat_kcell(kr, target):
    c = f"{us(med(kr['p50']))} / {us(med(kr['p99']))} / {us(med(kr['p999']))}"
    more = []
    if off_target(med(kr['rate']), target):
        more.append(f"got {fmt(med(kr['rate']))}/s; {kstarts(kr)}")
    if sum(kr['errors']):
        more.append(f"**errors {sum(kr['errors'])}**")
    return c + (f" ({'; '.join(more)})" if more else '')


def lat_errors(L):
    """The latency phase's errors, per idle policy and the kernel's."""
    per = {p: sum(sum(x['errors']) for (pp, _, _), x in L['srv'].items() if pp == p) +
           (sum(L['peaks'][p]['errors']) if p in L['peaks'] else 0) for p in LAT_POLICIES}
    return ', '.join(f"idle_policy {p} {n}" for p, n in per.items()) + \
        f", the kernel {sum(sum(kr['errors']) for kr in L['ker'].values())}"


def lat_summary_rows(raw, L, m):
    """The latency phase's rows of the summary table (bench/results/summary.md)."""
    rows = []
    a = rows.append
    srv, ker = L['srv'], L['ker']
    where = f"tfo-server's 2 lcores on CPU {m['dut_cpu']}"
    for rt in LAT_RATES:
        target = lat_target(raw, rt)
        for kind, label in LAT_KINDS:
            x = srv.get(('adaptive', kind, rt))
            if not x or not x['rate']:
                continue
            # the ratio of the medians shown (not the median of the ratios)
            ratio = med(x['p99']) / med(x['p50']) if med(x['p50']) else float('nan')
            more = [f"p999 {us(med(x['p999']))} us", f"p99 = {fmt(ratio, '{:.1f}')}x p50"]
            if off_target(med(x['rate']), target):
                more.append(f"got {fmt(med(x['rate']))}/s")
            if sum(x['errors']):
                more.append(f"errors {sum(x['errors'])}")
            tgt = ''
            if rt != 'half':
                ok = med(x['p50']) <= LAT_P50_MAX[kind] and ratio <= LAT_P99_X
                tgt = (f"p50 <= {LAT_P50_MAX[kind]} us, p99 <= {LAT_P99_X}x p50: "
                       f"{'met' if ok else 'not met'}")
            a(f"| lat | idle_policy adaptive (the default), {where}: {label}"
              f"{' (`--no-tfo 100`)' if kind == 'plain' else ''} p50 / p99 at "
              f"{lat_label(raw, rt)} | **{us(med(x['p50']))}** / {us(med(x['p99']))} us | "
              f"p50 {fmt(spread(x['p50']), '{:.0f}')}% | {'; '.join(more)}; {x['note']} | {tgt} |")
    for rt in LAT_RATES:
        kr, x = ker.get(rt), srv.get(('adaptive', 'tfo', rt))
        if not kr:
            continue
        target = lat_target(raw, rt)
        more = [f"p999 {us(med(kr['p999']))} us"]
        if off_target(med(kr['rate']), target):
            more.append(f"**got {fmt(med(kr['rate']))}/s** ({kstarts(kr)})")
        more.append(f"{fmt(med(kr['tfo_share']), '{:.0f}')}% TFO")
        if sum(kr['errors']):
            more.append(f"errors {sum(kr['errors'])}")
        tgt = ''
        if x and x['rate']:
            ok = med(x['p50']) < med(kr['p50']) and med(x['p99']) < med(kr['p99'])
            tgt = (f"tfo-server (adaptive) TFO below it, p50 and p99 "
                   f"({us(med(x['p50']))} / {us(med(x['p99']))} us): {'met' if ok else 'not met'}")
        a(f"| lat | Linux kernel TFO server (bench/kernel_tfo_server, 1 thread on CPU "
          f"{m['dut_cpu']}; its client on CPU {m['gen_cpu']}, loopback): p50 / p99 at "
          f"{lat_label(raw, rt)} | **{us(med(kr['p50']))}** / {us(med(kr['p99']))} us | "
          f"p50 {fmt(spread(kr['p50']), '{:.0f}')}% | {'; '.join(more)} | {tgt} |")
    ic = L['idle'].get('adaptive')
    if ic and ic['threads']:
        th = ic['threads']
        top = max(p for _, p in th)
        rest = []
        for pol in LAT_POLICIES[1:]:
            o = L['idle'].get(pol)
            if o and o['threads']:
                rest.append(f"{pol}: " + ', '.join(f"{n.split(' (')[0]} {p:.1f} %"
                                                   for n, p in o['threads']))
        waits = ', '.join(f"lcore {lc} {v['idle_waits']:,.0f}" for lc, v in ic['lcores'].items())
        a(f"| lat | tfo-server at zero load ({ic['window_s']:.0f} s without traffic), idle_policy "
          f"adaptive, {where}: CPU of its busiest lcore, % of one CPU | **{top:.1f} %** ("
          + ', '.join(f"{n.split(' (')[0]} {p:.1f} %" for n, p in th) +
          f") | | {'; '.join(rest)}{'; ' if rest else ''}adaptive's idle waits/s: {waits} | "
          f"each lcore <= {IDLE_CPU_MAX} %: {'met' if top <= IDLE_CPU_MAX else 'not met'} |")
    pk = L['peaks']
    if 'adaptive' in pk:
        x = pk['adaptive']
        r = med(x['rate']) / med(pk['busy']['rate']) if 'busy' in pk else float('nan')
        others = '; '.join(f"{pol} {fmt(med(pk[pol]['rate']))}/s (spread "
                           f"{fmt(spread(pk[pol]['rate']), '{:.1f}')}%)"
                           for pol in LAT_POLICIES[1:] if pol in pk)
        a(f"| lat | tfo-server TFO peak, idle_policy adaptive, {where} (tfo-loadgen flat out) "
          f"| **{fmt(med(x['rate']))}**/s | {fmt(spread(x['rate']), '{:.1f}')}% | {others}: "
          f"adaptive = **{fmt(r, '{:.3f}')}x busy**; {x['note']} | within 5 % of busy's "
          f"(>= {PEAK_VS_BUSY}x): {verdict(r >= PEAK_VS_BUSY, r == r)} |")
    return rows


def lat_section(raw):
    """The markdown section "Latency at every load"."""
    L = lat_all(raw)
    if not L:
        return ''
    m = machine(raw)
    srv, ker = L['srv'], L['ker']
    out = ['## Latency at every load', '']
    a = out.append
    a(f"{m['cpu']}, {m['date']}, commit {m['commit']}: tfo-server's two lcores (control 0 and "
      f"the worker) on CPU {m['dut_cpu']} (`--lcores 0@{m['dut_cpu']},1@{m['dut_cpu']}`: a "
      f"small VM's layout), tfo-loadgen on CPU {m['gen_cpu']} over net_memif (no RX "
      f"interrupts: an idle adaptive lcore naps); the Linux kernel's TFO server "
      f"(bench/kernel_tfo_server, one thread) on CPU {m['dut_cpu']} and its client "
      f"(bench/kernel_tfo_client -r, one thread, 128 in flight at most, 1 s warm-up) on CPU "
      f"{m['gen_cpu']}, over loopback in a private network namespace; a 100-byte echo in "
      f"both. Latency: SYN sent -> response validated (tfo-loadgen), the sendto that carries "
      f"the request -> the server's FIN after the echo (the kernel client). Medians of "
      f"{m['reps']} x {m['seconds']} s a cell: p50 / p99 / p999 in us; \"got N/s\" where the "
      f"rate achieved differs from the target by more than 2 %; errors where there were any; "
      f"\\* a cell whose repetitions others disturbed (over {CLEAN:.0f} % of the machine in "
      f"more than half of them: all kept). Half the peak: {fmt(L['half'] or float('nan'))}/s, "
      f"half of adaptive's TFO peak measured in this phase, the same for every row. The "
      f"kernel's client only does TFO: compare its row with the TFO rows; it has no idle "
      f"policy (its figures are in the first column).")
    a('')
    a('| rate | load | ' + ' | '.join(f"idle_policy {p}{' (default)' if p == 'adaptive' else ''}"
                                         for p in LAT_POLICIES) + ' |')
    a('|---:|---|' + '---|' * len(LAT_POLICIES))
    for rt in LAT_RATES:
        target = lat_target(raw, rt)
        for kind, label in LAT_KINDS:
            cells = [lat_cell(srv[(p, kind, rt)], target) if (p, kind, rt) in srv else 'n/a'
                     for p in LAT_POLICIES]
            a(f"| {lat_label(raw, rt)} | {label} | " + ' | '.join(cells) + ' |')
        if rt in ker:
            a(f"| {lat_label(raw, rt)} | Linux kernel TFO | {lat_kcell(ker[rt], target)} |"
              + ' |' * (len(LAT_POLICIES) - 1))
    kshare = [o for kr in ker.values() for o in kr['others'] if o == o]
    if kshare:
        a('')
        a(f"The kernel's rows are not filtered by others' share of the machine: its softirq work "
          f"(loopback) is not told apart from others'. That share (others' and softirq) was up "
          f"to {max(kshare):.0f} % in its runs.")
    a('')
    a('Per idle_policy: the TFO peak (tfo-loadgen flat out, as (2)) and the CPU each thread of '
      'tfo-server used in the zero-load window (utime + stime from /proc/PID/task/TID/stat, '
      '2 s after the last run, the generator and its memif peer gone), as % of one CPU; the '
      "lcores' idle counters per second over it (/tfo/stats,LCORE: idle_waits, idle_wakeups, "
      'doorbell_rings).')
    a('')
    a('| idle_policy | TFO peak/s | spread | x busy | zero load: control 0 (lcore 0) | worker '
      '(lcore 1) | other threads | idle waits/s (lcore 0 / 1) | wake-ups/s | doorbell rings/s |')
    a('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    pk = L['peaks']
    busy = med(pk['busy']['rate']) if 'busy' in pk else float('nan')
    for pol in LAT_POLICIES:
        x, ic = pk.get(pol), L['idle'].get(pol)
        rate = med(x['rate']) if x else float('nan')
        th = dict(ic['threads']) if ic else {}
        ctl = next((p for n, p in th.items() if n.startswith('control')), float('nan'))
        wk = next((p for n, p in th.items() if n.startswith('worker')), float('nan'))
        lc = ic['lcores'] if ic else {}

        err = f" (errors {sum(x['errors'])})" if x and sum(x['errors']) else ''
        a(f"| {pol} | {fmt(rate)}{err}{' *' if x and x['disturbed'] else ''} | "
          f"{fmt(spread(x['rate']), '{:.1f}') + '%' if x else ''} | {fmt(rate / busy, '{:.3f}')} | "
          f"{fmt(ctl, '{:.1f}')} % | {fmt(wk, '{:.1f}')} % | "
          f"{fmt(ic['others'] if ic else float('nan'), '{:.1f}')} % | "
          + ' | '.join(' / '.join(fmt(lc[i][key]) if i in lc else 'n/a' for i in (0, 1))
                       for key in ('idle_waits', 'idle_wakeups', 'doorbell_rings')) + ' |')
    shares = [f"{p} {L['idle'][p]['share']:.1f} %" for p in LAT_POLICIES
              if L['idle'].get(p) and L['idle'][p]['share'] == L['idle'][p]['share']]
    if shares:
        a('')
        a("Others' share of the machine during the zero-load windows: " + '; '.join(shares) + '.')
    a('')
    a('Targets (idle_policy adaptive, the default; a benchmark never fails on a number):')
    a('')
    for what, v, why in lat_targets(raw, L):
        a(f"- {what}: **{v}**{f' ({why})' if why else ''}")
    a('')
    a(f"Errors (transactions that failed or timed out) in these rows: {lat_errors(L)}. "
      "With busy, the worker spins on the CPU it shares with control 0, which then runs only "
      "when the scheduler preempts the worker: the slow path (plain transactions) waits "
      "milliseconds, and some time out -- a figure of the policy, not a failure of the run.")
    png = m.get('latency_png')
    if png:
        a('')
        a(f"The picture: [{png}]({png}) (p50 and p99 against rate, log-log, per idle_policy, TFO "
          f"and plain, beside the kernel's TFO).")
    return '\n'.join(out) + '\n'


# bench.sh's scaling phase (6): the issue's targets ("Many cores")
SCALE_TSC_FLAT = 0.10		# worker TSC per transaction: max / min - 1 over N
SCALE_PLAIN_X = {2: 1.8, 4: 3.2}	# plain transactions/s, C control lcores / one
FUNCTIONAL = 'functional (lcores share CPUs), not a figure'


def task_ticks(path):
    """A task_snap file: (time in us, {tid: (comm, ticks)})."""
    now, th = None, {}
    for line in open(path):
        f = line.split()
        if f[0] == 'now_us':
            now = int(f[1])
        elif len(f) == 3:
            th[f[0]] = (f[1], int(f[2]))
    return now, th


def gen_shares(raw, name, clk_tck):
    """The generator lcores' CPU share (% of one CPU) in the run lg_NAME:
    {generator index: %}, from its threads lcore-worker-L (L = 1 + index)."""
    try:
        t0, a = task_ticks(os.path.join(raw, name + '.tasks_a'))
        t1, b = task_ticks(os.path.join(raw, name + '.tasks_b'))
    except (OSError, ValueError, IndexError):
        return {}
    if not t0 or not t1 or t1 <= t0:
        return {}
    out = {}
    for tid, (comm, ticks) in b.items():
        g = re.fullmatch(r'(?:rte|lcore)-worker-(\d+)', comm)
        if g and tid in a:
            out[int(g.group(1)) - 1] = (ticks - a[tid][1]) / clk_tck / ((t1 - t0) / 1e6) * 100
    return out


def lcore_deltas(a, b):
    """Every lcore's counters' increase between two /tfo/stats snapshots:
    {('worker'|'control', index): {counter: increase}}."""
    out = {}
    for key, v in b.items():
        g = re.fullmatch(r'lcore\d+_(worker|control)(\d*)', key)
        if not g or not isinstance(v, dict):
            continue
        old = a.get(key, {})
        out[(g.group(1), int(g.group(2) or 0))] = {k: v.get(k, 0) - old.get(k, 0)
                                                   for k in set(v) | set(old)
                                                   if isinstance(v.get(k, 0), int)}
    return out


def scale_rows(raw):
    """The rows of bench.sh's scaling phase (scale_rows.txt), each a dict of
    its layout and per-repetition figures."""
    path = os.path.join(raw, 'scale_rows.txt')
    if not os.path.exists(path):
        return []
    m = machine(raw)
    hz = tsc_hz(raw)
    clk = int(m.get('clk_tck') or 100)
    rows = []
    for line in open(path):
        row = dict(x.split('=', 1) for x in line.split() if '=' in x)
        for k in ('workers', 'controls', 'shared'):
            row[k] = int(row[k])
        name = row['name']
        files = reps(raw, 'lg_' + name + '_{}.json')
        use, row['note'] = clean_reps(raw, 'lg_' + name, len(files))
        x = {k: [] for k in ('rate', 'target', 'errors', 'rexmit', 'p50', 'p99', 'agree',
                             'drops', 'relayed')}
        per = {}	# (role, index) -> {'tsc': [...], 'share': [...]}
        gens = {}
        for n, f in enumerate(files, 1):
            lg = json.load(open(f))
            x['errors'].append(lg['errors'])
            x['rexmit'].append(lg['retransmissions'])
            try:
                d = lcore_deltas(counters(os.path.join(raw, f'tel_sc_{name}_{n}_a.json')),
                                 counters(os.path.join(raw, f'tel_sc_{name}_{n}_b.json')))
            except (OSError, KeyError, ValueError):
                d = {}
            x['drops'].append(sum(v.get('tx_drop_full', 0) + v.get('ring_drop_full', 0)
                                  for v in d.values()))
            x['relayed'].append(sum(v.get('ctrl_relayed', 0) for v in d.values()))
            opened = sum(v.get('TCPFastOpenPassive', 0) for (r, _), v in d.items()
                         if r == 'worker')
            x['agree'].append(opened == lg['tfo'] and lg['fallbacks'] == 0)
            if n not in use:
                continue
            x['rate'].append(lg['txn_per_s'])
            x['target'].append(lg.get('rate', 0))
            x['p50'].append(lg['latency_us']['p50'])
            x['p99'].append(lg['latency_us']['p99'])
            for (role, i), v in d.items():
                p = per.setdefault((role, i), {'tsc': [], 'share': []})
                # a worker's cost per TFO open; a control's per plain open
                what = v.get('TCPFastOpenPassive' if role == 'worker' else
                             'conns_opened_plain', 0)
                if what:
                    p['tsc'].append(v.get('busy_tsc', 0) / what)
                if lg['run_s'] > 0:
                    p['share'].append(v.get('busy_tsc', 0) / hz / lg['run_s'] * 100)
            for i, sh in gen_shares(raw, f'lg_{name}_{n}', clk).items():
                gens.setdefault(i, []).append(sh)
        row['x'] = x
        row['per'] = {k: {q: med(v) for q, v in p.items()} for k, p in per.items()}
        row['gens'] = {i: med(v) for i, v in sorted(gens.items())}
        try:
            row['accounting'] = bool(re.search(r'^accounting: ok', open(
                os.path.join(raw, row['log'])).read(), re.M))
        except (OSError, KeyError):
            row['accounting'] = None
        kname = {'tfo': f"tfo_{row['workers']}", 'plain': f"plain_{row['controls']}"}.get(
            row['kind'])
        row['kernel'] = kernel(raw, f'kscale_{kname}_{{}}.log') if kname else None
        rows.append(row)
    return rows


def role_figs(row, role, q):
    """The per-lcore median figure q ('tsc', 'share') of one role, by index."""
    return [v[q] for (r, _), v in sorted(row['per'].items()) if r == role and v[q] == v[q]]


def slash(vals, f='{:,.0f}'):
    return ' / '.join(fmt(v, f) for v in vals) if vals else 'n/a'


def row_tsc(row):
    """A TFO row's worker TSC per transaction: the median over its workers,
    and their spread ((max - min) / median, %)."""
    t = role_figs(row, 'worker', 'tsc')
    return med(t), spread(t)


def scale_targets(rows):
    """The issue's targets over the rows that had a CPU per lcore: a list of
    (what, verdict, the figures behind it)."""
    out = []
    tfo = [r for r in rows if r['kind'] == 'tfo']
    real = [r for r in tfo if not r['shared'] and row_tsc(r)[0] == row_tsc(r)[0]]
    t = [row_tsc(r)[0] for r in real]
    r = max(t) / min(t) - 1 if len(t) >= 2 else float('nan')
    out.append((f"worker busy TSC per TFO transaction within {SCALE_TSC_FLAT * 100:.0f} % from 1 "
                f"to 7 workers (max / min - 1 over the rows)",
                verdict(r <= SCALE_TSC_FLAT, len(t) >= 2) if real or not tfo else
                'n/a (' + FUNCTIONAL + ')',
                (f"{r * 100:.1f} %: " if r == r else '') +
                ', '.join(f"{fmt(v)} at {x['workers']}" for v, x in zip(t, real))
                + ('' if any(x['workers'] == 1 for x in real) and
                   any(x['workers'] == 7 for x in real) else
                   ' (measured over these worker counts only)' if real else '')))
    plain = {x['controls']: x for x in rows if x['kind'] == 'plain'}
    one = plain.get(1)
    for c, goal in SCALE_PLAIN_X.items():
        x = plain.get(c)
        if not x or not one:
            out.append((f"plain transactions/s with {c} control lcores >= {goal}x one",
                        'n/a (not measured)', ''))
            continue
        ratio = med(x['x']['rate']) / med(one['x']['rate']) if med(one['x']['rate']) else \
            float('nan')
        v = 'n/a (' + FUNCTIONAL + ')' if x['shared'] or one['shared'] else \
            verdict(ratio >= goal, ratio == ratio)
        out.append((f"plain transactions/s with {c} control lcores >= {goal}x one", v,
                    f"{fmt(ratio, '{:.2f}')}x ({fmt(med(x['x']['rate']))} vs "
                    f"{fmt(med(one['x']['rate']))}/s, {x['workers']} workers)"))
    p90 = next((x for x in rows if x['kind'] == 'p90'), None)
    if p90:
        e = sum(p90['x']['errors'])
        out.append(("zero client errors at 90 % of the plain peak",
                    'n/a (' + FUNCTIONAL + ')' if p90['shared'] else verdict(e == 0, True),
                    f"{e} errors in {len(p90['x']['errors'])} runs at "
                    f"{fmt(med(p90['x']['target']))}/s"))
    else:
        out.append(("zero client errors at 90 % of the plain peak", 'n/a (not measured)', ''))
    return out


def kcell(k):
    """The kernel's figure beside a row: transactions/s and its TFO share."""
    if not k or not k['rate']:
        return 'n/a'
    more = [f"{fmt(med(k['tfo_share']), '{:.0f}')}% TFO"]
    if sum(k['errors']):
        more.append(f"errors {sum(k['errors'])}")
    return f"{fmt(med(k['rate']))}/s ({', '.join(more)})"


def cpus_cell(row):
    n_srv = len(row['srv_set'].split(','))
    n_lg = len(row['lg_set'].split(','))
    return (f"{n_srv} / {n_lg}" + (' (shared)' if row['shared'] else '') +
            f"<br>`{row['srv']}` / `{row['lg']}`")


def scale_section(raw):
    """The markdown section "Scaling with cores"."""
    rows = scale_rows(raw)
    m = machine(raw)
    if not rows:
        return (f"## Scaling with cores\n\nNot run: {m['scale_skipped']}.\n"
                if m.get('scale_skipped') else '')
    hz = tsc_hz(raw)
    out = ['## Scaling with cores', '']
    a = out.append
    shared = any(r['shared'] for r in rows)
    a(f"{m['cpu']} ({m['cpus']} CPUs; TSC {fmt(hz / 1e9, '{:.2f}')} GHz), {m['date']}, commit "
      f"{m['commit']}; medians of {m['reps']} x {m['seconds']} s. tfo-server with N workers "
      f"on one net_memif port (`[port] rss = peer`), echo 100 B; tfo-loadgen with N generator "
      f"lcores (`--rss-peer C`: each flow on the queue pair of the worker the server's hash "
      f"names), 128 transactions in flight per generator, 256 client addresses. Layout "
      f"(`--lcores`, server / loadgen): the loadgen's main lcore (it naps) on CPU "
      f"{m['gen_cpu']} with this script, its generators on the next CPUs, tfo-server's control "
      f"lcores and then its workers on the CPUs after those, each lcore on a CPU of its own "
      f"when there are 2N + C + 1 CPUs; else round robin over the CPUs: such a row is "
      f"marked *{FUNCTIONAL}*. Worker busy TSC per transaction: the worker's busy_tsc (polls "
      f"that found frames) over its TCPFastOpenPassive (`/tfo/stats` before and after each "
      f"run, as (2)); busy share: busy_tsc / TSC Hz over the loadgen's run time. Generators' "
      f"CPU share: utime + stime of their threads (/proc) over the run, % of one CPU -- they "
      f"poll without pause, so under 100 % means they waited for a CPU, not that they had "
      f"room; the workers' busy share under 100 % is what says the generators set the rate. "
      f"Beside each row the Linux kernel's server (bench/kernel_tfo_server -P, one thread "
      f"per CPU) on the CPUs tfo-server had, its client (bench/kernel_tfo_client -P, two "
      f"threads per CPU x 16 in flight) on the generators', over loopback in a private "
      f"namespace (its softirq work runs where its packets are sent: the CPU split is "
      f"approximate); plain: `net.ipv4.tcp_fastopen = 1` there, so the server offers no "
      f"cookie.")
    if shared:
        a('')
        a(f"**Rows on shared CPUs are {FUNCTIONAL}**: they show that the layout runs "
          f"(every worker and control lcore carries traffic, accounting balanced), not what "
          f"it costs.")
    a('')
    a('### TFO, one control lcore')
    a('')
    a('| workers | CPUs server / loadgen | TFO transactions/s | spread | worker busy TSC per '
      'transaction: median (each worker) | spread over workers | workers busy | generators '
      'CPU | errors | retransmissions | drops (tx full + ring full) | kernel TFO, same CPUs |'
      ' x kernel | mode |')
    a('|---:|---|---:|---:|---|---:|---|---|---:|---:|---:|---|---:|---|')
    for r in (x for x in rows if x['kind'] == 'tfo'):
        x = r['x']
        t, sp = row_tsc(r)
        k = r['kernel']
        kx = med(x['rate']) / med(k['rate']) if k and k['rate'] and med(k['rate']) else \
            float('nan')
        agree = '' if all(x['agree']) else ' (TFO opens != the loadgen\'s TFO, or fallbacks)'
        a(f"| {r['workers']} | {cpus_cell(r)} | **{fmt(med(x['rate']))}**{agree} | "
          f"{fmt(spread(x['rate']), '{:.1f}')}% | **{fmt(t)}** "
          f"({slash(role_figs(r, 'worker', 'tsc'))}) | {fmt(sp, '{:.1f}')}% | "
          f"{slash(role_figs(r, 'worker', 'share'), '{:.0f}%')} | "
          f"{slash(list(r['gens'].values()), '{:.0f}%')} | {sum(x['errors'])} | "
          f"{fmt(med(x['rexmit']))} | {fmt(med(x['drops']))} | {kcell(k)} | "
          f"{fmt(kx, '{:.1f}')}x | {FUNCTIONAL if r['shared'] else 'figure'}; {r['note']} |")
    plain = [x for x in rows if x['kind'] in ('plain', 'p90')]
    if plain:
        one = next((x for x in plain if x['kind'] == 'plain' and x['controls'] == 1), None)
        a('')
        a(f"### Plain (`--no-tfo 100`), {plain[0]['workers']} workers, by control lcores")
        a('')
        a('| control lcores | CPUs server / loadgen | plain transactions/s | spread | x one '
          'control | control busy TSC per plain open (each) | controls busy | workers busy | '
          'generators CPU | errors | retransmissions | drops (tx full + ring full) / relayed | '
          'p50 / p99 us | kernel plain, same CPUs | mode |')
        a('|---|---|---:|---:|---:|---|---|---|---|---:|---:|---|---|---|---|')
        for r in plain:
            x = r['x']
            c = r['controls']
            if r['kind'] == 'p90':
                label = (f"{c}, at 90 % of the peak: {fmt(med(x['target']))}/s"
                         f" (tfo-loadgen --rate)")
            else:
                label = str(c)
            x1 = (med(x['rate']) / med(one['x']['rate'])
                  if one and r['kind'] == 'plain' and med(one['x']['rate']) else float('nan'))
            a(f"| {label} | {cpus_cell(r)} | **{fmt(med(x['rate']))}** | "
              f"{fmt(spread(x['rate']), '{:.1f}')}% | {fmt(x1, '{:.2f}')} | "
              f"{slash(role_figs(r, 'control', 'tsc'))} | "
              f"{slash(role_figs(r, 'control', 'share'), '{:.0f}%')} | "
              f"{slash(role_figs(r, 'worker', 'share'), '{:.0f}%')} | "
              f"{slash(list(r['gens'].values()), '{:.0f}%')} | **{sum(x['errors'])}** | "
              f"{fmt(med(x['rexmit']))} | {fmt(med(x['drops']))} / {fmt(med(x['relayed']))} | "
              f"{fmt(med(x['p50']), '{:.0f}')} / {fmt(med(x['p99']), '{:.0f}')} | "
              f"{kcell(r['kernel'])} | {FUNCTIONAL if r['shared'] else 'figure'}; "
              f"{r['note']} |")
    bad = [f"{r['name']} ({r['log']})" for r in rows if r['accounting'] is False]
    a('')
    a("tfo-server's accounting at exit (every frame received or sent accounted for, per "
      "lcore): " + ('ok in every row.' if not bad else 'NOT ok in ' + ', '.join(bad) + '.'))
    a('')
    a('Targets (a benchmark never fails on a number; rows on shared CPUs are not judged):')
    a('')
    for what, v, why in scale_targets(rows):
        a(f"- {what}: **{v}**{f' ({why})' if why else ''}")
    png = m.get('scale_png')
    if png:
        a('')
        a(f"The picture: [{png}]({png}) (transactions/s and worker TSC per transaction "
          f"against workers; plain transactions/s against control lcores).")
    return '\n'.join(out) + '\n'


def scale_summary_rows(raw):
    """The scaling phase's rows of the summary table (bench/results/summary.md)."""
    rows = scale_rows(raw)
    out = []
    tg = {w: (v, why) for w, v, why in scale_targets(rows)} if rows else {}
    tsc_t = next((f"{w}: {v}" for w, (v, _) in tg.items() if w.startswith('worker')), '')
    for r in rows:
        x = r['x']
        fn = f" -- {FUNCTIONAL}" if r['shared'] else ''
        cpus = (f"{len(r['srv_set'].split(','))} + {len(r['lg_set'].split(','))} CPUs"
                + (' shared' if r['shared'] else ''))
        if r['kind'] == 'tfo':
            t, sp = row_tsc(r)
            out.append(
                f"| sc | tfo-server, {r['workers']} worker(s) on one net_memif port (rss = "
                f"peer), TFO: transactions/s of the machine{fn} | **{fmt(med(x['rate']))}**/s "
                f"| {fmt(spread(x['rate']), '{:.1f}')}% | {cpus}; worker busy TSC per "
                f"transaction {fmt(t)} (each {slash(role_figs(r, 'worker', 'tsc'))}, spread "
                f"{fmt(sp, '{:.1f}')}%); generators' CPU "
                f"{slash(list(r['gens'].values()), '{:.0f}%')}; errors {sum(x['errors'])}; "
                f"kernel TFO on the same CPUs {kcell(r['kernel'])} | "
                f"{tsc_t if r['workers'] == 1 else ''} |")
        elif r['kind'] == 'plain':
            goal = SCALE_PLAIN_X.get(r['controls'])
            tgt = next((f"{w}: {v}" for w, (v, _) in tg.items()
                        if goal and w.startswith(f"plain transactions/s with {r['controls']} ")),
                       '')
            out.append(
                f"| sc | tfo-server, {r['workers']} workers, {r['controls']} control lcore(s), "
                f"plain (`--no-tfo 100`): transactions/s of the machine{fn} | "
                f"**{fmt(med(x['rate']))}**/s | {fmt(spread(x['rate']), '{:.1f}')}% | {cpus}; "
                f"controls busy {slash(role_figs(r, 'control', 'share'), '{:.0f}%')}; "
                f"errors {sum(x['errors'])}; kernel plain on the same CPUs "
                f"{kcell(r['kernel'])} | {tgt} |")
        else:
            v = next((v for w, (v, _) in tg.items() if w.startswith('zero client')), '')
            out.append(
                f"| sc | tfo-server, {r['workers']} workers, {r['controls']} control lcore(s), "
                f"plain at 90 % of the plain peak: client errors{fn} | "
                f"**{sum(x['errors'])}** | | {cpus}; {fmt(med(x['rate']))}/s of "
                f"{fmt(med(x['target']))}/s asked; retransmissions {fmt(med(x['rexmit']))}; "
                f"p50 / p99 {fmt(med(x['p50']), '{:.0f}')} / {fmt(med(x['p99']), '{:.0f}')} us "
                f"| zero errors: {v} |")
    return out


def summary(raw, prev_md=None):
    m = machine(raw)
    hz = tsc_hz(raw)
    tp = testpmd(raw, hz)
    ts = tfo_server(raw, hz)
    k = kernel(raw)
    pl = pipeline_rows(raw)
    ratio_io = med(ts['core_rx_mpps']) / med(tp['core_mpps']) if tp['core_mpps'] else float('nan')
    ratio_k = med(ts['txn']) / med(k['rate']) if k['rate'] else float('nan')
    errs = sum(ts['errors']) + sum(k['errors'])
    lines = []
    a = lines.append
    a(f"Run {m['date']} on {m['cpu']} ({m['cpus']} CPUs; {m['flags'].strip()}"
      + (f"; TSC {hz / 1e9:.2f} GHz" if hz == hz else '') + f"), kernel {m['kernel']}, DPDK {m['dpdk']}, commit {m['commit']}; "
      f"device under test (tfo-server's two lcores) on CPU {m['dut_cpu']}, traffic sources "
      f"on CPU {m['gen_cpu']}; "
      f"medians of {m['reps']} x {m['seconds']} s, spread = (max - min) / median; load average "
      f"before/after: {m['load_before']} / {m.get('load_after', '?')} (a shared machine)"
      + (f"; a partial run: phases {m['phases']}." if m.get('phases', 'all') != 'all' else '.'))
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
    if tp['mpps']:
        a(f"| 1 | testpmd macswap, net_memif, 128-byte frames: forwarded (feeder-bound) | "
          f"{fmt(med(tp['mpps']), '{:.2f}')} Mpps | {fmt(spread(tp['mpps']), '{:.1f}')}% | "
          f"{fmt(med(tp['cycles']), '{:.0f}')} busy TSC cycles/packet = **{fmt(med(tp['core_mpps']), '{:.1f}')} "
          f"Mpps per forwarding core** (spread {fmt(spread(tp['core_mpps']), '{:.1f}')}%); "
          f"{tp['note']} | I/O ceiling |")
    if ts['txn']:
        a(f"| 2 | tfo-server, 1 worker, echo 100 B, driven by tfo-loadgen over net_memif: "
          f"TFO transactions/s of the machine (loadgen-bound) | **{fmt(med(ts['txn']))}**/s | "
          f"{fmt(spread(ts['txn']), '{:.1f}')}% | worker busy {fmt(med(ts['share']), '{:.0f}')}%: "
          f"**{fmt(med(ts['core_txn']))} transactions/s per worker core**, "
          f"**{fmt(med(ts['core_rx_mpps']), '{:.2f}')} Mpps in per worker core** "
          f"({fmt(med(ts['pkts_per_txn']), '{:.1f}')} packets in+out per transaction); "
          f"{ts['note']} | |")
    if ts['txn'] and tp['mpps']:
        a(f"| 2/1 | packets/s per worker core vs the macswap ceiling per core | "
          f"**{fmt(ratio_io, '{:.2f}')}x** | | | >= 0.5x: {'met' if ratio_io >= 0.5 else 'not met'} |")
    if k['rate']:
        a(f"| 3 | Linux kernel TFO server + client (bench/kernel_tfo_*), loopback, both CPUs: "
          f"transactions/s of the machine | **{fmt(med(k['rate']))}**/s | "
          f"{fmt(spread(k['rate']), '{:.1f}')}% | {fmt(med(k['tfo_share']), '{:.0f}')}% of them TFO; "
          f"{fmt(2 * hz / med(k['rate']) / 1e3 if k['rate'] else float('nan'), '{:.0f}')}k TSC cycles "
          f"of the machine per transaction | |")
    if ts['txn'] and k['rate']:
        a(f"| 2/3 | tfo-server (+ its load generator) vs the kernel, transactions/s of the same "
          f"2 CPUs | **{fmt(ratio_k, '{:.1f}')}x** | | | >= 50x: {'met' if ratio_k >= 50 else 'not met'} |")
    L = lat_all(raw)
    if L:
        lines.extend(lat_summary_rows(raw, L, m))
    # the targets of "Half the cycles per TFO transaction" (docs: README
    # "Performance"): echo 400 offloaded / 480 software, http 600, cold 700
    for key, goal in (((1000, 'echo', 'offload'), 400), ((65536, 'echo', 'offload'), 400),
                      ((1000, 'echo', 'sw'), 480), ((1000, 'http', 'offload'), 600)):
        if key in pl:
            t, sp, mt = pl[key]
            a(f"| 4 | tfo-bench pipeline: {key[1]}, {key[0]} live, checksums {key[2]}: "
              f"TSC cycles per complete TFO transaction | **{t:.0f}** | {sp} | "
              f"{mt:.2f} M transactions/s per core | <= {goal}: "
              f"{'met' if t <= goal else 'not met'} |")
    cold = pipeline_rows(raw, 'tb_pipeline_cold.txt').get((1000, 'echo', 'offload'))
    if cold:
        a(f"| 4 | tfo-bench pipeline --cold (client frames flushed from the caches): echo, 1000 "
          f"live, checksums offload | **{cold[0]:.0f}** | {cold[1]} | {cold[2]:.2f} M "
          f"transactions/s per core | <= 700: {'met' if cold[0] <= 700 else 'not met'} |")
    ck = cookie_ratio(raw)
    if ck:
        a(f"| 4 | tfo-bench cookie, aes128, batch 32: TSC cycles per cookie checked vs the raw "
          f"ipsec-mb ECB pass | **{ck[0] / ck[1]:.2f}x** | | {ck[0]:.1f} vs {ck[1]:.1f} cycles "
          f"per cookie | <= 1.5x: {'met' if ck[0] / ck[1] <= 1.5 else 'not met'} |")
    mem = engine_mem(raw)
    if mem:
        live = max(mem)
        a(f"| 4 | tfo-bench engine: memory per live connection, entry plus index ({live} live) "
          f"| **{mem[live]:.0f} B** | | | <= 128 B: {'met' if mem[live] <= 128 else 'not met'} |")
    af = pipeline_rows(raw, 'tb_pipeline_ackfin.txt').get((1000, 'echo', 'sw'))
    if af:
        per_txn = hz / med(ts['core_txn']) if ts['core_txn'] else float('nan')
        a(f"| 4 | the same in tfo-loadgen's shape (ACK and FIN in one segment), software "
          f"checksums: the worker's work in (2) without memif | **{af[0]:.0f}** | {af[1]} | "
          f"(2)'s worker: {fmt(per_txn)} busy TSC cycles per transaction | |")
    loads = {n: latency(raw, n) for n, _, _ in LOADS}
    loads['peak'] = {'rate': ts['txn'], 'p50': ts['p50'], 'p99': ts['p99'],
                     'errors': ts['errors'], 'note': ts['note']}
    tfo_rate = med(ts['txn'])
    for n, label, args in LOADS:
        ld = loads[n]
        if not ld['rate']:
            continue
        errs += sum(ld['errors']) if n != 'peak' else 0
        ratio = med(ld['rate']) / tfo_rate if tfo_rate == tfo_rate and tfo_rate else float('nan')
        target = ''
        if n == 'plain':
            target = f"plain >= 0.5x TFO: {'met' if ratio >= 0.5 else 'not met'}"
        a(f"| 5 | tfo-server under load: {label}{f' (`{args}`)' if args else ''}: transactions/s "
          f"of the machine | **{fmt(med(ld['rate']))}**/s | {fmt(spread(ld['rate']), '{:.1f}')}% | "
          f"{fmt(ratio, '{:.2f}')}x TFO; p50 / p99 {fmt(med(ld['p50']), '{:.0f}')} / "
          f"{fmt(med(ld['p99']), '{:.0f}')} us; {ld['note']} | {target} |")
    fl = flood(raw)
    if fl['syn']:
        good = open(os.path.join(raw, 'flood_good_rate.txt')).read().strip()
        served = [s / t * 100 if t else float('nan') for s, t in zip(fl['served'], fl['started'])]
        of_offered = [s / o * 100 if o else float('nan')
                      for s, o in zip(fl['served'], fl['offered'])]
        a(f"| 6 | spoofed-SYN flood at the generator's top rate (`--spoof-flood max`, "
          f"{fmt(med(fl['syn']))} SYNs/s the port took, {fmt(med(fl['syn_drop']))} per run "
          f"refused by a full TX queue; tfo-server at `[tcp] syncookies = auto`, the "
          f"default): SYN-ACKs/s the server answered | "
          f"**{fmt(med(fl['synack']))}**/s | {fmt(spread(fl['synack']), '{:.1f}')}% | "
          f"server: SYN cookies {fmt(med(fl['syncookies']))} (the worker's "
          f"{fmt(med(fl['w_syncookies']))}), frames to the control core "
          f"{fmt(med(fl['to_control']))}, SYN drops {fmt(med(fl['drops']))}, ring_drop_full "
          f"{fmt(med(fl['ring_drop']))}, tx_drop_full {fmt(med(fl['tx_drop']))} per run; "
          f"loadgen: spoofed SYNs sent {fmt(med(fl['spoof_sent']))}, other segments to "
          f"spoofed sources {fmt(med(fl['spoof_other']))}, good clients' frames refused by "
          f"its own full TX queue {fmt(med(fl['good_tx_drop']))} per run (medians) | |")
        a(f"| 6 | during the flood: good clients served (TFO and plain, `--no-tfo 50` at "
          f"{good}/s) | **{fmt(med(served), '{:.2f}')}%** of those started "
          f"({fmt(med(of_offered), '{:.2f}')}% of those offered) | | TFO {fmt(med(fl['tfo']))} "
          f"p50 / p99 {fmt(med(fl['tfo_p50']), '{:.0f}')} / {fmt(med(fl['tfo_p99']), '{:.0f}')} us;"
          f" plain {fmt(med(fl['plain']))} p50 / p99 {fmt(med(fl['plain_p50']), '{:.0f}')} / "
          f"{fmt(med(fl['plain_p99']), '{:.0f}')} us (served of those started; "
          f"{fmt(med(fl['offered']))} offered, {fmt(med(fl['no_slot']))} starts found no "
          f"free slot: clients waiting); SYN retransmissions {fmt(med(fl['syn_rexmit']))} "
          f"(per run: {', '.join(str(x) for x in fl['syn_rexmit'])}); "
          f"errors {sum(fl['errors'])} (not counted below) | "
          f"100% served, no SYN retransmission: "
          f"{'met' if min(served) >= 100 and max(fl['syn_rexmit']) == 0 else 'not met'} |")
    names = {'plain': ('plain', 'plain transaction'),
             'bad cookie': ('bad-cookie', 'bad-cookie transaction'),
             'cookie request': ('cookie-req', 'cookie-request transaction')}
    sr = slow_rows(raw)
    for ck in ('offload', 'sw'):
        for load_name, (opt, what) in names.items():
            x = sr.get((ck, load_name, 'auto', 1))
            if not x:
                continue
            tgt = f"x TFO <= 2: {'met' if x['x_tfo'] <= 2 else 'not met'}" \
                if load_name == 'plain' else ''
            a(f"| 4s | tfo-bench pipeline --{opt}, checksums {ck}: TSC per {what}, worker + "
              f"control in memory | **{x['total']:.0f}** | {x['spread']} | worker "
              f"{x['worker']:.0f} + control {x['control']:.0f}; {x['x_tfo']:.2f}x the TFO "
              f"transaction; {x['to_ctl']:.2f} frames to control, {x['syncookies']:.2f} SYN "
              f"cookies per transaction | {tgt} |")
    cr = controls_rows(raw)
    for (ck, load_name, mode, n), x in sorted(cr.items()):
        one = cr.get((ck, load_name, mode, 1))
        if n == 1 or not one or load_name not in names:
            continue
        opt, what = names[load_name]
        ok = x['x1'] <= 1.1 and x['speedup'] >= 1.7
        a(f"| 4c | tfo-bench pipeline --{opt} --controls 1,{n}, checksums {ck}: control TSC "
          f"per {what} summed over {n} control lcores (in memory) | **{x['sum']:.0f}** | | "
          f"{x['x1']:.2f}x the 1 control's {one['sum']:.0f}; per control {x['per']}; control "
          f"stage {x['mtps']:.2f} M/s = TSC Hz / the busiest control's {x['busiest']:.0f} "
          f"(1 control: {one['mtps']:.2f} M/s): **{x['speedup']:.2f}x one control** "
          f"({x['per_n']:.2f} per control core) | cost not growing with N (<= 1.1x) and "
          f">= 1.7x one: {'met' if ok else 'not met'} |")
    fr = slow_rows(raw, 'tb_pipeline_flood.txt') or \
        {k: v for k, v in sr.items() if k[1] == 'spoofed SYN'}
    for ck in ('offload', 'sw'):
        for mode in ('auto', 'always', 'no'):
            x = fr.get((ck, 'spoofed SYN', mode, 1))
            if not x:
                continue
            where = ('the worker answers (nothing to a control)' if x['to_ctl'] == 0 else
                     f"{x['to_ctl']:.2f} frames to control")
            a(f"| 4f | tfo-bench pipeline --flood --syncookies {mode}, checksums {ck}: TSC per "
              f"spoofed SYN in memory | **{x['total']:.0f}** | {x['spread']} | worker "
              f"{x['worker']:.0f} + control {x['control']:.0f}; {where}; {x['syncookies']:.2f} "
              f"SYN cookies per SYN (the worker's {x['w_syncookies']:.2f}): "
              f"**{hz / x['total'] / 1e6:.1f} M spoofed SYNs/s answered per core** | "
              f">= 5 M/s per worker core: {'met' if hz / x['total'] >= 5e6 else 'not met'} |")
    lines.extend(scale_summary_rows(raw))
    a('')
    a(f"Errors in all runs: {errs} (tfo-loadgen validated every response); tfo-server's "
      f"TCPFastOpenPassive = the loadgen's TFO count, no fallback: "
      f"{'yes' if ts['all_agree'] else 'NO'} in every run."
      + (f" Errors in the latency rows (lat): {lat_errors(L)} (see \"Latency at every load\")."
         if L else '')
      + (" The scaling rows (sc) count their own errors (see \"Scaling with cores\")."
         if os.path.exists(os.path.join(raw, 'scale_rows.txt')) else ''))
    if prev_md:
        lines = with_previous(lines, previous(prev_md))
        a = lines.append
        a('')
        a(f"The previous run's figures: {os.path.basename(prev_md)} (kept by bench.sh) "
          f"-- \"new\" where that run had no such row. Figures of a shared, noisy machine: "
          f"a change within the spreads is noise.")
    return '\n'.join(lines)


def code_block(raw, name, title):
    """A tfo-bench output: its comment lines in code blocks, its tables as
    tables, in their order."""
    path = os.path.join(raw, name)
    if not os.path.exists(path):
        return ''
    keep = [x.rstrip() for x in open(path)
            if not x.startswith(('tfo:', 'TELEMETRY', 'EAL:')) and x.strip()]
    out = [f'### {title}']
    prev = None
    for x in keep:
        kind = x.startswith('|')
        if kind != prev:
            if prev is False:
                out.append('```')
            out.append('')
            if not kind:
                out.append('```')
            prev = kind
        out.append(x)
    if prev is False:
        out.append('```')
    return '\n'.join(out) + '\n'


AFXDP_HELD = 99.0	# % of the queries sent answered NOERROR: the rate held
AFXDP_SENT = 95.0	# % of the rate the generator must send for a run to count


def afxdp_runs(raw, srv, proto, phase='afxdp'):
    """The phase afxdp's (or dnssec's: the same runs) runs of one server and
    transport: (fixed, steps), each run a dict of its .run file (rate, secs,
    sent, answered, ticks) with cpu_s (the server's CPU seconds over the
    run), share (% answered), held, and for tfo-server tel (its counters'
    change over the run); steps in their order."""
    d = os.path.join(raw, phase)
    clk = float(machine(raw).get('clk_tck') or 100)

    def one(name):
        f = os.path.join(d, name)
        if not os.path.exists(f + '.run'):
            return None
        w = open(f + '.run').read().split()
        r = {k: (v if k in ('server', 'proto') else int(v)) for k, v in zip(w[::2], w[1::2])}
        if srv.startswith('tfo-server'):
            try:
                a, b = counters(f + '.tel_a'), counters(f + '.tel_b')
                r['tel'] = {k: b[k] - a[k] for k in b
                            if isinstance(b[k], int) and isinstance(a.get(k), int)}
                r['cpu_s'] = (b['busy_tsc'] - a['busy_tsc']) / b['tsc_hz']
            except (OSError, ValueError, KeyError, ZeroDivisionError):
                r['cpu_s'] = float('nan')
        else:
            r['cpu_s'] = r['ticks'] / clk
        r['share'] = r['answered'] * 100.0 / r['sent'] if r['sent'] else 0.0
        r['short'] = r['sent'] * 100.0 < AFXDP_SENT * r['rate'] * r['secs']
        r['held'] = r['share'] >= AFXDP_HELD and not r['short']
        return r

    fixed = [x for x in (one(f'{srv}_{proto}_fixed_{n}') for n in range(1, 100)) if x]
    steps = []
    for n in range(1, 100):
        x = one(f'{srv}_{proto}_step_{n}')
        if x is None:
            break
        steps.append(x)
    return fixed, steps


def afxdp_cells(fixed, steps, rate):
    """The cells of one row of afxdp_runs' runs (non-empty fixed): a dict of
    share (% answered at the fixed rate, median), of ("(answered of sent)", and
    whether fewer were sent than the rate),
    best (the highest rate held), search (each step's outcome), cpu (us per
    answer, and at the top rate held), cpu_us (the median alone), qps (answered
    per second, and at the top rate), busy (the server's CPU share)."""
    def cpu_us(r):
        return r['cpu_s'] / r['answered'] * 1e6 if r['answered'] else float('nan')

    held = sum(x['held'] for x in fixed) * 2 >= len(fixed)
    top = [x for x in steps if x['held']]
    if not held:
        best = f"below {rate:,}/s"
    elif steps and all(x['held'] for x in steps):
        best = f"**{steps[-1]['rate']:,}/s** or more (every step held)"
    else:
        best = f"**{(top[-1]['rate'] if top else rate):,}/s**"
    c = {'share': med([x['share'] for x in fixed]), 'best': best,
         'of': (f"({sum(x['answered'] for x in fixed):,} of {sum(x['sent'] for x in fixed):,})"
                + (' (fewer sent than the rate)' if any(x['short'] for x in fixed) else '')),
         'search': '; '.join(
             f"{x['rate']:,}/s: " + (f"only {x['sent'] / x['secs']:,.0f}/s sent"
                                     if x['short'] else f"{x['share']:.2f} %")
             for x in steps) or ('not searched' if not held else ''),
         'cpu_us': med([cpu_us(x) for x in fixed]),
         'qps': fmt(med([x['answered'] / x['secs'] for x in fixed])),
         'busy': fmt(med([x['cpu_s'] / x['secs'] * 100 for x in fixed]), '{:.0f} %')}
    c['cpu'] = fmt(c['cpu_us'], '{:.2f}')
    if top:
        c['cpu'] += f" ({fmt(cpu_us(top[-1]), '{:.2f}')} at {top[-1]['rate']:,}/s)"
        c['qps'] += f" ({top[-1]['answered'] / top[-1]['secs']:,.0f} at {top[-1]['rate']:,}/s)"
    return c


def afxdp_section(raw):
    """The markdown section of the phase afxdp (scripts/devtools/bench_afxdp.sh):
    tfo-server on net_af_xdp and Knot DNS on one veth, one generator."""
    d = os.path.join(raw, 'afxdp')
    title = '## AF_XDP side by side: tfo-server and Knot DNS on one veth (phase afxdp)'
    if os.path.exists(os.path.join(d, 'skipped.txt')):
        return f"{title}\n\nNot run: {open(os.path.join(d, 'skipped.txt')).read().strip()}.\n"
    if not os.path.exists(os.path.join(d, 'generator.txt')):
        return ''
    m = machine(raw)
    gen, tcp, udp, *why = open(os.path.join(d, 'generator.txt')).read().split(' ', 3)
    why = ' '.join(why).strip()
    rates = {'tcp': int(tcp), 'udp': int(udp)}
    missing = set()
    if os.path.exists(os.path.join(d, 'missing.txt')):
        missing = {tuple(x.split()[:2]) for x in open(os.path.join(d, 'missing.txt'))}
    kmode = (open(os.path.join(d, 'knotd_mode.txt')).read().strip().split(' ', 1)
             if os.path.exists(os.path.join(d, 'knotd_mode.txt')) else ['?', ''])
    xdp = (open(os.path.join(d, 'tfo-server_xdp.txt')).read().strip()
           if os.path.exists(os.path.join(d, 'tfo-server_xdp.txt')) else '')
    xdp = re.sub(r'^.*?xdp = own: ', '', xdp)
    # knotd's log lines: their time stamps out
    kmode[-1] = re.sub(r'\S*\d\d:\d\d:\d\d\S* ', '', kmode[-1])
    out = [title, '']
    a = out.append
    a(f"CPU: **{m['cpu']}**, {m['cpus']} CPUs, shared with other work: **figures of one run "
      f"on shared CPUs are noisy** (orders of magnitude, not a ranking to the per cent). "
      f"{m['date']}, commit {m['commit']}, kernel {m['kernel']}. One veth pair between two "
      f"network namespaces, the server end 198.18.0.1/24, the client's TX checksum offload "
      f"off (the same wire for both servers); both servers on CPU {m['dut_cpu']} (tfo-server's "
      f"control 0 and its one worker, idle_policy adaptive; knotd with one UDP and one TCP "
      f"worker), the generator on CPU {m['gen_cpu']}; the same zone "
      f"(bench/dns/example.org.zone), the query `www.example.org A`.")
    a('')
    a(f"- tfo-server: its dns service (TCP and `udp = on`) on net_af_xdp, `xdp = own`"
      + (f" ({xdp})" if xdp else '') + '.')
    if kmode[0] == 'xdp':
        a('- knotd: in its **XDP mode** (`xdp: listen: IF@53`, `tcp: on`).')
    else:
        a(f"- knotd: on **kernel sockets**: its XDP mode cannot run here ({kmode[1] or '?'}).")
    if gen == 'kxdpgun':
        a(f"- Generator: **kxdpgun** (`-T` for TCP), TCP at {rates['tcp']:,}/s, UDP at "
          f"{rates['udp']:,}/s.")
    else:
        a(f"- Generator: **dnsperf**, the fallback: kxdpgun cannot run here ({why or '?'}). "
          f"TCP `-m tcp -c 20` at {rates['tcp']:,}/s, UDP `-m udp -c 4` at "
          f"{rates['udp']:,}/s (one dnsperf process on a shared CPU: its default UDP rate "
          f"is half kxdpgun's), `-t 2`, at most 100 queries in flight (its default: a "
          f"server slow to answer, or slow to accept dnsperf's connections, also holds "
          f"back what it sends).")
    a('')
    a(f"Answered: queries answered NOERROR / queries sent, median of {m['reps']} x "
      f"{m['seconds']} s at the fixed rate. Highest rate held: the fixed rate, then "
      f"doubled, one run a step, while a run gets >= {AFXDP_HELD:.0f} % answered and the "
      f"generator sends >= {AFXDP_SENT:.0f} % of the rate (\"only N/s sent\" ends the "
      f"search; a few steps: the search's bound is its last step). Server CPU per answer: tfo-server's busy_tsc (the sum over its "
      f"lcores, /tfo/stats before and after the run) / tsc_hz: it leaves out idle polls "
      f"and naps, and includes its TX kicks (sendto: the veth's transmit of the answers) "
      f"and, on a shared CPU, time the scheduler took inside a busy poll; knotd's utime + "
      f"stime (/proc/PID/stat, every thread), which includes its system calls (the "
      f"kernel's socket, TCP and transmit work in them). Neither includes what runs on the "
      f"sender's CPU: for tfo-server the veth's XDP redirect and the copy into the AF_XDP "
      f"socket, for knotd the kernel's receive up to its socket (the veth receives in the "
      f"sender's softirq). Busy: that CPU time over the run's {m['seconds']} s.")
    a('')
    a(f"| server | transport | answered at the fixed rate | server CPU per answer (us) | "
      f"server busy | highest rate held (>= {AFXDP_HELD:.0f} % answered) | the search |")
    a('|---|---|---|---:|---:|---|---|')

    for srv, label in (('tfo-server', 'tfo-server [service dns], net_af_xdp'),
                       ('knotd', 'Knot DNS (knotd), ' + ('XDP' if kmode[0] == 'xdp'
                                                         else 'kernel sockets'))):
        for proto in ('tcp', 'udp'):
            rate = rates[proto]
            if (srv, proto) in missing:
                text = ('not reached (UDP in AF_XDP not built yet: a UDP query got no answer)'
                        if srv == 'tfo-server' else 'did not start (see the log)')
                a(f"| {label} | {proto.upper()} | {text} | | | | |")
                continue
            fixed, steps = afxdp_runs(raw, srv, proto)
            if not fixed:
                a(f"| {label} | {proto.upper()} | no runs (see the log) | | | | |")
                continue
            c = afxdp_cells(fixed, steps, rate)
            a(f"| {label} | {proto.upper()} | **{c['share']:.2f} %** at {rate:,}/s "
              f"{c['of']} | {c['cpu']} | {c['busy']} | {c['best']} | {c['search']} |")
    return '\n'.join(out) + '\n'


def dnssec_section(raw):
    """The markdown section of the phase dnssec (scripts/devtools/bench_dnssec.sh):
    UDP with DO=1 on a signed zone, tfo-server without and with RRL, knotd
    and NSD on one veth; a run at a real rate limit."""
    d = os.path.join(raw, 'dnssec')
    title = '## DNSSEC (DO=1) and response rate limiting over UDP on one veth (phase dnssec)'

    def text(name, default=''):
        f = os.path.join(d, name)
        return open(f).read().strip() if os.path.exists(f) else default

    if text('skipped.txt'):
        return f"{title}\n\nNot run: {text('skipped.txt')}.\n"
    if not text('generator.txt'):
        return ''
    m = machine(raw)
    rate = int(text('generator.txt').split()[2])
    limit = int(text('limit.txt', '0'))
    missing = {x.split()[0]: x.split()[2] for x in text('missing.txt').splitlines() if x.strip()}
    out = [title, '']
    a = out.append
    a(f"CPU: **{m['cpu']}**, {m['cpus']} CPUs, shared with other work: **figures of one run "
      f"on shared CPUs are noisy**, and with the generator and the server on one CPU each "
      f"**the generator (one dnsperf process) is often the limit**, not the server. "
      f"{m['date']}, commit {m['commit']}, kernel {m['kernel']}. The bed of the phase afxdp "
      f"(one veth pair between two namespaces, 198.18.0.1/24); the servers on CPU "
      f"{m['dut_cpu']} (tfo-server: control 0 and one worker, idle_policy adaptive, "
      f"net_af_xdp `xdp = own`, `udp = on`; knotd and NSD on kernel sockets, one UDP "
      f"worker each, neither limiting answers: NSD's rrl-ratelimit (200/s by default) 0), dnsperf on CPU {m['gen_cpu']}: `-m udp -c 4 -D` (EDNS, DNSSEC OK), "
      f"`-t 2`, from one address. The zone: tests/dns/signed.example.zone (NSEC, ECDSA "
      f"P-256, tests/dns/sign.sh), the same file for every server. The query mix (100 "
      f"lines, dnsperf cycles through them): {text('mix.txt', '?')}.")
    a('')
    a(f"Answered: NOERROR + NXDOMAIN / queries sent at {rate:,}/s, median of {m['reps']} x "
      f"{m['seconds']} s; then the rate doubled while a run gets >= {AFXDP_HELD:.0f} % "
      f"answered and dnsperf sends >= {AFXDP_SENT:.0f} % of it. Queries/s: answered / "
      f"seconds. Server CPU per answer: as in the phase afxdp (tfo-server's busy_tsc; the "
      f"kernel servers' utime + stime, which include their system calls but not the "
      f"receive work on the sender's CPU). Each server first answered one `kdig +dnssec` "
      f"query for www.signed.example A with its RRSIG (\"RRSIG\" below).")
    a('')
    a(f"| server | RRSIG | answered at {rate:,}/s | queries/s answered | server CPU per answer "
      f"(us) | server busy | highest rate held (>= {AFXDP_HELD:.0f} % answered) | the search |")
    a('|---|---|---|---:|---:|---:|---|---|')

    cpu_of = {}
    rows = (('tfo-server', 'tfo-server [service dns], net_af_xdp, no RRL'),
            ('tfo-server-rrl', 'tfo-server, `rate_limit = 10000000` (every answer through '
             'the RRL table, none limited)'),
            ('knotd', 'Knot DNS (knotd), kernel sockets'),
            ('nsd', 'NSD, kernel sockets'))
    for srv, label in rows:
        probe = os.path.join(d, srv + '.probe')
        sig = ('yes' if os.path.exists(probe) and re.search(r'RRSIG\s+A\s', open(probe).read())
               else 'no')
        if srv in missing:
            a(f"| {label} | {sig} | {missing[srv].replace('_', ' ')} | | | | | |")
            continue
        fixed, steps = afxdp_runs(raw, srv, 'udp', 'dnssec')
        if not fixed:
            a(f"| {label} | {sig} | no runs (see the log) | | | | | |")
            continue
        c = afxdp_cells(fixed, steps, rate)
        cpu_of[srv] = c['cpu_us']
        a(f"| {label} | {sig} | **{c['share']:.2f} %** {c['of']} | {c['qps']} | {c['cpu']} | "
          f"{c['busy']} | {c['best']} | {c['search']} |")
    a('')
    again, _ = afxdp_runs(raw, 'tfo-server-again', 'udp', 'dnssec')
    if 'tfo-server' in cpu_of and 'tfo-server-rrl' in cpu_of:
        c1 = cpu_of['tfo-server-rrl']
        c0 = cpu_of['tfo-server']
        c0b = afxdp_cells(again, [], rate)['cpu_us'] if again else float('nan')
        if c0b == c0b:
            c0 = (c0 + c0b) / 2
        a(f"**The cost of RRL per UDP answer**: {fmt((c1 - c0) * 1000, '{:+,.0f}')} ns "
          f"({fmt((c1 - c0) / c0 * 100 if c0 else float('nan'), '{:+.1f}')} %): busy_tsc per "
          f"answer at {rate:,}/s with every answer through the RRL table ({fmt(c1, '{:.3f}')} "
          f"us) against without RRL ({fmt(c0, '{:.3f}')} us"
          + (f": the mean of the runs before, {fmt(cpu_of['tfo-server'], '{:.3f}')} us, and "
             f"after, {fmt(c0b, '{:.3f}')} us" if c0b == c0b else '') + "), "
          f"medians of {m['reps']} run(s) each. The RRL check is a hash, a 4-way set and "
          f"one TSC read (tens of ns); on shared CPUs a difference this small is within the "
          f"noise of one run (compare the two runs without RRL).")
        a('')
    fixed, _ = afxdp_runs(raw, 'tfo-server-limit', 'udp', 'dnssec')
    free, _ = afxdp_runs(raw, 'tfo-server', 'udp', 'dnssec')
    if fixed and 'tel' in fixed[0]:
        r, t = fixed[0], fixed[0]['tel']
        lim, slp, drp = (t.get('dns_rrl_limited', 0), t.get('dns_rrl_slipped', 0),
                         t.get('dns_rrl_dropped', 0))
        rx, tx = t.get('rx_bytes', 0), t.get('tx_bytes', 0)
        a(f"**A real limit** (`rate_limit = {limit}`, `slip = 2`: {limit:,} answers a second "
          f"per source /24 and answer class; the generator is one address): one run of "
          f"{r['secs']} s at {r['rate']:,}/s, dnsperf `-q 50000` (the dropped queries wait "
          f"for its 2 s timeout). Counters of tfo-server (/tfo/stats) over the run:")
        a('')
        a('| queries sent (dnsperf) | answers received (dnsperf; TC=1 slips included) | '
          'dns_rrl_limited | dns_rrl_slipped | dns_rrl_dropped | answered in full | '
          'rx_bytes | tx_bytes | bytes out / in |')
        a('|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
        a(f"| {r['sent']:,} | {r['answered']:,} | {lim:,} | {slp:,} | {drp:,} | "
          f"{max(r['answered'] - slp, 0):,} | {rx:,} | {tx:,} | "
          f"{fmt(tx / rx if rx else float('nan'), '{:.2f}')} |")
        a('')
        if free and 'tel' in free[0] and free[0]['tel'].get('rx_bytes'):
            ft = free[0]['tel']
            a(f"Without RRL (the first run above) the same mix leaves at "
              f"{ft.get('tx_bytes', 0) / ft['rx_bytes']:.2f} bytes out per byte in "
              f"(rx_bytes and tx_bytes are the port's: whole Ethernet frames, what tfo-server "
              f"received and sent): DO=1 answers carry their RRSIGs and NSEC "
              f"proofs, the amplification RRL caps.")
            a('')
    return '\n'.join(out) + '\n'


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


# a group of rows new to the summary table goes after this one, as in a
# full run's (else at the end)
GROUP_AFTER = {'lat': '2/3'}


def merge_rows(old_body, new_summary, note):
    """A partial run's table rows into the summary table (old_body): a row
    with the same measure (row_key) is replaced, a new one goes after the
    last row of its group (the # column), else at the end of the table;
    @p note is added after the table."""
    old = old_body.split('\n')
    if '| 4f |' in new_summary:	# the flood rows that 4f replaces (pipeline_slow had them)
        old = [x for x in old if not row_key(x).startswith('| 4s | tfo-bench pipeline --flood,')]
    if '| lat | idle_policy ' in new_summary:	# the latency phase replaces the idle_sleep_us rows
        old = [x for x in old if not (x.startswith('| lat |') and 'idle_sleep_us =' in x)]
    rows = [x for x in new_summary.split('\n') if x.startswith('| ') and not
            x.startswith('| # |')]
    table = [i for i, x in enumerate(old) if x.startswith('|')]
    if not table:
        return None
    for row in rows:
        c = [x.strip() for x in row.strip().strip('|').split('|')]
        key, group = row_key(c[1]), c[0]
        table = [i for i, x in enumerate(old) if x.startswith('|')]
        same = [i for i in table
                if row_key(old[i].strip().strip('|').split('|')[1].strip()) == key]
        if same:
            old[same[0]] = row
            continue
        grp = [i for i in table if old[i].strip().strip('|').split('|')[0].strip() == group]
        if not grp and group in GROUP_AFTER:
            grp = [i for i in table
                   if old[i].strip().strip('|').split('|')[0].strip() == GROUP_AFTER[group]]
        old.insert((grp or table)[-1] + 1, row)
    last = max(i for i, x in enumerate(old) if x.startswith('|'))
    old[last + 1:last + 1] = ['', note]
    return '\n'.join(old)


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


def merged_hist(raw, name):
    """The latency histogram of the runs lg_NAME_N: {bucket low (us): count}."""
    h = {}
    for f in reps(raw, 'lg_' + name + '_{}.json'):
        for low, n in json.load(open(f)).get('latency_hist_us', []):
            h[low] = h.get(low, 0) + n
    return h


def plot(raw, png):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    m = machine(raw)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    names, vals, lo, hi = [], [], [], []
    for n, label, _ in LOADS:
        files = reps(raw, 'lg_' + n + '_{}.json')
        rates = [json.load(open(f))['txn_per_s'] for f in files]
        if not rates:
            continue
        names.append(label.split(':')[0].replace('cookie requests, no warm-up', 'cookie req.'))
        vals.append(med(rates) / 1e3)
        lo.append((med(rates) - min(rates)) / 1e3)
        hi.append((max(rates) - med(rates)) / 1e3)
    ax1.bar(names, vals, yerr=[lo, hi], capsize=4, color='#4878a8')
    for i, v in enumerate(vals):
        ax1.annotate(f'{v:,.0f}k', (i, v), ha='center', va='bottom', fontsize=8,
                     xytext=(0, 3), textcoords='offset points')
    ax1.set_ylabel('transactions/s (thousands)')
    ax1.set_title('tfo-server, 1 worker, over net_memif: by load type\n'
                  '(median of the repetitions; bars: min-max)', fontsize=10)
    ax1.tick_params(axis='x', labelsize=8)
    drawn = False
    for name, label in (('lat_adaptive_tfo_10000', 'TFO at 10,000/s'),
                        ('lat_adaptive_tfo_100000', 'TFO at 100,000/s'),
                        ('lat_adaptive_plain_10000', 'plain at 10,000/s'),
                        ('lat_adaptive_plain_100000', 'plain at 100,000/s')):
        h = merged_hist(raw, name)
        if not h:
            continue
        xs = sorted(h)
        tot = sum(h.values())
        acc, ys = 0, []
        for x in xs:
            acc += h[x]
            ys.append(acc / tot * 100)
        ax2.step(xs, ys, where='post', label=f'{label} ({tot:,} transactions)')
        drawn = True
    if drawn:
        ax2.set_xscale('log')
        ax2.legend(fontsize=8, loc='lower right')
    ax2.set_xlabel('latency, SYN sent -> response validated (us, log)')
    ax2.set_ylabel('transactions at or below (%)')
    ax2.set_title('latency distribution, idle_policy adaptive (the default)', fontsize=10)
    ax2.grid(True, which='both', alpha=0.3)
    fig.suptitle(f"{m['date']}, {m['cpu']}, commit {m['commit']} (a shared machine: "
                 f"load {m['load_before']})", fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=90)


# the latency picture's styles: a colour per idle policy, the kernel black
LAT_COLOURS = {'adaptive': '#1f6fb4', 'busy': '#d9711c', 'sleep': '#3a9a3a', 'kernel': 'black'}


def plot_latency(raw, png):
    """p50 (solid) and p99 (dashed, lighter) against the target rate, log-log:
    TFO on the left, plain on the right, a line per idle policy; the
    kernel's TFO on both (on the right for reference). A hollow marker: the
    rate achieved fell short of the target by more than 2 % (annotated)."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    m = machine(raw)
    L = lat_all(raw)
    if not L:
        raise SystemExit('bench_report: no latency runs in ' + raw)
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), sharey=True)

    def line(ax, pts, colour, label, marker, ls, nth):
        """pts: [(target, achieved, p50, p99)]; nth: the line's place (the
        annotations of lines that meet at one rate go one under another)"""
        pts = [p for p in pts if p[2] == p[2]]
        if not pts:
            return
        xs = [p[0] for p in pts]
        ax.plot(xs, [p[2] for p in pts], ls=ls, color=colour, lw=1.8, label=label)
        ax.plot(xs, [p[3] for p in pts], ls=(0, (4, 2)), color=colour, lw=1.2, alpha=0.45)
        for t, got, p50, p99 in pts:
            short = off_target(got, t)
            for v, al in ((p50, 1.0), (p99, 0.45)):
                ax.plot([t], [v], marker=marker, ms=6, color=colour, alpha=al,
                        mfc='white' if short else colour)
            if short:
                ax.annotate(f'got {got / 1e3:,.1f}k/s', (t, p50), fontsize=7, color=colour,
                            xytext=(5, -9 - 8 * (nth % 2)), textcoords='offset points')

    rates = [(rt, lat_target(raw, rt)) for rt in LAT_RATES if lat_target(raw, rt)]
    kpts = [(t, med(L['ker'][rt]['rate']), med(L['ker'][rt]['p50']), med(L['ker'][rt]['p99']))
            for rt, t in rates if rt in L['ker']]
    for ax, (kind, label) in zip(axes, LAT_KINDS):
        for i, pol in enumerate(LAT_POLICIES):
            pts = [(t, med(x['rate']), med(x['p50']), med(x['p99']))
                   for rt, t in rates for x in [L['srv'].get((pol, kind, rt))] if x and x['rate']]
            line(ax, pts, LAT_COLOURS[pol], f'{label}, idle_policy {pol}' +
                 (' (default)' if pol == 'adaptive' else ''),
                 'o' if kind == 'tfo' else 's', '-' if kind == 'tfo' else '-.', i)
        line(ax, kpts, LAT_COLOURS['kernel'],
             'Linux kernel TFO' + (' (for reference)' if kind == 'plain' else ''), '^', ':',
             len(LAT_POLICIES))
        ax.axhline(LAT_P50_MAX[kind], color='grey', lw=0.8, ls=':')
        ax.annotate(f'target p50 <= {LAT_P50_MAX[kind]} us (up to 100,000/s)',
                    (rates[0][1], LAT_P50_MAX[kind]), fontsize=7, color='grey',
                    xytext=(0, 3), textcoords='offset points')
        ax.set_xscale('log')
        ax.set_yscale('log')
        ax.set_xticks([t for _, t in rates])
        ax.set_xticklabels([f'{t / 1e3:,.0f}k' + ('\n(half peak)' if rt == 'half' else '')
                            for rt, t in rates], fontsize=8)
        ax.minorticks_off()
        ax.set_xlabel('offered rate, transactions/s (log)')
        ax.grid(True, which='both', alpha=0.3)
        ax.set_title(f"{label}{' (--no-tfo 100)' if kind == 'plain' else ''}: p50 (bold), "
                     f"p99 (dashed, light)", fontsize=10)
        ax.legend(fontsize=7, loc='upper center', bbox_to_anchor=(0.5, -0.2), ncol=2)
    axes[0].set_ylabel('latency (us, log)')
    fig.suptitle(f"Latency against rate: tfo-server's 2 lcores on CPU {m['dut_cpu']}, "
                 f"tfo-loadgen on CPU {m['gen_cpu']} (net_memif); kernel server on CPU "
                 f"{m['dut_cpu']}, client on CPU {m['gen_cpu']}; hollow: rate not reached\n"
                 f"{m['date']}, {m['cpu']}, commit {m['commit']}, medians of {m['reps']} x "
                 f"{m['seconds']} s (a shared machine: load {m['load_before']})", fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=90, bbox_inches='tight')


def plot_scaling(raw, png):
    """Three panels: TFO transactions/s against workers (tfo-server and the
    kernel on the same CPUs); the workers' busy TSC per transaction against
    workers (median, bars: the lowest and highest worker; the band: +-10 %
    of the first row on CPUs of its own); plain transactions/s against
    control lcores (and the kernel's). Hollow markers: lcores shared CPUs
    (functional, not a figure)."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    m = machine(raw)
    hz = tsc_hz(raw)
    rows = scale_rows(raw)
    if not rows:
        raise SystemExit('bench_report: no scaling runs in ' + raw)
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(15, 4.8))

    def pts(ax, xs, ys, shared, colour, label, marker, err=None):
        if not xs:
            return
        ax.plot(xs, ys, color=colour, lw=1.6, label=label)
        for i, (x, y, sh) in enumerate(zip(xs, ys, shared)):
            ax.errorbar([x], [y], yerr=[[err[0][i]], [err[1][i]]] if err else None,
                        marker=marker, ms=7, color=colour, capsize=4,
                        mfc='white' if sh else colour)
            if sh:
                ax.annotate('functional', (x, y), fontsize=7, color=colour,
                            xytext=(6, -10), textcoords='offset points')

    tfo = [r for r in rows if r['kind'] == 'tfo']
    ns = [r['workers'] for r in tfo]
    sh = [bool(r['shared']) for r in tfo]
    rate = [med(r['x']['rate']) / 1e3 for r in tfo]
    pts(ax1, ns, rate, sh, '#1f6fb4', 'tfo-server, TFO (1 control lcore)', 'o',
        ([(med(r['x']['rate']) - min(r['x']['rate'] or [0])) / 1e3 for r in tfo],
         [(max(r['x']['rate'] or [0]) - med(r['x']['rate'])) / 1e3 for r in tfo]))
    kt = [(r['workers'], med(r['kernel']['rate']) / 1e3, bool(r['shared'])) for r in tfo
          if r['kernel'] and r['kernel']['rate']]
    pts(ax1, [k[0] for k in kt], [k[1] for k in kt], [k[2] for k in kt], 'black',
        "Linux kernel TFO, the same CPUs", '^')
    ax1.set_xlabel('workers (N; the kernel: N + 1 server CPUs)')
    ax1.set_ylabel('transactions/s (thousands)')
    ax1.set_title('TFO transactions/s of the machine', fontsize=10)
    t = [row_tsc(r)[0] for r in tfo]
    lo = [t[i] - min(role_figs(r, 'worker', 'tsc') or [t[i]]) for i, r in enumerate(tfo)]
    hi = [max(role_figs(r, 'worker', 'tsc') or [t[i]]) - t[i] for i, r in enumerate(tfo)]
    pts(ax2, ns, t, sh, '#d9711c', 'median over the workers (bars: lowest, highest)', 's',
        (lo, hi))
    base = next((v for v, r in zip(t, tfo) if not r['shared'] and v == v), None)
    if base:
        ax2.axhspan(base * (1 - SCALE_TSC_FLAT), base * (1 + SCALE_TSC_FLAT), color='grey',
                    alpha=0.15, label='target: within 10 %')
    ax2.set_ylim(bottom=0)
    ax2.set_xlabel('workers')
    ax2.set_ylabel(f"busy TSC ticks per transaction (TSC {fmt(hz / 1e9, '{:.2f}')} GHz)")
    ax2.set_title("a worker's cost per TFO transaction", fontsize=10)
    plain = [r for r in rows if r['kind'] == 'plain']
    cs = [r['controls'] for r in plain]
    pts(ax3, cs, [med(r['x']['rate']) / 1e3 for r in plain], [bool(r['shared']) for r in plain],
        '#3a9a3a', f"tfo-server, plain, {plain[0]['workers'] if plain else '?'} workers", 'D')
    kp = [(r['controls'], med(r['kernel']['rate']) / 1e3, bool(r['shared'])) for r in plain
          if r['kernel'] and r['kernel']['rate']]
    pts(ax3, [k[0] for k in kp], [k[1] for k in kp], [k[2] for k in kp], 'black',
        'Linux kernel, plain, the same CPUs', '^')
    one = next((med(r['x']['rate']) / 1e3 for r in plain if r['controls'] == 1), None)
    if one:
        for c, goal in SCALE_PLAIN_X.items():
            ax3.plot([c], [one * goal], marker='_', ms=18, color='grey')
            ax3.annotate(f'target {goal}x', (c, one * goal), fontsize=7, color='grey',
                         xytext=(8, -3), textcoords='offset points')
    ax3.set_xlabel('control lcores')
    ax3.set_ylabel('transactions/s (thousands)')
    ax3.set_title('plain (--no-tfo 100) transactions/s of the machine', fontsize=10)
    for ax, xs in ((ax1, ns), (ax2, ns), (ax3, cs)):
        if xs:
            ax.set_xticks(sorted(set(xs)))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc='lower right' if ax is not ax2 else 'lower left')
    ax1.set_ylim(bottom=0)
    ax3.set_ylim(bottom=0)
    fig.suptitle(f"Scaling with cores: tfo-server on net_memif (rss = peer), tfo-loadgen with "
                 f"a generator per worker; hollow: lcores shared CPUs (functional, not a figure)"
                 f"\n{m['date']}, {m['cpu']} ({m['cpus']} CPUs), commit {m['commit']}, medians "
                 f"of {m['reps']} x {m['seconds']} s (a shared machine: load "
                 f"{m['load_before']})", fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=90, bbox_inches='tight')


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
