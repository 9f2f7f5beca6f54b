# Eleventh session, device call 2 (`carry: [".lab11"]`): variants of sm90_pm (run 1):
# sm90_pu (the consumer's index made warp-uniform, so its shared memory descriptors stay in uniform
# registers: 3-17 fewer instructions per steady loop, no R2UR in d = 64/128), sm90_qsu (pu, and
# d = 128 reads Q from shared memory in the S product, as FA3 does, instead of holding it in
# registers), sm90_qsunp (qsu without the pingpong hand-over at d = 128, as fa3-fwd's causal d = 128
# build), sm90_pt (pu, and the last-wave split for the two-consumer d = 64 kernel from
# 16 key blocks on, which only causal s = 2048 reaches); bf16, interleaved with FA3 and cuDNN; d = 128 twice to see the run-to-run spread.
# Sources: sm90.cu at 91baba1 with s11_variants.patch applied (see its header).
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .lab11/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
L=../../../.lab11
cd docs/kernels/sm90_lab
for v in pu qsu qsunp pt; do timeout 60 python3 harness.py $L/sm90_$v.so --check > $OUT/check-$v.txt 2>&1; grep -E 'BAD|CHECK' $OUT/check-$v.txt | tail -3; done
for pass in 1 2; do
  timeout 120 python3 harness.py $L/sm90_pm.so $L/sm90_pu.so $L/sm90_qsu.so $L/sm90_qsunp.so --bench --fa3 --only-d 128 --only-dtype bf16 --reps 10 > $OUT/bench-d128-$pass.txt 2>&1
done
timeout 100 python3 harness.py $L/sm90_pm.so $L/sm90_pu.so $L/sm90_pt.so --bench --fa3 --only-d 64 --only-dtype bf16 --reps 10 > $OUT/bench-d64.txt 2>&1
timeout 100 python3 harness.py $L/sm90_pm.so $L/sm90_pu.so --bench --fa3 --only-d 256 --only-dtype bf16 --reps 10 > $OUT/bench-d256.txt 2>&1
for f in d128-1 d128-2 d64 d256; do grep GEOMEAN $OUT/bench-$f.txt | grep fa3; python3 cmp.py $OUT/bench-$f.txt --vs fa3 2>&1 | tail -6; done
