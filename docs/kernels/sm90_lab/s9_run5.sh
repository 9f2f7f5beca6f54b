# Ninth session, device calls 5a and 5b: the figure that counts for sm90.cu with d = 128's last wave
# split from 16-block tiles on (run 4's sm90_ms16 for d = 128; the two-consumer d = 64 kernel keeps
# no tail, which cost its causal s <= 1024 inputs 10% in run 4). 5a (`carry: [".whl"]`) lands the
# wheels; 5b (`carry: [".lab9"]`: run 3's bundle and the file, which replaces the bundle's sm90.cu).
# Usage: bash s9_run5.sh a|b
set -o pipefail
if [ "$1" = a ]; then ls -la .whl; exit 0; fi
ls .whl/*.whl || exit 1
mkdir -p /tmp/b && tar -C /tmp/b -xJf .lab9/kseek-bundle.tar.xz || exit 1
B=/tmp/b/kseek-bundle
mkdir -p $B/share/wheels && cp .whl/*.whl $B/share/wheels/
cp .lab9/sm90.cu $B/share/kernels/attention_fwd/sm90.cu
R=/tmp/r; mkdir -p $R
(cd $B && OUT_DIR=$R timeout 400 ./gpu_node_run.sh \
  "verify kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios all" \
  "bench kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios perf --baseline fa3,cudnn --max-seconds 1 --rounds 2") \
  > $R/node.txt 2>&1
grep -E '^\$|passed|geometric|exit' $R/node.txt
tar -C $R -czf $OUT/results.tgz .
