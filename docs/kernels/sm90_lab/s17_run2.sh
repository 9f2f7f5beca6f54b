# Seventeenth session, device call 2 (`carry: [".whl", ".lab17c"]`): run 1's nx (no exponentials)
# gained only 1-2% at d = 128, so the exponentials do not set the step's 2530 cycles. Where the
# time goes without them: the timeline (run 7's stamps) of head (tr2), of nx (tnx), and of g0
# (tg0), a second probe with no softmax at all in the steady state (no max, no exponentials, no
# row sums: P is S packed; wrong output, timing only), and the three timed against FA3.
mkdir -p .lab17x && tar -C .lab17x -xJf .lab17c/so.tar.xz || exit 1
WHEELS=.whl LAB=.lab17x source docs/kernels/sm90_lab/lab.sh || exit 1
for v in tr2 tnx tg0; do
  for shape in "128 1 16384" "128 0 16384"; do
    echo "== $v d causal s: $shape"
    timeout 60 python3 trace.py $L/sm90_$v.so $shape 2>&1 | tail -3 | head -2
  done
done | tee $OUT/trace.txt
timeout 120 python3 harness.py $L/sm90_head.so $L/sm90_nx.so $L/sm90_g0.so --bench --fa3 \
  --only-d 128 --only-dtype bf16 --reps 10 > $OUT/bench-d128-1.txt 2>&1
summary d128-1
