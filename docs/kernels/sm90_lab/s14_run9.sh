# Fourteenth session, written for a device call that did not happen (device time spent): ka, the
# file with s14_kahead.patch applied (K ahead of V only at d = 256, kKAhead; built as
# .lab14/sm90_ka.so), checked, and timed once per d against base (a8e3945).
LAB=.lab14 source docs/kernels/sm90_lab/lab.sh || exit 1
check ka
for d in 256 128 64; do
  timeout 100 python3 harness.py $L/sm90_base.so $L/sm90_ka.so --bench --fa3 --only-d $d \
    --only-dtype bf16 --reps 10 > $OUT/bench-d$d-1.txt 2>&1
done
summary d256-1 d128-1 d64-1
