# Eleventh session, device call 3 (`carry: [".lab11"]`): sm90_ud against sm90_pu (run 2, adopted):
# each wgmma descriptor built as a base descriptor per stage plus a constant added to its address
# field (DescPlus), instead of MakeDesc's mask and shifts per wgmma. Steady loops: d = 64 463 -> 432
# instructions, d = 128 525 -> 483, d = 256 539 -> 496. bf16, interleaved with FA3 and cuDNN; every
# d twice to see the run-to-run spread.
# Sources: sm90.cu at 91baba1 with s11_variants.patch applied (see its header).
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .lab11/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
L=../../../.lab11
cd docs/kernels/sm90_lab
timeout 60 python3 harness.py $L/sm90_ud.so --check > $OUT/check-ud.txt 2>&1; grep -E 'BAD|CHECK' $OUT/check-ud.txt | tail -3
for pass in 1 2; do for d in 64 128 256; do
  timeout 80 python3 harness.py $L/sm90_pu.so $L/sm90_ud.so --bench --fa3 --only-d $d --only-dtype bf16 --reps 10 > $OUT/bench-d$d-$pass.txt 2>&1
done; done
for f in d64-1 d64-2 d128-1 d128-2 d256-1 d256-2; do echo "== $f"; grep GEOMEAN $OUT/bench-$f.txt | grep fa3; python3 cmp.py $OUT/bench-$f.txt --vs fa3 2>&1 | tail -6; done
