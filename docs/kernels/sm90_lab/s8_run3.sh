# Eighth session, device call 3 (`carry: [".whl", ".lab9"]`): ncu on sm90_base against sm90_dynS
# (same tiles in the same order on the same CTAs, handed over through the scheduler's shared-memory
# slots) at full (non-causal) s = 8192, d = 256 and d = 128, where dynS measured 2-5% slower.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/fa3*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
cd docs/kernels/sm90_lab
for shape in "256 0 8192" "128 0 8192"; do
  for k in base dynS; do
    echo "##### $k $shape" >> $OUT/ncu.txt
    timeout 150 ncu --clock-control none --launch-skip 3 --launch-count 1 -k regex:'AttentionFwd' \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section SchedulerStats \
      --metrics sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,smsp__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,sm__cycles_active.avg \
      python3 one.py ../../../.lab9/sm90_$k.so $shape >> $OUT/ncu.txt 2>&1
  done
done
grep -E '^#####|Duration|SM Frequency|pipe_tensor_cycles|lts__t_sector_hit|dram__bytes_read|sm__cycles_active|L2 Hit|Issue Slots|No Eligible|Stall|Warp Cycles Per Issued' $OUT/ncu.txt | head -120
