# Twelfth session, device call 5 (`carry: [".lab13"]`), against sm90_ts (the file at a3747d3):
#  m48: d = 128 splits only tiles of 48 or more key blocks in the tail launch, instead of 16 (run 4
#       measured the tail losing 4% at causal s = 2048 and 1.5% at s = 4096);
#  pt:  with the causal mask, the tail launch takes the pool: the last full round of units and the
#       leftover as whole tiles, longest first, each to the CTA whose tiles end first (host plan,
#       at every d); full attention as before. Sources: s12_variants.patch.
# Each d twice, bf16, with FA3.
LAB=.lab13 source docs/kernels/sm90_lab/lab.sh || exit 1
check m48 pt
for pass in 1 2; do
  timeout 100 python3 harness.py $L/sm90_ts.so $L/sm90_m48.so $L/sm90_pt.so --bench --fa3 --only-d 128 --only-dtype bf16 --reps 10 > $OUT/bench-d128-$pass.txt 2>&1
  timeout 90 python3 harness.py $L/sm90_ts.so $L/sm90_pt.so --bench --fa3 --only-d 64 --only-dtype bf16 --reps 10 > $OUT/bench-d64-$pass.txt 2>&1
  timeout 90 python3 harness.py $L/sm90_ts.so $L/sm90_pt.so --bench --fa3 --only-d 256 --only-dtype bf16 --reps 10 > $OUT/bench-d256-$pass.txt 2>&1
done
summary d128-1 d128-2 d64-1 d64-2 d256-1 d256-2
