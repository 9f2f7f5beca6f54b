# Twelfth session, device call 5 (`carry: [".lab13"]`): sm90_m48 (d = 128 splits only tiles of 48
# or more key blocks in the tail launch, instead of 16: run 4 measured the tail losing 4% at causal
# s = 2048 and 1.5% at s = 4096) against sm90_ts (the file at a3747d3), d = 128 twice, with FA3.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .lab13/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
L=../../../.lab13
cd docs/kernels/sm90_lab
timeout 60 python3 harness.py $L/sm90_m48.so --check > $OUT/check-m48.txt 2>&1; echo "m48: $(grep -E 'BAD|CHECK' $OUT/check-m48.txt | tail -2)"
for pass in 1 2; do
  timeout 100 python3 harness.py $L/sm90_ts.so $L/sm90_m48.so --bench --fa3 --only-d 128 --only-dtype bf16 --reps 10 > $OUT/bench-d128-$pass.txt 2>&1
done
for pass in 1 2; do echo "== pass $pass"; python3 cmp.py $OUT/bench-d128-$pass.txt --vs fa3 2>&1 | tail -7; done
grep -h "c=1\|c=0 s= 4096\|c=0 s= 8192" $OUT/bench-d128-*.txt | sed 's/err=[^ ]*//g; s/[0-9.]*us //g' | cut -c1-200
