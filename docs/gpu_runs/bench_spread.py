#!/usr/bin/env python3
"""Summarizes several `kseek bench` text reports of the same kernel on the
same scenarios: each report's geometric-mean speedup and lowest scenario,
then the same over each scenario's median speedup across the reports, which
damps the baseline's swings from one run to the next. Speedups are computed
from the TFLOP/s columns (kernel over baseline), not the rounded SPEEDUP one.

  bench_spread.py REPORT [REPORT ...]
"""
import math
import re
import statistics
import sys

ROW = re.compile(r"^(perf-\S+)\s+PASS\s+\S+ \S+ \S+\s+\S+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x")


def speedups(path):
    out = {}
    for m in map(ROW.match, open(path, encoding="utf-8")):
        if m:
            kernel_tflops, baseline_tflops = float(m.group(3)), float(m.group(4))
            out[m.group(1)] = kernel_tflops / baseline_tflops
    return out


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


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
