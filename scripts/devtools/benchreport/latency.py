"""Phase 5, latency at every load: its raw files, its targets, its rows of
the summary table and its section of the report."""
import os
import re

from benchreport.md import fmt, off_target, picture, targets, us, verdict
from benchreport.raw import CLEAN, counters, latency, machine, med, others_share, reps, spread


# bench.sh's latency phase (5): the idle policies, the rates (half: half of
# adaptive's TFO peak, lat_half_rate.txt), the loads
LAT_POLICIES = ('adaptive', 'busy', 'sleep')
LAT_RATES = ('1000', '10000', '100000', 'half')
LAT_KINDS = (('tfo', 'TFO'), ('plain', 'plain'))
# the targets ("Microseconds at every load"), idle_policy adaptive
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


def lat_all(raw):
    """Everything of the latency phase, or None when it did not run."""
    srv = lat_server(raw)
    if not srv:
        return None
    return {'srv': srv, 'ker': lat_kernel(raw), 'peaks': lat_peaks(raw),
            'idle': {p: idle_cpu(raw, p) for p in LAT_POLICIES}, 'half': lat_half(raw)}


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
    out += targets(lat_targets(raw, L))
    a('')
    a(f"Errors (transactions that failed or timed out) in these rows: {lat_errors(L)}. "
      "With busy, the worker spins on the CPU it shares with control 0, which then runs only "
      "when the scheduler preempts the worker: the slow path (plain transactions) waits "
      "milliseconds, and some time out -- a figure of the policy, not a failure of the run.")
    out += picture(m.get('latency_png'), "p50 and p99 against rate, log-log, per idle_policy, "
                   "TFO and plain, beside the kernel's TFO")
    return '\n'.join(out) + '\n'
