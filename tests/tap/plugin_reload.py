#!/usr/bin/python3
"""A service built out of tree, and a live reload of the http document root
(suite tap, root).

    plugin_reload.py TFO_SERVER BUILD_DIR SOURCE_DIR

1. `meson install --destdir` of BUILD_DIR into a temporary directory; the
   hello example of README.md ("Adding a service") is built from that
   tree with `pkg-config --cflags --libs tfo-service` as a shared object
   and served with `[service hello] plugin = hello.so` on net_tap; the
   Linux TFO client's second connection carries its line in the SYN and
   gets "hello" in our SYN-ACK.
2. The same server serves a temporary document root: a file changed on
   disk is served new after SIGHUP (svc_reloads + 1) and the old root is
   freed after reload_drain; a file over max_file_size makes the next
   SIGHUP refuse the new root (svc_reload_errors + 1, the file named in the
   log) and the old content keeps being served; /tfo/reload with the root
   gone answers an error naming it, and the old content still serves.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, SERVER_V4, flows, need_root  # noqa: E402

T = Checks()
HELLO_PORT = 7007


def skip(why):
    print('SKIP: ' + why)
    sys.exit(77)


def readme_hello(src):
    """The C block of README.md's "Adding a service" that starts with /* hello.c */."""
    text = open(os.path.join(src, 'README.md')).read()
    start = text.index('```c\n/* hello.c */')
    return text[start + 5:text.index('```', start + 5)]


def build_hello(build, src, tmp):
    """Install BUILD into tmp/dest; build README's hello.c against it."""
    dest = os.path.join(tmp, 'dest')
    r = subprocess.run(['meson', 'install', '-C', build, '--destdir', dest, '--no-rebuild',
                        '--quiet'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    T.check('meson install --destdir', r.returncode == 0, r.stdout[-500:])
    pcs = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs if f == 'tfo-service.pc']
    hdrs = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs if f.endswith('.h')]
    T.check('installed: tfo-service.pc, tfo/service.h, tfo/log.h, tfo-server',
            len(pcs) == 1 and sorted(os.path.basename(h) for h in hdrs) == ['log.h', 'service.h']
            and any(f == 'tfo-server' for _, _, fs in os.walk(dest) for f in fs), (pcs, hdrs))
    if not pcs:
        return None
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]))
    flags = subprocess.run(['pkg-config', '--cflags', '--libs', 'tfo-service'], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    T.check('pkg-config --cflags --libs tfo-service', flags.returncode == 0
            and dest in flags.stdout, flags.stdout)
    c = os.path.join(tmp, 'hello.c')
    so = os.path.join(tmp, 'hello.so')
    with open(c, 'w') as f:
        f.write(readme_hello(src))
    r = subprocess.run(['cc', '-shared', '-fPIC', '-O2', '-Wall', '-Wextra', '-Werror', '-o', so, c]
                       + flags.stdout.split(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    T.check('README hello.c builds out of tree as hello.so (-Wall -Wextra -Werror)',
            r.returncode == 0, r.stdout[-800:])
    return so if r.returncode == 0 else None


def curl(bed, path):
    r = bed.ns_run(['curl', '-sS', '--max-time', '5', 'http://%s%s' % (SERVER_V4, path)],
                   check=False)
    return r.stdout if r.returncode == 0 else 'curl error: ' + r.stderr


def sighup(bed, what):
    """SIGHUP; wait until the control core logged the services' outcome."""
    def seen():
        t = bed.log_text()
        return t.count('tfo: reloaded: ') + t.count('tfo: reload refused: ')
    n = seen()
    bed.proc.send_signal(signal.SIGHUP)
    deadline = time.time() + 10
    while time.time() < deadline and seen() == n:
        time.sleep(0.05)
    return T.check('%s: the reload finished' % what, seen() > n)


def wait_log(bed, text, timeout=5):
    deadline = time.time() + timeout
    while time.time() < deadline and text not in bed.log_text():
        time.sleep(0.1)
    return text in bed.log_text()


def main():
    need_root()
    server = os.path.abspath(sys.argv[1])
    build, src = sys.argv[2], sys.argv[3]
    for tool in ('meson', 'cc', 'pkg-config', 'curl'):
        if shutil.which(tool) is None:
            skip('%s is not installed (scripts/setup.sh installs it)' % tool)
    tmp = tempfile.mkdtemp(prefix='tfo-plugin.')
    try:
        so = build_hello(build, src, tmp)
        if so is None:
            return T.done()
        root = os.path.join(tmp, 'www')
        os.mkdir(root)
        with open(os.path.join(root, 'a.txt'), 'w') as f:
            f.write('version 1\n')
        args = ['--www', root,
                '--set', 'service hello.plugin=' + so,
                '--set', 'service hello.port=%d' % HELLO_PORT,
                '--set', 'service http.max_file_size=64K',
                '--set', 'service http.reload_drain=1']
        with Bed(server, args) as bed:
            print('== the out-of-tree hello service')
            for i in (1, 2):
                cap = bed.capture()
                r = bed.client(SERVER_V4, HELLO_PORT, '--data', 'hi\\n', '--expect-prefix', 'hello\\n')
                pk = cap.packets()
                T.check('hello #%d: "hello" from the plugin' % i, r['ok'], r)
                if i == 2:
                    fl = next(iter(flows(pk).values()), [])
                    syn = next((p for p in fl if p['dir'] == 'c2s' and p['flags'] == 'S'), None)
                    ans = next((p for p in fl if p['dir'] == 's2c'), None)
                    T.check('hello #2: the line in the SYN, "hello" in our SYN-ACK (TFO)',
                            syn is not None and syn['payload'] == b'hi\n' and ans is not None
                            and 'S' in ans['flags'] and ans['payload'] == b'hello\n',
                            (syn and syn['payload'], ans and ans['payload']))

            print('== SIGHUP reloads the document root')
            T.check('before: version 1 served', curl(bed, '/a.txt') == 'version 1\n')
            with open(os.path.join(root, 'a.txt'), 'w') as f:
                f.write('version 2, longer\n')
            with open(os.path.join(root, 'b.txt'), 'w') as f:
                f.write('new file\n')
            st0 = bed.stats()
            sighup(bed, 'good root')
            st1 = bed.stats()
            T.check('good root: changed content served', curl(bed, '/a.txt') == 'version 2, longer\n')
            T.check('good root: a new file served', curl(bed, '/b.txt') == 'new file\n')
            T.check('good root: svc_reloads + 1',
                    st1.get('svc_reloads', 0) - st0.get('svc_reloads', 0) == 1, st1.get('svc_reloads'))
            T.check('good root: generation 1 freed after reload_drain (1 s)',
                    wait_log(bed, 'root generation 1 freed'))

            print('== a bad root is refused, the old one keeps serving')
            with open(os.path.join(root, 'big.bin'), 'wb') as f:
                f.write(b'x' * (100 << 10))
            with open(os.path.join(root, 'a.txt'), 'w') as f:
                f.write('version 3\n')
            sighup(bed, 'over max_file_size')
            st2 = bed.stats()
            T.check('over a limit: svc_reload_errors + 1',
                    st2.get('svc_reload_errors', 0) - st1.get('svc_reload_errors', 0) == 1)
            T.check('over a limit: the log names the file and the limit',
                    'big.bin is 102400 bytes, over max_file_size 65536' in bed.log_text())
            T.check('over a limit: the old content still served',
                    curl(bed, '/a.txt') == 'version 2, longer\n')
            os.unlink(os.path.join(root, 'big.bin'))
            os.rename(root, root + '.gone')
            ans = bed.telemetry('/tfo/reload')
            # every part in full ("error" alone is cut at 128 bytes)
            text = ''.join(p[2:] if p.startswith('+ ') else '\n' + p
                           for p in ans.get('parts', []))
            T.check('/tfo/reload with the root gone: an error that names it',
                    ans.get('result') == 'error' and 'the old one serves' in text
                    and 'root = ' in text, ans)
            T.check('root gone: the old content still served',
                    curl(bed, '/a.txt') == 'version 2, longer\n')
            T.check('server exits 0', bed.stop() == 0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
