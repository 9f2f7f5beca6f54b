# The thirtieth session's first call. `carry: [".whlx", ".lab48/so.tar.xz", ".lab49/so.tar.xz",
# ".lab12"]`, timeout_s 600.
#  1. The lab, in order of what it decides, while its budget (LAB_BUDGET, 200 s) lasts:
#     - ks1 (s35_ks1.patch, .lab48 by `bash docs/kernels/sm90_lab/build.sh .lab48
#       docs/kernels/sm90_lab/s35_ks1.patch`): the d = 64 row sums sv72 no longer reads, dropped
#       (d = 128 and 256 SASS-identical to head);
#     - nx128 (s36_nx128.patch): d = 128 finds its next tile while its last P V runs (s26's nx
#       at d = 128 alone; d = 64 and 256 SASS-identical to head);
#     - nq128 (s36_nq128.patch): nx128, and the next tile's Q rows loaded into registers under
#       that P V too (not at the tile's start); .lab49 by `bash docs/kernels/sm90_lab/build.sh
#       .lab49 docs/kernels/sm90_lab/s36_nx128.patch docs/kernels/sm90_lab/s36_nq128.patch`;
#     - nx128 and nq128 at d = 128, ks1 at d = 64, both passes, each interleaved with head and FA3;
#     - ncu's warp stall reasons of head at d = 128 full s = 512 and 16384 (is a tile's fixed
#       cost partly the fetch of code that last ran a tile ago?);
#     - a third pass at d = 128 where time is left.
#     The lab's files go back packed in lab.tgz (a call returns at most 8 files).
#  2. On an H200 (unless NO_FIGURE is set), the committed file's figure through the bundle.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu || exit 1
mkdir -p .lab4x && tar -C .lab4x -xJf .lab48/so.tar.xz && tar -C .lab4x -xJf .lab49/so.tar.xz || exit 1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
(
  BUDGET=${LAB_BUDGET:-200} WHEELS=.whl LAB=.lab4x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check ks1 nx128 nq128
  ok128=$(passed nx128 nq128)
  [ -n "$ok128" ] && bench2 128 30 $ok128
  [ -n "$(passed ks1)" ] && bench2 64 25 ks1
  for s in 512 16384; do
    room 15 && echo "##### head 128 0 $s" >> $OUT/stalls.txt &&
      ONE_RANGE=1 timeout 60 ncu --clock-control none --profile-from-start off \
        -k regex:'AttentionFwd' --section WarpStateStats --metrics gpu__time_duration.sum --page raw \
        python3 one.py $L/sm90_head.so 128 0 $s 2>&1 |
      grep -e gpu__time_duration.sum -e issue_stalled >> $OUT/stalls.txt
  done
  [ -n "$ok128" ] && room 40 && bench1 3 128 head $ok128
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
  cat $OUT/stalls.txt
)
# The committed file's last figure is an H100's (40-*): the figure is taken on an H200 alone.
# (figure packs the lab's files into lab.tgz first.)
lab_end "$card"
