"""The DNS phases on one veth: afxdp (scripts/devtools/bench_afxdp.sh) and
dnssec (scripts/devtools/bench_dnssec.sh), their runs and sections."""
import os
import re

from benchreport.md import fmt
from benchreport.raw import counters, machine, med


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


def rrl_cost(raw, cpu_of, rate, m):
    """The paragraph "The cost of RRL per UDP answer": tfo-server's CPU per
    answer with every answer through the RRL table against without (the
    runs before and after); [] without both rows."""
    out = []
    a = out.append
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
    return out


def rrl_limit(raw, limit):
    """The run at a real rate limit: tfo-server's RRL counters over it, and
    the bytes out per byte in without RRL beside; [] without that run."""
    out = []
    a = out.append
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
    return out


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
    out += rrl_cost(raw, cpu_of, rate, m)
    out += rrl_limit(raw, limit)
    return '\n'.join(out) + '\n'
