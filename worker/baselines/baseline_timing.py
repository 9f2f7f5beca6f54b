"""What every baseline program shares: kseek-runner's timing protocol and the report it prints.

Imported by the PROBLEM_baseline.py programs beside it (Python puts a
program's own folder first on sys.path). What a repetition is: the L2 flush
(twice the L2, as the runner writes), the start event, one replay of the
baseline's call captured in a CUDA graph, the end event, queued with no
synchronisation in between, then a synchronisation. Replaying a graph spends
the host's issue time while the flush runs, as the runner's C++ launch does,
so neither side pays host time the other does not; no GPU work is added
before either side. Warm-up: at least 3 repetitions and a quarter of the cap,
at most 0.25 s; then repetitions until the standard error is under 0.5% of
the median (from 10 on), the cap, or 1000. A graph's replay is checked against
an eager call before it is timed.
"""
import json
import math
import statistics
import time

# Part of every baseline's version line, so that timings cached under another
# protocol are not reused.
TIMING_PROTOCOL = "graph-replay"
MAX_REPS = 1000
MIN_REPS = 10
MAX_STDERR = 0.005


def output_of(result):
    """The output tensor of a backend call's result."""
    return result[0] if isinstance(result, (tuple, list)) else result


def capture(torch, run):
    """One call of `run` captured in a CUDA graph, after an eager call on a
    side stream (lazy initialisation, workspace allocation, JIT compilation
    stay out of the graph). Returns (graph, its output tensor)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        run()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = output_of(run())
    return graph, out


def check_replay(torch, graph, graph_out, run):
    """Raises where a replay of the graph does not give what an eager call
    gives (a call that escaped the capture would leave its output unwritten)."""
    graph_out.fill_(float("nan"))
    graph.replay()
    replayed = graph_out.float()  # a copy: the eager call may write the same buffer
    eager = output_of(run()).float()
    torch.cuda.synchronize()
    if graph_out.shape != eager.shape or not torch.isfinite(replayed).all().item():
        raise RuntimeError("the CUDA graph's replay left its output unwritten")
    err = ((replayed - eager).norm() / eager.norm().clamp_min(1e-30)).item()
    if not err <= 1e-3:
        raise RuntimeError(f"the CUDA graph's replay differs from an eager call (relative L2 {err:.2e})")


def flush_bytes(l2_bytes):
    """What kseek-runner writes to flush L2: twice the L2, at least 64 MiB."""
    return max(2 * int(l2_bytes), 64 << 20)


def time_repetitions(torch, flush, call, max_seconds, clock=time.monotonic):
    """Times `call` (a graph replay) as kseek-runner times the candidate.
    Each repetition queues the flush, the start event, the call and the end
    event with no synchronisation in between, then synchronises the device.
    Warm-up: at least 3 repetitions and a quarter of the cap, at most 0.25 s
    (kseek-runner's WarmupSeconds). Then repetitions until the standard error
    is under 0.5% of the median (from 10 on) or the cap. Returns the times in
    milliseconds."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def repetition(rep):
        flush.fill_(rep & 0xFF)
        start.record()
        call()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end)

    warm_seconds = min(0.25, max_seconds / 4)
    t0 = clock()
    rep = 0
    while rep < 3 or clock() - t0 < warm_seconds:
        repetition(rep)
        rep += 1
    times = []
    t0 = clock()
    while len(times) < MAX_REPS:
        times.append(repetition(len(times)))
        if len(times) >= MIN_REPS:
            med = statistics.median(times)
            sem = statistics.stdev(times) / math.sqrt(len(times))
            if sem < MAX_STDERR * med or clock() - t0 > max_seconds:
                break
    return times


def time_call(torch, flush, run, max_seconds):
    """Captures `run`, checks a replay against an eager call and times
    replays: the timing fields of a scenario's result (median_ms, min_ms,
    max_ms, reps). Raises, saying which step failed, where one does."""
    try:
        graph, graph_out = capture(torch, run)
    except Exception as e:
        raise RuntimeError(f"cannot capture the call in a CUDA graph: {type(e).__name__}: {e}") from e
    check_replay(torch, graph, graph_out, run)
    times = time_repetitions(torch, flush, graph.replay, max_seconds)
    return {"median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times), "reps": len(times)}


def driver_version(torch):
    """The CUDA driver's version as "13.0", or "" where this PyTorch build
    does not expose it (the worker knows the driver too)."""
    try:
        v = torch._C._cuda_getDriverVersion()
    except Exception:
        return ""
    return f"{v // 1000}.{(v % 1000) // 10}"


def print_report(backend, version, gpu, driver, results):
    """The one JSON document a baseline program prints on stdout."""
    print(json.dumps({"baseline": backend, "version": version, "gpu": gpu, "driver": driver, "results": results}))


def print_all_failed(backend, version, gpu, driver, scenarios, why):
    """The report where no scenario could run: every one says why, so a
    bench shows the reason rather than a bare failure."""
    print_report(backend, version, gpu, driver, [{"id": sc["id"], "ok": False, "error": why} for sc in scenarios])
