// The baseline programs' timing loop (worker/baselines/baseline_timing.py)
// against a stand-in for torch's CUDA API that records the order of the calls:
// the real program needs PyTorch and a GPU, which this machine need not have.
#include <catch2/catch.hpp>
#include <string>

#include "common/subprocess.h"

namespace kseek {
namespace {

// A fake `torch` with the pieces time_repetitions uses: events, synchronize,
// and a flush buffer, each appending to `ops`; `clock` advances by `tick`
// seconds per reading, and every event pair measures `ms_of(rep)`.
constexpr const char* kFakeTorch = R"py(
import sys
sys.path.insert(0, sys.argv[1])
import baseline_timing as b

class Fake:
    def __init__(self, ms_of, tick):
        self.ops, self.rep, self.now, self.tick, self.ms_of = [], 0, 0.0, tick, ms_of
        fake = self
        class Event:
            def __init__(self, enable_timing):
                assert enable_timing
                self.name = "start" if not hasattr(fake, "_first") else "end"
                fake._first = True
            def record(self):
                fake.ops.append(self.name)
            def elapsed_time(self, other):
                fake.rep += 1
                return fake.ms_of(fake.rep)
        class Cuda:
            pass
        self.cuda = Cuda()
        self.cuda.Event = Event
        self.cuda.synchronize = lambda: self.ops.append("sync")
    def fill_(self, value):
        self.ops.append("flush")
    def clock(self):
        self.now += self.tick
        return self.now
    def call(self):
        self.ops.append("call")

def run(ms_of, tick, max_seconds):
    f = Fake(ms_of, tick)
    times = b.time_repetitions(f, f, f.call, max_seconds, clock=f.clock)
    return f, times

# Steady times, no cap (the fake clock stands still): three warm-ups, then 10 timed.
f, times = run(lambda rep: 2.0, 0.0, 0.0)
print("steady", len(f.ops) // 5, len(times), " ".join(f.ops[:10]))
# Every repetition is exactly flush, start, call, end, sync.
print("shape", all(f.ops[i:i + 5] == ["flush", "start", "call", "end", "sync"] for i in range(0, len(f.ops), 5)))
# Noisy times never settle: the time cap ends it.
f, times = run(lambda rep: 1.0 + (rep % 2), 0.01, 0.5)
print("capped", 10 <= len(times) < b.MAX_REPS)
# Noisy, and the clock stands still: MAX_REPS ends it.
f, times = run(lambda rep: 1.0 + (rep % 2), 0.0, 0.0)
print("max", len(times) == b.MAX_REPS)
print("flush", b.flush_bytes(60 << 20) == 120 << 20, b.flush_bytes(1 << 20) == 64 << 20)
print("output", b.output_of(("o", "lse")) == "o", b.output_of("o") == "o")
)py";

std::string RunFake() {
  SubprocessSpec run;
  run.argv = {"python3", "-c", kFakeTorch, KSEEK_SOURCE_DIR "/worker/baselines"};
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(run);
  REQUIRE(ran.ok());
  INFO(ran->stderr_text);
  REQUIRE(ran->Succeeded());
  return ran->stdout_text;
}

TEST_CASE("the baseline program times each repetition as kseek-runner does, with nothing between flush and call") {
  const std::string out = RunFake();
  // Warm-up of 3 (no cap, so no warm-up time), then 10 repetitions, the
  // fewest before the standard error is looked at.
  CHECK_THAT(out, Catch::Contains("steady 13 10 flush start call end sync flush start call end sync\n"));
  CHECK_THAT(out, Catch::Contains("shape True\n"));
  CHECK_THAT(out, Catch::Contains("capped True\n"));
  CHECK_THAT(out, Catch::Contains("max True\n"));
  CHECK_THAT(out, Catch::Contains("flush True True\n"));
  CHECK_THAT(out, Catch::Contains("output True True\n"));
}

}  // namespace
}  // namespace kseek
