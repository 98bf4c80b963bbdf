#!/usr/bin/python3
"""scripts/usertools/tfo-prom against a running tfo-server, and the telemetry it reads
(suite tap, root).

    prom.py TFO_SERVER

tfo-server (2 workers, net_tap) serves some TFO connections; then:
- /tfo/stats (totals; ,lcores; ,LCORE_ID), /tfo/counters (pages),
  /tfo/config (section.key = value lines), /tfo/keys (fingerprints only),
  /tfo/conns (states per core) answer as documented;
- tfo-prom's output is valid Prometheus text exposition (a strict parser
  here: HELP and TYPE once per family before its samples, names and labels
  well-formed, no duplicate series), HELP is the server's counter help,
  TYPE counter or gauge as declared, every counter of every lcore is there
  with the value telemetry reports, per-lcore values add up to the totals;
- with --listen, GET /metrics serves the same over HTTP, other paths 404,
  and once the server is gone a scrape says tfo_up 0;
- without a server tfo-prom exits 1 with a clear message.
"""
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, SERVER_V4, need_root, stop_process  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
PROM = os.path.join(ROOT, 'scripts', 'usertools', 'tfo-prom')
T = Checks()

NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"'
SAMPLE = re.compile(r'^(%s)(\{(?:%s)(?:,%s)*\})? (-?[0-9.eE+]+|NaN|[+-]Inf)$' % (NAME, LABEL, LABEL))


def parse_exposition(text):
    """Strict enough: returns (families {name: {help, type, samples {labels: v}}}, errors)."""
    fams, errors, current = {}, [], None
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith('# HELP '):
            name = line.split(' ', 3)[2]
            if name in fams:
                errors.append('line %d: second HELP for %s' % (n, name))
            fams[name] = {'help': line.split(' ', 3)[3] if line.count(' ') >= 3 else '',
                          'type': None, 'samples': {}}
            current = name
        elif line.startswith('# TYPE '):
            _, _, name, kind = line.split(' ')
            if name != current or fams[name]['type'] is not None:
                errors.append('line %d: TYPE out of place for %s' % (n, name))
            elif kind not in ('counter', 'gauge', 'untyped', 'summary', 'histogram'):
                errors.append('line %d: bad type %s' % (n, kind))
            else:
                fams[name]['type'] = kind
        elif line.startswith('#') or not line:
            continue
        else:
            m = SAMPLE.match(line)
            if not m:
                errors.append('line %d: not a sample: %r' % (n, line))
                continue
            name, labels, value = m.group(1), m.group(2) or '', m.group(3)
            if name != current:
                errors.append('line %d: sample of %s outside its family' % (n, name))
                continue
            if labels in fams[name]['samples']:
                errors.append('line %d: duplicate series %s%s' % (n, name, labels))
            fams[name]['samples'][labels] = float(value)
    for name, f in fams.items():
        if f['type'] is None:
            errors.append('%s: no TYPE' % name)
    return fams, errors


def counters_meta(bed):
    meta, start = {}, 0
    while True:
        page = bed.telemetry('/tfo/counters,%d' % start)
        meta.update(page['counters'])
        start = page['next']
        if not start:
            return meta


def main():
    need_root()
    server = os.path.abspath(sys.argv[1])
    r = subprocess.run([PROM, '--file-prefix', 'tfo-no-such-server'], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=30)
    T.check('no server: tfo-prom exits 1, says why, and prints tfo_up 0',
            r.returncode == 1 and 'cannot read telemetry socket' in r.stderr
            and 'tfo_up 0' in r.stdout, (r.returncode, r.stderr))
    prefix = 'tfoprom%d' % os.getpid()
    eal = ['--lcores', '0@0,1@1,2@1', '--no-huge', '-m', '512', '--no-shconf', '--no-pci',
           '--file-prefix', prefix]
    http = None
    try:
        with Bed(server, ['--set', 'tcp.time_wait_ms=60000'], eal=eal) as bed:
            for i in range(6):
                bed.client(SERVER_V4, 7, '--data', 'prom %d\\n' % i, '--expect-echo')
            time.sleep(0.3)
            # -- the telemetry commands tfo-prom reads ---------------------------
            meta = counters_meta(bed)
            help_out = subprocess.run([server, '--', '--help-counters'], stdout=subprocess.PIPE,
                                      text=True, check=True).stdout
            listed = re.findall(r'^\| `([^`]+)` \| (counter|gauge) \|', help_out, re.M)
            T.check('/tfo/counters lists every counter of --help-counters, same kinds',
                    len(listed) > 50 and all(meta.get(n, '').startswith(k + ': ')
                                             for n, k in listed), len(listed))
            total = bed.telemetry('/tfo/stats,total')
            T.check('/tfo/stats,total: every counter, no per-lcore part',
                    all(n in total for n in meta) and
                    not any(isinstance(v, dict) for v in total.values()))
            lcores = bed.telemetry('/tfo/stats,lcores')
            T.check('/tfo/stats,lcores: the control core and 2 workers',
                    sorted(lcores) == ['lcore0_control', 'lcore1_worker0', 'lcore2_worker1'],
                    lcores)
            one = bed.telemetry('/tfo/stats,%d' % lcores['lcore1_worker0'])
            T.check('/tfo/stats,LCORE: all counters of one lcore',
                    all(n in one for n in meta) and one['rx_pkts'] > 0)
            cfg = bed.telemetry('/tfo/config')
            T.check('/tfo/config: section.key = value lines, with the port section',
                    isinstance(cfg, list) and 'tfo.pending_limit = 4096' in cfg and
                    any(c.startswith('port net_tap0.ipv4 = 198.18.0.2') for c in cfg),
                    cfg if not isinstance(cfg, list) else cfg[:3])
            keys = bed.telemetry('/tfo/keys')
            T.check('/tfo/keys: algorithm, 16-hex-digit fingerprint, no key text',
                    re.fullmatch(r'[0-9a-f]{16}', keys.get('primary', '')) is not None
                    and not any('-' in str(v) for v in keys.values()), keys)
            conns = bed.telemetry('/tfo/conns')
            T.check('/tfo/conns: states per core (TIME_WAIT entries of the echo connections)',
                    set(conns) == set(lcores) and
                    sum(d.get('TIME_WAIT', 0) for d in conns.values()) > 0, conns)

            # -- tfo-prom, once -------------------------------------------------
            r = subprocess.run([PROM, '--file-prefix', prefix], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=30)
            after = bed.telemetry('/tfo/stats')
            T.check('tfo-prom exits 0', r.returncode == 0, r.stderr)
            fams, errors = parse_exposition(r.stdout)
            T.check('valid Prometheus text exposition (%d families)' % len(fams), not errors,
                    errors[:5])
            missing = [n for n in meta if 'tfo_' + n not in fams]
            T.check('every counter is a metric family', not missing, missing[:5])
            bad_help = [n for n in meta if 'tfo_' + n in fams and
                        fams['tfo_' + n]['help'] != meta[n].split(': ', 1)[1]]
            T.check('HELP is the server\'s help string', not bad_help, bad_help[:3])
            bad_type = [n for n in meta if 'tfo_' + n in fams and
                        fams['tfo_' + n]['type'] != meta[n].split(':')[0]]
            T.check('TYPE is counter or gauge as declared (conns_active, tfo_pending: gauge)',
                    not bad_type and fams['tfo_conns_active']['type'] == 'gauge'
                    and fams['tfo_tfo_pending']['type'] == 'gauge', bad_type[:3])
            per_lcore = all(len(fams['tfo_' + n]['samples']) == 3 for n in meta)
            T.check('every counter has one series per lcore', per_lcore)
            s = fams['tfo_TCPFastOpenCookieReqd']['samples']
            T.check('values: TCPFastOpenCookieReqd per lcore equals /tfo/stats',
                    all(s.get('{lcore="%d",core="%s"}' % (lc, name.split('_', 1)[1])) ==
                        after[name].get('TCPFastOpenCookieReqd', 0) for name, lc in lcores.items()),
                    s)
            T.check('values: per-lcore TCPFastOpenPassive add up to the total (5 TFO opens)',
                    sum(fams['tfo_TCPFastOpenPassive']['samples'].values()) ==
                    after['TCPFastOpenPassive'] == 5, fams['tfo_TCPFastOpenPassive']['samples'])
            T.check('tfo_conns by state and core, tfo_conns_free',
                    any('state="TIME_WAIT"' in k for k in fams.get('tfo_conns', {}).get('samples', {}))
                    and len(fams.get('tfo_conns_free', {}).get('samples', {})) == 3)
            T.check('tfo_key_info carries the fingerprint',
                    any('primary="%s"' % keys['primary'] in k
                        for k in fams.get('tfo_key_info', {}).get('samples', {})))
            eth = bed.telemetry('/ethdev/stats,0')
            T.check('dpdk_port_ipackets and per-queue RX (2 queues) from the port',
                    fams['dpdk_port_ipackets']['samples'].get('{port="0"}', -1) <= eth['ipackets']
                    and len(fams['dpdk_port_rxq_packets']['samples']) == 2)
            T.check('tfo_up 1', fams['tfo_up']['samples'].get('') == 1)

            # -- tfo-prom over HTTP --------------------------------------------
            http = subprocess.Popen([PROM, '--file-prefix', prefix, '--listen', '127.0.0.1:0'],
                                    stderr=subprocess.PIPE, text=True)
            line = http.stderr.readline()
            m = re.search(r'http://127\.0\.0\.1:(\d+)/metrics', line)
            T.check('--listen: says where it serves', m is not None, line)
            url = 'http://127.0.0.1:%s' % (m.group(1) if m else '1')
            with urllib.request.urlopen(url + '/metrics', timeout=10) as resp:
                body = resp.read().decode()
                ctype = resp.headers.get('Content-Type', '')
            fams2, errors2 = parse_exposition(body)
            T.check('GET /metrics: 200, text/plain version 0.0.4, valid, same families',
                    ctype.startswith('text/plain; version=0.0.4') and not errors2
                    and set(fams2) == set(fams), (ctype, errors2[:3]))
            try:
                urllib.request.urlopen(url + '/other', timeout=10)
                code = 200
            except urllib.error.HTTPError as e:
                code = e.code
            T.check('GET /other: 404', code == 404, code)
            T.check('server stops with exit code 0', bed.stop() == 0)
            with urllib.request.urlopen(url + '/metrics', timeout=10) as resp:
                body = resp.read().decode()
            T.check('scrape with the server gone: tfo_up 0', 'tfo_up 0' in body, body[:200])
    except Exception as e:
        T.check('prom test ran without exception', False, repr(e))
    finally:
        if http is not None:
            stop_process(http, timeout=5)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
