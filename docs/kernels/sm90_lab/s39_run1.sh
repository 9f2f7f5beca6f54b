# The thirty-second session's second call. `carry: [".whlx", ".lab53/so.tar.xz", ".lab12"]`,
# timeout_s 600.
#  1. The lab (.lab53 by `bash docs/kernels/sm90_lab/build.sh .lab53
#     docs/kernels/sm90_lab/s39_pk.patch docs/kernels/sm90_lab/s37_tt.patch`), in order of what
#     it decides, while its budget (LAB_BUDGET; 170 s where an H200 takes the figure after it,
#     else 240) lasts:
#     - pk (s39_pk.patch): d = 128 tiles of two or more blocks issue their first two S products
#       together (the first into O's registers, Q from shared memory), so that the first
#       block's softmax runs under the second's product; Q's registers loaded after it. Two
#       passes at d = 128 against head, interleaved with FA3 (d = 64 and 256 SASS-identical);
#     - the tile trace of head (s37_tt.patch applied to the fd file, tt.py) at d = 128 full and
#       causal s = 512, causal s = 4096, d = 64 causal s = 512, d = 256 full s = 512: the fixed
#       cost of a tile once fd made the walk cheap;
#     - a third pass at d = 128 where time is left.
#  2. On an H200 (unless NO_FIGURE is set), the committed file's figure through the bundle.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab53/so.tar.xz || exit 1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
(
  lab_s=240; [[ $card == *H200* && -z $NO_FIGURE ]] && lab_s=170
  BUDGET=${LAB_BUDGET:-$lab_s} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check pk
  [ -n "$(passed pk)" ] && bench2 128 30 pk
  for shape in "128 0 512" "128 1 512" "128 1 4096" "64 1 512" "256 0 512"; do
    room 15 && echo "##### $shape" >> $OUT/tt.txt && timeout 60 python3 tt.py $L/sm90_tt.so $shape >> $OUT/tt.txt 2>&1
  done
  [ -n "$(passed pk)" ] && room 40 && bench1 3 128 head pk
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
  cat $OUT/tt.txt | grep -v "^  tile"
)
lab_end "$card"
