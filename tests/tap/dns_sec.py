#!/usr/bin/python3
"""Pre-signed DNSSEC validated by unbound (suite tap, root).

    dns_sec.py TFO_SERVER

tfo-server serves tests/dns/signed.example.zone (NSEC) and
signed3.example.zone (NSEC3), signed by tests/dns/sign.sh, on net_tap with
`udp = on`. In the test's namespace:
  - knotd (as nobody) serves the signed child sub.signed.example on the
    tap's kernel side (198.18.0.1, the glue of ns.sub.signed.example), so
    a query below it takes the referral with DS from tfo-server;
  - unbound, on 127.0.0.1:5300 with a configuration written here
    (stub-zones to tfo-server, the zones' DS as trust anchors,
    val-log-level 2, its own temp dir), resolves and validates.
Checks AD=1 and the rcode for an answer, an NXDOMAIN, a NODATA, a
wildcard answer, a name below the signed delegation, the denial of DS at
an insecure delegation, and NSEC3 cases; that unbound logged no
validation failure; that dig +dnssec gets the RRSIGs straight from
tfo-server with DO echoed. Namespace and prefixes carry "dsec".
Skips (77) without root, unbound, knotd or kdig.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import (Bed, Checks, CLIENT_V4, SERVER_V4, need_root, popen_as_nobody,  # noqa: E402
                    stop_process)

HERE = os.path.dirname(os.path.abspath(__file__))
ZDIR = os.path.normpath(os.path.join(HERE, '..', 'dns'))
T = Checks()
UB_PORT = 5300


def kdig(bed, *args):
    r = bed.ns_run(['kdig', '+time=3', '+retry=1'] + list(args), check=False, timeout=40)
    return r.stdout + r.stderr


def status_of(out):
    m = re.search(r'status: (\w+)', out)
    return m.group(1) if m else None


def flags_of(out):
    m = re.search(r'Flags: ([a-z ]+);', out)
    return m.group(1).split() if m else []


def start_knot(bed, tmp):
    conf = os.path.join(tmp, 'knot.conf')
    zone = os.path.join(tmp, 'sub.signed.example.zone')
    shutil.copy(os.path.join(ZDIR, 'sub.signed.example.zone'), zone)
    os.chmod(zone, 0o644)
    with open(conf, 'w') as f:
        f.write('''server:
    rundir: "{d}"
    listen: {a}@53
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
  - domain: sub.signed.example
    file: "{z}"
'''.format(d=tmp, a=CLIENT_V4, z=zone))
    os.chmod(tmp, 0o777)
    # port 53 as nobody: a sysctl of the test's namespace only
    bed.ns_run(['sysctl', '-qw', 'net.ipv4.ip_unprivileged_port_start=53'])
    proc = popen_as_nobody(bed, [shutil.which('knotd'), '-c', conf],
                           os.path.join(tmp, 'knotd.log'))
    deadline = time.time() + 20
    while time.time() < deadline:
        if proc.poll() is not None:
            return None
        if status_of(kdig(bed, '@' + CLIENT_V4, 'sub.signed.example', 'SOA')) == 'NOERROR':
            return proc
        time.sleep(0.3)
    stop_process(proc)
    return None


def start_unbound(bed, tmp):
    anchors = os.path.join(tmp, 'anchors')
    with open(anchors, 'w') as f:
        for z in ('signed.example', 'signed3.example'):
            with open(os.path.join(ZDIR, z + '.ds')) as d:
                f.write(d.read())
    conf = os.path.join(tmp, 'unbound.conf')
    with open(conf, 'w') as f:
        f.write('''server:
    interface: 127.0.0.1@{p}
    port: {p}
    do-daemonize: no
    username: ""
    chroot: ""
    directory: "{d}"
    pidfile: "{d}/unbound.pid"
    use-syslog: no
    logfile: "{d}/unbound.log"
    verbosity: 1
    val-log-level: 2
    do-ip6: no
    access-control: 127.0.0.0/8 allow
    do-not-query-localhost: no
    qname-minimisation: no
    module-config: "validator iterator"
    trust-anchor-file: "{d}/anchors"
    root-hints: ""
stub-zone:
    name: "signed.example"
    stub-addr: {s}
stub-zone:
    name: "signed3.example"
    stub-addr: {s}
'''.format(p=UB_PORT, d=tmp, s=SERVER_V4))
    chk = subprocess.run(['unbound-checkconf', conf], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    T.check('unbound-checkconf accepts the configuration', chk.returncode == 0, chk.stdout)
    proc = subprocess.Popen(['ip', 'netns', 'exec', bed.ns, 'unbound', '-d', '-c', conf],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while time.time() < deadline:
        if proc.poll() is not None:
            return None
        out = kdig(bed, '@127.0.0.1', '-p', str(UB_PORT), 'signed.example', 'SOA')
        if status_of(out) is not None:
            return proc
        time.sleep(0.3)
    stop_process(proc)
    return None


CASES = [
    # (what, name, type, rcode, answer expected)
    ('an answer', 'www.signed.example', 'A', 'NOERROR', True),
    ('a CNAME chain', 'alias.signed.example', 'AAAA', 'NOERROR', True),
    ('an NXDOMAIN', 'nothere.signed.example', 'A', 'NXDOMAIN', False),
    ('a NODATA', 'www.signed.example', 'TXT', 'NOERROR', False),
    ('a NODATA at an empty non-terminal', 'ent.signed.example', 'A', 'NOERROR', False),
    ('a wildcard answer', 'x.wild.signed.example', 'A', 'NOERROR', True),
    ('a wildcard NODATA', 'x.wild.signed.example', 'MX', 'NOERROR', False),
    ('below a signed delegation (referral with DS)', 'host.sub.signed.example', 'A',
     'NOERROR', True),
    ('the DS of a signed delegation', 'sub.signed.example', 'DS', 'NOERROR', True),
    ('no DS at an insecure delegation', 'plain.signed.example', 'DS', 'NOERROR', False),
    ('NSEC3: an answer', 'www.signed3.example', 'A', 'NOERROR', True),
    ('NSEC3: an NXDOMAIN', 'a.nothere.signed3.example', 'A', 'NXDOMAIN', False),
    ('NSEC3: a NODATA', 'www.signed3.example', 'TXT', 'NOERROR', False),
    ('NSEC3: a wildcard answer', 'x.wild.signed3.example', 'A', 'NOERROR', True),
    ('NSEC3: no DS at an insecure delegation', 'plain.signed3.example', 'DS', 'NOERROR',
     False),
]


def main():
    need_root()
    for tool in ('unbound', 'knotd', 'kdig'):
        if shutil.which(tool) is None:
            print('SKIP: %s not installed (scripts/setup.sh installs unbound, knot and '
                  'knot-dnsutils)' % tool)
            return 77
    server = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix='tfo-dsec.')
    zones = ' '.join('%s:%s' % (z, os.path.join(ZDIR, z + '.zone'))
                     for z in ('signed.example', 'signed3.example'))
    args = ['--set', 'service dns.port=53', '--set', 'service dns.zone=' + zones,
            '--set', 'service dns.udp=on']
    eal = ['-l', '0-1', '--no-huge', '-m', '256', '--no-shconf', '--no-pci',
           '--file-prefix', 'tfodsec%d' % os.getpid()]
    knot = unbound = None
    try:
        with Bed(server, args, name='tfodsec%d' % os.getpid(), eal=eal) as bed:
            # straight from tfo-server: the signatures, DO echoed
            out = kdig(bed, '@' + SERVER_V4, '+dnssec', 'www.signed.example', 'A')
            T.check('kdig +dnssec: the A and its RRSIG, DO echoed',
                    status_of(out) == 'NOERROR' and re.search(r'RRSIG\s+A 13 3', out) and
                    re.search(r'Version: 0; flags: do;', out), out)
            out = kdig(bed, '@' + SERVER_V4, 'www.signed.example', 'A')
            T.check('kdig without DO: no RRSIG', 'RRSIG' not in out and
                    status_of(out) == 'NOERROR', out)
            knot = start_knot(bed, tmp)
            if knot is None:
                T.check('knotd serves sub.signed.example', False,
                        open(os.path.join(tmp, 'knotd.log')).read()[-500:])
                return T.done()
            unbound = start_unbound(bed, tmp)
            if unbound is None:
                T.check('unbound starts', False, open(os.path.join(tmp, 'unbound.log')).read()
                        [-800:] if os.path.exists(os.path.join(tmp, 'unbound.log')) else '')
                return T.done()
            for what, name, qtype, rcode, answer in CASES:
                out = kdig(bed, '@127.0.0.1', '-p', str(UB_PORT), '+dnssec', name, qtype)
                has_answer = re.search(r'ANSWER: [1-9]', out) is not None
                T.check('unbound: %s (%s %s): %s, AD=1' % (what, name, qtype, rcode),
                        status_of(out) == rcode and 'ad' in flags_of(out) and
                        has_answer == answer, out)
            log = ''
            if os.path.exists(os.path.join(tmp, 'unbound.log')):
                with open(os.path.join(tmp, 'unbound.log')) as f:
                    log = f.read()
            T.check('unbound logged no validation failure', 'validation failure' not in log,
                    log[-1500:])
            T.check('server exits 0', bed.stop() == 0)
    finally:
        for p in (unbound, knot):
            if p is not None:
                stop_process(p)
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
