# Twenty-fourth session, call 1 (`carry: [".whlx", ".lab12", ".lab35/so.tar.xz"]`, timeout_s 560):
# the tile trace of the committed file (s27_tt.patch, built by `bash docs/kernels/sm90_lab/build.sh
# .lab35 docs/kernels/sm90_lab/s27_tt.patch`): at d = 256, do the consumers' O writes or the
# producer's store (issue, read) take a tile's end? Then the committed file's figure through the
# bundle (call.sh's figure), on whichever card came (the name is printed first).
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
mkdir -p .lab35x && tar -C .lab35x -xJf .lab35/so.tar.xz || exit 1
(
WHEELS=.whl LAB=.lab35x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
for shape in "256 0 512" "256 0 1024" "256 0 4096" "256 1 1024" "128 0 1024"; do
  timeout 60 python3 tt.py $L/sm90_tt.so $shape >> $OUT/tt.txt 2>&1
done
cat $OUT/tt.txt
)
cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu && NODE_SECONDS=420 figure
