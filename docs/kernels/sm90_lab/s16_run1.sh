# Sixteenth session, device call 1 (`carry: [".whl", ".lab16"]`, .whl holding fa3-fwd 0.0.3 only):
# lands the FA3 wheel for the figure's call 2 (s15_run3.sh, run in the end on mn's file), and on the way times
# one change against head (bee8395's file, lv adopted):
#   mn  fewer instructions in the row max: ThreadRowMax seeds its four partial maxima from the first
#       four column pairs instead of -inf (6 FMNMX fewer a block), and the stale-max test compares
#       the thread's max with row_max + 8 / scale_log2 (one add, no subtract and multiply a row).
#   hs  mn, and at d = 128 the unmasked blocks' S as two wgmma groups of 64 keys each: the
#       stale-max softmax of the first half runs while the second is computed (its probabilities
#       scaled again in the rare case the second half raises the max). d = 128 only: its d = 64
#       and 256 kernels are mn's (sass.py same).
# Every d twice, bf16, interleaved with FA3.
ls -la .whl
WHEELS=.whl LAB=.lab16 source docs/kernels/sm90_lab/lab.sh || exit 1
check head mn hs
for pass in 1 2; do
  timeout 120 python3 harness.py $L/sm90_head.so $L/sm90_mn.so $L/sm90_hs.so --bench --fa3 \
    --only-d 128 --only-dtype bf16 --reps 10 > $OUT/bench-d128-$pass.txt 2>&1
  for d in 256 64; do
    timeout 100 python3 harness.py $L/sm90_head.so $L/sm90_mn.so --bench --fa3 --only-d $d \
      --only-dtype bf16 --reps 10 > $OUT/bench-d$d-$pass.txt 2>&1
  done
done
summary d128-1 d128-2 d256-1 d256-2 d64-1 d64-2
