#!/usr/bin/python3
"""Client programs nobody here wrote, against the default configuration
(suite tap, root; TAP output, so a case whose tool is missing counts as
skipped, not passed).

    real_clients.py TFO_SERVER KERNEL_TFO_CLIENT

tfo-server runs with the embedded default configuration (net_tap,
offload = auto), the echo service and the http service with --www pointing
at a temporary directory: the default page and files of 40, 101 (odd),
1200, 100000 and 1048576 bytes. Cases: curl HTTP/1.0, curl "Connection:
close", curl keep-alive with several URLs, curl -6, curl --tcp-fastopen
(the second fetch rides in the SYN), wget v4/v6, ab with and without -k,
wrk, h2load --h1, httping -F, python http.client (close and keep-alive),
socat and nc against echo, 500 concurrent kernel TFO connections.

Every case asserts what its tool can tell: byte-exact bodies (sha256 of
the file) or lengths, zero errors and zero non-2xx in the tool's own
report, and zero TcpInCsumErrors on the client side (nstat delta over the
case); a case with a capture also recomputes the TCP checksum of every
server segment. At exit the server's summary must say "accounting: ok".
Close-mode responses were sent with bad checksums on net_tap (issue 13,
defect 1): curl in HTTP/1.1 keep-alive never saw it. Load tools' requests
per second go to the log as figures, never as a pass condition.
TFO_RC_KEEP=DIR keeps the capture of every failed case in DIR.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, SERVER_V4, SERVER_V6, CLIENT_V4, CLIENT_V6, describe, flows, need_root  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
V6 = '[%s]' % SERVER_V6
# name -> size; None is the default page (config/www/index.html)
FILES = {'index.html': None, 'f40.txt': 40, 'f101.txt': 101, 'f1200.bin': 1200,
         'f100000.bin': 100000, 'f1m.bin': 1 << 20}
TOOL_PKG = {'curl': 'curl', 'wget': 'wget', 'ab': 'apache2-utils', 'wrk': 'wrk',
            'h2load': 'nghttp2-client', 'httping': 'httping', 'socat': 'socat',
            'nc': 'netcat-openbsd', 'tcpdump': 'tcpdump', 'nstat': 'iproute2'}


class Skip(Exception):
    pass


class Tap:
    """TAP test points; every line of diagnostics starts with '#'."""

    def __init__(self):
        self.n = 0
        self.failed = 0
        self.skipped = 0
        self.results = []     # (case, 'PASS'|'FAIL'|'SKIP', note)
        self.figures = []

    def diag(self, text):
        for line in str(text).splitlines() or ['']:
            print('# ' + line)
        sys.stdout.flush()

    def point(self, what, cond, detail=''):
        self.n += 1
        if cond:
            print('ok %d - %s' % (self.n, what))
        else:
            self.failed += 1
            print('not ok %d - %s' % (self.n, what))
            if detail != '':
                self.diag('  ' + str(detail)[:600])
        sys.stdout.flush()
        return bool(cond)

    def skip(self, what, reason):
        self.n += 1
        self.skipped += 1
        print('ok %d - %s # SKIP %s' % (self.n, what, reason))
        sys.stdout.flush()

    def finish(self):
        print('1..%d' % self.n)
        self.diag('---- summary: case, result ----')
        for case, res, note in self.results:
            self.diag('%-4s %s%s' % (res, case, (' (%s)' % note) if note else ''))
        for f in self.figures:
            self.diag('figure: ' + f)
        n_case = {r: sum(1 for _, x, _ in self.results if x == r) for r in ('PASS', 'FAIL', 'SKIP')}
        self.diag('cases: %d passed, %d failed, %d skipped; checks: %d, failed: %d'
                  % (n_case['PASS'], n_case['FAIL'], n_case['SKIP'], self.n, self.failed))
        return 0


T = Tap()


def sha(b):
    return hashlib.sha256(b).hexdigest()


def need(*tools):
    for t in tools:
        if shutil.which(t) is None:
            raise Skip('%s is not installed (Debian package %s; scripts/setup.sh installs it)'
                       % (t, TOOL_PKG.get(t, t)))


def make_root():
    root = tempfile.mkdtemp(prefix='tfo-www.')
    os.chmod(root, 0o755)
    shutil.copy(os.path.join(HERE, '..', '..', 'config', 'www', 'index.html'), root)
    for name, size in FILES.items():
        if size is None:
            continue
        with open(os.path.join(root, name), 'wb') as f:
            if name.endswith('.txt'):
                line = b'the quick brown fox jumps over the lazy dog 0123456789\n'
                f.write((line * (size // len(line) + 1))[:size])
            else:
                f.write(os.urandom(size))
    return root


def bad_server_csums(pcap):
    """(server segments, server segments whose TCP checksum is wrong, first
    bad ones described), recomputed by scapy over the whole segment. Only
    the connections the capture saw open (a client SYN) count: a late
    retransmission of an earlier connection is not this case's."""
    from scapy.all import rdpcap, IP, IPv6, TCP  # noqa: E402
    n = 0
    bad = []
    mine = set()
    for p in rdpcap(pcap):
        ip = p.getlayer(IP) or p.getlayer(IPv6)
        t = p.getlayer(TCP)
        if ip is None or t is None:
            continue
        if ip.src in (CLIENT_V4, CLIENT_V6) and t.flags.S and not t.flags.A:
            mine.add(t.sport)
        if ip.src not in (SERVER_V4, SERVER_V6) or t.dport not in mine:
            continue
        n += 1
        got = t.chksum
        q = ip.copy()
        del q[TCP].chksum
        want = q.__class__(bytes(q))[TCP].chksum
        # 0x0000 and 0xffff are the same one's complement zero: a
        # receiver's sum over the segment comes out right with either
        if got != want and {got, want} != {0, 0xffff}:
            bad.append('%s:%d > %d flags %s seq %d len %d csum 0x%04x (should be 0x%04x)'
                       % (ip.src, t.sport, t.dport, t.flags, t.seq, len(t.payload), got, want))
    return n, len(bad), bad[:6]


ODD_COUNTER = re.compile(r'drop|retrans|rto_|resend|timeout|dup_|fail|full|reject|_4\d\d|_5\d\d'
                         r'|rst_|challenge')


def server_stats(bed):
    """The server's total counters (flat), {} when telemetry fails."""
    try:
        return {k: v for k, v in bed.stats().items() if isinstance(v, int)}
    except (ValueError, KeyError, OSError, subprocess.SubprocessError):
        return {}


class Case:
    """One case: a name, the nstat TcpInCsumErrors delta around it and,
    with capture=True, a tcpdump whose server segments are checksummed."""

    def __init__(self, bed, name, capture=True):
        self.bed = bed
        self.name = name
        self.capture = capture
        self.cap = None
        self.failed0 = 0

    def __enter__(self):
        T.diag('==== %s' % self.name)
        self.failed0 = T.failed
        self.t0 = time.time()
        self.csum0 = self.bed.nstat().get('TcpInCsumErrors', 0)
        self.stats0 = server_stats(self.bed)
        if self.capture and shutil.which('tcpdump'):
            self.cap = self.bed.capture('tcp or icmp or icmp6 or arp')
        return self

    def __exit__(self, et, ev, tb):
        if et is Skip:
            if self.cap:
                self.cap.stop()
            T.skip(self.name, str(ev))
            T.results.append((self.name, 'SKIP', str(ev)))
            return True
        if et is not None and not issubclass(et, subprocess.TimeoutExpired):
            return False
        if et is not None:
            T.point('%s: finished in time' % self.name, False, str(ev))
        time.sleep(0.3)       # the client's last retransmissions and RSTs
        # the server's view, for the log: what went wrong on its side
        st = server_stats(self.bed)
        odd = ['%s +%d' % (k, st[k] - self.stats0.get(k, 0)) for k in sorted(st)
               if ODD_COUNTER.search(k) and st[k] != self.stats0.get(k, 0)]
        if odd:
            T.diag('server counters: ' + ', '.join(odd))
        csum = self.bed.nstat().get('TcpInCsumErrors', 0) - self.csum0
        T.point('%s: client TcpInCsumErrors +0' % self.name, csum == 0, '+%d' % csum)
        if self.cap:
            pcap = self.cap.stop()
            n, nbad, first = bad_server_csums(pcap)
            T.point('%s: all %d server segments on the wire have a right TCP checksum'
                    % (self.name, n), nbad == 0, '%d bad, e.g.\n%s' % (nbad, '\n'.join(first)))
            if T.failed != self.failed0:
                pk = self.cap.packets()
                fl = list(flows(pk).values())
                T.diag('wire: %d packets, %d connections; first connection:' % (len(pk), len(fl)))
                if fl:
                    T.diag('\n'.join(describe(fl[0]).splitlines()[:25]))
                nd = subprocess.run(['tcpdump', '-nn', '-r', pcap, 'icmp or icmp6 or arp'],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    text=True, timeout=30).stdout.splitlines()
                if nd:
                    T.diag('wire, ARP/ICMP (%d packets, first 20):' % len(nd))
                    T.diag('\n'.join(nd[:20]))
                keep = os.environ.get('TFO_RC_KEEP')
                if keep:
                    os.makedirs(keep, exist_ok=True)
                    dst = os.path.join(keep, re.sub(r'[^A-Za-z0-9_.-]+', '_', self.name) + '.pcap')
                    shutil.copy(pcap, dst)
                    T.diag('capture kept: %s' % dst)
        res = 'FAIL' if T.failed != self.failed0 else 'PASS'
        T.results.append((self.name, res, '%.1f s' % (time.time() - self.t0)))
        if res == 'FAIL':
            restart(self.bed, self.name)
        return True


def server_exit(bed, when):
    """Stop the server: it exits 0 with its accounting balanced."""
    rc = bed.stop()
    log = bed.log_text()
    T.point('server exits 0 (%s)' % when, rc == 0, rc)
    T.point('server summary at exit: accounting: ok (%s)' % when,
            re.search(r'^accounting: ok', log, re.M) is not None,
            '\n'.join(ln for ln in log.splitlines() if 'accounting' in ln)[-400:])
    return log


def restart(bed, after):
    """A failed case leaves connections the server keeps retransmitting
    (a bad checksum is never acked): they would count as the next case's
    TcpInCsumErrors. Restart the server so that every case starts clean."""
    T.diag('restarting tfo-server after the failed case')
    server_exit(bed, 'after ' + after)
    os.unlink(bed.log)
    bed.logf.close()
    bed.log = None
    bed.start()


def url(host, name):
    return 'http://%s/%s' % (host, name)


def curl(bed, tmp, urls, *args, max_time=8):
    """curl in the namespace, one output file per URL; (rc, [bodies], -w
    output, stderr)."""
    need('curl')
    outs = []
    cmd = ['curl', '-sS', '--max-time', str(max_time)] + list(args)
    for i, u in enumerate(urls):
        p = os.path.join(tmp, 'curl.%d' % i)
        if os.path.exists(p):
            os.unlink(p)
        outs.append(p)
        cmd += ['-o', p, u]
    t0 = time.time()
    r = bed.ns_run(cmd, check=False, timeout=max_time * len(urls) + 10)
    if time.time() - t0 > 2:
        T.diag('slow: curl %s took %.1f s' % (' '.join(urls), time.time() - t0))
    bodies = []
    for p in outs:
        try:
            with open(p, 'rb') as f:
                bodies.append(f.read())
        except OSError:
            bodies.append(b'')
    return r.returncode, bodies, r.stdout, r.stderr


def check_body(case, name, body, files, extra=''):
    want = files[name]
    return T.point('%s: %s byte-exact (%d bytes)%s' % (case, name, len(want), extra),
                   sha(body) == sha(want), 'got %d bytes' % len(body))


def curl_modes(bed, tmp, files):
    for mode, args in (('HTTP/1.0', ['--http1.0']),
                       ('Connection: close', ['-H', 'Connection: close'])):
        for name in FILES:
            cname = 'curl %s %s' % (mode, name)
            with Case(bed, cname):
                rc, bodies, out, err = curl(bed, tmp, [url(SERVER_V4, name)], *args,
                                            '-w', '%{http_code}')
                T.point('%s: exit 0, status 200' % cname, rc == 0 and out == '200',
                        (rc, out, err.strip()[-200:]))
                check_body(cname, name, bodies[0], files)


def curl_keepalive(bed, tmp, files):
    cname = 'curl keep-alive, %d URLs' % len(FILES)
    with Case(bed, cname):
        names = list(FILES)
        rc, bodies, out, err = curl(bed, tmp, [url(SERVER_V4, n) for n in names],
                                    '-w', '%{http_code} %{num_connects}\n')
        lines = out.split()
        codes = lines[0::2]
        conns = sum(int(x) for x in lines[1::2] if x.isdigit())
        T.point('%s: exit 0, every status 200' % cname,
                rc == 0 and codes == ['200'] * len(names), (rc, out, err.strip()[-200:]))
        T.point('%s: one connection for all' % cname, conns == 1, 'connections: %d' % conns)
        for n, b in zip(names, bodies):
            check_body(cname, n, b, files)


def curl_v6(bed, tmp, files):
    cname = 'curl -6'
    with Case(bed, cname):
        for name in FILES:
            rc, bodies, out, err = curl(bed, tmp, [url(V6, name)], '-6', '-w', '%{http_code}')
            T.point('%s %s: exit 0, status 200' % (cname, name), rc == 0 and out == '200',
                    (rc, out, err.strip()[-200:]))
            check_body(cname, name, bodies[0], files)


def curl_tfo(bed, tmp, files):
    for host, tag in ((SERVER_V4, 'v4'), (V6, 'v6')):
        for name in ('index.html', 'f101.txt'):
            cname = 'curl --tcp-fastopen %s %s' % (tag, name)
            with Case(bed, cname, capture=False):
                failed0 = T.failed
                for i in (1, 2):
                    before = bed.nstat()
                    cap = bed.capture('tcp')
                    rc, bodies, out, err = curl(bed, tmp, [url(host, name)], '--tcp-fastopen',
                                                '-w', '%{http_code}')
                    pk = cap.packets()
                    n, nbad, first = bad_server_csums(cap.path)
                    after = bed.nstat()
                    T.point('%s #%d: exit 0, status 200' % (cname, i), rc == 0 and out == '200',
                            (rc, out, err.strip()[-200:]))
                    check_body(cname, name, bodies[0], files, ' #%d' % i)
                    T.point('%s #%d: %d server segments, right TCP checksums' % (cname, i, n),
                            nbad == 0, '%d bad:\n%s' % (nbad, '\n'.join(first)))
                    if i == 1:
                        continue
                    syn = next((p for p in pk if p['dir'] == 'c2s' and p['flags'] == 'S'), None)
                    T.point('%s #2: the SYN carried the GET' % cname,
                            syn is not None and syn['payload'].startswith(b'GET /' + name.encode()),
                            syn and syn['len'])
                    T.point('%s #2: TcpExtTCPFastOpenActive +1' % cname,
                            after.get('TcpExtTCPFastOpenActive', 0) -
                            before.get('TcpExtTCPFastOpenActive', 0) == 1)
                    if T.failed != failed0:
                        fl = list(flows(pk).values())
                        if fl:
                            T.diag(describe(fl[0]))


def wget(bed, tmp, files):
    for host, tag in ((SERVER_V4, 'v4'), (V6, 'v6')):
        cname = 'wget %s' % tag
        with Case(bed, cname):
            need('wget')
            for name in FILES:
                p = os.path.join(tmp, 'wget.out')
                if os.path.exists(p):
                    os.unlink(p)
                r = bed.ns_run(['wget', '-q', '-S', '--timeout=5', '--tries=1', '-O', p,
                                url(host, name)], check=False, timeout=30)
                T.point('%s %s: exit 0, status 200' % (cname, name),
                        r.returncode == 0 and ' 200 OK' in r.stderr,
                        (r.returncode, r.stderr.strip()[-200:]))
                body = open(p, 'rb').read() if os.path.exists(p) else b''
                check_body(cname, name, body, files)


def ab(bed, files):
    for keep in (False, True):
        cname = 'ab -n 200 -c 4%s /' % (' -k' if keep else '')
        with Case(bed, cname):
            need('ab')
            cmd = ['ab', '-n', '200', '-c', '4', '-s', '5', '-r'] + (['-k'] if keep else []) + \
                [url(SERVER_V4, '')]
            r = bed.ns_run(cmd, check=False, timeout=60)
            o = r.stdout

            def num(label):
                m = re.search(r'^%s:\s+([\d.]+)' % re.escape(label), o, re.M)
                return float(m.group(1)) if m else None
            T.point('%s: exit 0' % cname, r.returncode == 0,
                    (r.returncode, (r.stderr + o).strip()[-300:]))
            T.point('%s: 200 complete requests' % cname, num('Complete requests') == 200,
                    num('Complete requests'))
            T.point('%s: 0 failed requests' % cname, num('Failed requests') == 0,
                    num('Failed requests'))
            T.point('%s: 0 non-2xx responses' % cname, num('Non-2xx responses') in (None, 0))
            T.point('%s: 0 write errors' % cname, num('Write errors') in (None, 0))
            T.point('%s: document length %d (ab checks lengths, not bytes)'
                    % (cname, len(files['index.html'])),
                    num('Document Length') == len(files['index.html']), num('Document Length'))
            if keep:
                T.point('%s: 200 keep-alive requests' % cname,
                        num('Keep-Alive requests') == 200, num('Keep-Alive requests'))
            rps = num('Requests per second')
            T.figures.append('%s: %s requests/s' % (cname, rps))
            T.diag('requests/s: %s' % rps)


WRK_LUA = r'''
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) bad = 0; n = 0 end
function response(status, headers, body)
  n = n + 1
  if status ~= 200 or #body ~= %d then bad = bad + 1 end
end
function done(summary, latency, requests)
  local b, m = 0, 0
  for _, t in ipairs(threads) do b = b + t:get("bad"); m = m + t:get("n") end
  io.write(string.format("checked %%d bad %%d\n", m, b))
end
'''


def wrk(bed, tmp, files):
    cname = 'wrk -d 2 -c 4 -t 1 /f1200.bin'
    with Case(bed, cname, capture=False):
        need('wrk')
        lua = os.path.join(tmp, 'check.lua')
        with open(lua, 'w') as f:
            f.write(WRK_LUA % len(files['f1200.bin']))
        r = bed.ns_run(['wrk', '-d', '2', '-c', '4', '-t', '1', '--timeout', '3', '-s', lua,
                        url(SERVER_V4, 'f1200.bin')], check=False, timeout=30)
        o = r.stdout
        T.point('%s: exit 0' % cname, r.returncode == 0, (r.returncode, r.stderr[-300:]))
        m = re.search(r'(\d+) requests in', o)
        reqs = int(m.group(1)) if m else 0
        T.point('%s: some requests done' % cname, reqs > 0, o[-300:])
        T.point('%s: no socket errors' % cname, 'Socket errors' not in o,
                re.search(r'Socket errors.*', o) and re.search(r'Socket errors.*', o).group(0))
        T.point('%s: no non-2xx/3xx' % cname, 'Non-2xx' not in o,
                re.search(r'Non-2xx.*', o) and re.search(r'Non-2xx.*', o).group(0))
        m = re.search(r'checked (\d+) bad (\d+)', o)
        T.point('%s: every response 200 with the file\'s length (lua check)' % cname,
                m is not None and int(m.group(1)) > 0 and int(m.group(2)) == 0,
                m and m.group(0))
        m = re.search(r'Requests/sec:\s+([\d.]+)', o)
        rps = m.group(1) if m else None
        T.figures.append('%s: %s requests/s (%d requests)' % (cname, rps, reqs))
        T.diag(o)


def h2load(bed, files):
    cname = 'h2load --h1 -n 400 -c 4 -t 1 /index.html'
    with Case(bed, cname, capture=False):
        need('h2load')
        r = bed.ns_run(['h2load', '--h1', '-n', '400', '-c', '4', '-t', '1', '-N', '5',
                        url(SERVER_V4, 'index.html')], check=False, timeout=60)
        o = r.stdout
        T.point('%s: exit 0' % cname, r.returncode == 0, (r.returncode, r.stderr[-300:]))
        m = re.search(r'requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, '
                      r'(\d+) failed, (\d+) errored, (\d+) timeout', o)
        T.point('%s: 400 succeeded, 0 failed/errored/timeout' % cname,
                m is not None and m.groups() == ('400', '400', '400', '400', '0', '0', '0'),
                m and m.group(0) or o[-300:])
        m = re.search(r'status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx', o)
        T.point('%s: 400 2xx, no other status' % cname,
                m is not None and m.groups() == ('400', '0', '0', '0'), m and m.group(0))
        m = re.search(r'traffic: .*\((\d+)\) total, .*\((\d+)\) data', o)
        T.point('%s: %d body bytes in all' % (cname, 400 * len(files['index.html'])),
                m is not None and int(m.group(2)) == 400 * len(files['index.html']),
                m and m.group(0))
        m = re.search(r'finished in ([\d.]+\w+), ([\d.]+) req/s', o)
        T.figures.append('%s: %s requests/s' % (cname, m and m.group(2)))
        T.diag(o)


def httping(bed):
    cname = 'httping -F -c 5 (TFO) /'
    with Case(bed, cname):
        need('httping')
        before = bed.nstat()
        r = bed.ns_run(['httping', '-F', '-s', '-c', '5', '-i', '0.2', '-t', '3', '-G', '-b',
                        '-g', url(SERVER_V4, '')], check=False, timeout=40)
        after = bed.nstat()
        o = r.stdout
        m = re.search(r'(\d+) connects, (\d+) ok, ([\d.]+)% failed', o)
        T.point('%s: exit 0' % cname, r.returncode == 0, (r.returncode, o[-300:]))
        T.point('%s: 5 connects, 5 ok, 0%% failed' % cname,
                m is not None and m.group(1) == '5' and m.group(2) == '5'
                and float(m.group(3)) == 0, m and m.group(0))
        pings = [ln for ln in o.splitlines() if ln.startswith('connected to')]
        T.point('%s: every ping 200 OK (-s prints the status)' % cname,
                len(pings) == 5 and all(' 200 OK ' in ln for ln in pings), pings[:5])
        tfo = after.get('TcpExtTCPFastOpenActive', 0) - before.get('TcpExtTCPFastOpenActive', 0)
        T.point('%s: TFO used (TcpExtTCPFastOpenActive +%d)' % (cname, tfo), tfo >= 1)
        T.diag(o)


PYCLIENT = r'''
import hashlib, http.client, json, sys
host, mode, names = sys.argv[1], sys.argv[2], sys.argv[3:]
out = []
conn = None
for n in names:
    if conn is None or mode == 'close':
        conn = http.client.HTTPConnection(host, 80, timeout=5)
    hdr = {'Connection': 'close'} if mode == 'close' else {}
    try:
        conn.request('GET', '/' + n, headers=hdr)
        r = conn.getresponse()
        body = r.read()
        out.append([n, r.status, hashlib.sha256(body).hexdigest(), len(body), ''])
    except Exception as e:
        out.append([n, 0, '', 0, repr(e)])
        conn = None
    if mode == 'close' and conn is not None:
        conn.close()
print(json.dumps(out))
'''


def pyclient(bed, files):
    import json
    for mode in ('close', 'keep-alive'):
        cname = 'python http.client %s' % mode
        with Case(bed, cname):
            r = bed.ns_run(['/usr/bin/python3', '-c', PYCLIENT, SERVER_V4, mode] + list(FILES),
                           check=False, timeout=120)
            try:
                res = json.loads(r.stdout.strip().splitlines()[-1])
            except (ValueError, IndexError):
                res = []
            T.point('%s: ran' % cname, len(res) == len(FILES), r.stderr[-300:])
            for n, status, h, ln, err in res:
                T.point('%s %s: status 200, byte-exact (%d bytes)' % (cname, n, len(files[n])),
                        status == 200 and h == sha(files[n]), (status, ln, err))


def echo(bed):
    lines = {'short': b'hello, echo\n', 'odd 101': b'x' * 100 + b'\n',
             'long 4000': bytes(ord('a') + i % 26 for i in range(3999)) + b'\n'}
    tools = (('socat', lambda h: ['socat', '-t', '5', '-T', '5', '-',
                                  'TCP:%s:7' % h if ':' not in h else 'TCP6:[%s]:7' % h]),
             ('nc', lambda h: ['nc', '-w', '5', '-N', h, '7']))
    for tool, cmd in tools:
        cname = '%s echo (TCP 7)' % tool
        with Case(bed, cname):
            need(tool)
            for host, tag in ((SERVER_V4, 'v4'), (SERVER_V6, 'v6')):
                for what, line in lines.items():
                    r = bed.ns_run(cmd(host), check=False, timeout=20, input=line, text=False)
                    T.point('%s %s %s line: exit 0, echoed byte-exact' % (cname, tag, what),
                            r.returncode == 0 and r.stdout == line,
                            (r.returncode, len(r.stdout), r.stderr[-200:]))


def kernel_tfo(bed, kclient):
    cname = '500 concurrent kernel TFO connections (echo, 101-byte lines)'
    with Case(bed, cname, capture=False):
        if not os.access(kclient, os.X_OK):
            raise Skip('%s is not built' % kclient)
        r = bed.ns_run([kclient, '-s', SERVER_V4, '-p', '7', '-t', '1', '-c', '500',
                        '-d', '2', '-w', '1', '-n', '101', '-S', CLIENT_V4],
                       check=False, timeout=40)
        o = r.stdout
        T.diag(o + r.stderr[-300:])
        m = re.search(r'transactions (\d+) seconds ([\d.]+) rate (\d+)/s errors (\d+) '
                      r'syn_no_cookie (\d+)', o)
        T.point('%s: exit 0' % cname, r.returncode == 0, r.returncode)
        T.point('%s: transactions done, 0 errors (each echo checked byte by byte)' % cname,
                m is not None and int(m.group(1)) > 500 and m.group(4) == '0',
                m and m.group(0))
        m2 = re.search(r'tfo_active (\d+)', o)
        T.point('%s: the SYNs carried data (TFOActive > 0)' % cname,
                m2 is not None and int(m2.group(1)) > 0, m2 and m2.group(0))
        if m:
            T.figures.append('%s: %s transactions/s' % (cname, m.group(3)))


def main():
    need_root()
    server = os.path.abspath(sys.argv[1])
    kclient = os.path.abspath(sys.argv[2])
    for t in ('ip', 'nstat', 'timeout'):
        if shutil.which(t) is None:
            print('Bail out! required tool %s is missing' % t)
            return 1
    root = make_root()
    tmp = tempfile.mkdtemp(prefix='tfo-rc.')
    files = {n: open(os.path.join(root, n), 'rb').read() for n in FILES}
    try:
        with Bed(server, ['--www', root]) as bed:
            T.diag('tfo-server: default configuration, --www %s' % root)
            curl_modes(bed, tmp, files)
            curl_keepalive(bed, tmp, files)
            curl_v6(bed, tmp, files)
            curl_tfo(bed, tmp, files)
            wget(bed, tmp, files)
            ab(bed, files)
            wrk(bed, tmp, files)
            h2load(bed, files)
            httping(bed)
            pyclient(bed, files)
            echo(bed)
            kernel_tfo(bed, kclient)
            log = server_exit(bed, 'end')
            T.diag('---- server summary ----')
            T.diag('\n'.join(log.splitlines()[-40:]))
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return T.finish()


if __name__ == '__main__':
    sys.exit(main())
