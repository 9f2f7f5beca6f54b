# Built in the thirty-eighth session. `carry: [".whlx", ".lab12", ".lab89/so.tar.xz"]`, timeout
# 600. .lab12: the bundle and the committed file (s23_run1.sh's header says how); .lab89 by
# `bash docs/kernels/sm90_lab/build.sh .lab89 docs/kernels/sm90_lab/s48_floor0.patch
# docs/kernels/sm90_lab/s48_ring3.patch` (~70 s).
# floor0 (s48_floor0.patch, s48_run1.sh's header): the short-input pool at any length, on
# `tails.py --grid tiny`, two passes.
# ring3 (s48_ring3.patch): d = 256 gets a third V slot (230528 bytes of shared memory). O still
# goes over the V slots of the tile's last two blocks, but the next tile's first V now goes into
# the third and out at once, before the last tile's O stores, rather than after consumer 0's
# rows were written, stored and read (the s39 trace, before oc and qh2, had the producer wait 3211 + 2118 cycles a
# tile there at s = 512). A later V waits for the read of the rows in its slot
# (ring3_model.py runs the rules on random walks and interleavings). d = 64 and 128: steady loops SASS-same as head's (three compares in the
# barrier set-up written the other way round). Checked, then d = 256's perf grid, two passes.
# Then the committed file's `kseek verify --scenarios all` through the bundle (verify_only,
# NODE_SECONDS 200), on any card.
source docs/kernels/sm90_lab/call.sh && wheels > /dev/null || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab89/so.tar.xz || exit 1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
(
  BUDGET=${LAB_BUDGET:-200} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check floor0 ring3
  ok=$(passed ring3)
  [ -n "$ok" ] && bench2 256 40 $ok
  ok=$(passed floor0)
  for pass in 1 2; do
    [ -n "$ok" ] && room 15 && timeout 45 python3 tails.py --grid tiny $L/sm90_head.so \
      $(for v in $ok; do echo $L/sm90_$v.so; done) > $OUT/tiny-$pass.txt 2>&1
    tail -n 3 $OUT/tiny-$pass.txt
  done
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
[ -z "$NO_VERIFY" ] && cd "$CALL_ROOT" && NODE_SECONDS=${NODE_SECONDS:-200} verify_only
ls "$OUT"
