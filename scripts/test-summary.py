#!/usr/bin/env python3
"""Print 'tests: N passed, N failed, N skipped' from meson's testlog.json."""
import json
import sys

passed = failed = skipped = 0
names = {'failed': [], 'skipped': []}
try:
    with open(sys.argv[1]) as f:
        for line in f:
            if not line.strip():
                continue
            t = json.loads(line)
            r = t.get('result', '')
            if r in ('OK', 'EXPECTEDFAIL'):
                passed += 1
            elif r == 'SKIP':
                skipped += 1
                names['skipped'].append(t['name'])
            else:
                failed += 1
                names['failed'].append('%s (%s)' % (t['name'], r))
except OSError as e:
    print('test-summary: %s' % e)
    failed += 1
for kind in ('skipped', 'failed'):
    if names[kind]:
        print('%s: %s' % (kind, ', '.join(names[kind])))
print('tests: %d passed, %d failed, %d skipped' % (passed, failed, skipped))
sys.exit(1 if failed else 0)
