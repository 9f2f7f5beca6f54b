#!/usr/bin/env python3
"""Compares two `kseek bench` text reports of the same kernel and scenarios.

Prints, per scenario, the kernel's and the baseline's TFLOP/s in each run and
their run-to-run difference (|a - b| / mean), then the median and maximum
difference and each run's geometric means.

  bench_spread.py REPORT_A REPORT_B
"""
import math
import re
import statistics
import sys

ROW = re.compile(r"^(\S+)\s+PASS\s+\S+ \S+ \S+\s+\S+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x")


def rows(path):
    out = {}
    for line in open(path, encoding="utf-8"):
        m = ROW.match(line)
        if m:
            out[m.group(1)] = [float(x) for x in m.groups()[1:]]
    return out


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main():
    a, b = rows(sys.argv[1]), rows(sys.argv[2])
    ids = [k for k in a if k in b]
    kernel_diff, base_diff = [], []
    print(f"{'scenario':<30} {'kernel A':>9} {'kernel B':>9} {'diff':>7} {'base A':>8} {'base B':>8} {'diff':>7}")
    for k in ids:
        ka, kb, ba, bb = a[k][1], b[k][1], a[k][2], b[k][2]
        kd = abs(ka - kb) / ((ka + kb) / 2) * 100
        bd = abs(ba - bb) / ((ba + bb) / 2) * 100
        kernel_diff.append(kd)
        base_diff.append(bd)
        print(f"{k:<30} {ka:>9.1f} {kb:>9.1f} {kd:>6.2f}% {ba:>8.1f} {bb:>8.1f} {bd:>6.2f}%")
    print(f"\n{len(ids)} scenarios in both reports")
    print(f"kernel TFLOP/s run-to-run difference: median {statistics.median(kernel_diff):.2f}%, max {max(kernel_diff):.2f}%")
    print(f"baseline TFLOP/s run-to-run difference: median {statistics.median(base_diff):.2f}%, max {max(base_diff):.2f}%")
    for name, r in (("A", a), ("B", b)):
        print(f"run {name}: geomean kernel {geomean([r[k][1] for k in ids]):.1f} TFLOP/s, "
              f"baseline {geomean([r[k][2] for k in ids]):.1f} TFLOP/s, speedup {geomean([r[k][3] for k in ids]):.3f}x")


if __name__ == "__main__":
    main()
