#include "common/properties.h"

#include <catch2/catch.hpp>
#include <initializer_list>
#include <string>
#include <utility>

namespace kseek {
namespace {

PropertyList Props(std::initializer_list<std::pair<std::string, std::string>> kvs) {
  PropertyList list;
  for (const auto& [key, value] : kvs) {
    kernelseek::v1::Property* p = list.Add();
    p->set_key(key);
    p->set_value(value);
  }
  return list;
}

TEST_CASE("ValidateProperties accepts a sorted list of known keys") {
  CHECK(ValidateProperties(Props({{"arch", "sm_90"},
                                  {"compile", "sm_90,sm_90a,sm_100a"},
                                  {"driver", "13.0"},
                                  {"gpu", "NVIDIA H200"},
                                  {"nvcc", "13.0"}}))
            .ok());
  CHECK(ValidateProperties(Props({})).ok());
}

TEST_CASE("ValidateProperties rejects unknown, repeated and unsorted keys, naming them") {
  absl::Status s = ValidateProperties(Props({{"colour", "blue"}}));
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message().find("colour") != std::string::npos);

  s = ValidateProperties(Props({{"gpu", "A"}, {"gpu", "B"}}));
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message().find("twice") != std::string::npos);

  s = ValidateProperties(Props({{"nvcc", "13.0"}, {"arch", "sm_90"}}));
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message().find("sorted") != std::string::npos);
}

TEST_CASE("SortProperties makes an unsorted list valid") {
  PropertyList list = Props({{"nvcc", "13.0"}, {"arch", "sm_90"}});
  SortProperties(&list);
  CHECK(list[0].key() == "arch");
  CHECK(ValidateProperties(list).ok());
}

TEST_CASE("ValidateProperties rejects malformed values") {
  CHECK(ValidateProperties(Props({{"gpu", ""}})).code() == absl::StatusCode::kInvalidArgument);
  CHECK(ValidateProperties(Props({{"gpu", " H200"}})).code() == absl::StatusCode::kInvalidArgument);
  CHECK(ValidateProperties(Props({{"arch", "9.0"}})).code() == absl::StatusCode::kInvalidArgument);
  absl::Status s = ValidateProperties(Props({{"compile", "sm_90a,-o/etc/x"}}));
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message().find("-o/etc/x") != std::string::npos);
  CHECK(ValidateProperties(Props({{"compile", "sm_90a,"}})).code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("RequirementsMatch: compile is a list membership, other keys are equality") {
  PropertyList worker = Props({{"arch", "sm_90"},
                               {"compile", "sm_90,sm_90a,sm_100,sm_100a"},
                               {"gpu", "NVIDIA H200"},
                               {"nvcc", "13.0"}});
  CHECK(RequirementsMatch(Props({}), worker));
  CHECK(RequirementsMatch(Props({{"compile", "sm_90a"}}), worker));
  CHECK(RequirementsMatch(Props({{"compile", "sm_100a"}}), worker));
  CHECK(RequirementsMatch(Props({{"compile", "sm_90a,sm_100a"}}), worker));
  CHECK_FALSE(RequirementsMatch(Props({{"compile", "sm_120a"}}), worker));
  // A substring of the list is not a member.
  CHECK_FALSE(RequirementsMatch(Props({{"compile", "sm_9"}}), worker));
  CHECK(RequirementsMatch(Props({{"arch", "sm_90"}, {"gpu", "NVIDIA H200"}}), worker));
  CHECK_FALSE(RequirementsMatch(Props({{"arch", "sm_100"}}), worker));
  CHECK_FALSE(RequirementsMatch(Props({{"driver", "13.0"}}), worker));
  CHECK_FALSE(RequirementsMatch(Props({{"arch", "sm_90"}}), Props({{"compile", "sm_90"}})));
}

TEST_CASE("RequirementsMatch: a \"*\" requirement needs the key with any value") {
  PropertyList with_ncu = Props({{"arch", "sm_90"}, {"compile", "sm_90a"}, {"ncu", "2025.3.1"}});
  PropertyList without_ncu = Props({{"arch", "sm_90"}, {"compile", "sm_90a"}});
  CHECK(RequirementsMatch(Props({{"arch", "sm_90"}, {"compile", "sm_90a"}, {"ncu", "*"}}), with_ncu));
  CHECK_FALSE(RequirementsMatch(Props({{"arch", "sm_90"}, {"compile", "sm_90a"}, {"ncu", "*"}}), without_ncu));
  // The other requirements still apply next to an any-value one.
  CHECK_FALSE(RequirementsMatch(Props({{"arch", "sm_100"}, {"ncu", "*"}}), with_ncu));
  // "*" is the only wildcard: a pattern-looking value is an exact value.
  CHECK_FALSE(RequirementsMatch(Props({{"ncu", "2025.*"}}), with_ncu));
  CHECK(RequirementsMatch(Props({{"ncu", "2025.3.1"}}), with_ncu));
}

TEST_CASE("ValidateProperties knows ncu and accepts \"*\" for any key") {
  CHECK(ValidateProperties(Props({{"arch", "sm_90"}, {"ncu", "2025.3.1"}, {"nvcc", "13.0"}})).ok());
  CHECK(ValidateProperties(Props({{"arch", "*"}, {"compile", "*"}, {"ncu", "*"}})).ok());
}

TEST_CASE("problems lists NAME@HEX16 entries, and a requirement needs its entry in the worker's list") {
  CHECK(ValidateProperties(Props({{"problems", "attention_fwd@0123456789abcdef,gemm@fedcba9876543210"}})).ok());
  for (const char* bad : {"attention_fwd", "attention_fwd@0123", "attention_fwd@0123456789ABCDEF",
                          "Attention@0123456789abcdef", "a@0123456789abcdef,", "a@b@0123456789abcdef"}) {
    INFO(bad);
    absl::Status status = ValidateProperties(Props({{"problems", bad}}));
    CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(status.message()), Catch::Contains("attention_fwd@0123456789abcdef"));
  }
  PropertyList worker = Props({{"arch", "sm_90"}, {"problems", "attention_fwd@0123456789abcdef,gemm@1111111111111111"}});
  CHECK(RequirementsMatch(Props({{"problems", "gemm@1111111111111111"}}), worker));
  CHECK(RequirementsMatch(Props({{"problems", "attention_fwd@0123456789abcdef"}}), worker));
  CHECK_FALSE(RequirementsMatch(Props({{"problems", "gemm@2222222222222222"}}), worker));  // other files
  CHECK_FALSE(RequirementsMatch(Props({{"problems", "softmax@0123456789abcdef"}}), worker));
  CHECK_FALSE(RequirementsMatch(Props({{"problems", "gemm@1111111111111111"}}), Props({{"arch", "sm_90"}})));
}

}  // namespace
}  // namespace kseek
