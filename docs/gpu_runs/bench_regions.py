#!/usr/bin/env python3
"""Compares two `kseek bench` text reports of attention_fwd's perf set by region.

A region is (head dim, causal or not, short s <= 1024 or long). For each it
prints the geometric mean of kernel A's TFLOP/s over kernel B's (the kernels'
own ratio, free of the baseline's drift between the two benches) and each
report's geometric-mean speedup over its baseline.

  bench_regions.py REPORT_A REPORT_B
"""
import math
import re
import sys

ROW = re.compile(r"^(perf-\S+)\s+PASS\s+\S+ \S+ \S+\s+\S+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x")


def rows(path):
    """Scenario id -> [median ms, TFLOP/s, baseline TFLOP/s, speedup] of each passing row."""
    return {m.group(1): [float(x) for x in m.groups()[1:]] for m in map(ROW.match, open(path, encoding="utf-8")) if m}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main():
    a, b = rows(sys.argv[1]), rows(sys.argv[2])
    regions = {}
    for k in a:
        if k not in b:
            continue
        d = int(re.search(r"-d(\d+)-", k).group(1))
        s = int(re.search(r"-s(\d+)$", k).group(1))
        key = (d, "causal" if "-causal-" in k else "full", "s<=1024" if s <= 1024 else "s>=2048")
        regions.setdefault(key, []).append(k)
    print(f"{'region':<24} {'n':>2} {'A/B TFLOP/s':>12} {'A speedup':>10} {'B speedup':>10}")
    for key in sorted(regions):
        ks = regions[key]
        print(f"{'d%d %s %s' % key:<24} {len(ks):>2} {geomean([a[k][1] / b[k][1] for k in ks]):>12.3f} "
              f"{geomean([a[k][3] for k in ks]):>10.3f} {geomean([b[k][3] for k in ks]):>10.3f}")
    ks = [k for k in a if k in b]
    print(f"{'all':<24} {len(ks):>2} {geomean([a[k][1] / b[k][1] for k in ks]):>12.3f} "
          f"{geomean([a[k][3] for k in ks]):>10.3f} {geomean([b[k][3] for k in ks]):>10.3f}")


if __name__ == "__main__":
    main()
