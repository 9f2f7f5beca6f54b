# Seventeenth session, device call 7 (`carry: [".whl", ".lab17c"]`): run 6's pv checked 146/146
# but was no faster (-0.6%/-1.2% at d = 128; full s >= 2048 +1.6%/+0.4%, causal s >= 2048
# -2%/-3%): its warpgroup vote (a barrier reduction) sat at the end of the block, on the path to
# the next one. pv2 takes that vote right after row 0's exponentials, while P V runs, and
# branches on it at the end. sm90.cu as written for the figure (call 8, s15_run3.sh) if it wins.
mkdir -p .lab17x && tar -C .lab17x -xJf .lab17c/so.tar.xz || exit 1
WHEELS=.whl LAB=.lab17x source docs/kernels/sm90_lab/lab.sh || exit 1
check head pv2
bench "head pv2" 128
summary d128-1 d128-2
