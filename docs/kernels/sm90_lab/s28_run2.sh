# Twenty-fourth session, call 2 (`carry: [".whlx", ".lab36/so.tar.xz"]`, timeout_s 300): L2
# prefetch of the next tile's first loads. .lab36 is built here by `bash docs/kernels/sm90_lab/build.sh
# .lab36 docs/kernels/sm90_lab/s28_pq.patch docs/kernels/sm90_lab/s28_pf.patch
# docs/kernels/sm90_lab/s28_pf3.patch`:
#   pq   the producer, at the K of the tile's last block, prefetches the next tile's Q into L2
#        (cp.async.bulk.prefetch.tensor; not where Q goes out early: d = 128);
#   pf   and the next tile's first K and V blocks;
#   pf3  the same three blocks earlier (the K of the tile's third block from its end).
# At d = 256 s = 512 a tile's start waits 3200 cycles of 25666 for its Q and first K (27-tt.txt).
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab36x && tar -C .lab36x -xJf .lab36/so.tar.xz || exit 1
BUDGET=${LAB_BUDGET:-270}
WHEELS=.whl LAB=.lab36x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
check pq pf pf3
ok=$(passed pq pf pf3)
echo "timed: head $ok"
if [ -n "$ok" ]; then
  room 40 && bench1 1 256 head $ok
  room 40 && bench1 2 256 $(echo $ok | tr ' ' '\n' | tac) head
  okkv=$(echo $ok | tr ' ' '\n' | grep -v '^pq$')
  [ -n "$okkv" ] && room 30 && bench1 1 128 head $okkv
  [ -n "$okkv" ] && room 30 && bench1 2 128 $(echo $okkv | tr ' ' '\n' | tac) head
  room 25 && bench1 1 64 head $ok
fi
room 0
summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
