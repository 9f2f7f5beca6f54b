# Twenty-first session, device call 7 (`carry: [".whl", ".lab25/so.tar.xz", ".lab22/so.tar.xz"]`):
# why the vote loses on long causal inputs (call 6). At d = 128, s = 16384, bf16, ncu on the 4th
# call's kernel: causal, vl (the list walk with the vote) against head (the committed file: list
# walk, max first); without the mask, head (units walk, with the vote) against prev (.lab22's
# e601116 file: max first everywhere). Per kernel: time, clock, instructions
# (ncu --metrics), the main launch only (units or list walk, not the tail launch), then
# stall samples per SASS instruction (the source page, as src.sh), summed by stalls.py.
mkdir -p .lab25x /tmp/lab22 && tar -C .lab25x -xJf .lab25/so.tar.xz && tar -C /tmp/lab22 -xJf .lab22/so.tar.xz &&
  cp /tmp/lab22/sm90_head.so .lab25x/sm90_vl.so && cp /tmp/lab22/sm90_prev.so .lab25x/sm90_prev.so || exit 1
WHEELS=.whl LAB=.lab25x source docs/kernels/sm90_lab/lab.sh || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum
for run in "vl 1" "head 1" "head 0" "prev 0"; do
  set -- $run
  tag=$1-c$2
  timeout 60 ncu --clock-control none --launch-skip 3 --launch-count 1 --kernel-name-base mangled -k regex:'AttentionFwd.*WalkE[01]' \
    --metrics $M python3 one.py $L/sm90_$1.so 128 $2 16384 > $OUT/m-$tag.txt 2>&1
  if ! grep -q gpu__time $OUT/m-$tag.txt; then  # mangled names not matched: every launch
    tail -3 $OUT/m-$tag.txt
    timeout 60 ncu --clock-control none --launch-skip 3 --launch-count 1 -k regex:AttentionFwd \
      --metrics $M python3 one.py $L/sm90_$1.so 128 $2 16384 > $OUT/m-$tag.txt 2>&1
  fi
  echo "== $tag"; grep -E "AttentionFwd|gpu__|sm__|smsp__" $OUT/m-$tag.txt
  timeout 90 ncu --clock-control none --launch-skip 3 --launch-count 1 --kernel-name-base mangled -k regex:'AttentionFwd.*WalkE[01]' \
    --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
    python3 one.py $L/sm90_$1.so 128 $2 16384 > /tmp/$tag.csv 2>&1
  gzip -c /tmp/$tag.csv > $OUT/$tag.csv.gz
done
python3 stalls.py $OUT/*.csv.gz
