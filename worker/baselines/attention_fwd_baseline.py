#!/usr/bin/env python3
"""Times what a user would pick instead of a candidate attention_fwd kernel.

Run by kseek-worker on the GPU node (PyTorch is what users would use, so this
one piece is Python) as `attention_fwd_baseline.py --request FILE`, FILE being:

  {"backend": "cudnn" | "fa2" | "fa3" | "fa4",
   "max_seconds": 2.0,
   "scenarios": [{"id": "perf-...", "b": 8, "s_q": 2048, "s_k": 2048, "h": 16,
                  "h_kv": 16, "d": 128, "dtype": "bf16", "causal": 1, "scale": 0.088}, ...]}

and prints one JSON document on stdout:

  {"baseline": "cudnn", "version": "...", "gpu": "...", "driver": "...",
   "results": [{"id": ..., "ok": true, "median_ms": ..., "min_ms": ...,
                "max_ms": ..., "reps": ..., "error": ""}, ...]}

Progress goes to stderr as "progress I/N ID". Each backend gets its inputs in
its own best layout (SDPA: [b, h, s, d]; FlashAttention 3/4: [b, s, h, d]),
made before timing. Timing matches kseek-runner: CUDA events around the call
only, the device synchronised before the end event is read, warm-up (the
same repetitions, untimed, for a quarter of the cap up to 0.25 s), L2
flushed by writing a buffer larger than L2 before each repetition, and
repetitions until the standard error is under 0.5% of the median or the time
cap. Clocks are left as they are. A scenario a backend cannot run (e.g. a
bottom-right causal mask with s_q != s_k in SDPA's cuDNN path) is reported with
ok=false and the reason, never silently skipped.
"""
import json
import math
import statistics
import sys
import time


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--request", required=True, help="JSON request file (see the module docstring)")
    with open(parser.parse_args().request) as f:
        request = json.load(f)
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    backend = request["backend"]
    max_seconds = float(request.get("max_seconds", 2.0))
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    driver = ""
    try:
        v = torch._C._cuda_getDriverVersion()
        driver = f"{v // 1000}.{(v % 1000) // 10}"
    except Exception:  # not every build exposes it; the worker knows the driver too
        pass
    version = f"torch {torch.__version__}"
    call_factory = None

    if backend in ("cudnn", "fa2"):
        kind = SDPBackend.CUDNN_ATTENTION if backend == "cudnn" else SDPBackend.FLASH_ATTENTION
        if backend == "cudnn":
            version += f" cudnn {torch.backends.cudnn.version()}"

        def call_factory(q, k, v, causal, s_q, s_k, h, h_kv):
            if causal and s_q != s_k:
                raise ValueError("SDPA's is_causal aligns top-left; bottom-right causal with s_q != s_k is not offered")
            gqa = h != h_kv

            def run():
                with sdpa_kernel([kind]):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
            return run, "bhsd"
    elif backend == "fa3":
        import flash_attn_interface  # FlashAttention-3 (hopper/ build)
        version += f" flash_attn_interface {getattr(flash_attn_interface, '__version__', 'unknown')}"

        def call_factory(q, k, v, causal, *_):
            return (lambda: flash_attn_interface.flash_attn_func(q, k, v, causal=causal)), "bshd"
    elif backend == "fa4":
        import flash_attn.cute.interface as fa4  # the flash-attn-4 package (CuTe DSL)
        import importlib.metadata
        version += f" flash-attn-4 {importlib.metadata.version('flash-attn-4')}"

        def call_factory(q, k, v, causal, *_):
            return (lambda: fa4.flash_attn_func(q, k, v, causal=causal)), "bshd"
    else:
        raise SystemExit(f"unknown backend {backend!r} (cudnn, fa2, fa3, fa4)")

    # Larger than any GPU's L2 (H200: 60 MB).
    flush = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device=dev)
    results = []
    scenarios = request["scenarios"]
    for i, sc in enumerate(scenarios):
        log(f"progress {i + 1}/{len(scenarios)} {sc['id']}")
        res = {"id": sc["id"], "ok": False, "error": ""}
        try:
            dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[sc["dtype"]]
            b, s_q, s_k, h, h_kv, d = (int(sc[x]) for x in ("b", "s_q", "s_k", "h", "h_kv", "d"))
            causal = bool(sc["causal"])
            gen = torch.Generator(device=dev).manual_seed(1234 + i)

            def make(s, heads, layout):
                shape = (b, heads, s, d) if layout == "bhsd" else (b, s, heads, d)
                return torch.randn(shape, generator=gen, device=dev, dtype=dtype)

            _, layout = call_factory(None, None, None, causal, s_q, s_k, h, h_kv)
            q, k, v = make(s_q, h, layout), make(s_k, h_kv, layout), make(s_k, h_kv, layout)
            run, _ = call_factory(q, k, v, causal, s_q, s_k, h, h_kv)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

            def repetition(rep):
                flush.fill_(rep & 0xFF)
                start.record()
                run()
                end.record()
                torch.cuda.synchronize()
                return start.elapsed_time(end)

            # Warm-up: the same repetitions, untimed, for at least 3 and for
            # kseek-runner's WarmupSeconds (a quarter of the cap, at most
            # 0.25 s), so that both sides are timed once the clock has
            # settled under their own load.
            warm_seconds = min(0.25, max_seconds / 4)
            t0 = time.monotonic()
            rep = 0
            while rep < 3 or time.monotonic() - t0 < warm_seconds:
                repetition(rep)
                rep += 1
            times = []
            t0 = time.monotonic()
            while True:
                times.append(repetition(len(times)))
                if len(times) >= 10:
                    med = statistics.median(times)
                    sem = statistics.stdev(times) / math.sqrt(len(times))
                    if sem < 0.005 * med or time.monotonic() - t0 > max_seconds:
                        break
                if len(times) >= 1000:
                    break
            res.update(ok=True, median_ms=statistics.median(times), min_ms=min(times), max_ms=max(times),
                       reps=len(times))
            del q, k, v
        except Exception as e:  # reported per scenario; the next one still runs
            res["error"] = f"{type(e).__name__}: {e}"[:500]
        results.append(res)

    print(json.dumps({"baseline": backend, "version": version, "gpu": props.name, "driver": driver,
                      "results": results}))


if __name__ == "__main__":
    main()
