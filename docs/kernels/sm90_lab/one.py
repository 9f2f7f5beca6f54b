# One timed launch of a kernel .so (after warm-up) for ncu: one.py SO D CAUSAL S [bf16|f16]
import sys, math, torch
sys.path.insert(0, ".")
from harness import Kernel
so, d, causal, s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
dt = torch.bfloat16 if (len(sys.argv) < 6 or sys.argv[5] == "bf16") else torch.float16
b, h = 16384 // s, 2048 // d
torch.manual_seed(1)
q = torch.randn(b, s, h, d, device="cuda", dtype=dt); k = torch.randn_like(q); v = torch.randn_like(q)
o = torch.empty_like(q); lse = torch.empty(b, h, s, device="cuda")
kern = Kernel(so)
args = kern.make_args(q, k, v, o, lse, 1.0 / math.sqrt(d), causal)
for _ in range(3): kern(args)
torch.cuda.synchronize()
kern(args)
torch.cuda.synchronize()
