# Eighth session, device call 1 (`carry: [".whl", ".lab9"]`): sm90.cu at the seventh session's end
# (sm90_base) against sm90_dyn, whose producer draws tiles from a device-wide counter in
# longest-first order (causal: L2 sections of (batch, head) pairs) in one launch, without the
# pairs of tiles and the split tail launch. Both built here:
#   nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -shared -Xcompiler -fPIC -o .lab9/X.so X.cu
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
cd docs/kernels/sm90_lab
python3 harness.py ../../../.lab9/sm90_dyn.so --check > $OUT/check-dyn.txt 2>&1; grep -E 'BAD|CHECK' $OUT/check-dyn.txt
for d in 64 128 256; do
  python3 harness.py ../../../.lab9/sm90_base.so ../../../.lab9/sm90_dyn.so --bench --fa3 --only-dtype bf16 --only-d $d --reps 10 > $OUT/bench-d$d.txt 2>&1
  tail -4 $OUT/bench-d$d.txt
done
