"""The report of scripts/devtools/bench.sh in modules of one job each
(bench_report.py is the command)."""
