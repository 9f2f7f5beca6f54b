# Twenty-fifth session, call 2 (`carry: [".whlx", ".lab12", ".lab39/so.tar.xz"]`, timeout_s 560).
# .lab39 by `bash docs/kernels/sm90_lab/build.sh .lab39 docs/kernels/sm90_lab/s30_dsu.patch` on
# the committed file (dsf adopted):
#   dsu  the late CTAs' delays spread from 0 to about 4/5 of a tile by blockIdx.x, rather than
#        all half a tile (at d = 64 on the perf grid, 128 of 132 CTAs are late together).
# Then the committed file's figure through the bundle (verify --scenarios all, bench perf with
# fa3 and cudnn, --rounds 2).
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab39x && tar -C .lab39x -xJf .lab39/so.tar.xz || exit 1
BUDGET=${LAB_BUDGET:-120}
WHEELS=.whl LAB=.lab39x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
check dsu
ok=$(passed dsu)
if [ -n "$ok" ]; then
  bench2 256 40 $ok
  bench2 64 30 $ok
  room 20 && bench1 1 128 head $ok
fi
room 0
summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu && figure && tail -4 $OUT/03-bench.txt
