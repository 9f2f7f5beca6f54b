# Built in the thirty-fourth session for the next one; os added in the thirty-fifth.
# `carry: [".whlx", ".lab12", ".lab77/so.tar.xz"]`, timeout_s 560. .lab77 by `bash
# docs/kernels/sm90_lab/build.sh .lab77 docs/kernels/sm90_lab/s42_t128.patch
# docs/kernels/sm90_lab/s42_t192.patch docs/kernels/sm90_lab/s43_os.patch` (~100 s).
# t128, t192: s41_t48.patch's tail launch for d = 256 (consumers stage O over their own Q rows
# and release Q once the store has read it), moved onto the 64-key kernels f64 left, cutting
# only tiles of at least 128 (192) key blocks: on the perf grid full s = 8192 and 16384 (16384
# alone). t24 and t48 gained 1.5% at s = 16384 in both of call 1's passes and lost at s = 2048
# and 4096. os: StoreTile's V-slot index from one helper (OStageSlot) rather than computed
# twice; d64/d128 SASS identical to head, d256 the same instruction count with its
# uniform-register epilogue reordered. Checks (154 shapes: two new ones give t128 and t192 a
# last wave to cut), three passes at d = 256, then on an H200 the figure of the committed file
# (.lab12/sm90.cu); elsewhere the lab's files alone.
source docs/kernels/sm90_lab/call.sh && wheels > /dev/null || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab77/so.tar.xz || exit 1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
(
  BUDGET=${LAB_BUDGET:-150} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check t128 t192 os
  ok=$(passed t128 t192 os)
  [ -n "$ok" ] && bench2 256 25 $ok && room 25 && bench1 3 256 head $ok
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
lab_end "$card"
