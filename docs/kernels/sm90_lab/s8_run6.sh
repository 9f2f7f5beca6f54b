# Eighth session, device calls 6a and 6b. 6a (`carry: [".whl", ".lab10"]`): sm90_one (the
# committed file, run 5's figure) against sm90_one2 (the same with the first launch's key range a
# compile-time 0..n_blocks, the S issue written inline and PassTurn testing consumer 0 first, to
# bring back sm90_base's d = 128 loop schedule), d = 128 interleaved with cuDNN and FA3; the
# faster by FA3 geometric mean is written to /tmp/choice. 6b (`carry: [".lab9"]`, the bundle, on
# the same warm machine, .whl and .lab10 still there): kseek verify and bench of that one.
# Usage: bash s8_run6.sh a|b
set -o pipefail
if [ "$1" = a ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/fa3*.whl || exit 1
  export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
  cd docs/kernels/sm90_lab
  python3 harness.py ../../../.lab10/sm90_one2.so --check > $OUT/check-one2.txt 2>&1; grep -E 'BAD|CHECK' $OUT/check-one2.txt
  python3 harness.py ../../../.lab10/sm90_one.so ../../../.lab10/sm90_one2.so --bench --fa3 --only-d 128 --reps 10 > $OUT/bench-d128.txt 2>&1
  grep GEOMEAN $OUT/bench-d128.txt
  one=$(grep 'GEOMEAN sm90_one.so:.*x fa3' $OUT/bench-d128.txt | awk '{print $3}' | tr -d x)
  two=$(grep 'GEOMEAN sm90_one2.so:.*x fa3' $OUT/bench-d128.txt | awk '{print $3}' | tr -d x)
  if grep -q 'CHECK: 142/142' $OUT/check-one2.txt && python3 -c "import sys; sys.exit(0 if $two > $one else 1)"; then
    echo one2 > /tmp/choice
  else
    echo one > /tmp/choice
  fi
  echo "choice: $(cat /tmp/choice)"
  exit 0
fi
choice=$(cat /tmp/choice) || exit 1
echo "choice: $choice"
mkdir -p /tmp/b && tar -C /tmp/b -xJf .lab9/kseek-bundle.tar.xz || exit 1
B=/tmp/b/kseek-bundle
mkdir -p $B/share/wheels && cp .whl/*.whl $B/share/wheels/
cp .lab10/sm90_$choice.cu $B/share/kernels/attention_fwd/sm90.cu
R=/tmp/r; rm -rf $R; mkdir -p $R
(cd $B && OUT_DIR=$R timeout 560 ./gpu_node_run.sh "workers" \
  "verify kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios all" \
  "bench kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios perf --baseline fa3,cudnn --max-seconds 1 --rounds 2") \
  > $R/node.txt 2>&1
grep -E '^\$|passed|geometric|baselines:|exit' $R/node.txt
cp $R/0*.txt $OUT/ 2>/dev/null
