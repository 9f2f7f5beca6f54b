# src.sh TAG SO D CAUSAL S: per-SASS-instruction stall samples (ncu source page), gzipped CSV to $OUT
tag=$1; shift
ncu --clock-control none --launch-skip 3 --launch-count 1 -k regex:AttentionFwd --section SourceCounters \
  --section WarpStateStats --page source --print-source sass --csv python3 one.py "$@" > /tmp/$tag.csv 2>&1
gzip -c /tmp/$tag.csv > $OUT/$tag.csv.gz
echo "$tag: $(wc -l < /tmp/$tag.csv) lines"
