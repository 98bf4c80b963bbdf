#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The report of bench.sh's phases dns and nginx (scripts/devtools/bench_servers.sh):
tfo-server side by side with Knot DNS, NSD and nginx, per server core, and
the ratio to issue 26's target (>= 20x Knot DNS and nginx per server core).

    bench_servers.py RAW        (bench.sh's run directory; markdown on stdout)

Nothing fails on a number: a row without figures says why.
"""
import glob
import json
import os
import re
import statistics
import sys

TARGET = 20.0
BOUND = 90.0	# % busy under which a server was waiting for the generator
SERVERS = {
    'dns': [('tfo-server', 'tfo-server [service dns]'), ('knotd', 'Knot DNS (knotd)'),
            ('nsd', 'NSD')],
    'http': [('tfo-server', 'tfo-server [service http]'), ('nginx', 'nginx (nginx-light)')],
}


def med(v):
    return statistics.median(v) if v else float('nan')


def spread(v):
    m = med(v)
    return (max(v) - min(v)) / m * 100 if v and m else float('nan')


def kv(path):
    """'key value key value ...' lines of a .cpu file into a dict of ints."""
    out = {}
    for line in open(path):
        f = line.split()
        out.update({f[i]: int(f[i + 1]) for i in range(0, len(f) - 1, 2)})
    return out


def tsc_hz(sv):
    try:
        g = re.search(r'TSC ([0-9.]+) GHz', open(os.path.join(sv, 'tsc.txt')).read())
        return float(g.group(1)) * 1e9 if g else float('nan')
    except OSError:
        return float('nan')


def tel_busy(path):
    """Sum of busy_tsc over every lcore of a /tfo/stats snapshot of all lcores."""
    d = json.load(open(path))
    d = d.get('/tfo/stats', d)
    return sum(v.get('busy_tsc', 0) for v in d.values() if isinstance(v, dict))


def row(sv, name, hz):
    """Medians over the repetitions of one row (NAME_R.json/.cpu)."""
    r = {k: [] for k in ('rate', 'core', 'tsc_core', 'share', 'dut', 'p50', 'p99',
                         'tfo_share', 'syn_re')}
    r['errors'] = 0
    r['runs'] = 0
    r['bad_rc'] = 0
    for js in sorted(glob.glob(os.path.join(sv, name + '_[0-9]*.json'))):
        base = js[:-5]
        try:
            lg = json.load(open(js))
            cpu = kv(base + '.cpu')
        except (OSError, ValueError):
            continue
        r['runs'] += 1
        r['errors'] += lg['errors']
        if cpu.get('rc', 0) not in (0, 1):
            r['bad_rc'] += 1
        n = lg['transactions']
        if n == 0 or lg['run_s'] <= 0:
            continue
        r['rate'].append(lg['txn_per_s'])
        r['tfo_share'].append(lg['tfo'] / n * 100)
        r['syn_re'].append(lg['counters'].get('syn_retransmits', 0) / n * 100)
        r['p50'].append(lg['latency_us']['p50'])
        r['p99'].append(lg['latency_us']['p99'])
        win_s = cpu['window_us'] / 1e6
        if cpu.get('dut_total'):
            r['dut'].append(cpu['dut_busy'] / cpu['dut_total'] * 100)
        # every server: its threads' CPU time in the window, the same
        # measure on both sides (tfo-server's includes its empty polls)
        cpu_s = cpu.get('server_ns', 0) / 1e9
        if cpu_s > 0:
            r['core'].append(lg['txn_per_s'] * win_s / cpu_s)
            r['share'].append(cpu_s / win_s * 100)
        if os.path.exists(base + '.tel_a'):
            # tfo-server: also its lcores' busy TSC over the loadgen's run
            busy_s = (tel_busy(base + '.tel_b') - tel_busy(base + '.tel_a')) / hz
            if busy_s > 0:
                r['tsc_core'].append(n / busy_s)
    return r


def fmt(v, unit=''):
    if not v:
        return 'n/a'
    m = med(v)
    s = spread(v)
    big = f'{m / 1e6:.2f} M' if m >= 1e6 else f'{m / 1e3:.1f} k' if m >= 1e3 else f'{m:.0f}'
    return f'{big}{unit}' + (f' (±{s / 2:.0f}%)' if len(v) > 1 and s == s else '')


def machine(raw):
    m = {}
    try:
        for line in open(os.path.join(raw, 'machine.txt')):
            k, _, v = line.rstrip('\n').partition('=')
            m[k] = v
    except OSError:
        pass
    return m


def main():
    raw = sys.argv[1]
    sv = os.path.join(raw, 'servers')
    m = machine(raw)
    hz = tsc_hz(sv)
    missing = {}
    if os.path.exists(os.path.join(sv, 'missing.txt')):
        for line in open(os.path.join(sv, 'missing.txt')):
            f = line.split()
            missing[f[0]] = (f[1], f[2])
    cpu = m.get('cpu', '?')
    print('\n## Side by side: tfo-server, Knot DNS, NSD, nginx (issue 26)\n')
    print(f'CPU: **{cpu}**, {m.get("cpus", "?")} CPUs; every server on CPU {m.get("dut_cpu", "?")}'
          f' (one worker: knotd tcp-workers 1, NSD server-count 1, nginx one process; '
          f'tfo-server both lcores), tfo-loadgen on CPU {m.get("gen_cpu", "?")} for all of '
          f'them, checking every answer (DNS: length, ID, QR, opcode, TC, the question, '
          f'RCODE, an answer record; http: `200 OK` and the exact length). Medians of '
          f'{m.get("reps", "?")} x {m.get("seconds", "?")} s (± half the spread). '
          f'tfo-server over net_memif; the kernel servers through net_tap in a network '
          f'namespace with `net.ipv4.tcp_fastopen=3` (NSD: `0x403`, TFO on every listener: '
          f"Debian's NSD is built without `--enable-tcp-fastopen`).\n")
    print("Per server core (CPU time): transactions per second of the server's threads' "
          "CPU time (the scheduler's sum, /proc/PID/task/*/schedstat), the same measure for "
          "every server; tfo-server's includes its lcores' empty polls, so its figure is a "
          "floor, and a kernel server's leaves out the receive work the kernel does for "
          "net_tap's frames on the generator's CPU, so its figure is flattered. Per busy "
          "core (busy_tsc): tfo-server's own, transactions per busy second of its lcores "
          "(/tfo/stats), which on a shared CPU also counts the time the scheduler took "
          "from an lcore inside a busy poll. Server CPU: its CPU time over the run; under "
          f"{BOUND:.0f} % it was waiting for the generator: **generator-bound**, its "
          "transactions/s a floor of what it can do, its per-core figure still valid; "
          f"under {BOUND:.0f} % while the DUT CPU was busy: **DUT CPU taken by others** "
          "(this machine is shared), the same floor. "
          "SYNs resent: SYN retransmissions per transaction (a listener that dropped SYNs; "
          "the client resends after 200 ms). TFO: the share of transactions whose query "
          'the SYN-ACK acknowledged.\n')
    per_core = {}
    for kind, servers in SERVERS.items():
        what = 'queries' if kind == 'dns' else 'transactions'
        print(f'| {kind} | mode | {what}/s | per server core (CPU time) | per busy core '
              f'(busy_tsc) | server CPU | DUT CPU busy | TFO | SYNs resent | p50 / p99 us '
              f'| errors |')
        print('|---|---|---|---|---|---|---|---|---|---|---|')
        for key, label in servers:
            name = f'{kind}_{key}'
            if name in missing:
                why, pkg = missing[name]
                text = (f'not built: this tfo-server has no `{pkg}` service' if why == 'not_built'
                        else f'not installed (Debian package {pkg})')
                print(f'| {label} | - | {text} | | | | | | | | |')
                continue
            for mode in ('tfo', 'plain'):
                r = row(sv, f'{name}_{mode}', hz)
                if r['runs'] == 0:
                    print(f'| {label} | {mode} | no runs (see the log) | | | | | | | | |')
                    continue
                per_core[(kind, key, mode)] = med(r['core']) if r['core'] else None
                per_core[(kind, key, mode, 'tsc')] = (med(r['tsc_core']) if r['tsc_core']
                                                      else None)
                tsc = fmt(r['tsc_core']) if r['tsc_core'] else '-'
                bound = r['share'] and med(r['share']) < BOUND
                taken = bound and r['dut'] and med(r['dut']) >= BOUND
                share = (f'{med(r["share"]):.0f} %' if r['share'] else 'n/a') + (
                    ' **DUT CPU taken by others**' if taken else
                    ' **generator-bound**' if bound else '')
                lat = (f'{med(r["p50"]):.0f} / {med(r["p99"]):.0f}' if r['p50'] else 'n/a')
                err = str(r['errors']) + (f' ({r["bad_rc"]} runs failed)' if r['bad_rc'] else '')
                dut = f'{med(r["dut"]):.0f} %' if r['dut'] else 'n/a'
                tfo = f'{med(r["tfo_share"]):.0f} %' if r['tfo_share'] else 'n/a'
                syn = f'{med(r["syn_re"]):.1f} %' if r['syn_re'] else 'n/a'
                print(f'| {label} | {mode} | {fmt(r["rate"])} | {fmt(r["core"])} | {tsc} '
                      f'| {share} '
                      f'| {dut} | {tfo} | {syn} | {lat} | {err} |')
        print()
    print(f'Target (issue 26): per server core, tfo-server >= {TARGET:.0f}x Knot DNS and '
          f'>= {TARGET:.0f}x nginx. Ratios of the per-core figures above, CPU time on both '
          f"sides (and, in brackets, tfo-server's busy_tsc figure over the other's CPU "
          f'time); a reported figure, not a pass/fail:\n')
    for kind, other in (('dns', 'knotd'), ('dns', 'nsd'), ('http', 'nginx')):
        for mode in ('tfo', 'plain'):
            a = per_core.get((kind, 'tfo-server', mode))
            t = per_core.get((kind, 'tfo-server', mode, 'tsc'))
            b = per_core.get((kind, other, mode))
            if a and b:
                x = a / b
                verdict = 'meets' if x >= TARGET else 'below'
                extra = f' [busy_tsc: {t / b:.1f}x]' if t else ''
                print(f'- {kind} {mode}: tfo-server / {other} = **{x:.1f}x**{extra} '
                      f'({verdict} the {TARGET:.0f}x target)')
            else:
                side = 'tfo-server' if not a else other
                print(f'- {kind} {mode}: tfo-server / {other}: n/a ({side} has no figure)')
    print()


if __name__ == '__main__':
    main()
