# Built in the twenty-fifth session for its call 4, not run there (no machine came); the next session's first call
# (`carry: [".whlx", ".lab40/so.tar.xz"]`, timeout_s 300). .lab40 by `bash docs/kernels/sm90_lab/build.sh .lab40 docs/kernels/sm90_lab/s30_{p256,p256n,p128,p64c}.patch
# docs/kernels/sm90_lab/s27_tt.patch`
# on the committed file (dsf). dsf made round-robin faster where CTAs have unequal rounds
# (d = 256 causal s = 2048, round-robin: 1.004 -> 1.024 over FA3, call 1); does it now beat the
# pool on the causal inputs that take the pool (MinPoolKeys)?
#   p256   d = 256 causal (64-key blocks) takes the pool from 8192 keys (was 4096);
#   p256n  d = 256 causal never takes it (round-robin, no tail launch);
#   p128   d = 128 takes it from 4096 keys (was 2048; s = 2048 round-robin);
#   p64c   d = 64 on three consumers from 8192 keys (was 4096; s = 4096 the tail launch).
# Last, room permitting, the committed file's tile trace (tt, CTA 0, which dsf does not delay):
# how much of a d = 256 tile's start wait for Q (1300-3600 cycles in 27-tt.txt) is left?
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab40x && tar -C .lab40x -xJf .lab40/so.tar.xz || exit 1
BUDGET=${LAB_BUDGET:-200}
WHEELS=.whl LAB=.lab40x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
check p256 p256n p128 p64c
ok256=$(passed p256 p256n)
ok128=$(passed p128)
ok64=$(passed p64c)
[ -n "$ok256" ] && bench2 256 40 $ok256
[ -n "$ok128" ] && bench2 128 30 $ok128
[ -n "$ok64" ] && bench2 64 30 $ok64
if room 30; then
  for shape in "256 0 512" "256 0 1024" "256 0 4096" "128 0 1024"; do
    timeout 60 python3 tt.py $L/sm90_tt.so $shape >> $OUT/tt.txt 2>&1
  done
  tail -40 $OUT/tt.txt
fi
room 0
summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
