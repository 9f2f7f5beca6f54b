"""Tile timeline of CTA 0 from a lab build with a tile trace (s26_tt.patch, s27_tt.patch):
python3 tt.py SO D CAUSAL S. Runs the kernel three times and once more (one.py), then reads
the clock64 stamps of the last launch: per tile, consumer warp 0 of each consumer warpgroup at
  0 tile begin, 1 Q ready, 2 first K ready, 3 turn taken, 4 first S issued, 5 first S done,
  6 first softmax done, 7 steady blocks done, 8 last V ready and turn taken, 9 last P V done,
  10 O staging free (barrier), 11 O written and its store issued, 12 store read (O over V:
  o_free arrived), 13 tile end (LSE stored);
and the producer at 0 tile begin, 1 its Q issued, 2 before and 3 after its wait for o_free
(then the tile's first V goes out). s27_tt.patch, on the file where the producer stores O
staged over the V ring (s26 po): 11 is O written and fenced, 12 o_full arrived (own O buffer:
the store issued); the producer's 3 is after its wait for o_full and the store's issue, and 4
after the store's read (then the tile's first V goes out). Prints, per consumer, the median cycles of each phase over
the tiles after the first, the tile period, and the tensor cycles a tile needs at 4096 FLOP a
cycle (both consumers), and the producer's o_free wait. Builds from s40_tt.patch also stamp
every CTA's walk (consumer 0, %globaltimer, first launch and tail launch): then the spread of
the CTAs' starts, ends and tile counts, to tell a slow CTA 0 from a slow GPU."""
import ctypes, statistics, sys
import one  # runs the kernel (three calls, then one)
lib = ctypes.CDLL(sys.argv[1])
d, causal, s = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
tiles_n, stamps = 64, 14
buf = (ctypes.c_ulonglong * (3 * tiles_n * stamps))()
n = (ctypes.c_uint * 3)()
assert lib.kseek_tt_copy(buf, ctypes.sizeof(buf), n) == 0
at = lambda who, t, k: buf[(who * tiles_n + t) * stamps + k]
names = ["Q", "K", "turn", "issue S1", "S1 wait", "softmax1", "steady", "last V+turn",
         "last PV", "O free", "O write", "store read", "LSE", "to next"]
bn = 128 if d <= 128 else (64 if causal else 80)
print(f"d={d} causal={causal} s={s}: tiles traced {n[0]}, {n[1]} (consumers), {n[2]} (producer)")
for c in range(2):
    rows = [[at(c, t, k) for k in range(stamps)] for t in range(n[c])]
    ph = [[] for _ in names]
    period = []
    for a, b in zip(rows[1:], rows[2:]):
        for k in range(13):
            ph[k].append(a[k + 1] - a[k])
        ph[13].append(b[0] - a[13])
        period.append(b[0] - a[0])
    if not period:
        continue
    print(f"consumer {c}: " + ", ".join(f"{nm} {statistics.median(p):.0f}" for nm, p in zip(names, ph)) +
          f"; tile period {statistics.median(period):.0f}")
    t0 = rows[0][0]
    for t in range(min(3, len(rows))):
        print(f"  tile {t}: " + " ".join(f"{rows[t][k] - t0}" for k in range(stamps)))
prod = [[at(2, t, k) for k in range(4)] for t in range(n[2])]
if len(prod) > 2:
    t0 = at(0, 0, 0)
    read = [at(2, t, 4) - p[3] for t, p in enumerate(prod) if t > 0 and at(2, t, 4)]
    print("producer: Q issue " + f"{statistics.median([p[1] - p[0] for p in prod[1:]]):.0f}" +
          ", o_free (s27: o_full) wait " +
          f"{statistics.median([p[3] - p[2] for p in prod[1:]]):.0f}" +
          (f", store read {statistics.median(read):.0f}" if read else ""))
    for t in range(1, min(4, len(prod))):
        print(f"  tile {t}: begin {prod[t][0] - t0}, o_free wait {prod[t][2] - t0} -> {prod[t][3] - t0}")
blocks = -(-s // bn)
print(f"blocks a full tile {blocks}; tensor cycles a block (both consumers) "
      f"{2 * 2 * 2 * 64 * bn * d / 4096:.0f}, a full tile {blocks * 2 * 2 * 2 * 64 * bn * d / 4096:.0f}")

if hasattr(lib, "kseek_cta_copy"):
    ns = (ctypes.c_ulonglong * (2 * 132 * 2))()
    tl = (ctypes.c_uint * (2 * 132))()
    assert lib.kseek_cta_copy(ns, tl) == 0
    for launch in range(2):
        rows = [(ns[(launch * 132 + c) * 2], ns[(launch * 132 + c) * 2 + 1], tl[launch * 132 + c])
                for c in range(132)]
        rows = [r for r in rows if r[1] > r[0] > 0]
        if not rows:
            continue
        t0 = min(r[0] for r in rows)
        dur = sorted((r[1] - r[0]) / 1000 for r in rows)
        ends = sorted((r[1] - t0) / 1000 for r in rows)
        tiles = sorted(r[2] for r in rows)
        print(f"{'tail' if launch else 'first'} launch, {len(rows)} CTAs: start spread "
              f"{(max(r[0] for r in rows) - t0) / 1000:.1f} us; walk us min/median/max "
              f"{dur[0]:.1f}/{dur[len(dur) // 2]:.1f}/{dur[-1]:.1f}; end min/median/max "
              f"{ends[0]:.1f}/{ends[len(ends) // 2]:.1f}/{ends[-1]:.1f}; tiles min/max "
              f"{tiles[0]}/{tiles[-1]}; CTA 0 walk {(rows[0][1] - rows[0][0]) / 1000:.1f} us")
