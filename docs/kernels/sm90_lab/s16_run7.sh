# Sixteenth session, device call 7 (`carry: [".lab16"]`): where the d = 128 steady state leaves the
# tensor pipe idle (s16 runs 4 and 6). sm90_tr is the committed file with clock64 stamps around
# each phase of every steady-state step of CTA 0's two consumers (trace.py prints the medians).
cd docs/kernels/sm90_lab || exit 1
L=../../../.lab16
for shape in "128 1 16384" "128 0 16384" "128 0 2048"; do
  echo "== d causal s: $shape"
  timeout 60 python3 trace.py $L/sm90_tr.so $shape 2>&1 | tail -4
done | tee $OUT/trace.txt
