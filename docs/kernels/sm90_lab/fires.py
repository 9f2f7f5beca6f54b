"""How often the warp's vote on the row sums fires (VoteOnSums) on the perf set's inputs (the FA3
paper's grid, bf16, normal Q, K, V as harness.py --bench makes them), read from a build of
s20_fires.patch, whose steps count into g_lab_fires: per warp and unmasked step, kept, fired,
fired with a row still at max -inf, fired and raised the max. One call per shape.

  fires.py SO [--d D...]
"""
import argparse, ctypes, math
import torch
from harness import Kernel, random_qkv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("so")
    ap.add_argument("--d", type=int, nargs="+", default=[64, 128, 256])
    a = ap.parse_args()
    kern = Kernel(a.so)
    counts = (ctypes.c_ulonglong * 8)()
    read = kern.lib.lab_fires
    read.argtypes = [ctypes.POINTER(ctypes.c_ulonglong)]
    read.restype = ctypes.c_int
    print(f"{'shape':28s} {'steps':>9s} {'fired':>8s} {'share':>7s} {'-inf':>7s} {'raised':>7s}")
    for d in a.d:
        for causal in (0, 1):
            for s in (512, 2048, 4096, 16384):
                b, h = 16384 // s, 2048 // d
                q, k, v = random_qkv(b, s, s, h, d)
                o = torch.empty_like(q)
                lse = torch.empty(b, h, s, device="cuda")
                args = kern.make_args(q, k, v, o, lse, 1.0 / math.sqrt(d), causal)
                if read(counts) != 0:  # reset
                    raise RuntimeError("lab_fires failed")
                kern(args)
                torch.cuda.synchronize()
                if read(counts) != 0:
                    raise RuntimeError("lab_fires failed")
                base = 0 if d == 64 else 4
                kept, fired, inf, raised = (counts[base + i] for i in range(4))
                steps = kept + fired
                print(f"d={d:<3d} c={causal} s={s:<5d} b={b:<2d} h={h:<3d} {steps:9d} {fired:8d} "
                      f"{fired / max(steps, 1):7.4f} {inf:7d} {raised:7d}", flush=True)


if __name__ == "__main__":
    main()
