"""Checks attention kernels (.so, the harness's ABI) on scores that rise from one key block to
the next in the order the kernel walks them (highest keys first), so that a kept row max goes
stale by 2^8 and more, up to overflow: key j's scores fall with j, over a range of R log2 units
across the keys. d = 128 and 96 (the 128-key kernels with the stale max) and, from the
eighteenth session on, 256 (the 64- and 80-key ones) and 64 (the d = 64 kernels, which lab
variants give a stale max too). Prints one line per case and a CHECK line per kernel, as
harness.py --check.

  rising.py SO...
"""
import math, sys
import torch
from harness import Kernel, run_checked


def case(kern, b, sq, sk, h, d, causal, dt, rise):
    torch.manual_seed(0)
    c_max = rise * math.log(2) / math.sqrt(d)  # score range in log2 units across the keys
    q = (torch.ones(b, sq, h, d, device="cuda") + 0.1 * torch.randn(b, sq, h, d, device="cuda")).to(dt)
    c = torch.linspace(c_max, 0, sk, device="cuda")[None, :, None, None]
    k = (c + 0.5 * torch.randn(b, sk, h, d, device="cuda")).to(dt)
    v = torch.randn(b, sk, h, d, device="cuda", dtype=dt)
    ok, line = run_checked(kern, q, k, v, causal)
    print(f"{'ok ' if ok else 'BAD'} rise={rise} b={b} sq={sq} sk={sk} h={h} d={d} c={causal} "
          f"{str(dt)[6:]} {line}")
    return ok


def main():
    for path in sys.argv[1:]:
        kern = Kernel(path)
        good = total = 0
        for dt in (torch.bfloat16, torch.float16):
            for rise in (20, 60, 200, 400):
                for (b, sq, sk) in ((2, 1024, 1024), (1, 300, 1000), (1, 200, 50), (1, 2000, 2000)):
                    for d in (128, 96, 256, 64):
                        for causal in (0, 1):
                            total += 1
                            good += case(kern, b, sq, sk, 4, d, causal, dt, rise)
        print(f"{path}: CHECK: {good}/{total} passed")


if __name__ == "__main__":
    main()
