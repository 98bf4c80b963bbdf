#!/usr/bin/python3
"""Flow isolation on net_tap (suite tap, root).

    isolate.py TFO_SERVER

tfo-server with `[port net_tap0] isolate = on` (rte_flow_isolate before the
port is configured, then rules for TCP to its addresses and service ports,
and UDP to them: the echo service has `udp = on`)
in a private namespace, one worker (the rules' action is then QUEUE, which
net_tap does with TC skbedit; RSS would need its BPF program). The Linux
kernel on the tap's side is the client. Since ARP no longer reaches the
server, the client has a static neighbour entry for the server's address.

  1. the start-up line says how many rules were installed;
  2. the Linux TFO client is served, and on the second connection the
     response rides in tfo-server's SYN-ACK (IPv4 and IPv6);
  3. traffic the rules do not match never reaches tfo-server: a ping, a
     TCP SYN to port 22 and a UDP datagram to port 53 of the server's
     address leave its rx_pkts counter where it was (no rx_dropped
     either); a UDP datagram to port 7 (udp = on: its rule) is echoed by
     tfo-server (svc_udp_tx);
  4. it stops cleanly (exit 0), the rules destroyed with the port.

What this cannot show: on mlx5 the kernel behind the port answers what the
rules leave it (ping, SSH); net_tap has no kernel stack behind the DPDK
side of the port (the tap's kernel side is the client), so here the
unmatched frames are simply dropped by the isolation rule. The runbook
("Sharing an mlx5 port with the kernel") describes the real case.

net_tap implements isolation and rules with the kernel's TC: the multiq
and ingress qdiscs, the flower classifier, the gact and skbedit actions
(tfo-server leaves and re-enters isolated mode on net_tap once it runs:
net_tap installs its isolation rule only then). On a kernel
built without them (this project's CI machine), net_tap disables rte_flow
and tfo-server must refuse to start with one line naming the rule and the
device: that refusal is checked, then the test exits 77 (skipped) naming
the missing kernel options, so that the missing end-to-end part shows.
"""
import gzip
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import (Bed, Checks, SERVER_V4, SERVER_V6, flows,  # noqa: E402
                    need_root, stop_process)

ECHO = 7
T = Checks()
ISOLATE = ['--set', 'port net_tap0.isolate=on', '--set', 'service echo.udp=on']
EAL = ['-l', '0-1', '--no-huge', '-m', '512', '--no-shconf', '--no-pci']
# what net_tap's rte_flow needs from the kernel (drivers/net/tap/tap_flow.c)
TC_NEEDS = ('CONFIG_NET_SCH_MULTIQ', 'CONFIG_NET_SCH_INGRESS', 'CONFIG_NET_CLS_FLOWER',
            'CONFIG_NET_ACT_GACT', 'CONFIG_NET_ACT_SKBEDIT')


def kernel_config():
    """(missing, modules): the TC options net_tap's rte_flow needs that this
    kernel lacks, and those it builds as modules (which a container may not
    be able to load); (None, None) when its configuration cannot be read."""
    text = None
    for path in ('/proc/config.gz', '/boot/config-' + os.uname().release):
        try:
            if path.endswith('.gz'):
                with gzip.open(path, 'rt') as f:
                    text = f.read()
            else:
                with open(path) as f:
                    text = f.read()
            break
        except OSError:
            continue
    if text is None:
        return None, None
    return ([o for o in TC_NEEDS if not re.search(r'^%s=[ym]$' % o, text, re.M)],
            [o for o in TC_NEEDS if re.search(r'^%s=m$' % o, text, re.M)])


def refusal(server, missing):
    """The kernel cannot: tfo-server must refuse, by name, and not run."""
    ns = 'tfoiso%d' % os.getpid()
    subprocess.run(['ip', 'netns', 'add', ns], check=True)
    try:
        with tempfile.TemporaryFile(mode='w+') as out:
            proc = subprocess.Popen(['ip', 'netns', 'exec', ns, server] + EAL +
                                    ['--file-prefix', ns, '--'] + ISOLATE,
                                    stdout=out, stderr=subprocess.STDOUT)
            try:
                rc = proc.wait(30)
            except subprocess.TimeoutExpired:
                rc = stop_process(proc, signal.SIGKILL)
            out.seek(0)
            log = out.read()
    finally:
        subprocess.run(['ip', 'netns', 'del', ns], stderr=subprocess.DEVNULL)
    T.check('tfo-server refuses to start (exit code not 0)', rc not in (0, None), rc)
    T.check('... before it runs', 'tfo-server: running' not in log)
    line = next((ln for ln in log.splitlines() if 'isolate = on: rule' in ln and
                 'tfo-server:' in ln), '')
    T.check('... with one line naming the port, the rule and the device',
            '[port net_tap0] isolate = on: rule "TCP to %s port %d"' % (SERVER_V4, ECHO) in line
            and '(net_tap)' in line, log[-1500:])
    T.check('... and the PMD\'s message', re.search(r'\(net_tap\): \S', line) is not None, line)
    T.check('the path-MTU rules the device refused are warnings naming them',
            'rule "ICMPv6 packet too big to %s" refused by the device' % SERVER_V6 in log or
            'rule "ICMP fragmentation needed to %s"' % SERVER_V4 in log, log[-1500:])
    rc = T.done()
    if rc != 0:
        return rc
    print('SKIP: the end-to-end part needs net_tap\'s rte_flow, which this kernel cannot '
          'give: %s not set (net_tap: "Disabling rte flow support"); the refusal was '
          'checked (%d checks)' % (', '.join(missing) if missing else 'TC options', T.n))
    return 77


def rx(bed):
    s = bed.stats()
    return s.get('rx_pkts', 0), s.get('rx_dropped', 0)


def server_mac(bed):
    m = re.search(r'port 0 \(net_tap\) mac ([0-9A-Fa-f:]{17})', bed.log_text())
    return m.group(1) if m else None


def tfo_twice(bed, host, tag):
    """First connection learns the cookie; the second's SYN-ACK carries the answer."""
    r = bed.client(host, ECHO, '--data', 'cookie %s\\n' % tag, '--expect-echo')
    T.check('%s first connection served through the rules' % tag, r['ok'], r)
    cap = bed.capture()
    data = 'in the SYN %s\\n' % tag
    r = bed.client(host, ECHO, '--data', data, '--expect-echo')
    pk = cap.packets()
    T.check('%s second connection served' % tag, r['ok'], r)
    flow = next(iter(flows(pk).values()), [])
    syn = next((p for p in flow if p['dir'] == 'c2s' and p['flags'] == 'S'), None)
    ans = next((p for p in flow if p['dir'] == 's2c'), None)
    want = len(data.encode().decode('unicode_escape'))
    T.check('%s the SYN carries the cookie and the request' % tag,
            syn is not None and syn['tfo'] not in (None, 'req') and syn['len'] == want,
            syn and (syn['tfo'], syn['len']))
    T.check('%s the response is in our SYN-ACK' % tag,
            ans is not None and 'S' in ans['flags'] and 'A' in ans['flags']
            and ans['len'] == want, ans and (ans['flags'], ans['len']))


def unmatched(bed):
    """A ping, a SYN to port 22, a UDP datagram: none reaches tfo-server."""
    before = rx(bed)
    bed.ns_run(['ping', '-c', '3', '-i', '0.2', '-W', '1', SERVER_V4], check=False)
    bed.ns_run(['ping', '-6', '-c', '2', '-i', '0.2', '-W', '1', SERVER_V6], check=False)
    code = ('import socket\n'
            's = socket.socket(); s.settimeout(1.5)\n'
            'try:\n    s.connect((%r, 22))\nexcept OSError:\n    pass\n'
            'u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n'
            'for _ in range(5):\n    u.sendto(b"dns?", (%r, 53))\n') % (SERVER_V4, SERVER_V4)
    bed.ns_run(['/usr/bin/python3', '-c', code], check=False)
    time.sleep(0.5)
    after = rx(bed)
    T.check('a ping, a SYN to port 22 and UDP never reach tfo-server (rx_pkts, rx_dropped '
            'unchanged)', after == before, (before, after))
    # the same counters move for what the rules match: the check above can fail
    r = bed.client(SERVER_V4, ECHO, '--data', 'after\\n', '--expect-echo')
    T.check('... while TCP to a service port still does (rx_pkts moves)',
            r['ok'] and rx(bed)[0] > after[0], (r, rx(bed), after))


def udp_rule(bed):
    """UDP to the echo port (udp = on): its rule brings it, tfo-server
    answers."""
    log = bed.log_text()
    T.check('the start-up line counts the UDP rules (2 addresses x echo)',
            re.search(r'isolate = on: \d+ flow rules installed \(\d+ TCP to 2 addresses x '
                      r'\d+ services and 2 UDP', log) is not None,
            [ln for ln in log.splitlines() if 'flow rules' in ln])
    before = bed.stats().get('svc_udp_tx', 0)
    code = ('import socket, sys\n'
            'f = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET\n'
            'u = socket.socket(f, socket.SOCK_DGRAM); u.settimeout(2)\n'
            'u.sendto(b"udp rule", (sys.argv[1], %d))\n'
            'print(u.recv(100).decode())\n') % ECHO
    for host in (SERVER_V4, SERVER_V6):
        r = bed.ns_run(['/usr/bin/python3', '-c', code, host], check=False)
        T.check('UDP to %s port %d (udp = on) echoed by tfo-server' % (host, ECHO),
                r.stdout.strip() == 'udp rule', r.stdout[-200:] + r.stderr[-200:])
    T.check('... svc_udp_tx +2', bed.stats().get('svc_udp_tx', 0) - before == 2)


def served_and_isolated(bed):
    """Cases 1-4 on a running isolated server."""
    log = bed.log_text()
    T.check('the start-up line says how many rules were installed',
            re.search(r'\[port net_tap0\] isolate = on: \d+ flow rules installed', log)
            is not None, log[-1500:])
    mac = server_mac(bed)
    if not T.check('the server\'s MAC is in the log', mac is not None):
        return
    # ARP and ND no longer reach the server: the client knows its MAC
    bed.ns_run(['ip', 'neigh', 'replace', SERVER_V4, 'lladdr', mac, 'dev', bed.iface,
                'nud', 'permanent'])
    bed.ns_run(['ip', '-6', 'neigh', 'replace', SERVER_V6, 'lladdr', mac, 'dev',
                bed.iface, 'nud', 'permanent'])
    tfo_twice(bed, SERVER_V4, 'IPv4')
    tfo_twice(bed, SERVER_V6, 'IPv6')
    unmatched(bed)
    udp_rule(bed)
    rc = bed.stop()
    T.check('tfo-server stops cleanly (exit 0)', rc == 0, rc)


def main():
    need_root()
    server = sys.argv[1]
    missing, modules = kernel_config()
    if missing:
        return refusal(server, missing)
    bed = Bed(server, ISOLATE)
    try:
        bed.__enter__()  # cleans up after itself when it fails
    except RuntimeError as e:
        # a kernel that says it has them all built in must work
        if (missing is None or modules) and '[port net_tap0] isolate = on:' in str(e):
            print('SKIP: net_tap refused isolation; this kernel %s (net_tap needs %s):\n%s'
                  % ('builds %s as modules' % ', '.join(modules) if modules else
                     'does not say what it has', ', '.join(TC_NEEDS), e))
            return 77
        raise
    try:
        served_and_isolated(bed)
    finally:
        bed.__exit__(*sys.exc_info())
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
