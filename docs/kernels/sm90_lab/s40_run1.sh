# Built in the thirty-second session for the next one's first lab call (not run yet).
# `carry: [".whlx", ".lab63/so.tar.xz", ".lab68/so.tar.xz"]`, timeout_s 360. Rebuild .lab63 first where it is gone:
# `bash docs/kernels/sm90_lab/build.sh .lab63 docs/kernels/sm90_lab/s40_ap.patch
# docs/kernels/sm90_lab/s40_hb.patch docs/kernels/sm90_lab/s40_tt.patch
# docs/kernels/sm90_lab/s40_os.patch docs/kernels/sm90_lab/s40_oc.patch` (head is the committed
# file, ept).
#  - ap (s40_ap.patch): at d = 128 the last consumer issues its second S right after its first
#    (no turn, once the second K is in; K ahead of V is in the file since epka), the first into
#    O's registers, Q from shared memory, the second block's step a `ready` copy (pk's
#    machinery, s39): the tensor pipe then has that S to run during consumer 0's first softmax,
#    where head idles about 870 cycles a tile at s = 512. `sass.py loops` reads its steady
#    loops changed (313 and 336 instructions in walk 0), as every pk build's were (they lost
#    1-2.5% on long inputs);
#  - hb (s40_hb.patch): where none of a warp's 16 rows sees a key in the first block's second
#    half (the causal diagonal's upper warps: consumer 0's at d = 64 and 128), that warp's first
#    softmax takes the first half alone (half the exponentials), P's second half zero. Every d.
#    Its steady loops changed too (9 to 309 instructions by kernel);
#  - os (s40_os.patch): d = 256's producer stores O (staged over the V ring) in two groups, first
#    the boxes in the ring slot the next V goes to, and sends that V once they are read, the
#    rest before the V after it (a tile of one block waits for all, as head does): the trace
#    had the producer wait 2118 cycles a tile for the whole store's read before the next V.
#    Only the d = 256 kernels differ (their steady loops by 6-13 instructions);
#  - oc (s40_oc.patch): d = 256's consumers stage O over the V ring each in a slot of its own
#    (the last consumer over the tile's last V block, the other over the block before), each
#    after its own wait for that slot's release instead of the 256-thread barrier (consumer 0
#    waited 761 cycles there), each with its own o_full; the producer stores consumer 0's rows,
#    sends the next tile's first V once they are read, then stores consumer 1's, which the
#    second V waits for (a next tile of one block: both before its V). Only the d = 256 kernels
#    differ (steady loops by 11-60 instructions);
#  - two passes at d = 128 (ap, hb), d = 64 (hb) and d = 256 (hb, os, oc), a third at d = 128;
#  - the tile trace of head (s40_tt.patch: s37_tt.patch on ept, its stamps 7-10 placed anew,
#    and every CTA's walk by %globaltimer, tt.py's last lines) at d = 128 full s = 512 and
#    16384: how far CTA 0 stands for the others.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab63/so.tar.xz || exit 1
# rs (s41_rs.patch, forty-first: d = 64 takes whole row sums from l_acc, no quad sums) from .lab68
tar -C .lab5x -xJf .lab68/so.tar.xz --wildcards "*rs*" || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-300} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check ap hb os oc rs
  ok=$(passed ap hb)
  [ -n "$ok" ] && bench2 128 30 $ok
  ok64=$(passed hb rs)
  [ -n "$ok64" ] && bench2 64 25 $ok64
  ok256=$(passed hb os oc)
  [ -n "$ok256" ] && bench2 256 25 $ok256
  trace tt 128 0 512
  trace tt 128 0 16384
  [ -n "$ok" ] && room 30 && bench1 3 128 head $ok
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
  grep -v "^  tile" $OUT/tt.txt
)
pack_lab
