# Fourteenth session, device call 5 (`carry: [".lab14"]`): d = 64 causal s = 2048, the lowest
# scenario (two consumers, 128 x 128 tiles, softmax after both products), against FA3's choice
# for d = 64 causal (192 x 128, softmax overlapped inside each warpgroup). Variants of base
# (a8e3945), d = 64 only:
#   v3: two consumers with Q in registers, as d = 128;
#   v4: two consumers with the softmax overlapped with their own P V (the d >= 128 loop);
#   v5: three consumers everywhere at d = 64, all with the softmax overlapped (FA3's tiles).
# Each twice, bf16, with FA3.
LAB=.lab14 source docs/kernels/sm90_lab/lab.sh || exit 1
check v3 v4 v5
for pass in 1 2; do
  timeout 150 python3 harness.py $L/sm90_base.so $L/sm90_v3.so $L/sm90_v4.so $L/sm90_v5.so \
    --bench --fa3 --only-d 64 --only-dtype bf16 --reps 10 > $OUT/bench-d64-$pass.txt 2>&1
done
summary d64-1 d64-2
grep -h 'c=1' $OUT/bench-d64-*.txt | grep -E 's= (1024|2048)' | sed -E 's/err=[^ ]+//g'
