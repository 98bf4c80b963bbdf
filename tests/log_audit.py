#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Hot paths log only through TFO_LOG_RATELIMIT (COMMON.md, log.h).

    log_audit.py SOURCE_ROOT

Every TFO_LOG( / RTE_LOG( / printf-family call in the fast-path modules must
sit in a start-up or teardown function (its name says so: create, init,
setup, load, register, free, parse of the configuration...), or be
TFO_LOG_RATELIMIT. A log line per packet at line rate stalls the lcore on
the console; a new one on the hot path fails this test. Functions are
found by DPDK style: the name starts a line, the return type is on the
line above. A file listed in HOT that does not exist fails the audit: a
renamed or split file must be listed again, not silently dropped.
"""
import os
import re
import sys

HOT = ['src/worker.c', 'src/engine.c', 'src/tcp_input.c', 'src/tcp_output.c',
       'src/tcp_open.c', 'src/tcp_timer.c', 'src/tcp_service.c', 'src/tx.c',
       'src/pkt.c', 'src/pkt_match.c', 'src/pkt_cksum.c', 'src/pkt_build.c', 'src/tcpopt.c', 'src/conn.c',
       'src/timer.c', 'src/cookie.c', 'src/syncookie.c', 'src/siphash.c', 'src/aes128.c',
       'services/echo.c', 'services/http.c', 'services/http_parse.c',
       # split out of the files above; neigh.c answers frames one by one
       'src/keyring.c', 'services/http_load.c', 'src/neigh.c',
       # the latency flush runs once per poll on every lcore
       'src/latency.c']
COLD = re.compile(r'(create|init|setup|load|register|free|_main$|open_file|scan|walk|'
                  r'_kv$|_parse_|parse_size|parse_bool|_token|_conf|add_file|read_file)'
                  # start-up and key-change functions whose names do not say so;
                  # adding one here is a decision: never a per-packet function
                  r'|^(check_params|keyring_log|keyfile_read|http_check_value|http_fill)$')
CALL = re.compile(r'\b(TFO_LOG|RTE_LOG|printf|fprintf|puts|fputs|perror)\s*\(')
FUNC = re.compile(r'^([a-zA-Z_][a-zA-Z0-9_]*)\(')


def audit(root, files=HOT):
    """@return (violations, log calls seen, listed files that do not exist)."""
    bad, seen, missing = [], 0, []
    for rel in files:
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            # a renamed or split file would silently leave the audit
            missing.append(rel)
            continue
        func = None
        with open(path) as f:
            for n, line in enumerate(f, 1):
                m = FUNC.match(line)
                if m:
                    func = m.group(1)
                if line.lstrip().startswith(('*', '/*', '//', '#define')):
                    continue
                for c in CALL.finditer(line):
                    seen += 1
                    if func is None or not COLD.search(func):
                        bad.append('%s:%d in %s(): %s' % (rel, n, func, line.strip()))
    return bad, seen, missing


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    bad, seen, missing = audit(root)
    # the audit must see something, or it checks nothing
    ok = seen > 10 and not bad and not missing
    print('log calls in hot-path modules: %d, outside start-up functions: %d' % (seen, len(bad)))
    for b in bad:
        print('FAIL %s (use TFO_LOG_RATELIMIT, or log at start-up)' % b)
    for m in missing:
        print('FAIL %s is listed in HOT but does not exist (renamed or split? update HOT)' % m)
    # the rule itself: a line in a hot function is caught, one in a create is not
    probe = ('static int\ntfo_x_create(void)\n{\n\tTFO_LOG(ERR, "a");\n}\n'
             'static void\ntfo_x_rx(void)\n{\n\tTFO_LOG(ERR, "b");\n'
             '\tTFO_LOG_RATELIMIT(ERR, "c");\n}\n')
    tmp = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'log_audit_probe%d' % os.getpid())
    os.makedirs(os.path.join(tmp, 'src'), exist_ok=True)
    with open(os.path.join(tmp, 'src', 'worker.c'), 'w') as f:
        f.write(probe)
    pbad, _, pmissing = audit(tmp, ['src/worker.c', 'src/gone.c'])
    os.unlink(os.path.join(tmp, 'src', 'worker.c'))
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
