#!/usr/bin/python3
"""AF_XDP mode with UDP: the dns service's `udp = on` (suite tap, root).

    afxdp_udp.py TFO_SERVER

A veth pair between two network namespaces made here (names with "uxd"):
tfo-server on net_af_xdp on the server end, with its XDP program, the dns
service on port 53 with `udp = on` (config/zones/example.org.zone) and the
echo service on port 7 without it. From the client namespace:
- kdig over UDP, IPv4 and IPv6, answered by tfo-server (its svc_udp_rx,
  svc_udp_tx and dns counters move; a kernel socket on UDP 53 in the server
  namespace that would answer garbage gets nothing); kdig over TCP too;
- a UDP echo on port 7 (echo: TCP only) is answered by the kernel, and
  tfo-server's rx_pkts does not move;
- a UDP datagram to port 53 too large for one frame (IPv4 and IPv6) is
  fragmented by the client's kernel: the XDP program passes the fragments,
  and the server namespace's kernel socket on 53 gets it reassembled;
- a short load from dnsperf (not ours): >= 99 % of the queries answered at
  a moderate rate (TFO_UXD_QPS, default 5000/s, for TFO_UXD_SECONDS,
  default 2 s: a few thousand frames), then kdig over UDP and TCP answered
  within 1 s each;
- the start-up lines say UDP where it is delivered, and the program's exit
  counters; with xdp = off and the vdev's own xdp_prog=, a warning that
  the UDP ports are that program's choice.
Skips (77) with the reason when the build has no XDP program or a tool is
missing.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import (Bed, Checks, SERVER_V4, SERVER_V6, VethPair, ns, sh, end_servers,  # noqa: E402
                    need_root, stop_process)

HERE = os.path.dirname(os.path.abspath(__file__))
ZONE = os.path.normpath(os.path.join(HERE, '..', '..', 'config', 'zones',
                                     'example.org.zone'))
T = Checks()
PID = os.getpid()
SNS, CNS = 'uxds%d' % PID, 'uxdc%d' % PID
SIF, CIF = 'uxs%d' % PID, 'uxc%d' % PID
PREFIX = 'uxd%d' % PID
QPS = int(os.environ.get('TFO_UXD_QPS', '5000'))
SECONDS = int(os.environ.get('TFO_UXD_SECONDS', '1'))

# The kernel's own UDP in the server namespace, dual stack: an echo on 7,
# and on 53 a socket that answers "kernel53 <size>" (never a DNS answer)
# and counts what it got; "count" from the test returns the count.
KERNEL_UDP = r'''
import socket, threading, sys
def sock(port):
    u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    u.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    u.bind(('::', port))
    return u
e, d = sock(7), sock(53)
got = [0]
def echo():
    while True:
        m, a = e.recvfrom(65535); e.sendto(m, a)
def dns():
    while True:
        m, a = d.recvfrom(65535); got[0] += 1; d.sendto(b'kernel53 %d' % len(m), a)
threading.Thread(target=echo, daemon=True).start()
threading.Thread(target=dns, daemon=True).start()
print('ready', flush=True)
for line in sys.stdin:
    print(got[0], flush=True)
'''

# One UDP datagram of SIZE bytes to HOST:PORT; prints the answer or "none".
UDP_ONE = r'''
import socket, sys
host, port, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET6 if ':' in host else socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
s.sendto(b'u' * size, (host, port))
try:
    print(s.recv(65535).decode(errors='replace'))
except socket.timeout:
    print('none')
'''

CONFIG = '''
[port net_af_xdp0]
vdev = net_af_xdp0,iface={iface}{vdev}
ipv4 = {v4}/24
ipv6 = {v6}/64
{port}

[service echo]
port = 7

[service dns]
port = 53
udp = on
zone = example.org:{zone}
'''

EAL = ['-l', '0-1', '--no-huge', '-m', '256', '--no-shconf', '--no-pci',
       '--file-prefix', PREFIX]


def kdig(host, name, qtype, tcp=False, timeout=2):
    """kdig's answer section (list of 'name TTL IN TYPE data') and the
    seconds it took, or (None, seconds, output)."""
    t0 = time.time()
    r = ns(CNS, ['kdig', '@' + host, name, qtype, '+tcp' if tcp else '+notcp',
                 '+time=%d' % timeout, '+retry=0', '+noall', '+answer'],
           check=False, timeout=timeout + 5)
    dt = time.time() - t0
    lines = [ln for ln in r.stdout.splitlines() if ln.strip() and not ln.startswith(';')]
    if r.returncode != 0 or not lines:
        return None, dt, r.stdout[-300:] + r.stderr[-300:]
    return lines, dt, ''


def answered(lines, data):
    return lines is not None and any(ln.split()[-1] == data for ln in lines)


def dnsperf(host, qfile):
    """dnsperf against @host: (sent, completed, lost, qps, output)."""
    r = ns(CNS, ['dnsperf', '-s', host, '-d', qfile, '-l', str(SECONDS), '-Q', str(QPS),
                 '-t', '2'], check=False, timeout=SECONDS + 30)
    out = r.stdout + r.stderr

    def num(label):
        m = re.search(r'%s:\s+(\d+)' % label, out)
        return int(m.group(1)) if m else -1
    m = re.search(r'Queries per second:\s+([\d.]+)', out)
    return num('Queries sent'), num('Queries completed'), num('Queries lost'), \
        float(m.group(1)) if m else 0.0, out


def foreign(server, tmp, veth, log, procs):
    """xdp = off with a program of the vdev's (here the build's own object
    file, whose map nobody fills: it passes everything): tfo-server cannot
    know what it redirects, and says so at start instead of only claiming
    UDP."""
    obj = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(server)), '..',
                                        'src', 'tfo_xdp.o'))
    if not os.path.exists(obj):
        print('SKIP xdp = off with xdp_prog=: no %s next to this tfo-server' % obj)
        return
    cfg = os.path.join(tmp, 'foreign.ini')
    with open(cfg, 'w') as f:
        f.write(CONFIG.format(iface=SIF, v4=SERVER_V4, v6=SERVER_V6, zone=ZONE,
                              vdev=',xdp_prog=' + obj, port='xdp = off'))
    log.seek(0)
    log.truncate()
    proc, text = veth.start_server(server, EAL, cfg, log)
    procs.append(proc)
    T.check('xdp = off with xdp_prog=: runs, and warns that UDP 53 is that program\'s choice',
            'tfo-server: running' in text and 'xdp = off with the vdev\'s xdp_prog=' in text
            and 'UDP ports of those with udp = on' in text,
            [ln for ln in text.splitlines() if 'xdp' in ln][-4:] or text[-600:])
    T.check('... and stops with exit code 0', stop_process(proc) == 0)


def main():
    need_root()
    server = sys.argv[1]
    for tool in ('ethtool', 'kdig', 'dnsperf'):
        if shutil.which(tool) is None:
            print('SKIP: %s not installed (ethtool, knot-dnsutils, dnsperf: Debian '
                  'packages)' % tool)
            return 77
    tmp = tempfile.mkdtemp(prefix='uxd.')
    cfg = os.path.join(tmp, 'uxd.ini')
    with open(cfg, 'w') as f:
        f.write(CONFIG.format(iface=SIF, v4=SERVER_V4, v6=SERVER_V6, zone=ZONE, vdev='',
                              port=''))
    r = sh([server, '--', '--config', cfg, '--print-config'], check=False)
    if 'built without its XDP program' in r.stderr + r.stdout:
        print('SKIP: ' + (r.stderr + r.stdout).strip().splitlines()[-1])
        return 77
    T.check('the configuration (dns udp = on on net_af_xdp) is accepted', r.returncode == 0,
            (r.stderr + r.stdout)[-300:])
    qfile = os.path.join(tmp, 'queries')
    with open(qfile, 'w') as f:
        f.write('www.example.org A\nwww.example.org AAAA\nexample.org MX\n'
                'nope.example.org A\n')

    procs = []
    log = open(os.path.join(tmp, 'server.log'), 'w+')
    veth = VethPair(SNS, SIF, CNS, CIF)
    try:
        veth.__enter__()  # cleans up after itself when it fails
        k = subprocess.Popen(['ip', 'netns', 'exec', SNS, '/usr/bin/python3', '-c', KERNEL_UDP],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        procs.append(k)
        T.check('kernel UDP sockets up (7: echo, 53: decoy)',
                k.stdout.readline().strip() == 'ready')

        def kernel53():
            k.stdin.write('count\n')
            k.stdin.flush()
            return int(k.stdout.readline())

        proc, text = veth.start_server(server, EAL, cfg, log)
        procs.append(proc)
        if not T.check('tfo-server runs on net_af_xdp', 'tfo-server: running' in text,
                       text[-1500:]):
            return T.done()
        T.check('start-up: "service dns on TCP port 53 and UDP"',
                'service dns on TCP port 53 and UDP' in text)
        T.check('start-up: "service echo on TCP port 7" (no UDP)',
                re.search(r'service echo on TCP port 7$', text, re.M) is not None)
        T.check('start-up: the XDP program takes UDP to 2 pairs (2 addresses x dns)',
                'TCP to 4 address/port pairs and UDP to 2 to tfo-server' in text,
                [ln for ln in text.splitlines() if 'xdp = own' in ln])
        srv = Bed(server, name=SNS, eal=EAL)

        def stats():
            """/tfo/stats once its frame counters read the same twice
            0.3 s apart: the client's last frames (a TCP FIN's ACK) may
            still be on their way when it returns (at most 3 s)."""
            keys = ('rx_pkts', 'tx_pkts')
            a = srv.stats()
            for _ in range(10):
                time.sleep(0.3)
                b = srv.stats()
                if all(a.get(k) == b.get(k) for k in keys):
                    return b
                a = b
            return a

        # UDP to the dns service, both families: tfo-server answers
        before = stats()
        for host, name, qtype, want in ((SERVER_V4, 'www.example.org', 'A', '198.18.0.80'),
                                        (SERVER_V6, 'www.example.org', 'AAAA',
                                         'fd00:7f0::80')):
            lines, dt, why = kdig(host, name, qtype)
            T.check('kdig +notcp @%s %s %s: %s (%.3f s)' % (host, name, qtype, want, dt),
                    answered(lines, want), lines or why)
        after = stats()

        def d(key):	# of the latest before/after pair
            return after.get(key, 0) - before.get(key, 0)
        T.check('tfo-server answered them: svc_udp_rx +2, svc_udp_tx +2',
                d('svc_udp_rx') == 2 and d('svc_udp_tx') == 2,
                (d('svc_udp_rx'), d('svc_udp_tx')))
        T.check('... the dns counters: dns_qtype_a +1, dns_qtype_aaaa +1',
                d('dns_qtype_a') == 1 and d('dns_qtype_aaaa') == 1,
                (d('dns_qtype_a'), d('dns_qtype_aaaa')))
        T.check('... and the kernel socket on UDP 53 got none of them', kernel53() == 0)
        for host in (SERVER_V4, SERVER_V6):
            lines, dt, why = kdig(host, 'www.example.org', 'A', tcp=True)
            T.check('kdig +tcp @%s: answered (%.3f s)' % (host, dt),
                    answered(lines, '198.18.0.80'), lines or why)

        # UDP to a port whose service has no udp = on: the kernel's
        before = stats()
        for host in (SERVER_V4, SERVER_V6):
            r = ns(CNS, ['/usr/bin/python3', '-c', UDP_ONE, host, '7', '20'], check=False)
            T.check('UDP %s:7 (echo, TCP only) echoed by the kernel' % host,
                    r.stdout.strip() == 'u' * 20, r.stdout[-200:] + r.stderr[-200:])
        # a datagram to 53 in fragments: the kernel reassembles it
        for host in (SERVER_V4, SERVER_V6):
            r = ns(CNS, ['/usr/bin/python3', '-c', UDP_ONE, host, '53', '3000'], check=False)
            T.check('UDP %s:53 in fragments (3000 bytes): the kernel\'s socket got it' % host,
                    r.stdout.strip() == 'kernel53 3000', r.stdout[-200:] + r.stderr[-200:])
        after = stats()
        T.check('tfo-server saw none of them (rx_pkts unchanged)', d('rx_pkts') == 0,
                d('rx_pkts'))

        # a short load from a tool we did not write
        before = stats()
        sent, done, lost, qps, out = dnsperf(SERVER_V4, qfile)
        after = stats()
        share = done / sent if sent > 0 else 0.0
        print('dnsperf -Q %d -l %d: sent %d, completed %d, lost %d (%.2f %%), %.0f queries/s; '
              'tfo-server svc_udp_rx +%d svc_udp_tx +%d' %
              (QPS, SECONDS, sent, done, lost, 100 * share, qps, d('svc_udp_rx'),
               d('svc_udp_tx')))
        T.check('dnsperf at %d/s for %d s: >= 99 %% answered' % (QPS, SECONDS),
                sent > 0 and share >= 0.99, out[-800:])
        T.check('... by tfo-server (svc_udp_tx grew by the completed queries at least)',
                d('svc_udp_tx') >= done > 0, (d('svc_udp_tx'), done))
        for tcp in (False, True):
            lines, dt, why = kdig(SERVER_V4, 'www.example.org', 'A', tcp=tcp, timeout=1)
            T.check('after the load: kdig %s answered within 1 s (%.3f s)' %
                    ('+tcp' if tcp else '+notcp', dt),
                    answered(lines, '198.18.0.80') and dt < 1.0, lines or why)
        st = stats()
        T.check('accounting balances', st.get('accounting_ok') == 1 and
                st.get('rx_unaccounted') == 0, (st.get('accounting_ok'),
                                                st.get('rx_unaccounted')))
        T.check('no UDP checksum drops (the client computes them)',
                st.get('drop_udp_cksum', 0) == 0, st.get('drop_udp_cksum'))

        rc = stop_process(proc)
        with open(log.name) as f:
            text = f.read()
        T.check('tfo-server stops with exit code 0', rc == 0, rc)
        m = re.search(r'XDP program: (\d+) frames to tfo-server, (\d+) left to the kernel', text)
        T.check('its program sent frames both ways', m is not None and int(m.group(1)) > 0
                and int(m.group(2)) > 0, m and m.group(0))
        if m:
            print(m.group(0))
        foreign(server, tmp, veth, log, procs)
    finally:
        if procs:	# the kernel's sockets: their stdin closed, they exit
            procs[0].stdin.close()
            try:
                procs[0].wait(5)
            except subprocess.TimeoutExpired:
                pass
        end_servers(procs, log, T.failed, PREFIX)
        veth.__exit__(None, None, None)
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
