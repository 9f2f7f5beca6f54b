# Fourteenth session, device call 8 (`carry: [".lab14"]`): kv, the producer issuing K of block i + 1
# before V of block i (the order the consumers use them in), against base (a8e3945), which issued
# K and V of each block together and so queued the next K behind a V slot that comes free later.
# Run 7 found sm90_base's consumers stalled on K/V barriers in 3.0% of samples at d = 128 causal
# s = 4096, FA3's in 2.0%. Each d twice, bf16, with FA3.
LAB=.lab14 source docs/kernels/sm90_lab/lab.sh || exit 1
check kv
for pass in 1 2; do
  for d in 128 64 256; do
    timeout 100 python3 harness.py $L/sm90_base.so $L/sm90_kv.so --bench --fa3 --only-d $d \
      --only-dtype bf16 --reps 10 > $OUT/bench-d$d-$pass.txt 2>&1
  done
done
summary d128-1 d128-2 d64-1 d64-2 d256-1 d256-2
