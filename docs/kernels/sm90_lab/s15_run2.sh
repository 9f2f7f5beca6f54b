# Fifteenth session, device call 2 (`carry: [".whl", ".lab15"]`, .whl holding fa3-fwd 0.0.3 only):
# lands the FA3 wheel for the figure's calls 3 and 4 (s15_run3.sh), and on the way times one
# change against head (8db390e's file, ka adopted):
#   lv  the stale-max softmax (d >= 128) decides whether to raise the max from each thread's own
#       part of its rows and a warp vote, without the two shuffles per row; the shuffles run only
#       on the (rare) rescale path. Before, every block's exponentials waited for them.
# lv's d = 64 kernels (no stale max) differ from head's only in instruction order (2888 against 2896
# instructions). Every d twice, bf16, interleaved with FA3.
ls -la .whl
WHEELS=.whl LAB=.lab15 source docs/kernels/sm90_lab/lab.sh || exit 1
check head lv
for pass in 1 2; do
  for d in 128 256 64; do
    timeout 100 python3 harness.py $L/sm90_head.so $L/sm90_lv.so --bench --fa3 --only-d $d \
      --only-dtype bf16 --reps 10 > $OUT/bench-d$d-$pass.txt 2>&1
  done
done
summary d128-1 d128-2 d256-1 d256-2 d64-1 d64-2
