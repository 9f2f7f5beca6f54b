#include "common/profile_text.h"

#include <catch2/catch.hpp>
#include <string>

namespace kseek {
namespace {

using kernelseek::v1::KernelProfile;
using kernelseek::v1::ProfileResult;

KernelProfile* AddKernel(ProfileResult* profile, const std::string& name, double duration_us) {
  KernelProfile* k = profile->add_kernels();
  k->set_kernel(name);
  k->set_launches(1);
  k->set_block_size("(128, 1, 1)");
  k->set_grid_size("(64, 16, 1)");
  k->set_duration_us(duration_us);
  k->set_sm_throughput_pct(63.84);
  k->set_memory_throughput_pct(41.3);
  k->set_achieved_occupancy_pct(17.9);
  k->set_theoretical_occupancy_pct(18.75);
  k->set_registers_per_thread(168);
  k->set_shared_memory_per_block_bytes(65536);
  return k;
}

void AddMetric(KernelProfile* k, const std::string& name, const std::string& value,
               const std::string& unit) {
  kernelseek::v1::ProfileMetric* m = k->add_metrics();
  m->set_section("Memory Workload Analysis");
  m->set_name(name);
  m->set_value(value);
  m->set_unit(unit);
}

// Two kernels of the candidate (the second profiled on several launches and
// without metrics), a passing verdict, and an ncu error about part of the run.
ProfileResult TwoKernels() {
  ProfileResult profile;
  profile.mutable_compile()->set_success(true);
  profile.set_scenario("perf-bf16-d64-full-s512");
  profile.set_gpu("NVIDIA H200");
  profile.set_ncu_version("2025.3.1");
  profile.set_command(
      "ncu --section SpeedOfLight --log-file $WORK/ncu.csv kseek-runner --kernel $WORK/kernel.so");
  profile.mutable_verdict()->set_id("perf-bf16-d64-full-s512");
  profile.mutable_verdict()->set_passed(true);
  profile.mutable_verdict()->set_max_abs_error(1e-3);
  profile.mutable_verdict()->set_error_bar(4e-3);
  KernelProfile* main = AddKernel(&profile, "attention_fwd_kernel", 845.34);
  AddMetric(main, "L2 Hit Rate", "88.10", "%");
  AddMetric(main, "Mem Pipes Busy", "12", "");
  KernelProfile* reduce = AddKernel(&profile, "lse_reduce", 3.2);
  reduce->set_launches(4);
  reduce->set_registers_per_thread(32);
  reduce->set_shared_memory_per_block_bytes(0);
  profile.set_error("ncu: ERR_NVGPUCTRPERM for launch 5");
  return profile;
}

TEST_CASE(
    "a profile with two kernels gives a heading, the verdict, a line per kernel and the error") {
  std::string text = FormatProfileText(TwoKernels(), ProfileTextOptions{.subject = "sm90.cu"});
  CHECK(
      text ==
      "profile of sm90.cu on perf-bf16-d64-full-s512 on NVIDIA H200 (Nsight Compute 2025.3.1)\n"
      "verify: passed (max error 1.0e-03 <= bar 4.0e-03)\n"
      "kernel attention_fwd_kernel block (128, 1, 1) grid (64, 16, 1): 845.3 us, SM throughput "
      "63.8%, "
      "memory throughput 41.3%, occupancy 17.9% achieved / 18.8% theoretical, 168 "
      "registers/thread, "
      "65536 B shared/block\n"
      "  L2 Hit Rate 88.10 %, Mem Pipes Busy 12\n"
      "kernel lse_reduce block (128, 1, 1) grid (64, 16, 1): 3.2 us, SM throughput 63.8%, "
      "memory throughput 41.3%, occupancy 17.9% achieved / 18.8% theoretical, 32 registers/thread, "
      "0 B shared/block, first of 4 profiled launches\n"
      "profile error: ncu: ERR_NVGPUCTRPERM for launch 5\n");
}

TEST_CASE("the ncu command line is shown only when asked for") {
  ProfileResult profile = TwoKernels();
  CHECK(
      FormatProfileText(profile, ProfileTextOptions{.subject = "version v3"}).find("ncu command") ==
      std::string::npos);
  std::string text = FormatProfileText(
      profile, ProfileTextOptions{.subject = "version v3", .show_command_line = true});
  CHECK(text.starts_with("profile of version v3 on perf-bf16-d64-full-s512"));
  CHECK(text.ends_with(
      "profile error: ncu: ERR_NVGPUCTRPERM for launch 5\n"
      "ncu command: ncu --section SpeedOfLight --log-file $WORK/ncu.csv kseek-runner "
      "--kernel $WORK/kernel.so\n"));
}

TEST_CASE("a failed verdict gives its reason - no kernel says so") {
  ProfileResult profile;
  profile.mutable_compile()->set_success(true);
  profile.set_scenario("corr-fp16-d96-decode");
  profile.mutable_verdict()->set_passed(false);
  profile.mutable_verdict()->set_reason("NaN in lse");
  profile.set_error(
      "ncu profiled no launch of the candidate's kernels (k) in scenario corr-fp16-d96-decode");
  CHECK(FormatProfileText(profile, ProfileTextOptions{.subject = "k.cu"}) ==
        "profile of k.cu on corr-fp16-d96-decode\n"
        "verify: FAIL NaN in lse\n"
        "no candidate kernel was profiled\n"
        "profile error: ncu profiled no launch of the candidate's kernels (k) in scenario "
        "corr-fp16-d96-decode\n");
}

TEST_CASE("a failed build is one line after the heading, whatever else the result holds") {
  ProfileResult profile = TwoKernels();
  profile.mutable_compile()->set_success(false);
  CHECK(FormatProfileText(profile, ProfileTextOptions{.subject = "k.cu"}) ==
        "profile of k.cu on perf-bf16-d64-full-s512 on NVIDIA H200 (Nsight Compute 2025.3.1)\n"
        "the build failed, so nothing was profiled\n");
}

TEST_CASE("bandwidth in byte/s is shown in GB/s - other units as ncu printed them") {
  ProfileResult profile = TwoKernels();
  KernelProfile* k = profile.mutable_kernels(0);
  k->clear_metrics();
  AddMetric(k, "Memory Throughput", "1680995622263.92", "byte/s");
  AddMetric(k, "L2 Hit Rate", "57.16", "%");
  AddMetric(k, "Odd Rate", "not-a-number", "byte/s");
  std::string text = FormatProfileText(profile, ProfileTextOptions{.subject = "sm90.cu"});
  CHECK(text.find("  Memory Throughput 1681.0 GB/s, L2 Hit Rate 57.16 %, "
                  "Odd Rate not-a-number byte/s\n") != std::string::npos);
}

void AddReason(google::protobuf::RepeatedPtrField<kernelseek::v1::StallReasonShare>* reasons,
               const std::string& name, int64_t samples, double share_pct) {
  kernelseek::v1::StallReasonShare* r = reasons->Add();
  r->set_reason(name);
  r->set_samples(samples);
  r->set_share_pct(share_pct);
}

TEST_CASE("hot spots follow their kernel's lines: reasons, then one line per instruction") {
  ProfileResult profile = TwoKernels();
  kernelseek::v1::KernelHotSpots* h = profile.mutable_kernels(0)->mutable_hot_spots();
  h->set_kernel("void attention_fwd_kernel<(int)64>(float *)");
  h->set_total_samples(15791);
  AddReason(h->mutable_stall_reasons(), "wait", 4404, 27.89);
  AddReason(h->mutable_stall_reasons(), "long_sb", 2841, 17.99);
  kernelseek::v1::HotSpot* spot = h->add_hot_spots();
  spot->set_sass_index(3333);
  spot->set_instruction("@!P0 BRA 0x7f13817afc60");
  spot->set_share_pct(3.0967);
  AddReason(spot->mutable_reasons(), "long_sb", 469, 2.97);
  AddReason(spot->mutable_reasons(), "dispatch", 11, 0.0697);
  AddReason(spot->mutable_reasons(), "selected", 2, 0.0127);  // "0.0%" is left out
  spot = h->add_hot_spots();
  spot->set_sass_index(7);
  spot->set_instruction(std::string(100, 'X'));
  spot->set_share_pct(12.34);
  std::string text = FormatProfileText(profile, ProfileTextOptions{.subject = "sm90.cu"});
  CHECK_THAT(text, Catch::Contains("  L2 Hit Rate 88.10 %, Mem Pipes Busy 12\n"
                                   "  stall reasons (15791 samples): wait 27.9%, long_sb 18.0%\n"
                                   "  hot spots (share of this kernel's stall samples):\n"
                                   "    3.1%  #3333 @!P0 BRA 0x7f13817afc60  (long_sb 3.0%, dispatch 0.1%)\n"
                                   "   12.3%  #7 " + std::string(69, 'X') + "...\n"
                                   "kernel lse_reduce "));
}

TEST_CASE("a kernel only the stall sampling saw gets its hot spots alone - no samples says so") {
  ProfileResult profile;
  profile.mutable_compile()->set_success(true);
  profile.set_scenario("s");
  KernelProfile* only = profile.add_kernels();
  only->set_kernel("void k(float *)");
  only->mutable_hot_spots()->set_total_samples(0);
  CHECK(FormatProfileText(profile, ProfileTextOptions{.subject = "k.cu"}) ==
        "profile of k.cu on s\n"
        "kernel void k(float *) (warp stall sampling only):\n"
        "  stall reasons: ncu took no warp stall samples\n");
}

}  // namespace
}  // namespace kseek
