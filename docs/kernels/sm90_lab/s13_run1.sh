# Thirteenth session, device call 1 (`carry: [".lab13"]`), against sm90_c8 (kernels/attention_fwd/sm90.cu
# at 1166b16, the same code as c8ac9d1):
#  list: every first launch walks a per-CTA tile list the host writes into the kernel's parameters;
#        with the causal mask the last full round and the leftover go to the CTAs as whole tiles,
#        longest first, each to the CTA whose list ends first (s12_list.patch; CPU check: plancheck.cu).
# Each d twice, bf16, with FA3.
LAB=.lab13 source docs/kernels/sm90_lab/lab.sh || exit 1
check c8 list
for pass in 1 2; do
  for d in 128 64 256; do
    timeout 100 python3 harness.py $L/sm90_c8.so $L/sm90_list.so --bench --fa3 --only-d $d --only-dtype bf16 --reps 10 > $OUT/bench-d$d-$pass.txt 2>&1
  done
done
summary d128-1 d128-2 d64-1 d64-2 d256-1 d256-2
