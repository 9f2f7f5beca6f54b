# Sixteenth session, device call 4 (`carry: [".whl", ".lab16"]`): where causal inputs lose to FA3
# at d = 128 while full ones of the same length are level. ncu on sm90.cu (the committed file,
# built as .lab16/sm90_new.so) and FA3, every launch of one call after three warm-up calls
# (one.py with ONE_RANGE), at d = 128 causal and full s = 16384 and causal s = 2048: time, clock,
# tensor and exponential pipes, issue slots, instructions, warp stalls, L2 hit rate.
WHEELS=.whl LAB=.lab16 source docs/kernels/sm90_lab/lab.sh || exit 1
export ONE_RANGE=1
for shape in "128 1 16384" "128 0 16384" "128 1 2048"; do
  for k in $L/sm90_new.so fa3; do
    echo "##### $(basename $k) $shape" >> $OUT/ncu.txt
    timeout 150 ncu --clock-control none --kernel-name-base demangled --profile-from-start off \
      -k regex:'AttentionFwd|FlashAttnFwd' \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
      --section LaunchStats --section MemoryWorkloadAnalysis \
      --metrics sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum \
      python3 one.py $k $shape >> $OUT/ncu.txt 2>&1
  done
done
grep -E '^#####|^  [A-Za-z_]+.*\(|Duration|SM Frequency|pipe_tensor_cycles|pipe_xu|Issue Slots Busy|lts__t_sector_hit|smsp__inst_executed.sum|Grid Size|Stall|Warp Cycles Per Issued' $OUT/ncu.txt | head -150
