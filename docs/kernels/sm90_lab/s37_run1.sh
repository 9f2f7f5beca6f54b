# The thirty-first session's first call. `carry: [".whlx", ".lab50/so.tar.xz", ".lab12"]`,
# timeout_s 600.
#  1. The lab (.lab50 by `bash docs/kernels/sm90_lab/build.sh .lab50
#     docs/kernels/sm90_lab/s37_fd.patch docs/kernels/sm90_lab/s37_fdnx.patch
#     docs/kernels/sm90_lab/s37_fdns.patch docs/kernels/sm90_lab/s37_tt.patch`), in order of what
#     it decides, while its budget (LAB_BUDGET; 170 s where an H200 takes the figure after it, else 240) lasts:
#     - fd (s37_fd.patch): the tile walk's divisions by runtime counts (units per (batch, head),
#       heads, query heads per K/V head) as a multiply-high and a shift with divisors the host
#       computes (FastDiv): 216-416 instructions fewer per kernel, every d;
#     - fdnx (s37_fdnx.patch): fd and s36's nx128 (d = 128 finds its next tile while its last
#       P V runs): with a cheap walk, does the early call still gain at s <= 1024 and still lose
#       at full s >= 2048? (d = 64 and 256 SASS-identical to fd);
#     - fdns (s37_fdns.patch): fdnx's early call only where the tile has at most 8 key blocks
#       (s <= 1024), the late one elsewhere: nx128's gain without its loss, if the loss is the
#       early call itself;
#     - the three at d = 128, fd at d = 64 and 256, two passes each, interleaved with head and FA3;
#     - the tile trace (s37_tt.patch: s27_tt.patch on the committed file, CTA 0's clock64 stamps,
#       tt.py) at d = 128 full and causal s = 512: which wait a short tile spends its fixed cost
#       on (ncu, s36: barrier stalls 1.10 against 0.72 per issue at s = 16384);
#     - a third pass at d = 128 where time is left.
#     The lab's files go back packed in lab.tgz (a call returns at most 8 files).
#  2. On an H200 (unless NO_FIGURE is set), the committed file's figure through the bundle.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab50/so.tar.xz || exit 1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
(
  # A call has 600 s: on an H200 the figure after the lab takes about 330.
  lab_s=240; [[ $card == *H200* && -z $NO_FIGURE ]] && lab_s=170
  BUDGET=${LAB_BUDGET:-$lab_s} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check fd fdnx fdns
  ok128=$(passed fd fdnx fdns)
  [ -n "$ok128" ] && bench2 128 30 $ok128
  [ -n "$(passed fd)" ] && bench2 64 25 fd && bench2 256 25 fd
  for shape in "128 0 512" "128 1 512" "128 0 4096"; do
    room 15 && echo "##### $shape" >> $OUT/tt.txt && timeout 60 python3 tt.py $L/sm90_tt.so $shape >> $OUT/tt.txt 2>&1
  done
  [ -n "$ok128" ] && room 40 && bench1 3 128 head $ok128
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
  cat $OUT/tt.txt
)
# The committed file's last figure is an H100's (42-*): the figure is taken on an H200 alone.
# (figure packs the lab's files into lab.tgz first.)
lab_end "$card"
