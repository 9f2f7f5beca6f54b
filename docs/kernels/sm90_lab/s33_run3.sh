# The twenty-seventh session's fourth call: `bash docs/kernels/sm90_lab/s33_run3.sh`, `carry:
# [".whlx", ".lab46/so.tar.xz"]` (.lab46 by `bash docs/kernels/sm90_lab/build.sh .lab46
# docs/kernels/sm90_lab/s33_sv.patch docs/kernels/sm90_lab/s33_sv72.patch`), timeout_s 240.
#   sv   d = 64: each row's sum of P from the tensor pipe (an n = 8 product of P with a tile of
#        ones, issued with P V, rescaled with O) instead of 64 FADDs a thread a block (ns, the
#        probe without them, ran 4.1-4.4% faster); the stale-max vote, which read those sums,
#        reads P's largest value instead (max.u16x2: 16 VIMNMX3/VIMNMX a thread a block).
#   sv72 the same sums in one product per k-step: P V at n = 72, whose B operand reads V's columns
#        64-71 from 16 KB of ones at the descriptor's leading byte offset (one HGMMA.64x72x16
#        where sv has a 64x64x16 and a 64x8x16).
#        In both the other 12 kernels are SASS-identical to head's.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab4x && tar -C .lab4x -xJf .lab46/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-150} WHEELS=.whl LAB=.lab4x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check sv sv72
  ok=$(passed sv sv72)
  [ -n "$ok" ] && bench2 64 25 $ok
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
