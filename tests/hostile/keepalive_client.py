#!/usr/bin/python3
"""Hold HTTP keep-alive connections open for the hostile suite.

    keepalive_client.py HOST PORT N_TFO N_PLAIN

Opens N_TFO connections with the kernel's TFO client (sendto MSG_FASTOPEN:
the request in the SYN, with a cached cookie served by a worker) and
N_PLAIN with a plain connect() (served by the control core), sends one
keep-alive GET on each and reads its response. Prints one JSON line:
{"ports": [...], "ok": [...]}. Then waits for a line on stdin, sends a
second GET on every connection, and prints {"ok": [...]} for those: a
connection torn down meanwhile (by a forged RST) fails.
"""
import json
import socket
import struct
import sys

REQ = b'GET / HTTP/1.1\r\nHost: hostile\r\n\r\n'


def read_response(s):
    """One response with a Content-Length body; b'' on a closed connection."""
    buf = b''
    while b'\r\n\r\n' not in buf:
        chunk = s.recv(65536)
        if not chunk:
            return b''
        buf += chunk
    head, _, body = buf.partition(b'\r\n\r\n')
    length = 0
    for line in head.split(b'\r\n'):
        if line.lower().startswith(b'content-length:'):
            length = int(line.split(b':', 1)[1])
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            return b''
        body += chunk
    return head


def request(s, first_tfo=None):
    try:
        if first_tfo is not None:
            s.sendto(REQ, socket.MSG_FASTOPEN, first_tfo)
        else:
            s.sendall(REQ)
        head = read_response(s)
        return head.startswith(b'HTTP/1.1 200')
    except OSError:
        return False


def main():
    host, port, n_tfo, n_plain = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    tv = struct.pack('ll', 3, 0)
    socks, oks, ports = [], [], []
    for i in range(n_tfo + n_plain):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
        if i < n_tfo:
            oks.append(request(s, (host, port)))
        else:
            try:
                s.connect((host, port))
                oks.append(request(s))
            except OSError:
                oks.append(False)
        socks.append(s)
        ports.append(s.getsockname()[1] if oks[-1] else 0)
    print(json.dumps({'ports': ports, 'ok': oks}))
    sys.stdout.flush()
    sys.stdin.readline()
    print(json.dumps({'ok': [request(s) for s in socks]}))
    for s in socks:
        s.close()
    return 0


if __name__ == '__main__':
    sys.exit(main())
