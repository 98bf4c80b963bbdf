#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The tree's layout: include/tfo/ is the installed API, src/ the layers.

    layout_test.py SOURCE_ROOT

- the headers meson.build installs (install_headers) exist in include/tfo/
  and include no header but each other (a plugin builds with them alone);
- scripts/devtools/relayout.py --check: every file of src/ and
  include/tfo/ has its line in the relayout's table;
- layered tree (no .c or .h directly in src/): include/tfo/ holds exactly
  the installed headers;
- flat tree (before the relayout has been run): the relayout, run on a
  copy of the tracked files, leaves a layered tree (include/tfo/ exactly
  the installed headers, no include of a header that moved, the
  architecture file map and the log audit's list pointing at files that
  exist) and a second run changes nothing.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'tap'))
from tfotap import Checks  # noqa: E402

T = Checks()
check = T.check
RELAYOUT = os.path.join('scripts', 'devtools', 'relayout.py')


def installed(root):
    """The headers of meson.build's install_headers(...)."""
    with open(os.path.join(root, 'meson.build')) as f:
        m = re.search(r'install_headers\(([^)]*)\)', f.read())
    return sorted(re.findall(r"'(include/tfo/[^']+\.h)'", m.group(1))) if m else []


def includes(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)


def tfo_dir(root):
    d = os.path.join(root, 'include', 'tfo')
    return sorted('include/tfo/' + f for f in os.listdir(d))


def flat(root):
    return any(f.endswith(('.c', '.h')) for f in os.listdir(os.path.join(root, 'src')))


def relayout(root, *args, env=None):
    return subprocess.run([sys.executable, os.path.join(root, RELAYOUT)] + list(args),
                          cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env=env)


def layered_checks(root, what):
    inst = installed(root)
    check('%s: include/tfo/ holds exactly the installed headers %s' % (what, inst),
          tfo_dir(root) == inst, 'also: %s' % sorted(set(tfo_dir(root)) - set(inst)))
    loose = [f for f in os.listdir(os.path.join(root, 'src'))
             if os.path.isfile(os.path.join(root, 'src', f)) and f != 'meson.build']
    check('%s: every file of src/ is in a layer folder' % what, not loose, loose)


def copy_checks(root):
    """The relayout on a copy of the tracked files of a flat tree."""
    files = subprocess.run(['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], cwd=root, stdout=subprocess.PIPE,
                           text=True, check=True).stdout.split('\0')
    skip = ('tests/fuzz/corpus/', 'bench/results/')
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            if f and not f.startswith(skip) and os.path.isfile(os.path.join(root, f)):
                os.makedirs(os.path.join(tmp, os.path.dirname(f)), exist_ok=True)
                shutil.copy2(os.path.join(root, f), os.path.join(tmp, f))
        env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@t',
                   GIT_COMMITTER_NAME='t', GIT_COMMITTER_EMAIL='t@t')
        for cmd in (['init', '-q'], ['add', '-A'], ['commit', '-q', '-m', 'flat']):
            subprocess.run(['git'] + cmd, cwd=tmp, env=env, check=True,
                           stdout=subprocess.DEVNULL)
        r = relayout(tmp, '--commit', env=env)
        if not check('relayout.py --commit on a copy of the flat tree', r.returncode == 0,
                     r.stdout[-2000:]):
            return
        layered_checks(tmp, 'after the relayout')
        inst = {os.path.relpath(p, 'include') for p in installed(tmp)}
        stale = []
        for d, _, fs in os.walk(tmp):
            if '.git' in d:
                continue
            for f in fs:
                if not f.endswith(('.c', '.h')):
                    continue
                p = os.path.join(d, f)
                for inc in includes(p):
                    gone = (inc.startswith('tfo/') and inc not in inst) or 'src/' in inc
                    lay = re.match(r'(net|cookie|tcp|lcore|ops)/', inc)
                    if gone or (lay and not os.path.exists(os.path.join(tmp, 'src', inc))):
                        stale.append('%s: %s' % (os.path.relpath(p, tmp), inc))
        check('after the relayout: no include names a header where it was', not stale,
              stale[:20])
        named = []
        pat = re.compile(r'''include/tfo/(\w+\.h)|(['"])include\2\s*,\s*\2tfo\2\s*,\s*\2(\w+\.h)''')
        for d, _, fs in os.walk(tmp):
            if '.git' in d:
                continue
            for f in fs:
                p = os.path.join(d, f)
                if p.endswith(RELAYOUT):
                    continue
                try:
                    with open(p, encoding='utf-8') as fh:
                        text = fh.read()
                except (UnicodeDecodeError, OSError):
                    continue
                for m in pat.finditer(text):
                    h = 'tfo/' + (m.group(1) or m.group(3))
                    if h not in inst:
                        named.append('%s: %s' % (os.path.relpath(p, tmp), m.group(0)))
        check('after the relayout: no file names a header of include/tfo/ that moved',
              not named, named[:20])
        # the copy's own docs_test and log_audit, as the relayout left them
        docs = subprocess.run([sys.executable, '-c', 'import sys; sys.path.insert(0, "tests"); '
                               'import docs_test as d; d.architecture("."); '
                               'sys.exit(d.T.done())'], cwd=tmp, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        check('after the relayout: the architecture file map checks pass',
              docs.returncode == 0, docs.stdout[-2000:])
        audit = subprocess.run([sys.executable, os.path.join('tests', 'log_audit.py'), '.'],
                               cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
        check('after the relayout: the log audit passes', audit.returncode == 0,
              audit.stdout[-2000:])
        r = relayout(tmp, env=env)
        st = subprocess.run(['git', 'status', '--porcelain'], cwd=tmp, stdout=subprocess.PIPE,
                            text=True).stdout
        check('a second run changes nothing', r.returncode == 0 and
              'nothing to do' in r.stdout and not st, r.stdout + st)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '..'))
    inst = installed(root)
    check('meson.build installs headers (%d)' % len(inst), len(inst) >= 2, inst)
    names = {os.path.relpath(p, 'include') for p in inst}
    for p in inst:
        ok = os.path.exists(os.path.join(root, p))
        bad = [i for i in includes(os.path.join(root, p)) if i not in names] if ok else []
        check('%s exists and includes only installed headers' % p, ok and not bad, bad)
    r = relayout(root, '--check')
    check('relayout.py --check: every file of src/ and include/tfo/ has its place',
          r.returncode == 0, r.stdout[-3000:])
    if flat(root):
        print('note: flat tree; scripts/devtools/relayout.py makes it layered')
        if shutil.which('git') and os.path.exists(os.path.join(root, '.git')):
            copy_checks(root)
        else:
            print('note: not a git work tree: the relayout is not tried on a copy')
    else:
        layered_checks(root, 'layered tree')
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
