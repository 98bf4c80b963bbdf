#!/usr/bin/python3
"""Helpers floods.py runs inside the test's network namespace.

    flood_tools.py send IFACE FILE RATE SECONDS
        Send the frames of FILE (each a 2-byte big-endian length, then the
        frame) on IFACE through a raw socket, over and over, at about RATE
        frames/s for SECONDS. Prints {"sent": N, "secs": S}.

    flood_tools.py clients HOST PORT N_TFO N_PLAIN SPREAD
        N_TFO kernel TFO clients (sendto(MSG_FASTOPEN), the cookie cached
        beforehand) and N_PLAIN plain ones, started evenly over SPREAD
        seconds, each on its own thread: request, echo, close. Prints one
        JSON list of {"mode", "ok", "secs"}.

Bounded: every loop has a deadline, every socket a timeout.
"""
import json
import socket
import struct
import sys
import threading
import time

MSG_FASTOPEN = 0x20000000


def send(iface, path, rate, secs):
    frames = []
    with open(path, 'rb') as f:
        data = f.read()
    off = 0
    while off + 2 <= len(data):
        n = struct.unpack('!H', data[off:off + 2])[0]
        frames.append(data[off + 2:off + 2 + n])
        off += 2 + n
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    s.bind((iface, 0))
    sent = 0
    t0 = time.monotonic()
    end = t0 + secs
    chunk = max(1, int(rate) // 1000)       # paced per millisecond
    while True:
        now = time.monotonic()
        if now >= end:
            break
        due = int((now - t0) * rate)
        if sent >= due:
            time.sleep(0.0005)
            continue
        for _ in range(min(chunk, due - sent)):
            try:
                s.send(frames[sent % len(frames)])
            except OSError:
                pass                        # the tap's queue is full: dropped
            sent += 1
    print(json.dumps({'sent': sent, 'secs': round(time.monotonic() - t0, 3)}))


def one_client(host, port, mode, i, out):
    req = ('good client %s %d\n' % (mode, i)).encode()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tv = struct.pack('ll', 5, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    got = b''
    t0 = time.monotonic()
    try:
        if mode == 'tfo':
            s.sendto(req, MSG_FASTOPEN, (host, port))
        else:
            s.connect((host, port))
            s.sendall(req)
        while len(got) < len(req):
            b = s.recv(4096)
            if not b:
                break
            got += b
    except OSError:
        pass
    finally:
        s.close()
    out.append({'mode': mode, 'ok': got == req, 'secs': round(time.monotonic() - t0, 4)})


def clients(host, port, n_tfo, n_plain, spread):
    out = []
    # interleaved, so that both kinds meet the flood at every moment
    modes = []
    while len(modes) < n_tfo + n_plain:
        if modes.count('tfo') < n_tfo:
            modes.append('tfo')
        if modes.count('plain') < n_plain:
            modes.append('plain')
    threads = []
    gap = spread / max(len(modes), 1)
    for i, m in enumerate(modes):
        t = threading.Thread(target=one_client, args=(host, port, m, i, out), daemon=True)
        t.start()
        threads.append(t)
        time.sleep(gap)
    for t in threads:
        t.join(12)
    print(json.dumps(out))


def main():
    if sys.argv[1] == 'send':
        send(sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]))
    elif sys.argv[1] == 'clients':
        clients(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]),
                float(sys.argv[6]))
    else:
        sys.exit('usage: see the docstring')


if __name__ == '__main__':
    main()
