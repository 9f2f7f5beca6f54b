# Seventh session, device call 1 (run from the repository root, `carry: [".whl", ".lab7"]`):
# the baseline program's graph-replay protocol against its old eager one and the lab's figures,
# the lab bench of sm90.cu against FA3 and cuDNN, and ncu on sm90.cu and FA3 (long shapes).
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee $OUT/smi.txt
nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -Xptxas -v -shared -Xcompiler -fPIC \
  -o /tmp/sm90.so kernels/attention_fwd/sm90.cu > $OUT/ptxas.txt 2>&1 || { tail -20 $OUT/ptxas.txt; exit 1; }
root=$(pwd)
cd docs/kernels/sm90_lab
python3 harness.py /tmp/sm90.so --bench --fa3 --only-dtype bf16 --reps 10 > $OUT/lab-bench.txt 2>&1
tail -2 $OUT/lab-bench.txt
python3 baseline_check.py $OUT/lab-bench.txt "$root/worker/baselines/attention_fwd_baseline.py=new" \
  "$root/.lab7/old_baseline.py=old" > $OUT/baseline-check.txt 2>&1
for shape in "128 1 8192" "64 0 8192"; do
  for k in /tmp/sm90.so fa3; do
    echo "##### $k $shape" >> $OUT/ncu.txt
    timeout 120 ncu --clock-control none --kernel-name-base demangled -k regex:'AttentionFwd|FlashAttnFwd' \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section LaunchStats \
      --metrics sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed \
      python3 one.py $k $shape >> $OUT/ncu.txt 2>&1
  done
done
grep -E '^#####|Duration|SM Frequency|Compute \(SM\) Throughput|pipe_tensor_cycles|pipe_xu|Issue Slots Busy|Registers Per|Grid Size' $OUT/ncu.txt | head -80
python3 cmp.py $OUT/lab-bench.txt --vs fa3 | tail -3
cat $OUT/baseline-check.txt
