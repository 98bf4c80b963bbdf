#!/usr/bin/python3
"""The exception path: the host's own traffic on a DPDK-owned port (suite
tap, root).

    exception.py TFO_SERVER

tfo-server with `[port net_tap0] exception = on` creates the kernel
interface tfoexc0 (a net_tap with the port's MAC); it is moved to a second
namespace, "the host", which holds the server's address 198.18.0.2 (as a
host keeps its own address on a NIC it gave to DPDK) and a host-only
address 198.18.0.3, and runs a kernel TCP listener on 198.18.0.2:22. The
client (the Linux kernel of the server's namespace, on tfo0) checks:

  1. port 22 of the server's address reaches the host's listener through
     tfo-server (no service listens on 22), byte-exact, while TFO on port 7
     still answers in the SYN-ACK and never reaches the kernel interface;
  2. ping of the host-only address works (ARP and ICMP through the
     exception path, both ways), and the host pings out from the shared
     address (echo replies to it are the kernel's);
  3. the counters match the kernel interface's: exc_to_kernel = its RX
     packets, exc_from_kernel = its TX packets;
  4. a flood of UDP for the host (3000 datagrams) is bounded by
     exception_pps (drop_exc_rate counts the rest of what reached the
     server; the client's tap drops some too), and the server and the
     exception path still work after it;
  5. IPv6: ping of a host-only address (ND through the exception path),
     the host pings out from the shared address, tfo-server still answers
     pings of its own.
"""
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import (Bed, Checks, CLIENT_V6, SERVER_V4, SERVER_V6, flows, need_root,  # noqa: E402
                    stop_process)

ECHO = 7
HOST_ONLY = '198.18.0.3'
HOST_ONLY6 = 'fd00:7f0::3'
EXC = 'tfoexc0'
PPS = 500
T = Checks()

LISTENER = r'''
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 22))
s.listen(16)
print("listening", flush=True)
while True:
    c, _ = s.accept()
    data = b""
    while not data.endswith(b"\n"):
        d = c.recv(4096)
        if not d:
            break
        data += d
    c.sendall(data)
    c.close()
'''


def hrun(hns, *cmd, check=True):
    return subprocess.run(['ip', 'netns', 'exec', hns] + list(cmd), check=check, timeout=30,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def iface_counts(hns):
    """(rx, tx) packets of the exception interface, as the host sees it."""
    d = json.loads(hrun(hns, 'ip', '-s', '-j', 'link', 'show', EXC).stdout)[0]
    st = d['stats64']
    return st['rx']['packets'], st['tx']['packets']


def exc_counts(bed):
    s = bed.stats()
    return {k: s.get(k, 0) for k in ('exc_to_kernel', 'exc_from_kernel', 'drop_exc_rate',
                                     'drop_exc_full', 'exc_from_kernel_drop')}


def counters_match(bed, hns, tag):
    time.sleep(0.5)
    # The host's own timers (IPv6 MLD reports, router solicitations) may
    # send a frame between the two reads: take a reading that no frame
    # crossed (the server's counters the same before and after the
    # interface's), a few tries at most
    for _ in range(5):
        e = exc_counts(bed)
        rx, tx = iface_counts(hns)
        if exc_counts(bed) == e:
            break
        time.sleep(0.2)
    T.check('%s: exc_to_kernel = the interface\'s RX packets (%d), exc_from_kernel = its '
            'TX packets (%d)' % (tag, rx, tx),
            e['exc_to_kernel'] == rx and e['exc_from_kernel'] == tx, (e, rx, tx))
    return e


def main():
    need_root()
    server = os.path.abspath(sys.argv[1])
    hns = 'tfoexch%d' % os.getpid()
    listener = None
    try:
        with Bed(server, ['--set', 'port net_tap0.exception=on',
                          '--set', 'port net_tap0.exception_pps=%d' % PPS]) as bed:
            T.check('start-up log names the exception interface',
                    'exception path on kernel interface %s' % EXC in bed.log_text())
            subprocess.run(['ip', 'netns', 'add', hns], check=True)
            bed.ns_run(['ip', 'link', 'set', EXC, 'netns', hns])
            hrun(hns, 'ip', 'link', 'set', 'lo', 'up')
            # quiet: no IPv6 chatter from the host while counters are compared
            hrun(hns, 'sysctl', '-qw', 'net.ipv6.conf.%s.disable_ipv6=1' % EXC)
            hrun(hns, 'ip', 'addr', 'add', SERVER_V4 + '/24', 'dev', EXC)
            hrun(hns, 'ip', 'addr', 'add', HOST_ONLY + '/24', 'dev', EXC)
            hrun(hns, 'ip', 'link', 'set', EXC, 'up')
            listener = subprocess.Popen(['ip', 'netns', 'exec', hns, '/usr/bin/python3', '-c',
                                         LISTENER, SERVER_V4], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
            T.check('host: a kernel listener on %s:22' % SERVER_V4,
                    listener.stdout.readline().strip() == 'listening')

            print('== port 22 of the server\'s address: the host\'s kernel')
            for i in range(3):
                r = bed.client(SERVER_V4, 22, '--mode', 'plain', '--data',
                               'ssh-like request %d\\n' % i, '--expect-echo', '--timeout', '10')
                T.check('connection %d to :22 served by the host, byte-exact' % i, r['ok'], r)
            counters_match(bed, hns, 'after :22')

            print('== TFO on port 7 still answers in the SYN-ACK, never via the host')
            hcap = subprocess.Popen(['ip', 'netns', 'exec', hns, 'tcpdump', '-i', EXC, '-n',
                                     '-l', 'tcp port %d' % ECHO], stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
            time.sleep(1)
            bed.client(SERVER_V4, ECHO, '--data', 'first\\n', '--expect-echo')
            before = bed.stats()
            cap = bed.capture()
            r = bed.client(SERVER_V4, ECHO, '--data', 'tfo\\n', '--expect-echo')
            pk = cap.packets()
            fl = next(iter(flows(pk).values()), [])
            ans = next((p for p in fl if p['dir'] == 's2c'), None)
            d = bed.stats().get('TCPFastOpenPassive', 0) - before.get('TCPFastOpenPassive', 0)
            T.check('port 7: TFO, the response in the SYN-ACK',
                    r['ok'] and d == 1 and ans is not None and 'S' in ans['flags']
                    and ans['len'] > 0, (r, d, ans))
            stop_process(hcap, signal.SIGINT, 5)
            seen = hcap.stdout.read()
            T.check('port 7 traffic never reached the kernel interface', seen.strip() == '',
                    seen[:300])
            counters_match(bed, hns, 'after port 7')

            print('== ping of a host-only address')
            r = bed.ns_run(['ping', '-c', '3', '-i', '0.2', '-w', '10', HOST_ONLY], check=False)
            T.check('ping %s: 3 replies (ARP and ICMP through the exception path)' % HOST_ONLY,
                    r.returncode == 0, r.stdout[-200:])
            r = hrun(hns, 'ping', '-c', '2', '-i', '0.2', '-w', '10', '-I', SERVER_V4,
                     '198.18.0.1', check=False)
            T.check('the host pings the client from the shared address (echo replies '
                    'to %s go to the kernel)' % SERVER_V4,
                    r.returncode == 0, r.stdout[-200:])
            e0 = counters_match(bed, hns, 'after ping')

            print('== a UDP flood for the host is bounded by exception_pps = %d' % PPS)
            t0 = time.time()
            bed.ns_run(['/usr/bin/python3', '-c',
                        'import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n'
                        'for i in range(3000):\n    s.sendto(b"x" * 64, ("%s", 9))\n'
                        % HOST_ONLY])
            el = time.time() - t0
            e1 = counters_match(bed, hns, 'after the flood')
            passed = e1['exc_to_kernel'] - e0['exc_to_kernel']
            dropped = e1['drop_exc_rate'] - e0['drop_exc_rate']
            bound = 64 + PPS * (el + 1.0)
            T.check('flood: %d reached the host (bound %d), %d counted as drop_exc_rate'
                    % (passed, bound, dropped),
                    passed <= bound and dropped > passed,
                    (passed, dropped, el))
            time.sleep(0.5)
            r = bed.client(SERVER_V4, 22, '--mode', 'plain', '--data', 'after\\n',
                           '--expect-echo')
            T.check('after the flood: :22 still served by the host', r['ok'], r)
            r = bed.client(SERVER_V4, ECHO, '--data', 'after\\n', '--expect-echo')
            T.check('after the flood: port 7 still served', r['ok'], r)

            print('== IPv6: a host-only address, and the host pinging out from ours')
            # net_tap gives its kernel side the PMD's MAC, so the client's
            # tfo0 shares the MAC of the server and of the host (tfoexc0
            # takes the port's); the kernel ignores ND from its own MAC
            bed.ns_run(['ip', 'link', 'set', 'tfo0', 'address', '02:00:5e:00:53:01'])
            hrun(hns, 'sysctl', '-qw', 'net.ipv6.conf.%s.disable_ipv6=0' % EXC)
            for a in (SERVER_V6, HOST_ONLY6):
                hrun(hns, 'ip', '-6', 'addr', 'add', a + '/64', 'dev', EXC, 'nodad')
            r = bed.ns_run(['ping', '-6', '-c', '3', '-i', '0.2', '-w', '10', HOST_ONLY6],
                           check=False)
            T.check('ping %s: 3 replies (ND and ICMPv6 through the exception path)'
                    % HOST_ONLY6, r.returncode == 0,
                    r.stdout[-200:])
            r = hrun(hns, 'ping', '-6', '-c', '2', '-i', '0.2', '-w', '10', '-I', SERVER_V6,
                     CLIENT_V6, check=False)
            T.check('the host pings the client from %s (the NA and echo replies to it go '
                    'to the kernel)' % SERVER_V6,
                    r.returncode == 0, r.stdout[-200:])
            r = bed.ns_run(['ping', '-6', '-c', '1', '-w', '10', SERVER_V6], check=False)
            T.check('ping %s is still answered by tfo-server' % SERVER_V6,
                    r.returncode == 0, r.stdout[-200:])

            c = bed.nstat()
            T.check('client: no TCP checksum errors', c.get('TcpInCsumErrors', 0) == 0)
            T.check('tfo-server stops with exit code 0', bed.stop() == 0)
    except Exception as e:
        T.check('exception test ran without exception', False, repr(e))
    finally:
        if listener is not None:
            stop_process(listener, signal.SIGTERM, 5)
        subprocess.run(['ip', 'netns', 'del', hns], stderr=subprocess.DEVNULL)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
