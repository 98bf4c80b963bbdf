#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write tests/pkt_vectors.h: frames built by scapy, an implementation
independent of src/net/pkt.c, for test_pkt's cross-check.

Run by hand when the vectors must change (needs Debian's python3-scapy, hence
/usr/bin/python3):  /usr/bin/python3 tests/gen_pkt_vectors.py > tests/pkt_vectors.h
The output is committed, so the build and the tests never need scapy.
The addresses must match pkt_harness.c (our_port()) and test_pkt_build.c (mk_route()).
"""
import sys

from scapy.all import (ARP, ICMP, IP, TCP, UDP, Dot1Q, Ether, ICMPv6EchoRequest,
                       ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr, IPOption_RR,
                       ICMPv6MLDMultAddrRec, ICMPv6MLReport2, IPv6,
                       IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                       IPv6ExtHdrRouting, Padding, PadN, Raw, RouterAlert)

OUR_MAC = "02:00:00:00:00:01"
PEER_MAC = "02:00:00:00:00:02"
OUR4, OUR4B, PEER4 = "198.18.0.2", "203.0.113.7", "198.18.0.1"
OUR6, PEER6 = "fd00:7f0::2", "fd00:7f0::1"
PEER6LL = "fe80::1200:0:0:34"

SYN_OPTS = [("MSS", 1460), ("SAckOK", b""), ("Timestamp", (0x01020304, 0)),
            ("NOP", None), ("WScale", 7)]
TFO_OPTS = [("MSS", 1460), ("NOP", None), ("NOP", None),
            ("TFO", b"\xc0\x0c\x1e\x5a\x11\x22\x33\x44")]


def tcp(**kw):
    base = dict(sport=40001, dport=80, seq=0x01020304, ack=0xa0b0c0d0,
                flags="S", window=0xfedc)
    base.update(kw)
    return TCP(**base)


# (name, frame, class, drop reason); a TCP frame's fields come from scapy.
PARSED = [
    ("v4_syn_opts_data", Ether(dst=OUR_MAC, src=PEER_MAC) /
     IP(src=PEER4, dst=OUR4) / tcp(options=SYN_OPTS) / Raw(b"GET / HTTP/1.0\r\n\r\n"),
     "TCP", "NONE"),
    ("v4_ipopts_tfo", Ether(dst=OUR_MAC, src=PEER_MAC) /
     IP(src=PEER4, dst=OUR4B, options=[IPOption_RR(routers=["1.2.3.4"])]) /
     tcp(options=TFO_OPTS, flags="SE") / Raw(b"x" * 101),
     "TCP", "NONE"),
    ("v4_ack_padded", Ether(dst=OUR_MAC, src=PEER_MAC) /
     IP(src=PEER4, dst=OUR4) / tcp(flags="A", seq=5, ack=6) / Padding(b"\x99" * 6),
     "TCP", "NONE"),
    ("v4_vlan_fin", Ether(dst=OUR_MAC, src=PEER_MAC) / Dot1Q(vlan=100, prio=3) /
     IP(src=PEER4, dst=OUR4) / tcp(flags="FPA", window=0) / Raw(b"bye"),
     "TCP", "NONE"),
    ("v6_syn", Ether(dst=OUR_MAC, src=PEER_MAC) / IPv6(src=PEER6, dst=OUR6) /
     tcp(options=SYN_OPTS, sport=65535, dport=7) / Raw(b"\x00\x01\x02"),
     "TCP", "NONE"),
    ("v6_vlan_rst", Ether(dst=OUR_MAC, src=PEER_MAC) / Dot1Q(vlan=4094) /
     IPv6(src=PEER6, dst=OUR6) / tcp(flags="R", seq=0xffffffff, ack=0),
     "TCP", "NONE"),
    ("arp_request", Ether(dst="ff:ff:ff:ff:ff:ff", src=PEER_MAC) /
     ARP(op=1, hwsrc=PEER_MAC, psrc=PEER4, pdst=OUR4) / Padding(b"\x00" * 18),
     "ARP", "NONE"),
    ("icmp_echo", Ether(dst=OUR_MAC, src=PEER_MAC) / IP(src=PEER4, dst=OUR4) /
     ICMP(type=8, id=0x42, seq=1) / Raw(b"abcdefghijklmnopqrstuvw"),
     "ICMP", "NONE"),
    ("icmp6_echo", Ether(dst=OUR_MAC, src=PEER_MAC) / IPv6(src=PEER6, dst=OUR6) /
     ICMPv6EchoRequest(id=7, seq=9, data=b"ping"),
     "ICMP6", "NONE"),
    ("nd_ns", Ether(dst="33:33:ff:00:00:02", src=PEER_MAC) /
     IPv6(src=PEER6LL, dst="ff02::1:ff00:2", hlim=255) /
     ICMPv6ND_NS(tgt=OUR6) / ICMPv6NDOptSrcLLAddr(lladdr=PEER_MAC),
     "ICMP6", "NONE"),
    ("v4_first_fragment", Ether(dst=OUR_MAC, src=PEER_MAC) /
     IP(src=PEER4, dst=OUR4, flags="MF") / tcp() / Raw(b"y" * 40),
     "DROP", "ipv4_frag"),
    ("v4_udp", Ether(dst=OUR_MAC, src=PEER_MAC) / IP(src=PEER4, dst=OUR4) /
     UDP(sport=53, dport=53) / Raw(b"q"),
     "DROP", "l4_proto"),
    ("v6_hop_by_hop", Ether(dst=OUR_MAC, src=PEER_MAC) / IPv6(src=PEER6, dst=OUR6) /
     IPv6ExtHdrHopByHop() / tcp(),
     "TCP", "NONE"),
    ("v6_dst_opts_data", Ether(dst=OUR_MAC, src=PEER_MAC) / IPv6(src=PEER6, dst=OUR6) /
     IPv6ExtHdrDestOpt(options=[PadN(optdata=b"\0" * 4)]) /
     tcp(options=TFO_OPTS) / Raw(b"GET / HTTP/1.1\r\n\r\n"),
     "TCP", "NONE"),
    ("v6_hbh_ra_dst_rh0", Ether(dst=OUR_MAC, src=PEER_MAC) / IPv6(src=PEER6, dst=OUR6) /
     IPv6ExtHdrHopByHop(options=[RouterAlert()]) / IPv6ExtHdrDestOpt() /
     IPv6ExtHdrRouting(type=0, segleft=0, addresses=["fd00:7f0::9"]) /
     tcp(options=SYN_OPTS) / Raw(b"z" * 9),
     "TCP", "NONE"),
    ("v6_rh0_segleft1", Ether(dst=OUR_MAC, src=PEER_MAC) / IPv6(src=PEER6, dst=OUR6) /
     IPv6ExtHdrRouting(type=0, segleft=1, addresses=["fd00:7f0::9"]) / tcp(),
     "DROP", "ipv6_rthdr"),
    ("v6_fragment", Ether(dst=OUR_MAC, src=PEER_MAC) / IPv6(src=PEER6, dst=OUR6) /
     IPv6ExtHdrHopByHop() / IPv6ExtHdrFragment(offset=0, m=1, id=7) / tcp() / Raw(b"f" * 16),
     "DROP", "ipv6_frag"),
    ("v6_nine_dst_opts", Ether(dst=OUR_MAC, src=PEER_MAC) / IPv6(src=PEER6, dst=OUR6) /
     IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() /
     IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() /
     IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() / tcp(),
     "DROP", "ipv6_ext_limit"),
    ("mldv2_report", Ether(dst="33:33:00:00:00:16", src=PEER_MAC) /
     IPv6(src=PEER6LL, dst="ff02::16", hlim=1) /
     IPv6ExtHdrHopByHop(options=[RouterAlert()]) /
     ICMPv6MLReport2(records=[ICMPv6MLDMultAddrRec(rtype=4, dst="ff02::1:ff00:2")]),
     "MLD", "NONE"),
    ("v4_bad_tcp_cksum", Ether(dst=OUR_MAC, src=PEER_MAC) / IP(src=PEER4, dst=OUR4) /
     tcp(chksum=0x1234),
     "DROP", "tcp_cksum"),
    ("v4_bad_ip_cksum", Ether(dst=OUR_MAC, src=PEER_MAC) /
     IP(src=PEER4, dst=OUR4, chksum=0x1234) / tcp(),
     "DROP", "ipv4_cksum"),
]

# Frames tfo_pkt_prepend_tcp must reproduce byte for byte (test_pkt's
# mk_route(): VLAN TCI 0x2abc; IPv4 id 0, DF, TTL 64; IPv6 hop limit 64).
BUILT = []
for fam in (4, 6):
    for vlan in (0, 1):
        for opts, data, flags in ((SYN_OPTS, b"HTTP/1.1 200 OK\r\n\r\nhello", "SAF"),
                                  ([], b"", "A"), (TFO_OPTS, b"z" * 7, "SA")):
            l2 = Ether(dst=PEER_MAC, src=OUR_MAC)
            if vlan:
                l2 = l2 / Dot1Q(prio=1, id=0, vlan=0xabc)
            if fam == 4:
                l3 = IP(src=OUR4, dst=PEER4, id=0, flags="DF", ttl=64, tos=0)
            else:
                l3 = IPv6(src=OUR6, dst=PEER6, hlim=64, tc=0, fl=0)
            l4 = TCP(sport=80, dport=51234, seq=0xdeadbeef, ack=0x01234567,
                     flags=flags, window=0x7fff, options=opts)
            pkt = l2 / l3 / l4 / Raw(data) if data else l2 / l3 / l4
            BUILT.append(("built_v%d_vlan%d_%s" % (fam, vlan, flags), fam, vlan, pkt))


def carray(b):
    out = []
    for i in range(0, len(b), 12):
        out.append("\t\t" + " ".join("0x%02x," % x for x in b[i:i + 12]))
    return "\n".join(out)


def main():
    w = sys.stdout.write
    w("/* SPDX-License-Identifier: BSD-3-Clause\n"
      " * Generated by tests/gen_pkt_vectors.py (scapy); do not edit.\n */\n"
      "#ifndef TFO_PKT_VECTORS_H\n#define TFO_PKT_VECTORS_H\n\n"
      "#include <stdint.h>\n\n"
      "struct pkt_vector {\n\tconst char *name;\n\tuint16_t len;\n"
      "\tconst uint8_t *bytes;\n\tuint8_t cls;\n\tuint8_t drop;\n"
      "\tuint16_t sport, dport;\n\tuint32_t seq, ack;\n\tuint16_t window;\n"
      "\tuint8_t flags;\n\tuint16_t payload_off, payload_len;\n};\n\n"
      "struct pkt_built {\n\tconst char *name;\n\tint family;\n\tint vlan;\n"
      "\tuint16_t sport, dport;\n\tuint32_t seq, ack;\n\tuint16_t window;\n"
      "\tuint8_t flags;\n\tuint8_t opt_len;\n\tconst uint8_t *opts;\n"
      "\tuint16_t len;\n\tconst uint8_t *bytes;\n};\n\n")
    w("static const struct pkt_vector pkt_vectors[] = {\n")
    for name, pkt, cls, drop in PARSED:
        b = bytes(pkt)
        pkt = Ether(b)		# dissected: every field filled in
        t = pkt[TCP] if TCP in pkt and cls == "TCP" else None
        w("\t{\n\t\t.name = \"%s\", .len = %d,\n" % (name, len(b)))
        w("\t\t.bytes = (const uint8_t[]){\n%s\n\t\t},\n" % carray(b))
        w("\t\t.cls = TFO_PKT_%s, .drop = TFO_PKT_DROP_%s,\n" % (cls, drop))
        if t is not None:
            hdr = len(b) - len(bytes(t)) + t.dataofs * 4
            pay = len(bytes(t.payload)) - (len(bytes(pkt[Padding])) if Padding in pkt else 0)
            w("\t\t.sport = %d, .dport = %d, .seq = %#xu, .ack = %#xu,\n"
              "\t\t.window = %d, .flags = %#x, .payload_off = %d, .payload_len = %d,\n"
              % (t.sport, t.dport, t.seq, t.ack, t.window, int(t.flags), hdr, pay))
        w("\t},\n")
    w("};\n\n")
    w("static const struct pkt_built pkt_built[] = {\n")
    for name, fam, vlan, pkt in BUILT:
        b = bytes(pkt)
        t = TCP(bytes(pkt[TCP]))
        opts = bytes(t)[20:t.dataofs * 4]
        w("\t{\n\t\t.name = \"%s\", .family = %s, .vlan = %d,\n"
          % (name, "AF_INET" if fam == 4 else "AF_INET6", vlan))
        w("\t\t.sport = %d, .dport = %d, .seq = %#xu, .ack = %#xu,\n"
          "\t\t.window = %d, .flags = %#x, .opt_len = %d,\n"
          % (t.sport, t.dport, t.seq, t.ack, t.window, int(t.flags), len(opts)))
        w("\t\t.opts = (const uint8_t[]){ %s },\n"
          % (" ".join("0x%02x," % x for x in opts) if opts else "0"))
        w("\t\t.len = %d,\n\t\t.bytes = (const uint8_t[]){\n%s\n\t\t},\n\t},\n"
          % (len(b), carray(b)))
    w("};\n\n#endif /* TFO_PKT_VECTORS_H */\n")


if __name__ == "__main__":
    main()
