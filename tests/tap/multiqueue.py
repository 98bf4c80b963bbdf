#!/usr/bin/python3
"""Two workers on a net_tap with two queues (suite tap, root).

    multiqueue.py TFO_SERVER [CASE...]

The kernel spreads flows over the tap's queues by flow hash, and sends a
flow's packets to the queue its replies came from; each queue is one
worker's. This machine has 2 cores: lcores 1 and 2 (the workers) share
core 1, the control core has core 0, idle_sleep_us lets the pollers share.

Cases:
  spread   200 concurrent kernel TFO clients: all served byte-exact, both
           workers take a share, each connection is handled by exactly one
           worker (per-worker counters add up to the totals, no segment of a
           fast-path connection reaches the control core, and in the capture
           every connection is answered from one state: one ISN, one
           timestamp clock, no RST), the counters add up (totals = sum of
           the lcores; the workers' rx/tx = the port's).
  pending  pending_limit 1 on each worker; a TFO connection held pending
           (reset before its handshake completed) on one worker does not
           block the other: on the held worker valid cookies overflow to the
           slow path, on the other they open TFO; all are served.
  steering syn_steering = on, which net_tap cannot do: the fallback to
           software classification, its log line, and TFO still served
           (with 1 and 2 workers).
  controls control_lcores = 2 with one worker (lcores 0@0,1@1,2@1: control
           0 on core 0, control 1 and the worker share core 1): cookie
           requests, 200 plain clients, bad cookies (after two key
           rotations) and TFO clients from many source ports, all served
           byte-exact; /tfo/stats shows both control lcores with ctrl_rx and
           connections of their own; the summary at exit balances.
  relay    control_lcores = 2 with two workers (net_tap gives control lcores
           no TX queue): 200 plain clients served byte-exact; control k's
           frames leave through worker k % 2 (each worker's tx_relay_in is
           its control lcore's ctrl_relayed, both > 0), none dropped.
"""
import os
import re
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, CLIENT_V4, SERVER_V4, flows, need_root  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ECHO = 7
T = Checks()


def eal(tag):
    # control on core 0, both workers on core 1
    return ['--lcores', '0@0,1@1,2@1', '--no-huge', '-m', '512', '--no-shconf', '--no-pci',
            '--file-prefix', 'tfomq%s%d' % (tag, os.getpid())]


def workers(stats):
    return {k: v for k, v in stats.items() if isinstance(v, dict) and '_worker' in k}


def lcores(stats):
    return {k: v for k, v in stats.items() if isinstance(v, dict)}


def wdelta(after, before, name):
    """Per worker: after - before of one counter."""
    a, b = workers(after), workers(before)
    return {k: a[k].get(name, 0) - b.get(k, {}).get(name, 0) for k in a}


def learn_cookie(bed):
    r = bed.client(SERVER_V4, ECHO, '--data', 'first\\n', '--expect-echo')
    T.check('first connection (cookie request) served', r['ok'], r)
    T.check('the kernel cached our cookie', 'fo_cookie' in bed.tcp_metrics())


def totals_add_up(st, tag):
    """Every counter's total is the sum over the lcores (telemetry lists the
    lcores' non-zero counters)."""
    lc = lcores(st)
    # mbufs_in_use is a gauge of the whole process (its mempools), not a
    # counter of an lcore, tsc_hz a constant, and latency_* the histograms'
    # totals (counts, quantiles), which /tfo/latency gives per lcore
    bad = [k for k, v in st.items() if not isinstance(v, dict) and isinstance(v, int)
           and v != sum(d.get(k, 0) for d in lc.values())
           and not k.startswith(('accounting', 'rx_unaccounted', 'tx_unaccounted',
                                 'latency_'))
           and k not in ('mbufs_in_use', 'tsc_hz')]
    T.check('%s: every total is the sum of the lcores\' counters' % tag, not bad, bad[:5])


def by_client_syn(frames):
    """A port's frames cut into connections: the kernel may give a closed
    connection's port to a later one of the same run (the server closes
    first, so the client keeps no TIME-WAIT); a client SYN with a new
    sequence number starts the next (a retransmitted SYN keeps its own)."""
    conns, isn = [], None
    for p in frames:
        if p['dir'] == 'c2s' and 'S' in p['flags'] and p['seq'] != isn:
            isn = p['seq']
            conns.append([])
        if conns:
            conns[-1].append(p)
        else:
            conns.append([p])
    return conns


def case_spread(server):
    with Bed(server, ['--stats-period', '0'], eal=eal('s')) as bed:
        T.check('start-up line: 2 RX queues with RSS', '2 rxq/2 txq, RSS on the TCP 4-tuple'
                in bed.log_text(), [l for l in bed.log_text().splitlines() if 'port 0' in l])
        learn_cookie(bed)
        before = bed.stats()
        cap = bed.capture()
        r = bed.ns_run(['/usr/bin/python3', os.path.join(HERE, 'tfo_many.py'), SERVER_V4,
                        str(ECHO), '200'], check=False, timeout=120)
        pk = cap.packets()
        time.sleep(0.3)
        after = bed.stats()
        import json
        res = json.loads(r.stdout.strip().splitlines()[-1]) if r.stdout.strip() else {}
        T.check('200 concurrent TFO connections, all served byte-exact',
                res.get('ok') == 200, (res.get('ok'), res.get('fails'), r.stderr[-300:]))
        tfo = wdelta(after, before, 'TCPFastOpenPassive')
        print('TFO connections per worker: %s' % tfo)
        T.check('both workers took a share', len(tfo) == 2 and all(v > 0 for v in tfo.values()), tfo)
        T.check('per-worker TCPFastOpenPassive add up to 200 (the total)',
                sum(tfo.values()) == 200 and
                after['TCPFastOpenPassive'] - before['TCPFastOpenPassive'] == 200, tfo)
        opened = wdelta(after, before, 'conns_opened_tfo')
        T.check('each connection opened on one worker (conns_opened_tfo per worker = TFO per worker)',
                opened == tfo, (opened, tfo))
        ctl = after['to_control'] - before['to_control']
        T.check('no segment of these connections reached the control core (to_control +%d, '
                'ARP/ND only)' % ctl, ctl <= 4, ctl)
        T.check('no RST sent', after.get('rst_tx', 0) == before.get('rst_tx', 0))
        T.check('no fallbacks (PassiveFail, ListenOverflow unchanged)',
                after.get('TCPFastOpenPassiveFail', 0) == before.get('TCPFastOpenPassiveFail', 0)
                and after.get('TCPFastOpenListenOverflow', 0) ==
                before.get('TCPFastOpenListenOverflow', 0))
        # the capture: every connection answered from one state
        fl = {p: f for p, f in flows(pk).items() if p in set(res.get('ports', []))}
        # tcpdump may miss frames on a loaded machine and says how many: a
        # connection whose SYN-ACK it missed is excused, up to that number
        lost = [p for p, f in fl.items()
                if not any(x['dir'] == 's2c' and 'S' in x['flags'] for x in f)]
        if lost and len(lost) + (200 - len(fl)) <= cap.dropped:
            print('   capture: tcpdump dropped %d frames; %d connections without their '
                  'SYN-ACK in it are left out' % (cap.dropped, len(lost)))
            fl = {p: f for p, f in fl.items() if p not in lost}
        T.check('the capture holds the 200 connections', len(fl) == 200 or
                200 - len(fl) <= cap.dropped, (len(fl), cap.dropped))
        one_state = tfo_first = 0
        bad = []
        conns = [(port, c) for port, f in fl.items() for c in by_client_syn(f)]
        for port, f in conns:
            srv = [p for p in f if p['dir'] == 's2c']
            synacks = {p['seq'] for p in srv if 'S' in p['flags']}
            isn = next(iter(synacks)) if len(synacks) == 1 else None
            in_seq = isn is not None and all(
                0 <= (p['seq'] - isn) % (1 << 32) <= 1 + 4096 for p in srv)
            clock = [p['ts'][0] - int(p['time'] * 1000) for p in srv if p['ts']]
            one_clock = clock and max(clock) - min(clock) < 200
            no_rst = not any('R' in p['flags'] for p in srv)
            if isn is not None and in_seq and one_clock and no_rst:
                one_state += 1
            else:
                bad.append((port, [(p['flags'], p['seq'], p['ts']) for p in srv]))
            if srv and 'S' in srv[0]['flags'] and srv[0]['len'] > 0:
                tfo_first += 1
        T.check('capture: every connection answered from one state (one ISN, sequence '
                'numbers from it, one timestamp clock, no RST)', one_state == len(conns), bad[:2])
        T.check('capture: every connection\'s first answer is a SYN-ACK carrying the response',
                tfo_first == len(conns), tfo_first)
        # a stray frame (IPv6 router solicitation...) may arrive between two
        # reads: take counters that the port's did not move around
        for _ in range(10):
            eth0 = bed.telemetry('/ethdev/stats,0')
            st = bed.stats()
            eth = bed.telemetry('/ethdev/stats,0')
            if (eth0['ipackets'], eth0['opackets']) == (eth['ipackets'], eth['opackets']):
                break
            time.sleep(0.2)
        totals_add_up(st, 'spread')
        w = workers(st)
        T.check('the workers\' rx_pkts add up to the port\'s ipackets',
                sum(v.get('rx_pkts', 0) for v in w.values()) == eth.get('ipackets'),
                (sum(v.get('rx_pkts', 0) for v in w.values()), eth.get('ipackets')))
        T.check('the lcores\' tx_pkts add up to the port\'s opackets',
                st.get('tx_pkts') == eth.get('opackets'), (st.get('tx_pkts'), eth.get('opackets')))
        conns = bed.telemetry('/tfo/conns')
        T.check('/tfo/conns: per core, both workers and the control core',
                len([k for k in conns if '_worker' in k]) == 2 and
                any('_control' in k for k in conns), list(conns))
        T.check('server stops with exit code 0', bed.stop() == 0)


def inject_tfo_syn(bed, key, sport):
    """A TFO SYN (valid cookie, data) from the client address, sent with
    scapy: the kernel has no socket for it and resets our SYN-ACK, so the
    connection stays counted as pending for pending_hold_ms."""
    tool = os.path.join(os.path.dirname(bed.server), 'tfo-keytool')
    cookie = subprocess.run([tool, 'cookie', '--key', key, '--client', CLIENT_V4, '--server',
                             SERVER_V4], check=True, stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    mac = bed.ns_run(['ip', 'neigh', 'show', SERVER_V4, 'dev', bed.iface]).stdout.split()
    mac = mac[mac.index('lladdr') + 1]
    ck = struct.unpack('!II', bytes.fromhex(cookie))
    code = ('from scapy.all import Ether, IP, TCP, sendp\n'
            'p = Ether(dst="%s")/IP(src="%s", dst="%s")/TCP(sport=%d, dport=%d, flags="S", '
            'seq=1000, options=[("MSS", 1460), ("TFO", (%d, %d))])/b"held\\n"\n'
            'sendp(p, iface="%s", verbose=False)\n' % (mac, CLIENT_V4, SERVER_V4, sport, ECHO,
                                                      ck[0], ck[1], bed.iface))
    bed.ns_run(['/usr/bin/python3', '-c', code])


def case_pending(server):
    key = subprocess.run([os.path.join(os.path.dirname(server), 'tfo-keytool'), 'gen'],
                         check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    kdir = subprocess.run(['mktemp', '-d'], check=True, stdout=subprocess.PIPE,
                          text=True).stdout.strip()
    kfile = os.path.join(kdir, 'key')
    fd = os.open(kfile, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, (key + '\n').encode())
    os.close(fd)
    try:
        with Bed(server, ['--pending-limit', '1', '--set', 'tfo.pending_hold_ms=60000',
                          '--key-file', kfile], eal=eal('p')) as bed:
            learn_cookie(bed)
            held = None
            for attempt in range(4):
                inject_tfo_syn(bed, key, 40000 + attempt)
                time.sleep(0.5)
                conns = bed.telemetry('/tfo/conns')
                pend = {k: v.get('tfo_pending') for k, v in conns.items() if '_worker' in k}
                if sum(pend.values()) == 1:
                    held = next(k for k, v in pend.items() if v == 1)
                    break
            T.check('a TFO connection reset before its handshake is held pending on one '
                    'worker (/tfo/conns tfo_pending per core)', held is not None, pend)
            if held is None:
                return
            other = next(k for k in pend if k != held)
            print('held pending on %s; the other worker is %s' % (held, other))
            before = bed.stats()
            n, served = 30, 0
            for i in range(n):
                r = bed.client(SERVER_V4, ECHO, '--data', 'seq %d\\n' % i, '--expect-echo')
                served += r['ok']
            after = bed.stats()
            T.check('all %d sequential connections served' % n, served == n, served)
            tfo = wdelta(after, before, 'TCPFastOpenPassive')
            ovf = wdelta(after, before, 'TCPFastOpenListenOverflow')
            print('TFO per worker %s, overflow per worker %s' % (tfo, ovf))
            T.check('held worker: its valid cookies overflow (limit 1 reached), no TFO',
                    ovf[held] > 0 and tfo[held] == 0, (tfo, ovf))
            T.check('other worker: not blocked, TFO opens, no overflow',
                    tfo[other] > 0 and ovf[other] == 0, (tfo, ovf))
            T.check('TFO + overflow = every connection', sum(tfo.values()) + sum(ovf.values()) == n)
            conns = bed.telemetry('/tfo/conns')
            T.check('the held entry is still counted on its worker only',
                    conns[held]['tfo_pending'] == 1 and conns[other]['tfo_pending'] == 0,
                    {k: v['tfo_pending'] for k, v in conns.items()})
            totals_add_up(bed.stats(), 'pending')
            T.check('server stops with exit code 0', bed.stop() == 0)
    finally:
        subprocess.run(['rm', '-rf', kdir])


def case_steering(server):
    """syn_steering = on where the device cannot (net_tap: rte_flow disabled
    on this kernel, no redirection table): a clear line, and the port runs
    as without it (no SYN queue), with SYNs classified in software."""
    for lc, tag, nq in ((['--lcores', '0@0,1@1'], '1 worker', 1), (None, '2 workers', 2)):
        e = eal('x%d' % nq)
        if lc:
            e = lc + e[2:]
        with Bed(server, ['--set', 'port net_tap0.syn_steering=on'], eal=e) as bed:
            log = bed.log_text()
            line = next((l for l in log.splitlines() if 'syn_steering = on' in l), '')
            print('%s: %s' % (tag, line))
            T.check('steering, %s: the log says the device cannot, and why, and that SYNs '
                    'are classified in software' % tag,
                    'but the device cannot:' in line and 'classified in software' in line, line)
            T.check('steering, %s: the port has no SYN queue (%d rxq)' % (tag, nq),
                    '%d rxq/' % nq in log)
            learn_cookie(bed)
            r = bed.ns_run(['/usr/bin/python3', os.path.join(HERE, 'tfo_many.py'), SERVER_V4,
                            str(ECHO), '20'], check=False, timeout=60)
            st = bed.stats()
            T.check('steering, %s: 20 TFO connections served, by the workers, none steered'
                    % tag, r.returncode == 0 and st.get('TCPFastOpenPassive') == 20 and
                    st.get('syn_steered', 0) == 0, (r.stdout[-200:], st.get('TCPFastOpenPassive')))
            T.check('steering, %s: /tfo/config shows the key' % tag,
                    'port net_tap0.syn_steering = on' in bed.telemetry('/tfo/config'))


def many(bed, n, *extra):
    import json
    r = bed.ns_run(['/usr/bin/python3', os.path.join(HERE, 'tfo_many.py'), SERVER_V4,
                    str(ECHO), str(n)] + list(extra), check=False, timeout=120)
    res = json.loads(r.stdout.strip().splitlines()[-1]) if r.stdout.strip() else {}
    return res, r


def controls(st):
    return {k: v for k, v in st.items() if isinstance(v, dict) and '_control' in k}


def case_controls(server):
    with Bed(server, ['--set', 'server.control_lcores=2', '--stats-period', '1'],
             eal=eal('c')) as bed:
        log = bed.log_text()
        T.check('controls: started with 2 control lcores and 1 worker',
                'running: 2 control lcores' in log and '1 worker(s)' in log,
                [l for l in log.splitlines() if 'running' in l])
        # cookie requests: a fresh namespace has no cookie cached
        res, r = many(bed, 60)
        T.check('controls: 60 concurrent cookie-request clients served byte-exact',
                res.get('ok') == 60, (res.get('fails'), r.stderr[-300:]))
        res, r = many(bed, 200, '--plain')
        T.check('controls: 200 plain clients (no TFO option) served byte-exact',
                res.get('ok') == 200 and len(set(res.get('ports', []))) == 200,
                (res.get('ok'), res.get('fails'), r.stderr[-300:]))
        # the cached cookie is made of a key two rotations old: bad cookies
        bed.telemetry('/tfo/rotate')
        bed.telemetry('/tfo/rotate')
        res, r = many(bed, 40)
        T.check('controls: 40 clients with a stale cookie (bad cookies) served byte-exact',
                res.get('ok') == 40, (res.get('fails'), r.stderr[-300:]))
        before = bed.stats()
        res, r = many(bed, 60)
        T.check('controls: 60 TFO clients served byte-exact', res.get('ok') == 60,
                (res.get('fails'), r.stderr[-300:]))
        time.sleep(0.3)
        st = bed.stats()
        print('TFO: %d; cookie requests %d, bad cookies %d' % (
            st.get('TCPFastOpenPassive', 0) - before.get('TCPFastOpenPassive', 0),
            st.get('TCPFastOpenCookieReqd', 0), st.get('TCPFastOpenPassiveFail', 0)))
        T.check('controls: cookie requests and bad cookies were seen (CookieReqd, PassiveFail)',
                st.get('TCPFastOpenCookieReqd', 0) > 0 and
                st.get('TCPFastOpenPassiveFail', 0) > 0, st)
        T.check('controls: the TFO clients opened on the worker',
                st.get('TCPFastOpenPassive', 0) - before.get('TCPFastOpenPassive', 0) > 0)
        ctl = controls(st)
        for k, v in sorted(ctl.items()):
            print('%s: ctrl_rx %d conns_opened_plain %d tx_queued %d' % (
                k, v.get('ctrl_rx', 0), v.get('conns_opened_plain', 0), v.get('tx_queued', 0)))
        T.check('controls: /tfo/stats lists two control lcores', len(ctl) == 2, list(ctl))
        T.check('controls: both control lcores took frames (ctrl_rx > 0) and opened '
                'connections of their own (conns_opened_plain > 0)',
                len(ctl) == 2 and all(v.get('ctrl_rx', 0) > 0 and
                                      v.get('conns_opened_plain', 0) > 0 for v in ctl.values()),
                ctl)
        T.check('controls: the totals are the sum of the lcores and balance',
                st.get('accounting_ok') == 1, st.get('rx_unaccounted'))
        totals_add_up(st, 'controls')
        conns = bed.telemetry('/tfo/conns')
        T.check('controls: /tfo/conns has both control lcores',
                len([k for k in conns if '_control' in k]) == 2, list(conns))
        prom = subprocess.run([os.path.join(HERE, '..', '..', 'scripts', 'usertools', 'tfo-prom'),
                               '--file-prefix', bed.prefix, '--per-lcore'],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=30)
        rx = [l for l in prom.stdout.splitlines()
              if l.startswith('tfo_ctrl_rx_total{') and 'role="control"' in l]
        ctl_lcores = set(re.findall(r'lcore="([0-9]+)"', ' '.join(rx)))
        T.check('controls: tfo-prom --per-lcore has ctrl_rx of both control lcores '
                '(role="control", two lcore labels)', len(ctl_lcores) == 2,
                rx or prom.stderr[-300:])
        time.sleep(1.2)
        line = [l for l in bed.log_text().splitlines() if l.startswith('stats: ')]
        T.check('controls: the stats line has the busiest control lcore of both '
                '(control_busy_pct, control_busiest 0 or 1)',
                line and re.search(r' control_busy_pct=[0-9.]+ control_busiest=[01] ',
                                   line[-1]) is not None, line[-1:])
        T.check('controls: server stops with exit code 0', bed.stop() == 0)
        log = bed.log_text()
        T.check('controls: the summary at exit has both control lcores and balances',
                'control1(lcore 1) ok' in log and
                re.search(r'^accounting: ok', log, re.M) is not None,
                [l for l in log.splitlines() if 'accounting' in l or 'control' in l][-6:])
        T.check('controls: the kernel client saw no bad checksum',
                bed.nstat().get('TcpInCsumErrors', 0) == 0)


def case_relay(server):
    e = ['--lcores', '0@0,1@1,2@0,3@1', '--no-huge', '-m', '512', '--no-shconf', '--no-pci',
         '--file-prefix', 'tfomqr%d' % os.getpid()]
    with Bed(server, ['--set', 'server.control_lcores=2'], eal=e) as bed:
        res, r = many(bed, 200, '--plain')
        T.check('relay: 200 plain clients served byte-exact', res.get('ok') == 200,
                (res.get('ok'), res.get('fails'), r.stderr[-300:]))
        time.sleep(0.3)
        st = bed.stats()
        ctl = [v for k, v in sorted(controls(st).items(), key=lambda kv: kv[0].endswith('control'),
                                    reverse=True)]
        wk = [v for k, v in sorted(workers(st).items(), key=lambda kv: kv[0][-1])]
        got = [(c.get('ctrl_relayed', 0), w.get('tx_relay_in', 0)) for c, w in zip(ctl, wk)]
        print('relay: (control k ctrl_relayed, worker k tx_relay_in): %s' % got)
        T.check('relay: 2 control lcores, 2 workers', len(ctl) == 2 and len(wk) == 2,
                (list(controls(st)), list(workers(st))))
        T.check('relay: control k sends through worker k (both carry relayed frames)',
                len(got) == 2 and all(a == b and a > 0 for a, b in got), got)
        T.check('relay: nothing dropped on the relay or at the TX queues',
                st.get('relay_drop_full', 0) == 0 and st.get('tx_drop_full', 0) == 0,
                (st.get('relay_drop_full'), st.get('tx_drop_full')))
        T.check('relay: server stops with exit code 0', bed.stop() == 0)
        T.check('relay: accounting at exit balances',
                re.search(r'^accounting: ok', bed.log_text(), re.M) is not None)


CASES = {'spread': case_spread, 'pending': case_pending, 'steering': case_steering,
         'controls': case_controls, 'relay': case_relay}

if __name__ == '__main__':
    need_root()
    if (os.cpu_count() or 1) < 2:
        print('SKIP: needs 2 CPUs (lcores mapped 0@0,1@1,2@1)')
        sys.exit(77)
    srv = os.path.abspath(sys.argv[1])
    for name in sys.argv[2:] or CASES:
        print('== %s' % name)
        sys.stdout.flush()
        try:
            CASES[name](srv)
        except Exception as e:
            T.check('%s ran without exception' % name, False, repr(e))
    sys.exit(T.done())
