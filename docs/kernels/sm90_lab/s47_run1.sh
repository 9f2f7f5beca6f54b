# Built in the thirty-seventh session. `carry: [".whlx", ".lab12", ".lab84/so.tar.xz"]`,
# timeout 600; ends with the committed file's figure on whatever card comes (FIGURE_ANY;
# NODE_SECONDS 400), NO_FIGURE=1 skips it.
# .lab84 by `bash docs/kernels/sm90_lab/build.sh .lab84 docs/kernels/sm90_lab/s47_pall.patch`.
# pall (s47_pall.patch): causal inputs short of MinPoolKeys take the pool too where the
# planner estimates it at least 20% shorter than round-robin (pool_est.cu: the perf grid's at
# 1.00-1.02, kept on round-robin; few (batch, head) pairs at 1.26-1.71). Host only, SASS as
# head's. Checked, then tails.py --grid short, head and pall with FA3, two passes.
source docs/kernels/sm90_lab/call.sh && wheels > /dev/null || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab84/so.tar.xz || exit 1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
(
  BUDGET=${LAB_BUDGET:-100} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check pall
  ok=$(passed pall)
  for pass in 1 2; do
    room 20 && timeout 60 python3 tails.py --grid short $L/sm90_head.so \
      $(for v in $ok; do echo $L/sm90_$v.so; done) > $OUT/short-$pass.txt 2>&1
    tail -n 3 $OUT/short-$pass.txt
  done
)
FIGURE_ANY=1 NODE_SECONDS=${NODE_SECONDS:-400} lab_end "$card"
