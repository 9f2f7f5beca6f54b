#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ with clang (AddressSanitizer and
# UBSan) in build-fuzz/ and fuzzes each parser from its seeds. Without
# arguments (CI): 5000 inputs each from seed 1, the same every run, at most
# 120 s each. With SECONDS: that long each, from a new seed every time (to
# look for new bugs). A crash fails the run and leaves its input as
# build-fuzz/tests/fuzz/crash-NAME-*: add it to tests/fuzz/seeds/NAME/ with
# the fix, so that the regular build replays it from then on.
#
#   bash deploy/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ge 1 ]; then
  budget=(-DKSEEK_FUZZ_SECONDS="$1" -DKSEEK_FUZZ_RUNS=-1 -DKSEEK_FUZZ_SEED=0)
else
  budget=(-DKSEEK_FUZZ_SECONDS=120 -DKSEEK_FUZZ_RUNS=5000 -DKSEEK_FUZZ_SEED=1)
fi
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DKSEEK_FUZZ=ON "${budget[@]}" >/dev/null
targets=$(sed -n 's/^  "\([a-z_]*\)|.*/fuzz_\1/p' tests/fuzz/CMakeLists.txt)
# shellcheck disable=SC2086  # one word per target
ninja -C build-fuzz -j"$(nproc)" $targets
ctest --test-dir build-fuzz -L fuzz --output-on-failure
