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

`attention_fwd_baseline.py --probe` prints {"available": {"cudnn": VERSION,
...}, "missing": {"fa4": WHY, ...}}: which backends import here (no GPU work),
for the worker's `baselines` capability.

The backends:
  cudnn  PyTorch SDPA restricted to cuDNN. SDPA's is_causal aligns top-left,
         so causal with s_q != s_k (the problem's mask is bottom-right) goes to
         cuDNN through its own frontend (the `nvidia-cudnn-frontend` package,
         the cuDNN library PyTorch loaded) with a bottom-right diagonal.
  fa2    PyTorch SDPA restricted to its FlashAttention-2 kernel.
  fa3    FlashAttention-3's forward from the `fa3-fwd` wheel (module
         fa3_fwd_interface). Where its build has no kernel (fp16 in 0.0.3) the
         scenario says "no kernel".
  fa4    flash-attn-4's CuTe DSL forward (flash_attn.cute.interface).
FlashAttention's causal is bottom-right, as the problem's is.

Progress goes to stderr as "progress I/N ID". Each backend gets its inputs in
its own best layout (SDPA: [b, h, s, d]; FlashAttention 3/4: [b, s, h, d]),
made before timing. Timing matches kseek-runner's (worker/runner/
scenario_runner.cu, ScenarioRunner::Bench), repetition for repetition: the L2
flushed by writing a buffer of twice the L2 (at least 64 MiB), the start event,
the call, the end event, the device synchronised; warm-up (the same
repetitions, untimed, at least 3 and for a quarter of the cap up to 0.25 s);
repetitions until the standard error is under 0.5% of the median or the time
cap. Clocks are left as they are.

The call is captured once in a CUDA graph and each repetition replays it, so
that, as for the runner's C++ launch, the host's issue time is spent while the
flush runs and no host time is timed: a backend's Python wrapper (fa3-fwd's
autograd Function and op with some twenty arguments) takes longer to issue
than the flush takes to run, and an eager call after the synchronisation timed
that wait (up to 2x the kernel's time at s <= 1024). The graph holds the same
kernels on the same tensors; its output is compared with an eager call's
before timing. No GPU work is added before the call. A scenario a backend
cannot run, or whose call cannot be captured, is reported with ok=false and
the reason, never silently skipped or timed otherwise.
"""
import importlib.metadata
import json
import math
import os
import site
import sys

from baseline_timing import TIMING_PROTOCOL, driver_version, flush_bytes, print_all_failed, print_report, time_call

BACKENDS = ("cudnn", "fa2", "fa3", "fa4")


class NoKernel(Exception):
    """The backend's build offers no kernel for this scenario (e.g. fa3-fwd and fp16)."""


def add_wheel_sites():
    """Reads the .pth files of the worker's wheel site folders on PYTHONPATH
    (those with the stamp worker/wheel_site.cc writes), as Python does only
    for its own site folders: nvidia-cutlass-dsl, which flash-attn-4 needs,
    puts its `cutlass` package on sys.path through one."""
    for folder in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if folder and os.path.exists(os.path.join(folder, ".kseek-wheels")):
            site.addsitedir(folder)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def package_version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def cudnn_frontend_call(torch, q, k, v, scale):
    """cuDNN's SDPA through its frontend with a bottom-right causal diagonal,
    on PyTorch's [b, h, s, d] tensors; returns the timed call."""
    import cudnn
    io_type = {torch.bfloat16: cudnn.data_type.BFLOAT16, torch.float16: cudnn.data_type.HALF}[q.dtype]
    handle = cudnn.create_handle()
    graph = cudnn.pygraph(handle=handle, io_data_type=io_type, intermediate_data_type=cudnn.data_type.FLOAT,
                          compute_data_type=cudnn.data_type.FLOAT)
    q_t, k_t, v_t = graph.tensor_like(q), graph.tensor_like(k), graph.tensor_like(v)
    o_t, _ = graph.sdpa(name="sdpa", q=q_t, k=k_t, v=v_t, generate_stats=False, attn_scale=scale,
                        diagonal_alignment=cudnn.diagonal_alignment.BOTTOM_RIGHT, diagonal_band_right_bound=0)
    out = torch.empty_like(q)
    o_t.set_output(True).set_dim(list(out.shape)).set_stride(list(out.stride()))
    graph.validate()
    graph.build_operation_graph()
    graph.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    graph.check_support()
    graph.build_plans()
    workspace = torch.empty(max(1, graph.get_workspace_size()), device=q.device, dtype=torch.uint8)
    pack = {q_t: q, k_t: k, v_t: v, o_t: out}

    def run():
        # On the caller's current stream, which is the capturing one while
        # the call is captured in a CUDA graph.
        cudnn.set_stream(handle=handle, stream=torch.cuda.current_stream().cuda_stream)
        graph.execute(pack, workspace, handle=handle)
        return out
    return run


def make_backend(backend):
    """(version, call_factory) for `backend`; raises ImportError where its
    library is missing. call_factory(q, k, v, sc) returns (run, layout), run()
    returning the output (a tensor or a tuple starting with it): with q = None
    only the layout is asked for."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    # The protocol is part of the version, so that timings cached under the
    # eager protocol (which timed host overhead) are not reused.
    version = f"torch {torch.__version__} {TIMING_PROTOCOL}"
    if backend in ("cudnn", "fa2"):
        kind = SDPBackend.CUDNN_ATTENTION if backend == "cudnn" else SDPBackend.FLASH_ATTENTION
        if backend == "cudnn":
            if not torch.backends.cudnn.is_available():
                raise ImportError("PyTorch has no cuDNN")
            version += f" cudnn {torch.backends.cudnn.version()}"
            try:
                import cudnn  # noqa: F401  the frontend, for bottom-right causal with s_q != s_k
                version += f" cudnn-frontend {package_version('nvidia-cudnn-frontend')}"
            except ImportError:
                pass
        elif not torch.backends.cuda.is_flash_attention_available():
            raise ImportError("PyTorch was built without its FlashAttention kernel")

        def call_factory(q, k, v, sc):
            bottom_right = sc["causal"] and sc["s_q"] != sc["s_k"]
            if q is None:
                return None, "bhsd"
            if bottom_right:
                if backend == "fa2":
                    raise NoKernel("SDPA's is_causal aligns top-left; bottom-right causal with s_q != s_k is not offered")
                try:
                    return cudnn_frontend_call(torch, q, k, v, sc["scale"]), "bhsd"
                except ImportError as e:
                    raise NoKernel(f"bottom-right causal with s_q != s_k needs nvidia-cudnn-frontend ({e})")
            gqa = sc["h"] != sc["h_kv"]

            def run():
                with sdpa_kernel([kind]):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=bool(sc["causal"]), scale=sc["scale"],
                                                          enable_gqa=gqa)
            return run, "bhsd"
        return version, call_factory
    if backend == "fa3":
        import fa3_fwd_interface  # FlashAttention-3's forward, the fa3-fwd wheel
        version += f" fa3-fwd {package_version('fa3-fwd')}"
        try:
            import fa3_fwd_config
            flags = fa3_fwd_config.CONFIG.get("build_flags", {})
        except ImportError:
            flags = {}

        def call_factory(q, k, v, sc):
            if sc["dtype"] == "fp16" and flags.get("FLASHATTENTION_DISABLE_FP16"):
                raise NoKernel(f"fa3-fwd {package_version('fa3-fwd')} was built without fp16 (bf16 only)")
            if q is None:
                return None, "bshd"
            return (lambda: fa3_fwd_interface.flash_attn_func(q, k, v, softmax_scale=sc["scale"],
                                                              causal=bool(sc["causal"]))), "bshd"
        return version, call_factory
    if backend == "fa4":
        import flash_attn.cute.interface as fa4  # the flash-attn-4 package (CuTe DSL)
        version += (f" flash-attn-4 {package_version('flash-attn-4')}"
                    f" nvidia-cutlass-dsl {package_version('nvidia-cutlass-dsl')}")

        def call_factory(q, k, v, sc):
            if q is None:
                return None, "bshd"
            return (lambda: fa4.flash_attn_func(q, k, v, softmax_scale=sc["scale"], causal=bool(sc["causal"]))), "bshd"
        return version, call_factory
    raise SystemExit(f"unknown backend {backend!r} ({', '.join(BACKENDS)})")


def probe():
    """Which backends import here, without touching the GPU."""
    available, missing = {}, {}
    for backend in BACKENDS:
        try:
            available[backend] = make_backend(backend)[0]
        except Exception as e:  # ImportError mostly; any failure means "not offered here"
            missing[backend] = f"{type(e).__name__}: {e}"[:300]
    print(json.dumps({"available": available, "missing": missing}))


def scenario_fields(sc):
    """The request's scenario with its numbers as ints and its scale filled in."""
    out = dict(sc)
    for x in ("b", "s_q", "s_k", "h", "h_kv", "d", "causal"):
        out[x] = int(sc[x])
    scale = sc.get("scale")
    out["scale"] = float(scale) if scale not in (None, "", 0) else 1.0 / math.sqrt(out["d"])
    return out


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--request", help="JSON request file (see the module docstring)")
    mode.add_argument("--probe", action="store_true", help="print which backends import here")
    args = parser.parse_args()
    add_wheel_sites()
    if args.probe:
        probe()
        return
    with open(args.request) as f:
        request = json.load(f)
    import torch

    backend = request["backend"]
    max_seconds = float(request.get("max_seconds", 2.0))
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    driver = driver_version(torch)
    scenarios = request["scenarios"]
    try:
        version, call_factory = make_backend(backend)
    except ImportError as e:
        why = f"{backend} is not installed for {sys.executable}: {type(e).__name__}: {e}"[:500]
        print_all_failed(backend, "not installed", props.name, driver, scenarios, why)
        return

    flush = torch.empty(flush_bytes(props.L2_cache_size), dtype=torch.uint8, device=dev)
    results = []
    for i, raw in enumerate(scenarios):
        log(f"progress {i + 1}/{len(scenarios)} {raw['id']}")
        res = {"id": raw["id"], "ok": False, "error": ""}
        try:
            sc = scenario_fields(raw)
            dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[sc["dtype"]]
            b, s_q, s_k, h, h_kv, d = (sc[x] for x in ("b", "s_q", "s_k", "h", "h_kv", "d"))
            gen = torch.Generator(device=dev).manual_seed(1234 + i)

            def make(s, heads, layout):
                shape = (b, heads, s, d) if layout == "bhsd" else (b, s, heads, d)
                return torch.randn(shape, generator=gen, device=dev, dtype=dtype)

            _, layout = call_factory(None, None, None, sc)
            q, k, v = make(s_q, h, layout), make(s_k, h_kv, layout), make(s_k, h_kv, layout)
            run, _ = call_factory(q, k, v, sc)
            res.update(ok=True, **time_call(torch, flush, run, max_seconds))
            del q, k, v, run
        except NoKernel as e:
            res["error"] = f"no kernel: {e}"[:500]
        except Exception as e:  # reported per scenario; the next one still runs
            res["error"] = f"{type(e).__name__}: {e}"[:500]
        results.append(res)

    print_report(backend, version, props.name, driver, results)


if __name__ == "__main__":
    main()
