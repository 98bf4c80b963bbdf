#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Hot paths log only through TFO_LOG_RATELIMIT (include/tfo/log.h, docs/architecture.md section 8).

    log_audit.py SOURCE_ROOT

Every TFO_LOG( / RTE_LOG( / printf-family call in the fast-path modules must
sit in a start-up or teardown function (its name says so: create, init,
setup, load, register, free, parse of the configuration...), or be
TFO_LOG_RATELIMIT. A log line per packet at line rate stalls the lcore on
the console; a new one on the hot path fails this test. Functions are
found by DPDK style: the name starts a line, the return type is on the
line above.

The files are those of docs/architecture.md's file map marked H (the hot
path, headers with inline hot code included) or C (once per frame on a
control lcore), at the path their row states (tests/filemap.py): one list,
which docs_test.py checks against the tree. A file of those rows that does
not exist fails the audit: a renamed or split file must be renamed in its
row, not silently dropped.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import filemap  # noqa: E402
COLD = re.compile(r'(create|init|setup|load|register|free|_main$|open_file|scan|walk|'
                  r'_kv$|_parse_|parse_size|parse_bool|_token|_conf|add_file|read_file)'
                  # start-up and key-change functions whose names do not say so;
                  # adding one here is a decision: never a per-packet function
                  r'|^(check_params|keyring_log|keyfile_read|http_check_value|http_fill'
                  # once per lcore, before its poll loop
                  r'|tfo_idle_enter|tfo_idle_watch_rxq)$')
CALL = re.compile(r'\b(TFO_LOG|RTE_LOG|printf|fprintf|puts|fputs|perror)\s*\(')
FUNC = re.compile(r'^([a-zA-Z_][a-zA-Z0-9_]*)\(')


def audit(root, files):
    """@return (violations, log calls seen, listed files that do not exist)."""
    bad, seen, missing = [], 0, []
    for rel in files:
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            # a renamed or split file would silently leave the audit
            missing.append(rel)
            continue
        func = None
        in_macro = False
        with open(path) as f:
            for n, line in enumerate(f, 1):
                m = FUNC.match(line)
                if m:
                    func = m.group(1)
                # a macro's body (log.h's TFO_LOG_RATELIMIT) is judged where
                # it is used
                macro = in_macro or line.lstrip().startswith('#define')
                in_macro = macro and line.rstrip().endswith('\\')
                if macro or line.lstrip().startswith(('*', '/*', '//')):
                    continue
                for c in CALL.finditer(line):
                    seen += 1
                    if func is None or not COLD.search(func):
                        bad.append('%s:%d in %s(): %s' % (rel, n, func, line.strip()))
    return bad, seen, missing


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    hot = filemap.per_frame(root)
    bad, seen, missing = audit(root, hot)
    # the audit must see something, or it checks nothing
    ok = len(hot) > 20 and seen > 10 and not bad and not missing
    print('files of the file map\'s H and C rows: %d' % len(hot))
    print('log calls in hot-path modules: %d, outside start-up functions: %d' % (seen, len(bad)))
    for b in bad:
        print('FAIL %s (use TFO_LOG_RATELIMIT, or log at start-up)' % b)
    for m in missing:
        print('FAIL %s is in the file map\'s hot rows but does not exist '
              '(renamed or split? update its row in docs/architecture.md)' % m)
    # the rule itself: a line in a hot function is caught, one in a create is not
    probe = ('static int\ntfo_x_create(void)\n{\n\tTFO_LOG(ERR, "a");\n}\n'
             'static void\ntfo_x_rx(void)\n{\n\tTFO_LOG(ERR, "b");\n'
             '\tTFO_LOG_RATELIMIT(ERR, "c");\n}\n'
             '#define TFO_X_LOG(fmt) do { \\\n\tTFO_LOG(ERR, fmt); \\\n} while (0)\n')
    tmp = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'log_audit_probe%d' % os.getpid())
    os.makedirs(os.path.join(tmp, 'src'), exist_ok=True)
    with open(os.path.join(tmp, 'src', 'probe.c'), 'w') as f:
        f.write(probe)
    pbad, _, pmissing = audit(tmp, ['src/probe.c', 'src/gone.c'])
    os.unlink(os.path.join(tmp, 'src', 'probe.c'))
    os.rmdir(os.path.join(tmp, 'src'))
    os.rmdir(tmp)
    rule_ok = len(pbad) == 1 and 'tfo_x_rx' in pbad[0]
    print('%s the audit flags a TFO_LOG in a per-packet function and only that' %
          ('ok  ' if rule_ok else 'FAIL'))
    missing_ok = pmissing == ['src/gone.c']
    print('%s the audit flags a listed file that does not exist' %
          ('ok  ' if missing_ok else 'FAIL'))
    rule_ok = rule_ok and missing_ok
    return 0 if ok and rule_ok else 1


if __name__ == '__main__':
    sys.exit(main())
