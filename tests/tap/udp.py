#!/usr/bin/python3
"""UDP datagrams answered by a service with `udp = on` (suite tap, root).

    udp.py TFO_SERVER

tfo-server on net_tap with [service echo] udp = on (port 7); the Linux
kernel's UDP sockets in the namespace are the clients:
- a datagram to port 7 gets its echo, over IPv4 and IPv6, small and
  near the MTU; a datagram to port 80 (http: TCP only) and to port 9 (no
  service) gets no answer and is counted (drop_l4_proto), as before UDP
  was served;
- a datagram with a wrong UDP checksum gets no answer (drop_udp_cksum);
- the counters: svc_udp_rx, svc_udp_tx, the echo service's own
  (echo_datagrams; echo_lines and echo_lines_in_syn over TCP, the second
  connection's line in its SYN) in /tfo/stats, the stats line and tfo-prom
  (tfo_service_events_total{service,counter}); the accounting balances;
- the same with offload = off (software UDP checksums) for IPv4 and IPv6.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, SERVER_V4, SERVER_V6, need_root  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
PROM = os.path.join(ROOT, 'scripts', 'usertools', 'tfo-prom')
T = Checks()

# One UDP exchange in the namespace: prints the answer's hex, or "none".
CLIENT = r'''
import socket, sys
host, port, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fam = socket.AF_INET6 if ':' in host else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.settimeout(float(sys.argv[4]))
msg = (b'udp %d ' % size + b'x' * size)[:size]
s.sendto(msg, (host, port))
try:
    data, _ = s.recvfrom(65535)
    print('echo' if data == msg else 'other ' + data[:40].hex())
except socket.timeout:
    print('none')
'''

# A datagram with a wrong checksum (scapy: /usr/bin/python3 has it).
BAD_CKSUM = r'''
import sys
from scapy.all import IP, UDP, Raw, send
send(IP(dst=sys.argv[1]) / UDP(sport=40000, dport=7, chksum=0x1234) / Raw(b'bad sum\n'),
     verbose=False)
'''


def udp(bed, host, port, size, wait=2.0):
    r = bed.ns_run(['/usr/bin/python3', '-c', CLIENT, host, str(port), str(size), str(wait)],
                   check=False)
    return r.stdout.strip() or r.stderr.strip()[-200:]


def run(server, offload):
    args = ['--set', 'service echo.udp=on', '--set', 'server.stats_period=1']
    if not offload:
        args += ['--set', 'port net_tap0.offload=off']
    tag = 'offload auto' if offload else 'offload off'
    with Bed(server, args) as bed:
        before = bed.stats()
        for host in (SERVER_V4, SERVER_V6):
            got = udp(bed, host, 7, 20)
            T.check('%s: %s port 7, 20 bytes: echoed' % (tag, host), got == 'echo', got)
        # the largest datagram the MTU (1500) carries whole
        T.check('%s: IPv4 port 7, 1472 bytes: echoed' % tag,
                udp(bed, SERVER_V4, 7, 1472) == 'echo')
        T.check('%s: IPv6 port 7, 1452 bytes: echoed' % tag,
                udp(bed, SERVER_V6, 7, 1452) == 'echo')
        if not offload:
            after = bed.stats()
            T.check('%s: svc_udp_tx counts the 4 answers' % tag,
                    after['svc_udp_tx'] - before['svc_udp_tx'] == 4,
                    after['svc_udp_tx'])
            return
        for port in (80, 9):
            T.check('port %d (no udp = on): no answer' % port,
                    udp(bed, SERVER_V4, port, 20, 1.0) == 'none')
        bed.ns_run(['/usr/bin/python3', '-c', BAD_CKSUM, SERVER_V4], check=False)
        for i in range(2):	# TCP: the second line rides in the SYN
            bed.client(SERVER_V4, 7, '--data', 'tcp %d\n' % i, '--expect-echo')
        after = bed.stats()

        def d(k):
            return after.get(k, 0) - before.get(k, 0)
        T.check('svc_udp_rx 4, svc_udp_tx 4', d('svc_udp_rx') == 4 and d('svc_udp_tx') == 4,
                (d('svc_udp_rx'), d('svc_udp_tx')))
        T.check('ports 80 and 9: drop_l4_proto +2', d('drop_l4_proto') == 2,
                d('drop_l4_proto'))
        T.check('wrong checksum: drop_udp_cksum +1', d('drop_udp_cksum') == 1,
                d('drop_udp_cksum'))
        T.check('echo_datagrams 4 (the service\'s own counter in /tfo/stats)',
                d('echo_datagrams') == 4, d('echo_datagrams'))
        T.check('echo_lines 2, echo_lines_in_syn 1 (the TFO connection\'s)',
                d('echo_lines') == 2 and d('echo_lines_in_syn') == 1,
                (d('echo_lines'), d('echo_lines_in_syn')))
        T.check('accounting balances', after.get('accounting_ok') == 1 and
                after.get('rx_unaccounted') == 0, (after.get('rx_unaccounted'),))
        # every page's services (http's service counters follow echo's,
        # so echo's need not be on the last page)
        services = bed.counters()[1]
        T.check('/tfo/counters: its pages name echo_datagrams\' service',
                services.get('echo_datagrams') == 'echo', services)
        r = subprocess.run(['/usr/bin/python3', PROM, '--file-prefix', bed.prefix],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
        T.check('tfo-prom: tfo_service_events_total{service="echo",counter="echo_datagrams"}',
                'tfo_service_events_total{service="echo",counter="echo_datagrams"}' in r.stdout,
                [ln for ln in r.stdout.splitlines() if 'echo' in ln][:6] or r.stderr[-300:])
        lines = [ln for ln in bed.log_text().splitlines() if ln.startswith('stats:')]
        # a service counter is on the line only in a second it moved
        moved = [ln for ln in lines if ' echo_datagrams=' in ln]
        T.check('a stats line of a busy second ends with the echo counters that moved',
                moved and moved[-1].split()[-1].startswith('echo_datagrams=') and
                moved[-1].split()[-2].startswith(('echo_', 'pending=', 'nombuf=', 'fill_empty=')),
                lines[-3:] if lines else 'no stats line')


def main():
    need_root()
    server = sys.argv[1]
    run(server, True)
    run(server, False)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
