# Thirteenth session, device call 3 (`carry: [".lab13"]`): sm90_pool, the candidate for the product
# (kernels/attention_fwd/sm90.cu as built for this run): the pool on 16-bit lists (as l16) only on
# causal inputs whose longest tile has 2048 keys or more (d = 128), 4096 (d = 64 three consumers,
# d = 256), in kernels of their own (Walk::kList); everything else as sm90_c8.
# Each d twice, bf16, with FA3.
LAB=.lab13 source docs/kernels/sm90_lab/lab.sh || exit 1
check pool
for pass in 1 2; do
  for d in 128 64 256; do
    timeout 100 python3 harness.py $L/sm90_c8.so $L/sm90_pool.so --bench --fa3 --only-d $d --only-dtype bf16 --reps 10 > $OUT/bench-d$d-$pass.txt 2>&1
  done
done
summary d128-1 d128-2 d64-1 d64-2 d256-1 d256-2
