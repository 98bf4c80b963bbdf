#!/usr/bin/python3
"""TFO end to end with the Linux kernel as the client (suite tap, root).

    tfo_e2e.py TFO_SERVER [CASE...]

Cases (issue "TFO end to end"): cookie (first connection gets a cookie),
tfo (second connection: request in the SYN, response in our first packet),
big (request larger than the SYN budget), rotate (backup key, then retired
key and fallback), overflow (pending limit 0), ipv6, plain (no TFO; and curl
--tcp-fastopen twice). Each case runs in a fresh namespace (fresh cookie
cache and counters).
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import (Bed, Checks, SERVER_V4, SERVER_V6, describe, flows,  # noqa: E402
                    need_root)

ECHO = 7
HTTP = 80
WWW_INDEX = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                         'config', 'www', 'index.html')
T = Checks()


def first_flow_from(pkts, cport=None):
    fl = flows(pkts)
    if cport is not None:
        return fl.get(cport, [])
    return next(iter(fl.values()), [])


def counters(bed):
    return bed.stats()


def delta(after, before, name):
    return after.get(name, 0) - before.get(name, 0)


def syn_and_first_answer(flow):
    syn = next((p for p in flow if p['dir'] == 'c2s' and p['flags'] == 'S'), None)
    ans = next((p for p in flow if p['dir'] == 's2c'), None)
    return syn, ans


def learn_cookie(bed, host, port=ECHO, tag=''):
    """Case 1: a first connection asks for a cookie and gets ours."""
    cap = bed.capture()
    r = bed.client(host, port, '--data', 'first %s\\n' % tag, '--expect-echo')
    pk = cap.packets()
    T.check('%s first connection served (echo byte-exact)' % tag, r['ok'], r)
    syn, ans = syn_and_first_answer(first_flow_from(pk))
    T.check('%s first SYN asks for a cookie' % tag, syn is not None and syn['tfo'] == 'req',
            syn and syn['tfo'])
    cookie = ans['tfo'] if ans else None
    T.check('%s SYN-ACK carries an 8-byte cookie' % tag,
            ans is not None and 'S' in ans['flags'] and cookie not in (None, 'req')
            and len(cookie) == 16, ans and ans['tfo'])
    T.check('%s SYN-ACK carries no data (no TFO data yet)' % tag, ans is not None and ans['len'] == 0)
    T.check('%s SYN-ACK echoes the SYN TSval in TSecr' % tag,
            syn is not None and ans is not None and syn['ts'] and ans['ts']
            and ans['ts'][1] == syn['ts'][0], (syn and syn['ts'], ans and ans['ts']))
    T.check('%s SYN-ACK MSS is our real MSS' % tag,
            ans is not None and ans['mss'] in (1460, 1440), ans and ans['mss'])
    m = bed.tcp_metrics()
    T.check('%s kernel cached our cookie (ip tcp_metrics)' % tag,
            cookie is not None and ('fo_cookie %s' % cookie) in m, m)
    return cookie


def tfo_transaction(bed, host, port=ECHO, tag='', data='hello in the SYN\\n', want_tfo=True):
    """Case 2: the request rides in the SYN, the response in our first packet."""
    before = counters(bed)
    nbefore = bed.nstat()
    cap = bed.capture()
    r = bed.client(host, port, '--data', data, '--expect-echo')
    pk = cap.packets()
    after = counters(bed)
    nafter = bed.nstat()
    T.check('%s TFO connection served (echo byte-exact)' % tag, r['ok'], r)
    flow = first_flow_from(pk)
    syn, ans = syn_and_first_answer(flow)
    req_len = len(data.encode().decode('unicode_escape'))
    T.check('%s SYN carries the cookie and the request' % tag,
            syn is not None and syn['tfo'] not in (None, 'req') and syn['len'] == req_len,
            syn and (syn['tfo'], syn['len']))
    if not want_tfo:
        return flow, after, before
    T.check('%s our first packet is a SYN-ACK carrying the whole response' % tag,
            ans is not None and 'S' in ans['flags'] and 'A' in ans['flags']
            and ans['len'] == req_len, ans and (ans['flags'], ans['len']))
    T.check('%s ... that acks the SYN and all its data' % tag,
            ans is not None and syn is not None
            and ans['ack'] == (syn['seq'] + 1 + req_len) & 0xffffffff)
    T.check('%s ... with FIN (echo closes)' % tag, ans is not None and 'F' in ans['flags'])
    T.check('%s ... TSecr = the SYN TSval' % tag,
            ans is not None and syn is not None and ans['ts'] and ans['ts'][1] == syn['ts'][0])
    T.check('%s ... the response bytes are the request' % tag,
            ans is not None and ans['payload'] == data.encode().decode('unicode_escape').encode('latin-1'))
    T.check('%s client TcpExtTCPFastOpenActive +1' % tag,
            delta(nafter, nbefore, 'TcpExtTCPFastOpenActive') == 1,
            delta(nafter, nbefore, 'TcpExtTCPFastOpenActive'))
    T.check('%s server TCPFastOpenPassive +1' % tag,
            delta(after, before, 'TCPFastOpenPassive') == 1, delta(after, before, 'TCPFastOpenPassive'))
    return flow, after, before


def case_cookie_and_tfo(server, host, tag):
    with Bed(server) as bed:
        cookie = learn_cookie(bed, host, tag=tag)
        flow, after, before = tfo_transaction(bed, host, tag=tag)
        print('%s capture of the TFO exchange:' % tag)
        print(describe(flow))
        T.check('%s TFO connection handled by the fast path (a worker)' % tag,
                any(k.startswith('lcore') and 'worker' in k and v.get('TCPFastOpenPassive', 0) >= 1
                    for k, v in after.items() if isinstance(v, dict)))
        T.check('%s cookie unchanged (primary-key hit offers none)' % tag,
                cookie is not None and ('fo_cookie %s' % cookie) in bed.tcp_metrics())
        T.check('%s server stops with exit code 0' % tag, bed.stop() == 0)


def case_big():
    with Bed(server) as bed:
        learn_cookie(bed, SERVER_V4, tag='[big]')
        before = counters(bed)
        cap = bed.capture()
        r = bed.client(SERVER_V4, ECHO, '--line', '3000', '--expect-echo', timeout=10)
        pk = cap.packets()
        after = counters(bed)
        T.check('[big] 3000-byte request served byte-exact', r['ok'] and r['received'] == 3000, r)
        T.check('[big] no stall (< 500 ms)', r.get('elapsed_ms', 1e9) < 500, r.get('elapsed_ms'))
        syn, ans = syn_and_first_answer(first_flow_from(pk))
        T.check('[big] SYN carried MSS-40 = 1420 bytes of it', syn is not None and syn['len'] == 1420,
                syn and syn['len'])
        T.check('[big] SYN-ACK acks the SYN data, no response yet',
                ans is not None and ans['len'] == 0 and syn is not None
                and ans['ack'] == (syn['seq'] + 1 + syn['len']) & 0xffffffff)
        T.check('[big] TCPFastOpenPassive +1', delta(after, before, 'TCPFastOpenPassive') == 1)
        T.check('[big] no retransmission from us',
                delta(after, before, 'retransmits') == 0 if 'retransmits' in after else True)


def rotate(bed):
    before = bed.telemetry('/tfo/keys')
    after = bed.telemetry('/tfo/rotate')
    T.check('[rotate] /tfo/rotate made a new primary, old primary is backup',
            after.get('generation', 0) == before.get('generation', 0) + 1
            and after.get('backup') == before.get('primary'), (before, after))


def case_rotate():
    with Bed(server) as bed:
        c1 = learn_cookie(bed, SERVER_V4, tag='[rotate]')
        keys = bed.telemetry('/tfo/keys')
        T.check('[rotate] /tfo/keys shows fingerprints, not keys',
                len(keys.get('primary', '')) == 16 and c1 not in str(keys), keys)
        rotate(bed)
        before = counters(bed)
        cap = bed.capture()
        r = bed.client(SERVER_V4, ECHO, '--data', 'backup key\\n', '--expect-echo')
        pk = cap.packets()
        after = counters(bed)
        syn, ans = syn_and_first_answer(first_flow_from(pk))
        T.check('[rotate] old cookie still works after one rotation (TFO)',
                r['ok'] and ans is not None and ans['len'] > 0, (r, ans and ans['len']))
        T.check('[rotate] TCPFastOpenPassiveAltKey +1', delta(after, before, 'TCPFastOpenPassiveAltKey') == 1)
        T.check('[rotate] the SYN-ACK offered a fresh primary cookie',
                ans is not None and ans['tfo'] not in (None, 'req', c1), ans and ans['tfo'])
        c2 = ans['tfo'] if ans else None
        T.check('[rotate] the client replaced its cached cookie',
                c2 is not None and ('fo_cookie %s' % c2) in bed.tcp_metrics())
        rotate(bed)
        rotate(bed)
        before = counters(bed)
        cap = bed.capture()
        r = bed.client(SERVER_V4, ECHO, '--data', 'retired key\\n', '--expect-echo')
        pk = cap.packets()
        after = counters(bed)
        flow = first_flow_from(pk)
        syn, ans = syn_and_first_answer(flow)
        T.check('[rotate] retired cookie: TCPFastOpenPassiveFail +1',
                delta(after, before, 'TCPFastOpenPassiveFail') == 1)
        T.check('[rotate] fallback SYN-ACK acks only the SYN and offers a new cookie',
                ans is not None and syn is not None and ans['len'] == 0
                and ans['ack'] == (syn['seq'] + 1) & 0xffffffff and ans['tfo'] not in (None, 'req'),
                ans and (ans['ack'], ans['tfo']))
        T.check('[rotate] the client re-sent its data and was served', r['ok'], r)
        T.check('[rotate] ... quickly (no 1 s stall)', r.get('elapsed_ms', 1e9) < 500, r.get('elapsed_ms'))
        c3 = ans['tfo'] if ans else None
        T.check('[rotate] the client learned the new cookie',
                c3 is not None and ('fo_cookie %s' % c3) in bed.tcp_metrics())
        tfo_transaction(bed, SERVER_V4, tag='[rotate] next connection:')


def case_overflow():
    with Bed(server, ['--pending-limit', '0']) as bed:
        learn_cookie(bed, SERVER_V4, tag='[overflow]')
        before = counters(bed)
        cap = bed.capture()
        r = bed.client(SERVER_V4, ECHO, '--data', 'over the limit\\n', '--expect-echo')
        pk = cap.packets()
        after = counters(bed)
        syn, ans = syn_and_first_answer(first_flow_from(pk))
        T.check('[overflow] served by fallback', r['ok'], r)
        T.check('[overflow] SYN carried cookie + data', syn is not None and syn['len'] > 0)
        T.check('[overflow] SYN-ACK acks only the SYN, no cookie offered',
                ans is not None and syn is not None and ans['len'] == 0 and ans['tfo'] is None
                and ans['ack'] == (syn['seq'] + 1) & 0xffffffff, ans and (ans['ack'], ans['tfo']))
        T.check('[overflow] TCPFastOpenListenOverflow +1',
                delta(after, before, 'TCPFastOpenListenOverflow') == 1)
        T.check('[overflow] TCPFastOpenPassive unchanged', delta(after, before, 'TCPFastOpenPassive') == 0)
        T.check('[overflow] no 1 s stall', r.get('elapsed_ms', 1e9) < 500, r.get('elapsed_ms'))


def case_plain():
    with Bed(server) as bed:
        r = bed.client(SERVER_V4, ECHO, '--mode', 'plain', '--data', 'plain connect\\n', '--expect-echo')
        T.check('[plain] connect() without TFO served', r['ok'], r)
        r = bed.client(SERVER_V6, ECHO, '--mode', 'plain', '--data', 'plain v6\\n', '--expect-echo')
        T.check('[plain] IPv6 connect() without TFO served', r['ok'], r)
        r = bed.client(SERVER_V4, ECHO, '--mode', 'connect', '--data', 'fastopen connect\\n', '--expect-echo')
        T.check('[plain] TCP_FASTOPEN_CONNECT (cookie request) served', r['ok'], r)
        r = bed.client(SERVER_V4, ECHO, '--mode', 'connect', '--data', 'fastopen connect 2\\n', '--expect-echo')
        T.check('[plain] TCP_FASTOPEN_CONNECT again served', r['ok'], r)
        body = open(WWW_INDEX, 'rb').read()
        for i in (1, 2):
            before = bed.nstat()
            cap = bed.capture()
            c = bed.ns_run(['curl', '-sS', '--tcp-fastopen', '-o', '-', '--max-time', '5',
                            'http://%s/' % SERVER_V4], check=False)
            pk = cap.packets()
            after = bed.nstat()
            T.check('[plain] curl --tcp-fastopen #%d: body byte-exact' % i,
                    c.returncode == 0 and c.stdout.encode() == body, (c.returncode, c.stderr[-200:]))
            syn, ans = syn_and_first_answer(first_flow_from(pk))
            if i == 2:
                T.check('[plain] curl #2: the SYN carries the HTTP request',
                        syn is not None and syn['len'] > 0 and syn['payload'].startswith(b'GET / HTTP/1.1'),
                        syn and syn['len'])
                T.check('[plain] curl #2: TcpExtTCPFastOpenActive +1',
                        delta(after, before, 'TcpExtTCPFastOpenActive') == 1)
                T.check('[plain] curl #2: our first packet carries the response',
                        ans is not None and 'S' in ans['flags'] and ans['payload'].startswith(b'HTTP/1.1 200'),
                        ans and ans['payload'][:20])


CASES = {
    'cookie+tfo': lambda: case_cookie_and_tfo(server, SERVER_V4, '[v4]'),
    'big': case_big,
    'rotate': case_rotate,
    'overflow': case_overflow,
    'ipv6': lambda: case_cookie_and_tfo(server, SERVER_V6, '[v6]'),
    'plain': case_plain,
}

if __name__ == '__main__':
    need_root()
    server = os.path.abspath(sys.argv[1])
    for name in sys.argv[2:] or CASES:
        print('== %s' % name)
        sys.stdout.flush()
        try:
            CASES[name]()
        except Exception as e:  # a broken case must fail, not hide the rest
            T.check('%s ran without exception' % name, False, repr(e))
    sys.exit(T.done())
