# Built in the thirty-seventh session for the next. `carry: [".whlx", ".lab12",
# ".lab87/so.tar.xz"]`, timeout 600; ends with the committed file's figure (kseek verify
# --scenarios all, then the perf bench with fa3 and cudnn) on whatever card comes (FIGURE_ANY;
# NODE_SECONDS 420), NO_FIGURE=1 skips it.
# .lab12: the bundle and the committed file (s23_run1.sh's header says how). .lab87 by
# `bash docs/kernels/sm90_lab/build.sh .lab87 docs/kernels/sm90_lab/s48_floor0.patch`.
# floor0 (s48_floor0.patch): kMinShortPoolKeys 0, the short-input pool at any length. On
# `tails.py --grid tiny` (few pairs at 256-768 keys) the planner sends six of the seven
# few-pair shapes to the pool under floor0 (d = 64 s = 768 h = 20 b = 2 and the perf-grid
# control stay on round-robin), none under head: whether the pool's launch cost eats what it
# saves below 1024 keys. Checked, then the tiny grid, head and floor0 with FA3, two passes.
source docs/kernels/sm90_lab/call.sh && wheels > /dev/null || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab87/so.tar.xz || exit 1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
(
  BUDGET=${LAB_BUDGET:-90} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check floor0
  ok=$(passed floor0)
  for pass in 1 2; do
    room 15 && timeout 45 python3 tails.py --grid tiny $L/sm90_head.so \
      $(for v in $ok; do echo $L/sm90_$v.so; done) > $OUT/tiny-$pass.txt 2>&1
    tail -n 3 $OUT/tiny-$pass.txt
  done
)
FIGURE_ANY=1 NODE_SECONDS=${NODE_SECONDS:-420} lab_end "$card"
