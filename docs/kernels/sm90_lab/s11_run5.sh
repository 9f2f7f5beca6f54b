# Eleventh session, device call 5 (`carry: [".lab11"]`): variants of sm90_uqv (the file as committed
# after run 3): sm90_uq (the d = 64 and d = 256 S product, IssueQk, with DescPlus too; their P V keeps
# MakeDesc), sm90_st2 (the stale row max in the two-consumer d = 64 kernel, which runs causal
# s <= 2048). bf16, interleaved with FA3 and cuDNN, each d twice.
# Sources: sm90.cu at 91baba1 with s11_variants.patch applied (see its header).
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .lab11/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
L=../../../.lab11
cd docs/kernels/sm90_lab
for v in uq st2; do timeout 60 python3 harness.py $L/sm90_$v.so --check > $OUT/check-$v.txt 2>&1; grep -E 'BAD|CHECK' $OUT/check-$v.txt | tail -3; done
for pass in 1 2; do
  timeout 90 python3 harness.py $L/sm90_uqv.so $L/sm90_uq.so $L/sm90_st2.so --bench --fa3 --only-d 64 --only-dtype bf16 --reps 10 > $OUT/bench-d64-$pass.txt 2>&1
  timeout 80 python3 harness.py $L/sm90_uqv.so $L/sm90_uq.so --bench --fa3 --only-d 256 --only-dtype bf16 --reps 10 > $OUT/bench-d256-$pass.txt 2>&1
done
for f in d64-1 d64-2 d256-1 d256-2; do echo "== $f"; grep GEOMEAN $OUT/bench-$f.txt | grep fa3; python3 cmp.py $OUT/bench-$f.txt --vs fa3 2>&1 | tail -6; done
