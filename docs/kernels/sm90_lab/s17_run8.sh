# Seventeenth session, device call 8 (`carry: [".whl", ".lab17c"]`): runs 6 and 7 put the
# warpgroup's vote (needed because pc's redo issues wgmma) at a net loss. pw (`s17_pw.patch`)
# is pc with a warp's vote and a redo without wgmma: the warp raises the max and rescales the
# block's exponentials by exp2(old - new). Exact while no exponential overflowed (a score more
# than 128 log2 units over the kept max) or underflowed (a row with no key yet); a measure of
# what vote-after costs on causal inputs with a warp-level redo, not a candidate as it stands.
mkdir -p .lab17x && tar -C .lab17x -xJf .lab17c/so.tar.xz || exit 1
WHEELS=.whl LAB=.lab17x source docs/kernels/sm90_lab/lab.sh || exit 1
check head pw
bench "head pw" 128
summary d128-1 d128-2
