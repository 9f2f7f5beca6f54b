# Fourteenth session, device call 7 (`carry: [".lab14"]`): where the warps of sm90_base (a8e3945)
# and FA3 stall, per SASS instruction (ncu source page, as src.sh; FA3's kernel is CUTLASS's device_kernel), at
# d = 128 causal s = 4096 and d = 64 causal s = 2048; summed by stalls.py.
LAB=.lab14 source docs/kernels/sm90_lab/lab.sh || exit 1
for shape in "128 1 4096" "64 1 2048"; do
  for k in ${KERNELS:-$L/sm90_base.so fa3}; do
    tag=$(basename $k .so)-d${shape// /-}
    timeout 150 ncu --clock-control none --launch-skip 3 --launch-count 1 \
      -k regex:'AttentionFwd|device_kernel' --section SourceCounters --section WarpStateStats \
      --page source --print-source sass --csv python3 one.py $k $shape > /tmp/$tag.csv 2>&1
    gzip -c /tmp/$tag.csv > $OUT/$tag.csv.gz
    echo "$tag: $(wc -l < /tmp/$tag.csv) lines"
  done
done
python3 stalls.py $OUT/*.csv.gz
