# Fourteenth session, device call 6 (`carry: [".lab14"]`): ncu on sm90_base (a8e3945) and FA3 at
# the two weakest regions' shapes, d = 64 causal s = 2048 (two consumers) and d = 128 causal
# s = 4096 (the pool): time, clock, tensor and exponential pipes, issue slots, warp stalls, L2 hit
# rate and DRAM traffic, on the fourth call of each (after three warm-up calls).
LAB=.lab14 source docs/kernels/sm90_lab/lab.sh || exit 1
for shape in "64 1 2048" "128 1 4096"; do
  for k in $L/sm90_base.so fa3; do
    echo "##### $(basename $k) $shape" >> $OUT/ncu.txt
    timeout 120 ncu --clock-control none --kernel-name-base demangled --launch-skip 3 \
      --launch-count 1 -k regex:'AttentionFwd|FlashAttnFwd' \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
      --section LaunchStats --section MemoryWorkloadAnalysis \
      --metrics sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,smsp__inst_executed.sum \
      python3 one.py $k $shape >> $OUT/ncu.txt 2>&1
  done
done
grep -E '^#####|Duration|SM Frequency|pipe_tensor_cycles|pipe_xu|Issue Slots Busy|lts__t_sector_hit|dram__bytes_read|smsp__inst_executed.sum|Grid Size|Stall' $OUT/ncu.txt | head -90
