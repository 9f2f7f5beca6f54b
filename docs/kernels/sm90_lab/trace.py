"""Consumer timeline of one CTA from a lab build with the s16 trace (sm90_tr):
python3 trace.py SO D CAUSAL S. Runs the kernel three times and once more, then
reads the clock64 stamps of CTA 0's two consumers (warp 0 of each), one row per
steady-state step, and prints the median cycles of each phase, per consumer:
  poll+turn  before the turn to turn taken (K/V polls, then the turn barrier)
  issue      turn taken to products issued and the turn passed
  S wait     to the wait for S done
  softmax    to just before the wait for P V (before ip, s16 run 8: the whole softmax;
             with s16_trace.patch on ip's file: the max and row 0's exponentials)
  PV wait    to P V done
  to next    P V done to the next step's start (rescale, packing P, loop; on ip's file
             also row 1's exponentials)
and the step period (one step's start to the next one's) with the share of it
that an ideal tensor pipe would need for the two consumers' products."""
import ctypes, statistics, sys
import one  # runs the kernel (three calls, then one)
lib = ctypes.CDLL(sys.argv[1])
steps_n, stamps = 1024, 6
buf = (ctypes.c_ulonglong * (2 * steps_n * stamps))()
n = (ctypes.c_uint * 2)()
assert lib.kseek_trace_copy(buf, ctypes.sizeof(buf), n) == 0
d = int(sys.argv[2])
names = ["poll+turn", "issue", "S wait", "softmax", "PV wait", "to next"]
for c in range(2):
    rows = [[buf[(c * steps_n + i) * stamps + k] for k in range(stamps)] for i in range(n[c])]
    phases = [[] for _ in names]
    period = []
    for a, b in zip(rows, rows[1:]):
        if b[0] < a[5] or b[0] - a[5] > 20000:  # a tile boundary: epilogue and the next tile's start
            continue
        for k in range(5):
            phases[k].append(a[k + 1] - a[k])
        phases[5].append(b[0] - a[5])
        period.append(b[0] - a[0])
    med = [statistics.median(p) for p in phases]
    print(f"consumer {c}: {n[c]} steps, {len(period)} within tiles; median cycles: " +
          ", ".join(f"{nm} {m:.0f}" for nm, m in zip(names, med)) +
          f"; period {statistics.median(period):.0f}")
# The tensor work of one step of both consumers: S and P V, 2 * 64 * 128 * d FLOP each, for each
# of two consumers, at the H200's dense bf16 rate of about 4096 FLOP per cycle per SM.
print(f"ideal tensor cycles per step for both consumers at 4096 FLOP/cycle: "
      f"{2 * 2 * 2 * 64 * 128 * d / 4096:.0f}")
