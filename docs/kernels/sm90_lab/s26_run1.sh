# Twenty-third session, call 3: clusters of two sharing K/V by TMA multicast, without the mask
# (`carry: [".whlx", ".lab31/so.tar.xz"]`, timeout_s 420). .lab31 is built here by
# `bash docs/kernels/sm90_lab/build.sh .lab31 docs/kernels/sm90_lab/s26_cl.patch
# docs/kernels/sm90_lab/s26_cl2.patch` (head = the committed file; cl = d = 256 full on pairs
# of CTAs, Walk::kPairs, when the query tiles per head are even; cl2 = the same for d = 128 full
# where no tail launch is planned; every other kernel SASS-identical to head's, `sass.py same`).
#   1. checks of cl and cl2; only variants whose checks all pass are timed;
#   2. d = 256, two passes, head, cl and cl2 (cl and cl2 run the same d = 256 kernels: a
#      measure of the noise); d = 128, two passes, head and cl2;
#   3. ncu at d = 256 full s = 512 and d = 128 full s = 1024, head and cl2, as time allows.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab31x && tar -C .lab31x -xJf .lab31/so.tar.xz || exit 1
BUDGET=${LAB_BUDGET:-330}
WHEELS=.whl LAB=.lab31x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
check cl cl2
ok=$(for v in cl cl2; do grep -q 'CHECK: \([0-9]*\)/\1 passed' $OUT/check-$v.txt && echo $v; done)
echo "timed: head $ok"
if [ -n "$ok" ]; then
  room 40 && bench1 1 256 head $ok
  room 40 && bench1 2 256 $(echo $ok | tr ' ' '\n' | tac) head
fi
if echo $ok | grep -qw cl2; then
  room 30 && bench1 1 128 head cl2
  room 30 && bench1 2 128 cl2 head
  for shape in "256 0 512" "128 0 1024"; do
    for v in head cl2; do room 15 && ncu1 $L/sm90_$v.so $shape; done
  done
fi
room 0
summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
grep -E '^#####|gpu__time|pipe_tensor|issue_active|lts__t_sector|xbar2l1tex|Grid Size|Cluster' $OUT/ncu.txt | cut -c1-120
