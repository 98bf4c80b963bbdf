#!/usr/bin/python3
"""A rolling restart of a BGP-announced fleet under load (suite tap, root, bird2).

    rolling_restart.py TFO_SERVER

The fleet of tests/tap/bird_fleet.py (two members, BIRD on each member's
host behind its exception interface, the ECMP router's BIRD), the members
sharing one key file, each started with $NOTIFY_SOCKET naming a datagram
socket of this test (as systemd's Type=notify). Kernel clients in four
namespaces behind the router open ~400 connections/s to the echo service
all along: two namespaces with TFO (their cookies fetched once, before),
two plain. Each member in turn:

  scripts/usertools/tfo-drain --pid PID (birdc disable tfo_service, wait
  until its new-connection rate is ~0, SIGTERM: STOPPING=1, drain, exit 0),
  restart it, wait for READY=1 on the notify socket, birdc enable
  tfo_service, wait for the 2-path route again.

Checked: every client connection of the whole run served byte-exact but
for resets of flows the router's rehash moved to the other member at a
next-hop change (at most one in 200, no more than the members'
rst_tx_nomatch; none refused, none timed out: runbook, "Drain and rolling
restarts"), exit code 0 and STOPPING=1 at each stop, READY=1 at each
start, no SYN reached a draining member (drain_syn_refused 0: the route was
withdrawn first), and the TFO cookies fetched before the restarts still
open TFO connections on both restarted members (TCPFastOpenPassive > 0,
TCPFastOpenPassiveFail 0, the clients' TCPFastOpenActiveFail 0). The
members run with drain_timeout = 5: a moved flow holds a drain that long.
"""
import os
import re
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Checks, SERVER_V4  # noqa: E402
import bird_fleet as bf  # noqa: E402
import ecmp  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DRAIN = os.path.join(HERE, '..', '..', 'scripts', 'usertools', 'tfo-drain')
MACS = ('02:00:5e:10:00:0a', '02:00:5e:10:00:0b')
RATE = 100	# connections/s per client namespace: 400/s in all
# A flow the router moved away at the withdrawal never comes back to its
# member, which keeps it until drain_timeout (runbook, "Drain and rolling
# restarts"): a short one keeps the test short.
DRAIN_TIMEOUT = 5
T = Checks()
ecmp.T = T
bf.T = T


def notify_socket(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    return s


def wait_notify(sock, want, secs):
    """Datagrams on @sock until one has the line @want; all lines seen."""
    seen = []
    end = time.time() + secs
    while time.time() < end:
        sock.settimeout(max(end - time.time(), 0.01))
        try:
            msg = sock.recv(4096).decode()
        except socket.timeout:
            break
        seen += msg.split('\n')
        if want in msg.split('\n'):
            return True, seen
    return False, seen


def summary_totals(log):
    """The exit summary's `total NAME VALUE` lines."""
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r'^  total (\w+) (\d+)$', log, re.M)}


def start_load(cnss, until):
    """tfo_many.py in each client namespace until @until exists: TFO from
    the first two, plain connect() from the others."""
    ps = []
    for k, ns in enumerate(cnss):
        cmd = ['ip', 'netns', 'exec', ns, '/usr/bin/python3', os.path.join(HERE, 'tfo_many.py'),
               SERVER_V4, str(ecmp.ECHO), '0', '--conc', '8', '--timeout', '5',
               '--until', until, '--rate', str(RATE),
               '--src', ','.join(ecmp.CLIENTS[k * ecmp.PERNS:(k + 1) * ecmp.PERNS])]
        if k >= 2:
            cmd.append('--plain')
        ps.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True))
    return ps


def main():
    server = os.path.abspath(sys.argv[1])
    fl = bf.Fleet(server, 'rr')
    tmp, kfile, pid, rns, hns, cnss, birds = (fl.tmp, fl.kfile, fl.pid, fl.rns, fl.hns,
                                              fl.cnss, fl.birds)
    until = os.path.join(tmp, 'stop')
    npath = [os.path.join(tmp, 'notify%d.sock' % i) for i in range(2)]
    nsock = [notify_socket(p) for p in npath]
    load = []
    t_start = time.time()

    def member(i, shared=None):
        # the member inherits it, as from systemd
        os.environ['NOTIFY_SOCKET'] = npath[i]
        return bf.member_bed(server, kfile, rns, i, pid, shared, mac=MACS[i],
                             extra=['--set', 'server.drain_timeout=%d' % DRAIN_TIMEOUT])

    try:
        with member(0) as a, member(1, shared=rns) as b:
            os.environ.pop('NOTIFY_SOCKET', None)
            beds = (a, b)
            for i in range(2):
                ok, seen = wait_notify(nsock[i], 'READY=1', 15)
                T.check('member %s: READY=1 on its notify socket at start' % 'AB'[i], ok, seen)
            bf.bring_up(rns, hns, cnss, tmp, birds)
            ok, t = bf.wait_paths(rns, bf.HOSTS, limit=40)
            T.check('router: 2-path route via both members', ok, t)
            # one cookie request per TFO client address first
            ecmp.load_result(ecmp.load(cnss[:2], ecmp.PERNS, ecmp.PERNS))
            n0 = ecmp.nstat(cnss)
            load = start_load(cnss, until)
            time.sleep(2)
            nomatch = 0	# RSTs to segments of flows a member did not know
            for i, bed in enumerate(beds):
                ctl = os.path.join(tmp, 'member%d.ctl' % i)
                r = subprocess.run(['/usr/bin/python3', DRAIN, '--birdc', 'birdc -s ' + ctl,
                                    '--file-prefix', bed.prefix, '--pid', str(bed.pid),
                                    '--quiet-for', '1', '--max-wait', '15',
                                    '--stop-timeout', str(DRAIN_TIMEOUT + 10)],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   timeout=60)
                T.check('member %s: tfo-drain withdrew, drained and stopped it' % 'AB'[i],
                        r.returncode == 0 and 'quiet after' in r.stdout, r.stdout)
                log = bed.log_text()
                rc = bed.stop(timeout=5)
                T.check('member %s: exit code 0, the drain\'s end logged, summary printed'
                        % 'AB'[i], rc == 0 and ('drain: done' in log or
                                                'drain: drain_timeout' in log) and
                        'summary: counters' in log, 'rc %s' % rc)
                ok, seen = wait_notify(nsock[i], 'STOPPING=1', 1)
                T.check('member %s: STOPPING=1 at the drain' % 'AB'[i], ok, seen)
                tot = summary_totals(log)
                T.check('member %s: no SYN reached it while draining (drain_syn_refused 0)'
                        % 'AB'[i], tot.get('drain_syn_refused', 0) == 0, tot.get(
                            'drain_syn_refused'))
                nomatch += tot.get('rst_tx_nomatch', 0)
                if i == 1:
                    fails_after = tot.get('TCPFastOpenPassiveFail', 0)
                # restart: READY=1, then announce again
                os.unlink(bed.log)
                os.environ['NOTIFY_SOCKET'] = npath[i]
                bed.start()
                os.environ.pop('NOTIFY_SOCKET', None)
                bf.attach_member(rns, hns[i], i)
                ok, seen = wait_notify(nsock[i], 'READY=1', 15)
                T.check('member %s restarted: READY=1' % 'AB'[i], ok, seen)
                subprocess.run(['birdc', '-s', ctl, 'enable', 'tfo_service'],
                               stdout=subprocess.DEVNULL)
                ok, t = bf.wait_paths(rns, bf.HOSTS, limit=30)
                T.check('member %s announced again: 2 paths (%.1f s)'
                        % ('AB'[i], t if ok else -1), ok, t)
            time.sleep(3)	# both restarted members serve a share
            s = [bed.stats() for bed in beds]
            open(until, 'w').close()
            r = ecmp.load_result(load, timeout=30)
            load = []
            took = time.time() - t_start
            nomatch += sum(x.get('rst_tx_nomatch', 0) for x in s)
            failed = r['n'] - r['ok']
            # Linux's ECMP (hash-threshold) moves the flows in flight when a
            # next hop goes or comes: one whose next segment lands on the
            # other member is reset there (rst_tx_nomatch). Nothing else may
            # fail: no refusal, no timeout, and at most 2 per route change
            # (4 changes: A out and in, B out and in); ~1 ms transactions
            # at ~400/s leave about one in flight at each.
            T.check('%d client connections (TFO and plain, ~%d/s) over the rolling restart: '
                    '%d failed, each a reset of a flow the router moved (members\' '
                    'rst_tx_nomatch %d)' % (r['n'], 4 * RATE, failed, nomatch),
                    r['n'] > 0 and failed <= min(nomatch, 8) and
                    all('reset by peer' in str(f[1]) for f in r['fails']),
                    r['fails'])
            T.check('... about the rate asked (at least half)',
                    r['n'] >= 4 * RATE * 10 // 2, r['n'])
            # member A restarted first: its whole second life is in its
            # stats; B's life after the restart too
            T.check('TFO cookies from before still open TFO connections on both '
                    'restarted members (TCPFastOpenPassive A %d, B %d)'
                    % (s[0].get('TCPFastOpenPassive', 0), s[1].get('TCPFastOpenPassive', 0)),
                    s[0].get('TCPFastOpenPassive', 0) > 0 and
                    s[1].get('TCPFastOpenPassive', 0) > 0)
            T.check('no TFO cookie refused: TCPFastOpenPassiveFail 0 (A now %d, B now %d, '
                    'B before %d)' % (s[0].get('TCPFastOpenPassiveFail', 0),
                                      s[1].get('TCPFastOpenPassiveFail', 0), fails_after),
                    s[0].get('TCPFastOpenPassiveFail', 0) == 0 and
                    s[1].get('TCPFastOpenPassiveFail', 0) == 0 and fails_after == 0)
            n1 = ecmp.nstat(cnss)
            d = {k: n1.get(k, 0) - n0.get(k, 0) for k in
                 ('TcpExtTCPFastOpenActive', 'TcpExtTCPFastOpenActiveFail')}
            T.check('clients: TFO all along, no active TFO failure (%s)' % d,
                    d['TcpExtTCPFastOpenActive'] > 0 and d['TcpExtTCPFastOpenActiveFail'] == 0)
            T.check('the whole test took < 90 s (%.0f s)' % took, took < 90)
            T.check('member A stops with exit code 0', a.stop(signal.SIGINT) == 0)
            T.check('member B stops with exit code 0', b.stop(signal.SIGINT) == 0)
    except Exception as e:
        T.check('rolling restart test ran without exception', False, repr(e))
    finally:
        os.environ.pop('NOTIFY_SOCKET', None)
        open(until, 'w').close()
        for p in load:
            if p.poll() is None:
                p.kill()
            p.wait()
        for s in nsock:
            s.close()
        fl.close()
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
