# Twenty-second session, device call 4 (`carry: [".whlx", ".lab12", ".lab29/so.tar.xz",
# ".lab28/so.tar.xz"]`, timeout_s 600): d = 64 causal's two-consumer threshold, d = 256 causal's
# 64-key blocks once more, and the figure of the committed file (c64 adopted).
#   1. t3 and t4 (`s24_t3.patch`, `s24_t4.patch`: d = 64 causal on two consumer warpgroups up to
#      s = 1024 and 4096 instead of 2048), two d = 64 bench passes against head;
#   2. one d = 256 pass: head (64-key blocks for causal) against c80 (.lab28's head, the file
#      before: 80-key blocks for causal s > 1024);
#   3. the figure of the committed file through the bundle (s15_run3.sh, NODE_SECONDS default 330:
#      on the H100 that came, too short for verify and bench together; the bench was cut off and
#      call 5 ran it alone, as the notebook says).
# .lab29 is built here by `bash docs/kernels/sm90_lab/build.sh .lab29 docs/kernels/sm90_lab/s24_t3.patch
# docs/kernels/sm90_lab/s24_t4.patch`, .lab28 by s24_run1.sh's line; .whlx and .lab12 as in
# s23_run1.sh (.lab12/sm90.cu the committed file).
ROOT=$PWD
python3 docs/kernels/sm90_lab/wheelx.py unpack .whlx/*.whl.tar.xz /tmp/wheels > /dev/null || exit 1
mkdir -p .whl .whl2 && mv /tmp/wheels/fa3*.whl .whl/ && mv /tmp/wheels/*.whl .whl2/ || exit 1
mkdir -p .lab29x /tmp/lab28 && tar -C .lab29x -xJf .lab29/so.tar.xz && tar -C /tmp/lab28 -xJf .lab28/so.tar.xz &&
  cp /tmp/lab28/sm90_head.so .lab29x/sm90_c80.so || exit 1
(
  BUDGET=${LAB_BUDGET:-150}
  WHEELS=.whl LAB=.lab29x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  nvidia-smi --query-gpu=name --format=csv,noheader
  bench1 1 64 head t3 t4
  room 40 && bench1 2 64 t4 t3 head
  room 30 && bench1 3 256 head c80
  room 0
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
# At most 8 files come back: the lab's in lab.tgz, the figure's verify and bench reports and
# its results.tgz.
(cd $OUT && tar -czf lab.tgz bench-*.txt && rm -f bench-*.txt)
mkdir -p /tmp/fig && cd "$ROOT" &&
  OUT=/tmp/fig NODE_SECONDS=${NODE_SECONDS:-330} bash docs/kernels/sm90_lab/s15_run3.sh
cp /tmp/fig/02-verify.txt /tmp/fig/03-bench.txt /tmp/fig/results.tgz $OUT/
