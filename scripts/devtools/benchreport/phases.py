"""The raw files of phases 1 to 4 and 4s/4c/4f: testpmd's ceiling,
tfo-server's peak, the load types, the flood, and tfo-bench's tables."""
import json
import os
import re

from benchreport.raw import clean_reps, counters, med, reps


def testpmd(raw, hz):
    """Per repetition: forwarded Mpps (median of the 1 s samples but the
    first two and the last) and the forwarder's busy cycles per packet."""
    mpps, cyc = [], []
    files = reps(raw, 'tp_fwd_{}.log')
    use, note = clean_reps(raw, 'tp', len(files))
    for n, f in enumerate(files, 1):
        if n not in use:
            continue
        text = open(f).read()
        pps = [int(x) for x in re.findall(r'Rx-pps:\s+(\d+)', text)]
        pps = pps[2:-1] if len(pps) > 3 else pps
        g = re.search(r'CPU cycles/packet=([0-9.]+)', text)
        if not pps or not g:
            continue
        mpps.append(med(pps) / 1e6)
        cyc.append(float(g.group(1)))
    core = [hz / c / 1e6 for c in cyc]
    return {'mpps': mpps, 'cycles': cyc, 'core_mpps': core, 'note': note}


def tfo_server(raw, hz):
    r = {k: [] for k in ('txn', 'share', 'core_txn', 'core_rx_mpps', 'pkts_per_txn',
                         'errors', 'p50', 'p99')}
    files = reps(raw, 'lg_peak_{}.json')
    use, r['note'] = clean_reps(raw, 'lg_peak', len(files))
    r['all_agree'] = True
    for n, f in enumerate(files, 1):
        lg = json.load(open(f))
        a = counters(os.path.join(raw, f'tel_peak_{n}_a.json'))
        b = counters(os.path.join(raw, f'tel_peak_{n}_b.json'))
        r['errors'].append(lg['errors'])
        r['all_agree'] &= (b['TCPFastOpenPassive'] - a['TCPFastOpenPassive'] == lg['tfo'] and
                           lg['fallbacks'] == 0)
        if n not in use:
            continue
        a = counters(os.path.join(raw, f'tel_peak_{n}_a.json'))
        b = counters(os.path.join(raw, f'tel_peak_{n}_b.json'))
        d = {k: b[k] - a[k] for k in ('busy_tsc', 'rx_pkts', 'tx_pkts', 'TCPFastOpenPassive')}
        busy_s = d['busy_tsc'] / hz
        r['txn'].append(lg['txn_per_s'])
        r['share'].append(busy_s / lg['run_s'] * 100)
        r['core_txn'].append(d['TCPFastOpenPassive'] / busy_s)
        r['core_rx_mpps'].append(d['rx_pkts'] / busy_s / 1e6)
        r['pkts_per_txn'].append((d['rx_pkts'] + d['tx_pkts']) / max(d['TCPFastOpenPassive'], 1))
        r['p50'].append(lg['latency_us']['p50'])
        r['p99'].append(lg['latency_us']['p99'])
    return r


def pipeline_rows(raw, name='tb_pipeline.txt'):
    """(live, service, cksum) -> total ticks, from tfo-bench pipeline's table."""
    rows = {}
    path = os.path.join(raw, name)
    for line in open(path) if os.path.exists(path) else []:
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        if len(c) >= 12 and c[0].isdigit():
            rows[(int(c[0]), c[1], c[2])] = (float(c[7]), c[8], float(c[11]))
    return rows


def engine_mem(raw):
    """live -> B/conn, from tfo-bench engine's table."""
    rows = {}
    path = os.path.join(raw, 'tb_engine.txt')
    for line in open(path) if os.path.exists(path) else []:
        c = line.split()
        if len(c) >= 11 and c[0].isdigit():
            try:
                rows[int(c[0])] = float(c[7])
            except ValueError:
                pass
    return rows


def cookie_ratio(raw, batch=32):
    """(a) batch API / (c) raw ECB at @batch, from tfo-bench cookie's table."""
    path = os.path.join(raw, 'tb_cookie.txt')
    cols = None
    a = c = None
    for line in open(path) if os.path.exists(path) else []:
        if line.startswith('batch size'):
            cols = line.split()[2:]
        elif cols and str(batch) in cols:
            i = cols.index(str(batch)) - len(cols)
            v = line.split()
            # the IPv4 row: its label is followed by the figures at once
            if re.match(r'\(a\) batch API, aes128\s+[\d.]', line) and len(v) >= len(cols):
                a = float(v[i])
            elif line.startswith('(c) raw ipsec-mb ECB') and len(v) >= len(cols):
                c = float(v[i])
    return (a, c) if a and c else None


# load types of bench.sh's 2c, in the order of the table and the picture
LOADS = (('peak', 'TFO', ''), ('plain', 'plain', '--no-tfo 100'),
         ('cookie', 'cookie requests, no warm-up', '--cookie-req 100'),
         ('badck', 'bad cookies', '--bad-cookie 100'),
         ('mix', 'mix: 10 % TFO, 20 % cookie requests, 70 % plain',
          '--cookie-req 20 --no-tfo 70'))


def flood(raw):
    """The spoofed-SYN flood runs: the flood, the good clients, the server."""
    r = {k: [] for k in ('syn', 'synack', 'started', 'served', 'tfo', 'plain', 'tfo_p50',
                         'tfo_p99', 'plain_p50', 'plain_p99', 'syn_rexmit', 'errors',
                         'syncookies', 'to_control', 'drops', 'no_slot', 'offered',
                         'syn_drop', 'w_syncookies', 'w_to_control', 'ring_drop',
                         'tx_drop', 'spoof_other', 'spoof_sent', 'good_tx_drop')}
    for n, f in enumerate(reps(raw, 'lg_flood_{}.json'), 1):
        lg = json.load(open(f))
        c, k = lg['counters'], lg.get('by_kind', {})
        r['syn'].append(lg['spoof']['syn_per_s'])
        r['synack'].append(lg['spoof']['synack_per_s'])
        r['started'].append(c['txn_started'])
        r['served'].append(lg['transactions'])
        r['tfo'].append(k.get('tfo', {}).get('completed', 0))
        r['plain'].append(k.get('plain', {}).get('completed', 0))
        for kind in ('tfo', 'plain'):
            r[kind + '_p50'].append(k.get(kind, {}).get('p50_us', float('nan')))
            r[kind + '_p99'].append(k.get(kind, {}).get('p99_us', float('nan')))
        r['syn_rexmit'].append(c['syn_retransmits'])
        r['no_slot'].append(c['start_no_slot'])
        r['offered'].append(lg['rate'] * lg['run_s'])
        r['syn_drop'].append(lg['spoof'].get('tx_drop', 0))
        r['spoof_sent'].append(lg['spoof'].get('syn', 0))
        r['spoof_other'].append(c.get('spoof_rx_other', 0))
        # the good clients' frames its own full TX queue refused (the flood
        # fills the queue they share)
        r['good_tx_drop'].append(c.get('tx_drop_full', 0) - c.get('spoof_tx_drop', 0))
        r['errors'].append(lg['errors'])
        try:
            a = counters(os.path.join(raw, f'tel_flood_{n}_a.json'))
            b = counters(os.path.join(raw, f'tel_flood_{n}_b.json'))
            d = {x: b.get(x, 0) - a.get(x, 0) for x in b}
            r['syncookies'].append(d.get('syncookies_sent', 0))
            r['to_control'].append(d.get('to_control', 0))
            r['drops'].append(sum(v for x, v in d.items()
                                  if x.startswith('ring_drop') or x.startswith('drop_syn')))
            r['ring_drop'].append(d.get('ring_drop_full', 0))
            r['tx_drop'].append(d.get('tx_drop_full', 0))
        except (OSError, KeyError, ValueError):
            pass
        try:	# the worker's own counters (lcore 1)
            a = counters(os.path.join(raw, f'telw_flood_{n}_a.json'))
            b = counters(os.path.join(raw, f'telw_flood_{n}_b.json'))
            r['w_syncookies'].append(b.get('syncookies_sent', 0) - a.get('syncookies_sent', 0))
            r['w_to_control'].append(b.get('to_control', 0) - a.get('to_control', 0))
        except (OSError, KeyError, ValueError):
            pass
    return r


def slow_rows(raw, name='tb_pipeline_slow.txt'):
    """(cksum, load, syncookies, controls) -> dict, from tfo-bench pipeline
    --plain ... --flood [--syncookies ...] [--controls ...]."""
    rows = {}
    path = os.path.join(raw, name)
    for line in open(path) if os.path.exists(path) else []:
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        if len(c) >= 16 and c[0].isdigit() and c[4].isdigit():
            sc = c[12].split()
            rows[(c[1], c[2], c[3], int(c[4]))] = {
                'worker': float(c[5]), 'control': float(c[6]), 'busiest': float(c[7]),
                'total': float(c[8]), 'spread': c[9], 'x_tfo': float(c[10]),
                'to_ctl': float(c[11]), 'syncookies': float(sc[0]),
                'w_syncookies': float(sc[1].strip('()')) if len(sc) > 1 else float('nan'),
                'mtps': float(c[14])}
    return rows


def controls_rows(raw, name='tb_pipeline_controls.txt'):
    """(cksum, load, syncookies, controls) -> dict, from the side-by-side
    table of tfo-bench pipeline --controls."""
    rows = {}
    path = os.path.join(raw, name)
    for line in open(path) if os.path.exists(path) else []:
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        if len(c) == 11 and c[3].isdigit() and c[0] in ('offload', 'sw'):
            rows[(c[0], c[1], c[2], int(c[3]))] = {
                'sum': float(c[4]), 'x1': float(c[5]), 'per': c[6], 'busiest': float(c[7]),
                'mtps': float(c[8]), 'speedup': float(c[9]), 'per_n': float(c[10])}
    return rows
