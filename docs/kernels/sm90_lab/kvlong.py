"""Causal against full attention on shapes where the causal mask removes almost nothing: few
query rows against many keys (s_q << s_k, the mask aligned bottom-right), so every query tile
sees nearly all keys either way. FA3 runs causal inputs with 128-key blocks and a longest-first
scheduler, and full ones with 176-key blocks (d = 128); sm90.cu runs both with the same loop. The
ratio causal/full time of each kernel then shows what its causal configuration itself costs or
saves per key block. bf16, interleaved, the L2 flushed before every call.

Usage: python3 kvlong.py SO... [--reps N]
"""
import math
import harness

kerns, reps, flush = harness.lab_setup()
# (d, s_q, s_k, h, b): 1056 query tiles of 128 rows (8 rounds of 132 CTAs) at d = 128.
grid = [(128, 1024, 16384, 33, 4), (128, 2048, 8192, 33, 2), (128, 4096, 4096, 33, 1),
        (64, 1536, 16384, 33, 4), (64, 3072, 8192, 33, 2)]
for d, s_q, s_k, h, b in grid:
    q, k, v = harness.random_qkv(b, s_q, s_k, h, d)
    scale = 1.0 / math.sqrt(d)
    fns = {}
    for c in (0, 1):
        for n, call in harness.kernel_calls(kerns, q, k, v, c, scale).items():
            fns[f"{n}/c{c}"] = call
        fns[f"fa3/c{c}"] = harness.fa3_call(q, k, v, c, scale)
    us = harness.interleaved_us(fns, reps, flush, warmup=3)
    # Key blocks of 128 each kernel computes: full sees all, causal drops the triangle.
    full_flops = 4.0 * b * h * s_q * s_k * d
    causal_flops = full_flops - 2.0 * b * h * s_q * s_q * d
    line = f"d={d:3d} s_q={s_q:5d} s_k={s_k:5d} h={h} b={b} causal/full work {causal_flops / full_flops:.3f}"
    for n in list(kerns) + ["fa3"]:
        t0, t1 = us[f"{n}/c0"], us[f"{n}/c1"]
        line += (f" | {n} full {t0:7.1f}us {full_flops / t0 / 1e6:4.0f}TF causal {t1:7.1f}us"
                 f" {causal_flops / t1 / 1e6:4.0f}TF c/f {t1 / t0:.3f}")
    print(line, flush=True)
