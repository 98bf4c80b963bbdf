#!/usr/bin/python3
"""Many concurrent kernel TFO clients (threads), for the multi-queue and
ECMP tests.

    tfo_many.py HOST PORT N [--conc C] [--timeout S] [--plain] [--src A,B,...]
                [--until FILE] [--rate R]

Opens N connections, at most C at a time (default N), each with
sendto(MSG_FASTOPEN) (--plain: connect() then send, no TFO option) of a
distinct one-line request to an echo service,
reads until the server closes, and prints one JSON line: how many were
served byte-exact, the failures (first few), and the local ports used.
--src binds connection i to the i-th address of the list (round robin), so
that one run is many clients, each with its own TFO cookie. --until keeps
opening connections until FILE exists (N = 0: no cap), for load that runs
while something else happens; --rate paces it. Exit status 0 when all were served
byte-exact.
"""
import argparse
import json
import os
import socket
import struct
import sys
import threading
import time


def one(host, port, i, timeout, res, plain=False, src=None):
    req = ('conn %d %s\n' % (i, 'x' * (i % 97))).encode()
    fam = socket.AF_INET6 if ':' in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    tv = struct.pack('ll', int(timeout), 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    got = bytearray()
    err = None
    lport = None
    try:
        if src:
            s.bind((src, 0))
        if plain:
            s.connect((host, port))
            n = 0
        else:
            n = s.sendto(req, socket.MSG_FASTOPEN, (host, port))
        lport = s.getsockname()[1]
        if n < len(req):
            s.sendall(req[n:])
        while True:
            c = s.recv(65536)
            if not c:
                break
            got += c
    except OSError as e:
        err = '%s' % e
    s.close()
    res[i] = (bytes(got) == req, err, lport)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('host')
    ap.add_argument('port', type=int)
    ap.add_argument('n', type=int)
    ap.add_argument('--conc', type=int)
    ap.add_argument('--timeout', type=float, default=10)
    ap.add_argument('--plain', action='store_true', help='plain connect(), no TFO')
    ap.add_argument('--src', help='comma-separated source addresses, used round robin')
    ap.add_argument('--until', help='keep going until this file exists')
    ap.add_argument('--rate', type=float, help='start at most this many connections per second')
    a = ap.parse_args()
    srcs = a.src.split(',') if a.src else [None]
    conc = a.conc or a.n
    res = {}
    lock = threading.Lock()
    nxt = [0]

    def run():
        while True:
            with lock:
                i = nxt[0]
                if (a.n and i >= a.n) or (a.until and os.path.exists(a.until)):
                    return
                nxt[0] += 1
            if a.rate:
                wait = t0 + i / a.rate - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
            one(a.host, a.port, i, a.timeout, res, a.plain, srcs[i % len(srcs)])

    t0 = time.monotonic()
    threads = [threading.Thread(target=run) for _ in range(conc)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    n = len(res)
    ok = sum(1 for v in res.values() if v[0])
    fails = [(i, v[1]) for i, v in sorted(res.items()) if not v[0]][:5]
    print(json.dumps({'n': n, 'ok': ok, 'fails': fails,
                      'ports': sorted(v[2] for v in res.values() if v[2])}))
    return 0 if ok == n and n > 0 else 1


if __name__ == '__main__':
    sys.exit(main())
