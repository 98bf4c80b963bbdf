#!/usr/bin/python3
"""The dns service against Knot DNS (suite tap, root).

    dns_e2e.py TFO_SERVER [DNS_ANSWER]

tfo-server serves tests/dns/*.zone on net_tap in a private namespace; knotd
(Debian's knot, unprivileged, a generated configuration) serves the same
files on the namespace's loopback. Checks:
  - kdig +tcp +fastopen twice: the second query rides in the SYN and its
    answer in tfo-server's SYN-ACK (a capture says so);
  - every kind of answer (exact, case echo, NODATA, NXDOMAIN, empty
    non-terminal, CNAME chains, wildcards, referral with glue, additional
    records, REFUSED, NOTIMP, AXFR, minimal ANY, EDNS, BADVERS, keepalive,
    truncation) sent as raw DNS messages over TCP and UDP to both servers:
    the answers must be the same bytes once the ID is zeroed (differences
    we must normalise are named in KNOWN below);
  - dig over TCP and UDP prints the same sections for both;
  - while the engine has no UDP path: the UDP answers of handle() itself
    (DNS_ANSWER, tests/dns_answer.c, udp_max 1472) against knotd's;
  - counters by rcode and qtype in /tfo/stats (once the engine reports
    service counters);
  - identity: both servers with the same nsid, identity and version:
    NSID asked and not, CH TXT id.server./hostname.bind./version.bind.,
    opcode 15 without a question, a TSIG of an unknown key, compared
    byte for byte (IDENT) and through kdig +nsid and kdig CH TXT;
  - a 9,048-byte TCP message (past [tcp] max_request): FORMERR, then EOF.
"""
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import (Bed, Checks, SERVER_V4, SERVER_V6, flows, need_root,  # noqa: E402
                    popen_as_nobody, stop_process)

HERE = os.path.dirname(os.path.abspath(__file__))
ZDIR = os.path.normpath(os.path.join(HERE, '..', 'dns'))
ZONES = [('example.org', os.path.join(ZDIR, 'example.org.zone')),
         ('example.net', os.path.join(ZDIR, 'example.net.zone')),
         # pre-signed (tests/dns/sign.sh): knotd serves them as they are
         ('signed.example', os.path.join(ZDIR, 'signed.example.zone')),
         ('signed3.example', os.path.join(ZDIR, 'signed3.example.zone'))]
KNOT_ADDR, KNOT_PORT = '127.0.0.1', 5353
IDLE_S = 2
NSID, IDENTITY, VERSION = 'fra-1', 'ns1.fra', 'tfo 1.0'
T = Checks()

A, NS, CNAME, SOA, PTR, HINFO, MX, TXT, AAAA, SRV, DS, AXFR, ANY, CAA = \
    1, 2, 5, 6, 12, 13, 15, 16, 28, 33, 43, 252, 255, 257

# (what, name, type, options): every answer kind of the issue
CASES = [
    ('exact A', 'www.example.org', A, {}),
    ('question case echoed', 'WwW.ExAmPlE.oRg', A, {}),
    ('AAAA', 'www.example.org', AAAA, {}),
    ('NODATA', 'www.example.org', MX, {}),
    ('NXDOMAIN', 'nope.example.org', A, {}),
    ('empty non-terminal', 'c.ent.example.org', A, {}),
    ('CNAME chain', 'chain.example.org', A, {}),
    ('CNAME query', 'alias.example.org', CNAME, {}),
    ('CNAME out of zone', 'outside.example.org', A, {}),
    ('CNAME to NXDOMAIN', 'deadend.example.org', A, {}),
    ('wildcard', 'foo.wild.example.org', A, {}),
    ('wildcard deeper, case', 'A.b.WILD.example.org', TXT, {}),
    ('wildcard NODATA', 'foo.wild.example.org', MX, {}),
    ('referral with glue', 'host.sub.example.org', A, {}),
    ('referral at the cut', 'sub.example.org', NS, {}),
    ('DS at the cut', 'sub.example.org', DS, {}),
    ('MX with additional', 'example.org', MX, {}),
    ('NS with additional', 'example.org', NS, {}),
    ('SRV with additional', '_sip._tcp.example.org', SRV, {}),
    ('SOA', 'example.org', SOA, {}),
    ('TXT', 'example.org', TXT, {}),
    ('TXT escapes', 'esc.example.org', TXT, {}),
    ('CAA', 'example.org', CAA, {}),
    ('PTR', 'ptr.example.org', PTR, {}),
    ('second zone', 'www.example.net', A, {}),
    ('REFUSED outside the zones', 'www.example.com', A, {}),
    ('REFUSED with EDNS (EDE 20)', 'www.example.com', A, {'edns': 1232}),
    ('ANY: one RRset', 'www.example.org', ANY, {}),
    ('ANY at HINFO', 'info.example.org', ANY, {}),
    ('EDNS', 'www.example.org', A, {'edns': 1232}),
    ('EDNS DO', 'www.example.org', A, {'edns': 1232, 'do': True}),
    ('EDNS NXDOMAIN', 'nope.example.org', A, {'edns': 4096}),
    ('BADVERS', 'www.example.org', A, {'edns': 1232, 'version': 1}),
    ('NOTIMP (opcode STATUS)', 'www.example.org', A, {'opcode': 2}),
    ('NOTIMP with EDNS', 'www.example.org', A, {'opcode': 2, 'edns': 1232}),
    ('class CH refused', 'www.example.org', A, {'class': 3}),
    ('class CH refused, EDNS', 'www.example.org', A, {'class': 3, 'edns': 1232}),
    ('big TXT', 'big.example.org', TXT, {'edns': 4096}),
    ('big TXT without EDNS', 'big.example.org', TXT, {}),
    ('big TXT, DO', 'big.example.org', TXT, {'edns': 4096, 'do': True}),
]
_Q = struct.pack('!HHHHHH', 0x4242, 0x0100, 1, 0, 0, 0) + b'\x03www\x07example\x03org\x00' + \
    struct.pack('!HH', A, 1)
FORMERR = [
    ('FORMERR: no question', '', 0, {'raw': _Q[:4] + b'\0\0' + _Q[6:12]}),
    ('FORMERR: question cut short', '', 0, {'raw': _Q[:-3]}),
    ('FORMERR: two questions', '', 0, {'raw': _Q[:4] + b'\0\2' + _Q[6:] + _Q[12:]}),
    ('FORMERR: an answer record', '', 0, {'raw': _Q[:6] + b'\0\1' + _Q[8:] +
                                          b'\xc0\x0c\0\1\0\1\0\0\0\1\0\4\1\2\3\4'}),
    ('FORMERR: two OPT', '', 0, {'raw': _Q[:10] + b'\0\2' + _Q[12:] +
                                 (b'\0\0\x29\4\xd0\0\0\0\0\0\0') * 2}),
]

# UDP payload sizes: truncation and the additional section dropped first
# DO=1 answers of the signed zones (and one DO=0): RRSIGs, NSEC/NSEC3 proofs
_DO = {'edns': 1232, 'do': True}
SIGNED = [
    ('signed, DO=0', 'www.signed.example', A, {'edns': 1232}),
    ('DO=1 answer', 'www.signed.example', A, _DO),
    ('DO=1 CNAME', 'alias.signed.example', A, _DO),
    ('DO=1 NXDOMAIN', 'nothere.signed.example', A, _DO),
    ('DO=1 NODATA', 'www.signed.example', TXT, _DO),
    ('DO=1 empty non-terminal', 'ent.signed.example', A, _DO),
    ('DO=1 wildcard', 'x.wild.signed.example', A, _DO),
    ('DO=1 wildcard NODATA', 'x.wild.signed.example', MX, _DO),
    ('DO=1 referral with DS', 'host.sub.signed.example', A, _DO),
    ('DO=1 insecure referral', 'host.plain.signed.example', A, _DO),
    ('DO=1 DS', 'sub.signed.example', DS, _DO),
    ('DO=1 DNSKEY', 'signed.example', 48, _DO),
    ('DO=1 NSEC3 NXDOMAIN', 'a.nothere.signed3.example', A, _DO),
    ('DO=1 NSEC3 NODATA', 'www.signed3.example', TXT, _DO),
    ('DO=1 NSEC3 wildcard', 'x.wild.signed3.example', A, _DO),
    ('DO=1 NSEC3 insecure referral', 'host.plain.signed3.example', A, _DO),
    ('DO=1 NSEC3 NXDOMAIN, UDP 512: TC', 'a.nothere.signed3.example', A,
     {'edns': 512, 'do': True}),
]
UDP_SIZES = [
    ('UDP 512, NS with additional', 'example.org', NS, {'edns': 512}),
    ('UDP 1232, big TXT', 'big.example.org', TXT, {'edns': 1232}),
    ('UDP 4096, big TXT', 'big.example.org', TXT, {'edns': 4096}),
    ('UDP payload below 512', 'www.example.org', A, {'edns': 100}),
]
# the same nsid, identity and version on both servers (not dns_answer's)
_TSIG = (b'\x02k1\x07example\x00' + struct.pack('!HHIH', 250, 255, 0, 33) +
         b'\x0bhmac-sha256\x00' + b'\x00\x00\x5f\x5e\x10\x01' + struct.pack('!HH', 300, 4) +
         b'\x01\x02\x03\x04' + struct.pack('!HHH', 0x4242, 0, 0))
IDENT = [
    ('NSID asked', 'www.example.org', A, {'edns': 1232, 'nsid': True}),
    ('NSID not asked', 'www.example.org', A, {'edns': 1232}),
    ('CH TXT id.server', 'id.server', TXT, {'class': 3}),
    ('CH TXT hostname.bind, EDNS', 'hostname.bind', TXT, {'class': 3, 'edns': 1232}),
    ('CH TXT version.bind', 'version.bind', TXT, {'class': 3}),
    ('CH TXT version.server', 'version.server', TXT, {'class': 3}),
    ('CH A id.server refused', 'id.server', A, {'class': 3}),
    ('NOTIMP: opcode 15, no question, every flag', '', 0,
     {'raw': struct.pack('!HHHHHH', 0x4242, 0x7ff0, 0, 0, 0, 0)}),
    ('TSIG, unknown key: NOTAUTH BADKEY', '', 0,
     {'raw': _Q[:10] + b'\0\1' + _Q[12:] + _TSIG}),
]
TCP_ONLY = [
    ('AXFR refused', 'example.org', AXFR, {}),
    ('edns-tcp-keepalive', 'www.example.org', A, {'edns': 1232, 'keepalive': True}),
]


def wire_name(name):
    out = b''
    for label in name.rstrip('.').split('.'):
        out += bytes([len(label)]) + label.encode()
    return out + b'\0'


def query(name, qtype, o):
    if 'raw' in o:
        return o['raw']
    flags = 0x0100 | (o.get('opcode', 0) << 11)  # RD
    ar = 1 if 'edns' in o else 0
    m = struct.pack('!HHHHHH', 0x4242, flags, 1, 0, 0, ar) + wire_name(name) + \
        struct.pack('!HH', qtype, o.get('class', 1))
    if 'edns' in o:
        opts = b'\x00\x0b\x00\x00' if o.get('keepalive') else b''
        opts += b'\x00\x03\x00\x00' if o.get('nsid') else b''
        m += b'\0' + struct.pack('!HHBBHH', 41, o['edns'], 0, o.get('version', 0),
                                 0x8000 if o.get('do') else 0, len(opts)) + opts
    return m


def zero_id(m):
    return b'\0\0' + m[2:] if m else m


# Differences from knotd we keep, normalised before the byte comparison:
#  - AXFR/IXFR: knotd answers NOTAUTH (9) when no ACL allows a transfer;
#    we answer REFUSED (5) as BIND and NSD do and as the issue asks: the
#    rcode nibble of ours is set to knotd's.
#  - edns-tcp-keepalive: knotd 3.2 does not answer the option; we do
#    (RFC 7828 3.3.2: a server that supports it answers a query that
#    carries it, over TCP, with its idle timeout): the option (6 bytes)
#    is cut from ours and the OPT's RDLENGTH set back to 0.
#  - a message whose question cannot be parsed (cut short, two
#    questions): knotd sends nothing; we answer FORMERR with the header
#    alone (RFC 1035 4.1.1), 12 bytes, no amplification. Knotd's silence
#    and our 12-byte FORMERR count as the same.
#  - CH TXT id.server. and the like: knotd 3.2 answers with AA=0; we set
#    AA (the issue asks it, as BIND does: the server is the authority
#    for its own identity): AA is cleared in ours.
SILENT = ('FORMERR: question cut short', 'FORMERR: two questions')
#  - a UDP answer too large for the client's size: knotd sends the records
#    that fit with TC=1; we send TC=1 with none (header, question, OPT),
#    as for every truncation (RFC 2181 9 allows both): compared as such.
TC_MINIMAL = ('DO=1 NSEC3 NXDOMAIN, UDP 512: TC',)


def normalise(what, ours):
    if what == 'AXFR refused' and len(ours) > 3 and ours[3] & 0xf == 5:
        ours = ours[:3] + bytes([(ours[3] & 0xf0) | 9]) + ours[4:]
    if what == 'edns-tcp-keepalive' and ours.endswith(b'\x00\x06\x00\x0b\x00\x02' +
                                                      struct.pack('!H', IDLE_S * 10)):
        ours = ours[:-8] + b'\x00\x00'
    if what.startswith('CH TXT') and len(ours) > 3 and ours[2] & 0x04:
        ours = ours[:2] + bytes([ours[2] & ~0x04]) + ours[3:]
    return ours


# --- run in the namespace: send raw queries, print raw answers ------------
def idle_main(addr, port):
    """One TCP query, then how long the server keeps the idle connection."""
    q = query('www.example.org', A, {})
    s = socket.create_connection((addr, port), timeout=15)
    s.sendall(struct.pack('!H', len(q)) + q)
    buf = b''
    while len(buf) < 2 or len(buf) < 2 + struct.unpack('!H', buf[:2])[0]:
        buf += s.recv(65536)
    t0 = time.time()
    try:
        while s.recv(65536):
            pass
        print(json.dumps({'closed_after': time.time() - t0}))
    except OSError as e:
        print(json.dumps({'error': str(e)}))
    return 0


def long_main(addr, port):
    """A 9,048-byte message (past [tcp] max_request 8192): what comes
    back before the connection ends, and how it ends."""
    q = query('www.example.org', A, {})
    m = q + b'\0' * (9046 - len(q))
    s = socket.create_connection((addr, port), timeout=15)
    got, end = b'', 'eof'
    try:
        s.sendall(struct.pack('!H', len(m)) + m)
    except OSError as e:
        end = 'send: ' + str(e)
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            got += b
    except OSError as e:
        end = str(e)
    print(json.dumps({'answer': got.hex(), 'end': end}))
    return 0


def pipeline_main(addr, port):
    """Three queries in one segment, then three more one byte at a time:
    the answers' IDs and names in order (RFC 7766 6.2.1.1)."""
    names = ['www.example.org', 'nope.example.org', 'big.example.org', 'mail.example.org',
             'foo.wild.example.org', 'example.org']
    msgs = []
    for i, n in enumerate(names):
        q = bytearray(query(n, TXT if n.startswith('big') else A, {}))
        q[0:2] = struct.pack('!H', 0x100 + i)
        msgs.append(struct.pack('!H', len(q)) + bytes(q))
    s = socket.create_connection((addr, port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(b''.join(msgs[:3]))
    for b in b''.join(msgs[3:]):
        s.sendall(bytes([b]))
    got, buf = [], b''
    while len(got) < len(names):
        d = s.recv(65536)
        if not d:
            break
        buf += d
        while len(buf) >= 2 and len(buf) >= 2 + struct.unpack('!H', buf[:2])[0]:
            n = struct.unpack('!H', buf[:2])[0]
            m, buf = buf[2:2 + n], buf[2 + n:]
            got.append([struct.unpack('!H', m[:2])[0], m[12:12 + len(wire_name(names[len(got)]))]
                        == wire_name(names[len(got)])])
    s.close()
    print(json.dumps(got))
    return 0


def client_main(addr, port, jobs):
    out = []
    for transport, hexq in json.loads(jobs):
        q = bytes.fromhex(hexq)
        try:
            if transport == 'tcp':
                s = socket.create_connection((addr, port), timeout=5)
                s.sendall(struct.pack('!H', len(q)) + q)
                buf = b''
                while len(buf) < 2 or len(buf) < 2 + struct.unpack('!H', buf[:2])[0]:
                    d = s.recv(65536)
                    if not d:
                        break
                    buf += d
                s.close()
                out.append(buf[2:].hex())
            else:
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.settimeout(3)
                s.sendto(q, (addr, port))
                out.append(s.recv(65536).hex())
                s.close()
        except OSError as e:
            out.append('error: %s' % e)
    print(json.dumps(out))
    return 0


def ask_all(bed, addr, port, jobs):
    r = bed.ns_run(['/usr/bin/python3', os.path.abspath(__file__), '--client', addr, str(port),
                    json.dumps([(t, q.hex()) for t, q in jobs])], check=False, timeout=60)
    try:
        res = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return ['error: ' + r.stderr[-300:]] * len(jobs)
    return [bytes.fromhex(x) if not x.startswith('error') else x for x in res]


# --- knotd ----------------------------------------------------------------
def start_knot(bed, tmp):
    knotd = shutil.which('knotd') or '/usr/sbin/knotd'
    if not os.path.exists(knotd):
        return None, 'knotd not installed (Debian package knot; scripts/setup.sh)'
    conf = os.path.join(tmp, 'knot.conf')
    zones = ''.join('  - domain: %s\n    file: "%s"\n' % z for z in ZONES)
    with open(conf, 'w') as f:
        f.write('''server:
    rundir: "{d}"
    listen: {a}@{p}
    tcp-idle-timeout: {idle}s
    udp-max-payload: 1232
    nsid: "{nsid}"
    identity: "{ident}"
    version: "{version}"
database:
    storage: "{d}"
log:
  - target: stderr
    any: warning
template:
  - id: default
    storage: "{d}"
    zonefile-sync: -1
    zonefile-load: whole
    journal-content: none
zone:
{z}'''.format(d=tmp, a=KNOT_ADDR, p=KNOT_PORT, idle=IDLE_S, z=zones, nsid=NSID,
              ident=IDENTITY, version=VERSION))
    os.chmod(tmp, 0o777)
    # unprivileged: knotd runs as nobody from the start
    proc = popen_as_nobody(bed, [knotd, '-c', conf], os.path.join(tmp, 'knotd.log'))
    deadline = time.time() + 20
    probe = [('udp', query('example.org', SOA, {}))]
    while time.time() < deadline:
        if proc.poll() is not None:
            return None, 'knotd exited: ' + open(os.path.join(tmp, 'knotd.log')).read()[-500:]
        r = ask_all(bed, KNOT_ADDR, KNOT_PORT, probe)
        if isinstance(r[0], bytes) and len(r[0]) > 12 and r[0][3] & 0xf == 0:
            return proc, None
        time.sleep(0.3)
    stop_process(proc)
    return None, 'knotd did not answer in 20 s'


# --- checks ---------------------------------------------------------------
def handle_answers(tool, jobs):
    """handle() without the engine (tests/dns_answer.c)."""
    zones = ' '.join('%s:%s' % z for z in ZONES)
    r = subprocess.run([tool, zones, '1472'], input=''.join('%s %s\n' % (t, q.hex())
                                                           for t, q in jobs),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    lines = [ln for ln in r.stdout.splitlines() if ln and not ln.startswith('tfo:')]
    lines = lines[-len(jobs):] if len(lines) >= len(jobs) else ['error'] * len(jobs)
    return [bytes.fromhex(x) if x not in ('none', 'error') else x for x in lines]


def compare(bed, transport, cases, tool=None):
    jobs = [(transport, query(n, t, o)) for _, n, t, o in cases]
    ours = handle_answers(tool, jobs) if tool else ask_all(bed, SERVER_V4, 53, jobs)
    theirs = ask_all(bed, KNOT_ADDR, KNOT_PORT, jobs)
    for (what, n, t, o), a, b in zip(cases, ours, theirs):
        if what in SILENT:
            T.check('[%s] %s: FORMERR, header only (knotd: no answer)' % (transport, what),
                    isinstance(a, bytes) and len(a) == 12 and a[3] & 0xf == 1
                    and b in (b'', 'error: timed out'), (a, b))
            continue
        if not isinstance(a, bytes) or not isinstance(b, bytes):
            T.check('[%s] %s: both answer' % (transport, what), False, (a, b))
            continue
        if what in TC_MINIMAL and transport == 'udp':
            T.check('[udp] %s: TC=1 and the rcode as knotd, no records (knotd: those '
                    'that fit)' % what, len(a) > 12 and len(b) > 12 and a[2] & 2 and
                    b[2] & 2 and a[3] == b[3] and a[6:10] == b'\0\0\0\0', (a.hex(), b.hex()))
            continue
        a = normalise(what, a)
        T.check('[%s%s] %s: the same bytes as knotd (%d)'
                % (transport, ', handle()' if tool else '', what, len(a)),
                zero_id(a) == zero_id(b),
                '\n  ours  %s\n  knotd %s' % (zero_id(a).hex(), zero_id(b).hex()))


def dig_sections(bed, addr, port, name, qtype, tcp):
    r = bed.ns_run(['dig', '+tcp' if tcp else '+notcp', '+norecurse', '+time=3', '+tries=2',
                    '-p', str(port), '@' + addr, name, qtype], check=False)
    keep = [ln for ln in r.stdout.splitlines()
            if ln and not ln.startswith((';; Query time', ';; SERVER', ';; WHEN', '; <<>>',
                                          ';; global', ';; Got answer', '; (1 server'))]
    # the ID differs by nature
    return [ln.split(', id:')[0] for ln in keep]


def kdig_fastopen(bed):
    for i in (1, 2):
        before = bed.nstat()
        cap = bed.capture()
        r = bed.ns_run(['kdig', '+tcp', '+fastopen', '+time=5', '@' + SERVER_V4,
                        'www.example.org', 'A'], check=False)
        pk = cap.packets()
        after = bed.nstat()
        T.check('kdig +tcp +fastopen #%d: NOERROR with the two A records' % i,
                r.returncode == 0 and 'NOERROR' in r.stdout and '198.18.53.80' in r.stdout
                and '198.18.53.81' in r.stdout, r.stdout[-400:] + r.stderr[-200:])
        if i != 2:
            continue
        fl = next(iter(flows(pk).values()), [])
        syn = next((p for p in fl if p['dir'] == 'c2s' and p['flags'] == 'S'), None)
        ans = next((p for p in fl if p['dir'] == 's2c'), None)
        T.check('kdig #2: its SYN carried the query (TFO data)',
                syn is not None and syn['len'] > 12 and b'\x03www\x07example\x03org' in syn['payload'],
                syn and syn['len'])
        T.check('kdig #2: TcpExtTCPFastOpenActive +1',
                after.get('TcpExtTCPFastOpenActive', 0) - before.get('TcpExtTCPFastOpenActive', 0) == 1)
        T.check('kdig #2: the answer is in our SYN-ACK',
                ans is not None and 'S' in ans['flags'] and 'A' in ans['flags'] and ans['len'] > 12
                and b'\xc6\x12\x35\x50' in ans['payload'], ans and (ans['flags'], ans['len']))


def kdig_ident(bed):
    """kdig +nsid and kdig CH TXT: what an operator types."""
    for who, addr, port in (('tfo-server', SERVER_V4, 53), ('knotd', KNOT_ADDR, KNOT_PORT)):
        r = bed.ns_run(['kdig', '+tcp', '+nsid', '+time=3', '-p', str(port), '@' + addr,
                        'www.example.org', 'A'], check=False)
        T.check('kdig +nsid @%s: NSID "%s"' % (who, NSID),
                r.returncode == 0 and 'NSID' in r.stdout and NSID in r.stdout,
                r.stdout[-400:] + r.stderr[-200:])
        for name, want in (('id.server', IDENTITY), ('version.bind', VERSION)):
            r = bed.ns_run(['kdig', '+tcp', '+time=3', '-p', str(port), '@' + addr,
                            '-c', 'CH', '-t', 'TXT', name], check=False)
            T.check('kdig CH TXT %s @%s: "%s"' % (name, who, want),
                    r.returncode == 0 and 'NOERROR' in r.stdout and '"%s"' % want in r.stdout,
                    r.stdout[-400:] + r.stderr[-200:])


def reload_check(bed, net):
    """SIGHUP reads the zones again: a name added to example.net is
    answered; a broken file is refused and the old set keeps serving."""
    before = bed.stats()
    with open(net, 'a') as f:
        f.write('new\tA\t198.18.53.12\n')
    bed.proc.send_signal(signal.SIGHUP)
    deadline = time.time() + 10
    a = None
    while time.time() < deadline:
        a = ask_all(bed, SERVER_V4, 53, [('tcp', query('new.example.net', A, {}))])[0]
        if isinstance(a, bytes) and a[3] & 0xf == 0 and a.endswith(b'\xc6\x12\x35\x0c'):
            break
        time.sleep(0.2)
    T.check('SIGHUP: a name added to a zone file is answered', isinstance(a, bytes)
            and a.endswith(b'\xc6\x12\x35\x0c'), a)
    T.check('SIGHUP: svc_reloads + 1',
            bed.stats().get('svc_reloads', 0) - before.get('svc_reloads', 0) == 1)
    with open(net, 'a') as f:
        f.write('bad\tIN\tLOC\t1 2 3\n')
    bed.proc.send_signal(signal.SIGHUP)
    deadline = time.time() + 10
    while time.time() < deadline and 'new zones refused' not in bed.log_text():
        time.sleep(0.2)
    T.check('SIGHUP with a broken file: refused with file:line',
            'example.net.zone:%d: type LOC not served' % len(open(net).read().splitlines())
            in bed.log_text(), bed.log_text()[-500:])
    a = ask_all(bed, SERVER_V4, 53, [('tcp', query('new.example.net', A, {}))])[0]
    T.check('SIGHUP with a broken file: the old set serves', isinstance(a, bytes)
            and a.endswith(b'\xc6\x12\x35\x0c'), a)
    # /tfo/reload answers every part in full: a telemetry string is cut
    # at 128 bytes, so a long part continues in entries starting "+ "
    r = bed.telemetry('/tfo/reload')
    parts = []
    for p in r.get('parts', []):
        if p.startswith('+ ') and parts:
            parts[-1] += p[2:]
        else:
            parts.append(p)
    reason = 'example.net.zone:%d: type LOC not served' % len(open(net).read().splitlines())
    T.check('/tfo/reload with a broken zone: error, the dns reason in full',
            r.get('result') == 'error' and any(reason in p for p in parts), r)
    T.check('/tfo/reload without a key file: "keys: none configured" first',
            parts[:1] == ['keys: none configured'], r)
    T.check('reloads without a key file count no key_reload_errors',
            bed.stats().get('key_reload_errors', 0) == 0)


def ns_json(bed, mode, on_error):
    """This file run as MODE against tfo-server in the namespace: the
    JSON of its last line, or on_error(its stderr's tail)."""
    r = bed.ns_run(['/usr/bin/python3', os.path.abspath(__file__), mode, SERVER_V4, '53'],
                   check=False, timeout=30)
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return on_error(r.stderr[-300:])


def main():
    need_root()
    for tool in ('kdig', 'dig'):
        if shutil.which(tool) is None:
            print('SKIP: %s not installed (scripts/setup.sh installs knot-dnsutils and '
                  'bind9-dnsutils)' % tool)
            return 77
    server = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix='tfo-knot.')
    # copies: knotd (as nobody) reads them wherever the tree is, and the
    # reload check changes example.net's
    for i, (origin, path) in enumerate(ZONES):
        ZONES[i] = (origin, os.path.join(tmp, os.path.basename(path)))
        shutil.copy(path, ZONES[i][1])
        os.chmod(ZONES[i][1], 0o644)
    net = ZONES[1][1]
    zones = ' '.join('%s:%s' % z for z in ZONES)
    args = ['--set', 'service dns.port=53', '--set', 'service dns.zone=' + zones,
            '--set', 'service dns.idle_timeout=%d' % IDLE_S,
            '--set', 'service dns.nsid=' + NSID, '--set', 'service dns.identity=' + IDENTITY,
            '--set', 'service dns.version=' + VERSION]
    knot = None
    udp_key = False
    if UDP:
        # `udp = on` needs the engine's UDP path (issue 26 section 2)
        r = subprocess.run([server, '--', '--set', 'service dns.port=53', '--set',
                            'service dns.zone=' + zones, '--set', 'service dns.udp=on',
                            '--print-config'], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if 'unknown key' in r.stdout:
            print('SKIP udp through tfo-server and dig +notcp: this tfo-server has no '
                  '`udp` key for services yet (the engine\'s UDP path); UDP is compared '
                  'through handle() (dns_answer) instead')
        else:
            udp_key = True
            args += ['--set', 'service dns.udp=on']
    try:
        with Bed(server, args, name='%s%d' % (os.environ.get('TFO_DNS_BED', 'tfodns'),
                                               os.getpid())) as bed:
            kdig_fastopen(bed)
            knot, why = start_knot(bed, tmp)
            if knot is None:
                print('SKIP knotd comparisons: %s' % why)
                T.check('server exits 0', bed.stop() == 0)
                return T.done() if T.failed else 77
            compare(bed, 'tcp', CASES + TCP_ONLY + FORMERR + IDENT + SIGNED)
            kdig_ident(bed)
            udp = UDP and udp_key
            if udp:
                probe = ask_all(bed, SERVER_V4, 53, [('udp', query('example.org', SOA, {}))])
                if not isinstance(probe[0], bytes):
                    # said loudly: the engine's UDP datagram path is another
                    # part of the issue; until it is there, TCP only
                    print('SKIP udp comparisons and dig +notcp: tfo-server does not answer '
                          'UDP on port 53 (the engine has no UDP path yet)')
                    udp = False
            if udp:
                compare(bed, 'udp', CASES + UDP_SIZES + FORMERR + IDENT + SIGNED)
            elif len(sys.argv) > 2:
                compare(bed, 'udp', CASES + UDP_SIZES, tool=os.path.abspath(sys.argv[2]))
            for what, n, t, o in CASES[:28]:
                tn = {v: k for k, v in globals().items() if isinstance(v, int) and k.isupper()
                      and len(k) <= 5}.get(t, str(t))
                for tcp in ((True, False) if udp else (True,)):
                    a = dig_sections(bed, SERVER_V4, 53, n, tn, tcp)
                    b = dig_sections(bed, KNOT_ADDR, KNOT_PORT, n, tn, tcp)
                    T.check('dig %s %s %s: as knotd' % ('+tcp' if tcp else '+notcp', n, tn),
                            a == b, '\n' + '\n'.join(a) + '\n----\n' + '\n'.join(b))
            for tcp in ((True, False) if udp else (True,)):
                a = dig_sections(bed, SERVER_V6, 53, 'www.example.org', 'AAAA', tcp)
                b = dig_sections(bed, KNOT_ADDR, KNOT_PORT, 'www.example.org', 'AAAA', tcp)
                T.check('dig %s over IPv6: as knotd' % ('+tcp' if tcp else '+notcp'), a == b,
                        '\n' + '\n'.join(a) + '\n----\n' + '\n'.join(b))
            st = bed.stats()
            if any(k.startswith('dns_') for k in st):
                T.check('dns_qtype_a counted', st.get('dns_qtype_a', 0) > 0)
                T.check('dns_rcode_nxdomain counted', st.get('dns_rcode_nxdomain', 0) > 0)
                T.check('dns_rcode_refused counted (outside the zones, AXFR)',
                        st.get('dns_rcode_refused', 0) >= 2)
                T.check('dns_qtype_axfr counted', st.get('dns_qtype_axfr', 0) >= 1)
                T.check('dns_zero_copy counted (big TXT over TCP)', st.get('dns_zero_copy', 0) >= 1)
                if udp:
                    T.check('dns_truncated counted (big TXT over UDP)',
                            st.get('dns_truncated', 0) >= 1)
            else:
                print('note: /tfo/stats has no dns_ counters yet (engine wiring not merged)')
            idle = ns_json(bed, '--idle', lambda err: {'error': err})
            T.check('idle_timeout = %d: an idle connection is closed after it (resp idle_ms)'
                    % IDLE_S, IDLE_S - 0.5 < idle.get('closed_after', 0) < IDLE_S + 3, idle)
            got = ns_json(bed, '--pipeline', lambda err: err)
            T.check('TCP: 3 queries in one segment and 3 sent byte by byte answered in order',
                    got == [[0x100 + i, True] for i in range(6)], got)
            got = ns_json(bed, '--long', lambda err: {'error': err})
            ans = bytes.fromhex(got.get('answer', ''))
            T.check('TCP: a 9,048-byte message gets FORMERR (header only), then EOF, no reset',
                    len(ans) == 14 and ans[:2] == b'\0\x0c' and ans[5] & 0xf == 1
                    and got.get('end') == 'eof', got)
            reload_check(bed, net)
            T.check('server exits 0', bed.stop() == 0)
    finally:
        if knot is not None:
            stop_process(knot)
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


UDP = os.environ.get('TFO_DNS_UDP', '1') == '1'

if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == '--pipeline':
        sys.exit(pipeline_main(sys.argv[2], int(sys.argv[3])))
    if len(sys.argv) > 1 and sys.argv[1] == '--long':
        sys.exit(long_main(sys.argv[2], int(sys.argv[3])))
    if len(sys.argv) > 1 and sys.argv[1] == '--idle':
        sys.exit(idle_main(sys.argv[2], int(sys.argv[3])))
    if len(sys.argv) > 1 and sys.argv[1] == '--client':
        sys.exit(client_main(sys.argv[2], int(sys.argv[3]), sys.argv[4]))
    sys.exit(main())
