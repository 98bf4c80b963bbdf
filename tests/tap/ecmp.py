#!/usr/bin/python3
"""Two members behind a Linux ECMP route, one shared key file (suite tap, root).

    ecmp.py TFO_SERVER

The set-up of docs/runbook.md, "A fleet behind ECMP", in three namespaces:

  4 client ns: 198.18.{2..5}.1-5/24, a veth each (20 Linux TFO clients, one
       |        cookie cache entry per source address)
  router ns: 198.18.{2..5}.254/24, ip_forward,
             fib_multipath_hash_policy=1 (L4 hash),
             198.18.0.2/32 nexthop dev tfoa nexthop dev tfob
       |                       |
  member A (tap tfoa)    member B (tap tfob)   both tfo-server, own
                                               --file-prefix, -m 256,
                                               serve 198.18.0.2 with the
                                               same key file

The members' taps live in the router namespace (net_tap creates them in the
namespace of the DPDK process). Checked:
  1. each address's first connection asks for a cookie (20 in all);
  2. then every connection is TFO with the response in the SYN-ACK, on
     whichever member the L4 hash picks: both members answer every client
     address (captures on tfoa and tfob), both serve a share, the client
     counts TcpExtTCPFastOpenActive for each and no fallback;
  3. the runbook's fleet key rotation (K1 -> "K1,K2" -> "K2,K1" -> once
     no client presents K1 any more, "K2,K3", K1 retired), member by member
     with SIGHUP and /tfo/reload, under continuous load from all 20
     addresses: no connection falls back (server PassiveFail, client
     ActiveFail), all byte-exact, every SYN-ACK carries the response, and
     the backup key is seen in use (the rotation really happened under load).
"""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, SERVER_V4, HERE, need_root  # noqa: E402
from keys_fleet import keytool, write_keys, sighup, fps  # noqa: E402

ECHO = 7
# Linux keys its TFO cookie cache (tcp_metrics) by source and destination
# but hashes only the destination and keeps at most 6 entries per bucket:
# 20 source addresses to one server in one namespace evict each other's
# cookies. So the 20 clients are 4 namespaces of 5 addresses, each behind its
# own veth and subnet 198.18.(2+k).0/24, router .254.
NNS, PERNS = 4, 5
NCLIENTS = NNS * PERNS
SUBNETS = ['198.18.%d' % (2 + k) for k in range(NNS)]
CLIENTS = ['%s.%d' % (n, i) for n in SUBNETS for i in range(1, PERNS + 1)]
MEMBERS = ('tfoa', 'tfob')
RATE = 100	# connections/s per client namespace during the rotation
T = Checks()


def run(ns, *cmd, check=True, timeout=30):
    return subprocess.run(['ip', 'netns', 'exec', ns] + list(cmd), check=check,
                          timeout=timeout, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


def nstat(cnss):
    """The client namespaces' kernel counters, summed."""
    import json
    out = {}
    for ns in cnss:
        for v in json.loads(run(ns, 'nstat', '-az', '--json').stdout).values():
            for k, x in v.items():
                out[k] = out.get(k, 0) + x
    return out


def sum_stats(beds, before=None):
    """Per-member TFO counters (minus @before's)."""
    keys = ('TCPFastOpenPassive', 'TCPFastOpenPassiveFail', 'TCPFastOpenCookieReqd',
            'TCPFastOpenPassiveAltKey', 'TCPFastOpenListenOverflow')
    out = []
    for i, b in enumerate(beds):
        s = b.stats()
        out.append({k: s.get(k, 0) - (before[i][k] if before else 0) for k in keys})
    return out


SYNACK = 'tcp[tcpflags] & (tcp-syn|tcp-ack) == (tcp-syn|tcp-ack)'


def synacks(cap):
    """[(client address, payload length)] of the SYN-ACKs a capture on a
    member's tap saw (the member's own answers, before the router)."""
    path = cap.stop()
    r = subprocess.run(['tcpdump', '-nr', path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    os.unlink(path)
    out = []
    for line in r.stdout.splitlines():
        m = re.search(r' > (\d+\.\d+\.\d+\.\d+)\.\d+: .*length (\d+)', line)
        if m:
            out.append((m.group(1), int(m.group(2))))
    return out


def load(cnss, n, conc, until=None, rate=None):
    """tfo_many.py in every client namespace, @n connections each (0 and
    @until: until that file exists), from that namespace's addresses."""
    ps = []
    for k, ns in enumerate(cnss):
        cmd = ['ip', 'netns', 'exec', ns, '/usr/bin/python3', os.path.join(HERE, 'tfo_many.py'),
               SERVER_V4, str(ECHO), str(n), '--conc', str(conc), '--timeout', '5',
               '--src', ','.join(CLIENTS[k * PERNS:(k + 1) * PERNS])]
        if until:
            cmd += ['--until', until]
        if rate:
            cmd += ['--rate', str(rate)]
        ps.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True))
    return ps


def load_result(ps, timeout=60):
    """The load processes' results, summed."""
    import json
    tot = {'n': 0, 'ok': 0, 'fails': []}
    for p in ps:
        out, err = p.communicate(timeout=timeout)
        try:
            r = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            r = {'n': 0, 'ok': 0, 'fails': ['no output: ' + err[-300:]]}
        tot['n'] += r['n']
        tot['ok'] += r['ok']
        tot['fails'] += r['fails']
    return tot


def setup_net(rns, cnss):
    """Router sysctls, the ECMP route, the client namespaces and veths."""
    for s in ('net.ipv4.ip_forward=1', 'net.ipv4.fib_multipath_hash_policy=1',
              'net.ipv4.conf.all.rp_filter=0', 'net.ipv4.conf.default.rp_filter=0'):
        run(rns, 'sysctl', '-qw', s)
    for k, cns in enumerate(cnss):
        subprocess.run(['ip', 'netns', 'add', cns], check=True)
        run(cns, 'ip', 'link', 'set', 'lo', 'up')
        for s in ('net.ipv4.tcp_fastopen=1', 'net.ipv4.tcp_fastopen_blackhole_timeout_sec=0'):
            run(cns, 'sysctl', '-qw', s)
        rv = 'ecmpr%d' % k
        run(cns, 'ip', 'link', 'add', 'ecmpc', 'type', 'veth', 'peer', 'name', rv,
            'netns', rns)
        for a in CLIENTS[k * PERNS:(k + 1) * PERNS]:
            run(cns, 'ip', 'addr', 'add', a + '/24', 'dev', 'ecmpc')
        run(cns, 'ip', 'link', 'set', 'ecmpc', 'up')
        run(cns, 'ip', 'route', 'add', '198.18.0.0/24', 'via', SUBNETS[k] + '.254')
        run(rns, 'ip', 'addr', 'add', SUBNETS[k] + '.254/24', 'dev', rv)
        run(rns, 'ip', 'link', 'set', rv, 'up')
    run(rns, 'ip', 'route', 'replace', SERVER_V4 + '/32',
        'nexthop', 'dev', MEMBERS[0], 'nexthop', 'dev', MEMBERS[1])


def per_member(caps):
    """From the SYN-ACK captures: per member, the SYN-ACKs with data, those
    without, and the client addresses it answered with data."""
    out = []
    for c in caps:
        sa = synacks(c)
        out.append({'data': sum(1 for _, n in sa if n > 0),
                    'bare': sum(1 for _, n in sa if n == 0),
                    'lost': c.dropped,	# what tcpdump says it missed
                    'addrs': {a for a, n in sa if n > 0}})
    return out


def all_carried(pm, n):
    """Every one of the n SYN-ACKs carried the response: none bare, and
    all captured but what the captures say the kernel dropped (a loaded
    machine loses some to tcpdump; the members' and the client's counters
    are the exact check)."""
    data = sum(x['data'] for x in pm)
    return (sum(x['bare'] for x in pm) == 0 and data <= n
            and data + sum(x['lost'] for x in pm) >= n)


def steady(beds, cnss, n):
    print('== %d connections from %d addresses, ECMP over both members' % (n, NCLIENTS))
    s0, c0 = sum_stats(beds), nstat(cnss)
    caps = [b.capture(SYNACK) for b in beds]
    r = load_result(load(cnss, n // NNS, 2))
    pm = per_member(caps)
    d, c1 = sum_stats(beds, s0), nstat(cnss)
    act = c1.get('TcpExtTCPFastOpenActive', 0) - c0.get('TcpExtTCPFastOpenActive', 0)
    actf = c1.get('TcpExtTCPFastOpenActiveFail', 0) - c0.get('TcpExtTCPFastOpenActiveFail', 0)
    T.check('all %d served byte-exact' % n, r['ok'] == n, (r['ok'], r['fails']))
    T.check('servers: every one TFO (TCPFastOpenPassive A+B = %d), no fallback, no '
            'cookie request' % n,
            sum(x['TCPFastOpenPassive'] for x in d) == n
            and sum(x['TCPFastOpenPassiveFail'] + x['TCPFastOpenCookieReqd']
                    + x['TCPFastOpenListenOverflow'] for x in d) == 0, d)
    T.check('client: TcpExtTCPFastOpenActive +%d, ActiveFail +0' % n,
            act == n and actf == 0, (act, actf))
    T.check('captures: %d SYN-ACKs carry the response, none bare' % n,
            all_carried(pm, n), [(x['data'], x['bare'], x['lost']) for x in pm])
    share = [x['TCPFastOpenPassive'] for x in d]
    T.check('both members serve a share (each >= 25%%): A %d, B %d' % tuple(share),
            min(share) >= n // 4, share)
    T.check('every client address got TFO answers from both members',
            all(x['addrs'] == set(CLIENTS) for x in pm),
            [len(x['addrs']) for x in pm])


def altkey_quiet(beds, quiet=0.5, limit=6.0):
    """Wait until no member accepts a backup-key cookie for @quiet seconds:
    every client holds a cookie of the new primary (the runbook's check
    before retiring the old key)."""
    deadline = time.time() + limit
    last = sum(x['TCPFastOpenPassiveAltKey'] for x in sum_stats(beds))
    since = time.time()
    while time.time() < deadline:
        time.sleep(0.1)
        now = sum(x['TCPFastOpenPassiveAltKey'] for x in sum_stats(beds))
        if now != last:
            last, since = now, time.time()
        elif time.time() - since >= quiet:
            return True
    return False


def reload_all(beds, tag, how):
    """Reload members one by one, with load flowing between the two."""
    for b, h in zip(beds, how):
        if h == 'sighup':
            ok = sighup(b)
        else:
            ok = b.telemetry('/tfo/reload').get('result') == 'changed'
        T.check('%s: %s reload (%s)' % (tag, b.iface, h), ok)
        time.sleep(0.4)


def rotation(beds, cnss, kfile, keys, fp):
    k1, k2, k3 = keys
    print('== fleet key rotation (runbook section 6) under load from %d addresses' % NCLIENTS)
    s0, c0 = sum_stats(beds), nstat(cnss)
    caps = [b.capture(SYNACK) for b in beds]
    stop = tempfile.mktemp(prefix='tfo-ecmp-stop.')
    p = load(cnss, 0, 2, until=stop, rate=RATE)
    try:
        time.sleep(0.5)
        write_keys(kfile, '%s,%s' % (k1, k2))
        reload_all(beds, 'step 1 "K1,K2"', ('sighup', 'telemetry'))
        T.check('step 1: both members K1 primary, K2 backup',
                all(fps(b)[:2] == (fp[k1], fp[k2]) for b in beds), [fps(b) for b in beds])
        write_keys(kfile, '%s,%s' % (k2, k1))
        reload_all(beds, 'step 2 "K2,K1"', ('telemetry', 'sighup'))
        T.check('step 2: both members K2 primary, K1 backup',
                all(fps(b)[:2] == (fp[k2], fp[k1]) for b in beds), [fps(b) for b in beds])
        T.check('step 3 precondition: no client presents a K1 cookie any more '
                '(altkey quiet for 0.5 s)', altkey_quiet(beds))
        write_keys(kfile, '%s,%s' % (k2, k3))
        reload_all(beds, 'step 3 "K2,K3" (K1 retired)', ('sighup', 'sighup'))
        T.check('step 3: both members K2 primary, K3 backup',
                all(fps(b)[:2] == (fp[k2], fp[k3]) for b in beds), [fps(b) for b in beds])
        time.sleep(0.5)
    finally:
        open(stop, 'w').close()
        r = load_result(p)
        os.unlink(stop)
    pm = per_member(caps)
    d, c1 = sum_stats(beds, s0), nstat(cnss)
    n = r['n']
    act = c1.get('TcpExtTCPFastOpenActive', 0) - c0.get('TcpExtTCPFastOpenActive', 0)
    actf = c1.get('TcpExtTCPFastOpenActiveFail', 0) - c0.get('TcpExtTCPFastOpenActiveFail', 0)
    print('   %d connections during the rotation; per member %s' % (n, d))
    T.check('rotation: load ran (>= 200 connections)', n >= 200, n)
    T.check('rotation: all %d served byte-exact' % n, r['ok'] == n and n > 0,
            (r['ok'], r['fails']))
    T.check('rotation: no TFO connection lost (PassiveFail 0 on both, Passive A+B = %d)' % n,
            sum(x['TCPFastOpenPassiveFail'] + x['TCPFastOpenCookieReqd']
                + x['TCPFastOpenListenOverflow'] for x in d) == 0
            and sum(x['TCPFastOpenPassive'] for x in d) == n, d)
    T.check('rotation: client TcpExtTCPFastOpenActive +%d, ActiveFail +0' % n,
            act == n and actf == 0, (act, actf))
    T.check('rotation: every SYN-ACK carried the response',
            all_carried(pm, n), [(x['data'], x['bare'], x['lost']) for x in pm])
    T.check('rotation: K1 cookies were accepted as the backup key while K2 was promoted',
            sum(x['TCPFastOpenPassiveAltKey'] for x in d) > 0, d)
    T.check('rotation: both members served a share',
            min(x['TCPFastOpenPassive'] for x in d) >= n // 4, d)


def main():
    need_root()
    server = os.path.abspath(sys.argv[1])
    for tool in ('tcpdump', 'nstat'):
        if subprocess.run(['which', tool], stdout=subprocess.DEVNULL).returncode:
            print('FAIL: %s missing (scripts/setup.sh installs it)' % tool)
            return 1
    keys = [keytool(server, 'gen')[0] for _ in range(3)]
    fp = {k: keytool(server, 'fingerprint', '--key', k)[0] for k in keys}
    kdir = tempfile.mkdtemp(prefix='tfo-ecmp.')
    kfile = os.path.join(kdir, 'tfo.key')
    write_keys(kfile, keys[0])
    rns = 'tfoecmpr%d' % os.getpid()
    cnss = ['tfoecmpc%d_%d' % (os.getpid(), k) for k in range(NNS)]

    def member(iface, shared=None):
        eal = ['-l', '0-1', '--no-huge', '-m', '256', '--no-shconf', '--no-pci',
               '--file-prefix', 'tfoecmp%s%d' % (iface, os.getpid())]
        return Bed(server, ['--key-file', kfile,
                            '--set', 'port net_tap0.vdev=net_tap0,iface=%s' % iface],
                   name=rns, iface=iface, eal=eal, shared_ns=shared)

    try:
        with member(MEMBERS[0]) as a, member(MEMBERS[1], shared=rns) as b:
            beds = (a, b)
            setup_net(rns, cnss)
            rt = run(rns, 'ip', 'route', 'show', SERVER_V4).stdout
            T.check('router: a 2-path route to %s' % SERVER_V4,
                    rt.count('nexthop') == 2, rt)
            print('== first connection of each address: a cookie request')
            s0 = sum_stats(beds)
            r = load_result(load(cnss, PERNS, PERNS))
            d = sum_stats(beds, s0)
            T.check('%d first connections served byte-exact' % NCLIENTS,
                    r['ok'] == NCLIENTS, r)
            T.check('... each one a cookie request (CookieReqd A+B = %d)' % NCLIENTS,
                    sum(x['TCPFastOpenCookieReqd'] for x in d) == NCLIENTS, d)
            met = ''.join(run(ns, 'ip', 'tcp_metrics', 'show').stdout for ns in cnss)
            T.check('client: a cookie cached for each of the %d addresses' % NCLIENTS,
                    sum(1 for ln in met.splitlines() if 'fo_cookie' in ln) == NCLIENTS, met)
            steady(beds, cnss, 600)
            rotation(beds, cnss, kfile, keys, fp)
            c = nstat(cnss)
            T.check('client: no TCP checksum errors (TcpInCsumErrors 0)',
                    c.get('TcpInCsumErrors', 0) == 0, c.get('TcpInCsumErrors'))
            T.check('member A stops with exit code 0', a.stop() == 0)
            T.check('member B stops with exit code 0', b.stop() == 0)
    except Exception as e:
        T.check('ECMP test ran without exception', False, repr(e))
    finally:
        subprocess.run(['rm', '-rf', kdir])
        for ns in cnss:
            subprocess.run(['ip', 'netns', 'del', ns], stderr=subprocess.DEVNULL)
        subprocess.run(['ip', 'netns', 'del', rns], stderr=subprocess.DEVNULL)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
