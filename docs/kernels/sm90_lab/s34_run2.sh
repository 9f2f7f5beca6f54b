# For the next call with a machine: `bash docs/kernels/sm90_lab/s34_run2.sh`, `carry: [".whlx",
# ".lab46/so.tar.xz", ".lab47/so.tar.xz"]`, timeout_s 300. Lab part only (no figure): sv and sv72
# (d = 64's row sums on the tensor pipe, s33_*.patch, .lab46 by `bash
# docs/kernels/sm90_lab/build.sh .lab46 docs/kernels/sm90_lab/s33_sv.patch
# docs/kernels/sm90_lab/s33_sv72.patch`) and stm (O staged with stmatrix, four 8 x 8 blocks a
# warp instruction, instead of 4-byte stores: 4/8/16 STSM against 16/32/64 STS a thread a tile at
# d = 64/128/256; s34_stm.patch, .lab47 by `bash docs/kernels/sm90_lab/build.sh .lab47
# docs/kernels/sm90_lab/s34_stm.patch`). Checks of all three, then two passes against FA3 at
# d = 64 (sv, sv72, stm), 128 and 256 (stm), each with head; the summary last.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab4x && tar -C .lab4x -xJf .lab46/so.tar.xz && tar -C .lab4x -xJf .lab47/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-250} WHEELS=.whl LAB=.lab4x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check sv sv72 stm
  ok64=$(passed sv sv72 stm); okstm=$(passed stm)
  [ -n "$ok64" ] && bench2 64 25 $ok64
  [ -n "$okstm" ] && bench2 128 25 stm && bench2 256 25 stm
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
