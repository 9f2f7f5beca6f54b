# Built in the thirty-third session for the next one (not run yet: no machine came).
# `carry: [".whlx", ".lab70/so.tar.xz", ".lab71/so.tar.xz", ".lab72/so.tar.xz"]`, timeout_s 300. ms32, ms16 (s41_ms32.patch, s41_ms16.patch; .lab70 by `bash
# docs/kernels/sm90_lab/build.sh .lab70 docs/kernels/sm90_lab/s41_ms32.patch
# docs/kernels/sm90_lab/s41_ms16.patch`): d = 128 cuts tiles of at least 32 (16) key blocks in the
# tail launch, not 48 (host only: every kernel's SASS identical to head's). The perf bench had
# d = 128 full s = 4096 (32 blocks a tile, 15.5 tiles per CTA, no tail) at 1.006x FA3 while
# s = 2048 and 8192 read 1.09-1.11x (58-03-bench.txt). f64 (s41_f64.patch, .lab71): d = 256 full
# inputs on the causal kernels' 64-key blocks (d256 full s2048, 25.6 blocks of 80, read 0.990x
# FA3 there; 64 measured even in s14, before every change since). t24, t48 (s41_t24.patch,
# s41_t48.patch, .lab72): d = 256 full inputs (80-key blocks) get a tail launch, cutting tiles of
# at least 24 (48) blocks: d = 256's 1024 perf tiles are 7.8 rounds of 132 CTAs. Its consumers
# stage O over their own Q rows (the V ring's producer-side store needs every consumer at every
# store), store it themselves and release Q once it is read. New kernels (walk 2 at d = 256
# n80), 24 bytes of spills in them; every other kernel SASS-identical to head. t8 (s12) lost 3%
# splitting d = 256 tiles of 8+ blocks. Checks, then four passes at d = 128 and two at d = 256.
# Thirty-fourth session: hl (.lab74, carry ".lab74/so.tar.xz" too) is checked only: the producer's
# O slot from the helpers StoreTile uses (OStageBlock, OStageAddr), which changes a few of the
# producer's instructions in the six d = 256 kernels.
source docs/kernels/sm90_lab/call.sh && wheels > /dev/null || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab70/so.tar.xz || exit 1
tar -C .lab5x -xJf .lab71/so.tar.xz --wildcards "*f64*" || exit 1
tar -C .lab5x -xJf .lab72/so.tar.xz --wildcards "*t24*" "*t48*" || exit 1
tar -C .lab5x -xJf .lab74/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-240} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check ms32 ms16 f64 t24 t48 hl
  ok=$(passed ms32 ms16)
  [ -n "$ok" ] && bench2 128 30 $ok && room 30 && bench1 3 128 head $ok && room 30 && bench1 4 128 ms16 ms32 head
  ok256=$(passed f64 t24 t48)
  [ -n "$ok256" ] && bench2 256 25 $ok256
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
pack_lab
