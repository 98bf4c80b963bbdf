#!/usr/bin/python3
"""dpdk-dumpcap against a running tfo-server (suite tap, root, hugepages).

    dumpcap.py TFO_SERVER

dpdk-dumpcap is a DPDK secondary process: it attaches to the server only
when the server runs on hugepages with a shared configuration (no
--no-huge, no --no-shconf). The test uses free 2 MiB hugepages, reserving
what is missing (at most what it needs) and giving them back afterwards; it
mounts hugetlbfs if nothing is mounted, and unmounts it again. It skips
(exit 77) when it cannot reserve them.

With tfo-server running (net_tap, in a namespace), a first connection
learns the cookie; then dpdk-dumpcap captures a TFO exchange on net_tap0
and tshark's TCP dissector must show, in the capture: the SYN with the TFO
cookie option and the request as its payload, and our SYN-ACK carrying the
response as its payload.
"""
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, SERVER_V4, need_root, stop_process  # noqa: E402

HP = '/sys/kernel/mm/hugepages/hugepages-2048kB'
# tfo-server -m 128 (64 pages) + dumpcap's pool, with room; the variable
# lets the reserve-and-restore path be exercised
NEED_PAGES = int(os.environ.get('TFO_DUMPCAP_PAGES', '160'))
T = Checks()


def read_int(path):
    with open(path) as f:
        return int(f.read())


def write_int(path, v):
    with open(path, 'w') as f:
        f.write('%d\n' % v)


def hugetlbfs_mount():
    with open('/proc/mounts') as f:
        for line in f:
            dev, mnt, fs, opts = line.split()[:4]
            if fs == 'hugetlbfs' and ('pagesize=2M' in opts or 'pagesize' not in opts):
                return mnt
    return None


def tshark_fields(path):
    r = subprocess.run(['tshark', '-r', path, '-Y', 'tcp', '-T', 'fields', '-E', 'separator=|',
                        '-e', 'tcp.srcport', '-e', 'tcp.flags.syn', '-e', 'tcp.flags.ack',
                        '-e', 'tcp.options.tfo.cookie', '-e', 'tcp.options.tfo.request',
                        '-e', 'tcp.len', '-e', 'tcp.payload'],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    rows = []
    for line in r.stdout.splitlines():
        f = line.split('|')
        if len(f) == 7:
            rows.append({'sport': f[0], 'syn': f[1] in ('1', 'True'), 'ack': f[2] in ('1', 'True'),
                         'cookie': f[3].replace(':', ''), 'req': f[4] != '',
                         'len': int(f[5] or 0), 'payload': f[6].replace(':', '')})
    return rows, r.stderr


def run(server, mnt):
    prefix = 'tfodump%d' % os.getpid()
    eal = ['-l', '0-1', '--no-pci', '-m', '128', '--file-prefix', prefix, '--huge-dir', mnt]
    out = tempfile.mkdtemp(prefix='tfo-dumpcap.')
    dc = None
    try:
        with Bed(server, ['--max-conns', '1024'], eal=eal) as bed:
            T.check('tfo-server on hugepages: packet capture available (no warning at start)',
                    'packet capture (dpdk-dumpcap) unavailable' not in bed.log_text())
            r = bed.client(SERVER_V4, 7, '--data', 'first\\n', '--expect-echo')
            T.check('first connection (cookie request) served', r['ok'], r)
            cookie = bed.tcp_metrics().split('fo_cookie ')[1].split()[0] \
                if 'fo_cookie' in bed.tcp_metrics() else None
            T.check('the kernel cached our cookie', cookie is not None)
            pcap = os.path.join(out, 'tfo.pcapng')
            dlog = open(os.path.join(out, 'dumpcap.log'), 'w')
            dc = subprocess.Popen(['ip', 'netns', 'exec', bed.ns, 'timeout', '60', 'dpdk-dumpcap',
                                   '--file-prefix=' + prefix, '-i', 'net_tap0', '-p', '-w', pcap],
                                  stdout=dlog, stderr=subprocess.STDOUT)
            deadline = time.time() + 20
            while time.time() < deadline and dc.poll() is None and not (
                    os.path.exists(pcap) and os.path.getsize(pcap) > 0):
                time.sleep(0.1)
            time.sleep(0.5)
            T.check('dpdk-dumpcap attached to the running server', dc.poll() is None,
                    open(dlog.name).read()[-500:])
            req = 'hello dumpcap\\n'
            r = bed.client(SERVER_V4, 7, '--data', req, '--expect-echo')
            T.check('TFO exchange served during the capture', r['ok'], r)
            time.sleep(0.5)
            stop_process(dc)
            dlog.close()
            text = open(dlog.name).read()
            print('dumpcap: ' + ' / '.join(l for l in text.splitlines() if 'Packets' in l))
            rows, err = tshark_fields(pcap)
            want = req.encode().decode('unicode_escape').encode().hex()
            syn = next((x for x in rows if x['syn'] and not x['ack'] and x['cookie']), None)
            synack = next((x for x in rows if x['syn'] and x['ack'] and x['payload']), None)
            for x in rows:
                print('  tshark: %s' % x)
            T.check('tshark: the SYN carries the TFO option with our cookie',
                    syn is not None and syn['cookie'] == cookie, (syn, cookie, err[-300:]))
            T.check('tshark: ... and the request as its payload',
                    syn is not None and syn['payload'] == want and syn['len'] == len(want) // 2)
            T.check('tshark: our SYN-ACK carries the response as its payload',
                    synack is not None and synack['payload'] == want, synack)
            T.check('server stops with exit code 0', bed.stop() == 0)
    finally:
        if dc is not None:
            stop_process(dc, signal.SIGKILL)
        shutil.rmtree(out, ignore_errors=True)
        # a primary on hugepages leaves its runtime files and page files
        shutil.rmtree('/var/run/dpdk/' + prefix, ignore_errors=True)
        for f in glob.glob(os.path.join(mnt, prefix + '*')):
            os.unlink(f)


def main():
    need_root()
    for tool in ('dpdk-dumpcap', 'tshark'):
        if shutil.which(tool) is None:
            print('SKIP: %s is not installed (scripts/setup.sh installs it)' % tool)
            return 77
    server = os.path.abspath(sys.argv[1])
    if not os.path.isdir(HP):
        print('SKIP: no 2 MiB hugepages on this kernel')
        return 77
    nr0 = read_int(HP + '/nr_hugepages')
    mnt, mounted = hugetlbfs_mount(), False
    try:
        free = read_int(HP + '/free_hugepages')
        if free < NEED_PAGES:
            write_int(HP + '/nr_hugepages', nr0 + NEED_PAGES - free)
            print('nr_hugepages %d -> %d, to have %d free (%d were)'
                  % (nr0, read_int(HP + '/nr_hugepages'), NEED_PAGES, free))
            free = read_int(HP + '/free_hugepages')
            if free < NEED_PAGES:
                print('SKIP: cannot reserve %d free 2 MiB hugepages (%d free)' % (NEED_PAGES, free))
                return 77
        if mnt is None:
            mnt = tempfile.mkdtemp(prefix='tfo-huge.')
            subprocess.run(['mount', '-t', 'hugetlbfs', '-o', 'pagesize=2M', 'nodev', mnt],
                           check=True)
            mounted = True
        run(server, mnt)
    except Exception as e:
        T.check('dumpcap test ran without exception', False, repr(e))
    finally:
        if mounted:
            subprocess.run(['umount', mnt])
            os.rmdir(mnt)
        if read_int(HP + '/nr_hugepages') != nr0:
            write_int(HP + '/nr_hugepages', nr0)
            T.check('nr_hugepages restored to %d' % nr0, read_int(HP + '/nr_hugepages') == nr0)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
