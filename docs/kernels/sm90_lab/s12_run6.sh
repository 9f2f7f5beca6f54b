# Twelfth session, device call 6: the figure that counts for sm90.cu as committed at c8ac9d1.
# 6a (`carry: [".whl"]`, fa3-fwd 0.0.3 and nvidia-cudnn-frontend 1.32.0) lands the wheels; 6b
# (`carry: [".lab12"]`: the bundle from `bash deploy/make_bundle.sh` without its share/wheels, as
# .lab12/kseek-bundle.tar.xz, and the file as .lab12/sm90.cu), on the same warm machine, finds
# them still there: together they are over one call's 64 MiB. Usage: bash s12_run6.sh a|b
set -o pipefail
if [ "$1" = a ]; then ls -la .whl; exit 0; fi
ls .whl/*.whl || exit 1
mkdir -p /tmp/b && tar -C /tmp/b -xJf .lab12/kseek-bundle.tar.xz || exit 1
B=/tmp/b/kseek-bundle
mkdir -p $B/share/wheels && cp .whl/*.whl $B/share/wheels/
cp .lab12/sm90.cu $B/share/kernels/attention_fwd/sm90.cu
R=/tmp/r; mkdir -p $R
(cd $B && OUT_DIR=$R timeout 560 ./gpu_node_run.sh "workers" \
  "verify kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios all" \
  "bench kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios perf --baseline fa3,cudnn --max-seconds 1 --rounds 2") \
  > $R/node.txt 2>&1
grep -E '^\$|passed|geometric|baselines:|exit' $R/node.txt
cp $R/0*.txt $OUT/ 2>/dev/null; ls $R
tar -C $R -czf $OUT/results.tgz .
