# The thirtieth session's first call: ks1 (s35_ks1.patch, .lab48 by `bash
# docs/kernels/sm90_lab/build.sh .lab48 docs/kernels/sm90_lab/s35_ks1.patch`: the d = 64 row sums
# sv72 no longer reads, dropped; the SASS at d = 128 and 256 is the same as head's) checked and
# timed at d = 64 against head, both passes; ncu's warp stall reasons of head (the committed
# file) at d = 128 full s = 512 and 16384 (is a tile's fixed cost, paid once a tile, partly the
# instruction fetch of code that ran a tile ago?); then the committed file's figure through the
# bundle.
# `carry: [".whlx", ".lab48/so.tar.xz", ".lab12"]`, timeout_s 600.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu || exit 1
mkdir -p .lab4x && tar -C .lab4x -xJf .lab48/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-160} WHEELS=.whl LAB=.lab4x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check ks1
  [ -n "$(passed ks1)" ] && bench2 64 25 ks1
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
  for s in 512 16384; do
    room 15 && echo "##### head 128 0 $s" >> $OUT/stalls.txt &&
      ONE_RANGE=1 timeout 60 ncu --clock-control none --profile-from-start off \
        -k regex:'AttentionFwd' --section WarpStateStats --metrics gpu__time_duration.sum --page raw \
        python3 one.py $L/sm90_head.so 128 0 $s 2>&1 |
      grep -e gpu__time_duration.sum -e issue_stalled >> $OUT/stalls.txt
  done
  cat $OUT/stalls.txt
)
NODE_SECONDS=370 figure
