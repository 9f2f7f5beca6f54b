#!/usr/bin/env bash
# The gemm problem's first H200 run (issue 15 item 3), one device call from the repository root with
# `carry: [".lab9"]`, .lab9/kseek-bundle.tar.xz being `KSEEK_WHEELS=/nonexistent bash
# deploy/make_bundle.sh` of the merged main, tarred. The steps of docs/gpu_runs/gemm_h200.sh, with
# verify and bench on one stack (one worker start, and the bench's build comes from the worker's
# compile cache), everything in $OUT/gemm-h200.tgz.
set -o pipefail
B=/tmp/b/kseek-bundle G=/tmp/g
mkdir -p /tmp/b $G && tar -C /tmp/b -xJf .lab9/kseek-bundle.tar.xz || exit 1
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv
  python3 -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)'
} > $G/0-node.txt 2>&1
echo "== gpu_tests [gemm]"
KSEEK_BUNDLE=$B timeout 110 $B/bin/gpu_tests "[gemm]" > $G/1-gpu-tests-gemm.txt 2>&1
echo "[gpu_tests exit $?]" | tee -a $G/1-gpu-tests-gemm.txt
tail -4 $G/1-gpu-tests-gemm.txt
mkdir -p $G/2-stack
(cd $B && OUT_DIR=$G/2-stack timeout 290 ./gpu_node_run.sh "workers" \
  "verify kernels/gemm/naive.cu --problem gemm --arch sm_90a --scenarios all" \
  "bench kernels/gemm/naive.cu --problem gemm --arch sm_90a --scenarios square,llm --baseline cublas --max-seconds 1") \
  > $G/2-stack/node.txt 2>&1
echo "[stack exit $?]" >> $G/2-stack/node.txt
tar -C $G -czf "$OUT/gemm-h200.tgz" .
grep -E '^\$|passed|failed|geometric|cache|exit|baselines=' $G/2-stack/node.txt | cut -c1-300
