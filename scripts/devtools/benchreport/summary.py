"""bench.sh's summary table (bench/results/summary.md and the top of the
report): a row per figure, each phase's rows from its own function, in the
order of a full run."""
import os

from benchreport.latency import lat_all, lat_errors, lat_summary_rows
from benchreport.md import fmt, previous, with_previous
from benchreport.phases import (LOADS, controls_rows, cookie_ratio, engine_mem, flood,
                                pipeline_rows, slow_rows, testpmd, tfo_server)
from benchreport.raw import kernel, latency, machine, med, spread, tsc_hz
from benchreport.scale import scale_summary_rows


def head(m, hz):
    """The run's machine and load, others' work, the table's header."""
    lines = []
    a = lines.append
    a(f"Run {m['date']} on {m['cpu']} ({m['cpus']} CPUs; {m['flags'].strip()}"
      + (f"; TSC {hz / 1e9:.2f} GHz" if hz == hz else '') + f"), kernel {m['kernel']}, DPDK {m['dpdk']}, commit {m['commit']}; "
      f"device under test (tfo-server's two lcores) on CPU {m['dut_cpu']}, traffic sources "
      f"on CPU {m['gen_cpu']}; "
      f"medians of {m['reps']} x {m['seconds']} s, spread = (max - min) / median; load average "
      f"before/after: {m['load_before']} / {m.get('load_after', '?')} (a shared machine)"
      + (f"; a partial run: phases {m['phases']}." if m.get('phases', 'all') != 'all' else '.'))
    busy = [f"{k[5:]} {v}" for k, v in m.items() if k.startswith('busy_')]
    if busy:
        a('')
        a("Others' work on CPU 0 / CPU 1 in the second before each phase (the script waits up "
          "to a minute for both under 15 %): " + '; '.join(busy) + '.')
    tb = [f"{k[10:]} {v}" for k, v in m.items() if k.startswith('tb_others_')]
    if tb:
        a("Others' share of the machine during each tfo-bench run (a run over 3 % is done "
          "again, twice at most, and the least disturbed kept): " + '; '.join(tb) + '.')
    a('')
    a('| # | measure | median | spread | derived | target |')
    return lines


def io_rows(tp, ts, k, hz):
    """Rows 1 to 3: testpmd's ceiling, tfo-server's peak, the kernel's,
    and their ratios."""
    ratio_io = med(ts['core_rx_mpps']) / med(tp['core_mpps']) if tp['core_mpps'] else float('nan')
    ratio_k = med(ts['txn']) / med(k['rate']) if k['rate'] else float('nan')
    lines = []
    a = lines.append
    a('|---|---|---:|---:|---|---|')
    if tp['mpps']:
        a(f"| 1 | testpmd macswap, net_memif, 128-byte frames: forwarded (feeder-bound) | "
          f"{fmt(med(tp['mpps']), '{:.2f}')} Mpps | {fmt(spread(tp['mpps']), '{:.1f}')}% | "
          f"{fmt(med(tp['cycles']), '{:.0f}')} busy TSC cycles/packet = **{fmt(med(tp['core_mpps']), '{:.1f}')} "
          f"Mpps per forwarding core** (spread {fmt(spread(tp['core_mpps']), '{:.1f}')}%); "
          f"{tp['note']} | I/O ceiling |")
    if ts['txn']:
        a(f"| 2 | tfo-server, 1 worker, echo 100 B, driven by tfo-loadgen over net_memif: "
          f"TFO transactions/s of the machine (loadgen-bound) | **{fmt(med(ts['txn']))}**/s | "
          f"{fmt(spread(ts['txn']), '{:.1f}')}% | worker busy {fmt(med(ts['share']), '{:.0f}')}%: "
          f"**{fmt(med(ts['core_txn']))} transactions/s per worker core**, "
          f"**{fmt(med(ts['core_rx_mpps']), '{:.2f}')} Mpps in per worker core** "
          f"({fmt(med(ts['pkts_per_txn']), '{:.1f}')} packets in+out per transaction); "
          f"{ts['note']} | |")
    if ts['txn'] and tp['mpps']:
        a(f"| 2/1 | packets/s per worker core vs the macswap ceiling per core | "
          f"**{fmt(ratio_io, '{:.2f}')}x** | | | >= 0.5x: {'met' if ratio_io >= 0.5 else 'not met'} |")
    if k['rate']:
        a(f"| 3 | Linux kernel TFO server + client (bench/kernel_tfo_*), loopback, both CPUs: "
          f"transactions/s of the machine | **{fmt(med(k['rate']))}**/s | "
          f"{fmt(spread(k['rate']), '{:.1f}')}% | {fmt(med(k['tfo_share']), '{:.0f}')}% of them TFO; "
          f"{fmt(2 * hz / med(k['rate']) / 1e3 if k['rate'] else float('nan'), '{:.0f}')}k TSC cycles "
          f"of the machine per transaction | |")
    if ts['txn'] and k['rate']:
        a(f"| 2/3 | tfo-server (+ its load generator) vs the kernel, transactions/s of the same "
          f"2 CPUs | **{fmt(ratio_k, '{:.1f}')}x** | | | >= 50x: {'met' if ratio_k >= 50 else 'not met'} |")
    return lines


def tfo_bench_rows(raw, hz, ts):
    """Rows 4: tfo-bench's pipeline, cookie and engine against their targets."""
    pl = pipeline_rows(raw)
    lines = []
    a = lines.append
    # the targets of "Half the cycles per TFO transaction" (docs: README
    # "Performance"): echo 400 offloaded / 480 software, http 600, cold 700
    for key, goal in (((1000, 'echo', 'offload'), 400), ((65536, 'echo', 'offload'), 400),
                      ((1000, 'echo', 'sw'), 480), ((1000, 'http', 'offload'), 600)):
        if key in pl:
            t, sp, mt = pl[key]
            a(f"| 4 | tfo-bench pipeline: {key[1]}, {key[0]} live, checksums {key[2]}: "
              f"TSC cycles per complete TFO transaction | **{t:.0f}** | {sp} | "
              f"{mt:.2f} M transactions/s per core | <= {goal}: "
              f"{'met' if t <= goal else 'not met'} |")
    cold = pipeline_rows(raw, 'tb_pipeline_cold.txt').get((1000, 'echo', 'offload'))
    if cold:
        a(f"| 4 | tfo-bench pipeline --cold (client frames flushed from the caches): echo, 1000 "
          f"live, checksums offload | **{cold[0]:.0f}** | {cold[1]} | {cold[2]:.2f} M "
          f"transactions/s per core | <= 700: {'met' if cold[0] <= 700 else 'not met'} |")
    ck = cookie_ratio(raw)
    if ck:
        a(f"| 4 | tfo-bench cookie, aes128, batch 32: TSC cycles per cookie checked vs the raw "
          f"ipsec-mb ECB pass | **{ck[0] / ck[1]:.2f}x** | | {ck[0]:.1f} vs {ck[1]:.1f} cycles "
          f"per cookie | <= 1.5x: {'met' if ck[0] / ck[1] <= 1.5 else 'not met'} |")
    mem = engine_mem(raw)
    if mem:
        live = max(mem)
        a(f"| 4 | tfo-bench engine: memory per live connection, entry plus index ({live} live) "
          f"| **{mem[live]:.0f} B** | | | <= 128 B: {'met' if mem[live] <= 128 else 'not met'} |")
    af = pipeline_rows(raw, 'tb_pipeline_ackfin.txt').get((1000, 'echo', 'sw'))
    if af:
        per_txn = hz / med(ts['core_txn']) if ts['core_txn'] else float('nan')
        a(f"| 4 | the same in tfo-loadgen's shape (ACK and FIN in one segment), software "
          f"checksums: the worker's work in (2) without memif | **{af[0]:.0f}** | {af[1]} | "
          f"(2)'s worker: {fmt(per_txn)} busy TSC cycles per transaction | |")
    return lines


def load_rows(raw, ts):
    """Rows 5: the load types side by side; (rows, their errors but the
    peak's, which (2) counts)."""
    errs = 0
    lines = []
    a = lines.append
    loads = {n: latency(raw, n) for n, _, _ in LOADS}
    loads['peak'] = {'rate': ts['txn'], 'p50': ts['p50'], 'p99': ts['p99'],
                     'errors': ts['errors'], 'note': ts['note']}
    tfo_rate = med(ts['txn'])
    for n, label, args in LOADS:
        ld = loads[n]
        if not ld['rate']:
            continue
        errs += sum(ld['errors']) if n != 'peak' else 0
        ratio = med(ld['rate']) / tfo_rate if tfo_rate == tfo_rate and tfo_rate else float('nan')
        target = ''
        if n == 'plain':
            target = f"plain >= 0.5x TFO: {'met' if ratio >= 0.5 else 'not met'}"
        a(f"| 5 | tfo-server under load: {label}{f' (`{args}`)' if args else ''}: transactions/s "
          f"of the machine | **{fmt(med(ld['rate']))}**/s | {fmt(spread(ld['rate']), '{:.1f}')}% | "
          f"{fmt(ratio, '{:.2f}')}x TFO; p50 / p99 {fmt(med(ld['p50']), '{:.0f}')} / "
          f"{fmt(med(ld['p99']), '{:.0f}')} us; {ld['note']} | {target} |")
    return lines, errs


def flood_rows(raw):
    """Rows 6: the spoofed-SYN flood and the good clients during it."""
    lines = []
    a = lines.append
    fl = flood(raw)
    if fl['syn']:
        good = open(os.path.join(raw, 'flood_good_rate.txt')).read().strip()
        served = [s / t * 100 if t else float('nan') for s, t in zip(fl['served'], fl['started'])]
        of_offered = [s / o * 100 if o else float('nan')
                      for s, o in zip(fl['served'], fl['offered'])]
        a(f"| 6 | spoofed-SYN flood at the generator's top rate (`--spoof-flood max`, "
          f"{fmt(med(fl['syn']))} SYNs/s the port took, {fmt(med(fl['syn_drop']))} per run "
          f"refused by a full TX queue; tfo-server at `[tcp] syncookies = auto`, the "
          f"default): SYN-ACKs/s the server answered | "
          f"**{fmt(med(fl['synack']))}**/s | {fmt(spread(fl['synack']), '{:.1f}')}% | "
          f"server: SYN cookies {fmt(med(fl['syncookies']))} (the worker's "
          f"{fmt(med(fl['w_syncookies']))}), frames to the control core "
          f"{fmt(med(fl['to_control']))}, SYN drops {fmt(med(fl['drops']))}, ring_drop_full "
          f"{fmt(med(fl['ring_drop']))}, tx_drop_full {fmt(med(fl['tx_drop']))} per run; "
          f"loadgen: spoofed SYNs sent {fmt(med(fl['spoof_sent']))}, other segments to "
          f"spoofed sources {fmt(med(fl['spoof_other']))}, good clients' frames refused by "
          f"its own full TX queue {fmt(med(fl['good_tx_drop']))} per run (medians) | |")
        a(f"| 6 | during the flood: good clients served (TFO and plain, `--no-tfo 50` at "
          f"{good}/s) | **{fmt(med(served), '{:.2f}')}%** of those started "
          f"({fmt(med(of_offered), '{:.2f}')}% of those offered) | | TFO {fmt(med(fl['tfo']))} "
          f"p50 / p99 {fmt(med(fl['tfo_p50']), '{:.0f}')} / {fmt(med(fl['tfo_p99']), '{:.0f}')} us;"
          f" plain {fmt(med(fl['plain']))} p50 / p99 {fmt(med(fl['plain_p50']), '{:.0f}')} / "
          f"{fmt(med(fl['plain_p99']), '{:.0f}')} us (served of those started; "
          f"{fmt(med(fl['offered']))} offered, {fmt(med(fl['no_slot']))} starts found no "
          f"free slot: clients waiting); SYN retransmissions {fmt(med(fl['syn_rexmit']))} "
          f"(per run: {', '.join(str(x) for x in fl['syn_rexmit'])}); "
          f"errors {sum(fl['errors'])} (not counted below) | "
          f"100% served, no SYN retransmission: "
          f"{'met' if min(served) >= 100 and max(fl['syn_rexmit']) == 0 else 'not met'} |")
    return lines


def slow_path_rows(raw, hz):
    """Rows 4s, 4c, 4f: tfo-bench's slow path, its control lcores, the
    spoofed SYN."""
    lines = []
    a = lines.append
    names = {'plain': ('plain', 'plain transaction'),
             'bad cookie': ('bad-cookie', 'bad-cookie transaction'),
             'cookie request': ('cookie-req', 'cookie-request transaction')}
    sr = slow_rows(raw)
    for ck in ('offload', 'sw'):
        for load_name, (opt, what) in names.items():
            x = sr.get((ck, load_name, 'auto', 1))
            if not x:
                continue
            tgt = f"x TFO <= 2: {'met' if x['x_tfo'] <= 2 else 'not met'}" \
                if load_name == 'plain' else ''
            a(f"| 4s | tfo-bench pipeline --{opt}, checksums {ck}: TSC per {what}, worker + "
              f"control in memory | **{x['total']:.0f}** | {x['spread']} | worker "
              f"{x['worker']:.0f} + control {x['control']:.0f}; {x['x_tfo']:.2f}x the TFO "
              f"transaction; {x['to_ctl']:.2f} frames to control, {x['syncookies']:.2f} SYN "
              f"cookies per transaction | {tgt} |")
    cr = controls_rows(raw)
    for (ck, load_name, mode, n), x in sorted(cr.items()):
        one = cr.get((ck, load_name, mode, 1))
        if n == 1 or not one or load_name not in names:
            continue
        opt, what = names[load_name]
        ok = x['x1'] <= 1.1 and x['speedup'] >= 1.7
        a(f"| 4c | tfo-bench pipeline --{opt} --controls 1,{n}, checksums {ck}: control TSC "
          f"per {what} summed over {n} control lcores (in memory) | **{x['sum']:.0f}** | | "
          f"{x['x1']:.2f}x the 1 control's {one['sum']:.0f}; per control {x['per']}; control "
          f"stage {x['mtps']:.2f} M/s = TSC Hz / the busiest control's {x['busiest']:.0f} "
          f"(1 control: {one['mtps']:.2f} M/s): **{x['speedup']:.2f}x one control** "
          f"({x['per_n']:.2f} per control core) | cost not growing with N (<= 1.1x) and "
          f">= 1.7x one: {'met' if ok else 'not met'} |")
    fr = slow_rows(raw, 'tb_pipeline_flood.txt') or \
        {k: v for k, v in sr.items() if k[1] == 'spoofed SYN'}
    for ck in ('offload', 'sw'):
        for mode in ('auto', 'always', 'no'):
            x = fr.get((ck, 'spoofed SYN', mode, 1))
            if not x:
                continue
            where = ('the worker answers (nothing to a control)' if x['to_ctl'] == 0 else
                     f"{x['to_ctl']:.2f} frames to control")
            a(f"| 4f | tfo-bench pipeline --flood --syncookies {mode}, checksums {ck}: TSC per "
              f"spoofed SYN in memory | **{x['total']:.0f}** | {x['spread']} | worker "
              f"{x['worker']:.0f} + control {x['control']:.0f}; {where}; {x['syncookies']:.2f} "
              f"SYN cookies per SYN (the worker's {x['w_syncookies']:.2f}): "
              f"**{hz / x['total'] / 1e6:.1f} M spoofed SYNs/s answered per core** | "
              f">= 5 M/s per worker core: {'met' if hz / x['total'] >= 5e6 else 'not met'} |")
    return lines


def summary(raw, prev_md=None):
    """The summary table of the run in @p raw, with the previous run's
    figures beside its rows when @p prev_md is given."""
    m = machine(raw)
    hz = tsc_hz(raw)
    ts = tfo_server(raw, hz)
    k = kernel(raw)
    lines = head(m, hz) + io_rows(testpmd(raw, hz), ts, k, hz)
    a = lines.append
    L = lat_all(raw)
    if L:
        lines.extend(lat_summary_rows(raw, L, m))
    lines.extend(tfo_bench_rows(raw, hz, ts))
    loads, load_errs = load_rows(raw, ts)
    lines.extend(loads)
    lines.extend(flood_rows(raw))
    lines.extend(slow_path_rows(raw, hz))
    lines.extend(scale_summary_rows(raw))
    errs = sum(ts['errors']) + sum(k['errors']) + load_errs
    a('')
    a(f"Errors in all runs: {errs} (tfo-loadgen validated every response); tfo-server's "
      f"TCPFastOpenPassive = the loadgen's TFO count, no fallback: "
      f"{'yes' if ts['all_agree'] else 'NO'} in every run."
      + (f" Errors in the latency rows (lat): {lat_errors(L)} (see \"Latency at every load\")."
         if L else '')
      + (" The scaling rows (sc) count their own errors (see \"Scaling with cores\")."
         if os.path.exists(os.path.join(raw, 'scale_rows.txt')) else ''))
    if prev_md:
        lines = with_previous(lines, previous(prev_md))
        a = lines.append
        a('')
        a(f"The previous run's figures: {os.path.basename(prev_md)} (kept by bench.sh) "
          f"-- \"new\" where that run had no such row. Figures of a shared, noisy machine: "
          f"a change within the spreads is noise.")
    return '\n'.join(lines)
