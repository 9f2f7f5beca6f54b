# The thirtieth session's first call: ks1 (s35_ks1.patch, .lab48 by `bash
# docs/kernels/sm90_lab/build.sh .lab48 docs/kernels/sm90_lab/s35_ks1.patch`: the d = 64 row sums
# sv72 no longer reads, dropped; the SASS at d = 128 and 256 is the same as head's) checked and
# timed at d = 64 against head, both passes; then the committed file's figure through the bundle.
# `carry: [".whlx", ".lab48/so.tar.xz", ".lab12"]`, timeout_s 600.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu || exit 1
mkdir -p .lab4x && tar -C .lab4x -xJf .lab48/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-120} WHEELS=.whl LAB=.lab4x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check ks1
  [ -n "$(passed ks1)" ] && bench2 64 25 ks1
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
NODE_SECONDS=370 figure
