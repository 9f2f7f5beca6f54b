# Thirty-fourth session, call 2: `carry: [".whlx", ".lab12", ".lab74/so.tar.xz"]`, timeout_s 480.
# hf = the working file: hl (the producer's O slot from OStageBlock and OStageAddr, StoreTile's
# helpers; call 1's hl build missed the two stores after the walk and failed the check on every
# d >= 192 shape) and f64 (d = 256 full inputs on the 64-key kernels; +0.6% and +0.2% over
# d = 256 in call 1's two passes), the 80-key kernels deleted. .lab74 holds head (a3d75a4's
# build) and hf, built by nvcc -O3 for sm_90a. Checks, two passes at d = 256, then (if hf passed)
# the figure of .lab12/sm90.cu (= hf) through the product.
source docs/kernels/sm90_lab/call.sh && wheels > /dev/null || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab74/so.tar.xz || exit 1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
(
  BUDGET=${LAB_BUDGET:-80} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check hf
  [ -n "$(passed hf)" ] && bench2 256 25 hf
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
if grep -q 'CHECK: \([0-9]*\)/\1 passed' "$OUT/check-hf.txt"; then
  NODE_SECONDS=${NODE_SECONDS:-320} figure
else
  pack_lab
fi
ls "$OUT"
