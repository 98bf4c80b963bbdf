"""The report of bench.sh's phase afxdp-tfo (scripts/devtools/bench_afxdp_tfo.sh):
TCP Fast Open over AF_XDP with a real client beside the Linux kernel's TFO on
one veth, and the I/O floor of that veth (testpmd macswap on net_af_xdp).
bench_report.py prints section(RAW, machine); run alone, this prints it too:

    bench_afxdp_tfo.py RAW

RAW/afxdp_tfo holds: plan.txt (the fixed rate, the clients in flight),
tfo_{rate,peak}_N.{json,log,rc} (tfo-loadgen) with the server's counters at
the start and the end of the window, tfo_*_N.{a,b}.tel (/tfo/stats) and
.{a,b}.cpu ("ns on a CPU, wall us" of the server process);
kernel_{rate,peak}_N.{log,rc} (kernel_tfo_client) with .{a,b}.kern (the
server end's rx and tx frames, then its namespace's TcpExt lines) and .cpu;
tp_fwd_N.log / tp_gen_N.log (testpmd forwarder / feeder) with
tp_N.{a,b}.{cpu,eth} (its CPU time and /ethdev/stats); {tfo,kernel}_peak_1
and tp_1 .dso and .sym (perf report by object, the top symbols); skipped.txt.
"""
import json
import os
import re
import statistics
import sys

TITLE = '## TCP Fast Open over AF_XDP beside the kernel\'s, and the I/O floor (phase afxdp-tfo)'
NAN = float('nan')


def _med(v):
    v = [x for x in v if x == x]
    return statistics.median(v) if v else NAN


def _f(v, f='{:,.0f}'):
    return f.format(v) if v == v else 'n/a'


def _reps(d, pattern):
    out, n = [], 1
    while os.path.exists(os.path.join(d, pattern.format(n))):
        out.append(n)
        n += 1
    return out


def _cpu(path):
    """("ns on a CPU", "wall us") of a .cpu file."""
    ns, us = open(path).read().split()
    return int(ns), int(us)


def _kern(path):
    """The server end's rx and tx frames and its namespace's Tcp and TcpExt
    counters (one dict) of a .kern file."""
    lines = open(path).read().splitlines()
    c = {}
    for head, vals in zip(lines[2::2], lines[3::2]):
        c.update(zip(head.split()[1:], (int(x) for x in vals.split()[1:])))
    return int(lines[0]), int(lines[1]), c


def window(d, name, kind):
    """The server's figures over one client run: a dict of conns (the
    connections it served), tfo (those opened with data in the SYN), busy
    (tfo-server's busy_tsc; None for the kernel), cpu_ns, rx, tx (frames)."""
    base = os.path.join(d, name)
    (n0, _), (n1, _) = _cpu(base + '.a.cpu'), _cpu(base + '.b.cpu')
    w = {'cpu_ns': n1 - n0, 'busy': None}
    if kind == 'tfo':
        a = json.load(open(base + '.a.tel'))['/tfo/stats']
        b = json.load(open(base + '.b.tel'))['/tfo/stats']
        w.update({k: b[k] - a[k] for k in ('conns_opened_tfo', 'conns_opened_plain',
                                            'busy_tsc', 'rx_pkts', 'tx_pkts')})
        w.update(conns=w['conns_opened_tfo'] + w['conns_opened_plain'],
                 tfo=w['conns_opened_tfo'], busy=w['busy_tsc'], rx=w['rx_pkts'],
                 tx=w['tx_pkts'])
    else:
        rx0, tx0, c0 = _kern(base + '.a.kern')
        rx1, tx1, c1 = _kern(base + '.b.kern')
        w.update(conns=c1['PassiveOpens'] - c0['PassiveOpens'],
                 tfo=c1['TCPFastOpenPassive'] - c0['TCPFastOpenPassive'], rx=rx1 - rx0,
                 tx=tx1 - tx0)
    return w


def client(d, name, kind):
    """The client's figures of one run: txn_s, p50, p99 (us), errors."""
    base = os.path.join(d, name)
    if kind == 'tfo':
        j = json.load(open(base + '.json'))
        return {'txn_s': j['txn_per_s'], 'p50': j['latency_us']['p50'],
                'p99': j['latency_us']['p99'], 'errors': j['errors']}
    text = open(base + '.log').read()
    g = re.search(r'^transactions \d+ seconds \S+ rate (\d+)/s errors (\d+)', text, re.M)
    lat = re.search(r'^latency_us p50 (\d+) p99 (\d+)', text, re.M)
    return {'txn_s': int(g.group(1)) if g else NAN, 'errors': int(g.group(2)) if g else NAN,
            'p50': int(lat.group(1)) if lat else NAN, 'p99': int(lat.group(2)) if lat else NAN}


def rows(d, hz):
    """The medians of each (kind, load) over its repetitions."""
    out = {}
    for kind in ('tfo', 'kernel'):
        for load in ('rate', 'peak'):
            runs = []
            for n in _reps(d, f'{kind}_{load}_{{}}.log'):
                name = f'{kind}_{load}_{n}'
                try:
                    c, w = client(d, name, kind), window(d, name, kind)
                except (OSError, ValueError, KeyError, IndexError, json.JSONDecodeError):
                    continue
                t = w['conns'] or NAN
                c.update(busy=w['busy'] / t if w['busy'] is not None else NAN,
                         cpu=w['cpu_ns'] * hz / 1e9 / t, tfo=w['tfo'] * 100 / t,
                         rx=w['rx'] / t, tx=w['tx'] / t)
                runs.append(c)
            if runs:
                r = {k: _med([x[k] for x in runs]) for k in runs[0]}
                r['errors'] = sum(x['errors'] for x in runs if x['errors'] == x['errors'])
                r['n'] = len(runs)
                out[kind, load] = r
    return out


def floor(d, hz):
    """testpmd macswap's TSC per forwarded frame, busy (its own count) and
    CPU (its process's CPU time over the frames its port received in the
    window), forwarded Mpps and the feeder's sent Mpps (medians over the
    repetitions)."""
    def busy(pps):
        """The 1 s samples once frames came, but the first and the last."""
        pps = [x for x in pps if x]
        return pps[1:-1] if len(pps) > 2 else pps

    cyc, cpu, mpps, sent = [], [], [], []
    for n in _reps(d, 'tp_fwd_{}.log'):
        text = open(os.path.join(d, f'tp_fwd_{n}.log')).read()
        g = re.search(r'CPU cycles/packet=([0-9.]+)', text)
        pps = busy(int(x) for x in re.findall(r'Rx-pps:\s+(\d+)', text))
        if not g or not pps:
            continue
        cyc.append(float(g.group(1)))
        mpps.append(_med(pps) / 1e6)
        gen = os.path.join(d, f'tp_gen_{n}.log')
        tx = [int(x) for x in re.findall(r'Tx-pps:\s+(\d+)', open(gen).read())] \
            if os.path.exists(gen) else []
        sent.append(_med(busy(tx)) / 1e6)
        try:
            base = os.path.join(d, f'tp_{n}')
            (n0, _), (n1, _) = _cpu(base + '.a.cpu'), _cpu(base + '.b.cpu')
            f0, f1 = (json.load(open(f'{base}.{x}.eth'))['/ethdev/stats']['ipackets']
                      for x in 'ab')
            cpu.append((n1 - n0) * hz / 1e9 / (f1 - f0))
        except (OSError, KeyError, ValueError, ZeroDivisionError):
            pass
    return {'cyc': _med(cyc), 'cpu': _med(cpu), 'mpps': _med(mpps), 'sent': _med(sent),
            'n': len(cyc)}


def tsc_hz(d):
    """tfo-server's tsc_hz (its first snapshot), else testpmd's clock."""
    try:
        return json.load(open(os.path.join(d, 'tfo_rate_1.a.tel')))['/tfo/stats']['tsc_hz']
    except (OSError, KeyError, ValueError):
        for n in _reps(d, 'tp_fwd_{}.log'):
            g = re.search(r'at (\d+) MHz Clock', open(os.path.join(d, f'tp_fwd_{n}.log')).read())
            if g:
                return float(g.group(1)) * 1e6
    return NAN


# perf's objects, in the groups of the profile table
PROFILE_GROUPS = (('the kernel', ('[kernel.kallsyms]',)),
                  ('its own code', ('tfo-server', 'dpdk-testpmd', 'kernel_tfo_server')),
                  ('libc', ('libc.so.6',)), ('net_af_xdp', ('librte_net_af_xdp.so.23.0',)))


def profile(d, name):
    """perf's shares (%) of NAME's samples per group of objects (the rest:
    'other'), and its top symbols as "share object symbol"; None without."""
    try:
        dso = [x.split(None, 1) for x in open(os.path.join(d, name + '.dso')) if '%' in x]
        sym = [x.split() for x in open(os.path.join(d, name + '.sym')) if '%' in x]
    except OSError:
        return None
    if not dso:
        return None
    share = {g: 0.0 for g, _ in PROFILE_GROUPS}
    share['other'] = 0.0
    for pct, obj in dso:
        g = next((g for g, objs in PROFILE_GROUPS if obj.strip() in objs), 'other')
        share[g] += float(pct.rstrip('%'))
    top = [f"{x[0]} {x[-1]}" for x in sym[:6] if len(x) >= 4]
    return share, top


def section(raw, m):
    """The markdown section (empty when the phase did not run); m: the run's
    machine.txt as a dict."""
    d = os.path.join(raw, 'afxdp_tfo')
    if os.path.exists(os.path.join(d, 'skipped.txt')):
        return f"{TITLE}\n\nNot run: {open(os.path.join(d, 'skipped.txt')).read().strip()}.\n"
    if not os.path.exists(os.path.join(d, 'plan.txt')):
        return ''
    rate, conc = (int(x) for x in open(os.path.join(d, 'plan.txt')).read().split())
    hz = tsc_hz(d)
    R, F = rows(d, hz), floor(d, hz)
    out = [TITLE, '']
    a = out.append
    a(f"CPU: **{m.get('cpu', '?')}**, {m.get('cpus', '?')} CPUs, TSC {_f(hz / 1e9, '{:.2f}')} "
      f"GHz. **One run on shared CPUs**: the machine was busy with other sessions' builds and "
      f"tests (load average {m.get('load_before', '?')} before the run, "
      f"{m.get('load_after', '?')} after; others' share of CPU 0 / CPU 1 just before this "
      f"phase: {m.get('busy_afxdp-tfo', '?')}): orders of magnitude, not figures to the per "
      f"cent. {m.get('date', '?')}, commit {m.get('commit', '?')}, kernel "
      f"{m.get('kernel', '?')}, {m.get('reps', '?')} x {m.get('seconds', '?')} s a row "
      f"(medians).")
    a('')
    a(f"One veth pair between two namespaces, one queue each end. **tfo-server** (echo on TCP "
      f"7, net_af_xdp `xdp = own`, control 0 and one worker on CPU {m.get('dut_cpu', '?')}, "
      f"idle_policy adaptive) against **tfo-loadgen** on net_af_xdp on the other end (CPU "
      f"{m.get('gen_cpu', '?')}); the **Linux kernel's** TFO server (bench/kernel_tfo_server, "
      f"one thread on CPU {m.get('dut_cpu', '?')}) against its TFO client "
      f"(bench/kernel_tfo_client, one thread on CPU {m.get('gen_cpu', '?')}) on the same "
      f"veth's kernel ends. The same 100-byte echo (request in the SYN, response checked), "
      f"at most {conc} in flight; \"{rate:,}/s\": open loop at that rate; \"peak\": closed "
      f"loop. Transactions/s, p50 and p99 (from the SYN to the whole answer): the client's "
      f"(tfo-loadgen's JSON; kernel_tfo_client's output), after its warm-up. Server figures "
      f"per connection it served, from its counters before and after the whole client run "
      f"(the warm-up's connections, which fetch the cookie, included: hence the share of "
      f"connections with data in the SYN): **busy TSC** (tfo-server's busy_tsc: polls that "
      f"found work, its TX kicks included) and **process CPU** in TSC "
      f"(/proc/PID/task/*/schedstat: every thread; tfo-server's idle polls and the kernel's "
      f"softirqs run in its server's context included); frames in and out (tfo-server's "
      f"rx_pkts/tx_pkts; the kernel server end's sysfs counters).")
    a('')
    a('| server and client | load | transactions/s | p50 (us) | p99 (us) | client errors | '
      'connections with data in the SYN | server busy TSC / connection | server process '
      'CPU / connection (TSC) | frames in + out / connection |')
    a('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    label = {'tfo': 'tfo-server on net_af_xdp, tfo-loadgen on net_af_xdp',
             'kernel': 'Linux TFO server, Linux TFO client (kernel sockets)'}
    for (kind, load), r in R.items():
        a(f"| {label[kind]} | {f'{rate:,}/s' if load == 'rate' else 'peak'} | "
          f"{_f(r['txn_s'])} | {_f(r['p50'])} | {_f(r['p99'])} | {r['errors']} | "
          f"{_f(r['tfo'], '{:.1f} %')} | "
          f"{_f(r['busy']) if kind == 'tfo' else '(no busy count)'} | {_f(r['cpu'])} | "
          f"{_f(r['rx'], '{:.2f}')} + {_f(r['tx'], '{:.2f}')} |")
    a('')
    if not F['n']:
        a('The floor: no testpmd figures (see its logs).')
        return '\n'.join(out) + '\n'
    def per_cpu(tsc):
        return _f(hz / tsc / 1e6 if tsc else NAN, '{:.2f}')

    a(f"**The I/O floor**: dpdk-testpmd `--forward-mode=macswap --record-core-cycles` on "
      f"net_af_xdp on the server end (forwarding lcore on CPU {m.get('dut_cpu', '?')}), fed "
      f"by a second testpmd in flowgen mode (128-byte frames) on net_af_xdp on the client end "
      f"(CPU {m.get('gen_cpu', '?')}): **{_f(F['cyc'])} busy TSC per forwarded frame** (one "
      f"in, one out; testpmd's count, which on a busy machine includes time the scheduler "
      f"took inside a busy poll) = {per_cpu(F['cyc'])} M frames/s per CPU; **{_f(F['cpu'])} "
      f"TSC of its process's CPU time per frame** its port received (schedstat and "
      f"/ethdev/stats over {m.get('seconds', '?')} s once frames came: it polls without "
      f"pause, so while frames wait all of that is work) = **{per_cpu(F['cpu'])} M frames/s "
      f"per CPU**. It forwarded {_f(F['mpps'], '{:.3f}')} Mpps of the "
      f"{_f(F['sent'], '{:.3f}')} Mpps the feeder sent (medians of {F['n']} run(s)). Both "
      f"sides pay the same things: a frame's receive (the veth's XDP redirect and the copy "
      f"into the socket) runs on its sender's CPU, and a TX kick (sendto) runs the veth's "
      f"transmit and the peer's XDP receive inside the sender's time.")
    a('')
    a('| server | load | frames in + out / connection | floor TSC for those frames, busy '
      '/ CPU time | server TSC / connection, busy / CPU time | **ratio to the floor**, busy '
      '/ CPU time |')
    a('|---|---|---:|---:|---:|---:|')
    for (kind, load), r in R.items():
        # a forwarded frame is one in and one out: a connection's floor is
        # (in + out) / 2 forwarded frames
        half = (r['rx'] + r['tx']) / 2
        fb, fc = F['cyc'] * half, F['cpu'] * half
        a(f"| {label[kind]} | {f'{rate:,}/s' if load == 'rate' else 'peak'} | "
          f"{_f(r['rx'] + r['tx'], '{:.2f}')} | {_f(fb)} / {_f(fc)} | "
          f"{_f(r['busy'])} / {_f(r['cpu'])} | "
          f"**{_f(r['busy'] / fb if fb else NAN, '{:.1f}x')}** / "
          f"**{_f(r['cpu'] / fc if fc else NAN, '{:.1f}x')}** |")
    a('')
    a("The ratio: the server's TSC per connection over the floor's for the same frames, "
      "(in + out) / 2 forwarded frames; busy with busy (the kernel has no busy count: n/a), "
      "CPU time with CPU time. tfo-server's CPU time counts its idle polls: with idle_policy "
      "adaptive an lcore polls for 2 ms after work, so at "
      f"{rate:,}/s it hardly ever naps, and its CPU time per connection is the CPU it holds "
      "(control 0 and the worker share one CPU, yielding it at every empty poll), not its "
      "work. The floor has full bursts (the feeder never pauses); at "
      f"{rate:,}/s a burst holds one frame, so each frame pays a poll and a TX kick of its "
      "own. What stands between these figures and the floor: bench/results/afxdp-tfo.md.")
    profs = [(label, profile(d, name)) for name, label in (
        ('tfo_peak_1', f"tfo-server at its peak"), ('kernel_peak_1', "the kernel's server at "
                                                    "its peak"),
        ('tp_1', 'testpmd macswap (the floor)'))]
    profs = [(label, p) for label, p in profs if p]
    if profs:
        a('')
        a("Where each server's CPU time goes (perf record -e cpu-clock, 999 samples/s of the "
          "process for the first peak run's seconds after its warm-up and the first floor run's; "
          "\"its own code\": tfo-server, testpmd, kernel_tfo_server):")
        a('')
        a('| process | ' + ' | '.join(g for g, _ in PROFILE_GROUPS) + ' | other | the top '
          'symbols (% of the samples) |')
        a('|---|' + '---:|' * (len(PROFILE_GROUPS) + 1) + '---|')
        for label, (share, top) in profs:
            a(f"| {label} | " + ' | '.join(f"{share[g]:.1f} %" for g, _ in PROFILE_GROUPS) +
              f" | {share['other']:.1f} % | {'; '.join(top)} |")
    return '\n'.join(out) + '\n'


def main():
    raw = sys.argv[1]
    m = {}
    for line in open(os.path.join(raw, 'machine.txt')):
        k, _, v = line.rstrip('\n').partition('=')
        m[k] = v
    sys.stdout.write(section(raw, m))


if __name__ == '__main__':
    main()
