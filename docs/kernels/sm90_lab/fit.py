"""Least-squares line through the SCALE rows of `harness.py --scale` output:
time = intercept + slope * b, per kernel and shape (b is the batch; with
h = 33, or 66 when causal, each CTA gets b work units at s = 512 and 2b at
s = 1024).

Usage: python3 fit.py PROBE.txt
"""
import collections, re, sys

points = collections.defaultdict(list)
for line in open(sys.argv[1]):
    if not line.startswith("SCALE"):
        continue
    shape = re.match(r"SCALE (.*?) b=\s*(\d+)", line)
    b = int(shape.group(2))
    for name, us in re.findall(r"\| (\S+)\s+([\d.]+)us", line):
        points[(shape.group(1), name)].append((b, float(us)))
print(f"{'shape':28s} {'kernel':12s} {'us per b':>11s} {'intercept us':>12s}")
for (shape, name), pts in points.items():
    n = len(pts)
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    slope = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    print(f"{shape:28s} {name:12s} {slope:11.2f} {my - slope * mx:12.1f}")
