# For the session after the twenty-first: ONE call for the lab and the figure,
#   carry: [".whlx", ".lab12", ".lab27/so.tar.xz"]   (about 59 MB with the checkout)
# .whlx holds the fa3-fwd and cudnn-frontend wheels repacked with xz (`python3
# docs/kernels/sm90_lab/wheelx.py pack .whl/fa3*.whl .whl2/*.whl .whlx`: 27.6 + 11.6 MB -> 9.2 +
# 5.8 MB), which is what lets the wheels, the bundle and the checkout travel together (before,
# the figure took a call carrying .whl and a second one within the 30 s the machine waits); the
# wheels themselves come from `pip download` as docs/baselines.md shows (.whl2 holding the
# cudnn-frontend one).
# .lab12 holds the bundle (`KSEEK_WHEELS=/nonexistent bash deploy/make_bundle.sh`, packed as
# .lab12/kseek-bundle.tar.xz) and the committed file as .lab12/sm90.cu. .lab27 is built here by
#   bash docs/kernels/sm90_lab/build.sh .lab27 docs/kernels/sm90_lab/s23_fires.patch \
#     docs/kernels/sm90_lab/s23_prev.patch docs/kernels/sm90_lab/s23_nomx.patch
# (head = the committed sm90.cu: the vote, a firing raising the max to the block's, mx1 at d = 64;
# fires = head counting its votes; prev = e601116's file, before the vote; nomx = head without
# mx1). Steps:
#   1. fires.py on fires: how often the vote fires now that a firing takes the block's max
#      (twenty-first session, before it: 0.2-1.3% of causal steps, 1-7% of firings raising it);
#   2. nomx's checks; bench passes of head and prev at d = 128 and 256, head, prev and nomx at
#      d = 64: the gain of the twentieth and twenty-first sessions on whatever machine comes, and
#      whether mx1 still counts (LAB_BUDGET, default 130 s, bounds steps 1-2);
#   3. the figure of the committed file through the bundle (s15_run3.sh: verify --scenarios all,
#      bench --scenarios perf --baseline fa3,cudnn --rounds 2; NODE_SECONDS default 420).
# Send with timeout_s 600.
ROOT=$PWD
python3 docs/kernels/sm90_lab/wheelx.py unpack .whlx/*.whl.tar.xz /tmp/wheels || exit 1
mkdir -p .whl .whl2 && mv /tmp/wheels/fa3*.whl .whl/ && mv /tmp/wheels/*.whl .whl2/ || exit 1
mkdir -p .lab27x && tar -C .lab27x -xJf .lab27/so.tar.xz || exit 1
(
  BUDGET=${LAB_BUDGET:-130}
  WHEELS=.whl LAB=.lab27x source docs/kernels/sm90_lab/lab.sh || exit 1
  nvidia-smi --query-gpu=name --format=csv,noheader
  timeout 60 python3 fires.py $L/sm90_fires.so > $OUT/fires.txt 2>&1; cat $OUT/fires.txt
  check nomx
  room 70 && bench1 1 128 head prev
  room 50 && bench1 1 64 head prev nomx
  room 30 && bench1 1 256 head prev
  room 0
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
  python3 cmp.py $OUT/bench-d*-1.txt --vs fa3 | tail -2
)
cd "$ROOT" && NODE_SECONDS=${NODE_SECONDS:-420} bash docs/kernels/sm90_lab/s15_run3.sh
