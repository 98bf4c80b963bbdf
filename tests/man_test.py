#!/usr/bin/env python3
"""man/*.1 against the programs' --help (lint).

    man_test.py MANDIR NAME=PROGRAM...

For each program: its page MANDIR/NAME.1 exists, documents every option
its --help defines, and no option --help does not (a renamed or removed
option fails here, not in a reader's shell). An option is "defined" in
--help on an indented line that starts with it ("  --config FILE  ..."),
or on a command's line ("  cookie KEY --client ADDR ..."); in a page, in
the heading of a .TP paragraph (the line after .TP). Short options (-h, -f)
count too. groff, when installed, reads each page without a warning.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tap'))
from tfotap import Checks  # noqa: E402

T = Checks()
check = T.check
OPT = re.compile(r'(?<![\w-])(--?[a-zA-Z][a-zA-Z0-9-]*)')


def help_options(text):
    """The options --help defines: the heading (up to a gap of two spaces)
    of each indented line that starts with '-', and every option of a
    command line (an indented lower-case word then options: keytool)."""
    opts = set()
    for line in text.splitlines():
        m = re.match(r'^ {1,}(\S.*)$', line)
        if not m:
            continue
        body = m.group(1)
        if body.startswith('-'):
            opts.update(OPT.findall(re.split(r' {2,}', body)[0]))
        elif re.match(r'^[a-z]+ (\[--|[A-Z]+( --|$))', body):
            opts.update(OPT.findall(body))
    opts.discard('-')
    return opts


def help_commands(text):
    """The commands (benchmarks) a --help lists: "  name  what it does"."""
    return set(re.findall(r'^  ([a-z][a-z0-9]+) {2,}\S', text, re.M))


def page_commands(text):
    """The first word of each .TP heading that is a lower-case word."""
    lines = text.splitlines()
    return {m.group(1) for i, line in enumerate(lines[:-1]) if line.strip() == '.TP'
            for m in [re.match(r'^([a-z][a-z0-9]+)\b', troff_plain(lines[i + 1]))] if m}


def troff_plain(line):
    """A troff line without fonts and escapes: \\fB--x\\fR -> --x."""
    line = re.sub(r'\\f[BIRP]', '', line)
    line = line.replace('\\-', '-').replace('\\e', '\\').replace('\\&', '')
    return line


def page_options(text, commands=()):
    """The options a page defines: in the heading line of each .TP, but
    for a heading of one of @p commands (a benchmark's own options, which
    --help does not list)."""
    opts = set()
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == '.TP' and i + 1 < len(lines):
            head = troff_plain(lines[i + 1])
            if head.startswith('.'):	# .B --x / .BR ...
                head = head.split(None, 1)[1] if ' ' in head else ''
            if head.split(' ', 1)[0] in commands:
                continue
            opts.update(OPT.findall(head))
    return opts


def self_test():
    """The comparison sees a missing and an extra option."""
    helptext = ('usage: x [options]\n  --alpha N      a\n  -h, --help     this\n'
                '  cmd KEY --beta X\n      text --not-an-option\n'
                '  ip netns exec NS x --gamma\n')
    page = '.TP\n\\fB\\-\\-alpha\\fR \\fIN\\fR\na\n.TP\n.B \\-\\-delta\nd\n'
    want, have = help_options(helptext), page_options(page)
    check('self-test: --help options read', want == {'--alpha', '-h', '--help', '--beta'}, want)
    check('self-test: a page\'s options read', have == {'--alpha', '--delta'}, have)
    check('self-test: commands read', help_commands('x:\n  one  a\n  two   b\n  --x  c\n') ==
          {'one', 'two'} and page_commands('.TP\n\\fBone\\fR [x]\n.TP\n\\fB\\-\\-x\\fR\n')
          == {'one'})


def main():
    if len(sys.argv) < 3:
        print('usage: man_test.py MANDIR NAME=PROGRAM...', file=sys.stderr)
        return 2
    mandir = sys.argv[1]
    self_test()
    groff = shutil.which('groff')
    for spec in sys.argv[2:]:
        name, _, prog = spec.partition('=')
        page = os.path.join(mandir, name + '.1')
        check('%s: man page %s exists' % (name, page), os.path.isfile(page))
        if not os.path.isfile(page):
            continue
        with open(page) as f:
            text = f.read()
        check('%s: the page is section 1 of %s' % (name, name),
              re.search(r'^\.TH %s 1 ' % re.escape(name.upper()), text, re.M) is not None)
        cmd = [prog, '--help']
        if prog.endswith('.py') or not os.access(prog, os.X_OK):
            cmd = [sys.executable] + cmd
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=60)
        check('%s --help exits 0' % name, r.returncode == 0, r.stdout[-300:])
        want = help_options(r.stdout)
        cmds = help_commands(r.stdout)
        have = page_options(text, cmds)
        check('%s --help defines options or commands (%d)' % (name, len(want) + len(cmds)),
              len(want) + len(cmds) >= 2, want)
        if cmds:
            pc = page_commands(text)
            check('%s: the page has each command of --help and no other' % name, cmds == pc,
                  'missing: %s, extra: %s' % (sorted(cmds - pc), sorted(pc - cmds)))
        check('%s: every option of --help is in the page' % name, not (want - have),
              'missing: ' + ' '.join(sorted(want - have)))
        check('%s: the page has no option --help lacks' % name, not (have - want),
              'extra: ' + ' '.join(sorted(have - want)))
        if groff:
            g = subprocess.run([groff, '-man', '-ww', '-z', page], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=60,
                               env=dict(os.environ, LC_ALL='C.UTF-8'))
            check('%s: groff reads the page without a warning' % name,
                  g.returncode == 0 and not g.stdout.strip(), g.stdout[:300])
        else:
            print('SKIP %s: groff is not installed (the page is not rendered)' % name)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
