#!/usr/bin/python3
"""BIRD configuration check: config/bird-member.conf and bird-router.conf
(suite tap, root, bird2).

    bird_config.py

A CONFIG CHECK, not the fleet: BIRD runs in network namespaces over plain
veths, without tfo-server (the members' BGP sessions would need the exception
path on a DPDK-owned port). It checks that the shipped files, with only their
"site values" (the define lines) changed, do what the runbook says:

  router ns: bridge 198.18.10.1/24, BIRD with bird-router.conf
  member ns 1, 2: 198.18.10.2 / .3 on a veth to the bridge, BIRD with
                  bird-member.conf announcing 198.18.0.2/32

  1. both files parse (bird -p) as shipped;
  2. the router installs a 2-path kernel route to 198.18.0.2 (merge paths),
     one next hop per member;
  3. draining member 1 (birdc disable tfo_service) leaves one path, via
     member 2; enabling it again brings back 2 paths;
  4. stopping member 2's BIRD withdraws its path: one path, via member 1.
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
from tfotap import Checks, SERVER_V4, need_root, stop_process  # noqa: E402

CONFIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'config')
ROUTER = '198.18.10.1'
MEMBERS = ('198.18.10.2', '198.18.10.3')
T = Checks()


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


def nexthops(ns):
    """The gateways of the router's kernel route to the service address."""
    out = run(ns, 'ip', 'route', 'show', SERVER_V4 + '/32').stdout
    return sorted(re.findall(r'via (\S+)', out)), out


def wait_paths(ns, want, limit=30):
    deadline = time.time() + limit
    t0 = time.time()
    while time.time() < deadline:
        got, out = nexthops(ns)
        if got == sorted(want):
            return True, time.time() - t0
        time.sleep(0.2)
    return False, nexthops(ns)[1]


def main():
    need_root()
    for tool in ('bird', 'birdc'):
        if not shutil.which(tool):
            print('SKIP: %s missing (Debian package bird2; scripts/setup.sh installs it)' % tool)
            return 77
    member_conf = os.path.join(CONFIG, 'bird-member.conf')
    router_conf = os.path.join(CONFIG, 'bird-router.conf')
    for c in (member_conf, router_conf):
        r = subprocess.run(['bird', '-p', '-c', c], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        T.check('%s parses as shipped (bird -p)' % os.path.basename(c), r.returncode == 0,
                r.stdout)
    tmp = tempfile.mkdtemp(prefix='tfo-bird.')
    pid = os.getpid()
    rns = 'tfobirdr%d' % pid
    mns = ['tfobirdm%d_%d' % (pid, i) for i in (1, 2)]
    birds = {}

    def start_bird(ns, conf, name):
        sock = os.path.join(tmp, name + '.ctl')
        p = subprocess.Popen(['ip', 'netns', 'exec', ns, 'bird', '-f', '-c', conf, '-s', sock,
                              '-P', os.path.join(tmp, name + '.pid')],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        birds[name] = (p, sock)

    def birdc(name, *cmd):
        return subprocess.run(['birdc', '-s', birds[name][1]] + list(cmd), timeout=10,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    try:
        subprocess.run(['ip', 'netns', 'add', rns], check=True)
        run(rns, 'ip', 'link', 'set', 'lo', 'up')
        run(rns, 'ip', 'link', 'add', 'br0', 'type', 'bridge')
        run(rns, 'ip', 'addr', 'add', ROUTER + '/24', 'dev', 'br0')
        run(rns, 'ip', 'link', 'set', 'br0', 'up')
        site(router_conf, os.path.join(tmp, 'router.conf'),
             {'LOCAL': ROUTER, 'MEMBERS_NET': '198.18.10.0/24',
              'SERVICE_NET': '198.18.0.0/24'})
        for i, ns in enumerate(mns):
            subprocess.run(['ip', 'netns', 'add', ns], check=True)
            run(ns, 'ip', 'link', 'set', 'lo', 'up')
            run(ns, 'ip', 'link', 'add', 'uplink', 'type', 'veth', 'peer', 'name',
                'm%d' % i, 'netns', rns)
            run(ns, 'ip', 'addr', 'add', MEMBERS[i] + '/24', 'dev', 'uplink')
            run(ns, 'ip', 'link', 'set', 'uplink', 'up')
            run(rns, 'ip', 'link', 'set', 'm%d' % i, 'master', 'br0', 'up')
            site(member_conf, os.path.join(tmp, 'member%d.conf' % i),
                 {'SERVICE': SERVER_V4 + '/32', 'LOCAL': MEMBERS[i], 'ROUTER': ROUTER})
        start_bird(rns, os.path.join(tmp, 'router.conf'), 'router')
        for i, ns in enumerate(mns):
            start_bird(ns, os.path.join(tmp, 'member%d.conf' % i), 'member%d' % i)

        ok, t = wait_paths(rns, MEMBERS)
        T.check('router: a 2-path kernel route to %s, via both members' % SERVER_V4, ok, t)
        if ok:
            print('   (after %.1f s)' % t)
        out = nexthops(rns)[1]
        T.check('... one multipath route (2 nexthops, proto bird)',
                out.count('nexthop') == 2 and 'proto bird' in out, out)
        r = birdc('router', 'show', 'route', 'for', SERVER_V4, 'all')
        T.check('router BIRD: two BGP routes from the dynamic sessions',
                r.stdout.count('BGP.as_path') == 2, r.stdout)

        r = birdc('member0', 'disable', 'tfo_service')
        ok, t = wait_paths(rns, MEMBERS[1:], limit=10)
        T.check('drain member 1 (birdc disable tfo_service): one path, via member 2',
                ok, (r.stdout, t))
        birdc('member0', 'enable', 'tfo_service')
        ok, t = wait_paths(rns, MEMBERS, limit=10)
        T.check('birdc enable tfo_service: 2 paths again', ok, t)

        p, _ = birds.pop('member1')
        stop_process(p, signal.SIGTERM, 10)
        ok, t = wait_paths(rns, MEMBERS[:1], limit=15)
        T.check('member 2\'s BIRD stopped: its path withdrawn, one path via member 1', ok, t)
    except Exception as e:
        T.check('BIRD config check ran without exception', False, repr(e))
    finally:
        for p, _ in birds.values():
            stop_process(p, signal.SIGTERM, 10)
        for ns in mns + [rns]:
            subprocess.run(['ip', 'netns', 'del', ns], stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
