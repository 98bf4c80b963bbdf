#!/usr/bin/python3
"""The http service for the endpoints behind TFO (suite tap, root): a rules
file with a connectivity check, a POST beacon, an OCSP responder and a
virtual host, on net_tap with curl and openssl as the clients.

    http_endpoints.py TFO_SERVER

Checks: byte ranges (206 byte-exact, 416, several ranges answered 200 in
full); /generate_204 over TFO (204, no body); virtual hosts by Host (any
case, with a port; an unknown host gets the default root); POST where a
rule allows it, 405 with Allow elsewhere, 425 when the POST came as TFO SYN
data; `openssl ocsp` against a tiny CA made here: the response prepared
with `openssl ocsp -index ... -respout` is served for the request over POST
(openssl ocsp -url; curl in the SYN: post_in_syn) and over GET (curl,
base64 in the path) and verifies;
the counters of each outcome; no bad checksum at the client.
"""
import base64
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, SERVER_V4, need_root  # noqa: E402

T = Checks()
RULES = """\
[path /generate_204]
status = 204
cache_control = no-store

[path /beacon]
status = 204
post = yes

[path /ocsp]
ocsp = ocsp
post_in_syn = yes

[host a.example]
root = www-a
"""


def sh(cmd, cwd):
    """A command in @cwd that must work; its stdout."""
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError('%s: %s' % (' '.join(cmd), r.stderr[-500:]))
    return r.stdout


def make_ca(d):
    """A CA, a leaf it signed, the leaf's OCSP request and the CA's answer
    (good), as openssl's own responder would give it. Returns the request."""
    ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
    sh(['openssl', 'req', '-x509'] + ec + ['-keyout', 'ca.key', '-out', 'ca.pem',
                                           '-subj', '/CN=tfo test CA', '-days', '2'], d)
    sh(['openssl', 'req'] + ec + ['-keyout', 'leaf.key', '-out', 'leaf.csr',
                                  '-subj', '/CN=leaf.example'], d)
    sh(['openssl', 'x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key',
        '-CAcreateserial', '-out', 'leaf.pem', '-days', '2'], d)
    serial = sh(['openssl', 'x509', '-in', 'leaf.pem', '-noout', '-serial'], d).strip().split('=')[1]
    with open(os.path.join(d, 'index.txt'), 'w') as f:
        f.write('V\t301231235959Z\t\t%s\tunknown\t/CN=leaf.example\n' % serial)
    sh(['openssl', 'ocsp', '-issuer', 'ca.pem', '-cert', 'leaf.pem', '-no_nonce',
        '-reqout', 'req.der'], d)
    sh(['openssl', 'ocsp', '-index', 'index.txt', '-rsigner', 'ca.pem', '-rkey', 'ca.key',
        '-CA', 'ca.pem', '-reqin', 'req.der', '-respout', 'resp.der'], d)
    req = open(os.path.join(d, 'req.der'), 'rb').read()
    name = base64.urlsafe_b64encode(req).decode().rstrip('=')
    os.mkdir(os.path.join(d, 'ocsp'))
    shutil.copy(os.path.join(d, 'resp.der'), os.path.join(d, 'ocsp', name))
    return req


def make_tree():
    d = tempfile.mkdtemp(prefix='tfo-endpoints.')
    for sub in ('www', 'www-a'):
        os.mkdir(os.path.join(d, sub))
    with open(os.path.join(d, 'www', 'big.bin'), 'wb') as f:
        f.write(os.urandom(100000))
    with open(os.path.join(d, 'www', 'page.txt'), 'w') as f:
        f.write('default page\n')
    with open(os.path.join(d, 'www-a', 'page.txt'), 'w') as f:
        f.write('host a page\n')
    with open(os.path.join(d, 'rules.ini'), 'w') as f:
        f.write(RULES)
    return d


def curl(bed, path, *args):
    """curl in the namespace: (status code, body bytes, stderr)."""
    r = bed.ns_run(['curl', '-sS', '--max-time', '10', '-o', '/dev/stdout', '-w', '\n%{http_code}']
                   + list(args) + ['http://%s%s' % (SERVER_V4, path)], check=False, text=False)
    out, _, code = r.stdout.rpartition(b'\n')
    return (int(code) if code.isdigit() else 0), out, r.stderr.decode(errors='replace')


def delta(before, after, name):
    return after.get(name, 0) - before.get(name, 0)


def main():
    need_root()
    for tool in ('curl', 'openssl'):
        if shutil.which(tool) is None:
            print('SKIP: %s is not installed' % tool)
            return 77
    server = os.path.abspath(sys.argv[1])
    d = make_tree()
    try:
        req = make_ca(d)
        big = open(os.path.join(d, 'www', 'big.bin'), 'rb').read()
        with Bed(server, ['--www', os.path.join(d, 'www'),
                          '--set', 'service http.rules=%s' % os.path.join(d, 'rules.ini')]) as bed:
            before, nbefore = bed.stats(), bed.nstat()
            # ranges
            code, body, err = curl(bed, '/big.bin', '-r', '1000-1999')
            T.check('Range 1000-1999: 206, the 1,000 bytes', code == 206 and body == big[1000:2000],
                    (code, len(body), err))
            code, body, err = curl(bed, '/big.bin', '-r', '-500', '--tcp-fastopen')
            T.check('Range -500 (suffix), TFO: 206, the last 500 bytes',
                    code == 206 and body == big[-500:], (code, len(body), err))
            code, body, err = curl(bed, '/big.bin', '-r', '200000-')
            T.check('Range past the end: 416', code == 416, (code, err))
            code, body, err = curl(bed, '/big.bin', '-r', '0-9,20-29')
            T.check('two ranges: 200 with the whole file', code == 200 and body == big, (code, len(body)))
            # connectivity check, twice: the second one in the SYN
            for i in (1, 2):
                code, body, err = curl(bed, '/generate_204', '--tcp-fastopen', '-D', '/dev/stderr')
                T.check('/generate_204 #%d over TFO: 204, no body' % i,
                        code == 204 and body == b'' and 'no-store' in err, (code, body[:40], err[-300:]))
            # virtual hosts
            code, body, err = curl(bed, '/page.txt', '-H', 'Host: A.Example:80')
            T.check('Host A.Example:80: a.example\'s root', code == 200 and body == b'host a page\n',
                    (code, body))
            code, body, err = curl(bed, '/page.txt', '-H', 'Host: other.example')
            T.check('an unknown Host: the default root', code == 200 and body == b'default page\n',
                    (code, body))
            # POST
            code, body, err = curl(bed, '/beacon', '--data', 'abc')
            T.check('POST /beacon (post = yes): 204', code == 204, (code, err))
            code, body, err = curl(bed, '/beacon', '--data', 'abc', '--tcp-fastopen')
            T.check('POST /beacon as TFO SYN data: 425 Too Early', code == 425, (code, err))
            code, body, err = curl(bed, '/page.txt', '--data', 'abc', '-D', '/dev/stderr')
            T.check('POST elsewhere: 405 with Allow: GET, HEAD',
                    code == 405 and 'Allow: GET, HEAD' in err, (code, err[-300:]))
            # OCSP over POST: openssl's own client, verified against the CA
            r = subprocess.run(['ip', 'netns', 'exec', bed.ns, 'openssl', 'ocsp', '-issuer', 'ca.pem',
                                '-cert', 'leaf.pem', '-no_nonce', '-CAfile', 'ca.pem',
                                '-url', 'http://%s/ocsp' % SERVER_V4, '-timeout', '10'],
                               cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=30)
            T.check('openssl ocsp -url (POST): Response verify OK, leaf good',
                    r.returncode == 0 and 'Response verify OK' in r.stdout
                    and 'leaf.pem: good' in r.stdout, r.stdout[-400:])
            # OCSP over GET: the request's base64 in the path (RFC 6960 A.1)
            b64 = urllib.parse.quote(base64.b64encode(req).decode(), safe='')
            code, body, err = curl(bed, '/ocsp/' + b64, '--tcp-fastopen')
            with open(os.path.join(d, 'get.der'), 'wb') as f:
                f.write(body)
            r = subprocess.run(['openssl', 'ocsp', '-respin', 'get.der', '-issuer', 'ca.pem',
                                '-cert', 'leaf.pem', '-CAfile', 'ca.pem', '-no_nonce'],
                               cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            T.check('GET /ocsp/BASE64: 200, the response verifies, leaf good',
                    code == 200 and r.returncode == 0 and 'Response verify OK' in r.stdout
                    and 'leaf.pem: good' in r.stdout, (code, r.stdout[-300:]))
            # OCSP POST as TFO SYN data: answered (post_in_syn = yes)
            code, body, err = curl(bed, '/ocsp', '--tcp-fastopen', '--data-binary',
                                   '@' + os.path.join(d, 'req.der'),
                                   '-H', 'Content-Type: application/ocsp-request')
            T.check('OCSP POST in the SYN (post_in_syn = yes): 200, the prepared response',
                    code == 200 and body == open(os.path.join(d, 'resp.der'), 'rb').read(),
                    (code, len(body), err))
            code, body, err = curl(bed, '/ocsp/MAMCAQc')
            T.check('GET /ocsp/ with an unknown request: 404', code == 404, code)
            after, nafter = bed.stats(), bed.nstat()
            for name, want in (('http_206', 2), ('http_416', 1), ('http_range_ignored', 1),
                               ('http_204', 3), ('http_425', 1), ('http_405', 1),
                               ('http_ocsp_hit', 3), ('http_ocsp_miss', 1)):
                T.check('%s + %d' % (name, want), delta(before, after, name) == want,
                        delta(before, after, name))
            T.check('no bad checksum at the client (TcpInCsumErrors)',
                    delta(nbefore, nafter, 'TcpInCsumErrors') == 0)
            T.check('server exits 0', bed.stop() == 0)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
