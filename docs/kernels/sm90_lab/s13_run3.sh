# Thirteenth session, device call 3 (`carry: [".lab13"]`): sm90_pool, the candidate for the product
# (kernels/attention_fwd/sm90.cu as built for this run): the pool on 16-bit lists (as l16) only on
# causal inputs whose longest tile has 2048 keys or more (d = 128), 4096 (d = 64 three consumers,
# d = 256), in kernels of their own (Walk::kList); everything else as sm90_c8.
# Each d twice, bf16, with FA3.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .lab13/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
L=../../../.lab13
cd docs/kernels/sm90_lab
for v in pool; do timeout 60 python3 harness.py $L/sm90_$v.so --check > $OUT/check-$v.txt 2>&1; echo "$v: $(grep -E 'BAD|CHECK' $OUT/check-$v.txt | tail -2)"; done
for pass in 1 2; do
  for d in 128 64 256; do
    timeout 100 python3 harness.py $L/sm90_c8.so $L/sm90_pool.so --bench --fa3 --only-d $d --only-dtype bf16 --reps 10 > $OUT/bench-d$d-$pass.txt 2>&1
  done
done
for f in d128-1 d128-2 d64-1 d64-2 d256-1 d256-2; do echo "== $f"; python3 cmp.py $OUT/bench-$f.txt --vs fa3 2>&1 | tail -7; done
