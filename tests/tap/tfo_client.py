#!/usr/bin/python3
"""A Linux kernel TFO client for the interop tests.

    tfo_client.py [options] HOST PORT

Connects with the kernel's TCP Fast Open client (sendto(MSG_FASTOPEN) by
default, TCP_FASTOPEN_CONNECT with --mode connect, a plain connect with
--mode plain), sends the request, reads until the server closes (or
--expect bytes arrived), and prints one JSON line: bytes sent and received,
whether the reply matched (--expect-echo, --expect-file, --expect-prefix),
the elapsed time. Exit status 0 when the reply matched (or nothing was
expected and something arrived).
"""
import argparse
import json
import socket
import struct
import sys
import time

TCP_FASTOPEN_CONNECT = 30


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('host')
    ap.add_argument('port', type=int)
    ap.add_argument('--mode', choices=('sendto', 'connect', 'plain'), default='sendto')
    ap.add_argument('--data', help='request text (\\r\\n escapes allowed)')
    ap.add_argument('--size', type=int, help='request of N pattern bytes')
    ap.add_argument('--line', type=int, help='request of one line of N bytes (N-1 letters, then \\n)')
    ap.add_argument('--expect-echo', action='store_true', help='reply must equal the request')
    ap.add_argument('--expect-file', help='reply body must equal this file')
    ap.add_argument('--expect-prefix', help='reply must start with this text')
    ap.add_argument('--expect-len', type=int, help='stop after this many reply bytes')
    ap.add_argument('--timeout', type=float, default=5.0)
    ap.add_argument('--half-close', action='store_true', help='shut down our sending side after the request')
    a = ap.parse_args()

    if a.data is not None:
        req = a.data.encode().decode('unicode_escape').encode('latin-1')
    elif a.line is not None:
        req = bytes(ord('a') + i % 26 for i in range(a.line - 1)) + b'\n'
    elif a.size is not None:
        req = bytes((i * 7 + 13) & 0xff for i in range(a.size))
    else:
        req = b'hello tfo\n'

    fam = socket.AF_INET6 if ':' in a.host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    # blocking socket (a Python timeout makes it non-blocking, and then
    # sendto(MSG_FASTOPEN) without a cookie returns EINPROGRESS): bound the
    # kernel's waits with SO_SNDTIMEO/SO_RCVTIMEO instead
    tv = struct.pack('ll', int(a.timeout), int((a.timeout % 1) * 1e6))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    t0 = time.monotonic()
    err = None
    got = bytearray()
    try:
        if a.mode == 'sendto':
            sent = s.sendto(req, socket.MSG_FASTOPEN, (a.host, a.port))
            if sent < len(req):
                s.sendall(req[sent:])
        else:
            if a.mode == 'connect':
                s.setsockopt(socket.IPPROTO_TCP, TCP_FASTOPEN_CONNECT, 1)
            s.connect((a.host, a.port))
            s.sendall(req)
        if a.half_close:
            s.shutdown(socket.SHUT_WR)
        while a.expect_len is None or len(got) < a.expect_len:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except OSError as e:
        err = '%s: %s' % (type(e).__name__, e)
    elapsed_ms = (time.monotonic() - t0) * 1000
    s.close()

    ok = err is None and len(got) > 0
    if a.expect_echo:
        ok = ok and bytes(got) == req
    if a.expect_prefix is not None:
        ok = ok and bytes(got).startswith(a.expect_prefix.encode().decode('unicode_escape').encode('latin-1'))
    if a.expect_file is not None:
        body = open(a.expect_file, 'rb').read()
        head, _, rest = bytes(got).partition(b'\r\n\r\n')
        ok = ok and rest == body
    print(json.dumps({'sent': len(req), 'received': len(got), 'ok': ok,
                      'elapsed_ms': round(elapsed_ms, 3), 'error': err,
                      'head': bytes(got[:80]).decode('latin-1')}))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
