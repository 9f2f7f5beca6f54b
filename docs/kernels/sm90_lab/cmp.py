"""Geometric means by region of harness.py --bench logs: python3 cmp.py LOG... [--vs fa3]
(default: speedups over cuDNN; --vs fa3: over FA3, bf16 rows only). With several logs (one per d,
say) "all" is over every row, for the kernels that every log has."""
import re, sys, math, collections
vs_fa3 = "--vs" in sys.argv and sys.argv[sys.argv.index("--vs") + 1] == "fa3"
logs = [a for i, a in enumerate(sys.argv[1:], 1) if a != "--vs" and sys.argv[i - 1] != "--vs"]
rows = []
for line in (l for log in logs for l in open(log)):
    if not line.startswith("d="): continue
    head = line.split("|")[0]
    m = re.match(r"d=\s*(\d+) (\w+)\s+c=(\d) s=\s*(\d+)", head)
    found = re.findall(r"(\S+\.so)\s+([\d.]+)us\s+(\d+)TF x([\d.]+)(?: f([\d.]+))?", line)
    if vs_fa3 and not all(f for *_, f in found): continue
    xs = {n[:-3]: (float(tf), float(f if vs_fa3 else x)) for n, us, tf, x, f in found}
    rows.append((int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4)), xs))
names = [n for n in rows[0][4] if all(n in r[4] for r in rows)]
def region(r):
    d, dt, c, s, _ = r
    return f"d{d} {'causal' if c else 'full  '} {'s<=1024' if s <= 1024 else 's>=2048'}"
groups = collections.OrderedDict()
for r in rows: groups.setdefault(region(r), []).append(r)
groups["all"] = rows
print(f"{'region':24s} n " + " ".join(f"{n:>8s}" for n in names))
for g, rs in groups.items():
    gm = lambda n: math.exp(sum(math.log(r[4][n][1]) for r in rs) / len(rs))
    print(f"{g:24s} {len(rs):2d} " + " ".join(f"{gm(n):8.3f}" for n in names))
print("min  ", " ".join(f"{n}:{min(r[4][n][1] for r in rows):.3f}" for n in names))
