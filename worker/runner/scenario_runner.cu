#include "worker/runner/scenario_runner.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "worker/runner/cuda_check.h"
#include "worker/runner/device_tensors.h"
#include "worker/runner/scenario_layout.h"
#include "worker/runner/seeds.h"
#include "worker/runner/timing_stats.h"

namespace kseek::runner {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string CudaText(cudaError_t err) {
  return absl::StrCat(cudaGetErrorName(err), " (", cudaGetErrorString(err), ")");
}

// Buffers for one scenario, indexed like layout.tensors.
struct ScenarioBuffers {
  std::vector<DeviceBuffer> tensors;   // what the candidate reads and writes
  std::vector<DeviceBuffer> snapshot;  // outputs copied right after the stream sync
  std::vector<DeviceBuffer> exact;     // fp32 reference outputs
  std::vector<DeviceBuffer> lowprec;   // low-precision reference outputs
  DeviceBuffer scratch;                // regenerated inputs, to detect writes to inputs
};

size_t RunnerBytes(const ScenarioLayout& layout, size_t workspace) {
  size_t bytes = workspace;
  size_t largest_input = 0;
  for (const TensorLayout& t : layout.tensors) {
    bytes += t.bytes;
    if (t.role == kernelseek::v1::TENSOR_ROLE_OUTPUT) {
      bytes += 2 * t.bytes + static_cast<size_t>(t.elements) * sizeof(float);
    } else {
      largest_input = std::max(largest_input, t.bytes);
      bytes += static_cast<size_t>(t.elements) * sizeof(float);  // reference's fp32 copy
    }
  }
  return bytes + largest_input;
}

absl::StatusOr<ScenarioBuffers> AllocateBuffers(const ScenarioLayout& layout) {
  ScenarioBuffers b;
  size_t largest_input = 0;
  for (const TensorLayout& t : layout.tensors) {
    const bool out = t.role == kernelseek::v1::TENSOR_ROLE_OUTPUT;
    absl::StatusOr<DeviceBuffer> main = DeviceBuffer::Allocate(t.bytes);
    if (!main.ok()) return main.status();
    b.tensors.push_back(*std::move(main));
    DeviceBuffer snapshot, exact, lowprec;
    if (out) {
      absl::StatusOr<DeviceBuffer> s = DeviceBuffer::Allocate(t.bytes);
      absl::StatusOr<DeviceBuffer> e = DeviceBuffer::Allocate(t.elements * sizeof(float));
      absl::StatusOr<DeviceBuffer> l = DeviceBuffer::Allocate(t.bytes);
      if (!s.ok()) return s.status();
      if (!e.ok()) return e.status();
      if (!l.ok()) return l.status();
      snapshot = *std::move(s);
      exact = *std::move(e);
      lowprec = *std::move(l);
    } else {
      largest_input = std::max(largest_input, t.bytes);
    }
    b.snapshot.push_back(std::move(snapshot));
    b.exact.push_back(std::move(exact));
    b.lowprec.push_back(std::move(lowprec));
  }
  absl::StatusOr<DeviceBuffer> scratch = DeviceBuffer::Allocate(largest_input);
  if (!scratch.ok()) return scratch.status();
  b.scratch = *std::move(scratch);
  return b;
}

uint64_t TensorSeed(uint64_t set_seed, size_t tensor_index) {
  return MixSeed(set_seed, 0x7E45u + tensor_index);
}

}  // namespace

ScenarioRunner::ScenarioRunner(const Problem* problem, LaunchFn launch, ReferenceFn reference,
                               RunnerOptions options)
    : problem_(problem), launch_(launch), reference_(reference), options_(options) {}

absl::StatusOr<std::unique_ptr<ScenarioRunner>> ScenarioRunner::Create(const Problem* problem,
                                                                       LaunchFn launch,
                                                                       ReferenceFn reference,
                                                                       RunnerOptions options) {
  std::unique_ptr<ScenarioRunner> runner(new ScenarioRunner(problem, launch, reference, options));
  KSEEK_RETURN_IF_ERROR(runner->Init());
  return runner;
}

absl::Status ScenarioRunner::Init() {
  KSEEK_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device_));
  // Non-blocking streams do not synchronise with the legacy default stream,
  // so a kernel that launches on stream 0 instead of its argument is not
  // rescued by an implicit dependency.
  KSEEK_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&launch_stream_, cudaStreamNonBlocking));
  KSEEK_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&work_stream_, cudaStreamNonBlocking));
  KSEEK_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&check_stream_, cudaStreamNonBlocking));
  KSEEK_CUBLAS_RETURN_IF_ERROR(cublasCreate(&cublas_));
  KSEEK_CUBLAS_RETURN_IF_ERROR(cublasSetStream(cublas_, work_stream_));
  KSEEK_CUBLAS_RETURN_IF_ERROR(cublasSetMathMode(cublas_, CUBLAS_DEFAULT_MATH));
  KSEEK_CUDA_RETURN_IF_ERROR(cudaEventCreate(&start_));
  KSEEK_CUDA_RETURN_IF_ERROR(cudaEventCreate(&stop_));
  int l2_bytes = 0;
  KSEEK_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device_));
  if (options_.bench) {
    // Twice the L2 so that nothing a launch left in L2 survives the flush.
    absl::StatusOr<DeviceBuffer> flush =
        DeviceBuffer::Allocate(std::max<size_t>(2 * static_cast<size_t>(l2_bytes), 64u << 20));
    if (!flush.ok()) return flush.status();
    flush_ = *std::move(flush);
  }
  clock_ = std::make_unique<SmClock>(device_);
  return absl::OkStatus();
}

ScenarioRunner::~ScenarioRunner() {
  // Teardown failures only happen after the context is lost; nothing to do then.
  if (cublas_ != nullptr) (void)cublasDestroy(cublas_);
  if (start_ != nullptr) (void)cudaEventDestroy(start_);
  if (stop_ != nullptr) (void)cudaEventDestroy(stop_);
  for (cudaStream_t s : {launch_stream_, work_stream_, check_stream_}) {
    if (s != nullptr) (void)cudaStreamDestroy(s);
  }
}

absl::Status ScenarioRunner::FailWithCudaError(ScenarioResult* result, const std::string& reason) {
  result->status = ScenarioStatus::kFail;
  result->reason = reason;
  // A sticky error (illegal address, trap, launch failure) survives both
  // calls; anything else is cleared by cudaGetLastError.
  (void)cudaGetLastError();
  cudaError_t err = cudaDeviceSynchronize();
  if (err == cudaSuccess) err = cudaGetLastError();
  if (err != cudaSuccess) {
    return absl::UnavailableError(
        absl::StrCat("GPU context lost after scenario ", result->id, ": ", CudaText(err)));
  }
  return absl::OkStatus();
}

absl::Status ScenarioRunner::Run(const kernelseek::v1::ScenarioSpec& scenario, uint64_t seed,
                                 ScenarioResult* result) {
  const Clock::time_point started = Clock::now();
  auto finish = [&](ScenarioStatus status, std::string reason) {
    result->status = status;
    result->reason = std::move(reason);
    result->wall_seconds = SecondsSince(started);
    return absl::OkStatus();
  };
  absl::StatusOr<ScenarioLayout> layout_or = BuildScenarioLayout(*problem_, scenario);
  if (!layout_or.ok()) return finish(ScenarioStatus::kError, std::string(layout_or.status().message()));
  const ScenarioLayout& layout = *layout_or;
  result->bindings = layout.bindings;
  result->flops = layout.flops;

  const size_t need = RunnerBytes(layout, options_.reference_workspace_bytes);
  if (options_.gpu_mem_cap_bytes > 0 && need > options_.gpu_mem_cap_bytes) {
    return finish(ScenarioStatus::kNotRun,
                  absl::StrFormat("needs %.2f GiB of GPU memory, over the cap of %.2f GiB",
                                  need / double(1 << 30),
                                  options_.gpu_mem_cap_bytes / double(1 << 30)));
  }
  absl::StatusOr<ScenarioBuffers> buffers_or = AllocateBuffers(layout);
  if (!buffers_or.ok()) return finish(ScenarioStatus::kError, std::string(buffers_or.status().message()));
  ScenarioBuffers& buf = *buffers_or;
  std::vector<void*> pointers;
  for (DeviceBuffer& t : buf.tensors) pointers.push_back(t.data());
  absl::StatusOr<KseekArgs> args = PackKseekArgs(layout, pointers);
  if (!args.ok()) return finish(ScenarioStatus::kError, std::string(args.status().message()));

  const int kInputSets = 2;
  for (int set = 0; set < kInputSets; ++set) {
    const uint64_t set_seed = InputSetSeed(seed, set);
    const std::string where = absl::StrCat(" (input set ", set + 1, ")");
    absl::Status prepared = [&]() -> absl::Status {
      for (size_t t = 0; t < layout.tensors.size(); ++t) {
        const TensorLayout& tl = layout.tensors[t];
        if (tl.role == kernelseek::v1::TENSOR_ROLE_INPUT) {
          KSEEK_RETURN_IF_ERROR(FillInput(buf.tensors[t].data(), tl.dtype, tl.elements,
                                          TensorSeed(set_seed, t), tl.fill, work_stream_));
        } else {
          KSEEK_RETURN_IF_ERROR(FillPoison(buf.tensors[t].data(), tl.dtype, tl.elements,
                                           work_stream_));
        }
      }
      KSEEK_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(work_stream_));
      return CudaStatus(cudaGetLastError(), "before launch");
    }();
    if (!prepared.ok()) return finish(ScenarioStatus::kError, std::string(prepared.message()));

    // The launch and the sync of its stream only: nothing else is in flight.
    const int rc = launch_(&*args, launch_stream_);
    cudaError_t err = cudaGetLastError();
    if (rc != 0) {
      return FailWithCudaError(result, absl::StrCat("the entry point returned ", rc,
                                                    " (input not supported?)", where));
    }
    if (err != cudaSuccess) {
      return FailWithCudaError(result, absl::StrCat("launch error ", CudaText(err), where));
    }
    err = cudaStreamSynchronize(launch_stream_);
    if (err != cudaSuccess) {
      return FailWithCudaError(result, absl::StrCat("kernel failed: ", CudaText(err), where));
    }
    // Snapshot the outputs at once: work the kernel left on another stream
    // has not finished yet, so the snapshot shows it as unwritten or stale.
    for (size_t t = 0; t < layout.tensors.size(); ++t) {
      if (layout.tensors[t].role != kernelseek::v1::TENSOR_ROLE_OUTPUT) continue;
      err = cudaMemcpyAsync(buf.snapshot[t].data(), buf.tensors[t].data(), layout.tensors[t].bytes,
                            cudaMemcpyDeviceToDevice, check_stream_);
      if (err != cudaSuccess) break;
    }
    if (err == cudaSuccess) err = cudaStreamSynchronize(check_stream_);
    if (err != cudaSuccess) {
      return FailWithCudaError(result, absl::StrCat("reading outputs: ", CudaText(err), where));
    }

    // Reference, interleaved between the candidate's runs.
    ReferenceBuffers ref;
    ref.layout = &layout;
    for (size_t t = 0; t < layout.tensors.size(); ++t) {
      const bool out = layout.tensors[t].role == kernelseek::v1::TENSOR_ROLE_OUTPUT;
      ref.inputs.push_back(out ? nullptr : buf.tensors[t].data());
      ref.exact.push_back(out ? buf.exact[t].as<float>() : nullptr);
      ref.lowprec.push_back(out ? buf.lowprec[t].data() : nullptr);
    }
    ReferenceContext ctx{work_stream_, cublas_, options_.reference_workspace_bytes};

    // The kernel must not have changed its inputs: the reference reads them.
    for (size_t t = 0; t < layout.tensors.size(); ++t) {
      const TensorLayout& tl = layout.tensors[t];
      if (tl.role != kernelseek::v1::TENSOR_ROLE_INPUT) continue;
      absl::Status regen = FillInput(buf.scratch.data(), tl.dtype, tl.elements,
                                     TensorSeed(set_seed, t), tl.fill, work_stream_);
      absl::StatusOr<int64_t> changed =
          regen.ok() ? CountDifferentBytes(buf.scratch.data(), buf.tensors[t].data(), tl.bytes,
                                           work_stream_)
                     : absl::StatusOr<int64_t>(regen);
      if (!changed.ok()) {
        return FailWithCudaError(result, absl::StrCat("checking input '", tl.name,
                                                      "': ", changed.status().message(), where));
      }
      if (*changed > 0) {
        return finish(ScenarioStatus::kFail,
                      absl::StrCat("the kernel modified its input '", tl.name, "' (", *changed,
                                   " bytes)", where));
      }
    }
    absl::Status ref_status = reference_(ref, ctx);
    if (!ref_status.ok()) {
      absl::Status lost = FailWithCudaError(
          result, absl::StrCat("reference failed: ", ref_status.message(), where));
      result->status = ScenarioStatus::kError;
      return lost;
    }

    // Anything still running on a stream of the kernel's own finishes here;
    // if it changed an output after the snapshot, the kernel did work outside
    // the stream it was given.
    err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
      return FailWithCudaError(
          result, absl::StrCat("asynchronous error after the launch stream had finished "
                               "(work on another stream?): ",
                               CudaText(err), where));
    }
    InputSetResult set_result;
    for (size_t t = 0; t < layout.tensors.size(); ++t) {
      const TensorLayout& tl = layout.tensors[t];
      if (tl.role != kernelseek::v1::TENSOR_ROLE_OUTPUT) continue;
      absl::StatusOr<int64_t> changed = CountDifferentBytes(
          buf.snapshot[t].data(), buf.tensors[t].data(), tl.bytes, work_stream_);
      if (!changed.ok()) return FailWithCudaError(result, std::string(changed.status().message()));
      if (*changed > 0) {
        return finish(ScenarioStatus::kFail,
                      absl::StrCat("output '", tl.name,
                                   "' changed after its launch stream was synchronised: the "
                                   "kernel works outside the stream it was given",
                                   where));
      }
      absl::StatusOr<OutputErrors> errors =
          CompareOutput(buf.snapshot[t].data(), buf.lowprec[t].data(), buf.exact[t].as<float>(),
                        tl.dtype, tl.elements, work_stream_);
      if (!errors.ok()) return FailWithCudaError(result, std::string(errors.status().message()));
      OutputCheck check;
      check.name = tl.name;
      check.errors = *errors;
      check.verdict = JudgeOutput(tl.name, *problem_->ToleranceFor(tl.name), *errors);
      set_result.outputs.push_back(std::move(check));
    }
    result->input_sets.push_back(set_result);
    for (const OutputCheck& check : set_result.outputs) {
      if (!check.verdict.pass) return finish(ScenarioStatus::kFail, check.verdict.reason + where);
    }
  }

  if (options_.bench) {
    absl::Status timed = Bench(*args, result);
    result->wall_seconds = SecondsSince(started);
    if (result->status == ScenarioStatus::kFail) return timed;
    if (!timed.ok()) return timed;
  }
  return finish(ScenarioStatus::kPass, "");
}

absl::Status ScenarioRunner::Bench(const KseekArgs& args, ScenarioResult* result) {
  auto launch_checked = [&](const char* phase) -> absl::Status {
    const int rc = launch_(&args, launch_stream_);
    cudaError_t err = cudaGetLastError();
    if (rc != 0) {
      return FailWithCudaError(result, absl::StrCat(phase, ": the entry point returned ", rc));
    }
    if (err != cudaSuccess) {
      return FailWithCudaError(result, absl::StrCat(phase, ": launch error ", CudaText(err)));
    }
    return absl::OkStatus();
  };
  // One repetition: flush L2, then the launch between two events, the whole
  // device synchronised before the end event is read (so work hidden on
  // another stream is waited for). A failure marks the scenario failed; the
  // status is not OK only where the GPU context is lost.
  auto repetition = [&](int rep, const char* phase, float* ms) -> absl::Status {
    cudaError_t err = cudaMemsetAsync(flush_.data(), rep & 0xFF, flush_.bytes(), launch_stream_);
    if (err == cudaSuccess) err = cudaEventRecord(start_, launch_stream_);
    if (err != cudaSuccess) return FailWithCudaError(result, absl::StrCat(phase, ": ", CudaText(err)));
    absl::Status s = launch_checked(phase);
    if (result->status == ScenarioStatus::kFail || !s.ok()) return s;
    err = cudaEventRecord(stop_, launch_stream_);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaEventElapsedTime(ms, start_, stop_);
    if (err != cudaSuccess) return FailWithCudaError(result, absl::StrCat(phase, ": ", CudaText(err)));
    return absl::OkStatus();
  };
  // Warm-up (instruction cache, lazy module loading, and the clock settling
  // under this kernel's own load; see WarmupSeconds): the same repetitions,
  // untimed.
  float ms = 0;
  const Clock::time_point warm_start = Clock::now();
  const double warm_seconds = WarmupSeconds(options_.bench_seconds);
  for (int rep = 0; rep < 3 || SecondsSince(warm_start) < warm_seconds; ++rep) {
    absl::Status s = repetition(rep, "warm-up", &ms);
    if (result->status == ScenarioStatus::kFail || !s.ok()) return s;
  }

  result->clock_before = clock_->Read();
  std::vector<double> samples;
  const Clock::time_point start = Clock::now();
  for (int rep = 0; rep < 5000; ++rep) {
    absl::Status s = repetition(rep, "timing", &ms);
    if (result->status == ScenarioStatus::kFail || !s.ok()) return s;
    samples.push_back(ms);
    const size_t n = samples.size();
    if (n >= static_cast<size_t>(options_.min_reps) && (n < 100 || n % 10 == 0) &&
        TimingIsStable(SummarizeTimings(samples), options_.min_reps, options_.max_stderr_pct)) {
      break;
    }
    if (SecondsSince(start) > options_.bench_seconds) break;
  }
  result->clock_after = clock_->Read();
  result->timing = SummarizeTimings(samples);
  return absl::OkStatus();
}

}  // namespace kseek::runner
