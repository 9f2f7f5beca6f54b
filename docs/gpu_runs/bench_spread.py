#!/usr/bin/env python3
"""Summarizes several `kseek bench` text reports on the same scenarios: each
report's geometric-mean speedup and lowest scenario, then the same over each
scenario's median speedup across the reports, which damps the baseline's
swings from one run to the next. Speedups are computed from the TFLOP/s
columns (kernel over baseline), not the rounded SPEEDUP one.

Then, per report, the baseline's dips: scenarios where the baseline read
under 90% of its median TFLOP/s across all the given reports (a slow spell of
the baseline, which lifts that report's speedup), and the report's speedup
taken against that median baseline instead of its own.

  bench_spread.py REPORT [REPORT ...]
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_regions import geomean, rows  # noqa: E402

DIP = 0.9

reports = [(path, rows(path)) for path in sys.argv[1:]]
common = sorted(set.intersection(*(set(r) for _, r in reports)))
speedup = {path: {k: r[k][1] / r[k][2] for k in common} for path, r in reports}
print(f"{'report':<52} {'n':>3} {'geomean':>8} {'lowest':>7}  scenario")
for path, _ in reports:
    s = speedup[path]
    low = min(common, key=s.get)
    print(f"{path:<52} {len(common):>3} {geomean([s[k] for k in common]):>8.3f} {s[low]:>7.3f}  {low}")
median = {k: statistics.median(speedup[path][k] for path, _ in reports) for k in common}
low = min(common, key=median.get)
print(f"{'median over the reports, per scenario':<52} {len(common):>3} "
      f"{geomean(list(median.values())):>8.3f} {median[low]:>7.3f}  {low}")

base_median = {k: statistics.median(r[k][2] for _, r in reports) for k in common}
print()
print(f"{'report':<52} {'dips':>4} {'against the median baseline':>28}")
for path, r in reports:
    dips = sum(1 for k in common if r[k][2] < DIP * base_median[k])
    steady = geomean([r[k][1] / base_median[k] for k in common])
    print(f"{path:<52} {dips:>4} {steady:>28.3f}")
