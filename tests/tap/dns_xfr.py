#!/usr/bin/python3
"""Secondary zones of the dns service with knotd as the primary (suite tap, root).

    dns_xfr.py TFO_SERVER

tfo-server serves on net_tap in a private namespace with
`secondary = example.com:198.18.0.1@5300`; knotd (Debian's knot,
unprivileged, a configuration written here: the zone, `notify` to the
server's address 198.18.0.2, an ACL allowing it the transfer, journal
diffs for IXFR) runs on the tap's kernel side at 198.18.0.1:5300. Checks:
  - before the first transfer the zone answers SERVFAIL; then it arrives
    by AXFR and is served (kdig over UDP and TCP), dns_xfr_ok counts it;
    example.net comes from the primary's IPv6 address ([fd00:7f0::1]@5300);
  - the zone edited (serial + 1, a changed and an added name) and
    `knotc zone-reload`: knotd's NOTIFY is answered NOERROR, the change is
    served within 3 s, by IXFR (dns_xfr_notify, dns_xfr_ixfr);
  - NOTIFY from an address that is not the primary's (the kernel side's
    IPv6 one) and for a zone that is not a secondary: REFUSED, counted;
  - knotd replaced by a TCP listener that sends garbage, then by nothing:
    a NOTIFY starts a refresh that fails, the old zone keeps serving and
    dns_xfr_failed_* count it; the log has one line naming the primary.
Namespace and prefixes carry "dxf". Skips (77) without root, knotd or kdig.
"""
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import (Bed, Checks, CLIENT_V4, CLIENT_V6, SERVER_V4, SERVER_V6,  # noqa: E402
                    need_root, popen_as_nobody, stop_process, udp_ask)

HERE = os.path.dirname(os.path.abspath(__file__))
ZORG = os.path.normpath(os.path.join(HERE, '..', 'dns', 'example.org.zone'))
PRIMARY_PORT = 5300
T = Checks()

ZONE = '''$ORIGIN {origin}.
$TTL 300
@	SOA	ns1 hostmaster {serial} 3600 600 86400 300
	NS	ns1
ns1	A	198.18.60.53
www	A	198.18.60.{serial}
{extra}
'''


def write_zone(path, serial, extra='', origin='example.com'):
    with open(path, 'w') as f:
        f.write(ZONE.format(serial=serial, extra=extra, origin=origin))
    os.chmod(path, 0o644)


def kdig(bed, name, qtype='A', tcp=False):
    r = bed.ns_run(['kdig', '+time=2', '+retry=0', '+tcp' if tcp else '+notcp',
                    '@' + SERVER_V4, name, qtype], check=False)
    return r.stdout + r.stderr


def svc_stats(bed):
    st = bed.stats()
    out = dict(st)
    out.update(st.get('svc', {}))
    return out


def notify(bed, src_v6=False, zone='example.com'):
    """A NOTIFY for zone's SOA over UDP; the answer's (rcode, AA), or None."""
    q = struct.pack('>HHHHHH', 0x4e4e, 0x2400, 1, 0, 0, 0)
    for label in zone.split('.'):
        q += bytes([len(label)]) + label.encode()
    q += b'\x00' + struct.pack('>HH', 6, 1)
    a = udp_ask(bed, q, SERVER_V6 if src_v6 else SERVER_V4)
    if a is None or len(a) < 12:
        return None
    return a[3] & 0x0f, bool(a[2] & 0x04), (a[2] >> 3) & 0x0f


def served(bed, want, timeout):
    """Seconds until www.example.com A is @want (or None)."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        if want in kdig(bed, 'www.example.com'):
            return time.time() - t0
        time.sleep(0.1)
    return None


def start_knot(bed, tmp, zone):
    knotd = shutil.which('knotd') or '/usr/sbin/knotd'
    conf = os.path.join(tmp, 'knot.conf')
    with open(conf, 'w') as f:
        f.write('''server:
    rundir: "{d}"
    listen: [ {a}@{p}, {a6}@{p} ]
database:
    storage: "{d}"
log:
  - target: stderr
    any: info
remote:
  - id: tfo
    address: {srv}@53
  - id: tfo6
    address: {srv6}@53
acl:
  - id: tfo_xfr
    address: [ 198.18.0.0/24, fd00:7f0::/64 ]
    action: transfer
template:
  - id: default
    storage: "{d}"
    zonefile-sync: -1
    zonefile-load: difference
    journal-content: changes
zone:
  - domain: example.com
    file: "{z}"
    notify: tfo
    acl: tfo_xfr
  - domain: example.net
    file: "{z6}"
    notify: tfo6
    acl: tfo_xfr
'''.format(d=tmp, a=CLIENT_V4, a6=CLIENT_V6, p=PRIMARY_PORT, srv=SERVER_V4,
           srv6=SERVER_V6, z=zone, z6=zone + '.net'))
    os.chmod(tmp, 0o777)
    proc = popen_as_nobody(bed, [knotd, '-c', conf], os.path.join(tmp, 'knotd.log'))
    deadline = time.time() + 20
    while time.time() < deadline:
        if proc.poll() is not None:
            return None, conf, 'knotd exited: ' + \
                open(os.path.join(tmp, 'knotd.log')).read()[-500:]
        r = bed.ns_run(['kdig', '+time=1', '+retry=0', '-p', str(PRIMARY_PORT),
                        '@' + CLIENT_V4, 'example.com', 'SOA'], check=False)
        if 'NOERROR' in r.stdout:
            return proc, conf, None
        time.sleep(0.3)
    stop_process(proc)
    return None, conf, 'knotd did not answer in 20 s'


GARBAGE = '''
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((%r, %d))
s.listen(4)
while True:
    c, _ = s.accept()
    c.settimeout(2)
    try:
        c.recv(512)
        c.sendall(b"\\x00\\x20" + b"\\xc0" * 32)
    except OSError:
        pass
    c.close()
''' % (CLIENT_V4, PRIMARY_PORT)


def main():
    need_root()
    for tool in ('knotd', 'knotc', 'kdig'):
        if shutil.which(tool) is None and not os.path.exists('/usr/sbin/' + tool):
            print('SKIP: %s not installed (Debian packages knot, knot-dnsutils; '
                  'scripts/setup.sh)' % tool)
            return 77
    server = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix='tfo-dxf.')
    zone = os.path.join(tmp, 'example.com.zone')
    write_zone(zone, 1)
    write_zone(zone + '.net', 7, origin='example.net')
    args = ['--set', 'service dns.port=53', '--set', 'service dns.udp=on',
            '--set', 'service dns.zone=example.org:' + ZORG,
            '--set', 'service dns.secondary=example.com:%s@%d example.net:[%s]@%d'
            % (CLIENT_V4, PRIMARY_PORT, CLIENT_V6, PRIMARY_PORT),
            '--set', 'service dns.reload_drain=1']
    eal = ['-l', '0-1', '--no-huge', '-m', '256', '--no-shconf', '--no-pci',
           '--file-prefix', 'tfodxf%d' % os.getpid()]
    knot = garbage = None
    try:
        with Bed(server, args, name='tfodxf%d' % os.getpid(), eal=eal) as bed:
            out = kdig(bed, 'www.example.com')
            T.check('before the first transfer: SERVFAIL', 'SERVFAIL' in out, out[-300:])
            T.check('the file zone serves meanwhile',
                    'NOERROR' in kdig(bed, 'www.example.org'))
            knot, conf, why = start_knot(bed, tmp, zone)
            if knot is None:
                T.check('knotd starts as the primary', False, why)
                return T.done()
            # the first attempt found no primary: the retry (5 s) or knotd's
            # NOTIFY at its start brings the zone
            t = served(bed, '198.18.60.1', 20)
            T.check('the zone arrives by AXFR and is served (%s s)' % t, t is not None,
                    bed.log_text()[-800:])
            T.check('... over TCP too', '198.18.60.1' in kdig(bed, 'www.example.com',
                                                              tcp=True))
            t0 = time.time()
            while time.time() - t0 < 10 and '198.18.60.7' not in kdig(bed, 'www.example.net'):
                time.sleep(0.1)
            T.check('example.net arrives from the primary\'s IPv6 address and is served',
                    '198.18.60.7' in kdig(bed, 'www.example.net'), bed.log_text()[-800:])
            st = svc_stats(bed)
            T.check('dns_xfr_ok >= 2', st.get('dns_xfr_ok', 0) >= 2, st.get('dns_xfr_ok'))
            before = svc_stats(bed)
            # serial 2: www changes, a name is added
            write_zone(zone, 2, 'new\tA\t198.18.60.99')
            t0 = time.time()
            r = subprocess.run(['ip', 'netns', 'exec', bed.ns, 'knotc', '-c', conf,
                                'zone-reload', 'example.com'], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=30)
            T.check('knotc zone-reload', r.returncode == 0, r.stdout)
            t = served(bed, '198.18.60.2', 3 - (time.time() - t0))
            T.check('the change is served within 3 s of the reload (%s s)' %
                    (t and round(t + 0, 2)), t is not None, bed.log_text()[-800:])
            T.check('... the added name too', '198.18.60.99' in kdig(bed, 'new.example.com'))
            st = svc_stats(bed)
            T.check('knotd\'s NOTIFY answered and counted (dns_xfr_notify)',
                    st.get('dns_xfr_notify', 0) > before.get('dns_xfr_notify', 0),
                    (before.get('dns_xfr_notify'), st.get('dns_xfr_notify')))
            T.check('the change came by IXFR (dns_xfr_ixfr)',
                    st.get('dns_xfr_ixfr', 0) > before.get('dns_xfr_ixfr', 0),
                    bed.log_text()[-600:])
            T.check('the log names serial 2, the primary and IXFR',
                    'serial 2 from %s:%d by IXFR' % (CLIENT_V4, PRIMARY_PORT)
                    in bed.log_text(), bed.log_text()[-600:])
            # NOTIFY: the primary's address and zone only
            a = notify(bed)
            T.check('NOTIFY from the primary: NOERROR, AA, opcode NOTIFY',
                    a == (0, True, 4), a)
            a = notify(bed, src_v6=True)
            T.check('NOTIFY from another address: REFUSED', a is not None and a[0] == 5, a)
            a = notify(bed, zone='example.org')
            T.check('NOTIFY for a zone that is not a secondary: REFUSED',
                    a is not None and a[0] == 5, a)
            kdig(bed, 'www.example.com')
            st = svc_stats(bed)
            T.check('dns_xfr_notify_refused >= 2', st.get('dns_xfr_notify_refused', 0) >= 2,
                    st.get('dns_xfr_notify_refused'))
            # a broken primary: garbage, then nothing
            stop_process(knot)
            knot = None
            garbage = subprocess.Popen(['ip', 'netns', 'exec', bed.ns, '/usr/bin/python3',
                                        '-c', GARBAGE])
            time.sleep(0.5)
            before = svc_stats(bed)
            T.check('NOTIFY to the garbage primary answered', notify(bed) == (0, True, 4))
            time.sleep(1.5)
            T.check('garbage from the primary: the old zone serves',
                    '198.18.60.2' in kdig(bed, 'www.example.com'))
            st = svc_stats(bed)
            bad = sum(st.get('dns_xfr_failed_' + k, 0) - before.get('dns_xfr_failed_' + k, 0)
                      for k in ('message', 'truncated'))
            T.check('... and the failure is counted (dns_xfr_failed_message/truncated)',
                    bad >= 1, bad)
            T.check('... and logged naming the primary',
                    'transfer from %s:%d failed' % (CLIENT_V4, PRIMARY_PORT)
                    in bed.log_text(), bed.log_text()[-600:])
            stop_process(garbage, signal.SIGTERM)
            garbage = None
            before = svc_stats(bed)
            notify(bed)
            time.sleep(1.0)
            T.check('no primary at all: the old zone serves',
                    '198.18.60.2' in kdig(bed, 'www.example.com', tcp=True))
            st = svc_stats(bed)
            T.check('... dns_xfr_failed_connect counts it',
                    st.get('dns_xfr_failed_connect', 0) > before.get('dns_xfr_failed_connect',
                                                                      0),
                    (before.get('dns_xfr_failed_connect'), st.get('dns_xfr_failed_connect')))
            T.check('the server still runs', bed.proc.poll() is None)
    finally:
        if knot is not None:
            stop_process(knot)
        if garbage is not None:
            stop_process(garbage, signal.SIGTERM)
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
