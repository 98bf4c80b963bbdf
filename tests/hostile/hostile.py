#!/usr/bin/python3
"""Hostile traffic against tfo-server on net_tap (suite hostile, root).

    hostile.py TFO_SERVER [CASE...]

One tfo-server in a private network namespace (small tables, short timers,
pending limit 8); forged frames go into its tap from the kernel side through
a raw socket (scapy builds them), and a second raw socket sees every frame
on the wire both ways. Cases (issue "Robustness and security"): synflood,
stolen, stolen-one (issue "Held by one address"), cookies, nonsyn, malformed, rstflood,
dupsyn, pmtu; and on a server with syncookies = always: wsynflood (the
workers' SYN cookies, issue "The slow path at fast-path scale"). After each case: the
server is up; every frame the kernel side put on the wire was received
(rx_pkts) and is explained by the accounting (rx = delivered + dropped by
reason + to_control, on every lcore; tx = sent); the counters the case is
about moved by exactly what was sent; a good TFO client (the Linux kernel)
is served with its request in the SYN; the connection tables come back to
empty. At the end the server stops with exit code 0 and "accounting: ok".
"""
import os
import sys
import time

from hostile_bed import ECHO, SERVER_V4, T, Suite
from hostile_cookies import case_cookies, case_stolen, case_stolen_one
from hostile_segments import case_malformed, case_nonsyn, case_pmtu, case_rstflood
from hostile_syn import case_dupsyn, case_synflood, case_wsynflood
from tfotap import need_root


CASES = {
    'synflood': case_synflood,
    'stolen': case_stolen,
    'stolen-one': case_stolen_one,
    'cookies': case_cookies,
    'nonsyn': case_nonsyn,
    'malformed': case_malformed,
    'rstflood': case_rstflood,
    'dupsyn': case_dupsyn,
    'pmtu': case_pmtu,
}
# cases on a server of their own, started with these arguments
CASES_ALWAYS = {
    'wsynflood': case_wsynflood,
}
ARGS_ALWAYS = ['--set', 'tcp.syncookies=always']


def main():
    need_root()
    server = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or list(CASES) + list(CASES_ALWAYS)
    for args, cases in (((), CASES), (ARGS_ALWAYS, CASES_ALWAYS)):
        if any(n in cases for n in names):
            run_suite(server, args, cases, [n for n in names if n in cases])
    return T.done()


def run_suite(server, args, cases, names):
    t_start = time.time()
    with Suite(server, args) as s:
        # the good client's cookie first; settle the kernel side
        r = s.bed.client(SERVER_V4, ECHO, '--data', 'first\\n', '--expect-echo')
        T.check('the good client learns a cookie', r['ok'], r)
        s.mac = s.server_mac()
        for name in names:
            print('== %s' % name)
            sys.stdout.flush()
            t0 = time.time()
            try:
                cases[name](s)
            except Exception as e:  # a broken case must fail, not hide the rest
                import traceback
                traceback.print_exc()
                T.check('%s ran without exception' % name, False, repr(e))
            print('   (%.1f s)' % (time.time() - t0))
        final = s.stats()
        rc = s.bed.stop()
        log = s.bed.log_text()
        T.check('server stops with exit code 0', rc == 0, rc)
        T.check('exit summary: "accounting: ok"', '\naccounting: ok' in log,
                [l for l in log.splitlines() if 'accounting' in l or 'UNBALANCED' in l][-6:])
        print('frames the server received: %d, sent: %d, in %.0f s' %
              (final.get('rx_pkts', 0), final.get('tx_pkts', 0), time.time() - t_start))


if __name__ == '__main__':
    sys.exit(main())
