#!/usr/bin/python3
"""The main job, after set-up: tfo-server on its embedded default
configuration in a private network namespace, two fetches with the Linux
kernel's TFO client (curl --tcp-fastopen), what the capture shows, then
serving with a stats line every second until Ctrl-C (or DEMO_SECONDS)."""
import os
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'tap'))
from tfotap import Bed, SERVER_V4, flows  # noqa: E402


def explain(n, flow):
    syn = next((p for p in flow if p['dir'] == 'c2s' and 'S' in p['flags']), None)
    synack = next((p for p in flow if p['dir'] == 's2c' and 'S' in p['flags']), None)
    first_resp = next((p for p in flow if p['dir'] == 's2c' and p['len'] > 0), None)
    req = next((p for p in flow if p['dir'] == 'c2s' and p['len'] > 0), None)
    if syn is None or synack is None or first_resp is None:
        print('  fetch %d: incomplete capture' % n)
        return
    t0 = syn['time']
    ms = (first_resp['time'] - t0) * 1000
    if syn['len'] > 0:
        print('  fetch %d: SYN carried the TFO cookie and the %d-byte request;' % (n, syn['len']))
        print('           our first packet, the SYN-ACK, carried %d bytes of the response%s.'
              % (first_resp['len'], ' (+FIN)' if 'F' in first_resp['flags'] else '')
              if first_resp is synack else
              '           the response followed the SYN-ACK.')
        print('           -> answered in 1 round trip (%.3f ms from SYN to response)' % ms)
    else:
        print('  fetch %d: SYN asked for a cookie (%s); SYN-ACK gave one (%s);'
              % (n, syn['tfo'], synack['tfo']))
        print('           the request (%d bytes) went after the handshake, the response after it.'
              % (req['len'] if req else 0))
        print('           -> 2 round trips (%.3f ms from SYN to response)' % ms)


def main():
    seconds = float(os.environ.get('DEMO_SECONDS', '1e9'))
    # SIGTERM (timeout(1), a CI runner, systemd) ends the demo as Ctrl-C
    # does: through Bed's exit, so that no namespace or server is left
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    with Bed(os.path.join(ROOT, 'build', 'apps', 'tfo-server'), ['--stats-period', '1']) as bed:
        print('demo: tfo-server runs in network namespace %s; kernel side tfo0 = 198.18.0.1' % bed.ns)
        cap = bed.capture()
        for i in (1, 2):
            r = bed.ns_run(['curl', '-sS', '--tcp-fastopen', '--max-time', '5', '-o', '/dev/null',
                            '-w', '%{http_code} %{size_download} bytes in %{time_total}s',
                            'http://%s/' % SERVER_V4], check=False)
            print('demo: curl --tcp-fastopen http://%s/  (#%d): %s' % (SERVER_V4, i,
                  r.stdout.strip() or r.stderr.strip()))
        pk = cap.packets()
        print('demo: what went over the wire (tcpdump on tfo0):')
        for n, flow in enumerate(flows(pk).values(), 1):
            explain(n, flow)
        m = bed.tcp_metrics().strip()
        print('demo: the kernel client cached our cookie: %s' % m)
        st = bed.stats()
        print('demo: server counters: TCPFastOpenCookieReqd=%d TCPFastOpenPassive=%d conns_opened_tfo=%d'
              % (st.get('TCPFastOpenCookieReqd', 0), st.get('TCPFastOpenPassive', 0),
                 st.get('conns_opened_tfo', 0)))
        print('demo: serving; a stats line every second; Ctrl-C to stop.')
        sys.stdout.flush()
        done = [False]
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *a: done.__setitem__(0, True))
        pos = len(bed.log_text())
        end = time.time() + seconds
        while not done[0] and time.time() < end and bed.proc.poll() is None:
            time.sleep(0.5)
            text = bed.log_text()
            for line in text[pos:].splitlines():
                if line.startswith('stats:'):
                    print(line)
            pos = len(text)
            sys.stdout.flush()
        rc = bed.stop()
        print('demo: tfo-server stopped (exit code %s); its summary:' % rc)
        text = bed.log_text()
        print(text[text.find('summary:'):].rstrip())
    return 0


if __name__ == '__main__':
    sys.exit(main())
