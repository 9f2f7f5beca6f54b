# Sixteenth session, device call 5 (`carry: [".whl", ".lab16"]`): the stale-max softmax without
# its branch, after FA3's causal d = 128 loop, which is one straight block between its waits
# (s16 run 4 and its SASS): against head (the committed file, sm90_new),
#   nb   the rescale decided by the same vote, but both outcomes on one path: the row max's two
#        shuffles every block, the max kept or raised by a select, correction exp2(0) = 1 when
#        kept, and O multiplied by the correction every block (64 FMUL, as FA3 does), no branch;
#   (nbg, nb without the never-taken branch that keeps ptxas from hoisting the P V wait above
#   the softmax, was built and not run: ptxas put the wait before the first exponential.)
# d = 128 and 256 (d = 64 runs the other softmax: its kernels are head's), twice, bf16,
# interleaved with FA3.
WHEELS=.whl LAB=.lab16 source docs/kernels/sm90_lab/lab.sh || exit 1
check new nb
bench "new nb" 128 256
summary d128-1 d128-2 d256-1 d256-2
