"""The raw files of one bench.sh run: reading them, and the statistics
every table uses (medians, spreads, the repetitions others left alone)."""
import glob
import json
import os
import re
import statistics


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


def counters(path):
    return json.load(open(path))['/tfo/stats']


def others_share(raw, name):
    """Others' share (%) of the machine during the run others_NAME.txt."""
    try:
        busy, total = (int(x) for x in open(os.path.join(raw, f'others_{name}.txt')).read().split())
        return max(busy, 0) / total * 100
    except (OSError, ValueError, ZeroDivisionError):
        return float('nan')


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
