"""Times kernels the way `kseek bench` does, each on its own for about a second
of back-to-back launches (L2 flush before each, as the runner and the baseline
script do), while nvidia-smi samples the SM clock and the power draw, to see
whether a kernel's own sustained run lowers the clock it is measured at.

Usage: python3 sustain.py A.so [B.so ...] [--seconds S]
Order per shape: A, cuDNN, B, ..., A, cuDNN, B, ... (twice, so drift shows).
"""
import argparse, datetime, math, os, statistics, subprocess, tempfile, time
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
from harness import Kernel

SHAPES = [(128, 0, 16384), (128, 0, 4096), (128, 0, 512), (256, 0, 16384), (64, 0, 16384),
          (128, 1, 16384), (256, 1, 512)]

def sustained(fn, seconds, flush):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    t0 = time.monotonic()
    start = datetime.datetime.now()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    while time.monotonic() - t0 < seconds:
        flush.fill_(len(times) & 0xFF)
        e0.record(); fn(); e1.record()
        torch.cuda.synchronize()
        times.append(e0.elapsed_time(e1))
    return statistics.median(times), len(times), start, datetime.datetime.now()

def samples_between(path, start, end):
    clk, pwr = [], []
    with open(path) as f:
        for line in f:
            parts = [x.strip() for x in line.split(",")]
            if len(parts) < 3:
                continue
            try:
                ts = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f")
                c, p = float(parts[1]), float(parts[2])
            except ValueError:
                continue
            if start <= ts <= end:
                clk.append(c); pwr.append(p)
    if not clk:
        return float("nan"), float("nan")
    return statistics.median(clk), statistics.median(pwr)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("so", nargs="+")
    ap.add_argument("--seconds", type=float, default=1.0)
    a = ap.parse_args()
    kerns = {os.path.basename(p): Kernel(os.path.abspath(p)) for p in a.so}
    log = tempfile.NamedTemporaryFile(suffix=".csv", delete=False).name
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw",
                            "--format=csv,noheader,nounits", "-lms", "50", "-f", log])
    time.sleep(1.0)
    flush = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")
    windows = []
    for d, causal, s in SHAPES:
        b, h = 16384 // s, 2048 // d
        torch.manual_seed(1)
        q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        o = torch.empty_like(q); lse = torch.empty(b, h, s, device="cuda")
        qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v))
        scale = 1.0 / math.sqrt(d)
        fns = {}
        for n, kern in kerns.items():
            args = kern.make_args(q, k, v, o, lse, scale, causal)
            fns[n] = (lambda kern=kern, args=args: kern(args))
        def cudnn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return F.scaled_dot_product_attention(qt, kt, vt, is_causal=bool(causal), scale=scale)
        order = list(fns.items())
        order.insert(1, ("cudnn", cudnn))
        flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
        for rnd in range(2):
            for n, fn in order:
                ms, reps, t0, t1 = sustained(fn, a.seconds, flush)
                windows.append((d, causal, s, rnd, n, ms, reps, t0, t1, flops))
        del q, k, v, o, lse, qt, kt, vt
    time.sleep(0.3)
    smi.terminate(); smi.wait()
    print(f"{'shape':22s} {'rnd':>3s} {'kernel':10s} {'us':>9s} {'TF/s':>6s} {'reps':>5s} {'MHz':>6s} {'W':>6s}")
    for d, causal, s, rnd, n, ms, reps, t0, t1, flops in windows:
        clk, pwr = samples_between(log, t0, t1)
        print(f"d={d:3d} c={causal} s={s:5d}        {rnd:3d} {n:10s} {ms*1e3:9.1f} {flops/ms/1e9:6.0f} "
              f"{reps:5d} {clk:6.0f} {pwr:6.0f}")

if __name__ == "__main__":
    main()
