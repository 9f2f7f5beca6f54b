"""Shapes of few, long tiles, off the perf grid, each kernel and FA3 interleaved, bf16, the L2
flushed before every call. TFLOP/s per shape and each kernel over FA3.

  --grid tails  (default) d = 256 full inputs at b = 1 with a few heads, whose last round of
                tiles leaves most CTAs idle: where the tail launch cuts tiles;
  --grid few    causal d = 64, 128 and 256 inputs of 8192-16384 keys with one or two heads;
  --grid short  causal inputs short of the pool's threshold with few (batch, head) pairs, whose
                round-robin pairs leave a last round on few CTAs (and two perf-grid controls);
  --grid tiny   the same under kMinShortPoolKeys (1024 keys), where the pool's launch cost was
                not timed (and a perf-grid control);
  --grid pool   causal d = 128 and 256 inputs of 2048-8191 keys with few heads: where the
                causal pool (MinPoolKeys) takes over from the round-robin pairs.

Usage: python3 tails.py SO... [--grid tails|pool|few|short|tiny] [--reps N]
"""
import math
import sys
import harness

grid_name = "tails"
if "--grid" in sys.argv:
    i = sys.argv.index("--grid")
    grid_name = sys.argv[i + 1]
    del sys.argv[i:i + 2]
# (d, causal, s, h, b). tails: 128-row tiles per head are s / 128, so s = 8192, h = 10 is 640
# tiles (4.85 rounds of 132 CTAs), s = 12800, h = 3 is 300 (2.27), s = 16384, h = 4 is 512
# (3.88), s = 32768, h = 2 is 512 tiles of 512 key blocks each. pool: causal units are pairs of
# tiles, s / 256 a head: s = 4096, h = 5 is 80 units on 132 CTAs, h = 16 is 256 (1.94 rounds),
# s = 6144, h = 3 is 72, s = 7680, h = 2 is 60, b = 2 s = 3072 h = 7 is 168 (1.27).
GRIDS = {
    "tails": [(256, 0, 8192, 10, 1), (256, 0, 12800, 3, 1), (256, 0, 16384, 4, 1),
              (256, 0, 32768, 2, 1), (256, 1, 16384, 4, 1), (256, 1, 32768, 2, 1)],
    "pool": [(d, 1, s, h, b) for d in (128, 256)
             for s, h, b in ((2048, 16, 1), (3072, 7, 2), (4096, 5, 1), (4096, 16, 1),
                             (6144, 3, 1), (7680, 2, 1))],
    # few: causal inputs past the pool's threshold with few heads, where the pool's estimate
    # (SchedulePool) and the tail path's (TailMakespan) differ most: s = 16384, h = 1 at d = 128
    # is 64 units of a 128-block and a 1-block tile on 132 CTAs.
    "few": [(64, 1, 8192, 2, 1), (64, 1, 16384, 1, 1), (128, 1, 8192, 2, 1),
            (128, 1, 12288, 2, 1), (128, 1, 16384, 1, 1), (256, 1, 12288, 2, 1),
            (256, 1, 16384, 1, 1)],
    # short: the planner estimates round-robin at 1.26-1.71 of the pool's time on these
    # (pool_est.cu); the perf grid's d = 128 and 256 causal s = 1024 at 1.00-1.01.
    "short": [(64, 1, 1536, 12, 2), (128, 1, 1024, 20, 2), (128, 1, 1536, 12, 2),
              (256, 1, 1024, 36, 1), (256, 1, 2048, 20, 1), (256, 1, 3072, 7, 2),
              (128, 1, 1024, 16, 16), (256, 1, 1024, 8, 16)],
    # tiny: few pairs at 256-768 keys (d = 64 causal at these lengths runs on two consumers).
    "tiny": [(64, 1, 512, 12, 2), (64, 1, 768, 20, 2), (128, 1, 256, 8, 2), (128, 1, 512, 20, 2),
             (128, 1, 768, 12, 2), (256, 1, 512, 36, 1), (256, 1, 768, 20, 1),
             (128, 1, 512, 16, 32)],
}
if grid_name not in GRIDS:
    sys.exit(f"tails.py: --grid is one of {', '.join(GRIDS)}, not {grid_name!r}")
kerns, reps, flush = harness.lab_setup()
ratios = {n: [] for n in kerns}
for d, c, s, h, b in GRIDS[grid_name]:
    us = harness.time_with_fa3(kerns, b, s, h, d, c, reps, flush)
    flops = 4.0 * b * h * s * s * d / (2 if c else 1)
    for n in kerns:
        ratios[n].append(us["fa3"] / us[n])
    print(f"d={d} c={c} s={s:5d} h={h:2d} b={b} fa3 {us['fa3']:8.1f}us {flops / us['fa3'] / 1e6:4.0f}TF" +
          "".join(f" | {n} {us[n]:8.1f}us {flops / us[n] / 1e6:4.0f}TF f{us['fa3'] / us[n]:.3f}"
                  for n in kerns), flush=True)
for n, r in ratios.items():
    print(f"GEOMEAN {n}: {math.exp(sum(map(math.log, r)) / len(r)):.3f}x fa3 over {len(r)} shapes;"
          f" min {min(r):.3f}")
