#!/usr/bin/python3
"""Write the seed corpus of the libFuzzer harnesses (tests/fuzz/corpus/).

    /usr/bin/python3 tests/fuzz/gen_corpus.py [OUT_DIR]

Valid frames (scapy) for the packet parser, requests for the HTTP parser,
and short conversations for the whole-worker harness in its record format
(see fuzz_worker.c): a cookie request, a TFO open with the request in the
SYN, plain handshakes, a SYN flood past the control core's table (SYN
cookies), a stolen-cookie flood past the pending limit, duplicate SYNs,
RSTs, key rotation, ARP/ICMP/ND, and malformed frames. Deterministic: the
same files every run.
"""
import os
import struct
import sys

from scapy.all import (ARP, ICMP, IP, TCP, UDP, Ether, ICMPv6EchoRequest,  # noqa: E402
                       ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr, IPv6, Raw, Dot1Q,
                       ICMPv6MLDMultAddrRec, ICMPv6MLReport2, IPv6ExtHdrDestOpt,
                       IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, IPv6ExtHdrRouting,
                       PadN, RouterAlert)

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(
    os.path.abspath(__file__)), 'corpus')

SMAC, CMAC = '02:00:00:00:00:01', '02:00:00:00:00:02'
S4, C4 = '198.18.0.2', '198.18.0.1'
S6, C6 = 'fd00:7f0::2', 'fd00:7f0::1'
S4_P1, S6_P1, SMAC_P1 = '198.18.1.2', 'fd00:7f1::2', '02:00:00:00:01:01'

F_CKSUM, F_SEQACK, F_COOKIE, F_COOKIE_ALT = 0x01, 0x02, 0x04, 0x08
F_EXACT, F_SPLIT, F_PORT1, F_RX_OL = 0x10, 0x20, 0x40, 0x80
OP_FRAME, OP_AGAIN, OP_STEP, OP_ADVANCE, OP_ROTATE, OP_REJECT = 0, 3, 4, 5, 6, 7

SYN_OPTS = [('MSS', 1460), ('SAckOK', b''), ('Timestamp', (1000, 0)), ('NOP', None),
            ('WScale', 7)]
REQ = b'GET / HTTP/1.1\r\nHost: tfo\r\n\r\n'
ZERO_COOKIE = b'\0' * 8


def eth(ip, smac=SMAC, cmac=CMAC):
    return Ether(src=cmac, dst=smac) / ip


def tcp4(sport, dport, flags, seq=1000, ack=0, opts=(), data=b'', src=C4, dst=S4, smac=SMAC):
    p = eth(IP(src=src, dst=dst) / TCP(sport=sport, dport=dport, flags=flags, seq=seq,
                                        ack=ack, options=list(opts), window=65535), smac=smac)
    return bytes(p / Raw(data)) if data else bytes(p)


def tcp6(sport, dport, flags, seq=1000, ack=0, opts=(), data=b''):
    p = eth(IPv6(src=C6, dst=S6) / TCP(sport=sport, dport=dport, flags=flags, seq=seq,
                                        ack=ack, options=list(opts), window=65535))
    return bytes(p / Raw(data)) if data else bytes(p)


def tfo(cookie):
    return SYN_OPTS + [('TFO', cookie)] if cookie is not None else SYN_OPTS


def tfo_exp(cookie):
    return SYN_OPTS + [(254, b'\xf9\x89' + cookie)]


def ts(val=2000):
    return [('NOP', None), ('NOP', None), ('Timestamp', (val, 0))]


def frame(f, flags=F_CKSUM | F_EXACT, sd=0, ad=0, split=0, op=OP_FRAME):
    return struct.pack('<BBbbBH', op, flags, sd, ad, split, len(f)) + f


def again(flags=F_CKSUM | F_EXACT | F_SEQACK, sd=0, ad=0):
    """The last frame again, fixed up anew (the next segment of its flow)."""
    return struct.pack('<BBbbB', OP_AGAIN, flags, sd, ad, 0)


def step():
    return bytes([OP_STEP])


def advance(ms):
    return struct.pack('<BH', OP_ADVANCE, ms)


def write(sub, name, data):
    d = os.path.join(OUT, sub)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


# ---- frames shared by the parser corpus and the worker conversations ----
ARP_REQ = bytes(Ether(src=CMAC, dst='ff:ff:ff:ff:ff:ff') /
                ARP(op=1, hwsrc=CMAC, psrc=C4, pdst=S4))
PING = bytes(eth(IP(src=C4, dst=S4) / ICMP(type=8, id=1, seq=1) / Raw(b'ping' * 8)))
NS = bytes(Ether(src=CMAC, dst='33:33:ff:00:00:02') /
           IPv6(src=C6, dst='ff02::1:ff00:2', hlim=255) /
           ICMPv6ND_NS(tgt=S6) / ICMPv6NDOptSrcLLAddr(lladdr=CMAC))
PING6 = bytes(eth(IPv6(src=C6, dst=S6) / ICMPv6EchoRequest(id=1, seq=1, data=b'ping6')))
SYN_REQ = tcp4(40000, 7, 'S', opts=tfo(b''))
SYN_DATA = tcp4(40001, 7, 'S', opts=tfo(ZERO_COOKIE), data=b'hello in the SYN\n')
SYN_HTTP = tcp4(40002, 80, 'S', opts=tfo(ZERO_COOKIE), data=REQ)
SYN_PLAIN = tcp4(40003, 80, 'S', opts=SYN_OPTS)
SYN6_DATA = tcp6(40004, 7, 'S', opts=tfo(ZERO_COOKIE), data=b'v6 in the SYN\n')
VLAN_SYN = bytes(Ether(src=CMAC, dst=SMAC) / Dot1Q(vlan=5) /
                 IP(src=C4, dst=S4) / TCP(sport=40005, dport=80, flags='S', options=SYN_OPTS))
# IPv6 extension headers in front of TCP / ICMPv6 (the parser walks them)
EXT6_SYN = bytes(eth(IPv6(src=C6, dst=S6) / IPv6ExtHdrHopByHop(options=[RouterAlert()]) /
                     IPv6ExtHdrDestOpt(options=[PadN(optdata=b'\0' * 4)]) /
                     IPv6ExtHdrRouting(type=0, segleft=0, addresses=['fd00:7f0::9']) /
                     TCP(sport=40009, dport=7, flags='S', options=tfo(ZERO_COOKIE)) /
                     Raw(b'ext in the SYN\n')))
EXT6_FRAG = bytes(eth(IPv6(src=C6, dst=S6) / IPv6ExtHdrFragment(offset=0, m=1, id=3) /
                      TCP(sport=40010, dport=7, flags='S', options=SYN_OPTS)))
MLD2 = bytes(Ether(src=CMAC, dst='33:33:00:00:00:16') /
             IPv6(src='fe80::2', dst='ff02::16', hlim=1) /
             IPv6ExtHdrHopByHop(options=[RouterAlert()]) /
             ICMPv6MLReport2(records=[ICMPv6MLDMultAddrRec(rtype=4, dst='ff02::1:ff00:2')]))
PING6_DO = bytes(eth(IPv6(src=C6, dst=S6) / IPv6ExtHdrDestOpt() /
                     ICMPv6EchoRequest(id=2, seq=1, data=b'ping6 do')))
IPOPT_SYN = bytes(eth(IP(src=C4, dst=S4, options=[b'\x01\x01\x01\x00']) /
                      TCP(sport=40006, dport=7, flags='S', options=SYN_OPTS)))


def parser_corpus():
    valid = {
        'arp': ARP_REQ, 'ping': PING, 'ns': NS, 'ping6': PING6, 'syn_cookie_req': SYN_REQ,
        'syn_data': SYN_DATA, 'syn_http': SYN_HTTP, 'syn6_data': SYN6_DATA, 'vlan_syn': VLAN_SYN,
        'ipopt_syn': IPOPT_SYN,
        'syn_exp': tcp4(40007, 7, 'S', opts=tfo_exp(ZERO_COOKIE), data=b'x\n'),
        'ack_ts': tcp4(40008, 80, 'A', opts=ts(), data=REQ),
        'udp': bytes(eth(IP(src=C4, dst=S4) / Raw(b'\0' * 8))),
        'syn6_ext': EXT6_SYN, 'syn6_frag': EXT6_FRAG, 'mld2_report': MLD2,
        'ping6_dstopts': PING6_DO,
    }
    for name, f in valid.items():
        write('pkt', name, bytes([0x80, 0]) + f)
    # the same with split segments, RX checksum flags, direct mbufs
    write('pkt', 'syn_data_split', bytes([0x80, 30]) + SYN_DATA)
    write('pkt', 'syn_http_split', bytes([0x00, 60]) + SYN_HTTP)
    write('pkt', 'syn_rxol_good', bytes([0x01 | 0x02 | 0x08 | 0x20 | 0x40, 0]) + SYN_DATA)
    write('pkt', 'syn6_rxol_bad', bytes([0x01 | 0x04 | 0x10, 0]) + SYN6_DATA)


def http_corpus():
    reqs = {
        'get': REQ,
        'get_10': b'GET /hello.txt HTTP/1.0\r\nConnection: keep-alive\r\n\r\n',
        'head': b'HEAD /index.html HTTP/1.1\r\nHost: a\r\nIf-None-Match: W/"x", "y"\r\n\r\n',
        'ims': b'GET /docs/ HTTP/1.1\r\nHost: a\r\n'
               b'If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n',
        'dir': b'GET /docs HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
        'pct': b'GET /with%20space.txt?q=1 HTTP/1.1\r\nHost: a\r\n\r\n',
        'dots': b'GET /img/../docs/./x/../ HTTP/1.1\r\nHost: a\r\n\r\n',
        'abs': b'GET http://a/hello.txt HTTP/1.1\r\nHost: a\r\n\r\n',
        'post': b'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc',
        'pipelined': REQ + b'GET /hello.txt HTTP/1.1\r\nHost: a\r\n\r\n',
        'v2': b'GET / HTTP/2.0\r\nHost: a\r\n\r\n',
        'partial': b'GET / HTTP/1.1\r\nHost: a\r\n',
        'echo_line': b'hello\nworld\n',
    }
    for name, r in reqs.items():
        write('http', name, bytes([0x3f]) + r)
    write('http', 'small_limits', bytes([0x00]) + reqs['ims'])
    # with tests/http_rules/rules.ini (0x80), some as SYN data (0x40)
    rules = {
        'r_range': b'GET /hello.txt HTTP/1.1\r\nHost: a\r\nRange: bytes=1-3\r\n'
                   b'If-Range: "x"\r\n\r\n',
        'r_204': b'GET /generate_204 HTTP/1.1\r\nHost: a\r\n\r\n',
        'r_post': b'POST /hello.txt HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc',
        'r_ocsp_post': b'POST /ocsp HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n'
                       b'\x30\x03\x02\x01\x07',
        'r_ocsp_get': b'GET /ocsp/MAMCAQc%3D HTTP/1.1\r\nHost: a\r\n\r\n',
        'r_vhost': b'GET /page.txt HTTP/1.1\r\nHost: A.Example:80\r\n\r\n',
        'r_slash': b'GET /docs%2Findex.html HTTP/1.1\r\nHost: a\r\n\r\n',
    }
    for name, r in rules.items():
        write('http', name, bytes([0xbf]) + r)
    write('http', 'r_post_syn', bytes([0xff]) + rules['r_post'])


def dns_query(name, qtype, edns=None, flags=0x0100, keepalive=False, nsid=False, qclass=1,
              cookie=None, do=False):
    wire = b''.join(bytes([len(lb)]) + lb.encode() for lb in name.split('.') if lb) + b'\0'
    m = struct.pack('!HHHHHH', 0x1234, flags, 1, 0, 0, 1 if edns else 0) + wire + \
        struct.pack('!HH', qtype, qclass)
    if edns:
        opt = b'\x00\x0b\x00\x00' if keepalive else b''
        opt += b'\x00\x03\x00\x00' if nsid else b''
        if cookie is not None:
            opt += struct.pack('!HH', 10, len(cookie)) + cookie
        m += b'\0' + struct.pack('!HHIH', 41, edns, 0x8000 if do else 0, len(opt)) + opt
    return m


def dns_corpus():
    """fuzz_dns.c: mode 0 (a query; the second byte sets udp_max), mode 2
    (the same to the instance with cookies = on) and mode 1 (master file
    text for example.org.)."""
    qs = {
        'a': dns_query('www.example.org', 1),
        'case': dns_query('WwW.ExAmple.org', 1),
        'nx': dns_query('nope.example.org', 1, 1232),
        'cname': dns_query('chain.example.org', 1),
        'wild': dns_query('x.y.wild.example.org', 16),
        'referral': dns_query('a.sub.example.org', 28),
        'mx': dns_query('example.org', 15, 4096),
        'any': dns_query('www.example.org', 255),
        'big': dns_query('big.example.org', 16, 4096),
        'keepalive': dns_query('www.example.org', 1, 1232, keepalive=True),
        'notimp': dns_query('www.example.org', 1, flags=0x1000),
        'axfr': dns_query('example.org', 252),
        'refused': dns_query('www.example.com', 1, 512),
        'nsid': dns_query('www.example.org', 1, 1232, nsid=True),
        'chaos': dns_query('id.server', 16, qclass=3),
        'notimp_noq': struct.pack('!HHHHHH', 0x1234, 0x7ff0, 0, 0, 0, 0),
        # DO=1 against tests/dns/signed.example (NSEC) and signed3.example (NSEC3)
        'sec_a': dns_query('www.signed.example', 1, 1232, do=True),
        'sec_nx': dns_query('nothere.signed.example', 1, 1232, do=True),
        'sec_nodata': dns_query('www.signed.example', 16, 1232, do=True),
        'sec_wild': dns_query('x.wild.signed.example', 1, 1232, do=True),
        'sec_referral': dns_query('host.sub.signed.example', 1, 1232, do=True),
        'sec_ds': dns_query('plain.signed.example', 43, 1232, do=True),
        'sec_rrsig': dns_query('www.signed.example', 46, 1232),
        'sec3_nx': dns_query('a.nothere.signed3.example', 1, 512, do=True),
        'sec3_wild': dns_query('x.wild.signed3.example', 1, 1232, do=True),
        'sec3_nodata': dns_query('ent.signed3.example', 16, 1232, do=True),
    }
    # signed with a key the service does not know (BADKEY)
    t = dns_query('www.example.org', 1)
    qs['tsig'] = t[:11] + b'\1' + t[12:] + b'\2k1\0' + struct.pack('!HHIH', 250, 255, 0, 29) + \
        b'\x0bhmac-sha256\0' + b'\0\0\0\0\0\1' + struct.pack('!HHHHH', 300, 0, 0x1234, 0, 0)
    for name, q in qs.items():
        write('dns', 'q_' + name, bytes([0x00, 0x10]) + q)
    # COOKIE options (RFC 7873): a client cookie, RFC 9018 A.1's answer
    # (another secret: not ours), a length that is a FORMERR
    cks = {
        'client': bytes(range(8)),
        'server': bytes.fromhex('2464c4abcf10c957010000005cf79f111f8130c3eee29480'),
        'badlen': bytes(41),
    }
    for name, c in cks.items():
        write('dns', 'q_cookie_' + name,
              bytes([0x02, 0x10]) + dns_query('www.example.org', 1, 1232, cookie=c))
    # two pipelined TCP messages
    a, b = qs['a'], qs['mx']
    write('dns', 'q_pipelined', bytes([0x00, 0x00]) + struct.pack('!H', len(a)) + a +
          struct.pack('!H', len(b)) + b)
    # a TCP message past the harness's max_request (4096): FORMERR, close
    write('dns', 'q_toolong', bytes([0x00, 0x00]) + struct.pack('!H', 9046) + a)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, '..', 'dns', 'example.org.zone'), 'rb') as f:
        write('dns', 'z_example_org', b'\x01' + f.read())
    write('dns', 'z_small', b'\x01' + b'$TTL 60\n@ SOA a b 1 2 3 4 5\n NS ns\n'
          b'ns A 198.18.0.1\n*.w TXT "x" y\nc CNAME w\nd NS e.d\ne.d AAAA fd00::1\n')
    # every DNSSEC type in presentation form (dns_zsec.c)
    write('dns', 'z_dnssec', b'\x01' + b'$TTL 60\n@ SOA a b 1 2 3 4 5\n NS ns\n'
          b' DNSKEY 257 3 13 ( mdsswUyr3DPW132mOi8V9xESWE8jTo0d\n xCjjnopKl+GqJxpVXckHAeF+ )\n'
          b' RRSIG SOA 13 2 60 20851231000000 20260101000000 1 example.org. AAAA\n'
          b' NSEC ns.example.org. SOA NS DNSKEY RRSIG NSEC NSEC3PARAM TYPE65534\n'
          b' NSEC3PARAM 1 0 0 -\n'
          b'd NS ns\nd DS 1 13 2 ( 0011 2233 )\nd CDS 0 0 0 00\nd CDNSKEY 0 3 0 AA==\n'
          b'0p9mhaveqvm6t7vbl5lop2u3t2rp3tom NSEC3 1 1 0 aabb 35mthgpgcu1qg68fab165klnsnk3dpvl'
          b' A RRSIG\nns A 198.18.0.1\n')


def xfr_corpus():
    """fuzz_xfr.c: a mode byte (1: IXFR from serial 1, 2: build the
    zone), then framed responses for example.com."""
    org = b'\x07example\x03com\x00'

    def soa(serial):
        rd = b'\x03ns1\xc0\x0c\x0ahostmaster\xc0\x0c' + \
            struct.pack('!IIIII', serial, 3600, 600, 86400, 300)
        return b'\xc0\x0c' + struct.pack('!HHIH', 6, 1, 300, len(rd)) + rd

    def a_rec(owner, last):
        return owner + struct.pack('!HHIH', 1, 1, 300, 4) + bytes([198, 18, 0, last])

    def msg(qtype, rrs, rid=0x4242, rcode=0):
        m = struct.pack('!HHHHHH', rid, 0x8400 | rcode, 1, len(rrs), 0, 0) + org + \
            struct.pack('!HH', qtype, 1) + b''.join(rrs)
        return struct.pack('!H', len(m)) + m

    www = b'\x03www' + b'\xc0\x0c'
    ns = b'\xc0\x0c' + struct.pack('!HHIH', 2, 1, 300, 6) + b'\x03ns1\xc0\x0c'
    write('xfr', 'axfr_one', b'\x02' + msg(252, [soa(2), ns, a_rec(www, 2), soa(2)]))
    write('xfr', 'axfr_split', b'\x02' + msg(252, [soa(3), ns]) +
          msg(252, [a_rec(www, 3)]) + msg(252, [soa(3)]))
    write('xfr', 'axfr_cut', b'\x00' + msg(252, [soa(3), ns]))
    write('xfr', 'ixfr_diffs', b'\x03' + msg(251, [
        soa(3), soa(1), a_rec(www, 1), soa(2), a_rec(www, 2), soa(2), soa(3),
        a_rec(b'\x03new\xc0\x0c', 9), soa(3)]))
    write('xfr', 'ixfr_uptodate', b'\x01' + msg(251, [soa(1)]))
    write('xfr', 'ixfr_axfr_style', b'\x03' + msg(251, [soa(4), ns, a_rec(www, 4), soa(4)]))
    write('xfr', 'refused', b'\x00' + msg(252, [], rcode=5))


def worker_corpus():
    base = F_CKSUM | F_EXACT
    conv = {}
    # ARP, ping, ND, ping6 (the control core's replies go out by the relay)
    conv['control'] = b''.join(frame(f) for f in (ARP_REQ, PING, NS, PING6)) + step()
    # a cookie request, then the TFO open with the request in the SYN, acked, closed
    conv['tfo_echo'] = (frame(SYN_REQ) + step() +
                        frame(SYN_DATA, base | F_COOKIE) + step() +
                        frame(tcp4(40001, 7, 'A', opts=ts()), base | F_SEQACK) + step() +
                        frame(tcp4(40001, 7, 'FA', opts=ts()), base | F_SEQACK) + step() +
                        advance(200))
    conv['tfo_http_keepalive'] = (
        frame(SYN_HTTP, base | F_COOKIE) + step() +
        frame(tcp4(40002, 80, 'A', opts=ts()), base | F_SEQACK) + step() +
        frame(tcp4(40002, 80, 'PA', opts=ts(), data=b'GET /hello.txt HTTP/1.1\r\nHost: a\r\n\r\n'),
              base | F_SEQACK) + step() +
        frame(tcp4(40002, 80, 'A', opts=ts()), base | F_SEQACK) + advance(1500))
    # UDP (echo has udp = on): answered on 7 over IPv4 and IPv6, also with
    # no checksum (IPv4); a bad checksum dropped; port 80 (TCP only) as before
    conv['udp_echo'] = (
        frame(bytes(eth(IP(src=C4, dst=S4) / UDP(sport=5353, dport=7) / Raw(b'udp echo\n')))) +
        frame(bytes(eth(IPv6(src=C6, dst=S6) / UDP(sport=5353, dport=7) / Raw(b'udp6\n')))) +
        frame(bytes(eth(IP(src=C4, dst=S4) / UDP(sport=5354, dport=7, chksum=0) / Raw(b'n\n'))),
              F_EXACT) +
        frame(bytes(eth(IP(src=C4, dst=S4) / UDP(sport=5355, dport=7, chksum=0x1234) /
                        Raw(b'bad\n'))), F_EXACT) +
        frame(bytes(eth(IP(src=C4, dst=S4) / UDP(sport=5356, dport=80) / Raw(b'GET\n')))) +
        step())
    conv['tfo6_echo'] = (frame(SYN6_DATA, base | F_COOKIE) + step() +
                         frame(tcp6(40004, 7, 'A'), base | F_SEQACK) + step())
    # IPv6 extension headers: a TFO open behind HBH+DO+RH (answered without
    # them), a ping with a DO header (the echo leaves without it), an MLD
    # report (ignored), a fragment (dropped)
    conv['ipv6_ext'] = (frame(EXT6_SYN, base | F_COOKIE) + step() +
                        frame(PING6_DO) + frame(MLD2) + frame(EXT6_FRAG) + step())
    # plain handshake, request, close (the control core's connection)
    conv['plain_http'] = (
        frame(SYN_PLAIN) + step() +
        frame(tcp4(40003, 80, 'A', opts=ts()), base | F_SEQACK) +
        frame(tcp4(40003, 80, 'PA', opts=ts(), data=REQ), base | F_SEQACK) + step() +
        frame(tcp4(40003, 80, 'FA', opts=ts()), base | F_SEQACK) + step())
    # a SYN flood past the control core's 8 entries: SYN cookies, one completed
    flood = b''.join(frame(tcp4(41000 + i, 80, 'S', opts=SYN_OPTS)) for i in range(12))
    conv['syn_flood'] = (flood + step() +
                         frame(tcp4(41011, 80, 'A', seq=1001, opts=ts()), base | F_SEQACK) +
                         frame(tcp4(41011, 80, 'PA', seq=1001, opts=ts(), data=REQ),
                               base | F_SEQACK) + step())
    # one stolen cookie from many ports: the pending limit (4) holds
    conv['stolen_cookie'] = (
        b''.join(frame(tcp4(42000 + i, 7, 'S', opts=tfo(ZERO_COOKIE), data=b'x\n'),
                       base | F_COOKIE) for i in range(8)) + step() + advance(400) + advance(400))
    # a duplicate SYN+data in one burst, then again in the next
    conv['dup_syn'] = (frame(SYN_DATA, base | F_COOKIE) + frame(SYN_DATA, base | F_COOKIE) +
                       step() + frame(SYN_DATA, F_CKSUM | F_COOKIE) + step())
    # RSTs: out of window, in window (challenge ACK), exact
    conv['rst'] = (frame(SYN_HTTP, base | F_COOKIE) + step() +
                   frame(tcp4(40002, 80, 'R', seq=5), base) +
                   frame(tcp4(40002, 80, 'R'), base | F_SEQACK, sd=10) + step() +
                   frame(tcp4(40002, 80, 'R'), base | F_SEQACK) + step())
    # key rotation: the backup key's cookie (fresh cookie offered), a retired one
    conv['rotate'] = (bytes([OP_ROTATE]) +
                      frame(SYN_DATA, base | F_COOKIE | F_COOKIE_ALT) + step() +
                      bytes([OP_ROTATE, OP_ROTATE]) +
                      frame(tcp4(40009, 7, 'S', opts=tfo(ZERO_COOKIE), data=b'old\n'),
                            base | F_COOKIE_ALT) + step())
    conv['exp_form'] = frame(tcp4(40010, 7, 'S', opts=tfo_exp(ZERO_COOKIE), data=b'e\n'),
                             base | F_COOKIE) + step()
    # port 1: RX checksum flags trusted, TX offloads; a VLAN; IP options
    conv['port1'] = (frame(tcp4(40011, 7, 'S', opts=tfo(ZERO_COOKIE), data=b'p1\n',
                                dst=S4_P1, smac=SMAC_P1),
                           base | F_COOKIE | F_PORT1 | F_RX_OL) + step())
    conv['vlan_ipopt'] = frame(VLAN_SYN) + frame(IPOPT_SYN) + step()
    # direct mbufs split in two; the port refusing frames
    conv['split_reject'] = (bytes([OP_REJECT, 2]) + frame(SYN_HTTP, F_CKSUM | F_COOKIE | F_SPLIT,
                                                          split=100) + step())
    # malformed: truncated at every layer, bad checksums, fragment, data offsets
    syn = bytearray(tcp4(40012, 80, 'S', opts=SYN_OPTS))
    bad = [bytes(syn[:10]), bytes(syn[:20]), bytes(syn[:40]), bytes(syn[:50])]
    frag = bytes(eth(IP(src=C4, dst=S4, flags='MF') / TCP(sport=40013, dport=80, flags='S')))
    doff_small = bytearray(syn)
    doff_small[14 + 20 + 12] = 0x40
    doff_big = bytearray(syn)
    doff_big[14 + 20 + 12] = 0xf0
    zero_opt = tcp4(40014, 80, 'S', opts=[('MSS', 1460), (3, b'')])
    conv['malformed'] = (b''.join(frame(f, F_EXACT) for f in bad) +
                         frame(bytes(syn), F_EXACT, op=OP_FRAME) +
                         frame(frag) + frame(bytes(doff_small)) + frame(bytes(doff_big)) +
                         frame(zero_opt, F_EXACT) + step())
    conv['cookie_not_required'] = frame(tcp4(40015, 7, 'S', opts=SYN_OPTS, data=b'nc\n')) + step()
    # siphash-linux cookies, with a rotation
    conv['siphash'] = conv['rotate'] + conv['tfo_echo']
    # pipelined requests: the same GET again and again, each the next segment
    get = b'GET /hello.txt HTTP/1.1\r\nHost: a\r\n\r\n'
    conv['pipelined'] = (
        frame(SYN_HTTP, base | F_COOKIE) + step() +
        frame(tcp4(40002, 80, 'PA', opts=ts(), data=get), base | F_SEQACK) +
        again() + step() + again() + again() + step() + advance(300) + again() + step())
    # the worker's SYN cookies (syncookies = always): a plain SYN answered on
    # the worker, its ACK handed to the control core (one connection, served),
    # a cookie request answered with a SYN cookie and a TFO cookie, the TFO
    # SYN that follows opens on the worker, a forged ACK creates nothing
    conv['wsyn_always'] = (
        frame(SYN_PLAIN) + step() +
        frame(tcp4(40003, 80, 'A', opts=ts()), base | F_SEQACK) +
        frame(tcp4(40003, 80, 'PA', opts=ts(), data=REQ), base | F_SEQACK) + step() +
        frame(SYN_REQ) + step() +
        frame(SYN_DATA, base | F_COOKIE) + step() +
        frame(tcp4(40020, 80, 'A', seq=5001, ack=0x12345678, opts=ts())) + step())
    # syncookies = auto: the control core's table down to its reserve turns
    # the workers' SYN cookies on; its entries expired, off again
    conv['wsyn_auto'] = (
        b''.join(frame(tcp4(43000 + i, 80, 'S', opts=SYN_OPTS)) for i in range(8)) + step() +
        b''.join(frame(tcp4(43100 + i, 80, 'S', opts=SYN_OPTS)) for i in range(4)) + step() +
        advance(3000) + advance(3000) +
        frame(tcp4(43200, 80, 'S', opts=SYN_OPTS)) + step())
    # auto: a SYN the control core holds in SYN_RCVD, retransmitted once the
    # workers' SYN cookies are on, gets a SYN cookie from the worker; the
    # client's ACK of that one wins over the control core's half-open entry
    conv['wsyn_supersede'] = (
        b''.join(frame(tcp4(43300 + i, 80, 'S', opts=SYN_OPTS)) for i in range(8)) + step() +
        frame(tcp4(43300, 80, 'S', opts=SYN_OPTS)) + step() +
        frame(tcp4(43300, 80, 'A', opts=ts()), base | F_SEQACK) + step())
    cfgs = {'cookie_not_required': 1, 'siphash': 2, 'wsyn_always': 4}
    for name, c in conv.items():
        cfg = cfgs.get(name, 0)
        write('worker', name, bytes([cfg]) + c)


if __name__ == '__main__':
    parser_corpus()
    http_corpus()
    dns_corpus()
    xfr_corpus()
    worker_corpus()
    n = sum(len(files) for _, _, files in os.walk(OUT))
    print('corpus: %d files in %s' % (n, OUT))
