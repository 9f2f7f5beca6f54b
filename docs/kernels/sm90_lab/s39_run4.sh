# The thirty-second session's fifth call. `carry: [".whlx", ".lab56/so.tar.xz"]`, timeout_s 360.
# The lab (.lab56 by `bash docs/kernels/sm90_lab/build.sh .lab56 docs/kernels/sm90_lab/s39_pk3.patch
# docs/kernels/sm90_lab/s39_ka128.patch`, and sm90_pk3tt.so built by hand from s39_pk3tt.patch
# with build.sh's nvcc line). Call 4's trace: pk2's two S products went out 1434 cycles after the
# turn (head: 170), waiting for the second block's K, which the producer loads after the first
# block's V and, at d = 128, with two K slots, only once the last tile's last S is done. The rest of
# pk2's tile ran 1050 cycles shorter than head's.
#  - ka128 (s39_ka128.patch): K of block i + 1 ahead of V of block i at d = 128 too (as d = 256):
#    the control; the fourteenth session's kv measured it even at d = 128;
#  - pk3 (s39_pk3.patch): pk (one turn for both S products) with ka128's producer, so that the
#    next tile's second K goes out right after its first, before the last tile ends;
#  - three passes at d = 128 against head, interleaved with FA3; pk3's trace at d = 128 full
#    and causal s = 512 (pk3tt: s37_tt.patch on pk3, stamps as pk2tt's).
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab56/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-280} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check pk3 ka128
  ok=$(passed pk3 ka128)
  [ -n "$ok" ] && bench2 128 30 $ok
  for shape in "128 0 512" "128 1 512"; do
    room 15 && echo "##### pk3tt $shape" >> $OUT/tt.txt && timeout 60 python3 tt.py $L/sm90_pk3tt.so $shape >> $OUT/tt.txt 2>&1
  done
  [ -n "$ok" ] && room 30 && bench1 3 128 head $ok
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
  grep -v "^  tile" $OUT/tt.txt
)
pack_lab
