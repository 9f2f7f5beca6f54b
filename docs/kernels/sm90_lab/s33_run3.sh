# The twenty-seventh session's fourth call: `bash docs/kernels/sm90_lab/s33_run3.sh`, `carry:
# [".whlx", ".lab45/so.tar.xz"]` (.lab45 by `bash docs/kernels/sm90_lab/build.sh .lab45
# docs/kernels/sm90_lab/s33_sv.patch`), timeout_s 240.
#   sv   d = 64: each row's sum of P from the tensor pipe (an n = 8 product of P with a tile of
#        ones, issued with P V, rescaled with O) instead of 64 FADDs a thread a block (ns, the
#        probe without them, ran 4.1-4.4% faster); the stale-max vote, which read those sums,
#        reads P's largest value instead (max.u16x2: 16 VIMNMX3/VIMNMX a thread a block).
#        The other 12 kernels are SASS-identical to head's.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab4x && tar -C .lab4x -xJf .lab45/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-150} WHEELS=.whl LAB=.lab4x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check sv
  ok=$(passed sv)
  [ -n "$ok" ] && bench2 64 25 $ok
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
