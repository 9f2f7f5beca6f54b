# For the session after the twenty-first: one call (`carry: [".whl", ".lab27/so.tar.xz"]`), built here by
#   bash docs/kernels/sm90_lab/build.sh .lab27 docs/kernels/sm90_lab/s23_fires.patch \
#     docs/kernels/sm90_lab/s23_prev.patch docs/kernels/sm90_lab/s23_nomx.patch
# (head = the committed sm90.cu: the vote, a firing raising the max to the block's, mx1 at d = 64;
# fires = head counting its votes; prev = e601116's file, before the vote; nomx = head without
# mx1):
#   1. fires.py on fires: how often the vote fires now that a firing takes the block's max
#      (twenty-first session, before it: 0.2-1.3% of causal steps, 1-7% of firings raising it);
#   2. nomx's checks; bench passes of head and prev at d = 128 and 256, head, prev and nomx at
#      d = 64 (twice): the gain of the twentieth and twenty-first sessions on whatever machine
#      comes, and whether mx1 still counts.
# Then, on the machine this call leaves warm, the figure of the committed file (s15_run3.sh with
# `carry: [".lab12", ".whl2"]`, .lab12/sm90.cu the committed file). BUDGET (default 200) is the
# seconds the steps may take.
mkdir -p .lab27x && tar -C .lab27x -xJf .lab27/so.tar.xz || exit 1
BUDGET=${BUDGET:-200}
WHEELS=.whl LAB=.lab27x source docs/kernels/sm90_lab/lab.sh || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 60 python3 fires.py $L/sm90_fires.so > $OUT/fires.txt 2>&1; cat $OUT/fires.txt
check nomx
room 120 && bench1 1 128 head prev
room 100 && bench1 1 64 head prev nomx
room 80 && bench1 1 256 head prev
room 50 && bench1 2 64 nomx prev head
room 0
summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
python3 cmp.py $OUT/bench-d128-1.txt $OUT/bench-d64-1.txt $OUT/bench-d256-1.txt --vs fa3 | tail -2
