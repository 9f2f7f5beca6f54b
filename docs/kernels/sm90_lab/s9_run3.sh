# Ninth session, device calls 3a and 3b: the figure that counts for sm90.cu with the stale row max (d >= 128).
# 3a (`carry: [".whl"]`, fa3-fwd 0.0.3 and nvidia-cudnn-frontend 1.32.0) only lands the wheels;
# 3b (`carry: [".lab9"]`, the bundle from `KSEEK_WHEELS=/nonexistent bash deploy/make_bundle.sh`
# as .lab9/kseek-bundle.tar.xz), on the same warm machine, finds them still there: the two
# together are over one call's 64 MiB. Usage: bash s9_run3.sh a|b
set -o pipefail
if [ "$1" = a ]; then ls -la .whl; exit 0; fi
ls .whl/*.whl || exit 1
mkdir -p /tmp/b && tar -C /tmp/b -xJf .lab9/kseek-bundle.tar.xz || exit 1
B=/tmp/b/kseek-bundle
mkdir -p $B/share/wheels && cp .whl/*.whl $B/share/wheels/
R=/tmp/r; mkdir -p $R
(cd $B && OUT_DIR=$R timeout 560 ./gpu_node_run.sh "workers" \
  "verify kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios all" \
  "bench kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios perf --baseline fa3,cudnn --max-seconds 1 --rounds 2") \
  > $R/node.txt 2>&1
grep -E '^\$|passed|geometric|baselines:|exit' $R/node.txt
cp $R/0*.txt $OUT/ 2>/dev/null; ls $R
tar -C $R -czf $OUT/results.tgz .
