#include "client/commands/command.h"

#include <catch2/catch.hpp>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "client/exit_codes.h"

namespace kseek {
namespace {

// What the fake subcommand was called with.
std::vector<std::string> g_seen_args;

int RecordArgs(const std::vector<std::string>& args, const GlobalOptions& global) {
  g_seen_args = args;
  return 7;
}

constexpr Subcommand kFakeSubcommands[] = {
    {"start", "start one", RecordArgs},
    {"show", "show one", RecordArgs},
};

// Captures what `stream` gets while it lives.
class Capture {
 public:
  explicit Capture(std::ostream* stream) : stream_(stream), old_(stream->rdbuf(text_.rdbuf())) {}
  ~Capture() { stream_->rdbuf(old_); }
  std::string text() const { return text_.str(); }

 private:
  std::ostream* stream_;
  std::ostringstream text_;
  std::streambuf* old_;
};

TEST_CASE("SubcommandList lines up the names and summaries") {
  CHECK(SubcommandList(kFakeSubcommands) == "  start  start one\n  show   show one\n");
}

TEST_CASE("RunSubcommand hands the rest of the arguments to the named subcommand") {
  g_seen_args.clear();
  CHECK(RunSubcommand(kFakeSubcommands, "USAGE\n", "fake", "start or show", {"show", "17", "--json"},
                      GlobalOptions()) == 7);
  CHECK(g_seen_args == std::vector<std::string>{"17", "--json"});
}

TEST_CASE("RunSubcommand prints its usage: on stdout for --help, on stderr without arguments") {
  {
    Capture out(&std::cout);
    CHECK(RunSubcommand(kFakeSubcommands, "USAGE\n", "fake", "start or show", {"--help"}, GlobalOptions()) ==
          kExitOk);
    CHECK(out.text() == "USAGE\n");
  }
  Capture err(&std::cerr);
  CHECK(RunSubcommand(kFakeSubcommands, "USAGE\n", "fake", "start or show", {}, GlobalOptions()) == kExitUsage);
  CHECK(err.text() == "USAGE\n");
}

TEST_CASE("RunSubcommand refuses an unknown subcommand, saying which there are") {
  Capture err(&std::cerr);
  CHECK(RunSubcommand(kFakeSubcommands, "USAGE\n", "fake", "start or show; see kseek fake --help", {"stat"},
                      GlobalOptions()) == kExitUsage);
  CHECK(err.text() == "kseek: unknown fake subcommand \"stat\" (start or show; see kseek fake --help)\n");
}

TEST_CASE("ExpectPositional and CheckListLimit are usage errors outside their bounds") {
  Capture err(&std::cerr);
  CHECK_FALSE(ExpectPositional({"a"}, 1, "one FILE", "compile").has_value());
  CHECK(ExpectPositional({}, 1, "one FILE", "compile") == kExitUsage);
  CHECK_FALSE(CheckListLimit(0).has_value());
  CHECK_FALSE(CheckListLimit(1'000'000).has_value());
  CHECK(CheckListLimit(-1) == kExitUsage);
  CHECK(CheckListLimit(1'000'001) == kExitUsage);
  CHECK(err.text() ==
        "kseek: compile wants one FILE, got 0 argument(s) (see kseek compile --help)\n"
        "kseek: --limit wants 0..1000000, got -1\n"
        "kseek: --limit wants 0..1000000, got 1000001\n");
}

TEST_CASE("Connect refuses a bad address as a usage error and a missing token as exit 3") {
  Capture err(&std::cerr);
  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  GlobalOptions global;
  global.token = "t";
  CommonFlags common;
  common.server = "no-port";
  CHECK(Connect(global, common, &server, &client) == kExitUsage);
  global.token.clear();
  common.server.clear();
  CHECK(Connect(global, common, &server, &client) == kExitServer);
  CHECK(server == kDefaultServer);
  CHECK(client == nullptr);
}

}  // namespace
}  // namespace kseek
