"""Forged and stolen TFO cookies against tfo-server (hostile.py's cases
stolen, stolen-one and cookies): a cookie replayed from other addresses, one
address holding the pending opens, forged and malformed cookies.
"""
import time

from hostile_bed import (ECHO, HOLD, PENDING, PER_SOURCE, SERVER_V4,
                         SYNACK_LIFE, T, answers, delta, Host, rng, tfo_opt)
from scapy.all import IP, TCP, Raw


def case_stolen(s):
    """Valid cookies (three forged hosts asked for them) used from many ports:
    the pending limit holds exactly, the rest fall back and are not served."""
    tag = '[stolen]'
    hosts = [Host(s.mac, 50), Host(s.mac, 51), Host(s.mac, 54)]
    cookies = [s.learn_cookie(h) for h in hosts]
    s.wire.quiet()
    n = 40

    def req(i):
        return b'stolen %02d\n' % i

    # round robin over the hosts: the per-core limit (8) comes before any
    # host's own cap (4)
    frames = [hosts[i % 3].syn(31000 + i, ECHO, seq=5000 + i * 1000, data=req(i),
                               tfo=cookies[i % 3]) for i in range(n)]
    st0 = s.begin()
    t_flood = time.time()
    s.wire.send(frames, pace=0)
    time.sleep(0.1)
    mid = s.stats()
    w0, wm = s.worker(st0), s.worker(mid)
    T.check('%s pending TFO opens stop at the limit: tfo_pending = %d' % (tag, PENDING),
            wm.get('tfo_pending', 0) == PENDING, wm.get('tfo_pending'))
    T.check('%s TCPFastOpenPassive +%d exactly' % (tag, PENDING),
            delta(w0, wm, 'TCPFastOpenPassive') == PENDING, delta(w0, wm, 'TCPFastOpenPassive'))
    T.check('%s TCPFastOpenListenOverflow +%d, no host at its own cap' % (tag, n - PENDING),
            delta(w0, wm, 'TCPFastOpenListenOverflow') == n - PENDING and
            delta(w0, wm, 'tfo_pending_source_overflow') == 0)
    T.check('%s the service was called %d times, not %d (svc_calls)' % (tag, PENDING, n),
            delta(st0, mid, 'svc_calls') == PENDING, delta(st0, mid, 'svc_calls'))
    T.check('%s the %d others fell back: SYN data dropped by the control core' %
            (tag, n - PENDING),
            delta(s.control(st0), s.control(mid), 'syn_data_dropped') == n - PENDING)
    # four of the pending opens reset: held for pending_hold_ms, still counted
    rst = [hosts[i % 3].seg(31000 + i, ECHO, 'R', 5000 + i * 1000 + 1 + len(req(i)), 0)
           for i in range(4)]
    t_rst = time.time()
    s.wire.send(rst)
    time.sleep(0.1)
    s.wire.send([hosts[0].syn(31900, ECHO, seq=77, data=b'held\n', tfo=cookies[0])])
    time.sleep(0.1)
    held = s.stats()
    t_held = time.time()
    # what this asserts holds only while the unanswered opens live and the
    # resets are held: a machine too slow for that is a broken test bed
    T.check('%s the queries outran the timeouts (%.1f s of %.1f, %.1f s of %.1f)' %
            (tag, t_held - t_flood, SYNACK_LIFE, t_held - t_rst, HOLD),
            t_held - t_flood < SYNACK_LIFE and t_held - t_rst < HOLD)
    T.check('%s 4 resets: conns_closed_rst_rx +4, pending still %d (held)' % (tag, PENDING),
            delta(s.worker(mid), s.worker(held), 'conns_closed_rst_rx') == 4 and
            s.worker(held).get('tfo_pending', 0) == PENDING, s.worker(held).get('tfo_pending'))
    T.check('%s ... so the next stolen SYN still overflows' % tag,
            delta(s.worker(mid), s.worker(held), 'TCPFastOpenListenOverflow') == 1)
    # the timeouts: SYN-ACK retries and the hold
    t0 = time.time()
    while time.time() - t0 < 2 * (SYNACK_LIFE + HOLD) and \
            s.worker(s.stats()).get('tfo_pending', 0) != 0:
        time.sleep(0.2)
    late = s.stats()
    T.check('%s pending drops back to 0 after the timeouts (%.1f s)' % (tag, time.time() - t0),
            s.worker(late).get('tfo_pending', 0) == 0)
    T.check('%s ... the unanswered SYN-ACKs timed out (conns_closed_synack_timeout +%d)' %
            (tag, PENDING - 4),
            delta(s.worker(mid), s.worker(late), 'conns_closed_synack_timeout') == PENDING - 4)
    s.wire.send([hosts[0].syn(31901, ECHO, seq=99, data=b'again\n', tfo=cookies[0])])
    time.sleep(0.1)
    st, frames_in = s.end(tag)
    T.check('%s then a TFO open is accepted again' % tag,
            delta(s.worker(late), s.worker(st), 'TCPFastOpenPassive') == 1)
    data_synacks = [p for h in hosts for p in answers(frames_in, h.ip)
                    if p[TCP].flags & 0x12 == 0x12 and
                    len(p[TCP].payload) > 0 and 31000 <= p[TCP].dport < 31000 + n]
    T.check('%s on the wire: %d SYN-ACKs carried a response, all to accepted opens' %
            (tag, len({p[TCP].dport for p in data_synacks})),
            len({p[TCP].dport for p in data_synacks}) == PENDING)
    T.check('%s svc_calls over the case: %d' % (tag, PENDING + 1),
            delta(st0, st, 'svc_calls') == PENDING + 1, delta(st0, st, 'svc_calls'))
    s.good_client(tag)
    s.drained(tag)


def case_stolen_one(s):
    """One stolen cookie flooded from its one address: that address stops at
    its own cap (tfo.pending_per_source) and falls back alone; TFO goes on
    for everyone else, its response in the SYN-ACK (issue "Held by one
    address", item 3)."""
    tag = '[stolen-one]'
    h, other = Host(s.mac, 55), Host(s.mac, 56)
    cookie = s.learn_cookie(h)
    other_cookie = s.learn_cookie(other, sport=30001)
    s.wire.quiet()
    n = 40
    frames = [h.syn(32000 + i, ECHO, seq=7000 + i * 1000, data=b'flood %02d\n' % i,
                    tfo=cookie) for i in range(n)]
    st0 = s.begin()
    t_flood = time.time()
    s.wire.send(frames, pace=0)
    time.sleep(0.1)
    # another address while the flood's opens are pending
    s.wire.send([other.syn(32900, ECHO, seq=4242, data=b'other\n', tfo=other_cookie)])
    time.sleep(0.1)
    mid = s.stats()
    t_mid = time.time()
    w0, wm = s.worker(st0), s.worker(mid)
    T.check('%s the queries outran the SYN-ACK retries (%.1f s of %.1f)' %
            (tag, t_mid - t_flood, SYNACK_LIFE), t_mid - t_flood < SYNACK_LIFE)
    T.check('%s the flood stops at its address\'s cap: TCPFastOpenPassive +%d +1 (the other)'
            % (tag, PER_SOURCE), delta(w0, wm, 'TCPFastOpenPassive') == PER_SOURCE + 1,
            delta(w0, wm, 'TCPFastOpenPassive'))
    T.check('%s tfo_pending_source_overflow +%d, TCPFastOpenListenOverflow +0' %
            (tag, n - PER_SOURCE),
            delta(w0, wm, 'tfo_pending_source_overflow') == n - PER_SOURCE and
            delta(w0, wm, 'TCPFastOpenListenOverflow') == 0,
            (delta(w0, wm, 'tfo_pending_source_overflow'),
             delta(w0, wm, 'TCPFastOpenListenOverflow')))
    T.check('%s pending: %d of the flood + 1' % (tag, PER_SOURCE),
            wm.get('tfo_pending', 0) == PER_SOURCE + 1, wm.get('tfo_pending'))
    T.check('%s the %d others fell back: SYN data dropped by the control core' %
            (tag, n - PER_SOURCE),
            delta(s.control(st0), s.control(mid), 'syn_data_dropped') == n - PER_SOURCE)
    got = [p for p in answers(s.wire.since(s.m)[1], other.ip, 32900)
           if p[TCP].flags & 0x12 == 0x12]
    T.check('%s the other address: its response in the SYN-ACK' % tag,
            any(bytes(p[TCP].payload).startswith(b'other\n') and p[TCP].ack == 4242 + 7
                for p in got), [bytes(p[TCP].payload) for p in got])
    # the other one completes; the flood's opens time out
    s.wire.send([other.seg(32900, ECHO, 'R', 4242 + 7, 0)])
    s.good_client(tag)
    t0 = time.time()
    while time.time() - t0 < 2 * (SYNACK_LIFE + HOLD) and \
            s.worker(s.stats()).get('tfo_pending', 0) != 0:
        time.sleep(0.2)
    st, _ = s.end(tag)
    T.check('%s pending drops back to 0 (%.1f s)' % (tag, time.time() - t0),
            s.worker(st).get('tfo_pending', 0) == 0)
    T.check('%s the flood\'s unanswered SYN-ACKs timed out (+%d)' % (tag, PER_SOURCE),
            delta(s.worker(st0), s.worker(st), 'conns_closed_synack_timeout') == PER_SOURCE)
    s.drained(tag)


def case_cookies(s):
    """Invalid cookies of every length and form, a wrong key, a retired key, kind
    254 with another magic; the backup key's cookie is the one accepted."""
    tag = '[cookies]'
    h = Host(s.mac, 60)
    real = s.learn_cookie(h)
    s.wire.quiet()
    bad = {}
    for n in (1, 2, 3, 5, 7, 9, 11, 13, 15, 17, 18):
        bad['length %d' % n] = dict(tfo=bytes(rng.getrandbits(8) for _ in range(n)))
    for n in (4, 6, 16):
        bad['length %d, valid length, not ours' % n] = dict(
            tfo=bytes(rng.getrandbits(8) for _ in range(n)))
    bad['wrong key'] = dict(tfo=bytes(rng.getrandbits(8) for _ in range(8)))
    bad['kind 254, right magic, wrong cookie'] = dict(
        tfo=bytes(rng.getrandbits(8) for _ in range(8)), exp=True)
    frames, port = [], 32000
    for name, kw in bad.items():
        frames.append(h.syn(port, ECHO, seq=port, data=b'bad cookie\n', **kw))
        port += 1
    wrong_magic = h.eth() / IP(src=h.ip, dst=SERVER_V4) / TCP(
        sport=port, dport=ECHO, flags='S', seq=port,
        options=[('MSS', 1460), (254, b'\xf9\x90' + real)]) / Raw(b'other magic\n')
    frames.append(bytes(wrong_magic))
    port += 1
    st0 = s.begin()
    s.wire.send(frames)
    s.wire.quiet()
    mid = s.stats()
    keys0 = s.bed.telemetry('/tfo/keys')
    s.bed.telemetry('/tfo/rotate')
    s.wire.send([h.syn(port, ECHO, seq=port, data=b'backup key\n', tfo=real)])
    time.sleep(0.2)
    s.bed.telemetry('/tfo/rotate')
    s.wire.send([h.syn(port + 1, ECHO, seq=port + 1, data=b'retired key\n', tfo=real)])
    st, frames_in = s.end(tag)
    keys1 = s.bed.telemetry('/tfo/keys')
    nbad = len(bad)
    w0, wm, w1 = s.worker(st0), s.worker(mid), s.worker(st)
    T.check('%s %d invalid cookies (odd, too short, too long, not ours, wrong key, kind '
            '254): TCPFastOpenPassiveFail +%d' % (tag, nbad, nbad),
            delta(w0, wm, 'TCPFastOpenPassiveFail') == nbad, delta(w0, wm, 'TCPFastOpenPassiveFail'))
    T.check('%s none of their data reached the service' % tag,
            delta(st0, mid, 'svc_calls') == 0 and delta(st0, mid, 'TCPFastOpenPassive') == 0)
    T.check('%s all %d fell back: SYN-ACKs acking only the SYN (syn_data_dropped +%d)' %
            (tag, nbad + 1, nbad + 1),
            delta(s.control(st0), s.control(mid), 'syn_data_dropped') == nbad + 1)
    fb = {}
    for p in answers(frames_in, h.ip):
        if p[TCP].flags & 0x12 == 0x12 and 32000 <= p[TCP].dport < port:
            fb.setdefault(p[TCP].dport, p)
    acks_only_syn = all(p[TCP].ack == p[TCP].dport + 1 and len(p[TCP].payload) == 0
                        for p in fb.values())
    T.check('%s on the wire: %d fallback SYN-ACKs, each acks only the SYN' % (tag, len(fb)),
            len(fb) == nbad + 1 and acks_only_syn)
    offered = [tfo_opt(fb[32000 + i]) for i in range(nbad) if 32000 + i in fb]
    T.check('%s ... and offers a fresh 8-byte cookie for the bad ones' % tag,
            len(offered) == nbad and all(c is not None and len(c) == 8 for c in offered))
    T.check('%s kind 254 with another magic is not TFO (no cookie offered)' % tag,
            port - 1 in fb and tfo_opt(fb[port - 1]) is None)
    T.check('%s rotation: the backup key\'s cookie accepted (TCPFastOpenPassiveAltKey +1)' %
            tag, delta(wm, w1, 'TCPFastOpenPassiveAltKey') == 1 and
            keys1.get('generation', 0) == keys0.get('generation', 0) + 2)
    T.check('%s the retired key\'s cookie refused (TCPFastOpenPassiveFail +1)' % tag,
            delta(wm, w1, 'TCPFastOpenPassiveFail') == 1)
    T.check('%s svc_calls +1 over the case (the backup-key open)' % tag,
            delta(st0, st, 'svc_calls') == 1, delta(st0, st, 'svc_calls'))
    # the kernel client's cookie is retired too: one fallback, then TFO again
    r = s.bed.client(SERVER_V4, ECHO, '--data', 'relearn\\n', '--expect-echo')
    T.check('%s the good client, its cookie retired, falls back and is served' % tag, r['ok'], r)
    s.good_client(tag)
    s.drained(tag)
