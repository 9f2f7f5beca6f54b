# Fifteenth session, device calls 3 and 4 (`carry: [".lab12", ".whl2"]`), on the machine that
# call 2 (s15_run2.sh) left warm with fa3-fwd in .whl: the figure that counts, as s11_run4.sh b,
# with the cuDNN frontend wheel carried here in .whl2 (both wheels and the bundle together are
# over one call's 64 MiB). .lab12 holds the bundle (make_bundle.sh without its wheels) and the
# committed file as .lab12/sm90.cu (copied there before the call), and any lab file to time
# instead (.lab12/sm90_V.cu, given as FILE).
# Usage: bash s15_run3.sh [FILE], FILE by default .lab12/sm90.cu; NODE_SECONDS (default 560) bounds
# the node run.
set -o pipefail
ls .whl/fa3*.whl .whl2/*.whl || exit 1
mkdir -p /tmp/b && tar -C /tmp/b -xJf .lab12/kseek-bundle.tar.xz || exit 1
B=/tmp/b/kseek-bundle
mkdir -p $B/share/wheels && cp .whl/fa3*.whl .whl2/*.whl $B/share/wheels/
cp ${1:-.lab12/sm90.cu} $B/share/kernels/attention_fwd/sm90.cu
R=/tmp/r; rm -rf $R; mkdir -p $R
# VERIFY_ONLY=1 runs the verify alone.
steps=("workers" "verify kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios all")
[ -z "$VERIFY_ONLY" ] && steps+=("bench kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios perf --baseline fa3,cudnn --max-seconds 1 --rounds 2")
(cd $B && OUT_DIR=$R timeout ${NODE_SECONDS:-560} ./gpu_node_run.sh "${steps[@]}") > $R/node.txt 2>&1
grep -E '^\$|passed|geometric|baselines:|exit' $R/node.txt
cp $R/0*.txt $OUT/ 2>/dev/null; ls $R
tar -C $R -czf $OUT/results.tgz .
