# Twelfth session, device call 3 (`carry: [".lab13"]`):
#  - sm90_ts, the file as it stands (tmax everywhere, four partial row sums at d = 64): checks, and
#    one pass at d = 64 and 128 against sm90_base (19c4695), interleaved with FA3.
#  - kvlong.py: causal against full where the mask removes almost nothing (s_q << s_k), for FA3
#    (128-key blocks when causal, 176 when full at d = 128), sm90_base and sm90_nosoft.
LAB=.lab13 source docs/kernels/sm90_lab/lab.sh || exit 1
check ts
timeout 120 python3 kvlong.py $L/sm90_base.so $L/sm90_nosoft.so > $OUT/kvlong.txt 2>&1
for d in 64 128; do
  timeout 90 python3 harness.py $L/sm90_base.so $L/sm90_ts.so --bench --fa3 --only-d $d --only-dtype bf16 --reps 10 > $OUT/bench-d$d.txt 2>&1
done
for d in 64 128; do echo "== d$d"; python3 cmp.py $OUT/bench-d$d.txt --vs fa3 2>&1 | tail -7; done
cat $OUT/kvlong.txt | sed 's/ | /\n    /g'
