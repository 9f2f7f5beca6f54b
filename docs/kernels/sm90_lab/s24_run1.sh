# Twenty-second session, device call 3 (`carry: [".whlx", ".lab12", ".lab28/so.tar.xz"]`,
# timeout_s 600): d = 256, the weakest head dimension (0.98-0.99 of FA3), and the committed file's
# figure.
#   1. c64 (`s24_c64.patch`: d = 256 causal on 64-key blocks at every length, not only s <= 1024):
#      checks, then two d = 256 bench passes against head, interleaved with FA3;
#   2. ncu at d = 256, bf16, sm90.cu (head) against FA3, every launch of one call after three
#      warm-up calls (one.py with ONE_RANGE): causal s = 8192, full s = 8192, full s = 512 (the
#      lowest scenario through the bundle): time, clock, tensor pipe, issue slots, instructions,
#      warp stalls;
#   3. the figure of the committed file through the bundle (s15_run3.sh; .lab12/sm90.cu is the
#      committed file; NODE_SECONDS default 330).
# .lab28 is built here by `bash docs/kernels/sm90_lab/build.sh .lab28 docs/kernels/sm90_lab/s24_c64.patch`;
# .whlx and .lab12 as in s23_run1.sh.
ROOT=$PWD
python3 docs/kernels/sm90_lab/wheelx.py unpack .whlx/*.whl.tar.xz /tmp/wheels > /dev/null || exit 1
mkdir -p .whl .whl2 && mv /tmp/wheels/fa3*.whl .whl/ && mv /tmp/wheels/*.whl .whl2/ || exit 1
mkdir -p .lab28x && tar -C .lab28x -xJf .lab28/so.tar.xz || exit 1
(
  BUDGET=${LAB_BUDGET:-240}
  WHEELS=.whl LAB=.lab28x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  nvidia-smi --query-gpu=name --format=csv,noheader
  check c64
  bench1 1 256 head c64
  bench1 2 256 c64 head
  summary d256-1 d256-2
  export ONE_RANGE=1
  for shape in "256 1 8192" "256 0 8192" "256 0 512"; do
    for k in $L/sm90_head.so fa3; do
      room 25 || break
      echo "##### $(basename $k) $shape" >> $OUT/ncu.txt
      timeout 60 ncu --clock-control none --kernel-name-base demangled --profile-from-start off \
        -k regex:'AttentionFwd|FlashAttnFwd' --section WarpStateStats --section LaunchStats \
        --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed,sm__instruction_throughput.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_sector_hit_rate.pct,l1tex__m_xbar2l1tex_read_bytes.sum.per_second \
        python3 one.py $k $shape >> $OUT/ncu.txt 2>&1
    done
  done
  room 0
  grep -E '^#####|^  [A-Za-z_]+.*\(|gpu__time|sm__cycles_elapsed|pipe_tensor|pipe_xu|issue_active|inst_executed.sum|lts__t_sector|xbar2l1tex|Grid Size|Registers Per|Warp Cycles Per Issued' $OUT/ncu.txt | cut -c1-150 | head -120
)
# At most 8 files come back: the lab's in lab.tgz, ncu.txt, the figure's verify and bench reports
# and its results.tgz.
(cd $OUT && tar -czf lab.tgz check-*.txt bench-*.txt && rm -f check-*.txt bench-*.txt)
mkdir -p /tmp/fig && cd "$ROOT" &&
  OUT=/tmp/fig NODE_SECONDS=${NODE_SECONDS:-330} bash docs/kernels/sm90_lab/s15_run3.sh
cp /tmp/fig/02-verify.txt /tmp/fig/03-bench.txt /tmp/fig/results.tgz $OUT/
