#!/usr/bin/env python3
"""Times what a user would pick instead of a candidate gemm kernel: cuBLAS, through torch.matmul.

Run by kseek-worker on the GPU node as `gemm_baseline.py --request FILE`, FILE being:

  {"backend": "cublas",
   "max_seconds": 2.0,
   "scenarios": [{"id": "sq-bf16-4096", "m": 4096, "n": 4096, "k": 4096, "dtype": "bf16"}, ...]}

and prints one JSON document on stdout:

  {"baseline": "cublas", "version": "...", "gpu": "...", "driver": "...",
   "results": [{"id": ..., "ok": true, "median_ms": ..., "min_ms": ...,
                "max_ms": ..., "reps": ..., "error": ""}, ...]}

`gemm_baseline.py --probe` prints {"available": {"cublas": VERSION}, "missing": {}}
(or the reason under "missing"): whether PyTorch with CUDA imports here, without
touching the GPU.

What is timed: torch.matmul(a, b, out=c) with a [m, k] and b [k, n] row-major
and c preallocated, as the candidate gets them (the runner allocates C; the
candidate only writes it). PyTorch's own defaults stay as a user has them
(e.g. torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction), so
this is the GEMM a model would run.

The timing protocol is kseek-runner's, shared with every baseline program in
baseline_timing.py: the call captured once in a CUDA graph and replayed
between the events after each L2 flush, so that no side's host time is timed.
Progress goes to stderr as "progress I/N ID". A scenario that cannot run is
reported with ok=false and the reason, never skipped.
"""
import json
import sys

from baseline_timing import TIMING_PROTOCOL, driver_version, flush_bytes, print_all_failed, print_report, time_call

BACKENDS = ("cublas",)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def version_line():
    """'torch X (CUDA Y)'; raises ImportError where PyTorch or its CUDA build is missing."""
    import torch
    if torch.version.cuda is None:
        raise ImportError(f"torch {torch.__version__} is a CPU-only build")
    return f"torch {torch.__version__} {TIMING_PROTOCOL} cuda {torch.version.cuda}"


def probe():
    """Whether the backend imports here, without touching the GPU."""
    try:
        print(json.dumps({"available": {"cublas": version_line()}, "missing": {}}))
    except Exception as e:  # ImportError mostly; any failure means "not offered here"
        print(json.dumps({"available": {}, "missing": {"cublas": f"{type(e).__name__}: {e}"[:300]}}))


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--request", help="JSON request file (see the module docstring)")
    mode.add_argument("--probe", action="store_true", help="print whether cuBLAS through PyTorch is offered here")
    args = parser.parse_args()
    if args.probe:
        probe()
        return
    with open(args.request) as f:
        request = json.load(f)
    backend = request.get("backend")
    if backend not in BACKENDS:
        sys.exit(f"unknown backend {backend!r} ({', '.join(BACKENDS)})")
    scenarios = request["scenarios"]
    try:
        version = version_line()
    except ImportError as e:
        why = f"cublas (PyTorch with CUDA) is not installed for {sys.executable}: {type(e).__name__}: {e}"[:500]
        print_all_failed(backend, "not installed", "", "", scenarios, why)
        return
    import torch

    max_seconds = float(request.get("max_seconds", 2.0))
    dev = torch.device("cuda")
    try:
        props = torch.cuda.get_device_properties(dev)
    except Exception as e:  # a CUDA build of PyTorch on a machine without a usable GPU
        why = f"no CUDA device for PyTorch: {type(e).__name__}: {e}"[:500]
        print_all_failed(backend, version, "", "", scenarios, why)
        return
    driver = driver_version(torch)

    flush = torch.empty(flush_bytes(props.L2_cache_size), dtype=torch.uint8, device=dev)
    results = []
    for i, sc in enumerate(scenarios):
        log(f"progress {i + 1}/{len(scenarios)} {sc['id']}")
        res = {"id": sc["id"], "ok": False, "error": ""}
        try:
            dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[sc["dtype"]]
            m, n, k = (int(sc[x]) for x in ("m", "n", "k"))
            gen = torch.Generator(device=dev).manual_seed(1234 + i)
            a = torch.randn((m, k), generator=gen, device=dev, dtype=dtype)
            b = torch.randn((k, n), generator=gen, device=dev, dtype=dtype)
            c = torch.empty((m, n), device=dev, dtype=dtype)
            def run(a=a, b=b, c=c):
                return torch.matmul(a, b, out=c)
            res.update(ok=True, **time_call(torch, flush, run, max_seconds))
            del a, b, c, run
        except Exception as e:  # reported per scenario; the next one still runs
            res["error"] = f"{type(e).__name__}: {e}"[:500]
        results.append(res)

    print_report(backend, version, props.name, driver, results)


if __name__ == "__main__":
    main()
