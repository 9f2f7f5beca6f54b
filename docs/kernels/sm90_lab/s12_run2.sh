# Twelfth session, device call 2 (`carry: [".lab13"]`). Variants of sm90_base (the file at 19c4695):
#  tree: the row max over four partial chains and the row sum over four partial sums (the softmax's
#        serial FMNMX and FADD chains cut from 16 and 32 steps per row to 4 and 8);
#  tmax: the row max change alone;
#  c3:   d = 64 causal at 2048 keys on the three-consumer kernel (the two-consumer one up to 1024);
#  noexp, nosoft (diagnostics, wrong results, d = 128 only): the exponentials replaced by the
#        identity; the whole softmax of the steady loop left out. They bound what the softmax
#        costs the loop.
# bf16, interleaved with FA3 and cuDNN, each d twice. Sources: s12_variants.patch.
LAB=.lab13 source docs/kernels/sm90_lab/lab.sh || exit 1
check tree tmax c3
for pass in 1 2; do
  timeout 100 python3 harness.py $L/sm90_base.so $L/sm90_tree.so $L/sm90_tmax.so $L/sm90_noexp.so $L/sm90_nosoft.so --bench --fa3 --only-d 128 --only-dtype bf16 --reps 10 > $OUT/bench-d128-$pass.txt 2>&1
  timeout 90 python3 harness.py $L/sm90_base.so $L/sm90_tree.so $L/sm90_tmax.so $L/sm90_c3.so --bench --fa3 --only-d 64 --only-dtype bf16 --reps 10 > $OUT/bench-d64-$pass.txt 2>&1
  timeout 90 python3 harness.py $L/sm90_base.so $L/sm90_tree.so $L/sm90_tmax.so --bench --fa3 --only-d 256 --only-dtype bf16 --reps 10 > $OUT/bench-d256-$pass.txt 2>&1
done
summary d128-1 d128-2 d64-1 d64-2 d256-1 d256-2
