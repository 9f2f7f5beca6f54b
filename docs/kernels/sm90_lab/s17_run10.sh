# Seventeenth session, device call 10 (`carry: [".lab12"]`): the new `rising` scenarios (input
# fills: scores that climb 40 or 400 log2 units along the keys) through the product. .lab12 holds
# the bundle built from the commit that adds them (make_bundle.sh without its wheels), sm90.cu as
# committed and sm90_pw.cu (s17_pw.patch applied: the vote-after kernel whose redo is inexact
# where an exponential overflowed, which the lab's rising.py caught). Expected: sm90.cu 202/202,
# naive.cu 20/20 on rising, sm90_pw.cu failing some rising scenario by name.
set -o pipefail
mkdir -p /tmp/b && tar -C /tmp/b -xJf .lab12/kseek-bundle.tar.xz || exit 1
B=/tmp/b/kseek-bundle
cp .lab12/sm90.cu $B/share/kernels/attention_fwd/sm90.cu
cp .lab12/sm90_pw.cu $B/share/kernels/attention_fwd/sm90_pw.cu
R=/tmp/r; rm -rf $R; mkdir -p $R
(cd $B && OUT_DIR=$R timeout 500 ./gpu_node_run.sh \
  "verify kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios all" \
  "verify kernels/attention_fwd/naive.cu --problem attention_fwd --arch sm_90a --scenarios rising" \
  "verify kernels/attention_fwd/sm90_pw.cu --problem attention_fwd --arch sm_90a --scenarios rising") \
  > $R/node.txt 2>&1
grep -E '^\$|passed|FAIL|fail|exit' $R/node.txt | head -40
cp $R/0*.txt $OUT/ 2>/dev/null; ls $R
