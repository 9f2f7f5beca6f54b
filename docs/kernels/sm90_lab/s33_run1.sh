# The twenty-seventh session's first call: `bash docs/kernels/sm90_lab/s33_run1.sh`, `carry:
# [".whlx", ".lab42/so.tar.xz", ".lab43/so.tar.xz", ".lab12"]`, timeout_s 560. .lab42 as for
# s32_run2.sh; .lab43 by `bash docs/kernels/sm90_lab/build.sh .lab43
# docs/kernels/sm90_lab/s33_px4.patch docs/kernels/sm90_lab/s33_px8.patch` (its head, the committed
# file, replaces .lab42's, which differs from it in one comment).
# First the committed file's figure through the bundle (.lab12/sm90.cu, which must be it: c3sp);
# then, in what is left (LAB_BUDGET seconds after the figure, default 200):
#   px4    d = 64: every fourth column pair's exponentials on the FMA pipe (Exp2Fma, a degree-3
#          polynomial), so that the MUFU pipe, as busy as the tensor pipe at d = 64, is not;
#   px8    every eighth pair;
#   p128k  d = 128 takes the pool from 1024 keys (was 2048);
#   p256k  d = 256 causal (64-key blocks) from 2048 keys (was 4096).
# The lab's files come back packed in lab2.tgz (a call returns at most 8 files).
# NO_FIGURE=1: the lab alone (no .lab12 to carry), about 150 s of command.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab4x && tar -C .lab4x -xJf .lab42/so.tar.xz && tar -C .lab4x -xJf .lab43/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
if [ -z "$NO_FIGURE" ]; then
  cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu && NODE_SECONDS=330 figure && tail -4 $OUT/03-bench.txt
fi
(
  BUDGET=${LAB_BUDGET:-200} WHEELS=.whl LAB=.lab4x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check px4 px8 p128k p256k
  ok64=$(passed px4 px8); ok128=$(passed p128k); ok256=$(passed p256k)
  [ -n "$ok64" ] && bench2 64 25 $ok64
  [ -n "$ok128" ] && bench2 128 25 $ok128
  [ -n "$ok256" ] && bench2 256 25 $ok256
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
(cd $OUT && ls | grep -e '^check-' -e '^bench-' | tar -czf lab2.tgz -T - && ls | grep -e '^check-' -e '^bench-' | xargs rm -f)
