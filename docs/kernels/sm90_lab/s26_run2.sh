# Twenty-third session, call 4 (`carry: [".whlx", ".lab12", ".lab32/so.tar.xz"]`, timeout_s 600).
# .lab32 is built here by `bash docs/kernels/sm90_lab/build.sh .lab32
# docs/kernels/sm90_lab/s26_c3.patch` (head = the committed file; c3 = d = 128 on three consumer
# warpgroups, 192-row tiles, 64-key blocks, Q read from shared memory; every other kernel
# SASS-identical to head's). .lab12 holds the bundle and the committed file (cmp).
#   1. c3's checks; if they all pass, two d = 128 passes, head and c3 interleaved with FA3, and
#      ncu at d = 128 full s = 4096, head and c3;
#   2. on an H200 only, the figure of the committed file through the bundle (call.sh's figure):
#      every product figure of it so far is from an H100.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$gpu"
mkdir -p .lab32x && tar -C .lab32x -xJf .lab32/so.tar.xz || exit 1
(
  BUDGET=${LAB_BUDGET:-170}
  WHEELS=.whl LAB=.lab32x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  check c3
  if grep -q 'CHECK: \([0-9]*\)/\1 passed' $OUT/check-c3.txt; then
    room 40 && bench1 1 128 head c3
    room 40 && bench1 2 128 c3 head
    for v in head c3; do room 15 && ncu1 $L/sm90_$v.so 128 0 4096; done
  fi
  room 0
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
  grep -E '^#####|gpu__time|sm__cycles_elapsed|pipe_tensor|pipe_xu|issue_active|inst_executed.sum|lts__t_sector|Grid Size' $OUT/ncu.txt | cut -c1-120
)
case "$gpu" in
  *H200*) cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu && figure ;;
  *) echo "not an H200: no figure" ;;
esac
