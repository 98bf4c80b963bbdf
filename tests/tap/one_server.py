#!/usr/bin/python3
"""One server per device (suite tap, root): a second one is refused.

    one_server.py TFO_SERVER [TFO_LOADGEN]

- tap: tfo-server runs on net_tap's tfo0 in a namespace; a second
  tfo-server in the same namespace with the same configuration (and its
  --print-config) exits non-zero before the EAL probes anything, with one
  line naming tfo0 and the first one's PID. The first keeps serving (an
  HTTP fetch), and tfo0 keeps its addresses and stays up (net_tap used to
  attach the second as another queue of the tap, take the traffic over
  and leave the interface down at its exit).
- memif: tfo-server is the memif server of a socket; a second one on the
  same socket is refused naming the first's PID; the first still runs and
  listens, and (with TFO_LOADGEN) still serves a short echo run.
- exception: a second server on another tap but with the same exception
  interface (exception = on, the default name tfoexc0) is refused naming
  the first's PID.
- race: two servers started at the same instant on one tap (twice), on
  one memif socket (once): one runs, the other is refused naming it (the
  device's claim; the scans alone let both through).
- tap-mode: [port] tap = attach refuses an iface= that does not exist (a
  typo would create an empty tap), tap = create one that does; attach to
  a persistent tap (ip tuntap add ... multi_queue) starts, says so, and
  serves; a tap made without multi_queue is refused with how to remake it.
Names carry $TFO_TEST_TAG (default "one") and the pid. Skips (77) without
root or curl.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import (Bed, Checks, CLIENT_V4, CLIENT_V6, SERVER_V4, need_root,  # noqa: E402
                    start_together, stop_process)

T = Checks()
TAG = '%s%d' % (os.environ.get('TFO_TEST_TAG', 'one'), os.getpid())

MEMIF_INI = '''[server]
stats_period = 0
[port net_memif0]
vdev = net_memif0,role=server,socket={sock},socket-abstract=no
ipv4 = 198.18.0.2/16
[service echo]
port = 7
'''


def run(cmd, timeout=30):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    return r.returncode, r.stdout


def refusal(what, out, rc, pid, name):
    """One line, naming @name and @pid, and nothing from the EAL."""
    lines = [ln for ln in out.splitlines() if 'held by process' in ln]
    T.check('%s: refused (exit code not 0)' % what, rc != 0, rc)
    T.check('%s: one line naming %s and the holder\'s PID %d' % (what, name, pid),
            len(lines) == 1 and (' %s ' % name) in lines[0] and
            ('process %d ' % pid) in lines[0] and 'Stop process' in lines[0], out[-600:])
    T.check('%s: before the EAL probes it' % what, 'EAL:' not in out, out[-600:])


def case_tap(server):
    with Bed(server, name=TAG) as bed:
        fetch = ['curl', '-s', '-m', '5', '-o', '/dev/null', '-w', '%{http_code}',
                 'http://%s/' % SERVER_V4]
        T.check('tap: the first server serves', bed.ns_run(fetch, check=False).stdout == '200')
        eal = ['-l', '0-1', '--no-huge', '-m', '256', '--no-shconf', '--no-pci',
               '--file-prefix', TAG + 'b']
        rc, out = run(['ip', 'netns', 'exec', bed.ns, server] + eal + ['--'])
        refusal('tap: a second server', out, rc, bed.pid, 'tfo0')
        rc, out = run(['ip', 'netns', 'exec', bed.ns, server, '--', '--print-config'])
        refusal('tap: --print-config of a second', out, rc, bed.pid, 'tfo0')
        ok = [bed.ns_run(fetch, check=False).stdout for _ in range(5)]
        T.check('tap: the first server still serves (5 of 5 fetches)', ok == ['200'] * 5, ok)
        addr = bed.ns_run(['ip', 'addr', 'show', 'dev', 'tfo0']).stdout
        T.check('tap: tfo0 is up and keeps its addresses',
                ',UP' in addr and CLIENT_V4 + '/' in addr and CLIENT_V6 + '/' in addr, addr)
        T.check('tap: the first server runs', bed.proc.poll() is None)
        T.check('tap: the first said it created tfo0',
                'net_tap creates tap tfo0' in bed.log_text(), bed.log_text()[-800:])


def listening(path):
    with open('/proc/net/unix') as f:
        return any(ln.split()[3] == '00010000' and ln.split()[-1] == path
                   for ln in f.readlines()[1:] if len(ln.split()) >= 8)


def case_memif(server, loadgen):
    tmp = tempfile.mkdtemp(prefix=TAG)
    sock = os.path.join(tmp, 'memif.sock')
    cfg = os.path.join(tmp, 'memif.ini')
    with open(cfg, 'w') as f:
        f.write(MEMIF_INI.format(sock=sock))
    eal = ['-l', '0-1', '--no-huge', '-m', '256', '--no-shconf', '--no-pci', '--file-prefix']
    log = open(os.path.join(tmp, 'first.log'), 'w+')
    first = subprocess.Popen([server] + eal + [TAG + 'm1', '--', '--config', cfg],
                             stdout=log, stderr=subprocess.STDOUT)
    try:
        end = time.time() + 30
        while time.time() < end and first.poll() is None:
            log.seek(0)
            if 'tfo-server: running' in log.read():
                break
            time.sleep(0.1)
        T.check('memif: the first server runs and listens', first.poll() is None and
                listening(sock))
        rc, out = run([server] + eal + [TAG + 'm2', '--', '--config', cfg])
        refusal('memif: a second server', out, rc, first.pid, sock)
        T.check('memif: the first still runs and listens', first.poll() is None and
                listening(sock))
        if loadgen is None:
            print('note: no TFO_LOADGEN: the memif echo run is left out')
            return
        rc, out = run(['timeout', '60', loadgen, '-l', '0-1', '--no-huge', '-m', '256',
                       '--no-pci', '--file-prefix', TAG + 'lg', '--log-level=lib.eal:error',
                       '--vdev', 'net_memif0,role=client,socket=%s,socket-abstract=no' % sock,
                       '--', '--resolve-timeout', '10', '--warmup-timeout', '10',
                       '--stats-period', '0', '--server', '198.18.0.2', '--server-port',
                       '7', '--client', '198.18.1.1', '--clients', '1', '--request-size',
                       '100', '--expect-echo', '--count', '100'], timeout=90)
        T.check('memif: the first serves an echo run (100 transactions, exit 0)', rc == 0,
                out[-600:])
    finally:
        stop_process(first)
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree('/var/run/dpdk/%slg' % TAG, ignore_errors=True)


def case_tap_mode(server):
    ns = TAG + 'p'
    subprocess.run(['ip', 'netns', 'add', ns], check=True)
    try:
        def pc(*sets):
            args = []
            for a in sets:
                args += ['--set', 'port net_tap0.' + a]
            return run(['ip', 'netns', 'exec', ns, server, '--', '--print-config'] + args)

        rc, out = pc('vdev=net_tap0,iface=tfoO', 'tap=attach')
        T.check('tap-mode: attach to a name that does not exist: refused',
                rc != 0 and 'tap = attach: no interface tfoO' in out, out[-400:])
        subprocess.run(['ip', 'netns', 'exec', ns, 'ip', 'tuntap', 'add', 'dev', 'tfo0',
                        'mode', 'tap', 'multi_queue'], check=True)
        subprocess.run(['ip', 'netns', 'exec', ns, 'ip', 'tuntap', 'add', 'dev', 'tfosq',
                        'mode', 'tap'], check=True)
        rc, out = pc('tap=create')
        T.check('tap-mode: create where tfo0 exists: refused',
                rc != 0 and 'tap = create: tfo0 already exists' in out, out[-400:])
        rc, out = pc('vdev=net_tap0,iface=tfosq')
        T.check('tap-mode: a tap without multi_queue: refused, saying so',
                rc != 0 and 'made without multi_queue' in out, out[-400:])
        rc, out = pc('vdev=net_tap0,iface=lo')
        T.check('tap-mode: an interface that is not a tap: refused',
                rc != 0 and 'exists and is not a tap' in out, out[-400:])
        with Bed(server, ['--set', 'port net_tap0.tap=attach'], shared_ns=ns) as bed:
            T.check('tap-mode: attach says so at start',
                    'net_tap attaches to the existing tap tfo0' in bed.log_text(),
                    bed.log_text()[-600:])
            r = bed.ns_run(['curl', '-s', '-m', '5', '-o', '/dev/null', '-w', '%{http_code}',
                            'http://%s/' % SERVER_V4], check=False)
            T.check('tap-mode: and serves on the persistent tap', r.stdout == '200', r.stdout)
    finally:
        subprocess.run(['ip', 'netns', 'del', ns], stderr=subprocess.DEVNULL)


def case_exception(server):
    with Bed(server, ['--set', 'port net_tap0.exception=on'], name=TAG + 'e') as bed:
        rc, out = run(['ip', 'netns', 'exec', bed.ns, server, '--', '--print-config',
                       '--set', 'port net_tap0.exception=on',
                       '--set', 'port net_tap0.vdev=net_tap0,iface=tfo1'])
        refusal('exception: a second server on tfoexc0', out, rc, bed.pid, 'tfoexc0')
        T.check('exception: ... told to change exception_iface',
                'another exception_iface' in out, out[-300:])


def race_pair(tag, cmds, name, tmp):
    """Start @cmds (two servers on one device) at the same instant: one
    runs, the other is refused naming it and @name; the winner exits 0."""
    logs = [open(os.path.join(tmp, '%s-%d.log' % (tag.replace(' ', ''), i)), 'w+')
            for i in range(2)]
    pair = []
    try:
        pair, texts, live = start_together(cmds, logs)
        if T.check('%s: one of two servers started together runs' % tag, len(live) == 1,
                   (live, [t[-300:] for t in texts])):
            win, lose = live[0], 1 - live[0]
            refusal('%s: the other' % tag, texts[lose], pair[lose].returncode,
                    pair[win].pid, name)
            T.check('%s: the winner ends cleanly (exit 0)' % tag, stop_process(pair[win]) == 0)
    finally:
        for p in pair:
            stop_process(p)
        for log in logs:
            log.close()


def case_race(server):
    """Two servers started at the same instant on one device: before either
    opens it, the /proc scans see no holder, and both used to run on one
    tap (3 of 3 tries; a memif loser died with "no such DPDK device"). The
    device's claim (an abstract socket) lets one through; the other is
    refused naming it. Twice on a tap, once on a memif socket."""
    ns = TAG + 'r'
    subprocess.run(['ip', 'netns', 'add', ns], check=True)
    tmp = tempfile.mkdtemp(prefix=TAG)
    eal = ['-l', '0-1', '--no-huge', '-m', '256', '--no-shconf', '--no-pci', '--file-prefix']
    try:
        for r in range(2):
            race_pair('race %d' % (r + 1),
                      [['ip', 'netns', 'exec', ns, server] + eal + ['%sr%d%d' % (TAG, r, i), '--']
                       for i in range(2)], 'tfo0', tmp)
        cfg = os.path.join(tmp, 'memif.ini')
        with open(cfg, 'w') as f:
            f.write(MEMIF_INI.format(sock=os.path.join(tmp, 'memif.sock')))
        race_pair('race memif', [[server] + eal + ['%srm%d' % (TAG, i), '--', '--config', cfg]
                                 for i in range(2)], os.path.join(tmp, 'memif.sock'), tmp)
    finally:
        subprocess.run(['ip', 'netns', 'del', ns], stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    need_root()
    if shutil.which('curl') is None:
        print('SKIP: curl not installed (scripts/setup.sh installs it)')
        return 77
    server = sys.argv[1]
    loadgen = sys.argv[2] if len(sys.argv) > 2 else None
    case_tap(server)
    case_memif(server, loadgen)
    case_exception(server)
    case_tap_mode(server)
    case_race(server)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
