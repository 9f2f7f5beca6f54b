# Built in the thirty-sixth session. `carry: [".whlx", ".lab12", ".lab83/so.tar.xz"]`, timeout 600;
# on an H200 it ends with the committed file's figure (NODE_SECONDS 340), elsewhere (or with
# NO_FIGURE=1) with the lab's files alone.
# .lab83 by `bash docs/kernels/sm90_lab/build.sh .lab83 docs/kernels/sm90_lab/s46_pick.patch
# docs/kernels/sm90_lab/s46_pk8.patch` (~80 s).
# pick (s46_pick.patch): a causal input past MinPoolKeys takes the pool unless round-robin and
# the tail launch are estimated at least 10% shorter (PoolWins: SchedulePool's estimate, the
# pool planner's own, against TailMakespan's, in half key blocks). The planner's estimates put
# the perf grid's causal inputs at 0.99-1.12 (kept on the pool), the pool grid's d = 128
# s = 6144 h = 3 and s = 7680 h = 2 at 0.64 and 0.53 (moved: mq8, which ran them without the
# pool, took 18% and 29% less time there in 67-lab.tgz), and few heads of 8192-16384 keys at
# 0.37-0.77 (moved; the few grid). Host only, every kernel SASS-identical to head's.
# pk8: pick with d = 256's pool from 8192 keys (mp8). Both checked, then the pool and the few
# grids, head, pick and pk8 interleaved with FA3, two passes, the order reversed in the second.
source docs/kernels/sm90_lab/call.sh && wheels > /dev/null || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab83/so.tar.xz || exit 1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
(
  BUDGET=${LAB_BUDGET:-150} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check pick pk8
  ok=$(passed pick pk8)
  for pass in 1 2; do
    for grid in few pool; do
      room 20 && timeout 60 python3 tails.py --grid $grid $L/sm90_head.so \
        $(for v in $ok; do echo $L/sm90_$v.so; done | { [ $pass = 2 ] && tac || cat; }) \
        > $OUT/$grid-$pass.txt 2>&1
      tail -n 4 $OUT/$grid-$pass.txt
    done
  done
)
lab_end "$card"
