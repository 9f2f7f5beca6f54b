# Twenty-first session, device call 3 (`carry: [".whl", ".lab23/so.tar.xz"]`), built here by
#   bash docs/kernels/sm90_lab/build.sh .lab23 docs/kernels/sm90_lab/s22_lm.patch
# (head = the committed sm90.cu, with mx1 at d = 64; lm = head with the list walk, long causal
# inputs, taking the max first in every block at d >= 128, as before the vote): lm's checks and
# rising.py, then bench passes of head and lm at d = 128 (two) and 256 (one). Then, on the
# machine this call leaves warm, the figure of the committed file (s15_run3.sh,
# `carry: [".lab12", ".whl2"]`).
mkdir -p .lab23x && tar -C .lab23x -xJf .lab23/so.tar.xz || exit 1
WHEELS=.whl LAB=.lab23x source docs/kernels/sm90_lab/lab.sh || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
check lm
timeout 60 python3 rising.py $L/sm90_head.so $L/sm90_lm.so > $OUT/rising.txt 2>&1; tail -3 $OUT/rising.txt
bench1 1 128 head lm
bench1 1 256 head lm
bench1 2 128 lm head
summary d128-1 d256-1 d128-2
