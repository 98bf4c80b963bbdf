#!/usr/bin/python3
"""A BGP-announced fleet: BIRD on each member's host, over the exception
path, and the ECMP router's BIRD (suite tap, root, bird2).

    bird_fleet.py TFO_SERVER

The set-up of docs/runbook.md, "Announcing with BIRD", with the shipped
config/bird-member.conf and bird-router.conf (only their define lines
changed):

  4 client ns (20 addresses, as tests/tap/ecmp.py)
       |
  router ns: ip_forward, fib_multipath_hash_policy=1, BIRD (bird-router.conf)
             bridge br0 198.18.6.1/24 over the members' port taps tfoa, tfob
       |                                |
  member A: tfo-server, exception = on  member B: the same
  host ns A: tfoxa (A's kernel          host ns B: tfoxb 198.18.6.3,
  interface) 198.18.6.2, BIRD           BIRD (bird-member.conf)
  (bird-member.conf) announcing
  198.18.0.2/32

The members' BGP sessions (TCP 179, which no service serves) go through
tfo-server's port and its exception interface. Checked: both files parse as
shipped; the router installs a 2-path route to 198.18.0.2, one next hop per
member; clients are served by both members with TFO; draining A (birdc
disable tfo_service) leaves B alone serving every client, enabling it brings
back 2 paths; stopping member B's BIRD withdraws its path and every client
connection keeps being served, by A alone.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, SERVER_V4, need_root, stop_process  # noqa: E402
from keys_fleet import keytool, write_keys  # noqa: E402
import ecmp  # noqa: E402

CONFIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'config')
ROUTER = '198.18.6.1'
HOSTS = ('198.18.6.2', '198.18.6.3')
EXC = ('tfoxa', 'tfoxb')
T = Checks()
ecmp.T = T	# its helpers' checks count here


def run(ns, *cmd, check=True):
    return subprocess.run(['ip', 'netns', 'exec', ns] + list(cmd), check=check, timeout=30,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def site(src, dst, values):
    """Copy @src to @dst with the define lines of @values changed."""
    with open(src) as f:
        text = f.read()
    for name, val in values.items():
        text, n = re.subn(r'^define %s = [^;]*;' % name, 'define %s = %s;' % (name, val),
                          text, flags=re.M)
        if n != 1:
            raise RuntimeError('%s: no "define %s" line' % (src, name))
    with open(dst, 'w') as f:
        f.write(text)


def route(ns):
    """The gateways of the router's kernel route to the service address,
    and the route as ip prints it."""
    out = run(ns, 'ip', 'route', 'show', SERVER_V4 + '/32').stdout
    return sorted(re.findall(r'via (\S+)', out)), out


def wait_paths(ns, want, limit=30):
    t0 = time.time()
    while time.time() < t0 + limit:
        if route(ns)[0] == sorted(want):
            return True, time.time() - t0
        time.sleep(0.2)
    return False, route(ns)[1]


def served(beds, cnss, n, tag):
    """@n connections from the clients; per member TCPFastOpenPassive."""
    s0 = ecmp.sum_stats(beds)
    r = ecmp.load_result(ecmp.load(cnss, n // ecmp.NNS, 2))
    d = ecmp.sum_stats(beds, s0)
    T.check('%s: %d connections served byte-exact' % (tag, n), r['ok'] == n and r['n'] == n,
            (r['ok'], r['fails']))
    T.check('%s: all TFO, no fallback' % tag,
            sum(x['TCPFastOpenPassive'] for x in d) == n
            and sum(x['TCPFastOpenPassiveFail'] for x in d) == 0, d)
    return [x['TCPFastOpenPassive'] for x in d]


def member_bed(server, kfile, rns, i, pid, shared=None, mac=None, extra=()):
    """Member @i (A, B) of the fleet in the router namespace @rns; @mac: a
    fixed port MAC (the router's neighbour entry survives a restart);
    @extra: more options."""
    eal = ['-l', '0-1', '--no-huge', '-m', '256', '--no-shconf', '--no-pci',
           '--file-prefix', 'tfobf%s%d' % (ecmp.MEMBERS[i], pid)]
    vdev = 'net_tap0,iface=%s' % ecmp.MEMBERS[i] + (',mac=%s' % mac if mac else '')
    return Bed(server, ['--key-file', kfile,
                        '--set', 'port net_tap0.vdev=%s' % vdev,
                        '--set', 'port net_tap0.exception=on',
                        '--set', 'port net_tap0.exception_iface=%s' % EXC[i]] + list(extra),
               name=rns, iface=ecmp.MEMBERS[i], eal=eal, shared_ns=shared)


def start_bird(ns, conf, name, tmp, birds):
    p = subprocess.Popen(['ip', 'netns', 'exec', ns, 'bird', '-f', '-c', conf,
                          '-s', os.path.join(tmp, name + '.ctl'),
                          '-P', os.path.join(tmp, name + '.pid')],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    birds[name] = p


def attach_member(rns, hns, i):
    """Member @i's port tap on the router's bridge, its exception interface
    in its host namespace @hns with the host's address (after every start:
    tfo-server creates both in @rns)."""
    m = ecmp.MEMBERS[i]
    run(rns, 'ip', 'addr', 'flush', 'dev', m)
    run(rns, 'ip', 'link', 'set', m, 'master', 'br0')
    run(rns, 'ip', 'link', 'set', EXC[i], 'netns', hns)
    run(hns, 'sysctl', '-qw', 'net.ipv6.conf.%s.disable_ipv6=1' % EXC[i])
    run(hns, 'ip', 'addr', 'add', HOSTS[i] + '/24', 'dev', EXC[i])
    run(hns, 'ip', 'link', 'set', EXC[i], 'up')


def bring_up(rns, hns, cnss, tmp, birds):
    """The router (ECMP sysctls, clients, bridge, BIRD) and each member's
    host namespace with its BIRD, on members already started."""
    ecmp.setup_net(rns, cnss)
    # the members' links: one segment (br0) instead of the static route
    run(rns, 'ip', 'route', 'del', SERVER_V4 + '/32')
    run(rns, 'ip', 'link', 'add', 'br0', 'type', 'bridge')
    run(rns, 'ip', 'addr', 'add', ROUTER + '/24', 'dev', 'br0')
    run(rns, 'ip', 'link', 'set', 'br0', 'up')
    site(os.path.join(CONFIG, 'bird-router.conf'), os.path.join(tmp, 'router.conf'),
         {'LOCAL': ROUTER, 'MEMBERS_NET': '198.18.6.0/24',
          'SERVICE_NET': '198.18.0.0/24'})
    start_bird(rns, os.path.join(tmp, 'router.conf'), 'router', tmp, birds)
    for i, ns in enumerate(hns):
        subprocess.run(['ip', 'netns', 'add', ns], check=True)
        run(ns, 'ip', 'link', 'set', 'lo', 'up')
        attach_member(rns, ns, i)
        conf = os.path.join(tmp, 'member%d.conf' % i)
        site(os.path.join(CONFIG, 'bird-member.conf'), conf,
             {'SERVICE': SERVER_V4 + '/32', 'LOCAL': HOSTS[i], 'ROUTER': ROUTER})
        start_bird(ns, conf, 'member%d' % i, tmp, birds)


class Fleet:
    """What a fleet test makes: a directory with the shared key file, the
    namespace names (router, members' hosts, clients; @tag and the pid make
    them unique) and the BIRD processes. Skips (77) without root or BIRD.
    close() removes it all."""

    def __init__(self, server, tag):
        need_root()
        for tool in ('bird', 'birdc'):
            if not shutil.which(tool):
                print('SKIP: %s missing (Debian package bird2; scripts/setup.sh installs it)'
                      % tool)
                sys.exit(77)
        self.tmp = tempfile.mkdtemp(prefix='tfo-%s.' % tag)
        self.kfile = os.path.join(self.tmp, 'tfo.key')
        write_keys(self.kfile, keytool(server, 'gen')[0])
        self.pid = os.getpid()
        self.rns = 'tfo%sr%d' % (tag, self.pid)
        self.hns = ['tfo%sh%d_%d' % (tag, self.pid, i) for i in range(2)]
        self.cnss = ['tfo%sc%d_%d' % (tag, self.pid, k) for k in range(ecmp.NNS)]
        self.birds = {}

    def close(self):
        for p in self.birds.values():
            stop_process(p, signal.SIGTERM, 10)
        for ns in self.cnss + self.hns + [self.rns]:
            subprocess.run(['ip', 'netns', 'del', ns], stderr=subprocess.DEVNULL)
        shutil.rmtree(self.tmp, ignore_errors=True)


def main():
    server = os.path.abspath(sys.argv[1])
    fl = Fleet(server, 'bf')
    tmp, kfile, pid, rns, hns, cnss, birds = (fl.tmp, fl.kfile, fl.pid, fl.rns, fl.hns,
                                              fl.cnss, fl.birds)
    for c in ('bird-member.conf', 'bird-router.conf'):
        r = subprocess.run(['bird', '-p', '-c', os.path.join(CONFIG, c)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        T.check('config/%s parses as shipped (bird -p)' % c, r.returncode == 0, r.stdout)

    def member(i, shared=None):
        return member_bed(server, kfile, rns, i, pid, shared)

    try:
        with member(0) as a, member(1, shared=rns) as b:
            beds = (a, b)
            bring_up(rns, hns, cnss, tmp, birds)
            ok, t = wait_paths(rns, HOSTS, limit=40)
            T.check('router: BIRD installed a 2-path route to %s via both members\' hosts '
                    '(BGP over the exception path)' % SERVER_V4, ok, t)
            out = route(rns)[1]
            T.check('... one multipath route (2 nexthops, proto bird)',
                    out.count('nexthop') == 2 and 'proto bird' in out, out)
            for i, bd in enumerate(beds):
                e = bd.stats()
                T.check('member %s: the BGP session went through its exception interface '
                        '(exc_to_kernel %d, exc_from_kernel %d)'
                        % ('AB'[i], e.get('exc_to_kernel', 0), e.get('exc_from_kernel', 0)),
                        e.get('exc_to_kernel', 0) > 0 and e.get('exc_from_kernel', 0) > 0)
            # one cookie request per client address first
            ecmp.load_result(ecmp.load(cnss, ecmp.PERNS, ecmp.PERNS))
            share = served(beds, cnss, 200, 'both announced')
            T.check('both members serve a share: A %d, B %d' % tuple(share),
                    min(share) >= 200 // 5, share)

            birdc = ['birdc', '-s', os.path.join(tmp, 'member0.ctl')]
            subprocess.run(birdc + ['disable', 'tfo_service'], stdout=subprocess.DEVNULL)
            ok, t = wait_paths(rns, HOSTS[1:], limit=10)
            T.check('drain A (birdc disable tfo_service): one path, via B', ok, t)
            share = served(beds, cnss, 100, 'A drained')
            T.check('... every client served by B alone: A %d, B %d' % tuple(share),
                    share[0] == 0, share)
            subprocess.run(birdc + ['enable', 'tfo_service'], stdout=subprocess.DEVNULL)
            ok, t = wait_paths(rns, HOSTS, limit=10)
            T.check('birdc enable tfo_service: 2 paths again', ok, t)

            stop_process(birds.pop('member1'), signal.SIGTERM, 10)
            ok, t = wait_paths(rns, HOSTS[:1], limit=15)
            T.check('member B\'s BIRD stopped: its path withdrawn, one path via A', ok, t)
            share = served(beds, cnss, 200, 'B withdrawn')
            T.check('... every client served by A alone: A %d, B %d' % tuple(share),
                    share[1] == 0, share)
            T.check('member A stops with exit code 0', a.stop() == 0)
            T.check('member B stops with exit code 0', b.stop() == 0)
    except Exception as e:
        T.check('BIRD fleet test ran without exception', False, repr(e))
    finally:
        fl.close()
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
