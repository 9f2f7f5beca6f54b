# Twelfth session, device call 4 (`carry: [".lab13"]`): what the last wave costs. waves.py on
# sm90_ts (the file as it stands), sm90_nt (no tail launch at d = 128: the leftover pairs run
# whole in the first launch) and sm90_t8 (tiles of 8 or more key blocks split in the tail at
# every d, d = 256 and the two-consumer d = 64 included), with FA3, twice.
LAB=.lab13 source docs/kernels/sm90_lab/lab.sh || exit 1
check nt t8
for pass in 1 2; do
  timeout 150 python3 waves.py $L/sm90_ts.so $L/sm90_nt.so $L/sm90_t8.so > $OUT/waves-$pass.txt 2>&1
done
cat $OUT/waves-1.txt $OUT/waves-2.txt | sed 's/[0-9.]*us //g'
