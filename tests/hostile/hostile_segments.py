"""Frames no client sends, against tfo-server (hostile.py's cases nonsyn,
malformed, rstflood and pmtu): segments without a connection, malformed
frames of every layer, RST and ACK floods, forged path-MTU errors.
"""
import json
import os
import struct
import subprocess
import time

from hostile_bed import (ECHO, HERE, HTTP, SERVER_V4, T, answers,
                         delta, Host, rng, tcp_of)
from tfotap import CLIENT_V4
from scapy.all import (ICMP, IP, IPv6, TCP, UDP, Ether, Raw, IPv6ExtHdrDestOpt,
                       IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                       IPv6ExtHdrRouting)


def case_nonsyn(s):
    """TFO options where they mean nothing: in a data segment of a live
    connection, in an ACK of no connection, in a SYN-ACK sent to us."""
    tag = '[nonsyn]'
    h = Host(s.mac, 61)
    st0 = s.begin()
    # a plain handshake from the forged host, then data carrying a TFO option
    s.wire.send([h.syn(33000, ECHO, seq=700)])
    time.sleep(0.2)
    sa = [p for p in answers(s.wire.since(s.m)[1], h.ip, 33000) if p[TCP].flags == 'SA']
    T.check('%s handshake answered' % tag, len(sa) >= 1)
    isn = sa[0][TCP].seq if sa else 0
    s.wire.send([h.seg(33000, ECHO, 'A', 701, isn + 1),
                 h.seg(33000, ECHO, 'PA', 701, isn + 1, b'with a cookie option\n',
                       opts=[('TFO', b'\x11' * 8)])])
    time.sleep(0.2)
    echo = [p for p in answers(s.wire.since(s.m)[1], h.ip, 33000)
            if bytes(p[TCP].payload) == b'with a cookie option\n']
    T.check('%s data with a TFO option on a live connection: served normally' % tag,
            len(echo) >= 1)
    if echo:
        e = echo[0][TCP]
        s.wire.send([h.seg(33000, ECHO, 'FA', 701 + 21, e.seq + len(e.payload) + 1)])
    mid = s.stats()
    # an ACK with a cookie for no connection; a SYN-ACK with a cookie to us
    s.wire.send([h.seg(33001, ECHO, 'A', 1, 12345, opts=[('TFO', b'\x22' * 8)]),
                 h.seg(33002, ECHO, 'SA', 1, 54321, opts=[('MSS', 1460), ('TFO', b'\x33' * 8)])])
    st, frames_in = s.end(tag)
    T.check('%s the ACK and the SYN-ACK of no connection get a RST each (rst_tx_nomatch +2)' %
            tag, delta(mid, st, 'rst_tx_nomatch') == 2, delta(mid, st, 'rst_tx_nomatch'))
    rsts = {p[TCP].dport: p for p in answers(frames_in, h.ip) if p[TCP].flags & 0x04}
    T.check('%s ... with SEQ = their ACK (RFC 9293)' % tag,
            rsts.get(33001) is not None and rsts[33001][TCP].seq == 12345 and
            rsts.get(33002) is not None and rsts[33002][TCP].seq == 54321)
    T.check('%s no connection opened by them, no service call' % tag,
            delta(mid, st, 'conns_opened_plain') + delta(mid, st, 'conns_opened_tfo') == 0 and
            delta(mid, st, 'svc_calls') == 0)
    T.check('%s svc_calls +1 over the case (the live connection\'s data)' % tag,
            delta(st0, st, 'svc_calls') == 1)
    s.good_client(tag)
    s.drained(tag)


def case_malformed(s):
    """Truncated at every layer, bad checksums, IP options, fragments, TCP data
    offsets < 5 and past the segment, zero-length options, lists without end."""
    tag = '[malformed]'
    h = Host(s.mac, 62)
    k = 5
    base = h.eth() / IP(src=h.ip, dst=SERVER_V4)
    syn = bytes(base / TCP(sport=34000, dport=HTTP, flags='S', options=[('MSS', 1460)]))
    ip_off = 14
    v6_src = 'fd00:7f0::62'
    v6 = Ether(src=h.mac, dst=s.mac) / IPv6(src=v6_src, dst='fd00:7f0::2')
    v6ah = Ether(src=h.mac, dst=s.mac) / IPv6(src=v6_src, dst='fd00:7f0::2', nh=51)

    def patch(b, off, val):
        b = bytearray(b)
        b[off:off + len(val)] = val
        return bytes(b)

    def fix_tcp(b):
        """Recompute the TCP checksum of an IPv4 frame (IHL 5) by hand."""
        b = bytearray(b)
        tcp = b[34:]
        tcp[16:18] = b'\0\0'
        ph = bytes(b[26:34]) + struct.pack('!BBH', 0, 6, len(tcp))
        data = ph + bytes(tcp) + (b'\0' if len(tcp) % 2 else b'')
        s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
        while s >> 16:
            s = (s & 0xffff) + (s >> 16)
        b[34 + 16:34 + 18] = struct.pack('!H', ~s & 0xffff)
        return bytes(b)

    kinds = {
        # (the kernel sends no frame under 14 bytes: a truncated VLAN tag)
        'l2_short': [bytes(Ether(src=h.mac, dst=s.mac, type=0x8100))[:14] + b'\x00'],
        'l2_ethertype': [bytes(Ether(src=h.mac, dst=s.mac, type=0x88b5) / Raw(b'x' * 46))],
        'l2_not_ours': [bytes(Ether(src=h.mac, dst='02:00:00:bb:bb:bb') / IP(
            src=h.ip, dst=SERVER_V4) / TCP(sport=34001, dport=HTTP, flags='S'))],
        'ipv4_short': [syn[:14 + 12], patch(syn, ip_off + 2, b'\x05\xdc'),
                       patch(patch(syn, ip_off, b'\x44'), ip_off + 10, b'\0\0')],
        'ipv4_version': [bytes(Ether(src=h.mac, dst=s.mac, type=0x0800)) +
                         bytes([0x55]) + syn[15:]],
        'ipv4_cksum': [patch(syn, ip_off + 10, b'\xde\xad')],
        'ipv4_frag': [bytes(h.eth() / IP(src=h.ip, dst=SERVER_V4, flags='MF') /
                            TCP(sport=34002, dport=HTTP, flags='S')),
                      bytes(h.eth() / IP(src=h.ip, dst=SERVER_V4, frag=100, proto=6) /
                            Raw(b'y' * 20))],
        'ipv6_short': [bytes(Ether(src=h.mac, dst=s.mac, type=0x86dd)) + b'\x60' + b'\0' * 20],
        # AH (51): an extension header we do not process
        'ipv6_ext': [bytes(v6ah / Raw(b'\x06\x04' + b'\0' * 22 +
                                    bytes(TCP(sport=34003, dport=HTTP, flags='S'))))],
        'ipv6_frag': [bytes(v6 / IPv6ExtHdrFragment(offset=0, m=1, id=9) /
                            TCP(sport=34006, dport=HTTP, flags='S'))],
        'ipv6_rthdr': [bytes(v6 / IPv6ExtHdrRouting(segleft=1, addresses=['fd00:7f0::99']) /
                             TCP(sport=34007, dport=HTTP, flags='S'))],
        'ipv6_ext_bad': [bytes(v6 / IPv6ExtHdrDestOpt() / IPv6ExtHdrHopByHop() /
                               TCP(sport=34008, dport=HTTP, flags='S'))],
        'ip_not_ours': [bytes(h.eth() / IP(src=h.ip, dst='198.18.0.77') /
                              TCP(sport=34004, dport=HTTP, flags='S'))],
        'ip_bad_src': [bytes(h.eth() / IP(src='224.0.0.5', dst=SERVER_V4) /
                             TCP(sport=34005, dport=HTTP, flags='S'))],
        'tcp_short': [bytes(h.eth() / IP(src=h.ip, dst=SERVER_V4, proto=6) /
                            Raw(b'\x85\x00\x00\x50' + b'\0' * 6)),
                      fix_tcp(patch(syn, 14 + 20 + 12, b'\x40')),
                      fix_tcp(patch(syn, 14 + 20 + 12, b'\xf0'))],
        'tcp_cksum': [patch(syn, 14 + 20 + 16, b'\xbe\xef')],
        'tcp_port': [bytes(base / TCP(sport=0, dport=HTTP, flags='S'))],
        'l4_proto': [bytes(base / UDP(sport=53, dport=53) / Raw(b'q' * 10))],
    }
    # handled, not dropped: each gets a SYN-ACK
    served = {
        'IP options': bytes(h.eth() / IP(src=h.ip, dst=SERVER_V4, options=[b'\x01\x01\x01\x00']) /
                            TCP(sport=34010, dport=HTTP, flags='S', options=[('MSS', 1460)])),
        'zero-length option': fix_tcp(patch(bytes(base / TCP(
            sport=34011, dport=HTTP, flags='S', options=[('MSS', 1460)] + [('NOP', None)] * 4)),
            14 + 20 + 24, b'\x03\x00')),
        'options without EOL (40 NOPs)': bytes(base / TCP(sport=34012, dport=HTTP, flags='S',
                                                           options=[('NOP', None)] * 40)),
        'option running past the header': fix_tcp(patch(bytes(base / TCP(
            sport=34013, dport=HTTP, flags='S', options=[('MSS', 1460)])), 14 + 20 + 21, b'\x08')),
    }
    frames = []
    for name, fl in kinds.items():
        frames += fl * k
    frames += list(served.values())
    # IPv6 SYNs behind Hop-by-Hop / Destination Options / Routing (segments
    # left 0) headers are served too, as Linux serves them
    served6 = {
        'Hop-by-Hop': bytes(v6 / IPv6ExtHdrHopByHop() /
                            TCP(sport=34020, dport=HTTP, flags='S', options=[('MSS', 1440)])),
        'Destination Options + Routing (segments left 0)': bytes(
            v6 / IPv6ExtHdrDestOpt() / IPv6ExtHdrRouting(segleft=0, addresses=['fd00:7f0::99']) /
            TCP(sport=34021, dport=HTTP, flags='S', options=[('MSS', 1440)])),
    }
    frames += list(served6.values())
    st0 = s.begin()
    s.wire.send(frames)
    st, frames_in = s.end(tag)
    w0, w1 = s.worker(st0), s.worker(st)
    # the kernel's own MLD reports (hop-by-hop header): ignored, not dropped
    mld = sum(1 for f in s.wire.out_since(s.m)
              if f[12:14] == b'\x86\xdd' and f[20] == 0 and f[6:12] != bytes.fromhex(
                  h.mac.replace(':', '')))
    for name, fl in kinds.items():
        d = delta(w0, w1, 'drop_' + name)
        want = len(fl) * k
        T.check('%s %d x %d frames: drop_%s +%d' % (tag, len(fl), k, name, want), d == want, d)
    T.check('%s the kernel\'s MLD reports: rx_mld_ignored +%d' % (tag, mld),
            delta(w0, w1, 'rx_mld_ignored') == mld, delta(w0, w1, 'rx_mld_ignored'))
    sa = {p[TCP].dport for p in answers(frames_in, h.ip) if p[TCP].flags == 'SA'}
    for i, name in enumerate(served):
        T.check('%s %s: answered with a SYN-ACK' % (tag, name), 34010 + i in sa)
    sa6 = {}
    for f in frames_in:
        p = tcp_of(f)
        if p is not None and p.haslayer(IPv6) and p[IPv6].dst == v6_src and \
                p[TCP].flags == 'SA':
            sa6[p[TCP].dport] = p[IPv6].nh
    for i, name in enumerate(served6):
        T.check('%s IPv6 SYN behind %s: answered with a SYN-ACK without extension headers'
                % (tag, name), sa6.get(34020 + i) == 6, sa6.get(34020 + i))
    s.good_client(tag)
    s.drained(tag)


def case_rstflood(s):
    """RSTs and ACKs with random sequence numbers against live keep-alive
    connections (4 TFO ones on the worker, 4 plain ones on the control core):
    none is torn down (RFC 5961), all serve a second request."""
    tag = '[rstflood]'
    k_tfo, k_plain, per = 4, 4, 150
    proc = subprocess.Popen(['ip', 'netns', 'exec', s.ns, '/usr/bin/python3',
                             os.path.join(HERE, 'keepalive_client.py'), SERVER_V4, str(HTTP),
                             str(k_tfo), str(k_plain)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    first = json.loads(proc.stdout.readline())
    T.check('%s %d keep-alive connections open and served once' % (tag, k_tfo + k_plain),
            all(first['ok']), first)
    kmac = s.bed.ns_run(['cat', '/sys/class/net/tfo0/address']).stdout.strip()
    frames = []
    for port in first['ports']:
        if not port:
            continue
        for i in range(per):
            e = Ether(src=kmac, dst=s.mac) / IP(src=CLIENT_V4, dst=SERVER_V4)
            frames.append(bytes(e / TCP(sport=port, dport=HTTP, flags='R',
                                        seq=rng.getrandbits(32))))
            frames.append(bytes(e / TCP(sport=port, dport=HTTP, flags='A',
                                        seq=rng.getrandbits(32), ack=rng.getrandbits(32))))
    rng.shuffle(frames)
    st0 = s.begin()
    s.wire.send(frames)
    mid, _ = s.settled()
    out_mid = s.wire.since(s.m)[0]
    # frames the tap dropped before the server (a loaded machine): each may
    # have been one of the RSTs, which the server then never saw
    lost = s.tun_tx_dropped() - s.tun0
    proc.stdin.write('go\n')
    proc.stdin.flush()
    second = json.loads(proc.stdout.readline())
    proc.wait(10)
    st, _ = s.end(tag)
    nrst = len(frames) // 2
    T.check('%s no connection torn down by %d forged RSTs (conns_closed_rst_rx +0)' %
            (tag, nrst), delta(st0, mid, 'conns_closed_rst_rx') == 0)
    # a challenge ACK (sent or rate-limited) answers an in-window RST or an
    # old ACK (drop_old_ack): what is left are the RSTs
    handled = (delta(st0, mid, 'drop_rst_ignored') + delta(st0, mid, 'challenge_acks') +
               delta(st0, mid, 'challenge_acks_limited') - delta(st0, mid, 'drop_old_ack'))
    T.check('%s every RST ignored (out of window) or challenged (in window): %d of %d '
            '(%d frames dropped by the tap)' % (tag, handled, nrst, lost),
            nrst - lost <= handled <= nrst,
            {n: delta(st0, mid, n) for n in ('rx_pkts', 'drop_rst_ignored', 'challenge_acks',
                                              'challenge_acks_limited', 'drop_old_ack',
                                              'drop_seq_window', 'rx_delivered', 'to_control')}
            | {'out': out_mid, 'tap_dropped': lost})
    T.check('%s all %d connections serve a second request' % (tag, k_tfo + k_plain),
            len(second['ok']) == k_tfo + k_plain and all(second['ok']), second)
    T.check('%s ... on both lcores (TFO ones on the worker, plain on the control core)' % tag,
            delta(s.worker(st0), s.worker(st), 'svc_calls') >= k_tfo and
            delta(s.control(st0), s.control(st), 'svc_calls') >= k_plain)
    s.good_client(tag)
    s.drained(tag, limit=25)


def case_pmtu(s):
    """Path-MTU discovery behind a tunnel: a TFO connection on the worker sends
    its response at 1500 bytes; an ICMP "fragmentation needed" quoting a
    sequence number not in flight is refused, one quoting the SYN-ACK makes the
    worker (the control core hands it over) send it again in 1280-byte
    frames; a quote of no connection, and a truncated one, are counted."""
    tag = '[pmtu]'
    h = Host(s.mac, 80)
    router = '198.18.0.254'
    cookie = s.learn_cookie(h)
    s.wire.quiet()
    data = b'p' * 1399 + b'\n'
    st0 = s.begin()
    s.wire.send([h.syn(36000, ECHO, seq=7000, data=data, tfo=cookie)])
    time.sleep(0.2)
    first = [p for p in answers(s.wire.since(s.m)[1], h.ip, 36000)]
    T.check('%s the response leaves at the link MTU (a SYN-ACK of %s bytes)' %
            (tag, [p[IP].len for p in first[:1]]),
            len(first) >= 1 and first[0][TCP].flags & 0x12 == 0x12 and first[0][IP].len > 1280)
    if not first:
        return
    synack = first[0]
    isn = synack[TCP].seq
    quote = bytes(synack[IP])[:20 + 28]

    def frag_needed(q, mtu=1280):
        return bytes(Ether(src='02:00:00:aa:00:fe', dst=s.mac) /
                     IP(src=router, dst=SERVER_V4) /
                     ICMP(type=3, code=4, nexthopmtu=mtu) / Raw(q))

    def with_seq(q, seq):
        return q[:24] + struct.pack('!I', seq & 0xffffffff) + q[28:]

    mark = s.wire.mark()
    s.wire.send([frag_needed(with_seq(quote, isn + 100000))])      # a blind guess
    time.sleep(0.2)
    T.check('%s a quote out of the window: nothing re-sent' % tag,
            not answers(s.wire.since(mark)[1], h.ip, 36000))
    s.wire.send([frag_needed(quote[:20 + 4])])                      # no sequence number
    other = with_seq(quote, isn)[:20] + struct.pack('!H', ECHO) + struct.pack('!H', 36999) + \
        quote[24:]
    s.wire.send([frag_needed(other)])                               # no such connection
    time.sleep(0.2)
    mark = s.wire.mark()
    s.wire.send([frag_needed(quote)])
    time.sleep(0.3)
    again = answers(s.wire.since(mark)[1], h.ip, 36000)
    T.check('%s after the good one, the flight again at once, every frame <= 1280 bytes '
            '(%s)' % (tag, [p[IP].len for p in again]),
            len(again) >= 2 and all(p[IP].len <= 1280 for p in again))
    T.check('%s ... from the SYN-ACK (its data cut to what fits)' % tag,
            again and again[0][TCP].flags & 0x12 == 0x12 and again[0][TCP].seq == isn and
            0 < len(again[0][TCP].payload) < len(data))
    got = b''.join(bytes(p[TCP].payload) for p in again)
    T.check('%s ... byte-exact' % tag, got == data, len(got))
    fin = 1 if any(p[TCP].flags & 0x01 for p in again) else 0
    s.wire.send([h.seg(36000, ECHO, 'A', 7001 + len(data), isn + 1 + len(data) + fin)])
    time.sleep(0.1)
    s.wire.send([h.seg(36000, ECHO, 'FA', 7001 + len(data), isn + 1 + len(data) + fin)])
    st, _ = s.end(tag)
    c0, c1 = s.control(st0), s.control(st)
    # summed over the workers: the frame went to the one owning the flow
    w0, w1 = ({k: sum(v.get(k, 0) for n, v in s.lcores(x).items() if 'worker' in n)
               for k in ('pmtu_rejected_seq', 'pmtu_accepted', 'pmtu_no_conn')}
              for x in (st0, st))
    # several workers behind a tap (no RSS table): a copy to each, misses not counted
    nw = sum(1 for n in s.lcores(st) if 'worker' in n)
    T.check('%s on the worker: pmtu_rejected_seq +1, pmtu_accepted +1, pmtu_no_conn +1' % tag,
            delta(w0, w1, 'pmtu_rejected_seq') == 1 and delta(w0, w1, 'pmtu_accepted') == 1 and
            delta(w0, w1, 'pmtu_no_conn') == (1 if nw == 1 else 0),
            {k: delta(w0, w1, k) for k in ('pmtu_rejected_seq', 'pmtu_accepted', 'pmtu_no_conn')})
    T.check('%s the control core handed 3 over (pmtu_handoff +3), refused the truncated '
            'quote (drop_pmtu_bad_quote +1)' % tag,
            delta(c0, c1, 'pmtu_handoff') == 3 and delta(c0, c1, 'drop_pmtu_bad_quote') == 1,
            (delta(c0, c1, 'pmtu_handoff'), delta(c0, c1, 'drop_pmtu_bad_quote')))
    T.check('%s no retransmission timeout was needed (rto_expired +0)' % tag,
            delta(st0, st, 'rto_expired') == 0, delta(st0, st, 'rto_expired'))
    s.good_client(tag)
    s.drained(tag)
