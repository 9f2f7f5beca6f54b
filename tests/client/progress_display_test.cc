#include "client/progress_display.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "common/clock.h"

namespace kseek {
namespace {

TEST_CASE("off a terminal, progress is one line per change of status") {
  FakeClock clock;
  std::ostringstream out;
  ProgressDisplay progress(&out, /*is_terminal=*/false, &clock, "17");
  progress.Update("queued");
  progress.Redraw();
  clock.Advance(absl::Seconds(2));
  progress.Update("queued");
  progress.Update("compiling on worker-a");
  clock.Advance(absl::Seconds(75));
  progress.Finish("finished");
  CHECK(out.str() ==
        "job 17: queued (0s)\n"
        "job 17: compiling on worker-a (2s)\n"
        "job 17: finished after 1m17s\n");
}

TEST_CASE("on a terminal, progress rewrites one line with the elapsed time") {
  FakeClock clock;
  std::ostringstream out;
  ProgressDisplay progress(&out, /*is_terminal=*/true, &clock, "17");
  progress.Update("queued");
  clock.Advance(absl::Seconds(3));
  progress.Redraw();
  progress.Update("compiling on worker-a");
  progress.Finish("finished");
  progress.Update("late update after the end");
  CHECK(out.str() ==
        "\r\033[Kjob 17  0s  queued"
        "\r\033[Kjob 17  3s  queued"
        "\r\033[Kjob 17  3s  compiling on worker-a"
        "\r\033[Kjob 17: finished after 3s\n");
}

}  // namespace
}  // namespace kseek
