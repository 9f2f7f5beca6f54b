"""How far can any kernel get ahead of FA3 on the bf16 perf grid? Two modes.

  python3 ceiling.py run K [D...]     on the GPU, under `ncu --profile-from-start off`: every bf16
                                      scenario of the perf grid (b*s = 16384, h*d = 2048, s 512 to
                                      16384, causal and not) at head dims D (default 64 128 256),
                                      each called twice to warm up and once between
                                      cudaProfilerStart and Stop, after torch.cuda._sleep's
                                      spin kernel, which marks where a scenario's launches begin.
                                      K is fa3 (fa3-fwd's flash_attn_func) or a built sm90.so.
  python3 ceiling.py table FA3.csv SM90.csv
                                      here: reads the two runs' `ncu --csv --page raw` logs and
                                      prints, per scenario, each kernel's time, SM clock, tensor
                                      pipe activity and its share of the tensor peak at its own
                                      clock (useful FLOPs / (4096 FLOP a cycle x 132 SMs x clock x
                                      time)), and FA3's time over the bound of a kernel that ran
                                      at 100% of that peak at FA3's clock, at the highest share
                                      either kernel reached anywhere on the grid (boundbest), and
                                      at the highest either reached at that head dim (boundd).

ncu options of the run: see ceiling.sh. Useful FLOPs are 4 b h s^2 d, halved when causal (the
masked halves of diagonal blocks are not counted, so the bound is if anything generous).
"""
import csv, math, statistics, sys

GRID_S = (512, 1024, 2048, 4096, 8192, 16384)
SMS, FLOP_PER_CYCLE = 132, 4096


def scenarios(dims):
    return [(d, c, s) for d in dims for c in (0, 1) for s in GRID_S]


def run(kernel, dims):
    import os
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from harness import kernel_call
    for d, c, s in scenarios(dims):
        b, h = 16384 // s, 2048 // d
        torch.manual_seed(1)
        q = torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16)
        k, v = torch.randn_like(q), torch.randn_like(q)
        call = kernel_call(kernel, q, k, v, c, 1.0 / math.sqrt(d))
        for _ in range(2):
            call()
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        torch.cuda._sleep(1000)
        call()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        print(f"d={d} c={c} s={s}", flush=True)


def read_log(path):
    """The profiled launches of one run, grouped per scenario at each spin kernel: a list of
    lists of (time in us, clock in GHz, tensor pipe active %)."""
    with open(path) as f:
        rows = list(csv.reader(l for l in f if l.startswith('"')))
    head = rows[0]
    col = {name: head.index(name) for name in head}
    units = next(r for r in rows[1:] if not r[col["ID"]].isdigit())
    scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6,
             "cycle/second": 1e-9, "hz": 1e-9, "cycle/usecond": 1e-3, "mhz": 1e-3,
             "cycle/nsecond": 1.0, "ghz": 1.0, "%": 1.0}
    metrics = ("gpu__time_duration.sum", "sm__cycles_elapsed.avg.per_second",
               "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed")
    factor = [scale[units[col[m]].lower()] for m in metrics]
    groups = []
    for r in rows[1:]:
        if not r[col["ID"]].isdigit():
            continue
        if "spin" in r[col["Kernel Name"]]:
            groups.append([])
        elif groups:
            groups[-1].append(tuple(float(r[col[m]].replace(",", "")) * f for m, f in zip(metrics, factor)))
    return groups


def summarize(groups, dims):
    """Per scenario: total time (us), time-weighted clock (GHz), time-weighted tensor %."""
    out = {}
    for key, launches in zip(scenarios(dims), groups):
        if not launches:  # a marker with no launch after it: the run did not finish that scenario
            continue
        t = sum(l[0] for l in launches)
        out[key] = (t, sum(l[0] * l[1] for l in launches) / t, sum(l[0] * l[2] for l in launches) / t)
    return out


def table(fa3_path, sm90_path, dims=(64, 128, 256)):
    runs = []
    for path in (fa3_path, sm90_path):
        groups = read_log(path)
        if len(groups) != len(scenarios(dims)):
            print(f"{path}: {len(groups)} of {len(scenarios(dims))} scenarios profiled; the table "
                  "has those both runs have (a run cut short by its timeout loses its last)")
        runs.append(summarize(groups, dims))
    fa3, sm90 = runs
    share = {}
    for name, r in (("fa3", fa3), ("sm90", sm90)):
        for (d, c, s), (t, clk, _) in r.items():
            flops = 4 * (16384 // s) * (2048 // d) * s * s * d / (2 if c else 1)
            share[name, d, c, s] = flops / (FLOP_PER_CYCLE * SMS * clk * 1e9 * t * 1e-6)
    best = max(share.values())
    best_d = {d: max(v for k, v in share.items() if k[1] == d) for d in dims if any(k[1] == d for k in share)}
    print(f"{'scenario':18} {'fa3 us':>8} {'GHz':>5} {'tens%':>5} {'peak%':>5} | {'sm90 us':>8} {'GHz':>5} "
          f"{'tens%':>5} {'peak%':>5} | {'sm90/fa3':>8} {'bound100':>8} {'boundbest':>9} {'boundd':>6}")
    cols = {"now": [], "b100": [], "bbest": [], "bd": []}
    regions = {}
    for d, c, s in [k for k in scenarios(dims) if k in fa3 and k in sm90]:
        ft, fclk, ften = fa3[d, c, s]
        st, sclk, sten = sm90[d, c, s]
        fs, ss = share["fa3", d, c, s], share["sm90", d, c, s]
        now, b100, bbest, bd = ft / st, 1 / fs, best / fs, best_d[d] / fs
        for k, v in (("now", now), ("b100", b100), ("bbest", bbest), ("bd", bd)):
            cols[k].append(v)
            regions.setdefault((d, c, s >= 2048, k), []).append(v)
        print(f"d{d:<3} {'causal' if c else 'full  '} s{s:<6} {ft:8.1f} {fclk:5.2f} {ften:5.1f} {100 * fs:5.1f} | "
              f"{st:8.1f} {sclk:5.2f} {sten:5.1f} {100 * ss:5.1f} | {now:8.3f} {b100:8.3f} {bbest:9.3f} {bd:6.3f}")
    gm = lambda xs: math.exp(statistics.fmean(math.log(x) for x in xs))
    print(f"highest share of the peak on the grid: {100 * best:.1f}%; at each d: " +
          ", ".join(f"d{d} {100 * v:.1f}%" for d, v in best_d.items()))
    for d in dims:
        for c in (0, 1):
            for long in (False, True):
                if (d, c, long, "now") not in regions:
                    continue
                g = [gm(regions[d, c, long, k]) for k in ("now", "b100", "bbest", "bd")]
                print(f"d{d:<3} {'causal' if c else 'full  '} {'s>=2048' if long else 's<=1024'}  "
                      f"sm90/fa3 {g[0]:.3f}  bound100 {g[1]:.3f}  boundbest {g[2]:.3f}  boundd {g[3]:.3f}")
    print(f"all {len(cols['now'])}  sm90/fa3 {gm(cols['now']):.3f}  bound100 {gm(cols['b100']):.3f}  "
          f"boundbest {gm(cols['bbest']):.3f}  boundd {gm(cols['bd']):.3f}")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "run":
        run(sys.argv[2], [int(x) for x in sys.argv[3:]] or [64, 128, 256])
    elif len(sys.argv) == 4 and sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
