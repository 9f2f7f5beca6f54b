# Eighth session, device call 4 (`carry: [".whl", ".lab9"]`): sm90.cu rewritten as the issue's
# item 3 asks (one kernel template for both consumers, one TileWalk for producer and consumers,
# the tail's workspace allocated per call on the stream) as sm90_one, and sm90_few (the same with
# d = 256 always on 80-key blocks and d = 64 always on three consumers), against sm90_base, the
# seventh session's file; interleaved with cuDNN and (bf16) FA3, all dtypes.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
cd docs/kernels/sm90_lab
for v in one few; do
  python3 harness.py ../../../.lab9/sm90_$v.so --check > $OUT/check-$v.txt 2>&1; grep -E 'BAD|CHECK' $OUT/check-$v.txt
done
for d in 64 128 256; do
  python3 harness.py ../../../.lab9/sm90_base.so ../../../.lab9/sm90_one.so ../../../.lab9/sm90_few.so --bench --fa3 --only-d $d --reps 10 > $OUT/bench-d$d.txt 2>&1
  grep GEOMEAN $OUT/bench-d$d.txt
done
