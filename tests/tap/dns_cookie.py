#!/usr/bin/python3
"""DNS COOKIEs of the dns service (suite tap, root).

    dns_cookie.py TFO_SERVER

tfo-server serves tests/dns/example.org.zone on net_tap with `udp = on`,
`cookies = on` and a key file as cookie_secret_file. Checks:
  - kdig +cookie (UDP and TCP): a server cookie comes back with the
    answer; sent back (+cookie=CLIENTSERVER) it verifies: NOERROR and the
    same cookie echoed (dns_cookie_valid counts it);
  - a bogus server cookie: over UDP BADCOOKIE with a fresh cookie
    (kdig +nobadcookie shows it), over TCP the answer and a fresh cookie;
  - raw UDP queries with a COOKIE option of 5 and 41 bytes: FORMERR;
  - the counters dns_cookie_* and dns_rcode_badcookie in /tfo/stats.
Namespace and prefixes carry "dck". Skips (77) without root or kdig.
"""
import os
import re
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, SERVER_V4, SERVER_V6, need_root, udp_ask  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ZONE = os.path.normpath(os.path.join(HERE, '..', 'dns', 'example.org.zone'))
T = Checks()
KEY = '00112233-44556677-8899aabb-ccddeeff\n'


def kdig(bed, *args):
    r = bed.ns_run(['kdig', '+time=2', '+retry=0'] + list(args), check=False)
    return r.stdout + r.stderr


def cookie_of(out):
    """(hex, verdict) of kdig's `; COOKIE: HEX (good)` line, or (None, '')."""
    m = re.search(r'COOKIE: ([0-9A-Fa-f]+)(?: \((\w+)\))?', out)
    return (m.group(1).lower(), m.group(2) or '') if m else (None, '')


def status_of(out):
    m = re.search(r'status: (\w+)', out)
    return m.group(1) if m else None


def raw_udp(bed, opt_data):
    """www.example.org A with EDNS and a COOKIE of opt_data; the rcode
    (with the OPT's extended bits), via python in the namespace."""
    q = struct.pack('>HHHHHH', 0x4242, 0x0100, 1, 0, 0, 1)
    q += b'\x03www\x07example\x03org\x00' + struct.pack('>HH', 1, 1)
    opt = struct.pack('>HH', 10, len(opt_data)) + opt_data
    q += b'\x00' + struct.pack('>HHIH', 41, 1232, 0, len(opt)) + opt
    a = udp_ask(bed, q, SERVER_V4)
    if a is None or len(a) < 12:
        return None
    rcode = a[3] & 0x0f
    # the OPT is the last record; its TTL's first byte is the extended rcode
    i = a.rfind(b'\x00\x00\x29')
    if i > 0 and i + 11 <= len(a):
        rcode |= a[i + 5] << 4
    return rcode


def main():
    need_root()
    if shutil.which('kdig') is None:
        print('SKIP: kdig not installed (scripts/setup.sh installs knot-dnsutils)')
        return 77
    server = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix='tfo-dck.')
    key = os.path.join(tmp, 'dns.key')
    with open(key, 'w') as f:
        f.write(KEY)
    os.chmod(key, 0o600)
    args = ['--set', 'service dns.port=53', '--set', 'service dns.zone=example.org:' + ZONE,
            '--set', 'service dns.udp=on', '--set', 'service dns.cookies=on',
            '--set', 'service dns.cookie_secret_file=' + key]
    eal = ['-l', '0-1', '--no-huge', '-m', '256', '--no-shconf', '--no-pci',
           '--file-prefix', 'tfodck%d' % os.getpid()]
    try:
        with Bed(server, args, name='tfodck%d' % os.getpid(), eal=eal) as bed:
            T.check('the log names the key the cookies are made with',
                    'cookies on, made with key ' in bed.log_text(), bed.log_text()[-600:])
            cc = '0123456789abcdef'
            for proto, flag in (('udp', '+notcp'), ('tcp', '+tcp')):
                out = kdig(bed, '@' + SERVER_V4, flag, '+cookie=' + cc, 'www.example.org', 'A')
                full, _ = cookie_of(out)
                T.check('%s: kdig +cookie: NOERROR and a server cookie of 16 bytes' % proto,
                        status_of(out) == 'NOERROR' and full is not None and
                        len(full) == 48 and full.startswith(cc) and full[16:18] == '01',
                        out)
                if full is None:
                    continue
                out = kdig(bed, '@' + SERVER_V4, flag, '+cookie=' + full, 'www.example.org',
                           'A')
                back, verdict = cookie_of(out)
                # ours and young: echoed as it was sent (a fresh one would
                # mean it did not verify); kdig 3.2 prints no verdict here
                T.check('%s: the cookie sent back: NOERROR, echoed, not "bad"' % proto,
                        status_of(out) == 'NOERROR' and back == full and
                        verdict != 'bad', out)
            bogus = cc + '01000000' + '5cf79f11' + '1f8130c3eee29480'
            out = kdig(bed, '@' + SERVER_V4, '+notcp', '+nobadcookie', '+cookie=' + bogus,
                       'www.example.org', 'A')
            fresh, _ = cookie_of(out)
            T.check('udp: a bogus server cookie: BADCOOKIE with a fresh cookie',
                    status_of(out) == 'BADCOOKIE' and fresh is not None and
                    fresh != bogus and fresh.startswith(cc), out)
            out = kdig(bed, '@' + SERVER_V4, '+tcp', '+cookie=' + bogus, 'www.example.org', 'A')
            fresh, _ = cookie_of(out)
            T.check('tcp: a bogus server cookie: the answer with a fresh cookie',
                    status_of(out) == 'NOERROR' and 'ANSWER: 0' not in out and
                    fresh is not None and fresh != bogus, out)
            out = kdig(bed, '@' + SERVER_V6, '+notcp', '+cookie=' + cc, 'www.example.org',
                       'AAAA')
            T.check('udp over IPv6: a server cookie', cookie_of(out)[0] is not None, out)
            for n in (5, 41):
                rc = raw_udp(bed, bytes(range(1, n + 1)))
                T.check('udp: a COOKIE of %d bytes: FORMERR' % n, rc == 1, rc)
            T.check('udp: a COOKIE of 8 bytes: NOERROR', raw_udp(bed, bytes(8)) == 0)
            st = bed.stats()
            svc = st.get('svc', st)
            for name, least in (('dns_cookie_client_only', 3), ('dns_cookie_valid', 2),
                                ('dns_cookie_bad', 2), ('dns_cookie_formerr', 2),
                                ('dns_rcode_badcookie', 1)):
                v = svc.get(name, st.get(name))
                T.check('/tfo/stats %s >= %d' % (name, least), v is not None and v >= least,
                        v)
            T.check('server exits 0', bed.stop() == 0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
