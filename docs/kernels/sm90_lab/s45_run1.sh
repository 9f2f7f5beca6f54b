# Built in the thirty-fifth session for the next one (not run yet). `carry: [".whlx", ".lab12",
# ".lab81/so.tar.xz", ".lab82/so.tar.xz"]`, timeout_s 600. .lab81 by `bash
# docs/kernels/sm90_lab/build.sh .lab81 docs/kernels/sm90_lab/s44_mp8.patch
# docs/kernels/sm90_lab/s45_mq4.patch docs/kernels/sm90_lab/s45_mq8.patch
# docs/kernels/sm90_lab/s45_m8.patch` (~125 s), .lab82 by `bash docs/kernels/sm90_lab/build.sh
# .lab82 docs/kernels/sm90_lab/s45_qh2.patch docs/kernels/sm90_lab/s45_q3h.patch` (~80 s).
# qh2 (s45_qh2.patch): s25_qh's per-consumer Q rows at d = 256 (one Q buffer there), on
# today's file: each consumer's 64 rows of Q loaded (a 64-row TMA box) and released on barriers
# of their own; the producer issues consumer 0's rows, the tile's first K, then consumer 1's, so
# that consumer 0 need not wait for consumer 1's last S product before its next Q. s25 measured
# qh +0.6% over d = 256 when O still went out through Q (then moot beside ov); a trace in s40 had
# the consumers wait 1258 cycles a tile for Q at s = 512. Only the d = 256 kernels differ: 40-128
# instructions longer, steady loops 1-3 longer (scheduling), walk 2's 24 bytes of spills gone.
# q3h (s45_q3h.patch): at d = 256 Q becomes a ring of three 64-row parts (96 KB where the one
# buffer was 64; 230528 bytes of shared memory in all): tile t's consumer c reads part
# (2t + c) mod 3, so the next tile's consumer 0 rows go out early, into the part no one reads
# (the producer looks one tile ahead, as d = 128's early Q does), and its consumer 1 rows into
# consumer 0's part once consumer 0's last S product is done. d = 64 and 128 kernels
# SASS-identical to head's; d = 256's steady loops 10-13 instructions longer (the Q descriptor
# from a slot that changes by tile), 16-28 bytes of spills in the producer (the look-ahead walk).
# The causal pool's thresholds (MinPoolKeys), host only, every kernel SASS-identical to head's:
# mp8 d = 256 from 8192 keys (+0.2-0.6% at perf causal s = 4096 in six passes, 64/65-lab.tgz,
# verify 202/202 in 66-*); mq4 / mq8 d = 128 from 4096 / 8192 (the committed file's d = 128
# causal s = 4096 read 1.02x FA3 in 63-*, its lowest d = 128 row); m8 mp8 and mq8 together.
# Checks; d = 128 perf-grid passes (head, mq4, mq8); tails.py --grid pool (causal d = 128 and
# 256 inputs of 2048-7680 keys with few heads, where the pool was meant to pay) on head, mp8,
# mq4, mq8, two passes; then on an H200 the committed file's figure, elsewhere the lab's files.
source docs/kernels/sm90_lab/call.sh && wheels > /dev/null || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab81/so.tar.xz && tar -C .lab5x -xJf .lab82/so.tar.xz || exit 1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
(
  BUDGET=${LAB_BUDGET:-180} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check qh2 q3h mp8 mq4 mq8 m8
  ok=$(passed qh2 q3h)
  [ -n "$ok" ] && bench2 256 40 $ok && room 40 && bench1 3 256 head $ok
  ok=$(passed mq4 mq8)
  [ -n "$ok" ] && bench2 128 40 $ok
  ok=$(passed mp8 mq4 mq8)
  for pass in 1 2; do
    room 40 && timeout 60 python3 tails.py --grid pool $L/sm90_head.so \
      $(for v in $ok; do echo $L/sm90_$v.so; done | { [ $pass = 2 ] && tac || cat; }) \
      > $OUT/pool-$pass.txt 2>&1
    tail -n 4 $OUT/pool-$pass.txt
  done
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
NODE_SECONDS=${NODE_SECONDS:-370} lab_end "$card"
