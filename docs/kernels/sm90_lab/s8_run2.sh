# Eighth session, device call 2 (`carry: [".whl", ".lab9"]`): why sm90_dyn (run 1) lost. Two
# builds of the same source: -DSCHED_STATIC (tiles in the same order, CTA c taking c, c + G, ...:
# no counter) and -DSCHED_PREFETCH (the counter drawn a tile ahead, so the producer never waits
# on the atomic), against sm90_base, interleaved with cuDNN and FA3.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
cd docs/kernels/sm90_lab
for v in dynS dynP; do
  python3 harness.py ../../../.lab9/sm90_$v.so --check > $OUT/check-$v.txt 2>&1; grep -E 'BAD|CHECK' $OUT/check-$v.txt
done
for d in 64 128 256; do
  python3 harness.py ../../../.lab9/sm90_base.so ../../../.lab9/sm90_dynS.so ../../../.lab9/sm90_dynP.so --bench --fa3 --only-dtype bf16 --only-d $d --reps 10 > $OUT/bench-d$d.txt 2>&1
  grep GEOMEAN $OUT/bench-d$d.txt | grep fa3
done
