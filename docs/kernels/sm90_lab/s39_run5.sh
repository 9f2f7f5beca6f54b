# The thirty-second session's sixth call. `carry: [".whlx", ".lab57/so.tar.xz"]`, timeout_s 400.
# The lab (.lab57 by `bash docs/kernels/sm90_lab/build.sh .lab57 docs/kernels/sm90_lab/s39_ep.patch
# docs/kernels/sm90_lab/s39_epka.patch`, sm90_ka128.so copied from .lab56):
#  - ep (s39_ep.patch): under each tile's last P V, the row sums over each quad (d >= 128) and
#    the wait for the O buffer's previous store read (own buffer: d = 64 and 128), which the
#    epilogue did after it (call 2's trace at d = 128 s = 512: O free 186-197 cycles a tile);
#  - epka (s39_epka.patch): ep with ka128's producer (K of block i + 1 ahead of V of block i at
#    d = 128; ka128 was +0.2-0.3% over d = 128 in call 5's three passes);
#  - two passes at d = 128 (ep, epka, ka128), d = 64 and d = 256 (ep), a third at d = 128.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab57/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-300} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check ep epka
  ok=$(passed ep epka)
  [ -n "$ok" ] && bench2 128 30 $ok ka128
  [ -n "$(passed ep)" ] && bench2 64 25 ep && bench2 256 25 ep
  [ -n "$ok" ] && room 30 && bench1 3 128 head $ok ka128
  [ -n "$(passed ep)" ] && room 30 && bench1 3 64 head ep
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
pack_lab
