#include "problem/problem_catalog.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

const std::string kScenariosDir = std::string(KSEEK_SOURCE_DIR) + "/scenarios";

TEST_CASE("ProblemCatalog loads the committed scenarios folder", "[catalog]") {
  absl::StatusOr<ProblemCatalog> catalog = ProblemCatalog::Load(kScenariosDir);
  REQUIRE(catalog.ok());
  CHECK(catalog->Names() == std::vector<std::string>{"attention_fwd", "gemm"});
  absl::StatusOr<const Problem*> problem = catalog->Find("attention_fwd");
  REQUIRE(problem.ok());
  CHECK((*problem)->manifest().name() == "attention_fwd");
  CHECK_FALSE((*problem)->scenarios().empty());
}

TEST_CASE("ProblemCatalog names the known problems for an unknown one", "[catalog]") {
  absl::StatusOr<ProblemCatalog> catalog = ProblemCatalog::Load(kScenariosDir);
  REQUIRE(catalog.ok());
  absl::StatusOr<const Problem*> conv = catalog->Find("conv2d");
  CHECK(conv.status().code() == absl::StatusCode::kNotFound);
  CHECK(conv.status().message() == "unknown problem \"conv2d\"; known: attention_fwd, gemm");
}

TEST_CASE("ProblemCatalog of a missing folder is empty", "[catalog]") {
  testing::TempDir dir;
  absl::StatusOr<ProblemCatalog> catalog = ProblemCatalog::Load(dir.File("absent"));
  REQUIRE(catalog.ok());
  CHECK(catalog->Names().empty());
  CHECK(catalog->Find("attention_fwd").status().message() == "unknown problem \"attention_fwd\"; known: none");
}

TEST_CASE("ProblemCatalog refuses a folder with a broken manifest naming its file", "[catalog]") {
  testing::TempDir dir;
  std::filesystem::create_directory(dir.File("broken"));
  std::ofstream(dir.File("broken/problem.textproto")) << "name: \"broken\"\nnot_a_field: 1\n";
  absl::StatusOr<ProblemCatalog> catalog = ProblemCatalog::Load(dir.path());
  CHECK(catalog.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(catalog.status().message().find("broken/problem.textproto:2") != std::string::npos);
}

}  // namespace
}  // namespace kseek
