#!/usr/bin/python3
"""The drain on one member (suite tap, root): SIGTERM, /tfo/drain, drain_timeout.

    drain.py TFO_SERVER

A kernel client in the server's namespace holds a connection open in the
middle of its request (half an HTTP header), then:
- term: SIGTERM starts a drain ("drain: started"); the server keeps
  running while the connection is held; a new connect() during the drain
  fails with ECONNREFUSED at once (the SYN gets a RST: drain_syn_refused);
  the held client then finishes its request and gets the whole response;
  the server exits 0 right after ("drain: done"), with its summary.
- twice: a second SIGTERM during the drain stops the server at once (exit 0)
  although the connection is still held.
- timeout: /tfo/drain (telemetry) with drain_timeout = 1 and the
  connection never finished: exit 0 after about a second, with a log line
  that names the connection it cut.
- keepalive: a client that got its answer on an HTTP/1.1 keep-alive
  connection and waits: SIGTERM closes it with a FIN at once (EOF for the
  client; drain_keepalive_closed), and the drain ends at once, exit 0.
- notify: with $NOTIFY_SOCKET (a socket of this test) and WATCHDOG_USEC =
  200 ms, as systemd's Type=notify and WatchdogSec: READY=1 at start,
  WATCHDOG=1 every 100 ms or so, STOPPING=1 at SIGTERM.
"""
import os
import re
import signal
import socket
import subprocess
import tempfile
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, SERVER_V4, need_root  # noqa: E402

T = Checks()

# Runs in the namespace: connect, send half a request, say "held", wait
# for a line on stdin, finish the request, print the status line and the
# byte count of the response (read to EOF).
HOLD = r'''
import socket, sys
s = socket.create_connection((sys.argv[1], 80), timeout=10)
s.sendall(b'GET / HTTP/1.1\r\nHost: drain\r\n')
print('held', flush=True)
sys.stdin.readline()
s.sendall(b'Connection: close\r\n\r\n')
data = b''
while True:
    b = s.recv(65536)
    if not b:
        break
    data += b
print(data.split(b'\r\n', 1)[0].decode(), len(data), flush=True)
'''

# One keep-alive request, its response read (Content-Length), then wait
# for the server's FIN: prints the seconds from "answered" to EOF.
KEEPALIVE = r'''
import socket, sys, time
s = socket.create_connection((sys.argv[1], 80), timeout=10)
s.sendall(b'GET / HTTP/1.1\r\nHost: drain\r\n\r\n')
data = b''
while b'\r\n\r\n' not in data:
    data += s.recv(65536)
head, body = data.split(b'\r\n\r\n', 1)
n = int([l.split(b':')[1] for l in head.split(b'\r\n') if l.lower().startswith(b'content-length')][0])
while len(body) < n:
    body += s.recv(65536)
print('answered', flush=True)
t = time.time()
print('eof %.3f' % (time.time() - t) if s.recv(1) == b'' else 'data', flush=True)
'''

# One connect during the drain: prints "refused SECONDS" or what happened.
CONNECT = r'''
import socket, sys, time
t = time.time()
try:
    socket.create_connection((sys.argv[1], 80), timeout=3).close()
    print('connected')
except ConnectionRefusedError:
    print('refused %.3f' % (time.time() - t))
except OSError as e:
    print('error', e)
'''


def holder(bed):
    p = subprocess.Popen(['ip', 'netns', 'exec', bed.ns, '/usr/bin/python3', '-c', HOLD,
                          SERVER_V4], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    line = p.stdout.readline().strip()
    T.check('a client holds a connection mid-request', line == 'held', line)
    return p


def wait_log(bed, text, secs):
    end = time.time() + secs
    while time.time() < end:
        if text in bed.log_text():
            return True
        time.sleep(0.05)
    return False


def wait_exit(bed, secs):
    try:
        return bed.proc.wait(secs)
    except subprocess.TimeoutExpired:
        return None


def finish(bed, h):
    """The Bed forgets its server (it exited); the holder is reaped."""
    if h.poll() is None:
        h.kill()
    h.wait()


def case_term(server):
    with Bed(server) as bed:
        h = holder(bed)
        bed.proc.send_signal(signal.SIGTERM)
        T.check('term: the drain starts', wait_log(bed, 'drain: started', 5))
        c = bed.ns_run(['/usr/bin/python3', '-c', CONNECT, SERVER_V4], check=False)
        out = c.stdout.strip()
        T.check('term: a new connect is refused at once', out.startswith('refused') and
                float(out.split()[1]) < 0.5, out)
        time.sleep(0.5)
        T.check('term: the server waits for the held connection', bed.proc.poll() is None)
        h.stdin.write('\n')
        h.stdin.flush()
        res = h.stdout.readline().split()
        T.check('term: the held request is served', res[:3] == ['HTTP/1.1', '200', 'OK']
                and int(res[-1]) > 100, res)
        rc = wait_exit(bed, 5)
        T.check('term: then it exits 0', rc == 0, 'rc %s' % rc)
        log = bed.log_text()
        T.check('term: "drain: done" logged', 'drain: done' in log)
        T.check('term: the exit summary is printed', 'summary: counters' in log)
        T.check('term: the refusal is counted (drain_syn_refused)',
                any('drain_syn_refused' in ln for ln in log.splitlines()), log[-2000:])
        finish(bed, h)


def case_twice(server):
    with Bed(server) as bed:
        h = holder(bed)
        bed.proc.send_signal(signal.SIGTERM)
        T.check('twice: the drain starts', wait_log(bed, 'drain: started', 5))
        t = time.time()
        bed.proc.send_signal(signal.SIGTERM)
        rc = wait_exit(bed, 5)
        T.check('twice: a second SIGTERM stops it at once, exit 0',
                rc == 0 and time.time() - t < 3, 'rc %s after %.1f s' % (rc, time.time() - t))
        finish(bed, h)


def case_timeout(server):
    with Bed(server, ['--set', 'server.drain_timeout=1']) as bed:
        h = holder(bed)
        t = time.time()
        r = bed.telemetry('/tfo/drain')
        T.check('timeout: /tfo/drain answers with the connection in flight',
                r.get('draining') == 1 and r.get('in_flight') == 1, r)
        rc = wait_exit(bed, 6)
        took = time.time() - t
        T.check('timeout: exit 0 after drain_timeout', rc == 0 and 0.8 < took < 4,
                'rc %s after %.1f s' % (rc, took))
        log = bed.log_text()
        T.check('timeout: the log names the connection cut',
                'cutting 1 connection(s) in flight' in log and 'ESTABLISHED 1' in log,
                [ln for ln in log.splitlines() if 'drain' in ln])
        finish(bed, h)


def case_keepalive(server):
    with Bed(server) as bed:
        p = subprocess.Popen(['ip', 'netns', 'exec', bed.ns, '/usr/bin/python3', '-c',
                              KEEPALIVE, SERVER_V4], stdout=subprocess.PIPE, text=True)
        line = p.stdout.readline().strip()
        T.check('keepalive: a client waits on a keep-alive connection', line == 'answered',
                line)
        time.sleep(0.3)
        t = time.time()
        bed.proc.send_signal(signal.SIGTERM)
        out = p.stdout.readline().split()
        T.check('keepalive: SIGTERM closes it with a FIN at once (EOF)',
                out[:1] == ['eof'] and time.time() - t < 2, out)
        rc = wait_exit(bed, 5)
        T.check('keepalive: the drain ends at once, exit 0', rc == 0 and time.time() - t < 3,
                'rc %s after %.1f s' % (rc, time.time() - t))
        log = bed.log_text()
        T.check('keepalive: counted (drain_keepalive_closed 1)',
                re.search(r'total drain_keepalive_closed 1$', log, re.M) is not None,
                [ln for ln in log.splitlines() if 'drain' in ln])
        finish(bed, p)


def case_notify(server):
    tmp = tempfile.mkdtemp(prefix='tfo-notify.')
    path = os.path.join(tmp, 'notify.sock')
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0.5)
    seen = []

    def receive(secs):
        end = time.time() + secs
        while time.time() < end:
            try:
                seen.extend(sock.recv(4096).decode().split('\n'))
            except socket.timeout:
                pass

    os.environ.update(NOTIFY_SOCKET=path, WATCHDOG_USEC='200000')
    try:
        with Bed(server) as bed:
            os.environ.pop('NOTIFY_SOCKET')
            os.environ.pop('WATCHDOG_USEC')
            end = time.time() + 10
            while 'READY=1' not in seen and time.time() < end:
                receive(0.2)
            T.check('notify: READY=1 once it serves', 'READY=1' in seen, seen)
            del seen[:]
            receive(1.0)
            n = seen.count('WATCHDOG=1')
            T.check('notify: WATCHDOG=1 at half of WATCHDOG_USEC (%d in 1 s)' % n, 5 <= n <= 12)
            bed.proc.send_signal(signal.SIGTERM)
            rc = wait_exit(bed, 5)
            receive(0.3)
            T.check('notify: STOPPING=1 at SIGTERM, exit 0', 'STOPPING=1' in seen and rc == 0,
                    (rc, seen[-5:]))
    finally:
        os.environ.pop('NOTIFY_SOCKET', None)
        os.environ.pop('WATCHDOG_USEC', None)
        sock.close()
        os.unlink(path)
        os.rmdir(tmp)


def main():
    need_root()
    if len(sys.argv) < 2:
        print('usage: drain.py TFO_SERVER')
        return 2
    for case in (case_term, case_twice, case_timeout, case_keepalive, case_notify):
        case(sys.argv[1])
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
