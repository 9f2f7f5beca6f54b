# Built in the twenty-fourth session, not run there (no device time left; run by s28_run5.sh)
# (`carry: [".whlx", ".lab38/so.tar.xz"]`, timeout_s 300). .lab38 is built here by
# `bash docs/kernels/sm90_lab/build.sh .lab38 docs/kernels/sm90_lab/s28_dsf.patch
# docs/kernels/sm90_lab/s28_dso.patch docs/kernels/sm90_lab/s28_dsf16.patch
# docs/kernels/sm90_lab/s28_dsf7.patch docs/kernels/sm90_lab/s28_xt.patch` on the file with p64
# adopted. Call 3's probe (ds: odd CTAs
# 12000 cycles late) cut CTA 0's tile period at d = 256 s = 1024 from 41585 to 39218 cycles (its
# Q wait from 3640 to 152): the tiles' starts are DRAM bursts of every CTA at once. Its delay
# costs the makespan as much; these delay CTAs that cost it less or nothing:
#   dsf  round-robin walk: the CTAs with a round fewer of units start their loads about half a
#        tile late (first tile's blocks x kBlockN x D / 11 cycles), free of cost while tiles
#        are equal; dsf16 and dsf7 the same a third and four fifths of a tile late (D / 16, D / 7);
#   dso  every odd CTA a quarter tile late (x D / 22);
#   xt   d = 128 (Q there early): the next tile's first S issued with this tile's last P V, its
#        mask and softmax run while that P V does, then this tile's epilogue (the tile trace,
#        27-tt.txt: 4100 cycles from the last P V's end to the next first softmax's, in step in
#        both consumers, of a 20200-cycle tile at s = 1024). Other d: the loop reorganised
#        around it, the same steps.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab38x && tar -C .lab38x -xJf .lab38/so.tar.xz || exit 1
BUDGET=${LAB_BUDGET:-270}
WHEELS=.whl LAB=.lab38x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
check dsf dsf16 dsf7 dso xt
ok=$(passed dsf dsf16 dsf7 dso xt)
echo "timed: head $ok"
if [ -n "$ok" ]; then
  bench2 256 40 $ok
  bench2 128 30 $ok
  room 25 && bench1 1 64 head $ok
fi
room 0
summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
