#!/usr/bin/env python3
"""`meson install` is a complete install (lint; issue 36).

    install_test.py BUILD_ROOT SOURCE_ROOT

meson install --destdir TMP, then the installed tree:
- every file of the layout (binaries and tools in bindir, setup-host.sh in
  libexecdir/tfo-fastpath, the default configuration in
  sysconfdir/tfo-fastpath and no key file there, the default page, zones,
  rules, XDP object and alert rules in datadir/tfo-fastpath, the docs and
  examples in datadir/doc/tfo-fastpath, five man pages, two units);
- the units: every absolute path their Exec*, EnvironmentFile,
  ConditionPathExists and Documentation lines name exists (in TMP, or on
  the host for /bin/sh and /bin/kill), and `systemd-analyze verify --root`
  passes on a root made of TMP, the host's unit tree, /bin/sh and /bin/kill
  (skipped with a SKIP line, not the whole test, without systemd-analyze);
- no installed file names the source or the build root (`grep -a`);
- the installed tfo-server, with the source tree hidden (a private mount
  namespace: the source root under an empty tmpfs, the installed datadir
  and sysconfdir overlaid from TMP), resolves the embedded default's www/
  and zones/ and the installed configuration's paths to the installed
  datadir (--print-config), and says so.
Exit 77 (skip) only when `meson` cannot be run.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tap'))
from tfotap import Checks  # noqa: E402

T = Checks()
check = T.check


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=kw.pop('timeout', 120), **kw)


def options(build, meson):
    r = run(meson + ['introspect', build, '--buildoptions'])
    return {o['name']: o['value'] for o in json.loads(r.stdout)}


def absdir(opts, name):
    v = opts[name]
    return v if v.startswith('/') else os.path.join(opts['prefix'], v)


def unit_paths(text):
    """Absolute paths a unit names in the lines that must resolve."""
    paths = []
    for line in text.splitlines():
        m = re.match(r'^(Exec\w+|EnvironmentFile|ConditionPathExists|Documentation)=(.*)$', line)
        if not m:
            continue
        val = m.group(2)
        if m.group(1) == 'Documentation':
            paths += re.findall(r'file://(/\S+)', val)
            continue
        paths += [p.rstrip("';") for p in re.findall(r"(?:^|[\s='\"])[-@!+:]*(/[\w./-]+)", val)
                  if not p.startswith('/run/')]
    return paths


def verify_units(dest, units, unitdir, mandir):
    sa = shutil.which('systemd-analyze')
    if sa is None:
        print('SKIP systemd-analyze verify: systemd-analyze is not installed')
        return
    root = tempfile.mkdtemp(prefix='tfo-root-')
    try:
        # the host's units (sysinit.target...), then the install over them
        for d in ('/lib/systemd/system', '/usr/lib/systemd/system'):
            if os.path.isdir(d) and not os.path.islink('/lib'):
                shutil.copytree(d, root + d, symlinks=True, dirs_exist_ok=True)
        if os.path.islink('/lib'):
            shutil.copytree('/usr/lib/systemd/system', root + '/usr/lib/systemd/system',
                            symlinks=True)
            os.symlink('usr/lib', root + '/lib')
        os.makedirs(root + '/bin', exist_ok=True)
        for b in ('/bin/sh', '/bin/kill'):
            shutil.copy(b, root + b)
        shutil.copytree(dest, root, symlinks=True, dirs_exist_ok=True)
        r = run([sa, 'verify', '--root=' + root] + [os.path.join(unitdir, u) for u in units],
                env=dict(os.environ, MANPATH=root + mandir, SYSTEMD_LOG_COLOR='0'))
        check('systemd-analyze verify --root passes on the installed units',
              r.returncode == 0 and not r.stdout.strip(), r.stdout[-600:])
        # the check itself: a unit whose binary is missing fails
        os.unlink(root + unit_exec(dest, unitdir, units[1]))
        r = run([sa, 'verify', '--root=' + root, os.path.join(unitdir, units[1])],
                env=dict(os.environ, MANPATH=root + mandir))
        check('systemd-analyze verify fails once the unit\'s binary is gone',
              r.returncode != 0 and 'is not executable' in r.stdout, r.stdout[-300:])
    finally:
        shutil.rmtree(root, ignore_errors=True)


def unit_exec(dest, unitdir, unit):
    with open(dest + os.path.join(unitdir, unit)) as f:
        return re.search(r'^ExecStart=(\S+)', f.read(), re.M).group(1)


def hidden_source_script(dest, src, build, datadir, sysconfdir, server):
    """A shell script that runs the installed tfo-server (@p server, in
    TMP) with its arguments in a private mount namespace: the build root and
    the source root under an empty tmpfs, datadir's and sysconfdir's nearest
    existing ancestors overlaid with TMP's copy (read-only)."""
    script = ['set -e', 'mount --make-rprivate /']
    for d in (datadir, sysconfdir):
        anc = d
        while not os.path.isdir(anc):
            anc = os.path.dirname(anc)
        script.append('mount -t overlay overlay -o lowerdir=%s:%s %s' % (dest + anc, anc, anc))
    for d in (build, src):	# the build root first: it may be in the source
        script.append('mount -t tmpfs -o size=1m tfo-hide %s' % d)
    script.append('test ! -e %s/meson.build' % src)
    script.append('exec %s "$@"' % server)
    return '\n'.join(script)


def main():
    if len(sys.argv) != 3:
        print('usage: install_test.py BUILD_ROOT SOURCE_ROOT', file=sys.stderr)
        return 2
    build, src = (os.path.realpath(p) for p in sys.argv[1:3])
    meson = [shutil.which('meson')] if shutil.which('meson') else None
    if meson is None:
        print('SKIP: meson is not on PATH (it installs the tree under test)')
        return 77
    opts = options(build, meson)
    bindir, datadir = absdir(opts, 'bindir'), absdir(opts, 'datadir')
    sysconfdir, libexecdir = absdir(opts, 'sysconfdir'), absdir(opts, 'libexecdir')
    mandir, unitdir = absdir(opts, 'mandir'), absdir(opts, 'systemdunitdir')
    tmp = tempfile.mkdtemp(prefix='tfo-install-')
    dest = os.path.join(tmp, 'dest')
    try:
        r = run(meson + ['install', '-C', build, '--destdir', dest, '--no-rebuild', '--quiet'],
                timeout=300)
        if not check('meson install --destdir succeeds', r.returncode == 0, r.stdout[-800:]):
            return 1
        D = lambda p: dest + p
        data = datadir + '/tfo-fastpath'
        doc = datadir + '/doc/tfo-fastpath'
        conf = sysconfdir + '/tfo-fastpath'
        want = [bindir + '/' + b for b in ('tfo-server', 'tfo-keytool', 'tfo-loadgen',
                                          'tfo-bench', 'tfo-prom', 'tfo-drain')]
        want += [libexecdir + '/tfo-fastpath/setup-host.sh']
        executables = list(want)
        want += [conf + '/tfo-server.ini', sysconfdir + '/default/tfo-server']
        want += [data + '/' + f for f in ('www/index.html', 'zones/example.org.zone',
                                          'http-rules.ini', 'tfo_xdp.o', 'tfo-alerts.yml')]
        want += [doc + '/' + f for f in ('README.md', 'runbook.md', 'architecture.md',
                                         'examples/tfo-server-nic.ini', 'examples/net_null.ini',
                                         'examples/bird-member.conf',
                                         'examples/bird-router.conf')]
        want += [doc + '/runbook/' + f for f in sorted(os.listdir(os.path.join(
            src, 'docs', 'runbook')))]
        man = [mandir + '/man1/%s.1' % p for p in ('tfo-server', 'tfo-keytool', 'tfo-loadgen',
                                                   'tfo-bench', 'tfo-prom', 'tfo-drain')]
        units = ['tfo-server.service', 'tfo-prom.service']
        want += man + [unitdir + '/' + u for u in units]
        if not os.path.exists(os.path.join(build, 'src', 'tfo_xdp.o')):
            want.remove(data + '/tfo_xdp.o')	# a build without AF_XDP mode
        missing = [p for p in want if not os.path.isfile(D(p))]
        check('every file of the layout is installed (%d)' % len(want), not missing, missing)
        notx = [p for p in executables if os.path.isfile(D(p)) and not os.access(D(p), os.X_OK)]
        check('binaries, tools and setup-host.sh are executable', not notx, notx)
        check('no key file is installed (tfo-keytool makes it)',
              not os.path.exists(D(conf + '/tfo.key')))
        check('six man pages, one per program', all(os.path.isfile(D(p)) for p in man))

        # the units and what they name
        for u in units:
            path = D(unitdir + '/' + u)
            if not os.path.isfile(path):
                continue
            with open(path) as f:
                text = f.read()
            check('%s: no @VAR@ left' % u, '@' not in re.sub(r'^#.*$', '', text, flags=re.M)
                  .replace('$MAINPID', ''), re.findall(r'@\w+@', text))
            named = unit_paths(text)
            gone = [p for p in named if not (os.path.exists(D(p)) or
                                              (p.startswith('/bin/') and os.path.exists(p)))]
            check('%s: every path it names is installed (%d)' % (u, len(named)),
                  named and not gone, gone)
            check('%s: names no source or build path' % u, src not in text and build not in text)
        with open(D(unitdir + '/tfo-server.service')) as f:
            su = f.read()
        check('tfo-server.service runs the installed configuration',
              'ExecStart=%s/tfo-server --config %s/tfo-server.ini' % (bindir, conf) in su)
        check('tfo-server.service binds no PCI address of its own',
              not re.search(r'^[^#]*--bind \S', su, re.M))
        check('tfo-server.service hands the telemetry socket to group tfo',
              'chgrp tfo "$d"' in su)
        with open(D(unitdir + '/tfo-prom.service')) as f:
            pu = f.read()
        check('tfo-prom.service runs as user and group tfo',
              re.search(r'^User=tfo$', pu, re.M) and re.search(r'^Group=tfo$', pu, re.M))
        verify_units(dest, units, unitdir, mandir)

        # no source or build path in anything installed
        leaks = []
        for top, _, files in os.walk(dest):
            for f in files:
                p = os.path.join(top, f)
                if os.path.islink(p):
                    continue
                with open(p, 'rb') as fh:
                    blob = fh.read()
                if src.encode() in blob or build.encode() in blob:
                    leaks.append(p[len(dest):])
        check('no installed file names the source or build root (grep -a)', not leaks, leaks)

        # the installed configuration names the installed datadir in full
        with open(D(conf + '/tfo-server.ini')) as f:
            ini = f.read()
        check('the installed configuration\'s http root is the installed www/',
              re.search(r'^root = %s/www$' % re.escape(data), ini, re.M), data)

        # the installed tfo-server with the source tree out of reach
        sh = hidden_source_script(dest, src, build, datadir, sysconfdir,
                                  D(bindir + '/tfo-server'))
        unshare = shutil.which('unshare')
        if os.geteuid() == 0 and unshare:
            ns = [unshare, '--mount', 'sh', '-c', sh, 'sh']
        elif unshare:
            ns = [unshare, '--mount', '--map-root-user', 'sh', '-c', sh, 'sh']
        else:
            ns = None
        cases = [
            ('the embedded default', ['--print-config', '--set', 'service dns.port=53', '--set',
                                      'service dns.zone=example.org:zones/example.org.zone']),
            ('the installed configuration', ['--config', conf + '/tfo-server.ini',
                                             '--print-config']),
        ]
        for name, args in cases:
            if ns is None:
                # no namespace: the installed datadir is not where the binary
                # looks, so at least its choice must be the installed one
                r = run([D(bindir + '/tfo-server')] + args)
                check('%s: the installed binary looks in %s (no unshare: not run hidden)'
                      % (name, data), data in r.stdout and src not in r.stdout, r.stdout[-300:])
                continue
            r = run(ns + args)
            check('%s: the installed tfo-server, source hidden, --print-config exits 0' % name,
                  r.returncode == 0, r.stdout[-600:])
            check('%s: it says which directory relative paths resolve from' % name,
                  re.search(r'^; relative paths resolve from %s$' %
                            re.escape(data if 'embedded' in name else conf), r.stdout, re.M),
                  r.stdout[:300])
            if 'embedded' in name:
                check('the embedded default\'s http root and dns zone load from the installed '
                      'datadir (zones/example.org.zone)', 'root = www' in r.stdout and
                      'zone = example.org:zones/example.org.zone' in r.stdout, r.stdout[-400:])
                # the control: without the installed datadir the same run
                # fails, naming it: the files above came from TMP's copy
                bare = [l for l in sh.split('\n') if 'overlay' not in l]
                c = run([a if a != sh else '\n'.join(bare) for a in ns] + args)
                check('without the installed datadir it fails naming %s/www' % data,
                      c.returncode != 0 and (data + '/www') in c.stdout, c.stdout[-300:])
            else:
                check('the installed configuration\'s default page is %s/www' % data,
                      re.search(r'^root = %s/www$' % re.escape(data), r.stdout, re.M),
                      r.stdout[-600:])
            check('%s: nothing read from the source tree' % name, src not in r.stdout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
