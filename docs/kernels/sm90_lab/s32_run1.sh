# The twenty-sixth session's lab call: `bash docs/kernels/sm90_lab/s32_run1.sh`, `carry: [".whlx",
# ".lab41/so.tar.xz"]` (.lab41 by `bash docs/kernels/sm90_lab/build.sh .lab41
# docs/kernels/sm90_lab/s32_c3s.patch docs/kernels/sm90_lab/s32_c3sp.patch`), timeout_s 580.
#   c3s    d = 64 causal s = 2048 on three consumers (two only up to 1024), round-robin and the
#          tail launch as three consumers take them below 4096 keys;
#   c3sp   the same, with the three-consumer pool from 2048 keys (was 4096).
# Then ceiling.sh on the committed file (head): ncu's bound over FA3 per scenario. On an H200,
# with .lab12 carried as well, the committed file's figure and the ceiling instead.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab41x && tar -C .lab41x -xJf .lab41/so.tar.xz || exit 1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$gpu"
# On an H200 (carry .lab12 too), the committed file's figure first: the last H200 figure is five
# changes old. Then the ceiling in what is left.
if [[ $gpu == *H200* ]] && [ -d .lab12 ]; then
  cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu && NODE_SECONDS=330 figure && tail -3 $OUT/03-bench.txt
  CEILING_SECONDS=100 bash docs/kernels/sm90_lab/ceiling.sh .lab41x/sm90_head.so
  exit
fi
(
  BUDGET=150 WHEELS=.whl LAB=.lab41x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check c3s c3sp
  ok=$(passed c3s c3sp)
  [ -n "$ok" ] && bench2 64 30 $ok
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
CEILING_SECONDS=${CEILING_SECONDS:-190} bash docs/kernels/sm90_lab/ceiling.sh .lab41x/sm90_head.so
