#!/usr/bin/python3
"""A port's link goes down and up under light traffic (suite tap, root).

    link_flap.py TFO_SERVER

- tap: tfo-server on net_tap's tfo0; a kernel client fetches over HTTP
  every 100 ms while an operator sets tfo0 down for 2 s and up again;
- afxdp: tfo-server on a veth through net_af_xdp (AF_XDP mode); a kernel
  client in the peer namespace sends echo requests every 100 ms while the
  server's veth goes down for 2 s and up again (skipped when the build has
  no XDP program or ethtool is missing).
Each: the server still runs, logs one "link down" and one "link up" line
with the port's name, counts them (link_down_events, link_up_events: 1
each in /tfo/stats), and serves again within 5 s of the link's return.
IPv4 only: Linux removes an interface's IPv6 addresses when it goes down.
Names carry $TFO_TEST_TAG (default "lf") and the pid.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import (Bed, Checks, CLIENT_V4, SERVER_V4, need_root,  # noqa: E402
                    stop_process)

T = Checks()
TAG = '%s%d' % (os.environ.get('TFO_TEST_TAG', 'lf'), os.getpid())
DOWN_S = 2.0

# In a namespace: one request every 100 ms for argv[3] s (HTTP GET to port
# 80, or a line of 100 bytes to the echo port 7), each with a 1 s time-out; prints
# the [seconds since start, ok] of each, and the start's wall clock (t0), as
# JSON at the end.
TRAFFIC = r'''
import json, socket, sys, time
host, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
t0, out = time.time(), []
while time.time() - t0 < secs:
    t, ok = time.time(), False
    try:
        s = socket.create_connection((host, port), timeout=1)
        s.settimeout(1)
        req = b'GET / HTTP/1.0\r\n\r\n' if port == 80 else b'x' * 99 + b'\n'
        s.sendall(req)
        got = b''
        while len(got) < (12 if port == 80 else 100):
            b = s.recv(4096)
            if not b:
                break
            got += b
        ok = got.startswith(b'HTTP/1.') if port == 80 else got == req
        s.close()
    except OSError:
        pass
    out.append([round(t - t0, 3), ok])
    time.sleep(max(0, 0.1 - (time.time() - t)))
print(json.dumps({'t0': t0, 'res': out}), flush=True)
'''


def flap(what, ns, iface, traffic_ns, port, log_text, stats):
    """Light traffic from @traffic_ns; @iface in @ns down for DOWN_S, up."""
    p = subprocess.Popen(['ip', 'netns', 'exec', traffic_ns, '/usr/bin/python3', '-c',
                          TRAFFIC, SERVER_V4, str(port), '12'], stdout=subprocess.PIPE,
                         text=True)
    time.sleep(2)
    t_down = time.time()
    subprocess.run(['ip', 'netns', 'exec', ns, 'ip', 'link', 'set', 'dev', iface, 'down'],
                   check=True)
    time.sleep(DOWN_S)
    subprocess.run(['ip', 'netns', 'exec', ns, 'ip', 'link', 'set', 'dev', iface, 'up'],
                   check=True)
    t_up = time.time()
    try:
        out, _ = p.communicate(timeout=30)
        got = json.loads(out)
    except (subprocess.TimeoutExpired, ValueError):
        stop_process(p)
        got = {'t0': t_up, 'res': []}
    # on the traffic process's clock (it starts late on a loaded machine):
    # "before" is a probe that ended (1 s time-out) before the link went down
    res = got['res']
    t_down, t_up = t_down - got['t0'], t_up - got['t0']
    before = [ok for t, ok in res if t + 1.0 < t_down]
    after = [t for t, ok in res if ok and t > t_up]
    T.check('%s: served before the flap' % what, before and all(before), before)
    T.check('%s: served again within 5 s of the link\'s return' % what,
            after and after[0] - t_up < 5, 'link up at %.1f s, first answer after: %s' %
            (t_up, after[:1]))
    T.check('%s: and from then on (the last 3 s all answered)' % what,
            all(ok for t, ok in res if t > t_up + 5), [r for r in res if r[0] > t_up + 5])
    time.sleep(1.2)	# the watcher looks once a second
    log = log_text()
    down = [ln for ln in log.splitlines() if 'link down on %s' % iface in ln]
    up = [ln for ln in log.splitlines() if 'link up on %s' % iface in ln]
    T.check('%s: one "link down" line with the port\'s name' % what,
            len(down) == 1 and '[port net_' in down[0], down)
    T.check('%s: one "link up" line with the port\'s name' % what,
            len(up) == 1 and '[port net_' in up[0], up)
    st = stats()
    T.check('%s: link_down_events 1, link_up_events 1' % what,
            st.get('link_down_events') == 1 and st.get('link_up_events') == 1,
            (st.get('link_down_events'), st.get('link_up_events')))


def case_tap(server):
    with Bed(server, name=TAG + 't') as bed:
        flap('tap', bed.ns, 'tfo0', bed.ns, 80, bed.log_text, bed.stats)
        T.check('tap: the server still runs', bed.proc.poll() is None)


AFXDP_INI = '''[server]
stats_period = 0
[port net_af_xdp0]
vdev = net_af_xdp0,iface={iface}
ipv4 = {v4}/24
[service echo]
port = 7
'''


def sh(cmd, check=True):
    return subprocess.run(cmd, check=check, timeout=30, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


def case_afxdp(server):
    if shutil.which('ethtool') is None:
        print('SKIP afxdp: ethtool not installed (scripts/setup.sh installs it)')
        return
    sns, cns, sif, cif = TAG + 's', TAG + 'c', TAG + 'vs', TAG + 'vc'
    tmp = tempfile.mkdtemp(prefix=TAG)
    cfg = os.path.join(tmp, 'afxdp.ini')
    with open(cfg, 'w') as f:
        f.write(AFXDP_INI.format(iface=sif, v4=SERVER_V4))
    r = sh([server, '--', '--config', cfg, '--print-config'], check=False)
    if 'built without its XDP program' in r.stderr + r.stdout:
        print('SKIP afxdp: ' + (r.stderr + r.stdout).strip().splitlines()[-1])
        shutil.rmtree(tmp, ignore_errors=True)
        return
    eal = ['-l', '0-1', '--no-huge', '-m', '256', '--no-shconf', '--no-pci',
           '--file-prefix', TAG + 'x']
    log = open(os.path.join(tmp, 'server.log'), 'w+')
    proc = None
    try:
        sh(['ip', 'netns', 'add', sns])
        sh(['ip', 'netns', 'add', cns])
        sh(['ip', 'link', 'add', sif, 'netns', sns, 'type', 'veth', 'peer', 'name', cif,
            'netns', cns])
        for n, i, v4 in ((sns, sif, SERVER_V4), (cns, cif, CLIENT_V4)):
            sh(['ip', 'netns', 'exec', n, 'ip', 'link', 'set', 'lo', 'up'])
            sh(['ip', 'netns', 'exec', n, 'ip', 'addr', 'add', v4 + '/24', 'dev', i])
            sh(['ip', 'netns', 'exec', n, 'ip', 'link', 'set', i, 'up'])
        # the checksum of the client's segments filled in (afxdp.py: veth)
        sh(['ip', 'netns', 'exec', cns, 'ethtool', '-K', cif, 'tx', 'off'])
        proc = subprocess.Popen(['ip', 'netns', 'exec', sns, server] + eal +
                                ['--', '--config', cfg], stdout=log, stderr=subprocess.STDOUT)
        end = time.time() + 30
        while time.time() < end and proc.poll() is None:
            log.seek(0)
            if 'tfo-server: running' in log.read():
                break
            time.sleep(0.1)

        def log_text():
            log.seek(0)
            return log.read()

        if not T.check('afxdp: tfo-server runs on net_af_xdp', proc.poll() is None,
                       log_text()[-1500:]):
            return
        srv = Bed(server, name=sns, eal=eal)
        flap('afxdp', sns, sif, cns, 7, log_text, srv.stats)
        T.check('afxdp: the server still runs', proc.poll() is None)
    finally:
        if proc is not None:
            stop_process(proc)
        log.close()
        for n in (sns, cns):
            subprocess.run(['ip', 'netns', 'del', n], stderr=subprocess.DEVNULL)
        try:
            os.rmdir('/var/run/dpdk/%s' % (TAG + 'x'))
        except OSError:
            pass
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    need_root()
    server = sys.argv[1]
    case_tap(server)
    case_afxdp(server)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
