# Sourced from the repository root by a device-call script that carries .whlx (wheelx.py's
# xz-packed fa3-fwd and cudnn-frontend wheels) and .lab12 (the bundle and the committed file):
#   wheels        unpacks .whlx into .whl (fa3-fwd, for lab.sh) and .whl2 (cudnn-frontend), where
#                 s15_run3.sh looks for them;
#   figure [FILE] packs the lab's files in $OUT into $OUT/lab.tgz, then runs s15_run3.sh on FILE
#                 (default the committed file, .lab12/sm90.cu) (verify
#                 --scenarios all and the bench with fa3 and cudnn, through the bundle) into
#                 /tmp/fig and brings back its verify and bench reports and results.tgz: a call
#                 returns at most 8 files. NODE_SECONDS (default 420) bounds the node run;
#   pack_lab      the lab's files in $OUT into $OUT/lab.tgz alone (a call returns at most 8);
#   lab_end CARD  after a lab: on an H200 (CARD, nvidia-smi's name), or on any card with
#                 FIGURE_ANY set, unless NO_FIGURE is set, figure (NODE_SECONDS default 340);
#                 elsewhere pack_lab. Lists $OUT;
#   verify_only [FILE]  figure with s15_run3.sh's verify --scenarios all alone (VERIFY_ONLY=1,
#                 NODE_SECONDS default 200);
#   ncu1 K D C S  from the lab folder (after lab.sh): ncu on every launch of one.py's fourth call
#                 of K ($L/sm90_V.so or fa3) at head dim D, causal C, length S, into $OUT/ncu.txt:
#                 time, clock, tensor and XU pipes, issue, instructions, L2, warp cycles per
#                 instruction (as s24_run1.sh took them at d = 256).
#                 NCU_EXTRA adds metrics (comma-separated).
CALL_ROOT=$PWD

wheels() {
  python3 docs/kernels/sm90_lab/wheelx.py unpack .whlx/*.whl.tar.xz /tmp/wheels > /dev/null &&
    mkdir -p .whl .whl2 && mv /tmp/wheels/fa3*.whl .whl/ && mv /tmp/wheels/*.whl .whl2/
}

figure() {
  (cd "$OUT" && ls | grep -v -e '^lab.tgz$' | tar -czf lab.tgz -T - && ls | grep -v '^lab.tgz$' | xargs rm -f)
  mkdir -p /tmp/fig && cd "$CALL_ROOT" &&
    OUT=/tmp/fig NODE_SECONDS=${NODE_SECONDS:-420} bash docs/kernels/sm90_lab/s15_run3.sh "$@"
  cp /tmp/fig/02-verify.txt /tmp/fig/results.tgz "$OUT"/
  if [ -z "$VERIFY_ONLY" ]; then cp /tmp/fig/03-bench.txt "$OUT"/; fi
}

pack_lab() {
  (cd "$OUT" && tar -czf /tmp/lab.tgz * && rm -f * && mv /tmp/lab.tgz .)
}

lab_end() {
  cd "$CALL_ROOT"
  if [[ ($1 == *H200* || -n $FIGURE_ANY) && -z $NO_FIGURE ]]; then
    NODE_SECONDS=${NODE_SECONDS:-340} figure
  else
    pack_lab
  fi
  ls "$OUT"
}

verify_only() {
  VERIFY_ONLY=1 NODE_SECONDS=${NODE_SECONDS:-200} figure "$@"
}

ncu1() {
  echo "##### $(basename $1) $2 $3 $4" >> "$OUT"/ncu.txt
  ONE_RANGE=1 timeout 60 ncu --clock-control none --kernel-name-base demangled --profile-from-start off \
    -k regex:'AttentionFwd|FlashAttnFwd' --section WarpStateStats --section LaunchStats \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_sector_hit_rate.pct,l1tex__m_xbar2l1tex_read_bytes.sum.per_second${NCU_EXTRA:+,$NCU_EXTRA} \
    python3 one.py "$@" >> "$OUT"/ncu.txt 2>&1
}
