#!/usr/bin/python3
"""The http service with real clients (suite tap, root): curl with and
without TFO fetches files from tfo-server on net_tap.

    http_e2e.py TFO_SERVER

Checks: the second curl --tcp-fastopen fetch's SYN carries the request and
the response starts in our SYN-ACK; bodies byte-exact (sha256) for a small
file and a 1 MiB one, over IPv4 and IPv6; curl without TFO; HEAD; 404;
keep-alive with two URLs on one connection.
"""
import hashlib
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, SERVER_V4, SERVER_V6, flows, need_root  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
T = Checks()


def make_root():
    root = tempfile.mkdtemp(prefix='tfo-www.')
    shutil.copy(os.path.join(HERE, '..', '..', 'config', 'www', 'index.html'), root)
    with open(os.path.join(root, 'small.txt'), 'wb') as f:
        f.write(b'a small object, served in the SYN-ACK\n' * 3)
    with open(os.path.join(root, 'big.bin'), 'wb') as f:
        f.write(os.urandom(1 << 20))
    return root


def sha(b):
    return hashlib.sha256(b).hexdigest()


def curl(bed, url, *args):
    """curl in the namespace; returns (rc, body bytes, stderr)."""
    r = bed.ns_run(['curl', '-sS', '--max-time', '10', '-o', '/dev/stdout'] + list(args) + [url],
                   check=False, text=False)
    return r.returncode, r.stdout, r.stderr.decode(errors='replace')


def main():
    need_root()
    server = os.path.abspath(sys.argv[1])
    root = make_root()
    files = {n: open(os.path.join(root, n), 'rb').read() for n in ('small.txt', 'big.bin', 'index.html')}
    try:
        with Bed(server, ['--www', root]) as bed:
            for host, tag in ((SERVER_V4, 'v4'), ('[%s]' % SERVER_V6, 'v6')):
                for name in ('small.txt', 'big.bin'):
                    for i in (1, 2):
                        before = bed.nstat()
                        cap = bed.capture()
                        rc, body, err = curl(bed, 'http://%s/%s' % (host, name), '--tcp-fastopen')
                        pk = cap.packets()
                        after = bed.nstat()
                        T.check('[%s] curl --tcp-fastopen #%d %s: byte-exact (%d bytes)'
                                % (tag, i, name, len(files[name])),
                                rc == 0 and sha(body) == sha(files[name]), (rc, len(body), err[-200:]))
                        if i != 2:
                            continue
                        fl = next(iter(flows(pk).values()), [])
                        syn = next((p for p in fl if p['dir'] == 'c2s' and p['flags'] == 'S'), None)
                        ans = next((p for p in fl if p['dir'] == 's2c'), None)
                        T.check('[%s] #2 %s: the SYN carried the GET' % (tag, name),
                                syn is not None and syn['payload'].startswith(b'GET /' + name.encode()),
                                syn and syn['len'])
                        T.check('[%s] #2 %s: TcpExtTCPFastOpenActive +1' % (tag, name),
                                after.get('TcpExtTCPFastOpenActive', 0) -
                                before.get('TcpExtTCPFastOpenActive', 0) == 1)
                        T.check('[%s] #2 %s: our SYN-ACK carries the start of the response' % (tag, name),
                                ans is not None and 'S' in ans['flags']
                                and ans['payload'].startswith(b'HTTP/1.1 200 OK'),
                                ans and ans['payload'][:16])
            rc, body, err = curl(bed, 'http://%s/small.txt' % SERVER_V4)
            T.check('curl without TFO: byte-exact', rc == 0 and body == files['small.txt'], err)
            rc, body, err = curl(bed, 'http://%s/big.bin' % SERVER_V4)
            T.check('curl without TFO, 1 MiB: byte-exact', rc == 0 and sha(body) == sha(files['big.bin']), err)
            rc, body, err = curl(bed, 'http://%s/' % SERVER_V4, '--tcp-fastopen')
            T.check('/ serves index.html', rc == 0 and body == files['index.html'], err)
            rc, head, err = curl(bed, 'http://%s/big.bin' % SERVER_V4, '-I', '--tcp-fastopen')
            T.check('HEAD: 200 with Content-Length and no body',
                    rc == 0 and head.startswith(b'HTTP/1.1 200 OK')
                    and (b'Content-Length: %d' % len(files['big.bin'])) in head
                    and head.endswith(b'\r\n\r\n'), head[:200])
            rc, body, err = curl(bed, 'http://%s/nosuch' % SERVER_V4, '--tcp-fastopen',
                                 '-w', '%{http_code}')
            T.check('404 for a missing file', rc == 0 and body.endswith(b'404'), body[-40:])
            before = bed.stats()
            cap = bed.capture()
            r = bed.ns_run(['curl', '-sS', '-v', '--max-time', '10', '-o', '/dev/null', '-o', '/dev/null',
                            'http://%s/small.txt' % SERVER_V4, 'http://%s/index.html' % SERVER_V4],
                           check=False)
            pk = cap.packets()
            after = bed.stats()
            syns = [p for p in pk if p['dir'] == 'c2s' and p['flags'] == 'S']
            T.check('keep-alive: two URLs, one connection (one SYN)',
                    r.returncode == 0 and len(syns) == 1, (r.returncode, len(syns)))
            T.check('keep-alive: curl re-used the connection', 'Re-using existing connection' in r.stderr
                    or 'Reusing existing' in r.stderr, r.stderr[-300:])
            T.check('keep-alive: two 200s counted',
                    after.get('http_200', 0) - before.get('http_200', 0) == 2)
            T.check('server exits 0', bed.stop() == 0)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
