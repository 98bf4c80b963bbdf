#!/usr/bin/python3
"""AF_XDP mode: tfo-server shares a kernel interface (suite tap, root).

    afxdp.py TFO_SERVER

A veth pair between two network namespaces made here: the server end
carries the server's addresses in the kernel, and tfo-server runs on it
through net_af_xdp with its own XDP program ([port] xdp = own, the default
on a net_af_xdp vdev). From the client namespace:
- the Linux TFO client, second connection (after the cookie): tfo-server's
  SYN-ACK carries the response (IPv4 and IPv6);
- a kernel TCP listener on port 22 of the same address, ping, and a UDP
  echo on port 7 (the TFO service's number) are answered by the kernel,
  and tfo-server's counters show it never saw them;
- the program is gone from the interface after tfo-server stops.
And the configuration's refusals (exception, rss = peer, xdp = own off
net_af_xdp, queue_count != workers), each with one clear line.
Skips (77) with the reason when the build has no XDP program or a tool is
missing.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import (Bed, Checks, SERVER_V4, SERVER_V6, CLIENT_V4, CLIENT_V6,  # noqa: E402
                    VethPair, ns, sh, describe, end_servers, flows, need_root, start_together,
                    stop_process)

HERE = os.path.dirname(os.path.abspath(__file__))
ECHO = 7
T = Checks()
PID = os.getpid()
SNS, CNS = 'afxs%d' % PID, 'afxc%d' % PID
SIF, CIF = 'vxs%d' % PID, 'vxc%d' % PID
PREFIX = 'afx%d' % PID

# The kernel's own services in the server namespace: "SSH" on TCP 22 (a
# banner), a UDP echo on port 7; both dual stack, both on the addresses
# tfo-server serves.
KERNEL_SERVICES = r'''
import socket, threading
t = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
t.bind(('::', 22)); t.listen(16)
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
u.bind(('::', 7))
def udp():
    while True:
        d, a = u.recvfrom(2048); u.sendto(d, a)
threading.Thread(target=udp, daemon=True).start()
print('ready', flush=True)
while True:
    c, _ = t.accept(); c.sendall(b'SSH-2.0-kernel\r\n'); c.close()
'''

# Path-MTU errors from the client's side (raw sockets: the kernel adds the
# IP header): IPv4 "fragmentation needed" / ICMPv6 "packet too big", each
# quoting a TCP segment from SERVER:SPORT to the client. argv: family, the
# server's address, the client's, SPORT.
FORGE_PTB = r'''
import socket, struct, sys
fam, srv, cli, sport = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
tcp8 = struct.pack('!HHI', sport, 40000, 12345)
def csum(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    s += s >> 16
    return ~s & 0xffff
if fam == '4':
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + 1400, 1, 0x4000, 64, 6, 0,
                     socket.inet_aton(srv), socket.inet_aton(cli))
    ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
    body = struct.pack('!BBHHH', 3, 4, 0, 0, 1200) + ip + tcp8
    body = body[:2] + struct.pack('!H', csum(body)) + body[4:]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.sendto(body, (srv, 0))
else:
    ip6 = struct.pack('!IHBB16s16s', 6 << 28, 1400, 6, 64,
                      socket.inet_pton(socket.AF_INET6, srv),
                      socket.inet_pton(socket.AF_INET6, cli))
    body = struct.pack('!BBHI', 2, 0, 0, 1280) + ip6 + tcp8
    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    s.sendto(body, (srv, 0))
'''

CONFIG = '''
[port net_af_xdp0]
vdev = net_af_xdp0,iface={iface}{extra_vdev}
ipv4 = {v4}/24
ipv6 = {v6}/64
{extra_port}
[service echo]
port = 7
'''

EAL = ['-l', '0-1', '--no-huge', '-m', '256', '--no-shconf', '--no-pci',
       '--file-prefix', PREFIX]


def write_config(path, extra_port='', extra_vdev='', iface=None):
    with open(path, 'w') as f:
        f.write(CONFIG.format(iface=iface or SIF, v4=SERVER_V4, v6=SERVER_V6,
                              extra_port=extra_port, extra_vdev=extra_vdev))


def refusals(server, tmp):
    """Nonsense refused before anything starts, one line each."""
    cases = [
        ('exception = on', '', 'exception = on with xdp = own'),
        ('rss = peer', '', 'rss = peer with xdp = own'),
        ('syn_steering = on', '', 'syn_steering = on with xdp = own'),
        ('', ',xdp_prog=/tmp/x.o', 'with xdp = own tfo-server loads its own program'),
    ]
    for extra, vdev, want in cases:
        cfg = os.path.join(tmp, 'bad.ini')
        write_config(cfg, extra_port=extra, extra_vdev=vdev)
        r = sh([server, '--', '--config', cfg, '--print-config'], check=False)
        T.check('refused: %s%s' % (extra, vdev), r.returncode != 0 and want in r.stderr + r.stdout,
                (r.returncode, (r.stderr + r.stdout)[-300:]))
    cfg = os.path.join(tmp, 'bad.ini')
    with open(cfg, 'w') as f:
        f.write('[port net_tap0]\nvdev = net_tap0,iface=x\nipv4 = %s/24\nxdp = own\n'
                '[service echo]\nport = 7\n' % SERVER_V4)
    r = sh([server, '--', '--config', cfg, '--print-config'], check=False)
    T.check('refused: xdp = own on a net_tap port',
            r.returncode != 0 and 'only for a net_af_xdp vdev' in r.stderr + r.stdout,
            (r.returncode, (r.stderr + r.stdout)[-300:]))


def xdp_on_iface():
    return 'prog/xdp' in ns(SNS, ['ip', '-d', 'link', 'show', SIF]).stdout


def kernel_checks(cli, tag):
    """ping, TCP 22 and UDP 7 on both families: the kernel answers."""
    for host, ping in ((SERVER_V4, ['ping', '-c', '2', '-i', '0.2', '-W', '2']),
                       (SERVER_V6, ['ping', '-6', '-c', '2', '-i', '0.2', '-W', '2'])):
        r = ns(CNS, ping + [host], check=False)
        T.check('%s ping %s answered by the kernel' % (tag, host), r.returncode == 0,
                r.stdout[-200:] + r.stderr[-200:])
        r = ns(CNS, ['/usr/bin/python3', '-c',
                     'import socket,sys; s=socket.create_connection((sys.argv[1],22),3); '
                     'print(s.recv(100).decode().strip())', host], check=False)
        T.check('%s TCP %s:22 answered by the kernel listener' % (tag, host),
                r.returncode == 0 and 'SSH-2.0-kernel' in r.stdout, r.stdout + r.stderr[-200:])
        r = ns(CNS, ['/usr/bin/python3', '-c',
                     'import socket,sys; f=socket.AF_INET6 if ":" in sys.argv[1] else '
                     'socket.AF_INET; s=socket.socket(f,socket.SOCK_DGRAM); s.settimeout(3); '
                     's.sendto(b"udp hello",(sys.argv[1],7)); print(s.recv(100).decode())',
                     host], check=False)
        T.check('%s UDP %s:7 echoed by the kernel' % (tag, host),
                r.returncode == 0 and 'udp hello' in r.stdout, r.stdout + r.stderr[-200:])


def ptb_checks(srv):
    """The XDP program's ICMP branch: a path-MTU error quoting a segment of
    a served port reaches tfo-server, one quoting port 22 stays in the
    kernel."""
    for fam, host, client in (('4', SERVER_V4, CLIENT_V4), ('6', SERVER_V6, CLIENT_V6)):
        for sport, want in ((ECHO, 1), (22, 0)):
            before = srv.stats()
            r = ns(CNS, ['/usr/bin/python3', '-c', FORGE_PTB, fam, host, client, str(sport)],
                   check=False)
            time.sleep(0.3)
            after = srv.stats()
            got = after.get('rx_pkts', 0) - before.get('rx_pkts', 0)
            # no such connection: handled as a path-MTU error all the same
            nc = after.get('pmtu_no_conn', 0) - before.get('pmtu_no_conn', 0)
            T.check('IPv%s path-MTU error quoting port %d: %s' %
                    (fam, sport, 'to tfo-server' if want else 'kept by the kernel'),
                    r.returncode == 0 and got == want and nc == want,
                    (r.stderr[-200:], got, nc))


def tfo_checks(cli, srv, host, tag):
    """The first connection learns the cookie, the second is answered in
    tfo-server's SYN-ACK."""
    r = cli.client(host, ECHO, '--data', 'first %s\\n' % tag, '--expect-echo')
    T.check('%s first connection (cookie request) served' % tag, r['ok'], r)
    T.check('%s the kernel client cached our cookie' % tag,
            'fo_cookie' in cli.tcp_metrics())
    before = srv.stats()
    cap = cli.capture()
    data = 'hello in the SYN %s\\n' % tag
    r = cli.client(host, ECHO, '--data', data, '--expect-echo')
    pk = cap.packets()
    after = srv.stats()
    T.check('%s second connection served (echo byte-exact)' % tag, r['ok'], r)
    flow = next(iter(flows(pk).values()), [])
    syn = next((p for p in flow if p['dir'] == 'c2s' and p['flags'] == 'S'), None)
    ans = next((p for p in flow if p['dir'] == 's2c'), None)
    req = data.encode().decode('unicode_escape').encode('latin-1')
    T.check('%s SYN carries the cookie and the request' % tag,
            syn is not None and syn['tfo'] not in (None, 'req') and syn['len'] == len(req),
            syn and (syn['tfo'], syn['len']))
    T.check('%s our SYN-ACK carries the whole response' % tag,
            ans is not None and 'S' in ans['flags'] and 'A' in ans['flags']
            and ans['payload'] == req, ans and (ans['flags'], ans['len']))
    T.check('%s TCPFastOpenPassive +1 on tfo-server' % tag,
            after.get('TCPFastOpenPassive', 0) - before.get('TCPFastOpenPassive', 0) == 1)
    print('%s capture:\n%s' % (tag, describe(flow)))


def race_checks(server, cfg, tmp, procs):
    """Two servers started together on the veth: one runs, the other is
    refused naming it, and the winner's program serves."""
    logs = [open(os.path.join(tmp, 'race%d.log' % i), 'w+') for i in range(2)]
    cmds = []
    for i in range(2):
        eal = list(EAL)
        eal[eal.index('--file-prefix') + 1] = '%sr%d' % (PREFIX, i)
        cmds.append(['ip', 'netns', 'exec', SNS, server] + eal + ['--', '--config', cfg])
    pair, texts, live = start_together(cmds, logs, timeout=40)
    procs += pair
    if T.check('race: one of two servers started together runs', len(live) == 1,
               (live, [t[-400:] for t in texts])):
        win, lose = live[0], 1 - live[0]
        T.check('race: the other is refused naming the winner\'s PID',
                pair[lose].returncode != 0 and
                'held by process %d' % pair[win].pid in texts[lose], texts[lose][-400:])
        T.check('race: the winner stops with exit code 0', stop_process(pair[win]) == 0)
    for log in logs:
        log.close()
    T.check('race: no program left on the interface', not xdp_on_iface())


def main():
    need_root()
    server = sys.argv[1]
    for tool in ('ethtool', 'ping', 'tcpdump'):
        if shutil.which(tool) is None:
            print('SKIP: %s not installed (scripts/setup.sh installs it)' % tool)
            return 77
    tmp = tempfile.mkdtemp(prefix='afxdp.')
    cfg = os.path.join(tmp, 'afxdp.ini')
    write_config(cfg)
    r = sh([server, '--', '--config', cfg, '--print-config'], check=False)
    if 'built without its XDP program' in r.stderr + r.stdout:
        print('SKIP: ' + (r.stderr + r.stdout).strip().splitlines()[-1])
        return 77
    T.check('the AF_XDP configuration is accepted', r.returncode == 0, r.stderr[-300:])
    refusals(server, tmp)

    procs = []
    log = open(os.path.join(tmp, 'server.log'), 'w+')
    veth = VethPair(SNS, SIF, CNS, CIF)
    try:
        veth.__enter__()  # cleans up after itself when it fails

        def start_server(server, cfg, log):
            return veth.start_server(server, EAL, cfg, log)
        k = subprocess.Popen(['ip', 'netns', 'exec', SNS, '/usr/bin/python3', '-c',
                              KERNEL_SERVICES], stdout=subprocess.PIPE, text=True)
        procs.append(k)
        T.check('kernel services up', k.stdout.readline().strip() == 'ready')

        proc, text = start_server(server, cfg, log)
        procs.append(proc)
        if not T.check('tfo-server runs on net_af_xdp', 'tfo-server: running' in text,
                       text[-1500:]):
            return T.done()
        T.check('tfo-server logs its XDP program on the interface',
                'xdp = own: program tfo_xdp' in text)
        T.check('the program is on the interface', xdp_on_iface())
        srv = Bed(server, name=SNS, eal=EAL)
        cli = Bed(server, name=CNS, iface=CIF)

        before = srv.stats()
        kernel_checks(cli, '[kernel]')
        time.sleep(0.3)
        after = srv.stats()
        T.check('tfo-server saw none of the kernel\'s frames (rx_pkts unchanged)',
                after.get('rx_pkts', 0) == before.get('rx_pkts', 0),
                (before.get('rx_pkts'), after.get('rx_pkts')))
        T.check('... and answered no ARP/ND/echo (drop_kernel_neigh 0, no echo replies)',
                after.get('drop_kernel_neigh', 0) == 0 and after.get('tx_pkts', 0) == 0,
                (after.get('drop_kernel_neigh'), after.get('tx_pkts')))

        tfo_checks(cli, srv, SERVER_V4, '[v4]')
        tfo_checks(cli, srv, SERVER_V6, '[v6]')
        ptb_checks(srv)
        end = srv.stats()
        T.check('tfo-server saw the TFO connections', end.get('rx_pkts', 0) > 0)
        kernel_checks(cli, '[kernel, after TFO]')

        # a second tfo-server on the same interface is refused, and the
        # first one's program stays and serves
        log2 = open(os.path.join(tmp, 'server2.log'), 'w+')
        eal2 = list(EAL)
        eal2[eal2.index('--file-prefix') + 1] = PREFIX + 'b'
        p2 = subprocess.Popen(['ip', 'netns', 'exec', SNS, server] + eal2 +
                              ['--', '--config', cfg], stdout=log2, stderr=subprocess.STDOUT)
        procs.append(p2)
        try:
            rc2 = p2.wait(20)
        except subprocess.TimeoutExpired:
            rc2 = None
        log2.seek(0)
        text2 = log2.read()
        log2.close()
        T.check('a second tfo-server on the interface is refused',
                rc2 not in (0, None) and 'held by process %d: another tfo-server' % proc.pid in text2,
                text2[-600:])
        tfo_checks(cli, srv, SERVER_V4, '[v4, after the refused second server]')

        # a tfo-server that dies leaves its program: the kernel gets
        # everything (no socket), and the next tfo-server replaces it
        proc.kill()
        proc.wait()
        T.check('killed: its program stays on the interface', xdp_on_iface())
        r = ns(CNS, ['ping', '-c', '1', '-W', '2', SERVER_V4], check=False)
        T.check('killed: the kernel still answers ping', r.returncode == 0)
        log.seek(0)
        log.truncate()
        proc, text = start_server(server, cfg, log)
        procs.append(proc)
        T.check('restarted: the left-over program replaced',
                'tfo-server: running' in text and 'that a previous tfo-server left' in text,
                text[-600:])
        tfo_checks(cli, srv, SERVER_V4, '[v4, restarted]')
        r = ns(CNS, ['ping', '-c', '1', '-W', '2', SERVER_V4], check=False)
        T.check('restarted: the kernel answers ping', r.returncode == 0)
        rc = stop_process(proc)
        with open(log.name) as f:
            text = f.read()
        T.check('tfo-server stops with exit code 0', rc == 0, rc)
        m = re.search(r'XDP program: (\d+) frames to tfo-server, (\d+) left to the kernel', text)
        T.check('its program sent frames both ways (the kernel\'s ones passed)',
                m is not None and int(m.group(1)) > 0 and int(m.group(2)) > 0,
                m and m.group(0))
        T.check('the program is removed from the interface', not xdp_on_iface())
        r = ns(CNS, ['ping', '-c', '1', '-W', '2', SERVER_V4], check=False)
        T.check('the kernel still answers after tfo-server left', r.returncode == 0)

        # one queue per worker: a worker more than queue_count is refused
        # (net_af_xdp 22.11 itself refuses a queue_count above the
        # interface's combined channels, which a veth does not report)
        def refused_start(config):
            """A start that must fail: (exit code, its log)."""
            log.seek(0)
            log.truncate()
            proc, _ = start_server(server, config, log)
            procs.append(proc)
            rc = proc.wait(20)
            with open(log.name) as f:
                return rc, f.read()

        eal = list(EAL)
        EAL[EAL.index('-l'):EAL.index('-l') + 2] = ['--lcores', '0@0,1@1,2@1']
        rc, text = refused_start(cfg)
        T.check('two workers on queue_count = 1 refused',
                rc != 0 and 'queue_count = 1, but 2 workers' in text, text[-600:])
        T.check('... and no program left on the interface', not xdp_on_iface())
        EAL[:] = eal

        # an MTU past net_af_xdp's frame (one 4 KiB page): refused with
        # the device's ceiling and the fix, nothing left behind
        big = os.path.join(tmp, 'bigmtu.ini')
        write_config(big, extra_port='mtu = 4000')
        rc, text = refused_start(big)
        T.check('mtu = 4000 refused with net_af_xdp\'s ceiling and the fix',
                rc != 0 and re.search(r'mtu = 4000: net_af_xdp takes at most \d+; '
                                      r'set mtu = \d+ or less', text), text[-600:])
        T.check('... and no program left on the interface', not xdp_on_iface())

        # two servers started at the same instant on the interface: the
        # program check sees a server only once its PMD has loaded the
        # program, so both used to pass; the interface's claim lets one by
        race_checks(server, cfg, tmp, procs)

        # an interface with more RX queues than tfo-server serves: warned
        ns(SNS, ['ethtool', '-L', SIF, 'rx', '2', 'tx', '2'])
        log.seek(0)
        log.truncate()
        proc, text = start_server(server, cfg, log)
        procs.append(proc)
        T.check('more RX queues than served: a warning that names ethtool -L',
                'has 2 RX queues, tfo-server serves 0..0' in text and 'ethtool -L' in text,
                text[-600:])
        T.check('... and it still runs', stop_process(proc) == 0)
    finally:
        end_servers(procs, log, T.failed, PREFIX)
        veth.__exit__(None, None, None)
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
