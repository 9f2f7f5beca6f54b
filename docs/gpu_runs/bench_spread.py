#!/usr/bin/env python3
"""Summarizes several `kseek bench` text reports of the same kernel on the
same scenarios: each report's geometric-mean speedup and lowest scenario,
then the same over each scenario's median speedup across the reports, which
damps the baseline's swings from one run to the next. Speedups are computed
from the TFLOP/s columns (kernel over baseline), not the rounded SPEEDUP one.

  bench_spread.py REPORT [REPORT ...]
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_regions import geomean, rows  # noqa: E402


def speedups(path):
    return {k: tflops / baseline_tflops for k, (_, tflops, baseline_tflops, _) in rows(path).items()}


runs = [(path, speedups(path)) for path in sys.argv[1:]]
common = sorted(set.intersection(*(set(r) for _, r in runs)))
print(f"{'report':<48} {'n':>3} {'geomean':>8} {'lowest':>7}  scenario")
for path, r in runs:
    low = min(common, key=r.get)
    print(f"{path:<48} {len(common):>3} {geomean([r[k] for k in common]):>8.3f} {r[low]:>7.3f}  {low}")
median = {k: statistics.median(r[k] for _, r in runs) for k in common}
low = min(common, key=median.get)
print(f"{'median over the reports, per scenario':<48} {len(common):>3} "
      f"{geomean(list(median.values())):>8.3f} {median[low]:>7.3f}  {low}")
