# Sixteenth session, device call 6 (`carry: [".whl", ".lab16"]`): where the warps of sm90.cu (the
# committed file, .lab16/sm90_new.so) and FA3 stall, per SASS instruction (ncu source page, s14
# run 7's method), at d = 128 causal s = 16384, where both run 128 x 128 tiles and FA3's tensor
# pipe is 5% busier (s16 run 4); summed by stalls.py.
WHEELS=.whl LAB=.lab16 source docs/kernels/sm90_lab/lab.sh || exit 1
for k in $L/sm90_new.so fa3; do
  tag=$(basename $k .so)-d128-1-16384
  timeout 200 ncu --clock-control none --launch-skip 3 --launch-count 1 \
    -k regex:'AttentionFwd|device_kernel' --section SourceCounters --section WarpStateStats \
    --page source --print-source sass --csv python3 one.py $k 128 1 16384 > /tmp/$tag.csv 2>&1
  gzip -c /tmp/$tag.csv > $OUT/$tag.csv.gz
  echo "$tag: $(wc -l < /tmp/$tag.csv) lines"
done
python3 stalls.py $OUT/*.csv.gz
