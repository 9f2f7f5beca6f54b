# The thirty-second session's third call. `carry: [".whlx", ".lab54/so.tar.xz"]`, timeout_s 300.
# The lab (.lab54 by `bash docs/kernels/sm90_lab/build.sh .lab54
# docs/kernels/sm90_lab/s39_pk2.patch`): pk2 is pk (s39_pk.patch, 4.7% behind head at d = 128
# in call 2) with the second block's S issued in a turn of its own once its K is in, where pk
# waited for both blocks' K before the first S (the producer loads the second K after the
# first block's V and, at d = 128, the next tile's Q). Three passes at d = 128 against head,
# interleaved with FA3.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab54/so.tar.xz || exit 1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
(
  BUDGET=${LAB_BUDGET:-200} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check pk2
  [ -n "$(passed pk2)" ] && bench2 128 30 pk2 && room 30 && bench1 3 128 head pk2
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
pack_lab
