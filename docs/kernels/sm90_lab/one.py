# One timed launch of a kernel for ncu: one.py SO D CAUSAL S [bf16|f16]
# With ONE_RANGE set, the last call runs between cudaProfilerStart and Stop, so
# that `ncu --profile-from-start off` sees that call's launches and no other.
# SO is a built sm90.so, or `fa3` (fa3-fwd's flash_attn_func) or `cudnn` (SDPA
# limited to cuDNN, on contiguous [b, h, s, d] copies), each called 3 times
# to warm up and once more.
import sys, math, torch
sys.path.insert(0, ".")
from harness import kernel_call
so, d, causal, s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
dt = torch.bfloat16 if (len(sys.argv) < 6 or sys.argv[5] == "bf16") else torch.float16
b, h = 16384 // s, 2048 // d
torch.manual_seed(1)
q = torch.randn(b, s, h, d, device="cuda", dtype=dt); k = torch.randn_like(q); v = torch.randn_like(q)
call = kernel_call(so, q, k, v, causal, 1.0 / math.sqrt(d))
import os
for _ in range(3): call()
torch.cuda.synchronize()
if os.environ.get("ONE_RANGE"): torch.cuda.profiler.start()
call()
torch.cuda.synchronize()
if os.environ.get("ONE_RANGE"): torch.cuda.profiler.stop()
