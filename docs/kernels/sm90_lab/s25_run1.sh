# For the session after the twenty-second: ONE call, the lab's qh, ov and dh and the figure of
# the committed file, `carry: [".whlx", ".lab12", ".lab30/so.tar.xz"]`, timeout_s 600.
# .lab30 is built here by `bash docs/kernels/sm90_lab/build.sh .lab30
# docs/kernels/sm90_lab/s25_qh.patch docs/kernels/sm90_lab/s25_ov.patch
# docs/kernels/sm90_lab/s25_dh.patch` (head = the committed file; qh = each consumer's rows of
# the Q buffer on barriers of their own where O goes out through Q; ov = O staged over the V ring
# instead, Q released after the tile's last S product; both at d = 256 alone, their d = 64 and
# 128 kernels head's; dh = consumer 0's first product of a diagonal tile with the lower 64 keys
# alone, in the d = 64 two-consumer kernels alone, every other kernel head's, `sass.py same`); .whlx and .lab12 as in s23_run1.sh (.lab12/sm90.cu the committed file; check with cmp).
# The wheels and the figure's steps are call.sh's.
#   1. the variants' checks and rising.py; two d = 256 bench passes, head, qh and ov interleaved
#      with FA3, and two d = 64 passes, head and dh
#      (the twenty-second session's ncu: at full s = 512 the tensor pipe is busy 60% of the time
#      against FA3's 66%, the time between tiles);
#   2. ncu at d = 128 causal s = 2048 and 4096, head against FA3 (on the H200 the twenty-second
#      session's figure read 1.01 of FA3 there, against 1.05-1.13 without the mask), as time allows;
#   3. the figure of the committed file through the bundle (s15_run3.sh, NODE_SECONDS default
#      420: 330 was too short for verify and bench together on an H100).
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab30x && tar -C .lab30x -xJf .lab30/so.tar.xz || exit 1
(
  BUDGET=${LAB_BUDGET:-150}
  WHEELS=.whl LAB=.lab30x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  nvidia-smi --query-gpu=name --format=csv,noheader
  check qh ov dh
  # Only variants whose checks all passed are timed (a hang would eat the call's time).
  ok=$(for v in qh ov dh; do grep -q 'CHECK: \([0-9]*\)/\1 passed' $OUT/check-$v.txt && echo $v; done)
  echo "timed: head $ok"
  [ -n "$ok" ] && timeout 90 python3 rising.py $(for v in $ok; do echo $L/sm90_$v.so; done) \
    > $OUT/rising.txt 2>&1; tail -4 $OUT/rising.txt
  d256=$(echo $ok | tr ' ' '\n' | grep -v dh)
  if [ -n "$d256" ]; then
    room 30 && bench1 1 256 head $d256
    room 30 && bench1 2 256 $(echo $d256 | tr ' ' '\n' | tac) head
  fi
  if echo $ok | grep -qw dh; then
    room 30 && bench1 1 64 head dh
    room 30 && bench1 2 64 dh head
  fi
  for shape in "128 1 2048" "128 1 4096"; do
    for k in $L/sm90_head.so fa3; do room 15 && ncu1 $k $shape; done
  done
  room 0
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
  grep -E '^#####|^  [A-Za-z_]+.*\(|gpu__time|sm__cycles_elapsed|pipe_tensor|pipe_xu|issue_active|inst_executed.sum|lts__t_sector|xbar2l1tex|Warp Cycles Per Issued' $OUT/ncu.txt | cut -c1-150
)
figure
