# Fourteenth session, device call 4 (`carry: [".lab14"]`): two changes aimed at the weakest regions
# short of d = 128, in one build each (they touch different d):
#   v1: the pool also at d = 64 on two consumers (causal, s <= 2048) from a longest tile of 2048
#       keys; d = 256 full at s <= 1024 on 64-key blocks, as causal already is there (s = 512 on
#       80-key blocks computes 560 keys a row);
#   v2: the pool at d = 64 on two consumers from 1024 keys.
# base: the file as committed (a8e3945). Each of d = 64 and 256 twice, bf16, with FA3.
LAB=.lab14 source docs/kernels/sm90_lab/lab.sh || exit 1
check v1 v2
for pass in 1 2; do
  for d in 64 256; do
    timeout 100 python3 harness.py $L/sm90_base.so $L/sm90_v1.so $L/sm90_v2.so --bench --fa3 \
      --only-d $d --only-dtype bf16 --reps 10 > $OUT/bench-d$d-$pass.txt 2>&1
  done
done
summary d64-1 d64-2 d256-1 d256-2
