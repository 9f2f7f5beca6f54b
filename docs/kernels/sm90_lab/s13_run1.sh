# Thirteenth session, device call 1 (`carry: [".lab13"]`), against sm90_c8 (kernels/attention_fwd/sm90.cu
# at 1166b16, the same code as c8ac9d1):
#  list: every first launch walks a per-CTA tile list the host writes into the kernel's parameters;
#        with the causal mask the last full round and the leftover go to the CTAs as whole tiles,
#        longest first, each to the CTA whose list ends first (s12_list.patch; CPU check: plancheck.cu).
# Each d twice, bf16, with FA3.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .lab13/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
L=../../../.lab13
cd docs/kernels/sm90_lab
for v in c8 list; do timeout 60 python3 harness.py $L/sm90_$v.so --check > $OUT/check-$v.txt 2>&1; echo "$v: $(grep -E 'BAD|CHECK' $OUT/check-$v.txt | tail -2)"; done
for pass in 1 2; do
  for d in 128 64 256; do
    timeout 100 python3 harness.py $L/sm90_c8.so $L/sm90_list.so --bench --fa3 --only-d $d --only-dtype bf16 --reps 10 > $OUT/bench-d$d-$pass.txt 2>&1
  done
done
for f in d128-1 d128-2 d64-1 d64-2 d256-1 d256-2; do echo "== $f"; python3 cmp.py $OUT/bench-$f.txt --vs fa3 2>&1 | tail -7; done
