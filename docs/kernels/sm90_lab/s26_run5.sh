# Twenty-third session, call 7 (`carry: [".whlx", ".lab34/so.tar.xz"]`, timeout_s 300), after the
# tile timelines (24-tt.txt). .lab34 is built here by `bash docs/kernels/sm90_lab/build.sh .lab34
# docs/kernels/sm90_lab/s26_po.patch docs/kernels/sm90_lab/s26_nx.patch`:
#   po  d = 256 (O staged over the V ring): the producer stores O once the consumers have
#       written it (a new o_full barrier in place of o_free) and waits for the store to read it
#       before the next tile's first V, so that the consumers no longer issue the store and wait
#       for its read (at d = 256 full s = 512: 3000 cycles from the O writes to the store
#       issued, 1800 more to its read, of a 26000-cycle tile); d = 64 and 128 SASS-identical;
#   nx  every kernel: the next tile found (TileWalk::Next, its divisions) while the tile's last
#       P V runs, not between the tile's end and the next one's start (770 cycles at every d).
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab34x && tar -C .lab34x -xJf .lab34/so.tar.xz || exit 1
BUDGET=${LAB_BUDGET:-230}
WHEELS=.whl LAB=.lab34x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
check po nx
ok=$(for v in po nx; do grep -q 'CHECK: \([0-9]*\)/\1 passed' $OUT/check-$v.txt && echo $v; done)
echo "timed: head $ok"
if [ -n "$ok" ]; then
  room 35 && bench1 1 256 head $ok
  room 35 && bench1 2 256 $(echo $ok | tr ' ' '\n' | tac) head
fi
if echo $ok | grep -qw nx; then
  room 25 && bench1 1 128 head nx
  room 25 && bench1 2 128 nx head
  room 25 && bench1 1 64 head nx
fi
room 0
summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
