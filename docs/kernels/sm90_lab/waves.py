"""What a fractional last wave costs: perf-grid shapes (16k tokens) at the grid's head count and
at a head count that makes the work an exact number of rounds of 132 CTAs, each kernel and FA3
interleaved, bf16, the L2 flushed before every call. TFLOP/s per shape; a kernel that handles the
last wave well reads about the same at both head counts.

Usage: python3 waves.py SO... [--reps N]
"""
import harness

kerns, reps, flush = harness.lab_setup()
# (d, causal, s, heads...): b = 16384 / s. Causal units are pairs of 128-row tiles; h = 33 makes
# b * h * (s / 256) a multiple of 132 where b * (s / 256) is a multiple of 4.
grid = [(128, 1, 2048, (16, 33)), (128, 1, 4096, (16, 33)), (128, 1, 8192, (16, 33)),
        (128, 0, 4096, (16, 33)), (64, 1, 2048, (32, 33)), (64, 1, 8192, (32, 33)),
        (256, 1, 4096, (8, 33))]
for d, c, s, hs in grid:
    for h in hs:
        b = 16384 // s
        us = harness.time_with_fa3(kerns, b, s, h, d, c, reps, flush)
        flops = 4.0 * b * h * s * s * d / (2 if c else 1)
        print(f"d={d:3d} c={c} s={s:5d} h={h:2d} b={b:2d}" +
              "".join(f" | {n} {t:7.1f}us {flops / t / 1e6:4.0f}TF" for n, t in us.items()), flush=True)
