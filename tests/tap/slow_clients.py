#!/usr/bin/python3
"""One address holds the slow path's table; a request trickles (suite tap, root).

    slow_clients.py TFO_SERVER

Issue "Held by one address", items 1 and 2, on net_tap with a small table
([tcp] max_conns = 256, max_conns_per_source = 16):
- hold: one extra client address (198.18.0.50) keeps up to 300 connections
  open that each sent one header byte, refilled every 100 ms, while a good
  plain client (curl without TFO, from 198.18.0.1) and a good TFO client
  (curl --tcp-fastopen) are each served 20 of 20, byte-exact; the holder
  is stopped at its limit (conn_source_limit).
- trickle: one header byte every second is reset at request_timeout_ms
  (3000 here), counted in request_timeouts.
"""
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, CLIENT_V4, SERVER_V4, need_root  # noqa: E402

HOLDER = '198.18.0.50'
WWW_INDEX = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                         'config', 'www', 'index.html')
T = Checks()

# Runs in the client namespace: at most N connections from HOLDER, each
# sends one byte of a request and never more; dead ones are replaced every
# 100 ms, for S seconds. Prints how many connects it made.
HOLD_SCRIPT = r'''
import socket, sys, time
src, dst, n, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
socks, made, end = [], 0, time.time() + secs
while time.time() < end:
    alive = []
    for s in socks:
        try:
            if s.recv(1, socket.MSG_DONTWAIT) == b'':
                s.close()
                continue
        except BlockingIOError:
            pass
        except OSError:
            s.close()
            continue
        alive.append(s)
    socks = alive
    while len(socks) < n and time.time() < end:
        s = socket.socket()
        s.bind((src, 0))
        s.settimeout(0.5)
        try:
            s.connect((dst, 80))
            s.send(b'G')
        except OSError:
            s.close()
            break
        socks.append(s)
        made += 1
    time.sleep(0.1)
print(made, len(socks))
'''


def curl(bed, tfo):
    cmd = ['curl', '-sS', '--interface', CLIENT_V4, '-o', '-', '--max-time', '5',
           'http://%s/' % SERVER_V4]
    if tfo:
        cmd.insert(1, '--tcp-fastopen')
    return bed.ns_run(cmd, check=False, text=False)


def case_hold(server):
    body = open(WWW_INDEX, 'rb').read()
    with Bed(server, ['--set', 'tcp.max_conns=256', '--set', 'tcp.max_conns_per_source=16',
                      '--set', 'tcp.request_timeout_ms=3000']) as bed:
        bed.ns_run(['ip', 'addr', 'add', HOLDER + '/24', 'dev', bed.iface])
        before = bed.stats()
        holder = subprocess.Popen(['ip', 'netns', 'exec', bed.ns, '/usr/bin/python3', '-c',
                                   HOLD_SCRIPT, HOLDER, SERVER_V4, '300', '14'],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(3)
            ok = {False: 0, True: 0}
            for tfo in (False, True):
                for _ in range(20):
                    c = curl(bed, tfo)
                    good = c.returncode == 0 and c.stdout == body
                    ok[tfo] += good
                    if not good:
                        print('curl%s: rc %d, %d bytes, %s' % (
                            ' --tcp-fastopen' if tfo else '', c.returncode, len(c.stdout),
                            c.stderr.decode(errors='replace').strip()[-200:]))
            mid = bed.stats()
            out, err = holder.communicate(timeout=30)
        finally:
            if holder.poll() is None:
                holder.kill()
                holder.wait()
        after = bed.stats()
        print('counters (during, after):', {k: (mid.get(k, 0) - before.get(k, 0), v - before.get(k, 0))
              for k, v in after.items() if isinstance(v, int) and v != before.get(k, 0)})
        print('holder: connects made, alive at the end:', out.strip(), err[-300:])
        T.check('[hold] good plain client (curl, no TFO) served 20 of 20, byte-exact',
                ok[False] == 20, ok[False])
        T.check('[hold] good TFO client (curl --tcp-fastopen) served 20 of 20, byte-exact',
                ok[True] == 20, ok[True])
        lim = mid.get('conn_source_limit', 0) - before.get('conn_source_limit', 0)
        T.check('[hold] the holder was stopped at its limit (conn_source_limit)', lim > 0, lim)
        T.check('[hold] no SYN-cookie ACK refused for a full pool',
                after.get('conn_pool_full', 0) == before.get('conn_pool_full', 0),
                after.get('conn_pool_full'))
        T.check('[hold] server stops with exit code 0', bed.stop() == 0)


def case_trickle(server):
    with Bed(server, ['--set', 'tcp.request_timeout_ms=3000']) as bed:
        before = bed.stats().get('request_timeouts', 0)
        script = r'''
import socket, sys, time
s = socket.create_connection((sys.argv[1], 80), timeout=10)
t0, why = time.time(), 'open'
for i in range(10):
    try:
        s.send(b'GET / HTTP/1.1\r\n'[i:i + 1])
        if s.recv(1, socket.MSG_DONTWAIT) == b'':
            why = 'fin'
            break
    except BlockingIOError:
        pass
    except OSError as e:
        why = type(e).__name__
        break
    time.sleep(1)
print('%s %.2f' % (why, time.time() - t0))
'''
        r = bed.ns_run(['/usr/bin/python3', '-c', script, SERVER_V4], check=False, timeout=30)
        print('trickle:', r.stdout.strip(), r.stderr[-300:])
        parts = r.stdout.split()
        why, secs = (parts[0], float(parts[1])) if len(parts) == 2 else ('?', 0.0)
        T.check('[trickle] the connection is reset', why in ('ConnectionResetError',
                                                              'BrokenPipeError'), why)
        T.check('[trickle] ... around request_timeout_ms (3 s)', 2.5 <= secs <= 5.5, secs)
        after = bed.stats().get('request_timeouts', 0)
        T.check('[trickle] request_timeouts counts it', after - before == 1, after - before)
        T.check('[trickle] server stops with exit code 0', bed.stop() == 0)


if __name__ == '__main__':
    need_root()
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    server = sys.argv[1]
    case_hold(server)
    case_trickle(server)
    sys.exit(T.done())
