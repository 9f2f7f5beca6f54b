# Seventeenth session, device call 9 (`carry: [".whl", ".lab17c"]`): pe (`s17_pe.patch`) is
# pw made exact: where the warp's redo could meet an exponential that overflowed (the row's
# new max 120 or more log2 units over the kept one) or underflowed (a row with no key before
# this block), it computes its 16 rows of S again by mma.sync from Q's registers and K (kept
# until the vote) and takes the exact stale-max step; otherwise pw's rescale. rising.py (new)
# checks scores that rise from block to block by up to 400 log2 units, where pw should fail.
mkdir -p .lab17x && tar -C .lab17x -xJf .lab17c/so.tar.xz || exit 1
WHEELS=.whl LAB=.lab17x source docs/kernels/sm90_lab/lab.sh || exit 1
check head pw pe
timeout 120 python3 rising.py $L/sm90_head.so $L/sm90_pw.so $L/sm90_pe.so > $OUT/rising.txt 2>&1
grep -E 'CHECK|Error|error' $OUT/rising.txt
bench "head pe" 128
summary d128-1 d128-2
