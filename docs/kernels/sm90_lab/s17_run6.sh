# Seventeenth session, device call 6 (`carry: [".whl", ".lab17c"]`): run 5's pc hung on causal
# inputs: its vote was a warp's, and the redo issues wgmma, which the whole warpgroup must issue
# together. pv is pc with the vote over the consumer warpgroup (ConsumerAny, a reduction on its
# named barrier), written into sm90.cu as kVoteAfter (d = 128 only; d = 256's kernels are head's,
# `sass.py same`). Then, in call 7, the figure on this file (s15_run3.sh).
mkdir -p .lab17x && tar -C .lab17x -xJf .lab17c/so.tar.xz || exit 1
WHEELS=.whl LAB=.lab17x source docs/kernels/sm90_lab/lab.sh || exit 1
check head pv
bench "head pv" 128
summary d128-1 d128-2
