# Thirty-fifth session, call 2 (`carry: [".whlx", ".lab12", ".lab77/so.tar.xz", ".lab77/sm90_os.cu",
# ".lab78/sm90_ot.cu"]`, timeout_s 600). Call 1 (s43_run1.sh, 61-lab.tgz) found t128 and t192
# 1.4-1.9% over head at d = 256 full s = 16384 in all three passes and even elsewhere, and os
# even. Here: tails.py (shapes of few, long d = 256 tiles, where the tail launch cuts most) on
# head, t128 and t192, two passes in opposite orders; then the figure through the product
# (verify --scenarios all, bench perf against fa3 and cudnn) of the file to adopt: ot (os and
# t128 together, .lab78/sm90_ot.cu: its kernels SASS-identical to os's but for d = 256's tail
# kernels, which are t128's) where t128's geomean over tails.py's shapes is at least 0.5% over
# head's in both passes, else os (.lab77/sm90_os.cu).
source docs/kernels/sm90_lab/call.sh && wheels > /dev/null || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab77/so.tar.xz || exit 1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
(
  WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  timeout 150 python3 tails.py $L/sm90_head.so $L/sm90_t128.so $L/sm90_t192.so --reps 10 \
    > $OUT/tails-1.txt 2>&1
  timeout 150 python3 tails.py $L/sm90_t192.so $L/sm90_t128.so $L/sm90_head.so --reps 10 \
    > $OUT/tails-2.txt 2>&1
  tail -n 3 $OUT/tails-*.txt
)
geo() { grep "GEOMEAN sm90_$2:" "$OUT/tails-$1.txt" | sed 's/.*: \([0-9.]*\)x.*/\1/'; }
file=.lab77/sm90_os.cu
if python3 -c "import sys; a = [float(x) for x in sys.argv[1:]]; sys.exit(0 if len(a) == 4 and a[1] >= 1.005 * a[0] and a[3] >= 1.005 * a[2] else 1)" \
    $(geo 1 head) $(geo 1 t128) $(geo 2 head) $(geo 2 t128); then
  file=.lab78/sm90_ot.cu
fi
echo "figure of $file" | tee $OUT/choice.txt
NODE_SECONDS=400 figure "$file"
ls "$OUT"
