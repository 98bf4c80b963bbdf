#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Move src/ and include/tfo/ from one room into one folder per layer.

    scripts/devtools/relayout.py [--check] [--commit]

Issue 28: src/ was one folder of 40-odd .c files and include/tfo/ looked
like a public API although only service.h and log.h are installed. The
TABLE below puts every file in the layer it belongs to, each folder's
headers beside its code; include/tfo/ keeps what is installed (KEEP).

From the top of a clean work tree this
  - refuses to run, listing them, when a file of src/ or include/tfo/ is in
    no line of TABLE (a file added since: give it a line and run again), or
    when a line names a file that is in neither place;
  - git mv's every file to its folder;
  - rewrites every #include of a moved header in src/, include/, services/,
    apps/, tests/ and bench/ ("tfo/engine.h", "engine_priv.h",
    "../src/siphash.h" become "tcp/engine.h", "tcp/engine_priv.h",
    "cookie/siphash.h": the library and everything built with it get -Isrc);
  - rewrites the paths that meson.build files quote relative to themselves
    ('pkt.c' in src/meson.build becomes 'net/pkt.c'), lists tfo_sources by
    layer in TABLE's order, and adds 'src' to the top meson.build's `inc`;
  - rewrites every mention of a moved file's path (src/worker.c,
    include/tfo/pkt.h, src/tcp_*.c, ../src/worker.c in a link) in the
    tracked text files (docs, README, tests' Python, scripts, comments),
    not in recorded results (bench/results) nor the fuzz corpus;
  - writes the layers' list into docs/architecture.md's file map.
Everything is staged; --commit commits it as one change. A second run finds
nothing to move and changes nothing (but any include or path a later merge
brought in the flat form: it rewrites those). --check only reports.

Afterwards: meson reconfigures by itself (ninja -C build); run the unit and
lint suites, tests/docs_test.py and tests/log_audit.py.
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys

# The layers, bottom up: a folder includes the ones above it in this list,
# and ops/'s vocabulary headers (config.h, stats.h, file.h) and the
# installed log.h and service.h, which every layer reads.
FOLDERS = [
    ('net', 'frames: parse, build, TCP options, TX, ports, AF_XDP, ARP/ND'),
    ('cookie', 'the key ring, TFO cookies (AES-128, SipHash), SYN cookies'),
    ('tcp', 'the engine: connections, timers, segments, services, latency'),
    ('lcore', 'the worker and control loops, SYN defence, reports, idling'),
    ('ops', 'configuration, counters, logging, start plan, the assembly'),
]

# old path                       new path   (one line per file; keep sorted
# by folder; a file added to src/ or include/tfo/ needs its line)
TABLE = """
src/pkt.c                        src/net/pkt.c
src/pkt_cksum.c                  src/net/pkt_cksum.c
src/pkt_match.c                  src/net/pkt_match.c
src/pkt_priv.h                   src/net/pkt_priv.h
include/tfo/pkt.h                src/net/pkt.h
src/pkt_build.c                  src/net/pkt_build.c
src/tcpopt.c                     src/net/tcpopt.c
include/tfo/tcpopt.h             src/net/tcpopt.h
src/tx.c                         src/net/tx.c
include/tfo/tx.h                 src/net/tx.h
src/port.c                       src/net/port.c
include/tfo/port.h               src/net/port.h
src/port_flow.c                  src/net/port_flow.c
include/tfo/port_flow.h          src/net/port_flow.h
src/xdp.c                        src/net/xdp.c
include/tfo/xdp.h                src/net/xdp.h
src/bpf/tfo_xdp.c                src/net/bpf/tfo_xdp.c
src/bpf/tfo_xdp.h                src/net/bpf/tfo_xdp.h
src/neigh.c                      src/net/neigh.c
include/tfo/neigh.h              src/net/neigh.h

src/keyring.c                    src/cookie/keyring.c
include/tfo/keyring.h            src/cookie/keyring.h
src/keyring_impl.h               src/cookie/keyring_impl.h
src/cookie.c                     src/cookie/cookie.c
include/tfo/cookie.h             src/cookie/cookie.h
src/aes128.c                     src/cookie/aes128.c
src/aes128.h                     src/cookie/aes128.h
src/siphash.c                    src/cookie/siphash.c
src/siphash.h                    src/cookie/siphash.h
src/syncookie.c                  src/cookie/syncookie.c
include/tfo/syncookie.h          src/cookie/syncookie.h

src/engine.c                     src/tcp/engine.c
include/tfo/engine.h             src/tcp/engine.h
src/engine_priv.h                src/tcp/engine_priv.h
src/tcp_input.c                  src/tcp/tcp_input.c
src/tcp_open.c                   src/tcp/tcp_open.c
src/tcp_output.c                 src/tcp/tcp_output.c
src/tcp_pmtu.c                   src/tcp/tcp_pmtu.c
src/tcp_sack.c                   src/tcp/tcp_sack.c
src/tcp_service.c                src/tcp/tcp_service.c
src/udp_service.c                src/tcp/udp_service.c
src/tcp_timer.c                  src/tcp/tcp_timer.c
include/tfo/seq.h                src/tcp/seq.h
src/conn.c                       src/tcp/conn.c
include/tfo/conn.h               src/tcp/conn.h
src/timer.c                      src/tcp/timer.c
include/tfo/timer.h              src/tcp/timer.h
src/service.c                    src/tcp/service.c
include/tfo/service_reload.h     src/tcp/service_reload.h
src/latency.c                    src/tcp/latency.c
include/tfo/latency.h            src/tcp/latency.h
src/access_log.c                 src/tcp/access_log.c
include/tfo/access_log.h         src/tcp/access_log.h

src/worker.c                     src/lcore/worker.c
include/tfo/worker.h             src/lcore/worker.h
src/syn_defence.c                src/lcore/syn_defence.c
include/tfo/syn_defence.h        src/lcore/syn_defence.h
src/control.c                    src/lcore/control.c
include/tfo/control.h            src/lcore/control.h
include/tfo/ctrl_pick.h          src/lcore/ctrl_pick.h
src/report.c                     src/lcore/report.c
include/tfo/report.h             src/lcore/report.h
src/telemetry.c                  src/lcore/telemetry.c
include/tfo/telemetry.h          src/lcore/telemetry.h
src/idle.c                       src/lcore/idle.c
include/tfo/idle.h               src/lcore/idle.h
src/exception.c                  src/lcore/exception.c
include/tfo/exception.h          src/lcore/exception.h
src/drain.c                      src/lcore/drain.c
include/tfo/drain.h              src/lcore/drain.h
src/sdnotify.c                   src/lcore/sdnotify.c
include/tfo/sdnotify.h           src/lcore/sdnotify.h

src/config.c                     src/ops/config.c
src/config_keys.c                src/ops/config_keys.c
src/config_priv.h                src/ops/config_priv.h
include/tfo/config.h             src/ops/config.h
src/config_file.c                src/ops/config_file.c
src/file.c                       src/ops/file.c
include/tfo/file.h               src/ops/file.h
src/stats.c                      src/ops/stats.c
include/tfo/stats.h              src/ops/stats.h
src/log.c                        src/ops/log.c
src/pool_plan.c                  src/ops/pool_plan.c
include/tfo/pool_plan.h          src/ops/pool_plan.h
src/start_plan.c                 src/ops/start_plan.c
include/tfo/start_plan.h         src/ops/start_plan.h
src/server.c                     src/ops/server.c
include/tfo/server.h             src/ops/server.h
"""

# Installed (meson.build install_headers): they stay; tests/layout_test.py
# checks that include/tfo/ holds exactly these once the move is made.
KEEP = {'include/tfo/service.h', 'include/tfo/log.h'}

# Not rewritten: recorded outputs and inputs, and this table itself.
NO_REWRITE = ('bench/results/', 'tests/fuzz/corpus/', 'scripts/devtools/relayout.py')
INCLUDE_ROOTS = ('src', 'include', 'services', 'apps', 'tests', 'bench')
LAYERS_BEGIN = '<!-- layers: begin (scripts/devtools/relayout.py) -->'
LAYERS_END = '<!-- layers: end -->'


def table():
    """TABLE as (old, new) pairs, in order; a malformed line is fatal."""
    pairs = []
    for n, line in enumerate(TABLE.strip('\n').split('\n'), 1):
        if not line.strip():
            continue
        f = line.split()
        folders = [d for d, _ in FOLDERS]
        if len(f) != 2 or not f[1].startswith('src/') or f[1].split('/')[1] not in folders:
            sys.exit('relayout: TABLE line %d is not "OLD src/FOLDER/NEW": %r' % (n, line))
        pairs.append((f[0], f[1]))
    olds = [o for o, _ in pairs]
    news = [n for _, n in pairs]
    dup = sorted({p for p in olds if olds.count(p) > 1} | {p for p in news if news.count(p) > 1})
    if dup:
        sys.exit('relayout: TABLE names these twice: ' + ' '.join(dup))
    return pairs


def git(*args, check=True):
    return subprocess.run(('git',) + args, stdout=subprocess.PIPE, text=True,
                          check=check).stdout


def layer_files():
    """Every file of src/ (but meson.build) and include/tfo/ on disk."""
    out = []
    for top in ('src', 'include/tfo'):
        for d, _, fs in os.walk(top):
            out += [os.path.join(d, f) for f in fs if f != 'meson.build']
    return sorted(out)


def guess(path):
    """A TABLE line to suggest for an unmapped file: the folder of the
    mapped file its name starts like (pkt_generic.c: pkt.c's), else ???."""
    base = os.path.basename(path)
    best, folder = 0, '???'
    for old, new in table():
        stem = os.path.splitext(os.path.basename(old))[0]
        if base.startswith(stem) and len(stem) > best:
            best, folder = len(stem), new.split('/')[1]
    return '%-32s src/%s/%s' % (path, folder, base)


def plan(pairs):
    """@return the pairs still to move; exits listing what is wrong."""
    known = {p for pair in pairs for p in pair} | KEEP
    unmapped = [f for f in layer_files() if f not in known]
    todo, wrong = [], []
    for old, new in pairs:
        o, n = os.path.exists(old), os.path.exists(new)
        if o and n:
            wrong.append('%s and %s both exist' % (old, new))
        elif not o and not n:
            wrong.append('%s is in neither place (removed or renamed? fix its line)' % old)
        elif o:
            todo.append((old, new))
    missing_keep = [k for k in sorted(KEEP) if not os.path.exists(k)]
    if unmapped or wrong or missing_keep:
        print('relayout: FAILED, nothing was changed', file=sys.stderr)
        if unmapped:
            print('\nfiles that TABLE (top of %s) does not place; add a line each, e.g.:'
                  % sys.argv[0], file=sys.stderr)
            for f in unmapped:
                print('  ' + guess(f), file=sys.stderr)
        for w in wrong:
            print('TABLE: ' + w, file=sys.stderr)
        for k in missing_keep:
            print('installed header %s is missing' % k, file=sys.stderr)
        sys.exit(1)
    return todo


def tracked():
    return [f for f in git('ls-files', '-z').split('\0')
            if f and os.path.isfile(f) and not f.startswith(NO_REWRITE)]


def read_text(path):
    try:
        with open(path, encoding='utf-8', newline='') as f:
            s = f.read()
    except (UnicodeDecodeError, OSError):
        return None
    return None if '\0' in s else s


def rewrite_includes(path, text, fwd, back):
    """#include "X" of a header that moved: the path from src/ or include/.
    @p path is the file's new path, back[path] its old one."""
    if '/bpf/' in path:	# the BPF program: clang -target bpf, no -I; moves whole
        return text
    old_dir = os.path.dirname(back.get(path, path))

    def sub(m):
        inc = m.group(2)
        for base in (old_dir, 'include', 'src'):
            cand = os.path.normpath(os.path.join(base, inc))
            if cand in fwd:
                new = fwd[cand]
                rel = os.path.relpath(new, 'include' if new.startswith('include/') else 'src')
                return m.group(1) + rel + m.group(3)
            if os.path.exists(cand) or cand in back:
                return m.group(0)	# found where it is: not a moved one
        return m.group(0)
    inc_re = re.compile(r'^(\s*#\s*include\s+")([^"]+)(")')
    lines, out, run = text.split('\n'), [], []
    for line in lines + [None]:
        if line is not None and inc_re.match(line):
            run.append(line)
            continue
        # a run of includes that was sorted stays sorted
        new = [inc_re.sub(sub, r) for r in run]
        out += sorted(new) if run == sorted(run) else new
        run = []
        if line is not None:
            out.append(line)
    return '\n'.join(out)


MENTION = re.compile(r'(?<![\w-])((?:src|include/tfo)/(?:[\w*]+/)*[\w*]+\.[ch])\b')
# os.path.join(ROOT, 'include', 'tfo', 'stats.h') and the like
JOINED = re.compile(r'''(['"])(?:src|include)\1(?:\s*,\s*\1[\w.-]+\1)+''')


def rewrite_mentions(text, fwd):
    """Paths of moved files named in prose, comments and code strings."""
    olds = list(fwd)

    def sub(m):
        p = m.group(1)
        if p in fwd:
            return fwd[p]
        if '*' in p:
            hits = [o for o in olds if fnmatch.fnmatch(o, p)]
            dirs = {os.path.dirname(fwd[o]) for o in hits}
            if hits and len(dirs) == 1 and all(
                    os.path.basename(o) == os.path.basename(fwd[o]) for o in hits):
                return dirs.pop() + '/' + os.path.basename(p)
        return p

    def joined(m):
        q = m.group(1)
        comps = re.findall(q + r'([\w.-]+)' + q, m.group(0))
        new = fwd.get('/'.join(comps))
        return (q + (q + ', ' + q).join(new.split('/')) + q) if new else m.group(0)
    text = JOINED.sub(joined, MENTION.sub(sub, text))
    # "src/lcore/worker.c, control.c, neigh.c" (README): a bare name after a
    # path stays bare in the same folder, else gets its own path
    by_base = {}
    for n in fwd.values():
        by_base.setdefault(os.path.basename(n), []).append(n)

    def listed(m):
        folder, out = os.path.dirname(m.group(1)), [m.group(1)]
        for b in re.findall(r', ([\w/]+\.[ch])', m.group(2)):
            hits = by_base.get(b, [])
            if len(hits) == 1 and os.path.dirname(hits[0]) != folder:
                b = hits[0]
            if '/' in b:
                folder = os.path.dirname(b)
            out.append(b)
        return ', '.join(out)
    return re.sub(r'(?<![\w/-])(src/(?:\w+/)+\w+\.[ch])((?:, (?:src/(?:\w+/)+)?\w+\.[ch])+)',
                  listed, text)


def rewrite_meson(path, text, fwd):
    """Quoted paths relative to the meson.build; tfo_sources by layer."""
    d = os.path.dirname(path)

    def sub(m):
        cand = os.path.normpath(os.path.join(d, m.group(2)))
        if cand in fwd:
            return m.group(1) + os.path.relpath(fwd[cand], d or '.') + m.group(3)
        return m.group(0)
    text = re.sub(r"(')([\w./-]+\.[ch])(')", sub, text)
    if path == 'meson.build':
        text = re.sub(r"^inc = include_directories\('include'\)$",
                      "inc = include_directories('include', 'src')", text, flags=re.M)
    if path == 'src/meson.build':
        text = layered_sources(text, fwd)
    return text


def layered_sources(text, fwd):
    """src/meson.build's tfo_sources = files(...) grouped by folder, in
    TABLE's order, each group under its folder's line of FOLDERS."""
    m = re.search(r"^tfo_sources = files\(\n(.*?)^\)\n", text, re.M | re.S)
    if not m:
        sys.exit('relayout: src/meson.build has no "tfo_sources = files(" block')
    entries = re.findall(r"^\s*'([^']+)',?\s*$", m.group(1), re.M)
    order = [os.path.relpath(n, 'src') for n in fwd.values()]
    known = [e for e in entries if e in order]
    other = [e for e in entries if e not in order]
    out = ['tfo_sources = files(']
    for folder, what in FOLDERS:
        group = sorted((e for e in known if e.split('/')[0] == folder), key=order.index)
        if group:
            out.append('\t# %s/: %s' % (folder, what))
            out += ["\t'%s'," % e for e in group]
    out += ["\t'%s'," % e for e in other]
    out.append(')')
    return text[:m.start()] + '\n'.join(out) + '\n' + text[m.end():]


def layers_doc(text):
    """The layers' list at the top of docs/architecture.md's file map."""
    lines = [LAYERS_BEGIN,
             'src/ has one folder per layer, bottom up: a folder includes the folders before it',
             'and the vocabulary every layer reads (ops/\'s config.h, stats.h and file.h;',
             'include/tfo/\'s service.h and log.h, the only installed headers: tests/layout_test.py).',
             '']
    lines += ['- src/%s/: %s' % (f, w) for f, w in FOLDERS]
    lines += ['', LAYERS_END]
    block = '\n'.join(lines)
    if LAYERS_BEGIN in text:
        head, _, rest = text.partition(LAYERS_BEGIN)
        return head + block + rest.partition(LAYERS_END)[2]
    anchor = '\n| | file | what it does |'
    if anchor not in text:
        sys.exit('relayout: docs/architecture.md has no file map table header')
    return text.replace(anchor, '\n' + block + '\n' + anchor, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='report only, change nothing')
    ap.add_argument('--commit', action='store_true', help='commit the change')
    a = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
    pairs = table()
    todo = plan(pairs)
    if git('status', '--porcelain', '--untracked-files=no') and not a.check:
        sys.exit('relayout: the work tree has changes: commit or stash them first')
    fwd = dict(pairs)
    back = {n: o for o, n in pairs}
    if a.check:
        print('relayout: every file of src/ and include/tfo/ has its place; %d to move'
              % len(todo))
        return 0
    for old, new in todo:
        os.makedirs(os.path.dirname(new), exist_ok=True)
        git('mv', old, new)
    for d in ('src/bpf',):	# emptied by the move
        if os.path.isdir(d) and not os.listdir(d):
            os.rmdir(d)
    changed, long_ = [], []
    for path in tracked():
        text = read_text(path)
        if text is None:
            continue
        new = text
        if path.endswith(('.c', '.h')) and path.startswith(INCLUDE_ROOTS):
            new = rewrite_includes(path, new, fwd, back)
        if os.path.basename(path) == 'meson.build':
            new = rewrite_meson(path, new, fwd)
        new = rewrite_mentions(new, fwd)
        if path == 'docs/architecture.md':
            new = layers_doc(new)
        if new != text:
            with open(path, 'w', encoding='utf-8', newline='') as f:
                f.write(new)
            changed.append(path)
            if path.endswith(('.c', '.h')):
                was = set(text.split('\n'))
                long_ += ['%s: %s' % (path, l.strip()[:60]) for l in new.split('\n')
                          if l not in was and len(l.expandtabs(8)) > 100]
    if changed:
        git('add', '--', *changed)
    if not todo and not changed:
        print('relayout: already layered, nothing to do')
        return 0
    print('relayout: %d files moved, %d rewritten:' % (len(todo), len(changed)))
    for p in changed:
        print('  ' + p)
    if long_:
        print('rewritten lines now over 100 columns (rewrap them by hand):')
        for l in long_:
            print('  ' + l)
    if a.commit:
        body = ('src/ was one room of every .c file and include/tfo/ held the\n'
                'library\'s own headers beside the two installed ones. One folder per\n'
                'layer now, each with its headers (issue 28):\n\n' +
                '\n'.join('  src/%s/: %s' % (f, w) for f, w in FOLDERS) +
                '\n\nDone by scripts/devtools/relayout.py: git mv per its table, includes\n'
                'from src/ (-Isrc), quoted paths in meson.build, the file map.')
        git('commit', '-q', '-m', 'src: one folder per layer\n\n' + body)
        print('committed: ' + git('log', '--oneline', '-1').strip())
    else:
        print('staged; review with git diff --cached -M, then commit (or run with --commit)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
