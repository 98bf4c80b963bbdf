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
  well-formed, no duplicate series) and `promtool check metrics` reports
  nothing (SKIP said loudly when promtool is missing: scripts/setup.sh
  fetches it), with totals and --per-lcore; every counter is exported
  (HELP carries the server's help and the counter's name), gauges as
  gauges; totals equal /tfo/stats, --per-lcore has one series per lcore
  (labels role, lcore) adding up to them; busy seconds = busy_tsc / tsc_hz;
  the latency histograms when the server has /tfo/latency, none otherwise;
- with --listen, GET /metrics serves the same over HTTP, other paths 404,
  and once the server is gone a scrape says tfo_up 0;
- an unprivileged user (nobody) cannot read the socket as DPDK makes it;
  with the group and modes config/tfo-server.service sets, it can;
- without a server tfo-prom exits 1 with a clear message.
"""
import os
import re
import shutil
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import (Bed, Checks, SERVER_V4, need_root, promtool_check_metrics,  # noqa: E402
                    stop_process)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
PROM = os.path.join(ROOT, 'scripts', 'usertools', 'tfo-prom')
T = Checks()

NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"'
SAMPLE = re.compile(r'^(%s)(\{(?:%s)(?:,%s)*\})? (-?[0-9.]+(?:[eE][+-]?[0-9]+)?|NaN|[+-]Inf)$' % (NAME, LABEL, LABEL))


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
            sfx = name[len(current):] if current and name.startswith(current) else None
            if name != current and not (fams[current]['type'] == 'histogram' and
                                        sfx in ('_bucket', '_sum', '_count')):
                errors.append('line %d: sample of %s outside its family' % (n, name))
                continue
            if name != current:	# a histogram's sample: its family's
                name, labels = current, sfx + labels	# '_bucket{le="..."}'
            if labels in fams[name]['samples']:
                errors.append('line %d: duplicate series %s%s' % (n, name, labels))
            fams[name]['samples'][labels] = float(value)
    for name, f in fams.items():
        if f['type'] is None:
            errors.append('%s: no TYPE' % name)
    return fams, errors


def as_nobody(prefix):
    """tfo-prom as user and group nobody/nogroup (the script on stdin: the
    worktree may not be readable to it)."""
    with open(PROM) as f:
        return subprocess.run(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
                               '/usr/bin/python3', '-', '--file-prefix', prefix], stdin=f,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=30)


def unprivileged(prefix):
    """As DPDK makes the socket, nobody cannot connect; with the group x on
    the directory and rw on the socket (what tfo-server.service's
    ExecStartPost does for group tfo-prom; nogroup here), it can.
    /var/run/dpdk gets o+x for the test if it lacks it (restored after)."""
    if shutil.which('setpriv') is None:
        print('SKIP unprivileged tfo-prom: setpriv (util-linux) NOT INSTALLED')
        return
    base = '/var/run/dpdk'
    d = os.path.join(base, prefix)
    sock = os.path.join(d, 'dpdk_telemetry.v2')
    mode = stat.S_IMODE(os.stat(base).st_mode)
    try:
        os.chmod(base, mode | stat.S_IXOTH)
        r = as_nobody(prefix)
        T.check('nobody, socket as DPDK makes it: tfo_up 0, Permission denied',
                r.returncode == 1 and 'tfo_up 0' in r.stdout and
                'Permission denied' in r.stderr, (r.returncode, r.stderr[-300:]))
        os.chown(d, -1, 65534)
        os.chown(sock, -1, 65534)
        os.chmod(d, stat.S_IMODE(os.stat(d).st_mode) | stat.S_IXGRP)
        os.chmod(sock, stat.S_IMODE(os.stat(sock).st_mode) | stat.S_IRGRP | stat.S_IWGRP)
        r = as_nobody(prefix)
        T.check('nobody in the socket\'s group (g+x dir, g+rw socket): tfo_up 1',
                r.returncode == 0 and 'tfo_up 1' in r.stdout, (r.returncode, r.stderr[-300:]))
    finally:
        os.chmod(base, mode)


SERVICES = {}	# a service's counter -> its service (the pages' "services")


def counters_meta(bed):
    meta, services = bed.counters()
    SERVICES.update(services)
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
            # --help-counters lists every built-in service's counters; a
            # server reports those of the services it runs (here echo, http)
            rows = re.findall(r'^\| `([^`]+)` \| (counter|gauge) \| (?:service ([a-z0-9_]+):)?',
                              help_out, re.M)
            running = set(SERVICES.values())
            listed = [(n, k) for n, k, svc in rows if not svc or svc in running]
            T.check('/tfo/counters lists every counter of --help-counters (of the services '
                    'it runs: %s), same kinds' % sorted(running),
                    len(listed) > 50 and 'echo' in running and
                    all(meta.get(n, '').startswith(k + ': ') for n, k in listed),
                    [n for n, k in listed if not meta.get(n, '').startswith(k + ': ')][:8])
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
            # the kernel side of the tap sends on its own (IPv6 router
            # solicitations, ...): a drop may land between a snapshot and
            # the scrape, so what the scrape saw is bracketed by two
            before = bed.telemetry('/tfo/stats')
            r = subprocess.run([PROM, '--file-prefix', prefix], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=30)
            after = bed.telemetry('/tfo/stats')
            T.check('tfo-prom exits 0', r.returncode == 0, r.stderr)
            fams, errors = parse_exposition(r.stdout)
            T.check('valid Prometheus text exposition (%d families)' % len(fams), not errors,
                    errors[:5])
            promtool_check_metrics(T, r.stdout, 'totals')
            helps = '\n'.join(f['help'] for f in fams.values())
            labelled = ('busy_tsc',)
            # by label: http_*, the frame and segment drops, the services'
            missing = [n for n in meta if '[%s' % n not in helps and
                       not re.match(r'http_|drop_|.*_drop|svc_udp_(too_big|need_more|'
                                    r'reject|multiseg)$', n) and
                       n not in labelled and n not in SERVICES]
            svc = fams.get('tfo_service_events_total', {}).get('samples', {})
            # http's keep the families they had as built-in counters
            # (tfo-prom OWN_FAMILY_SERVICES)
            others = {n: s for n, s in SERVICES.items() if s != 'http'}
            T.check('the services\' counters: tfo_service_events_total{service,counter}',
                    others and all('{service="%s",counter="%s"}' % (s, n) in svc
                                   for n, s in others.items()) and
                    not any('service="http"' in k for k in svc), (others, list(svc)[:4]))
            T.check('http\'s service counters in their own families: tfo_http_responses_'
                    'total, tfo_http_ocsp_hit_total',
                    'http' in SERVICES.values() and 'tfo_http_responses_total' in fams and
                    'tfo_http_ocsp_hit_total' in fams,
                    sorted(n for n in fams if n.startswith('tfo_http')))
            T.check('every counter is exported, HELP = its help [its name]', not missing,
                    missing[:5])
            h = fams.get('tfo_conns_active', {})
            T.check('HELP carries the server\'s help and the name; gauges are gauges',
                    h.get('help', '').startswith(meta['conns_active'].split(': ', 1)[1]) and
                    h.get('type') == 'gauge' and fams['tfo_pending']['type'] == 'gauge', h)
            bad = [n for n, f in fams.items() if (f['type'] == 'counter') != n.endswith('_total')
                   or not re.match(r'^tfo_[a-z0-9_]+$', n)]
            T.check('names tfo_ snake_case; counters and only counters end in _total', not bad,
                    bad[:5])
            T.check('totals by default: no lcore label but on busy seconds',
                    not [n for n, f in fams.items() if n != 'tfo_lcore_busy_seconds_total'
                         and any('lcore=' in k for k in f['samples'])])
            T.check('tfo_fastopen_passive_total = the total TCPFastOpenPassive (5 TFO opens), '
                    'HELP names TcpExtTCPFastOpenPassive',
                    fams['tfo_fastopen_passive_total']['samples'].get('') ==
                    after['TCPFastOpenPassive'] == 5 and 'TcpExtTCPFastOpenPassive' in
                    fams['tfo_fastopen_passive_total']['help'])
            drops = sum(fams['tfo_frame_drops_total']['samples'].values())
            T.check('frame drops by reason add up to rx_dropped (between the snapshots '
                    'before and after the scrape)',
                    before['rx_dropped'] <= drops <= after['rx_dropped'],
                    (before['rx_dropped'], drops, after['rx_dropped']))
            busy = fams.get('tfo_lcore_busy_seconds_total', {}).get('samples', {})
            w0 = bed.telemetry('/tfo/stats,%d' % lcores['lcore1_worker0'])
            tsc_hz = after.get('tsc_hz', 0)
            T.check('busy seconds per lcore: busy_tsc / tsc_hz (3 lcores, roles)',
                    len(busy) == 3 and tsc_hz > 0 and
                    0 < busy.get('{role="worker",lcore="1"}', 0) <= w0['busy_tsc'] / tsc_hz,
                    (busy, tsc_hz))
            lat = bed.telemetry('/tfo/latency')
            if lat:
                c = fams.get('tfo_syn_to_response_seconds', {}).get('samples', {})
                n = sum(sum(h['counts']) for h in lat['syn_to_response'].values())
                T.check('/tfo/latency: histograms, _count = +Inf bucket = the counts\' sum',
                        c.get('_count') == c.get('_bucket{le="+Inf"}') == n and
                        'tfo_request_to_response_seconds' in fams, (n, list(c)[:3]))
            else:
                T.check('no /tfo/latency on this server: no histogram, still exit 0',
                        'tfo_syn_to_response_seconds' not in fams)
            T.check('tfo_conns by state, tfo_conns_free',
                    any('state="TIME_WAIT"' in k for k in fams.get('tfo_conns', {}).get('samples', {}))
                    and len(fams.get('tfo_conns_free', {}).get('samples', {})) == 1)
            T.check('tfo_key_info carries the fingerprint',
                    any('primary="%s"' % keys['primary'] in k
                        for k in fams.get('tfo_key_info', {}).get('samples', {})))
            eth = bed.telemetry('/ethdev/stats,0')
            T.check('tfo_port_rx_packets_total and per-queue RX (2 queues) from the port',
                    fams['tfo_port_rx_packets_total']['samples'].get('{port="0"}', -1)
                    <= eth['ipackets'] and len(fams['tfo_port_rxq_packets_total']['samples']) == 2)
            T.check('mempools: sizes, and the objects in use', len(fams.get(
                'tfo_mempool_size', {}).get('samples', {})) >= 1 and
                fams['tfo_mbufs_in_use']['samples'].get('', 0) > 0)
            T.check('tfo_up 1', fams['tfo_up']['samples'].get('') == 1)

            r = subprocess.run([PROM, '--file-prefix', prefix, '--per-lcore'],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=30)
            pf, errors = parse_exposition(r.stdout)
            T.check('--per-lcore: exit 0, valid', r.returncode == 0 and not errors, errors[:3])
            promtool_check_metrics(T, r.stdout, '--per-lcore')
            s = pf['tfo_fastopen_cookie_reqd_total']['samples']
            T.check('--per-lcore: one series per lcore (role, lcore), equal to /tfo/stats',
                    len(s) == 3 and all(s.get('{role="%s",lcore="%d"}' % (
                        'control' if 'control' in name else 'worker', lc)) ==
                        after[name].get('TCPFastOpenCookieReqd', 0)
                        for name, lc in lcores.items()), s)
            T.check('--per-lcore: TCPFastOpenPassive adds up to the total',
                    sum(pf['tfo_fastopen_passive_total']['samples'].values()) ==
                    after['TCPFastOpenPassive'])

            # -- an unprivileged user: the modes of config/tfo-server.service
            unprivileged(prefix)

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
