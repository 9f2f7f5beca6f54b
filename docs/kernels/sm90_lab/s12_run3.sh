# Twelfth session, device call 3 (`carry: [".lab13"]`):
#  - sm90_ts, the file as it stands (tmax everywhere, four partial row sums at d = 64): checks, and
#    one pass at d = 64 and 128 against sm90_base (19c4695), interleaved with FA3.
#  - kvlong.py: causal against full where the mask removes almost nothing (s_q << s_k), for FA3
#    (128-key blocks when causal, 176 when full at d = 128), sm90_base and sm90_nosoft.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .lab13/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
L=../../../.lab13
cd docs/kernels/sm90_lab
timeout 60 python3 harness.py $L/sm90_ts.so --check > $OUT/check-ts.txt 2>&1; echo "ts: $(grep -E 'BAD|CHECK' $OUT/check-ts.txt | tail -2)"
timeout 120 python3 kvlong.py $L/sm90_base.so $L/sm90_nosoft.so > $OUT/kvlong.txt 2>&1
for d in 64 128; do
  timeout 90 python3 harness.py $L/sm90_base.so $L/sm90_ts.so --bench --fa3 --only-d $d --only-dtype bf16 --reps 10 > $OUT/bench-d$d.txt 2>&1
done
for d in 64 128; do echo "== d$d"; python3 cmp.py $OUT/bench-d$d.txt --vs fa3 2>&1 | tail -7; done
cat $OUT/kvlong.txt | sed 's/ | /\n    /g'
