# Twenty-third session, call 5 (`carry: [".whlx", ".lab12", ".lab32/so.tar.xz"]`, timeout_s 600).
#   1. ncu with DRAM bytes read and SM active cycles, head (the committed file, from .lab32)
#      against FA3, at d = 256 full s = 512 (where the H100 figures put sm90.cu level with FA3
#      and the H200's 4% behind) and d = 128 causal s = 1024;
#   2. on an H200 only, the figure of the committed file through the bundle.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$gpu"
mkdir -p .lab32x && tar -C .lab32x -xJf .lab32/so.tar.xz || exit 1
(
  BUDGET=${LAB_BUDGET:-120}
  WHEELS=.whl LAB=.lab32x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  export NCU_EXTRA=dram__bytes_read.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg
  for shape in "256 0 512" "128 1 1024" "256 0 1024"; do
    for k in $L/sm90_head.so fa3; do room 15 && ncu1 $k $shape; done
  done
  grep -E '^#####|gpu__time|sm__cycles_elapsed.avg |sm__cycles_active|dram__bytes|pipe_tensor|issue_active|lts__t_sector|Grid Size|Cluster Size' $OUT/ncu.txt | cut -c1-120
)
case "$gpu" in
  *H200*) cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu && figure ;;
  *) echo "not an H200: no figure" ;;
esac
