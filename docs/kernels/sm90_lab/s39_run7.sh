# The thirty-second session's ninth call. `carry: [".whlx", ".lab60/so.tar.xz", ".lab12"]`,
# timeout_s 230. ept (s39_ept.patch; .lab60 by `bash docs/kernels/sm90_lab/build.sh .lab60
# docs/kernels/sm90_lab/s39_ept.patch`, and the file as .lab12/sm90_ept.cu): the epilogue's
# row sums and O-buffer wait under the last P V in the tail launch too (epka kept them after
# it there), StoreTile's kEarly gone: one epilogue order. Only the tail kernels differ from head
# (`sass.py same`): the lab's checks, one pass at d = 128 and 64 (the tail runs at d = 128 full
# s >= 8192 and three-consumer d = 64 full s >= 2048), then `kseek verify --scenarios all` of the
# file through the bundle (s15_run3.sh, VERIFY_ONLY).
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab60/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-60} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check ept
  [ -n "$(passed ept)" ] && room 20 && bench1 1 128 head ept && room 15 && bench1 1 64 head ept
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
mkdir -p /tmp/fig && OUT=/tmp/fig VERIFY_ONLY=1 NODE_SECONDS=${NODE_SECONDS:-120} \
  bash docs/kernels/sm90_lab/s15_run3.sh .lab12/sm90_ept.cu
cp /tmp/fig/02-verify.txt "$OUT"/
pack_lab
