#!/usr/bin/python3
"""Checksum offloads on and off, on net_tap (suite tap, root).

    offload.py TFO_SERVER

net_tap offers IPv4/TCP checksum offload (emulated by the PMD). With
`offload = auto` tfo-server uses it, with `offload = off` it computes and
verifies every checksum in software; the start-up line says which. In both
modes: the TFO end-to-end subset (cookie, TFO open with the response in the
SYN-ACK, a request bigger than the SYN budget, IPv6, plain connect), every
checksum of every frame we sent is right (scapy recomputes them), and
frames with a bad TCP or IPv4 checksum are dropped and counted.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tfo_e2e  # noqa: E402
from tfotap import Bed, Checks, CLIENT_V4, SERVER_V4, SERVER_V6, need_root  # noqa: E402

ECHO = 7
T = Checks()
tfo_e2e.T = T


def bad_checksums_dropped(bed, tag):
    """A SYN with a wrong TCP checksum and one with a wrong IPv4 header checksum."""
    mac = bed.ns_run(['ip', 'neigh', 'show', SERVER_V4, 'dev', bed.iface]).stdout.split()
    mac = mac[mac.index('lladdr') + 1]
    before = bed.stats()
    code = ('from scapy.all import Ether, IP, TCP, sendp\n'
            'e = Ether(dst="%s")\n'
            'sendp(e/IP(src="%s", dst="%s")/TCP(sport=41000, dport=%d, flags="S", chksum=0x1234),'
            ' iface="%s", verbose=False)\n'
            'sendp(e/IP(src="%s", dst="%s", chksum=0x1234)/TCP(sport=41001, dport=%d, flags="S"),'
            ' iface="%s", verbose=False)\n'
            % (mac, CLIENT_V4, SERVER_V4, ECHO, bed.iface, CLIENT_V4, SERVER_V4, ECHO, bed.iface))
    bed.ns_run(['/usr/bin/python3', '-c', code])
    import time
    time.sleep(0.5)
    after = bed.stats()
    for name in ('drop_tcp_cksum', 'drop_ipv4_cksum'):
        T.check('%s a frame with a bad checksum is dropped: %s +1' % (tag, name),
                after.get(name, 0) - before.get(name, 0) == 1,
                after.get(name, 0) - before.get(name, 0))


def checksums_right(cap, tag):
    """Every frame from the server in @cap has correct IPv4 and TCP checksums."""
    from scapy.all import rdpcap, IP, IPv6, TCP
    n = bad = 0
    for p in rdpcap(cap.stop()):
        ip = p.getlayer(IP) or p.getlayer(IPv6)
        if ip is None or p.getlayer(TCP) is None or ip.src not in (SERVER_V4, SERVER_V6):
            continue
        n += 1
        q = ip.__class__(bytes(ip))
        want_tcp = q[TCP].chksum
        del q[TCP].chksum
        if isinstance(q, IP):
            want_ip = q.chksum
            del q.chksum
        r = q.__class__(bytes(q))
        if r[TCP].chksum != want_tcp or (isinstance(q, IP) and r.chksum != want_ip):
            bad += 1
    T.check('%s all %d TCP frames we sent have correct IPv4/TCP checksums' % (tag, n),
            n > 10 and bad == 0, (n, bad))


def run_mode(server, mode):
    tag = '[offload=%s]' % mode
    with Bed(server, ['--set', 'port net_tap0.offload=%s' % mode]) as bed:
        line = next((l for l in bed.log_text().splitlines() if 'rx checksum' in l), '')
        print('%s start-up line: %s' % (tag, line))
        want = 'offloaded' if mode == 'auto' else 'software (offload = off)'
        T.check('%s the start-up line says rx and tx checksums are %s' % (tag, want),
                'rx checksum %s' % want in line and 'tx checksum %s' % want in line, line)
        cap = bed.capture()
        tfo_e2e.learn_cookie(bed, SERVER_V4, tag=tag)
        tfo_e2e.tfo_transaction(bed, SERVER_V4, tag=tag)
        r = bed.client(SERVER_V4, ECHO, '--line', '3000', '--expect-echo', timeout=10)
        T.check('%s 3000-byte request (bigger than the SYN budget) served byte-exact' % tag,
                r['ok'] and r['received'] == 3000, r)
        tfo_e2e.learn_cookie(bed, SERVER_V6, tag=tag + '[v6]')
        tfo_e2e.tfo_transaction(bed, SERVER_V6, tag=tag + '[v6]')
        r = bed.client(SERVER_V4, ECHO, '--mode', 'plain', '--data', 'plain\\n', '--expect-echo')
        T.check('%s plain connect served' % tag, r['ok'], r)
        checksums_right(cap, tag)
        bad_checksums_dropped(bed, tag)
        T.check('%s server stops with exit code 0' % tag, bed.stop() == 0)


if __name__ == '__main__':
    need_root()
    srv = os.path.abspath(sys.argv[1])
    tfo_e2e.server = srv
    for m in ('auto', 'off'):
        print('== offload = %s' % m)
        sys.stdout.flush()
        try:
            run_mode(srv, m)
        except Exception as e:
            T.check('offload=%s ran without exception' % m, False, repr(e))
    sys.exit(T.done())
