"""Times perf scenarios with kseek's baseline program(s) and sets the medians
beside the lab harness's (a `harness.py --bench --fa3` log of the same call):

  python3 baseline_check.py LAB_LOG PROGRAM[=LABEL]... [--backends fa3,cudnn] [--max-seconds 1]
  (LAB_LOG `-`: no lab figures; --shapes d:causal:s,... instead of SCENARIOS)

Each PROGRAM is run as kseek-worker runs it (`PROGRAM --request FILE`), once
per backend, on the bf16 perf scenarios listed in SCENARIOS (d, causal, s;
b = 16384 / s, h = 2048 / d). The table gives each program's median and the
lab's, in microseconds, and program / lab."""
import json, math, re, subprocess, sys, tempfile

SCENARIOS = [(64, 0, 512), (64, 1, 512), (64, 1, 1024), (128, 0, 512), (128, 1, 1024),
             (128, 1, 8192), (256, 0, 512), (256, 1, 16384)]


def lab_times(path):
    out = {}
    if path == "-":
        return out
    for line in open(path):
        m = re.match(r"d=\s*(\d+) bfloat16 c=(\d) s=\s*(\d+) cudnn\s+([\d.]+)us\s+\d+TF fa3\s+([\d.]+)us", line)
        if m:
            d, c, s = int(m.group(1)), int(m.group(2)), int(m.group(3))
            out[(d, c, s)] = {"cudnn": float(m.group(4)), "fa3": float(m.group(5))}
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
    backends = opts.get("backends", "fa3,cudnn").split(",")
    max_seconds = float(opts.get("max-seconds", "1"))
    shapes = SCENARIOS
    if "shapes" in opts:  # d:causal:s,...
        shapes = [tuple(int(x) for x in one.split(":")) for one in opts["shapes"].split(",")]
    lab = lab_times(args[0])
    programs = [(p.split("=")[0], p.split("=")[-1]) for p in args[1:]]
    scenarios = [{"id": f"perf-bf16-d{d}-{'causal' if c else 'full'}-s{s}", "b": 16384 // s, "s_q": s,
                  "s_k": s, "h": 2048 // d, "h_kv": 2048 // d, "d": d, "dtype": "bf16", "causal": c,
                  "scale": 1.0 / math.sqrt(d)} for d, c, s in shapes]
    got = {}
    for prog, label in programs:
        for backend in backends:
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump({"backend": backend, "max_seconds": max_seconds, "scenarios": scenarios}, f)
            ran = subprocess.run([sys.executable, prog, "--request", f.name], capture_output=True, text=True)
            try:
                answer = json.loads(ran.stdout)
            except json.JSONDecodeError:
                print(f"{label} {backend}: no JSON (exit {ran.returncode}): {ran.stderr[-800:]}")
                continue
            print(f"{label} {backend}: {answer.get('version')}")
            for r in answer["results"]:
                got[(label, backend, r["id"])] = r
    print(f"{'scenario':30s} {'backend':7s} {'lab us':>8s} " +
          " ".join(f"{label + ' us':>12s} {label + '/lab':>10s}" for _, label in programs))
    for (d, c, s), sc in zip(shapes, scenarios):
        for backend in backends:
            ref = lab.get((d, c, s), {}).get(backend)
            line = f"{sc['id']:30s} {backend:7s} {ref if ref else float('nan'):8.1f} "
            for _, label in programs:
                r = got.get((label, backend, sc["id"]), {})
                if r.get("ok"):
                    us = r["median_ms"] * 1e3
                    line += f"{us:12.1f} {us / ref if ref else float('nan'):10.3f} "
                else:
                    line += f"{'-':>12s} {r.get('error', 'missing')[:60]} "
            print(line)


if __name__ == "__main__":
    main()
