#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Committed generated files against their generators.

    generated_test.py SOURCE_ROOT

Each file of GENERATED is committed so that the build and the tests do not
need its generator's tools; this test runs the generator and fails when the
committed file differs (an edited generator whose output was not
regenerated, or a hand edit of the output). A generator whose tools are
missing is a skip (77) that names them. The runbook's counter table is
docs_test.py's (it needs the built tfo-server).
"""
import difflib
import os
import subprocess
import sys

# (committed file, generator command from the source root, module it imports,
#  the package that provides it)
GENERATED = [
    ('tests/pkt_vectors.h', ['/usr/bin/python3', 'tests/gen_pkt_vectors.py'],
     'scapy', 'python3-scapy'),
]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), '..'))
    failed = skipped = 0
    for out, cmd, module, package in GENERATED:
        probe = subprocess.run([cmd[0], '-c', 'import ' + module], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        if probe.returncode != 0:
            print('SKIP %s: %s cannot import %s (install %s)' % (out, cmd[0], module, package))
            skipped += 1
            continue
        r = subprocess.run(cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=120)
        with open(os.path.join(root, out)) as f:
            have = f.read()
        if r.returncode != 0:
            print('FAIL %s: %s exited %d: %s' % (out, ' '.join(cmd), r.returncode,
                                                 r.stderr[-500:]))
            failed += 1
        elif r.stdout != have:
            diff = difflib.unified_diff(have.splitlines(), r.stdout.splitlines(),
                                        out + ' (committed)', ' '.join(cmd), lineterm='')
            print('FAIL %s differs from its generator; regenerate: %s > %s' %
                  (out, ' '.join(cmd), out))
            print('\n'.join(list(diff)[:40]))
            failed += 1
        else:
            print('ok   %s = %s (%d lines)' % (out, ' '.join(cmd), have.count('\n')))
    # test-summary.py counts the skipped ones into the suite's last line
    print('cases: %d passed, %d failed, %d skipped' % (len(GENERATED) - failed - skipped,
                                                      failed, skipped))
    if failed:
        return 1
    return 77 if skipped == len(GENERATED) else 0


if __name__ == '__main__':
    sys.exit(main())
