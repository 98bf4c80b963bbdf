#!/usr/bin/python3
"""Key rotation across a fleet, with key files and SIGHUP only (suite tap, root).

    keys_fleet.py TFO_SERVER

Two tfo-server instances (A on tap tfoa, B on tap tfob, one network
namespace) serve the same address 198.18.0.2 and share one key file, as a
fleet behind ECMP does. The kernel client's route to 198.18.0.2 is switched
between the two taps, so one client (one cookie cache) talks to A, then to B,
as if ECMP moved it. The documented procedure (docs/runbook.md, "Key
rotation") is driven step by step:

  0. file "K1"          on A and B: a cookie from A is accepted by B
  1. file "K1,K2"       reload A, then B (SIGHUP; /tfo/reload): K2 is
                        accepted everywhere before anyone issues it
  2. file "K2,K1"       reload A, then B: A issues K2 cookies, B (still
                        K1,K2 until its reload) accepts them
At every step, with the fleet half-way through a reload too, a cookie from
one instance is accepted (TFO, the response in the SYN-ACK) by the other.
Then: the wrong order (promoting a key nobody holds as backup) is shown to
reject cookies; a bad key file and a missing one are refused with a clear
error and the running keys stay; a repeated SIGHUP changes nothing.
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfotap import Bed, Checks, SERVER_V4, flows, need_root  # noqa: E402

ECHO = 7
T = Checks()


def keytool(server, *args):
    tool = os.path.join(os.path.dirname(server), 'tfo-keytool')
    return subprocess.run([tool] + list(args), check=True, stdout=subprocess.PIPE,
                          text=True).stdout.split()


def write_keys(path, text):
    tmp = path + '.tmp'
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        f.write(text + '\n')
    os.rename(tmp, path)	# what an operator's tooling should do: never a half file


def route_to(bed):
    """Send the client's traffic for 198.18.0.2 through @bed's tap."""
    bed.ns_run(['ip', 'route', 'replace', SERVER_V4 + '/32', 'dev', bed.iface])


def reloads_seen(bed):
    t = bed.log_text()
    return t.count('re-read:') + t.count('key reload refused')


def sighup(bed):
    """SIGHUP, then wait until the control core logged the outcome."""
    n = reloads_seen(bed)
    bed.proc.send_signal(signal.SIGHUP)
    deadline = time.time() + 5
    while time.time() < deadline and reloads_seen(bed) == n:
        time.sleep(0.05)
    return reloads_seen(bed) > n


def fps(bed):
    k = bed.telemetry('/tfo/keys')
    return k.get('primary'), k.get('backup'), k.get('generation')


def connect(bed, tag, want):
    """One echo connection through @bed; want 'tfo' (cookie accepted, the
    response in our SYN-ACK), 'fail' (cookie rejected, served after fallback)
    or 'req' (a first connection: cookie request)."""
    route_to(bed)
    before = bed.stats()
    cap = bed.capture()
    r = bed.client(SERVER_V4, ECHO, '--data', '%s\\n' % tag.replace(' ', '_'), '--expect-echo')
    pk = cap.packets()
    after = bed.stats()
    fl = next(iter(flows(pk).values()), [])
    syn = next((p for p in fl if p['dir'] == 'c2s' and p['flags'] == 'S'), None)
    ans = next((p for p in fl if p['dir'] == 's2c'), None)
    d = {k: after.get(k, 0) - before.get(k, 0) for k in
         ('TCPFastOpenPassive', 'TCPFastOpenPassiveFail', 'TCPFastOpenPassiveAltKey')}
    T.check('%s: served byte-exact' % tag, r['ok'], r)
    if want == 'tfo':
        T.check('%s: cookie accepted, response in the SYN-ACK (TFO)' % tag,
                syn is not None and syn['len'] > 0 and ans is not None and 'S' in ans['flags']
                and ans['len'] > 0 and d['TCPFastOpenPassive'] == 1
                and d['TCPFastOpenPassiveFail'] == 0, (d, ans and ans['len']))
    elif want == 'fail':
        T.check('%s: cookie rejected (TCPFastOpenPassiveFail +1, fallback)' % tag,
                d['TCPFastOpenPassiveFail'] == 1 and ans is not None and ans['len'] == 0, d)
    else:
        T.check('%s: cookie request answered with a cookie' % tag,
                syn is not None and syn['tfo'] == 'req' and ans is not None
                and ans['tfo'] not in (None, 'req'), syn and syn['tfo'])
    return ans['tfo'] if ans else None, d


def main():
    need_root()
    server = os.path.abspath(sys.argv[1])
    k1, k2, k3 = (keytool(server, 'gen')[0] for _ in range(3))
    fp = {k: keytool(server, 'fingerprint', '--key', k)[0] for k in (k1, k2, k3)}
    kdir = subprocess.run(['mktemp', '-d', '/tmp/tfo-fleet.XXXXXX'], check=True,
                          stdout=subprocess.PIPE, text=True).stdout.strip()
    kfile = os.path.join(kdir, 'tfo.key')
    write_keys(kfile, k1)
    ns = 'tfofleet%d' % os.getpid()

    def bed(iface, shared=None):
        return Bed(server, ['--key-file', kfile,
                            '--set', 'port net_tap0.vdev=net_tap0,iface=%s' % iface],
                   name=ns, iface=iface, shared_ns=shared)

    try:
        with bed('tfoa') as a, bed('tfob', shared=ns) as b:
            T.check('A and B start with K1 (fingerprints), no backup',
                    fps(a)[:2] == (fp[k1], '') and fps(b)[:2] == (fp[k1], ''), (fps(a), fps(b)))
            print('== step 0: file "K1" everywhere')
            connect(a, 'step 0: first connection to A', 'req')
            connect(b, 'step 0: A\'s cookie to B', 'tfo')
            connect(a, 'step 0: back to A', 'tfo')

            print('== step 1: file "K1,K2" (K2 as backup), reload A, then B')
            write_keys(kfile, '%s,%s' % (k1, k2))
            T.check('step 1: SIGHUP A re-read the file', sighup(a))
            T.check('step 1: A has K1 primary, K2 backup', fps(a)[:2] == (fp[k1], fp[k2]), fps(a))
            connect(b, 'step 1 (half-way): B', 'tfo')
            connect(a, 'step 1 (half-way): A', 'tfo')
            r = b.telemetry('/tfo/reload')
            T.check('step 1: /tfo/reload on B: changed, K1 primary, K2 backup',
                    r.get('result') == 'changed' and r.get('primary') == fp[k1]
                    and r.get('backup') == fp[k2], r)
            connect(b, 'step 1: B', 'tfo')
            connect(a, 'step 1: A', 'tfo')

            print('== step 2: file "K2,K1" (promote K2), reload A, then B')
            write_keys(kfile, '%s,%s' % (k2, k1))
            T.check('step 2: SIGHUP A re-read the file', sighup(a))
            T.check('step 2: A has K2 primary, K1 backup', fps(a)[:2] == (fp[k2], fp[k1]), fps(a))
            c, d = connect(a, 'step 2 (half-way): A with the K1 cookie', 'tfo')
            T.check('step 2: ... accepted with the backup key, a fresh K2 cookie offered',
                    d['TCPFastOpenPassiveAltKey'] == 1 and c not in (None, 'req'), (d, c))
            connect(b, 'step 2 (half-way): A\'s K2 cookie to B (K1,K2)', 'tfo')
            connect(a, 'step 2 (half-way): B\'s cookie back to A', 'tfo')
            T.check('step 2: SIGHUP B re-read the file', sighup(b))
            T.check('step 2: B has K2 primary, K1 backup', fps(b)[:2] == (fp[k2], fp[k1]), fps(b))
            connect(b, 'step 2: B', 'tfo')
            connect(a, 'step 2: A', 'tfo')
            connect(b, 'step 2: B again (primary cookie)', 'tfo')

            print('== a repeated SIGHUP changes nothing')
            g = fps(a)[2]
            T.check('SIGHUP A again re-read the file', sighup(a))
            T.check('... keys and generation unchanged', fps(a) == (fp[k2], fp[k1], g), fps(a))
            T.check('... logged as unchanged', 'keys unchanged' in a.log_text())

            print('== the wrong order: promote K3 on A without distributing it first')
            write_keys(kfile, k3)
            T.check('single-key file "K3" on A: SIGHUP re-read it', sighup(a))
            T.check('... K3 promoted, the old primary K2 became the backup',
                    fps(a)[:2] == (fp[k3], fp[k2]), fps(a))
            c, d = connect(a, 'wrong order: A (K2 cookie, backup hit)', 'tfo')
            connect(b, 'wrong order: A\'s K3 cookie to B (K2,K1)', 'fail')
            write_keys(kfile, '%s,%s' % (k2, k3))
            T.check('repair: "K2,K3" on A (SIGHUP)', sighup(a) and fps(a)[:2] == (fp[k2], fp[k3]))

            print('== a bad key file is refused, the running keys stay')
            before = fps(a)
            s0 = a.stats()
            with open(kfile, 'w') as f:
                f.write('not-a-key\n')
            T.check('bad file: SIGHUP A re-read it', sighup(a))
            T.check('bad file: keys unchanged', fps(a) == before, (before, fps(a)))
            T.check('bad file: a clear error in the log',
                    'not in tcp_fastopen_key format' in a.log_text()
                    and 'the running keys stay' in a.log_text())
            T.check('bad file: the key text is not echoed', 'not-a-key' not in a.log_text())
            r = a.telemetry('/tfo/reload')
            T.check('bad file: /tfo/reload says error, with the reason, and the keys',
                    r.get('result') == 'error' and 'tcp_fastopen_key format' in r.get('error', '')
                    and r.get('primary') == before[0], r)
            T.check('bad file: key_reload_errors +2',
                    a.stats().get('key_reload_errors', 0) - s0.get('key_reload_errors', 0) == 2)
            os.unlink(kfile)
            r = a.telemetry('/tfo/reload')
            T.check('missing file: /tfo/reload says error (No such file)',
                    r.get('result') == 'error' and 'No such file' in r.get('error', ''), r)
            T.check('missing file: keys unchanged', fps(a) == before)
            connect(a, 'after the refused reloads: A still serves TFO', 'tfo')
            st = a.stats()
            T.check('key_reloads counts the changes on A (1 step 1, 1 step 2, K3, repair)',
                    st.get('key_reloads') == 4, st.get('key_reloads'))
            T.check('A stops with exit code 0', a.stop() == 0)
            T.check('B stops with exit code 0', b.stop() == 0)
    except Exception as e:
        T.check('fleet test ran without exception', False, repr(e))
    finally:
        subprocess.run(['rm', '-rf', kdir])
        subprocess.run(['ip', 'netns', 'del', ns], stderr=subprocess.DEVNULL)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
