"""SYN floods against tfo-server (hostile.py's cases synflood, wsynflood
and dupsyn): the SYN-cookie reserve and the pending limit under a flood, the
workers' SYN cookies (syncookies = always), duplicate SYNs answered once.
"""
import threading
import time

from hostile_bed import (ECHO, HTTP, MAX_CONNS, SERVER_V4, T,
                         answers, delta, Host, rng, tcp_of)
from tfotap import CLIENT_V4
from scapy.all import IP, TCP, Ether


def case_synflood(s):
    """Spoofed SYNs without cookies: the control core's table fills down to its
    reserve, then SYN cookies; no worker state; good clients served meanwhile."""
    tag = '[synflood]'
    n = 600
    frames = []
    for i in range(n):
        h = Host(s.mac, 100 + i % 100)
        frames.append(h.syn(20000 + i, HTTP, seq=rng.getrandbits(32)))
    st0 = s.begin()
    s.wire.send(frames)
    # during the flood (the half-open entries live SYNACK_LIFE): a plain client
    r = s.bed.client(SERVER_V4, ECHO, '--mode', 'plain', '--data', 'during the flood\\n',
                     '--expect-echo')
    mid = s.stats()
    T.check('%s a plain client is served while the table is full (SYN cookie)' % tag,
            r['ok'], r)
    # checked on the control core (its own SYN cookie) or on the worker
    # (syncookies = auto: the worker answers once the control core is down to
    # its reserve)
    T.check('%s ... by a SYN cookie: syncookies_ok or syncookie_ack_ok +1, '
            'conns_opened_syncookie +1' % tag,
            delta(st0, mid, 'syncookies_ok') + delta(st0, mid, 'syncookie_ack_ok') >= 1 and
            delta(st0, mid, 'conns_opened_syncookie') >= 1)
    st, frames_in = s.end(tag)
    c0, c1 = s.control(st0), s.control(st)
    w0, w1 = s.worker(st0), s.worker(st)
    plain = delta(c0, c1, 'conns_opened_plain')
    cookies = delta(c0, c1, 'syncookies_sent') + delta(w0, w1, 'syncookies_sent')
    T.check('%s every spoofed SYN answered: half-open entries %d + SYN cookies %d (worker '
            '%d) = %d + 1 (the plain client)' % (tag, plain, cookies,
                                                 delta(w0, w1, 'syncookies_sent'), n),
            plain + cookies == n + 1)
    T.check('%s half-open entries stop at the reserve (%d of %d)' % (tag, plain, MAX_CONNS),
            plain <= MAX_CONNS - MAX_CONNS // 4)
    T.check('%s no connection refused for a full pool' % tag,
            delta(c0, c1, 'conn_pool_full') == 0)
    T.check('%s no worker state: the worker opened nothing, passed on or answered %d SYNs' %
            (tag, n),
            delta(w0, w1, 'conns_opened_tfo') + delta(w0, w1, 'conns_opened_plain') == 0 and
            delta(w0, w1, 'to_control') + delta(w0, w1, 'syncookies_sent') >= n)
    synacks = 0
    for f in frames_in:
        p = tcp_of(f)
        if p is not None and p.haslayer(IP) and p[TCP].flags == 'SA' and p[IP].dst != CLIENT_V4:
            synacks += 1
    T.check('%s a SYN-ACK on the wire for each spoofed SYN (%d, with retransmissions)' %
            (tag, synacks), synacks >= n)
    s.good_client(tag)
    s.drained(tag)


def case_wsynflood(s):
    """syncookies = always (a server of its own): a spoofed SYN flood from
    random addresses of 198.18.0.0/15 and ports is answered by the worker
    with SYN cookies; nothing reaches the control core's ring or table; a
    plain and a TFO client are served during the flood; forged ACKs with a
    bad SYN cookie create nothing; a forged host that completes the handshake
    gets exactly one connection."""
    tag = '[wsynflood]'
    n = 3000
    frames = []
    for i in range(n):
        src = '198.18.%d.%d' % (rng.randint(1, 254), rng.randint(1, 254))
        frames.append(bytes(Ether(src='02:00:00:bb:%02x:%02x' % (i >> 8, i & 0xff), dst=s.mac) /
                            IP(src=src, dst=SERVER_V4) /
                            TCP(sport=rng.randint(1024, 65535), dport=HTTP, flags='S',
                                seq=rng.getrandbits(32),
                                options=[('MSS', 1460), ('SAckOK', b''),
                                         ('Timestamp', (rng.getrandbits(32), 0)),
                                         ('NOP', None), ('WScale', 7)])))
    st0 = s.begin()
    flood = threading.Thread(target=s.wire.send, args=(frames,))
    flood.start()
    r = s.bed.client(SERVER_V4, ECHO, '--mode', 'plain', '--data', 'during the flood\n',
                     '--expect-echo')
    T.check('%s a plain client is served during the flood' % tag, r['ok'], r)
    r = s.bed.client(SERVER_V4, ECHO, '--data', 'tfo during the flood\n', '--expect-echo')
    T.check('%s a TFO client is served during the flood' % tag, r['ok'], r)
    flood.join()
    s.wire.quiet()
    # forged ACKs: a bad SYN cookie for a flooded tuple, then a forged host
    # that completes its handshake from the SYN-ACK it saw
    h = Host(s.mac, 77)
    mark = s.wire.mark()
    s.wire.send([h.seg(45000 + i, HTTP, 'A', 5001, rng.getrandbits(32)) for i in range(20)])
    s.wire.send([h.syn(46000, ECHO, seq=9000)])
    sa = None
    for _ in range(40):
        time.sleep(0.05)
        got = [p for p in answers(s.wire.since(mark)[1], h.ip, 46000) if p[TCP].flags == 'SA']
        if got:
            sa = got[0]
            break
    T.check('%s the forged host got a SYN-ACK' % tag, sa is not None)
    if sa is not None:
        tsval = next((v[0] for k, v in sa[TCP].options if k == 'Timestamp'), 0)
        s.wire.send([h.seg(46000, ECHO, 'A', 9001, sa[TCP].seq + 1,
                           opts=[('NOP', None), ('NOP', None), ('Timestamp', (1001, tsval))])])
        time.sleep(0.2)
        s.wire.send([h.seg(46000, ECHO, 'PA', 9001, sa[TCP].seq + 1, data=b'forged\n',
                           opts=[('NOP', None), ('NOP', None), ('Timestamp', (1002, tsval))])])
    st, frames_in = s.end(tag)
    c0, c1 = s.control(st0), s.control(st)
    w0, w1 = s.worker(st0), s.worker(st)
    ws = delta(w0, w1, 'syncookies_sent')
    # a slow server (sanitizers) lets the tap drop some of the flood before
    # it: every spoofed SYN that reached it is answered, and most reach it
    lost = s.dropped
    T.check('%s the worker answered every spoofed SYN that reached it with a SYN cookie '
            '(syncookies_sent +%d >= %d sent - %d dropped by the tap)' % (tag, ws, n, lost),
            ws >= n - lost and lost < n // 2, ws)
    T.check('%s ring_drop_full +0' % tag, delta(st0, st, 'ring_drop_full') == 0)
    T.check('%s the control core created nothing for the flood: conns_opened_plain +0, '
            'syncookies_sent +0, ctrl_rx +%d' % (tag, delta(c0, c1, 'ctrl_rx')),
            delta(c0, c1, 'conns_opened_plain') == 0 and
            delta(c0, c1, 'syncookies_sent') == 0 and delta(c0, c1, 'ctrl_rx') < 100)
    T.check('%s two SYN-cookie connections (the plain client, the forged host): '
            'conns_opened_syncookie +%d, syncookie_ack_ok +%d' %
            (tag, delta(c0, c1, 'conns_opened_syncookie'), delta(w0, w1, 'syncookie_ack_ok')),
            delta(c0, c1, 'conns_opened_syncookie') == 2 and
            delta(w0, w1, 'syncookie_ack_ok') >= 2)
    T.check('%s 20 forged ACKs with a bad SYN cookie: syncookie_ack_bad +%d, answered by '
            'RSTs (rst_tx_nomatch +%d)' % (tag, delta(w0, w1, 'syncookie_ack_bad'),
                                          delta(c0, c1, 'rst_tx_nomatch')),
            delta(w0, w1, 'syncookie_ack_bad') >= 20 and delta(c0, c1, 'rst_tx_nomatch') >= 20)
    got = b''.join(bytes(p[TCP].payload) for p in answers(frames_in, h.ip, 46000))
    T.check('%s the forged host that completed the handshake was served' % tag,
            b'forged\n' in got, got[:40])
    synacks = sum(1 for f in frames_in
                  if (lambda p: p is not None and p.haslayer(IP) and p[TCP].flags == 'SA')(
                      tcp_of(f)))
    T.check('%s a SYN-ACK on the wire for each spoofed SYN that reached the server (%d)'
            % (tag, synacks), synacks >= n - lost)
    s.wire.send([h.seg(46000, ECHO, 'R', 9001 + 7, 0)])
    s.good_client(tag)
    s.drained(tag)


def case_dupsyn(s):
    """The same SYN+data again and again for a live TFO connection: the service
    is called once; the first flight is re-sent, at most once per 500 ms (a
    duplicate sooner is TCPACKSkippedSynRecv, as Linux); after the handshake a
    duplicate gets a challenge ACK."""
    tag = '[dupsyn]'
    h = Host(s.mac, 70)
    cookie = s.learn_cookie(h)
    s.wire.quiet()
    syn = h.syn(35000, ECHO, seq=9000, data=b'only once\n', tfo=cookie)
    st0 = s.begin()
    s.wire.send([syn, syn], pace=0)       # back to back: likely one burst
    time.sleep(0.15)
    s.wire.send([syn])                    # within 500 ms of the last answer: none
    time.sleep(0.6)
    s.wire.send([syn])
    time.sleep(0.15)
    got = [p for p in answers(s.wire.since(s.m)[1], h.ip, 35000) if p[TCP].flags & 0x12 == 0x12]
    # (the timer's retransmission at 500 ms is a bare SYN-ACK)
    flights = [p for p in got if bytes(p[TCP].payload) == b'only once\n']
    T.check('%s the SYN, its first duplicate and one 750 ms later answered with the first '
            'flight (%d of %d SYN-ACKs with the response)' % (tag, len(flights), len(got)),
            len(flights) == 3 and all(len(p[TCP].payload) == 0 for p in got if p not in flights))
    isn = got[0][TCP].seq if got else 0
    fin = 1 if got and got[0][TCP].flags & 0x01 else 0
    s.wire.send([h.seg(35000, ECHO, 'A', 9011, isn + 1 + 10 + fin)])
    time.sleep(0.15)
    s.wire.send([syn])
    time.sleep(0.15)
    s.wire.send([h.seg(35000, ECHO, 'FA', 9011, isn + 1 + 10 + fin)])
    st, _ = s.end(tag)
    T.check('%s the service was called once (svc_calls +1)' % tag,
            delta(st0, st, 'svc_calls') == 1, delta(st0, st, 'svc_calls'))
    T.check('%s dup_syn +3 (the first duplicate may share the burst), one of them '
            'TCPACKSkippedSynRecv, TFO +1' % tag,
            delta(st0, st, 'dup_syn') == 3 and delta(st0, st, 'TCPACKSkippedSynRecv') == 1 and
            delta(st0, st, 'TCPFastOpenPassive') == 1,
            (delta(st0, st, 'dup_syn'), delta(st0, st, 'TCPACKSkippedSynRecv'),
             delta(st0, st, 'TCPFastOpenPassive')))
    T.check('%s a duplicate after the handshake: challenge ACK (drop_syn_bad +1)' % tag,
            delta(st0, st, 'drop_syn_bad') == 1, delta(st0, st, 'drop_syn_bad'))
    s.good_client(tag)
    s.drained(tag)
