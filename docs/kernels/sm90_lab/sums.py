import csv, sys, io, re
txt = open(sys.argv[1]).read()
rows = list(csv.reader(io.StringIO(txt)))
hi = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
head = rows[hi]; data = [r for r in rows[hi + 1:] if len(r) == len(head)]
ci = {h: i for i, h in enumerate(head)}
num = lambda x: float(x.replace(",", "")) if x.strip() not in ("", "-") else 0.0
S = ci["Warp Stall Sampling (All Samples)"]
tot = sum(num(r[S]) for r in data)
cuts = [int(x) for x in sys.argv[2:]]
b = [0] + cuts + [len(data)]
for a, c in zip(b, b[1:]):
    s = sum(num(r[S]) for r in data[a:c])
    reasons = {}
    for r in data[a:c]:
        for h in head:
            if h.startswith("stall_") and "Not Issued" not in h:
                reasons[h[6:]] = reasons.get(h[6:], 0) + num(r[ci[h]])
    top = sorted(reasons.items(), key=lambda kv: -kv[1])[:4]
    first = re.sub(r"\s+", " ", data[a][ci["Source"]])[:40]
    print(f"[{a:5d},{c:5d}) {s/tot*100:5.1f}%  {first:40s} " + " ".join(f"{k}:{v/tot*100:.1f}" for k, v in top))
