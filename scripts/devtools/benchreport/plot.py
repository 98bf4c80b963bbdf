"""The report's pictures (matplotlib, imported only here and only when
drawing): the load types, latency against rate, scaling with cores."""
import json

from benchreport.latency import LAT_KINDS, LAT_P50_MAX, LAT_POLICIES, LAT_RATES, lat_all, lat_target
from benchreport.md import fmt, off_target
from benchreport.phases import LOADS
from benchreport.raw import machine, med, reps, tsc_hz
from benchreport.scale import SCALE_PLAIN_X, SCALE_TSC_FLAT, role_figs, row_tsc, scale_rows


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
