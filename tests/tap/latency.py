#!/usr/bin/python3
"""Latency histograms and the access log with real clients (suite tap, root).

    latency.py TFO_SERVER

curl fetches a file from tfo-server on net_tap: with --tcp-fastopen twice
(a cookie request served on the control lcore, then TFO on a worker), and
without TFO twice (one of them a 404). Checks: /tfo/latency has the shape
tfo-prom reads, one request_to_response and one syn_to_response sample per
transaction (= svc_responses), on a worker for the TFO one, plausible
microseconds; /tfo/stats has the totals; the access log (sample 1) has one
line per transaction with the right fields; after a rename and SIGHUP the
next line goes to a new file under the old name; the exit summary prints
the quantiles.
"""
import os
import re
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, SERVER_V4, CLIENT_V4, need_root  # noqa: E402

T = Checks()
LINE = re.compile(r'^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (\S+) (\d+) (tfo|plain) (\S+) '
                  r'"([^"]*)" (\d+) (\d+) (\d+)$')


def curl(bed, url, *args):
    r = bed.ns_run(['curl', '-sS', '--max-time', '10', '-o', '/dev/null', '-w', '%{http_code}']
                   + list(args) + [url], check=False)
    return r.stdout.strip()


def lines_of(path, want, timeout=5.0):
    """The file's lines once it has @want of them (control 0 flushes each second)."""
    deadline = time.time() + timeout
    lines = []
    while time.time() < deadline:
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except OSError:
            lines = []
        if len(lines) >= want:
            break
        time.sleep(0.2)
    return lines


def hist_total(lat, kind):
    return sum(sum(e['counts']) for e in lat[kind].values())


def check_shape(lat):
    le = lat.get('le_us', [])
    ok = isinstance(lat.get('tsc_hz'), int) and lat['tsc_hz'] > 0
    ok &= len(le) == 24 and all(isinstance(x, (int, float)) for x in le)
    ok &= all(a < b for a, b in zip(le, le[1:]))
    for kind in ('syn_to_response', 'request_to_response'):
        per = lat.get(kind)
        ok &= isinstance(per, dict) and len(per) >= 2
        for lc, e in (per or {}).items():
            ok &= lc.isdigit() and e.get('role') in ('worker', 'control')
            ok &= len(e.get('counts', [])) == len(le) + 1
            ok &= isinstance(e.get('sum_us'), (int, float))
    T.check('/tfo/latency: tsc_hz, le_us ascending, per lcore role/counts/sum_us', ok, lat)


def main():
    need_root()
    server = os.path.abspath(sys.argv[1])
    root = tempfile.mkdtemp(prefix='tfo-www.')
    logdir = tempfile.mkdtemp(prefix='tfo-alog.')
    path = os.path.join(logdir, 'access.log')
    with open(os.path.join(root, 'small.txt'), 'wb') as f:
        f.write(b'a small object\n' * 4)
    try:
        with Bed(server, ['--www', root, '--set', 'server.access_log=' + path]) as bed:
            url = 'http://%s/small.txt' % SERVER_V4
            codes = [curl(bed, url, '--tcp-fastopen'), curl(bed, url, '--tcp-fastopen'),
                     curl(bed, url), curl(bed, 'http://%s/nosuch' % SERVER_V4)]
            T.check('4 transactions: 200 200 200 404', codes == ['200', '200', '200', '404'], codes)
            time.sleep(0.2)
            lat = bed.telemetry('/tfo/latency')
            st = bed.stats()
            check_shape(lat)
            n = st.get('svc_responses', -1)
            T.check('svc_responses = 4', n == 4, n)
            T.check('request_to_response: one sample per transaction',
                    hist_total(lat, 'request_to_response') == n, lat['request_to_response'])
            T.check('syn_to_response: one sample per connection',
                    hist_total(lat, 'syn_to_response') == n, lat['syn_to_response'])
            wrk = sum(sum(e['counts']) for e in lat['request_to_response'].values()
                      if e['role'] == 'worker')
            T.check('the TFO transaction was measured on a worker', wrk >= 1, wrk)
            req_sum = sum(e['sum_us'] for e in lat['request_to_response'].values())
            syn_sum = sum(e['sum_us'] for e in lat['syn_to_response'].values())
            T.check('request_to_response: plausible (mean under 100 ms)',
                    0 <= req_sum < 100000 * n, req_sum)
            T.check('syn_to_response: at least request_to_response, mean under 1 s',
                    req_sum <= syn_sum < 1000000 * n, (req_sum, syn_sum))
            T.check('/tfo/stats: latency totals',
                    st.get('latency_request_to_response_count') == n
                    and st.get('latency_syn_to_response_count') == n
                    and 1 <= st.get('latency_request_to_response_p99_us', 0) <= 8388608,
                    {k: v for k, v in st.items() if k.startswith('latency_')})

            lines = lines_of(path, 4)
            print('\n'.join('  | ' + x for x in lines))
            T.check('access log: one line per transaction (4)', len(lines) == 4, lines)
            m = [LINE.match(x) for x in lines]
            T.check('access log: every line has the 9 fields', all(m), lines)
            if all(m) and len(m) == 4:
                T.check('access log: the client and its ports',
                        all(x.group(2) == CLIENT_V4 and 1024 <= int(x.group(3)) < 65536 for x in m),
                        lines)
                T.check('access log: tfo only for the second TFO fetch',
                        [x.group(4) for x in m] == ['plain', 'tfo', 'plain', 'plain'], lines)
                T.check('access log: service, request line, status',
                        [(x.group(5), x.group(6), x.group(7)) for x in m] ==
                        [('http', 'GET /small.txt HTTP/1.1', '200')] * 3 +
                        [('http', 'GET /nosuch HTTP/1.1', '404')], lines)
                T.check('access log: bytes = head + 60-byte body for the 200s',
                        all(int(x.group(8)) > 60 for x in m[:3]), lines)
                T.check('access log: latency in plausible microseconds',
                        all(int(x.group(9)) < 100000 for x in m), lines)
                now = time.strftime('%Y-%m-%dT%H', time.gmtime())
                T.check('access log: UTC time of now', m[-1].group(1).startswith(now[:10]),
                        (m[-1].group(1), now))
            st = bed.stats()
            T.check('access_log_records = access_log_written = 4, nothing dropped',
                    st.get('access_log_records') == 4 and st.get('access_log_written') == 4
                    and st.get('access_log_drop_full', 0) == 0
                    and st.get('access_log_write_error', 0) == 0,
                    {k: v for k, v in st.items() if k.startswith('access_log')})

            # logrotate: rename, SIGHUP, the next line in a new file
            os.rename(path, path + '.1')
            bed.proc.send_signal(signal.SIGHUP)
            deadline = time.time() + 5
            while time.time() < deadline and not os.path.exists(path):
                time.sleep(0.1)
            T.check('SIGHUP: the file is reopened under its name', os.path.exists(path))
            code = curl(bed, url, '--tcp-fastopen')
            new = lines_of(path, 1)
            old = lines_of(path + '.1', 4, timeout=0.5)
            T.check('after SIGHUP: the next line in the new file, the old one kept',
                    code == '200' and len(new) == 1 and len(old) == 4
                    and ' tfo http "GET /small.txt' in new[0], (code, new, len(old)))
            T.check('server exits 0', bed.stop() == 0)
            summary = bed.log_text()
            print('\n'.join('  | ' + x for x in summary.splitlines() if 'latency' in x))
            T.check('exit summary: latency quantiles',
                    re.search(r'latency total request_to_response: n=5 mean=\d+us p50<=\d+us',
                              summary) is not None
                    and 'latency total syn_to_response: n=5' in summary,
                    [x for x in summary.splitlines() if 'latency' in x])
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(logdir, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
