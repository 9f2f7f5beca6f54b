#include "worker/ptxas_report.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kseek {
namespace {

using kernelseek::v1::Diagnostic;
using kernelseek::v1::KernelResources;

// Captured from nvcc 13.0 (V13.0.88) -Xptxas -v on this repo's build machine.
// sm_90a, -maxrregcount=16, a kernel with a 48-float array and a __noinline__ helper:
constexpr char kPtxasSm90a[] =
    R"KS(ptxas warning : For profile sm_90a adjusting per thread register count of 16 to lower bound of 24
ptxas info    : Overriding maximum register limit 256 for '_Z5heavyPfPKfi' with  24 of maxrregcount option
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z5heavyPfPKfi' for 'sm_90a'
ptxas info    : Function properties for _Z5heavyPfPKfi
    1008 bytes stack frame, 1728 bytes spill stores, 1784 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 1008 bytes cumulative stack size
ptxas info    : Compile time = 59.387 ms
ptxas info    : Function properties for _Z6helperPfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
)KS";
// sm_100a, -maxrregcount=32, a saxpy kernel with __shared__ + __syncthreads and a small kernel:
constexpr char kPtxasSm100a[] =
    R"KS(ptxas info    : Overriding maximum register limit 256 for '_Z5spillPfi' with  32 of maxrregcount option
ptxas info    : Overriding maximum register limit 256 for '_Z5saxpyfPKfPfi' with  32 of maxrregcount option
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z5spillPfi' for 'sm_100a'
ptxas info    : Function properties for _Z5spillPfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers
ptxas info    : Compile time = 6.679 ms
ptxas info    : Compiling entry function '_Z5saxpyfPKfPfi' for 'sm_100a'
ptxas info    : Function properties for _Z5saxpyfPKfPfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 1 barriers, 1024 bytes smem
ptxas info    : Compile time = 2.104 ms
)KS";
// Front-end errors, compiled as /tmp/h1/w/bad.cu:
constexpr char kFrontEndErrors[] = R"KS(/tmp/h1/w/bad.cu(4): error: expected a ";"
  }
  ^

/tmp/h1/w/bad.cu(2): warning #177-D: variable "unused_var" was declared but never referenced
    int unused_var;
        ^

Remark: The warnings can be suppressed with "-diag-suppress <warning-number>"

/tmp/h1/w/bad.cu(5): error: identifier "undefined_thing" is undefined
  __attribute__((global)) void k2(float* o) { o[0] = undefined_thing; }
                                                     ^

2 errors detected in the compilation of "/tmp/h1/w/bad.cu".
)KS";
// Inline-asm PTX error caught by ptxas, compiled as /tmp/h1/w/ptx.cu:
constexpr char kPtxasErrors[] =
    R"KS(/tmp/h1/w/ptx.cu(2): warning #177-D: variable "unused_var" was declared but never referenced
    int unused_var;
        ^

Remark: The warnings can be suppressed with "-diag-suppress <warning-number>"

ptxas /tmp/tmpxft_00001f80_00000000-6_ptx.ptx, line 24; error   : Unknown modifier '.instr'
ptxas /tmp/tmpxft_00001f80_00000000-6_ptx.ptx, line 24; error   : Not a name of any known instruction: 'bogus'
ptxas fatal   : Ptx assembly aborted due to errors
)KS";
// Host-compiler error, compiled as /tmp/h1/w/inc.cu:
constexpr char kHostErrors[] =
    R"KS(/tmp/h1/w/inc.cu:1:10: fatal error: missing.h: No such file or directory
    1 | #include <missing.h>
      |          ^~~~~~~~~~~
compilation terminated.
)KS";

TEST_CASE("ParsePtxasReport reads registers, spills and stack of an sm_90a kernel and its helper") {
  std::vector<KernelResources> r = ParsePtxasReport(kPtxasSm90a);
  REQUIRE(r.size() == 2);
  CHECK(r[0].function() == "_Z5heavyPfPKfi");
  CHECK(r[0].arch() == "sm_90a");
  CHECK(r[0].registers() == 24);
  CHECK(r[0].stack_frame_bytes() == 1008);
  CHECK(r[0].spill_store_bytes() == 1728);
  CHECK(r[0].spill_load_bytes() == 1784);
  CHECK(r[0].barriers() == 0);
  CHECK(r[0].shared_bytes() == 0);
  // The non-inlined device function: stack and spills only.
  CHECK(r[1].function() == "_Z6helperPfi");
  CHECK(r[1].arch() == "sm_90a");
  CHECK(r[1].registers() == 0);
  CHECK(r[1].spill_store_bytes() == 0);
}

TEST_CASE("ParsePtxasReport reads barriers and shared memory of sm_100a kernels") {
  std::vector<KernelResources> r = ParsePtxasReport(kPtxasSm100a);
  REQUIRE(r.size() == 2);
  CHECK(r[0].function() == "_Z5spillPfi");
  CHECK(r[0].registers() == 12);
  CHECK(r[0].barriers() == 0);
  CHECK(r[1].function() == "_Z5saxpyfPKfPfi");
  CHECK(r[1].arch() == "sm_100a");
  CHECK(r[1].registers() == 12);
  CHECK(r[1].barriers() == 1);
  CHECK(r[1].shared_bytes() == 1024);
  CHECK(r[1].constant_bytes() == 0);
}

TEST_CASE("ParsePtxasReport sums cmem banks and takes the arch for functions listed first") {
  // Written by hand in the layout of older nvcc releases (12.x and before),
  // which print cmem banks and may list device functions before the kernel.
  const char* kOlder =
      "ptxas info    : 0 bytes gmem, 24 bytes cmem[3]\n"
      "ptxas info    : Function properties for _Z6helperv\n"
      "    16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Compiling entry function '_Z1kPf' for 'sm_80'\n"
      "ptxas info    : Function properties for _Z1kPf\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 4096 bytes smem, 360 bytes cmem[0], 8 "
      "bytes cmem[2]\n";
  std::vector<KernelResources> r = ParsePtxasReport(kOlder);
  REQUIRE(r.size() == 2);
  CHECK(r[0].function() == "_Z6helperv");
  CHECK(r[0].arch() == "sm_80");
  CHECK(r[0].stack_frame_bytes() == 16);
  CHECK(r[0].spill_store_bytes() == 8);
  CHECK(r[1].registers() == 40);
  CHECK(r[1].shared_bytes() == 4096);
  CHECK(r[1].constant_bytes() == 368);
}

TEST_CASE("ParsePtxasReport of output without a report is empty") {
  CHECK(ParsePtxasReport("").empty());
  CHECK(ParsePtxasReport(kFrontEndErrors).empty());
}

TEST_CASE("ParseNvccDiagnostics maps front-end errors to the user's file name and line") {
  std::vector<Diagnostic> d =
      ParseNvccDiagnostics(kFrontEndErrors, "/tmp/h1/w/bad.cu", "kernels/naive.cu");
  REQUIRE(d.size() == 3);
  CHECK(d[0].file() == "kernels/naive.cu");
  CHECK(d[0].line() == 4);
  CHECK(d[0].severity() == Diagnostic::SEVERITY_ERROR);
  CHECK(d[0].message() == "expected a \";\"");
  CHECK(d[1].line() == 2);
  CHECK(d[1].severity() == Diagnostic::SEVERITY_WARNING);
  CHECK(d[1].message() == "variable \"unused_var\" was declared but never referenced [#177-D]");
  CHECK(d[2].line() == 5);
  CHECK(d[2].message() == "identifier \"undefined_thing\" is undefined");
  for (const Diagnostic& x : d) CHECK(x.file().find("/tmp") == std::string::npos);
}

TEST_CASE("ParseNvccDiagnostics reports ptxas errors on PTX lines without a source line") {
  std::vector<Diagnostic> d = ParseNvccDiagnostics(kPtxasErrors, "/tmp/h1/w/ptx.cu", "ptx.cu");
  REQUIRE(d.size() == 4);
  CHECK(d[0].severity() == Diagnostic::SEVERITY_WARNING);
  CHECK(d[0].file() == "ptx.cu");
  CHECK(d[1].file() == "ptxas");
  CHECK(d[1].line() == 0);
  CHECK(d[1].severity() == Diagnostic::SEVERITY_ERROR);
  CHECK(d[1].message() == "PTX line 24: Unknown modifier '.instr'");
  CHECK(d[3].file() == "ptxas");
  CHECK(d[3].message() == "Ptx assembly aborted due to errors");
}

TEST_CASE("ParseNvccDiagnostics reads host-compiler errors and tool warnings") {
  std::vector<Diagnostic> d = ParseNvccDiagnostics(kHostErrors, "/tmp/h1/w/inc.cu", "inc.cu");
  REQUIRE(d.size() == 1);
  CHECK(d[0].file() == "inc.cu");
  CHECK(d[0].line() == 1);
  CHECK(d[0].severity() == Diagnostic::SEVERITY_ERROR);
  CHECK(d[0].message() == "missing.h: No such file or directory");

  d = ParseNvccDiagnostics(kPtxasSm90a, "$WORK/k.cu", "k.cu");
  REQUIRE(d.size() == 1);
  CHECK(d[0].file() == "ptxas");
  CHECK(d[0].severity() == Diagnostic::SEVERITY_WARNING);
  CHECK(d[0].message().find("lower bound of 24") != std::string::npos);

  d = ParseNvccDiagnostics(
      "nvcc fatal   : Unsupported gpu architecture 'sm_91'\n"
      "<command-line>: error: macro names must be identifiers\n",
      "$WORK/k.cu", "k.cu");
  REQUIRE(d.size() == 2);
  CHECK(d[0].file() == "nvcc");
  CHECK(d[0].severity() == Diagnostic::SEVERITY_ERROR);
  CHECK(d[1].file() == "<command-line>");
  CHECK(d[1].line() == 0);
}

TEST_CASE("ParseNvccDiagnostics keeps other files' names, e.g. a CUDA header") {
  std::vector<Diagnostic> d = ParseNvccDiagnostics(
      "/usr/local/cuda/include/cuda_fp16.h(12): error: something\n", "$WORK/k.cu", "k.cu");
  REQUIRE(d.size() == 1);
  CHECK(d[0].file() == "/usr/local/cuda/include/cuda_fp16.h");
}

}  // namespace
}  // namespace kseek
