# Eighteenth session's variants, in two device calls (`s18_run1.sh check`, then
# `s18_run1.sh bench`: together they outlast one command's 600 s). Built here first (no GPU):
#   bash docs/kernels/sm90_lab/build.sh .lab18 docs/kernels/sm90_lab/s18_*.patch
# each call with the FA3 wheel in .whl (docs/baselines.md): `carry: [".whl", ".lab18/so.tar.xz"]`.
# The stale-max vote after the exponentials, made exact by keeping S in registers: row 0's
# exponentials start under the kept max as soon as S is in, packed into a P of their own (p0)
# while P V still reads p_frag; where the warp's vote fires, the block is taken again from S
# by the stale-max step itself (head's bits).
#   vap  each row's new max taken among row 0's exponentials; the vote after the P V wait,
#        before row 1's exponentials
#   vbp  the same, the vote after row 1's exponentials (pw's order, s17 run 8)
#   vs   no row max in the common path: the vote on this thread's row sums (no probability over
#        2^8 where a thread's part of each row sums to no more) and on rows with no key yet;
#        the max only where the vote fires (vote_model.py: head's bits in 168 cases)
#   vs64 vs, and the same at d = 64 (after both products there): a stale max for d = 64, which
#        head keeps exact; its d >= 128 kernels are vs's instruction for instruction
# check: the harness's checks (the first run of harness.py's run_checked, 52b5b13) and
# rising.py, now with d = 256 and 64 (256 cases a kernel). At most 8 files come back: the
# checks go into one. bench: d = 64 is head against vs64 alone (the others' d = 64 kernels are
# head's).
mkdir -p .lab18x && tar -C .lab18x -xJf .lab18/so.tar.xz || exit 1
WHEELS=.whl LAB=.lab18x source docs/kernels/sm90_lab/lab.sh || exit 1
case "$1" in
  check)
    check head vap vbp vs vs64
    cat $OUT/check-*.txt > $OUT/checks.txt && rm $OUT/check-*.txt
    timeout 400 python3 rising.py $L/sm90_head.so $L/sm90_vap.so $L/sm90_vbp.so $L/sm90_vs.so \
      $L/sm90_vs64.so > $OUT/rising.txt 2>&1
    grep -E 'CHECK|Error|error' $OUT/rising.txt
    ;;
  bench)
    bench "head vap vbp vs" 128 256
    bench "head vs64" 64
    summary d128-1 d128-2 d256-1 d256-2 d64-1 d64-2
    ;;
  *) echo "usage: s18_run1.sh check|bench"; exit 2 ;;
esac
