#include "server/question_bank.h"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace kseek {
namespace {

namespace fs = std::filesystem;
using kernelseek::v1::Layer;
using kernelseek::v1::Question;
using kernelseek::v1::Trigger;

// Words that would hand the agent information: hardware units, instructions,
// techniques, library and tool names, data types, architectures, numbers and
// units. Matched case-insensitively on whole words after punctuation becomes a
// space, so "cp.async" is "cp async" and "memory-bound" is "memory bound".
// Layer names stay allowed where they name where to look rather than what to
// do ("SASS", "memory hierarchy", "compiler", "occupancy"); layer words that
// double as a technique ("pipelining", "overlap", "tiling") are forbidden.
const std::vector<std::string> kForbiddenWords = {
    // Hardware units.
    "tma", "tensor", "tensor core", "sm", "sms", "streaming multiprocessor", "multiprocessor",
    "shared memory", "smem", "shmem", "global memory", "local memory", "constant memory", "texture",
    "hbm", "dram", "sram", "l1", "l2", "sfu", "fma", "alu", "lsu", "lane", "lanes", "cluster",
    "clusters", "dsmem", "nvlink", "copy engine",
    // Instructions.
    "mma", "wgmma", "hmma", "imma", "umma", "tcgen", "ldmatrix", "stmatrix", "ldg", "stg", "lds",
    "sts", "ldgsts", "mufu", "shfl", "cp async", "ld global", "exp", "rcp", "ptx",
    // Techniques.
    "tiling", "double buffering", "ping pong", "split k", "stream k", "persistent", "producer",
    "consumer", "online softmax", "softmax", "roofline", "arithmetic intensity", "memory bound",
    "compute bound", "latency bound", "block size", "cta", "launch bounds", "maxrregcount",
    "inline", "intrinsic", "fast math", "fastmath", "precision", "layout",
    // Libraries, tools, architectures, data types.
    "cublas", "cutlass", "cute", "cudnn", "flashattention", "flash", "triton", "ncu", "nsight",
    "nvcc", "ptxas", "hopper", "blackwell", "ampere", "volta", "turing", "ada", "half", "float",
    // Numbers and units.
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve",
    "hundred", "thousand", "million", "billion", "twice", "double", "triple", "quarter", "percent",
    "dozen", "single", "kb", "mb", "gb", "kib", "mib", "gib", "ghz", "mhz", "ns", "ms"};

// Forbidden as the start of a word, to catch inflections: "tile", "tiled",
// "tiles"; "register", "registers"; "warp", "warpgroup".
const std::vector<std::string> kForbiddenStems = {
    "tile",     "register", "warp",       "cache",     "bank",    "barrier",  "mbarrier", "swizzl",
    "async",    "shuffle",  "pipelin",    "prefetch",  "buffer",  "unroll",   "vector",   "fuse",
    "fusion",   "fusing",   "overlap",    "specializ", "coalesc", "transpos", "pad",      "atomic",
    "recomput", "quantiz",  "approximat", "split",     "spill",   "byte",     "tflop",    "gflop"};

std::string Normalize(const std::string& text) {
  std::string out = " ";
  for (char c : text) {
    out += std::isalnum(static_cast<unsigned char>(c))
               ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
               : ' ';
  }
  out += ' ';
  // Collapse runs of spaces so that phrases match across punctuation.
  out.erase(
      std::unique(out.begin(), out.end(), [](char a, char b) { return a == ' ' && b == ' '; }),
      out.end());
  return out;
}

// The forbidden entries `text` contains; empty when the text hands over nothing.
std::vector<std::string> InformationIn(const std::string& text) {
  std::vector<std::string> found;
  if (std::any_of(text.begin(), text.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    found.push_back("<digit>");
  }
  const std::string normalized = Normalize(text);
  for (const std::string& word : kForbiddenWords) {
    if (normalized.find(" " + word + " ") != std::string::npos) found.push_back(word);
  }
  for (size_t pos = 0; pos < normalized.size();) {
    size_t end = normalized.find(' ', pos + 1);
    if (end == std::string::npos) break;
    const std::string word = normalized.substr(pos + 1, end - pos - 1);
    pos = end;
    for (const std::string& stem : kForbiddenStems) {
      if (word.rfind(stem, 0) == 0) found.push_back(word);
    }
  }
  return found;
}

QuestionBank LoadRealBank() {
  absl::StatusOr<QuestionBank> bank = QuestionBank::LoadDirectory(KSEEK_QUESTION_BANK_DIR);
  INFO(bank.status().ToString());
  REQUIRE(bank.ok());
  return *std::move(bank);
}

TEST_CASE("the information lint catches questions that hand over information") {
  CHECK(InformationIn("Which layer of the system have you not looked at yet?").empty());
  CHECK(InformationIn("What measurement shows that is the ceiling?").empty());
  CHECK_FALSE(InformationIn("Have you tried TMA?").empty());
  CHECK_FALSE(InformationIn("Use 128x64 tiles.").empty());
  CHECK_FALSE(InformationIn("Are you using the tensor cores?").empty());
  CHECK_FALSE(InformationIn("Could cp.async hide the latency?").empty());
  CHECK_FALSE(InformationIn("How many registers spill?").empty());
  CHECK_FALSE(InformationIn("Is the L2 hit rate low?").empty());
  CHECK_FALSE(InformationIn("Try warp specialization.").empty());
  CHECK_FALSE(InformationIn("Is this kernel memory-bound?").empty());
  CHECK_FALSE(InformationIn("Aim for fifty percent occupancy.").empty());
  CHECK_FALSE(InformationIn("Could you double the work per thread?").empty());
}

TEST_CASE("the question bank in question_bank/ parses and is well formed") {
  QuestionBank bank = LoadRealBank();
  const std::vector<Question>& questions = bank.questions();
  CHECK(questions.size() >= 40);

  std::set<std::string> ids;
  for (const Question& q : questions) CHECK(ids.insert(q.id()).second);

  SECTION("every trigger has questions") {
    for (int t = kernelseek::v1::Trigger_MIN + 1; t <= kernelseek::v1::Trigger_MAX; ++t) {
      auto trigger = static_cast<Trigger>(t);
      int count = 0;
      for (const Question& q : questions) {
        count += std::count(q.triggers().begin(), q.triggers().end(), trigger);
      }
      INFO(kernelseek::v1::Trigger_Name(trigger));
      CHECK(count >= 3);
    }
  }

  SECTION("every layer is pointed to by a question and Pick reaches it") {
    // Cycling Pick through a trigger's questions must reach every layer: a
    // layer no question points to, or only questions Pick never returns, is
    // a layer the bank can never send the agent to.
    std::set<int> reached;
    for (int t = kernelseek::v1::Trigger_MIN + 1; t <= kernelseek::v1::Trigger_MAX; ++t) {
      std::vector<std::string> asked;
      for (size_t i = 0; i < questions.size(); ++i) {
        auto q = bank.Pick(static_cast<Trigger>(t), kernelseek::v1::LAYER_UNSPECIFIED, asked);
        REQUIRE(q.ok());
        asked.push_back((*q)->id());
        reached.insert((*q)->layers().begin(), (*q)->layers().end());
      }
    }
    for (int l = kernelseek::v1::Layer_MIN + 1; l <= kernelseek::v1::Layer_MAX; ++l) {
      INFO(kernelseek::v1::Layer_Name(static_cast<Layer>(l)));
      CHECK(reached.count(l) == 1);
    }
  }

  SECTION("both kinds of question are present") {
    auto count_kind = [&](kernelseek::v1::QuestionKind kind) {
      return std::count_if(questions.begin(), questions.end(),
                           [&](const Question& q) { return q.kind() == kind; });
    };
    CHECK(count_kind(kernelseek::v1::QUESTION_KIND_MOVE_LAYER) >= 10);
    CHECK(count_kind(kernelseek::v1::QUESTION_KIND_REJECT_LIMIT) >= 10);
  }

  SECTION("no question hands over information") {
    for (const Question& q : questions) {
      INFO(q.id() << ": " << q.text());
      CHECK(InformationIn(q.text()) == std::vector<std::string>{});
    }
  }
}

constexpr char kSmallBank[] = R"pb(
  question {
    id: "a_data"
    text: "A?"
    triggers: [ TRIGGER_PLATEAU ]
    layers: [ LAYER_DATA_MOVEMENT ]
    kind: QUESTION_KIND_MOVE_LAYER
  }
  question {
    id: "b_sass"
    text: "B?"
    triggers: [ TRIGGER_PLATEAU, TRIGGER_CLAIMED_LIMIT ]
    layers: [ LAYER_COMPILER_OUTPUT ]
    kind: QUESTION_KIND_MOVE_LAYER
  }
  question {
    id: "c_data_and_measure"
    text: "C?"
    triggers: [ TRIGGER_PLATEAU ]
    layers: [ LAYER_DATA_MOVEMENT, LAYER_MEASUREMENT ]
    kind: QUESTION_KIND_MOVE_LAYER
  }
  question {
    id: "d_limit"
    text: "D?"
    triggers: [ TRIGGER_CLAIMED_LIMIT ]
    layers: [ LAYER_MEASUREMENT ]
    kind: QUESTION_KIND_REJECT_LIMIT
  }
)pb";

QuestionBank SmallBank() {
  absl::StatusOr<QuestionBank> bank = QuestionBank::FromTexts({{"small.textproto", kSmallBank}});
  INFO(bank.status().ToString());
  REQUIRE(bank.ok());
  return *std::move(bank);
}

std::string PickId(const QuestionBank& bank, Trigger trigger, Layer layer,
                   const std::vector<std::string>& asked) {
  absl::StatusOr<const Question*> q = bank.Pick(trigger, layer, asked);
  INFO(q.status().ToString());
  REQUIRE(q.ok());
  return (*q)->id();
}

TEST_CASE("Pick prefers questions pointing away from the layer the agent is stuck in") {
  QuestionBank bank = SmallBank();
  const auto plateau = kernelseek::v1::TRIGGER_PLATEAU;
  // Stuck in data movement: the question about another layer comes first,
  // then the one pointing partly elsewhere, then the one pointing back.
  CHECK(PickId(bank, plateau, kernelseek::v1::LAYER_DATA_MOVEMENT, {}) == "b_sass");
  CHECK(PickId(bank, plateau, kernelseek::v1::LAYER_DATA_MOVEMENT, {"b_sass"}) ==
        "c_data_and_measure");
  CHECK(PickId(bank, plateau, kernelseek::v1::LAYER_DATA_MOVEMENT,
               {"b_sass", "c_data_and_measure"}) == "a_data");
  // Stuck in the compiler output: bank order among the questions that all
  // point elsewhere.
  CHECK(PickId(bank, plateau, kernelseek::v1::LAYER_COMPILER_OUTPUT, {}) == "a_data");
  // Unknown layer: plain bank order.
  CHECK(PickId(bank, plateau, kernelseek::v1::LAYER_UNSPECIFIED, {}) == "a_data");
}

TEST_CASE("Pick repeats nothing until the trigger's questions are used up") {
  QuestionBank bank = SmallBank();
  const auto plateau = kernelseek::v1::TRIGGER_PLATEAU;
  const auto data = kernelseek::v1::LAYER_DATA_MOVEMENT;
  // All three plateau questions asked once: a new round starts, the layer
  // decides first, then the least recently asked.
  CHECK(PickId(bank, plateau, data, {"c_data_and_measure", "b_sass", "a_data"}) == "b_sass");
  CHECK(PickId(bank, plateau, kernelseek::v1::LAYER_UNSPECIFIED,
               {"c_data_and_measure", "b_sass", "a_data"}) == "c_data_and_measure");
  CHECK(PickId(bank, plateau, kernelseek::v1::LAYER_UNSPECIFIED,
               {"a_data", "c_data_and_measure", "b_sass"}) == "a_data");
  // A second round never repeats a question asked twice before the others.
  CHECK(PickId(bank, plateau, data, {"b_sass", "c_data_and_measure", "a_data", "b_sass"}) ==
        "c_data_and_measure");
  // A question asked under another trigger counts as asked.
  CHECK(PickId(bank, kernelseek::v1::TRIGGER_CLAIMED_LIMIT, data, {"b_sass"}) == "d_limit");
  // Ids that are not in the bank (an older bank's questions) are ignored.
  CHECK(PickId(bank, plateau, data, {"retired_question"}) == "b_sass");
}

TEST_CASE("Pick fails clearly for a trigger without questions") {
  QuestionBank bank = SmallBank();
  absl::StatusOr<const Question*> q =
      bank.Pick(kernelseek::v1::TRIGGER_LARGE_GAIN, kernelseek::v1::LAYER_UNSPECIFIED, {});
  CHECK(q.status().code() == absl::StatusCode::kNotFound);
  CHECK(q.status().message().find("TRIGGER_LARGE_GAIN") != std::string::npos);
  CHECK(bank.Pick(kernelseek::v1::TRIGGER_UNSPECIFIED, kernelseek::v1::LAYER_UNSPECIFIED, {})
            .status()
            .code() == absl::StatusCode::kInvalidArgument);
}

std::string LoadError(const std::string& text) {
  absl::StatusOr<QuestionBank> bank = QuestionBank::FromTexts({{"bad.textproto", text}});
  REQUIRE_FALSE(bank.ok());
  CHECK(bank.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(bank.status().message());
}

TEST_CASE("a broken bank file is an error naming the file and line") {
  SECTION("a misspelt enum value") {
    std::string error =
        LoadError("question {\n  id: \"x\"\n  text: \"X?\"\n  triggers: [TRIGGER_PLATEUA]\n}\n");
    CHECK(error.rfind("bad.textproto:4:", 0) == 0);
    CHECK(error.find("TRIGGER_PLATEUA") != std::string::npos);
  }
  SECTION("an unknown field") {
    std::string error = LoadError("\nquestion {\n  idd: \"x\"\n}\n");
    CHECK(error.rfind("bad.textproto:3:", 0) == 0);
    CHECK(error.find("idd") != std::string::npos);
  }
  SECTION("a question without layers") {
    std::string error = LoadError(
        "question {\n  id: \"ok\"\n  text: \"X?\"\n  triggers: [TRIGGER_PLATEAU]\n"
        "  layers: [LAYER_ALGORITHM]\n  kind: QUESTION_KIND_MOVE_LAYER\n}\n"
        "question {\n  id: \"no_layers\"\n  text: \"Y?\"\n  triggers: [TRIGGER_PLATEAU]\n"
        "  kind: QUESTION_KIND_MOVE_LAYER\n}\n");
    CHECK(error == "bad.textproto:8: question \"no_layers\": no layers");
  }
  SECTION("a duplicate id across files") {
    const std::string q =
        "question { id: \"same\" text: \"X?\" triggers: TRIGGER_PLATEAU layers: LAYER_ALGORITHM "
        "kind: QUESTION_KIND_MOVE_LAYER }\n";
    absl::StatusOr<QuestionBank> bank =
        QuestionBank::FromTexts({{"first.textproto", q}, {"second.textproto", "\n" + q}});
    REQUIRE_FALSE(bank.ok());
    CHECK(bank.status().message() ==
          "second.textproto:2: question id \"same\" is already used at first.textproto:1");
  }
}

TEST_CASE("LoadDirectory reads only *.textproto files and rejects a missing directory") {
  fs::path dir =
      fs::temp_directory_path() / ("kseek_question_bank_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "bank.textproto") << kSmallBank;
  std::ofstream(dir / "notes.txt") << "not a bank file";
  absl::StatusOr<QuestionBank> bank = QuestionBank::LoadDirectory(dir.string());
  INFO(bank.status().ToString());
  REQUIRE(bank.ok());
  CHECK(bank->questions().size() == 4);
  fs::remove_all(dir);

  absl::StatusOr<QuestionBank> missing = QuestionBank::LoadDirectory(dir.string());
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK(missing.status().message().find(dir.string()) != std::string::npos);
}

}  // namespace
}  // namespace kseek
