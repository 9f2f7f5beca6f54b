# Eleventh session, device call 1 (`carry: [".lab11"]`, which holds the fa3-fwd 0.0.3 wheel and the
# variants): sm90_pdl (the tail launch as a programmatic dependent launch of the first, its
# counters zeroed before both launches) and sm90_pm (pdl, and the causal/length mask comparing each
# key with a constant relative to the thread's first key), against sm90_base (the committed file at
# 91baba1); bf16, interleaved with FA3 and cuDNN.
# The variants' sources are sm90.cu at 91baba1 with s11_variants.patch applied, built with
# nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -shared -Xcompiler -fPIC into .lab11/.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .lab11/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
L=../../../.lab11
cd docs/kernels/sm90_lab
for v in pdl pm; do timeout 60 python3 harness.py $L/sm90_$v.so --check > $OUT/check-$v.txt 2>&1; grep -E 'BAD|CHECK' $OUT/check-$v.txt | tail -3; done
timeout 110 python3 harness.py $L/sm90_base.so $L/sm90_pdl.so $L/sm90_pm.so --bench --fa3 --only-d 128 --only-dtype bf16 --reps 10 > $OUT/bench-d128.txt 2>&1
timeout 110 python3 harness.py $L/sm90_base.so $L/sm90_pdl.so $L/sm90_pm.so --bench --fa3 --only-d 64 --only-dtype bf16 --reps 10 > $OUT/bench-d64.txt 2>&1
timeout 80 python3 harness.py $L/sm90_base.so $L/sm90_pm.so --bench --fa3 --only-d 256 --only-dtype bf16 --reps 10 > $OUT/bench-d256.txt 2>&1
for d in 64 128 256; do grep GEOMEAN $OUT/bench-d$d.txt; python3 cmp.py $OUT/bench-d$d.txt --vs fa3 2>&1 | tail -8; done
