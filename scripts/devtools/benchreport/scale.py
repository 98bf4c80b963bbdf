"""Phase 6, scaling with cores: its raw files, its targets, its rows of the
summary table and its section of the report."""
import json
import os
import re

from benchreport.md import fmt, picture, slash, targets, verdict
from benchreport.raw import clean_reps, counters, kernel, machine, med, reps, spread, tsc_hz


# bench.sh's scaling phase (6): the targets ("Many cores")
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


def tfo_table(rows):
    """The section's table of the TFO rows, by workers."""
    out = []
    a = out.append
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
    return out


def plain_table(rows):
    """The section's table of the plain rows, by control lcores (and the
    row at 90 % of the plain peak); [] without them."""
    out = []
    a = out.append
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
    return out


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
    out += tfo_table(rows)
    out += plain_table(rows)
    bad = [f"{r['name']} ({r['log']})" for r in rows if r['accounting'] is False]
    a('')
    a("tfo-server's accounting at exit (every frame received or sent accounted for, per "
      "lcore): " + ('ok in every row.' if not bad else 'NOT ok in ' + ', '.join(bad) + '.'))
    a('')
    a('Targets (a benchmark never fails on a number; rows on shared CPUs are not judged):')
    a('')
    out += targets(scale_targets(rows))
    out += picture(m.get('scale_png'), 'transactions/s and worker TSC per transaction against '
                   'workers; plain transactions/s against control lcores')
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
