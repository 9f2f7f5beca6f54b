#!/usr/bin/env python3
"""Per-region speedups of one `kseek bench` text report with several baselines
(`--baseline fa3,cudnn`: a NAME TFLOP/S column per baseline).

A region is (dtype, head dim, causal or not, s <= 1024 or longer). For each
baseline it prints the region's geometric mean of the kernel's TFLOP/s over
the baseline's (computed from the TFLOP/s columns, not the rounded VS ones),
the count of scenarios that baseline timed, then overall figures, the lowest
scenario and every scenario under 0.90x.

  bench_baselines.py REPORT
"""
import math
import re
import sys


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def parse(path):
    """(baseline names, {scenario id: {"tflops": x, NAME: baseline TFLOP/s or None}})."""
    lines = open(path, encoding="utf-8").read().splitlines()
    header = next(line for line in lines if line.startswith("SCENARIO"))
    cols = re.split(r"\s{2,}", header.strip())
    names = [c[: -len(" TFLOP/S")].lower() for c in cols if c.endswith(" TFLOP/S") and c != "TFLOP/S"]
    rows = {}
    for line in lines:
        if not line.startswith("perf-") or " PASS " not in line:
            continue
        cells = re.split(r"\s{2,}", line.strip())
        row = dict(zip(cols, cells))
        figures = {"tflops": float(row["TFLOP/S"])}
        for n in names:
            v = row.get(f"{n.upper()} TFLOP/S", "-")
            figures[n] = float(v) if v not in ("-", "") else None
        rows[cells[0]] = figures
    return names, rows


def region(sid):
    dtype = "bf16" if "-bf16-" in sid else "f16"
    d = int(re.search(r"-d(\d+)-", sid).group(1))
    s = int(re.search(r"-s(\d+)$", sid).group(1))
    return f"{dtype} d{d:<3} {'causal' if '-causal-' in sid else 'full  '} {'s<=1024' if s <= 1024 else 's>=2048'}"


def main():
    names, rows = parse(sys.argv[1])
    regions = {}
    for sid in rows:
        regions.setdefault(region(sid), []).append(sid)
    print(f"{'region':<26}" + "".join(f" {'vs ' + n:>9} {'n':>3}" for n in names))
    for key in sorted(regions) + ["all"]:
        ids = list(rows) if key == "all" else regions[key]
        line = f"{key:<26}"
        for n in names:
            r = [rows[i]["tflops"] / rows[i][n] for i in ids if rows[i][n]]
            line += f" {geomean(r):>9.3f} {len(r):>3}" if r else f" {'-':>9} {0:>3}"
        print(line)
    for n in names:
        speedups = {i: rows[i]["tflops"] / rows[i][n] for i in rows if rows[i][n]}
        if not speedups:
            continue
        low = min(speedups, key=speedups.get)
        under = sorted((v, i) for i, v in speedups.items() if v < 0.90)
        print(f"{n}: geomean {geomean(list(speedups.values())):.3f} over {len(speedups)}, lowest {speedups[low]:.3f} ({low}); "
              f"{len(under)} under 0.90" + "".join(f"\n  {v:.3f} {i}" for v, i in under))


if __name__ == "__main__":
    main()
