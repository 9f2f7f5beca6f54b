# The thirty-first session's last lab call (the committed file is fd). `carry: [".whlx",
# ".lab52/so.tar.xz"]`, timeout_s 240. .lab52 by `bash docs/kernels/sm90_lab/build.sh .lab52
# docs/kernels/sm90_lab/s36_nx128.patch docs/kernels/sm90_lab/s38_nxall.patch` (s36_nx128.patch
# now builds nx128 on the committed file: SASS-identical to the first call's fdnx):
#  - nx128 (fdnx) against the new head at d = 128 (+0.0-0.4% over fd in four passes of the first call);
#  - nxall (s38_nxall.patch): every d finds its next tile under the last P V (the twenty-third
#    session's nx, 0.2-0.4% behind at d = 64 and 256 when the walk still divided);
# two passes each, interleaved with head and FA3, while LAB_BUDGET (150 s) lasts.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab52/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-150} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check nx128 nxall
  ok=$(passed nx128 nxall)
  [ -n "$ok" ] && bench2 128 25 $ok
  [ -n "$(passed nxall)" ] && bench2 64 20 nxall && bench2 256 20 nxall
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
pack_lab
