# Twenty-first session, device call 1 (`carry: [".whl", ".lab22/so.tar.xz"]`), built here by
#   bash docs/kernels/sm90_lab/build.sh .lab22 docs/kernels/sm90_lab/s20_fires.patch \
#     docs/kernels/sm90_lab/s20_prev.patch docs/kernels/sm90_lab/s22_mx1.patch
# (head = the committed sm90.cu; prev = e601116's file, before the vote; fires = head counting its
# votes; mx1 = head with the max taken first in a diagonal tile's first unmasked block):
#   1. fires.py: how often the vote fires on the perf set's inputs, d = 64, 128, 256;
#   2. mx1's checks; bench passes of head, prev and mx1 at d = 128 and 64, head and prev at 256,
#      then a second pass at d = 128.
# Then, on the machine this call leaves warm, the figure of the committed file (s15_run3.sh,
# `carry: [".lab12", ".whl2"]`). BUDGET (default 230) is the seconds the steps may take.
mkdir -p .lab22x && tar -C .lab22x -xJf .lab22/so.tar.xz || exit 1
BUDGET=${BUDGET:-230}
WHEELS=.whl LAB=.lab22x source docs/kernels/sm90_lab/lab.sh || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 60 python3 fires.py $L/sm90_fires.so > $OUT/fires.txt 2>&1; cat $OUT/fires.txt
check mx1
room 120 && bench1 1 128 head prev mx1
room 100 && bench1 1 64 head prev mx1
room 70 && bench1 1 256 head prev
room 40 && bench1 2 128 head prev mx1
room 0
summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
