#!/usr/bin/env python3
"""Print 'tests: N passed, N failed, N skipped' over meson's testlog.json files.

    test-summary.py [--failed NAME] [--skipped NAME] TESTLOG.json...

Several build trees (the main one, the sanitizer one, the fuzz one) add up;
with more than one, failed and skipped tests are named with their tree.
--failed/--skipped count something that ran outside meson (a build that
broke, a pass that could not run). Exit 1 if anything failed.

A test that passed but skipped some of its cases (a SIMD engine the CPU
lacks, a tool that is not installed) counts as passed, and each skipped
case counts as skipped too, named "TEST (N of M cases)": a partial test is
never a silent OK. Its skipped cases are read from its output: the last
"cases: P passed, F failed, S skipped" line (tests/test.c, TAP
diagnostics) or its "SKIP ..." lines and TAP "# SKIP" results, whichever
says more.
"""
import json
import os
import re
import sys

CASES = re.compile(r'^(?:# )?cases: (\d+) passed, (\d+) failed, (\d+) skipped', re.M)
SKIP_LINE = re.compile(r'^(?:SKIP|skip)\b|^ok \d+\b.*# SKIP', re.M)


def skipped_cases(out):
    """@return (skipped cases, cases in all or None) of a test's output."""
    last = CASES.findall(out or '')
    lines = len(SKIP_LINE.findall(out or ''))
    if last:
        p, f, s = (int(x) for x in last[-1])
        return max(s, lines), max(p + f + s, lines)
    return lines, None


passed = failed = skipped = 0
names = {'failed': [], 'skipped': []}
args = sys.argv[1:]
files = []
while args:
    a = args.pop(0)
    if a in ('--failed', '--skipped') and args:
        kind = a[2:]
        names[kind].append(args.pop(0))
        if kind == 'failed':
            failed += 1
        else:
            skipped += 1
    else:
        files.append(a)
for path in files:
    tree = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(path))))
    prefix = tree + ': ' if len(files) > 1 else ''
    try:
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                t = json.loads(line)
                r = t.get('result', '')
                if r in ('OK', 'EXPECTEDFAIL'):
                    passed += 1
                    s, of = skipped_cases(t.get('stdout'))
                    if s:
                        skipped += s
                        names['skipped'].append('%s%s (%d%s case%s)' % (
                            prefix, t['name'], s, ' of %d' % of if of else '',
                            's' if (of or s) > 1 else ''))
                elif r == 'SKIP':
                    skipped += 1
                    names['skipped'].append(prefix + t['name'])
                else:
                    failed += 1
                    names['failed'].append('%s%s (%s)' % (prefix, t['name'], r))
    except OSError as e:
        print('test-summary: %s' % e)
        failed += 1
if not files:
    print('test-summary: no testlog.json given')
    failed += 1
for kind in ('skipped', 'failed'):
    if names[kind]:
        print('%s: %s' % (kind, ', '.join(names[kind])))
print('tests: %d passed, %d failed, %d skipped' % (passed, failed, skipped))
sys.exit(1 if failed else 0)
