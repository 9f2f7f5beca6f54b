# Fifteenth session, device call 1 (`carry: [".lab15"]`): the two changes built and read in the
# fourteenth session but not run, against base (a9ce212's file):
#   ka    s14_kahead.patch: K of block i + 1 before V of block i, d = 256 only (kKAhead);
#   pd256 s14_pdouble.patch with kPBufs = 2 at d = 256 only: two P buffers, so the next P is
#         packed among the exponentials instead of after the wait for P V;
#   pdq   s14_pdouble.patch everywhere (not serial-softmax kernels) and kQRegs = false;
#   nq    kQRegs = false alone, to split pdq's two changes at d = 128.
# Each d twice, bf16, interleaved with FA3 in one process.
LAB=.lab15 source docs/kernels/sm90_lab/lab.sh || exit 1
check base ka pd256 pdq nq
for pass in 1 2; do
  timeout 120 python3 harness.py $L/sm90_base.so $L/sm90_ka.so $L/sm90_pd256.so --bench --fa3 \
    --only-d 256 --only-dtype bf16 --reps 10 > $OUT/bench-d256-$pass.txt 2>&1
  timeout 120 python3 harness.py $L/sm90_base.so $L/sm90_nq.so $L/sm90_pdq.so --bench --fa3 \
    --only-d 128 --only-dtype bf16 --reps 10 > $OUT/bench-d128-$pass.txt 2>&1
  timeout 100 python3 harness.py $L/sm90_base.so $L/sm90_pdq.so --bench --fa3 \
    --only-d 64 --only-dtype bf16 --reps 10 > $OUT/bench-d64-$pass.txt 2>&1
done
summary d256-1 d256-2 d128-1 d128-2 d64-1 d64-2
