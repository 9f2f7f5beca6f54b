# The thirty-second session's eighth call. `carry: [".whlx", ".lab59/so.tar.xz"]`, timeout_s 240.
# The lab (.lab59 by `bash docs/kernels/sm90_lab/build.sh .lab59 docs/kernels/sm90_lab/s39_kas.patch`;
# head is now the epka file; sm90_fd.so is the file before it, .lab57's head): kas
# (s39_kas.patch) keeps K ahead of V at d = 128 only in tiles of at most 8 key blocks, where
# ka128 gained (full s >= 2048 was 0.1-0.3% behind in epka's three passes, causal s >= 2048
# -0.6 to +0.2%). Three passes at d = 128, head, kas and fd, interleaved with FA3.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab59/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-150} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check kas
  [ -n "$(passed kas)" ] && bench2 128 30 kas fd && room 25 && bench1 3 128 head kas fd
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
pack_lab
