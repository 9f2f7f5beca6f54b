# Seventh session, device call 2 (repository root, `carry: [".whl", ".lab7"]`): the figure that
# counts, through the bundle (.lab7/kseek-bundle.tar.xz from `KSEEK_WHEELS=/nonexistent bash
# deploy/make_bundle.sh`), with the working tree's sm90.cu and baseline program and the wheels in
# .whl (fa3-fwd 0.0.3, nvidia-cudnn-frontend 1.32.0) as the bundle's share/wheels.
set -o pipefail
mkdir -p /tmp/b && tar -C /tmp/b -xJf .lab7/kseek-bundle.tar.xz || exit 1
B=/tmp/b/kseek-bundle
mkdir -p $B/share/wheels && cp .whl/*.whl $B/share/wheels/
cp worker/baselines/attention_fwd_baseline.py $B/share/baselines/
cp kernels/attention_fwd/sm90.cu $B/share/kernels/attention_fwd/sm90.cu
R=/tmp/r; mkdir -p $R
cor=cor-bf16-d64-causal-gqa8-h16x2-q113-k799,cor-bf16-d256-causal-shortq-q17-k4097,cor-f16-d128-causal-shortq-q17-k4097,cor-bf16-d64-causal-longq-q1023-k113
(cd $B && OUT_DIR=$R timeout 580 ./gpu_node_run.sh "workers" \
  "verify kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios all" \
  "bench kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios $cor --baseline cudnn,fa3 --max-seconds 1" \
  "bench kernels/attention_fwd/sm90.cu --problem attention_fwd --arch sm_90a --scenarios perf --baseline fa3,cudnn --max-seconds 1 --rounds 2") \
  > $R/node.txt 2>&1
grep -E '^\$|passed|geometric|baselines:|exit' $R/node.txt
cp $R/0*-bench.txt $OUT/ 2>/dev/null; ls $R
tar -C $R -czf $OUT/results.tgz .
