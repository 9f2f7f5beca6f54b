# Seventeenth session, device call 4 (`carry: [".whl", ".lab17c"]`): run 2's probes put the
# step at 2078 cycles with no softmax (g0), 2420-2500 with no exponentials (nx), 2520-2540 for
# head: the softmax's other work, not its exponentials, holds the tensor pipe. Against head:
#   pr   the stale-max vote per row: row 0's max and vote, row 0's exponentials with row 1's
#        max interleaved by ptxas (SASS: row 1's FMNMX among row 0's MUFU), row 1's vote
#        before the P V wait; O rescaled when either row voted
#   nv   timing probe: no max and no vote in the steady state (the first block's max stays;
#        output right only while no row's scores rise by 2^8 over it)
#   tpr  pr with run 7's stamps
mkdir -p .lab17x && tar -C .lab17x -xJf .lab17c/so.tar.xz || exit 1
WHEELS=.whl LAB=.lab17x source docs/kernels/sm90_lab/lab.sh || exit 1
check head pr nv
for v in tr2 tpr; do
  for shape in "128 1 16384" "128 0 16384"; do
    echo "== $v d causal s: $shape"
    timeout 60 python3 trace.py $L/sm90_$v.so $shape 2>&1 | tail -3 | head -2
  done
done | tee $OUT/trace.txt
bench "head pr nv" 128 256
summary d128-1 d128-2 d256-1 d256-2
