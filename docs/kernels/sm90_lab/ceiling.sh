# ceiling.py's two runs on the GPU: `bash docs/kernels/sm90_lab/ceiling.sh SO` from the repository
# root, after call.sh's `wheels` (fa3-fwd in .whl), SO the built sm90.so to set against FA3. Each
# run is `ncu --clock-control none` (the clocks as in a timed run) on every launch between the
# script's profiler start and stop, into $OUT/ceiling-fa3.csv and $OUT/ceiling-sm90.csv (the
# script's own output into $OUT/ceiling-run.txt); the table is printed last (`python3 ceiling.py
# table` reads the same two files here).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
so=$(realpath "$1") || exit 1
here=docs/kernels/sm90_lab
for k in fa3 sm90; do
  arg=$k; [ $k = sm90 ] && arg=$so
  timeout ${CEILING_SECONDS:-240} ncu --clock-control none --kernel-name-base demangled --profile-from-start off \
    -k regex:'AttentionFwd|FlashAttnFwd|spin_kernel' --csv --page raw --print-units base \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed \
    --log-file $OUT/ceiling-$k.csv python3 $here/ceiling.py run $arg > /tmp/ceiling-run-$k.txt 2>&1
  echo "$k: rc $?, $(grep -c '^d=' /tmp/ceiling-run-$k.txt) scenarios, $(grep -c spin_kernel $OUT/ceiling-$k.csv) marks"
  { echo "##### $k"; cat /tmp/ceiling-run-$k.txt; } >> $OUT/ceiling-run.txt
done
python3 $here/ceiling.py table $OUT/ceiling-fa3.csv $OUT/ceiling-sm90.csv | tee $OUT/ceiling.txt
