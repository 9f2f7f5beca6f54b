# Twelfth session, device call 4 (`carry: [".lab13"]`): what the last wave costs. waves.py on
# sm90_ts (the file as it stands), sm90_nt (no tail launch at d = 128: the leftover pairs run
# whole in the first launch) and sm90_t8 (tiles of 8 or more key blocks split in the tail at
# every d, d = 256 and the two-consumer d = 64 included), with FA3, twice.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .lab13/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
L=../../../.lab13
cd docs/kernels/sm90_lab
for v in nt t8; do timeout 60 python3 harness.py $L/sm90_$v.so --check > $OUT/check-$v.txt 2>&1; echo "$v: $(grep -E 'BAD|CHECK' $OUT/check-$v.txt | tail -2)"; done
for pass in 1 2; do
  timeout 150 python3 waves.py $L/sm90_ts.so $L/sm90_nt.so $L/sm90_t8.so > $OUT/waves-$pass.txt 2>&1
done
cat $OUT/waves-1.txt $OUT/waves-2.txt | sed 's/[0-9.]*us //g'
