#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/usertools/tfo-drain against a fake member (no root, no device).

    tfo_drain_test.py PATH/TO/tfo-drain

A fake DPDK telemetry socket (SOCK_SEQPACKET, the v2 protocol) answers
/tfo/stats,total with conns_opened_tfo growing by ~200/s until the fake
birdc is told `disable tfo_service`, then by ~10/s for a second (the flows
the router still sends while it converges), then not at all. The "server"
is a child process that records when SIGTERM came and exits. Checked:
birdc disable first, SIGTERM only once the rate stayed quiet, exit 0, and
the route left withdrawn (no enable without --restart); a member whose rate
never falls is stopped after --max-wait; --dry-run does nothing.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tap'))
import tfotap  # noqa: E402
from tfotap import Checks  # noqa: E402

SCRIPT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), '..', 'scripts', 'usertools', 'tfo-drain')
T = Checks()

# birdc stand-in: appends "TIME ARGS" to $FAKE_BIRDC_LOG
BIRDC = '''#!/bin/sh
echo "$(date +%s.%N) $*" >> "$FAKE_BIRDC_LOG"
echo "BIRD 2.0.12 ready."
'''

# the member: waits for SIGTERM, writes its time, exits 0
MEMBER = r'''
import signal, sys, time
def term(sig, frm):
    open(sys.argv[1], 'w').write('%f' % time.time())
    sys.exit(0)
signal.signal(signal.SIGTERM, term)
time.sleep(60)
'''


class FakeTelemetry(tfotap.FakeTelemetry):
    """conns_opened_tfo: +rate/s; after @withdrawn() is true, +10/s for
    @settle seconds, then flat (unless @never_quiet)."""

    def __init__(self, path, withdrawn, never_quiet=False, settle=1.0):
        super().__init__(path)
        self.withdrawn = withdrawn
        self.never_quiet = never_quiet
        self.settle = settle
        self.t0 = time.time()
        self.t_w = None

    def opened(self):
        t = time.time()
        if self.t_w is None and self.withdrawn():
            self.t_w = t
        if self.never_quiet or self.t_w is None:
            return int((t - self.t0) * 200)
        base = int((self.t_w - self.t0) * 200)
        return base + int(min(t - self.t_w, self.settle) * 10)

    def answer(self, command):
        return {'conns_opened_tfo': self.opened(), 'conns_opened_plain': 5}


def case(tmp, name, never_quiet=False, dry=False):
    d = os.path.join(tmp, name)
    os.mkdir(d)
    birdc = os.path.join(d, 'birdc')
    with open(birdc, 'w') as f:
        f.write(BIRDC)
    os.chmod(birdc, 0o755)
    blog = os.path.join(d, 'birdc.log')
    term = os.path.join(d, 'term')
    sock = os.path.join(d, 'dpdk_telemetry.v2')
    tel = FakeTelemetry(sock, lambda: os.path.exists(blog) and
                        'disable' in open(blog).read(), never_quiet)
    tel.start()
    member = subprocess.Popen([sys.executable, '-c', MEMBER, term])
    time.sleep(0.3)
    env = dict(os.environ, FAKE_BIRDC_LOG=blog)
    cmd = [sys.executable, SCRIPT, '--birdc', birdc + ' -s ctl', '--socket', sock,
           '--pid', str(member.pid), '--quiet-for', '1', '--max-wait', '4',
           '--stop-timeout', '5']
    if dry:
        cmd.append('--dry-run')
    t0 = time.time()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=env, timeout=30)
    took = time.time() - t0
    if member.poll() is None:
        member.kill()
    member.wait()
    tel.close()
    calls = open(blog).read().split('\n') if os.path.exists(blog) else []
    t_term = float(open(term).read()) if os.path.exists(term) else None
    return r, calls, tel, t_term, took


def main():
    tmp = tempfile.mkdtemp(prefix='tfo-drain-test.')
    try:
        r, calls, tel, t_term, took = case(tmp, 'quiet')
        T.check('quiet: exit 0', r.returncode == 0, r.stdout)
        T.check('quiet: birdc disable tfo_service, and no enable',
                len(calls) >= 1 and calls[0].split()[1:] == ['-s', 'ctl', 'disable',
                                                              'tfo_service']
                and not any('enable' in c for c in calls), calls)
        T.check('quiet: SIGTERM after the rate stayed ~0 for --quiet-for (1 s) after the '
                'withdrawal settled (1 s)', tel.t_w is not None and t_term is not None and
                t_term - tel.t_w >= 1.9, (tel.t_w, t_term, r.stdout))
        T.check('quiet: the output says so', 'quiet after' in r.stdout and
                'route withdrawn' in r.stdout, r.stdout)

        r, calls, tel, t_term, took = case(tmp, 'busy', never_quiet=True)
        T.check('never quiet: stopped after --max-wait (4 s) anyway, exit 0',
                r.returncode == 0 and t_term is not None and 3.5 <= took < 8 and
                'draining anyway' in r.stdout, (took, r.stdout))

        r, calls, tel, t_term, took = case(tmp, 'dry', dry=True)
        T.check('dry run: exit 0, says the steps, calls nothing, signals nothing',
                r.returncode == 0 and calls == [] and t_term is None and
                'disable tfo_service' in r.stdout and 'SIGTERM' in r.stdout, r.stdout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
