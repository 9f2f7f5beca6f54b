# For the session after the twentieth: one call (`carry: [".whl", ".lab21/so.tar.xz"]`), built here by
#   bash docs/kernels/sm90_lab/build.sh .lab21 docs/kernels/sm90_lab/s20_fires.patch docs/kernels/sm90_lab/s20_prev.patch
# (head = the committed sm90.cu, which takes no row max in unmasked blocks; prev = the file before
# it, e601116's; fires = head counting its votes):
#   1. fires.py: how often the vote fires on the perf set's inputs, d = 64, 128, 256;
#   2. one bench pass of head and prev at d = 128, 64 and 256 against FA3 (the gain measured
#      on the H100 in the twentieth session, again on this machine), then a second at d = 128.
# Then, on the machine this call leaves warm, the figure of the committed file (s15_run3.sh with
# `carry: [".lab12", ".whl2"]`, .lab12 holding the bundle and the file as .lab12/sm90.cu).
# BUDGET (default 200) is the seconds the steps may take.
mkdir -p .lab21x && tar -C .lab21x -xJf .lab21/so.tar.xz || exit 1
BUDGET=${BUDGET:-200}
WHEELS=.whl LAB=.lab21x source docs/kernels/sm90_lab/lab.sh || exit 1
timeout 60 python3 fires.py $L/sm90_fires.so > $OUT/fires.txt 2>&1; cat $OUT/fires.txt
room 100 && bench1 1 128 head prev
room 80 && bench1 1 64 head prev
room 60 && bench1 1 256 head prev
room 40 && bench1 2 128 head prev
room 0
summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
