"""Kernels timed as kseek's runner times them (worker/runner/scenario_runner.cu): per repetition,
flush the L2 (twice its size), record the start event, call the entry point, record the stop event,
synchronise the device. Host time that the flush does not cover is then timed; the interleaved
lab timing (harness.interleaved_us) lets the host run ahead and hides it. Both, interleaved, bf16,
median microseconds; also the host time of the call itself (the entry point through ctypes, timed
on the CPU) and of the flush alone (GPU), which hides that much of it.

Usage: python3 synctime.py SO... [--reps N] [--short]   (--short: s = 512 and 1024 as well)
"""
import argparse, math, os, statistics, time
import torch
import harness

ap = argparse.ArgumentParser()
ap.add_argument("so", nargs="+")
ap.add_argument("--reps", type=int, default=60)
ap.add_argument("--short", action="store_true")
a = ap.parse_args()
kerns = {os.path.basename(p)[:-3]: harness.Kernel(os.path.abspath(p)) for p in a.so}
l2 = torch.cuda.get_device_properties(0).L2_cache_size
flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
big = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device="cuda")
print(f"L2 {l2 >> 20} MiB", flush=True)
shapes = [(128, 1, 2048), (128, 1, 4096), (128, 0, 2048), (64, 1, 4096)]
if a.short:
    shapes += [(128, 0, 512), (128, 1, 512), (128, 0, 1024), (128, 1, 1024), (256, 1, 1024)]
f0 = torch.cuda.Event(enable_timing=True); f1 = torch.cuda.Event(enable_timing=True)
flush.fill_(0); torch.cuda.synchronize()  # the first fill of a new buffer maps it: not a flush
f0.record(); flush.fill_(1); f1.record(); torch.cuda.synchronize()
print(f"flush alone {f0.elapsed_time(f1) * 1e3:.1f}us", flush=True)
for d, c, s in shapes:
    b, h = 16384 // s, 2048 // d
    q, k, v = harness.random_qkv(b, s, s, h, d)
    fns = harness.kernel_calls(kerns, q, k, v, c, 1.0 / math.sqrt(d))
    for f in fns.values():
        for _ in range(3): f()
    torch.cuda.synchronize()
    sync = {n: [] for n in fns}
    host = {n: [] for n in fns}
    for rep in range(a.reps):
        for n, f in fns.items():
            flush.fill_(rep & 0xFF)
            e0 = torch.cuda.Event(enable_timing=True); e1 = torch.cuda.Event(enable_timing=True)
            e0.record()
            t0 = time.perf_counter(); f(); t1 = time.perf_counter()
            e1.record()
            torch.cuda.synchronize()
            sync[n].append(e0.elapsed_time(e1) * 1e3)
            host[n].append((t1 - t0) * 1e6)
    ahead = harness.interleaved_us(fns, a.reps, big, warmup=1)
    print(f"d={d} c={c} s={s:5d}" + "".join(
        f" | {n} sync {statistics.median(sync[n]):7.1f}us ahead {ahead[n]:7.1f}us"
        f" host {statistics.median(host[n]):5.1f}us" for n in fns), flush=True)
