# Ninth session, device calls 4a and 4b: which tiles the tail launch splits, through kseek. sm90_ms32
# and sm90_ms16 are the file with MinSplitBlocks lowered (d = 128: 64 -> 32 or 16; the two-consumer
# d = 64 kernel: none -> 8 or 4), so that the last wave of d = 128 at s = 4096 and of d = 64 causal
# at s <= 2048 is split too. 4a (`carry: [".whl"]`) lands the wheels as s9_run3.sh a does; 4b
# (`carry: [".lab9"]`: the bundle and the two variants) benches the three on eight bf16 scenarios
# with FA3 and cuDNN, takes the one with the best FA3 geometric mean, and runs verify --scenarios all
# and the perf bench on it. Usage: bash s9_run4.sh a|b
set -o pipefail
if [ "$1" = a ]; then ls -la .whl; exit 0; fi
ls .whl/*.whl || exit 1
mkdir -p /tmp/b && tar -C /tmp/b -xJf .lab9/kseek-bundle.tar.xz || exit 1
B=/tmp/b/kseek-bundle
mkdir -p $B/share/wheels && cp .whl/*.whl $B/share/wheels/
cp .lab9/sm90_*.cu $B/share/kernels/attention_fwd/
S=perf-bf16-d128-causal-s1024,perf-bf16-d128-causal-s2048,perf-bf16-d128-causal-s4096,perf-bf16-d128-causal-s8192,perf-bf16-d128-full-s4096,perf-bf16-d64-causal-s1024,perf-bf16-d64-causal-s2048,perf-bf16-d64-full-s2048
R=/tmp/r; mkdir -p $R/v
args=()
for v in sm90 sm90_ms32 sm90_ms16; do
  args+=("bench kernels/attention_fwd/$v.cu --problem attention_fwd --arch sm_90a --scenarios $S --baseline fa3,cudnn --max-seconds 1 --rounds 2")
done
(cd $B && OUT_DIR=$R/v timeout 240 ./gpu_node_run.sh "${args[@]}") > $R/v/node.txt 2>&1
best=sm90; best_g=0
for i in 1 2 3; do
  f=$(ls $R/v/0$i-bench.txt); v=$(sed -n 's/^\$ kseek bench kernels\/attention_fwd\/\([a-z0-9_]*\)\.cu.*/\1/p' $R/v/node.txt | sed -n ${i}p)
  g=$(python3 docs/gpu_runs/bench_baselines.py $f | sed -n 's/^fa3: geomean \([0-9.]*\).*/\1/p')
  echo "$v: $(python3 docs/gpu_runs/bench_baselines.py $f | grep -E '^fa3:|^cudnn:')"
  if python3 -c "import sys; sys.exit(0 if float('${g:-0}') > float('$best_g') else 1)"; then best=$v; best_g=$g; fi
done
echo "chosen: $best"
(cd $B && OUT_DIR=$R timeout 330 ./gpu_node_run.sh \
  "verify kernels/attention_fwd/$best.cu --problem attention_fwd --arch sm_90a --scenarios all" \
  "bench kernels/attention_fwd/$best.cu --problem attention_fwd --arch sm_90a --scenarios perf --baseline fa3,cudnn --max-seconds 1 --rounds 2") \
  > $R/node.txt 2>&1
grep -E '^\$|passed|geometric|exit' $R/node.txt
tar -C $R -czf $OUT/results.tgz .
