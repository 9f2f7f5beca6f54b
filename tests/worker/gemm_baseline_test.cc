// worker/baselines/gemm_baseline.py run the way a bench runs it (through
// BaselineTimer and gemm's manifest), with a stand-in `torch` package on its
// PYTHONPATH: the program's own logic (request, shapes, dtypes, the timing
// loop, the JSON it prints) is checked here; that cuBLAS is what PyTorch calls
// is for the GPU run.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "tests/testing/temp_dir.h"
#include "worker/baseline_timer.h"
#include "worker/capabilities.h"

namespace kseek {
namespace {

// Only what gemm_baseline.py and baseline_timing.py touch: tensors, the
// stream and graph calls of a capture, and events that read 0.5 ms apart, so
// the standard error is 0 and timing stops at the minimum of 10 repetitions.
// Each matmul is logged; a graph replays the matmul it captured.
constexpr const char* kFakeTorch = R"py(
import contextlib, os
__version__ = "0.fake"
bfloat16, float16, uint8 = "bf16", "f16", "u8"
LOG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "matmuls")
_capturing = []

class version:
    cuda = "13.0"

def device(kind):
    return kind

class Number:
    def __init__(self, value):
        self.value = value
    def __truediv__(self, other):
        return Number(self.value / other.value)
    def clamp_min(self, low):
        return Number(max(self.value, low))
    def all(self):
        return self
    def item(self):
        return self.value

class Tensor:
    def __init__(self, shape, dtype, difference=False):
        self.shape, self.dtype, self.difference = tuple(shape), dtype, difference
    def fill_(self, value):
        return self
    def float(self):
        return self
    def __sub__(self, other):
        return Tensor(self.shape, self.dtype, difference=True)
    def norm(self):
        return Number(0.0 if self.difference else 1.0)

def isfinite(tensor):
    return Number(True)

def empty(shape, dtype=None, device=None):
    return Tensor(shape if isinstance(shape, tuple) else (shape,), dtype)

def randn(shape, generator=None, device=None, dtype=None):
    return Tensor(shape, dtype)

class Generator:
    def __init__(self, device=None):
        pass
    def manual_seed(self, seed):
        return self

def matmul(a, b, out=None):
    assert a.shape[1] == b.shape[0] and out.shape == (a.shape[0], b.shape[1])
    assert a.dtype == b.dtype == out.dtype
    line = "%s x %s -> %s %s\n" % (a.shape, b.shape, out.shape, a.dtype)
    if _capturing:
        _capturing[-1].append(line)
    else:
        with open(LOG, "a") as f:
            f.write(line)
    return out

class cuda:
    class Event:
        def __init__(self, enable_timing=False):
            pass
        def record(self):
            pass
        def elapsed_time(self, end):
            return 0.5
    class Stream:
        def wait_stream(self, other):
            pass
    class CUDAGraph:
        def __init__(self):
            self.calls = []
        def replay(self):
            with open(LOG, "a") as f:
                f.write("replay " + "".join(self.calls))
    @staticmethod
    def current_stream():
        return cuda.Stream()
    @staticmethod
    @contextlib.contextmanager
    def stream(s):
        yield
    @staticmethod
    @contextlib.contextmanager
    def graph(g):
        _capturing.append(g.calls)
        yield
        _capturing.pop()
    @staticmethod
    def synchronize():
        pass
    @staticmethod
    def get_device_properties(dev):
        return type("Props", (), {"name": "Fake GPU", "L2_cache_size": 60 << 20})()

class _C:
    @staticmethod
    def _cuda_getDriverVersion():
        return 13000
)py";

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_CASE("gemm_baseline.py times graph replays of torch.matmul on each scenario's A [m,k] and B [k,n] in its dtype") {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.File("site/torch"));
  std::ofstream(dir.File("site/torch/__init__.py")) << kFakeTorch;
  Problem problem = *Problem::Load(KSEEK_SOURCE_DIR "/scenarios/gemm/problem.textproto");
  BaselineTimer timer({.python = "python3",
                       .python_path = dir.File("site"),
                       .baselines_dir = KSEEK_SOURCE_DIR "/worker/baselines",
                       .work_dir = dir.path()});
  std::vector<const kernelseek::v1::ScenarioSpec*> scenarios =
      *problem.Select("rag-bf16-m113-n799-k203,rag-f16-m1-n4099-k1531");
  BaselineTimings timings = timer.Time(problem, scenarios, "cublas", 0.04, "Fake GPU", "13.0", false);
  CHECK(timings.baseline == "cublas (torch 0.fake graph-replay cuda 13.0)");
  for (const char* id : {"rag-bf16-m113-n799-k203", "rag-f16-m1-n4099-k1531"}) {
    INFO(id << ": " << timings.by_id[id].error);
    CHECK(timings.by_id[id].ok);
    CHECK(timings.by_id[id].median_ms == 0.5);
  }
  const std::string log = Read(dir.File("site/matmuls"));
  // What is timed is the captured call's replay: the eager calls (one before
  // the capture, one to check the replay against) come before the first replay.
  for (const char* line : {"(113, 203) x (203, 799) -> (113, 799) bf16\n", "(1, 1531) x (1531, 4099) -> (1, 4099) f16\n"}) {
    INFO(log);
    CHECK(absl::StrContains(log, std::string("replay ") + line));
    CHECK(log.find(line) < log.find(std::string("replay ") + line));
  }
}

TEST_CASE("gemm_baseline.py names what is missing instead of failing, and its probe says so too") {
  testing::TempDir dir;
  // A torch that does not import stands for a machine without PyTorch.
  std::filesystem::create_directories(dir.File("site/torch"));
  std::ofstream(dir.File("site/torch/__init__.py")) << "raise ImportError('no torch here')\n";
  Problem problem = *Problem::Load(KSEEK_SOURCE_DIR "/scenarios/gemm/problem.textproto");
  BaselineTimer timer({.python = "python3",
                       .python_path = dir.File("site"),
                       .baselines_dir = KSEEK_SOURCE_DIR "/worker/baselines",
                       .work_dir = dir.path()});
  BaselineTimings timings =
      timer.Time(problem, *problem.Select("rag-bf16-m2-n3-k5"), "cublas", 0.04, "Fake GPU", "13.0", false);
  CHECK_FALSE(timings.by_id["rag-bf16-m2-n3-k5"].ok);
  CHECK_THAT(timings.by_id["rag-bf16-m2-n3-k5"].error, Catch::Contains("no torch here"));

  CapabilityProbeConfig config;
  config.nvcc_path = "";
  config.nvidia_smi_path = "";
  config.baseline_probes = {{"python3", KSEEK_SOURCE_DIR "/worker/baselines/gemm_baseline.py", "--probe"}};
  config.baseline_probe_env = {{"PYTHONPATH", dir.File("site")}};
  DetectedCapabilities caps = DetectCapabilities(config);
  CHECK(caps.properties.empty());
  CHECK_THAT(caps.baselines_note, Catch::Contains("cublas: ImportError: no torch here"));
}

}  // namespace
}  // namespace kseek
