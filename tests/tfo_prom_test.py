#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/usertools/tfo-prom against a fake telemetry socket, and the alert
rules (suite lint: no root, no device).

    tfo_prom_test.py SOURCE_ROOT

The fake answers the telemetry commands tfo-prom reads with every counter
stats.h and ops/drops.h declare and http's (services/http.c, service
counters that keep their built-in families; parsed from the sources, so
that a new counter is exported and linted here at once), two workers and two control lcores,
and a /tfo/latency answer in the contract's shape (docs/runbook.md); a
second fake has no /tfo/latency (an older server). Checked:
- `promtool check metrics` reports nothing, with totals and --per-lcore
  (skipped LOUDLY when promtool is not installed: scripts/setup.sh fetches
  it), and our own rules whatever promtool says: names tfo_ snake_case,
  counters and only counters end in _total, HELP on every family;
- Linux names: TCPFastOpenPassive is tfo_fastopen_passive_total, its HELP
  names TcpExtTCPFastOpenPassive; SyncookiesSent, TCPChallengeACK,
  PAWSEstab, TCPACKSkippedSynRecv are in some HELP;
- labels: HTTP code, drop reason (frame drops add up to rx_dropped), role
  and lcore; totals by default (no lcore label), --per-lcore series add
  up to the totals; busy seconds = busy_tsc / tsc_hz, per lcore;
- the histograms: cumulative buckets in seconds, +Inf = _count, _sum in
  seconds, summed over lcores (per lcore with --per-lcore); without
  /tfo/latency no histogram and exit 0;
- tfo-prom's lists of frame drops match stats.h TFO_STATS_FRAME_DROPS and
  ops/drops.h's reasons;
- --listen: loopback unless an address is given;
- `promtool check rules` accepts config/tfo-alerts.yml and `promtool test
  rules` fires its alerts on made-up series (tests/tfo-alerts-test.yml).
"""
import importlib.machinery
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tap'))
import tfotap  # noqa: E402
from tfotap import Checks  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), '..'))
PROM = os.path.join(ROOT, 'scripts', 'usertools', 'tfo-prom')
RULES = os.path.join(ROOT, 'config', 'tfo-alerts.yml')
RULES_TEST = os.path.join(ROOT, 'tests', 'tfo-alerts-test.yml')
T = Checks()

TSC_HZ = 2000000000
LCORES = {'lcore0_control': 0, 'lcore3_control1': 3, 'lcore1_worker0': 1,
          'lcore2_worker1': 2}
LE_US = [1, 2, 5, 10, 100]


def load_prom():
    loader = importlib.machinery.SourceFileLoader('tfo_prom', PROM)
    spec = importlib.util.spec_from_loader('tfo_prom', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def header_counters():
    """[(name, 'counter'|'gauge', help)] of stats.h, then ops/drops.h's drop_<reason>."""
    text = open(os.path.join(ROOT, 'src', 'ops', 'stats.h')).read()
    out = [(n, 'gauge' if k == 'G' else 'counter', h.replace('\\"', '"'))
           for n, k, h in re.findall(r'X\((\w+),\s*([CG]),\s*"((?:[^"\\]|\\.)*)"\)', text)]
    pkt = open(os.path.join(ROOT, 'src', 'ops', 'drops.h')).read()
    body = pkt[pkt.index('#define TFO_PKT_DROP_REASONS'):]
    body = body[:body.index('\n\n')]
    out += [('drop_' + n, 'counter', h) for n, h in re.findall(r'X\((\w+),\s*"([^"]*)"\)', body)]
    return out


def parser_drops_h():
    pkt = open(os.path.join(ROOT, 'src', 'ops', 'drops.h')).read()
    body = pkt.split('#define TFO_PKT_DROP_REASONS')[1].split('\n\n')[0]
    return {'drop_' + r for r in re.findall(r'X\((\w+),', body)}


def frame_drops_h():
    text = open(os.path.join(ROOT, 'src', 'ops', 'stats.h')).read()
    body = text[text.index('#define TFO_STATS_FRAME_DROPS'):]
    body = body[:body.index('\n\n')]
    return re.findall(r'X\((\w+)\)', body)


def http_counters():
    """[(name, 'counter', help)] http declares (services/http.c): service
    counters whose families stay the built-in ones (tfo-prom
    OWN_FAMILY_SERVICES)."""
    text = open(os.path.join(ROOT, 'services', 'http.c')).read()
    return [(n, 'counter', h.replace('\\"', '"')) for n, h in
            re.findall(r'\{ "(http_\w+)",\s*"((?:[^"\\]|\\.)*)" \}', text)]


HTTP_COUNTERS = http_counters()
COUNTERS = header_counters() + HTTP_COUNTERS


def lcore_stats(i):
    """Every counter of lcore i: distinct values, so that sums are checkable."""
    d = {n: (i + 1) * 10 + k for k, (n, _, _) in enumerate(COUNTERS)}
    d['busy_tsc'] = (i + 1) * TSC_HZ // 2	# 0.5 s, 1 s, ...
    d.update(rx_dropped=0, rx_unaccounted=0, tx_unaccounted=0, accounting_ok=1)
    return d


def latency_answer():
    def one(scale):
        return {str(lc): {'role': 'control' if 'control' in n else 'worker',
                          'counts': [scale * (j + 1 + lc) for j in range(len(LE_US) + 1)],
                          'sum_us': 12.5 * scale * (lc + 1)}
                for n, lc in LCORES.items()}
    return {'tsc_hz': TSC_HZ, 'le_us': LE_US, 'syn_to_response': one(1),
            'request_to_response': one(2)}


class FakeTelemetry(tfotap.FakeTelemetry):
    """tfo-server's telemetry, made up: 2 control lcores, 2 workers."""

    def __init__(self, path, latency=True):
        super().__init__(path)
        self.latency = latency
        self.per = {n: lcore_stats(i) for i, n in enumerate(LCORES)}
        self.total = {k: sum(d[k] for d in self.per.values()) for k in self.per['lcore0_control']}
        self.total['accounting_ok'] = 1
        self.total['rx_dropped'] = sum(self.total[n] for n, _, _ in COUNTERS
                                       if n in frame_drops_h() or n in parser_drops_h())
        self.total['mbufs_in_use'] = 700

    def answer(self, cmd):
        name, _, arg = cmd.partition(',')
        if name == '/tfo/counters':
            start = int(arg or 0)
            page = COUNTERS[start:start + 64]
            nxt = start + 64 if start + 64 < len(COUNTERS) else 0
            http = {n for n, _, _ in HTTP_COUNTERS}
            return {'next': nxt, 'counters': {n: '%s: %s' % (k, h) for n, k, h in page},
                    'services': {n: 'http' for n, _, _ in page if n in http}}
        if name == '/tfo/stats':
            if arg == 'lcores':
                return LCORES
            if arg == 'total':
                return self.total
            for n, lc in LCORES.items():
                if str(lc) == arg:
                    return self.per[n]
            return None
        if name == '/tfo/latency':
            return latency_answer() if self.latency else None
        if name == '/tfo/conns':
            return {n: {'ESTABLISHED': lc + 1, 'TIME_WAIT': 2, 'free': 100, 'tfo_pending': 1}
                    for n, lc in LCORES.items()}
        if name == '/tfo/keys':
            return {'algo': 'aes128', 'primary': '0123456789abcdef', 'backup': '',
                    'generation': 1}
        if name == '/mempool/list':
            return ['mb_pool_0']
        if name == '/mempool/info':
            return {'name': arg, 'size': 8191, 'cache_size': 256}
        if name == '/ethdev/list':
            return [0]
        if name == '/ethdev/stats':
            return {'ipackets': 100, 'opackets': 90, 'ibytes': 6400, 'obytes': 7000,
                    'imissed': 3, 'ierrors': 0, 'oerrors': 0, 'rx_nombuf': 0,
                    'q_ipackets': [60, 40, 0, 0]}
        if name == '/ethdev/info':
            return {'nb_rx_queues': 2}
        if name == '/tfo/ports':	# port 0 on net_af_xdp: its sockets' counters
            return {'0': {'xsk_sockets': 2, 'xsk_fill_empty': 5, 'xsk_rx_ring_full': 7,
                          'xsk_rx_dropped': 5, 'xsk_rx_invalid': 0, 'xsk_tx_invalid': 1}}
        return None


NAME_OK = re.compile(r'^tfo_[a-z][a-z0-9_]*$')
LINE = re.compile(r'^([a-z_:][a-z0-9_:]*)(?:\{(.*)\})? (\S+)$', re.I)


def parse(text):
    """{family: {'type', 'help', 'samples': {(name, labels-frozenset): value}}}."""
    fams, cur = {}, None
    for line in text.splitlines():
        if line.startswith('# HELP '):
            _, _, name, help_text = line.split(' ', 3)
            cur = fams.setdefault(name, {'help': help_text, 'samples': {}})
        elif line.startswith('# TYPE '):
            cur['type'] = line.split(' ')[3]
        elif line and not line.startswith('#'):
            m = LINE.match(line)
            labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or ''))
            cur['samples'][(m.group(1), labels)] = float(m.group(3))
    return fams


def value(fams, fam, sample=None, **labels):
    return fams[fam]['samples'].get((sample or fam, frozenset(labels.items())))


def run_prom(sock, *args):
    return subprocess.run([sys.executable, PROM, '--socket', sock] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)


def check_own_lint(fams, what):
    bad = [n for n in fams if not NAME_OK.match(n)]
    T.check('%s: every family tfo_ snake_case' % what, not bad, bad[:5])
    bad = [n for n, f in fams.items() if (f['type'] == 'counter') != n.endswith('_total')]
    T.check('%s: counters, and only counters, end in _total' % what, not bad, bad[:5])
    bad = [n for n, f in fams.items() if len(f['help']) < 10]
    T.check('%s: HELP on every family' % what, not bad, bad[:5])


def main():
    prom = load_prom()
    promtool = tfotap.find_promtool()
    tmp = tempfile.mkdtemp(prefix='tfo-prom-test.')
    try:
        # -- the lists in tfo-prom against the headers ---------------------
        names = {n for n, _, _ in COUNTERS}
        pkt = {n for n in names if n.startswith('drop_')} - set(frame_drops_h())
        T.check('tfo-prom FRAME_DROPS is stats.h TFO_STATS_FRAME_DROPS',
                sorted(prom.FRAME_DROPS) == sorted(frame_drops_h()),
                set(prom.FRAME_DROPS) ^ set(frame_drops_h()))
        parser_h = parser_drops_h()
        T.check('tfo-prom PARSER_DROPS is ops/drops.h TFO_PKT_DROP_REASONS',
                set(prom.PARSER_DROPS) == parser_h, set(prom.PARSER_DROPS) ^ parser_h)
        T.check('tfo-prom SEGMENT_DROPS and LINUX_MIB name real counters',
                set(prom.SEGMENT_DROPS) <= names and set(prom.LINUX_MIB) <= names,
                (set(prom.SEGMENT_DROPS) | set(prom.LINUX_MIB)) - names)
        T.check('every drop_* counter is a frame or a segment drop reason',
                not [n for n in pkt if n not in prom.PARSER_DROPS and
                     n not in prom.SEGMENT_DROPS],
                [n for n in pkt if n not in prom.PARSER_DROPS and n not in prom.SEGMENT_DROPS])
        T.check('one counter for the pending-TFO limit: TCPFastOpenListenOverflow '
                '(no tfo_pending_busy)', 'TCPFastOpenListenOverflow' in names and
                'tfo_pending_busy' not in names)

        # -- totals ----------------------------------------------------------
        sock = os.path.join(tmp, 'new.sock')
        fake = FakeTelemetry(sock)
        fake.start()
        r = run_prom(sock)
        T.check('totals: exit 0', r.returncode == 0, r.stderr)
        fams = parse(r.stdout)
        tfotap.promtool_check_metrics(T, r.stdout, 'totals')
        check_own_lint(fams, 'totals')
        tot = fake.total
        T.check('TCPFastOpenPassive: tfo_fastopen_passive_total, the total, HELP names the MIB',
                value(fams, 'tfo_fastopen_passive_total') == tot['TCPFastOpenPassive'] and
                'TcpExtTCPFastOpenPassive' in fams['tfo_fastopen_passive_total']['help'],
                fams.get('tfo_fastopen_passive_total'))
        helps = ' '.join(f['help'] for f in fams.values())
        for mib in ('SyncookiesSent', 'TCPChallengeACK', 'PAWSEstab', 'TCPACKSkippedSynRecv',
                    'TCPFastOpenListenOverflow'):
            T.check('HELP carries Linux %s' % mib, 'TcpExt' + mib in helps)
        T.check('gauges as gauges: tfo_conns_active, tfo_pending',
                fams['tfo_conns_active']['type'] == 'gauge' and
                fams['tfo_pending']['type'] == 'gauge' and
                value(fams, 'tfo_pending') == tot['tfo_pending'])
        meta = {n: (k, h) for n, k, h in COUNTERS}
        T.check('every family is in tfo-prom\'s family_names() (the runbook check uses it)',
                set(fams) <= prom.family_names(meta), set(fams) - prom.family_names(meta))
        no_lcore = [n for n, f in fams.items() if n != 'tfo_lcore_busy_seconds_total' and
                    any(k == 'lcore' for s in f['samples'] for k, _ in s[1])]
        T.check('totals: no lcore label (but on busy seconds)', not no_lcore, no_lcore[:5])
        T.check('http declares its counters (services/http.c): 22 found',
                len(HTTP_COUNTERS) == 22, len(HTTP_COUNTERS))
        T.check('http\'s service counters keep their families: tfo_http_ocsp_hit_total, '
                'none in tfo_service_events_total',
                value(fams, 'tfo_http_ocsp_hit_total') == tot['http_ocsp_hit'] and
                'tfo_service_events_total' not in fams, sorted(fams)[:8])
        T.check('HTTP by code: 200 and the 400s summed over their reasons',
                value(fams, 'tfo_http_responses_total', code='200') == tot['http_200'] and
                value(fams, 'tfo_http_responses_total', code='400') ==
                sum(v for k, v in tot.items() if k.startswith('http_400_')) and
                value(fams, 'tfo_http_bad_requests_total', reason='syntax') ==
                tot['http_400_syntax'])
        fd = fams['tfo_frame_drops_total']['samples']
        T.check('frame drops by reason (%d reasons) add up to rx_dropped' % len(fd),
                len(fd) == len(frame_drops_h()) + len(parser_h) and
                sum(fd.values()) == tot['rx_dropped'] and
                value(fams, 'tfo_frame_drops_total', reason='ring_drop_full') ==
                tot['ring_drop_full'])
        T.check('segment drops by reason (drop_paws)',
                value(fams, 'tfo_segment_drops_total', reason='drop_paws') == tot['drop_paws'])
        T.check('no counter is left as its own family that a label has',
                not any(n in fams for n in ('tfo_http_200_total', 'tfo_drop_paws_total',
                                            'tfo_ring_drop_full_total', 'tfo_busy_tsc_total')))
        busy = fams['tfo_lcore_busy_seconds_total']
        T.check('busy seconds per lcore with role = busy_tsc / tsc_hz',
                busy['type'] == 'counter' and len(busy['samples']) == 4 and
                value(fams, 'tfo_lcore_busy_seconds_total', role='control', lcore='3') ==
                fake.per['lcore3_control1']['busy_tsc'] / TSC_HZ, busy['samples'])
        T.check('tfo_lcores by role', value(fams, 'tfo_lcores', role='worker') == 2 and
                value(fams, 'tfo_lcores', role='control') == 2)
        T.check('tfo_conns by state, summed', value(fams, 'tfo_conns', state='ESTABLISHED')
                == sum(lc + 1 for lc in LCORES.values()))
        T.check('mempool use: each pool\'s size, and the objects in use',
                value(fams, 'tfo_mempool_size', pool='mb_pool_0') == 8191 and
                value(fams, 'tfo_mbufs_in_use') == 700)
        T.check('port counters: rx_missed, per-queue', value(
            fams, 'tfo_port_rx_missed_total', port='0') == 3 and len(
            fams['tfo_port_rxq_packets_total']['samples']) == 2)
        T.check('AF_XDP port: the kernel\'s counters of its sockets (/tfo/ports)',
                value(fams, 'tfo_port_xsk_fill_empty_total', port='0') == 5 and
                value(fams, 'tfo_port_xsk_rx_ring_full_total', port='0') == 7 and
                value(fams, 'tfo_port_xsk_tx_invalid_total', port='0') == 1)
        # the histograms, summed over the 4 lcores
        lat = latency_answer()
        for key in ('syn_to_response', 'request_to_response'):
            fam = 'tfo_%s_seconds' % key
            f = fams.get(fam, {'samples': {}, 'type': None})
            per_bucket = [sum(h['counts'][j] for h in lat[key].values())
                          for j in range(len(LE_US) + 1)]
            cum = [sum(per_bucket[:j + 1]) for j in range(len(per_bucket))]
            got = [value(fams, fam, fam + '_bucket', le=le)
                   for le in ['%.9g' % (u / 1e6) for u in LE_US] + ['+Inf']] \
                if fam in fams else []
            T.check('%s: histogram, cumulative buckets in seconds, summed over lcores' % fam,
                    f['type'] == 'histogram' and got == cum, (got, cum))
            T.check('%s: _count = +Inf bucket, _sum in seconds' % fam,
                    value(fams, fam, fam + '_count') == cum[-1] and
                    abs(value(fams, fam, fam + '_sum') -
                        sum(h['sum_us'] for h in lat[key].values()) / 1e6) < 1e-12)

        # -- per lcore -------------------------------------------------------
        r = run_prom(sock, '--per-lcore')
        T.check('--per-lcore: exit 0', r.returncode == 0, r.stderr)
        pf = parse(r.stdout)
        tfotap.promtool_check_metrics(T, r.stdout, '--per-lcore')
        check_own_lint(pf, '--per-lcore')
        s = pf['tfo_fastopen_passive_total']['samples']
        T.check('--per-lcore: one series per lcore, role and lcore labels, adding up',
                len(s) == 4 and sum(s.values()) == tot['TCPFastOpenPassive'] and
                value(pf, 'tfo_fastopen_passive_total', role='worker', lcore='2') ==
                fake.per['lcore2_worker1']['TCPFastOpenPassive'], s)
        s = pf['tfo_frame_drops_total']['samples']
        T.check('--per-lcore: drops by reason and lcore',
                value(pf, 'tfo_frame_drops_total', role='control', lcore='0',
                      reason='ring_drop_full') == fake.per['lcore0_control']['ring_drop_full'])
        h = lat['syn_to_response']['1']
        T.check('--per-lcore: histogram per lcore (worker 1: +Inf = its count)',
                value(pf, 'tfo_syn_to_response_seconds', 'tfo_syn_to_response_seconds_count',
                      role='worker', lcore='1') == sum(h['counts']) and
                value(pf, 'tfo_syn_to_response_seconds', 'tfo_syn_to_response_seconds_bucket',
                      role='worker', lcore='1', le='+Inf') == sum(h['counts']))
        T.check('--per-lcore: more series than totals',
                sum(len(f['samples']) for f in pf.values()) >
                2 * sum(len(f['samples']) for f in fams.values()))

        # -- an older server: no /tfo/latency --------------------------------
        sock2 = os.path.join(tmp, 'old.sock')
        old = FakeTelemetry(sock2, latency=False)
        old.start()
        r = run_prom(sock2)
        of = parse(r.stdout)
        T.check('no /tfo/latency: exit 0, no histogram, the counters still there',
                r.returncode == 0 and 'tfo_syn_to_response_seconds' not in of and
                'tfo_fastopen_passive_total' in of and value(of, 'tfo_up') == 1, r.stderr)
        T.check('no /tfo/latency and no tsc_hz: no busy seconds (not a wrong figure)',
                'tfo_lcore_busy_seconds_total' not in of)
        old.total['tsc_hz'] = TSC_HZ
        of = parse(run_prom(sock2).stdout)
        T.check('no /tfo/latency: busy seconds from /tfo/stats tsc_hz',
                value(of, 'tfo_lcore_busy_seconds_total', role='worker', lcore='1') ==
                old.per['lcore1_worker0']['busy_tsc'] / TSC_HZ)
        tfotap.promtool_check_metrics(T, run_prom(sock2).stdout, 'older server')

        # -- --listen ----------------------------------------------------------
        T.check('--listen PORT binds loopback; ADDR:PORT and [v6]:PORT as given',
                prom.parse_listen('9470') == ('127.0.0.1', 9470) and
                prom.parse_listen(':9470') == ('127.0.0.1', 9470) and
                prom.parse_listen('0.0.0.0:9470') == ('0.0.0.0', 9470) and
                prom.parse_listen('[::1]:9470') == ('::1', 9470))
        http = subprocess.Popen([sys.executable, PROM, '--socket', sock, '--listen', '0'],
                                stderr=subprocess.PIPE, text=True)
        try:
            line = http.stderr.readline()
            T.check('--listen 0: serves on 127.0.0.1', 'http://127.0.0.1:' in line, line)
        finally:
            http.terminate()
            http.wait(10)

        # -- alert rules -------------------------------------------------------
        if promtool is None:
            print('SKIP promtool check rules / test rules: promtool NOT INSTALLED; '
                  'scripts/setup.sh fetches it from Debian\'s prometheus package')
        else:
            r = subprocess.run([promtool, 'check', 'rules', RULES], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=30)
            T.check('promtool check rules config/tfo-alerts.yml', r.returncode == 0 and
                    'SUCCESS' in r.stdout, r.stdout)
            r = subprocess.run([promtool, 'test', 'rules', RULES_TEST], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=30,
                               cwd=os.path.dirname(RULES_TEST))
            T.check('promtool test rules tests/tfo-alerts-test.yml', r.returncode == 0,
                    r.stdout[-3000:])
        rules = open(RULES).read()
        used = set(re.findall(r'\b(tfo_[a-z0-9_]+)', rules))
        known = set(fams) | {n + sfx for n in fams for sfx in ('_bucket', '_sum', '_count')}
        # the fake server has no service: tap-udp sees this family on a real one
        known.add('tfo_service_events_total')
        T.check('the rules use only metrics tfo-prom exports', used <= known,
                sorted(used - known))
        fake.close()
        old.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    t0 = time.time()
    rc = main()
    print('took %.1f s' % (time.time() - t0))
    sys.exit(rc)
