"""FA4 (flash-attn-4's CuTe DSL forward) on the H200, and one question about the
cuDNN baseline, in one process (run from this folder, PYTHONPATH at a wheel
site stamped as kseek-worker stamps it, so that the baseline program's
add_wheel_sites reads the site's .pth files as the worker's run would):

  python3 fa4_check.py

1. Versions, and whether flash_attn.cute.interface imports.
2. FA4 against an fp32 reference (harness.reference) on small bf16 shapes,
   d = 64/128/256, causal and not; the first call's wall time includes its
   JIT compilation.
3. FA4 and cuDNN interleaved on a few perf shapes (lab protocol: every call
   queued behind its L2 flush, no synchronisation in between).
4. cuDNN's bottom-right frontend path on cor-bf16-d64-causal-gqa8-h16x2-q113-k799,
   timed as the lab does (eager calls queued) and as the baseline program does
   (graph replay, flush, synchronise each repetition), and eager under the
   baseline program's per-repetition protocol."""
import importlib.metadata as md, math, os, sys, time, traceback
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import interleaved_us, cudnn_call, reference
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../worker/baselines"))
import attention_fwd_baseline as bl

bl.add_wheel_sites()
print(torch.cuda.get_device_name(), torch.__version__, torch.backends.cudnn.version())
for name in ("flash-attn-4", "nvidia-cutlass-dsl", "nvidia-cutlass-dsl-libs-base", "nvidia-cutlass-dsl-libs-core",
             "nvidia-cutlass-dsl-libs-cu13", "apache-tvm-ffi", "torch-c-dlpack-ext", "quack-kernels",
             "nvidia-cudnn-frontend"):
    try:
        print(f"{name} {md.version(name)}")
    except md.PackageNotFoundError:
        print(f"{name} not installed")
fa4 = None
try:
    import flash_attn.cute.interface as fa4
    print("import flash_attn.cute.interface: ok")
except Exception:
    print("import flash_attn.cute.interface: FAILED")
    traceback.print_exc()


def fa4_call(q, k, v, causal, scale):
    return lambda: bl.output_of(fa4.flash_attn_func(q, k, v, softmax_scale=scale, causal=bool(causal)))


if fa4 is not None:
    torch.manual_seed(0)
    for d in (64, 128, 256):
        for causal in (0, 1):
            try:
                q = torch.randn(2, 1000, 4, d, device="cuda", dtype=torch.bfloat16)
                k, v = torch.randn_like(q), torch.randn_like(q)
                t0 = time.time()
                o = fa4_call(q, k, v, causal, 1 / math.sqrt(d))()
                torch.cuda.synchronize()
                first = time.time() - t0
                ro, _ = reference(q, k, v, 1 / math.sqrt(d), causal)
                err = ((o.float() - ro).norm() / ro.norm()).item()
                print(f"FA4 CHECK d={d} c={causal} relerr={err:.2e} {'ok' if err < 2e-2 else 'BAD'} first call {first:.1f} s")
            except Exception as e:
                print(f"FA4 CHECK d={d} c={causal} FAILED {type(e).__name__}: {str(e)[:400]}")
    flush = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")
    for d, causal, s in ((64, 1, 4096), (128, 0, 8192), (128, 1, 8192), (256, 1, 8192)):
        try:
            b, h = 16384 // s, 2048 // d
            q = torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16)
            k, v = torch.randn_like(q), torch.randn_like(q)
            scale = 1 / math.sqrt(d)
            us = interleaved_us({"fa4": fa4_call(q, k, v, causal, scale), "cudnn": cudnn_call(q, k, v, causal, scale)},
                                10, flush, warmup=3)
            flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
            print(f"FA4 TIME d={d} c={causal} s={s} fa4 {us['fa4']:.1f}us {flops / us['fa4'] / 1e6:.0f}TF "
                  f"cudnn {us['cudnn']:.1f}us {flops / us['cudnn'] / 1e6:.0f}TF")
        except Exception as e:
            print(f"FA4 TIME d={d} c={causal} s={s} FAILED {type(e).__name__}: {str(e)[:400]}")

# 4. The bottom-right frontend path, three ways.
try:
    version, factory = bl.make_backend("cudnn")
    sc = bl.scenario_fields({"b": 2, "s_q": 113, "s_k": 799, "h": 16, "h_kv": 2, "d": 64, "causal": 1,
                             "dtype": "bf16"})
    q = torch.randn(2, 16, 113, 64, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(2, 2, 799, 64, device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k)
    run, _ = factory(q, k, v, sc)
    flush = torch.empty(bl.flush_bytes(torch.cuda.get_device_properties(0).L2_cache_size), dtype=torch.uint8,
                        device="cuda")
    lab = interleaved_us({"eager": run}, 50, flush, warmup=3)["eager"]
    graph, out = bl.capture(torch, run)
    bl.check_replay(torch, graph, out, run)
    import statistics
    g = statistics.median(bl.time_repetitions(torch, flush, graph.replay, 1.0)) * 1e3
    e = statistics.median(bl.time_repetitions(torch, flush, run, 1.0)) * 1e3
    print(f"FRONTEND gqa8 q113 k799: lab-queued eager {lab:.1f}us, graph replay {g:.1f}us, "
          f"eager per-repetition {e:.1f}us ({version})")
except Exception:
    print("FRONTEND check FAILED")
    traceback.print_exc()
