"""Where d = 256 cuts tiles in a tail launch: shapes with few, long tiles (one batch, a few heads,
long inputs), whose last round of tiles leaves most CTAs idle, each kernel and FA3 interleaved,
bf16, the L2 flushed before every call. TFLOP/s per shape and each kernel over FA3.

Usage: python3 tails.py SO... [--reps N]
"""
import math
import harness

kerns, reps, flush = harness.lab_setup()
d = 256
# (causal, s, h), b = 1: 128-row tiles per head are s / 128, so s = 8192, h = 10 is 640 tiles
# (4.85 rounds of 132 CTAs), s = 12800, h = 3 is 300 (2.27), s = 16384, h = 4 is 512 (3.88),
# s = 32768, h = 2 is 512 tiles of 512 key blocks each.
grid = [(0, 8192, 10), (0, 12800, 3), (0, 16384, 4), (0, 32768, 2), (1, 16384, 4), (1, 32768, 2)]
ratios = {n: [] for n in kerns}
for c, s, h in grid:
    q, k, v = harness.random_qkv(1, s, s, h, d)
    scale = 1.0 / math.sqrt(d)
    fns = harness.kernel_calls(kerns, q, k, v, c, scale)
    fns["fa3"] = harness.fa3_call(q, k, v, c, scale)
    us = harness.interleaved_us(fns, reps, flush, warmup=3)
    flops = 4.0 * h * s * s * d / (2 if c else 1)
    for n in kerns:
        ratios[n].append(us["fa3"] / us[n])
    print(f"d={d} c={c} s={s:5d} h={h:2d} b=1 fa3 {us['fa3']:8.1f}us {flops / us['fa3'] / 1e6:4.0f}TF" +
          "".join(f" | {n} {us[n]:8.1f}us {flops / us[n] / 1e6:4.0f}TF f{us['fa3'] / us[n]:.3f}"
                  for n in kerns), flush=True)
for n, r in ratios.items():
    print(f"GEOMEAN {n}: {math.exp(sum(map(math.log, r)) / len(r)):.3f}x fa3 over {len(r)} shapes;"
          f" min {min(r):.3f}")
