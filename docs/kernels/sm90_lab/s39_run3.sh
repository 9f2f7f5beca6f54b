# The thirty-second session's fourth call. `carry: [".whlx", ".lab55/so.tar.xz"]`, timeout_s 300.
# Why pk and pk2 lose 4-5% at d = 128 (calls 2 and 3): the tile trace (tt.py) of head (tt, from
# .lab53: s37_tt.patch on the fd file) and of pk2 (pk2tt, s39_pk2tt.patch: s37_tt.patch on pk2,
# the peel stamped 1 Q ready, 2 first K ready, 3 first turn taken, 4 both S issued, 5 first S
# done, 6 first softmax done; the second block's ready step counts in "steady") at d = 128 full
# s = 512, causal s = 512 and full s = 16384 (where pk lost 2.5%, with 128 blocks a tile).
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab55/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-200} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  for shape in "128 0 512" "128 1 512" "128 0 16384"; do
    for v in tt pk2tt; do
      room 15 && echo "##### $v $shape" >> $OUT/tt.txt && timeout 60 python3 tt.py $L/sm90_$v.so $shape >> $OUT/tt.txt 2>&1
    done
  done
  grep -v "^  tile" $OUT/tt.txt
)
pack_lab
