# Seventeenth session, device call 1 (`carry: [".whl", ".lab17c"]`; .lab17c/so.tar.xz holds the
# built .so files, xz-compressed to fit beside the FA3 wheel). Against head (the committed file,
# fed33a9's kernels):
#   tr2  head with run 7's clock64 stamps (s16_trace.patch): the timeline on ip's softmax order
#   ks4  four partial row sums in the steady state (s16_ks4.patch)
#   px   a quarter of the steady state's exponentials (every fourth column pair) on the FMA pipe:
#        2^floor(x) into the exponent field, 2^frac(x) from a degree-3 polynomial (8 SASS
#        instructions, no MUFU)
#   px2  the same for half of them (every other column pair)
#   nx   timing probe, wrong output: no exponential at all (x -> 1 + x/1000), the bound on what
#        the exponentials' cost leaves to gain
# d = 128 and 256 (d = 64 runs the other softmax: its kernels are head's), twice, bf16,
# interleaved with FA3.
mkdir -p .lab17x && tar -C .lab17x -xJf .lab17c/so.tar.xz || exit 1
WHEELS=.whl LAB=.lab17x source docs/kernels/sm90_lab/lab.sh || exit 1
check head ks4 px px2
for shape in "128 1 16384" "128 0 16384" "128 0 2048"; do
  echo "== d causal s: $shape"
  timeout 60 python3 trace.py $L/sm90_tr2.so $shape 2>&1 | tail -4
done | tee $OUT/trace.txt
bench "head ks4 px px2 nx" 128 256
summary d128-1 d128-2 d256-1 d256-2
