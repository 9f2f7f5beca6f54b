# Seventh session, device call 4 (`carry: [".whl", ".lab8"]`): sm90.cu against a copy whose d >= 128
# kernel has no pingpong between its consumers (wait_turn/pass_turn empty: fa3-fwd 0.0.3's d = 128
# and d = 256 causal kernels have no scheduler barrier in their SASS). Both built here:
#   nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -shared -Xcompiler -fPIC -o .lab8/X.so X.cu
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
cd docs/kernels/sm90_lab
python3 harness.py ../../../.lab8/sm90_npp.so --check > $OUT/check-npp.txt 2>&1; grep -E 'BAD|CHECK' $OUT/check-npp.txt
for d in 128 256; do
  python3 harness.py ../../../.lab8/sm90.so ../../../.lab8/sm90_npp.so --bench --fa3 --only-dtype bf16 --only-d $d --reps 10 > $OUT/bench-d$d.txt 2>&1
  tail -4 $OUT/bench-d$d.txt
done
