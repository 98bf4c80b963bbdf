"""The bed of the hostile cases (hostile.py, hostile_*.py; floods.py uses
in_netns): one tfo-server in a private network namespace (small tables,
short timers, pending limit 8) on net_tap; forged frames go into its tap from
the kernel side through a raw socket (Wire; scapy builds them, Host), and a
second raw socket sees every frame on the wire both ways. Suite holds the
server and the checks every case ends with: the server is up, every frame
is explained by the accounting, a good TFO client is served, the tables
come back to empty.
"""
import ctypes
import os
import random
import socket
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'tap'))
from tfotap import Bed, Checks, SERVER_V4  # noqa: E402

from scapy.all import ARP, IP, TCP, Ether, Raw  # noqa: E402

T = Checks()
ECHO, HTTP = 7, 80
MAX_CONNS = 64          # per lcore; the control core's SYN-cookie reserve is 16
PENDING = 8
PER_SOURCE = 4          # pending TFO opens of one address
# SYN-ACK retries 0.5 + 1 + 2 + 4 s and an 8 s hold: what the stolen cases
# count must outlive their telemetry queries (~2 s each on a loaded machine)
SYNACK_LIFE, HOLD = 7.5, 8.0
ARGS = ['--max-conns', str(MAX_CONNS), '--pending-limit', str(PENDING),
        '--set', 'tfo.pending_per_source=%d' % PER_SOURCE,
        '--set', 'tcp.synack_retries=3', '--set', 'tcp.rto_init_ms=500',
        '--set', 'tcp.time_wait_ms=200', '--set', 'tfo.pending_hold_ms=%d' % (HOLD * 1000),
        '--set', 'tcp.idle_timeout_ms=20000']
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
CLONE_NEWNET = 0x40000000
rng = random.Random(5961)


# ---- the wire ---------------------------------------------------------------

def in_netns(ns, fn):
    """Run fn() with this thread in network namespace ns (sockets stay there)."""
    libc = ctypes.CDLL('libc.so.6', use_errno=True)
    me = os.open('/proc/self/ns/net', os.O_RDONLY)
    fd = os.open('/var/run/netns/' + ns, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), 'setns')
        return fn()
    finally:
        libc.setns(me, CLONE_NEWNET)
        os.close(fd)
        os.close(me)


def raw_socket():
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE
    s.bind(('tfo0', 0))
    return s


class Wire:
    """Inject frames into tfo0 and watch both directions of it.

    Every frame the kernel side transmits (ours and the kernel's own) is
    'out' (towards the server); every frame the server sends is 'in'."""

    def __init__(self, ns):
        self.tx, self.rx = in_netns(ns, lambda: (raw_socket(), raw_socket()))
        self.rx.settimeout(0.05)
        self.lock = threading.Lock()
        self.out = []           # frames towards the server (headers), in order
        self.inn = []           # frames from the server, in order
        self.last = time.time()
        self.stop_flag = False
        self.t = threading.Thread(target=self.loop, daemon=True)
        self.t.start()

    def loop(self):
        while not self.stop_flag:
            try:
                data, addr = self.rx.recvfrom(65535)
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                self.last = time.time()
                if addr[2] == PACKET_OUTGOING:
                    self.out.append(data[:80])
                else:
                    self.inn.append(data)

    def send(self, frames, pace=200):
        for i, f in enumerate(frames):
            self.tx.send(f)
            if pace and i % pace == pace - 1:
                time.sleep(0.003)   # the tap's queue is 1000 frames

    def quiet(self, idle=0.3, limit=8.0):
        """Wait until nothing moved on the wire for `idle` seconds."""
        t0 = time.time()
        while time.time() - t0 < limit:
            with self.lock:
                if time.time() - self.last >= idle:
                    return True
            time.sleep(0.05)
        return False

    def mark(self):
        with self.lock:
            return len(self.out), len(self.inn)

    def since(self, mark):
        """(frames out, frames in) since mark: a count, and the frames."""
        with self.lock:
            return len(self.out) - mark[0], self.inn[mark[1]:]

    def out_since(self, mark):
        with self.lock:
            return self.out[mark[0]:]

    def close(self):
        self.stop_flag = True
        self.t.join(1)
        self.tx.close()
        self.rx.close()


def tcp_of(frame):
    p = Ether(frame)
    return p if p.haslayer(TCP) else None


def tfo_opt(p):
    """The TFO option of a parsed segment: None, b'' (request) or the cookie."""
    for o in p[TCP].options:
        if o[0] in ('TFO', 34):
            v = o[1]
            if isinstance(v, bytes):
                return v
            if isinstance(v, tuple):
                return b''.join(struct.pack('!I', x) for x in v)
            return b''
        if o[0] == 254 or o[0] == 'Experimental':
            v = o[1] if isinstance(o[1], bytes) else b''
            if v[:2] == b'\xf9\x89':
                return v[2:]
    return None


# ---- frames -------------------------------------------------------------------

class Host:
    """A forged client: its own address and MAC (the kernel ignores both)."""

    def __init__(self, srv_mac, last_octet):
        self.ip = '198.18.0.%d' % last_octet
        self.mac = '02:00:00:aa:00:%02x' % last_octet
        self.srv_mac = srv_mac

    def eth(self):
        return Ether(src=self.mac, dst=self.srv_mac)

    def syn(self, sport, dport=ECHO, seq=1000, data=b'', tfo=None, exp=False, opts=None):
        o = list(opts) if opts is not None else [('MSS', 1460), ('SAckOK', b''),
                                                 ('Timestamp', (1000, 0)), ('NOP', None),
                                                 ('WScale', 7)]
        if tfo is not None:
            o.append((254, b'\xf9\x89' + tfo) if exp else ('TFO', tfo))
        p = self.eth() / IP(src=self.ip, dst=SERVER_V4) / TCP(
            sport=sport, dport=dport, flags='S', seq=seq, options=o, window=65535)
        return bytes(p / Raw(data)) if data else bytes(p)

    def seg(self, sport, dport, flags, seq, ack, data=b'', opts=()):
        p = self.eth() / IP(src=self.ip, dst=SERVER_V4) / TCP(
            sport=sport, dport=dport, flags=flags, seq=seq, ack=ack, options=list(opts),
            window=65535)
        return bytes(p / Raw(data)) if data else bytes(p)


def answers(frames, host_ip, sport=None):
    """The server's TCP segments to host_ip (and its port sport)."""
    out = []
    for f in frames:
        p = tcp_of(f)
        if p is None or not p.haslayer(IP) or p[IP].dst != host_ip:
            continue
        if sport is not None and p[TCP].dport != sport:
            continue
        out.append(p)
    return out


# ---- the bed --------------------------------------------------------------------

class Suite:
    def __init__(self, server, args=()):
        self.server = server
        self.args = ARGS + list(args)

    def __enter__(self):
        self.ns = 'tfohostile%d' % os.getpid()
        subprocess.run(['ip', 'netns', 'add', self.ns], check=True)
        # no router solicitations, no link-local address (no DAD, MLD for it):
        # the kernel side stays quiet, so that counted deltas are ours
        for k in ('router_solicitations=0', 'addr_gen_mode=1', 'accept_ra=0'):
            subprocess.run(['ip', 'netns', 'exec', self.ns, 'sysctl', '-qw',
                            'net.ipv6.conf.default.' + k], check=False)
        self.bed = Bed(self.server, self.args, shared_ns=self.ns)
        self.bed.ns_run(['ip', 'link', 'set', 'lo', 'up'])
        try:
            self.bed.__enter__()
            self.wire = Wire(self.ns)
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        return self

    def __exit__(self, et, ev, tb):
        if getattr(self, 'wire', None):
            self.wire.close()
        self.bed.__exit__(et, ev, tb)
        subprocess.run(['ip', 'netns', 'del', self.ns], stderr=subprocess.DEVNULL)
        return False

    # -- server state ------------------------------------------------------------
    def stats(self):
        return self.bed.stats()

    def lcores(self, st):
        return {k: v for k, v in st.items() if isinstance(v, dict)}

    def worker(self, st):
        return next(v for k, v in self.lcores(st).items() if 'worker' in k)

    def control(self, st):
        return next(v for k, v in self.lcores(st).items() if 'control' in k)

    def conns(self):
        return self.bed.telemetry('/tfo/conns')

    def server_mac(self):
        """ARP for the server from the kernel side (answered by the control core)."""
        mark = self.wire.mark()
        self.wire.send([bytes(Ether(src='02:00:00:aa:00:01', dst='ff:ff:ff:ff:ff:ff') /
                              ARP(op=1, hwsrc='02:00:00:aa:00:01', psrc='198.18.0.250',
                                  pdst=SERVER_V4))])
        for _ in range(50):
            time.sleep(0.05)
            for f in self.wire.since(mark)[1]:
                p = Ether(f)
                if p.haslayer(ARP) and p[ARP].op == 2 and p[ARP].psrc == SERVER_V4:
                    return p[ARP].hwsrc
        raise RuntimeError('no ARP reply from the server')

    # -- a case's frame ----------------------------------------------------------
    def begin(self):
        self.st0, _ = self.settled()
        self.m = self.wire.mark()
        self.tun0 = self.tun_tx_dropped()
        return self.st0

    def settled(self):
        """Stats read while nothing moved on the wire before or during the read."""
        for _ in range(5):
            quiet = self.wire.quiet(idle=0.4)
            m = self.wire.mark()
            st = self.stats()
            if self.wire.mark() == m:
                return st, quiet
        return st, False

    def end(self, tag):
        """Counters explain every frame of the window; returns (stats, frames in)."""
        st, quiet = self.settled()
        out, frames_in = self.wire.since(self.m)
        dropped = self.tun_tx_dropped() - self.tun0
        self.dropped = dropped	# frames the tap dropped before the server
        rx = st['rx_pkts'] - self.st0['rx_pkts']
        if not quiet:
            # a skipped case (test-summary.py counts SKIP lines): the
            # check below cannot be exact
            print('SKIP %s exact frame count: the wire never went quiet for 0.4 s' % tag)
        T.check('%s server up' % tag, self.bed.proc.poll() is None)
        T.check('%s every frame on the wire reached the server: rx_pkts +%d = %d sent - %d '
                'dropped by the tap' % (tag, rx, out, dropped),
                rx == out - dropped or not quiet, 'quiet %s' % quiet)
        bad = [k for k, v in [('total', st)] + list(self.lcores(st).items())
               if v.get('accounting_ok') != 1 or v.get('rx_unaccounted') or
               v.get('tx_unaccounted')]
        T.check('%s accounting balances on every lcore (rx = delivered + dropped + '
                'to_control, tx = sent + dropped)' % tag, not bad,
                {k: (st if k == 'total' else st[k]).get('rx_unaccounted') for k in bad})
        return st, frames_in

    def tun_tx_dropped(self):
        r = self.bed.ns_run(['cat', '/sys/class/net/tfo0/statistics/tx_dropped'], check=False)
        try:
            return int(r.stdout.strip())
        except ValueError:
            return 0

    def good_client(self, tag):
        """The Linux client: request in the SYN, response in our first packet."""
        st0 = self.stats()
        n0 = self.bed.nstat()
        r = self.bed.client(SERVER_V4, ECHO, '--data', 'good client %s\\n' % tag, '--expect-echo')
        st = self.stats()
        n1 = self.bed.nstat()
        T.check('%s good TFO client served byte-exact' % tag, r['ok'], r)
        T.check('%s ... with its request in the SYN (TCPFastOpenPassive +1, client '
                'TCPFastOpenActive +1)' % tag,
                st['TCPFastOpenPassive'] - st0['TCPFastOpenPassive'] == 1 and
                n1.get('TcpExtTCPFastOpenActive', 0) - n0.get('TcpExtTCPFastOpenActive', 0) == 1,
                (st['TCPFastOpenPassive'] - st0['TCPFastOpenPassive']))

    def drained(self, tag, limit=8.0 + SYNACK_LIFE):
        """Tables back to what the good client leaves (TIME-WAIT at most)."""
        t0 = time.time()
        while time.time() - t0 < limit:
            c = self.conns()
            busy = {k: MAX_CONNS - v.get('free', 0) for k, v in c.items()}
            pend = sum(v.get('tfo_pending', 0) for v in c.values())
            if all(b == 0 for b in busy.values()) and pend == 0:
                break
            time.sleep(0.2)
        T.check('%s every connection entry back in its pool, nothing pending' % tag,
                all(b == 0 for b in busy.values()) and pend == 0, (busy, pend))

    def learn_cookie(self, host, sport=30000):
        """A cookie request from a forged host: the cookie the SYN-ACK offers."""
        mark = self.wire.mark()
        self.wire.send([host.syn(sport, tfo=b'')])
        for _ in range(40):
            time.sleep(0.05)
            for p in answers(self.wire.since(mark)[1], host.ip, sport):
                c = tfo_opt(p)
                if c:
                    return c
        raise RuntimeError('no cookie offered to %s' % host.ip)


def delta(a, b, name):
    return b.get(name, 0) - a.get(name, 0)

