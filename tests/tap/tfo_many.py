#!/usr/bin/python3
"""Many concurrent kernel TFO clients (threads), for the multi-queue tests.

    tfo_many.py HOST PORT N [--conc C] [--timeout S] [--plain]

Opens N connections, at most C at a time (default N), each with
sendto(MSG_FASTOPEN) (--plain: connect() then send, no TFO option) of a
distinct one-line request to an echo service,
reads until the server closes, and prints one JSON line: how many were
served byte-exact, the failures (first few), and the local ports used.
Exit status 0 when all N were served byte-exact.
"""
import argparse
import json
import socket
import struct
import sys
import threading


def one(host, port, i, timeout, res, plain=False):
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
    a = ap.parse_args()
    conc = a.conc or a.n
    res = {}
    sem = threading.Semaphore(conc)
    threads = []

    def run(i):
        with sem:
            one(a.host, a.port, i, a.timeout, res, a.plain)

    for i in range(a.n):
        t = threading.Thread(target=run, args=(i,))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    ok = sum(1 for v in res.values() if v[0])
    fails = [(i, v[1]) for i, v in sorted(res.items()) if not v[0]][:5]
    print(json.dumps({'n': a.n, 'ok': ok, 'fails': fails,
                      'ports': sorted(v[2] for v in res.values() if v[2])}))
    return 0 if ok == a.n else 1


if __name__ == '__main__':
    sys.exit(main())
