#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""tfo-server on net_pcap: software checksums, and exact answers (root).

    pcap_replay.py TFO_SERVER

net_pcap offers no checksum offload, so tfo-server computes and verifies
every checksum in software; its start-up line must say so. A capture is
replayed into it (rx_pcap) and its answers are recorded (tx_pcap):

  1. an IPv4 TFO SYN with a valid cookie (computed by tfo-keytool from a
     fixed key file) and a request: the first answer is a SYN-ACK that acks
     the SYN and the request and carries the response (echo) with FIN;
  2. the same over IPv6;
  3. an IPv4 SYN with a wrong cookie and data: the SYN-ACK acks only the SYN
     and offers the right cookie (what tfo-keytool computes);
  4. a TFO SYN with a bad TCP checksum: no answer, drop_tcp_cksum;
  5. IPv6 extension headers: a TFO SYN behind Hop-by-Hop and Destination
     Options headers is answered as in 2, a plain SYN behind a Routing
     header with segments left 0 gets a SYN-ACK, both answers without
     extension headers (as Linux); a Routing header with segments left 1
     and a fragment get no answer (drop_ipv6_rthdr, drop_ipv6_frag), and an
     MLDv2 report is counted as rx_mld_ignored, not as a drop.

Every recorded frame's IPv4 and TCP checksums are recomputed with scapy.
Also: with two workers net_pcap cannot spread flows (no RSS), and
tfo-server refuses to start with a line that says so.

Needs root (EAL); exits 77 with the reason otherwise.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tap'))
from tfotap import Checks, stop_process  # noqa: E402

SKIP = 77
KEY = '00112233-44556677-8899aabb-ccddeeff'
SRV4, CLI4 = '198.18.0.2', '198.18.0.1'
SRV6, CLI6 = 'fd00:7f0::2', 'fd00:7f0::1'
CLI_MAC = '02:00:00:00:00:01'
ECHO = 7
T = Checks()
check = T.check


def keytool(server, *args):
    tool = os.path.join(os.path.dirname(server), 'tfo-keytool')
    return subprocess.run([tool] + list(args), check=True, stdout=subprocess.PIPE,
                          text=True).stdout.strip()


CONFIG = '''[tfo]
key_file = %s
[port net_pcap0]
ipv4 = %s/24
ipv6 = %s/64
[service echo]
port = %d
'''


def run_server(server, d, rx, tx, lcores=('-l', '0-1'), wait_for=None, extra_vdev=''):
    """Start tfo-server on net_pcap; stop it once @wait_for(stats) holds (or
    after 10 s). Returns (exit code, log text, last stats)."""
    prefix = 'tfopcap%d' % os.getpid()
    vdev = 'net_pcap0,rx_pcap=%s,tx_pcap=%s%s' % (rx, tx, extra_vdev)
    cmd = [server] + list(lcores) + ['--no-huge', '-m', '256', '--no-shconf', '--no-pci',
                                     '--file-prefix', prefix, '--vdev', vdev, '--', '--config',
                                     os.path.join(d, 'tfo.ini')]
    logpath = os.path.join(d, 'server.log')
    with open(logpath, 'w') as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)

    def log_text():
        with open(logpath) as f:
            return f.read()

    stats = {}
    deadline = time.time() + 10
    try:
        while time.time() < deadline and p.poll() is None:
            time.sleep(0.2)
            if wait_for is None:
                if 'tfo-server: running' in log_text():
                    break
                continue
            if 'tfo-server: running' not in log_text():
                continue
            r = subprocess.run(['dpdk-telemetry.py', '-f', prefix], input='/tfo/stats\n',
                               text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               timeout=10)
            try:
                stats = json.loads(r.stdout)['/tfo/stats']
            except (ValueError, KeyError):
                continue
            if wait_for(stats):
                break
    finally:
        stop_process(p)
        shutil.rmtree('/var/run/dpdk/' + prefix, ignore_errors=True)
    return p.returncode, log_text(), stats


def build_input(server, mac, path, kfile):
    from scapy.all import (Ether, IP, IPv6, TCP, wrpcap, ICMPv6MLDMultAddrRec,
                           ICMPv6MLReport2, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
                           IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, PadN, RouterAlert)
    good = keytool(server, 'cookie', '--key-file', kfile, '--client', CLI4, '--server', SRV4)
    good6 = keytool(server, 'cookie', '--key-file', kfile, '--client', CLI6, '--server', SRV6)
    tfo = lambda c: ('TFO', struct.unpack('!II', bytes.fromhex(c)))  # noqa: E731
    opts = lambda c: [('MSS', 1460), ('SAckOK', b''), ('Timestamp', (1111, 0)),  # noqa: E731
                      ('NOP', None), ('WScale', 7), tfo(c)]
    e = Ether(src=CLI_MAC, dst=mac)
    req = b'hello over pcap\n'
    pkts = [
        e / IP(src=CLI4, dst=SRV4) / TCP(sport=40001, dport=ECHO, flags='S', seq=1000,
                                         window=64240, options=opts(good)) / req,
        e / IPv6(src=CLI6, dst=SRV6) / TCP(sport=40002, dport=ECHO, flags='S', seq=2000,
                                           window=64240, options=opts(good6)) / req,
        e / IP(src=CLI4, dst=SRV4) / TCP(sport=40003, dport=ECHO, flags='S', seq=3000,
                                         window=64240, options=opts('0011223344556677')) / req,
        e / IP(src=CLI4, dst=SRV4) / TCP(sport=40004, dport=ECHO, flags='S', seq=4000,
                                         window=64240, options=opts(good), chksum=0xbad) / req,
        e / IPv6(src=CLI6, dst=SRV6) / IPv6ExtHdrHopByHop(options=[PadN(optdata=b'\0' * 4)]) /
        IPv6ExtHdrDestOpt() / TCP(sport=40005, dport=ECHO, flags='S', seq=5000,
                                  window=64240, options=opts(good6)) / req,
        e / IPv6(src=CLI6, dst=SRV6) /
        IPv6ExtHdrRouting(type=0, segleft=0, addresses=['fd00:7f0::9']) /
        TCP(sport=40006, dport=ECHO, flags='S', seq=6000, window=64240,
            options=[('MSS', 1440)]),
        e / IPv6(src=CLI6, dst=SRV6) /
        IPv6ExtHdrRouting(type=0, segleft=1, addresses=['fd00:7f0::9']) /
        TCP(sport=40007, dport=ECHO, flags='S', seq=7000, window=64240),
        e / IPv6(src=CLI6, dst=SRV6) / IPv6ExtHdrFragment(offset=0, m=1, id=8) /
        TCP(sport=40008, dport=ECHO, flags='S', seq=8000, window=64240) / (b'f' * 16),
        Ether(src=CLI_MAC, dst='33:33:00:00:00:16') /
        IPv6(src='fe80::1', dst='ff02::16', hlim=1) /
        IPv6ExtHdrHopByHop(options=[RouterAlert()]) /
        ICMPv6MLReport2(records=[ICMPv6MLDMultAddrRec(rtype=4, dst='ff02::1:ff00:2')]),
    ]
    wrpcap(path, pkts)
    return req, good


def cksums_ok(p):
    from scapy.all import IP, IPv6, TCP
    ip = p.getlayer(IP) or p.getlayer(IPv6)
    q = ip.__class__(bytes(ip))
    want = (q[TCP].chksum, q.chksum if isinstance(q, IP) else None)
    del q[TCP].chksum
    if isinstance(q, IP):
        del q.chksum
    r = q.__class__(bytes(q))
    return (r[TCP].chksum, r.chksum if isinstance(r, IP) else None) == want


def tfo_opt(t):
    for o in t.options:
        if o[0] in ('TFO', 34):
            v = o[1]
            if isinstance(v, tuple):
                return b''.join(struct.pack('!I', x) for x in v).hex()
            return v.hex() if v else 'req'
    return None


def main():
    if os.geteuid() != 0:
        print('SKIP: needs root (EAL with --no-huge)')
        return SKIP
    server = os.path.abspath(sys.argv[1])
    d = tempfile.mkdtemp(prefix='tfo-pcap.')
    try:
        return run(server, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run(server, d):
    from scapy.all import rdpcap, wrpcap, IP, IPv6, TCP, Ether
    kfile = os.path.join(d, 'tfo.key')
    fd = os.open(kfile, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, (KEY + '\n').encode())
    os.close(fd)
    with open(os.path.join(d, 'tfo.ini'), 'w') as f:
        f.write(CONFIG % (kfile, SRV4, SRV6, ECHO))
    empty, rx, tx = (os.path.join(d, n) for n in ('empty.pcap', 'in.pcap', 'out.pcap'))
    wrpcap(empty, [Ether(src=CLI_MAC) / IP(src=CLI4, dst='198.18.0.9')])

    # 1. the port's MAC (frames to another MAC are not ours) and the start-up line
    rc, log, _ = run_server(server, d, empty, tx)
    line = next((l for l in log.splitlines() if 'rx checksum' in l), '')
    print('start-up line: %s' % line)
    check('net_pcap starts (exit code 0)', rc == 0, log[-500:])
    check('the start-up line says: checksums in software, the device has none',
          'rx checksum software (the device has none)' in line and
          'tx checksum software (the device has none)' in line, line)
    mac = line.split(' mac ')[1].split()[0].lower() if ' mac ' in line else '00:00:00:00:00:00'

    # 2. replay the SYNs, record the answers
    req, good = build_input(server, mac, rx, kfile)
    rc, log, st = run_server(server, d, rx, tx,
                             wait_for=lambda s: s.get('TCPFastOpenPassive', 0) >= 3 and
                             s.get('TCPFastOpenPassiveFail', 0) >= 1 and
                             s.get('drop_tcp_cksum', 0) >= 1 and
                             s.get('rx_mld_ignored', 0) >= 1)
    want = {'TCPFastOpenPassive': 3, 'TCPFastOpenPassiveFail': 1, 'drop_tcp_cksum': 1,
            'drop_ipv6_rthdr': 1, 'drop_ipv6_frag': 1, 'rx_mld_ignored': 1,
            'drop_ipv6_ext': 0, 'drop_icmp6_other': 0}
    check('replay: tfo-server exits with code 0', rc == 0, log[-500:])
    check('replay: ' + ', '.join('%s %d' % kv for kv in want.items()),
          all(st.get(k, 0) == v for k, v in want.items()), {k: st.get(k) for k in want})
    out = [p for p in rdpcap(tx) if p.haslayer(TCP)]
    first = {}
    for p in out:
        first.setdefault(p[TCP].dport, p)
    for sport, fam, isn in ((40001, 'IPv4', 1000), (40002, 'IPv6', 2000),
                            (40005, 'IPv6 behind HBH+DO', 5000)):
        a = first.get(sport)
        ok = a is not None
        check('%s TFO SYN: the first answer is a SYN-ACK with PSH and FIN' % fam,
              ok and str(a[TCP].flags) == 'FSPA', a and str(a[TCP].flags))
        check('%s ... acks the SYN and the request' % fam,
              ok and a[TCP].ack == isn + 1 + len(req), a and a[TCP].ack)
        check('%s ... carries the response byte-exact' % fam,
              ok and bytes(a[TCP].payload) == req, a and bytes(a[TCP].payload))
        check('%s ... echoes the TSval in TSecr, our MSS, no cookie (primary-key hit)' % fam,
              ok and dict((o[0], o[1]) for o in a[TCP].options).get('Timestamp', (0, 0))[1] == 1111
              and dict((o[0], o[1]) for o in a[TCP].options).get('MSS') in (1460, 1440)
              and tfo_opt(a[TCP]) is None, a and a[TCP].options)
        check('%s ... to the client\'s MAC and address' % fam,
              ok and a[Ether].dst == CLI_MAC and a[Ether].src == mac and
              (a.getlayer(IP) or a.getlayer(IPv6)).dst in (CLI4, CLI6))
    a = first.get(40003)
    check('bad cookie: the SYN-ACK acks only the SYN (data not accepted)',
          a is not None and str(a[TCP].flags) == 'SA' and a[TCP].ack == 3001
          and len(a[TCP].payload) == 0, a and (str(a[TCP].flags), a[TCP].ack))
    check('bad cookie: ... and offers the right cookie (tfo-keytool\'s)',
          a is not None and tfo_opt(a[TCP]) == good, a and tfo_opt(a[TCP]))
    check('bad TCP checksum: no answer', 40004 not in first)
    a = first.get(40006)
    check('plain SYN behind a Routing header (segments left 0): a SYN-ACK',
          a is not None and str(a[TCP].flags) == 'SA' and a[TCP].ack == 6001,
          a and (str(a[TCP].flags), a[TCP].ack))
    ext6 = [p.summary() for p in out if p.haslayer(IPv6) and p[IPv6].nh != 6]
    check('answers to SYNs with extension headers carry none (next header TCP)',
          40005 in first and 40006 in first and not ext6, ext6)
    check('Routing header with segments left 1, fragment: no answer',
          40007 not in first and 40008 not in first)
    bad = [p.summary() for p in out if not cksums_ok(p)]
    check('all %d recorded TCP frames have correct IPv4/TCP checksums (scapy)' % len(out),
          len(out) >= 3 and not bad, bad[:3])

    # 3. two workers on a device without RSS: refused, and the log says why
    rx2 = ',rx_pcap=%s,tx_pcap=%s,tx_pcap=%s' % (empty, os.path.join(d, 'o2.pcap'),
                                                 os.path.join(d, 'o3.pcap'))
    rc, log, _ = run_server(server, d, empty, tx, lcores=('--lcores', '0@0,1@1,2@1'),
                            extra_vdev=rx2)
    msg = next((l for l in log.splitlines() if 'cannot do RSS' in l), '')
    print('two workers: %s' % msg)
    check('two workers on net_pcap: refused (exit code 1) with "cannot do RSS ... only one '
          'worker"', rc == 1 and 'only one worker can be used' in msg, log[-400:])
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
