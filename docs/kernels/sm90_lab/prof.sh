# prof.sh TAG SO D CAUSAL S: ncu (full set) on the 4th launch of the attention kernel;
# appends to $OUT/details.txt and $OUT/raw.txt (stall and pipe metrics only)
tag=$1; shift
echo "##### $tag $*" >> $OUT/details.txt
ncu --clock-control none --launch-skip 3 --launch-count 1 -k regex:AttentionFwd --set full \
  --page details --print-units base python3 one.py "$@" >> $OUT/details.txt 2>&1
echo "##### $tag $*" >> $OUT/raw.txt
ncu --clock-control none --launch-skip 3 --launch-count 1 -k regex:AttentionFwd --set full \
  --page raw --print-units base python3 one.py "$@" 2>&1 | grep -E "issue_stalled|pipe_tensor|pipe_fma|pipe_alu|pipe_xu|lts__t_bytes.sum.per_second|dram__bytes.sum.per_second|gpu__time_duration.sum|sm__inst_executed.sum |smsp__inst_executed.sum " >> $OUT/raw.txt
echo "$tag done"
