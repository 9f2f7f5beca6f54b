# Twenty-third session, call 6 (`carry: [".whlx", ".lab12", ".lab33/so.tar.xz"]`, timeout_s 520): tile
# timelines. .lab33 is built here by `bash docs/kernels/sm90_lab/build.sh .lab33
# docs/kernels/sm90_lab/s26_tt.patch` (tt = the committed file with clock64 stamps per tile,
# tt.py's list; the steady loop's SASS keeps its 6 wgmma waits, no new spills).
# Per shape, tt.py prints the median cycles of each phase of a tile in CTA 0, to find the
# two to three blocks' worth of time a tile loses at its ends (d = 256 full s = 512: tensor pipe
# 63% busy against 92% on long inputs, for sm90.cu and FA3 alike, 23-ncu.txt).
# On an H200, then the figure of the committed file through the bundle (call.sh's figure).
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$gpu"
mkdir -p .lab33x && tar -C .lab33x -xJf .lab33/so.tar.xz || exit 1
(
WHEELS=.whl LAB=.lab33x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
for shape in "256 0 512" "256 0 1024" "256 0 4096" "128 0 1024" "128 0 4096" "128 1 1024" \
             "64 0 1024" "256 1 1024"; do
  timeout 60 python3 tt.py $L/sm90_tt.so $shape >> $OUT/tt.txt 2>&1
done
cat $OUT/tt.txt
)
case "$gpu" in
  *H200*) cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu && NODE_SECONDS=400 figure ;;
  *) echo "not an H200: no figure" ;;
esac
