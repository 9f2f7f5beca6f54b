# Ninth session, device call 2 (`carry: [".whl", ".lab11"]`): sm90_cr2 (run 1's stale max, d >= 128
# only) against sm90_xt4 (the same, and at d = 128 a tile's last P V issued in one turn with the next
# tile's first S product, the epilogue under that S), with sm90_base (the committed file) at d = 64;
# bf16, interleaved with FA3 and cuDNN; then ncu's per-instruction stall samples (first launch only)
# for both on d = 128 causal s = 8192.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
L=../../../.lab11
cd docs/kernels/sm90_lab
for v in cr2 xt4; do python3 harness.py $L/sm90_$v.so --check > $OUT/check-$v.txt 2>&1; grep -E 'BAD|CHECK' $OUT/check-$v.txt; done
timeout 150 python3 harness.py $L/sm90_cr2.so $L/sm90_xt4.so --bench --fa3 --only-d 128 --only-dtype bf16 --reps 10 > $OUT/bench-d128.txt 2>&1
timeout 150 python3 harness.py $L/sm90_base.so $L/sm90_cr2.so $L/sm90_xt4.so --bench --fa3 --only-d 64 --only-dtype bf16 --reps 10 > $OUT/bench-d64.txt 2>&1
timeout 150 python3 harness.py $L/sm90_cr2.so $L/sm90_xt4.so --bench --fa3 --only-d 256 --only-dtype bf16 --reps 10 > $OUT/bench-d256.txt 2>&1
for v in cr2 xt4; do
  tag=src-$v-d128c-s8192
  timeout 60 ncu --clock-control none --kernel-name-base demangled --launch-skip 3 --launch-count 1 \
    -k regex:'AttentionFwdKernel.*\(bool\)0>' --section SourceCounters --section WarpStateStats \
    --page source --print-source sass --csv python3 one.py $L/sm90_$v.so 128 1 8192 > /tmp/$tag.csv 2>&1
  gzip -c /tmp/$tag.csv > $OUT/$tag.csv.gz; echo "$tag: $(wc -l < /tmp/$tag.csv) lines"
done
for d in 128 256 64; do grep GEOMEAN $OUT/bench-d$d.txt; python3 cmp.py $OUT/bench-d$d.txt --vs fa3 2>&1 | tail -8; done
