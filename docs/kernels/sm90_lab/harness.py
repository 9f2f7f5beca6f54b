"""Checks sm90.so against an fp32 reference and times it against cuDNN SDPA
and, with --fa3, FlashAttention-3's forward (the fa3-fwd wheel, bf16 only).

Usage: python3 harness.py SO... [--check] [--probe] [--scale] [--shapes] [--bench] [--fa3] [--only-d D]
       [--only-dtype bf16|fp16] [--reps N]
"""
import argparse, ctypes, math, os, random, statistics, sys
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

MAX_RANK, MAX_T, MAX_S = 8, 16, 16

class KTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * MAX_RANK), ("stride", ctypes.c_int64 * MAX_RANK)]

class KScalar(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 32), ("value", ctypes.c_double)]

class KArgs(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_int32), ("num_tensors", ctypes.c_int32),
                ("tensors", KTensor * MAX_T), ("num_scalars", ctypes.c_int32),
                ("scalars", KScalar * MAX_S)]

DT = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2}

class Kernel:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.fn = self.lib.attention_fwd
        self.fn.argtypes = [ctypes.POINTER(KArgs), ctypes.c_void_p]
        self.fn.restype = ctypes.c_int

    def make_args(self, q, k, v, o, lse, scale, causal):
        a = KArgs()
        a.abi_version = 1
        a.num_tensors = 5
        for i, t in enumerate((q, k, v, o, lse)):
            kt = a.tensors[i]
            kt.data = t.data_ptr(); kt.dtype = DT[t.dtype]; kt.rank = t.dim()
            for j in range(t.dim()):
                kt.shape[j] = t.shape[j]; kt.stride[j] = t.stride(j)
        a.num_scalars = 2
        a.scalars[0].name = b"scale"; a.scalars[0].value = scale
        a.scalars[1].name = b"causal"; a.scalars[1].value = float(causal)
        return a

    def __call__(self, args):
        rc = self.fn(ctypes.byref(args), ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
        if rc != 0:
            raise RuntimeError(f"attention_fwd returned {rc}")

def reference(q, k, v, scale, causal):
    b, sq, h, d = q.shape
    sk, hkv = k.shape[1], k.shape[2]
    g = h // hkv
    qf = q.float().permute(0, 2, 1, 3)
    kf = k.float().permute(0, 2, 1, 3).repeat_interleave(g, dim=1)
    vf = v.float().permute(0, 2, 1, 3).repeat_interleave(g, dim=1)
    s = torch.matmul(qf, kf.transpose(-1, -2)) * scale
    if causal:
        i = torch.arange(sq, device=q.device)[:, None]
        j = torch.arange(sk, device=q.device)[None, :]
        s = s.masked_fill(j > i + sk - sq, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)  # [b,h,sq]
    p = torch.exp(s - lse[..., None])
    p = torch.nan_to_num(p, nan=0.0)
    o = torch.matmul(p, vf).permute(0, 2, 1, 3)
    return o, lse

def run_checked(kern, q, k, v, causal):
    """One call of the kernel on q, k, v ([b, s, h, d]) against the fp32 reference: whether
    it passes (no NaN in O, relative L2 error under 2e-2, LSE infinite exactly where the
    reference's is and within 1e-2 elsewhere), and the figures as one line of text."""
    b, sq, h, d = q.shape
    scale = 1.0 / math.sqrt(d)
    o = torch.full((b, sq, h, d), float("nan"), device="cuda", dtype=q.dtype)
    lse = torch.full((b, h, sq), float("nan"), device="cuda", dtype=torch.float32)
    kern(kern.make_args(q, k, v, o, lse, scale, causal))
    torch.cuda.synchronize()
    ro, rl = reference(q, k, v, scale, causal)
    of = o.float()
    nan_o = torch.isnan(of).sum().item()
    err = ((of - ro).norm() / ro.norm().clamp_min(1e-6)).item()
    fin = torch.isfinite(rl)
    lse_ok = torch.equal(fin, torch.isfinite(lse)) and not torch.isnan(lse).any().item()
    lerr = (lse[fin] - rl[fin]).abs().max().item() if fin.any() else 0.0
    ok = nan_o == 0 and err < 2e-2 and lse_ok and lerr < 1e-2
    return ok, f"relerr={err:.2e} lse_err={lerr:.2e} nan={nan_o} lse_inf_ok={lse_ok}"


def check(kern, seed=0):
    torch.manual_seed(seed)
    cases = []
    for dt in (torch.bfloat16, torch.float16):
        for d in (64, 96, 128, 192, 256):
            cases += [(2, 300, 300, 4, 4, d, c, dt) for c in (0, 1)]
            cases += [(1, 1, 777, 8, 2, d, c, dt) for c in (0, 1)]       # decode, GQA
            cases += [(1, 200, 50, 4, 1, d, c, dt) for c in (0, 1)]      # s_q > s_k, MQA
            cases += [(3, 129, 1000, 6, 3, d, c, dt) for c in (0, 1)]
        cases += [(1, 1, 1, 2, 2, 64, c, dt) for c in (0, 1)]
        cases += [(2, 1024, 1024, 16, 16, 128, c, dt) for c in (0, 1)]
        cases += [(1, 2048, 2048, 8, 8, 256, c, dt) for c in (0, 1)]
        cases += [(4, 512, 512, 32, 32, 64, c, dt) for c in (0, 1)]
        cases += [(1, 64, 4096, 4, 4, 128, c, dt) for c in (0, 1)]
        cases += [(1, 17, 3, 4, 2, 96, c, dt) for c in (0, 1)]
        # many tiles per persistent CTA, tile boundaries mid-pipeline
        cases += [(8, 700, 900, 16, 4, d, c, dt) for d in (64, 128, 256) for c in (0, 1)]
        cases += [(2, 1500, 300, 8, 8, d, 1, dt) for d in (64, 128, 192)]   # empty tiles in the stream
        cases += [(1, 3000, 3000, 4, 4, 128, c, dt) for c in (0, 1)]
        # more work units than the 132 CTAs with a remainder: whole rounds,
        # then the last wave split into pieces of tiles
        cases += [(2, 1000, 1000, 70, 70, 128, c, dt) for c in (0, 1)]
        cases += [(2, 1500, 1500, 40, 20, 64, c, dt) for c in (0, 1)]
        cases += [(2, 3000, 3000, 16, 16, 64, 1, dt)]
        # causal d = 64 at s = 2048 (the two-consumer kernel): a last wave split, and
        # fewer units than CTAs (the tail launch alone)
        cases += [(3, 2048, 2048, 20, 10, 64, 1, dt), (1, 2048, 2048, 10, 10, 64, 1, dt)]
        cases += [(1, 2000, 2000, 40, 40, 256, c, dt) for c in (0, 1)]
        # a last wave of long full tiles after whole rounds: 24 tiles of 32 blocks
        # (d = 128) and 120 of 50 (d = 256, 80-key blocks until the thirty-fourth
        # session, 63 of 64 keys since) left for the tail launch
        cases += [(1, 4096, 4096, 9, 9, 128, 0, dt), (1, 4000, 4000, 12, 12, 256, 0, dt)]
        # d = 256's last wave of tiles of 128 and 200 blocks (lab t128, t192): 112
        # tiles after four rounds, 36 after two
        cases += [(1, 8192, 8192, 10, 10, 256, 0, dt), (1, 12800, 12800, 3, 3, 256, 0, dt)]
    bad = 0
    for (b, sq, sk, h, hkv, d, causal, dt) in cases:
        q = torch.randn(b, sq, h, d, device="cuda", dtype=dt)
        k = torch.randn(b, sk, hkv, d, device="cuda", dtype=dt)
        v = torch.randn(b, sk, hkv, d, device="cuda", dtype=dt)
        ok, line = run_checked(kern, q, k, v, causal)
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} b={b} sq={sq} sk={sk} h={h}/{hkv} d={d} c={causal} "
              f"{str(dt)[6:]} {line}")
    # strided (non-16B) layout goes through the simple path
    for dt in (torch.bfloat16,):
        base = torch.randn(2, 100, 4, 72, device="cuda", dtype=dt)
        q = base[..., :68]; k = torch.randn(2, 90, 2, 68, device="cuda", dtype=dt)
        v = torch.randn(2, 90, 2, 68, device="cuda", dtype=dt)
        for causal in (0, 1):
            o = torch.full((2, 100, 4, 68), float("nan"), device="cuda", dtype=dt)
            lse = torch.full((2, 4, 100), float("nan"), device="cuda")
            kern(kern.make_args(q, k, v, o, lse, 0.1, causal)); torch.cuda.synchronize()
            ro, rl = reference(q, k, v, 0.1, causal)
            err = ((o.float() - ro).norm() / ro.norm()).item()
            fin = torch.isfinite(rl)
            lerr = (lse[fin] - rl[fin]).abs().max().item()
            ok = err < 2e-2 and lerr < 1e-2 and not torch.isnan(o).any().item()
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} simple-path d=68 c={causal} relerr={err:.2e} lse_err={lerr:.2e}")
    print(f"CHECK: {len(cases) + 2 - bad}/{len(cases) + 2} passed")
    return bad

def interleaved_us(fns, reps, flush, warmup):
    """Median microseconds of each function: `warmup` untimed calls each,
    then `reps` rounds calling every function once, the L2 flushed before
    every call, each round in its own shuffled order (seeded: the same for
    every shape). In a fixed order, on short shapes, each place later in the
    round read about 1% faster (H100, d = 256 causal s = 512, 61-lab.tgz);
    rotating the order, which keeps each function's neighbours, left the same
    bias (64-lab.tgz)."""
    for _ in range(warmup):
        for f in fns.values():
            f()
    torch.cuda.synchronize()
    times = {n: [] for n in fns}
    order = list(fns.items())
    shuffle = random.Random(1)
    for _ in range(reps):
        shuffle.shuffle(order)
        for n, f in order:
            flush.zero_()
            e0 = torch.cuda.Event(enable_timing=True); e1 = torch.cuda.Event(enable_timing=True)
            e0.record(); f(); e1.record()
            times[n].append((e0, e1))
    torch.cuda.synchronize()
    return {n: statistics.median(a.elapsed_time(bb) for a, bb in t) * 1e3 for n, t in times.items()}

def cudnn_call(q, k, v, causal, scale):
    """cuDNN SDPA on [b, s, h, d] inputs, returning O as [b, h, s, d]. cuDNN
    gets its own best layout, contiguous [b, h, s, d], as in kseek's baseline
    (worker/baselines/attention_fwd_baseline.py); strided views of
    [b, s, h, d] ran it 4-10% slower on long inputs."""
    qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v))
    def cudnn():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return F.scaled_dot_product_attention(qt, kt, vt, is_causal=bool(causal), scale=scale)
    return cudnn

def fa3_fwd(q, k, v, causal, scale):
    """A call of FlashAttention-3's forward (fa3-fwd, installed) on [b, s, h, d] tensors, its own
    layout."""
    import fa3_fwd_interface
    return lambda: fa3_fwd_interface.flash_attn_func(q, k, v, softmax_scale=scale, causal=bool(causal))

def fa3_call(q, k, v, causal, scale):
    """fa3_fwd where the lab runs FA3 (USE_FA3) and it has a kernel for the dtype (bf16 only);
    None otherwise."""
    if not USE_FA3 or q.dtype != torch.bfloat16:
        return None
    return fa3_fwd(q, k, v, causal, scale)

USE_FA3 = False

def kernel_call(name, q, k, v, causal, scale):
    """One call of NAME on [b, s, h, d] tensors, for the one-launch tools (one.py, ceiling.py):
    `fa3` (fa3-fwd, installed), `cudnn` (cudnn_call) or the path of a built sm90.so, whose O
    and LSE are allocated here and kept alive by the call."""
    if name == "fa3":
        return fa3_fwd(q, k, v, causal, scale)
    if name == "cudnn":
        return cudnn_call(q, k, v, causal, scale)
    b, s, h, _ = q.shape
    o, lse = torch.empty_like(q), torch.empty(b, h, s, device="cuda")
    kern = Kernel(name)
    args = kern.make_args(q, k, v, o, lse, scale, causal)
    def call():
        kern(args)
        return o, lse
    return call

def lab_setup():
    """The command line of the small lab scripts (SO... [--reps N]), FA3 on: the kernels by name
    (file name less .so), the repetitions, and a buffer to flush the L2 with."""
    global USE_FA3
    ap = argparse.ArgumentParser()
    ap.add_argument("so", nargs="+")
    ap.add_argument("--reps", type=int, default=10)
    a = ap.parse_args()
    USE_FA3 = True
    kerns = {os.path.basename(p)[:-3]: Kernel(os.path.abspath(p)) for p in a.so}
    return kerns, a.reps, torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device="cuda")

def random_qkv(b, s_q, s_k, h, d, h_kv=None, dtype=torch.bfloat16):
    """Q [b, s_q, h, d] and K, V [b, s_k, h_kv (default h), d], normal, seed 1."""
    torch.manual_seed(1)
    h_kv = h if h_kv is None else h_kv
    return (torch.randn(b, s_q, h, d, device="cuda", dtype=dtype),
            torch.randn(b, s_k, h_kv, d, device="cuda", dtype=dtype),
            torch.randn(b, s_k, h_kv, d, device="cuda", dtype=dtype))

def kernel_calls(kerns, q, k, v, causal, scale):
    """A call of each kernel on [b, s, h, d] inputs, by name, each with an O and LSE of its own."""
    b, s_q, h = q.shape[0], q.shape[1], q.shape[2]
    calls = {}
    for n, kern in kerns.items():
        o = torch.empty_like(q); lse = torch.empty(b, h, s_q, device="cuda")
        args = kern.make_args(q, k, v, o, lse, scale, causal)
        calls[n] = (lambda kern=kern, args=args: kern(args))
    return calls

def time_with_fa3(kerns, b, s, h, d, causal, reps, flush):
    """Median microseconds of each kernel (an O and LSE of its own) and FA3 on one bf16
    [b, s, h, d] shape with s keys, interleaved, 3 warm-up calls each, the L2 flushed before
    every call (waves.py, tails.py)."""
    q, k, v = random_qkv(b, s, s, h, d)
    scale = 1.0 / math.sqrt(d)
    fns = kernel_calls(kerns, q, k, v, causal, scale)
    fns["fa3"] = fa3_call(q, k, v, causal, scale)
    return interleaved_us(fns, reps, flush, warmup=3)

def time_kernels(kerns, b, s_q, s_k, h, h_kv, causal, reps, flush, d=128):
    """Median microseconds of each kernel on one bf16 shape, the kernels
    interleaved, the L2 flushed before every call."""
    q, k, v = random_qkv(b, s_q, s_k, h, d, h_kv)
    o = torch.empty_like(q); lse = torch.empty(b, h, s_q, device="cuda")
    argss = {n: kern.make_args(q, k, v, o, lse, 1.0 / math.sqrt(d), causal)
             for n, kern in kerns.items()}
    fns = {n: (lambda n=n: kerns[n](argss[n])) for n in kerns}
    return interleaved_us(fns, reps, flush, warmup=1)

def print_times(label, us):
    print(label + "".join(f" | {n} {t:7.1f}us" for n, t in us.items()), flush=True)

def probe(kerns, reps):
    """Per-tile cost at short lengths: d = 128 at s = 512 and 1024, each with
    every head's own K/V (MHA) and with one K/V head for all (MQA), which keeps
    K/V in L2 across tile boundaries."""
    flush = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device="cuda")
    for causal in (0, 1):
        for s in (512, 1024):
            for hkv in (16, 1):
                us = time_kernels(kerns, 16384 // s, s, s, 16, hkv, causal, reps, flush)
                print_times(f"PROBE d=128 c={causal} s={s:5d} h_kv={hkv:2d}", us)

def scale(kerns, reps):
    """Time against work per CTA at a fixed length: d = 128, h = 33 (66 when
    causal, whose units pair two tiles), so that b * h * tiles-per-head is b
    times 132 work units; the slope is the cost of one unit per CTA, the
    intercept what a launch costs whatever its size (docs/kernels/sm90_lab/fit.py)."""
    flush = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device="cuda")
    for causal, s, h in ((0, 512, 33), (0, 1024, 33), (1, 512, 66)):
        for b in (1, 2, 4, 8, 16):
            if s == 1024 and b == 16:
                continue
            us = time_kernels(kerns, b, s, s, h, h, causal, reps, flush)
            print_times(f"SCALE d=128 c={causal} s={s:5d} h={h} b={b:2d}", us)

def shapes(kerns, reps):
    """Kernels and cuDNN interleaved on shapes chosen to separate a CTA's
    per-tile cost from what a launch costs whatever its size, and to show what
    a fractional last wave costs: h = 33 makes the work units an exact
    multiple of the 132 CTAs; h = 15, 16, 17 at b = 4 leave 14.5, 15.5 and
    16.5 units per CTA. The last shapes have fewer query tiles than CTAs and
    long keys (s_q != s_k), where splitting the keys over CTAs pays most."""
    flush = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device="cuda")
    grid = [(128, 0, 512, 33, b) for b in (1, 2, 4, 8, 16)] + [(128, 0, 512, 16, 32)]
    grid += [(128, 0, 4096, 33, b) for b in (1, 2)] + [(128, 0, 4096, h, 4) for h in (15, 16, 17)]
    grid += [(256, 0, 512, 33, b) for b in (1, 2, 4, 8)] + [(256, 0, 512, 8, 32)]
    grid += [(64, 1, 1024, 66, b) for b in (1, 2, 4)] + [(64, 1, 1024, 32, 16)]
    grid = [(d, c, s, s, h, b) for d, c, s, h, b in grid]
    grid += [(128, c, 128, 32768, 16, 1) for c in (0, 1)] + [(128, 0, 512, 16384, 8, 1)]
    grid += [(64, c, 192, 32768, 32, 1) for c in (0, 1)]
    for d, causal, s_q, s, h, b in grid:
        q, k, v = random_qkv(b, s_q, s, h, d)
        o = torch.empty_like(q); lse = torch.empty(b, h, s_q, device="cuda")
        scale = 1.0 / math.sqrt(d)
        fns = {n: (lambda kern=kern, a=kern.make_args(q, k, v, o, lse, scale, causal): kern(a))
               for n, kern in kerns.items()}
        fns["cudnn"] = cudnn_call(q, k, v, causal, scale)
        if (fa3 := fa3_call(q, k, v, causal, scale)) is not None:
            fns["fa3"] = fa3
        us = interleaved_us(fns, reps, flush, warmup=3)
        sizes = f"s={s:5d}" if s_q == s else f"s_q={s_q} s_k={s}"
        print_times(f"SHAPE d={d:3d} c={causal} {sizes} h={h:2d} b={b:2d}", us)

def bench(kerns, reps, only_d=None, only_dtype=None):
    """The FA3 paper's grid (16k tokens, hidden 2048), each kernel, cuDNN and
    (bf16, --fa3) FA3 interleaved. A row gives each kernel's time, TFLOP/s,
    speedup over cuDNN (xR) and over FA3 (fR)."""
    flush = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device="cuda")
    rows = []
    names = list(kerns.keys())
    geo = {n: [] for n in names}
    geo_fa3 = {n: [] for n in names}
    for d in (64, 128, 256):
        if only_d and d != only_d:
            continue
        for dt in (torch.bfloat16, torch.float16):
            if only_dtype and str(dt)[6:] != {"bf16": "bfloat16", "fp16": "float16"}[only_dtype]:
                continue
            for causal in (0, 1):
                for s in (512, 1024, 2048, 4096, 8192, 16384):
                    b, h = 16384 // s, 2048 // d
                    q, k, v = random_qkv(b, s, s, h, d, dtype=dt)
                    scale = 1.0 / math.sqrt(d)
                    outs = {}
                    argss = {}
                    for n, kern in kerns.items():
                        o = torch.empty_like(q); lse = torch.empty(b, h, s, device="cuda")
                        argss[n] = kern.make_args(q, k, v, o, lse, scale, causal)
                        outs[n] = o
                    cudnn = cudnn_call(q, k, v, causal, scale)
                    fns = {n: (lambda n=n: kerns[n](argss[n])) for n in names}
                    fns["cudnn"] = cudnn
                    if (fa3 := fa3_call(q, k, v, causal, scale)) is not None:
                        fns["fa3"] = fa3
                    med = {n: us / 1e3 for n, us in interleaved_us(fns, reps, flush, warmup=3).items()}
                    ref = cudnn().transpose(1, 2).float()
                    flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
                    line = f"d={d:3d} {str(dt)[6:]:8s} c={causal} s={s:5d} cudnn {med['cudnn']*1e3:8.1f}us {flops/med['cudnn']/1e9:5.0f}TF"
                    if "fa3" in med:
                        line += f" fa3 {med['fa3']*1e3:8.1f}us {flops/med['fa3']/1e9:5.0f}TF"
                    for n in names:
                        err = ((outs[n].float() - ref).norm() / ref.norm()).item()
                        sp = med['cudnn'] / med[n]
                        geo[n].append(sp)
                        line += f" | {n} {med[n]*1e3:8.1f}us {flops/med[n]/1e9:5.0f}TF x{sp:.3f}"
                        if "fa3" in med:
                            geo_fa3[n].append(med['fa3'] / med[n])
                            line += f" f{med['fa3'] / med[n]:.3f}"
                        line += f" err={err:.1e}"
                    print(line, flush=True)
                    rows.append(line)
                    del q, k, v, outs, argss, fns, cudnn, ref
    for n in names:
        g = math.exp(sum(math.log(x) for x in geo[n]) / len(geo[n]))
        print(f"GEOMEAN {n}: {g:.3f}x cudnn over {len(geo[n])} scenarios; min {min(geo[n]):.3f}")
        if geo_fa3[n]:
            g = math.exp(sum(math.log(x) for x in geo_fa3[n]) / len(geo_fa3[n]))
            print(f"GEOMEAN {n}: {g:.3f}x fa3 over {len(geo_fa3[n])} scenarios; min {min(geo_fa3[n]):.3f}")

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("so", nargs="+")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--only-d", type=int, default=None)
    ap.add_argument("--probe", action="store_true")
    ap.add_argument("--scale", action="store_true")
    ap.add_argument("--shapes", action="store_true")
    ap.add_argument("--only-dtype", choices=("bf16", "fp16"), default=None)
    ap.add_argument("--fa3", action="store_true", help="time FA3 (fa3-fwd) beside cuDNN, bf16 only")
    ap.add_argument("--reps", type=int, default=10)
    a = ap.parse_args()
    USE_FA3 = a.fa3
    kerns = {os.path.basename(p): Kernel(os.path.abspath(p)) for p in a.so}
    print(torch.cuda.get_device_name(), torch.__version__, torch.backends.cudnn.version())
    bad = 0
    if a.check:
        for n, k in kerns.items():
            print("== check", n)
            bad += check(k)
    if a.probe:
        probe(kerns, a.reps)
    if a.scale:
        scale(kerns, a.reps)
    if a.shapes:
        shapes(kerns, a.reps)
    if a.bench:
        bench(kerns, a.reps, a.only_d, a.only_dtype)
    sys.exit(1 if bad else 0)
