# Ninth session, device call 1 (`carry: [".whl", ".lab11"]`, fa3-fwd 0.0.3): sm90_base (the
# committed file) against sm90_cr (the row max raised only when a row's scores rise more than 2^8
# above it, and O rescaled only then), bf16 at d = 64, 128 and 256 interleaved with FA3 and cuDNN;
# then ncu's per-instruction stall samples (src.sh) for sm90_cr and FA3 on d = 128 causal s = 8192.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
L=../../../.lab11
cd docs/kernels/sm90_lab
python3 harness.py $L/sm90_cr.so --check > $OUT/check-cr.txt 2>&1; grep -E 'BAD|CHECK' $OUT/check-cr.txt
for d in 128 256 64; do
  timeout 200 python3 harness.py $L/sm90_base.so $L/sm90_cr.so --bench --fa3 --only-d $d --only-dtype bf16 --reps 10 \
    > $OUT/bench-d$d.txt 2>&1
  grep GEOMEAN $OUT/bench-d$d.txt
done
for k in $L/sm90_cr.so fa3; do
  tag=src-$(basename $k .so)-d128c-s8192
  timeout 100 ncu --clock-control none --kernel-name-base demangled --launch-skip 3 --launch-count 1 \
    -k regex:'AttentionFwd|FlashAttnFwd' --section SourceCounters --section WarpStateStats \
    --page source --print-source sass --csv python3 one.py $k 128 1 8192 > /tmp/$tag.csv 2>&1
  gzip -c /tmp/$tag.csv > $OUT/$tag.csv.gz; echo "$tag: $(wc -l < /tmp/$tag.csv) lines"
done
for d in 128 256 64; do python3 cmp.py $OUT/bench-d$d.txt --vs fa3 2>&1 | tail -12; done
