#!/usr/bin/python3
"""The dns service's response rate limiting on net_tap (suite tap, root).

    dns_rrl.py TFO_SERVER

tfo-server serves a copy of tests/dns/example.org.zone with a ~1 KB TXT
(rrl.example.org) over UDP (`udp = on`) in a private namespace; a Python
sender there sends 2,000 queries for it with EDNS from one address in
about a second (the reflection attack of a spoofed source):
- `rate_limit = 20`: the answers carry at most 2x the query bytes (Knot's
  mod-rrl: 1.4-1.9x), TC=1 answers are sent (dns_rrl_slipped > 0) and
  the rest dropped (dns_rrl_dropped), dns_rrl_limited = slipped +
  dropped; the same query over TCP is still answered whole; the same
  flood over IPv6 (its own /56 buckets) limited the same way;
- the default (`rate_limit = 0`): every query answered, ~20x the bytes.
Prints both amplification figures.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, SERVER_V4, SERVER_V6  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ZONE = os.path.normpath(os.path.join(HERE, '..', 'dns', 'example.org.zone'))
NAME = 'rrl.example.org'
N, SECS = 2000, 1.0
T = Checks()

# In the namespace: N queries in SECS s (batches of 20), every answer
# drained as it comes; prints the byte counts as JSON.
SENDER = r'''
import json, select, socket, struct, sys, time
host, port, n, secs, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    float(sys.argv[4]), sys.argv[5]
qname = b''.join(bytes([len(l)]) + l.encode() for l in name.split('.')) + b'\0'
s = socket.socket(socket.AF_INET6 if ':' in host else socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE (root)
s.connect((host, port))
s.setblocking(False)
r = {'sent': 0, 'sent_bytes': 0, 'answers': 0, 'recv_bytes': 0, 'tc': 0, 'full': 0}

def drain():
    while True:
        try:
            d = s.recv(65535)
        except BlockingIOError:
            return
        r['answers'] += 1
        r['recv_bytes'] += len(d)
        if d[2] & 0x02:
            r['tc'] += 1
        elif struct.unpack('!H', d[6:8])[0] > 0:
            r['full'] += 1

t0 = time.time()
batch = 20
for b in range(n // batch):
    while True:
        drain()
        wait = t0 + secs * b * batch / n - time.time()
        if wait <= 0:
            break
        select.select([s], [], [], wait)
    for i in range(batch):
        m = struct.pack('!HHHHHH', (b * batch + i) & 0xffff, 0x0100, 1, 0, 0, 1) + qname + \
            struct.pack('!HH', 16, 1) + b'\0' + struct.pack('!HHBBHH', 41, 4096, 0, 0, 0, 0)
        try:
            s.send(m)
        except BlockingIOError:
            continue
        r['sent'] += 1
        r['sent_bytes'] += len(m)
end = time.time() + 1.0
while time.time() < end:
    select.select([s], [], [], 0.05)
    drain()
r['secs'] = round(time.time() - t0 - 1.0, 3)
print(json.dumps(r))
'''

# In the namespace: the query over TCP; prints TC and the answer count.
TCP = r'''
import socket, struct, sys
host, name = sys.argv[1], sys.argv[2]
qname = b''.join(bytes([len(l)]) + l.encode() for l in name.split('.')) + b'\0'
m = struct.pack('!HHHHHH', 7, 0x0100, 1, 0, 0, 0) + qname + struct.pack('!HH', 16, 1)
c = socket.create_connection((host, 53), timeout=10)
c.sendall(struct.pack('!H', len(m)) + m)
buf = b''
while len(buf) < 2 or len(buf) < 2 + struct.unpack('!H', buf[:2])[0]:
    d = c.recv(65536)
    if not d:
        break
    buf += d
d = buf[2:]
print('tc=%d an=%d len=%d' % ((d[2] >> 1) & 1, struct.unpack('!H', d[6:8])[0], len(d))
      if len(d) >= 12 else 'none')
'''


def flood(bed, host=SERVER_V4):
    r = bed.ns_run(['/usr/bin/python3', '-c', SENDER, host, '53', str(N), str(SECS), NAME],
                   check=False, timeout=60)
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {'error': r.stdout[-300:] + r.stderr[-300:]}


def run(server, zone, rate):
    eal = ['-l', '0-1', '--no-huge', '-m', '512', '--no-shconf', '--no-pci',
           '--file-prefix', 'tforrl%d' % os.getpid()]
    args = ['--set', 'service dns.port=53', '--set', 'service dns.udp=on',
            '--set', 'service dns.zone=example.org:' + zone]
    if rate is not None:
        args += ['--set', 'service dns.rate_limit=%d' % rate]
    tag = 'rate_limit = %s' % (rate if rate is not None else '0 (default)')
    with Bed(server, args, name='tforrl%d' % os.getpid(), eal=eal) as bed:
        before = bed.stats()
        r = flood(bed)
        after = bed.stats()
        if 'error' in r:
            T.check('%s: the sender ran' % tag, False, r['error'])
            return

        def d(k):
            return after.get(k, 0) - before.get(k, 0)
        amp = r['recv_bytes'] / max(r['sent_bytes'], 1)
        print('%s: %d queries (%d bytes) in %.2f s, %d answers (%d full, %d TC) '
              '%d bytes: amplification %.2fx; dns_rrl_limited %d slipped %d dropped %d' %
              (tag, r['sent'], r['sent_bytes'], r['secs'], r['answers'], r['full'], r['tc'],
               r['recv_bytes'], amp, d('dns_rrl_limited'), d('dns_rrl_slipped'),
               d('dns_rrl_dropped')))
        T.check('%s: %d queries sent' % (tag, N), r['sent'] == N, r['sent'])
        if rate is None:
            T.check('%s: every query answered in full' % tag,
                    r['full'] >= N * 0.99, (r['full'], r['answers']))
            T.check('%s: the answers carry >10x the query bytes' % tag, amp > 10, amp)
            T.check('%s: nothing limited' % tag, d('dns_rrl_limited') == 0,
                    d('dns_rrl_limited'))
            return
        T.check('%s: answers carry <= 2x the query bytes' % tag, amp <= 2.0, amp)
        T.check('%s: TC=1 slips received' % tag, r['tc'] > 0, r['tc'])
        T.check('%s: dns_rrl_slipped > 0' % tag, d('dns_rrl_slipped') > 0, d('dns_rrl_slipped'))
        T.check('%s: dns_rrl_dropped > 0 (slip 2)' % tag, d('dns_rrl_dropped') > 0,
                d('dns_rrl_dropped'))
        T.check('%s: limited = slipped + dropped' % tag,
                d('dns_rrl_limited') == d('dns_rrl_slipped') + d('dns_rrl_dropped'),
                (d('dns_rrl_limited'), d('dns_rrl_slipped'), d('dns_rrl_dropped')))
        T.check('%s: the drops are the engine\'s svc_udp_reject' % tag,
                d('svc_udp_reject') == d('dns_rrl_dropped'),
                (d('svc_udp_reject'), d('dns_rrl_dropped')))
        # the limit is per source prefix and class, not a cap on the server
        T.check('%s: at most burst + rate x time answered in full (per lcore)' % tag,
                r['full'] <= 2 * (rate + rate * (r['secs'] + 1.5)) + 2, r['full'])
        t = bed.ns_run(['/usr/bin/python3', '-c', TCP, SERVER_V4, NAME], check=False)
        T.check('%s: the same query over TCP right after: answered whole' % tag,
                t.stdout.strip().startswith('tc=0 an=1'), t.stdout.strip() or t.stderr[-200:])
        # IPv6: its own buckets (by /56), limited the same way
        before = bed.stats()
        r = flood(bed, SERVER_V6)
        after = bed.stats()
        if 'error' in r:
            T.check('%s: IPv6: the sender ran' % tag, False, r['error'])
        else:
            amp = r['recv_bytes'] / max(r['sent_bytes'], 1)
            print('%s, IPv6: %d queries (%d bytes), %d answers (%d full, %d TC) %d bytes: '
                  'amplification %.2fx' % (tag, r['sent'], r['sent_bytes'], r['answers'],
                                          r['full'], r['tc'], r['recv_bytes'], amp))
            T.check('%s: IPv6: answers carry <= 2x the query bytes, a burst answered' % tag,
                    amp <= 2.0 and r['full'] >= rate, (amp, r['full']))
            T.check('%s: IPv6: dns_rrl_slipped > 0' % tag, d('dns_rrl_slipped') > 0,
                    d('dns_rrl_slipped'))
        T.check('%s: server exits 0' % tag, bed.stop() == 0)


def main():
    if os.geteuid() != 0:
        print('SKIP: needs root (network namespaces, net_tap)')
        return 77
    for tool in ('ip',):
        if shutil.which(tool) is None:
            print('SKIP: %s not found' % tool)
            return 77
    server = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix='tforrl.')
    try:
        zone = os.path.join(tmp, 'example.org.zone')
        shutil.copy(ZONE, zone)
        # a ~1 KB TXT: four strings of 250 bytes
        with open(zone, 'a') as f:
            f.write('rrl\tIN\tTXT\t%s\n' % ' '.join('"%s"' % (c * 250) for c in 'abcd'))
        run(server, zone, None)
        run(server, zone, 20)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run(['ip', 'netns', 'del', 'tforrl%d' % os.getpid()],
                       stderr=subprocess.DEVNULL)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
