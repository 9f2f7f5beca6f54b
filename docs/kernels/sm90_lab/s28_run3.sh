# Twenty-fourth session, call 3 (`carry: [".whlx", ".lab35/so.tar.xz", ".lab37/so.tar.xz"]`,
# timeout_s 300). .lab37 is built here by `bash docs/kernels/sm90_lab/build.sh .lab37
# docs/kernels/sm90_lab/s28_p64.patch docs/kernels/sm90_lab/s28_p64s.patch
# docs/kernels/sm90_lab/s28_ds.patch docs/kernels/sm90_lab/s28_ttds.patch`:
#   ds    a probe: odd CTAs' producer starts 12000 cycles late, so that half the CTAs change
#         tiles half a tile (s = 512, d = 256) out of step with the other half. Is a d = 256 tile's
#         start (Q and first K 3200 cycles late at s = 512, 27-tt.txt) the whole GPU's DRAM
#         burst when every CTA changes tiles at once? ttds is ds on the tile trace (s27_tt),
#         against .lab35's tt: CTA 0 (not delayed) should see a shorter tile period if so;
#   p64   d = 64 causal on two consumers (s <= 2048) takes the pool from 2048 keys (as d = 128);
#   p64s  and splits its tail's tiles of 16 blocks and more (d = 64 causal s = 2048: 0.971x FA3);
#   pqs   the next tile's Q prefetched into L2 one 64-column chunk a block from the tile's first
#         block (pq in one go at its last block measured +0.2-0.5%, call 2), where Q does not go
#         out early (d = 64, 256); built by hand into .lab37 (`patch -o .lab37/sm90_pqs.cu
#         kernels/attention_fwd/sm90.cu docs/kernels/sm90_lab/s28_pqs.patch`, build.sh's nvcc
#         line, so.tar.xz packed again).
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
for lab in .lab35 .lab37; do mkdir -p ${lab}x && tar -C ${lab}x -xJf $lab/so.tar.xz || exit 1; done
cp .lab35x/sm90_tt.so .lab37x/ || exit 1
BUDGET=${LAB_BUDGET:-270}
WHEELS=.whl LAB=.lab37x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
for shape in "256 0 512" "256 0 1024" "256 1 1024"; do
  for v in tt ttds; do
    echo "## $v" >> $OUT/tt.txt
    timeout 60 python3 tt.py $L/sm90_$v.so $shape >> $OUT/tt.txt 2>&1
  done
done
grep -v '^  tile' $OUT/tt.txt
check p64 p64s ds pqs
ok=$(passed p64 p64s pqs)
ok256=$(passed ds pqs)
[ -n "$ok256" ] && room 40 && bench1 1 256 head $ok256
[ -n "$ok256" ] && room 60 && bench1 2 256 $(echo $ok256 | tr ' ' '\n' | tac) head
if [ -n "$ok" ]; then
  room 30 && bench1 1 64 head $ok
  room 30 && bench1 2 64 $(echo $ok | tr ' ' '\n' | tac) head
fi
room 0
summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
