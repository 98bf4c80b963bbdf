#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""siphash-linux == the running kernel's TFO cookie.

In a private network namespace (net.ipv4.tcp_fastopen_key is per netns), a
kernel TFO listener issues a cookie to a kernel client over loopback; the
client caches it and `ip tcp_metrics show` prints it. It must equal what
`tfo-keytool cookie --algo siphash-linux` computes for the same key and
addresses. A second connection then carries data in its SYN, to show the
kernel accepted the cookie it issued (TCPFastOpenPassive). The namespace is
deleted whatever happens.

Needs root; exits 77 (skipped) with the reason otherwise.
usage: cookie_kernel.py PATH/TO/tfo-keytool
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import threading

from keytool_test import ISSUE_VECTORS

SKIP = 77

# issue 7's vectors (key, client, server, cookie), then random keys
CASES = list(ISSUE_VECTORS) + [
    (None, "10.248.0.2", "192.168.0.2", None),
    (None, "fd3d:fa7b:d17d::1", "fd3d:a0b:17d6::1", None),
]


def sh(*args, check=True):
    p = subprocess.run(list(args), capture_output=True, text=True,
                       timeout=20)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {p.stderr.strip()}")
    return p


def passive_count():
    """TcpExt TCPFastOpenPassive of this namespace."""
    with open("/proc/net/netstat") as f:
        lines = f.read().splitlines()
    for names, values in zip(lines[::2], lines[1::2]):
        if names.startswith("TcpExt:"):
            d = dict(zip(names.split()[1:], values.split()[1:]))
            return int(d.get("TCPFastOpenPassive", 0))
    return 0


def inner(client, server):
    """Runs inside the namespace: two TFO connections client -> server."""
    fam = socket.AF_INET6 if ":" in server else socket.AF_INET
    srv = socket.socket(fam, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((server, 0))
    srv.setsockopt(socket.IPPROTO_TCP, socket.TCP_FASTOPEN, 16)
    srv.listen(8)
    srv.settimeout(5)
    port = srv.getsockname()[1]
    got = []

    def serve():
        for _ in range(2):
            conn, _ = srv.accept()
            conn.settimeout(5)
            got.append(conn.recv(64))
            conn.sendall(b"ok")
            conn.close()

    th = threading.Thread(target=serve)
    th.start()
    before = passive_count()
    for i in range(2):
        cl = socket.socket(fam, socket.SOCK_STREAM)
        cl.bind((client, 0))
        # blocking: with a timeout the TFO connect would be non-blocking
        cl.sendto(b"hello %d" % i, socket.MSG_FASTOPEN, (server, port))
        cl.settimeout(5)
        cl.recv(16)
        cl.close()
    th.join(10)
    print(f"passive {passive_count() - before} data {got!r}")
    return 0


def fo_cookie(ns, client, server):
    out = sh("ip", "netns", "exec", ns, "ip", "tcp_metrics", "show").stdout
    for line in out.splitlines():
        m = re.match(r"(\S+) .*fo_cookie ([0-9a-f]+)", line)
        src = re.search(r" source (\S+)", line)
        if m and m.group(1) == server and (src is None or
                                           src.group(1) == client):
            return m.group(2)
    return None


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--inner":
        return inner(sys.argv[2], sys.argv[3])
    keytool = sys.argv[1] if len(sys.argv) > 1 else "tfo-keytool"
    if os.geteuid() != 0:
        print("SKIP: needs root (ip netns add, per-namespace sysctl)")
        return SKIP
    if shutil.which("ip") is None:
        print("SKIP: iproute2 (ip) is not installed")
        return SKIP
    ns = f"tfock{os.getpid()}"
    p = sh("ip", "netns", "add", ns, check=False)
    if p.returncode != 0:
        print(f"SKIP: cannot create a network namespace: {p.stderr.strip()}")
        return SKIP
    fails = 0
    try:
        nx = ["ip", "netns", "exec", ns]
        sh(*nx, "ip", "link", "set", "lo", "up")
        addrs = {a for c in CASES for a in c[1:3]}
        for a in sorted(addrs):
            if ":" in a:
                sh(*nx, "ip", "-6", "addr", "add", a + "/128", "dev", "lo",
                   "nodad")
            else:
                sh(*nx, "ip", "addr", "add", a + "/32", "dev", "lo")
        p = sh(*nx, "sysctl", "-qw", "net.ipv4.tcp_fastopen=3", check=False)
        if p.returncode != 0:
            print(f"SKIP: no TCP Fast Open in this kernel: {p.stderr}")
            return SKIP
        print(f"kernel {os.uname().release}", flush=True)
        for key, client, server, want in CASES:
            if key is None:
                key = sh(keytool, "gen").stdout.strip()
            sh(*nx, "sysctl", "-qw", f"net.ipv4.tcp_fastopen_key={key}")
            sh(*nx, "ip", "tcp_metrics", "flush", "all", check=False)
            r = sh(*nx, sys.executable, os.path.abspath(__file__),
                   "--inner", client, server)
            kernel = fo_cookie(ns, client, server)
            ours = sh(keytool, "cookie", "--key", key, "--client", client,
                      "--server", server, "--algo",
                      "siphash-linux").stdout.strip()
            ok = kernel is not None and kernel == ours and \
                (want is None or want == ours) and \
                r.stdout.startswith("passive 1 ")
            fails += not ok
            # a fresh random key is printed: it is thrown away with the netns
            print(f"{'ok  ' if ok else 'FAIL'} {client} -> {server}: kernel "
                  f"{kernel} tfo-keytool {ours}"
                  f"{'' if want is None else ' issue ' + want}; "
                  f"{r.stdout.strip()}")
    finally:
        sh("ip", "netns", "del", ns, check=False)
    print(f"cookie_kernel: {len(CASES)} cases, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
