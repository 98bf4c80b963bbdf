"""Test bed for the net_tap interop tests, in Python (run with /usr/bin/python3,
which has scapy).

A Bed is tfo-server in a private network namespace, where net_tap creates the
kernel interface tfo0; the kernel client runs in the same namespace, so its
TFO cookie cache (ip tcp_metrics) and counters (nstat) start clean, and
deleting the namespace removes everything. Use it as a context manager: the
namespace, the server and the captures go away on every exit path.
"""
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER_V4, CLIENT_V4 = '198.18.0.2', '198.18.0.1'
SERVER_V6, CLIENT_V6 = 'fd00:7f0::2', 'fd00:7f0::1'


class Checks:
    """Assertions that count, print, and never stop the script early."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, what, cond, detail=''):
        self.n += 1
        if cond:
            print('ok   %s' % what)
        else:
            self.failed += 1
            print('FAIL %s %s' % (what, detail))
        sys.stdout.flush()
        return cond

    def done(self):
        print('checks: %d, failed: %d' % (self.n, self.failed))
        return 0 if self.n > 0 and self.failed == 0 else 1


class FakeTelemetry(threading.Thread):
    """A DPDK telemetry v2 socket at @path for tests without a server: the
    hello, then answer(command) for each command of a connection (None is
    what DPDK answers to a command it does not have). Close with close()."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.bind(path)
        self.sock.listen(8)

    def answer(self, command):
        raise NotImplementedError

    def run(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            c.send(json.dumps({'version': 'fake', 'pid': os.getpid(),
                               'max_output_len': 65536}).encode())
            while True:
                try:
                    cmd = c.recv(1024).decode()
                except OSError:
                    break
                if not cmd:
                    break
                c.send(json.dumps({cmd.split(',')[0]: self.answer(cmd)}).encode())
            c.close()

    def close(self):
        self.sock.close()


def find_promtool():
    """promtool ($PROMTOOL, PATH, or where scripts/setup.sh puts it), or None."""
    p = os.environ.get('PROMTOOL') or shutil.which('promtool')
    if p is None and os.path.exists('/usr/local/bin/promtool'):
        p = '/usr/local/bin/promtool'
    return p


def promtool_check_metrics(checks, text, what):
    """`promtool check metrics` on @text must print nothing; without promtool
    a loud SKIP line (scripts/setup.sh fetches it)."""
    promtool = find_promtool()
    if promtool is None:
        print('SKIP promtool check metrics (%s): promtool NOT INSTALLED; scripts/setup.sh '
              'fetches it from Debian\'s prometheus package' % what)
        return
    r = subprocess.run([promtool, 'check', 'metrics'], input=text, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=30)
    checks.check('promtool check metrics (%s) reports nothing' % what,
                 r.returncode == 0 and not r.stdout.strip(), r.stdout[:2000])


def stop_process(proc, sig=signal.SIGINT, timeout=15):
    """Signal @proc, wait up to @timeout s, then kill it; its exit code."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def need_root():
    if os.geteuid() != 0:
        print('SKIP: needs root (net_tap, network namespaces)')
        sys.exit(77)


class Bed:
    """eal: EAL arguments (a list, before "--"; default: the configuration's
    [eal] args); iface: the tap's kernel name (must match the port's vdev);
    shared_ns: run in the namespace of another Bed (which deletes it)."""

    def __init__(self, server, args=(), name=None, cwd=None, eal=None, iface='tfo0',
                 shared_ns=None):
        self.server = server
        self.args = list(args)
        self.eal = list(eal) if eal is not None else None
        self.iface = iface
        self.own_ns = shared_ns is None
        self.ns = shared_ns or name or 'tfopy%d' % os.getpid()
        self.proc = None
        self.pid = None
        self.log = None
        self.captures = []

    # -- lifecycle ----------------------------------------------------------
    def __enter__(self):
        if self.own_ns:
            subprocess.run(['ip', 'netns', 'add', self.ns], check=True)
            self.ns_run(['ip', 'link', 'set', 'lo', 'up'])
        try:
            self.start()
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        return self

    @property
    def prefix(self):
        """The EAL --file-prefix (telemetry socket directory)."""
        args = self.eal or []
        for i, a in enumerate(args):
            if a == '--file-prefix' and i + 1 < len(args):
                return args[i + 1]
            if a.startswith('--file-prefix='):
                return a.split('=', 1)[1]
        return 'tfo%d' % self.pid

    def start(self, extra=()):
        fd, self.log = tempfile.mkstemp(prefix='tfo-server.', suffix='.log')
        self.logf = os.fdopen(fd, 'w')
        cmd = ['ip', 'netns', 'exec', self.ns, self.server] + (self.eal or []) + ['--'] + \
            self.args + list(extra)
        self.proc = subprocess.Popen(cmd, stdout=self.logf, stderr=subprocess.STDOUT)
        self.pid = self.proc.pid
        deadline = time.time() + 30
        while time.time() < deadline:
            if 'tfo-server: running' in self.log_text():
                break
            if self.proc.poll() is not None:
                raise RuntimeError('tfo-server exited during start-up:\n' + self.log_text())
            time.sleep(0.1)
        else:
            raise RuntimeError('tfo-server did not start in 30 s')
        # the tap exists once the server runs; (re)configure it
        self.ns_run(['ip', 'addr', 'replace', CLIENT_V4 + '/24', 'dev', self.iface])
        self.ns_run(['ip', '-6', 'addr', 'replace', CLIENT_V6 + '/64', 'dev', self.iface, 'nodad'])
        self.ns_run(['ip', 'link', 'set', self.iface, 'up'])

    def stop(self, sig=signal.SIGINT, timeout=15):
        """Stop the server; returns its exit code."""
        if self.proc is None:
            return None
        rc = stop_process(self.proc, sig, timeout)
        try:
            os.rmdir('/var/run/dpdk/%s' % self.prefix)
        except OSError:
            pass
        self.proc = None
        return rc

    def __exit__(self, et, ev, tb):
        for c in self.captures:
            c.stop()
        self.stop(signal.SIGINT)  # at once: SIGTERM would drain
        if self.own_ns:
            subprocess.run(['ip', 'netns', 'del', self.ns], stderr=subprocess.DEVNULL)
        if et is not None or os.environ.get('TFO_KEEP_LOG'):
            print('---- tfo-server log (tail) ----')
            print('\n'.join(self.log_text().splitlines()[-60:]))
        if self.log:
            os.unlink(self.log)
        return False

    def log_text(self):
        if not self.log:
            return ''
        try:
            with open(self.log) as f:
                return f.read()
        except OSError:
            return ''

    # -- helpers ------------------------------------------------------------
    def ns_run(self, cmd, check=True, timeout=30, text=True, **kw):
        return subprocess.run(['ip', 'netns', 'exec', self.ns] + cmd, check=check,
                              timeout=timeout, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=text, **kw)

    def telemetry(self, cmd):
        r = subprocess.run(['ip', 'netns', 'exec', self.ns, 'dpdk-telemetry.py', '-f',
                            self.prefix], input=cmd + '\n', text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=15)
        return json.loads(r.stdout)[cmd.split(',')[0]]

    def stats(self):
        return self.telemetry('/tfo/stats')

    def counters(self):
        """/tfo/counters, every page: (counter -> "counter: help", a
        service's counter -> its service)."""
        meta, services, start = {}, {}, 0
        for _ in range(64):	# 64 counters a page: far more than there are
            page = self.telemetry('/tfo/counters,%d' % start)
            meta.update(page['counters'])
            services.update(page.get('services', {}))
            start = page['next']
            if not start:
                break
        return meta, services

    def nstat(self):
        """The kernel client's counters (absolute), as a dict."""
        r = self.ns_run(['nstat', '-az', '--json'])
        d = json.loads(r.stdout)
        out = {}
        for v in d.values():
            out.update(v)
        return out

    def tcp_metrics(self):
        return self.ns_run(['ip', 'tcp_metrics', 'show']).stdout

    def client(self, host, port, *args, timeout=20):
        """Run tfo_client.py in the namespace; returns its JSON result."""
        r = self.ns_run(['/usr/bin/python3', os.path.join(HERE, 'tfo_client.py'), host,
                         str(port)] + list(args), check=False, timeout=timeout)
        try:
            res = json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            res = {'ok': False, 'error': 'no output: ' + r.stderr[-300:]}
        res['rc'] = r.returncode
        return res

    def capture(self, filt='tcp'):
        c = Capture(self, filt)
        self.captures.append(c)
        return c


class Capture:
    """tcpdump on tfo0 (kernel side), --immediate-mode so that the last
    packets of a short exchange are not lost."""

    def __init__(self, bed, filt):
        fd, self.path = tempfile.mkstemp(prefix='tfo-cap.', suffix='.pcap')
        os.close(fd)
        self.err = tempfile.TemporaryFile(mode='w+')
        self.proc = subprocess.Popen(['ip', 'netns', 'exec', bed.ns, 'tcpdump', '-i', bed.iface,
                                      '-U', '--immediate-mode', '-s', '0', '-w', self.path, filt],
                                     stdout=subprocess.DEVNULL, stderr=self.err)
        deadline = time.time() + 10
        while time.time() < deadline:
            self.err.seek(0)
            if 'listening' in self.err.read():
                break
            time.sleep(0.05)

    dropped = 0

    def stop(self):
        """Stop tcpdump; self.dropped: the frames it says the kernel did not
        give it (a loaded machine), which a check may excuse, and no more."""
        if self.proc is not None and self.proc.poll() is None:
            time.sleep(0.2)
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.err.seek(0)
            m = re.search(r'(\d+) packets? dropped by kernel', self.err.read())
            self.dropped = int(m.group(1)) if m else 0
        self.proc = None
        return self.path

    def packets(self):
        """Decoded TCP packets: dicts with dir ('c2s'/'s2c'), sport, dport,
        flags, seq, ack, len, tfo (None, 'req' or cookie hex), ts (tsval, tsecr)."""
        self.stop()
        from scapy.all import rdpcap, IP, IPv6, TCP  # noqa: E402
        out = []
        for p in rdpcap(self.path):
            ip = p.getlayer(IP) or p.getlayer(IPv6)
            t = p.getlayer(TCP)
            if ip is None or t is None:
                continue
            tfo = None
            ts = None
            mss = None
            for o in t.options:
                name, val = o[0], o[1]
                if name in ('TFO', 34):
                    tfo = 'req' if not val else cookie_hex(val)
                elif name == 'Timestamp':
                    ts = val
                elif name == 'MSS':
                    mss = val
                elif name == 254 or name == 'Experimental':
                    pass
            payload = bytes(t.payload)
            out.append({
                'dir': 'c2s' if ip.src in (CLIENT_V4, CLIENT_V6) else 's2c',
                'sport': t.sport, 'dport': t.dport, 'flags': str(t.flags),
                'seq': t.seq, 'ack': t.ack, 'len': len(payload), 'tfo': tfo,
                'ts': ts, 'mss': mss, 'payload': payload, 'time': float(p.time),
            })
        return out


def cookie_hex(val):
    """scapy decodes an 8-byte TFO cookie as two big-endian 32-bit ints."""
    import struct
    if isinstance(val, bytes):
        return val.hex()
    if isinstance(val, tuple) and all(isinstance(v, int) for v in val):
        return b''.join(struct.pack('!I', v) for v in val).hex()
    return str(val)


def flows(pkts):
    """Group packets by the client's port, in capture order."""
    by = {}
    for p in pkts:
        cport = p['sport'] if p['dir'] == 'c2s' else p['dport']
        by.setdefault(cport, []).append(p)
    return by


def describe(flow):
    """A few plain lines describing one connection (for logs and the demo)."""
    lines = []
    t0 = flow[0]['time']
    for p in flow:
        arrow = 'client -> server' if p['dir'] == 'c2s' else 'server -> client'
        extra = []
        if p['tfo'] == 'req':
            extra.append('TFO cookie request')
        elif p['tfo']:
            extra.append('TFO cookie %s' % p['tfo'])
        if p['len']:
            extra.append('%d data bytes' % p['len'])
        lines.append('  %8.3f ms  %s  %-4s %s' % ((p['time'] - t0) * 1000, arrow, p['flags'],
                                                 ', '.join(extra)))
    return '\n'.join(lines)


def sh(cmd, check=True, timeout=30, **kw):
    """@cmd with its output (text) captured."""
    return subprocess.run(cmd, check=check, timeout=timeout, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **kw)


def ns(name, cmd, **kw):
    """sh() in network namespace @name."""
    return sh(['ip', 'netns', 'exec', name] + cmd, **kw)


def popen_as_nobody(bed, argv, log_path):
    """@argv in @bed's namespace as user nobody from the start (knotd and
    the like need no privilege), its output into @log_path."""
    nobody = pwd.getpwnam('nobody')
    logf = open(log_path, 'w')
    return subprocess.Popen(['ip', 'netns', 'exec', bed.ns, 'setpriv',
                             '--reuid=%d' % nobody.pw_uid, '--regid=%d' % nobody.pw_gid,
                             '--clear-groups'] + list(argv),
                            stdout=logf, stderr=subprocess.STDOUT)


def udp_ask(bed, payload, dst, port=53, timeout=2):
    """One UDP datagram from @bed's namespace to @dst (IPv4 or IPv6) and
    its answer's bytes, or None: nothing within @timeout seconds."""
    fam = 'AF_INET6' if ':' in dst else 'AF_INET'
    code = ('import socket,sys\n'
            's=socket.socket(socket.%s,socket.SOCK_DGRAM)\n'
            's.settimeout(%r)\n'
            's.sendto(bytes.fromhex(sys.argv[1]),(%r,%d))\n'
            'print(s.recv(65535).hex())\n' % (fam, timeout, dst, port))
    r = bed.ns_run(['/usr/bin/python3', '-c', code, payload.hex()], check=False)
    try:
        return bytes.fromhex(r.stdout.strip())
    except ValueError:
        return None


class VethPair:
    """Two network namespaces made here joined by a veth pair, for a
    tfo-server on a kernel interface (net_af_xdp): the server end @sif in
    @sns carries SERVER_V4/V6 in the kernel, the client end @cif in @cns
    CLIENT_V4/V6. The server end has room for two queues, one in use
    (ethtool -L ... rx 2 tx 2 opens the second); the client's TX checksum
    offload is off. Use it as a context manager: both namespaces go away
    on every exit path."""

    def __init__(self, sns, sif, cns, cif):
        self.sns, self.sif, self.cns, self.cif = sns, sif, cns, cif

    def __enter__(self):
        try:
            for n in (self.sns, self.cns):
                subprocess.run(['ip', 'netns', 'add', n], check=True)
            subprocess.run(['ip', 'link', 'add', self.sif, 'netns', self.sns, 'numtxqueues', '2',
                            'numrxqueues', '2', 'type', 'veth', 'peer', 'name', self.cif,
                            'netns', self.cns], check=True)
            # XDP on a veth wants as many RX queues as the peer has TX queues
            ns(self.cns, ['ethtool', '-L', self.cif, 'rx', '1', 'tx', '1'])
            ns(self.sns, ['ethtool', '-L', self.sif, 'rx', '1', 'tx', '1'])
            for n, i, v4, v6 in ((self.sns, self.sif, SERVER_V4, SERVER_V6),
                                 (self.cns, self.cif, CLIENT_V4, CLIENT_V6)):
                ns(n, ['ip', 'link', 'set', 'lo', 'up'])
                ns(n, ['ip', 'addr', 'add', v4 + '/24', 'dev', i])
                ns(n, ['ip', '-6', 'addr', 'add', v6 + '/64', 'dev', i, 'nodad'])
                ns(n, ['ip', 'link', 'set', i, 'up'])
            # a veth hands the peer's TCP and UDP over with the checksum
            # still to be filled in (CHECKSUM_PARTIAL); a NIC's wire has it
            # done: have the client's kernel compute it, as a real sender
            # does (else drop_tcp_cksum / drop_udp_cksum)
            ns(self.cns, ['ethtool', '-K', self.cif, 'tx', 'off'])
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        return self

    def __exit__(self, et, ev, tb):
        for n in (self.sns, self.cns):
            subprocess.run(['ip', 'netns', 'del', n], stderr=subprocess.DEVNULL)
        return False

    def start_server(self, server, eal, cfg, log, timeout=30):
        """tfo-server with @eal and --config @cfg in the server namespace,
        its output to the open file @log: (process, log text) once it says
        it runs, it exits, or @timeout s passed."""
        cmd = ['ip', 'netns', 'exec', self.sns, server] + list(eal) + ['--', '--config', cfg]
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        text = ''
        while time.time() < deadline:
            with open(log.name) as f:
                text = f.read()
            if 'tfo-server: running' in text or proc.poll() is not None:
                break
            time.sleep(0.1)
        return proc, text


def start_together(cmds, logs, timeout=30):
    """Start the tfo-servers of @cmds at the same instant, each's output to
    the open file of @logs, and wait (up to @timeout s) until one runs and
    the others have exited: (processes, log texts, indexes still running)."""
    procs = [subprocess.Popen(c, stdout=log, stderr=subprocess.STDOUT)
             for c, log in zip(cmds, logs)]
    texts = [''] * len(procs)
    end = time.time() + timeout
    while time.time() < end:
        for i, log in enumerate(logs):
            log.seek(0)
            texts[i] = log.read()
        if sum(p.poll() is None for p in procs) == 1 and \
                any('tfo-server: running' in t for t in texts):
            break
        time.sleep(0.1)
    return procs, texts, [i for i, p in enumerate(procs) if p.poll() is None]


def end_servers(procs, log, failed, prefix):
    """The end of a test with tfo-servers of its own: every process of
    @procs stopped (SIGINT, then killed), the tail of @log printed if the
    test @failed, @log closed, the EAL's run directory of @prefix removed."""
    for p in procs:
        stop_process(p, signal.SIGINT, 10)
    if failed:
        log.seek(0)
        print('---- tfo-server log (tail) ----')
        print('\n'.join(log.read().splitlines()[-40:]))
    log.close()
    try:
        os.rmdir('/var/run/dpdk/%s' % prefix)
    except OSError:
        pass
