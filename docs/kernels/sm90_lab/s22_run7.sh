# Twenty-first session, device call 9 (`carry: [".lab12"]`): the committed file (fx's SASS,
# copied to .lab12/sm90.cu) through the product, `kseek verify --scenarios all` alone (the
# session's device time left no room for the bench, which needs the fa3 wheel in a call before).
mkdir -p /tmp/b && tar -C /tmp/b -xJf .lab12/kseek-bundle.tar.xz || exit 1
B=/tmp/b/kseek-bundle
cp .lab12/sm90.cu $B/share/kernels/attention_fwd/sm90.cu
R=/tmp/r; rm -rf $R; mkdir -p $R
(cd $B && OUT_DIR=$R timeout ${NODE_SECONDS:-200} ./gpu_node_run.sh "workers" \
  "verify kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios all") \
  > $R/node.txt 2>&1
grep -E '^\$|passed|FAIL|exit' $R/node.txt
cp $R/0*.txt $OUT/ 2>/dev/null
