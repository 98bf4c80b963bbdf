#!/usr/bin/env python3
"""Print 'tests: N passed, N failed, N skipped' over meson's testlog.json files.

    test-summary.py [--failed NAME] [--skipped NAME] TESTLOG.json...

Several build trees (the main one, the sanitizer one, the fuzz one) add up;
with more than one, failed and skipped tests are named with their tree.
--failed/--skipped count something that ran outside meson (a build that
broke, a pass that could not run). Exit 1 if anything failed.
"""
import json
import os
import sys

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
