# Seventeenth session, device call 5 (`carry: [".whl", ".lab17c"]`): run 4's nv (no max and no
# vote in the steady state; wrong where scores rise) was 8% faster than head at d = 128: the
# exponentials wait for the max and the vote. pc (`s17_pc.patch`, d = 128 only; d = 256 keeps
# head's arm) takes the exponentials under the kept max at once, each row's new max alongside,
# and votes at the end of the block; where the vote says some row rose more than 2^8 over its
# max (rare), the block is done again exactly: S again from K, which now stays until the vote,
# then the stale-max step. Same output as head wherever no vote fires.
mkdir -p .lab17x && tar -C .lab17x -xJf .lab17c/so.tar.xz || exit 1
WHEELS=.whl LAB=.lab17x source docs/kernels/sm90_lab/lab.sh || exit 1
check head pc
bench "head pc" 128
summary d128-1 d128-2
