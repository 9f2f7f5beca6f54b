# Thirteenth session, device call 2 (`carry: [".lab13"]`): where run 1's fixed cost of the list comes
# from (full attention, whose walk the list does not change, lost 4 us at every length).
#  p30, p12: sm90_c8 with 30 KB and 12.7 KB of unread parameters on the first launch;
#  l16: sm90_list with 16-bit entries (counted from a base unit per launch) and kMaxCtas 132:
#       12.7 KB of list;
#  sk:  with the causal mask, a walk without units: every tile of the input, longest first, dealt
#       to the CTAs in a snake (round r: CTA j takes tile r * G + j, or r * G + G - 1 - j in odd
#       rounds), computed in the kernel (PoolTile) in a kernel of its own (a walk of two kinds in
#       one kernel takes the descriptors out of uniform registers); full attention as before.
# Each d twice, bf16, with FA3.
LAB=.lab13 source docs/kernels/sm90_lab/lab.sh || exit 1
check l16 sk
for pass in 1 2; do
  timeout 120 python3 harness.py $L/sm90_c8.so $L/sm90_p30.so $L/sm90_p12.so $L/sm90_l16.so $L/sm90_sk.so --bench --fa3 --only-d 128 --only-dtype bf16 --reps 10 > $OUT/bench-d128-$pass.txt 2>&1
  for d in 64 256; do
    timeout 100 python3 harness.py $L/sm90_c8.so $L/sm90_p30.so $L/sm90_l16.so $L/sm90_sk.so --bench --fa3 --only-d $d --only-dtype bf16 --reps 10 > $OUT/bench-d$d-$pass.txt 2>&1
  done
done
summary d128-1 d128-2 d64-1 d64-2 d256-1 d256-2
