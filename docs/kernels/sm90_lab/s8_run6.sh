# Eighth session, device call 6 (`carry: [".whl", ".lab10"]`): sm90_one (the
# committed file, run 5's figure) against sm90_one2 (the same with the first launch's key range a
# compile-time 0..n_blocks, the S issue written inline and PassTurn testing consumer 0 first, to
# bring back sm90_base's d = 128 loop schedule), d = 128 interleaved with cuDNN and FA3; the
# faster by FA3 geometric mean is written to /tmp/choice (a kseek bench of it was to follow in a
# second call on the same warm machine; it was not run: one2 did not win). Usage: bash s8_run6.sh a
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
